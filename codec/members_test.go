package codec

import (
	"reflect"
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

// TestMemberIterModes walks documents member by member twice, from the
// tape of the document's index and from its bytes (the walk of a document
// without an index), and checks that both give the same keys, values,
// escape flags and container ends, at every level.
func TestMemberIterModes(t *testing.T) {
	docs := []string{
		`{}`, `[]`, ` { "a" : 1 , "b" : [ true , null , -2.5e3 ] } `,
		`{"k\"ey":"v\\alue","n":{"x":{"y":[{"z":"\u00e9"}]}},"e":{},"f":[]}`,
		"{\"text\":\"line\\nbreak\",\"t\":\"plain\",\"arr\":[\"a\",\"b\\\"c\",{\"d\":[1,[2,[3]]]}]}",
		`[{"a":1},{"b":"\ud83d\ude00"},"s",0,false]`,
	}
	type member struct {
		key, value string
		escaped    bool
	}
	var walk func(t *testing.T, raw string, a *textArena) []member
	walk = func(t *testing.T, raw string, a *textArena) []member {
		var m memberIter
		if !m.init(raw, a) {
			return nil
		}
		var got []member
		for {
			k, v, ok := m.next()
			if !ok {
				break
			}
			got = append(got, member{k, v, m.escaped})
			got = append(got, walk(t, v, a)...)
		}
		// The container's end, as an offset into raw.
		got = append(got, member{key: "end", value: raw[:m.end()]})
		return got
	}
	for _, doc := range docs {
		x := indexDocument(doc)
		if x == nil {
			t.Fatalf("%s: not valid", doc)
		}
		indexed := textArena{index: x}
		plain := textArena{}
		a, b := walk(t, doc, &indexed), walk(t, doc, &plain)
		if !reflect.DeepEqual(a, b) {
			t.Errorf("%s:\n tape  %+v\n bytes %+v", doc, a, b)
		}
		// geminiWalk finds the same values either way.
		offsets := func(a *textArena) []int {
			var offs []int
			geminiWalk(doc, skipSpace(doc, 0), a, func(_ gjson.Result, i int) int {
				offs = append(offs, i)
				return i
			})
			return offs
		}
		if o1, o2 := offsets(&indexed), offsets(&plain); !reflect.DeepEqual(o1, o2) {
			t.Errorf("%s: geminiWalk offsets %v with the tape, %v without", doc, o1, o2)
		}
		// valueAt reads the same value either way.
		r1, e1 := indexed.valueAt(doc, skipSpace(doc, 0))
		r2, e2 := plain.valueAt(doc, skipSpace(doc, 0))
		if r1.Raw != r2.Raw || e1 != e2 {
			t.Errorf("%s: valueAt %q %d with the tape, %q %d without", doc, r1.Raw, e1, r2.Raw, e2)
		}
		releaseIndex(x)
	}
}
