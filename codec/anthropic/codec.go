package anthropic

//go:generate go run ../internal/fieldgen/cmd/fieldgen

import (
	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/jsonx"
	"github.com/llmbridge/llmbridge/codec/internal/wire"
	"github.com/llmbridge/llmbridge/mapping"
	"github.com/tidwall/gjson"
)

func init() {
	codec.Register(codec.Descriptor{
		Name:          codec.AnthropicMessages,
		Route:         codec.Route{Suffixes: []string{"/v1/messages"}, Paths: []string{"/messages"}},
		Credential:    codec.Credential{Header: "X-Api-Key", AlsoBearer: true},
		Headers:       [][2]string{{"Anthropic-Version", "2023-06-01"}},
		FamilyHeaders: anthropicHeaders,
		Counting:      codec.Counting{Member: "input_tokens", Route: codec.Route{Suffixes: []string{"/v1/messages/count_tokens"}}},
		Listing:       codec.Listing{Path: "/v1/models", Shape: codec.AnthropicMessages, PageSize: "limit", Paging: []string{"limit", "after_id", "before_id"}},
		Origin:        mapping.FamilyAnthropic,
		ResponseModel: anthropicResponseModel,
		Overloaded529: true,
		Fields:        fields,
	}, anthropicCodec{})
	codec.Register(codec.Descriptor{
		Name: codec.VertexAnthropic, Family: codec.AnthropicMessages, ModelInPath: true, Located: true, Cloud: "google",
		Route:         codec.Route{Models: "/publishers/anthropic/models", Method: "rawPredict", StreamMethod: "streamRawPredict"},
		FamilyHeaders: anthropicHeaders,
		Counting: codec.Counting{Member: "input_tokens", BodyProtocol: codec.AnthropicMessages,
			Route: codec.Route{Suffixes: []string{"/publishers/anthropic/models/count-tokens:rawPredict"}}},
		PathHints: []string{"/publishers/anthropic/"},
		// The version travels in the body (anthropic_version) on Vertex.
		DropHeaders: []string{"Anthropic-Version"},
		// Vertex answers a request with an anthropic-beta value it does
		// not carry with a 400 ("Unexpected value(s) ... for the
		// anthropic-beta header").
		Betas:         vertexBetas,
		Origin:        mapping.FamilyAnthropic,
		ResponseModel: anthropicResponseModel,
		Overloaded529: true,
	}, anthropicCodec{})
}

// vertexBetas are the anthropic-beta values Anthropic on Vertex AI is
// known to accept: the ones Claude Code's own Vertex mode sends, and
// context management.
var vertexBetas = map[string]bool{
	"claude-code-20250219":            true,
	"interleaved-thinking-2025-05-14": true,
	"context-management-2025-06-27":   true,
	"tool-search-tool-2025-10-19":     true,
	"web-search-2025-03-05":           true,
}

// anthropicResponseModel are where Messages responses and stream events
// name the model.
var anthropicResponseModel = []string{"model", "message.model"}

// anthropicHeaders are the headers only Anthropic's servers read.
var anthropicHeaders = []string{"Anthropic-Version", "Anthropic-Beta"}

// anthropicCodec is the codec of Anthropic Messages, first-party and on
// Vertex AI.
type anthropicCodec struct{}

// request and response are what the family's decoders work on: the
// value being decoded, with the arena its strings are unescaped into.
type (
	request  = wire.Request
	response = wire.Response
)

// DecodeRequest decodes a Messages request body.
func (anthropicCodec) DecodeRequest(p codec.Protocol, body []byte, req *codec.Request) error {
	if p == codec.VertexAnthropic {
		return wire.DecodeRequest(body, req, decodeVertexAnthropicRequest)
	}
	return wire.DecodeRequest(body, req, decodeFirstPartyAnthropicRequest)
}

// decodeFirstPartyAnthropicRequest and decodeVertexAnthropicRequest are
// decodeAnthropicRequest for each protocol: function values, not closures,
// so that passing one costs no allocation.
func decodeFirstPartyAnthropicRequest(root gjson.Result, req *request) *codec.Error {
	return decodeAnthropicRequest(root, req, false)
}

func decodeVertexAnthropicRequest(root gjson.Result, req *request) *codec.Error {
	return decodeAnthropicRequest(root, req, true)
}

// AppendRequest encodes req as a Messages request body.
func (anthropicCodec) AppendRequest(dst []byte, p codec.Protocol, req *codec.Request, opts codec.EncodeOptions) ([]byte, error) {
	dst, err := appendAnthropicRequest(dst, req, &opts, p == codec.VertexAnthropic)
	return dst, wire.Err(err)
}

