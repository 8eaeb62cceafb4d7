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
		Name:             codec.AnthropicMessages,
		CacheBreakpoints: true,
		Route:            codec.Route{Suffixes: []string{"/v1/messages"}, Paths: []string{"/messages"}},
		Credential:       codec.Credential{Header: "X-Api-Key", AlsoBearer: true},
		Headers:          [][2]string{{"Anthropic-Version", "2023-06-01"}},
		FamilyHeaders:    headers,
		Counting:         codec.Counting{Member: "input_tokens", Route: codec.Route{Suffixes: []string{"/v1/messages/count_tokens"}}},
		Listing:          codec.Listing{Path: "/v1/models", Shape: codec.AnthropicMessages, PageSize: "limit", Paging: []string{"limit", "after_id", "before_id"}},
		Origin:           mapping.FamilyAnthropic,
		ResponseModel:    responseModel,
		Rules:            rules,
		Fields:           fields,
	}, anthropicCodec{})
	codec.Register(codec.Descriptor{
		Name: codec.VertexAnthropic, Family: codec.AnthropicMessages, ModelInPath: true, Located: true, Cloud: "google",
		CacheBreakpoints: true,
		Route:            codec.Route{Models: "/publishers/anthropic/models", Method: "rawPredict", StreamMethod: "streamRawPredict"},
		FamilyHeaders:    headers,
		Counting: codec.Counting{Member: "input_tokens", BodyProtocol: codec.AnthropicMessages,
			Route: codec.Route{Suffixes: []string{"/publishers/anthropic/models/count-tokens:rawPredict"}}},
		PathHints: []string{"/publishers/anthropic/"},
		// The version travels in the body (anthropic_version) on Vertex.
		DropHeaders: []string{"Anthropic-Version"},
		// Vertex answers a request with an anthropic-beta value it does
		// not carry with a 400 ("Unexpected value(s) ... for the
		// anthropic-beta header").
		Betas: vertexBetas,
		// The 1M-token context is taken in the body's anthropic_beta
		// and refused in the header.
		BodyOnlyBetas: map[string]bool{"context-1m-2025-08-07": true},
		Origin:        mapping.FamilyAnthropic,
		ResponseModel: responseModel,
	}, anthropicCodec{})
	codec.Register(codec.Descriptor{
		Name: codec.BedrockAnthropic, Family: codec.AnthropicMessages, ModelInPath: true, ModelEscaped: true, Cloud: "aws",
		CacheBreakpoints: true,
		Route:            codec.Route{Models: "/model", Method: "invoke", StreamMethod: "invoke-with-response-stream", MethodSegment: true},
		// Bedrock API keys are bearer tokens; without one, requests are
		// signed with SigV4.
		Credential:    codec.Credential{},
		Framing:       codec.FramingEventChunks,
		FamilyHeaders: headers,
		// The version and the beta values travel in the body on Bedrock
		// (anthropic_version, anthropic_beta).
		DropHeaders: []string{"Anthropic-Version", "Anthropic-Beta"},
		BodyBetas:   "anthropic_beta",
		// Bedrock answers an anthropic_beta value it does not carry with
		// a 400 ("invalid beta flag").
		Betas:           bedrockBetas,
		ErrorAtRoot:     true,
		ErrorTypeHeader: "X-Amzn-Errortype",
		MetricsHeaders:  true,
		VendorModel:     wire.BedrockVendorModel,
		// Bedrock Runtime's paths: an unknown one is answered in AWS's
		// format.
		PathHints:     []string{"/model/", "/inference-profiles"},
		Origin:        mapping.FamilyAnthropic,
		ResponseModel: responseModel,
		// CountTokens counts an InvokeModel body, carried base64-encoded
		// in input.invokeModel.body.
		Counting: codec.Counting{ModelInPath: true, Member: "inputTokens",
			Route: codec.Route{Models: "/model", Method: "count-tokens", MethodSegment: true}},
	}, anthropicCodec{})
}

// bedrockBetas are the anthropic_beta values Amazon Bedrock documents for
// Claude, and the ones Claude Code's own Bedrock mode sends in the body.
var bedrockBetas = map[string]bool{
	"computer-use-2024-10-22":          true,
	"computer-use-2025-01-24":          true,
	"token-efficient-tools-2025-02-19": true,
	"interleaved-thinking-2025-05-14":  true,
	"output-128k-2025-02-19":           true,
	"dev-full-thinking-2025-05-14":     true,
	"context-1m-2025-08-07":            true,
	"context-management-2025-06-27":    true,
	"effort-2025-11-24":                true,
	"tool-search-tool-2025-10-19":      true,
	"tool-examples-2025-10-29":         true,
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

// responseModel are where Messages responses and stream events
// name the model.
var responseModel = []string{"model", "message.model"}

// headers are the headers only Anthropic's servers read.
var headers = []string{"Anthropic-Version", "Anthropic-Beta"}

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
	switch p {
	case codec.VertexAnthropic:
		return wire.DecodeRequest(body, req, decodeVertexAnthropicRequest)
	case codec.BedrockAnthropic:
		return wire.DecodeRequest(body, req, decodeBedrockAnthropicRequest)
	}
	return wire.DecodeRequest(body, req, decodeFirstPartyAnthropicRequest)
}

