// Package websocket serves the Responses API's WebSocket mode: one
// connection per session, each response.create text frame a turn, its
// answer the events an HTTP stream would carry, one per text frame.
//
// It owns the transport from the upgrade on: the accepted connection
// (Server.Serve), its limits (the age limit, idle pings, the frame size),
// the queue of turns and the one runner that serves them in order, the
// HTTP body a turn becomes (its event's members, continued from the
// connection's last response), the writer that turns a turn's SSE answer
// into frames (gathered per upstream read into one write), the error
// events, the memory the connections' last conversations hold together,
// and the connections' Prometheus metrics (RegisterMetrics).
//
// A turn is not answered here: it is run as an HTTP request through the
// site's handler chain (or, outside a Caddy server, through the Host that
// serves the socket), so that it is translated, routed, failed over and
// recorded as the same request sent over HTTP would be. What happens
// before the upgrade (client keys, the handshake's refusals in the site's
// error format, the passthrough to an upstream's own WebSocket mode) is
// the handler's. Error events are written by the codec in the Responses
// format, which the handler package registers (with every family). This
// package imports the codec, mapping, sse,
// caddymodule/sessions (the Responses bodies a continued turn touches)
// and caddymodule/internal/pool, never the handler package; the
// WebSocket library github.com/coder/websocket is imported as ws.
package websocket
