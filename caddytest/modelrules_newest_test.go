package caddytest

import (
	"net/http"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// newestModelRuleCases are TestCurrentModelRules' cases for the newest
// families in the table: Gemini 4 and Gemini 3.6-3.8 Flash, GPT-6 Luna
// and Astra, gpt-5.6's cap, the Codex models, Claude Sonnet / Haiku 5.5
// and Fable / Mythos, DeepSeek V4's tool choice, xAI's efforts, Mistral's
// Codestral and Qwen 3.6 on Groq.
func newestModelRuleCases() []currentRuleCase {
	plain := func(p proto) func(*testEnv) string { return func(e *testEnv) string { return e.plain[p] } }
	dialect := func(d string) func(*testEnv) string { return func(e *testEnv) string { return e.dialects[d] } }
	policy := func(name string) func(*testEnv) string { return func(e *testEnv) string { return e.policies[name] } }
	field := func(path, want string) func(*testing.T, gjson.Result) {
		return func(t *testing.T, root gjson.Result) {
			if got := root.Get(path); got.String() != want || want == "" && got.Exists() {
				t.Errorf("%s = %s, want %q", path, got.Raw, want)
			}
		}
	}
	absent := func(paths ...string) func(*testing.T, gjson.Result) {
		return func(t *testing.T, root gjson.Result) {
			for _, p := range paths {
				if root.Get(p).Exists() {
					t.Errorf("%s sent: %s", p, root.Raw)
				}
			}
		}
	}
	return []currentRuleCase{
		{
			name: "gemini-4-argon: Claude Code's budget becomes its nearest level, reported", client: anthropicMsgs, site: plain(gemini), up: gemini,
			model:  "gemini-4-argon",
			body:   `{"model":"gemini-4-argon","max_tokens":32000,"thinking":{"type":"enabled","budget_tokens":31999},"messages":[{"role":"user","content":"Hi"}]}`,
			status: 200, upstream: field("generationConfig.thinkingConfig.thinkingLevel", "high"),
			adjusted: "thinkingConfig.thinkingLevel=high (a thinking budget (31999) not accepted by gemini-4-argon; the nearest thinking level)",
		},
		{
			name: "gemini-4-hydrogen: calls from another provider carry the documented dummy signature", client: anthropicMsgs, site: plain(gemini), up: gemini,
			model: "gemini-4-hydrogen", body: anthropicToolTurns, status: 200,
			upstream: func(t *testing.T, root gjson.Result) {
				if got := root.Get(`contents.#(role=="model")#.parts.0.thoughtSignature`).Array(); len(got) == 0 || got[0].String() != "skip_thought_signature_validator" {
					t.Errorf("model turns' first calls: %s", root.Get("contents").Raw)
				}
			},
		},
		{
			name: "gemini-4-neon takes thinking level xhigh", client: openaiChat, site: plain(gemini), up: gemini,
			model: "gemini-4-neon", body: `{"model":"gemini-4-neon","reasoning_effort":"xhigh","messages":[{"role":"user","content":"Hi"}]}`,
			status: 200, upstream: field("generationConfig.thinkingConfig.thinkingLevel", "xhigh"),
		},
		{
			name: "gemini-4-neon: penalties removed", client: openaiChat, site: plain(gemini), up: gemini,
			model: "gemini-4-neon", body: `{"model":"gemini-4-neon","presence_penalty":0.5,"frequency_penalty":0.2,"messages":[{"role":"user","content":"Hi"}]}`,
			status: 200, adjusted: "frequencyPenalty removed",
		},
		{
			name: "gemini-4-argon on Vertex outside global, us and eu: refused", client: openaiChat, site: plain(vertex), up: vertex,
			model: "gemini-4-argon", body: `{"model":"gemini-4-argon","messages":[{"role":"user","content":"Hi"}]}`,
			status: 400, refusal: "only at the locations global, us, eu",
		},
		{
			name: "gemini-3.8-flash takes no minimal level", client: openaiChat, site: plain(gemini), up: gemini,
			model: "gemini-3.8-flash", body: `{"model":"gemini-3.8-flash","reasoning_effort":"minimal","messages":[{"role":"user","content":"Hi"}]}`,
			status: 200, upstream: field("generationConfig.thinkingConfig.thinkingLevel", "low"),
		},
		{
			name: "gemini-3.7-flash takes level medium", client: openaiChat, site: plain(gemini), up: gemini,
			model: "gemini-3.7-flash", body: `{"model":"gemini-3.7-flash","reasoning_effort":"medium","messages":[{"role":"user","content":"Hi"}]}`,
			status: 200, upstream: field("generationConfig.thinkingConfig.thinkingLevel", "medium"),
		},
		{
			name: "gemini-3.6-flash takes level minimal", client: openaiChat, site: plain(gemini), up: gemini,
			model: "gemini-3.6-flash", body: `{"model":"gemini-3.6-flash","reasoning_effort":"minimal","messages":[{"role":"user","content":"Hi"}]}`,
			status: 200, upstream: field("generationConfig.thinkingConfig.thinkingLevel", "minimal"),
		},
		{
			name: "gpt-6-luna: output limit capped at 128000", client: anthropicMsgs, site: plain(openaiResponses), up: openaiResponses,
			model: "gpt-6-luna", body: `{"model":"gpt-6-luna","max_tokens":200000,"messages":[{"role":"user","content":"Hi"}]}`,
			status: 200, upstream: field("max_output_tokens", "128000"),
		},
		{
			name: "gpt-6-luna samples at effort none", client: openaiResponses, site: plain(openaiChat), up: openaiChat,
			model: "gpt-6-luna", body: `{"model":"gpt-6-luna","input":"Hi","reasoning":{"effort":"none"},"temperature":0.3}`,
			status: 200, upstream: field("temperature", "0.3"),
		},
		{
			name: "gpt-6-luna fixes sampling while it reasons", client: openaiResponses, site: plain(openaiChat), up: openaiChat,
			model: "gpt-6-luna", body: `{"model":"gpt-6-luna","input":"Hi","reasoning":{"effort":"high"},"temperature":0.3}`,
			status: 200, upstream: absent("temperature"), adjusted: "temperature removed (gpt-6-luna samples only with its default settings)",
		},
		{
			name: "gpt-6-astra on Chat: effort max is sent as xhigh", client: anthropicMsgs, site: plain(openaiChat), up: openaiChat,
			model: "gpt-6-astra", body: `{"model":"gpt-6-astra","max_tokens":100,"thinking":{"type":"adaptive"},"output_config":{"effort":"max"},"messages":[{"role":"user","content":"Hi"}]}`,
			status: 200, upstream: field("reasoning_effort", "xhigh"),
		},
		{
			name: "gpt-5.6: output limit capped at 128000", client: anthropicMsgs, site: plain(openaiChat), up: openaiChat,
			model: "gpt-5.6", body: `{"model":"gpt-5.6","max_tokens":200000,"messages":[{"role":"user","content":"Hi"}]}`,
			status: 200, upstream: field("max_completion_tokens", "128000"),
		},
		{
			name: "gpt-5.3-codex toward openai-chat: refused, naming upstream openai-responses", client: openaiResponses, site: policy("lenient-chat"), up: openaiChat,
			model: "gpt-5.3-codex", body: `{"model":"gpt-5.3-codex","input":"Hi"}`,
			status: 400, refusal: "upstream openai-responses",
		},
		{
			name: "gpt-5.3-codex toward openai-responses", client: anthropicMsgs, site: plain(openaiResponses), up: openaiResponses,
			model: "gpt-5.3-codex", body: `{"model":"gpt-5.3-codex","max_tokens":100,"thinking":{"type":"enabled","budget_tokens":31999},"messages":[{"role":"user","content":"Hi"}]}`,
			status: 200, upstream: field("reasoning.effort", "xhigh"),
		},
		{
			name: "claude-haiku-5-5 with reasoning off: thinking disabled", client: openaiChat, site: plain(anthropicMsgs), up: anthropicMsgs,
			model: "claude-haiku-5-5", body: `{"model":"claude-haiku-5-5","reasoning_effort":"none","messages":[{"role":"user","content":"Hi"}]}`,
			status: 200, upstream: field("thinking.type", "disabled"),
		},
		{
			name: "claude-haiku-5-5 with a forced tool choice: thinking disabled, no effort", client: openaiChat, site: plain(anthropicMsgs), up: anthropicMsgs,
			model:  "claude-haiku-5-5",
			body:   `{"model":"claude-haiku-5-5","reasoning_effort":"xhigh",` + chatToolDef + `,"tool_choice":"required","messages":[{"role":"user","content":"Hi"}]}`,
			status: 200, upstream: absent("output_config.effort"), adjusted: "thinking=disabled (thinking is not accepted with a forced tool_choice)",
		},
		{
			name: "claude-sonnet-5-5: sampling removed", client: openaiChat, site: plain(anthropicMsgs), up: anthropicMsgs,
			model: "claude-sonnet-5-5", body: `{"model":"claude-sonnet-5-5","temperature":0.2,"top_p":0.9,"messages":[{"role":"user","content":"Hi"}]}`,
			status: 200, upstream: absent("temperature", "top_p"),
		},
		{
			name: "claude-sonnet-5-5 with reasoning off: thinking left out (disabled is a 400)", client: openaiChat, site: plain(anthropicMsgs), up: anthropicMsgs,
			model: "claude-sonnet-5-5", body: `{"model":"claude-sonnet-5-5","reasoning_effort":"none","messages":[{"role":"user","content":"Hi"}]}`,
			status: 200, upstream: absent("thinking"),
		},
		{
			name: "claude-mythos-5-1: a forced tool choice is refused under safe", client: openaiChat, site: plain(anthropicMsgs), up: anthropicMsgs,
			model:  "claude-mythos-5-1",
			body:   `{"model":"claude-mythos-5-1",` + chatToolDef + `,"tool_choice":"required","messages":[{"role":"user","content":"Hi"}]}`,
			status: 400, refusal: "anthropic.thinking.cannot-disable",
		},
		{
			name: "claude-fable-5-1: a trailing assistant message is refused under safe", client: openaiChat, site: plain(anthropicMsgs), up: anthropicMsgs,
			model:  "claude-fable-5-1",
			body:   `{"model":"claude-fable-5-1","messages":[{"role":"user","content":"Hi"},{"role":"assistant","content":"{"}]}`,
			status: 400, refusal: "anthropic.prefill.removed",
		},
		{
			name: "claude-fable-5 and claude-mythos-5: sampling removed", client: openaiChat, site: plain(anthropicMsgs), up: anthropicMsgs,
			model: "claude-mythos-5", body: `{"model":"claude-mythos-5","temperature":0.2,"messages":[{"role":"user","content":"Hi"}]}`,
			status: 200, upstream: absent("temperature"),
		},
		{
			name: "claude-fable-5: a trailing assistant message is refused under safe", client: openaiChat, site: plain(anthropicMsgs), up: anthropicMsgs,
			model:  "claude-fable-5",
			body:   `{"model":"claude-fable-5","messages":[{"role":"user","content":"Hi"},{"role":"assistant","content":"{"}]}`,
			status: 400, refusal: "anthropic.prefill.removed",
		},
		{
			name: "DeepSeek V4 with a forced tool choice: thinking disabled, reported", client: openaiChat, site: dialect("deepseek"), up: openaiChat, dialect: "deepseek",
			model:  "deepseek-v4-pro",
			body:   `{"model":"deepseek-v4-pro","reasoning_effort":"high",` + chatToolDef + `,"tool_choice":"required","messages":[{"role":"user","content":"Hi"}]}`,
			status: 200, upstream: field("thinking.type", "disabled"), adjusted: "thinking=disabled (thinking is not accepted with a forced tool_choice by deepseek-v4-pro)",
		},
		{
			name: "DeepSeek V4 with a forced tool choice under strict: refused", client: openaiChat, site: policy("strict-deepseek"), up: openaiChat,
			model:  "deepseek-v4-pro",
			body:   `{"model":"deepseek-v4-pro",` + chatToolDef + `,"tool_choice":{"type":"function","function":{"name":"run"}},"messages":[{"role":"user","content":"Hi"}]}`,
			status: 400, refusal: "deepseek.thinking.forced-tool-choice",
		},
		{
			name: "DeepSeek V4 with reasoning off: thinking disabled", client: openaiChat, site: dialect("deepseek"), up: openaiChat, dialect: "deepseek",
			model: "deepseek-v4-flash", body: `{"model":"deepseek-v4-flash","reasoning_effort":"none","messages":[{"role":"user","content":"Hi"}]}`,
			status: 200, upstream: func(t *testing.T, root gjson.Result) {
				field("thinking.type", "disabled")(t, root)
				absent("reasoning_effort")(t, root)
			},
		},
		{
			name: "xAI grok-4.20 takes no reasoning effort", client: openaiChat, site: dialect("xai"), up: openaiChat, dialect: "xai",
			model: "grok-4.20-0309-reasoning", body: `{"model":"grok-4.20-0309-reasoning","reasoning_effort":"high","messages":[{"role":"user","content":"Hi"}]}`,
			status: 200, upstream: absent("reasoning_effort"),
		},
		{
			name: "xAI grok-build takes no reasoning effort", client: openaiChat, site: dialect("xai"), up: openaiChat, dialect: "xai",
			model: "grok-build-1", body: `{"model":"grok-build-1","reasoning_effort":"low","messages":[{"role":"user","content":"Hi"}]}`,
			status: 200, upstream: absent("reasoning_effort"),
		},
		{
			name: "xAI grok-4.5: effort xhigh becomes high", client: openaiChat, site: dialect("xai"), up: openaiChat, dialect: "xai",
			model: "grok-4.5", body: `{"model":"grok-4.5","reasoning_effort":"xhigh","messages":[{"role":"user","content":"Hi"}]}`,
			status: 200, upstream: field("reasoning_effort", "high"),
		},
		{
			name: "xAI grok-4.5: effort none becomes low (reasoning cannot be turned off)", client: openaiChat, site: dialect("xai"), up: openaiChat, dialect: "xai",
			model: "grok-4.5", body: `{"model":"grok-4.5","reasoning_effort":"none","messages":[{"role":"user","content":"Hi"}]}`,
			status: 200, upstream: field("reasoning_effort", "low"),
		},
		{
			name: "Mistral codestral takes no reasoning effort", client: openaiChat, site: dialect("mistral"), up: openaiChat, dialect: "mistral",
			model: "codestral-latest", body: `{"model":"codestral-latest","reasoning_effort":"high","messages":[{"role":"user","content":"Hi"}]}`,
			status: 200, upstream: absent("reasoning_effort"),
		},
		{
			name: "Groq qwen3.6: an effort above none is sent as default", client: openaiChat, site: dialect("groq"), up: openaiChat, dialect: "groq",
			model: "qwen/qwen3.6-27b", body: `{"model":"qwen/qwen3.6-27b","reasoning_effort":"low","messages":[{"role":"user","content":"Hi"}]}`,
			status: 200, upstream: field("reasoning_effort", "default"),
		},
	}
}

// TestRetiredModel checks that the provider's refusal of a model it
// retired (a 404, or Groq's 400 "decommissioned") reaches the client as an
// error naming the retirement, translated or passed through, and that a
// 404 for a model the table does not mark retired is left as it is.
func TestRetiredModel(t *testing.T) {
	env := setup(t)
	tests := []struct {
		name          string
		client        proto
		site          string
		up            proto
		model, body   string
		status        int
		upstreamError string
		want          string
	}{
		{
			name: "gpt-5-codex from an Anthropic client", client: anthropicMsgs, site: env.plain[openaiResponses], up: openaiResponses,
			model: "gpt-5-codex", body: `{"model":"gpt-5-codex","max_tokens":100,"messages":[{"role":"user","content":"Hi"}]}`,
			status: 404, upstreamError: "The model `gpt-5-codex` does not exist or you do not have access to it.",
			want: "gpt-5-codex was retired by openai on 2026-07-23",
		},
		{
			name: "o4-mini passed through", client: openaiChat, site: env.plain[openaiChat], up: openaiChat,
			model: "o4-mini", body: `{"model":"o4-mini","messages":[{"role":"user","content":"Hi"}]}`,
			status: 404, upstreamError: "The model `o4-mini` does not exist or you do not have access to it.",
			want: "o4-mini was retired by openai on 2026-10-23",
		},
		{
			name: "llama-3.3-70b-versatile on Groq", client: anthropicMsgs, site: env.dialects["groq"], up: openaiChat,
			model: "llama-3.3-70b-versatile", body: `{"model":"llama-3.3-70b-versatile","max_tokens":100,"messages":[{"role":"user","content":"Hi"}]}`,
			status: 400, upstreamError: "The model `llama-3.3-70b-versatile` has been decommissioned and is no longer supported.",
			want: "llama-3.3-70b-versatile was retired by groq on 2026-08-16",
		},
		{
			name: "a model not marked retired keeps the provider's words", client: openaiChat, site: env.plain[openaiChat], up: openaiChat,
			model: "gpt-4.1", body: `{"model":"gpt-4.1","messages":[{"role":"user","content":"Hi"}]}`,
			status: 404, upstreamError: "The model `gpt-4.1` does not exist or you do not have access to it.",
			want: "does not exist or you do not have access to it",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env.mocks.resetAll(t)
			env.mocks[tt.up].setScenario(scenario{Status: tt.status, Header: nativeErrorHeader(tt.up, tt.status), Body: nativeError(tt.up, tt.status, tt.upstreamError)})
			resp := do(t, newClientRequest(t, http.MethodPost, tt.site, tt.client, tt.model, []byte(tt.body)))
			assertErrorFormat(t, "retired", tt.client, tt.status, resp)
			if !strings.Contains(string(resp.Body), tt.want) {
				t.Errorf("the answer does not say %q: %s", tt.want, resp.Body)
			}
		})
	}
}
