package websocket

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	ws "github.com/coder/websocket"
	"go.uber.org/zap"

	"github.com/llmbridge/llmbridge/caddymodule/internal/pool"
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

// Host is the handler that serves the sockets, as a turn needs it: outside
// a Caddy server (no site chain to run it through), a turn is served by
// the host's ServeHTTP with the next handler of the handshake. Inside one,
// the turn goes through the server's routes, and so to the host again.
type Host interface {
	caddyhttp.MiddlewareHandler
}

// Config is what a handler's settings make of its connections, as the
// other rooms take theirs: the logger, the configuration's lifetime and
// the bounds.
type Config struct {
	// Logger tells of handshakes the library refused, connections that
	// closed, and turns that failed or panicked.
	Logger *zap.Logger
	// Lifetime is the configuration's context: its end closes the
	// connections served under it, so that clients reconnect to the
	// configuration that replaced it. Nil never ends them.
	Lifetime context.Context
	// MaxFrameSize is the largest frame accepted, the site's
	// max_request_body: a frame is a request. It also bounds the frames
	// queued behind the turn running, together, and the conversation a
	// connection keeps.
	MaxFrameSize int64
	// MaxEventSize bounds one SSE event of a turn's answer, and
	// MaxAnswerSize the JSON answer of a turn kept to be sent as an event.
	MaxEventSize, MaxAnswerSize int
	// MaxMemory is what the last conversations of all the connections may
	// hold together; past it a connection keeps none.
	MaxMemory int64
}

// Server serves the Responses WebSocket connections of one handler. It is
// made once per provisioning (New) and shared by its connections.
type Server struct {
	// Config is the settings the Server was made with; they are read as
	// connections open and turns run, so they change only before the
	// first connection (a test's quieter Logger).
	Config
	host    Host
	timings socketTimings
	// held is the memory the connections' last conversations hold.
	held atomic.Int64
}

// New returns the Server of host's sockets with the settings cfg.
func New(host Host, cfg Config) *Server {
	return &Server{Config: cfg, host: host, timings: defaultSocketTimings}
}

// IsUpgrade reports whether r asks to open a WebSocket: a GET with
// Upgrade: websocket. Whether it is a valid handshake is Handshake's.
func IsUpgrade(r *http.Request) bool {
	return r.Method == http.MethodGet && strings.EqualFold(r.Header.Get("Upgrade"), "websocket")
}

// Handshake checks the upgrade's headers and returns the error the
// client is refused with when they do not make a WebSocket handshake (the
// caller answers it in its error format, with Sec-WebSocket-Version: 13
// so that a client learns the version), or nil. A handshake is checked
// before it is passed to an upstream too, so that a malformed one costs
// no upstream call.
func Handshake(r *http.Request) *codec.Error {
	if !headerHasToken(r.Header, "Connection", "upgrade") || r.Header.Get("Sec-WebSocket-Version") != "13" || r.Header.Get("Sec-WebSocket-Key") == "" {
		return codec.NewError(mapping.ErrInvalidRequest, "invalid WebSocket handshake: Connection: Upgrade, Sec-WebSocket-Version: 13 and Sec-WebSocket-Key are required")
	}
	return nil
}

// Serve accepts the WebSocket r opens (Handshake has passed it; the
// handler has checked its client key) and serves the connection until it
// closes. next is the handshake's next handler, which turns served by the
// host outside a Caddy server go on to.
func (srv *Server) Serve(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler) {
	bh := &batchingHijacker{ResponseWriter: w}
	conn, err := ws.Accept(bh, r, nil)
	if err != nil {
		// Accept answered the client (a cross-origin handshake from a
		// browser is refused 403).
		srv.Logger.Debug("WebSocket handshake refused", zap.Error(err))
		return
	}
	s := &socket{srv: srv, conn: conn, batch: bh.conn, upgrade: r, next: next, timings: srv.timings, opened: time.Now(), frameLimit: srv.MaxFrameSize}
	if server, ok := r.Context().Value(caddyhttp.ServerCtxKey).(*caddyhttp.Server); ok {
		s.server = server
	}
	s.run()
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

// socket is one WebSocket connection in Responses WebSocket mode.
type socket struct {
	srv  *Server
	conn *ws.Conn
	// batch is the connection under conn, whose writes a turn gathers.
	batch   *batchedConn
	upgrade *http.Request // the handshake, which turn requests copy
	next    caddyhttp.Handler
	// server is the Caddy server the handshake came through, which runs
	// each turn through the site's handlers; nil outside one (then turns
	// go to the host with next).
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
	if s.srv.Lifetime != nil {
		// A configuration unloaded closes its connections: clients
		// reconnect to the one that replaced it.
		stop := context.AfterFunc(s.srv.Lifetime, func() { _ = s.conn.Close(ws.StatusGoingAway, "server configuration reloaded") })
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
	s.srv.Logger.Debug("WebSocket connection closed", zap.Int("turns", s.turns), zap.Duration("duration", time.Since(s.opened)))
}

// randomHex returns n random bytes in hex, for ids.
func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
