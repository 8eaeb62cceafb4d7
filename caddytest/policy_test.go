package caddytest

import (
	"net/http"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// TestCapabilityPolicy sends Chat requests through an Anthropic upstream
// under each on_unsupported level: a hint (store), a capability the Chat
// decoder rejects (logprobs), one the Anthropic encoder rejects
// (presence_penalty) and a field the strict site's drop setting names
// (metadata).
func TestCapabilityPolicy(t *testing.T) {
	env := setup(t)
	model := openaiChat.defaultModel()
	mock := env.mocks[anthropicMsgs]
	body := func(extra string) []byte {
		return []byte(`{"model":"` + model + `",` + extra + `"messages":[{"role":"user","content":"Hi"}],"max_completion_tokens":16}`)
	}
	tests := []struct {
		level, extra string
		status       int
		// dropped is the Llmbridge-Dropped header of a success; text is
		// what the error message must contain.
		dropped, text string
	}{
		{level: "safe", extra: `"store":false,`, status: 200, dropped: "store"},
		{level: "safe", extra: `"presence_penalty":0.5,`, status: 400, text: "on_unsupported lenient would drop it"},
		{level: "safe", extra: `"logprobs":true,`, status: 400, text: "on_unsupported lenient would drop it, as would drop logprobs"},
		{level: "strict", extra: `"metadata":{"k":"v"},`, status: 200, dropped: "metadata"},
		{level: "strict", extra: `"metadata":{"k":"v"},"store":false,`, status: 400, text: "on_unsupported safe would drop it, as would drop store"},
		{level: "lenient", extra: `"logprobs":true,"presence_penalty":0.5,"store":false,`, status: 200, dropped: "logprobs, store, presence_penalty"},
		{level: "lenient", extra: `"frobnicate":1,`, status: 400, text: "drop frobnicate would remove it"},
	}
	for _, tt := range tests {
		site := env.policies[tt.level]
		if tt.level == "safe" {
			site = env.plain[anthropicMsgs]
		}
		mock.clearRequests()
		resp := do(t, newClientRequest(t, http.MethodPost, site, openaiChat, model, body(tt.extra)))
		name := tt.level + " " + tt.extra
		if resp.Status != tt.status {
			t.Errorf("%s: status %d, want %d; body %s", name, resp.Status, tt.status, resp.Body)
			continue
		}
		last, hits := mock.lastRequest()
		if tt.status != 200 {
			if msg := gjson.GetBytes(resp.Body, "error.message").Str; !strings.Contains(msg, tt.text) {
				t.Errorf("%s: message %q lacks %q", name, msg, tt.text)
			}
			if hits != 0 {
				t.Errorf("%s: the upstream was called", name)
			}
			continue
		}
		if got := resp.Header.Get("Llmbridge-Dropped"); got != tt.dropped {
			t.Errorf("%s: Llmbridge-Dropped %q, want %q", name, got, tt.dropped)
		}
		if hits != 1 || gjson.GetBytes(last.Body, "metadata").Exists() {
			t.Errorf("%s: %d upstream calls, last body %s", name, hits, last.Body)
		}
	}
	if v := mock.takeViolations(); len(v) > 0 {
		t.Errorf("protocol violations: %v", v)
	}
}
