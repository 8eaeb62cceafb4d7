package caddymodule

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"github.com/dustin/go-humanize"
	"go.uber.org/zap"

	"github.com/llmbridge/llmbridge/caddymodule/failover"
	"github.com/llmbridge/llmbridge/caddymodule/internal/pool"
	"github.com/llmbridge/llmbridge/caddymodule/observe"
	"github.com/llmbridge/llmbridge/caddymodule/sessions"
	"github.com/llmbridge/llmbridge/caddymodule/state"
	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/mapping"
)

// provisionConversations checks the conversation settings and sets up
// the store: the llmbridge app's state store when other instances share
// it, else the handler's own memory.
func (h *Handler) provisionConversations(ctx caddy.Context) error {
	if h.ConversationsSize < -1 {
		return errors.New("conversations_size must be a size in bytes, or -1 for none")
	}
	if h.ConversationsTTL < 0 {
		return errors.New("conversations_ttl must be positive")
	}
	h.conversations = nil
	if h.ConversationsSize == -1 {
		return nil
	}
	size, ttl := h.ConversationsSize, time.Duration(h.ConversationsTTL)
	if size == 0 {
		size = sessions.DefaultConversationsSize
	}
	if ttl == 0 {
		ttl = sessions.DefaultConversationsTTL
	}
	app, err := state.AppOf(ctx)
	if err != nil {
		return fmt.Errorf("state store: %v", err)
	}
	if st := app.Store(); st != nil && st.Shared() {
		h.conversations = sessions.NewSharedConversations(st, ttl, DefaultMaxRequestBody)
		return nil
	}
	h.conversations = sessions.NewMemoryConversations(size, ttl)
	return nil
}

// parseStoreBounds parses the arguments of a store subdirective:
//
//	<name> <size>|off [<ttl>]
//
// off is the size -1; example is a size for the error messages.
func parseStoreBounds(d *caddyfile.Dispenser, name, example string) (int64, caddy.Duration, error) {
	args := d.RemainingArgs()
	if len(args) < 1 || len(args) > 2 {
		return 0, 0, d.Errf("%s takes a size (or off) and an optional duration", name)
	}
	if args[0] == "off" {
		if len(args) > 1 {
			return 0, 0, d.Errf("%s off takes no duration", name)
		}
		return -1, 0, nil
	}
	n, err := humanize.ParseBytes(args[0])
	if err != nil || n == 0 || n > 1<<40 {
		return 0, 0, d.Errf("%s: want a size such as %s, or off, got %q", name, example, args[0])
	}
	var ttl time.Duration
	if len(args) == 2 {
		ttl, err = caddy.ParseDuration(args[1])
		if err != nil || ttl <= 0 {
			return 0, 0, d.Errf("%s: want a duration such as 1h, got %q", name, args[1])
		}
	}
	return int64(n), caddy.Duration(ttl), nil
}

// keepsConversations reports whether the handler keeps the conversation of
// r and continues the conversation r names: r creates a Responses answer
// that this handler translates, or that a failover site may have any of
// its targets answer. A site whose upstream speaks Responses itself passes
// previous_response_id and store through: the upstream keeps its own
// responses. A failover target leaves it to the site that invoked it.
func (h *Handler) keepsConversations(w http.ResponseWriter, r *http.Request) bool {
	if h.conversations == nil || r.Method != http.MethodPost || failover.Of(w) != nil {
		return false
	}
	rt, ok := detectRoute(r.URL.Path)
	if !ok || rt.protocol.Family() != codec.OpenAIResponses || h.client != "" && rt.protocol != h.client {
		return false
	}
	return h.failover != nil || h.upstreamFor(rt.protocol).Family() != codec.OpenAIResponses
}

