package caddymodule

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/llmbridge/llmbridge/caddymodule/observe"
	"github.com/llmbridge/llmbridge/codec"
)

// tracedSpans is what one traced exchange left: the request's span and
// the upstream call's.
type tracedSpans struct {
	server, call sdktrace.ReadOnlySpan
}

// attrs returns a span's attributes by key.
func attrs(s sdktrace.ReadOnlySpan) map[attribute.Key]attribute.Value {
	m := map[attribute.Key]attribute.Value{}
	if s == nil {
		return m
	}
	for _, kv := range s.Attributes() {
		m[kv.Key] = kv.Value
	}
	return m
}

// serveTraced is serveRecorded inside a recording server span, as Caddy's
// tracing directive makes one; it returns the spans that ended.
func serveTraced(t *testing.T, h *Handler, r *http.Request, answer func(w http.ResponseWriter) error) (*httptest.ResponseRecorder, recorded, tracedSpans) {
	t.Helper()
	sr := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(sr))
	ctx, span := tp.Tracer("caddy").Start(r.Context(), "handler", trace.WithSpanKind(trace.SpanKindServer))
	r = r.WithContext(ctx)
	r.Header.Set("Traceparent", "00-"+span.SpanContext().TraceID().String()+"-"+span.SpanContext().SpanID().String()+"-01")
	var sent string
	w, rec := serveRecorded(t, h, r, func(w http.ResponseWriter) error {
		sent = r.Header.Get("Traceparent")
		return answer(w)
	})
	callSpan := ""
	span.End()
	var out tracedSpans
	for _, s := range sr.Ended() {
		switch s.SpanKind() {
		case trace.SpanKindServer:
			out.server = s
		case trace.SpanKindClient:
			if out.call != nil {
				t.Errorf("two upstream call spans")
			}
			out.call = s
			if s.Parent().SpanID() != span.SpanContext().SpanID() {
				t.Errorf("the call span's parent is %v, want the request's span", s.Parent().SpanID())
			}
			callSpan = s.SpanContext().SpanID().String()
		}
	}
	if callSpan != "" && !strings.Contains(sent, callSpan) {
		t.Errorf("the upstream got traceparent %q, not the call span %s", sent, callSpan)
	}
	return w, rec, out
}

