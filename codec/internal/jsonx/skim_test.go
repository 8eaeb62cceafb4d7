package jsonx

import (
	"encoding/json"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// TestSkimMembers holds SkimMembers to gjson's ForEach on valid objects
// (every member, its key's literal and raw value, the object read whole),
// including long strings dense with escapes at every offset of the
// 64-byte blocks; and to no panic on cuts and byte flips of them.
func TestSkimMembers(t *testing.T) {
	bodies := []string{
		`{}`, ` { } `, `{"a":1}`, `{"a":"x","b":[1,{"c":"]}"}],"d":{"e":null},"f":true,"g":-1.5e3}`,
		`{"k\"ey":"v\\","e\u0073c":"\ud83d\ude00"}`, `{"a":[],"b":{},"c":""}`,
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for range 200 {
		var text []byte
		for range rng.IntN(300) {
			text = append(text, `ab"\\/`[rng.IntN(5)])
		}
		lit, _ := json.Marshal(string(text))
		bodies = append(bodies, `{"x":[{"t":`+string(lit)+`},`+string(lit)+`],"y":`+string(lit)+`,"z":0}`)
	}
	for _, body := range bodies {
		var got, want []string
		object, whole := SkimMembers(body, func(key, raw string) bool {
			got = append(got, `"`+key+`"`, raw)
			return true
		})
		gjson.Parse(body).ForEach(func(k, v gjson.Result) bool {
			want = append(want, k.Raw, v.Raw)
			return true
		})
		if !object || !whole || !slices.Equal(got, want) {
			t.Fatalf("%s: object %v, whole %v, members %q, gjson %q", body, object, whole, got, want)
		}
		// Stopped by yield, the walk did not read the object whole.
		if _, whole := SkimMembers(body, func(string, string) bool { return false }); whole && len(want) > 0 {
			t.Fatalf("%s: whole after yield stopped", body)
		}
		for range 50 {
			b := []byte(body)
			if rng.IntN(2) == 0 {
				b = b[:rng.IntN(len(b))]
			} else {
				b[rng.IntN(len(b))] = `{}[]",:\ a1`[rng.IntN(11)]
			}
			// No panic: what lies inside the values is the decoder's
			// to judge.
			SkimMembers(string(b), func(string, string) bool { return true })
		}
	}
	for _, s := range []string{``, `[]`, `"s"`, ` 1`} {
		if object, _ := SkimMembers(s, func(string, string) bool { return true }); object {
			t.Errorf("%q read as an object", s)
		}
	}
	for _, s := range []string{`{`, `{"a"`, `{"a":`, `{"a":1`, `{"a":1,`, `{"a":1}x`, `{"a" 1}`, `{"a":1 "b":2}`, `{"a":"x`, `{"a":[1,`, `{a:1}`, `{"a":,}`} {
		if object, whole := SkimMembers(s, func(string, string) bool { return true }); !object || whole {
			t.Errorf("%q: object %v, whole %v; want an object not read whole", s, object, whole)
		}
	}
}

// TestValueShallowCopyable checks what a walk says of a string literal
// without unescaping it: Shallow keeps its escapes, Copyable says whether
// it holds escapes none of which is of a surrogate, through an index; a
// walk of bytes outside an index takes every escaped literal to hold one.
func TestValueShallowCopyable(t *testing.T) {
	doc := `{"plain":"abc","esc":"a\"b\nc","sur":"x\ud83d\ude00","lone":"\uDC00","num":12,"obj":{"a":"\t"}}`
	want := map[string]struct {
		str      string
		copyable bool
	}{
		"plain": {"abc", false}, "esc": {`a\"b\nc`, true}, "sur": {`x\ud83d\ude00`, false},
		"lone": {`\uDC00`, false}, "num": {"", false}, "obj": {"", false},
	}
	x := IndexDocument(doc)
	if x == nil {
		t.Fatal("invalid")
	}
	defer x.Release()
	a := IndexedArena(x)
	for _, arena := range []*Arena{&a, nil} {
		for key, v := range Members(doc, arena) {
			w := want[key]
			s := v.Shallow()
			switch {
			case v.Raw[0] == '"' && (s.Type != gjson.String || s.Str != w.str || s.Raw != v.Raw):
				t.Errorf("%s: Shallow %+v, want the literal %q", key, s, w.str)
			case v.Raw[0] != '"' && (s.Type != v.Result().Type || s.Raw != v.Raw):
				t.Errorf("%s: Shallow %+v, want %+v", key, s, v.Result())
			}
			if got := v.Copyable(); got != (w.copyable && arena != nil) {
				t.Errorf("%s (indexed %v): Copyable %v", key, arena != nil, got)
			}
		}
	}
}

// TestIndexLookupsPastSkipped checks the index's lookups of a container a
// walk skipped past: the next element of an array, and the next member's
// value of an object, found without a search.
func TestIndexLookupsPastSkipped(t *testing.T) {
	for _, c := range []struct{ doc, first, next string }{
		{`[{"x":[1,2]},{"y":2}]`, `{"x":[1,2]}`, `{"y":2}`},
		{`{"a":{"x":[1,2]},"b":{"y":"z"}}`, `{"x":[1,2]}`, `{"y":"z"}`},
	} {
		x := IndexDocument(c.doc)
		a := IndexedArena(x)
		for _, v := range Members(c.doc, &a) {
			if v.Raw != c.first {
				t.Fatalf("%s: first member %s", c.doc, v.Raw)
			}
			break // the cursor stays on the skipped container
		}
		i := strings.Index(c.doc, c.next)
		var got []string
		for k, v := range Members(c.doc[i:i+len(c.next)], &a) {
			got = append(got, k, v.Raw)
		}
		var want []string
		gjson.Parse(c.next).ForEach(func(k, v gjson.Result) bool {
			want = append(want, k.Str, v.Raw)
			return true
		})
		if !slices.Equal(got, want) {
			t.Errorf("%s: members of %s: %q, want %q", c.doc, c.next, got, want)
		}
		if end := a.ValueEnd(c.doc, i); end != i+len(c.next) {
			t.Errorf("%s: ValueEnd %d, want %d", c.doc, end, i+len(c.next))
		}
		x.Release()
	}
}
