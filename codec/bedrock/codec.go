package bedrock

//go:generate go run ../internal/fieldgen/cmd/fieldgen

import (
	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/wire"
	"github.com/llmbridge/llmbridge/mapping"
	"github.com/tidwall/gjson"
)

func init() {
	codec.Register(codec.Descriptor{
		Name: codec.Bedrock, ModelInPath: true, ModelEscaped: true, Cloud: "aws", Framing: codec.FramingEventStream,
		CacheBreakpoints: true,
		Route:            codec.Route{Models: "/model", Method: "converse", StreamMethod: "converse-stream", MethodSegment: true},
		// Bedrock API keys are sent as Authorization: Bearer, the zero
		// Credential; AWS credentials sign the request instead (Cloud).
		Credential: codec.Credential{},
		// Converse signatures come from Claude models, which issue
		// Anthropic's: they pass to Anthropic upstreams unchanged.
		Origin:          mapping.FamilyAnthropic,
		ErrorAtRoot:     true,
		ErrorTypeHeader: "X-Amzn-Errortype",
		VendorModel:     wire.BedrockVendorModel,
		// CountTokens counts Converse input toward a Converse upstream.
		// Its client path is InvokeModel's too, which bedrock-anthropic
		// serves: a client's count is recognised as that.
		Counting: codec.Counting{ModelInPath: true, Member: "inputTokens"},
		// Bedrock Runtime's paths: an unknown one is answered in AWS's
		// format.
		PathHints: []string{"/model/"},
		Rules:     rules,
		Fields:    fields,
	}, converseCodec{})
}

// rules is what the model rules know of Converse: it serves Claude with
// Anthropic's rules (Bedrock's other models have no rows, and their
// requests go as clients make them), and the request fields they change.
var rules = codec.ModelRules{Provider: "anthropic", Params: codec.RuleParams{
	Reasoning: "additionalModelRequestFields.thinking", Budget: "additionalModelRequestFields.thinking.budget_tokens",
	Level: "outputConfig.effort", MaxTokens: "inferenceConfig.maxTokens", Temperature: "inferenceConfig.temperature",
	TopP: "inferenceConfig.topP", TopK: "additionalModelRequestFields.top_k", Stop: "inferenceConfig.stopSequences",
	Presence: "presence_penalty", Frequency: "frequency_penalty", Messages: "messages", CacheTTL: "cachePoint.ttl"}}

// converseCodec is the codec of the Converse API of Amazon Bedrock.
type converseCodec struct{}

// request and response are what the family's decoders work on: the
// value being decoded, with the arena its strings are unescaped into.
type (
	request  = wire.Request
	response = wire.Response
)

// DecodeRequest decodes a Converse request body.
func (converseCodec) DecodeRequest(_ codec.Protocol, body []byte, req *codec.Request) error {
	return wire.DecodeRequest(body, req, decodeConverseRequest)
}

// AppendRequest encodes req as a Converse request body.
func (converseCodec) AppendRequest(dst []byte, _ codec.Protocol, req *codec.Request, opts codec.EncodeOptions) ([]byte, error) {
	dst, err := appendConverseRequest(dst, req, &opts)
	return dst, wire.Err(err)
}

// DecodeResponse decodes a Converse response body.
func (converseCodec) DecodeResponse(p codec.Protocol, body []byte, resp *codec.Response) error {
	return wire.DecodeResponse(p, body, resp, decodeConverseResponse)
}

// AppendResponse encodes resp as a Converse response body.
func (converseCodec) AppendResponse(dst []byte, _ codec.Protocol, resp *codec.Response, _ *codec.Request) ([]byte, error) {
	dst, err := appendConverseResponse(dst, resp)
	return dst, wire.Err(err)
}

// NewStreamDecoder returns a decoder of a ConverseStream stream.
func (converseCodec) NewStreamDecoder(p codec.Protocol) codec.StreamDecoder {
	return newConverseStreamDecoder(p)
}

// NewStreamEncoder returns an encoder of a ConverseStream stream.
func (converseCodec) NewStreamEncoder(codec.Protocol, *codec.Request) codec.StreamEncoder {
	return newConverseStreamEncoder()
}

// DecodeError reads the type of an AWS error object.
func (converseCodec) DecodeError(_ codec.Protocol, errObject string, e *codec.Error) {
	wire.DecodeAWSError(gjson.Parse(errObject), e)
}

// AppendError encodes e as an AWS error body.
func (converseCodec) AppendError(dst []byte, _ codec.Protocol, e *codec.Error) []byte {
	return wire.AppendAWSError(dst, e)
}

// UpstreamPath returns the escaped path of the generation endpoint: the
// AWS SDKs escape a model id's ':' and an ARN's '/', and SigV4 signs the
// escaped path, so the path is returned as it goes on the wire.
func (converseCodec) UpstreamPath(_ codec.Protocol, _ codec.Location, model string, stream bool) (string, string) {
	path := "/model/" + wire.AWSPathSegment(model)
	if stream {
		return path + "/converse-stream", ""
	}
	return path + "/converse", ""
}

// Interface guards
var (
	_ codec.Translator          = converseCodec{}
	_ codec.FramingErrorDecoder = converseCodec{}
	_ codec.BodyFitter          = converseCodec{}
)
