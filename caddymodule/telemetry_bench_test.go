package caddymodule

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// benchChatOK is an OpenAI Chat answer with usage.
const benchChatOK = `{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"gpt-up","choices":[{"index":0,"message":{"role":"assistant","content":"Hi"},"finish_reason":"stop"}],` +
	`"usage":{"prompt_tokens":11,"completion_tokens":7,"total_tokens":18}}`

// benchChatStream is an OpenAI Chat stream of 40 text deltas and usage.
var benchChatStream = func() string {
	var b strings.Builder
	b.WriteString(`data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"gpt-up","choices":[{"index":0,"delta":{"role":"assistant","content":""}}]}` + "\n\n")
	for range 40 {
		b.WriteString(`data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"gpt-up","choices":[{"index":0,"delta":{"content":"word "}}]}` + "\n\n")
	}
	b.WriteString(`data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"gpt-up","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}` + "\n\n")
	b.WriteString(`data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"gpt-up","choices":[],"usage":{"prompt_tokens":11,"completion_tokens":40,"total_tokens":51}}` + "\n\n")
	b.WriteString("data: [DONE]\n\n")
	return b.String()
}()

// discardWriter is a ResponseWriter that keeps nothing, so that the
// benchmark measures llmbridge and not a recorder's buffer.
type discardWriter struct{ h http.Header }

func (d *discardWriter) Header() http.Header         { return d.h }
func (d *discardWriter) Write(p []byte) (int, error) { return len(p), nil }
func (d *discardWriter) WriteHeader(int)             {}
func (d *discardWriter) Flush()                      {}

// benchmarkServe runs a translated request (Anthropic client, OpenAI Chat
// upstream) through ServeHTTP, in a context made by ctx.
func benchmarkServe(b *testing.B, body, answer, contentType string, ctx func(context.Context) (context.Context, func())) {
	h := &Handler{Upstream: "openai-chat"}
	pctx, cancel := caddy.NewContext(caddy.Context{Context: context.Background()})
	b.Cleanup(cancel)
	if err := h.Provision(pctx); err != nil {
		b.Fatal(err)
	}
	next := caddyhttp.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", contentType)
		w.WriteHeader(200)
		_, err := io.WriteString(w, answer)
		return err
	})
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		r := httptest.NewRequest("POST", "/v1/messages", strings.NewReader(body))
		c := context.WithValue(r.Context(), caddy.ReplacerCtxKey, caddy.NewReplacer())
		c = context.WithValue(c, caddyhttp.VarsCtxKey, map[string]any{})
		c, end := ctx(c)
		w := &discardWriter{h: http.Header{}}
		if err := h.ServeHTTP(w, r.WithContext(c), next); err != nil {
			b.Fatal(err)
		}
		end()
	}
}

// BenchmarkServeTelemetry measures a whole translated exchange, JSON and
// streamed, without a span (tracing off), with a span that does not
// record (tracing on, not sampled) and with a recording span whose
// processor drops what ends (tracing on: llmbridge's attributes and child
// span, not an exporter's work).
func BenchmarkServeTelemetry(b *testing.B) {
	const jsonBody = `{"model":"gpt-up","max_tokens":10,"temperature":0.5,"messages":[{"role":"user","content":"hi"}]}`
	const streamBody = `{"model":"gpt-up","max_tokens":10,"stream":true,"messages":[{"role":"user","content":"hi"}]}`
	recording := sdktrace.NewTracerProvider(sdktrace.WithSampler(sdktrace.AlwaysSample()))
	unsampled := sdktrace.NewTracerProvider(sdktrace.WithSampler(sdktrace.NeverSample()))
	span := func(tp trace.TracerProvider) func(context.Context) (context.Context, func()) {
		return func(c context.Context) (context.Context, func()) {
			c, sp := tp.Tracer("bench").Start(c, "server", trace.WithSpanKind(trace.SpanKindServer))
			return c, func() { sp.End() }
		}
	}
	off := func(c context.Context) (context.Context, func()) { return c, func() {} }
	for _, kind := range []struct{ name, body, answer, ct string }{
		{"json", jsonBody, benchChatOK, "application/json"},
		{"stream", streamBody, benchChatStream, "text/event-stream"},
	} {
		b.Run(kind.name+"/off", func(b *testing.B) { benchmarkServe(b, kind.body, kind.answer, kind.ct, off) })
		b.Run(kind.name+"/unsampled", func(b *testing.B) { benchmarkServe(b, kind.body, kind.answer, kind.ct, span(unsampled)) })
		b.Run(kind.name+"/recording", func(b *testing.B) { benchmarkServe(b, kind.body, kind.answer, kind.ct, span(recording)) })
	}
}
