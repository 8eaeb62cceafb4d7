package jsonx

import (
	"strings"
	"testing"
)

// TestAppendUnescaped holds AppendUnescaped to Arena.Unescape, appending
// after what dst holds, for literals short and long (the blocks' path).
func TestAppendUnescaped(t *testing.T) {
	for _, s := range []string{"", "plain", `a\"b\\c\/d\n`, `\u00e9 \ud83d\ude00 \ud800 lone`,
		strings.Repeat(`{\"k\":\"v\\n\"},`, 20)} {
		want := "prefix" + (*Arena)(nil).Unescape(s)
		if got := string(AppendUnescaped([]byte("prefix"), s)); got != want {
			t.Errorf("AppendUnescaped(%q) = %q, want %q", s, got, want)
		}
	}
}

// TestCheckUnescaped checks that CheckUnescaped hands check the unescaped
// text and returns its answer, also for a literal larger than the pool
// keeps, and that a buffer given back does not leak a longer text into
// the next check.
func TestCheckUnescaped(t *testing.T) {
	long := strings.Repeat(`\"x\"`, maxPooledScratch)
	for _, s := range []string{`{\"a\":\"b\\nc\"}`, long, `\"`, `{}`} {
		want := (*Arena)(nil).Unescape(s)
		var got string
		ok := CheckUnescaped(s, func(text string) bool {
			got = strings.Clone(text)
			return text == want
		})
		if !ok || got != want {
			t.Errorf("CheckUnescaped(%.40q) saw %.40q, want %.40q", s, got, want)
		}
	}
	if CheckUnescaped(`a`, func(string) bool { return false }) {
		t.Error("CheckUnescaped returned true for a check that said false")
	}
}
