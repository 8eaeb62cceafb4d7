package caddymodule

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2"
	"github.com/tidwall/gjson"
)

// policyCase is one request of TestPolicyLevels: a field of one class in
// one client protocol, translated toward a cross-family upstream.
type policyCase struct {
	name     string
	upstream string
	target   string
	body     string
	// field is the path named in Llmbridge-Dropped or the error's param;
	// gone is a gjson path that must not reach the upstream when the field
	// is dropped.
	field, gone string
	// per policy: the status, and for a rejection a text the message
	// must contain.
	strict, safe, lenient policyWant
}

type policyWant struct {
	status int
	text   string
}

var (
	okWant      = policyWant{status: 200}
	unknownWant = policyWant{400, "would remove it before translation"}
	safeWould   = policyWant{400, "on_unsupported safe would drop it"}
	lenientOK   = policyWant{status: 200}
	capDecode   = policyWant{400, "on_unsupported lenient would drop it, as would drop "}
	capEncode   = policyWant{400, "on_unsupported lenient would drop it)"}
)

var policyCases = []policyCase{
	// OpenAI Chat client, Anthropic upstream.
	{name: "chat mapped", upstream: "anthropic-messages", target: "/v1/chat/completions",
		body: `{"model":"m","temperature":0.5,"messages":[{"role":"user","content":"Hi"}]}`, strict: okWant, safe: okWant, lenient: okWant},
	{name: "chat hint", upstream: "anthropic-messages", target: "/v1/chat/completions",
		body:  `{"model":"m","store":false,"messages":[{"role":"user","content":"Hi"}]}`,
		field: "store", gone: "store", strict: policyWant{400, "on_unsupported safe would drop it, as would drop store)"}, safe: okWant, lenient: okWant},
	{name: "chat capability on decode", upstream: "anthropic-messages", target: "/v1/chat/completions",
		body:  `{"model":"m","logprobs":true,"messages":[{"role":"user","content":"Hi"}]}`,
		field: "logprobs", gone: "logprobs", strict: capDecode, safe: capDecode, lenient: lenientOK},
	{name: "chat capability on encode", upstream: "anthropic-messages", target: "/v1/chat/completions",
		body:  `{"model":"m","presence_penalty":0.5,"messages":[{"role":"user","content":"Hi"}]}`,
		field: "presence_penalty", gone: "presence_penalty", strict: capEncode, safe: capEncode, lenient: lenientOK},
	{name: "chat unknown", upstream: "anthropic-messages", target: "/v1/chat/completions",
		body:  `{"model":"m","frobnicate":1,"messages":[{"role":"user","content":"Hi"}]}`,
		field: "frobnicate", strict: unknownWant, safe: unknownWant, lenient: unknownWant},
	{name: "chat custom tool removed as an element", upstream: "anthropic-messages", target: "/v1/chat/completions",
		body: `{"model":"m","tools":[{"type":"custom","custom":{"name":"x"}},{"type":"function","function":{"name":"f","parameters":{"type":"object"}}}],` +
			`"messages":[{"role":"user","content":"Hi"}]}`,
		field: "tools[0]", gone: `tools.#(name=="x")`, strict: policyWant{400, "on_unsupported lenient would drop it)"},
		safe: policyWant{400, "on_unsupported lenient would drop it)"}, lenient: lenientOK},
	{name: "chat URL image toward gemini", upstream: "gemini", target: "/v1/chat/completions",
		body:  `{"model":"m","messages":[{"role":"user","content":[{"type":"text","text":"Hi"},{"type":"image_url","image_url":{"url":"https://example.com/a.png"}}]}]}`,
		field: "messages[0].content[1]", gone: "contents.0.parts.1", strict: capEncode, safe: capEncode, lenient: lenientOK},

	// Context management and compaction, which only the client's own
	// family does on its servers.
	{name: "anthropic context editing toward chat", upstream: "openai-chat", target: "/v1/messages",
		body:  `{"model":"m","max_tokens":16,"context_management":{"edits":[{"type":"clear_tool_uses_20250919"}]},"messages":[{"role":"user","content":"Hi"}]}`,
		field: "context_management", gone: "context_management", strict: capDecode, safe: capDecode, lenient: lenientOK},
	{name: "anthropic compaction toward responses", upstream: "openai-responses", target: "/v1/messages",
		body:  `{"model":"m","max_tokens":16,"context_management":{"edits":[{"type":"compact_20260112"}]},"messages":[{"role":"user","content":"Hi"}]}`,
		field: "context_management", gone: "context_management", strict: capDecode, safe: capDecode, lenient: lenientOK},
	{name: "anthropic context management without edits", upstream: "gemini", target: "/v1/messages",
		body:  `{"model":"m","max_tokens":16,"context_management":{"edits":[]},"messages":[{"role":"user","content":"Hi"}]}`,
		field: "context_management", gone: "context_management", strict: policyWant{400, "as would drop context_management)"}, safe: okWant, lenient: okWant},
	{name: "responses compaction toward anthropic", upstream: "anthropic-messages", target: "/v1/responses",
		body:  `{"model":"m","input":"Hi","context_management":[{"type":"compaction","compact_threshold":1000}]}`,
		field: "context_management", gone: "context_management", strict: capDecode, safe: capDecode, lenient: lenientOK},
	{name: "responses auto truncation toward gemini", upstream: "gemini", target: "/v1/responses",
		body:  `{"model":"m","input":"Hi","truncation":"auto"}`,
		field: "truncation", gone: "truncation", strict: capDecode, safe: capDecode, lenient: lenientOK},

	// OpenAI Responses client, Anthropic upstream.
	{name: "responses hint", upstream: "anthropic-messages", target: "/v1/responses",
		body: `{"model":"m","input":"Hi","metadata":{"k":"v"}}`, field: "metadata", gone: "metadata",
		strict: policyWant{400, "as would drop metadata)"}, safe: okWant, lenient: okWant},
	{name: "responses capability on decode", upstream: "anthropic-messages", target: "/v1/responses",
		body: `{"model":"m","input":"Hi","background":true}`, field: "background", gone: "background",
		strict: capDecode, safe: capDecode, lenient: lenientOK},
	{name: "responses capability on encode", upstream: "anthropic-messages", target: "/v1/responses",
		body: `{"model":"m","input":"Hi","text":{"verbosity":"low"}}`, field: "verbosity", gone: "output_config",
		strict: capEncode, safe: capEncode, lenient: lenientOK},
	{name: "responses unknown", upstream: "anthropic-messages", target: "/v1/responses",
		body: `{"model":"m","input":"Hi","frobnicate":1}`, field: "frobnicate", strict: unknownWant, safe: unknownWant, lenient: unknownWant},

	// Anthropic client, OpenAI Responses upstream.
	{name: "anthropic hint", upstream: "openai-responses", target: "/v1/messages",
		body:  `{"model":"m","max_tokens":16,"messages":[{"role":"user","content":[{"type":"text","text":"Hi","cache_control":{"type":"ephemeral"}}]}]}`,
		field: "cache breakpoints", strict: policyWant{400, "would be dropped"}, safe: okWant, lenient: okWant},
	{name: "anthropic capability on decode", upstream: "openai-responses", target: "/v1/messages",
		body:  `{"model":"m","max_tokens":16,"container":"c1","messages":[{"role":"user","content":"Hi"}]}`,
		field: "container", gone: "container", strict: capDecode, safe: capDecode, lenient: lenientOK},
	{name: "anthropic capability on encode", upstream: "openai-responses", target: "/v1/messages",
		body:  `{"model":"m","max_tokens":16,"top_k":5,"messages":[{"role":"user","content":"Hi"}]}`,
		field: "top_k", gone: "top_k", strict: capEncode, safe: capEncode, lenient: lenientOK},
	{name: "anthropic unknown", upstream: "openai-responses", target: "/v1/messages",
		body:  `{"model":"m","max_tokens":16,"frobnicate":1,"messages":[{"role":"user","content":"Hi"}]}`,
		field: "frobnicate", strict: unknownWant, safe: unknownWant, lenient: unknownWant},

	// Gemini client, OpenAI Chat upstream.
	{name: "gemini hint", upstream: "openai-chat", target: "/v1beta/models/m:generateContent",
		body:  `{"contents":[{"role":"user","parts":[{"text":"Hi"}]}],"safetySettings":[]}`,
		field: "safetySettings", strict: policyWant{400, "as would drop safetySettings)"}, safe: okWant, lenient: okWant},
	{name: "gemini capability on decode", upstream: "openai-chat", target: "/v1beta/models/m:generateContent",
		body:  `{"contents":[{"role":"user","parts":[{"text":"Hi"}]}],"generationConfig":{"candidateCount":2,"temperature":0.5}}`,
		field: "generationConfig.candidateCount", gone: "n", strict: capDecode, safe: capDecode, lenient: lenientOK},
	{name: "gemini capability on encode", upstream: "openai-chat", target: "/v1beta/models/m:generateContent",
		body:  `{"contents":[{"role":"user","parts":[{"text":"Hi"}]}],"generationConfig":{"topK":5}}`,
		field: "top_k", gone: "top_k", strict: capEncode, safe: capEncode, lenient: lenientOK},
	{name: "gemini unknown", upstream: "openai-chat", target: "/v1beta/models/m:generateContent",
		body:  `{"contents":[{"role":"user","parts":[{"text":"Hi"}]}],"frobnicate":1}`,
		field: "frobnicate", strict: unknownWant, safe: unknownWant, lenient: unknownWant},
}

