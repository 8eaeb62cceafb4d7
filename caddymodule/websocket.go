package caddymodule

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"github.com/coder/websocket"
	"go.uber.org/zap"

	"github.com/llmbridge/llmbridge/caddymodule/failover"
	"github.com/llmbridge/llmbridge/caddymodule/internal/pool"
	"github.com/llmbridge/llmbridge/caddymodule/sessions"
	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/mapping"
)

// WebSocket mode: OpenAI's Responses API also serves its generation path
// over a WebSocket, one connection per session. Each turn is a
// response.create text frame whose body is a Responses create body, and the
// answer is the events an HTTP stream carries, one per text frame. A turn
// continues the connection's last response by previous_response_id,
// sending only the new input items.
//
// llmbridge serves the socket itself, toward every upstream (OpenAI's and
// Azure's Responses APIs included): each turn is run as an HTTP request
// (a POST with stream true, without the upgrade's headers) through the
// site's whole handler chain, so that it is translated, routed, failed
// over, logged, traced and measured exactly as the same request sent over
// HTTP would be, and its answer's SSE events become frames. The
// connection keeps its last response's conversation (input and output
// items) to expand previous_response_id, so that store: false
// conversations continue without state anywhere else.
const (
	// socketMaxAge is how long a connection may stay open, as OpenAI
	// limits its own: the turn running then finishes, and the client is
	// told with an error event before the close.
	socketMaxAge = 60 * time.Minute

	// socketPingInterval is how often an idle connection is pinged, so
	// that a peer gone without a close is noticed; socketPingTimeout is
	// how long its pong may take.
	socketPingInterval = 30 * time.Second
	socketPingTimeout  = 15 * time.Second

	// maxQueuedTurns is how many response.create frames may wait behind
	// the turn running: a connection runs one response at a time and
	// queues the next ones first in, first out, as OpenAI does within a
	// stream, up to the number of responses OpenAI allows in flight on
	// one connection.
	maxQueuedTurns = 16

	// socketAgeGrace is how long past the age limit a running turn may
	// go on before the connection is cut.
	socketAgeGrace = 10 * time.Minute
)

// socketTimings are the connection limits; tests shorten them.
type socketTimings struct {
	maxAge, pingInterval, pingTimeout time.Duration
}

// defaultSocketTimings are the limits of production connections.
var defaultSocketTimings = socketTimings{socketMaxAge, socketPingInterval, socketPingTimeout}

// opensSocket reports whether r opens a WebSocket on a Responses
// generation path this handler serves. A failover target never does: the
// site that lists it serves the socket and sends it each turn.
func (h *Handler) opensSocket(w http.ResponseWriter, r *http.Request) bool {
	if r.Method != http.MethodGet || !strings.EqualFold(r.Header.Get("Upgrade"), "websocket") || failover.Of(w) != nil {
		return false
	}
	rt, ok := detectRoute(r.URL.Path)
	return ok && rt.protocol.Family() == codec.OpenAIResponses && (h.client == "" || rt.protocol == h.client)
}

// serveSocket answers a WebSocket handshake on a Responses path and
// serves the connection until it closes. A handshake without a valid
// client key, or that is not a valid WebSocket handshake, is refused in
// OpenAI's error format before the upgrade.
func (h *Handler) serveSocket(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler) error {
	rt, _ := detectRoute(r.URL.Path)
	client := rt.protocol
	if h.clientKeys != nil && h.authorized(client, r) < 0 {
		h.logger.Debug("WebSocket handshake without a valid client key", zap.String("remote_addr", r.RemoteAddr))
		writeError(w, client, &codec.Error{Status: http.StatusUnauthorized, Kind: mapping.ErrAuthentication, Message: "invalid or missing API key"})
		return nil
	}
	if !headerHasToken(r.Header, "Connection", "upgrade") || r.Header.Get("Sec-WebSocket-Version") != "13" || r.Header.Get("Sec-WebSocket-Key") == "" {
		w.Header().Set("Sec-WebSocket-Version", "13")
		writeError(w, client, codec.NewError(mapping.ErrInvalidRequest, "invalid WebSocket handshake: Connection: Upgrade, Sec-WebSocket-Version: 13 and Sec-WebSocket-Key are required"))
		return nil
	}
	if h.WebSocket == "passthrough" && h.upstreamFor(client) == h.upstream {
		return h.passSocket(w, r, next, client)
	}
	bh := &batchingHijacker{ResponseWriter: w}
	conn, err := websocket.Accept(bh, r, nil)
	if err != nil {
		// Accept answered the client (a cross-origin handshake from a
		// browser is refused 403).
		h.logger.Debug("WebSocket handshake refused", zap.Error(err))
		return nil
	}
	s := &socket{h: h, conn: conn, batch: bh.conn, upgrade: r, next: next, timings: defaultSocketTimings, opened: time.Now(), frameLimit: h.MaxRequestBody}
	if srv, ok := r.Context().Value(caddyhttp.ServerCtxKey).(*caddyhttp.Server); ok {
		s.server = srv
	}
	if h.socketTimings != nil {
		s.timings = *h.socketTimings
	}
	s.run()
	return nil
}

