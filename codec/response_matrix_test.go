package codec

import (
	"testing"

	"github.com/llmbridge/llmbridge/mapping"
)

// TestResponseMatrix encodes one canonical response in every protocol and
// decodes it back, checking that text, stop reason and usage keep their
// meaning wherever the protocol has a field for them.
func TestResponseMatrix(t *testing.T) {
	stops := []StopReason{mapping.StopEnd, mapping.StopMaxTokens}
	for _, p := range Protocols() {
		for _, stop := range stops {
			in := Response{
				ID:         "resp-1",
				Model:      "test-model",
				Created:    1767225600,
				Content:    []Part{{Type: PartText, Text: "Hello, "}, {Type: PartText, Text: "world.\n"}},
				StopReason: stop,
				Usage: Usage{Known: true, InputTokens: 100, CacheReadTokens: 30, CacheWriteTokens: 20,
					OutputTokens: 50, ReasoningTokens: 10},
			}
			out, err := AppendResponse(nil, p, &in)
			if err != nil {
				t.Fatalf("%s: %v", p, err)
			}
			var back Response
			if err := DecodeResponse(p, out, &back); err != nil {
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
			case OpenAIChat:
				want.CacheWriteTokens = 0 // Chat has no cache-write counter
			case Gemini:
				want.CacheWriteTokens = 0 // nor has Gemini
			}
			if back.Usage != want {
				t.Errorf("%s: usage %+v, want %+v", p, back.Usage, want)
			}
			if back.Model != "test-model" {
				t.Errorf("%s: model %q", p, back.Model)
			}
		}
	}
}
