package policy

import (
	"strings"
	"testing"

	_ "github.com/llmbridge/llmbridge/codec/all"

	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"

	"github.com/llmbridge/llmbridge/codec/rules"
)

// TestParseModelRule names the setting of a model_rule block
// that cannot be read.
func TestParseModelRule(t *testing.T) {
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
		d := caddyfile.NewTestDispenser("model_rule " + tc.block)
		d.Next()
		if _, err := ParseModelRule(d); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("model_rule %q: %v, want %q", tc.block, err, tc.want)
		}
	}
	// Every setting read.
	d := caddyfile.NewTestDispenser(`model_rule acme-* {
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
}`)
	d.Next()
	r, err := ParseModelRule(d)
	if err != nil {
		t.Fatal(err)
	}
	if r.Provider != "openai" || r.DefaultEffort != "low" || !r.ResponsesOnly || !r.SignedCalls || !r.NoPrefill || r.CacheMinTokens != 1024 ||
		r.Price == nil || r.Price.CacheWrite != 1.25 || r.Retired != "2026-01-01" || r.EffortOn != "none" {
		t.Errorf("rule %+v", r)
	}
}

func TestLevels(t *testing.T) {
	for s, want := range map[string]Level{"": Safe, "safe": Safe, "strict": Strict, "lenient": Lenient} {
		l, err := ParseLevel(s)
		if err != nil || l != want || s != "" && l.String() != s {
			t.Errorf("ParseLevel(%q) = %v %v", s, l, err)
		}
	}
	if _, err := ParseLevel("loose"); err == nil {
		t.Error("an unknown level was read")
	}
}

func TestWildcardPath(t *testing.T) {
	for in, want := range map[string]string{"store": "store", "messages[3].content[12]": "messages[*].content[*]", "a[": "a["} {
		if got := WildcardPath(in); got != want {
			t.Errorf("WildcardPath(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestRowsAndLessonsFor(t *testing.T) {
	rows := Rows([]rules.Rule{{Models: []string{"a"}}, {Models: []string{"b"}, Provider: "groq"}}, "openai")
	if rows[0].Provider != "openai" || rows[1].Provider != "groq" {
		t.Errorf("rows %+v", rows)
	}
	if LessonsFor("policy-test") != LessonsFor("policy-test") || LessonsFor("policy-test") == LessonsFor("policy-other") {
		t.Error("one provider's lessons are not one store")
	}
}
