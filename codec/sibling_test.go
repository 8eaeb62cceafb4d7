package codec_test

import (
	"testing"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/anthropic"
)

// TestAdaptSibling adapts bodies between the siblings of each family.
func TestAdaptSibling(t *testing.T) {
	// A Gemini CLI tool loop: calls and results with ids, an id inside
	// the arguments and the result (the function's own data), and the
	// word "id" in a text.
	geminiLoop := `{"contents":[{"role":"user","parts":[{"text":"Open \"id\" 7."}]},` +
		`{"role":"model","parts":[{"functionCall":{"id":"c1","name":"open","args":{"id":7}},"thoughtSignature":"c2ln"},` +
		`{"functionCall":{"name":"list","id":"c2","args":{}}}]},` +
		`{"role":"user","parts":[{"functionResponse":{"name":"open","response":{"id":7,"ok":true},"id":"c1"}},` +
		`{"functionResponse":{"id":"c2","name":"list","response":{"output":"a"}}}]}],` +
		`"generationConfig":{"thinkingConfig":{"thinkingLevel":"high"}}}`
	geminiLoopNoIDs := `{"contents":[{"role":"user","parts":[{"text":"Open \"id\" 7."}]},` +
		`{"role":"model","parts":[{"functionCall":{"name":"open","args":{"id":7}},"thoughtSignature":"c2ln"},` +
		`{"functionCall":{"name":"list","args":{}}}]},` +
		`{"role":"user","parts":[{"functionResponse":{"name":"open","response":{"id":7,"ok":true}}},` +
		`{"functionResponse":{"name":"list","response":{"output":"a"}}}]}],` +
		`"generationConfig":{"thinkingConfig":{"thinkingLevel":"high"}}}`
	tests := []struct {
		name     string
		client   codec.Protocol
		upstream codec.Protocol
		stream   bool
		body     string
		want     string
	}{
		{
			name:   "anthropic to bedrock-anthropic: the automatic breakpoint on the last block",
			client: codec.AnthropicMessages, upstream: codec.BedrockAnthropic,
			body: `{"model":"claude-x","max_tokens":10,"cache_control":{"type":"ephemeral"},"messages":[{"role":"user","content":"hi"}]}`,
			want: `{"max_tokens":10,"messages":[{"role":"user","content":[{"type":"text","text":"hi","cache_control":{"type":"ephemeral"}}]}],"anthropic_version":"` + anthropic.BedrockVersion + `"}`,
		},
		{
			name:   "anthropic to bedrock-anthropic: past thinking, a block's own breakpoint kept",
			client: codec.AnthropicMessages, upstream: codec.BedrockAnthropic,
			body: `{"cache_control":{"type":"ephemeral","ttl":"5m"},"messages":[{"role":"user","content":[{"type":"text","text":"a","cache_control":{"type":"ephemeral"}},{"type":"text","text":""}]},` +
				`{"role":"assistant","content":[{"type":"thinking","thinking":"t","signature":"s"}]}]}`,
			want: `{"messages":[{"role":"user","content":[{"type":"text","text":"a","cache_control":{"type":"ephemeral"}},{"type":"text","text":""}]},` +
				`{"role":"assistant","content":[{"type":"thinking","thinking":"t","signature":"s"}]}],"anthropic_version":"` + anthropic.BedrockVersion + `"}`,
		},
		{
			name:   "anthropic to vertex-anthropic: model out, anthropic_version in",
			client: codec.AnthropicMessages, upstream: codec.VertexAnthropic,
			body: `{"model":"claude-x","max_tokens":10}`,
			want: `{"max_tokens":10,"anthropic_version":"` + anthropic.VertexVersion + `"}`,
		},
		{
			name:   "vertex-anthropic to anthropic: anthropic_version out, model in",
			client: codec.VertexAnthropic, upstream: codec.AnthropicMessages,
			body: `{"anthropic_version":"vertex-2023-10-16","max_tokens":10}`,
			want: `{"max_tokens":10,"model":"claude-y"}`,
		},
		{
			name:   "anthropic to bedrock-anthropic: model and stream out, Bedrock's anthropic_version in",
			client: codec.AnthropicMessages, upstream: codec.BedrockAnthropic, stream: true,
			body: `{"model":"claude-x","max_tokens":10,"stream":true,"metadata":{"user_id":"u"}}`,
			want: `{"max_tokens":10,"metadata":{"user_id":"u"},"anthropic_version":"` + anthropic.BedrockVersion + `"}`,
		},
		{
			name:   "bedrock-anthropic to anthropic, streamed: version and betas out, model and stream in",
			client: codec.BedrockAnthropic, upstream: codec.AnthropicMessages, stream: true,
			body: `{"anthropic_version":"bedrock-2023-05-31","anthropic_beta":["interleaved-thinking-2025-05-14"],"max_tokens":10}`,
			want: `{"max_tokens":10,"model":"claude-y","stream":true}`,
		},
		{
			name:   "bedrock-anthropic to anthropic, not streamed",
			client: codec.BedrockAnthropic, upstream: codec.AnthropicMessages,
			body: `{"anthropic_version":"bedrock-2023-05-31","max_tokens":10}`,
			want: `{"max_tokens":10,"model":"claude-y"}`,
		},
		{
			name:   "bedrock-anthropic to vertex-anthropic: Vertex's version, the stream member",
			client: codec.BedrockAnthropic, upstream: codec.VertexAnthropic, stream: true,
			body: `{"anthropic_version":"bedrock-2023-05-31","max_tokens":10}`,
			want: `{"max_tokens":10,"anthropic_version":"` + anthropic.VertexVersion + `","stream":true}`,
		},
		{
			name:   "vertex-anthropic to bedrock-anthropic: Bedrock's version, no stream member",
			client: codec.VertexAnthropic, upstream: codec.BedrockAnthropic, stream: true,
			body: `{"anthropic_version":"vertex-2023-10-16","stream":true,"max_tokens":10}`,
			want: `{"anthropic_version":"` + anthropic.BedrockVersion + `","max_tokens":10}`,
		},
		{
			name:   "gemini to vertex: call and result ids are removed, nothing else",
			client: codec.Gemini, upstream: codec.Vertex,
			body: geminiLoop,
			want: geminiLoopNoIDs,
		},
		{
			name:   "gemini to vertex: snake_case parts, a repeated id, spacing outside the objects kept",
			client: codec.Gemini, upstream: codec.Vertex,
			body: "{\n  \"contents\": [ {\"role\": \"model\", \"parts\": [ {\"function_call\": {\"id\": \"a\", \"id\": \"b\", \"name\": \"f\"} } ] },\n" +
				"    {\"role\": \"user\", \"parts\": [ {\"function_response\": { \"name\": \"f\", \"id\": \"b\", \"response\": {} } } ] } ]\n}",
			want: "{\n  \"contents\": [ {\"role\": \"model\", \"parts\": [ {\"function_call\": {\"name\":\"f\"} } ] },\n" +
				"    {\"role\": \"user\", \"parts\": [ {\"function_response\": {\"name\":\"f\",\"response\":{}} } ] } ]\n}",
		},
		{
			name:   "gemini to vertex: calls without ids are left as they are",
			client: codec.Gemini, upstream: codec.Vertex,
			body: geminiLoopNoIDs,
			want: geminiLoopNoIDs,
		},
		{
			name:   "gemini to vertex: a null call, and an id outside a call, are left as they are",
			client: codec.Gemini, upstream: codec.Vertex,
			body: `{"contents":[{"role":"model","parts":[{"text":"x","functionCall":null,"id":"p"}]}]}`,
			want: `{"contents":[{"role":"model","parts":[{"text":"x","functionCall":null,"id":"p"}]}]}`,
		},
		{
			name:   "gemini to gemini keeps the ids",
			client: codec.Gemini, upstream: codec.Gemini,
			body: geminiLoop,
			want: geminiLoop,
		},
		{
			name:   "vertex to gemini keeps the body",
			client: codec.Vertex, upstream: codec.Gemini,
			body: geminiLoop,
			want: geminiLoop,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.upstream.Descriptor().AdaptSibling([]byte(tt.body), tt.client, "claude-y", tt.stream)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("body\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}