// TestPolicyLevels sends a field of each class (mapped, hint, capability
// rejected by the decoder, capability rejected by the encoder, unknown)
// from every client protocol family under each on_unsupported level.
func TestPolicyLevels(t *testing.T) {
	for _, tt := range policyCases {
		for _, level := range []string{"strict", "safe", "lenient"} {
			want := map[string]policyWant{"strict": tt.strict, "safe": tt.safe, "lenient": tt.lenient}[level]
			t.Run(tt.name+"/"+level, func(t *testing.T) {
				h := newTestHandler(t, &Handler{Upstream: tt.upstream, OnUnsupported: level})
				r := httptest.NewRequest("POST", tt.target, strings.NewReader(tt.body))
				w, call := serve(t, h, r, okAnswer(h.Upstream))
				if w.Code != want.status {
					t.Fatalf("status %d, want %d; body %s", w.Code, want.status, w.Body)
				}
				dropped := w.Header().Get("Llmbridge-Dropped")
				if want.status != 200 {
					if call.called {
						t.Error("the upstream was called")
					}
					if msg := w.Body.String(); !strings.Contains(msg, want.text) || !strings.Contains(msg, tt.field) {
						t.Errorf("error %s does not contain %q and %q", msg, want.text, tt.field)
					}
					return
				}
				if !call.called {
					t.Fatal("the upstream was not called")
				}
				if tt.field == "" {
					if dropped != "" {
						t.Errorf("Llmbridge-Dropped %q", dropped)
					}
					return
				}
				if !slices.Contains(strings.Split(dropped, ", "), tt.field) {
					t.Errorf("Llmbridge-Dropped %q lacks %s", dropped, tt.field)
				}
				if tt.gone != "" && gjson.Get(call.body, tt.gone).Exists() {
					t.Errorf("%s reached the upstream: %s", tt.gone, call.body)
				}
			})
		}
	}
}

