package caddytest

import (
	"net/http"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/llmbridge/llmbridge/codec/rules"
)

// TestFamilyModels sends requests for models the table has no row of:
// a model newer than every row of its family is fitted to the family's
// newest row, which the mock enforces with the provider's words, and the
// first request's Llmbridge-Adjusted says so (the second's does not); a
// model of a family the table does not know is sent with the generic
// behaviour.
func TestFamilyModels(t *testing.T) {
	env := setup(t)
	row := func(provider, model string) *rules.Rule { return rules.Builtin().Lookup(provider, model) }
	tests := []struct {
		name   string
		client proto
		site   string
		up     proto
		model  string
		// behaves is the rule the mock holds the model to, nil for none.
		behaves *rules.Rule
		body    string
		// note is a part of the first request's Llmbridge-Adjusted, ""
		// for none.
		note     string
		upstream func(t *testing.T, root gjson.Result)
	}{
		{
			name: "gemini-5-test behaves as Gemini 4: a level for Claude Code's budget, signed calls", client: anthropicMsgs, site: env.plain[gemini], up: gemini,
			model: "gemini-5-test", behaves: row("google", "gemini-4-argon"),
			body: strings.NewReplacer(`"max_tokens":500,`, `"max_tokens":32000,"thinking":{"type":"enabled","budget_tokens":31999},`, "%MODEL%", "gemini-5-test").Replace(anthropicToolTurns),
			note: "model_rule=like gemini-4-argon",
			upstream: func(t *testing.T, root gjson.Result) {
				tc := root.Get("generationConfig.thinkingConfig")
				if tc.Get("thinkingLevel").String() != "high" || tc.Get("thinkingBudget").Exists() {
					t.Errorf("thinkingConfig = %s, want level high and no budget", tc.Raw)
				}
			},
		},
		{
			name: "claude-opus-6 behaves as Opus 5.5: sampling removed", client: openaiChat, site: env.plain[anthropicMsgs], up: anthropicMsgs,
			model: "claude-opus-6", behaves: row("anthropic", "claude-opus-5-5"),
			body: `{"model":"claude-opus-6","temperature":0.2,"messages":[{"role":"user","content":"Hi"}]}`,
			note: "model_rule=like claude-opus-5-5",
			upstream: func(t *testing.T, root gjson.Result) {
				if root.Get("temperature").Exists() {
					t.Errorf("temperature sent: %s", root.Raw)
				}
			},
		},
		{
			name: "a made-up family keeps the generic behaviour", client: anthropicMsgs, site: env.plain[gemini], up: gemini,
			model: "acme-9-pro",
			body:  `{"model":"acme-9-pro","max_tokens":32000,"thinking":{"type":"enabled","budget_tokens":31999},"messages":[{"role":"user","content":"Hi"}]}`,
			upstream: func(t *testing.T, root gjson.Result) {
				if got := root.Get("generationConfig.thinkingConfig.thinkingBudget").Int(); got != 31999 {
					t.Errorf("thinkingBudget = %d, want the client's 31999: %s", got, root.Raw)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env.mocks.resetAll(t)
			m := env.mocks[tt.up]
			if tt.behaves != nil {
				m.mu.Lock()
				m.check = func(body []byte) []string { return enforceModelRule(tt.up, tt.model, tt.behaves, body) }
				m.mu.Unlock()
			}
			for i := range 2 {
				resp := do(t, newClientRequest(t, http.MethodPost, tt.site, tt.client, tt.model, []byte(tt.body)))
				rec, _ := m.lastRequest()
				if resp.Status != http.StatusOK {
					t.Fatalf("request %d: HTTP %d: %s", i+1, resp.Status, resp.Body)
				}
				if v := m.takeViolations(); len(v) > 0 {
					t.Errorf("request %d: violations %v", i+1, v)
				}
				got := resp.Header.Get("Llmbridge-Adjusted")
				switch {
				case i == 0 && tt.note != "" && !strings.Contains(got, tt.note):
					t.Errorf("first request: Llmbridge-Adjusted = %q, want it to contain %q", got, tt.note)
				case (i == 1 || tt.note == "") && strings.Contains(got, "model_rule="):
					t.Errorf("request %d: Llmbridge-Adjusted = %q, want no note", i+1, got)
				}
				tt.upstream(t, gjson.ParseBytes(rec.Body))
			}
		})
	}
}
