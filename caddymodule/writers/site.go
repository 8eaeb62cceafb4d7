package writers

import (
	"errors"
	"net/http"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"github.com/llmbridge/llmbridge/caddymodule/observe"
	"github.com/llmbridge/llmbridge/caddymodule/streams"
	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/mapping"
	"go.uber.org/zap"
)

// MaxResponseBody bounds a non-streamed upstream response that llmbridge
// holds to translate or check, and a message framed for a client that
// does not read SSE.
const MaxResponseBody = 64 << 20

// Site is what the writers of one site share, set when the handler is
// provisioned: the streams' settings (logger, metrics, the key pool, the
// event bounds), what the writers tell the handler, and where a stream's
// decode memory goes when it opens.
type Site struct {
	streams.Config

	// Host is told of the upstream's answer as it arrives.
	Host Host

	// Recycle takes the decode memory a translated request hands on
	// when its stream opens (codec.Request.KeepForStream), for the next
	// request to decode into.
	Recycle func(codec.Scratch)
}

// Host is the handler, as the writers tell it of the upstream's answer.
type Host interface {
	// NoteUpstream takes the upstream's status and header as they
	// arrive (for the key pool, the failover writer and the signer's
	// hint), before anything is written to the client.
	NoteUpstream(w http.ResponseWriter, x *observe.Exchange, status int, hdr http.Header)
}

// StreamOpener is told when a writer's answer turns out to be a stream:
// nothing retries a stream once it has begun, so what a retry would need
// of the first attempt goes back then.
type StreamOpener interface {
	StreamOpened()
}

// UpstreamFailed answers a request whose upstream never responded
// (connection refused, DNS failure, timeout before headers). The message
// names no address: errors must not leak the internal topology.
func (site *Site) UpstreamFailed(w http.ResponseWriter, client codec.Protocol, err error, x *observe.Exchange) {
	status := http.StatusBadGateway
	var he caddyhttp.HandlerError
	if errors.As(err, &he) && he.StatusCode >= 400 {
		status = he.StatusCode
	}
	site.Logger.Warn("upstream request failed", zap.Int("status", status), zap.Error(err))
	e := &codec.Error{Status: status, Kind: mapping.KindForStatus(status), Message: "upstream request failed: " + http.StatusText(status)}
	x.Status = WriteError(w, client, e)
	x.ErrReason = "upstream_unreachable"
}
