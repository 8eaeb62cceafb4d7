package policy

import (
	"slices"
	"testing"
)

func TestCompileDropPath(t *testing.T) {
	for _, ok := range []string{"metadata", "tools[*].cache_control", "messages[*].content[*].citations",
		"contents[0].parts[*].thoughtSignature", "generationConfig.seed", "a-b_c[12][*].d"} {
		if _, err := CompileDrop(ok); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
	for _, bad := range []string{"", ".metadata", "metadata.", "tools[]", "tools[x]", "tools[-1]", "tools[*", "a..b",
		"[0]", "a.b c", "a.*", "a[*]b", "a.$ref", "a\\.b"} {
		if _, err := CompileDrop(bad); err == nil {
			t.Errorf("%q: accepted", bad)
		}
	}
}

func TestDropPathMatches(t *testing.T) {
	tests := []struct {
		pattern, path string
		want          bool
	}{
		{"metadata", "metadata", true},
		{"metadata", "metadata.user_id", false},
		{"metadata", "metadatas", false},
		{"tools[*].cache_control", "tools[3].cache_control", true},
		{"tools[*].cache_control", "tools[3]", false},
		{"tools[1].cache_control", "tools[3].cache_control", false},
		{"tools[3].cache_control", "tools[3].cache_control", true},
		{"messages[*].content[*].cache_control", "messages[0].content[12].cache_control", true},
		{"messages[*].content[*]", "messages[0].content[1] (reasoning)", false},
		{"seed", "seed", true},
	}
	for _, tt := range tests {
		p, err := CompileDrop(tt.pattern)
		if err != nil {
			t.Fatal(err)
		}
		if got := p.Matches(tt.path); got != tt.want {
			t.Errorf("%s matches %s = %v, want %v", tt.pattern, tt.path, got, tt.want)
		}
	}
}

func TestApplyDrops(t *testing.T) {
	tests := []struct {
		name, body string
		paths      []string
		want       string
		dropped    []string
	}{
		{name: "top-level", body: `{"a":1,"metadata":{"k":"v"},"b":2}`, paths: []string{"metadata"},
			want: `{"a":1,"b":2}`, dropped: []string{"metadata"}},
		{name: "nothing matches", body: `{"a":1}`, paths: []string{"metadata", "tools[*].x", "a.b", "a[*]"},
			want: `{"a":1}`},
		{name: "wildcard in arrays", body: `{"messages":[{"content":[{"t":1,"cache_control":{}},{"t":2}]},{"content":"s"},{"content":[{"cache_control":1}]}]}`,
			paths:   []string{"messages[*].content[*].cache_control"},
			want:    `{"messages":[{"content":[{"t":1},{"t":2}]},{"content":"s"},{"content":[{}]}]}`,
			dropped: []string{"messages[0].content[0].cache_control", "messages[2].content[0].cache_control"}},
		{name: "array elements, last first", body: `{"tools":[1,2,3]}`, paths: []string{"tools[*]"},
			want: `{"tools":[]}`, dropped: []string{"tools[0]", "tools[1]", "tools[2]"}},
		{name: "one index", body: `{"tools":[{"x":1},{"x":2}]}`, paths: []string{"tools[1].x"},
			want: `{"tools":[{"x":1},{}]}`, dropped: []string{"tools[1].x"}},
		{name: "repeated key", body: `{"metadata":1,"a":2,"metadata":3}`, paths: []string{"metadata"},
			want: `{"a":2}`, dropped: []string{"metadata", "metadata"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var ps []Drop
			for _, p := range tt.paths {
				dp, err := CompileDrop(p)
				if err != nil {
					t.Fatal(err)
				}
				ps = append(ps, dp)
			}
			got, dropped, err := ApplyDrops([]byte(tt.body), ps)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want || !slices.Equal(dropped, tt.dropped) {
				t.Errorf("got %s %q, want %s %q", got, dropped, tt.want, tt.dropped)
			}
		})
	}
}

func TestSjsonPath(t *testing.T) {
	if got := SJSONPath("messages[3].content[1].a*b"); got != `messages.3.content.1.a\*b` {
		t.Errorf("sjsonPath = %s", got)
	}
}
