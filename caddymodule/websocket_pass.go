package caddymodule

import (
	"net/http"
	"time"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/llmbridge/llmbridge/caddymodule/observe"
	"github.com/llmbridge/llmbridge/codec"
)

// passSocket hands a Responses WebSocket handshake, its client key
// checked, to next (reverse_proxy, which carries WebSocket upgrades) with
// the upstream's credential in place of the client's, so that the
// upstream's own WebSocket mode serves the connection and keeps its state
// (websocket passthrough). The connection is recorded once, as one
// exchange, when it ends; its frames pass untouched.
func (h *Handler) passSocket(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler, client codec.Protocol) error {
	x := &observe.Exchange{Client: client, Upstream: h.upstream, Start: time.Now(), Stream: true}
	if h.clientKeys != nil {
		x.KeyName = h.clientKeyNames[h.authorized(client, r)]
	}
	if h.keys != nil {
		i, soonest := h.keys.Pick(x.Start.UnixNano())
		if i < 0 {
			h.noKey(w, x, soonest)
			h.record(r, x)
			return nil
		}
		x.Key = uint16(i + 1)
	}
	defer h.record(r, x)
	if cerr := h.rewriteHeaders(r, client, h.upstream, true, h.credentialOf(x)); cerr != nil {
		fail(w, x, client, cerr)
		return nil
	}
	sw := &socketStatusWriter{ResponseWriterWrapper: &caddyhttp.ResponseWriterWrapper{ResponseWriter: w}, x: x}
	return h.callUpstream(x, next, sw, r)
}

// socketStatusWriter notes the status the upstream answered a passed-
// through handshake with (101 when it switched protocols).
type socketStatusWriter struct {
	*caddyhttp.ResponseWriterWrapper
	x *observe.Exchange
}

// WriteHeader notes status and writes it.
func (sw *socketStatusWriter) WriteHeader(status int) {
	sw.x.Wrote(status)
	sw.x.UpstreamStatus = status
	sw.ResponseWriterWrapper.WriteHeader(status)
}

// Interface guards
var _ http.ResponseWriter = (*socketStatusWriter)(nil)
