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
	if got := codec.Protocols(); len(got) != 8 || got[0] != codec.OpenAIChat || got[5] != codec.VertexAnthropic || got[7] != codec.AzureOpenAIResponses {
		t.Errorf("Protocols() = %v, want the eight protocols in their documented order", got)
	}
	if got := codec.ClientProtocols(); len(got) != 6 || got[5] != codec.VertexAnthropic {
		t.Errorf("ClientProtocols() = %v, want the six with routes", got)
	}
}

// stubCodec is a Codec that is never called.
type stubCodec struct{ codec.Codec }
