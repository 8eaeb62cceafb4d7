package chat

//go:generate go run ../internal/fieldgen/cmd/fieldgen

import (
	"sync"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/jsonx"
	"github.com/llmbridge/llmbridge/codec/internal/wire"
)

func init() {
	codec.Register(codec.Descriptor{
		Name:          codec.OpenAIChat,
		Route:         codec.Route{Suffixes: []string{"/chat/completions"}},
		ErrorParam:    true,
		Dialects:      true,
		FamilyHeaders: wire.OpenAIHeaders,
		Listing:       wire.OpenAIModelList,
		ResponseModel: []string{"model"},
		Fields:        fields,
	}, chatCodec{})
}

// chatCodec is the codec of OpenAI Chat Completions.
type chatCodec struct{}

// request is a request being decoded, with the arena its strings are
// unescaped into.
type request struct {
	*codec.Request
	text jsonx.Arena
}

// response is request's counterpart for a response being decoded.
type response struct {
	*codec.Response
	text jsonx.Arena
}

// The wrappers of requests and responses being decoded are reused: the
// decoders' closures make a wrapper escape to the heap, which would cost
// an allocation per decode.
var (
	requestPool  = sync.Pool{New: func() any { return new(request) }}
	responsePool = sync.Pool{New: func() any { return new(response) }}
)

// DecodeRequest decodes a Chat Completions request body.
func (chatCodec) DecodeRequest(_ codec.Protocol, body []byte, req *codec.Request) error {
	root, index, err := wire.ParseIndexed(body)
	if err != nil {
		return err
	}
	r := requestPool.Get().(*request)
	r.Request, r.text = req, jsonx.IndexedArena(index)
	err = decodeChatRequest(root, r)
	index.Release()
	*r = request{}
	requestPool.Put(r)
	return wire.Err(err)
}

// AppendRequest encodes req as a Chat Completions request body.
func (chatCodec) AppendRequest(dst []byte, _ codec.Protocol, req *codec.Request, opts codec.EncodeOptions) ([]byte, error) {
	dst, err := appendChatRequest(dst, req, &opts)
	return dst, wire.Err(err)
}

// DecodeResponse decodes a Chat Completions response body.
func (chatCodec) DecodeResponse(p codec.Protocol, body []byte, resp *codec.Response) error {
	root, index, err := wire.ParseResponse(p, body)
	if err != nil {
		return err
	}
	r := responsePool.Get().(*response)
	r.Response, r.text = resp, jsonx.IndexedArena(index)
	err = decodeChatResponse(root, r)
	index.Release()
	*r = response{}
	responsePool.Put(r)
	return wire.Err(err)
}

// AppendResponse encodes resp as a Chat Completions response body.
func (chatCodec) AppendResponse(dst []byte, _ codec.Protocol, resp *codec.Response, _ *codec.Request) ([]byte, error) {
	dst, err := appendChatResponse(dst, resp)
	return dst, wire.Err(err)
}

// NewStreamDecoder returns a decoder of a Chat Completions stream.
func (chatCodec) NewStreamDecoder(codec.Protocol) codec.StreamDecoder { return newChatStreamDecoder() }

// NewStreamEncoder returns an encoder of a Chat Completions stream for the client's
// request req.
func (chatCodec) NewStreamEncoder(_ codec.Protocol, req *codec.Request) codec.StreamEncoder {
	return newChatStreamEncoder(req)
}

// DecodeError reads the type, status or code of a Chat Completions error object.
func (chatCodec) DecodeError(_ codec.Protocol, errObject string, e *codec.Error) {
	wire.DecodeOpenAIError(errObject, e)
}

// AppendError encodes e as a Chat Completions error body.
func (chatCodec) AppendError(dst []byte, p codec.Protocol, e *codec.Error) []byte {
	return wire.AppendOpenAIError(dst, p, e)
}

// UpstreamPath returns the path of the generation endpoint.
func (chatCodec) UpstreamPath(codec.Protocol, codec.Location, string, bool) (string, string) {
	return "/v1/chat/completions", ""
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
	_ codec.Codec       = chatCodec{}
	_ codec.ModelLister = chatCodec{}
)
