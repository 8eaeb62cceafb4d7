package codec_test

import (
	"slices"
	"testing"

	"github.com/llmbridge/llmbridge/codec"
	// The tests translate between every protocol family.
	_ "github.com/llmbridge/llmbridge/codec/all"
)

// TestRegisterRejects checks that a protocol cannot be registered twice,
// without a name or without a codec: each would leave the registry
// answering for a protocol with the wrong codec or none.
func TestRegisterRejects(t *testing.T) {
	chat := codec.OpenAIChat.Descriptor()
	for name, c := range map[string]struct {
		d codec.Descriptor
		c codec.Codec
	}{
		"taken name": {codec.Descriptor{Name: codec.OpenAIChat}, stubCodec{}},
		"no name":    {codec.Descriptor{}, stubCodec{}},
		"no codec":   {codec.Descriptor{Name: "new-protocol"}, nil},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: Register did not panic", name)
				}
			}()
			codec.Register(c.d, c.c)
		}()
	}
	if codec.OpenAIChat.Descriptor() != chat {
		t.Errorf("a rejected registration replaced openai-chat's descriptor")
	}
	all := []codec.Protocol{codec.OpenAIChat, codec.OpenAIResponses, codec.AnthropicMessages, codec.Gemini, codec.Vertex,
		codec.VertexAnthropic, codec.AzureOpenAI, codec.AzureOpenAIResponses, codec.Bedrock, codec.BedrockAnthropic}
	if got := codec.Protocols(); !slices.Equal(got, all) {
		t.Errorf("Protocols() = %v, want %v", got, all)
	}
	clients := slices.DeleteFunc(slices.Clone(all), func(p codec.Protocol) bool { return p == codec.AzureOpenAI || p == codec.AzureOpenAIResponses })
	if got := codec.ClientProtocols(); !slices.Equal(got, clients) {
		t.Errorf("ClientProtocols() = %v, want %v (those with routes)", got, clients)
	}
}

// stubCodec is a Codec that is never called.
type stubCodec struct{ codec.Codec }
