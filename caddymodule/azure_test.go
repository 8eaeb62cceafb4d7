package caddymodule

import (
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/llmbridge/llmbridge/caddymodule/clouds"
	"github.com/llmbridge/llmbridge/caddymodule/clouds/azure"
)

// TestAzurePaths checks what the handler does with Azure OpenAI: a
// client's deployment path names the model its body leaves out (passed
// through and translated alike), Responses clients of an azure-openai
// upstream go to its Responses API, and the upstream paths, api-version
// and api-key are Azure's.
func TestAzurePaths(t *testing.T) {
	chatAnswer := `{"id":"c1","object":"chat.completion","created":1,"model":"gpt-4o","choices":[{"index":0,"message":{"role":"assistant","content":"hi"},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}`
	respAnswer := `{"id":"r1","object":"response","created_at":1,"status":"completed","model":"gpt-4o","output":[{"type":"message","id":"m1","status":"completed","role":"assistant","content":[{"type":"output_text","text":"hi","annotations":[]}]}],"usage":{"input_tokens":1,"output_tokens":1,"total_tokens":2}}`
	tests := []struct {
		name, upstream, version, target, body string
		answer                                string
		wantPath, wantQuery, wantModel        string
	}{
		{"deployment path, no body model, passthrough", "openai-chat", "", "/openai/deployments/gpt-4o/chat/completions?api-version=2024-10-21",
			`{"messages":[{"role":"user","content":"Hi"}]}`, chatAnswer, "/v1/chat/completions", "", "gpt-4o"},
		{"deployment path, no body model, translated", "openai-responses", "", "/openai/deployments/gpt-4o/chat/completions",
			`{"messages":[{"role":"user","content":"Hi"}]}`, respAnswer, "/v1/responses", "", "gpt-4o"},
		{"body model wins over the path", "openai-chat", "", "/openai/deployments/other/chat/completions",
			`{"model":"gpt-4o","messages":[{"role":"user","content":"Hi"}]}`, chatAnswer, "/v1/chat/completions", "", "gpt-4o"},
		{"chat client to azure v1", "azure-openai", "", "/v1/chat/completions",
			`{"model":"gpt-4o","messages":[{"role":"user","content":"Hi"}]}`, chatAnswer, "/openai/v1/chat/completions", "", "gpt-4o"},
		{"responses client to azure: its Responses API", "azure-openai", "2025-04-01-preview", "/v1/responses",
			`{"model":"gpt-4o","input":"Hi"}`, respAnswer, "/openai/responses", "api-version=2025-04-01-preview", "gpt-4o"},
		{"anthropic client to azure: a deployment path", "azure-openai", "2024-10-21", "/v1/messages",
			`{"model":"gpt-4o","max_tokens":10,"messages":[{"role":"user","content":"Hi"}]}`, chatAnswer, "/openai/deployments/gpt-4o/chat/completions", "api-version=2024-10-21", "gpt-4o"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := &Handler{Upstream: tt.upstream, APIKey: "k"}
			if tt.version != "" {
				h.CloudRaw = clouds.Raw(&azure.Cloud{APIVersion: tt.version})
			}
			h = newTestHandler(t, h)
			r := httptest.NewRequest("POST", tt.target, strings.NewReader(tt.body))
			r.Header.Set("Api-Key", "client")
			w, call := serve(t, h, r, jsonAnswer(200, tt.answer))
			if w.Code != 200 || !call.called {
				t.Fatalf("status %d, upstream called %v: %s", w.Code, call.called, w.Body)
			}
			if call.path != tt.wantPath || call.query != tt.wantQuery || gjson.Get(call.body, "model").Str != tt.wantModel {
				t.Errorf("upstream got %s?%s model %q, want %s?%s model %q", call.path, call.query, gjson.Get(call.body, "model").Str, tt.wantPath, tt.wantQuery, tt.wantModel)
			}
			wantKey := map[bool]string{true: "Api-Key", false: "Authorization"}[strings.HasPrefix(tt.upstream, "azure")]
			for _, hdr := range []string{"Api-Key", "Authorization"} {
				if got := call.header.Get(hdr); (hdr == wantKey) != (got != "") || got == "client" {
					t.Errorf("upstream header %s = %q (the key goes in %s only, never the client's)", hdr, got, wantKey)
				}
			}
		})
	}
}
