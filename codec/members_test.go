package codec

import (
	"testing"

	"github.com/tidwall/gjson"
)

// TestArenaResult checks the arena's scalar results against gjson.Parse,
// which they stand in for.
func TestArenaResult(t *testing.T) {
	var a textArena
	for _, raw := range []string{"0", "7", "123", "-1", "1.5", "1e3", "00", "null", "true", "false",
		"123456789012345", "1234567890123456", `"x"`, `"a\nb"`, `{"a":1}`, `[1]`} {
		got, want := a.result(raw), gjson.Parse(raw)
		if got.Type != want.Type || got.Raw != want.Raw || got.Num != want.Num || got.Str != want.Str {
			t.Errorf("result(%s) = %+v, want %+v", raw, got, want)
		}
	}
}
