package codec

import (
	"encoding/json"
	"testing"

	"github.com/tidwall/gjson"
)

func TestEachMemberMatchesForEach(t *testing.T) {
	docs := []string{
		`{"a":"x\ny","b":1.5,"c":[1,{"d":"e\"}"}],"e\u00e9":true,"f":null,"g":false,"h":{"i":"]"}}`,
		` [ "a\\b" , 2 , "\u00e9\ud83d\ude00" , "\ud800" , {} , [] , -1e3 ] `,
		`{}`, `[]`, `{ "k" : "v" }`, `"scalar\n"`, `42`,
		`{"s":"\/\b\f\r\t"}`,
	}
	for _, doc := range docs {
		if !gjson.Valid(doc) {
			t.Fatalf("invalid test doc %s", doc)
		}
		v := gjson.Parse(doc)
		type kv struct{ k, v gjson.Result }
		var want, got []kv
		v.ForEach(func(k, val gjson.Result) bool { want = append(want, kv{k, val}); return true })
		a := newTextArena(len(doc))
		eachMember(v, &a, func(k, val gjson.Result) bool { got = append(got, kv{k, val}); return true })
		if len(got) != len(want) {
			t.Fatalf("%s: %d members, want %d", doc, len(got), len(want))
		}
		for i := range want {
			g, w := got[i], want[i]
			if g.k.Str != w.k.Str || g.k.Num != w.k.Num || g.v.Type != w.v.Type || g.v.Str != w.v.Str || g.v.Num != w.v.Num || g.v.Raw != w.v.Raw {
				t.Errorf("%s member %d: got %q=%+v, want %q=%+v", doc, i, g.k.Str, g.v, w.k.Str, w.v)
			}
		}
	}
}

func TestEachMemberStopsEarly(t *testing.T) {
	a := newTextArena(0)
	n := 0
	eachMember(gjson.Parse(`[1,2,3]`), &a, func(_, _ gjson.Result) bool { n++; return n < 2 })
	if n != 2 {
		t.Errorf("visited %d, want 2", n)
	}
}

func TestAppendUnescapedAgreesWithEncodingJSON(t *testing.T) {
	for _, lit := range []string{`"plain"`, `"a\"b\\c\/d\be\ff\ng\rh\ti"`, `"\u0041\u00e9\u4e2d"`, `"\ud83d\ude00"`,
		`"\ud800x"`, `"\udc00"`, `"\ud800\u0041"`} {
		var want string
		if err := json.Unmarshal([]byte(lit), &want); err != nil {
			t.Fatal(err)
		}
		got := string(appendUnescaped(nil, lit[1:len(lit)-1]))
		if got != want {
			t.Errorf("%s: got %q, want %q", lit, got, want)
		}
	}
	// Truncated escapes cannot come from a validated document but must not panic.
	_ = appendUnescaped(nil, `\`)
	_ = appendUnescaped(nil, `\u12`)
}

func TestTextArenaKeepsEarlierStrings(t *testing.T) {
	a := newTextArena(4)
	s1 := a.unescape(`a\nb`)
	s2 := a.unescape(`c\td longer than the arena`)
	if s1 != "a\nb" || s2 != "c\td longer than the arena" {
		t.Errorf("%q %q", s1, s2)
	}
}
