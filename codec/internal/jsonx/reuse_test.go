package jsonx

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// checkEvents indexes docs in turn into one index, as a stream decoder
// does, and holds every result to a fresh index of the same document: the
// same validity (encoding/json's), tape, escaped bytes and walks.
func checkEvents(t *testing.T, docs ...string) {
	t.Helper()
	var x Index
	var a Arena
	for n, s := range docs {
		// The event is a copy in a buffer of its own, so that nothing
		// can compare it with the previous event's memory.
		s = strings.Clone(s)
		got := a.IndexEvent(s, &x)
		if want := json.Valid([]byte(s)); got != want {
			t.Fatalf("event %d %q after %q: IndexEvent = %v, encoding/json says valid: %v", n, s, prevDoc(docs, n), got, want)
		}
		if !got {
			continue
		}
		var fresh Index
		if !fresh.build(s) {
			t.Fatalf("event %d %q: build says invalid", n, s)
		}
		if !slices.Equal(x.tokens, fresh.tokens) || x.escapedBytes != fresh.escapedBytes || x.base != fresh.base || x.size != fresh.size ||
			x.cursor != fresh.cursor || x.walked != fresh.walked {
			t.Fatalf("event %d %q after %q:\nreused tape %v, %d escaped bytes\nfresh tape  %v, %d escaped bytes",
				n, s, prevDoc(docs, n), x.tokens, x.escapedBytes, fresh.tokens, fresh.escapedBytes)
		}
		freshArena := IndexedArena(&fresh)
		if got, want := walkAll(s, &a), walkAll(s, &freshArena); got != want {
			t.Fatalf("event %d %q: walk through the reused index\n%s\nfresh\n%s", n, s, got, want)
		}
	}
}

func prevDoc(docs []string, n int) string {
	if n == 0 {
		return ""
	}
	return docs[n-1]
}

// walkAll renders every member of the document s, walked through a, and
// every lookup of an object's keys.
func walkAll(s string, a *Arena) string {
	var b strings.Builder
	var walk func(raw string, depth int)
	walk = func(raw string, depth int) {
		for key, v := range Members(raw, a) {
			r := v.Result()
			fmt.Fprintf(&b, "%*s%q: %s %q %q %v %v\n", depth, "", key, r.Type, r.Raw, r.Str, v.Escaped(), v.Copyable())
			if key != "" {
				fmt.Fprintf(&b, "%*s  lookup %q\n", depth, "", Lookup(raw, a, key).Raw)
			}
			if c := v.Raw[0]; c == '{' || c == '[' {
				walk(v.Raw, depth+1)
			}
		}
	}
	walk(s, 0)
	return b.String()
}

