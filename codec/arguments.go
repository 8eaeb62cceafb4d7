package codec

import (
	"unsafe"

	"github.com/llmbridge/llmbridge/codec/internal/jsonx"
)

// A tool call's arguments have the three states of a part's text (see
// text.go). Set by a writer (or decoded from a protocol that carries them
// as an object, or from a string literal without escapes), Arguments is
// the text of the object itself. Decoded from a JSON string literal with
// escapes (OpenAI's arguments strings, where every quote of the object is
// escaped), they are either unescaped with their literal kept beside them
// (SetArgumentsLiteral) or, until something reads them, not unescaped at
// all: Arguments then holds the literal itself (SetEscapedArguments). Most
// arguments are only moved from the client's body to the upstream's, so
// they are unescaped only when read, and every reader goes through
// ArgumentsValue (a test of the package holds every reader of the module
// to it). Encoders that write arguments as a string copy the literal
// (JSONArguments); encoders that write them as an object unescape a
// literal still escaped straight into their output (EscapedArguments).

// ArgumentsValue returns the tool call's arguments, the text of one JSON
// object or "": Arguments, unescaped first if the part holds them still
// escaped (SetEscapedArguments). The unescaped text replaces the literal
// in Arguments, keeping the literal for encoders, so that a second read
// costs nothing; a part is therefore not to be read by two goroutines at
// once. It is the one way to read a part's arguments: Arguments itself
// may be an escaped literal.
func (p *Part) ArgumentsValue() string {
	raw, ok := p.EscapedArguments()
	if !ok {
		return p.Arguments
	}
	args := (*jsonx.Arena)(nil).Unescape(raw)
	p.Arguments, p.literalOf = args, args
	return args
}

// EscapedArguments returns the literal Arguments holds while the part's
// arguments are still escaped (SetEscapedArguments), which unescapes to
// one JSON object: an encoder that writes arguments as an object
// unescapes it straight into its output rather than through
// ArgumentsValue's string. Arguments and the kept literal are then the
// same string, which they never are otherwise (unescaped arguments are
// shorter than their literal, and assigning Arguments any other string
// ends the state).
func (p *Part) EscapedArguments() (raw string, ok bool) {
	lit := p.literal
	return lit, lit != "" && len(p.Arguments) == len(lit) && unsafe.StringData(p.Arguments) == unsafe.StringData(lit)
}

// SetEscapedArguments makes raw, the body of a JSON string literal that
// holds escapes (quotes left out), the part's arguments without
// unescaping them: string-form encoders copy raw as it is, object-form
// encoders unescape it into their output, and ArgumentsValue unescapes it
// when something reads the arguments. Request decoders call it only where
// raw unescapes to one JSON object, which they validated, and where
// copying raw says exactly what escaping the arguments would: raw is valid
// UTF-8 and escapes no surrogate (jsonx.Value.Copyable). Encoders that
// write arguments as an object rely on the first: they do not validate
// arguments still escaped again. A text the part holds still escaped is
// unescaped first: the part keeps one literal (see Part.literal).
func (p *Part) SetEscapedArguments(raw string) {
	if _, escaped := p.escapedText(); escaped {
		p.TextValue()
	}
	p.Arguments, p.literal, p.literalOf = raw, raw, ""
}

// SetArgumentsLiteral sets p.Arguments to args and records raw, the body
// of the JSON string literal (escapes intact, quotes left out) that args
// was unescaped from, for string-form encoders to copy while the arguments
// are unchanged (JSONArguments). Request decoders call it, as they call
// SetEscapedArguments, only for arguments they validated as one JSON
// object whose literal may be copied, where they unescaped it anyway and
// keeping the text costs nothing. A text the part holds still escaped is
// unescaped first: the part keeps one literal (see Part.literal).
func (p *Part) SetArgumentsLiteral(args, raw string) {
	if _, escaped := p.escapedText(); escaped {
		p.TextValue()
	}
	p.Arguments, p.literal, p.literalOf = args, raw, args
}

// JSONArguments returns the body of the JSON string literal that says the
// part's arguments (quotes left out) when the part keeps one and its
// arguments are still the ones decoded from it, without unescaping
// arguments still escaped: an encoder that writes arguments as a JSON
// string copies it.
func (p *Part) JSONArguments() (raw string, ok bool) {
	if raw, ok := p.EscapedArguments(); ok {
		return raw, true
	}
	if p.literal != "" && p.Arguments != "" && p.Arguments == p.literalOf {
		return p.literal, true
	}
	return "", false
}

// ArgumentsSize returns the length in bytes of the part's arguments, or,
// while they are still escaped, of their literal, which is longer by a
// byte or five per escape. It is for size hints and estimates, which must
// not unescape arguments to size them and err high anyway.
func (p *Part) ArgumentsSize() int { return len(p.Arguments) }

// HasArguments reports whether the part has arguments, without
// unescaping arguments still escaped (whose literal is never empty).
func (p *Part) HasArguments() bool { return p.Arguments != "" }
