package codec_test

import (
	"testing"

	"github.com/llmbridge/llmbridge/codec"
)

// TestPartTextStates holds Part's text accessors to the three states of a
// part's text: set by a writer, unescaped with its literal kept, and
// still escaped; and a write to Text ending the kept literal's use.
func TestPartTextStates(t *testing.T) {
	const raw, text = `a \"b\"\nc`, "a \"b\"\nc"
	for _, c := range []struct {
		name        string
		part        func() codec.Part
		text        string
		literal     string // what JSONText gives, "" for none
		size        int    // TextSize before any read
		changed     string // the text after a writer sets it
		literalThen bool   // whether JSONText still gives the literal after the write
	}{
		{name: "written", part: func() codec.Part { return codec.Part{Type: codec.PartText, Text: text} },
			text: text, size: len(text), changed: "x"},
		{name: "unescaped", part: func() codec.Part {
			p := codec.Part{Type: codec.PartText}
			p.SetTextLiteral(text, raw)
			return p
		}, text: text, literal: raw, size: len(text), changed: "x"},
		{name: "escaped", part: func() codec.Part {
			p := codec.Part{Type: codec.PartText}
			p.SetEscapedText(raw)
			return p
		}, text: text, literal: raw, size: len(raw), changed: "x"},
		// Written the text it held, a part that kept its text escaped
		// no longer knows the literal says it: its text is escaped again.
		{name: "escaped, written the same text", part: func() codec.Part {
			p := codec.Part{Type: codec.PartText}
			p.SetEscapedText(raw)
			return p
		}, text: text, literal: raw, size: len(raw), changed: text},
		{name: "unescaped, written the same text", part: func() codec.Part {
			p := codec.Part{Type: codec.PartText}
			p.SetTextLiteral(text, raw)
			return p
		}, text: text, literal: raw, size: len(text), changed: text, literalThen: true},
	} {
		p := c.part()
		if !p.HasText() || p.TextSize() != c.size {
			t.Errorf("%s: HasText %v, TextSize %d, want true, %d", c.name, p.HasText(), p.TextSize(), c.size)
		}
		if lit, ok := p.JSONText(); lit != c.literal || ok != (c.literal != "") {
			t.Errorf("%s: JSONText %q %v, want %q", c.name, lit, ok, c.literal)
		}
		// Reading twice gives the text both times, and the literal
		// stays for the encoders.
		for range 2 {
			if got := p.TextValue(); got != c.text {
				t.Errorf("%s: TextValue %q, want %q", c.name, got, c.text)
			}
		}
		if lit, ok := p.JSONText(); lit != c.literal || ok != (c.literal != "") {
			t.Errorf("%s: JSONText after a read %q %v, want %q", c.name, lit, ok, c.literal)
		}
		// A writer's text is what is read and written next.
		q := c.part()
		q.Text = c.changed
		if got := q.TextValue(); got != c.changed {
			t.Errorf("%s: TextValue after a write %q, want %q", c.name, got, c.changed)
		}
		if _, ok := q.JSONText(); ok != c.literalThen {
			t.Errorf("%s: JSONText after a write ok %v, want %v", c.name, ok, c.literalThen)
		}
	}
}
