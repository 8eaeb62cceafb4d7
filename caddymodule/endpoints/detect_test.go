package endpoints

import (
	"net/http/httptest"
	"testing"

	"github.com/llmbridge/llmbridge/codec"
	_ "github.com/llmbridge/llmbridge/codec/all"
)

func TestDetect(t *testing.T) {
	tests := []struct {
		method, target string
		header         []string // name, value pairs
		configured     codec.Protocol
		want           Route
		ok             bool
	}{
		{"GET", "/v1/models", nil, "", Route{Kind: Models, Protocol: codec.OpenAIChat}, true},
		{"GET", "/openai/v1/models", nil, "", Route{Kind: Models, Protocol: codec.OpenAIChat}, true},
		{"GET", "/v1/models", []string{"Anthropic-Version", "2023-06-01"}, "", Route{Kind: Models, Protocol: codec.AnthropicMessages}, true},
		{"GET", "/v1/models", []string{"X-Api-Key", "k"}, "", Route{Kind: Models, Protocol: codec.AnthropicMessages}, true},
		{"GET", "/v1/models?key=k", nil, "", Route{Kind: Models, Protocol: codec.Gemini}, true},
		{"GET", "/v1/models", []string{"Anthropic-Version", "2023-06-01"}, codec.OpenAIResponses, Route{Kind: Models, Protocol: codec.OpenAIResponses}, true},
		{"GET", "/v1/models", nil, codec.Vertex, Route{}, false},
		{"GET", "/v1beta/models", nil, "", Route{Kind: Models, Protocol: codec.Gemini}, true},
		{"GET", "/v1beta/models", nil, codec.AnthropicMessages, Route{}, false},
		{"POST", "/v1/messages/count_tokens", nil, "", Route{Kind: Count, Protocol: codec.AnthropicMessages}, true},
		{"POST", "/v1/messages/count_tokens", nil, codec.OpenAIChat, Route{}, false},
		{"POST", "/v1/responses/input_tokens", nil, "", Route{Kind: Count, Protocol: codec.OpenAIResponses}, true},
		{"POST", "/v1beta/models/gemini-2.5-flash:countTokens", nil, "", Route{Kind: Count, Protocol: codec.Gemini, Model: "gemini-2.5-flash"}, true},
		{"POST", "/v1/projects/p/locations/l/publishers/google/models/gemini-2.5-pro:countTokens", nil, "",
			Route{Kind: Count, Protocol: codec.Vertex, Model: "gemini-2.5-pro"}, true},
		{"POST", "/v1/projects/p/locations/l/publishers/anthropic/models/count-tokens:rawPredict", nil, "",
			Route{Kind: Count, Protocol: codec.VertexAnthropic}, true},
		{"POST", "/v1/projects/p/locations/l/publishers/meta/models/x:countTokens", nil, "", Route{}, false},
		{"POST", "/v1beta/models/:countTokens", nil, "", Route{}, false},
		{"POST", "/v1/messages", nil, "", Route{}, false},
		{"POST", "/v1/chat/completions", nil, "", Route{}, false},
	}
	for _, tc := range tests {
		r := httptest.NewRequest(tc.method, tc.target, nil)
		for i := 0; i+1 < len(tc.header); i += 2 {
			r.Header.Set(tc.header[i], tc.header[i+1])
		}
		got, ok := Detect(tc.configured, r)
		if ok != tc.ok || got != tc.want {
			t.Errorf("%s %s %v (client %q): got %+v, %v; want %+v, %v", tc.method, tc.target, tc.header, tc.configured, got, ok, tc.want, tc.ok)
		}
	}
}
