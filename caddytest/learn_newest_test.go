package caddytest

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/llmbridge/llmbridge/codec/rules"
)

// newestLearnCases are TestErrorsThatTeach's cases for the grammars of the
// newest rules: Gemini 4's budget and thought signatures, DeepSeek V4's
// forced tool choice, xAI's reasoningEffort, Anthropic's effort beside
// disabled thinking and between_tools.
func newestLearnCases() []learnCase {
	plain := func(p proto) func(*testEnv) string { return func(e *testEnv) string { return e.plain[p] } }
	dialect := func(d string) func(*testEnv) string { return func(e *testEnv) string { return e.dialects[d] } }
	absent := func(path string) func(*testing.T, gjson.Result) {
		return func(t *testing.T, root gjson.Result) {
			if v := root.Get(path); v.Exists() {
				t.Errorf("%s sent: %s", path, v.Raw)
			}
		}
	}
	equal := func(path, raw string) func(*testing.T, gjson.Result) {
		return func(t *testing.T, root gjson.Result) {
			if v := root.Get(path); v.Raw != raw {
				t.Errorf("%s = %s, want %s", path, v.Raw, raw)
			}
		}
	}
	row := func(provider, model string) *rules.Rule { return rules.Builtin().Lookup(provider, model) }
	return []learnCase{
		{
			name: "passthrough, Gemini 4: Thinking budget is not supported", client: gemini, site: plain(gemini), up: gemini,
			model: "gemini-4-argon", hidden: row("google", "gemini-4-argon"),
			body:    `{"contents":[{"role":"user","parts":[{"text":"Hi"}]}],"generationConfig":{"thinkingConfig":{"thinkingBudget":8192}}}`,
			learned: "thinkingConfig.thinkingLevel=medium", upstream: func(t *testing.T, root gjson.Result) {
				equal("generationConfig.thinkingConfig.thinkingLevel", `"MEDIUM"`)(t, root)
				absent("generationConfig.thinkingConfig.thinkingBudget")(t, root)
			},
		},
		{
			name: "passthrough, Gemini: Function call is missing a thought_signature", client: gemini, site: plain(gemini), up: gemini,
			model: "gemini-3.8-flash", hidden: row("google", "gemini-3.8-flash"),
			body: `{"contents":[{"role":"user","parts":[{"text":"run it"}]},{"role":"model","parts":[{"functionCall":{"name":"run","args":{}}}]},` +
				`{"role":"user","parts":[{"functionResponse":{"name":"run","response":{"ok":true}}}]}],"tools":[{"functionDeclarations":[{"name":"run"}]}]}`,
			learned: "thoughtSignature=skip_thought_signature_validator", upstream: equal("contents.1.parts.0.thoughtSignature", `"skip_thought_signature_validator"`),
		},
		{
			name: "DeepSeek: Thinking mode does not support this tool_choice", client: openaiChat, site: dialect("deepseek"), up: openaiChat,
			model: "deepseek-v3.2-exp",
			check: func(body []byte) []string {
				root := gjson.ParseBytes(body)
				if root.Get("tool_choice").String() == "required" && root.Get("thinking.type").String() != "disabled" {
					return []string{"Thinking mode does not support this tool_choice"}
				}
				return enforceDialect("deepseek", body)
			},
			body:    `{"model":"deepseek-v3.2-exp",` + chatToolDef + `,"tool_choice":"required","messages":[{"role":"user","content":"Hi"}]}`,
			learned: "thinking=disabled", upstream: equal("thinking.type", `"disabled"`),
		},
		{
			name: "xAI: does not support parameter reasoningEffort", client: openaiChat, site: dialect("xai"), up: openaiChat,
			model: "grok-next-mini",
			check: func(body []byte) []string {
				if gjson.GetBytes(body, "reasoning_effort").Exists() {
					return []string{"Model grok-next-mini does not support parameter reasoningEffort."}
				}
				return nil
			},
			body:    `{"model":"grok-next-mini","reasoning_effort":"high","messages":[{"role":"user","content":"Hi"}]}`,
			learned: "reasoning_effort removed", upstream: absent("reasoning_effort"),
		},
		{
			name: "passthrough, Anthropic: an effort beside disabled thinking", client: anthropicMsgs, site: plain(anthropicMsgs), up: anthropicMsgs,
			model: "claude-haiku-5-5", hidden: row("anthropic", "claude-haiku-5-5"),
			body:    `{"model":"claude-haiku-5-5","max_tokens":100,"thinking":{"type":"disabled"},"output_config":{"effort":"xhigh"},"messages":[{"role":"user","content":"Hi"}]}`,
			learned: "output_config.effort removed", upstream: func(t *testing.T, root gjson.Result) {
				absent("output_config.effort")(t, root)
				equal("thinking.type", `"disabled"`)(t, root)
			},
		},
		{
			name: "passthrough, Anthropic: only Claude Sonnet 5.5 accepts between_tools", client: anthropicMsgs, site: plain(anthropicMsgs), up: anthropicMsgs,
			model: "claude-opus-5-5", hidden: row("anthropic", "claude-opus-5-5"),
			body:    `{"model":"claude-opus-5-5","max_tokens":100,"thinking":{"type":"between_tools"},"messages":[{"role":"user","content":"Hi"}]}`,
			learned: "thinking.type=adaptive", upstream: equal("thinking.type", `"adaptive"`),
		},
	}
}

// TestErrorsThatTeachNotAChatModel: OpenAI's "This is not a chat model"
// teaches that the model is served only by the Responses API, which no
// retry toward Chat Completions cures: the client gets llmbridge's
// refusal naming upstream openai-responses at once, and the next request
// is refused before it is sent.
func TestErrorsThatTeachNotAChatModel(t *testing.T) {
	env := setup(t)
	env.mocks.resetAll(t)
	const model = "acme-9-agent"
	m := env.mocks[openaiChat]
	m.mu.Lock()
	m.check = func(body []byte) []string {
		return enforceModelRule(openaiChat, model, &rules.Rule{ResponsesOnly: true}, body)
	}
	m.mu.Unlock()
	body := fmt.Sprintf(`{"model":%q,"max_tokens":100,"messages":[{"role":"user","content":"Hi"}]}`, model)
	for i, wantCalls := range []int{1, 0} {
		_, before := m.lastRequest()
		resp := do(t, newClientRequest(t, http.MethodPost, env.plain[openaiChat], anthropicMsgs, model, []byte(body)))
		_, after := m.lastRequest()
		assertErrorFormat(t, "refusal", anthropicMsgs, http.StatusBadRequest, resp)
		if after-before != wantCalls {
			t.Errorf("request %d: %d upstream calls, want %d", i+1, after-before, wantCalls)
		}
		if !strings.Contains(string(resp.Body), "upstream openai-responses") {
			t.Errorf("request %d: the refusal does not name upstream openai-responses: %s", i+1, resp.Body)
		}
	}
	m.takeViolations()
}
