package caddymodule

import (
	"net/http"
	"strings"
	"sync"
	"sync/atomic"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/rules"
	"github.com/llmbridge/llmbridge/mapping"
)

// OpenTelemetry: when Caddy's tracing directive has put a recording span
// in the request's context, llmbridge adds the GenAI semantic-convention
// attributes (semconv v1.41.0, the version Envoy AI Gateway pins) to it and
// wraps the upstream call in a client span named "{operation} {model}",
// made by the same span's TracerProvider, so that no second provider
// exists. Attributes are built once, when the exchange is recorded: a
// stream costs nothing per event, and a request whose span does not
// record costs one check.

// tracerName is the instrumentation scope of llmbridge's spans.
const tracerName = "github.com/llmbridge/llmbridge/caddymodule"

// llmbridge's own span attributes.
const (
	attrClientProtocol   = attribute.Key("llmbridge.client.protocol")
	attrUpstreamProtocol = attribute.Key("llmbridge.upstream.protocol")
	attrClientKey        = attribute.Key("llmbridge.client_key")
	attrAdjustments      = attribute.Key("llmbridge.adjustments")
	attrDropped          = attribute.Key("llmbridge.dropped")
	attrCost             = attribute.Key("llmbridge.cost_usd")
	attrContentTruncated = attribute.Key("llmbridge.content.truncated")
)

// maxSpanList bounds the adjustments and dropped fields a span lists: a
// long history can drop a hint per message.
const maxSpanList = 32

// telemetry is what an exchange keeps for its spans. It exists only when
// the request's span records, so that tracing off costs no memory; its
// methods do nothing on nil.
type telemetry struct {
	// span is the request's span (Caddy's tracing).
	span trace.Span
	// attempt is the client span of the upstream call, nil before it.
	attempt trace.Span
	// params are the request's generation settings.
	params requestParams
	// responseID is the upstream's response id.
	responseID string
	// adjusted and dropped are the rule ids of the adjustments made and
	// the request fields dropped, copied.
	adjusted, dropped []string
	// content collects prompt and completion when otel_content is on.
	content *contentCapture
}

// requestParams are the generation settings a span reports.
type requestParams struct {
	maxTokens   codec.OptInt
	temperature codec.OptFloat
	topP        codec.OptFloat
}

// beginTelemetry notes the request's span when it records, and starts the
// content capture when the operator turned it on.
func (h *Handler) beginTelemetry(r *http.Request, x *exchange) {
	if sp := trace.SpanFromContext(r.Context()); sp.IsRecording() {
		x.tel = &telemetry{span: sp}
		if h.OTelContent {
			x.tel.content = &contentCapture{limit: h.otelContentMax}
		}
	}
}

// noteRequest takes the generation settings and, with content capture,
// the prompt of a decoded request.
func (t *telemetry) noteRequest(req *codec.Request) {
	if t == nil {
		return
	}
	t.params = requestParams{maxTokens: req.MaxTokens, temperature: req.Temperature, topP: req.TopP}
	if t.content != nil {
		t.content.request(req)
	}
}

// noteHead takes the generation settings of a request that passes through
// untranslated, read with its head, and with content capture decodes its
// prompt (a cost the operator chose).
func (t *telemetry) noteHead(head *codec.RequestHead, client codec.Protocol, body []byte) {
	if t == nil {
		return
	}
	t.params = requestParams{maxTokens: head.MaxTokens, temperature: head.Temperature, topP: head.TopP}
	if t.content != nil {
		var req codec.Request
		if codec.DecodeRequest(client, body, &req) == nil {
			t.content.request(&req)
		}
	}
}

// noteEdits copies the adjustments made and the fields dropped, which may
// alias the pooled request body.
func (t *telemetry) noteEdits(adjusted []rules.Adjustment, dropped []string) {
	if t == nil {
		return
	}
	for i := range adjusted {
		if len(t.adjusted) < maxSpanList {
			t.adjusted = append(t.adjusted, adjusted[i].Rule)
		}
	}
	for _, d := range dropped {
		if len(t.dropped) < maxSpanList {
			t.dropped = append(t.dropped, strings.Clone(d))
		}
	}
}

