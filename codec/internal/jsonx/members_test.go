package jsonx

import (
	"encoding/json"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// TestArenaResult checks the arena's scalar results against gjson.Parse,
// which they stand in for.
func TestArenaResult(t *testing.T) {
	var a Arena
	for _, raw := range []string{"0", "7", "123", "-1", "1.5", "1e3", "00", "null", "true", "false",
		"123456789012345", "1234567890123456", `"x"`, `"a\nb"`, `{"a":1}`, `[1]`} {
		got, want := a.Result(raw), gjson.Parse(raw)
		if got.Type != want.Type || got.Raw != want.Raw || got.Num != want.Num || got.Str != want.Str {
			t.Errorf("Result(%s) = %+v, want %+v", raw, got, want)
		}
	}
}

// memberDocs are documents for the walks: every kind of value, escaped
// keys and values, nesting, and whitespace everywhere it may be.
var memberDocs = []string{
	`{}`, `[]`, ` { "a" : 1 , "b" : [ true , null , -2.5e3 ] } `,
	`{"k\"ey":"v\\alue","n":{"x":{"y":[{"z":"\u00e9"}]}},"e":{},"f":[]}`,
	"{\"text\":\"line\\nbreak\",\"t\":\"plain\",\"arr\":[\"a\",\"b\\\"c\",{\"d\":[1,[2,[3]]]}]}",
	`[{"a":1},{"b":"\ud83d\ude00"},"s",0,false]`,
	"{\n\t\"long\": \"" + strings.Repeat(`x\"y`, 40) + "\",\r\n\t\"k\\u0041\": [ 1 , 2 ]\n}",
}

// TestMembersModes walks documents member by member twice, from the tape
// of the document's index and from its bytes (the walk of a document
// without an index, or with a nil arena), and checks that both give the
// same keys, values and escape flags, at every level.
func TestMembersModes(t *testing.T) {
	type member struct {
		key, value string
		escaped    bool
	}
	var walk func(t *testing.T, raw string, a *Arena) []member
	walk = func(t *testing.T, raw string, a *Arena) []member {
		var got []member
		if i := SkipSpace(raw, 0); i == len(raw) || (raw[i] != '{' && raw[i] != '[') {
			return nil
		}
		for k, v := range Members(raw, a) {
			got = append(got, member{k, v.Raw, v.Escaped()})
			got = append(got, walk(t, v.Raw, a)...)
		}
		return got
	}
	for _, doc := range memberDocs {
		x := IndexDocument(doc)
		if x == nil {
			t.Fatalf("%s: not valid", doc)
		}
		indexed := IndexedArena(x)
		plain := Arena{}
		a, b, c := walk(t, doc, &indexed), walk(t, doc, &plain), walk(t, doc, nil)
		if !reflect.DeepEqual(a, b) || !reflect.DeepEqual(a, c) {
			t.Errorf("%s:\n tape  %+v\n bytes %+v\n nil   %+v", doc, a, b, c)
		}
		// ValueAt and ValueEnd read the same value either way.
		r1, e1 := indexed.ValueAt(doc, SkipSpace(doc, 0))
		r2, e2 := plain.ValueAt(doc, SkipSpace(doc, 0))
		if r1.Raw != r2.Raw || e1 != e2 {
			t.Errorf("%s: ValueAt %q %d with the tape, %q %d without", doc, r1.Raw, e1, r2.Raw, e2)
		}
		if got := indexed.ValueEnd(doc, SkipSpace(doc, 0)); got != e1 {
			t.Errorf("%s: ValueEnd %d with the tape, ValueAt %d", doc, got, e1)
		}
		if got := plain.ValueEnd(doc, SkipSpace(doc, 0)); got != e2 {
			t.Errorf("%s: ValueEnd %d without the tape, ValueAt %d", doc, got, e2)
		}
		var nilArena *Arena
		if r3, e3 := nilArena.ValueAt(doc, SkipSpace(doc, 0)); r3.Raw != r2.Raw || e3 != e2 || nilArena.ValueEnd(doc, SkipSpace(doc, 0)) != e2 {
			t.Errorf("%s: ValueAt %q %d with a nil arena, %q %d without the tape", doc, r3.Raw, e3, r2.Raw, e2)
		}
		x.Release()
	}
}

// TestMembers holds Members, with and without an index and with a nil
// arena, to gjson.Result.ForEach, which it stands in for, at every level of
// every document (keys, values and their results), and checks
// CountMembers along the way.
func TestMembers(t *testing.T) {
	type kv struct {
		key, value, vraw string
		num              float64
		valueType        gjson.Type
	}
	for _, doc := range memberDocs {
		x := IndexDocument(doc)
		for _, a := range []*Arena{new(IndexedArena(x)), {}, nil} {
			var check func(v gjson.Result)
			check = func(v gjson.Result) {
				var got, want []kv
				for k, m := range Members(v.Raw, a) {
					r := m.Result()
					if r.Raw != m.Raw {
						t.Errorf("%s: Result().Raw %q, Raw %q", v.Raw, r.Raw, m.Raw)
					}
					got = append(got, kv{k, r.Str, r.Raw, r.Num, r.Type})
				}
				v.ForEach(func(k, v gjson.Result) bool {
					want = append(want, kv{k.Str, v.Str, v.Raw, v.Num, v.Type})
					return true
				})
				if !reflect.DeepEqual(got, want) {
					t.Errorf("Members(%s) = %+v, gjson says %+v", v.Raw, got, want)
				}
				if !v.IsObject() && !v.IsArray() {
					return
				}
				if n := CountMembers(v, a); n != len(want) {
					t.Errorf("CountMembers(%s) = %d, want %d", v.Raw, n, len(want))
				}
				v.ForEach(func(_, v gjson.Result) bool {
					check(v)
					return true
				})
			}
			check(gjson.Parse(doc))
		}
		x.Release()
	}
	// Stopping early.
	n := 0
	for range Members(`[1,2,3]`, &Arena{}) {
		n++
		if n == 2 {
			break
		}
	}
	if n != 2 {
		t.Errorf("Members went on after break: %d members", n)
	}
	if CountMembers(gjson.Parse(`"s"`), &Arena{}) != 0 {
		t.Error("a scalar has members")
	}
}

// TestMembersForeign walks, through an arena that holds the index of one
// document, text that is not part of it (a stored copy, a string the
// arena unescaped): the walk must read such text from its bytes.
func TestMembersForeign(t *testing.T) {
	doc := `{"usage":{"a":1,"b":[2,3]},"args":"{\"x\":{\"y\":4}}"}`
	var x Index
	a := Arena{}
	if !a.IndexEvent(doc, &x) {
		t.Fatal("not valid")
	}
	members := func(raw string) []string {
		var got []string
		for k, v := range Members(raw, &a) {
			got = append(got, k+"="+v.Raw)
		}
		return got
	}
	want := members(gjson.Get(doc, "usage").Raw)
	if !reflect.DeepEqual(want, []string{"a=1", "b=[2,3]"}) {
		t.Fatalf("members of usage: %q", want)
	}
	if got := members(strings.Clone(gjson.Get(doc, "usage").Raw)); !reflect.DeepEqual(got, want) {
		t.Errorf("members of a copy of usage: %q, want %q", got, want)
	}
	var args string
	for k, v := range Members(doc, &a) {
		if k == "args" {
			args = v.Result().Str
		}
	}
	if got := members(args); !reflect.DeepEqual(got, []string{`x={"y":4}`}) {
		t.Errorf("members of unescaped args %s: %q", args, got)
	}
}

// TestArenaStrings checks the arena's buffer: strings stay valid as it
// grows past its planned size, Reserve and Reset reuse it, and unescaped
// keys and values match encoding/json.
func TestArenaStrings(t *testing.T) {
	a := NewArena(4)
	var got []string
	var want []string
	for i := range 50 {
		lit := `a\n` + strings.Repeat(`\"`, i) + `\u00e9`
		got = append(got, a.Unescape(lit))
		var w string
		if err := json.Unmarshal([]byte(`"`+lit+`"`), &w); err != nil {
			t.Fatal(err)
		}
		want = append(want, w)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("unescaped %q, want %q", got, want)
	}
	a.Reserve(1 << 10)
	a.Reserve(10) // never shrinks
	if a.size != 1<<10 {
		t.Errorf("size %d after Reserve", a.size)
	}
	a.Reset()
	if len(a.buf) != 0 || a.index != nil {
		t.Errorf("Reset kept %d bytes, index %v", len(a.buf), a.index)
	}
	// An escaped key, with and without an index.
	doc := `{"k\u0041y":"v","x\ty":1}`
	var x Index
	for _, indexed := range []bool{true, false} {
		a := Arena{}
		if indexed && !a.IndexEvent(doc, &x) {
			t.Fatal("not valid")
		}
		var keys []string
		for key := range Members(doc, &a) {
			keys = append(keys, key)
		}
		if !reflect.DeepEqual(keys, []string{"kAy", "x\ty"}) {
			t.Errorf("indexed %v: keys %q", indexed, keys)
		}
	}
	// An event that is not valid leaves the arena without an index.
	a = Arena{}
	if a.IndexEvent(`{"a":`, &x) || a.index != nil {
		t.Error("an invalid event was indexed")
	}
	if r := a.StringResult(`"a\/b"`); r.Str != "a/b" || r.Type != gjson.String {
		t.Errorf("StringResult = %+v", r)
	}
	if r := a.StringResult(`"ab"`); r.Str != "ab" {
		t.Errorf("StringResult = %+v", r)
	}
}

// TestIndexLookups checks that every value and key is found through the
// index wherever a walk asks for it (at the cursor, just after it, past a
// key, or far from it, in reverse order), that the scan without the index
// agrees, and that a string other than the document is scanned.
func TestIndexLookups(t *testing.T) {
	doc := `{"a":[1,{"b":"c"}],"d":"e\"f","g":true,"h":null,"i":-1.5}`
	x := IndexDocument(doc)
	defer x.Release()
	a := IndexedArena(x)
	tokens := slices.Clone(x.tokens)
	check := func(t *testing.T, k int) {
		start, end := int(tokens[k].start), int(tokens[k].end)
		if got := a.ValueEnd(doc, start); got != end {
			t.Errorf("ValueEnd at %d = %d, the index says %d", start, got, end)
		}
		if got := valueEnd(doc, start); got != end {
			t.Errorf("valueEnd at %d = %d, the index says %d", start, got, end)
		}
	}
	for k := range tokens {
		check(t, k)
	}
	for k := len(tokens) - 1; k >= 0; k-- {
		check(t, k)
	}
	x.cursor = 0
	check(t, 2) // past a key
	other := strings.Clone(doc)
	if got, want := a.ValueEnd(other, 0), len(other); got != want {
		t.Errorf("ValueEnd of a copy = %d, want %d", got, want)
	}
	// An offset inside a token is not a value of the index.
	if _, ok := x.end(doc, 2); ok {
		t.Error("found a value inside a key")
	}
}

// lookupDocs are objects for TestLookup and the seeds of FuzzLookup.
var lookupDocs = []string{
	`{"type":"text","text":"hi"}`, `{"text":"a\nb","type":"tool_use"}`, ` {"type" : "x\"y"} `,
	`{"a":1,"type":2,"type":"second"}`, `{"typ\u0065":"escaped key"}`, `{"a":{"type":"nested"}}`,
	`{"a":[{"type":1}],"type":[1,2]}`, `{"type":{"b":true}}`, `{"type":null}`, `{"type":-1.5e3}`, `{"type":12345}`,
	`{}`, `[{"type":"array"}]`, `"type"`, `12`, `{"type":"` + strings.Repeat(`\u00e9x`, 30) + `"}`,
}

// TestLookup holds Lookup to gjson.Get, whose uses on the hot paths it
// replaces: through the document's index, through an arena without one,
// and with no arena.
func TestLookup(t *testing.T) {
	for _, doc := range lookupDocs {
		for _, key := range []string{"type", "text", "a", "absent"} {
			checkLookup(t, doc, key)
		}
	}
}

// checkLookup checks Lookup(doc, key) against gjson.Get(doc, key) in each
// mode of walking.
func checkLookup(t *testing.T, doc, key string) {
	t.Helper()
	want := gjson.Get(doc, key)
	x := IndexDocument(doc)
	if x == nil {
		t.Fatalf("invalid document %q", doc)
	}
	defer x.Release()
	indexed := IndexedArena(x)
	var plain Arena
	for name, a := range map[string]*Arena{"index": &indexed, "bytes": &plain, "nil": nil} {
		got := Lookup(doc, a, key)
		if got.Type != want.Type || got.Raw != want.Raw || got.Str != want.Str || got.Num != want.Num {
			t.Errorf("%s: Lookup(%q, %q) = %v %q %q %v, gjson.Get says %v %q %q %v", name, doc, key,
				got.Type, got.Raw, got.Str, got.Num, want.Type, want.Raw, want.Str, want.Num)
		}
	}
}

// FuzzLookup is the differential test of Lookup against gjson.Get on any
// valid document and any key without gjson's path syntax.
func FuzzLookup(f *testing.F) {
	for _, doc := range lookupDocs {
		f.Add(doc, "type")
	}
	f.Fuzz(func(t *testing.T, doc, key string) {
		if !Valid(doc) || strings.ContainsAny(key, `.*?|#@\!=<>%~:,{}[]"`) || key == "" {
			return
		}
		checkLookup(t, doc, key)
	})
}

// TestIndexPool checks that an index too large to keep is not pooled, and
// that Release ignores nil.
func TestIndexPool(t *testing.T) {
	var nilIndex *Index
	nilIndex.Release()
	doc := "[" + strings.Repeat("0,", maxPooledTokens) + "0]"
	x := IndexDocument(doc)
	if x == nil || len(x.tokens) <= maxPooledTokens {
		t.Fatalf("index of %d tokens", len(x.tokens))
	}
	x.Release()
	if IndexDocument(`{"a":`) != nil {
		t.Error("an invalid document has an index")
	}
}

// TestValueEnd checks the scan for a value's end against the index for
// every kind of value, and its answers for values cut short.
func TestValueEnd(t *testing.T) {
	for raw, want := range map[string]int{
		`"abc" `: 5, `"a\"b\\"`: 8, `{"a":"}"} `: 9, `[[1],[2]],`: 9, `123,`: 3, `true}`: 4, `-1e5`: 4,
		`{"a":1`: 6, `"abc`: 4, `"a\"`: 4, `1 `: 1, `2]`: 1, "3\t": 1, "4\n": 1, "5\r": 1, `6}`: 1,
	} {
		if got := valueEnd(raw, 0); got != want {
			t.Errorf("valueEnd(%q) = %d, want %d", raw, got, want)
		}
	}
	if got := StringEnd(`"\\\"`, 0); got != 5 {
		t.Errorf("StringEnd of an unclosed literal = %d", got)
	}
}

// TestMembersScalars checks that Members yields a scalar itself, with an
// empty key, as gjson does, and nothing for empty input.
func TestMembersScalars(t *testing.T) {
	for _, raw := range []string{"", "  "} {
		for range Members(raw, &Arena{}) {
			t.Errorf("Members(%q) yields a member", raw)
		}
	}
	for _, raw := range []string{"7", ` "a\nb"`, "null"} {
		var got []gjson.Result
		for k, v := range Members(raw, &Arena{}) {
			if k != "" {
				t.Errorf("Members(%q) yields key %q", raw, k)
			}
			got = append(got, v.Result())
		}
		want := gjson.Parse(raw)
		if len(got) != 1 || got[0].Raw != strings.TrimSpace(raw) || got[0].Str != want.Str || got[0].Type != want.Type {
			t.Errorf("Members(%q) = %+v, want %+v", raw, got, want)
		}
	}
}

// BenchmarkMembers measures a walk of every member of a chat-shaped
// document, through the index and through the bytes: with Members, and
// with the loop under it called directly, the cost Members must match.
func BenchmarkMembers(b *testing.B) {
	doc := chatDocument(20)
	x := IndexDocument(doc)
	defer x.Release()
	for _, mode := range []struct {
		name  string
		arena func() Arena
	}{{"index", func() Arena { return IndexedArena(x) }}, {"bytes", func() Arena { return Arena{} }}} {
		b.Run(mode.name+"/range", func(b *testing.B) {
			b.SetBytes(int64(len(doc)))
			b.ReportAllocs()
			for b.Loop() {
				a := mode.arena()
				n := 0
				var walk func(raw string)
				walk = func(raw string) {
					for _, v := range Members(raw, &a) {
						n++
						if c := v.Raw[0]; c == '{' || c == '[' {
							walk(v.Raw)
						}
					}
				}
				walk(doc)
				if n == 0 {
					b.Fatal("no members")
				}
			}
		})
		b.Run(mode.name+"/loop", func(b *testing.B) {
			b.SetBytes(int64(len(doc)))
			b.ReportAllocs()
			for b.Loop() {
				a := mode.arena()
				n := 0
				var walk func(raw string)
				walk = func(raw string) {
					var m memberIter
					if !m.init(raw, &a) {
						return
					}
					for {
						_, v, ok := m.next()
						if !ok {
							return
						}
						n++
						if c := v[0]; c == '{' || c == '[' {
							walk(v)
						}
					}
				}
				walk(doc)
				if n == 0 {
					b.Fatal("no members")
				}
			}
		})
	}
}

// chatDocument is a chat request of n messages whose texts hold newlines
// and quotes, about 250 bytes a message.
func chatDocument(n int) string {
	type message struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	}
	msgs := []message{{"system", strings.Repeat("You are a careful assistant. Follow the \"house style\".\n", 8)}}
	for i := range n {
		role := "user"
		if i%2 == 1 {
			role = "assistant"
		}
		msgs = append(msgs, message{role, "Message " + strconv.Itoa(i) + ": " + strings.Repeat("some words of a conversation, ", 6) + "\n\"quoted\" and more.\n"})
	}
	body, err := json.Marshal(map[string]any{"model": "bench-model", "max_tokens": 1024, "temperature": 0.7, "messages": msgs})
	if err != nil {
		panic(err)
	}
	return string(body)
}

