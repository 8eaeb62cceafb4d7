package anthropic

import (
	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/jsonx"
)

// anthropicVersion is the anthropic_version a body of protocol p carries,
// "" for the first-party API, whose version is a header.
func anthropicVersion(p codec.Protocol) string {
	switch p {
	case codec.VertexAnthropic:
		return codec.VertexAnthropicVersion
	case codec.BedrockAnthropic:
		return codec.BedrockAnthropicVersion
	}
	return ""
}

// anthropicIsObject reports whether args, a tool call's arguments, can be
// written as an object: "" (no arguments, written as {}) or the text of a
// JSON object. Decoders produce nothing else; the check only keeps a
// malformed canonical request from producing an invalid body.
func anthropicIsObject(args string) bool {
	i := jsonx.SkipSpace(args, 0)
	if i == len(args) {
		return true
	}
	j := len(args)
	for j > i && args[j-1] <= ' ' {
		j--
	}
	return args[i] == '{' && args[j-1] == '}'
}

// appendAnthropicArguments appends a tool call's arguments as an object.
func appendAnthropicArguments(dst []byte, args string) []byte {
	if jsonx.SkipSpace(args, 0) == len(args) {
		return append(dst, "{}"...)
	}
	return append(dst, args...)
}

// anthropicEmptyObject reports whether a schema is "" or an object without
// members: Anthropic needs an object schema with a type, so both become the
// empty object schema.
func anthropicEmptyObject(schema string) bool {
	i := jsonx.SkipSpace(schema, 0)
	if i == len(schema) {
		return true
	}
	if schema[i] != '{' {
		return false
	}
	i = jsonx.SkipSpace(schema, i+1)
	return i < len(schema) && schema[i] == '}' && jsonx.SkipSpace(schema, i+1) == len(schema)
}
