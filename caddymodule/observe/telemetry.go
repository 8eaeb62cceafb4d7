package observe

import (
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/caddyserver/caddy/v2"
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
// wraps each upstream call in a client span named "{operation} {model}",
// made by the same span's TracerProvider, so that no second provider
// exists. The two spans say different things, so that a tool summing
// over spans counts each request once:
//
//   - the call's span is the inference span of the conventions: what was
//     sent (model, stream, settings after model rules and encoding), what
//     the provider answered (its own status as error.type, its finish
//     reason, usage, time to first chunk) and the server reached;
//   - the request's span describes the request's outcome as the client saw
//     it: the model and settings the client asked for, the status the
//     client got as error.type, who asked (client key), what it cost, what
//     llmbridge changed and, on a failover site, which target answered;
//     usage only under llmbridge's own names.
//
// Attributes are built once, when the exchange is recorded: a stream costs
// nothing per event, and a request whose span does not record costs one
// check.

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
	attrStopReason       = attribute.Key("llmbridge.stop_reason")
	attrInputTokens      = attribute.Key("llmbridge.usage.input_tokens")
	attrOutputTokens     = attribute.Key("llmbridge.usage.output_tokens")
	attrTarget           = attribute.Key("llmbridge.failover.target")
	attrAttempts         = attribute.Key("llmbridge.failover.attempts")
)

// maxSpanList bounds the adjustments and dropped fields a span lists: a
// long history can drop a hint per message.
const maxSpanList = 32

// Tracing is a handler's span settings, and what its call spans reuse
// from one call to the next. Its zero value records no content.
type Tracing struct {
	// Dialect is the upstream's OpenAI-compatible dialect, which names
	// its provider (gen_ai.provider.name), or "".
	Dialect string
	// Content is whether spans record prompts and completions, at most
	// ContentMax bytes of text per request.
	Content    bool
	ContentMax int
	// lastServer holds the *serverAddress reverse_proxy reached on the
	// handler's latest traced call, and callStart the *callStart of its
	// latest call span.
	lastServer, callStart atomic.Value
}