// DecodeResponse decodes a Messages response body.
func (anthropicCodec) DecodeResponse(p codec.Protocol, body []byte, resp *codec.Response) error {
	return wire.DecodeResponse(p, body, resp, decodeAnthropicResponse)
}

// AppendResponse encodes resp as a Messages response body.
func (anthropicCodec) AppendResponse(dst []byte, _ codec.Protocol, resp *codec.Response, _ *codec.Request) ([]byte, error) {
	dst, err := appendAnthropicResponse(dst, resp)
	return dst, wire.Err(err)
}

// NewStreamDecoder returns a decoder of a Messages stream.
func (anthropicCodec) NewStreamDecoder(p codec.Protocol) codec.StreamDecoder {
	return newAnthropicStreamDecoder(p)
}

// NewStreamEncoder returns an encoder of a Messages stream for the client's
// request req.
func (anthropicCodec) NewStreamEncoder(_ codec.Protocol, req *codec.Request) codec.StreamEncoder {
	return newAnthropicStreamEncoder(req)
}

// DecodeError reads the type, status or code of a Messages error object.
func (anthropicCodec) DecodeError(_ codec.Protocol, errObject string, e *codec.Error) {
	decodeAnthropicError(gjson.Parse(errObject), e)
}

// AppendError encodes e as a Messages error body.
func (anthropicCodec) AppendError(dst []byte, p codec.Protocol, e *codec.Error) []byte {
	return appendAnthropicError(dst, p, e)
}

// UpstreamPath returns the path of the generation endpoint.
func (anthropicCodec) UpstreamPath(p codec.Protocol, at codec.Location, model string, stream bool) (string, string) {
	if p != codec.VertexAnthropic {
		return "/v1/messages", ""
	}
	if stream {
		return vertexModel(at, model) + ":streamRawPredict", ""
	}
	return vertexModel(at, model) + ":rawPredict", ""
}

// vertexModel is the path of an Anthropic model on Vertex AI.
func vertexModel(at codec.Location, model string) string {
	return "/v1/projects/" + at.Project + "/locations/" + at.Region + "/publishers/anthropic/models/" + model
}

// DecodeModelList reads a model listing of the family's shape.
func (anthropicCodec) DecodeModelList(p codec.Protocol, body []byte, l *codec.ModelList) error {
	root, err := wire.ParseListing(p, body)
	if err != nil {
		return err
	}
	return wire.Err(decodeAnthropicModelList(root, p, l))
}

// AppendModelList writes l as a model listing of the family's shape.
func (anthropicCodec) AppendModelList(dst []byte, _ codec.Protocol, l *codec.ModelList, opts codec.ModelListOptions) []byte {
	return appendAnthropicModelList(dst, l, opts)
}

// CountPath returns the path of the token counting endpoint.
func (anthropicCodec) CountPath(p codec.Protocol, at codec.Location, _ string) string {
	if p == codec.VertexAnthropic {
		return vertexModel(at, "count-tokens") + ":rawPredict"
	}
	return "/v1/messages/count_tokens"
}

// CountedBody returns the first-party Messages body a count request
// counts: on Vertex, the count body without its anthropic_version.
func (anthropicCodec) CountedBody(p codec.Protocol, body []byte) ([]byte, error) {
	if p != codec.VertexAnthropic {
		return body, nil
	}
	root, err := wire.ParseObject(body)
	if err != nil {
		return nil, err
	}
	return wire.AppendMembers(nil, root, func(k string) bool { return k != "anthropic_version" }), nil
}

// AppendCountBody writes the count_tokens body of a Messages generation
// body: the members count_tokens takes, and on Vertex the
// anthropic_version.
func (anthropicCodec) AppendCountBody(dst []byte, p codec.Protocol, gen []byte, _ *codec.Request, _ codec.EncodeOptions) []byte {
	dst = wire.AppendMembers(dst, gjson.ParseBytes(gen), wire.Keep(anthropicCountFields))
	if p != codec.VertexAnthropic {
		return dst
	}
	dst = dst[:len(dst)-1]
	dst = append(dst, `,"anthropic_version":`...)
	dst = jsonx.AppendString(dst, codec.VertexAnthropicVersion)
	return append(dst, '}')
}

// AdaptSibling adapts a body of the family's other protocol.
func (anthropicCodec) AdaptSibling(p codec.Protocol, body []byte, from codec.Protocol, model string) ([]byte, error) {
	if p == codec.VertexAnthropic {
		return vertexAnthropicFromFirstParty(body, from, model)
	}
	return anthropicFromVertex(body, from, model)
}

// Interface guards
var (
	_ codec.Codec          = anthropicCodec{}
	_ codec.ModelLister    = anthropicCodec{}
	_ codec.TokenCounter   = anthropicCodec{}
	_ codec.SiblingAdapter = anthropicCodec{}
)
