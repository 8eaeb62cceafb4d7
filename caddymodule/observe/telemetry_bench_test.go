package observe

import (
	"context"
	"net/http/httptest"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/llmbridge/llmbridge/codec"
)

// BenchmarkTelemetryAttributes measures what llmbridge adds to one request
// with a recording span, with a provider that exports nothing: "span" is
// Caddy's span alone, "attributes" adds llmbridge's attributes to it, and
// "recording" also makes the upstream call's span and sets them there;
// "off" is the same calls without a span; "sdk" is the SDK's share.
func BenchmarkTelemetryAttributes(b *testing.B) {
	var tr Tracing
	req := &codec.Request{MaxTokens: codec.OptInt{Value: 10, Set: true}, Temperature: codec.OptFloat{Value: 0.5, Set: true}}
	usage := codec.Usage{Known: true, InputTokens: 11, OutputTokens: 7, CacheReadTokens: 4, ReasoningTokens: 2}
	// Each iteration has a server span of its own, as each request has
	// from Caddy's tracing; "span" is that span alone, the baseline of
	// "recording".
	tp := sdktrace.NewTracerProvider()
	run := func(b *testing.B, traced, llmbridge, call bool) {
		r := httptest.NewRequest("POST", "/v1/messages", nil)
		ctx := r.Context()
		b.ReportAllocs()
		for range b.N {
			var sp trace.Span
			if traced {
				var c context.Context
				c, sp = tp.Tracer("bench").Start(ctx, "server")
				r = r.WithContext(c)
			}
			if llmbridge {
				x := &Exchange{Client: codec.AnthropicMessages, Upstream: codec.OpenAIChat, Model: "claude-x", UpstreamModel: "gpt-up", Usage: usage, Status: 200}
				tr.Begin(r, x)
				x.Tel.NoteRequest(req)
				if call {
					_ = tr.StartCall(x, r, nil)
				}
				x.setResponse("gpt-up", "chatcmpl-1")
				tr.Finish(x, nil, "end", "", -1)
			}
			if sp != nil {
				sp.End()
			}
		}
	}
	b.Run("off", func(b *testing.B) { run(b, false, true, true) })
	b.Run("span", func(b *testing.B) { run(b, true, false, false) })
	b.Run("attributes", func(b *testing.B) { run(b, true, true, false) })
	b.Run("recording", func(b *testing.B) { run(b, true, true, true) })
	// "sdk" sets the attributes "attributes" sets, made beforehand: the
	// SDK's share of "attributes".
	sr := tracetest.NewSpanRecorder()
	rec := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(sr))
	c, sp := rec.Tracer("bench").Start(context.Background(), "server")
	x := &Exchange{Client: codec.AnthropicMessages, Upstream: codec.OpenAIChat, Model: "claude-x", UpstreamModel: "gpt-up", Usage: usage, Status: 200}
	tr.Begin(httptest.NewRequest("POST", "/v1/messages", nil).WithContext(c), x)
	x.Tel.NoteRequest(req)
	x.setResponse("gpt-up", "chatcmpl-1")
	tr.Finish(x, nil, "end", "", -1)
	sp.End()
	attrs := sr.Ended()[0].Attributes()
	b.Run("sdk", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			_, sp := tp.Tracer("bench").Start(context.Background(), "server")
			sp.SetAttributes(attrs...)
			sp.End()
		}
	})
}
