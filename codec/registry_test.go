package codec_test

import (
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
	// The protocols come in their documented order: the first eight,
	// then Bedrock's (bedrock, and bedrock-anthropic where registered).
	if got := codec.Protocols(); len(got) < 9 || got[0] != codec.OpenAIChat || got[5] != codec.VertexAnthropic || got[7] != codec.AzureOpenAIResponses || got[8] != codec.Bedrock {
		t.Errorf("Protocols() = %v, want the protocols in their documented order", got)
	}
	if got := codec.ClientProtocols(); len(got) < 7 || got[5] != codec.VertexAnthropic || got[6] != codec.Bedrock {
		t.Errorf("ClientProtocols() = %v, want those with routes", got)
	}
}

// stubCodec is a Codec that is never called.
type stubCodec struct{ codec.Codec }
