package glob

import (
	"strings"
	"testing"
)

func TestMatch(t *testing.T) {
	for _, tc := range []struct {
		pattern, s string
		want       bool
		caps       []string
	}{
		{"gpt-4o", "gpt-4o", true, nil},
		{"gpt-4o", "gpt-4o-mini", false, nil},
		{"gpt-*", "gpt-4o", true, []string{"4o"}},
		{"gpt-*", "gpt-", true, []string{""}},
		{"gpt-*", "claude", false, nil},
		{"gpt-*-*", "gpt-4o-mini-2024", true, []string{"4o", "mini-2024"}},
		{"*-mini", "gpt-4o-mini", true, []string{"gpt-4o"}},
		{"a*b*c", "axbyc", true, []string{"x", "y"}},
		{"a*b*c", "axyc", false, nil},
		{"ab*ba", "aba", false, nil},
		{"*", "", true, []string{""}},
	} {
		g, err := Compile(tc.pattern)
		if err != nil {
			t.Fatalf("Compile(%q): %v", tc.pattern, err)
		}
		var caps [MaxCaptures]string
		if got := g.Match(tc.s, &caps); got != tc.want {
			t.Errorf("%q matches %q: %v, want %v", tc.pattern, tc.s, got, tc.want)
			continue
		}
		if g.Match(tc.s, nil) != tc.want {
			t.Errorf("%q matches %q without captures: %v", tc.pattern, tc.s, !tc.want)
		}
		for i, c := range tc.caps {
			if caps[i] != c {
				t.Errorf("%q on %q: capture %d = %q, want %q", tc.pattern, tc.s, i+1, caps[i], c)
			}
		}
		if tc.want && g.Wildcards() != strings.Count(tc.pattern, "*") {
			t.Errorf("%q: %d wildcards", tc.pattern, g.Wildcards())
		}
	}
}

func TestCompileErrors(t *testing.T) {
	for pattern, want := range map[string]string{
		"":                     "empty model pattern",
		"gpt-**":               `model pattern "gpt-**" has two adjacent wildcards; use one '*'`,
		"*a*b*c*d*e*f*g*h*i*j": `model pattern "*a*b*c*d*e*f*g*h*i*j" has 10 wildcards; at most 9 are allowed`,
	} {
		if _, err := Compile(pattern); err == nil || err.Error() != want {
			t.Errorf("Compile(%q) = %v, want %q", pattern, err, want)
		}
	}
	for _, tc := range []struct {
		target    string
		wildcards int
		want      string
	}{
		{"", 1, "empty upstream model"},
		{"m-$2", 1, `upstream model "m-$2" refers to $2, but the pattern has 1 wildcard(s)`},
	} {
		if _, err := CompileTemplate(tc.target, tc.wildcards); err == nil || err.Error() != tc.want {
			t.Errorf("CompileTemplate(%q) = %v, want %q", tc.target, err, tc.want)
		}
	}
}

func TestExpand(t *testing.T) {
	caps := [MaxCaptures]string{"4o", "mini"}
	for target, want := range map[string]string{
		"gpt-4o":          "gpt-4o",
		"openai/gpt-$1":   "openai/gpt-4o",
		"$2-$1":           "mini-4o",
		"$1":              "4o",
		"cost$":           "cost$",
		"a$0b$1c":         "a$0b4oc",
		"us.$1.v1:0 ($2)": "us.4o.v1:0 (mini)",
	} {
		tpl, err := CompileTemplate(target, 2)
		if err != nil {
			t.Fatalf("CompileTemplate(%q): %v", target, err)
		}
		if got := tpl.Expand(&caps); got != want {
			t.Errorf("%q expands to %q, want %q", target, got, want)
		}
	}
}

func BenchmarkMatch(b *testing.B) {
	g, _ := Compile("claude-*-*")
	var caps [MaxCaptures]string
	b.ReportAllocs()
	for b.Loop() {
		g.Match("claude-sonnet-4-5-20250929", &caps)
	}
}
