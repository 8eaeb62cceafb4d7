package observe

import (
	"strconv"
	"strings"
	"time"

	"github.com/caddyserver/caddy/v2"
	"go.uber.org/zap"

	"github.com/llmbridge/llmbridge/caddymodule/limits"
	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/mapping"
)

// Exchange is what one request through llmbridge did: the protocols and
// models on both sides, the status the client got, the usage and stop
// reason the upstream reported, and when the response started. The
// handler's response writers fill it in; its record publishes it as
// placeholders, access log fields, metrics and span attributes before
// ServeHTTP returns.
type Exchange struct {
	// Client and Upstream are the protocols of the two sides.
	Client, Upstream codec.Protocol
	// Model is the model the client asked for, UpstreamModel the one
	// sent (after model routes).
	Model, UpstreamModel string

	// Status is the HTTP status the client got, 0 until one is written.
	Status int
	// Usage is what the upstream reported, in the canonical meaning.
	Usage codec.Usage
	// ErrReason says why llmbridge answered an error itself, or is "".
	ErrReason string
	// Dropped are the paths the drop setting removed from the request
	// body.
	Dropped []string

	// Start is when ServeHTTP began; UpstreamSent when the request went to
	// the upstream (translated requests); UpstreamStart when the
	// upstream's response header arrived; UpstreamBody when the first
	// bytes of its stream arrived; FirstWrite when the first byte of the
	// response went to the client.
	Start, UpstreamSent, UpstreamStart, UpstreamBody, FirstWrite time.Time

	// The small fields share one word.

	// Stop is the upstream's stop reason.
	Stop codec.StopReason
	// Stream is whether the client asked for a streamed response.
	Stream bool
	// Endpoint is whether the request is for a listing or counting
	// Endpoint rather than a generation.
	Endpoint bool
	// Discarded is whether a failover site dropped the answer for
	// another target's.
	Discarded bool
	// Key is the position plus one of the pooled upstream Key the
	// request used, or 0.
	Key uint16
	// Attempts counts the targets a failover site tried; 0 outside a
	// failover site.
	Attempts uint8
	// KeyName names the client key the request presented (client_keys),
	// or is "".
	KeyName string
	// ResponseModel is the model the upstream said answered, or "".
	ResponseModel string
	// StreamErr is the error.type of the error that ended a stream, or "".
	StreamErr string
	// UpstreamStatus is the status the upstream answered the latest call
	// with, before the client's protocol mapped it, or 0.
	UpstreamStatus int
	// Tel is what the OpenTelemetry spans need (Telemetry), nil unless
	// the request's span records.
	Tel *Telemetry
	// Target names the failover Target that answered, or is "" outside
	// a failover site.
	Target string
	// Limit is what the site's limits reserved for the request, settled
	// when it is recorded (limits.go), or nil; limits says what remains
	// of them, as the Llmbridge-Limits header does, or is "".
	Limit  *limits.Ticket
	Limits string
}

// SetModels records the client's and the upstream's model. Both are
// copied: they may alias the request body, whose buffer is reused once
// the request is done, while placeholders, log fields and metric labels
// keep them longer.
func (x *Exchange) SetModels(model, upstreamModel string) {
	x.Model = strings.Clone(model)
	if upstreamModel == model {
		x.UpstreamModel = x.Model
	} else {
		x.UpstreamModel = strings.Clone(upstreamModel)
	}
}

// ResponseStarted notes that the upstream's response header arrived.
func (x *Exchange) ResponseStarted() {
	if x.UpstreamStart.IsZero() {
		x.UpstreamStart = time.Now()
	}
}

// Wrote notes that the client has been sent part of the response, with
// status.
func (x *Exchange) Wrote(status int) {
	if x.FirstWrite.IsZero() {
		x.FirstWrite = time.Now()
	}
	if x.Status == 0 {
		x.Status = status
	}
}

