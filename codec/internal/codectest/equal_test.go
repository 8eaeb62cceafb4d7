package codectest

import (
	"testing"

	"github.com/llmbridge/llmbridge/codec"
)

func TestEqualDecoded(t *testing.T) {
	type inner struct{ n int }
	withLiteral := codec.Part{Type: codec.PartText}
	withLiteral.SetTextLiteral("a\nb", `a\nb`)
	for _, c := range []struct {
		a, b any
		want bool
	}{
		{[]codec.Part{withLiteral}, []codec.Part{{Type: codec.PartText, Text: "a\nb"}}, true},
		{[]codec.Part{withLiteral}, []codec.Part{{Type: codec.PartText, Text: "a b"}}, false},
		{inner{1}, inner{2}, false},
		{[]inner{{1}}, []inner{{1}}, true},
		{map[string]*inner{"x": {1}}, map[string]*inner{"x": {1}}, true},
		{[]string(nil), []string{}, false},
	} {
		if got := EqualDecoded(c.a, c.b); got != c.want {
			t.Errorf("equalDecoded(%+v, %+v) = %v", c.a, c.b, got)
		}
	}
}
