package interactions

// The tests translate to and from the other families.
import (
	_ "github.com/llmbridge/llmbridge/codec/anthropic"
	_ "github.com/llmbridge/llmbridge/codec/chat"
	_ "github.com/llmbridge/llmbridge/codec/gemini"
	_ "github.com/llmbridge/llmbridge/codec/responses"
)