// Observe takes usage, the stop reason, the model and id of the response
// and an error that ends the stream from a canonical stream event. Usage
// is cumulative: a stream cut short keeps what its last usage event
// counted.
func (x *Exchange) Observe(ev *codec.Event) {
	switch ev.Type {
	case codec.EventStart:
		x.setResponse(ev.Model, ev.ID)
		if ev.Usage.Known {
			x.Usage = ev.Usage
		}
	case codec.EventUsage:
		if ev.Usage.Known {
			x.Usage = ev.Usage
		}
	case codec.EventStop:
		x.Stop = ev.StopReason
	case codec.EventError:
		if ev.Err != nil {
			x.StreamErr = KindName(ev.Err.Kind)
		}
	}
	if x.Tel != nil && x.Tel.content != nil {
		x.Tel.content.observe(ev)
	}
}

// ObserveResponse takes usage, the stop reason and the model and id of a
// complete response.
func (x *Exchange) ObserveResponse(resp *codec.Response) {
	x.setResponse(resp.Model, resp.ID)
	if resp.Usage.Known {
		x.Usage = resp.Usage
	}
	x.Stop = resp.StopReason
	if x.Tel != nil && x.Tel.content != nil {
		x.Tel.content.response(resp)
	}
}

// setResponse records the model the upstream says answered and, for a
// recording span, the response id. Both may alias a pooled buffer and are
// copied, unless the model is the one sent (the common case, which then
// costs nothing).
func (x *Exchange) setResponse(model, id string) {
	switch {
	case model == "" || model == x.ResponseModel:
	case model == x.UpstreamModel:
		x.ResponseModel = x.UpstreamModel
	default:
		x.ResponseModel = strings.Clone(model)
	}
	if x.Tel != nil && id != "" && id != x.Tel.responseID {
		x.Tel.responseID = strings.Clone(id)
	}
}

// ClientGone notes that writing to the client failed mid-stream: the
// client went away, and the exchange ends as canceled unless an error
// ended it first.
func (x *Exchange) ClientGone() {
	if x.StreamErr == "" {
		x.StreamErr = "canceled"
	}
}

// ErrorType is the error.type of the exchange, or "" when it succeeded:
// the reason of an error llmbridge answered itself, the kind of the error
// that ended a stream, the status of an upstream error, or "canceled" for
// a client that went away before an answer.
func (x *Exchange) ErrorType() string {
	switch {
	case x.ErrReason != "":
		return x.ErrReason
	case x.StreamErr != "":
		return x.StreamErr
	case x.Status == StatusClientGone:
		return "canceled"
	case x.Status >= 400:
		return StatusLabel(x.Status)
	}
	return ""
}

// CallErrorType is the error.type of the upstream call: the status the
// provider answered (529, where an OpenAI client is told 503), the kind of
// the error that ended its stream, or, when no answer came, the
// exchange's.
func (x *Exchange) CallErrorType() string {
	switch {
	case x.UpstreamStatus >= 400:
		return StatusLabel(x.UpstreamStatus)
	case x.StreamErr != "":
		return x.StreamErr
	case x.UpstreamStatus == 0:
		return x.ErrorType()
	case x.ErrReason != "":
		// The answer could not be translated or broke its protocol.
		return x.ErrReason
	}
	return ""
}

// StatusClientGone is the status recorded when nothing was written: the
// client went away, or reverse_proxy returned an error Caddy answers.
const StatusClientGone = 499

// Latency returns how long the upstream has taken, in Bedrock's terms:
// from sending the request to now, and to the first byte of its answer
// (a stream's first bytes, else the response header). Milliseconds are
// rounded up: no answer takes none. Zero when the request was not sent.
func (x *Exchange) Latency() codec.Latency {
	if x.UpstreamSent.IsZero() {
		return codec.Latency{}
	}
	now := time.Now()
	first := x.UpstreamBody
	if first.IsZero() {
		first = x.UpstreamStart
	}
	if first.IsZero() || first.After(now) {
		first = now
	}
	ms := func(d time.Duration) int64 { return int64((max(0, d) + time.Millisecond - 1) / time.Millisecond) }
	return codec.Latency{InvocationMs: ms(now.Sub(x.UpstreamSent)), FirstByteMs: ms(first.Sub(x.UpstreamSent))}
}

// TTFT returns the time from the upstream's response header to the first
// byte written to the client, and whether both happened.
func (x *Exchange) TTFT() (time.Duration, bool) {
	if x.UpstreamStart.IsZero() || x.FirstWrite.IsZero() {
		return 0, false
	}
	return max(0, x.FirstWrite.Sub(x.UpstreamStart)), true
}

