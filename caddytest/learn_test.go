package caddytest

import (
	"net/http"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/llmbridge/llmbridge/codec/rules"
)

// learnCase is a model the mock knows a rule of that llmbridge's table
// lacks: the mock refuses a request that breaks it with the provider's own
// words, and llmbridge is to learn the rule from them.
type learnCase struct {
	name   string
	client proto
	site   func(e *testEnv) string
	up     proto
	model  string
	// hidden is the rule the mock enforces; nil for a dialect's own rules
	// (dialect).
	hidden  *rules.Rule
	dialect string
	body    string
	// learned is a part of Llmbridge-Adjusted on the retried request;
	// upstream checks the request the mock accepted.
	learned  string
	upstream func(t *testing.T, root gjson.Result)
	// check, when set, is the mock's own check in place of hidden's or
	// the dialect's: a provider rule the table does not hold of the
	// model.
	check func(body []byte) []string
}

// TestErrorsThatTeach sends, per provider grammar, a request that breaks a
// rule the mock knows and llmbridge's table does not: the upstream's
// refusal is not passed on, the request is fitted with what it taught and
// sent once more (reported in Llmbridge-Adjusted), and a second request to
// the same model is fitted before it is sent, without a refusal.
func TestErrorsThatTeach(t *testing.T) {
	env := setup(t)
	plain := func(p proto) func(*testEnv) string { return func(e *testEnv) string { return e.plain[p] } }
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
	tests := []learnCase{
		{
			name: "OpenAI Chat: 'temperature' does not support 0.2", client: anthropicMsgs, site: plain(openaiChat), up: openaiChat,
			model: "acme-7-alpha", hidden: &rules.Rule{Reasoning: rules.ReasoningEffort, Efforts: []string{"low", "medium", "high"}, Sampling: rules.SamplingFixed},
			body:    `{"model":"acme-7-alpha","max_tokens":100,"temperature":0.2,"messages":[{"role":"user","content":"Hi"}]}`,
			learned: "temperature removed (acme-7-alpha samples only with its default settings; learned from the provider's 400)", upstream: absent("temperature"),
		},
		{
			name: "OpenAI Responses: 'reasoning.effort' does not support 'high'; supported values", client: openaiChat, site: plain(openaiResponses), up: openaiResponses,
			model: "acme-7-beta", hidden: &rules.Rule{Reasoning: rules.ReasoningEffort, Efforts: []string{"medium"}},
			body:    `{"model":"acme-7-beta","reasoning_effort":"high","messages":[{"role":"user","content":"Hi"}]}`,
			learned: "reasoning.effort=medium (high not accepted by acme-7-beta; learned from the provider's 400)", upstream: equal("reasoning.effort", `"medium"`),
		},
		{
			name: "OpenAI Chat: function tools with reasoning_effort", client: anthropicMsgs, site: plain(openaiChat), up: openaiChat,
			model:    "acme-7-gamma",
			hidden:   &rules.Rule{Reasoning: rules.ReasoningEffort, Efforts: []string{"none", "low", "medium", "high"}, DefaultEffort: "medium", ChatTools: rules.ChatToolsEffortNone},
			body:     `{"model":"acme-7-gamma","max_tokens":100,"tools":[{"name":"run","input_schema":{"type":"object"}}],"messages":[{"role":"user","content":"Hi"}]}`,
			learned:  "reasoning_effort=none (function tools with the model's default reasoning effort are not accepted by acme-7-gamma on Chat Completions; upstream openai-responses takes both; learned from the provider's 400)",
			upstream: equal("reasoning_effort", `"none"`),
		},
		{
			name: "Anthropic: max_tokens over the model's maximum", client: openaiChat, site: plain(anthropicMsgs), up: anthropicMsgs,
			model: "claude-nova-1", hidden: &rules.Rule{MaxOutput: 64000},
			body:    `{"model":"claude-nova-1","max_tokens":100000,"messages":[{"role":"user","content":"Hi"}]}`,
			learned: "max_tokens=64000", upstream: equal("max_tokens", "64000"),
		},
		{
			name: "Anthropic: temperature and top_p cannot both be specified", client: openaiChat, site: plain(anthropicMsgs), up: anthropicMsgs,
			model: "claude-nova-2", hidden: &rules.Rule{Sampling: rules.SamplingExclusive},
			body:    `{"model":"claude-nova-2","temperature":0.5,"top_p":0.9,"messages":[{"role":"user","content":"Hi"}]}`,
			learned: "top_p removed", upstream: absent("top_p"),
		},
		{
			name: "Vertex Claude: thinking.type.enabled is not supported", client: openaiChat, site: plain(vertexAnthropic), up: vertexAnthropic,
			model: "claude-nova-3", hidden: &rules.Rule{Reasoning: rules.ReasoningAdaptive, Efforts: []string{"low", "medium", "high", "max"}},
			body:    `{"model":"claude-nova-3","reasoning_effort":"high","messages":[{"role":"user","content":"Hi"}]}`,
			learned: "thinking=adaptive, output_config.effort=high", upstream: equal("thinking.type", `"adaptive"`),
		},
		{
			name: "Gemini: thinking_budget out of range", client: anthropicMsgs, site: plain(gemini), up: gemini,
			model: "gemma-5-pro", hidden: &rules.Rule{Reasoning: rules.ReasoningBudget, BudgetMin: 128, BudgetMax: 32768},
			body:    `{"model":"gemma-5-pro","max_tokens":60000,"thinking":{"type":"enabled","budget_tokens":50000},"messages":[{"role":"user","content":"Hi"}]}`,
			learned: "thinkingConfig.thinkingBudget=32768", upstream: equal("generationConfig.thinkingConfig.thinkingBudget", "32768"),
		},
		{
			name: "Bedrock Converse: a ValidationException naming the maximum output", client: openaiChat, site: plain(bedrockConverse), up: bedrockConverse,
			model: "anthropic.claude-nova-4-v1:0", hidden: &rules.Rule{MaxOutput: 32000},
			body:    `{"model":"anthropic.claude-nova-4-v1:0","max_tokens":50000,"messages":[{"role":"user","content":"Hi"}]}`,
			learned: "inferenceConfig.maxTokens=32000", upstream: equal("inferenceConfig.maxTokens", "32000"),
		},
		{
			name: "Mistral: reasoning_effort: Extra inputs are not permitted", client: openaiChat, site: func(e *testEnv) string { return e.dialects["mistral"] }, up: openaiChat,
			model: "voxtral-small-2507", dialect: "mistral",
			body:    `{"model":"voxtral-small-2507","reasoning_effort":"high","messages":[{"role":"user","content":"Hi"}]}`,
			learned: "reasoning_effort removed", upstream: absent("reasoning_effort"),
		},
		{
			name: "passthrough, Anthropic: temperature and top_p cannot both be specified", client: anthropicMsgs, site: plain(anthropicMsgs), up: anthropicMsgs,
			model: "claude-nova-6", hidden: &rules.Rule{Sampling: rules.SamplingExclusive},
			body:    `{"model":"claude-nova-6","max_tokens":100,"temperature":0.5,"top_p":0.9,"messages":[{"role":"user","content":"Hi"}],"metadata":{"user_id":"u1"}}`,
			learned: "top_p removed", upstream: func(t *testing.T, root gjson.Result) {
				if root.Get("top_p").Exists() || root.Get("metadata.user_id").String() != "u1" {
					t.Errorf("top_p sent, or the body not kept: %s", root.Raw)
				}
			},
		},
		{
			name: "passthrough, Vertex Gemini: maxOutputTokens out of range", client: gemini, site: plain(vertex), up: vertex,
			model: "gemma-5-ultra", hidden: &rules.Rule{MaxOutput: 65536},
			body:    `{"contents":[{"role":"user","parts":[{"text":"Hi"}]}],"generationConfig":{"maxOutputTokens":100000}}`,
			learned: "maxOutputTokens=65536", upstream: equal("generationConfig.maxOutputTokens", "65536"),
		},
		{
			name: "passthrough, OpenAI Responses: effort values", client: openaiResponses, site: plain(openaiResponses), up: openaiResponses,
			model: "acme-7-zeta", hidden: &rules.Rule{Reasoning: rules.ReasoningEffort, Efforts: []string{"low", "high"}},
			body:    `{"model":"acme-7-zeta","input":"Hi","reasoning":{"effort":"medium"}}`,
			learned: "reasoning.effort=low", upstream: equal("reasoning.effort", `"low"`),
		},
		{
			name: "lenient: stop sequences the model refuses are removed", client: anthropicMsgs, site: func(e *testEnv) string { return e.policies["lenient-chat"] }, up: openaiChat,
			model: "acme-7-delta", hidden: &rules.Rule{Rejects: []string{"stop"}},
			body:    `{"model":"acme-7-delta","max_tokens":100,"stop_sequences":["END"],"messages":[{"role":"user","content":"Hi"}]}`,
			learned: "stop removed", upstream: absent("stop"),
		},
	}
	tests = append(tests, newestLearnCases()...)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env.mocks.resetAll(t)
			m := env.mocks[tt.up]
			m.mu.Lock()
			m.check = func(body []byte) []string {
				if tt.check != nil {
					return tt.check(body)
				}
				if tt.dialect != "" {
					return enforceDialect(tt.dialect, body)
				}
				return enforceModelRule(tt.up, tt.model, tt.hidden, body)
			}
			m.mu.Unlock()
			send := func() rawResponse {
				return do(t, newClientRequest(t, http.MethodPost, tt.site(env), tt.client, tt.model, []byte(tt.body)))
			}
			resp := send()
			rec, hits := m.lastRequest()
			if resp.Status != http.StatusOK {
				t.Fatalf("first request: HTTP %d: %s (upstream calls %d)", resp.Status, resp.Body, hits)
			}
			if hits != 2 {
				t.Errorf("first request: %d upstream calls, want 2 (the refused one and its retry)", hits)
			}
			if v := m.takeViolations(); len(v) != 1 {
				t.Errorf("first request: violations %q, want the one the retry fixed", v)
			}
			if got := resp.Header.Get("Llmbridge-Adjusted"); !strings.Contains(got, tt.learned) || !strings.Contains(got, "learned from the provider's 400") {
				t.Errorf("first request: Llmbridge-Adjusted = %q, want %q, learned from the provider's 400", got, tt.learned)
			}
			tt.upstream(t, gjson.ParseBytes(rec.Body))

			resp = send()
			rec, hits2 := m.lastRequest()
			if resp.Status != http.StatusOK || hits2 != hits+1 {
				t.Fatalf("second request: HTTP %d, %d more upstream calls, want 200 and 1: %s", resp.Status, hits2-hits, resp.Body)
			}
			if v := m.takeViolations(); len(v) != 0 {
				t.Errorf("second request: violations %q", v)
			}
			if got := resp.Header.Get("Llmbridge-Adjusted"); strings.Contains(got, "learned from") {
				t.Errorf("second request: Llmbridge-Adjusted = %q, want the table-like adjustment without a retry", got)
			}
			tt.upstream(t, gjson.ParseBytes(rec.Body))
		})
	}
}

