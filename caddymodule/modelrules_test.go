package caddymodule

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/llmbridge/llmbridge/caddymodule/policy"
	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/rules"
	"github.com/llmbridge/llmbridge/mapping"
)

func TestFitModelPolicy(t *testing.T) {
	adjustOnly := func() *codec.Request {
		return &codec.Request{Reasoning: codec.Reasoning{Effort: mapping.EffortXHigh}}
	}
	change := func() *codec.Request {
		return &codec.Request{Reasoning: codec.Reasoning{Effort: mapping.EffortXHigh}, StopSequences: []string{"END"}}
	}
	tests := []struct {
		name    string
		policy  policy.Level
		req     func() *codec.Request
		wantErr string
		wantAdj int
	}{
		{"safe adjusts", policy.Safe, adjustOnly, "", 1},
		{"safe refuses a change", policy.Safe, change, "rule openai.stop.unsupported); this would change what the model is asked; on_unsupported lenient sends stop removed", 2},
		{"lenient changes", policy.Lenient, change, "", 2},
		{"strict refuses an adjustment", policy.Strict, adjustOnly, "on_unsupported strict refuses every adjustment; safe would send reasoning_effort=high (xhigh not accepted by o3)", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := &Handler{upstream: codec.OpenAIChat, provider: "openai", policy: tt.policy, logger: zap.NewNop()}
			if err := h.provisionRules(); err != nil {
				t.Fatal(err)
			}
			_, adj, err := h.fitModel(tt.req(), h.upstream, "o3")
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatalf("error %v", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Fatalf("error %v, want one containing %q", err, tt.wantErr)
			case tt.wantErr != "" && (err.Status != 400 || !strings.Contains(err.Message, "model o3")):
				t.Errorf("error = %+v", err)
			}
			if len(adj) != tt.wantAdj {
				t.Errorf("%d adjustments, want %d", len(adj), tt.wantAdj)
			}
			if err == nil {
				w := httptest.NewRecorder()
				h.reportAdjusted(w, "o3", adj)
				if got := w.Header().Get("Llmbridge-Adjusted"); !strings.Contains(got, "reasoning_effort=high (xhigh not accepted by o3)") {
					t.Errorf("Llmbridge-Adjusted = %q", got)
				}
			}
		})
	}
}

func TestProvisionRulesDialect(t *testing.T) {
	h := &Handler{upstream: codec.OpenAIChat, Dialect: "mistral", provider: "mistral",
		ModelRules: []rules.Rule{{Models: []string{"mistral-next"}, Like: "mistral-large-latest", MaxOutput: 1000}}}
	if err := h.provisionRules(); err != nil {
		t.Fatal(err)
	}
	if h.dialect == nil || h.dialect.ToolCallIDs != codec.IDAlnum9 {
		t.Errorf("dialect = %+v", h.dialect)
	}
	if r := h.rules.Lookup("mistral", "mistral-next"); r == nil || r.MaxOutput != 1000 || r.Reasoning != rules.ReasoningNone {
		t.Errorf("operator rule = %+v", r)
	}
	if h.ModelRules[0].Provider != "" {
		t.Error("provisionRules changed the configured rows")
	}
}

// TestFamilyRuleKept checks that the rule of a model newer than its
// family's rows is found once and kept: later lookups return the same rule
// without allocating, the note is given once, and a model of an unknown
// family gets no rule and no note.
func TestFamilyRuleKept(t *testing.T) {
	h := newTestHandler(t, &Handler{Upstream: "gemini"})
	core, logs := observer.New(zap.InfoLevel)
	h.logger = zap.New(core)
	first := h.ruleFor("gemini-5-test")
	if first == nil || first.Reasoning != rules.ReasoningLevel || !first.SignedCalls {
		t.Fatalf("gemini-5-test: rule %+v, want Gemini 4's", first)
	}
	if again := h.ruleFor("gemini-5-test"); again != first {
		t.Errorf("the rule was found again: %p != %p", again, first)
	}
	if allocs := testing.AllocsPerRun(100, func() { _ = h.ruleFor("gemini-5-test") }); allocs != 0 {
		t.Errorf("ruleFor allocates %.0f times per kept model", allocs)
	}
	if note, ok := h.familyNote("gemini-5-test"); !ok || note.Value != "like gemini-4-argon" {
		t.Errorf("first note = %+v, %v", note, ok)
	}
	if _, ok := h.familyNote("gemini-5-test"); ok {
		t.Error("the note was given twice")
	}
	entries := logs.FilterMessageSnippet("family's newest row").All()
	if len(entries) != 1 || !strings.Contains(entries[0].ContextMap()["model_rule"].(string), "model_rule gemini-5-test {\n\tlike gemini-4-argon\n}") {
		t.Errorf("log entries: %+v, want one with the model_rule block", entries)
	}
	if r := h.ruleFor("acme-9-pro"); r != nil {
		t.Errorf("acme-9-pro: rule %v, want none", r.Models)
	}
	if _, ok := h.familyNote("acme-9-pro"); ok {
		t.Error("a model of an unknown family got a note")
	}
}

// BenchmarkRuleFor measures the rule lookup of every translated request:
// the table's answer for the model is found on its first request and kept.
func BenchmarkRuleFor(b *testing.B) {
	ctx, cancel := caddy.NewContext(caddy.Context{Context: context.Background()})
	defer cancel()
	h := &Handler{Upstream: "anthropic-messages"}
	if err := h.Provision(ctx); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		_ = h.ruleFor("claude-sonnet-4-5-20250929")
	}
}
