package wire

import (
	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/jsonx"
)

// KeepEscapedArguments makes the string value v of a walk, a tool call's
// arguments carried as a JSON string, p's arguments with their literal
// kept for string-form encoders to copy, when the literal may be copied
// as it is (jsonx.Value.Copyable, and valid UTF-8) and valid accepts its
// text as the protocol's arguments, one JSON object. The text must be
// unescaped to be checked: where the arena a has room for it, it is
// unescaped there and kept (Part.SetArgumentsLiteral), so that object-form
// encoders copy it; else it is checked from a scratch buffer and the
// arguments stay escaped (Part.SetEscapedArguments), so that a document
// whose other strings need no unescaping allocates no arena for them. It
// reports false otherwise, and the decoder reads the value as a string and
// judges it as it does any other (so a rejected literal's error is the
// decoder's own).
func KeepEscapedArguments(p *codec.Part, v jsonx.Value, a *jsonx.Arena, valid func(string) bool) bool {
	body, ok := CopyableBody(v)
	if !ok {
		return false
	}
	if args, ok := a.UnescapeInRoom(body); ok {
		if !valid(args) {
			return false
		}
		p.SetArgumentsLiteral(args, body)
		return true
	}
	if !jsonx.CheckUnescaped(body, valid) {
		return false
	}
	p.SetEscapedArguments(body)
	return true
}

// AppendArgumentsString appends p's arguments as a JSON string, for a
// protocol that carries them so ("{}" for none): the literal they were
// decoded from while they are unchanged (Part.JSONArguments), without
// unescaping arguments still escaped, else their text escaped.
func AppendArgumentsString(dst []byte, p *codec.Part) []byte {
	if raw, ok := p.JSONArguments(); ok {
		dst = append(dst, '"')
		dst = append(dst, raw...)
		return append(dst, '"')
	}
	args := p.ArgumentsValue()
	if args == "" {
		args = "{}"
	}
	return jsonx.AppendString(dst, args)
}

// ArgumentsObject reports whether p's arguments are the text of a JSON
// object by isObject, the encoder's own test, without unescaping
// arguments still escaped: their decoder validated them as one JSON
// object (Part.SetEscapedArguments), which passes every encoder's test.
func ArgumentsObject(p *codec.Part, isObject func(string) bool) bool {
	if _, escaped := p.EscapedArguments(); escaped {
		return true
	}
	return isObject(p.ArgumentsValue())
}

// AppendArgumentsObject appends p's arguments as the JSON object they are
// the text of, for a protocol that carries them so ("{}" for none or
// blank): arguments still escaped are unescaped straight into dst, without
// a string of their own, others copied as they are. The encoder checked
// them first (ArgumentsObject).
func AppendArgumentsObject(dst []byte, p *codec.Part) []byte {
	if raw, ok := p.EscapedArguments(); ok {
		return jsonx.AppendUnescaped(dst, raw)
	}
	args := p.ArgumentsValue()
	if jsonx.SkipSpace(args, 0) == len(args) {
		return append(dst, "{}"...)
	}
	return append(dst, args...)
}
