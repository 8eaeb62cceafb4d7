package codec_test

import (
	"testing"

	"github.com/llmbridge/llmbridge/codec"
)

// TestPartArgumentsStates holds Part's arguments accessors to the three
// states of a tool call's arguments: set by a writer, still escaped, and
// unescaped by a read with their literal kept; and a write to Arguments
// ending the escaped state.
func TestPartArgumentsStates(t *testing.T) {
	const raw, args = `{\"path\":\"a\\\\b\",\"text\":\"x\\ny \u00e9\"}`, `{"path":"a\\b","text":"x\ny é"}`
	for _, c := range []struct {
		name        string
		part        func() codec.Part
		args        string
		escaped     bool   // EscapedArguments before a read
		literal     string // what JSONArguments gives, "" for none
		size        int    // ArgumentsSize before any read
		changed     string // the arguments after a writer sets them
		literalThen bool   // whether JSONArguments still gives the literal after the write
	}{
		{name: "written", part: func() codec.Part { return codec.Part{Type: codec.PartToolCall, Arguments: args} },
			args: args, size: len(args), changed: `{}`},
		{name: "none", part: func() codec.Part { return codec.Part{Type: codec.PartToolCall} },
			changed: `{}`},
		{name: "escaped", part: func() codec.Part {
			p := codec.Part{Type: codec.PartToolCall}
			p.SetEscapedArguments(raw)
			return p
		}, args: args, escaped: true, literal: raw, size: len(raw), changed: `{}`},
		{name: "unescaped", part: func() codec.Part {
			p := codec.Part{Type: codec.PartToolCall}
			p.SetArgumentsLiteral(args, raw)
			return p
		}, args: args, literal: raw, size: len(args), changed: `{}`},
		{name: "unescaped, written the same arguments", part: func() codec.Part {
			p := codec.Part{Type: codec.PartToolCall}
			p.SetArgumentsLiteral(args, raw)
			return p
		}, args: args, literal: raw, size: len(args), changed: args, literalThen: true},
		// Written the arguments they held, a part that kept them escaped
		// no longer knows the literal says them: they are escaped again.
		{name: "escaped, written the same arguments", part: func() codec.Part {
			p := codec.Part{Type: codec.PartToolCall}
			p.SetEscapedArguments(raw)
			return p
		}, args: args, escaped: true, literal: raw, size: len(raw), changed: args},
		// Read first, then written the same text: the literal still says
		// them, as a text's kept literal does.
		{name: "read, written the same arguments", part: func() codec.Part {
			p := codec.Part{Type: codec.PartToolCall}
			p.SetEscapedArguments(raw)
			p.ArgumentsValue()
			return p
		}, args: args, literal: raw, size: len(args), changed: args, literalThen: true},
	} {
		p := c.part()
		if p.HasArguments() != (c.args != "") || p.ArgumentsSize() != c.size {
			t.Errorf("%s: HasArguments %v, ArgumentsSize %d, want %v, %d", c.name, p.HasArguments(), p.ArgumentsSize(), c.args != "", c.size)
		}
		if lit, ok := p.EscapedArguments(); ok != c.escaped || ok && lit != raw {
			t.Errorf("%s: EscapedArguments %q %v, want %v", c.name, lit, ok, c.escaped)
		}
		if lit, ok := p.JSONArguments(); lit != c.literal || ok != (c.literal != "") {
			t.Errorf("%s: JSONArguments %q %v, want %q", c.name, lit, ok, c.literal)
		}
		// Reading twice gives the arguments both times, and the literal
		// stays for the encoders.
		for range 2 {
			if got := p.ArgumentsValue(); got != c.args {
				t.Errorf("%s: ArgumentsValue %q, want %q", c.name, got, c.args)
			}
		}
		if _, ok := p.EscapedArguments(); ok {
			t.Errorf("%s: still escaped after a read", c.name)
		}
		if lit, ok := p.JSONArguments(); lit != c.literal || ok != (c.literal != "") {
			t.Errorf("%s: JSONArguments after a read %q %v, want %q", c.name, lit, ok, c.literal)
		}
		// A writer's arguments are what is read and written next.
		q := c.part()
		q.Arguments = c.changed
		if got := q.ArgumentsValue(); got != c.changed {
			t.Errorf("%s: ArgumentsValue after a write %q, want %q", c.name, got, c.changed)
		}
		if _, ok := q.JSONArguments(); ok != c.literalThen {
			t.Errorf("%s: JSONArguments after a write ok %v, want %v", c.name, ok, c.literalThen)
		}
	}
}

// TestPartOneLiteral checks that a part keeps one literal, of its text or
// of its arguments: setting one unescapes the other if it is still
// escaped, so that neither is ever read or written as escapes, and
// neither field's accessors give the other's literal.
func TestPartOneLiteral(t *testing.T) {
	const rawText, text = `a\nb`, "a\nb"
	const rawArgs, args = `{\"a\":1}`, `{"a":1}`
	check := func(name string, p *codec.Part, textLiteral, argsLiteral string) {
		t.Helper()
		if lit, ok := p.JSONText(); lit != textLiteral || ok != (textLiteral != "") {
			t.Errorf("%s: JSONText %q %v, want %q", name, lit, ok, textLiteral)
		}
		if lit, ok := p.JSONArguments(); lit != argsLiteral || ok != (argsLiteral != "") {
			t.Errorf("%s: JSONArguments %q %v, want %q", name, lit, ok, argsLiteral)
		}
		if got := p.TextValue(); got != text {
			t.Errorf("%s: TextValue %q, want %q", name, got, text)
		}
		if got := p.ArgumentsValue(); got != args {
			t.Errorf("%s: ArgumentsValue %q, want %q", name, got, args)
		}
	}
	var p codec.Part
	p.SetEscapedArguments(rawArgs)
	p.SetEscapedText(rawText)
	check("arguments, then text", &p, rawText, "")

	p = codec.Part{}
	p.SetEscapedText(rawText)
	p.SetEscapedArguments(rawArgs)
	check("text, then arguments", &p, "", rawArgs)

	p = codec.Part{}
	p.SetEscapedArguments(rawArgs)
	p.SetTextLiteral(text, rawText)
	check("arguments, then a text's kept literal", &p, rawText, "")

	p = codec.Part{}
	p.SetEscapedText(rawText)
	p.SetArgumentsLiteral(args, rawArgs)
	check("text, then the arguments' kept literal", &p, "", rawArgs)

	// Each field alone: the other's accessors give no literal.
	p = codec.Part{Text: text}
	p.SetEscapedArguments(rawArgs)
	check("a written text, escaped arguments", &p, "", rawArgs)
	p = codec.Part{Arguments: args}
	p.SetEscapedText(rawText)
	check("written arguments, an escaped text", &p, rawText, "")
}