// TestDropSetting removes configured paths before translation and from
// passed-through bodies, under every policy; strict accepts what drop
// names.
func TestDropSetting(t *testing.T) {
	const anthropicBody = `{"model":"m","max_tokens":16,"metadata":{"user_id":"u"},"tools":[{"name":"f","input_schema":{"type":"object"},"cache_control":{"type":"ephemeral"}},` +
		`{"name":"g","input_schema":{"type":"object"},"cache_control":{"type":"ephemeral"}}],` +
		`"messages":[{"role":"user","content":[{"type":"text","text":"Hi","cache_control":{"type":"ephemeral"}}]}]}`
	drops := []string{"metadata", "tools[*].cache_control", "messages[*].content[*].cache_control", "nothing[*].here"}
	wantDropped := "metadata, tools[0].cache_control, tools[1].cache_control, messages[0].content[0].cache_control"
	for _, level := range []string{"strict", "safe", "lenient"} {
		for _, upstream := range []string{"openai-chat", "anthropic-messages"} {
			t.Run(level+"/"+upstream, func(t *testing.T) {
				h := newTestHandler(t, &Handler{Upstream: upstream, OnUnsupported: level, Drop: drops})
				r := httptest.NewRequest("POST", "/v1/messages", strings.NewReader(anthropicBody))
				w, call := serve(t, h, r, okAnswer(h.Upstream))
				if w.Code != 200 || !call.called {
					t.Fatalf("status %d, body %s", w.Code, w.Body)
				}
				if got := w.Header().Get("Llmbridge-Dropped"); got != wantDropped {
					t.Errorf("Llmbridge-Dropped %q, want %q", got, wantDropped)
				}
				if strings.Contains(call.body, "cache_control") || strings.Contains(call.body, "metadata") || strings.Contains(call.body, "user_id") {
					t.Errorf("a dropped field reached the upstream: %s", call.body)
				}
			})
		}
	}
	// Strict still rejects a hint that drop does not name.
	h := newTestHandler(t, &Handler{Upstream: "openai-chat", OnUnsupported: "strict", Drop: []string{"metadata"}})
	r := httptest.NewRequest("POST", "/v1/messages", strings.NewReader(`{"model":"m","max_tokens":16,"metadata":{"user_id":"u"},"service_tier":"auto","messages":[{"role":"user","content":"Hi"}]}`))
	w, call := serve(t, h, r, okAnswer(h.Upstream))
	if w.Code != 400 || call.called || gjson.Get(w.Body.String(), "error.message").Str == "" ||
		!strings.Contains(w.Body.String(), "drop service_tier") {
		t.Errorf("status %d, body %s", w.Code, w.Body)
	}
	// An unknown field can be dropped explicitly.
	h = newTestHandler(t, &Handler{Upstream: "openai-chat", Drop: []string{"frobnicate"}})
	r = httptest.NewRequest("POST", "/v1/messages", strings.NewReader(`{"model":"m","max_tokens":16,"frobnicate":1,"messages":[{"role":"user","content":"Hi"}]}`))
	if w, _ := serve(t, h, r, okAnswer(h.Upstream)); w.Code != 200 || w.Header().Get("Llmbridge-Dropped") != "frobnicate" {
		t.Errorf("status %d, dropped %q, body %s", w.Code, w.Header().Get("Llmbridge-Dropped"), w.Body)
	}
}

