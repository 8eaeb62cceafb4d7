package caddymodule

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"go.uber.org/zap"

	"github.com/llmbridge/llmbridge/caddymodule/limits"
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
	errReason string // why llmbridge answered an error itself, or ""
	// dropped are the paths the drop setting removed from the request
	// body (policy.go).
	dropped []string

	start         time.Time // ServeHTTP began
	upstreamSent  time.Time // the request went to the upstream (translated requests)
	upstreamStart time.Time // the upstream's response header arrived
	upstreamBody  time.Time // the first bytes of the upstream's stream arrived
	firstWrite    time.Time // the first byte of the response went to the client

	// The small fields share one word.
	stop codec.StopReason
	// stream is whether the client asked for a streamed response.
	stream bool
	// endpoint is whether the request is for a listing or counting
	// endpoint rather than a generation.
	endpoint bool
	// discarded is whether a failover site dropped the answer for
	// another target's.
	discarded bool
	// key is the position plus one of the pooled upstream key the
	// request used, or 0.
	key uint16
	// attempts counts the targets a failover site tried, target is the
	// position of the one that answered in site's list; site is nil
	// outside a failover target.
	attempts, target uint8
	// keyName names the client key the request presented (client_keys),
	// or is "".
	keyName string
	// responseModel is the model the upstream said answered, or "".
	responseModel string
	// streamErr is the error.type of the error that ended a stream, or "".
	streamErr string
	// upstreamStatus is the status the upstream answered the latest call
	// with, before the client's protocol mapped it, or 0.
	upstreamStatus int
	// tel is what the OpenTelemetry spans need (telemetry.go), nil unless
	// the request's span records.
	tel *telemetry
	// site is the failover site whose target answered, or nil.
	site *failoverSite
	// limit is what the site's limits reserved for the request, settled
	// when it is recorded (limits.go), or nil; limits says what remains
	// of them, as the Llmbridge-Limits header does, or is "".
	limit  *limits.Ticket
	limits string
}

