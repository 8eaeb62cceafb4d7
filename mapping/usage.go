package mapping

// Usage is token usage in canonical meaning. Counts follow OpenAI's
// conventions, which are the inclusive ones: a protocol whose counters
// exclude something (Anthropic input_tokens excludes cache reads and writes,
// Gemini candidatesTokenCount excludes thoughts) is converted on the way in
// and out, never merely renamed (peer-lessons rule 5).
//
// A zero count means zero or unknown; Known says whether the upstream reported
// usage at all, so that an encoder never invents a usage object.
type Usage struct {
	// Known reports whether the upstream reported any usage.
	Known bool
	// InputTokens counts every prompt token, including cache reads and
	// cache writes.
	InputTokens int64
	// CacheReadTokens counts prompt tokens served from a cache.
	CacheReadTokens int64
	// CacheWriteTokens counts prompt tokens written to a cache.
	CacheWriteTokens int64
	// OutputTokens counts every generated token, including reasoning.
	OutputTokens int64
	// ReasoningTokens counts generated reasoning (thinking) tokens.
	ReasoningTokens int64
}

// TotalTokens returns input plus output tokens.
func (u Usage) TotalTokens() int64 { return u.InputTokens + u.OutputTokens }

// FromAnthropicUsage converts Anthropic counters: input_tokens excludes cache
// reads and writes, which are added back.
func FromAnthropicUsage(input, cacheWrite, cacheRead, output, thinking int64) Usage {
	return Usage{
		Known:            true,
		InputTokens:      input + cacheWrite + cacheRead,
		CacheReadTokens:  cacheRead,
		CacheWriteTokens: cacheWrite,
		OutputTokens:     output,
		ReasoningTokens:  thinking,
	}
}

// AnthropicInputTokens returns Anthropic's input_tokens for u: the prompt
// tokens that were neither read from nor written to the cache. It never
// goes below zero, even for inconsistent upstream counts.
func (u Usage) AnthropicInputTokens() int64 {
	n := u.InputTokens - u.CacheReadTokens - u.CacheWriteTokens
	if n < 0 {
		return 0
	}
	return n
}

// FromGeminiUsage converts Gemini usageMetadata: promptTokenCount already
// includes cachedContentTokenCount; tool-use prompt tokens are prompt tokens
// too; candidatesTokenCount excludes thoughtsTokenCount, which is added.
func FromGeminiUsage(prompt, toolUsePrompt, cached, candidates, thoughts int64) Usage {
	return Usage{
		Known:           true,
		InputTokens:     prompt + toolUsePrompt,
		CacheReadTokens: cached,
		OutputTokens:    candidates + thoughts,
		ReasoningTokens: thoughts,
	}
}

// GeminiCandidatesTokens returns Gemini's candidatesTokenCount for u: output
// tokens that are not thoughts.
func (u Usage) GeminiCandidatesTokens() int64 {
	n := u.OutputTokens - u.ReasoningTokens
	if n < 0 {
		return 0
	}
	return n
}
