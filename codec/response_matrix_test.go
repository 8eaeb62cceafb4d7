package codec_test

import (
	"testing"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/interactions"
	"github.com/llmbridge/llmbridge/mapping"
)

// TestResponseMatrix encodes one canonical response in every protocol and
// decodes it back, checking that text, stop reason and usage keep their
// meaning wherever the protocol has a field for them.
func TestResponseMatrix(t *testing.T) {
	stops := []codec.StopReason{mapping.StopEnd, mapping.StopMaxTokens}
	for _, p := range codec.Protocols() {
		for _, stop := range stops {
			in := codec.Response{
				ID:         "resp-1",
				Model:      "test-model",
				Created:    1767225600,
				Content:    []codec.Part{{Type: codec.PartText, Text: "Hello, "}, {Type: codec.PartText, Text: "world.\n"}},
				StopReason: stop,
				Usage: codec.Usage{Known: true, InputTokens: 100, CacheReadTokens: 30, CacheWriteTokens: 20,
					OutputTokens: 50, ReasoningTokens: 10},
			}
			out, err := codec.AppendResponse(nil, p, &in)
			if err != nil {
				t.Fatalf("%s: %v", p, err)
			}
			var back codec.Response
			if err := codec.DecodeResponse(p, out, &back); err != nil {
				t.Fatalf("%s: decoding %s: %v", p, out, err)
			}
			var text string
			for _, part := range back.Content {
				text += part.Text
			}
			if text != "Hello, world.\n" {
				t.Errorf("%s: text %q", p, text)
			}
			if back.StopReason != stop {
				t.Errorf("%s: stop %v, want %v", p, back.StopReason, stop)
			}
			want := in.Usage
			switch p.Family() {
			case codec.OpenAIChat:
				want.CacheWriteTokens = 0 // Chat has no cache-write counter
			case codec.Gemini, interactions.Gemini:
				want.CacheWriteTokens = 0 // nor has Google
			case codec.Bedrock:
				want.ReasoningTokens = 0 // Converse does not count reasoning apart
			}
			if back.Usage != want {
				t.Errorf("%s: usage %+v, want %+v", p, back.Usage, want)
			}
			// Converse responses name no model: the client knows it from
			// the path it called.
			if back.Model != "test-model" && p.Family() != codec.Bedrock {
				t.Errorf("%s: model %q", p, back.Model)
			}
		}
	}
}