// decodeFirstPartyAnthropicRequest, decodeVertexAnthropicRequest and
// decodeBedrockAnthropicRequest are decodeRequest for each
// protocol: function values, not closures, so that passing one costs no
// allocation.
func decodeFirstPartyAnthropicRequest(root gjson.Result, req *request) *codec.Error {
	return decodeRequest(root, req, codec.AnthropicMessages)
}

func decodeVertexAnthropicRequest(root gjson.Result, req *request) *codec.Error {
	return decodeRequest(root, req, codec.VertexAnthropic)
}

func decodeBedrockAnthropicRequest(root gjson.Result, req *request) *codec.Error {
	return decodeRequest(root, req, codec.BedrockAnthropic)
}

// AppendRequest encodes req as a Messages request body.
func (anthropicCodec) AppendRequest(dst []byte, p codec.Protocol, req *codec.Request, opts codec.EncodeOptions) ([]byte, error) {
	dst, err := appendRequest(dst, req, &opts, p)
	return dst, wire.Err(err)
}

// DecodeResponse decodes a Messages response body.
func (anthropicCodec) DecodeResponse(p codec.Protocol, body []byte, resp *codec.Response) error {
	return wire.DecodeResponse(p, body, resp, decodeResponse)
}

// AppendResponse encodes resp as a Messages response body.
func (anthropicCodec) AppendResponse(dst []byte, _ codec.Protocol, resp *codec.Response, _ *codec.Request) ([]byte, error) {
	dst, err := appendResponse(dst, resp)
	return dst, wire.Err(err)
}

// NewStreamDecoder returns a decoder of a Messages stream.
func (anthropicCodec) NewStreamDecoder(p codec.Protocol) codec.StreamDecoder {
	return newStreamDecoder(p)
}

// NewStreamEncoder returns an encoder of a Messages stream for the client's
// request req.
func (anthropicCodec) NewStreamEncoder(p codec.Protocol, req *codec.Request) codec.StreamEncoder {
	return newStreamEncoder(p, req)
}

// DecodeError reads the type, status or code of a Messages error object,
// or on Bedrock of an AWS error.
func (anthropicCodec) DecodeError(p codec.Protocol, errObject string, e *codec.Error) {
	if p == codec.BedrockAnthropic {
		wire.DecodeAWSError(gjson.Parse(errObject), e)
		return
	}
	decodeError(gjson.Parse(errObject), e)
}

// AppendError encodes e as a Messages error body.
func (anthropicCodec) AppendError(dst []byte, p codec.Protocol, e *codec.Error) []byte {
	if p == codec.BedrockAnthropic {
		return wire.AppendAWSError(dst, e)
	}
	return appendError(dst, p, e)
}

// UpstreamPath returns the path of the generation endpoint.
func (anthropicCodec) UpstreamPath(p codec.Protocol, at codec.Location, model string, stream bool) (string, string) {
	switch p {
	case codec.BedrockAnthropic:
		// Escaped as the AWS SDKs do (a model id's ':' as %3A, an
		// inference profile ARN's '/' as %2F): SigV4 signs this path.
		if stream {
			return "/model/" + wire.AWSPathSegment(model) + "/invoke-with-response-stream", ""
		}
		return "/model/" + wire.AWSPathSegment(model) + "/invoke", ""
	case codec.AnthropicMessages:
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
	return wire.Err(decodeModelList(root, p, l))
}

// AppendModelList writes l as a model listing of the family's shape.
func (anthropicCodec) AppendModelList(dst []byte, _ codec.Protocol, l *codec.ModelList, opts codec.ModelListOptions) []byte {
	return appendModelList(dst, l, opts)
}

// CountPath returns the path of the token counting endpoint.
func (anthropicCodec) CountPath(p codec.Protocol, at codec.Location, model string) string {
	switch p {
	case codec.VertexAnthropic:
		return vertexModel(at, "count-tokens") + ":rawPredict"
	case codec.BedrockAnthropic:
		return "/model/" + wire.AWSPathSegment(model) + "/count-tokens"
	}
	return "/v1/messages/count_tokens"
}

// CountedBody returns the first-party Messages body a count request
// counts: on Vertex, the count body without its anthropic_version.
func (anthropicCodec) CountedBody(p codec.Protocol, body []byte) ([]byte, error) {
	switch p {
	case codec.BedrockAnthropic:
		return bedrockCountedBody(body)
	case codec.AnthropicMessages:
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
	if p == codec.BedrockAnthropic {
		return appendBedrockCountBody(dst, gen)
	}
	dst = wire.AppendMembers(dst, gjson.ParseBytes(gen), wire.Keep(countFields))
	if p != codec.VertexAnthropic {
		return dst
	}
	dst = dst[:len(dst)-1]
	dst = append(dst, `,"anthropic_version":`...)
	dst = jsonx.AppendString(dst, VertexVersion)
	return append(dst, '}')
}

// AdaptSibling adapts a body of another protocol of the family.
func (anthropicCodec) AdaptSibling(p codec.Protocol, body []byte, from codec.Protocol, model string, stream bool) ([]byte, error) {
	return adaptSibling(p, body, from, model, stream)
}

// Interface guards
var (
	_ codec.Translator          = anthropicCodec{}
	_ codec.ModelLister         = anthropicCodec{}
	_ codec.TokenCounter        = anthropicCodec{}
	_ codec.SiblingAdapter      = anthropicCodec{}
	_ codec.FramingErrorDecoder = anthropicCodec{}
	_ codec.MetricsReporter     = anthropicCodec{}
	_ codec.StatusMapper        = anthropicCodec{}
)
