package caddytest

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/llmbridge/llmbridge/caddymodule"
	"github.com/llmbridge/llmbridge/codec/rules"
)

// TestProbe runs `caddy llmbridge-probe` (caddymodule.Probe) against the
// rules-enforcing mocks for models of the table: the model_rule the probe
// measures holds the model's rules, as the mock enforces them from its
// row, and the report says what the probe spent.
func TestProbe(t *testing.T) {
	env := setup(t)
	tests := []struct {
		up      proto
		model   string
		dialect string
		want    rules.Rule
		notes   []string
	}{
		{up: openaiChat, model: "gpt-5", want: rules.Rule{MaxOutput: 128000, Reasoning: rules.ReasoningEffort,
			Efforts: []string{"minimal", "low", "medium", "high"}, Sampling: rules.SamplingFixed,
			Rejects: []string{"stop", "presence_penalty", "frequency_penalty"}}},
		{up: openaiChat, model: "gpt-5.5", want: rules.Rule{MaxOutput: 128000, Reasoning: rules.ReasoningEffort,
			Efforts: []string{"none", "low", "medium", "high", "xhigh"}, Sampling: rules.SamplingFixedWhenReasoning, DefaultEffort: "medium",
			ChatTools: rules.ChatToolsEffortNone, Rejects: []string{"presence_penalty", "frequency_penalty"}}},
		{up: openaiChat, model: "gpt-5.4", want: rules.Rule{MaxOutput: 128000, Reasoning: rules.ReasoningEffort,
			Efforts: []string{"none", "low", "medium", "high", "xhigh"}, Sampling: rules.SamplingFixedWhenReasoning, DefaultEffort: "none",
			ChatTools: rules.ChatToolsEffortNone, Rejects: []string{"stop", "presence_penalty", "frequency_penalty"}}},
		{up: openaiChat, model: "gpt-6-astra", want: rules.Rule{Reasoning: rules.ReasoningEffort,
			Efforts: []string{"low", "medium", "high", "xhigh", "max"}, Sampling: rules.SamplingFixed, ChatTools: rules.ChatToolsResponses,
			Rejects: []string{"stop", "presence_penalty", "frequency_penalty"}}},
		{up: openaiResponses, model: "o3", want: rules.Rule{MaxOutput: 100000, Reasoning: rules.ReasoningEffort,
			Efforts: []string{"low", "medium", "high"}, Sampling: rules.SamplingFixed}},
		{up: anthropicMsgs, model: "claude-sonnet-5", want: rules.Rule{MaxOutput: 128000, Reasoning: rules.ReasoningAdaptive,
			Efforts: []string{"low", "medium", "high", "xhigh", "max"}, Sampling: rules.SamplingFixed, NoPrefill: true}},
		{up: anthropicMsgs, model: "claude-opus-5-5", want: rules.Rule{MaxOutput: 128000, Reasoning: rules.ReasoningAdaptive,
			Efforts: []string{"low", "medium", "high", "xhigh", "max"}, Sampling: rules.SamplingFixed, NoPrefill: true,
			ThinkingOff: rules.ThinkingOffOmit}},
		{up: vertexAnthropic, model: "claude-opus-4-7", want: rules.Rule{MaxOutput: 128000, Reasoning: rules.ReasoningAdaptive,
			Efforts: []string{"low", "medium", "high", "xhigh", "max"}, Sampling: rules.SamplingFixed, NoPrefill: true, ThinkingOff: rules.ThinkingOffOmit}},
		{up: vertex, model: "gemini-3.1-pro-preview", want: rules.Rule{MaxOutput: 65536, Reasoning: rules.ReasoningLevel,
			Efforts: []string{"low", "medium", "high"}, AlwaysThinks: true, SignedCalls: true}},
		{up: gemini, model: "gemini-4-neon", want: rules.Rule{MaxOutput: 1048576, Reasoning: rules.ReasoningLevel,
			Efforts: []string{"low", "medium", "high", "xhigh"}, AlwaysThinks: true, SignedCalls: true,
			Rejects: []string{"presence_penalty", "frequency_penalty"}},
			notes: []string{"thinking by level only"}},
		{up: openaiChat, model: "gpt-5.3-codex", want: rules.Rule{ResponsesOnly: true}, notes: []string{"--upstream openai-responses"}},
		{up: openaiChat, model: "deepseek-v4-flash", dialect: "deepseek", want: rules.Rule{Provider: "deepseek", Reasoning: rules.ReasoningEffort,
			Efforts: []string{"none", "minimal", "low", "medium", "high", "xhigh", "max"}, ThinkingOff: rules.ThinkingOffDisabled}},
		{up: anthropicMsgs, model: "claude-sonnet-4-5", want: rules.Rule{MaxOutput: 64000, Reasoning: rules.ReasoningBudget, Sampling: rules.SamplingExclusive}},
		{up: gemini, model: "gemini-2.5-flash", want: rules.Rule{MaxOutput: 65536, Reasoning: rules.ReasoningBudget, BudgetMin: 1, BudgetMax: 24576}},
		{up: gemini, model: "gemini-3.5-flash-lite", want: rules.Rule{MaxOutput: 65536, Reasoning: rules.ReasoningLevel,
			Efforts: []string{"minimal", "low", "medium", "high"}, AlwaysThinks: true, NoPrefill: true, SignedCalls: true,
			Rejects: []string{"presence_penalty", "frequency_penalty"}}},
		{up: openaiChat, model: "mistral-medium-2604", dialect: "mistral", want: rules.Rule{Provider: "mistral", Reasoning: rules.ReasoningEffort,
			Efforts: []string{"none", "high"}}},
		{up: openaiChat, model: "deepseek-v4-flash", dialect: "openrouter", want: rules.Rule{Provider: "openrouter", Reasoning: rules.ReasoningNone},
			notes: []string{"the server refuses a user message right after a tool message"}},
	}
	for _, tt := range tests {
		t.Run(string(tt.up)+"/"+tt.model+"/"+tt.dialect, func(t *testing.T) {
			env.mocks.resetAll(t)
			m := env.mocks[tt.up]
			if tt.dialect != "" {
				// The server behind the dialect: its own rules for the
				// mistral and deepseek dialects; Mistral's behind
				// OpenRouter, to see the probe find a dialect setting the
				// server needs.
				server := tt.dialect
				if server == "openrouter" {
					server = "mistral"
				}
				m.mu.Lock()
				m.check = func(body []byte) []string { return enforceDialect(server, body) }
				m.mu.Unlock()
			}
			var out bytes.Buffer
			rep, err := caddymodule.Probe(context.Background(), caddymodule.ProbeConfig{Upstream: string(tt.up), To: "http://" + m.addr(),
				Model: tt.model, APIKey: upstreamKey, Dialect: tt.dialect, VertexProject: vertexProject, VertexLocation: vertexLocation, Out: &out})
			m.takeViolations()
			if err != nil {
				t.Fatalf("%v\n%s", err, out.String())
			}
			t.Log(out.String())
			got := rep.Rule
			want := tt.want
			want.Models = []string{tt.model}
			got.Sources, got.Verified = nil, ""
			if !sameRule(got, want) {
				t.Errorf("implied rule:\n got %+v\nwant %+v\n%s", got, want, out.String())
			}
			for _, n := range tt.notes {
				if !slices.ContainsFunc(rep.Notes, func(s string) bool { return strings.Contains(s, n) }) {
					t.Errorf("notes %q lack %q", rep.Notes, n)
				}
			}
			if _, hits := m.lastRequest(); int64(hits) != rep.Requests || rep.Requests != int64(len(rep.Results)) {
				t.Errorf("the report counts %d requests, the mock saw %d", rep.Requests, hits)
			}
			s := out.String()
			if !strings.Contains(s, "model_rule "+tt.model+" {") || !strings.Contains(s, "Spent: ") || rep.OutputTokens == 0 && !tt.want.ResponsesOnly {
				t.Errorf("report:\n%s", s)
			}
		})
	}
}

// sameRule compares the fields a probe measures.
func sameRule(a, b rules.Rule) bool {
	return a.Provider == b.Provider && slices.Equal(a.Models, b.Models) && a.MaxOutput == b.MaxOutput && a.Reasoning == b.Reasoning &&
		slices.Equal(a.Efforts, b.Efforts) && a.BudgetMin == b.BudgetMin && a.BudgetMax == b.BudgetMax && a.AlwaysThinks == b.AlwaysThinks &&
		a.Sampling == b.Sampling && a.NoPrefill == b.NoPrefill && slices.Equal(a.Rejects, b.Rejects) && a.DefaultEffort == b.DefaultEffort &&
		a.ChatTools == b.ChatTools && a.ThinkingOff == b.ThinkingOff && a.EffortOn == b.EffortOn && a.SignedCalls == b.SignedCalls &&
		a.ResponsesOnly == b.ResponsesOnly
}
