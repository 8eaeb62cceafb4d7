package caddymodule

import (
	"net/http"
	"time"

	"github.com/llmbridge/llmbridge/caddymodule/writers"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"go.uber.org/zap"

	"github.com/llmbridge/llmbridge/caddymodule/observe"
	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/mapping"
)

// fail answers e in protocol p's error format and notes it as an error of
// llmbridge's own.
func fail(w http.ResponseWriter, x *observe.Exchange, p codec.Protocol, e *codec.Error) {
	x.Status = writers.WriteError(w, p, e)
	x.ErrReason = observe.KindName(e.Kind)
}

// record publishes x: placeholders {http.llmbridge.*}, an "llmbridge"
// object in the access log entry, the metrics and the span attributes.
func (h *Handler) record(r *http.Request, x *observe.Exchange) {
	if x.Status == 0 {
		// Nothing was written: reverse_proxy returned an error that Caddy
		// answers, or a client went away.
		x.Status = observe.StatusClientGone
	}
	ttft, haveTTFT := x.TTFT()
	var stop string
	if x.Stop != mapping.StopNone {
		stop = x.Stop.String()
	}
	errType := x.ErrorType()
	cost := h.prices.Cost(x)
	h.limits.Settle(x, cost)
	// When the answer was dropped for another target's, the
	// placeholders and the access log are that one's.
	repl, _ := r.Context().Value(caddy.ReplacerCtxKey).(*caddy.Replacer)
	if repl != nil && !x.Discarded {
		observe.MapPlaceholders(repl, x, stop, errType, cost, ttft, haveTTFT)
	}
	if extra, ok := r.Context().Value(caddyhttp.ExtraLogFieldsCtxKey).(*caddyhttp.ExtraLogFields); ok && !x.Discarded {
		extra.Set(zap.Dict("llmbridge", observe.LogFields(x, repl, stop, errType, cost, ttft, haveTTFT)...))
	}
	if x.Status < 300 && (x.Stop == mapping.StopOther || x.Stop == mapping.StopNone) && x.Client.Family() != x.Upstream.Family() {
		// A stop the client's protocol cannot say exactly (an unknown
		// reason, or none at all) is traced, not hidden.
		h.logger.Debug("upstream stop reason has no exact equivalent for the client",
			zap.String("client_protocol", string(x.Client)), zap.String("upstream_protocol", string(x.Upstream)),
			zap.String("stop_reason", x.Stop.String()))
	}
	h.metrics.Record(x, ttft, haveTTFT)
	if x.Model != "" && !x.Endpoint {
		h.metrics.RecordGenAI(x, observe.ProviderName(x.Upstream, h.Dialect), errType, time.Since(x.Start))
	}
	h.tracing.Finish(x, repl, stop, errType, cost)
}

// callUpstream sends r to next (reverse_proxy), which writes the answer
// into w: each call of the upstream, a retry included, is timed from here
// (Bedrock's latency metrics) and gets its client span (observe.Tracing.StartCall).
func (h *Handler) callUpstream(x *observe.Exchange, next caddyhttp.Handler, w http.ResponseWriter, r *http.Request) error {
	x.UpstreamSent = time.Now()
	var sent []byte
	if sb, ok := r.Body.(*writers.Sent); ok && x.Tel != nil {
		sent = sb.Body
	}
	return next.ServeHTTP(w, h.tracing.StartCall(x, r, sent))
}
