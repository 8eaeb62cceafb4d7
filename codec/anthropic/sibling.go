package anthropic

import (
	"github.com/llmbridge/llmbridge/codec"
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// anthropicFromVertex adapts an Anthropic-on-Vertex body to the
// first-party API: the model in the body, no anthropic_version.
func anthropicFromVertex(body []byte, from codec.Protocol, model string) ([]byte, error) {
	if from != codec.VertexAnthropic {
		return body, nil
	}
	body, err := sjson.DeleteBytes(body, "anthropic_version")
	if err != nil {
		return nil, err
	}
	return sjson.SetBytes(body, "model", model)
}

// vertexAnthropicFromFirstParty adapts a first-party Anthropic body to
// Vertex: no model, and an anthropic_version (VertexAnthropicVersion when
// the client gave none).
func vertexAnthropicFromFirstParty(body []byte, from codec.Protocol, _ string) ([]byte, error) {
	if from != codec.AnthropicMessages {
		return body, nil
	}
	body, err := sjson.DeleteBytes(body, "model")
	if err == nil && !gjson.GetBytes(body, "anthropic_version").Exists() {
		body, err = sjson.SetBytes(body, "anthropic_version", codec.VertexAnthropicVersion)
	}
	return body, err
}
