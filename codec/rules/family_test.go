package rules

import (
	"strings"
	"testing"
)

func TestParseModelName(t *testing.T) {
	for _, tt := range []struct {
		name, family, version, variant string
		ok                             bool
	}{
		{"gemini-3.8-flash", "gemini", "3.8", "flash", true},
		{"gemini-5-test", "gemini", "5", "test", true},
		{"claude-opus-4-5-20251101", "claude-opus", "4.5", "20251101", true},
		{"claude-opus-6", "claude-opus", "6", "", true},
		{"claude-3-5-sonnet-20241022", "claude", "3.5", "sonnet", true},
		{"gpt-6.5", "gpt", "6.5", "", true},
		{"gpt-5.3-codex", "gpt", "5.3", "codex", true},
		{"gpt-4o", "gpt", "4", "o", true},
		{"grok-4.20-0309-reasoning", "grok", "4.20", "0309", true},
		{"qwen3.6-27b", "qwen", "3.6", "27b", true},
		{"o4-mini", "o", "4", "mini", true},
		{"deepseek-v4-pro", "deepseek-v", "4", "pro", true},
		{"claude-", "", "", "", false},
		{"mistral-medium-latest", "", "", "", false},
		{"my-model", "", "", "", false},
	} {
		n, ok := parseModelName(tt.name)
		if ok != tt.ok || ok && (n.family != tt.family || n.version.String() != tt.version || n.variant != tt.variant) {
			t.Errorf("parseModelName(%q) = %+v (%s), %v; want %s %s %s, %v", tt.name, n, n.version, ok, tt.family, tt.version, tt.variant, tt.ok)
		}
	}
}

func TestVersionNewer(t *testing.T) {
	v := func(s string) version {
		n, _ := parseModelName("x" + s)
		return n.version
	}
	for _, tt := range []struct {
		a, b string
		want bool
	}{
		{"5", "4.7", true}, {"4.7", "4.20", true}, {"4.20", "4.7", false}, {"4.10", "4.1", false},
		{"6.5", "6.1", true}, {"6", "6", false}, {"3.8", "4", false},
	} {
		if got := v(tt.a).newer(v(tt.b)); got != tt.want {
			t.Errorf("%s newer than %s = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}

// TestGeneralize checks which row a model newer than its family's rows
// takes, and that other models take none.
func TestGeneralize(t *testing.T) {
	tbl := Builtin()
	for _, tt := range []struct {
		provider, model string
		// from is the first glob of the row taken, "" for none.
		from string
	}{
		{"google", "gemini-5-test", "gemini-4-argon*"},
		{"google", "gemini-5-neon", "gemini-4-neon*"},
		{"google", "gemini-4-carbon", ""},
		{"google", "gemini-3.9-pro", ""},
		{"anthropic", "claude-opus-6", "claude-opus-5-5*"},
		{"anthropic", "claude-sonnet-6-1-20270101", "claude-opus-5-5*"},
		{"anthropic", "claude-haiku-6", "claude-haiku-5-5*"},
		{"anthropic", "claude-opus-5-5", ""},
		{"anthropic", "claude-nova-6", ""},
		{"openai", "gpt-6.5", "gpt-6*"},
		{"openai", "gpt-7-alpha", "gpt-6*"},
		{"openai", "o5", "o4-mini*"},
		{"openai", "gpt-6.1-sol", ""},
		{"xai", "grok-5", "grok-4.6*"},
		{"xai", "grok-4.7-fast", ""},
		{"deepseek", "deepseek-v5", "deepseek-v4*"},
		{"groq", "qwen/qwen3.7-32b", "qwen3.6*"},
		{"openai", "made-up-model-7", ""},
		{"openai", "mymodel", ""},
	} {
		rule, from := tbl.Generalize(tt.provider, tt.model)
		got := ""
		if from != nil {
			got = from.Models[0]
		}
		if got != tt.from {
			t.Errorf("Generalize(%s, %s) took %q, want %q", tt.provider, tt.model, got, tt.from)
			continue
		}
		if rule == nil {
			continue
		}
		if !rule.globs[0].match(tt.model) || rule.Retired != "" || !strings.Contains(rule.Sources[0], "newest of the") {
			t.Errorf("Generalize(%s, %s) = %+v", tt.provider, tt.model, rule)
		}
	}
}
