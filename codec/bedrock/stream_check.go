package bedrock

import (
	"strings"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/jsonx"
)

// The SSE event names of a stream's exception messages
// (exception:throttlingException) and error messages (error:<code>, whose
// data is the error message's text) start with these.
const (
	exceptionPrefix = "exception:"
	errorPrefix     = "error:"
)

// CheckEvent accepts the ConverseStream events by name, with a JSON object
// as data. A stream ends with metadata, the last event AWS sends, or with
// an exception or error message, whatever its data (an error message's is
// text); messageStop is not
// terminal, since metadata (the usage) follows it.
func (converseCodec) CheckEvent(_ codec.Protocol, name, data string, _ bool) (valid, terminal bool) {
	if strings.HasPrefix(name, errorPrefix) || strings.HasPrefix(name, exceptionPrefix) {
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
	return strings.HasPrefix(name, exceptionPrefix) || strings.HasPrefix(name, errorPrefix)
}
