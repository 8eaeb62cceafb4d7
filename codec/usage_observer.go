package codec

import (
	"math/bits"
	"strings"
	"unsafe"

	"github.com/llmbridge/llmbridge/codec/internal/jsonx"
	"github.com/tidwall/gjson"
)

// UsageObserver follows an upstream stream that passes through untranslated
// for the events that report usage and the stop reason, which llmbridge
// records for metrics, placeholders and logs. Decoding every event of a
// stream only for that cost a passthrough as much per event as a
// translation; the observer decodes just the events that can carry either
// (a substring or event-name test on the rest), with one stream decoder
// that sees them in order.
type UsageObserver struct {
	family Protocol // p's family, looked up once rather than per event
	dec    StreamDecoder
}

// NewUsageObserver returns an observer for streams of protocol p; for an
// unknown protocol it observes nothing.
func NewUsageObserver(p Protocol) *UsageObserver {
	dec, _ := NewStreamDecoder(p)
	return &UsageObserver{family: p.Family(), dec: dec}
}

// Observe appends to out the canonical events of one upstream SSE event
// when it may report usage, a stop reason or an error, and returns out
// unchanged otherwise. Of the events appended, only EventStart, EventUsage
// and EventStop are meaningful: the decoder does not see the content.
func (o *UsageObserver) Observe(out []Event, name, data []byte, bare bool) []Event {
	if o.dec == nil || !bare && !reportsUsage(o.family, jsonx.BytesToString(name), jsonx.BytesToString(data)) {
		return out
	}
	return o.dec.Decode(out, name, data, bare)
}

// reportsUsage reports whether an event of protocol family family, named
// name, with data, may hold usage, a stop reason or an error. False
// negatives would lose usage; false positives only cost a decode.
func reportsUsage(family Protocol, name, data string) bool {
	switch family {
	case OpenAIChat:
		// Every chunk has "finish_reason":null until the last choice
		// chunk; usage comes in its own chunk (or the last one). A
		// refusal delta makes the stop a refusal.
		return chatReportsUsage(data)
	case AnthropicMessages:
		switch name {
		case "message_start", "message_delta", "message_stop", "error":
			return true
		case "":
			return strings.Contains(data, `"usage"`) || strings.Contains(data, `"stop_reason"`) || strings.Contains(data, `"error"`)
		}
		return false
	case OpenAIResponses:
		// The response lifecycle events carry the response object with
		// its status and usage. The stop reason also depends on the kinds
		// of output (a function call makes it tool use, a refusal part a
		// refusal): items and parts are seen, their deltas are not.
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
	case Gemini:
		// A function call makes the stop tool use.
		return strings.Contains(data, `"usageMetadata"`) || strings.Contains(data, `"finishReason"`) ||
			strings.Contains(data, `"promptFeedback"`) || strings.Contains(data, `"error"`) ||
			strings.Contains(data, `"functionCall"`)
	}
	return true
}

// chatReportsUsage reports whether a Chat chunk has a usage or error
// member, or a finish_reason or refusal that is not null, in one pass over
// the chunk: a chunk is short and full of quotes, which makes a substring
// search per key (or a vectorised search per quote) slower.
func chatReportsUsage(data string) bool {
	i := 0
	for ; len(data)-i >= 64; i += 64 {
		q, _, _ := jsonx.StringMasks(unsafe.StringData(data[i:]))
		for ; q != 0; q &= q - 1 {
			if chatReportingKey(data[i+bits.TrailingZeros64(q)+1:]) {
				return true
			}
		}
	}
	for ; i < len(data); i++ {
		if data[i] == '"' && chatReportingKey(data[i+1:]) {
			return true
		}
	}
	return false
}

// chatReportingKey reports whether rest, what follows a quote in a Chat
// chunk, is a key chatReportsUsage looks for, with a value it counts.
func chatReportingKey(rest string) bool {
	if rest == "" {
		return false
	}
	var key string
	switch rest[0] {
	case 'u':
		return strings.HasPrefix(rest, `usage"`)
	case 'e':
		return strings.HasPrefix(rest, `error"`)
	case 'f':
		key = `finish_reason"`
	case 'r':
		key = `refusal"`
	default:
		return false
	}
	if !strings.HasPrefix(rest, key) {
		return false
	}
	j := jsonx.SkipSpace(rest, len(key))
	if j >= len(rest) || rest[j] != ':' {
		return false
	}
	j = jsonx.SkipSpace(rest, j+1)
	return !strings.HasPrefix(rest[j:], "null")
}
