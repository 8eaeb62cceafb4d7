package caddymodule

import (
	"net/http/httptest"
	"testing"

	"github.com/llmbridge/llmbridge/codec"
)

func TestDetectRoute(t *testing.T) {
	tests := []struct {
		path string
		want route
		ok   bool
	}{
		{"/v1/chat/completions", route{protocol: codec.OpenAIChat}, true},
		{"/openai/v1/chat/completions", route{protocol: codec.OpenAIChat}, true},
		{"/v1/responses", route{protocol: codec.OpenAIResponses}, true},
		{"/v1/messages", route{protocol: codec.AnthropicMessages}, true},
		{"/v1beta/models/gemini-2.5-flash:generateContent", route{protocol: codec.Gemini, model: "gemini-2.5-flash"}, true},
		{"/v1beta/models/gemini-2.5-flash:streamGenerateContent", route{protocol: codec.Gemini, model: "gemini-2.5-flash", stream: true}, true},
		{"/v1/models/gemini-pro:generateContent", route{protocol: codec.Gemini, model: "gemini-pro"}, true},
		{"/v1/projects/p/locations/us-east5/publishers/google/models/gemini-2.5-flash:generateContent", route{protocol: codec.Vertex, model: "gemini-2.5-flash"}, true},
		{"/v1beta1/projects/p/locations/global/publishers/google/models/g:streamGenerateContent", route{protocol: codec.Vertex, model: "g", stream: true}, true},
		{"/v1/projects/p/locations/us-east5/publishers/anthropic/models/claude-3-7-sonnet@20250219:rawPredict", route{protocol: codec.VertexAnthropic, model: "claude-3-7-sonnet@20250219"}, true},
		{"/v1/projects/p/locations/us-east5/publishers/anthropic/models/claude:streamRawPredict", route{protocol: codec.VertexAnthropic, model: "claude", stream: true}, true},
		{"/v1/messages/count_tokens", route{}, false},
		{"/v1/threads/thread_1/messages", route{}, false},
		{"/anthropic/v1/messages", route{protocol: codec.AnthropicMessages}, true},
		{"/messages", route{protocol: codec.AnthropicMessages}, true},
		{"/responses", route{protocol: codec.OpenAIResponses}, true},
		{"/v1/responses/resp_1", route{}, false},
		{"/v1/models", route{}, false},
		{"/v1beta/models/:generateContent", route{}, false},
		{"/v1beta/models/g:countTokens", route{}, false},
		{"/v1/projects/p/locations/l/publishers/anthropic/models/c:generateContent", route{}, false},
		{"/v1/projects/p/locations/l/publishers/google/models/g:rawPredict", route{}, false},
		{"generateContent", route{}, false},
		{"/", route{}, false},
	}
	for _, tt := range tests {
		got, ok := detectRoute(tt.path)
		if ok != tt.ok || got != tt.want {
			t.Errorf("detectRoute(%q) = %+v, %v; want %+v, %v", tt.path, got, ok, tt.want, tt.ok)
		}
	}
}

func TestUpstreamPath(t *testing.T) {
	tests := []struct {
		upstream  codec.Protocol
		stream    bool
		wantPath  string
		wantQuery string
	}{
		{codec.OpenAIChat, true, "/v1/chat/completions", ""},
		{codec.OpenAIResponses, false, "/v1/responses", ""},
		{codec.AnthropicMessages, true, "/v1/messages", ""},
		{codec.Gemini, false, "/v1beta/models/m:generateContent", ""},
		{codec.Gemini, true, "/v1beta/models/m:streamGenerateContent", "alt=sse"},
		{codec.Vertex, false, "/v1/projects/proj/locations/us-east5/publishers/google/models/m:generateContent", ""},
		{codec.Vertex, true, "/v1/projects/proj/locations/us-east5/publishers/google/models/m:streamGenerateContent", "alt=sse"},
		{codec.VertexAnthropic, false, "/v1/projects/proj/locations/us-east5/publishers/anthropic/models/m:rawPredict", ""},
		{codec.VertexAnthropic, true, "/v1/projects/proj/locations/us-east5/publishers/anthropic/models/m:streamRawPredict", ""},
	}
	for _, tt := range tests {
		h := &Handler{upstream: tt.upstream, location: codec.Location{Project: "proj", Region: "us-east5"}}
		path, query := h.upstreamPath(h.upstream, "m", tt.stream)
		if path != tt.wantPath || query != tt.wantQuery {
			t.Errorf("%s stream=%v: got %q ? %q, want %q ? %q", tt.upstream, tt.stream, path, query, tt.wantPath, tt.wantQuery)
		}
	}
}

