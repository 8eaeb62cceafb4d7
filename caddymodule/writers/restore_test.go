package writers

import (
	"testing"

	"github.com/llmbridge/llmbridge/codec"
)

// TestRestoreModel puts the client's model back where each family names
// the model in a body or an event, and leaves the rest as it is.
func TestRestoreModel(t *testing.T) {
	tests := []struct {
		name   string
		family codec.Protocol
		data   string
		want   string
	}{
		{"chat", codec.OpenAIChat, `{"id":"x","model":"up-1","choices":[]}`, `{"id":"x","model":"client\"m","choices":[]}`},
		{"chat without model", codec.OpenAIChat, `{"id":"x"}`, `{"id":"x"}`},
		{"chat model not a string", codec.OpenAIChat, `{"model":null}`, `{"model":null}`},
		{"responses body", codec.OpenAIResponses, `{"model":"up","output":[]}`, `{"model":"client\"m","output":[]}`},
		{"responses event", codec.OpenAIResponses, `{"type":"response.created","response":{"id":"r","model":"up"}}`, `{"type":"response.created","response":{"id":"r","model":"client\"m"}}`},
		{"responses delta", codec.OpenAIResponses, `{"type":"response.output_text.delta","delta":"model"}`, `{"type":"response.output_text.delta","delta":"model"}`},
		{"anthropic body", codec.AnthropicMessages, `{"model": "up" ,"id":"m"}`, `{"model": "client\"m" ,"id":"m"}`},
		{"anthropic start", codec.AnthropicMessages, `{"type":"message_start","message":{"model":"up"}}`, `{"type":"message_start","message":{"model":"client\"m"}}`},
		{"gemini", codec.Gemini, `{"candidates":[],"modelVersion":"up-001"}`, `{"candidates":[],"modelVersion":"client\"m"}`},
		{"escaped upstream model", codec.OpenAIChat, `{"model":"a\u0062"}`, `{"model":"client\"m"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := restoreModel([]byte("pre"), []byte(tt.data), tt.family, []byte(`"client\"m"`))
			if string(got) != "pre"+tt.want {
				t.Errorf("got %s, want pre%s", got, tt.want)
			}
		})
	}
}
