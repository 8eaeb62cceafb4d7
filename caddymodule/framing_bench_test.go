package caddymodule

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"syscall"
	"testing"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"go.uber.org/zap"

	"github.com/llmbridge/llmbridge/sse/eventstream"
)

// framingBenchEvents is how many content events a benchmarked stream has.
const framingBenchEvents = 500

// The upstream streams of the framing benchmark: Anthropic's events
// (a start, content events, an end), and Chat's.
const (
	framingBenchAnthropicHead = "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"m\",\"content\":[],\"stop_reason\":null,\"usage\":{\"input_tokens\":1,\"output_tokens\":1}}}\n\n" +
		"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n"
	framingBenchAnthropicEvent = "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"The quick brown fox jumps over the lazy dog. \"}}\n\n"
	framingBenchAnthropicTail  = "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n" +
		"event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":2}}\n\n" +
		"event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"
	framingBenchChatHead  = "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"}}]}\n\n"
	framingBenchChatEvent = "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"The quick brown fox jumps over the lazy dog. \"}}]}\n\n"
	framingBenchChatTail  = "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n" +
		"data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"model\":\"m\",\"choices\":[],\"usage\":{\"prompt_tokens\":1,\"completion_tokens\":1,\"total_tokens\":2}}\n\ndata: [DONE]\n\n"
)

// BenchmarkFramedStream measures a translated stream's cost per event
// with an AWS event stream on one side, next to the same stream in SSE:
// an InvokeModel (bedrock-anthropic) upstream against an Anthropic one,
// for a Chat client (the upstream's events unframed); and an InvokeModel
// client against an Anthropic client, from a Chat upstream (the client's
// events framed). Each pair runs the same codecs, so the difference of
// its ns/event is what the framing costs.
func BenchmarkFramedStream(b *testing.B) {
	const chatBody = `{"model":"anthropic.claude-sonnet-4-5-20250929-v1:0","stream":true,"messages":[{"role":"user","content":"hi"}]}`
	const anthropicBody = `{"model":"claude-sonnet-4-5","max_tokens":100,"stream":true,"messages":[{"role":"user","content":"hi"}]}`
	const invokeBody = `{"anthropic_version":"bedrock-2023-05-31","max_tokens":100,"messages":[{"role":"user","content":"hi"}]}`
	chunks := func(s string) string {
		m, err := eventstream.NewChunkWriter(1<<20).Push(nil, []byte(s))
		if err != nil {
			b.Fatal(err)
		}
		return string(m)
	}
	anthropic := [3]string{framingBenchAnthropicHead, framingBenchAnthropicEvent, framingBenchAnthropicTail}
	invoke := [3]string{chunks(anthropic[0]), chunks(anthropic[1]), chunks(anthropic[2])}
	chat := [3]string{framingBenchChatHead, framingBenchChatEvent, framingBenchChatTail}
	for _, side := range []struct {
		name, upstream, path, body string
		answer                     [3]string
		contentType                string
	}{
		{"upstream/sse", "anthropic-messages", "/v1/chat/completions", chatBody, anthropic, "text/event-stream"},
		{"upstream/eventstream", "bedrock-anthropic", "/v1/chat/completions", chatBody, invoke, eventstream.ContentType},
		{"client/sse", "openai-chat", "/v1/messages", anthropicBody, chat, "text/event-stream"},
		{"client/eventstream", "openai-chat", "/model/anthropic.claude-sonnet-4-5-20250929-v1:0/invoke-with-response-stream", invokeBody, chat, "text/event-stream"},
	} {
		b.Run(side.name, func(b *testing.B) {
			ctx, cancel := caddy.NewContext(caddy.Context{Context: context.Background()})
			defer cancel()
			h := bedrockTestHandler(side.upstream, "k")
			if err := h.Provision(ctx); err != nil {
				b.Fatal(err)
			}
			h.setLogger(zap.NewNop())
			head, event, tail := []byte(side.answer[0]), []byte(side.answer[1]), []byte(side.answer[2])
			next := caddyhttp.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
				w.Header().Set("Content-Type", side.contentType)
				w.WriteHeader(200)
				_, _ = w.Write(head)
				for range framingBenchEvents {
					_, _ = w.Write(event)
				}
				_, err := w.Write(tail)
				return err
			})
			w := &framingBenchWriter{header: http.Header{}}
			b.ReportAllocs()
			cpu := processCPU(b)
			for b.Loop() {
				r := httptest.NewRequest(http.MethodPost, side.path, strings.NewReader(side.body))
				rctx := context.WithValue(r.Context(), caddy.ReplacerCtxKey, caddy.NewReplacer())
				r = r.WithContext(context.WithValue(rctx, caddyhttp.VarsCtxKey, map[string]any{}))
				clear(w.header)
				w.status, w.n = 0, 0
				if err := h.ServeHTTP(w, r, next); err != nil || w.status != 200 || w.n == 0 {
					b.Fatalf("%v, status %d, %d bytes", err, w.status, w.n)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*framingBenchEvents), "ns/event")
			// The process's CPU time (garbage collection included) holds
			// still on a machine busy with other work, where the elapsed
			// time counts the waits for a core too.
			b.ReportMetric(float64(processCPU(b)-cpu)/float64(b.N*framingBenchEvents), "cpu-ns/event")
		})
	}
}

// processCPU is the user and system CPU time the process has used, in
// nanoseconds.
func processCPU(b *testing.B) int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

// framingBenchWriter is a client that reads and drops the answer.
type framingBenchWriter struct {
	header http.Header
	status int
	n      int
}

func (w *framingBenchWriter) Header() http.Header { return w.header }

func (w *framingBenchWriter) WriteHeader(status int) { w.status = status }

func (w *framingBenchWriter) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.status = 200
	}
	w.n += len(p)
	return len(p), nil
}

// Flush is a no-op: the answer is dropped as it comes.
func (w *framingBenchWriter) Flush() {}