// TestErrorsThatTeachRefusals: a refusal is passed on, in the client's
// protocol, without a retry, where llmbridge may not or cannot learn from
// it: under strict; when the fix would change what the model is asked
// under safe; when the refusal names nothing known.
func TestErrorsThatTeachRefusals(t *testing.T) {
	env := setup(t)
	tests := []struct {
		name   string
		client proto
		site   string
		up     proto
		model  string
		hidden *rules.Rule
		body   string
		// scenario, when set, is the upstream's answer.
		scenario *scenario
		want     string
	}{
		{
			name: "strict never retries", client: openaiChat, site: env.policies["strict"], up: anthropicMsgs,
			model: "claude-nova-5", hidden: &rules.Rule{Sampling: rules.SamplingExclusive},
			body: `{"model":"claude-nova-5","temperature":0.5,"top_p":0.9,"messages":[{"role":"user","content":"Hi"}]}`,
			want: "cannot both be specified",
		},
		{
			name: "safe does not remove stop sequences", client: anthropicMsgs, site: env.plain[openaiChat], up: openaiChat,
			model: "acme-7-epsilon", hidden: &rules.Rule{Rejects: []string{"stop"}},
			body: `{"model":"acme-7-epsilon","max_tokens":100,"stop_sequences":["END"],"messages":[{"role":"user","content":"Hi"}]}`,
			want: "Unsupported parameter: 'stop'",
		},
		{
			name: "a refusal that names nothing known", client: openaiChat, site: env.plain[gemini], up: gemini, model: "gemma-5-flash",
			body:     `{"model":"gemma-5-flash","messages":[{"role":"user","content":"Hi"}]}`,
			scenario: &scenario{Status: 400, Body: nativeError(gemini, 400, "Request contains an invalid argument.")},
			want:     "Request contains an invalid argument.",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env.mocks.resetAll(t)
			m := env.mocks[tt.up]
			if tt.scenario != nil {
				m.setScenario(*tt.scenario)
			} else {
				m.mu.Lock()
				m.check = func(body []byte) []string { return enforceModelRule(tt.up, tt.model, tt.hidden, body) }
				m.mu.Unlock()
			}
			for range 2 {
				_, before := m.lastRequest()
				resp := do(t, newClientRequest(t, http.MethodPost, tt.site, tt.client, tt.model, []byte(tt.body)))
				_, after := m.lastRequest()
				assertErrorFormat(t, "refusal", tt.client, http.StatusBadRequest, resp)
				if after != before+1 {
					t.Errorf("%d upstream calls, want 1 (no retry)", after-before)
				}
				if !strings.Contains(string(resp.Body), tt.want) {
					t.Errorf("the client did not get the provider's refusal %q: %s", tt.want, resp.Body)
				}
			}
			m.takeViolations()
		})
	}
}