// Telemetry is what an exchange keeps for its spans. It exists only when
// the request's span records, so that tracing off costs no memory; its
// methods do nothing on nil.
type Telemetry struct {
	// span is the request's span (Caddy's tracing).
	span trace.Span
	// attempt is the client span of the upstream call, nil before it.
	attempt trace.Span
	// provider is gen_ai.provider.name of the upstream.
	provider string
	// startServer is the server the call span started with, or nil.
	startServer *serverAddress
	// asked are the generation settings the client asked for; sent those
	// the upstream call carried, read from the body sent.
	asked, sent requestParams
	// responseID is the upstream's response id.
	responseID string
	// adjusted and dropped are the rule ids of the adjustments made and
	// the request fields dropped, copied; a rule that changed two fields
	// is listed once.
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

// paramsOf returns the generation settings of a request head.
func paramsOf(head *codec.RequestHead) requestParams {
	return requestParams{maxTokens: head.MaxTokens, temperature: head.Temperature, topP: head.TopP}
}

// serverAddress is server.address and server.port of an upstream call.
type serverAddress struct {
	host string
	port int
}

// Begin notes the request's span when it records, and starts the
// content capture when the operator turned it on.
func (tr *Tracing) Begin(r *http.Request, x *Exchange) {
	if sp := trace.SpanFromContext(r.Context()); sp.IsRecording() {
		x.Tel = &Telemetry{span: sp}
		if x.Upstream != "" {
			x.Tel.provider = ProviderName(x.Upstream, tr.Dialect)
		}
		if tr.Content {
			x.Tel.content = &contentCapture{limit: tr.ContentMax}
		}
	}
}

// NoteRequest takes the generation settings and, with content capture,
// the prompt of a decoded request.
func (t *Telemetry) NoteRequest(req *codec.Request) {
	if t == nil {
		return
	}
	t.asked = requestParams{maxTokens: req.MaxTokens, temperature: req.Temperature, topP: req.TopP}
	if t.content != nil {
		t.content.request(req)
	}
}

// NoteHead takes the generation settings of a request that passes through
// untranslated, read with its head, and with content capture its prompt,
// req, decoded for it (a cost the operator chose; nil when it could not
// be).
func (t *Telemetry) NoteHead(head *codec.RequestHead, req *codec.Request) {
	if t == nil {
		return
	}
	t.asked = paramsOf(head)
	if t.content != nil && req != nil {
		t.content.request(req)
	}
}

// CapturesContent reports whether the span records prompts and
// completions (otel_content), for which a request passed through must be
// decoded.
func (t *Telemetry) CapturesContent() bool { return t != nil && t.content != nil }

// NoteEdits copies the adjustments made and the fields dropped, which may
// alias the pooled request body.
func (t *Telemetry) NoteEdits(adjusted []rules.Adjustment, dropped []string) {
	if t == nil {
		return
	}
	for i := range adjusted {
		if len(t.adjusted) < maxSpanList && !slices.Contains(t.adjusted, adjusted[i].Rule) {
			t.adjusted = append(t.adjusted, adjusted[i].Rule)
		}
	}
	for _, d := range dropped {
		if len(t.dropped) < maxSpanList {
			t.dropped = append(t.dropped, strings.Clone(d))
		}
	}
}

// StartCall starts the client span of the upstream call and returns the
// request to send, whose body is sent (nil when it is not known). The attributes a sampler may decide by (operation,
// provider, model, stream, and the server this handler reached last) are
// given at the start (callStartAttributes). When Caddy's tracing has put a W3C traceparent
// header on the request, it names the new span instead, so that the
// upstream's spans hang under the call that made them.
func (tr *Tracing) StartCall(x *Exchange, r *http.Request, sent []byte) *http.Request {
	t := x.Tel
	if t == nil {
		return r
	}
	op := operationName(x.Upstream)
	name := op
	if x.UpstreamModel != "" {
		name += " " + x.UpstreamModel
	}
	if t.attempt != nil {
		// The upstream refused the earlier attempt, and the request is
		// sent again with a fix it taught (learn.go).
		if x.UpstreamStatus >= 400 {
			t.attempt.SetAttributes(semconv.ErrorTypeKey.String(StatusLabel(x.UpstreamStatus)))
		}
		t.attempt.SetStatus(codes.Error, "retried")
		t.attempt.End()
	}
	x.UpstreamStatus = 0
	if sent != nil {
		// The settings as sent: model rules and the encoder may have
		// changed the client's (a default max_tokens, a thinking budget
		// on top of it, sampling a model refuses).
		if head, err := codec.ReadRequestHead(sent); err == nil {
			t.sent = paramsOf(&head)
		}
	}
	server, _ := tr.lastServer.Load().(*serverAddress)
	t.startServer = server
	ctx, sp := tracerOf(t.span.TracerProvider()).Start(r.Context(), name, trace.WithSpanKind(trace.SpanKindClient), tr.callStartAttributes(x, op, server))
	t.attempt = sp
	if r.Header.Get("Traceparent") != "" {
		propagation.TraceContext{}.Inject(ctx, propagation.HeaderCarrier(r.Header))
	}
	// The request keeps its context: reverse_proxy makes no spans of its
	// own, and a copy of the request per call would cost more than it
	// gives.
	return r
}

// callStart is a call span's start attributes as an option, kept by the
// handler for the next call with the same model, stream and server: an
// option holding attributes costs an allocation to make, and a handler's
// calls mostly repeat them.
type callStart struct {
	model  string
	stream bool
	server *serverAddress
	option trace.SpanStartEventOption
}

// callStartAttributes returns the start option of x's call span: the
// operation, provider, model sent, stream and the server this handler
// reached last, which a sampler may decide by.
func (tr *Tracing) callStartAttributes(x *Exchange, op string, server *serverAddress) trace.SpanStartEventOption {
	if c, _ := tr.callStart.Load().(*callStart); c != nil && c.model == x.UpstreamModel && c.stream == x.Stream && c.server == server {
		return c.option
	}
	a := make([]attribute.KeyValue, 0, 6)
	a = append(a,
		semconv.GenAIOperationNameKey.String(op),
		semconv.GenAIProviderNameKey.String(x.Tel.provider),
		semconv.GenAIRequestStreamKey.Bool(x.Stream),
	)
	if x.UpstreamModel != "" {
		a = append(a, semconv.GenAIRequestModelKey.String(x.UpstreamModel))
	}
	if server != nil {
		a = append(a, semconv.ServerAddressKey.String(server.host))
		if server.port > 0 {
			a = append(a, semconv.ServerPortKey.Int(server.port))
		}
	}
	c := &callStart{model: x.UpstreamModel, stream: x.Stream, server: server, option: trace.WithAttributes(a...)}
	tr.callStart.Store(c)
	return c.option
}

// ServerReached returns the upstream address reverse_proxy reached, from
// its placeholders, remembering it as the handler's latest: the next call
// span starts with it, since llmbridge runs before reverse_proxy chooses.
func (tr *Tracing) ServerReached(repl *caddy.Replacer) *serverAddress {
	last, _ := tr.lastServer.Load().(*serverAddress)
	if repl == nil {
		return last
	}
	host, _ := repl.GetString("http.reverse_proxy.upstream.host")
	if host == "" {
		return last
	}
	portText, _ := repl.GetString("http.reverse_proxy.upstream.port")
	port, _ := strconv.Atoi(portText)
	if last != nil && last.host == host && last.port == port {
		return last
	}
	s := &serverAddress{host: host, port: port}
	tr.lastServer.Store(s)
	return s
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

// finishReasonNames are the semantic conventions' finish reasons of the
// canonical stop reasons: stop, length, tool_call, content_filter (error
// is a stream that ended with one). A stop sequence, a paused turn and a
// reason without equivalent end the generation as stop does; a refusal
// is the provider's filter, as OpenAI reports it.
var finishReasonNames = [...]string{
	mapping.StopNone:          "",
	mapping.StopEnd:           "stop",
	mapping.StopMaxTokens:     "length",
	mapping.StopSequence:      "stop",
	mapping.StopToolUse:       "tool_call",
	mapping.StopPauseTurn:     "stop",
	mapping.StopRefusal:       "content_filter",
	mapping.StopContentFilter: "content_filter",
	mapping.StopContextWindow: "length",
	mapping.StopOther:         "stop",
}

// finishReasonName returns the conventions' finish reason of an exchange
// that ended with stop, or with a stream error (errored), or "" when
// neither says.
func finishReasonName(stop mapping.StopReason, errored bool) string {
	if errored && (stop == mapping.StopNone || stop == mapping.StopOther) {
		return "error"
	}
	if int(stop) < len(finishReasonNames) {
		return finishReasonNames[stop]
	}
	return "stop"
}

// finishReasonValues are the gen_ai.response.finish_reasons values of the
// names finishReasonName returns, made once: a string slice attribute is
// built by reflection.
var finishReasonValues = func() map[string]attribute.Value {
	m := map[string]attribute.Value{}
	for _, name := range append(finishReasonNames[:], "error") {
		if name != "" {
			m[name] = attribute.StringSliceValue([]string{name})
		}
	}
	return m
}()

// operationName is gen_ai.operation.name for an upstream protocol:
// generate_content for Google's own APIs (generateContent and
// Interactions), chat for the rest.
func operationName(upstream codec.Protocol) string {
	if d := upstream.Descriptor(); d != nil && d.Rules.Provider == "google" {
		return "generate_content"
	}
	return "chat"
}

// ProviderName is gen_ai.provider.name for an upstream protocol and the
// dialect of an OpenAI-compatible one: the semantic conventions' values,
// or the dialect's own name for servers they do not list.
func ProviderName(upstream codec.Protocol, dialect string) string {
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
	if d := upstream.Descriptor(); d != nil && d.Rules.Provider == "google" {
		// Google's other APIs (Interactions): on Vertex AI when Google
		// Cloud's credentials sign for them.
		if d.Cloud == "google" {
			return "gcp.vertex_ai"
		}
		return "gcp.gemini"
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
const maxAttrs = 32

// attrBufs hold the attributes while they are set: a span copies them, and
// a buffer on the stack would escape through the interface call.
var attrBufs = sync.Pool{New: func() any { return new([maxAttrs]attribute.KeyValue) }}

// Finish sets the attributes of the upstream call's span and ends
// it, then those of the request's span, unless a failover site dropped
// the answer for another target's: the request's span then waits for the
// attempt that answers. errType is the error.type of the client's answer;
// cost is negative when no price applies.
func (tr *Tracing) Finish(x *Exchange, repl *caddy.Replacer, stop, errType string, cost float64) {
	t := x.Tel
	if t == nil || x.Endpoint {
		// A listing or counting request is no generation operation.
		return
	}
	buf := attrBufs.Get().(*[maxAttrs]attribute.KeyValue)
	if sp := t.attempt; sp != nil {
		callErr := x.CallErrorType()
		a := tr.callAttributes(buf[:0], x, repl, callErr)
		sp.SetAttributes(a...)
		if callErr != "" {
			sp.SetStatus(codes.Error, callErr)
		}
		sp.End()
		clear(a)
	}
	if !x.Discarded {
		a := tr.requestAttributes(buf[:0], x, stop, errType, cost)
		t.span.SetAttributes(a...)
		// The span holds copies; the buffer lets go of their strings.
		clear(a)
	}
	attrBufs.Put(buf)
}

// callAttributes appends the attributes of the upstream call's span that
// are known at its end: the settings sent, the provider's answer and its
// usage, the server reached; the content with otel_content on.
func (tr *Tracing) callAttributes(a []attribute.KeyValue, x *Exchange, repl *caddy.Replacer, callErr string) []attribute.KeyValue {
	t := x.Tel
	if s := tr.ServerReached(repl); s != nil && s != t.startServer {
		// The call reached another server than the handler's last.
		a = append(a, semconv.ServerAddressKey.String(s.host))
		if s.port > 0 {
			a = append(a, semconv.ServerPortKey.Int(s.port))
		}
	}
	a = appendParams(a, &t.sent)
	a = tr.appendAnswer(a, x, callErr != "")
	if u := &x.Usage; u.Known {
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
	if x.Stream && !x.UpstreamBody.IsZero() && !x.UpstreamSent.IsZero() {
		a = append(a, semconv.GenAIResponseTimeToFirstChunkKey.Float64(x.UpstreamBody.Sub(x.UpstreamSent).Seconds()))
	}
	if callErr != "" {
		a = append(a, semconv.ErrorTypeKey.String(callErr))
	}
	if c := t.content; c != nil {
		a = c.attributes(a, finishReasonName(x.Stop, x.StreamErr != ""))
	}
	return a
}

// requestAttributes appends the attributes of the request's span: what the
// client asked for and got, who asked, what it cost and what llmbridge
// changed. Usage is under llmbridge's names: the call's span reports it.
func (tr *Tracing) requestAttributes(a []attribute.KeyValue, x *Exchange, stop, errType string, cost float64) []attribute.KeyValue {
	t := x.Tel
	if x.Upstream != "" {
		a = append(a,
			semconv.GenAIOperationNameKey.String(operationName(x.Upstream)),
			semconv.GenAIProviderNameKey.String(t.provider),
			attrUpstreamProtocol.String(string(x.Upstream)),
		)
	}
	a = append(a, attrClientProtocol.String(string(x.Client)))
	if x.Model != "" {
		a = append(a, semconv.GenAIRequestModelKey.String(x.Model), semconv.GenAIRequestStreamKey.Bool(x.Stream))
	}
	a = appendParams(a, &t.asked)
	a = tr.appendAnswer(a, x, x.StreamErr != "")
	if stop != "" {
		a = append(a, attrStopReason.String(stop))
	}
	if u := &x.Usage; u.Known {
		a = append(a, attrInputTokens.Int64(u.InputTokens), attrOutputTokens.Int64(u.OutputTokens))
	}
	if cost >= 0 {
		a = append(a, attrCost.Float64(cost))
	}
	if errType != "" {
		a = append(a, semconv.ErrorTypeKey.String(errType))
	}
	if x.KeyName != "" {
		a = append(a, attrClientKey.String(x.KeyName))
	}
	if x.Target != "" {
		a = append(a, attrTarget.String(x.Target), attrAttempts.Int(int(x.Attempts)))
	}
	if len(t.adjusted) > 0 {
		a = append(a, attrAdjustments.StringSlice(t.adjusted))
	}
	if len(t.dropped) > 0 {
		a = append(a, attrDropped.StringSlice(t.dropped))
	}
	if c := t.content; c != nil && t.attempt == nil {
		// No call was made: the request's span keeps the prompt.
		a = c.attributes(a, "")
	}
	return a
}

// appendParams appends the generation settings in p.
func appendParams(a []attribute.KeyValue, p *requestParams) []attribute.KeyValue {
	if p.maxTokens.Set {
		a = append(a, semconv.GenAIRequestMaxTokensKey.Int64(p.maxTokens.Value))
	}
	if p.temperature.Set {
		a = append(a, semconv.GenAIRequestTemperatureKey.Float64(p.temperature.Value))
	}
	if p.topP.Set {
		a = append(a, semconv.GenAIRequestTopPKey.Float64(p.topP.Value))
	}
	return a
}

// appendAnswer appends what the upstream said of its answer: the model,
// the response id and the finish reason (errored: a stream error ended
// it).
func (tr *Tracing) appendAnswer(a []attribute.KeyValue, x *Exchange, errored bool) []attribute.KeyValue {
	if x.ResponseModel != "" {
		a = append(a, semconv.GenAIResponseModelKey.String(x.ResponseModel))
	}
	if id := x.Tel.responseID; id != "" {
		a = append(a, semconv.GenAIResponseIDKey.String(id))
	}
	if v, ok := finishReasonValues[finishReasonName(x.Stop, errored)]; ok {
		a = append(a, attribute.KeyValue{Key: semconv.GenAIResponseFinishReasonsKey, Value: v})
	}
	return a
}