// TestSpanAttributes checks the GenAI attributes of the request's span and
// of the upstream call's span for a translated answer, a passthrough, an
// upstream error, a cut stream and a rejection: the call's span says what
// was sent and what the provider answered, with the usage; the request's
// span what the client asked for and got, with the usage under
// llmbridge's names only, so that summing gen_ai.usage over spans counts
// each request once.
func TestSpanAttributes(t *testing.T) {
	const chatOK = `{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"gpt-up-2026","choices":[{"index":0,"message":{"role":"assistant","content":"Hi"},"finish_reason":"length"}],` +
		`"usage":{"prompt_tokens":11,"completion_tokens":7,"total_tokens":18,"prompt_tokens_details":{"cached_tokens":4},"completion_tokens_details":{"reasoning_tokens":5}}}`
	anthropicBody := `{"model":"claude-spans","max_tokens":10,"temperature":0.5,"top_p":0.9,"messages":[{"role":"user","content":"secret prompt"}]}`
	anthropicOK := `{"id":"msg_1","type":"message","role":"assistant","model":"claude-up","content":[{"type":"text","text":"secret answer"}],"stop_reason":"end_turn","stop_sequence":null,` +
		`"usage":{"input_tokens":3,"cache_creation_input_tokens":2,"cache_read_input_tokens":1,"output_tokens":4}}`
	anthropicStream := strings.ReplaceAll(anthropicContentStream, `"model":"m"`, `"model":"claude-up"`)
	cut := "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"gpt-up\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"Hel\"}}]}\n\n"
	// claude-spans is a model no other test teaches a lesson (learn.go,
	// kept per provider for the process): the settings sent are the
	// client's.
	for _, tc := range []struct {
		name     string
		upstream string
		path     string
		body     string
		answer   func(w http.ResponseWriter) error
		// want are attributes both spans carry; server and call those
		// of one span only. An empty value must be absent.
		want, server, call map[string]string
		callName           string
		status             codes.Code
	}{
		{
			name: "translated", upstream: "openai-chat", body: anthropicBody, answer: jsonAnswer(200, chatOK),
			want: map[string]string{"gen_ai.operation.name": "chat", "gen_ai.provider.name": "openai", "gen_ai.response.model": "gpt-up-2026",
				"gen_ai.request.max_tokens": "10", "gen_ai.request.temperature": "0.5", "gen_ai.request.top_p": "0.9", "gen_ai.request.stream": "false",
				"gen_ai.response.finish_reasons": `["length"]`, "gen_ai.response.id": "chatcmpl-1",
				"error.type": "", "gen_ai.input.messages": "", "gen_ai.output.messages": ""},
			server: map[string]string{"gen_ai.request.model": "claude-spans", "llmbridge.stop_reason": "max_tokens",
				"llmbridge.usage.input_tokens": "11", "llmbridge.usage.output_tokens": "7", "gen_ai.usage.input_tokens": "", "gen_ai.usage.output_tokens": "",
				"gen_ai.usage.cache_read.input_tokens": "", "gen_ai.usage.reasoning.output_tokens": "",
				"llmbridge.client.protocol": "anthropic-messages", "llmbridge.upstream.protocol": "openai-chat"},
			call: map[string]string{"gen_ai.request.model": "gpt-up", "gen_ai.usage.input_tokens": "11", "gen_ai.usage.output_tokens": "7",
				"gen_ai.usage.cache_read.input_tokens": "4", "gen_ai.usage.cache_creation.input_tokens": "", "gen_ai.usage.reasoning.output_tokens": "5",
				"llmbridge.usage.input_tokens": "", "llmbridge.client.protocol": "", "llmbridge.stop_reason": "",
				"gen_ai.response.time_to_first_chunk": ""},
			callName: "chat gpt-up",
		},
		{
			name: "passthrough", upstream: "anthropic-messages", body: anthropicBody, answer: jsonAnswer(200, anthropicOK),
			want: map[string]string{"gen_ai.provider.name": "anthropic", "gen_ai.response.model": "claude-up", "gen_ai.request.model": "claude-spans",
				"gen_ai.request.max_tokens": "10", "gen_ai.request.temperature": "0.5", "gen_ai.request.top_p": "0.9",
				"gen_ai.response.finish_reasons": `["stop"]`, "gen_ai.response.id": "msg_1", "gen_ai.input.messages": ""},
			server: map[string]string{"llmbridge.usage.input_tokens": "6", "llmbridge.upstream.protocol": "anthropic-messages", "gen_ai.usage.input_tokens": ""},
			call: map[string]string{"gen_ai.usage.input_tokens": "6", "gen_ai.usage.cache_read.input_tokens": "1", "gen_ai.usage.cache_creation.input_tokens": "2",
				"gen_ai.usage.output_tokens": "4"},
			callName: "chat claude-spans",
		},
		{
			// The client asked for no output limit; Anthropic requires
			// one, and the call's span says what was sent.
			name: "settings sent", upstream: "anthropic-messages", path: "/v1/chat/completions",
			body:   `{"model":"claude-spans","stream":true,"messages":[{"role":"user","content":"hi"}]}`,
			answer: sseAnswer(anthropicStream, 64, nil),
			want: map[string]string{"gen_ai.request.stream": "true", "gen_ai.response.finish_reasons": `["stop"]`,
				"gen_ai.request.temperature": "", "error.type": ""},
			server:   map[string]string{"gen_ai.request.max_tokens": "", "gen_ai.response.time_to_first_chunk": ""},
			call:     map[string]string{"gen_ai.request.max_tokens": strconv.Itoa(codec.DefaultMaxTokens), "gen_ai.response.time_to_first_chunk": "set"},
			callName: "chat claude-spans",
		},
		{
			name: "upstream error", upstream: "gemini", body: anthropicBody,
			answer:   jsonAnswer(429, `{"error":{"code":429,"message":"quota","status":"RESOURCE_EXHAUSTED"}}`),
			want:     map[string]string{"gen_ai.operation.name": "generate_content", "gen_ai.provider.name": "gcp.gemini", "error.type": "429", "gen_ai.usage.input_tokens": ""},
			callName: "generate_content claude-spans", status: codes.Error,
		},
		{
			// Anthropic's 529 is a 503 for an OpenAI client: the call's
			// span says what the provider answered, the request's what
			// the client got.
			name: "mapped status", upstream: "anthropic-messages", path: "/v1/chat/completions",
			body:     `{"model":"claude-spans","messages":[{"role":"user","content":"hi"}]}`,
			answer:   jsonAnswer(529, `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`),
			server:   map[string]string{"error.type": "503"},
			call:     map[string]string{"error.type": "529"},
			callName: "chat claude-spans", status: codes.Error,
		},
		{
			name: "cut stream", upstream: "openai-chat", body: strings.Replace(anthropicBody, `"max_tokens":10`, `"max_tokens":10,"stream":true`, 1),
			answer:   sseAnswer(cut, 64, errors.New("connection reset")),
			want:     map[string]string{"error.type": "bad_gateway", "gen_ai.response.model": "gpt-up", "gen_ai.response.finish_reasons": `["error"]`},
			callName: "chat gpt-up", status: codes.Error,
		},
		{
			name: "rejected", upstream: "openai-chat", body: `{"model":"claude-spans","messages":[{"role":"user","content":[{"type":"bogus"}]}]}`,
			want: map[string]string{"error.type": "unsupported_field", "llmbridge.client.protocol": "anthropic-messages"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newTestHandler(t, &Handler{Upstream: tc.upstream, Models: []ModelRoute{{Match: "claude-spans", Upstream: "gpt-up"}}})
			if tc.upstream != "openai-chat" {
				h = newTestHandler(t, &Handler{Upstream: tc.upstream})
			}
			answer := tc.answer
			if answer == nil {
				answer = func(http.ResponseWriter) error { t.Error("the upstream was called"); return nil }
			}
			path := tc.path
			if path == "" {
				path = "/v1/messages"
			}
			_, _, spans := serveTraced(t, h, httptest.NewRequest("POST", path, strings.NewReader(tc.body)), answer)
			if spans.server == nil {
				t.Fatal("no request span")
			}
			if tc.callName == "" {
				if spans.call != nil {
					t.Errorf("a call span %q for a request that never reached the upstream", spans.call.Name())
				}
			} else if spans.call == nil {
				t.Fatal("no upstream call span")
			} else {
				if spans.call.Name() != tc.callName {
					t.Errorf("call span %q, want %q", spans.call.Name(), tc.callName)
				}
				if spans.call.Status().Code != tc.status {
					t.Errorf("call span status %v, want %v", spans.call.Status(), tc.status)
				}
			}
			check := func(which string, s sdktrace.ReadOnlySpan, want map[string]string) {
				got := attrs(s)
				for k, v := range want {
					g, ok := got[attribute.Key(k)]
					switch {
					case v == "" && ok:
						t.Errorf("%s span: %s = %s, want none", which, k, g.Emit())
					case v == "set" && !ok:
						t.Errorf("%s span: no %s", which, k)
					case v != "" && v != "set" && (!ok || g.Emit() != v):
						t.Errorf("%s span: %s = %q (set %v), want %q", which, k, g.Emit(), ok, v)
					}
				}
			}
			check("request", spans.server, tc.want)
			check("request", spans.server, tc.server)
			if spans.call != nil {
				check("call", spans.call, tc.want)
				check("call", spans.call, tc.call)
				// What a sampler decides by is known at the call's start.
				for _, k := range []attribute.Key{"gen_ai.operation.name", "gen_ai.provider.name", "gen_ai.request.model", "gen_ai.request.stream"} {
					if attrs(spans.call)[k].Type() == attribute.INVALID {
						t.Errorf("call span: no %s", k)
					}
				}
			}
		})
	}
}