// headerHasToken reports whether the comma-separated values of header
// name hold token, case-insensitively.
func headerHasToken(hdr http.Header, name, token string) bool {
	for _, v := range hdr.Values(name) {
		for part := range strings.SplitSeq(v, ",") {
			if strings.EqualFold(strings.TrimSpace(part), token) {
				return true
			}
		}
	}
	return false
}

// socketSet is what a handler's WebSocket connections share: the memory
// their last conversations hold together, bounded by the conversations'
// size setting.
type socketSet struct {
	held atomic.Int64
	max  int64
}

// budget is the memory the connections' conversations may hold together.
func (ss *socketSet) budget() int64 { return ss.max }

// socket is one WebSocket connection in Responses WebSocket mode.
type socket struct {
	h    *Handler
	conn *websocket.Conn
	// batch is the connection under conn, whose writes a turn gathers.
	batch   *batchedConn
	upgrade *http.Request // the handshake, which turn requests copy
	next    caddyhttp.Handler
	// server is the Caddy server the handshake came through, which runs
	// each turn through the site's handlers; nil outside one (then turns
	// go to the handler with next).
	server     http.Handler
	timings    socketTimings
	opened     time.Time
	frameLimit int64

	// ctx ends when the connection does; ping is its idle pinger.
	ctx  context.Context
	ping *time.Timer

	// mu guards the queue and the runner's state.
	mu sync.Mutex
	// queue holds the frames waiting for the turn running, queued their
	// bytes.
	queue  []*[]byte
	queued int64
	// busy reports that a turn runner runs (or that the connection is
	// being closed at its age limit); running counts it.
	busy    bool
	running sync.WaitGroup
	// expired reports the age limit reached; closing, the connection
	// ending.
	expired, closing bool

	// The connection's state, read and written by the turn runner only.
	last  lastResponse
	turns int
}

// lastResponse is the connection's last answered response and its whole
// conversation, which a turn continues by naming id.
type lastResponse struct {
	id           string
	conversation []byte
}

// run serves the connection: this goroutine reads frames and queues them;
// a second runs the queued turns one at a time and exits when the queue is
// empty, so that an idle connection holds one goroutine. Timers close the
// connection at its age limit and ping it while it is idle. When the client
// goes (or closes), the turn running is cancelled at once.
func (s *socket) run() {
	ctx, cancel := context.WithCancel(context.WithoutCancel(s.upgrade.Context()))
	defer cancel()
	s.ctx = ctx
	if s.h.lifetime != nil {
		// A configuration unloaded closes its connections: clients
		// reconnect to the one that replaced it.
		stop := context.AfterFunc(s.h.lifetime, func() { _ = s.conn.Close(websocket.StatusGoingAway, "server configuration reloaded") })
		defer stop()
	}
	// One byte past the limit tells an oversized frame from one at the
	// limit, which readFrame answers before the library would close.
	s.conn.SetReadLimit(s.frameLimit + 1)
	metrics := globalSocketMetrics()
	metrics.opened()
	defer func() { metrics.closed(s.opened, s.turns) }()
	age := time.AfterFunc(s.timings.maxAge, s.ageLimitReached)
	defer age.Stop()
	// A turn whose frames a vanished client no longer takes (its TCP
	// connection open, its window full) would hold the connection past
	// the age limit, which is checked between turns: the connection is
	// cut a grace period after it.
	hard := time.AfterFunc(s.timings.maxAge+socketAgeGrace, func() { _ = s.conn.CloseNow() })
	defer hard.Stop()
	s.ping = time.AfterFunc(s.timings.pingInterval, s.pingIdle)
	defer s.ping.Stop()

	s.readFrames(ctx)
	cancel()
	s.mu.Lock()
	s.closing = true
	s.mu.Unlock()
	s.running.Wait()
	for _, f := range s.queue {
		pool.Put(f)
	}
	s.queue = nil
	s.forget()
	_ = s.conn.CloseNow()
	s.h.logger.Debug("WebSocket connection closed", zap.Int("turns", s.turns), zap.Duration("duration", time.Since(s.opened)))
}

// randomHex returns n random bytes in hex, for ids.
func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// provisionSockets keeps the configuration's context, whose end closes
// the connections served under it, and registers the connections'
// metrics.
func (h *Handler) provisionSockets(ctx caddy.Context) error {
	h.lifetime = ctx.Context
	h.sockets = &socketSet{max: h.ConversationsSize}
	if h.ConversationsSize <= 0 {
		// Off (-1) keeps no stored responses; a connection's last one
		// is the protocol's own and is kept all the same.
		h.sockets.max = sessions.DefaultConversationsSize
	}
	return globalSocketMetrics().register(ctx.GetMetricsRegistry())
}
