package codec_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/llmbridge/llmbridge/codec"
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
		from codec.Protocol
		body []byte
	}
	for _, p := range codec.Protocols() {
		for _, text := range literalTexts {
			r := benchAgentRequest()
			r.Messages[0].Parts[0].Text = text
			r.System[0].Text = text
			body, err := codec.AppendRequest(nil, p, r, codec.EncodeOptions{})
			if err != nil {
				t.Fatal(err)
			}
			bodies = append(bodies, struct {
				from codec.Protocol
				body []byte
			}{p, body})
		}
	}
	for _, b := range literalBodies {
		bodies = append(bodies, struct {
			from codec.Protocol
			body []byte
		}{codec.AnthropicMessages, []byte(b)})
	}
	kept := 0
	for _, b := range bodies {
		for _, to := range codec.Protocols() {
			req := new(codec.Request)
			if b.from.ModelInPath() {
				req.Model = "m"
			}
			if err := codec.DecodeRequest(b.from, b.body, req); err != nil {
				t.Fatalf("%s: %v\n%s", b.from, err, b.body)
			}
			req.Model = "m"
			kept += countLiterals(req)
			with, err := codec.AppendRequest(nil, to, req, codec.EncodeOptions{})
			if err != nil {
				t.Fatalf("%s to %s: %v", b.from, to, err)
			}
			dropLiterals(req)
			without, err := codec.AppendRequest(nil, to, req, codec.EncodeOptions{})
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
		var req codec.Request
		if err := codec.DecodeRequest(codec.AnthropicMessages, []byte(b), &req); err != nil {
			t.Fatal(err)
		}
		if n := countLiterals(&req); n != 0 {
			t.Errorf("%s: %d literals kept", b, n)
		}
	}

	// A text changed after decoding is written as changed.
	var req codec.Request
	if err := codec.DecodeRequest(codec.AnthropicMessages, []byte(literalBodies[0]), &req); err != nil {
		t.Fatal(err)
	}
	if countLiterals(&req) != 1 {
		t.Fatal("the literal of the first body was not kept")
	}
	p := &req.Messages[0].Parts[0]
	p.Text = p.TextValue()[:3]
	out, err := codec.AppendRequest(nil, codec.OpenAIChat, &req, codec.EncodeOptions{})
	if err != nil || !strings.Contains(string(out), `"content":"a/b"`) {
		t.Errorf("changed text: %s %v", out, err)
	}
}

// countLiterals counts the parts of req that keep a literal.
func countLiterals(req *codec.Request) int {
	n := 0
	eachPart(req, func(p *codec.Part) {
		if _, ok := p.JSONText(); ok {
			n++
		}
		if _, ok := p.JSONArguments(); ok {
			n++
		}
	})
	return n
}

// dropLiterals makes every part of req forget the literals of its text
// and arguments.
func dropLiterals(req *codec.Request) {
	eachPart(req, func(p *codec.Part) {
		p.SetTextLiteral(p.TextValue(), "")
		codec.ForgetArgumentsLiteral(p)
	})
}

// eachPart calls fn for every part of req, tool result contents included.
func eachPart(req *codec.Request, fn func(*codec.Part)) {
	var walk func(ps []codec.Part)
	walk = func(ps []codec.Part) {
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
