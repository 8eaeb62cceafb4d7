package caddymodule

import (
	"fmt"
	"net/http"

	"github.com/llmbridge/llmbridge/caddymodule/writers"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"go.uber.org/zap"

	"github.com/llmbridge/llmbridge/caddymodule/failover"
	"github.com/llmbridge/llmbridge/caddymodule/sessions"
	"github.com/llmbridge/llmbridge/caddymodule/websocket"
	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/mapping"
)

// The handler's side of Responses WebSocket mode: which requests open a
// socket, the handshake's refusals in the client's error format, and the
// choice between serving the socket turn by turn (caddymodule/websocket)
// and passing it to the upstream's own WebSocket mode (websocket_pass.go).

// opensSocket reports whether r opens a WebSocket on a Responses
// generation path this handler serves, and the path's protocol. A
// failover target never does: the site that lists it serves the socket
// and sends it each turn.
func (h *Handler) opensSocket(w http.ResponseWriter, r *http.Request) (codec.Protocol, bool) {
	if !websocket.IsUpgrade(r) || failover.Of(w) != nil {
		return "", false
	}
	rt, ok := detectRoute(r.URL.Path)
	return rt.protocol, ok && rt.protocol.Family() == codec.OpenAIResponses && (h.client == "" || rt.protocol == h.client)
}

// serveSocket answers a WebSocket handshake on a Responses path of
// protocol client and serves the connection until it closes. A handshake
// without a valid client key, or that is not a valid WebSocket handshake,
// is refused in OpenAI's error format before the upgrade.
func (h *Handler) serveSocket(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler, client codec.Protocol) error {
	if h.clientKeys != nil && h.authorized(client, r) < 0 {
		h.logger.Debug("WebSocket handshake without a valid client key", zap.String("remote_addr", r.RemoteAddr))
		writers.WriteError(w, client, &codec.Error{Status: http.StatusUnauthorized, Kind: mapping.ErrAuthentication, Message: "invalid or missing API key"})
		return nil
	}
	if cerr := websocket.Handshake(r); cerr != nil {
		w.Header().Set("Sec-WebSocket-Version", "13")
		writers.WriteError(w, client, cerr)
		return nil
	}
	if h.WebSocket == "passthrough" && h.upstreamFor(client) == h.upstream {
		return h.passSocket(w, r, next, client)
	}
	h.sockets.Serve(w, r, next)
	return nil
}

// provisionSockets makes the server of the handler's sockets, from its
// settled limits (after their defaults), closed with the configuration's
// context, and registers the connections' metrics.
func (h *Handler) provisionSockets(ctx caddy.Context) error {
	memory := h.ConversationsSize
	if memory <= 0 {
		// Off (-1) keeps no stored responses; a connection's last one
		// is the protocol's own and is kept all the same.
		memory = sessions.DefaultConversationsSize
	}
	h.sockets = websocket.New(h, websocket.Config{Logger: h.logger, Lifetime: ctx.Context, MaxFrameSize: h.MaxRequestBody,
		MaxEventSize: max(int(h.MaxEventSize), writers.MaxResponseBody), MaxAnswerSize: writers.MaxResponseBody, MaxMemory: memory})
	if err := websocket.RegisterMetrics(ctx.GetMetricsRegistry()); err != nil {
		return fmt.Errorf("llmbridge: registering metrics: %v", err)
	}
	return nil
}