// startCallSpan starts the client span of the upstream call and returns the
// request to send. When Caddy's tracing has put a W3C traceparent header
// on the request, it names the new span instead, so that the upstream's
// spans hang under the call that made them.
func (x *exchange) startCallSpan(r *http.Request) *http.Request {
	t := x.tel
	if t == nil {
		return r
	}
	name := operationName(x.upstream)
	if x.upstreamModel != "" {
		name += " " + x.upstreamModel
	}
	if t.attempt != nil {
		// The upstream refused the earlier attempt, and the request is
		// sent again with a fix it taught (learn.go).
		t.attempt.SetStatus(codes.Error, "retried")
		t.attempt.End()
	}
	ctx, sp := tracerOf(t.span.TracerProvider()).Start(r.Context(), name, trace.WithSpanKind(trace.SpanKindClient))
	t.attempt = sp
	if r.Header.Get("Traceparent") != "" {
		propagation.TraceContext{}.Inject(ctx, propagation.HeaderCarrier(r.Header))
	}
	// The request keeps its context: reverse_proxy makes no spans of its
	// own, and a copy of the request per call would cost more than it
	// gives.
	return r
}

// cachedTracer is llmbridge's tracer of the last TracerProvider seen:
// Caddy has one per process, and asking it for the tracer locks it.
var cachedTracer atomic.Pointer[providerTracer]

// providerTracer is a TracerProvider and llmbridge's tracer from it.
type providerTracer struct {
	tp     trace.TracerProvider
	tracer trace.Tracer
}

// tracerOf returns llmbridge's tracer of tp.
func tracerOf(tp trace.TracerProvider) trace.Tracer {
	if c := cachedTracer.Load(); c != nil && c.tp == tp {
		return c.tracer
	}
	c := &providerTracer{tp: tp, tracer: tp.Tracer(tracerName)}
	cachedTracer.Store(c)
	return c.tracer
}

// finishReasons are the gen_ai.response.finish_reasons values of the
// canonical stop reasons, made once: a string slice attribute is built
// by reflection.
var finishReasons = func() (v [32]attribute.Value) {
	for i := range v {
		v[i] = attribute.StringSliceValue([]string{mapping.StopReason(i).String()})
	}
	return v
}()

// finishReason returns the finish_reasons value of stop.
func finishReason(stop mapping.StopReason) attribute.Value {
	if int(stop) < len(finishReasons) {
		return finishReasons[stop]
	}
	return attribute.StringSliceValue([]string{stop.String()})
}

// operationName is gen_ai.operation.name for an upstream protocol:
// generate_content for Google's generateContent APIs, chat for the rest.
func operationName(upstream codec.Protocol) string {
	if upstream.Family() == codec.Gemini {
		return "generate_content"
	}
	return "chat"
}

// providerName is gen_ai.provider.name for an upstream protocol and the
// dialect of an OpenAI-compatible one: the semantic conventions' values,
// or the dialect's own name for servers they do not list.
func providerName(upstream codec.Protocol, dialect string) string {
	switch upstream {
	case codec.AnthropicMessages:
		return "anthropic"
	case codec.Gemini:
		return "gcp.gemini"
	case codec.Vertex, codec.VertexAnthropic:
		return "gcp.vertex_ai"
	case codec.Bedrock, codec.BedrockAnthropic:
		return "aws.bedrock"
	case codec.AzureOpenAI, codec.AzureOpenAIResponses:
		return "azure.ai.openai"
	}
	switch dialect {
	case "", "openai":
		return "openai"
	case "mistral":
		return "mistral_ai"
	case "xai":
		return "x_ai"
	}
	return dialect
}

// maxAttrs is room for every attribute a span gets.
const maxAttrs = 28

