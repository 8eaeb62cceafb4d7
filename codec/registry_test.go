package codec_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/interactions"
	"github.com/llmbridge/llmbridge/mapping"
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
		c codec.Translator
	}{
		"taken name": {codec.Descriptor{Name: codec.OpenAIChat}, stubCodec{}},
		"no name":    {codec.Descriptor{}, stubCodec{}},
		"no codec":   {codec.Descriptor{Name: "new-protocol", Rules: chat.Rules}, nil},
		// A family that is not registered would leave the protocol
		// without siblings to pass through to, and without model rules.
		"unknown family": {codec.Descriptor{Name: "new-protocol", Family: "no-such-family", Rules: chat.Rules}, stubCodec{}},
		// Without model rules, adjustments would name no field.
		"no model rules": {codec.Descriptor{Name: "new-protocol"}, stubCodec{}},
		"no provider":    {codec.Descriptor{Name: "new-protocol", Rules: codec.ModelRules{Params: chat.Rules.Params}}, stubCodec{}},
		"a name missing": {codec.Descriptor{Name: "new-protocol", Rules: func() codec.ModelRules {
			r := chat.Rules
			r.Params.TopK = ""
			return r
		}()}, stubCodec{}},
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
		codec.VertexAnthropic, codec.AzureOpenAI, codec.AzureOpenAIResponses, codec.Bedrock, codec.BedrockAnthropic,
		interactions.Gemini, interactions.Vertex}
	if got := codec.Protocols(); !slices.Equal(got, all) {
		t.Errorf("Protocols() = %v, want %v", got, all)
	}
	clients := slices.DeleteFunc(slices.Clone(all), func(p codec.Protocol) bool {
		return p == codec.AzureOpenAI || p == codec.AzureOpenAIResponses || p == interactions.Vertex
	})
	if got := codec.ClientProtocols(); !slices.Equal(got, clients) {
		t.Errorf("ClientProtocols() = %v, want %v (those with routes)", got, clients)
	}
}

// TestModelRulesDeclared checks that every protocol declares its model
// rules, and that a sibling declaring none has its family's.
func TestModelRulesDeclared(t *testing.T) {
	for _, p := range codec.Protocols() {
		d := p.Descriptor()
		if d.Rules.Provider == "" || d.Rules.Params.Messages == "" || d.Rules.Params.MaxTokens == "" {
			t.Errorf("%s: no model rules: %+v", p, d.Rules)
		}
		if f := p.Family().Descriptor(); d.Rules != f.Rules {
			t.Errorf("%s: rules %+v, its family %s has %+v", p, d.Rules, f.Name, f.Rules)
		}
	}
}

// stubCodec is a Codec that is never called.
type stubCodec struct{ codec.Translator }

// TestAWSErrorBodies decodes Bedrock's error bodies, whose error object is
// the body itself, with the type in the body or in X-Amzn-Errortype.
func TestAWSErrorBodies(t *testing.T) {
	for _, p := range []codec.Protocol{codec.Bedrock, codec.BedrockAnthropic} {
		e := codec.DecodeError(p, 400, []byte(`{"message":"Malformed input request","__type":"ValidationException"}`))
		if e.Message != "Malformed input request" || e.Code != "ValidationException" || e.Kind != mapping.ErrInvalidRequest {
			t.Errorf("%s __type: %+v", p, e)
		}
		e = codec.DecodeError(p, 403, []byte(`{"Message":"User is not authorized to perform: bedrock:InvokeModel"}`))
		codec.DecodeErrorType(p, "AccessDeniedException:http://internal.amazon.com/coral/com.amazon.coral.service/", e)
		if e.Message != "User is not authorized to perform: bedrock:InvokeModel" || e.Code != "AccessDeniedException" || e.Kind != mapping.ErrPermission {
			t.Errorf("%s Message and header: %+v", p, e)
		}
		if !codec.IsProtocolBody(p, 429, []byte(`{"message":"slow down"}`)) || codec.IsProtocolBody(p, 429, []byte(`{"error":{"message":"x"}}`)) {
			t.Errorf("%s: IsProtocolBody does not know AWS error bodies", p)
		}
		e = codec.DecodeError(p, 502, []byte(`<html>bad gateway</html>`))
		if e.Kind != mapping.ErrBadGateway || !strings.Contains(e.Message, "bad gateway") {
			t.Errorf("%s html: %+v", p, e)
		}
	}
	// A header type means nothing to a protocol without one.
	e := codec.DecodeError(codec.OpenAIChat, 400, []byte(`{"error":{"message":"m","type":"invalid_request_error"}}`))
	codec.DecodeErrorType(codec.OpenAIChat, "ThrottlingException", e)
	if e.Code == "ThrottlingException" {
		t.Errorf("openai-chat took an AWS type: %+v", e)
	}
}

// TestDecodeFramingError checks that only a protocol whose framing carries
// errors of its own reads them: an SSE event of the same name is the
// protocol's, and so is an AWS protocol's event of another name.
func TestDecodeFramingError(t *testing.T) {
	if e := codec.DecodeFramingError(codec.Bedrock, "exception:validationException", `{"message":"bad"}`); e == nil || e.Kind != mapping.ErrInvalidRequest || e.Protocol != codec.Bedrock {
		t.Errorf("bedrock exception: %+v", e)
	}
	if e := codec.DecodeFramingError(codec.Bedrock, "messageStop", `{"stopReason":"end_turn"}`); e != nil {
		t.Errorf("bedrock messageStop read as an error: %+v", e)
	}
	for _, p := range []codec.Protocol{codec.AnthropicMessages, codec.VertexAnthropic, codec.OpenAIChat, "no-such-protocol"} {
		if e := codec.DecodeFramingError(p, "exception:validationException", `{"message":"bad"}`); e != nil {
			t.Errorf("%s read a framing error: %+v", p, e)
		}
	}
}