func TestPolicyProvision(t *testing.T) {
	for _, h := range []*Handler{
		{Upstream: "openai-chat", OnUnsupported: "loose"},
		{Upstream: "openai-chat", Drop: []string{"tools[x]"}},
	} {
		ctx, cancel := caddy.NewContext(caddy.Context{Context: context.Background()})
		err := h.Provision(ctx)
		cancel()
		if err == nil {
			t.Errorf("%+v provisioned", h)
		}
	}
}

// okAnswer answers as a minimal successful upstream of protocol p.
func okAnswer(p string) func(w http.ResponseWriter) error {
	bodies := map[string]string{
		"openai-chat": `{"id":"c","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"ok"},"finish_reason":"stop"}],` +
			`"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}`,
		"openai-responses": `{"id":"resp_1","object":"response","created_at":1,"status":"completed","model":"m","output":[{"type":"message","id":"msg_1","role":"assistant",` +
			`"status":"completed","content":[{"type":"output_text","text":"ok","annotations":[]}]}],"usage":{"input_tokens":1,"output_tokens":1,"total_tokens":2}}`,
		"anthropic-messages": `{"id":"msg_1","type":"message","role":"assistant","model":"m","content":[{"type":"text","text":"ok"}],"stop_reason":"end_turn",` +
			`"stop_sequence":null,"usage":{"input_tokens":1,"output_tokens":1}}`,
		"gemini": `{"candidates":[{"content":{"role":"model","parts":[{"text":"ok"}]},"finishReason":"STOP","index":0}],` +
			`"usageMetadata":{"promptTokenCount":1,"candidatesTokenCount":1,"totalTokenCount":2},"modelVersion":"m"}`,
	}
	return jsonAnswer(200, bodies[p])
}
