package anthropic

import (
	"strconv"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/jsonx"
)

// VertexVersion is the anthropic_version a vertex-anthropic body carries
// when the client gave none.
const VertexVersion = "vertex-2023-10-16"

// BedrockVersion is the anthropic_version a bedrock-anthropic body
// carries.
const BedrockVersion = "bedrock-2023-05-31"

// version is the anthropic_version a body of protocol p carries,
// "" for the first-party API, whose version is a header.
func version(p codec.Protocol) string {
	switch p {
	case codec.VertexAnthropic:
		return VertexVersion
	case codec.BedrockAnthropic:
		return BedrockVersion
	}
	return ""
}

// appendInvocationMetrics appends the members Bedrock's InvokeModel adds
// to the last chunk of a stream, where its clients read usage and latency:
// ,"amazon-bedrock-invocationMetrics":{...} with u's input tokens in
// Anthropic's meaning (without cached tokens), its output tokens and lat.
func appendInvocationMetrics(dst []byte, u *codec.Usage, lat *codec.Latency) []byte {
	dst = append(dst, `,"amazon-bedrock-invocationMetrics":{"inputTokenCount":`...)
	dst = strconv.AppendInt(dst, u.AnthropicInputTokens(), 10)
	dst = append(dst, `,"outputTokenCount":`...)
	dst = strconv.AppendInt(dst, u.OutputTokens, 10)
	dst = append(dst, `,"invocationLatency":`...)
	dst = strconv.AppendInt(dst, lat.InvocationMs, 10)
	dst = append(dst, `,"firstByteLatency":`...)
	dst = strconv.AppendInt(dst, lat.FirstByteMs, 10)
	return append(dst, '}')
}

// AppendStreamMetrics appends Bedrock's invocation metrics, the members
// with which InvokeModel's last chunk reports usage and latency; nothing
// for the protocols without them.
func (anthropicCodec) AppendStreamMetrics(dst []byte, p codec.Protocol, u *codec.Usage, lat *codec.Latency) []byte {
	if p != codec.BedrockAnthropic {
		return dst
	}
	return appendInvocationMetrics(dst, u, lat)
}

// isObject reports whether args, a tool call's arguments, can be
// written as an object: "" (no arguments, written as {}) or the text of a
// JSON object. Decoders produce nothing else; the check only keeps a
// malformed canonical request from producing an invalid body. It looks at
// the ends of the text, where jsonx.IsObject would validate it all:
// arguments a model wrote that are not quite JSON pass on as they came.
func isObject(args string) bool {
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

// emptyObject reports whether a schema is "" or an object without
// members: Anthropic needs an object schema with a type, so both become the
// empty object schema.
func emptyObject(schema string) bool {
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