// agentDocument is a ~90 KB agent request shaped like Claude Code's: a
// long system prompt in three blocks, 12 tools with large schemas, and a
// history of tool calls whose results are source code.
func agentDocument() string {
	block := strings.Repeat("You are an interactive CLI tool. Follow the \"rules\" below carefully.\n", 135)
	var system []any
	for range 3 {
		system = append(system, map[string]any{"type": "text", "text": block})
	}
	var tools []any
	for i := range 12 {
		props := map[string]any{}
		for j := range 8 {
			props["p"+strconv.Itoa(j)] = map[string]any{"type": "string", "description": strings.Repeat("A parameter that controls one aspect of the tool. ", 12)}
		}
		tools = append(tools, map[string]any{"name": "tool_" + strconv.Itoa(i),
			"description":  strings.Repeat("Runs an operation in the workspace and returns its output. ", 6),
			"input_schema": map[string]any{"type": "object", "properties": props, "required": []string{"p0"}, "additionalProperties": false}})
	}
	var messages []any
	for i := range 5 {
		id := "toolu_" + strconv.Itoa(i)
		messages = append(messages,
			map[string]any{"role": "user", "content": "Please look at file " + strconv.Itoa(i) + " and fix the \"bug\".\n"},
			map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "text", "text": "Reading the file."},
				map[string]any{"type": "tool_use", "id": id, "name": "tool_1", "input": map[string]any{"p0": "src/file" + strconv.Itoa(i) + ".go", "p1": "all"}}}},
			map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": id,
				"content": strings.Repeat("package main\n\nfunc main() {\n\tprintln(\"hello\")\n}\n", 40)}}})
	}
	body, err := json.Marshal(map[string]any{"model": "bench-model", "max_tokens": 32000, "system": system, "tools": tools, "messages": messages})
	if err != nil {
		panic(err)
	}
	return string(body)
}
