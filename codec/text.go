package codec

import (
	"unsafe"

	"github.com/llmbridge/llmbridge/codec/internal/jsonx"
)

// A part's text has three states. Set by a writer (or decoded from a
// literal without escapes), Text is the text itself. Decoded from a
// literal with escapes that an encoder may copy, the text is either
// unescaped with its literal kept beside it (SetTextLiteral) or, until
// something reads it, not unescaped at all: Text then holds the literal
// itself (SetEscapedText). Most request text is only moved from the
// client's body to the upstream's, and unescaping it was a fifth of a
// large translation; so text is unescaped only when read, and every
// reader goes through TextValue, which tells the states apart (a test
// of the package holds every reader of the module to it).

// TextValue returns the part's text: Text, unescaped first if the part
// holds it still escaped (SetEscapedText). The unescaped text replaces
// the literal in Text, keeping the literal for encoders, so that a second
// read costs nothing; a part is therefore not to be read by two goroutines
// at once. It is the one way to read a part's text: Text itself may be an
// escaped literal.
func (p *Part) TextValue() string {
	raw, ok := p.escapedText()
	if !ok {
		return p.Text
	}
	text := (*jsonx.Arena)(nil).Unescape(raw)
	p.Text, p.literalOf = text, text
	return text
}

// escapedText returns the literal Text holds while its part's text is
// still escaped: Text and the kept literal are then the same string, which
// they never are otherwise (an unescaped text is shorter than its literal,
// and assigning Text any other string ends the state).
func (p *Part) escapedText() (string, bool) {
	lit := p.literal
	return lit, lit != "" && len(p.Text) == len(lit) && unsafe.StringData(p.Text) == unsafe.StringData(lit)
}

// SetEscapedText makes raw, the body of a JSON string literal that holds
// escapes (quotes left out), the part's text without unescaping it:
// encoders copy raw as it is, and TextValue unescapes it when something
// reads the text. Request decoders call it only where copying raw says
// exactly what escaping the text would: raw is valid UTF-8 and escapes no
// surrogate (a lone one unescapes to U+FFFD), which the validating pass
// finds along with the literal (jsonx.Value.Copyable). Arguments the part
// holds still escaped are unescaped first: the part keeps one literal
// (see Part.literal).
func (p *Part) SetEscapedText(raw string) {
	p.unescapeArguments()
	p.Text, p.literal, p.literalOf = raw, raw, ""
}

// SetTextLiteral sets p.Text to text and records raw, the body of the JSON
// string literal (escapes intact, quotes left out) that text was unescaped
// from. Request decoders call it for texts that held escapes, and only
// where copying raw says exactly what escaping text would (text is valid
// UTF-8 without U+FFFD, which a lone surrogate escape unescapes to).
// Arguments the part holds still escaped are unescaped first, as by
// SetEscapedText.
func (p *Part) SetTextLiteral(text, raw string) {
	p.unescapeArguments()
	p.Text, p.literal, p.literalOf = text, raw, text
}

// unescapeArguments unescapes the part's arguments if they are still
// escaped, before the part's one literal becomes its text's.
func (p *Part) unescapeArguments() {
	if _, escaped := p.EscapedArguments(); escaped {
		p.ArgumentsValue()
	}
}

// TextLiteral returns the literal recorded by SetTextLiteral when text is
// still the text it was recorded for, so that an encoder copies it instead
// of escaping text again. Comparing costs nothing while they are the same
// string.
func (p *Part) TextLiteral(text string) (raw string, ok bool) {
	if p.literal != "" && text != "" && text == p.literalOf {
		return p.literal, true
	}
	return "", false
}

// JSONText returns the body of the JSON string literal that says the
// part's text (quotes left out) when the part keeps one and its text is
// still the one decoded from it, without unescaping a text still escaped:
// an encoder that writes the part's text as it is copies it.
func (p *Part) JSONText() (raw string, ok bool) {
	if raw, ok := p.escapedText(); ok {
		return raw, true
	}
	return p.TextLiteral(p.Text)
}

// TextSize returns the length in bytes of the part's text, or, while the
// text is still escaped, of its literal, which is longer by a byte or five
// per escape. It is for size hints and estimates, which must not unescape
// a text to size it and err high anyway.
func (p *Part) TextSize() int { return len(p.Text) }

// HasText reports whether the part has text, without unescaping a text
// still escaped (whose literal is never empty).
func (p *Part) HasText() bool { return p.Text != "" }
