package jsonx

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

var validCases = []string{
	`{}`, `[]`, `""`, `0`, `-0`, `1.5e+10`, `-12.3E-4`, `true`, `false`, `null`, ` {"a" : [1, 2, {"b": null}] } `,
	`{"s":"\"\\\/\b\f\n\r\t\u00e9\uD83D\uDE00"}`, `"bad utf8 \xff is accepted like encoding/json"`,
	`{"a":1,}`, `[1,]`, `{"a"}`, `{"a":}`, `{1:2}`, `[`, `{`, `]`, `}`, `"abc`, `"\x01"`, `"\q"`, `"\u12"`, `"\u12g4"`,
	`01`, `1.`, `.5`, `1e`, `-`, `+1`, `tru`, `nul`, `[1 2]`, `{"a":1 "b":2}`, `[}`, `{]`, `{} {}`, ``, ` `, `1 2`,
	`[[[[[]]]]]`, `[[[[[]]]]`, `{"a":{"b":{"c":[1,{"d":"e"}]}}}`, "\"tab\tinside\"", `"` + strings.Repeat("x", 100) + `"`,
	`"` + strings.Repeat("x", 100) + `\"` + strings.Repeat("y", 7) + `"`, strings.Repeat("[", 1000) + strings.Repeat("]", 1000),
	strings.Repeat("[", 1000) + strings.Repeat("]", 999), strings.Repeat(`{"a":`, 300) + "1" + strings.Repeat("}", 300),
	// Long strings take the 64-byte block path: escapes, backslash runs
	// and bad bytes at and across block edges.
	`"` + strings.Repeat(`ab\n`, 40) + `"`, `"` + strings.Repeat("x", 62) + `\\\\\"` + strings.Repeat("y", 70) + `"`,
	`"` + strings.Repeat("x", 63) + `\"` + strings.Repeat("y", 70) + `"`, `"` + strings.Repeat("x", 63) + `\\"`,
	`"` + strings.Repeat("x", 70) + "\x01" + strings.Repeat("y", 10) + `"`, `"` + strings.Repeat("x", 64) + `\u00e9` + strings.Repeat("y", 64) + `"`,
	`"` + strings.Repeat("x", 61) + `\u00g9` + strings.Repeat("y", 64) + `"`, `"` + strings.Repeat("x", 127) + `\`,
	`"` + strings.Repeat("x", 66) + `\q` + strings.Repeat("y", 64) + `"`, `["` + strings.Repeat("é", 40) + `", "` + strings.Repeat(`\t`, 70) + `"]`,
	// Short strings take a one-word path (the closing quote within the
	// eight bytes after the opening one), and compact JSON skips no
	// whitespace: strings at and across the word's edge, escapes and bad
	// bytes inside it, whitespace in every place compact JSON has none.
	`{"abcdefg":"1234567","abcdefgh":"12345678"}`, `{"a":"b"}`, `["abcdefg"]`, `["abcdefg",1]`, `["ab\"cd"]`,
	`["ab\ncdefgh"]`, "[\"ab\x01cdefgh\"]", "[\"abcdefg\x01\"]", `["abcdefg\q"]`, `["abc`, `["abcdefgh`, `{"abcdefg"`,
	`{"abcdefg":`, `{"a" :1}`, `{"a": 1 , "b" :2}`, `[1 ,2]`, `[ 1, 2 ]`, `{ "a":{ "b":[ ] } }`, `{"a":1 }`, `{"a":[1]} `,
	`{"a":[1,{"b":2}],"c":3}`, `[{"a":1},[2,{"b":[3]}],4]`, `{"a":[}`, `[{"a":1]}`, `{"a":{"b":1]}`, `[[1}]`, `{"a"::1}`,
	`{"a":1,,"b":2}`, `[1,,2]`, `{"a":1}}`, `[1]]`,
}

func TestValidJSONAgreesWithEncodingJSON(t *testing.T) {
	for _, c := range validCases {
		if got, want := Valid(c), json.Valid([]byte(c)); got != want {
			t.Errorf("Valid(%q) = %v, want %v", c, got, want)
		}
		x := IndexDocument(c)
		if got, want := x != nil, json.Valid([]byte(c)); got != want {
			t.Errorf("IndexDocument(%q) = %v, want an index: %v", c, x, want)
		}
		x.Release()
	}
}

func FuzzValidJSON(f *testing.F) {
	for _, c := range validCases {
		f.Add(c)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want := json.Valid([]byte(s))
		if got := Valid(s); got != want {
			t.Fatalf("Valid(%q) = %v, encoding/json says %v", s, got, want)
		}
		x := IndexDocument(s)
		if got := x != nil; got != want {
			t.Fatalf("IndexDocument(%q) made an index: %v, encoding/json says valid: %v", s, got, want)
		}
		x.Release()
	})
}

// chatChunk is a Chat Completions stream event of one text delta, as
// OpenAI sends it: the small document a stream decoder indexes per event.
const chatChunk = `{"id":"chatcmpl-D8Z5oo6uDh67AD85p73ksdT1KxhE0","object":"chat.completion.chunk","created":1770933892,` +
	`"model":"gpt-4.1-nano-2025-04-14","service_tier":"default","system_fingerprint":"fp_de604bd877","choices":[{"index":0,` +
	`"delta":{"content":" Day\n\n**Date"},"logprobs":null,"finish_reason":null}],"usage":null,"obfuscation":"Dt1W7Y"}`

// BenchmarkValidJSON compares the validator with gjson's on a Chat stream
// chunk, a 5 KB chat request and a 90 KB agent request, and measures the
// indexing pass that decoding runs instead.
func BenchmarkValidJSON(b *testing.B) {
	for _, doc := range []struct {
		name string
		body string
	}{{"chunk", chatChunk}, {"5KB", chatDocument(20)}, {"90KB", agentDocument()}} {
		body := doc.body
		b.Run(doc.name+"/Valid", func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			for b.Loop() {
				if !Valid(body) {
					b.Fatal("invalid")
				}
			}
		})
		b.Run(doc.name+"/IndexDocument", func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			for b.Loop() {
				x := IndexDocument(body)
				if x == nil {
					b.Fatal("invalid")
				}
				x.Release()
			}
		})
		if doc.name == "chunk" {
			// A stream's chunks, one after another into the decoder's
			// index, with texts that differ as a real stream's do.
			var chunks []string
			for _, text := range []string{` Day\n\n**Date`, ` the`, ` quick brown`, `:`, ` \"fox\"`, ` jumps over the lazy dog`} {
				chunks = append(chunks, strings.Replace(body, ` Day\n\n**Date`, text, 1))
			}
			b.Run(doc.name+"/IndexEvent", func(b *testing.B) {
				b.SetBytes(int64(len(body)))
				b.ReportAllocs()
				var x Index
				var a Arena
				n := 0
				for b.Loop() {
					if !a.IndexEvent(chunks[n%len(chunks)], &x) {
						b.Fatal("invalid")
					}
					n++
				}
			})
		}
		b.Run(doc.name+"/gjson.Valid", func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			for b.Loop() {
				if !gjson.Valid(body) {
					b.Fatal("invalid")
				}
			}
		})
	}
}

