package caddymodule

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

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
		policy  unsupportedPolicy
		req     func() *codec.Request
		wantErr string
		wantAdj int
	}{
		{"safe adjusts", policySafe, adjustOnly, "", 1},
		{"safe refuses a change", policySafe, change, "rule openai.stop.unsupported); this would change what the model is asked; on_unsupported lenient sends stop removed", 2},
		{"lenient changes", policyLenient, change, "", 2},
		{"strict refuses an adjustment", policyStrict, adjustOnly, "on_unsupported strict refuses every adjustment; safe would send reasoning_effort=high (xhigh not accepted by o3)", 1},
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

// TestModelRuleCaddyfileErrors names the setting of a model_rule block
// that cannot be read.
func TestModelRuleCaddyfileErrors(t *testing.T) {
	for _, tc := range []struct{ block, want string }{
		{"", "model_rule needs at least one model glob"},
		{"m {\n like a b\n}", "model_rule like takes one argument"},
		{"m {\n max_output -1\n}", `model_rule max_output: want a positive integer, got "-1"`},
		{"m {\n budget 1\n}", "model_rule budget takes two arguments: <min> <max>"},
		{"m {\n budget a b\n}", "model_rule budget: want two integers, got a b"},
		{"m {\n always_thinks yes\n}", "model_rule always_thinks takes no argument"},
		{"m {\n vertex_locations\n}", "model_rule vertex_locations needs at least one location"},
		{"m {\n cache_min_tokens 0\n}", `model_rule cache_min_tokens: want a positive integer, got "0"`},
		{"m {\n cache_5m_only_on nonesuch\n}", "model_rule cache_5m_only_on: "},
		{"m {\n price input\n}", "model_rule price takes pairs"},
		{"m {\n price input 1 output x\n}", `model_rule price output: want US dollars per million tokens, got "x"`},
		{"m {\n price input 1 tip 2\n}", `model_rule price: unknown figure "tip"`},
		{"m {\n price input 1 output 2\n}", "model_rule price needs input, output, source and date"},
		{"m {\n colour blue\n}", `unknown model_rule setting "colour"`},
	} {
		d := caddyfile.NewTestDispenser("llmbridge {\n upstream openai-chat\n model_rule " + tc.block + "\n}")
		var h Handler
		if err := h.UnmarshalCaddyfile(d); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("model_rule %q: %v, want %q", tc.block, err, tc.want)
		}
	}
	// Every setting read.
	d := caddyfile.NewTestDispenser(`llmbridge {
	upstream openai-chat
	model_rule acme-* {
		provider openai
		reasoning effort
		efforts none low
		default_effort low
		rejects stop
		chat_tools responses
		thinking_off omit
		effort_on none
		retired 2026-01-01
		responses_only
		signed_calls
		no_prefill
		sampling free
		cache_min_tokens 1024
		cache_5m_only_on anthropic-messages
		verified 2026-12-07
		source https://example.com/models
		price input 1 output 2 cache_read 0.1 cache_write 1.25 source https://example.com/pricing date 2026-12-07
	}
}`)
	var h Handler
	if err := h.UnmarshalCaddyfile(d); err != nil {
		t.Fatal(err)
	}
	r := h.ModelRules[0]
	if r.Provider != "openai" || r.DefaultEffort != "low" || !r.ResponsesOnly || !r.SignedCalls || !r.NoPrefill || r.CacheMinTokens != 1024 ||
		r.Price == nil || r.Price.CacheWrite != 1.25 || r.Retired != "2026-01-01" || r.EffortOn != "none" {
		t.Errorf("rule %+v", r)
	}
}
