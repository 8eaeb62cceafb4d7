package conversations

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"go.uber.org/zap"

	"github.com/llmbridge/llmbridge/caddymodule/internal/pool"
	"github.com/llmbridge/llmbridge/caddymodule/sessions"
	"github.com/llmbridge/llmbridge/caddymodule/state"
	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/mapping"
)

// Host is the handler, as a kept Responses conversation is served through
// it: the request is served as any request is, through its Turn.
type Host interface {
	// ServeContinued serves r, answering through w, as any request is
	// served: rejected, translated and answered by the handler. w is the
	// request's Turn (TurnOf), which the handler tells what the request
	// continues and whether its answer is kept once it has read it.
	ServeContinued(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler) error
}

// Responses continues the Responses conversations a site keeps: a request
// naming previous_response_id is sent on with the conversation it
// continues, and each answer's conversation is kept under the answer's id
// unless the request says store: false.
type Responses struct {
	// Store holds the conversations, each under its client's scope and
	// its answer's id.
	Store sessions.Conversations

	// MaxEventSize bounds an event of a streamed answer, read to find
	// the response it answered; MaxAnswerSize bounds a JSON answer kept
	// to read it, and the terminal event of a stream. Past either,
	// nothing is kept.
	MaxEventSize, MaxAnswerSize int

	// Logger tells of a conversation the store failed to keep or read.
	Logger *zap.Logger
}

// NewStore returns the conversation store of a site: the llmbridge app's
// state store when other instances share it, else one in the process's
// memory, bounded to size bytes. Conversations expire ttl after they were
// kept; a shared store holds conversations up to maxBody bytes.
func NewStore(ctx caddy.Context, size int64, ttl time.Duration, maxBody int) (sessions.Conversations, error) {
	app, err := state.AppOf(ctx)
	if err != nil {
		return nil, errors.New("state store: " + err.Error())
	}
	if st := app.Store(); st != nil && st.Shared() {
		return sessions.NewSharedConversations(st, ttl, maxBody), nil
	}
	return sessions.NewMemoryConversations(size, ttl), nil
}

// Serve serves body, the Responses create request r carries (read from it
// already), through host, answering through the request's Turn: the
// handler continues the conversation the request's previous_response_id
// names and says whether its answer is kept (store: false keeps nothing)
// when it decodes the request, so that the body is read once (a skim of
// its top level first cost a sixth of a large request's translation).
// keyName names the client's key on a site with client keys; otherwise
// credential is what the client presented (its bearer token or api-key),
// which scopes its conversations.
func (c *Responses) Serve(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler, host Host, body []byte, keyName, credential string) error {
	t := getTurn(w, c.MaxEventSize, c.MaxAnswerSize)
	defer putTurn(t)
	t.conversations = c
	t.scope = AppendScope(t.scopeBuf[:0], keyName, credential)
	t.asked = body
	// The handler reads the body once, into its own buffer.
	t.request.Reset(body)
	r.Body, r.ContentLength = &t.request, int64(len(body))
	err := host.ServeContinued(t, r, next)
	if answer, ok := t.answer(); ok {
		c.keep(r.Context(), append(t.scope, answer.ID...), t.asked, answer)
	}
	return err
}

// AppendScope appends the scope of a client's conversations, which
// prefixes their keys in the store: conversations are kept per client, as
// OpenAI keeps responses per project, so that no client continues
// another's by its id. On a site with client keys a client is its key,
// keyName (a name, so that a reload keeps the scope); on a site that
// passes the client's credential on, it is that credential, by its
// SHA-256; clients that present none share one scope.
func AppendScope(dst []byte, keyName, credential string) []byte {
	if keyName != "" {
		dst = append(dst, 'k')
		dst = append(dst, keyName...)
		return append(dst, 0)
	}
	if credential == "" {
		return append(dst, '-', 0)
	}
	sum := sha256.Sum256([]byte(credential))
	dst = append(dst, 'c')
	dst = hex.AppendEncode(dst, sum[:16])
	return append(dst, 0)
}

// keep keeps the conversation of an answered request (body) under key,
// the answer's id in its client's scope.
func (c *Responses) keep(ctx context.Context, key []byte, body []byte, answer sessions.Answer) {
	conv := pool.Get(len(body) + len(answer.Output) + 2)
	defer pool.Put(conv)
	*conv = sessions.AppendConversation((*conv)[:0], body, answer.Output)
	if err := c.Store.PutConversation(ctx, pool.String(key), *conv); err != nil {
		c.Logger.Warn("keeping a conversation failed", zap.String("response_id", answer.ID), zap.Error(err))
	}
}

// continuationError is the error a client gets for a previous_response_id
// that cannot be continued: 400 previous_response_not_found with the
// reason when the store has no such conversation, 503 when the store
// could not be asked.
func (c *Responses) continuationError(id string, err error) *codec.Error {
	if !errors.Is(err, sessions.ErrConversationNotFound) {
		c.Logger.Error("reading a conversation failed", zap.String("response_id", id), zap.Error(err))
		return &codec.Error{Status: http.StatusServiceUnavailable, Kind: mapping.ErrOverloaded,
			Message: "the conversation of previous_response_id " + id + " could not be read; retry later"}
	}
	why := err.Error()
	if !strings.HasPrefix(id, "resp_") {
		why = "it is not the id of a response (resp_...) llmbridge answered"
	}
	return &codec.Error{Status: http.StatusBadRequest, Kind: mapping.ErrInvalidRequest, Param: "previous_response_id",
		Code: "previous_response_not_found", Protocol: codec.OpenAIResponses,
		Message: "Previous response with id '" + id + "' not found: " + why + ". Send the whole conversation in input instead."}
}
