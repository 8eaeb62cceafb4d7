package anthropic

import (
	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/jsonx"
	"github.com/llmbridge/llmbridge/mapping"
	"github.com/tidwall/gjson"
)

// decodeError reads the type of an Anthropic error object.
func decodeError(errObj gjson.Result, e *codec.Error) {
	if k, ok := mapping.FromAnthropicErrorType(errObj.Get("type").Str); ok {
		e.Kind = k
	}
	e.Code = errObj.Get("type").Str
}

// appendError appends e as an Anthropic error body.
func appendError(dst []byte, _ codec.Protocol, e *codec.Error) []byte {
	dst = append(dst, `{"type":"error","error":{"type":`...)
	typ := mapping.AnthropicErrorType(e.Kind)
	if _, ok := mapping.FromAnthropicErrorType(e.Code); ok && e.Protocol.Family() == codec.AnthropicMessages {
		// An Anthropic upstream's own type (not Bedrock's AWS types).
		typ = e.Code
	}
	dst = jsonx.AppendString(dst, typ)
	dst = append(dst, `,"message":`...)
	dst = jsonx.AppendString(dst, e.Message)
	return append(dst, `}}`...)
}

// ClientStatus keeps an upstream's status, 529 included, for clients of
// the Messages API and of Anthropic on Vertex AI, which read it as
// overloaded; Bedrock's clients, the AWS SDKs, get 503 for it.
func (anthropicCodec) ClientStatus(p codec.Protocol, e *codec.Error) int {
	return mapping.ClientStatus(e.Status, p != codec.BedrockAnthropic)
}
