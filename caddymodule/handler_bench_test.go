package caddymodule

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/interactions"
)

// BenchmarkServeTranslate runs a small translated request (Anthropic
// client, OpenAI Chat upstream) through ServeHTTP, the next handler
// answering a JSON completion: the handler's own cost per request,
// fitting and the retry bookkeeping included.
func BenchmarkServeTranslate(b *testing.B) {
	benchServe(b, "openai-chat", `{"model":"gpt-5.4","max_tokens":100,"temperature":0.2,"messages":[{"role":"user","content":"Hi"}]}`,
		`{"id":"c","object":"chat.completion","model":"gpt-5.4","choices":[{"index":0,"message":{"role":"assistant","content":"hi"},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}`)
}

// BenchmarkServePassthrough runs a small passthrough request (Anthropic on
// both sides) through ServeHTTP, the next handler answering a JSON message.
func BenchmarkServePassthrough(b *testing.B) {
	benchServe(b, "anthropic-messages", `{"model":"claude-sonnet-4-5","max_tokens":100,"messages":[{"role":"user","content":"Hi"}]}`,
		`{"id":"msg","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":"hi"}],"stop_reason":"end_turn","usage":{"input_tokens":1,"output_tokens":1}}`)
}

// benchServe runs an Anthropic Messages request body through a handler of
// upstream protocol upstream whose next handler answers answer.
func benchServe(b *testing.B, upstream, body, answer string) {
	benchServeWith(b, &Handler{Upstream: upstream}, body, answer)
}

// caddyContext returns a Caddy context for provisioning a handler.
func caddyContext() (caddy.Context, context.CancelFunc) {
	return caddy.NewContext(caddy.Context{Context: context.Background()})
}

// benchServeWith runs an Anthropic Messages request body, with the client
// key "k", through h, whose next handler answers answer.
func benchServeWith(b *testing.B, h *Handler, body, answer string) {
	ctx, cancel := caddyContext()
	defer cancel()
	if err := h.Provision(ctx); err != nil {
		b.Fatal(err)
	}
	next := caddyhttp.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(200)
		_, err := io.WriteString(w, answer)
		return err
	})
	base := httptest.NewRequest(http.MethodPost, "/v1/messages", nil)
	rctx := context.WithValue(base.Context(), caddy.ReplacerCtxKey, caddy.NewReplacer())
	rctx = context.WithValue(rctx, caddyhttp.VarsCtxKey, map[string]any{})
	bodyBytes := []byte(body)
	b.ReportAllocs()
	for b.Loop() {
		r := base.Clone(rctx)
		r.Body = io.NopCloser(bytes.NewReader(bodyBytes))
		r.ContentLength = int64(len(bodyBytes))
		r.Header.Set("X-Api-Key", "k")
		w := httptest.NewRecorder()
		if err := h.ServeHTTP(w, r, next); err != nil || w.Code != 200 {
			b.Fatal(err, w.Code, w.Body.String())
		}
	}
}

// BenchmarkServeAgent runs the agent-sized bodies of the allocation budgets
// (5 KB, 92 KB, 1 MB; Anthropic, Responses and Interactions clients) through
// ServeHTTP, translated for each pair, with the next handler answering at
// once: llmbridge's own cost per request, without the network and
// reverse_proxy. The Responses and Interactions rows named kept say store:
// true, and pay for keeping the conversation.
func BenchmarkServeAgent(b *testing.B) {
	for _, client := range []codec.Protocol{codec.AnthropicMessages, codec.OpenAIResponses, interactions.Gemini} {
		for _, upstream := range []string{"openai-chat", "anthropic-messages", "gemini"} {
			s := newAllocServer(b, client, upstream)
			for _, size := range allocSizes {
				body, err := codec.AppendRequest(nil, client, allocConversation(size.steps, false), codec.EncodeOptions{})
				if err != nil {
					b.Fatal(err)
				}
				b.Run(string(client)+"->"+upstream+"/"+size.name, func(b *testing.B) {
					b.SetBytes(int64(len(body)))
					b.ReportAllocs()
					for b.Loop() {
						s.serve(b, body, false, 0)
					}
				})
				if client == codec.AnthropicMessages {
					continue
				}
				// The encoders write store: false (Codex's setting); the
				// SDKs' default keeps each answer's conversation.
				kept := bytes.Replace(body, []byte(`"store":false`), []byte(`"store":true`), 1)
				b.Run(string(client)+"->"+upstream+"/"+size.name+"/kept", func(b *testing.B) {
					b.SetBytes(int64(len(kept)))
					b.ReportAllocs()
					for b.Loop() {
						s.serve(b, kept, false, 0)
					}
				})
			}
		}
	}
}
