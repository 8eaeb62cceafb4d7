package caddymodule

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"time"

	"github.com/llmbridge/llmbridge/caddymodule/writers"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"github.com/dustin/go-humanize"

	"github.com/llmbridge/llmbridge/caddymodule/conversations"
	"github.com/llmbridge/llmbridge/caddymodule/failover"
	"github.com/llmbridge/llmbridge/caddymodule/internal/pool"
	"github.com/llmbridge/llmbridge/caddymodule/sessions"
	"github.com/llmbridge/llmbridge/codec"
)

// The conversations llmbridge keeps for the stateful APIs are served by
// caddymodule/conversations; this file is when the handler asks it to,
// and what it needs of the handler.

// provisionConversations checks the conversation settings and sets up
// the store of previous_response_id conversations: the llmbridge app's
// state store when other instances share it, else the handler's own
// memory.
func (h *Handler) provisionConversations(ctx caddy.Context) error {
	if h.ConversationsSize < -1 {
		return errors.New("conversations_size must be a size in bytes, or -1 for none")
	}
	if h.ConversationsTTL < 0 {
		return errors.New("conversations_ttl must be positive")
	}
	// A configured max_event_size bounds the events read for the answer,
	// as it bounds every other stream's (the default is set later, and
	// below the answer's own bound).
	h.conversations = conversations.Responses{Logger: h.logger, MaxEventSize: int(h.MaxEventSize), MaxAnswerSize: writers.MaxResponseBody}
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
	store, err := conversations.NewStore(ctx, size, ttl, DefaultMaxRequestBody)
	h.conversations.Store = store
	return err
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
	if h.conversations.Store == nil || r.Method != http.MethodPost || failover.Of(w) != nil {
		return false
	}
	rt, ok := detectRoute(r.URL.Path)
	if !ok || rt.protocol.Family() != codec.OpenAIResponses || h.client != "" && rt.protocol != h.client {
		return false
	}
	return h.failover != nil || h.upstreamFor(rt.protocol).Family() != codec.OpenAIResponses
}

// serveConversation serves a Responses create request of a site that
// keeps conversations (conversations.Responses); everything else about
// it (rejections, translation, the answer) is serve's.
func (h *Handler) serveConversation(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler) error {
	keyName, credential := "", ""
	if h.clientKeys != nil {
		key := h.authorized(codec.OpenAIResponses, r)
		if key < 0 {
			// Nothing about kept conversations is told to a client
			// without a key; serve answers it.
			return h.serve(w, r, next)
		}
		keyName = h.clientKeyNames[key]
	} else if credential = bearerToken(r); credential == "" {
		credential = r.Header.Get("Api-Key")
	}
	buf := pool.Get(requestBufferSize(r))
	defer pool.Put(buf)
	body, cerr := readBody(r, h.MaxRequestBody, *buf)
	*buf = body
	if cerr != nil {
		// serve reads the body again and answers the same error.
		r.Body = io.NopCloser(io.MultiReader(bytes.NewReader(body), r.Body))
		return h.serve(w, r, next)
	}
	return h.conversations.Serve(w, r, next, (*conversationHost)(h), body, keyName, credential)
}

// conversationHost is the handler as conversations.Responses sees it.
type conversationHost Handler

// ServeContinued serves the continued request as any request is served.
func (ch *conversationHost) ServeContinued(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler) error {
	return (*Handler)(ch).serve(w, r, next)
}

// Interface guards
var _ conversations.Host = (*conversationHost)(nil)