// anthropicContentStream is an Anthropic stream answering "secret answer".
const anthropicContentStream = "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"m\",\"content\":[],\"stop_reason\":null,\"usage\":{\"input_tokens\":3,\"output_tokens\":0}}}\n\n" +
	"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n" +
	"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"secret \"}}\n\n" +
	"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"answer\"}}\n\n" +
	"event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n" +
	"event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":2}}\n\n" +
	"event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"

// TestSpanContent checks otel_content: prompt and completion in the
// conventions' JSON, translated, streamed and passed through, and the
// size bound with its truncation mark.
func TestSpanContent(t *testing.T) {
	body := `{"model":"m","max_tokens":10,"system":"be brief","messages":[{"role":"user","content":"secret prompt"}]}`
	anthropicOK := `{"id":"msg_1","type":"message","role":"assistant","model":"m","content":[{"type":"text","text":"secret answer"}],"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":3,"output_tokens":4}}`
	chatOK := `{"id":"c","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"secret answer"},"finish_reason":"stop"}]}`
	stream := "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"secret \"}}]}\n\n" +
		"data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"answer\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n"
	streamBody := strings.Replace(body, `"max_tokens":10`, `"max_tokens":10,"stream":true`, 1)
	for _, tc := range []struct {
		name, upstream, body string
		answer               func(w http.ResponseWriter) error
		max                  int64
		input, output        string
		truncated            bool
	}{
		{name: "translated", upstream: "openai-chat", body: body, answer: jsonAnswer(200, chatOK),
			input:  `[{"role":"user","parts":[{"type":"text","content":"secret prompt"}]}]`,
			output: `[{"role":"assistant","parts":[{"type":"text","content":"secret answer"}],"finish_reason":"stop"}]`},
		{name: "streamed", upstream: "openai-chat", body: streamBody, answer: sseAnswer(stream, 50, nil),
			input:  `[{"role":"user","parts":[{"type":"text","content":"secret prompt"}]}]`,
			output: `[{"role":"assistant","parts":[{"type":"text","content":"secret answer"}],"finish_reason":"stop"}]`},
		{name: "passthrough", upstream: "anthropic-messages", body: body, answer: jsonAnswer(200, anthropicOK),
			input:  `[{"role":"user","parts":[{"type":"text","content":"secret prompt"}]}]`,
			output: `[{"role":"assistant","parts":[{"type":"text","content":"secret answer"}],"finish_reason":"stop"}]`},
		{name: "passthrough stream", upstream: "anthropic-messages", body: streamBody, answer: sseAnswer(anthropicContentStream, 40, nil),
			input:  `[{"role":"user","parts":[{"type":"text","content":"secret prompt"}]}]`,
			output: `[{"role":"assistant","parts":[{"type":"text","content":"secret answer"}],"finish_reason":"stop"}]`},
		{name: "bounded", upstream: "openai-chat", body: body, answer: jsonAnswer(200, chatOK), max: 2*16 + 10, // two parts at their least cost (16 bytes) and ten bytes
			// "be brief" and the part costs leave two bytes of the
			// prompt.
			input:     `[{"role":"user","parts":[{"type":"text","content":"se"}]}]`,
			output:    `[{"role":"assistant","parts":[],"finish_reason":"stop"}]`,
			truncated: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newTestHandler(t, &Handler{Upstream: tc.upstream, OTelContent: true, OTelContentMax: tc.max})
			_, _, spans := serveTraced(t, h, httptest.NewRequest("POST", "/v1/messages", strings.NewReader(tc.body)), tc.answer)
			// The content is the inference's: on the call's span only.
			for _, k := range []attribute.Key{"gen_ai.input.messages", "gen_ai.output.messages", "gen_ai.system_instructions"} {
				if v, ok := attrs(spans.server)[k]; ok {
					t.Errorf("request span: %s = %s, want it on the call's span only", k, v.Emit())
				}
			}
			for _, s := range []sdktrace.ReadOnlySpan{spans.call} {
				got := attrs(s)
				if v := got["gen_ai.input.messages"].AsString(); v != tc.input {
					t.Errorf("%s: input messages %s, want %s", s.Name(), v, tc.input)
				}
				if v := got["gen_ai.output.messages"].AsString(); v != tc.output {
					t.Errorf("%s: output messages %s, want %s", s.Name(), v, tc.output)
				}
				if v := got["gen_ai.system_instructions"].AsString(); !tc.truncated && v != `[{"type":"text","content":"be brief"}]` {
					t.Errorf("%s: system instructions %s", s.Name(), v)
				}
				if got["llmbridge.content.truncated"].AsBool() != tc.truncated {
					t.Errorf("%s: truncated %v, want %v", s.Name(), got["llmbridge.content.truncated"].AsBool(), tc.truncated)
				}
			}
		})
	}
}

