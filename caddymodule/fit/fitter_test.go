package fit

import (
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/llmbridge/llmbridge/caddymodule/policy"
	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/rules"
	"github.com/llmbridge/llmbridge/mapping"
)

// TestFitPolicy makes the adjustments each policy allows and refuses the
// rest, naming the rule and what the next policy would send.
func TestFitPolicy(t *testing.T) {
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
			f := &Fitter{Upstream: codec.OpenAIChat, Provider: "openai", Policy: tt.policy, Logger: zap.NewNop()}
			if err := f.Provision(nil, ""); err != nil {
				t.Fatal(err)
			}
			_, adj, err := f.Fit(tt.req(), f.Upstream, "o3")
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
				f.ReportAdjusted(w, "o3", adj)
				if got := w.Header().Get("Llmbridge-Adjusted"); !strings.Contains(got, "reasoning_effort=high (xhigh not accepted by o3)") {
					t.Errorf("Llmbridge-Adjusted = %q", got)
				}
			}
		})
	}
}

func TestProvisionDialect(t *testing.T) {
	f := &Fitter{Upstream: codec.OpenAIChat, Provider: "mistral"}
	modelRules := []rules.Rule{{Models: []string{"mistral-next"}, Like: "mistral-large-latest", MaxOutput: 1000}}
	if err := f.Provision(modelRules, "mistral"); err != nil {
		t.Fatal(err)
	}
	if f.Dialect() == nil || f.Dialect().ToolCallIDs != codec.IDAlnum9 {
		t.Errorf("dialect = %+v", f.Dialect())
	}
	if r := f.Rules().Lookup("mistral", "mistral-next"); r == nil || r.MaxOutput != 1000 || r.Reasoning != rules.ReasoningNone {
		t.Errorf("operator rule = %+v", r)
	}
	if modelRules[0].Provider != "" {
		t.Error("Provision changed the configured rows")
	}
	if err := (&Fitter{Upstream: codec.OpenAIChat, Provider: "openai"}).Provision(nil, "no-such-dialect"); err == nil {
		t.Error("an unknown dialect was accepted")
	}
}

// TestFamilyRuleKept checks that the rule of a model newer than its
// family's rows is found once and kept: later lookups return the same rule
// without allocating, the note is given once, and a model of an unknown
// family gets no rule and no note.
func TestFamilyRuleKept(t *testing.T) {
	core, logs := observer.New(zap.InfoLevel)
	h := &Fitter{Upstream: codec.Gemini, Provider: rules.ProviderFor(codec.Gemini, ""), Logger: zap.New(core)}
	if err := h.Provision(nil, ""); err != nil {
		t.Fatal(err)
	}
	first := h.RuleFor("gemini-5-test")
	if first == nil || first.Reasoning != rules.ReasoningLevel || !first.SignedCalls {
		t.Fatalf("gemini-5-test: rule %+v, want Gemini 4's", first)
	}
	if again := h.RuleFor("gemini-5-test"); again != first {
		t.Errorf("the rule was found again: %p != %p", again, first)
	}
	if allocs := testing.AllocsPerRun(100, func() { _ = h.RuleFor("gemini-5-test") }); allocs != 0 {
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
	if r := h.RuleFor("acme-9-pro"); r != nil {
		t.Errorf("acme-9-pro: rule %v, want none", r.Models)
	}
	if _, ok := h.familyNote("acme-9-pro"); ok {
		t.Error("a model of an unknown family got a note")
	}
}

// BenchmarkRuleFor measures the rule lookup of every translated request:
// the table's answer for the model is found on its first request and kept.
func BenchmarkRuleFor(b *testing.B) {
	h := &Fitter{Upstream: codec.AnthropicMessages, Provider: rules.ProviderFor(codec.AnthropicMessages, ""), Logger: zap.NewNop()}
	if err := h.Provision(nil, ""); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		_ = h.RuleFor("claude-sonnet-4-5-20250929")
	}
}

// TestFamilyRulesBounded keeps at most maxFamilies models' rules, and a
// fitter that was not provisioned keeps none but still finds them.
func TestFamilyRulesBounded(t *testing.T) {
	f := newFitter(t, codec.Gemini, policy.Safe)
	for i := range maxFamilies + 10 {
		_ = f.RuleFor("gemini-5-test-" + strconv.Itoa(i))
	}
	if n := len(f.families.m); n > maxFamilies {
		t.Errorf("%d models kept, at most %d", n, maxFamilies)
	}
	bare := *f
	bare.families = nil
	if r := bare.RuleFor("gemini-5-other"); r == nil || r.Reasoning != rules.ReasoningLevel {
		t.Errorf("an unprovisioned fitter found %+v", r)
	}
	if bare.families != nil {
		t.Error("an unprovisioned fitter kept a rule")
	}
}