// TestIndexEventReuse holds events indexed after others that share a
// prefix with them to fresh indexes: the second event differs from the
// first at every kind of place, in strings, escapes, numbers, literals, keys
// and whitespace, before and after containers close, and is invalid at
// some of them.
func TestIndexEventReuse(t *testing.T) {
	const chunk = `{"id":"chatcmpl-X","object":"chat.completion.chunk","created":1733,"model":"gpt-4.1","system_fingerprint":"fp_1",` +
		`"choices":[{"index":0,"delta":{"content":"TEXT"},"logprobs":null,"finish_reason":null}]}`
	const delta = `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"TEXT"}}`
	for _, c := range []struct {
		name string
		docs []string
	}{
		{"chat texts", []string{strings.Replace(chunk, "TEXT", " Hello", 1), strings.Replace(chunk, "TEXT", " world", 1),
			strings.Replace(chunk, "TEXT", `\n\n**a \"quoted\" \u00e9`, 1), strings.Replace(chunk, "TEXT", "", 1),
			strings.Replace(chunk, "TEXT", strings.Repeat("long text ", 30), 1), strings.Replace(chunk, "TEXT", " again", 1)}},
		{"anthropic texts", []string{strings.Replace(delta, "TEXT", "a", 1), strings.Replace(delta, "TEXT", "ab", 1),
			strings.Replace(delta, "TEXT", `\ud83d\ude00`, 1), strings.Replace(delta, "TEXT", "a", 1)}},
		{"identical", []string{delta, delta, chunk, chunk}},
		{"chat then an invalid chunk", []string{strings.Replace(chunk, "TEXT", "a", 1), strings.Replace(chunk, "TEXT", "a\x01", 1),
			strings.Replace(chunk, "TEXT", "b", 1)}},
		{"chat text then the finish", []string{strings.Replace(chunk, "TEXT", "a", 1),
			strings.Replace(strings.Replace(chunk, `{"content":"TEXT"}`, `{}`, 1), `"finish_reason":null`, `"finish_reason":"stop"`, 1)}},
		{"numbers", []string{`{"a":12,"b":1}`, `{"a":123,"b":1}`, `{"a":1,"b":1}`, `{"a":1.5,"b":1}`, `{"a":1e5,"b":1}`, `{"a":1e,"b":1}`, `{"a":-,"b":1}`, `{"a":12,"b":1}`}},
		{"numbers at the end", []string{`[1,2,3]`, `[1,2,34]`, `[1,2,3]`, `[1,2,3`, `[1,2,3]`, `[1,2,3] `, `[1,2,3]x`}},
		{"literals", []string{`{"a":true,"b":[null]}`, `{"a":false,"b":[null]}`, `{"a":tru,"b":[null]}`, `{"a":true,"b":[nul]}`, `{"a":true,"b":[null,null]}`, `{"a":true,"b":[null]}`}},
		{"keys", []string{`{"abc":1,"abd":2}`, `{"abc":1,"abe":2}`, `{"abc":1,"ab":2}`, `{"abc":1,"ab\"":2}`, `{"abc":1,"ab\q":2}`, `{"abc":1,"abe" :2}`, `{"abc":1,"abe"}`}},
		{"escapes", []string{`["a\nb","c"]`, `["a\tb","c"]`, `["a\u00e9","c"]`, `["a\ud83d","c"]`, `["a\u00g9","c"]`, `["a\\","c"]`, `["a\\\"","c"]`, `["a\n","c\n"]`}},
		{"after a close", []string{`{"a":[1],"b":{"c":2}}`, `{"a":[1],"b":{"c":2},"d":3}`, `{"a":[1,2],"b":{"c":2}}`, `{"a":[1]}`, `{"a":[1]}}`, `{"a":[1]]`, `{"a":[1],"b":{}}`, `{"a":[1],"b":[]}`}},
		{"containers", []string{`{"a":{"b":{"c":[1,[2,{"d":3}]]}}}`, `{"a":{"b":{"c":[1,[2,{"d":4}]]}}}`, `{"a":{"b":{"c":[1,[2,{"e":3}]]}}}`,
			`{"a":{"b":{"c":[1,[2,{}]]}}}`, `{"a":{"b":{"c":[1,[2,[]]]}}}`, `{"a":{"b":{"c":[1,[2]]}}}`, `{"a":{"b":{"c":[1,[]]}}}`, `{"a":{"b":[]}}`, `{"a":{}}`}},
		{"whitespace", []string{` { "a" : [ 1 , 2 ] , "b" : "x" } `, ` { "a" : [ 1 , 2 ] , "b" : "y" } `, ` { "a" : [ 1 , 2 ] , "b" :"y" } `,
			` { "a" : [ 1 , 2 ] ,"b" : "y" } `, ` { "a" : [ 1 , 2 ], "b" : "y" } `, ` { "a" : [ 1 , 2 ] , "b" : "y" }`, "\t{ \"a\" : [ 1 , 2 ] , \"b\" : \"y\" } "}},
		{"scalars and empties", []string{`1`, `12`, `"a"`, `"ab"`, `{}`, `{} `, `[]`, `[1]`, `[]`, `{"a":1}`, `{}`}},
		{"deep", []string{strings.Repeat("[", 300) + "1" + strings.Repeat("]", 300), strings.Repeat("[", 300) + "2" + strings.Repeat("]", 300),
			strings.Repeat("[", 300) + "[]" + strings.Repeat("]", 300), strings.Repeat("[", 300) + "1" + strings.Repeat("]", 299)}},
		{"long prefix", []string{`{"a":"` + strings.Repeat("x", 2000) + `","b":1}`, `{"a":"` + strings.Repeat("x", 2000) + `","b":2}`,
			`{"p":"` + strings.Repeat("x", 2000) + `","b":2}`, `{"z":1,"a":"` + strings.Repeat("x", 2000) + `"}`, `{"z":1,"b":"` + strings.Repeat("x", 2000) + `"}`,
			`[` + strings.Repeat(`1,`, 600) + `2]`, `[` + strings.Repeat(`1,`, 600) + `3]`}},
		{"other documents", []string{`{"a":1}`, `[1]`, `"s"`, `{"a":1}`, `{"b":1}`, ``, `{"b":1}`}},
	} {
		t.Run(c.name, func(t *testing.T) { checkEvents(t, c.docs...) })
	}
}

// TestIndexEventReuseRandom holds sequences of random documents to fresh
// indexes: each a random edit of the previous one, or, as a stream's text
// deltas are, edits of one document at one place.
func TestIndexEventReuseRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for n := range 4000 {
		doc := randomDocument(r, 3)
		docs := []string{doc}
		at := r.IntN(len(doc) + 1)
		for range 5 {
			if n%2 == 0 {
				docs = append(docs, editDocument(r, docs[len(docs)-1], r.IntN(len(docs[len(docs)-1])+1)))
			} else {
				docs = append(docs, editDocument(r, doc, at))
			}
		}
		checkEvents(t, docs...)
	}
}