// serveConversation serves a Responses create request of a site that
// keeps conversations: a request naming previous_response_id is sent on
// with the conversation it continues, and the answer's conversation is
// kept under the answer's id unless the request says store: false.
// Everything else (rejections, translation, the answer) is ServeHTTP's.
func (h *Handler) serveConversation(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler) error {
	client := codec.OpenAIResponses
	key := -1
	if h.clientKeys != nil {
		if key = h.authorized(client, r); key < 0 {
			// Nothing about kept conversations is told to a client
			// without a key; serve answers it.
			return h.serve(w, r, next)
		}
	}
	var keyBuf [128]byte
	scope := h.appendConversationScope(keyBuf[:0], r, key)
	buf := pool.Get(requestBufferSize(r))
	defer pool.Put(buf)
	body, cerr := readBody(r, h.MaxRequestBody, *buf)
	*buf = body
	if cerr != nil {
		// serve reads the body again and answers the same error.
		r.Body = io.NopCloser(io.MultiReader(bytes.NewReader(body), r.Body))
		return h.serve(w, r, next)
	}
	ask := sessions.ReadAsk(body)
	if ask.Previous != "" {
		conversation, err := h.conversations.Conversation(r.Context(), bytesString(append(scope, ask.Previous...)))
		if err != nil {
			h.refuseConversation(w, r, key, h.conversationError(ask.Previous, err))
			return nil
		}
		expanded := pool.Get(len(body) + len(conversation) + 64)
		defer pool.Put(expanded)
		*expanded = sessions.ExpandBody((*expanded)[:0], body, conversation)
		body = *expanded
	}
	cr := getConversationRecorder(w, int(h.MaxEventSize))
	defer putConversationRecorder(cr)
	// serve reads the body once, into its own buffer.
	cr.request.Reset(body)
	r.Body, r.ContentLength = &cr.request, int64(len(body))
	if !ask.Store {
		return h.serve(w, r, next)
	}
	err := h.serve(cr, r, next)
	if answer, ok := cr.answer(); ok {
		h.keepConversation(r, append(scope, answer.ID...), body, answer)
	}
	return err
}

// appendConversationScope appends the scope of r's conversations, which
// prefixes their keys in the store: conversations are kept per client, as
// OpenAI keeps responses per project, so that no client continues
// another's by its id. On a site with client_keys a client is its key
// (key, the index of its key, named so that a reload keeps the scope);
// on a site that passes the client's credential on, it is that
// credential, by its SHA-256; clients that present none share one scope.
func (h *Handler) appendConversationScope(dst []byte, r *http.Request, key int) []byte {
	if key >= 0 {
		dst = append(dst, 'k')
		dst = append(dst, h.clientKeyNames[key]...)
		return append(dst, 0)
	}
	cred := bearerToken(r)
	if cred == "" {
		cred = r.Header.Get("Api-Key")
	}
	if cred == "" {
		return append(dst, '-', 0)
	}
	sum := sha256.Sum256([]byte(cred))
	dst = append(dst, 'c')
	dst = hex.AppendEncode(dst, sum[:16])
	return append(dst, 0)
}

// keepConversation keeps the conversation of an answered request (body)
// under key, the answer's id in its client's scope.
func (h *Handler) keepConversation(r *http.Request, key []byte, body []byte, answer sessions.Answer) {
	conv := pool.Get(len(body) + len(answer.Output) + 2)
	defer pool.Put(conv)
	*conv = sessions.AppendConversation((*conv)[:0], body, answer.Output)
	if err := h.conversations.PutConversation(r.Context(), bytesString(key), *conv); err != nil {
		h.logger.Warn("keeping a conversation failed", zap.String("response_id", answer.ID), zap.Error(err))
	}
}

// refuseConversation answers e, a request's conversation that cannot be
// continued, and records it as a refused request is (placeholders, access
// log fields, metrics, span), with the name of the client's key, key.
func (h *Handler) refuseConversation(w http.ResponseWriter, r *http.Request, key int, e *codec.Error) {
	keyName := ""
	if key >= 0 {
		keyName = h.clientKeyNames[key]
	}
	if h.failover != nil {
		h.failoverFail(w, r, keyName, e)
		return
	}
	x := &observe.Exchange{Client: codec.OpenAIResponses, Upstream: h.upstreamFor(codec.OpenAIResponses), Start: time.Now(), KeyName: keyName}
	h.tracing.Begin(r, x)
	fail(w, x, x.Client, e)
	h.record(r, x)
}

// conversationError is the error a client gets for a previous_response_id
// that cannot be continued: 400 previous_response_not_found with the
// reason when the store has no such conversation, 503 when the store
// could not be asked.
func (h *Handler) conversationError(id string, err error) *codec.Error {
	if !errors.Is(err, sessions.ErrConversationNotFound) {
		h.logger.Error("reading a conversation failed", zap.String("response_id", id), zap.Error(err))
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
