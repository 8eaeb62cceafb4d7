package caddytest

import (
	"net/http"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// currentRuleCase is one rule of the model table checked end to end: a
// client request through a site toward a mock that enforces the rule as
// the provider does (modelrules_mock_test.go, dialect_mock_test.go), so
// that the case fails when llmbridge's fitting of the rule is removed.
type currentRuleCase struct {
	name   string
	client proto
	site   func(e *testEnv) string
	up     proto
	// dialect, when set, holds the upstream request to that server's
	// rules too (enforceDialect).
	dialect string
	model   string
	body    string
	header  map[string]string
	// status is the answer the client gets: 200, or llmbridge's own
	// refusal (no upstream call) naming refusal.
	status  int
	refusal string
	// upstream checks the request the mock received; adjusted is a part
	// of the Llmbridge-Adjusted header.
	upstream func(t *testing.T, root gjson.Result)
	adjusted string
}

const chatToolDef = `"tools":[{"type":"function","function":{"name":"run","parameters":{"type":"object"}}}]`

// anthropicToolTurns is an Anthropic conversation with a finished tool
// turn (call, result, answer), a new question, and a tool result that
// comes with text the user typed while the tool ran.
const anthropicToolTurns = `{"model":"%MODEL%","max_tokens":500,
  "tools":[{"name":"run","input_schema":{"type":"object"}}],
  "messages":[{"role":"user","content":"run it"},
    {"role":"assistant","content":[{"type":"tool_use","id":"toolu_01","name":"run","input":{}}]},
    {"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_01","content":"ok"}]},
    {"role":"assistant","content":"It ran."},
    {"role":"user","content":"again"},
    {"role":"assistant","content":[{"type":"tool_use","id":"toolu_02","name":"run","input":{}}]},
    {"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_02","content":"ok"},{"type":"text","text":"and say when done"}]}]}`

// TestCurrentModelRules checks, one case per rule, the rules the model
// table learned from the providers' recent changes: the Chat tools rule of
// gpt-5.4 and later (and GPT-6 Astra's Responses-only tools), default
// efforts, thinking disabled for Claude models that think by default,
// Gemini 3.5 Flash-Lite's refusals, Vertex Claude's body-only 1M-context
// beta, and the dialects' rules (Mistral's role order and efforts,
// DeepSeek V4's reasoning_content over a tool turn, OpenRouter's roles,
// Groq qwen3's efforts), and the newest families (newestModelRuleCases).
func TestCurrentModelRules(t *testing.T) {
	env := setup(t)
	plain := func(p proto) func(*testEnv) string { return func(e *testEnv) string { return e.plain[p] } }
	dialect := func(d string) func(*testEnv) string { return func(e *testEnv) string { return e.dialects[d] } }
	lenientChat := func(e *testEnv) string { return e.policies["lenient-chat"] }
	effort := func(want string) func(*testing.T, gjson.Result) {
		return func(t *testing.T, root gjson.Result) {
			if got := root.Get("reasoning_effort"); got.String() != want || want == "" && got.Exists() {
				t.Errorf("reasoning_effort = %s, want %q", got.Raw, want)
			}
		}
	}
	thinking := func(want string) func(*testing.T, gjson.Result) {
		return func(t *testing.T, root gjson.Result) {
			if got := root.Get("thinking.type").String(); got != want {
				t.Errorf("thinking.type = %q, want %q", got, want)
			}
		}
	}
	tests := []currentRuleCase{
		{
			name: "gpt-5.6 with tools: its default effort medium is turned to none", client: anthropicMsgs, site: plain(openaiChat), up: openaiChat,
			model: "gpt-5.6", body: `{"model":"gpt-5.6","max_tokens":100,"tools":[{"name":"run","input_schema":{"type":"object"}}],"messages":[{"role":"user","content":"Hi"}]}`,
			status: 200, upstream: effort("none"), adjusted: "reasoning_effort=none (function tools with reasoning effort medium are not accepted by gpt-5.6 on Chat Completions",
		},
		{
			name: "gpt-5.5 with tools and thinking: refused under safe, naming upstream openai-responses", client: anthropicMsgs, site: plain(openaiChat), up: openaiChat,
			model:  "gpt-5.5",
			body:   `{"model":"gpt-5.5","max_tokens":32000,"thinking":{"type":"enabled","budget_tokens":31999},"tools":[{"name":"run","input_schema":{"type":"object"}}],"messages":[{"role":"user","content":"Hi"}]}`,
			status: 400, refusal: "upstream openai-responses",
		},
		{
			name: "gpt-5.5 with tools and thinking: effort none under lenient", client: anthropicMsgs, site: lenientChat, up: openaiChat,
			model:  "gpt-5.5",
			body:   `{"model":"gpt-5.5","max_tokens":32000,"thinking":{"type":"enabled","budget_tokens":31999},"tools":[{"name":"run","input_schema":{"type":"object"}}],"messages":[{"role":"user","content":"Hi"}]}`,
			status: 200, upstream: effort("none"), adjusted: "reasoning_effort=none",
		},
		{
			name: "gpt-5.4 with tools and effort high from a Chat client of a Responses-less site", client: openaiResponses, site: plain(openaiChat), up: openaiChat,
			model:  "gpt-5.4",
			body:   `{"model":"gpt-5.4","input":"Hi","reasoning":{"effort":"high"},"tools":[{"type":"function","name":"run","parameters":{"type":"object"}}]}`,
			status: 400, refusal: "upstream openai-responses",
		},
		{
			name: "gpt-6-astra takes function tools only on Responses, under every policy", client: anthropicMsgs, site: lenientChat, up: openaiChat,
			model: "gpt-6-astra", body: `{"model":"gpt-6-astra","max_tokens":100,"tools":[{"name":"run","input_schema":{"type":"object"}}],"messages":[{"role":"user","content":"Hi"}]}`,
			status: 400, refusal: "upstream openai-responses",
		},
		{
			name: "gpt-5.5's default effort fixes sampling", client: anthropicMsgs, site: plain(openaiResponses), up: openaiResponses,
			model: "gpt-5.5", body: `{"model":"gpt-5.5","max_tokens":100,"temperature":0.2,"messages":[{"role":"user","content":"Hi"}]}`,
			status: 200, adjusted: "temperature removed (gpt-5.5 samples only with its default settings)",
			upstream: func(t *testing.T, root gjson.Result) {
				if root.Get("temperature").Exists() {
					t.Errorf("temperature sent: %s", root.Raw)
				}
			},
		},
		{
			name: "gpt-5.2-chat-latest takes effort medium only", client: openaiResponses, site: plain(openaiChat), up: openaiChat,
			model: "gpt-5.2-chat-latest", body: `{"model":"gpt-5.2-chat-latest","input":"Hi","reasoning":{"effort":"high"}}`,
			status: 200, upstream: effort("medium"),
		},
		{
			name: "claude-sonnet-5 with a forced tool choice: thinking disabled", client: openaiChat, site: plain(anthropicMsgs), up: anthropicMsgs,
			model:  "claude-sonnet-5",
			body:   `{"model":"claude-sonnet-5",` + chatToolDef + `,"tool_choice":"required","messages":[{"role":"user","content":"Hi"}]}`,
			status: 200, upstream: thinking("disabled"), adjusted: "thinking=disabled (thinking is not accepted with a forced tool_choice)",
		},
		{
			name: "claude-opus-5 in an unsigned tool loop on Vertex: thinking disabled", client: openaiChat, site: plain(vertexAnthropic), up: vertexAnthropic,
			model: "claude-opus-5",
			body: `{"model":"claude-opus-5",` + chatToolDef + `,"messages":[{"role":"user","content":"run"},
			  {"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"run","arguments":"{}"}}]},
			  {"role":"tool","tool_call_id":"call_1","content":"ok"}]}`,
			status: 200, upstream: thinking("disabled"),
		},
		{
			name: "claude-sonnet-5 with reasoning off: thinking disabled", client: openaiChat, site: plain(anthropicMsgs), up: anthropicMsgs,
			model: "claude-sonnet-5", body: `{"model":"claude-sonnet-5","reasoning_effort":"none","messages":[{"role":"user","content":"Hi"}]}`,
			status: 200, upstream: thinking("disabled"),
		},
		{
			name: "claude-opus-4-7 with reasoning off: thinking left out", client: openaiChat, site: plain(anthropicMsgs), up: anthropicMsgs,
			model: "claude-opus-4-7", body: `{"model":"claude-opus-4-7","reasoning_effort":"none","messages":[{"role":"user","content":"Hi"}]}`,
			status: 200, upstream: thinking(""),
		},
		{
			name: "claude-fable-5 with reasoning off: thinking left out (disabled is a 400)", client: openaiChat, site: plain(anthropicMsgs), up: anthropicMsgs,
			model: "claude-fable-5", body: `{"model":"claude-fable-5","reasoning_effort":"none","messages":[{"role":"user","content":"Hi"}]}`,
			status: 200, upstream: thinking(""),
		},
		{
			name: "gemini-3.5-flash-lite: penalties removed", client: openaiChat, site: plain(gemini), up: gemini,
			model: "gemini-3.5-flash-lite", body: `{"model":"gemini-3.5-flash-lite","presence_penalty":0.5,"frequency_penalty":0.2,"messages":[{"role":"user","content":"Hi"}]}`,
			status: 200, adjusted: "presencePenalty removed",
		},
		{
			name: "gemini-3.5-flash-lite: a trailing model turn is refused under safe", client: openaiChat, site: plain(vertex), up: vertex,
			model:  "gemini-3.5-flash-lite",
			body:   `{"model":"gemini-3.5-flash-lite","messages":[{"role":"user","content":"Hi"},{"role":"assistant","content":"{"}]}`,
			status: 400, refusal: "google.prefill.removed",
		},
		{
			name: "Vertex Claude: the 1M-context beta goes in the body", client: anthropicMsgs, site: plain(vertexAnthropic), up: vertexAnthropic,
			model: "claude-sonnet-4-5@20250929", body: `{"model":"claude-sonnet-4-5@20250929","max_tokens":100,"messages":[{"role":"user","content":"Hi"}]}`,
			header: map[string]string{"Anthropic-Beta": "context-1m-2025-08-07,interleaved-thinking-2025-05-14"},
			status: 200,
			upstream: func(t *testing.T, root gjson.Result) {
				if got := root.Get("anthropic_beta").Raw; got != `["context-1m-2025-08-07"]` {
					t.Errorf("anthropic_beta = %s", got)
				}
			},
		},
		{
			name: "Vertex Claude from an OpenAI client: the 1M-context beta goes in the body", client: openaiChat, site: plain(vertexAnthropic), up: vertexAnthropic,
			model: "claude-sonnet-4-5@20250929", body: `{"model":"claude-sonnet-4-5@20250929","messages":[{"role":"user","content":"Hi"}]}`,
			header: map[string]string{"Anthropic-Beta": "context-1m-2025-08-07"},
			status: 200,
			upstream: func(t *testing.T, root gjson.Result) {
				if got := root.Get("anthropic_beta").Raw; got != `["context-1m-2025-08-07"]` {
					t.Errorf("anthropic_beta = %s", got)
				}
			},
		},
		{
			name: "Mistral: no user message right after a tool message", client: anthropicMsgs, site: dialect("mistral"), up: openaiChat, dialect: "mistral",
			model: "mistral-medium-2604", body: anthropicToolTurns, status: 200,
			upstream: func(t *testing.T, root gjson.Result) {
				msgs := root.Get("messages").Array()
				if n := len(msgs); n < 2 || msgs[n-2].Get("role").String() != "assistant" || msgs[n-1].Get("content").String() != "and say when done" {
					t.Errorf("no assistant message between the tool message and the user's text: %s", root.Get("messages").Raw)
				}
			},
		},
		{
			name: "Mistral Medium 3.5: reasoning effort low becomes high", client: openaiChat, site: dialect("mistral"), up: openaiChat, dialect: "mistral",
			model: "mistral-medium-2604", body: `{"model":"mistral-medium-2604","reasoning_effort":"low","messages":[{"role":"user","content":"Hi"}]}`,
			status: 200, upstream: effort("high"),
		},
		{
			name: "Mistral chat models take no reasoning effort", client: openaiChat, site: dialect("mistral"), up: openaiChat, dialect: "mistral",
			model: "mistral-large-2411", body: `{"model":"mistral-large-2411","reasoning_effort":"high","messages":[{"role":"user","content":"Hi"}]}`,
			status: 200, upstream: effort(""),
		},
		{
			name: "DeepSeek V4: reasoning_content on every assistant message of a tool turn", client: anthropicMsgs, site: dialect("deepseek"), up: openaiChat, dialect: "deepseek",
			model: "deepseek-v4-flash", body: anthropicToolTurns, status: 200,
			upstream: func(t *testing.T, root gjson.Result) {
				if !root.Get(`messages.#(content=="It ran.").reasoning_content`).Exists() {
					t.Errorf("the answer that ends a tool turn has no reasoning_content: %s", root.Get("messages").Raw)
				}
			},
		},
		{
			name: "OpenRouter: developer instructions as system", client: openaiResponses, site: dialect("openrouter"), up: openaiChat, dialect: "openrouter",
			model: "qwen/qwen3.7-max", body: `{"model":"qwen/qwen3.7-max","input":[{"role":"developer","content":"be brief"},{"role":"user","content":"Hi"}]}`,
			status: 200,
			upstream: func(t *testing.T, root gjson.Result) {
				if got := root.Get("messages.0.role").String(); got != "system" {
					t.Errorf("messages[0].role = %q", got)
				}
			},
		},
		{
			name: "Groq qwen3: an effort above none is sent as default", client: openaiChat, site: dialect("groq"), up: openaiChat, dialect: "groq",
			model: "qwen/qwen3-32b", body: `{"model":"qwen/qwen3-32b","reasoning_effort":"high","messages":[{"role":"user","content":"Hi"}]}`,
			status: 200, upstream: effort("default"),
		},
	}
	tests = append(tests, newestModelRuleCases()...)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env.mocks.resetAll(t)
			m := env.mocks[tt.up]
			if tt.dialect != "" {
				d := tt.dialect
				m.mu.Lock()
				m.check = func(body []byte) []string { return enforceDialect(d, body) }
				m.mu.Unlock()
			}
			req := newClientRequest(t, http.MethodPost, tt.site(env), tt.client, tt.model, []byte(strings.ReplaceAll(tt.body, "%MODEL%", tt.model)))
			for k, v := range tt.header {
				req.Header.Set(k, v)
			}
			resp := do(t, req)
			rec, hits := m.lastRequest()
			if tt.status != http.StatusOK {
				assertErrorFormat(t, "refusal", tt.client, tt.status, resp)
				if hits != 0 {
					t.Errorf("the upstream was called: %s", rec.Body)
				}
				if !strings.Contains(string(resp.Body), tt.refusal) {
					t.Errorf("the refusal does not name %q: %s", tt.refusal, resp.Body)
				}
				return
			}
			if resp.Status != http.StatusOK {
				var sent []byte
				if rec != nil {
					sent = rec.Body
				}
				t.Fatalf("HTTP %d: %s\nupstream request: %s", resp.Status, resp.Body, sent)
			}
			if v := m.takeViolations(); len(v) > 0 {
				t.Errorf("violations: %v", v)
			}
			if got := resp.Header.Get("Llmbridge-Adjusted"); !strings.Contains(got, tt.adjusted) {
				t.Errorf("Llmbridge-Adjusted = %q, want it to contain %q", got, tt.adjusted)
			}
			if tt.upstream != nil {
				tt.upstream(t, gjson.ParseBytes(rec.Body))
			}
		})
	}
}