// targetName names the failover target of x, or is "".
func (x *exchange) targetName() string {
	if x.site == nil || int(x.target) >= len(x.site.cfg.Targets) {
		return ""
	}
	return x.site.cfg.Targets[x.target]
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

// observe takes usage, the stop reason, the model and id of the response
// and an error that ends the stream from a canonical stream event. Usage
// is cumulative: a stream cut short keeps what its last usage event
// counted.
func (x *exchange) observe(ev *codec.Event) {
	switch ev.Type {
	case codec.EventStart:
		x.setResponse(ev.Model, ev.ID)
		if ev.Usage.Known {
			x.usage = ev.Usage
		}
	case codec.EventUsage:
		if ev.Usage.Known {
			x.usage = ev.Usage
		}
	case codec.EventStop:
		x.stop = ev.StopReason
	case codec.EventError:
		if ev.Err != nil {
			x.streamErr = kindName(ev.Err.Kind)
		}
	}
	if x.tel != nil && x.tel.content != nil {
		x.tel.content.observe(ev)
	}
}

// observeResponse takes usage, the stop reason and the model and id of a
// complete response.
func (x *exchange) observeResponse(resp *codec.Response) {
	x.setResponse(resp.Model, resp.ID)
	if resp.Usage.Known {
		x.usage = resp.Usage
	}
	x.stop = resp.StopReason
	if x.tel != nil && x.tel.content != nil {
		x.tel.content.response(resp)
	}
}

// setResponse records the model the upstream says answered and, for a
// recording span, the response id. Both may alias a pooled buffer and are
// copied, unless the model is the one sent (the common case, which then
// costs nothing).
func (x *exchange) setResponse(model, id string) {
	switch {
	case model == "" || model == x.responseModel:
	case model == x.upstreamModel:
		x.responseModel = x.upstreamModel
	default:
		x.responseModel = strings.Clone(model)
	}
	if x.tel != nil && id != "" && id != x.tel.responseID {
		x.tel.responseID = strings.Clone(id)
	}
}

// clientGone notes that writing to the client failed mid-stream: the
// client went away, and the exchange ends as canceled unless an error
// ended it first.
func (x *exchange) clientGone() {
	if x.streamErr == "" {
		x.streamErr = "canceled"
	}
}

// errorType is the error.type of the exchange, or "" when it succeeded:
// the reason of an error llmbridge answered itself, the kind of the error
// that ended a stream, the status of an upstream error, or "canceled" for
// a client that went away before an answer.
func (x *exchange) errorType() string {
	switch {
	case x.errReason != "":
		return x.errReason
	case x.streamErr != "":
		return x.streamErr
	case x.status == statusClientGone:
		return "canceled"
	case x.status >= 400:
		return statusLabel(x.status)
	}
	return ""
}

// callErrorType is the error.type of the upstream call: the status the
// provider answered (529, where an OpenAI client is told 503), the kind of
// the error that ended its stream, or, when no answer came, the
// exchange's.
func (x *exchange) callErrorType() string {
	switch {
	case x.upstreamStatus >= 400:
		return statusLabel(x.upstreamStatus)
	case x.streamErr != "":
		return x.streamErr
	case x.upstreamStatus == 0:
		return x.errorType()
	case x.errReason != "":
		// The answer could not be translated or broke its protocol.
		return x.errReason
	}
	return ""
}

// statusClientGone is the status recorded when nothing was written: the
// client went away, or reverse_proxy returned an error Caddy answers.
const statusClientGone = 499

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
// object in the access log entry, the metrics and the span attributes.
func (h *Handler) record(r *http.Request, x *exchange) {
	if x.status == 0 {
		// Nothing was written: reverse_proxy returned an error that Caddy
		// answers, or a client went away.
		x.status = statusClientGone
	}
	ttft, haveTTFT := x.ttft()
	var stop string
	if x.stop != mapping.StopNone {
		stop = x.stop.String()
	}
	errType := x.errorType()
	cost := h.exchangeCost(x)
	h.settleLimits(x, cost)
	// When the answer was dropped for another target's, the
	// placeholders and the access log are that one's.
	repl, _ := r.Context().Value(caddy.ReplacerCtxKey).(*caddy.Replacer)
	if repl != nil && !x.discarded {
		// One provider answers all the placeholders: setting each one
		// grew the replacer's map on every request.
		ph := placeholders{x: x, stop: stop, errType: errType, cost: cost, ttft: ttft, haveTTFT: haveTTFT}
		repl.Map(ph.get)
	}
	if extra, ok := r.Context().Value(caddyhttp.ExtraLogFieldsCtxKey).(*caddyhttp.ExtraLogFields); ok && !x.discarded {
		extra.Set(zap.Dict("llmbridge", h.logFields(x, repl, stop, errType, cost, ttft, haveTTFT)...))
	}
	if x.status < 300 && (x.stop == mapping.StopOther || x.stop == mapping.StopNone) && x.client.Family() != x.upstream.Family() {
		// A stop the client's protocol cannot say exactly (an unknown
		// reason, or none at all) is traced, not hidden.
		h.logger.Debug("upstream stop reason has no exact equivalent for the client",
			zap.String("client_protocol", string(x.client)), zap.String("upstream_protocol", string(x.upstream)),
			zap.String("stop_reason", x.stop.String()))
	}
	h.metrics.record(x, ttft, haveTTFT)
	if x.model != "" && !x.endpoint {
		h.metrics.recordGenAI(x, providerName(x.upstream, h.Dialect), errType, time.Since(x.start))
	}
	h.finishTelemetry(x, repl, stop, errType, cost)
}

// logFields are the access log's llmbridge fields of x. Token counts have
// the canonical meaning of mapping.Usage: input_tokens counts every prompt
// token, cache reads and writes included; output_tokens every generated
// token, reasoning included.
func (h *Handler) logFields(x *exchange, repl *caddy.Replacer, stop, errType string, cost float64, ttft time.Duration, haveTTFT bool) []zap.Field {
	fields := make([]zap.Field, 0, 18)
	fields = append(fields, zap.String("client_protocol", string(x.client)), zap.String("upstream_protocol", string(x.upstream)))
	if repl != nil {
		// reverse_proxy's placeholder names the upstream it reached.
		if v, ok := repl.Get("http.reverse_proxy.upstream.hostport"); ok {
			if s, ok := v.(string); ok && s != "" {
				fields = append(fields, zap.String("upstream_address", s))
			}
		}
	}
	if x.keyName != "" {
		fields = append(fields, zap.String("client_key", x.keyName))
	}
	if x.site != nil {
		fields = append(fields, zap.String("target", x.targetName()), zap.Int("attempts", int(x.attempts)))
	}
	if x.key > 0 {
		fields = append(fields, zap.Int("upstream_key", int(x.key)-1))
	}
	if x.model != "" {
		fields = append(fields, zap.String("model", x.model), zap.String("upstream_model", x.upstreamModel), zap.Bool("stream", x.stream))
	}
	if x.responseModel != "" {
		fields = append(fields, zap.String("response_model", x.responseModel))
	}
	if u := &x.usage; u.Known {
		fields = append(fields, zap.Int64("input_tokens", u.InputTokens), zap.Int64("output_tokens", u.OutputTokens),
			zap.Int64("cache_read_tokens", u.CacheReadTokens), zap.Int64("cache_write_tokens", u.CacheWriteTokens),
			zap.Int64("reasoning_tokens", u.ReasoningTokens))
	}
	if cost >= 0 {
		fields = append(fields, zap.Float64("cost_usd", cost))
	}
	if stop != "" {
		fields = append(fields, zap.String("stop_reason", stop))
	}
	if errType != "" {
		fields = append(fields, zap.String("error_type", errType))
	}
	if haveTTFT {
		fields = append(fields, zap.Int64("ttft_ms", ttft.Milliseconds()))
	}
	if x.limits != "" {
		fields = append(fields, zap.String("limits", x.limits))
	}
	return fields
}

// placeholders resolves the {http.llmbridge.*} placeholders of one
// finished exchange.
type placeholders struct {
	x        *exchange
	stop     string
	errType  string
	cost     float64
	ttft     time.Duration
	haveTTFT bool
}

// get is a caddy.ReplacerFunc. Usage, cost, the stop reason and the time
// to first token are only defined when the upstream reported them.
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
	case "client_key":
		return x.keyName, x.keyName != ""
	case "target":
		return x.targetName(), x.site != nil
	case "attempts":
		return int(x.attempts), x.site != nil
	case "model":
		return x.model, true
	case "upstream_model":
		return x.upstreamModel, true
	case "response_model":
		return x.responseModel, x.responseModel != ""
	case "input_tokens":
		return x.usage.InputTokens, x.usage.Known
	case "output_tokens":
		return x.usage.OutputTokens, x.usage.Known
	case "cache_read_tokens":
		return x.usage.CacheReadTokens, x.usage.Known
	case "cache_write_tokens":
		return x.usage.CacheWriteTokens, x.usage.Known
	case "reasoning_tokens":
		return x.usage.ReasoningTokens, x.usage.Known
	case "cost_usd":
		return p.cost, p.cost >= 0
	case "stop_reason":
		return p.stop, p.stop != ""
	case "error_type":
		return p.errType, p.errType != ""
	case "ttft_ms":
		return p.ttft.Milliseconds(), p.haveTTFT
	case "limits":
		return x.limits, x.limits != ""
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

// callUpstream sends r to next (reverse_proxy), which writes the answer
// into w: each call of the upstream, a retry included, is timed from here
// (Bedrock's latency metrics) and gets its client span (telemetry.go).
func (h *Handler) callUpstream(x *exchange, next caddyhttp.Handler, w http.ResponseWriter, r *http.Request) error {
	x.upstreamSent = time.Now()
	return next.ServeHTTP(w, h.startCallSpan(x, r))
}