// TestSpanClientKeyAndEdits checks the client key's name, the adjustments
// and the dropped fields on the request's span, and that the key itself
// appears nowhere.
func TestSpanClientKeyAndEdits(t *testing.T) {
	h := newTestHandler(t, &Handler{Upstream: "openai-chat", ClientKeys: []ClientKey{{Name: "team-a", Key: "sk-team-a-secret"}}, Drop: []string{"metadata"}})
	r := httptest.NewRequest("POST", "/v1/messages", strings.NewReader(`{"model":"o3","max_tokens":10,"temperature":0.2,"metadata":{"user_id":"u"},"messages":[{"role":"user","content":"hi"}]}`))
	r.Header.Set("X-Api-Key", "sk-team-a-secret")
	_, rec, spans := serveTraced(t, h, r, jsonAnswer(200, `{"id":"c","object":"chat.completion","created":1,"model":"o3","choices":[{"index":0,"message":{"role":"assistant","content":"ok"},"finish_reason":"stop"}]}`))
	got := attrs(spans.server)
	if v := got["llmbridge.client_key"].AsString(); v != "team-a" {
		t.Errorf("client key %q, want team-a", v)
	}
	if v := got["llmbridge.dropped"].AsStringSlice(); len(v) != 1 || v[0] != "metadata" {
		t.Errorf("dropped %v, want [metadata]", v)
	}
	if v := got["llmbridge.adjustments"].AsStringSlice(); len(v) == 0 {
		t.Errorf("no adjustments for a temperature sent to o3")
	}
	if rec.fields["client_key"] != "team-a" {
		t.Errorf("access log client_key %v", rec.fields["client_key"])
	}
	for _, s := range []sdktrace.ReadOnlySpan{spans.server, spans.call} {
		for _, kv := range s.Attributes() {
			if strings.Contains(kv.Value.Emit(), "sk-team-a-secret") {
				t.Errorf("%s: %s holds the client key", s.Name(), kv.Key)
			}
		}
	}
}

