package rules

import (
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/mapping"
)

func TestBuiltinCompiles(t *testing.T) {
	tbl := Builtin()
	if len(tbl.rows) < 30 {
		t.Fatalf("only %d model rows", len(tbl.rows))
	}
	for _, r := range tbl.rows {
		for _, s := range r.Sources {
			if !strings.HasPrefix(s, "https://") {
				t.Errorf("%v: source %q is not an address", r.Models, s)
			}
		}
	}
}

// TestRuleIDsDocumented holds the rule ids Fit reports to the provider
// rules of the data files, so that every adjustment names a documented
// rule with its sources.
func TestRuleIDsDocumented(t *testing.T) {
	src, err := os.ReadFile("fit.go")
	if err != nil {
		t.Fatal(err)
	}
	known := map[string]bool{}
	tbl := Builtin()
	for _, name := range tbl.names {
		for _, pr := range tbl.providers[name].Rules {
			known[pr.ID] = true
		}
	}
	// Literal ids, and ids built as provider + suffix.
	for _, m := range regexp.MustCompile(`"((?:anthropic|openai|gemini|google|gemini3)\.[a-z_.-]+)"`).FindAllStringSubmatch(string(src), -1) {
		if !known[m[1]] {
			t.Errorf("rule %s is reported by Fit but not documented in data/", m[1])
		}
	}
	for _, m := range regexp.MustCompile(`f\.opts\.Provider\+"(\.[a-z_.-]+)"`).FindAllStringSubmatch(string(src), -1) {
		found := false
		for id := range known {
			found = found || strings.HasSuffix(id, m[1])
		}
		if !found {
			t.Errorf("rule *%s is reported by Fit but no provider documents it", m[1])
		}
	}
}

func TestLookup(t *testing.T) {
	tbl := Builtin()
	tests := []struct {
		provider, model string
		wantFirst       string // the first glob of the matching row, "" for none
	}{
		{"anthropic", "claude-sonnet-4-5@20250929", "claude-sonnet-4-5*"},
		{"anthropic", "claude-sonnet-4-5-20250929", "claude-sonnet-4-5*"},
		{"anthropic", "us.anthropic.claude-sonnet-4-5-20250929-v1:0", "claude-sonnet-4-5*"},
		{"anthropic", "anthropic/claude-opus-4-7", "claude-opus-4-5*"[:0] + "claude-opus-4-7*"},
		{"anthropic", "claude-opus-5-5", "claude-opus-5-5*"},
		{"anthropic", "claude-opus-5", "claude-sonnet-5*"},
		{"anthropic", "claude-opus-4-8", "claude-opus-4-7*"},
		{"openai", "gpt-5.2-chat-latest", "gpt-5.2-chat*"},
		{"openai", "gpt-6-astra", "gpt-6-astra*"},
		{"openai", "gpt-6-luna", "gpt-6-luna*"},
		{"openai", "gpt-6-sol", "gpt-6*"},
		{"google", "gemini-3.5-flash-lite", "gemini-3.5-flash-lite*"},
		{"google", "gemini-3.5-flash", "gemini-3.1-flash-lite*"},
		{"anthropic", "claude-next", "claude-*"},
		{"openai", "gpt-5-codex", "gpt-5-codex*"},
		{"openai", "gpt-5.1-codex-max", "gpt-5.1-codex-max*"},
		{"openai", "gpt-5-chat-latest", "gpt-5-chat*"},
		{"openai", "gpt-5-2025-08-07", "gpt-5"},
		{"openai", "gpt-4o-mini", "gpt-4o*"},
		{"openai", "my-model", ""},
		{"google", "models/gemini-2.5-flash-lite", "gemini-2.5-flash-lite*"},
		{"google", "gemini-3.7-flash", "gemini-3.7-flash*"},
		{"google", "gemini-3.9-pro", "gemini-3*"},
		{"google", "gemini-4-carbon", "gemini-4-argon*"},
		{"openai", "gpt-5.5-codex", "*-codex*"},
		{"google", "claude-sonnet-4-5", ""},
		{"deepseek", "deepseek-v4-pro", "deepseek-v4*"},
		{"mistral", "mistral-large-latest", "magistral*"[:0] + "mistral-*"},
	}
	for _, tt := range tests {
		r := tbl.Lookup(tt.provider, tt.model)
		got := ""
		if r != nil {
			got = r.Models[0]
		}
		if got != tt.wantFirst {
			t.Errorf("Lookup(%s, %s) = %q, want %q", tt.provider, tt.model, got, tt.wantFirst)
		}
	}
}

