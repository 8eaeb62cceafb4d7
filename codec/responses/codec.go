package responses

//go:generate go run ../internal/fieldgen/cmd/fieldgen

import (
	"net/url"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/wire"
	"github.com/llmbridge/llmbridge/mapping"
	"github.com/tidwall/gjson"
)

func init() {
	codec.Register(codec.Descriptor{
		Name: codec.OpenAIResponses,
		// Responses and Messages need their /v1: /v1/threads/{id}/messages
		// is OpenAI's Assistants API, not Anthropic's.
		// Azure OpenAI's versioned Responses path is /openai/responses.
		Route:      codec.Route{Suffixes: []string{"/v1/responses", "/openai/responses"}, Paths: []string{"/responses"}},
		Credential: codec.Credential{AlsoHeader: "Api-Key"},
		ErrorParam: true,
		Dialects:   true,
		Counting: codec.Counting{ModelOptional: true, Member: "input_tokens", Object: "response.input_tokens",
			Route: codec.Route{Suffixes: []string{"/v1/responses/input_tokens"}}},
		FamilyHeaders: wire.OpenAIHeaders,
		Listing:       wire.OpenAIModelList,
		Origin:        mapping.FamilyOpenAI,
		ResponseModel: []string{"model", "response.model"},
		Rules:         rules,
		Fields:        fields,
	}, responsesCodec{})
	codec.Register(codec.Descriptor{
		Name: codec.AzureOpenAIResponses, Cloud: "azure", Family: codec.OpenAIResponses,
		// Clients of Azure OpenAI are openai-responses clients (Route
		// above): the wire format is the same.
		Credential:    codec.Credential{Header: "Api-Key", AlsoBearer: true},
		ErrorParam:    true,
		Origin:        mapping.FamilyOpenAI,
		ResponseModel: []string{"model", "response.model"},
		Alternates:    []codec.Protocol{codec.AzureOpenAI},
	}, responsesCodec{})
}

// responsesCodec is the codec of the OpenAI Responses API.
type responsesCodec struct{}

// request and response are what the family's decoders work on: the
// value being decoded, with the arena its strings are unescaped into.
type (
	request  = wire.Request
	response = wire.Response
)

// DecodeRequest decodes a Responses request body.
func (responsesCodec) DecodeRequest(_ codec.Protocol, body []byte, req *codec.Request) error {
	return wire.DecodeRequest(body, req, decodeRequest)
}

// AppendRequest encodes req as a Responses request body.
func (responsesCodec) AppendRequest(dst []byte, p codec.Protocol, req *codec.Request, opts codec.EncodeOptions) ([]byte, error) {
	dst, err := appendRequest(dst, req, &opts)
	if err == nil {
		// OpenAI's own prompt cache settings, which Azure does not
		// document.
		dst = wire.AppendPromptCache(dst[:len(dst)-1], req, p == codec.OpenAIResponses, opts.Cache)
		dst = append(dst, '}')
	}
	return dst, wire.Err(err)
}

// DecodeResponse decodes a Responses response body.
func (responsesCodec) DecodeResponse(p codec.Protocol, body []byte, resp *codec.Response) error {
	return wire.DecodeResponse(p, body, resp, decodeResponse)
}

// AppendResponse encodes resp as a Responses response body.
func (responsesCodec) AppendResponse(dst []byte, _ codec.Protocol, resp *codec.Response, req *codec.Request) ([]byte, error) {
	dst, err := appendResponse(dst, resp, req)
	return dst, wire.Err(err)
}

// NewStreamDecoder returns a decoder of a Responses stream.
func (responsesCodec) NewStreamDecoder(codec.Protocol) codec.StreamDecoder {
	return newStreamDecoder()
}

// NewStreamEncoder returns an encoder of a Responses stream for the client's
// request req.
func (responsesCodec) NewStreamEncoder(_ codec.Protocol, req *codec.Request) codec.StreamEncoder {
	return newStreamEncoder(req)
}

// DecodeError reads the type, status or code of a Responses error object.
func (responsesCodec) DecodeError(_ codec.Protocol, errObject string, e *codec.Error) {
	wire.DecodeOpenAIError(errObject, e)
}

// AppendError encodes e as a Responses error body.
func (responsesCodec) AppendError(dst []byte, p codec.Protocol, e *codec.Error) []byte {
	return wire.AppendOpenAIError(dst, p, e)
}

// UpstreamPath returns the path of the generation endpoint: Azure
// OpenAI's versionless v1 path, or its path for an API version.
func (responsesCodec) UpstreamPath(p codec.Protocol, at codec.Location, _ string, _ bool) (string, string) {
	switch {
	case p != codec.AzureOpenAIResponses:
		return "/v1/responses", ""
	case at.APIVersion == "":
		return "/openai/v1/responses", ""
	}
	return "/openai/responses", "api-version=" + url.QueryEscape(at.APIVersion)
}

// CountPath returns the path of the token counting endpoint.
func (responsesCodec) CountPath(codec.Protocol, codec.Location, string) string {
	return "/v1/responses/input_tokens"
}

// CountedBody returns the generation body a count request counts.
func (responsesCodec) CountedBody(_ codec.Protocol, body []byte) ([]byte, error) { return body, nil }

// AppendCountBody writes the input_tokens body of a Responses generation
// body: its members that input_tokens takes.
func (responsesCodec) AppendCountBody(dst []byte, _ codec.Protocol, gen []byte, _ *codec.Request, _ codec.EncodeOptions) []byte {
	return wire.AppendMembers(dst, gjson.ParseBytes(gen), wire.Keep(countFields))
}

// Interface guards
var (
	_ codec.Translator   = responsesCodec{}
	_ codec.TokenCounter = responsesCodec{}
)