// TestTracingOffAllocates checks that a request without a recording span
// records nothing of telemetry: no span state and no content capture.
func TestTracingOffAllocates(t *testing.T) {
	h := newTestHandler(t, &Handler{Upstream: "openai-chat", OTelContent: true})
	x := &observe.Exchange{}
	r := httptest.NewRequest("POST", "/v1/messages", nil)
	h.tracing.Begin(r, x)
	if x.Tel != nil {
		t.Fatal("telemetry began without a recording span")
	}
	unsampled := sdktrace.NewTracerProvider(sdktrace.WithSampler(sdktrace.NeverSample()))
	ctx, sp := unsampled.Tracer("t").Start(context.Background(), "s")
	defer sp.End()
	r = r.WithContext(ctx)
	if n := testing.AllocsPerRun(100, func() {
		x := observe.Exchange{}
		h.tracing.Begin(r, &x)
		x.Tel.NoteRequest(&codec.Request{})
		x.Tel.NoteEdits(nil, []string{"a"})
		_ = h.tracing.StartCall(&x, r, nil)
		h.tracing.Finish(&x, nil, "end", "", -1)
	}); n != 0 {
		t.Errorf("telemetry without a recording span allocates %v times", n)
	}
}

// TestSpanEndpoint leaves a model listing without GenAI attributes: it is
// no generation operation.
func TestSpanEndpoint(t *testing.T) {
	h := newTestHandler(t, &Handler{Upstream: "openai-chat"})
	w, _, spans := serveTraced(t, h, httptest.NewRequest("GET", "/v1/models", nil), jsonAnswer(200, `{"object":"list","data":[{"id":"gpt-x","object":"model","created":1,"owned_by":"o"}]}`))
	if w.Code != 200 {
		t.Fatalf("status %d: %s", w.Code, w.Body)
	}
	if v, ok := attrs(spans.server)["gen_ai.operation.name"]; ok {
		t.Errorf("a model listing has gen_ai.operation.name %s", v.Emit())
	}
	if spans.call != nil {
		t.Errorf("a model listing has a call span %q", spans.call.Name())
	}
}

// failingWriter fails every write after the header, as a connection the
// client closed does.
type failingWriter struct{ *httptest.ResponseRecorder }

func (f failingWriter) Write([]byte) (int, error) { return 0, errors.New("broken pipe") }

// TestClientGoneMidStream marks a stream whose client went away as
// canceled, translated and passed through.
func TestClientGoneMidStream(t *testing.T) {
	for _, upstream := range []string{"openai-chat", "anthropic-messages"} {
		answer := sseAnswer(anthropicContentStream, 40, nil)
		if upstream == "openai-chat" {
			answer = sseAnswer(chatStream, 40, nil)
		}
		h := newTestHandler(t, &Handler{Upstream: upstream})
		r := httptest.NewRequest("POST", "/v1/messages", strings.NewReader(`{"model":"m","max_tokens":5,"stream":true,"messages":[{"role":"user","content":"hi"}]}`))
		sr := tracetest.NewSpanRecorder()
		ctx, span := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(sr)).Tracer("caddy").Start(r.Context(), "handler")
		r = r.WithContext(context.WithValue(ctx, caddy.ReplacerCtxKey, caddy.NewReplacer()))
		next := caddyhttp.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error { return answer(w) })
		if err := h.ServeHTTP(failingWriter{httptest.NewRecorder()}, r, next); err != nil {
			t.Fatalf("%s: %v", upstream, err)
		}
		span.End()
		if got := attrs(sr.Ended()[len(sr.Ended())-1])["error.type"].AsString(); got != "canceled" {
			t.Errorf("%s: error.type %q, want canceled", upstream, got)
		}
	}
}
