package chat

//go:generate go run ../internal/fieldgen/cmd/fieldgen

import (
	"net/url"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/wire"
)

func init() {
	codec.Register(codec.Descriptor{
		Name: codec.OpenAIChat,
		// Azure OpenAI's deployment paths end the same way and name the
		// model (the deployment) before it.
		Route:         codec.Route{Suffixes: []string{"/chat/completions"}, Deployments: "/openai/deployments"},
		Credential:    codec.Credential{AlsoHeader: "Api-Key"},
		ErrorParam:    true,
		Dialects:      true,
		FamilyHeaders: wire.OpenAIHeaders,
		Listing:       wire.OpenAIModelList,
		ResponseModel: []string{"model"},
		Rules:         rules,
		Fields:        fields,
	}, chatCodec{})
	codec.Register(codec.Descriptor{
		Name: codec.AzureOpenAI, Cloud: "azure", Family: codec.OpenAIChat,
		// Clients of Azure OpenAI are openai-chat clients (Route above):
		// the wire format is the same.
		Credential:    codec.Credential{Header: "Api-Key", AlsoBearer: true},
		ErrorParam:    true,
		ResponseModel: []string{"model"},
		Alternates:    []codec.Protocol{codec.AzureOpenAIResponses},
	}, chatCodec{})
}

// chatCodec is the codec of OpenAI Chat Completions.
type chatCodec struct{}

// request and response are what the family's decoders work on: the
// value being decoded, with the arena its strings are unescaped into.
type (
	request  = wire.Request
	response = wire.Response
)

// DecodeRequest decodes a Chat Completions request body.
func (chatCodec) DecodeRequest(_ codec.Protocol, body []byte, req *codec.Request) error {
	return wire.DecodeRequest(body, req, decodeChatRequest)
}

// AppendRequest encodes req as a Chat Completions request body.
func (chatCodec) AppendRequest(dst []byte, p codec.Protocol, req *codec.Request, opts codec.EncodeOptions) ([]byte, error) {
	dst, err := appendRequest(dst, req, &opts)
	if err == nil {
		// OpenAI's own prompt cache settings, which neither Azure nor
		// the OpenAI-compatible servers document.
		dst = wire.AppendPromptCache(dst[:len(dst)-1], req, p == codec.OpenAIChat && opts.Target.Dialect == nil, opts.Cache)
		dst = append(dst, '}')
	}
	return dst, wire.Err(err)
}

// DecodeResponse decodes a Chat Completions response body.
func (chatCodec) DecodeResponse(p codec.Protocol, body []byte, resp *codec.Response) error {
	return wire.DecodeResponse(p, body, resp, decodeResponse)
}

// AppendResponse encodes resp as a Chat Completions response body.
func (chatCodec) AppendResponse(dst []byte, _ codec.Protocol, resp *codec.Response, _ *codec.Request) ([]byte, error) {
	dst, err := appendResponse(dst, resp)
	return dst, wire.Err(err)
}

// NewStreamDecoder returns a decoder of a Chat Completions stream.
func (chatCodec) NewStreamDecoder(codec.Protocol) codec.StreamDecoder { return newStreamDecoder() }

// NewStreamEncoder returns an encoder of a Chat Completions stream for the client's
// request req.
func (chatCodec) NewStreamEncoder(_ codec.Protocol, req *codec.Request) codec.StreamEncoder {
	return newStreamEncoder(req)
}

// DecodeError reads the type, status or code of a Chat Completions error object.
func (chatCodec) DecodeError(_ codec.Protocol, errObject string, e *codec.Error) {
	wire.DecodeOpenAIError(errObject, e)
}

// AppendError encodes e as a Chat Completions error body.
func (chatCodec) AppendError(dst []byte, p codec.Protocol, e *codec.Error) []byte {
	return wire.AppendOpenAIError(dst, p, e)
}

// UpstreamPath returns the path of the generation endpoint: Azure
// OpenAI's versionless v1 path, or with an API version the deployment's
// path, which names the model.
func (chatCodec) UpstreamPath(p codec.Protocol, at codec.Location, model string, _ bool) (string, string) {
	switch {
	case p != codec.AzureOpenAI:
		return "/v1/chat/completions", ""
	case at.APIVersion == "":
		return "/openai/v1/chat/completions", ""
	}
	return "/openai/deployments/" + url.PathEscape(model) + "/chat/completions", "api-version=" + url.QueryEscape(at.APIVersion)
}

// DecodeModelList reads a model listing of the family's shape.
func (chatCodec) DecodeModelList(p codec.Protocol, body []byte, l *codec.ModelList) error {
	return wire.DecodeOpenAIModelList(p, body, l)
}

// AppendModelList writes l as a model listing of the family's shape.
func (chatCodec) AppendModelList(dst []byte, _ codec.Protocol, l *codec.ModelList, _ codec.ModelListOptions) []byte {
	return wire.AppendOpenAIModelList(dst, l)
}

// Interface guards
var (
	_ codec.Translator  = chatCodec{}
	_ codec.ModelLister = chatCodec{}
)
