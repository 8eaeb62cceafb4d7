package mapping

import "testing"

func TestUsageSemantics(t *testing.T) {
	// Anthropic: input_tokens excludes cache reads and writes.
	u := FromAnthropicUsage(10, 3, 5, 20, 4)
	want := Usage{Known: true, InputTokens: 18, CacheReadTokens: 5, CacheWriteTokens: 3, OutputTokens: 20, ReasoningTokens: 4}
	if u != want {
		t.Fatalf("FromAnthropicUsage = %+v, want %+v", u, want)
	}
	if u.AnthropicInputTokens() != 10 || u.TotalTokens() != 38 {
		t.Errorf("AnthropicInputTokens %d, TotalTokens %d", u.AnthropicInputTokens(), u.TotalTokens())
	}
	// Gemini: candidates exclude thoughts; prompt includes cached content.
	g := FromGeminiUsage(9, 2, 4, 13, 302)
	wantG := Usage{Known: true, InputTokens: 11, CacheReadTokens: 4, OutputTokens: 315, ReasoningTokens: 302}
	if g != wantG {
		t.Fatalf("FromGeminiUsage = %+v, want %+v", g, wantG)
	}
	if g.GeminiCandidatesTokens() != 13 {
		t.Errorf("GeminiCandidatesTokens = %d", g.GeminiCandidatesTokens())
	}
	// Inconsistent upstream counts never go negative.
	bad := Usage{InputTokens: 1, CacheReadTokens: 5, OutputTokens: 1, ReasoningTokens: 3}
	if bad.AnthropicInputTokens() != 0 || bad.GeminiCandidatesTokens() != 0 {
		t.Error("negative counts")
	}
}
