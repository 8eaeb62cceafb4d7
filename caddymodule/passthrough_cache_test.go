package caddymodule

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// TestPassthroughPromptCacheKey checks the prompt_cache_key a request
// passed through to OpenAI's own APIs gets when the client sent none: the
// key a translated request of the same conversation gets, a client's own
// kept, none with cache off or toward an OpenAI-compatible server.
func TestPassthroughPromptCacheKey(t *testing.T) {
	// What Qwen Code sends: a system prompt, tools, no prompt_cache_key.
	qwen := `{"model":"qwen3-coder","stream":false,"messages":[{"role":"system","content":"You are Qwen Code."},{"role":"user","content":[{"type":"text","text":"list files"}]}],` +
		`"tools":[{"type":"function","function":{"name":"run_shell_command","parameters":{"type":"object"}}}],"max_tokens":100}`
	chatOK := jsonAnswer(200, `{"id":"c","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"ok"},"finish_reason":"stop"}]}`)
	responsesOK := jsonAnswer(200, `{"id":"resp_1","object":"response","created_at":1,"status":"completed","model":"m","output":[{"type":"message","id":"msg_1","role":"assistant","status":"completed","content":[{"type":"output_text","text":"ok","annotations":[]}]}]}`)
	keyOf := func(h *Handler, path, body string, answer func(w http.ResponseWriter) error) (string, bool) {
		t.Helper()
		_, call := serve(t, h, httptest.NewRequest("POST", path, strings.NewReader(body)), answer)
		if !call.called {
			t.Fatal("the upstream was not called")
		}
		if !gjson.Valid(call.body) {
			t.Fatalf("the upstream got invalid JSON: %s", call.body)
		}
		k := gjson.Get(call.body, "prompt_cache_key")
		return k.Str, k.Exists()
	}
	translated, ok := keyOf(newTestHandler(t, &Handler{Upstream: "openai-responses"}), "/v1/chat/completions", qwen, responsesOK)
	if !ok || !strings.HasPrefix(translated, "llmbridge-") {
		t.Fatalf("translated toward Responses: prompt_cache_key %q, want a derived one", translated)
	}
	for _, tc := range []struct {
		name, upstream, dialect, cache, path, body string
		answer                                     func(w http.ResponseWriter) error
		want                                       string // "" for none
	}{
		{name: "chat passthrough", upstream: "openai-chat", path: "/v1/chat/completions", body: qwen, answer: chatOK, want: translated},
		{name: "own key kept", upstream: "openai-chat", path: "/v1/chat/completions", body: strings.Replace(qwen, `"max_tokens":100`, `"max_tokens":100,"prompt_cache_key":"mine"`, 1), answer: chatOK, want: "mine"},
		{name: "cache off", upstream: "openai-chat", cache: "off", path: "/v1/chat/completions", body: qwen, answer: chatOK},
		{name: "dialect", upstream: "openai-chat", dialect: "deepseek", path: "/v1/chat/completions", body: strings.Replace(qwen, "qwen3-coder", "deepseek-chat", 1), answer: chatOK},
		{name: "responses passthrough", upstream: "openai-responses", path: "/v1/responses",
			body: `{"model":"gpt-5","instructions":"You are Qwen Code.","input":"list files"}`, answer: responsesOK, want: "derived"},
		{name: "responses without instructions", upstream: "openai-responses", path: "/v1/responses", body: `{"model":"gpt-5","input":"x"}`, answer: responsesOK, want: "derived"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newTestHandler(t, &Handler{Upstream: tc.upstream, Dialect: tc.dialect, Cache: tc.cache})
			got, ok := keyOf(h, tc.path, tc.body, tc.answer)
			switch {
			case tc.want == "" && ok:
				t.Errorf("prompt_cache_key %q, want none", got)
			case tc.want == "derived" && !strings.HasPrefix(got, "llmbridge-"):
				t.Errorf("prompt_cache_key %q, want a derived one", got)
			case tc.want != "" && tc.want != "derived" && got != tc.want:
				t.Errorf("prompt_cache_key %q, want %q", got, tc.want)
			}
		})
	}
}