// randomDocument returns a random JSON value nested up to depth levels,
// with escapes, numbers, literals and whitespace.
func randomDocument(r *rand.Rand, depth int) string {
	var b strings.Builder
	var value func(depth int)
	space := func() {
		if r.IntN(6) == 0 {
			b.WriteString([]string{" ", "\n", "\t ", "\r\n"}[r.IntN(4)])
		}
	}
	str := func() {
		b.WriteByte('"')
		for range r.IntN(12) {
			b.WriteString([]string{"a", "bc", "é", `\n`, `\"`, `\\`, `\u00e9`, `\ud83d\ude00`, "x", " ", "long text "}[r.IntN(11)])
		}
		b.WriteByte('"')
	}
	value = func(depth int) {
		space()
		switch k := r.IntN(10); {
		case depth > 0 && k < 3:
			b.WriteByte('{')
			for n := range r.IntN(5) {
				if n > 0 {
					b.WriteByte(',')
				}
				space()
				str()
				space()
				b.WriteByte(':')
				value(depth - 1)
			}
			space()
			b.WriteByte('}')
		case depth > 0 && k < 5:
			b.WriteByte('[')
			for n := range r.IntN(5) {
				if n > 0 {
					b.WriteByte(',')
				}
				value(depth - 1)
			}
			space()
			b.WriteByte(']')
		case k < 7:
			str()
		case k < 9:
			b.WriteString([]string{"0", "12", "-3", "4.5", "6e7", "-0.8E-9", "1234567890"}[r.IntN(7)])
		default:
			b.WriteString([]string{"true", "false", "null"}[r.IntN(3)])
		}
		space()
	}
	value(depth)
	return b.String()
}

// editDocument returns s with one random edit at i: bytes inserted,
// deleted or replaced, from JSON's alphabet, most edits keeping the
// document valid or nearly so.
func editDocument(r *rand.Rand, s string, i int) string {
	pieces := []string{"a", "1", "0", "-", ".", "e", `"`, `\`, "n", "u", ",", ":", "[", "]", "{", "}", " ", "true", "null", `"k":`, `"x"`, "\x01", "é", "ab", "text text"}
	j := min(len(s), i+r.IntN(4))
	switch r.IntN(3) {
	case 0: // insert
		return s[:i] + pieces[r.IntN(len(pieces))] + s[i:]
	case 1: // delete
		return s[:i] + s[j:]
	}
	return s[:i] + pieces[r.IntN(len(pieces))] + s[j:]
}

// FuzzIndexEventReuse indexes a document, then edits of it at a position
// the fuzzer picks (inside strings, escapes, numbers, literals, after
// closes), then the document again, into one index, and holds every
// result to a fresh index and to encoding/json.
func FuzzIndexEventReuse(f *testing.F) {
	for _, c := range validCases {
		f.Add(c, uint16(len(c)/2), "1", uint8(0), "x")
	}
	f.Add(chatChunk, uint16(strings.Index(chatChunk, "Day")), "Night", uint8(3), "\\n")
	f.Add(chatChunk, uint16(strings.Index(chatChunk, "1770933892")+3), "5", uint8(1), ".5")
	f.Add(`{"a":[1,{"b":null}],"c":true}`, uint16(18), "}", uint8(1), ",")
	f.Add(`{"a":"x\u00e9y","b":false}`, uint16(9), `\u00`, uint8(2), `\`)
	f.Fuzz(func(t *testing.T, s string, at uint16, insert string, del uint8, insert2 string) {
		i := min(int(at), len(s))
		j := min(len(s), i+int(del))
		edited := s[:i] + insert + s[j:]
		k := min(i+len(insert), len(edited))
		edited2 := edited[:k] + insert2 + edited[k:]
		checkEvents(t, s, edited, edited2, s, edited2)
	})
}

// TestCommonPrefix holds commonPrefix's word comparisons to a byte loop,
// for every length up to a few words and every place of a difference.
func TestCommonPrefix(t *testing.T) {
	for n := range 48 {
		base := strings.Repeat("abcdefghijklmnopqrstuvwxyz0123456789", 2)[:n]
		for m := range n + 2 {
			other := base[:min(m, n)] + strings.Repeat("x", max(0, m-n))
			for d := -1; d < len(other); d++ {
				b := []byte(other)
				if d >= 0 {
					b[d] ^= 0x80
				}
				want := 0
				for want < len(base) && want < len(b) && base[want] == b[want] {
					want++
				}
				if got := commonPrefix(base, b); got != want {
					t.Fatalf("commonPrefix(%q, %q) = %d, want %d", base, b, got, want)
				}
			}
		}
	}
}