func TestWith(t *testing.T) {
	base := Builtin()
	tbl, err := base.With([]Rule{
		{Provider: "anthropic", Models: []string{"claude-opus-9*"}, Like: "claude-opus-4-7", MaxOutput: 256000},
		{Provider: "openai", Models: []string{"gpt-4o"}, MaxOutput: 1000, Sources: []string{"https://example.com"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	r := tbl.Lookup("anthropic", "claude-opus-9-1")
	if r == nil || r.MaxOutput != 256000 || r.Reasoning != ReasoningAdaptive || !r.efforts.has(mapping.EffortXHigh) {
		t.Fatalf("like rule = %+v", r)
	}
	if r := tbl.Lookup("openai", "gpt-4o"); r == nil || r.MaxOutput != 1000 {
		t.Errorf("override = %+v", r)
	}
	if r := tbl.Lookup("openai", "gpt-4o-mini"); r == nil || r.MaxOutput != 16384 {
		t.Errorf("built-in row after an override = %+v", r)
	}
	if r := base.Lookup("anthropic", "claude-opus-9-1"); r.MaxOutput != 0 {
		t.Errorf("With changed the base table: %+v", r)
	}
	for _, bad := range []Rule{
		{Models: []string{"x"}},
		{Provider: "openai"},
		{Provider: "openai", Models: []string{"x"}, Like: "no-such-model"},
		{Provider: "openai", Models: []string{"x"}, Reasoning: "sometimes"},
		{Provider: "openai", Models: []string{"x"}, Reasoning: ReasoningEffort},
		{Provider: "openai", Models: []string{"x"}, Efforts: []string{"huge"}},
		{Provider: "openai", Models: []string{"x"}, Rejects: []string{"tools"}},
		{Provider: "openai", Models: []string{"x**"}},
		{Provider: "google", Models: []string{"x"}, BudgetMin: 10, BudgetMax: 5},
	} {
		if _, err := base.With([]Rule{bad}); err == nil {
			t.Errorf("With(%+v) accepted", bad)
		}
	}
}

func TestDialects(t *testing.T) {
	tbl := Builtin()
	for _, name := range []string{"openai", "deepseek", "mistral", "groq", "xai", "openrouter", "ollama", "vllm"} {
		if _, err := tbl.Dialect(name); err != nil {
			t.Errorf("dialect %s: %v", name, err)
		}
	}
	d, _ := tbl.Dialect("mistral")
	if d.ToolCallIDs != codec.IDAlnum9 || !d.MaxTokens || !d.NoDeveloperRole || d.ReasoningField != "none" {
		t.Errorf("mistral = %+v", d)
	}
	d, _ = tbl.Dialect("deepseek")
	if !d.ReasoningInToolLoop || !d.NoDeveloperRole || d.ReasoningField != "" {
		t.Errorf("deepseek = %+v", d)
	}
	if _, err := tbl.Dialect("anthropic"); err == nil {
		t.Error("anthropic is not a dialect")
	}
}

func TestEffortSetNearest(t *testing.T) {
	var s effortSet = 1<<mapping.EffortLow | 1<<mapping.EffortHigh
	for _, tt := range []struct{ in, want mapping.Effort }{
		{mapping.EffortMinimal, mapping.EffortLow},
		{mapping.EffortMedium, mapping.EffortLow},
		{mapping.EffortXHigh, mapping.EffortHigh},
		{mapping.EffortHigh, mapping.EffortHigh},
		{mapping.EffortNone, mapping.EffortLow},
	} {
		if got := s.nearest(tt.in); got != tt.want {
			t.Errorf("nearest(%v) = %v, want %v", tt.in, got, tt.want)
		}
	}
	s |= 1 << mapping.EffortNone
	for _, tt := range []struct{ in, want mapping.Effort }{
		{mapping.EffortMinimal, mapping.EffortLow},
		{mapping.EffortNone, mapping.EffortNone},
	} {
		if got := s.nearest(tt.in); got != tt.want {
			t.Errorf("nearest(%v) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func BenchmarkFitUnchanged(b *testing.B) {
	tbl := Builtin()
	req := codec.Request{MaxTokens: optI(32000), Reasoning: codec.Reasoning{Budget: optI(31999)}, Messages: toolLoop(true)}
	opts := Options{Protocol: codec.AnthropicMessages, Provider: "anthropic", Model: "claude-sonnet-4-5-20250929"}
	r := new(codec.Request) // a request is on the heap already
	b.ReportAllocs()
	for b.Loop() {
		*r = req
		adj, _ := Fit(r, tbl.Lookup(opts.Provider, opts.Model), &opts, nil)
		if len(adj) != 0 {
			b.Fatal(adj)
		}
	}
}

// TestProviderFor checks whose rules govern each upstream protocol: the
// provider its descriptor names, or a dialect of a family whose servers
// other vendors speak.
func TestProviderFor(t *testing.T) {
	for _, tt := range []struct {
		p             codec.Protocol
		dialect, want string
	}{
		{codec.OpenAIChat, "", "openai"},
		{codec.OpenAIChat, "openai", "openai"},
		{codec.OpenAIChat, "groq", "groq"},
		{codec.AzureOpenAI, "", "openai"},
		{codec.OpenAIResponses, "", "openai"},
		{codec.OpenAIResponses, "deepseek", "deepseek"},
		{codec.AnthropicMessages, "", "anthropic"},
		{codec.AnthropicMessages, "groq", "anthropic"},
		{codec.VertexAnthropic, "", "anthropic"},
		{codec.BedrockAnthropic, "", "anthropic"},
		{codec.Bedrock, "", "anthropic"},
		{codec.Gemini, "", "google"},
		{codec.Vertex, "", "google"},
		{"no-such-protocol", "groq", "groq"},
	} {
		if got := ProviderFor(tt.p, tt.dialect); got != tt.want {
			t.Errorf("ProviderFor(%s, %q) = %q, want %q", tt.p, tt.dialect, got, tt.want)
		}
	}
}

// TestRetiredAt checks a retired row against dates around its retirement,
// and a row without one.
func TestRetiredAt(t *testing.T) {
	tbl := Builtin()
	day := func(s string) time.Time {
		d, err := time.Parse(time.DateOnly, s)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	for _, tt := range []struct {
		provider, model, at string
		want                bool
	}{
		{"openai", "gpt-5-codex", "2026-07-22", false},
		{"openai", "gpt-5-codex", "2026-07-23", true},
		{"openai", "o4-mini", "2026-12-07", true},
		{"openai", "gpt-5", "2026-12-10", false},
		{"openai", "gpt-5", "2026-12-11", true},
		{"openai", "gpt-5-nano", "2027-01-01", false},
		{"groq", "llama-3.3-70b-versatile", "2026-08-16", true},
		{"openai", "gpt-6-luna", "2030-01-01", false},
	} {
		if got := tbl.Lookup(tt.provider, tt.model).RetiredAt(day(tt.at)); got != tt.want {
			t.Errorf("%s retired at %s = %v, want %v", tt.model, tt.at, got, tt.want)
		}
	}
}
