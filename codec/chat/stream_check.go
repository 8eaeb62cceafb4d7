package chat

import (
	"math/bits"
	"strings"
	"unsafe"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/jsonx"
	"github.com/tidwall/gjson"
)

// CheckEvent accepts a JSON object or [DONE], which ends a stream; so does
// an error chunk, which the client already sees as an error.
func (chatCodec) CheckEvent(_ codec.Protocol, _, data string, _ bool) (valid, terminal bool) {
	if data == "[DONE]" {
		return true, true
	}
	if !jsonx.IsObject(data) {
		return false, false
	}
	// (The substring test spares the lookup on every text chunk.)
	return true, strings.Contains(data, `"error"`) && gjson.Get(data, "error").Exists()
}

// ReportsUsage picks the chunks with usage or an error, or a finish reason
// or refusal that is not null: every chunk has "finish_reason":null until
// the last choice chunk, usage comes in its own chunk (or the last one),
// and a refusal delta makes the stop a refusal.
func (chatCodec) ReportsUsage(_ codec.Protocol, _, data string) bool {
	return reportsUsage(data)
}

// reportsUsage reports whether a Chat chunk has a usage or error
// member, or a finish_reason or refusal that is not null, in one pass over
// the chunk: a chunk is short and full of quotes, which makes a substring
// search per key (or a vectorised search per quote) slower.
func reportsUsage(data string) bool {
	i := 0
	for ; len(data)-i >= 64; i += 64 {
		q, _, _ := jsonx.StringMasks(unsafe.StringData(data[i:]))
		for ; q != 0; q &= q - 1 {
			if reportingKey(data[i+bits.TrailingZeros64(q)+1:]) {
				return true
			}
		}
	}
	for ; i < len(data); i++ {
		if data[i] == '"' && reportingKey(data[i+1:]) {
			return true
		}
	}
	return false
}

// reportingKey reports whether rest, what follows a quote in a Chat
// chunk, is a key reportsUsage looks for, with a value it counts.
func reportingKey(rest string) bool {
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
