package caddymodule

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"go.uber.org/zap"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/mapping"
)

// exchange is what one request through llmbridge did: the protocols and
// models on both sides, the status the client got, the usage and stop
// reason the upstream reported, and when the response started. The
// response writers fill it in; record publishes it as placeholders, access
// log fields and metrics before ServeHTTP returns.
type exchange struct {
	client, upstream     codec.Protocol
	model, upstreamModel string

	status    int
	usage     codec.Usage
	stop      codec.StopReason
	errReason string // why llmbridge answered an error itself, or ""
	// dropped are the paths the drop setting removed from the request
	// body (policy.go).
	dropped []string

	upstreamSent  time.Time // the request went to the upstream (translated requests)
	upstreamStart time.Time // the upstream's response header arrived
	upstreamBody  time.Time // the first bytes of the upstream's stream arrived
	firstWrite    time.Time // the first byte of the response went to the client
}

// setModels records the client's and the upstream's model. Both are
// copied: they may alias the request body, whose buffer is reused once
// the request is done, while placeholders, log fields and metric labels
// keep them longer.
func (x *exchange) setModels(model, upstreamModel string) {
	x.model = strings.Clone(model)
	if upstreamModel == model {
		x.upstreamModel = x.model
	} else {
		x.upstreamModel = strings.Clone(upstreamModel)
	}
}

// fail answers e in protocol p's error format and notes it as an error of
// llmbridge's own.
func (x *exchange) fail(w http.ResponseWriter, p codec.Protocol, e *codec.Error) {
	x.status = writeError(w, p, e)
	x.errReason = kindName(e.Kind)
}

// responseStarted notes that the upstream's response header arrived.
func (x *exchange) responseStarted() {
	if x.upstreamStart.IsZero() {
		x.upstreamStart = time.Now()
	}
}

// wrote notes that the client has been sent part of the response, with
// status.
func (x *exchange) wrote(status int) {
	if x.firstWrite.IsZero() {
		x.firstWrite = time.Now()
	}
	if x.status == 0 {
		x.status = status
	}
}

// observe takes usage and the stop reason from a canonical stream event.
func (x *exchange) observe(ev *codec.Event) {
	switch ev.Type {
	case codec.EventStart, codec.EventUsage:
		if ev.Usage.Known {
			x.usage = ev.Usage
		}
	case codec.EventStop:
		x.stop = ev.StopReason
	}
}

// observeResponse takes usage and the stop reason from a complete response.
func (x *exchange) observeResponse(resp *codec.Response) {
	if resp.Usage.Known {
		x.usage = resp.Usage
	}
	x.stop = resp.StopReason
}

// latency returns how long the upstream has taken, in Bedrock's terms:
// from sending the request to now, and to the first byte of its answer
// (a stream's first bytes, else the response header). Milliseconds are
// rounded up: no answer takes none. Zero when the request was not sent.
func (x *exchange) latency() codec.Latency {
	if x.upstreamSent.IsZero() {
		return codec.Latency{}
	}
	now := time.Now()
	first := x.upstreamBody
	if first.IsZero() {
		first = x.upstreamStart
	}
	if first.IsZero() || first.After(now) {
		first = now
	}
	ms := func(d time.Duration) int64 { return int64((max(0, d) + time.Millisecond - 1) / time.Millisecond) }
	return codec.Latency{InvocationMs: ms(now.Sub(x.upstreamSent)), FirstByteMs: ms(first.Sub(x.upstreamSent))}
}

// ttft returns the time from the upstream's response header to the first
// byte written to the client, and whether both happened.
func (x *exchange) ttft() (time.Duration, bool) {
	if x.upstreamStart.IsZero() || x.firstWrite.IsZero() {
		return 0, false
	}
	return max(0, x.firstWrite.Sub(x.upstreamStart)), true
}

// Placeholder names, set on the request's replacer; the access log fields
// have the same names in an "llmbridge" object.
const (
	phPrefix = "http.llmbridge."
)

