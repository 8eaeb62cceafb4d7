// Package codec holds llmbridge's canonical conversation model, the
// registry of wire protocols, and the entry points that translate through
// them. Each protocol family is a package of its own that registers its
// protocols (Register) the way image formats and database/sql drivers do:
// codec/chat (openai-chat, azure-openai), codec/responses
// (openai-responses, azure-openai-responses), codec/anthropic
// (anthropic-messages, vertex-anthropic, bedrock-anthropic), codec/gemini
// (gemini, vertex), codec/interactions (gemini-interactions,
// vertex-interactions, Google's Interactions API) and codec/bedrock
// (bedrock, Amazon Bedrock's Converse API); codec/all imports them all. A codec decodes and
// encodes requests, responses, streams and error bodies of its protocol;
// it knows nothing of HTTP servers or Caddy and is usable as a plain
// library:
//
//	import _ "github.com/llmbridge/llmbridge/codec/all"
//
//	var req codec.Request
//	err := codec.DecodeRequest(codec.OpenAIResponses, body, &req)
//	out, err := codec.AppendRequest(nil, codec.AnthropicMessages, &req, codec.EncodeOptions{Model: "demo-model"})
//
// Decoders read JSON with the JSON engine below (values are handed out as
// gjson.Result, and gjson still reads paths into nested values) and never
// build map[string]any; encoders append JSON to a caller-supplied buffer. Strings in a decoded value may
// alias the input body, so the body must not be modified while the decoded
// value is in use.
//
// The JSON engine under the decoders and encoders is the internal package
// codec/internal/jsonx. Each body or stream event is read in one validating
// pass that also records every value and key, where it ends and whether it
// holds escapes (jsonx.Index, a tape), and how much of the text is escaped;
// decoders then walk members from the tape without rescanning any bytes
// (jsonx.Members, the one walk of an object or array), and escaped strings
// are unescaped into one arena of exactly that size (jsonx.Arena). A
// request text keeps the literal it was unescaped from, and request
// encoders copy that literal while the text is unchanged instead of
// escaping it again (Part.SetTextLiteral, Part.TextLiteral). String
// contents are classified 64 bytes at a time, with SSE2 on amd64 and eight
// 64-bit words elsewhere (jsonx.StringMasks; the purego build tag selects
// the portable version).
//
// A protocol is a Descriptor (Protocol.Descriptor): its routes, credential
// scheme, headers, token counting and model listing, which the HTTP layer
// reads, what the model rules of codec/rules need (ModelRules), and its
// Translator, which every entry point looks up there. What only some protocols
// have is an optional interface of their codec, found at registration:
// ModelLister, TokenCounter, SiblingAdapter, BodyFitter, StatusMapper,
// ErrorBodyChecker, FramingErrorDecoder and MetricsReporter. A family's
// files are named by concern (request_decode.go, request_encode.go,
// response_decode.go, response_encode.go, stream_decode.go,
// stream_encode.go, stream_check.go, count.go, models.go, fit.go, codec.go
// for its descriptors and registration), and what the families share
// without exporting it is in codec/internal/wire.
//
// Nothing is dropped silently. A decoder maps every field it knows; a field
// that only steers the provider (a hint, such as store or cache_control) and
// has no canonical slot is recorded in Request.Dropped; any other field, and
// anything the target protocol cannot express, is an *Error with status 400
// naming the field.
package codec
