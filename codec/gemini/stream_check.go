package gemini

import (
	"strings"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/jsonx"
	"github.com/tidwall/gjson"
)

// CheckEvent accepts a JSON object, and a bare block (an error object or
// an array of them), which ends the stream however it is shaped. Gemini
// has no terminal event: a stream is complete once a candidate has a
// finish reason, the prompt was blocked, or an error arrived.
func (geminiCodec) CheckEvent(_ codec.Protocol, _, data string, bare bool) (valid, terminal bool) {
	if bare {
		ok := jsonx.Valid(data)
		return ok, ok
	}
	if !jsonx.IsObject(data) {
		return false, false
	}
	return true, strings.Contains(data, `"finishReason"`) && gjson.Get(data, "candidates.0.finishReason").Exists() ||
		strings.Contains(data, `"blockReason"`) && gjson.Get(data, "promptFeedback.blockReason").Exists() ||
		strings.Contains(data, `"error"`) && gjson.Get(data, "error").Exists()
}

// ReportsUsage picks the chunks with usage, a finish reason, prompt
// feedback, an error or a function call (which makes the stop tool use).
func (geminiCodec) ReportsUsage(_ codec.Protocol, _, data string) bool {
	return strings.Contains(data, `"usageMetadata"`) || strings.Contains(data, `"finishReason"`) ||
		strings.Contains(data, `"promptFeedback"`) || strings.Contains(data, `"error"`) ||
		strings.Contains(data, `"functionCall"`)
}
