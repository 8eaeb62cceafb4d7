package caddymodule

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/llmbridge/llmbridge/caddymodule/limits"
)

// uniqueScope returns a scope no other run of the test shares: counters
// of the process's memory outlive a test.
func uniqueScope(t *testing.T) string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return t.Name() + "-" + hex.EncodeToString(b)
}

// TestLimitRefusals sends each client protocol's requests through a site
// whose key may make two requests a minute: the third is refused with a
// 429 in the client's error format, Retry-After, and the rate-limit
// headers of its protocol; admitted requests show what remains.
func TestLimitRefusals(t *testing.T) {
	chatOK := jsonAnswer(200, `{"id":"c","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"ok"},"finish_reason":"stop"}],"usage":{"prompt_tokens":5,"completion_tokens":2,"total_tokens":7}}`)
	for _, tc := range []struct {
		name, path, body, auth string
		errorPath, header      string
	}{
		{name: "anthropic", path: "/v1/messages", body: `{"model":"m","max_tokens":10,"messages":[{"role":"user","content":"hi"}]}`, auth: "X-Api-Key",
			errorPath: "error.type", header: "Anthropic-Ratelimit-Requests-Remaining"},
		{name: "chat", path: "/v1/chat/completions", body: `{"model":"m","messages":[{"role":"user","content":"hi"}]}`, auth: "Authorization",
			errorPath: "error.message", header: "X-Ratelimit-Remaining-Requests"},
		{name: "responses", path: "/v1/responses", body: `{"model":"m","input":"hi"}`, auth: "Authorization",
			errorPath: "error.message", header: "X-Ratelimit-Remaining-Requests"},
		{name: "gemini", path: "/v1beta/models/m:generateContent", body: `{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}`, auth: "X-Goog-Api-Key",
			errorPath: "error.status"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newTestHandler(t, &Handler{Upstream: "openai-chat", ClientKeys: []ClientKey{{Name: "alice", Key: "sk-alice"}},
				Limits: []limits.Limit{{Keys: []string{"alice"}, Scope: uniqueScope(t), Rates: []limits.Rate{{Of: "requests", Max: 2, Per: "hour"}}}}})
			send := func() *httptest.ResponseRecorder {
				r := httptest.NewRequest("POST", tc.path, strings.NewReader(tc.body))
				v := "sk-alice"
				if tc.auth == "Authorization" {
					v = "Bearer sk-alice"
				}
				r.Header.Set(tc.auth, v)
				w, _ := serve(t, h, r, chatOK)
				return w
			}
			for i := range 2 {
				w := send()
				if w.Code != 200 {
					t.Fatalf("request %d: %d %s", i, w.Code, w.Body)
				}
				if got, want := w.Header().Get(limitsHeader), "requests/hour="+strconv.Itoa(1-i)+"/2;reset="; !strings.HasPrefix(got, want) {
					t.Errorf("request %d: %s %q, want %q...", i, limitsHeader, got, want)
				}
			}
			w := send()
			if w.Code != 429 {
				t.Fatalf("third request: %d %s, want 429", w.Code, w.Body)
			}
			if !gjson.GetBytes(w.Body.Bytes(), tc.errorPath).Exists() {
				t.Errorf("the 429 is not in the client's error format: %s", w.Body)
			}
			ra, err := strconv.Atoi(w.Header().Get("Retry-After"))
			if err != nil || ra < 1 || ra > 3600 {
				t.Errorf("Retry-After %q, want the seconds to the hour's end", w.Header().Get("Retry-After"))
			}
			if tc.header != "" && w.Header().Get(tc.header) != "0" {
				t.Errorf("%s = %q, want 0; headers %v", tc.header, w.Header().Get(tc.header), w.Header())
			}
		})
	}
}

// TestLimitSettlesStream checks that a streamed request's reservation is
// settled with the usage its events reported, and a stream's place freed.
func TestLimitSettlesStream(t *testing.T) {
	scope := uniqueScope(t)
	h := newTestHandler(t, &Handler{Upstream: "openai-chat", ClientKeys: []ClientKey{{Name: "bob", Key: "sk-bob"}},
		Limits: []limits.Limit{{Scope: scope, Rates: []limits.Rate{{Of: "total_tokens", Max: 1e6, Per: "day"}}, Streams: 1}}})
	stream := "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"hi\"},\"finish_reason\":\"stop\"}]}\n\n" +
		"data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[],\"usage\":{\"prompt_tokens\":40,\"completion_tokens\":2,\"total_tokens\":42}}\n\ndata: [DONE]\n\n"
	for range 2 {
		r := httptest.NewRequest("POST", "/v1/messages", strings.NewReader(`{"model":"m","max_tokens":5000,"stream":true,"messages":[{"role":"user","content":"hi"}]}`))
		r.Header.Set("X-Api-Key", "sk-bob")
		w, _ := serve(t, h, r, sseAnswer(stream, 64, nil))
		if w.Code != 200 {
			t.Fatalf("%d %s: the stream's place was not freed", w.Code, w.Body)
		}
	}
	reports, err := h.limits.Report(context.Background(), []string{"bob"}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	for _, rep := range reports {
		switch rep.Limit {
		case "total_tokens/day":
			if rep.Used != 84 {
				t.Errorf("total tokens used %v, want 84: two streams of 42, their 5,000-token reservations settled", rep.Used)
			}
		case "streams":
			if rep.Used != 0 {
				t.Errorf("%v streams open after both ended", rep.Used)
			}
		}
	}
}

// TestLimitsNeedNamedKeys refuses limits on a site without client_keys
// and a limit naming a key client_keys does not.
func TestLimitsNeedNamedKeys(t *testing.T) {
	l := []limits.Limit{{Keys: []string{"alice"}, Rates: []limits.Rate{{Of: "requests", Max: 1, Per: "minute"}}}}
	for _, h := range []*Handler{
		{Upstream: "openai-chat", Limits: l},
		{Upstream: "openai-chat", ClientKeys: []ClientKey{{Name: "bob", Key: "k"}}, Limits: l},
	} {
		ctx, cancel := caddyContext()
		err := h.Provision(ctx)
		cancel()
		if err == nil {
			t.Errorf("%+v provisioned", h.ClientKeys)
		}
	}
}

// BenchmarkServeLimits measures a translated request under a requests
// cap and a token budget on the memory store, beside the same request
// without limits (BenchmarkServeTranslate's).
func BenchmarkServeLimits(b *testing.B) {
	body := `{"model":"gpt-5.4","max_tokens":100,"temperature":0.2,"messages":[{"role":"user","content":"Hi"}]}`
	answer := `{"id":"c","object":"chat.completion","model":"gpt-5.4","choices":[{"index":0,"message":{"role":"assistant","content":"hi"},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}`
	b.Run("none", func(b *testing.B) {
		benchServeWith(b, &Handler{Upstream: "openai-chat", ClientKeys: []ClientKey{{Name: "k", Key: "k"}}}, body, answer)
	})
	b.Run("limits", func(b *testing.B) {
		benchServeWith(b, &Handler{Upstream: "openai-chat", ClientKeys: []ClientKey{{Name: "k", Key: "k"}},
			Limits: []limits.Limit{{Scope: "bench", Rates: []limits.Rate{{Of: "requests", Max: 1e12, Per: "minute"}, {Of: "total_tokens", Max: 1e15, Per: "day"}}}}}, body, answer)
	})
}
