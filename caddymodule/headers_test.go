package caddymodule

import (
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"github.com/llmbridge/llmbridge/caddymodule/clouds"
	"github.com/llmbridge/llmbridge/codec"
)

func TestRewriteHeaders(t *testing.T) {
	tests := []struct {
		name     string
		client   codec.Protocol
		upstream codec.Protocol
		apiKey   string
		target   string
		in       map[string]string
		want     map[string]string // "" means absent
	}{
		{
			name: "anthropic client to openai moves x-api-key to bearer", client: codec.AnthropicMessages, upstream: codec.OpenAIChat,
			target: "/v1/messages",
			in:     map[string]string{"X-Api-Key": "ck", "Anthropic-Version": "2023-06-01", "Anthropic-Beta": "b", "Accept-Encoding": "br"},
			want:   map[string]string{"Authorization": "Bearer ck", "X-Api-Key": "", "Anthropic-Version": "", "Anthropic-Beta": "", "Accept-Encoding": ""},
		},
		{
			name: "openai client to anthropic adds version", client: codec.OpenAIChat, upstream: codec.AnthropicMessages,
			target: "/v1/chat/completions",
			in:     map[string]string{"Authorization": "Bearer ck", "Openai-Organization": "org"},
			want:   map[string]string{"X-Api-Key": "ck", "Authorization": "", "Anthropic-Version": "2023-06-01", "Openai-Organization": ""},
		},
		{
			name: "OpenAI headers reach both OpenAI protocols", client: codec.OpenAIChat, upstream: codec.OpenAIResponses,
			target: "/v1/chat/completions",
			in:     map[string]string{"Authorization": "Bearer ck", "Openai-Organization": "org", "Openai-Project": "prj", "Anthropic-Beta": "b"},
			want:   map[string]string{"Authorization": "Bearer ck", "Openai-Organization": "org", "Openai-Project": "prj", "Anthropic-Beta": ""},
		},
		{
			name: "OpenAI headers reach a Chat upstream", client: codec.AnthropicMessages, upstream: codec.OpenAIChat,
			target: "/v1/messages",
			in:     map[string]string{"X-Api-Key": "ck", "Openai-Organization": "org"},
			want:   map[string]string{"Authorization": "Bearer ck", "Openai-Organization": "org"},
		},
		{
			name: "anthropic client keeps its version and beta toward anthropic", client: codec.AnthropicMessages, upstream: codec.AnthropicMessages,
			target: "/v1/messages",
			in:     map[string]string{"X-Api-Key": "ck", "Anthropic-Version": "2024-01-01", "Anthropic-Beta": "b"},
			want:   map[string]string{"X-Api-Key": "ck", "Anthropic-Version": "2024-01-01", "Anthropic-Beta": "b"},
		},
		{
			name: "gemini query key moves to header", client: codec.Gemini, upstream: codec.Gemini,
			target: "/v1beta/models/m:generateContent?key=gk",
			in:     map[string]string{},
			want:   map[string]string{"X-Goog-Api-Key": "gk", "Authorization": ""},
		},
		{
			name: "gemini client to vertex anthropic uses bearer, no version header", client: codec.Gemini, upstream: codec.VertexAnthropic,
			target: "/v1beta/models/m:generateContent",
			in:     map[string]string{"X-Goog-Api-Key": "gk", "Anthropic-Version": "2023-06-01"},
			want:   map[string]string{"Authorization": "Bearer gk", "X-Goog-Api-Key": "", "Anthropic-Version": ""},
		},
		{
			name: "api_key replaces every client credential", client: codec.OpenAIChat, upstream: codec.Gemini, apiKey: "uk",
			target: "/v1/chat/completions",
			in:     map[string]string{"Authorization": "Bearer ck", "X-Api-Key": "other"},
			want:   map[string]string{"X-Goog-Api-Key": "uk", "Authorization": "", "X-Api-Key": ""},
		},
		{
			name: "foreign credential is still moved when the own scheme is absent", client: codec.OpenAIChat, upstream: codec.OpenAIResponses,
			target: "/v1/chat/completions",
			in:     map[string]string{"X-Api-Key": "ck"},
			want:   map[string]string{"Authorization": "Bearer ck", "X-Api-Key": ""},
		},
		{
			name: "no credential at all sends none", client: codec.OpenAIChat, upstream: codec.AnthropicMessages,
			target: "/v1/chat/completions",
			in:     map[string]string{},
			want:   map[string]string{"X-Api-Key": "", "Authorization": ""},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodPost, tt.target, nil)
			for k, v := range tt.in {
				r.Header.Set(k, v)
			}
			h := &Handler{upstream: tt.upstream, cred: clouds.Credential{Key: tt.apiKey}}
			h.rewriteHeaders(r, tt.client, h.upstream, false, &h.cred)
			for k, v := range tt.want {
				if got := r.Header.Get(k); got != v {
					t.Errorf("%s = %q, want %q", k, got, v)
				}
			}
			if got := r.Header.Get("Content-Type"); got != "application/json" {
				t.Errorf("Content-Type = %q", got)
			}
		})
	}
}

func TestFilterBetas(t *testing.T) {
	tests := []struct {
		upstream    codec.Protocol
		in          []string
		want        string
		wantDropped []string
	}{
		{codec.VertexAnthropic, []string{"claude-code-20250219,interleaved-thinking-2025-05-14, effort-2025-11-24", "adaptive-thinking-2026-01-28"},
			"claude-code-20250219,interleaved-thinking-2025-05-14", []string{"anthropic-beta: effort-2025-11-24", "anthropic-beta: adaptive-thinking-2026-01-28"}},
		{codec.VertexAnthropic, []string{"structured-outputs-2025-11-13"}, "", []string{"anthropic-beta: structured-outputs-2025-11-13"}},
		{codec.VertexAnthropic, []string{"interleaved-thinking-2025-05-14"}, "interleaved-thinking-2025-05-14", nil},
		{codec.AnthropicMessages, []string{"effort-2025-11-24"}, "effort-2025-11-24", nil},
	}
	for _, tt := range tests {
		h := &Handler{upstream: tt.upstream}
		r := httptest.NewRequest("POST", "/", nil)
		for _, v := range tt.in {
			r.Header.Add("Anthropic-Beta", v)
		}
		dropped := h.filterBetas(r, h.upstream)
		if got := strings.Join(r.Header.Values("Anthropic-Beta"), ","); got != tt.want {
			t.Errorf("%s %v: anthropic-beta %q, want %q", tt.upstream, tt.in, got, tt.want)
		}
		if !reflect.DeepEqual(dropped, tt.wantDropped) {
			t.Errorf("%s %v: dropped %q, want %q", tt.upstream, tt.in, dropped, tt.wantDropped)
		}
	}
}
