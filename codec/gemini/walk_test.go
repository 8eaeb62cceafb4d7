package gemini

import (
	"reflect"
	"testing"

	"github.com/llmbridge/llmbridge/codec/internal/jsonx"
	"github.com/tidwall/gjson"
)

// TestGeminiWalkModes checks that walk finds the same values of a
// document from the tape of the document's index as from its bytes (the
// walk of a document without an index).
func TestGeminiWalkModes(t *testing.T) {
	docs := []string{
		`{}`, `[]`, ` { "a" : 1 , "b" : [ true , null , -2.5e3 ] } `,
		`{"k\"ey":"v\\alue","n":{"x":{"y":[{"z":"\u00e9"}]}},"e":{},"f":[]}`,
		"{\"text\":\"line\\nbreak\",\"t\":\"plain\",\"arr\":[\"a\",\"b\\\"c\",{\"d\":[1,[2,[3]]]}]}",
		`[{"a":1},{"b":"\ud83d\ude00"},"s",0,false]`,
	}
	for _, doc := range docs {
		x := jsonx.IndexDocument(doc)
		if x == nil {
			t.Fatalf("%s: not valid", doc)
		}
		indexed := jsonx.IndexedArena(x)
		plain := jsonx.Arena{}
		offsets := func(a *jsonx.Arena) []int {
			var offs []int
			walk(doc, jsonx.SkipSpace(doc, 0), a, func(_ gjson.Result, i int) int {
				offs = append(offs, i)
				return i
			})
			return offs
		}
		if o1, o2 := offsets(&indexed), offsets(&plain); !reflect.DeepEqual(o1, o2) {
			t.Errorf("%s: walk offsets %v with the tape, %v without", doc, o1, o2)
		}
		x.Release()
	}
}