// record publishes x: placeholders {http.llmbridge.*}, an "llmbridge"
// object in the access log entry, and the metrics.
func (h *Handler) record(r *http.Request, x *exchange) {
	if x.status == 0 {
		// Nothing was written: reverse_proxy returned an error that Caddy
		// answers, or a client went away.
		x.status = 499
	}
	ttft, haveTTFT := x.ttft()
	var stop string
	if x.stop != mapping.StopNone {
		stop = x.stop.String()
	}
	if repl, ok := r.Context().Value(caddy.ReplacerCtxKey).(*caddy.Replacer); ok {
		// One provider answers all the placeholders: setting each one
		// grew the replacer's map on every request.
		ph := placeholders{x: x, stop: stop, ttft: ttft, haveTTFT: haveTTFT}
		repl.Map(ph.get)
	}
	if extra, ok := r.Context().Value(caddyhttp.ExtraLogFieldsCtxKey).(*caddyhttp.ExtraLogFields); ok {
		fields := make([]zap.Field, 0, 8)
		fields = append(fields, zap.String("client_protocol", string(x.client)), zap.String("upstream_protocol", string(x.upstream)))
		if x.model != "" {
			fields = append(fields, zap.String("model", x.model), zap.String("upstream_model", x.upstreamModel))
		}
		if x.usage.Known {
			fields = append(fields, zap.Int64("input_tokens", x.usage.InputTokens), zap.Int64("output_tokens", x.usage.OutputTokens))
		}
		if stop != "" {
			fields = append(fields, zap.String("stop_reason", stop))
		}
		if haveTTFT {
			fields = append(fields, zap.Int64("ttft_ms", ttft.Milliseconds()))
		}
		extra.Set(zap.Dict("llmbridge", fields...))
	}
	if x.status < 300 && (x.stop == mapping.StopOther || x.stop == mapping.StopNone) && x.client.Family() != x.upstream.Family() {
		// A stop the client's protocol cannot say exactly (an unknown
		// reason, or none at all) is traced, not hidden.
		h.logger.Debug("upstream stop reason has no exact equivalent for the client",
			zap.String("client_protocol", string(x.client)), zap.String("upstream_protocol", string(x.upstream)),
			zap.String("stop_reason", x.stop.String()))
	}
	h.metrics.record(x, ttft, haveTTFT)
}

// placeholders resolves the {http.llmbridge.*} placeholders of one
// finished exchange.
type placeholders struct {
	x        *exchange
	stop     string
	ttft     time.Duration
	haveTTFT bool
}

// get is a caddy.ReplacerFunc. Usage, the stop reason and the time to
// first token are only defined when the upstream reported them.
func (p placeholders) get(key string) (any, bool) {
	name, ok := strings.CutPrefix(key, phPrefix)
	if !ok {
		return nil, false
	}
	x := p.x
	switch name {
	case "client_protocol":
		return string(x.client), true
	case "upstream_protocol":
		return string(x.upstream), true
	case "model":
		return x.model, true
	case "upstream_model":
		return x.upstreamModel, true
	case "input_tokens":
		return x.usage.InputTokens, x.usage.Known
	case "output_tokens":
		return x.usage.OutputTokens, x.usage.Known
	case "stop_reason":
		return p.stop, p.stop != ""
	case "ttft_ms":
		return p.ttft.Milliseconds(), p.haveTTFT
	}
	return nil, false
}

// kindNames name error kinds in metrics.
var kindNames = [...]string{
	mapping.ErrAPI:              "api_error",
	mapping.ErrInvalidRequest:   "invalid_request",
	mapping.ErrAuthentication:   "authentication",
	mapping.ErrPermission:       "permission",
	mapping.ErrNotFound:         "not_found",
	mapping.ErrRequestTooLarge:  "request_too_large",
	mapping.ErrRateLimit:        "rate_limit",
	mapping.ErrBilling:          "billing",
	mapping.ErrOverloaded:       "overloaded",
	mapping.ErrTimeout:          "timeout",
	mapping.ErrMethodNotAllowed: "method_not_allowed",
	mapping.ErrBadGateway:       "bad_gateway",
}

// kindName returns the metrics name of an error kind.
func kindName(k mapping.ErrorKind) string {
	if int(k) < len(kindNames) && kindNames[k] != "" {
		return kindNames[k]
	}
	return "error_" + strconv.Itoa(int(k))
}