// TestValidJSONControlBytes checks that bytes below the space other than
// JSON's whitespace are not whitespace: a body with one between tokens is
// invalid, as encoding/json says.
func TestValidJSONControlBytes(t *testing.T) {
	for _, s := range []string{"{\x01}", "[1,\x0b2]", "\x00{}", "{\"a\":1}\x1f", "{\"a\":{\x01}}"} {
		if Valid(s) {
			t.Errorf("Valid(%q) = true, want false", s)
		}
	}
	for _, s := range []string{" {\"a\" :\t[1 ,\r\n2]} "} {
		if !Valid(s) {
			t.Errorf("Valid(%q) = false, want true", s)
		}
	}
}

func TestParseObject(t *testing.T) {
	for _, c := range []struct {
		doc, problem string
	}{
		{`{"a":1}`, ""},
		{` {} `, ""},
		{`[1]`, "must be a JSON object"},
		{`"s"`, "must be a JSON object"},
		{`{"a":}`, "is not valid JSON"},
		{``, "is not valid JSON"},
	} {
		root, problem := ParseObject(c.doc)
		if problem != c.problem || problem == "" && !root.IsObject() {
			t.Errorf("ParseObject(%q) = %v, %q; want problem %q", c.doc, root.Raw, problem, c.problem)
		}
		root, x, problem := ParseIndexed(c.doc)
		if problem != c.problem || problem == "" && (!root.IsObject() || x == nil) || problem != "" && x != nil {
			t.Errorf("ParseIndexed(%q) = %v, %v, %q; want problem %q", c.doc, root.Raw, x, problem, c.problem)
		}
		if x != nil {
			x.Release()
		}
	}
}