// Placeholder names, set on the request's replacer; the access log fields
// have the same names in an "llmbridge" object.
const (
	phPrefix = "http.llmbridge."
)

// LogFields are the access log's llmbridge fields of x. Token counts have
// the canonical meaning of mapping.Usage: input_tokens counts every prompt
// token, cache reads and writes included; output_tokens every generated
// token, reasoning included.
func LogFields(x *Exchange, repl *caddy.Replacer, stop, errType string, cost float64, ttft time.Duration, haveTTFT bool) []zap.Field {
	fields := make([]zap.Field, 0, 18)
	fields = append(fields, zap.String("client_protocol", string(x.Client)), zap.String("upstream_protocol", string(x.Upstream)))
	if repl != nil {
		// reverse_proxy's placeholder names the upstream it reached.
		if v, ok := repl.Get("http.reverse_proxy.upstream.hostport"); ok {
			if s, ok := v.(string); ok && s != "" {
				fields = append(fields, zap.String("upstream_address", s))
			}
		}
	}
	if x.KeyName != "" {
		fields = append(fields, zap.String("client_key", x.KeyName))
	}
	if x.Target != "" {
		fields = append(fields, zap.String("target", x.Target), zap.Int("attempts", int(x.Attempts)))
	}
	if x.Key > 0 {
		fields = append(fields, zap.Int("upstream_key", int(x.Key)-1))
	}
	if x.Model != "" {
		fields = append(fields, zap.String("model", x.Model), zap.String("upstream_model", x.UpstreamModel), zap.Bool("stream", x.Stream))
	}
	if x.ResponseModel != "" {
		fields = append(fields, zap.String("response_model", x.ResponseModel))
	}
	if u := &x.Usage; u.Known {
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
	if x.Limits != "" {
		fields = append(fields, zap.String("limits", x.Limits))
	}
	return fields
}

// placeholders resolves the {http.llmbridge.*} placeholders of one
// finished exchange.
type placeholders struct {
	x        *Exchange
	stop     string
	errType  string
	cost     float64
	ttft     time.Duration
	haveTTFT bool
}

// MapPlaceholders makes repl answer the {http.llmbridge.*} placeholders of
// x, finished: one provider answers them all, since setting each one grew
// the replacer's map on every request.
func MapPlaceholders(repl *caddy.Replacer, x *Exchange, stop, errType string, cost float64, ttft time.Duration, haveTTFT bool) {
	ph := placeholders{x: x, stop: stop, errType: errType, cost: cost, ttft: ttft, haveTTFT: haveTTFT}
	repl.Map(ph.get)
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
		return string(x.Client), true
	case "upstream_protocol":
		return string(x.Upstream), true
	case "client_key":
		return x.KeyName, x.KeyName != ""
	case "target":
		return x.Target, x.Target != ""
	case "attempts":
		return int(x.Attempts), x.Target != ""
	case "model":
		return x.Model, true
	case "upstream_model":
		return x.UpstreamModel, true
	case "response_model":
		return x.ResponseModel, x.ResponseModel != ""
	case "input_tokens":
		return x.Usage.InputTokens, x.Usage.Known
	case "output_tokens":
		return x.Usage.OutputTokens, x.Usage.Known
	case "cache_read_tokens":
		return x.Usage.CacheReadTokens, x.Usage.Known
	case "cache_write_tokens":
		return x.Usage.CacheWriteTokens, x.Usage.Known
	case "reasoning_tokens":
		return x.Usage.ReasoningTokens, x.Usage.Known
	case "cost_usd":
		return p.cost, p.cost >= 0
	case "stop_reason":
		return p.stop, p.stop != ""
	case "error_type":
		return p.errType, p.errType != ""
	case "ttft_ms":
		return p.ttft.Milliseconds(), p.haveTTFT
	case "limits":
		return x.Limits, x.Limits != ""
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

// KindName returns the metrics name of an error kind.
func KindName(k mapping.ErrorKind) string {
	if int(k) < len(kindNames) && kindNames[k] != "" {
		return kindNames[k]
	}
	return "error_" + strconv.Itoa(int(k))
}