// attrBufs hold the attributes while they are set: a span copies them, and
// a buffer on the stack would escape through the interface call.
var attrBufs = sync.Pool{New: func() any { return new([maxAttrs]attribute.KeyValue) }}

// finishTelemetry sets the attributes on the request's span and on the
// upstream call's span, and ends the latter. cost is negative when no
// price applies.
func (h *Handler) finishTelemetry(x *exchange, stop, errType string, cost float64) {
	t := x.tel
	if t == nil || x.endpoint {
		// A listing or counting request is no generation operation.
		return
	}
	buf := attrBufs.Get().(*[maxAttrs]attribute.KeyValue)
	a := append(buf[:0],
		semconv.GenAIOperationNameKey.String(operationName(x.upstream)),
		semconv.GenAIProviderNameKey.String(providerName(x.upstream, h.Dialect)),
		attrClientProtocol.String(string(x.client)),
		attrUpstreamProtocol.String(string(x.upstream)),
	)
	// The client asked the request's span for its model; the upstream
	// call asked for the model sent.
	modelAt := -1
	if x.model != "" {
		modelAt = len(a)
		a = append(a, semconv.GenAIRequestModelKey.String(x.model))
	}
	if x.responseModel != "" {
		a = append(a, semconv.GenAIResponseModelKey.String(x.responseModel))
	}
	if p := t.params; p.maxTokens.Set {
		a = append(a, semconv.GenAIRequestMaxTokensKey.Int64(p.maxTokens.Value))
	}
	if p := t.params; p.temperature.Set {
		a = append(a, semconv.GenAIRequestTemperatureKey.Float64(p.temperature.Value))
	}
	if p := t.params; p.topP.Set {
		a = append(a, semconv.GenAIRequestTopPKey.Float64(p.topP.Value))
	}
	if stop != "" {
		a = append(a, attribute.KeyValue{Key: semconv.GenAIResponseFinishReasonsKey, Value: finishReason(x.stop)})
	}
	if t.responseID != "" {
		a = append(a, semconv.GenAIResponseIDKey.String(t.responseID))
	}
	if u := &x.usage; u.Known {
		// Cache and reasoning counts only where the upstream had some:
		// a zero is what most upstreams report by leaving them out.
		a = append(a,
			semconv.GenAIUsageInputTokensKey.Int64(u.InputTokens),
			semconv.GenAIUsageOutputTokensKey.Int64(u.OutputTokens),
		)
		if u.CacheReadTokens > 0 {
			a = append(a, semconv.GenAIUsageCacheReadInputTokensKey.Int64(u.CacheReadTokens))
		}
		if u.CacheWriteTokens > 0 {
			a = append(a, semconv.GenAIUsageCacheCreationInputTokensKey.Int64(u.CacheWriteTokens))
		}
		if u.ReasoningTokens > 0 {
			a = append(a, semconv.GenAIUsageReasoningOutputTokensKey.Int64(u.ReasoningTokens))
		}
	}
	if cost >= 0 {
		a = append(a, attrCost.Float64(cost))
	}
	if errType != "" {
		a = append(a, semconv.ErrorTypeKey.String(errType))
	}
	if x.keyName != "" {
		a = append(a, attrClientKey.String(x.keyName))
	}
	if len(t.adjusted) > 0 {
		a = append(a, attrAdjustments.StringSlice(t.adjusted))
	}
	if len(t.dropped) > 0 {
		a = append(a, attrDropped.StringSlice(t.dropped))
	}
	if c := t.content; c != nil {
		a = c.attributes(a, stop)
	}
	t.span.SetAttributes(a...)
	if sp := t.attempt; sp != nil {
		if modelAt >= 0 {
			a[modelAt] = semconv.GenAIRequestModelKey.String(x.upstreamModel)
		}
		sp.SetAttributes(a...)
		if errType != "" {
			sp.SetStatus(codes.Error, errType)
		}
		sp.End()
	}
	// The spans hold copies; the buffer lets go of their strings.
	clear(a)
	attrBufs.Put(buf)
}
