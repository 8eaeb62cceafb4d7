package caddymodule

import (
	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/mapping"
)

// adaptSibling adapts a passthrough body of protocol client to upstream, a
// sibling of one wire family (codec.Descriptor.AdaptSibling): Anthropic on
// Vertex and Bedrock carries anthropic_version instead of model, Bedrock
// streams by its path, and Vertex rejects the call ids of Gemini API
// bodies. Every other byte is kept.
func adaptSibling(body []byte, client, upstream codec.Protocol, model string, stream bool) ([]byte, *codec.Error) {
	body, err := upstream.Descriptor().AdaptSibling(body, client, model, stream)
	if err != nil {
		return nil, codec.NewError(mapping.ErrInvalidRequest, "request body could not be adapted: "+err.Error())
	}
	return body, nil
}
