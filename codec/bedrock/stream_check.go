package bedrock

import (
	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/jsonx"
	"github.com/llmbridge/llmbridge/codec/internal/wire"
)

// CheckEvent accepts the ConverseStream events by name, with a JSON object
// as data. A stream ends with metadata, the last event AWS sends, or with
// an exception or error message, whatever its data (an error message's is
// text); messageStop is not
// terminal, since metadata (the usage) follows it.
func (converseCodec) CheckEvent(_ codec.Protocol, name, data string, _ bool) (valid, terminal bool) {
	if wire.IsStreamException(name) {
		return true, true
	}
	if !jsonx.IsObject(data) {
		return false, false
	}
	switch name {
	case "messageStart", "contentBlockStart", "contentBlockDelta", "contentBlockStop", "messageStop":
		return true, false
	case "metadata":
		return true, true
	}
	return false, false
}

// ReportsUsage picks messageStop (the stop reason), metadata (the usage),
// exceptions and errors, and contentBlockStart, whose tool use makes the stop a
// tool use.
func (converseCodec) ReportsUsage(_ codec.Protocol, name, _ string) bool {
	switch name {
	case "messageStop", "metadata", "contentBlockStart":
		return true
	}
	return wire.IsStreamException(name)
}

// DecodeFramingError returns the error of an AWS event stream's exception
// or error message.
func (converseCodec) DecodeFramingError(p codec.Protocol, name, data string) *codec.Error {
	return wire.DecodeStreamException(p, name, data)
}
