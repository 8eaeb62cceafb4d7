package interactions

//go:generate go run ../internal/fieldgen/cmd/fieldgen

import (
	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/wire"
	"github.com/llmbridge/llmbridge/mapping"
	"github.com/tidwall/gjson"
)

// The protocols of the family.
const (
	// Gemini is the Interactions API of the Gemini API
	// (POST /v1beta/interactions; the SDKs call /v1/interactions too).
	Gemini codec.Protocol = "gemini-interactions"
	// Vertex is the Interactions API on Vertex AI
	// (POST /v1beta1/projects/{project}/locations/{region}/interactions,
	// the stream chosen by the body), with Google Cloud credentials.
	Vertex codec.Protocol = "vertex-interactions"
)

// ClientPaths are the paths at which clients create interactions: the
// REST reference's v1beta, and v1 and v1alpha, which the SDKs call.
var ClientPaths = []string{"/v1/interactions", "/v1beta/interactions", "/v1alpha/interactions"}

// vertexMethods are the tails of Vertex AI's create paths, which are
// recognised as the family's client route too, so that a request of a
// Vertex client reaches the family's codec; the body's stream member
// says whether it streams. The SDKs (google.golang.org/genai,
// @google/genai) post to the collection itself,
// /v1beta1/projects/{p}/locations/{l}/interactions; the REST reference
// also names the collection methods :create and :createStream.
var vertexMethods = []string{"/interactions:create", "/interactions:createStream", "/interactions"}

func init() {
	codec.Register(codec.Descriptor{
		Name:  Gemini,
		Route: codec.Route{Paths: ClientPaths, Suffixes: vertexMethods},
		// Vertex AI's clients, whose paths this route takes too, send an
		// OAuth token; the Gemini API takes one as well as a key.
		Credential:    codec.Credential{Header: "X-Goog-Api-Key", Query: "key", AlsoBearer: true},
		FamilyHeaders: []string{"Api-Revision"},
		PathHints:     []string{"/interactions"},
		Origin:        mapping.FamilyGemini,
		ResponseModel: []string{"model", "interaction.model"},
		Rules:         rules,
		Fields:        fields,
	}, interactionsCodec{})
	codec.Register(codec.Descriptor{
		Name: Vertex, Family: Gemini, Located: true, Cloud: "google",
		Origin:        mapping.FamilyGemini,
		ResponseModel: []string{"model", "interaction.model"},
	}, interactionsCodec{})
}

// interactionsCodec is the codec of the Interactions API, on the Gemini
// API and on Vertex AI.
type interactionsCodec struct{}

// request and response are what the family's decoders work on: the
// value being decoded, with the arena its strings are unescaped into.
type (
	request  = wire.Request
	response = wire.Response
)

// DecodeRequest decodes a create-interaction request body.
func (interactionsCodec) DecodeRequest(_ codec.Protocol, body []byte, req *codec.Request) error {
	return wire.DecodeRequest(body, req, decodeRequest)
}

// AppendRequest encodes req as a create-interaction request body.
func (interactionsCodec) AppendRequest(dst []byte, p codec.Protocol, req *codec.Request, opts codec.EncodeOptions) ([]byte, error) {
	dst, err := appendRequest(dst, p, req, &opts)
	return dst, wire.Err(err)
}

// DecodeResponse decodes an interaction.
func (interactionsCodec) DecodeResponse(p codec.Protocol, body []byte, resp *codec.Response) error {
	return wire.DecodeResponse(p, body, resp, func(root gjson.Result, r *response) *codec.Error {
		return decodeResponse(p, root, r)
	})
}

// AppendResponse encodes resp as an interaction.
func (interactionsCodec) AppendResponse(dst []byte, _ codec.Protocol, resp *codec.Response, req *codec.Request) ([]byte, error) {
	dst, err := appendResponse(dst, resp, req)
	return dst, wire.Err(err)
}

// NewStreamDecoder returns a decoder of an Interactions stream.
func (interactionsCodec) NewStreamDecoder(p codec.Protocol) codec.StreamDecoder {
	return newStreamDecoder(p)
}

// NewStreamEncoder returns an encoder of an Interactions stream for the
// client's request req.
func (interactionsCodec) NewStreamEncoder(_ codec.Protocol, req *codec.Request) codec.StreamEncoder {
	return newStreamEncoder(req)
}

// DecodeError reads the status name of an Interactions error object.
func (interactionsCodec) DecodeError(_ codec.Protocol, errObject string, e *codec.Error) {
	decodeGoogleError(gjson.Parse(errObject), e)
}

// AppendError encodes e as an Interactions error body.
func (interactionsCodec) AppendError(dst []byte, p codec.Protocol, e *codec.Error) []byte {
	return appendGoogleError(dst, p, e)
}

// UpstreamPath returns the path of the create endpoint, one path for
// both answers, where the body's stream member chooses: the Gemini API's,
// and on Vertex AI the location's interactions collection, where the SDKs
// post the same body. (The reference's :create and :createStream take the
// interaction wrapped in a CreateInteractionRequest, which no SDK sends.)
func (interactionsCodec) UpstreamPath(p codec.Protocol, at codec.Location, _ string, _ bool) (string, string) {
	if p != Vertex {
		return "/v1beta/interactions", ""
	}
	return "/v1beta1/projects/" + at.Project + "/locations/" + at.Region + "/interactions", ""
}

// Interface guards
var (
	_ codec.Translator = interactionsCodec{}
	_ codec.BodyFitter = interactionsCodec{}
)
