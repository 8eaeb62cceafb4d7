package wire

import (
	"math"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/mapping"
	"github.com/tidwall/gjson"
)

// ServerFilter hides hosted search parts and citations from a stream
// encoder whose protocol cannot carry them in a stream (Chat, Gemini): the
// answer itself still reaches the client.
type ServerFilter struct {
	open  bool // a server tool part is open
	index int  // its index
}

// Skip reports whether ev belongs to a hidden part or is a citation.
func (f *ServerFilter) Skip(ev *codec.Event) bool {
	switch ev.Type {
	case codec.EventCitation:
		return true
	case codec.EventPartStart:
		if ev.Part == codec.PartServerToolCall || ev.Part == codec.PartServerToolResult {
			f.open, f.index = true, ev.Index
			return true
		}
	case codec.EventPartDelta:
		return f.open && ev.Index == f.index
	case codec.EventPartStop:
		if f.open && ev.Index == f.index {
			f.open = false
			return true
		}
	}
	return false
}

// Truncated is the error for an upstream stream that ended before its
// terminal event.
func Truncated(p codec.Protocol, cause error) *codec.Error {
	msg := "upstream " + string(p) + " stream ended before it was complete"
	if cause != nil {
		msg = "upstream " + string(p) + " stream broke off before it was complete"
	}
	return &codec.Error{Status: 502, Kind: mapping.ErrBadGateway, Message: msg}
}

// InvalidStream is the error for an event of an upstream stream of
// protocol p that is not valid in the protocol.
func InvalidStream(p codec.Protocol, why string) *codec.Error {
	return &codec.Error{Status: 502, Kind: mapping.ErrBadGateway, Message: "upstream " + string(p) + " stream is invalid: " + why}
}

// UntranslatedStream is the error for output of an upstream stream of
// protocol p that llmbridge does not translate, which is never dropped:
// what says what it is, and that it cannot be translated.
func UntranslatedStream(p codec.Protocol, what string) *codec.Error {
	return &codec.Error{Status: 502, Kind: mapping.ErrBadGateway, Message: "upstream " + string(p) + " stream: " + what}
}

// BlockIndex reads the index of a content block in a stream event (an
// Anthropic index, a Converse contentBlockIndex): a whole number from 0 to
// math.MaxInt32.
func BlockIndex(v gjson.Result) (int, bool) {
	if v.Type != gjson.Number || v.Num < 0 || v.Num != math.Trunc(v.Num) || v.Num > math.MaxInt32 {
		return 0, false
	}
	return int(v.Num), true
}
