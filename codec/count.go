package codec

import (
	"strings"

	"github.com/llmbridge/llmbridge/codec/internal/jsonx"
	"github.com/tidwall/gjson"
)

// Token counting endpoints:
//
//   - anthropic-messages: POST /v1/messages/count_tokens, the Messages body
//     without the generation parameters, answered {"input_tokens":N};
//   - vertex-anthropic: POST …/publishers/anthropic/models/count-tokens:rawPredict,
//     the same body with model and anthropic_version, same answer;
//   - gemini: POST /v1beta/models/{model}:countTokens, {"contents":[…]} or
//     {"generateContentRequest":{…}}, answered {"totalTokens":N};
//   - vertex: POST …/publishers/google/models/{model}:countTokens,
//     {"contents","systemInstruction","tools","generationConfig"}, same
//     answer;
//   - openai-responses: POST /v1/responses/input_tokens, the Responses body
//     without the generation parameters, answered
//     {"object":"response.input_tokens","input_tokens":N}.
//
// OpenAI Chat Completions has none. A count request is translated as the
// generation request it counts: decoded with DecodeCountRequest, encoded
// with AppendCountRequest; the answer is one number in every protocol.

// HasTokenCount reports whether protocol p has a token counting endpoint.
func HasTokenCount(p Protocol) bool {
	d := p.Descriptor()
	return d != nil && d.countPath != nil
}

// anthropicCountFields are the members of an Anthropic count_tokens body
// (anthropic-sdk-go MessageCountTokensParams and its beta).
var anthropicCountFields = []string{"model", "messages", "system", "tools", "tool_choice", "thinking",
	"output_config", "cache_control", "context_management", "mcp_servers", "speed"}

// responsesCountFields are the members of a Responses input_tokens body
// (openai-go responses.InputTokenCountParams).
var responsesCountFields = []string{"model", "input", "instructions", "tools", "tool_choice",
	"parallel_tool_calls", "previous_response_id", "conversation", "text", "reasoning", "truncation", "personality"}

// vertexCountFields are the members of a Vertex countTokens body that a
// generateContent body also has.
var vertexCountFields = []string{"contents", "systemInstruction", "tools", "generationConfig"}

// DecodeCountRequest decodes a token counting request body of protocol p
// into req, as the generation request whose input it counts. As with
// DecodeRequest, the caller sets req.Model for protocols with the model in
// the path; a Gemini generateContentRequest's own model member is ignored
// in favour of the path.
func DecodeCountRequest(p Protocol, body []byte, req *Request) error {
	if !HasTokenCount(p) {
		return invalid("", "protocol "+string(p)+" has no token counting endpoint")
	}
	root, err := parseObject(body)
	if err != nil {
		return err
	}
	d := p.Descriptor()
	gen := body
	if d.countBody != nil {
		if gen, err = d.countBody(root); err != nil {
			return err
		}
	}
	return DecodeRequest(d.countAs(), gen, req)
}

// AppendCountRequest appends req encoded as protocol p's token counting
// request body to dst: the generation body AppendRequest writes, less the
// members a count request does not take, in the count request's framing.
func AppendCountRequest(dst []byte, p Protocol, req *Request, opts EncodeOptions) ([]byte, error) {
	if !HasTokenCount(p) {
		return dst, invalid("", "protocol "+string(p)+" has no token counting endpoint")
	}
	d := p.Descriptor()
	gen, err := AppendRequest(nil, d.countAs(), req, opts)
	if err != nil {
		return dst, err
	}
	return d.countFrame(dst, gjson.ParseBytes(gen), req, &opts), nil
}

// vertexAnthropicCountBody turns an Anthropic-on-Vertex count body into the
// generation body it counts: the count body names its model, unlike a
// rawPredict body; it is an Anthropic body with an anthropic_version.
func vertexAnthropicCountBody(root gjson.Result) ([]byte, *Error) {
	return appendMembers(nil, root, func(k string) bool { return k != "anthropic_version" }), nil
}

// geminiCountBody turns a Gemini or Vertex countTokens body into the
// generation body it counts: its contents (and the rest) directly, or a
// generateContentRequest, without the model (the path names it).
func geminiCountBody(root gjson.Result) ([]byte, *Error) {
	inner := root.Get("generateContentRequest")
	if inner.Exists() {
		if !inner.IsObject() {
			return nil, wrongType("generateContentRequest", "an object", inner)
		}
		if root.Get("contents").Exists() {
			return nil, invalid("contents", "must not be set together with generateContentRequest")
		}
		root = inner
	}
	return appendMembers(nil, root, func(k string) bool { return k != "model" && k != "instances" }), nil
}

