package anthropic

import (
	"github.com/llmbridge/llmbridge/codec"
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// adaptSibling adapts body, a request of protocol from, to p,
// another protocol of the family, going to model, streamed or not:
//   - the first-party API names the model in the body and streams when
//     the body says "stream": true;
//   - Vertex names the model in the path, carries an anthropic_version
//     (its own, or the client's Vertex version) and the stream member;
//   - Bedrock names the model in the path, carries Bedrock's
//     anthropic_version and streams by its path alone: it rejects a model
//     or stream member.
//
// The anthropic_beta member of a Bedrock body is the HTTP layer's to
// carry (Descriptor.BodyBetas); it is removed for the other protocols.
// Every other byte is kept.
func adaptSibling(p codec.Protocol, body []byte, from codec.Protocol, model string, stream bool) ([]byte, error) {
	if p == from {
		return body, nil
	}
	var err error
	set := func(path string, v any) {
		if err == nil {
			body, err = sjson.SetBytes(body, path, v)
		}
	}
	del := func(path string) {
		if err == nil && gjson.GetBytes(body, path).Exists() {
			body, err = sjson.DeleteBytes(body, path)
		}
	}
	if from == codec.BedrockAnthropic {
		del("anthropic_beta")
	}
	switch p {
	case codec.AnthropicMessages:
		del("anthropic_version")
		set("model", model)
		if from == codec.BedrockAnthropic && stream {
			set("stream", true)
		}
	case codec.VertexAnthropic:
		del("model")
		if from != codec.VertexAnthropic {
			// A Bedrock version means nothing to Vertex; a first-party
			// body has none.
			del("anthropic_version")
			set("anthropic_version", VertexVersion)
		}
		if from == codec.BedrockAnthropic && stream {
			set("stream", true)
		}
	case codec.BedrockAnthropic:
		del("model")
		del("stream")
		set("anthropic_version", BedrockVersion)
	}
	return body, err
}
