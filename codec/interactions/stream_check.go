package interactions

import (
	"strings"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/jsonx"
	"github.com/tidwall/gjson"
)

// CheckEvent accepts a JSON object with an event_type, and the
// data: [DONE] that follows the last event. [DONE] and error end the
// stream: the SDKs read a stream without [DONE] as broken off, even after
// interaction.completed.
func (interactionsCodec) CheckEvent(_ codec.Protocol, _, data string, bare bool) (valid, terminal bool) {
	if data == "[DONE]" && !bare {
		return true, true
	}
	if bare || !jsonx.IsObject(data) {
		return false, false
	}
	t := gjson.Get(data, "event_type")
	if t.Type != gjson.String {
		return false, false
	}
	return true, t.Str == "error"
}

// ReportsUsage picks the events that report the interaction, its status
// and usage, or an error: interaction.created, interaction.status_update,
// interaction.completed (whose status says whether function calls wait)
// and error.
func (interactionsCodec) ReportsUsage(_ codec.Protocol, _, data string) bool {
	return strings.Contains(data, `"interaction.completed"`) || strings.Contains(data, `"interaction.status_update"`) ||
		strings.Contains(data, `"interaction.created"`) || strings.Contains(data, `"event_type":"error"`)
}
