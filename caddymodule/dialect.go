package caddymodule

import (
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/mapping"
)

// editDialect adapts a body between two protocols of one wire family. The
// Gemini API and Vertex share bodies exactly; Anthropic on Vertex differs
// from the first-party API only in carrying anthropic_version instead of
// model. Every other byte is kept.
func editDialect(body []byte, client, upstream codec.Protocol, model string) ([]byte, *codec.Error) {
	var err error
	switch {
	case client == codec.AnthropicMessages && upstream == codec.VertexAnthropic:
		body, err = sjson.DeleteBytes(body, "model")
		if err == nil && !gjson.GetBytes(body, "anthropic_version").Exists() {
			body, err = sjson.SetBytes(body, "anthropic_version", codec.VertexAnthropicVersion)
		}
	case client == codec.VertexAnthropic && upstream == codec.AnthropicMessages:
		body, err = sjson.DeleteBytes(body, "anthropic_version")
		if err == nil {
			body, err = sjson.SetBytes(body, "model", model)
		}
	}
	if err != nil {
		return nil, codec.NewError(mapping.ErrInvalidRequest, "request body could not be adapted: "+err.Error())
	}
	return body, nil
}
