package codec

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// literalTexts are texts whose escaped forms differ between clients: what
// an encoder writes for them from the literal must mean what escaping them
// again means.
var literalTexts = []string{
	"plain",
	"line\nbreak \"quoted\" back\\slash\ttab",
	"é and 😀 and \u2028 and \x01 and \x7f",
	strings.Repeat("package main\n\nfunc main() {\n\tprintln(\"hello\")\n}\n", 8),
}

// literalBodies are request bodies with escapes written the ways clients
// write them (\/, \u00e9, surrogate pairs, \b), and the ones whose
// literal must not be copied: a lone surrogate (which decodes to U+FFFD)
// and invalid UTF-8 (which encoders replace).
var literalBodies = []string{
	`{"model":"m","max_tokens":5,"messages":[{"role":"user","content":"a\/b \u00e9 \ud83d\ude00 \b\f\n"}]}`,
	`{"model":"m","max_tokens":5,"messages":[{"role":"user","content":[{"type":"text","text":"lone \ud800 surrogate\n"}]}]}`,
	"{\"model\":\"m\",\"max_tokens\":5,\"messages\":[{\"role\":\"user\",\"content\":\"bad \xff utf-8\\n\"}]}",
	"{\"model\":\"m\",\"max_tokens\":5,\"messages\":[{\"role\":\"user\",\"content\":\"raw \u2028 separator\\n\"}]}",
}

// TestLiteralReuse checks that encoding a decoded request with the
// literals its texts came from gives the same JSON as escaping the texts
// again, for every pair, for texts that need escapes and for the bodies
// whose literals must not be copied; and that a text changed after decoding
// is written as changed.
func TestLiteralReuse(t *testing.T) {
	var bodies []struct {
		from Protocol
		body []byte
	}
	for _, p := range Protocols() {
		for _, text := range literalTexts {
			r := benchAgentRequest()
			r.Messages[0].Parts[0].Text = text
			r.System[0].Text = text
			body, err := AppendRequest(nil, p, r, EncodeOptions{})
			if err != nil {
				t.Fatal(err)
			}
			bodies = append(bodies, struct {
				from Protocol
				body []byte
			}{p, body})
		}
	}
	for _, b := range literalBodies {
		bodies = append(bodies, struct {
			from Protocol
			body []byte
		}{AnthropicMessages, []byte(b)})
	}
	kept := 0
	for _, b := range bodies {
		for _, to := range Protocols() {
			req := new(Request)
			if b.from.ModelInPath() {
				req.Model = "m"
			}
			if err := DecodeRequest(b.from, b.body, req); err != nil {
				t.Fatalf("%s: %v\n%s", b.from, err, b.body)
			}
			req.Model = "m"
			kept += countLiterals(req)
			with, err := AppendRequest(nil, to, req, EncodeOptions{})
			if err != nil {
				t.Fatalf("%s to %s: %v", b.from, to, err)
			}
			dropLiterals(req)
			without, err := AppendRequest(nil, to, req, EncodeOptions{})
			if err != nil {
				t.Fatal(err)
			}
			var a, c any
			if err := json.Unmarshal(with, &a); err != nil {
				t.Fatalf("%s to %s: %v\n%s", b.from, to, err, with)
			}
			if err := json.Unmarshal(without, &c); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(a, c) {
				t.Errorf("%s to %s: with literals\n%s\nwithout\n%s", b.from, to, with, without)
			}
		}
	}
	if kept == 0 {
		t.Fatal("no literal was kept: the test checks nothing")
	}

	// The literals that must not be copied are not kept.
	for _, b := range literalBodies[1:3] {
		var req Request
		if err := DecodeRequest(AnthropicMessages, []byte(b), &req); err != nil {
			t.Fatal(err)
		}
		if n := countLiterals(&req); n != 0 {
			t.Errorf("%s: %d literals kept", b, n)
		}
	}

	// A text changed after decoding is written as changed.
	var req Request
	if err := DecodeRequest(AnthropicMessages, []byte(literalBodies[0]), &req); err != nil {
		t.Fatal(err)
	}
	if countLiterals(&req) != 1 {
		t.Fatal("the literal of the first body was not kept")
	}
	p := &req.Messages[0].Parts[0]
	p.Text = p.Text[:3]
	out, err := AppendRequest(nil, OpenAIChat, &req, EncodeOptions{})
	if err != nil || !strings.Contains(string(out), `"content":"a/b"`) {
		t.Errorf("changed text: %s %v", out, err)
	}
}

// countLiterals counts the parts of req that keep a literal.
func countLiterals(req *Request) int {
	n := 0
	eachPart(req, func(p *Part) {
		if p.literal != "" {
			n++
		}
	})
	return n
}

// dropLiterals makes every part of req forget its literal.
func dropLiterals(req *Request) {
	eachPart(req, func(p *Part) { p.literal, p.literalOf = "", "" })
}

// eachPart calls fn for every part of req, tool result contents included.
func eachPart(req *Request, fn func(*Part)) {
	var walk func(ps []Part)
	walk = func(ps []Part) {
		for i := range ps {
			fn(&ps[i])
			walk(ps[i].Content)
		}
	}
	walk(req.System)
	for i := range req.Messages {
		walk(req.Messages[i].Parts)
	}
}

func TestHasReplacementChar(t *testing.T) {
	for s, want := range map[string]bool{
		"": false, "plain": false, "\uFFFD": true, "a\uFF01b\uFFFDc": true, "\uFF01\uFFFE": false, "\xef": false, "\xef\xbf": false,
	} {
		if got := hasReplacementChar(s); got != want {
			t.Errorf("hasReplacementChar(%q) = %v, want %v", s, got, want)
		}
	}
}
