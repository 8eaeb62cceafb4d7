package anthropic

import (
	"strings"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/jsonx"
	"github.com/llmbridge/llmbridge/codec/internal/wire"
	"github.com/tidwall/gjson"
)

// CheckEvent accepts a JSON object that names its type; message_stop and
// error end a stream, and so does an exception on Bedrock.
func (anthropicCodec) CheckEvent(p codec.Protocol, name, data string, _ bool) (valid, terminal bool) {
	if p == codec.BedrockAnthropic && wire.IsStreamException(name) {
		return true, true
	}
	if !jsonx.IsObject(data) {
		return false, false
	}
	typ := gjson.Get(data, "type")
	if typ.Type != gjson.String {
		return false, false
	}
	return true, typ.Str == "message_stop" || typ.Str == "error"
}

// ReportsUsage picks the message events, which carry usage, the stop
// reason or an error; an event without a name is judged by its members.
func (anthropicCodec) ReportsUsage(_ codec.Protocol, name, data string) bool {
	if wire.IsStreamException(name) {
		return true
	}
	switch name {
	case "message_start", "message_delta", "message_stop", "error":
		return true
	case "":
		return strings.Contains(data, `"usage"`) || strings.Contains(data, `"stop_reason"`) || strings.Contains(data, `"error"`)
	}
	return false
}

// DecodeFramingError returns the error of an AWS event stream's exception
// or error message, which Bedrock's InvokeModelWithResponseStream frames
// around the Messages events.
func (anthropicCodec) DecodeFramingError(p codec.Protocol, name, data string) *codec.Error {
	return wire.DecodeStreamException(p, name, data)
}
