package responses

import (
	"strings"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/jsonx"
	"github.com/tidwall/gjson"
)

// CheckEvent accepts a JSON object that names its type; the completed,
// incomplete and failed events and error end a stream.
func (responsesCodec) CheckEvent(_ codec.Protocol, _, data string, _ bool) (valid, terminal bool) {
	if !jsonx.IsObject(data) {
		return false, false
	}
	typ := gjson.Get(data, "type")
	if typ.Type != gjson.String {
		return false, false
	}
	switch typ.Str {
	case "response.completed", "response.incomplete", "response.failed", "error":
		return true, true
	}
	return true, false
}

// ReportsUsage picks the response lifecycle events, which carry the
// response object with its status and usage, and the events of items and
// parts (not their deltas): a function call makes the stop tool use, a
// refusal part a refusal.
func (responsesCodec) ReportsUsage(_ codec.Protocol, name, data string) bool {
	typ := name
	if typ == "" {
		typ = gjson.Get(data, "type").Str
	}
	switch typ {
	case "response.created", "response.queued", "response.in_progress", "response.completed",
		"response.incomplete", "response.failed", "error",
		"response.output_item.added", "response.output_item.done",
		"response.content_part.added", "response.content_part.done":
		return true
	}
	return strings.HasPrefix(typ, "response.refusal.")
}
