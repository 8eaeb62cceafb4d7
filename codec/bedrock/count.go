package bedrock

import (
	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/wire"
	"github.com/tidwall/gjson"
)

// converseCountFields are the members of a Converse body that Bedrock's
// CountTokens counts (input.converse: ConverseTokensRequest).
var converseCountFields = []string{"messages", "system", "toolConfig", "additionalModelRequestFields"}

// CountPath returns the path of Bedrock's CountTokens for model, escaped
// as UpstreamPath's.
func (converseCodec) CountPath(_ codec.Protocol, _ codec.Location, model string) string {
	return "/model/" + wire.AWSPathSegment(model) + "/count-tokens"
}

// CountedBody returns the Converse body that a CountTokens request of
// Converse input ({"input":{"converse":{…}}}) counts.
func (converseCodec) CountedBody(_ codec.Protocol, body []byte) ([]byte, error) {
	root, err := wire.ParseObject(body)
	if err != nil {
		return nil, err
	}
	c := root.Get("input.converse")
	if !c.IsObject() {
		return nil, codec.InvalidRequest("input.converse", "is required: the Converse input to count")
	}
	return []byte(c.Raw), nil
}

// AppendCountBody appends the CountTokens body that counts gen, a
// Converse body: its messages, system prompt, tools and model fields in
// input.converse.
func (converseCodec) AppendCountBody(dst []byte, _ codec.Protocol, gen []byte, _ *codec.Request, _ codec.EncodeOptions) []byte {
	dst = append(dst, `{"input":{"converse":`...)
	dst = wire.AppendMembers(dst, gjson.ParseBytes(gen), wire.Keep(converseCountFields))
	return append(dst, "}}"...)
}

// Interface guard
var _ codec.TokenCounter = converseCodec{}