func TestCheckPathModel(t *testing.T) {
	for _, ok := range []string{"gemini-2.5-flash", "claude-3-7-sonnet@20250219", "tunedModels-x"} {
		if err := checkPathModel(ok, codec.Vertex); err != nil {
			t.Errorf("checkPathModel(%q) = %v, want nil", ok, err)
		}
	}
	for _, bad := range []string{"", "../x", "a/b", "a?b", "a#b", "a%2f", "a b", ".hidden", "a\\b", "a\x00"} {
		if err := checkPathModel(bad, codec.Vertex); err == nil || err.Status != 400 || err.Param != "model" {
			t.Errorf("checkPathModel(%q) = %v, want a 400 about model", bad, err)
		}
	}
	// Bedrock escapes the model as one segment: ARNs are models.
	for _, ok := range []string{"arn:aws:bedrock:us-east-1:123456789012:application-inference-profile/abc123", "us.anthropic.claude-sonnet-4-5-20250929-v1:0", "../x", "a?b"} {
		if err := checkPathModel(ok, codec.BedrockAnthropic); err != nil {
			t.Errorf("checkPathModel(%q, bedrock-anthropic) = %v, want nil", ok, err)
		}
	}
	for _, bad := range []string{"", ".", "..", "a b", "a\x00"} {
		if err := checkPathModel(bad, codec.Bedrock); err == nil {
			t.Errorf("checkPathModel(%q, bedrock) = nil, want a 400", bad)
		}
	}
}

// TestGuessProtocol: a request that is not a recognised generation request
// is answered in the format its path prefix and headers suggest, or the
// configured client protocol's.
func TestGuessProtocol(t *testing.T) {
	tests := []struct {
		configured codec.Protocol
		target     string
		header     []string
		want       codec.Protocol
	}{
		{"", "/v1/projects/p/locations/l/publishers/anthropic/models/c:nope", nil, codec.VertexAnthropic},
		{"", "/v1/projects/p/locations/l/publishers/google/models/g:nope", nil, codec.Vertex},
		{"", "/v1beta/files", nil, codec.Gemini},
		{"", "/upload?key=k", nil, codec.Gemini},
		{"", "/x", []string{"X-Goog-Api-Key", "k"}, codec.Gemini},
		{"", "/v1/complete", []string{"Anthropic-Version", "2023-06-01"}, codec.AnthropicMessages},
		{"", "/v1/complete", []string{"X-Api-Key", "k"}, codec.AnthropicMessages},
		{"", "/v1/embeddings", []string{"Authorization", "Bearer k"}, codec.OpenAIChat},
		{codec.OpenAIResponses, "/v1beta/files", []string{"X-Api-Key", "k"}, codec.OpenAIResponses},
	}
	for _, tt := range tests {
		r := httptest.NewRequest("POST", tt.target, nil)
		for i := 0; i+1 < len(tt.header); i += 2 {
			r.Header.Set(tt.header[i], tt.header[i+1])
		}
		if got := guessProtocol(tt.configured, r); got != tt.want {
			t.Errorf("guessProtocol(%q, %s %v) = %s, want %s", tt.configured, tt.target, tt.header, got, tt.want)
		}
	}
}
