package codec

import (
	"github.com/llmbridge/llmbridge/codec/internal/jsonx"
)

// The anthropic_*.go files are the Anthropic Messages codec; this one holds
// the dialect selection and helpers that its request, response and stream
// files share. The codec serves two protocols that share one wire format:
// first-party anthropic-messages (POST /v1/messages, the model in the body)
// and vertex-anthropic (:rawPredict on Vertex AI, the model in the URL path
// and an anthropic_version field in the body). The vertex parameter of the
// request functions selects the dialect; responses are identical in both.

// anthropicProtocol returns the protocol constant of a dialect, so that
// errors name the protocol the client or upstream actually speaks.
func anthropicProtocol(vertex bool) Protocol {
	if vertex {
		return VertexAnthropic
	}
	return AnthropicMessages
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