// anthropicCountFrame writes the count_tokens body of an Anthropic
// generation body.
func anthropicCountFrame(dst []byte, gen gjson.Result, _ *Request, _ *EncodeOptions) []byte {
	return appendMembers(dst, gen, keep(anthropicCountFields))
}

// vertexAnthropicCountFrame writes an Anthropic-on-Vertex count body: the
// Anthropic one, with the model in the body and an anthropic_version.
func vertexAnthropicCountFrame(dst []byte, gen gjson.Result, req *Request, opts *EncodeOptions) []byte {
	dst = anthropicCountFrame(dst, gen, req, opts)
	dst = dst[:len(dst)-1]
	dst = append(dst, `,"anthropic_version":`...)
	dst = jsonx.AppendString(dst, VertexAnthropicVersion)
	return append(dst, '}')
}

// responsesCountFrame writes the input_tokens body of a Responses
// generation body.
func responsesCountFrame(dst []byte, gen gjson.Result, _ *Request, _ *EncodeOptions) []byte {
	return appendMembers(dst, gen, keep(responsesCountFields))
}

// vertexCountFrame writes a Vertex countTokens body.
func vertexCountFrame(dst []byte, gen gjson.Result, _ *Request, _ *EncodeOptions) []byte {
	return appendMembers(dst, gen, keep(vertexCountFields))
}

// geminiCountFrame writes a Gemini API countTokens body: the whole
// generation request, with its model, as generateContentRequest.
func geminiCountFrame(dst []byte, gen gjson.Result, req *Request, opts *EncodeOptions) []byte {
	dst = append(dst, `{"generateContentRequest":{"model":`...)
	dst = jsonx.AppendString(dst, "models/"+strings.TrimPrefix(encodeModel(opts, req), "models/"))
	inner := appendMembers(nil, gen, func(string) bool { return true })
	if len(inner) > 2 {
		dst = append(dst, ',')
		dst = append(dst, inner[1:len(inner)-1]...)
	}
	return append(dst, `}}`...)
}

// DecodeCountResponse returns the number of input tokens in an upstream's
// token counting response of protocol p. A body that is not such a
// response is an *Error with status 502.
func DecodeCountResponse(p Protocol, body []byte) (int64, error) {
	if !HasTokenCount(p) {
		return 0, invalid("", "protocol "+string(p)+" has no token counting endpoint")
	}
	root, perr := parseObject(body)
	if perr != nil {
		return 0, badUpstream(p, "token count is not a JSON object")
	}
	c := p.Descriptor().Counting
	n := root.Get(c.Member)
	if !n.Exists() && c.OmitsZero {
		return 0, nil
	}
	if n.Type != gjson.Number || n.Int() < 0 || float64(n.Int()) != n.Num {
		return 0, badUpstream(p, "token count has no non-negative integer count")
	}
	return n.Int(), nil
}

// AppendCountResponse appends a count of n input tokens as protocol p's
// token counting response to dst (as Anthropic's for a protocol without
// one).
func AppendCountResponse(dst []byte, p Protocol, n int64) []byte {
	member, object := "input_tokens", ""
	if d := p.Descriptor(); d != nil && d.Counting.Member != "" {
		member, object = d.Counting.Member, d.Counting.Object
	}
	dst = append(dst, '{')
	if object != "" {
		dst = append(dst, `"object":`...)
		dst = jsonx.AppendString(dst, object)
		dst = append(dst, ',')
	}
	dst = jsonx.AppendString(dst, member)
	dst = append(dst, ':')
	dst = jsonx.AppendInt(dst, n)
	return append(dst, '}')
}

// keep returns a filter that keeps the members named in names.
func keep(names []string) func(string) bool {
	return func(k string) bool {
		for _, n := range names {
			if n == k {
				return true
			}
		}
		return false
	}
}

// appendMembers appends, as a JSON object, the members of object v whose
// key keep accepts, byte for byte.
func appendMembers(dst []byte, v gjson.Result, keep func(string) bool) []byte {
	dst = append(dst, '{')
	first := true
	v.ForEach(func(k, val gjson.Result) bool {
		if keep(k.String()) {
			if !first {
				dst = append(dst, ',')
			}
			first = false
			dst = append(dst, k.Raw...)
			dst = append(dst, ':')
			dst = append(dst, val.Raw...)
		}
		return true
	})
	return append(dst, '}')
}
