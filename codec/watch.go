package codec

import (
	"strings"

	"github.com/tidwall/gjson"
)

// StreamWatcher follows an upstream stream that passes through untranslated
// (client and upstream of one wire family) only to learn whether it ended
// properly: a passthrough must not let a truncated stream look complete to
// the client. It reads just enough of each event to spot the protocol's
// terminal event and costs no allocation.
type StreamWatcher struct {
	p        Protocol
	complete bool
}

// NewStreamWatcher returns a watcher for streams of protocol p.
func NewStreamWatcher(p Protocol) *StreamWatcher { return &StreamWatcher{p: p} }

// Observe looks at one upstream SSE event.
func (w *StreamWatcher) Observe(name, data []byte, bare bool) {
	if w.complete {
		return
	}
	s := bytesToString(data)
	switch w.p.Family() {
	case OpenAIChat:
		// [DONE] ends a stream; so does an error chunk, which the client
		// already sees as an error.
		// (The substring test spares the lookup on every text chunk.)
		w.complete = s == "[DONE]" || strings.Contains(s, `"error"`) && gjson.Get(s, "error").Exists()
	case OpenAIResponses:
		switch gjson.Get(s, "type").Str {
		case "response.completed", "response.incomplete", "response.failed", "error":
			w.complete = true
		}
	case AnthropicMessages:
		switch gjson.Get(s, "type").Str {
		case "message_stop", "error":
			w.complete = true
		}
	case Gemini:
		// Gemini has no terminal event: a stream is complete once a
		// candidate has a finish reason, the prompt was blocked, or an
		// error arrived.
		w.complete = bare ||
			strings.Contains(s, `"finishReason"`) && gjson.Get(s, "candidates.0.finishReason").Exists() ||
			strings.Contains(s, `"blockReason"`) && gjson.Get(s, "promptFeedback.blockReason").Exists() ||
			strings.Contains(s, `"error"`) && gjson.Get(s, "error").Exists()
	}
}

// Complete reports whether the stream's terminal event has been seen.
func (w *StreamWatcher) Complete() bool { return w.complete }

// AppendStreamError appends protocol p's in-stream error for e, as a fresh
// stream encoder writes it: what a passthrough adds to a stream that broke
// off.
func AppendStreamError(dst []byte, p Protocol, req *Request, e *Error) []byte {
	ev := Event{Type: EventError, Err: e}
	return NewStreamEncoder(p, req).Encode(dst, &ev)
}
