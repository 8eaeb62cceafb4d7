package gemini

//go:generate go run ../internal/fieldgen/cmd/fieldgen

import (
	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/wire"
	"github.com/llmbridge/llmbridge/mapping"
	"github.com/tidwall/gjson"
)

func init() {
	codec.Register(codec.Descriptor{
		Name: codec.Gemini, ModelInPath: true,
		Route:      codec.Route{Models: "/models", Method: "generateContent", StreamMethod: "streamGenerateContent"},
		Credential: codec.Credential{Header: "X-Goog-Api-Key", Query: "key"},
		Counting: codec.Counting{ModelInPath: true, Member: "totalTokens", OmitsZero: true,
			Route: codec.Route{Models: "/models", Method: "countTokens", Excludes: []string{"/publishers/"}}},
		PathHints:     []string{"/v1beta/"},
		Listing:       codec.Listing{Path: "/v1beta/models", Shape: codec.Gemini, PageSize: "pageSize", Paging: []string{"pageSize", "pageToken"}},
		Origin:        mapping.FamilyGemini,
		ResponseModel: []string{"modelVersion"},
		Rules:         rules,
		Fields:        fields,
	}, geminiCodec{})
	codec.Register(codec.Descriptor{
		Name: codec.Vertex, Family: codec.Gemini, ModelInPath: true, Located: true, Cloud: "google",
		Counting: codec.Counting{ModelInPath: true, Member: "totalTokens", OmitsZero: true,
			Route: codec.Route{Models: "/publishers/google/models", Method: "countTokens"}},
		PathHints:     []string{"/projects/"},
		Route:         codec.Route{Models: "/publishers/google/models", Method: "generateContent", StreamMethod: "streamGenerateContent"},
		Origin:        mapping.FamilyGemini,
		ResponseModel: []string{"modelVersion"},
	}, geminiCodec{})
}

// geminiCodec is the codec of the Gemini API and of Gemini on Vertex AI.
type geminiCodec struct{}

// request and response are what the family's decoders work on: the
// value being decoded, with the arena its strings are unescaped into.
type (
	request  = wire.Request
	response = wire.Response
)

// DecodeRequest decodes a Gemini request body.
func (geminiCodec) DecodeRequest(_ codec.Protocol, body []byte, req *codec.Request) error {
	return wire.DecodeRequest(body, req, decodeRequest)
}

// AppendRequest encodes req as a Gemini request body.
func (geminiCodec) AppendRequest(dst []byte, p codec.Protocol, req *codec.Request, opts codec.EncodeOptions) ([]byte, error) {
	dst, err := appendRequest(dst, req, &opts, p == codec.Vertex)
	return dst, wire.Err(err)
}

// DecodeResponse decodes a Gemini response body.
func (geminiCodec) DecodeResponse(p codec.Protocol, body []byte, resp *codec.Response) error {
	return wire.DecodeResponse(p, body, resp, decodeResponse)
}

// AppendResponse encodes resp as a Gemini response body.
func (geminiCodec) AppendResponse(dst []byte, _ codec.Protocol, resp *codec.Response, _ *codec.Request) ([]byte, error) {
	dst, err := appendResponse(dst, resp)
	return dst, wire.Err(err)
}

// NewStreamDecoder returns a decoder of a Gemini stream.
func (geminiCodec) NewStreamDecoder(p codec.Protocol) codec.StreamDecoder {
	return newStreamDecoder(p)
}

// NewStreamEncoder returns an encoder of a Gemini stream for the client's
// request req.
func (geminiCodec) NewStreamEncoder(_ codec.Protocol, req *codec.Request) codec.StreamEncoder {
	return newStreamEncoder(req)
}

// DecodeError reads the type, status or code of a Gemini error object.
func (geminiCodec) DecodeError(_ codec.Protocol, errObject string, e *codec.Error) {
	decodeGoogleError(gjson.Parse(errObject), e)
}

// AppendError encodes e as a Gemini error body.
func (geminiCodec) AppendError(dst []byte, p codec.Protocol, e *codec.Error) []byte {
	return appendGoogleError(dst, p, e)
}

// UpstreamPath returns the path of the generation endpoint.
func (geminiCodec) UpstreamPath(p codec.Protocol, at codec.Location, model string, stream bool) (string, string) {
	path := "/v1beta/models/" + model
	if p == codec.Vertex {
		path = vertexModel(at, model)
	}
	if stream {
		return path + ":streamGenerateContent", "alt=sse"
	}
	return path + ":generateContent", ""
}

// vertexModel is the path of a Google model on Vertex AI.
func vertexModel(at codec.Location, model string) string {
	return "/v1/projects/" + at.Project + "/locations/" + at.Region + "/publishers/google/models/" + model
}

// DecodeModelList reads a model listing of the family's shape.
func (geminiCodec) DecodeModelList(p codec.Protocol, body []byte, l *codec.ModelList) error {
	root, err := wire.ParseListing(p, body)
	if err != nil {
		return err
	}
	return wire.Err(decodeModelList(root, p, l))
}

// AppendModelList writes l as a model listing of the family's shape.
func (geminiCodec) AppendModelList(dst []byte, _ codec.Protocol, l *codec.ModelList, opts codec.ModelListOptions) []byte {
	return appendModelList(dst, l, opts)
}

// CountPath returns the path of the token counting endpoint.
func (geminiCodec) CountPath(p codec.Protocol, at codec.Location, model string) string {
	if p == codec.Vertex {
		return vertexModel(at, model) + ":countTokens"
	}
	return "/v1beta/models/" + model + ":countTokens"
}

// CountedBody returns the generation body a count request counts.
func (geminiCodec) CountedBody(_ codec.Protocol, body []byte) ([]byte, error) {
	root, err := wire.ParseObject(body)
	if err != nil {
		return nil, err
	}
	gen, err := countBody(root)
	return gen, wire.Err(err)
}

// AppendCountBody writes the count request body of a generation body.
func (geminiCodec) AppendCountBody(dst []byte, p codec.Protocol, gen []byte, req *codec.Request, opts codec.EncodeOptions) []byte {
	if p == codec.Vertex {
		return vertexCountFrame(dst, gjson.ParseBytes(gen))
	}
	return countFrame(dst, gjson.ParseBytes(gen), req, &opts)
}

// AdaptSibling adapts a body of the family's other protocol.
func (geminiCodec) AdaptSibling(p codec.Protocol, body []byte, from codec.Protocol, model string, _ bool) ([]byte, error) {
	if p == codec.Vertex {
		return vertexFromGemini(body, from, model)
	}
	return body, nil
}

// Interface guards
var (
	_ codec.Translator       = geminiCodec{}
	_ codec.ModelLister      = geminiCodec{}
	_ codec.TokenCounter     = geminiCodec{}
	_ codec.SiblingAdapter   = geminiCodec{}
	_ codec.ErrorBodyChecker = geminiCodec{}
)
