package codec

import (
	"strings"

	"github.com/llmbridge/llmbridge/codec/internal/jsonx"
	"github.com/tidwall/gjson"
)

// StreamWatcher follows an upstream stream that passes through untranslated
// (client and upstream of one wire family) to learn whether each event is
// one of the protocol and whether the stream ended properly: a passthrough
// must not hand the client an event its SDK cannot parse, nor let a
// truncated stream look complete. It reads just enough of each event to
// check it and spot the protocol's terminal event, and costs no allocation.
type StreamWatcher struct {
	family   Protocol // the protocol's family, looked up once rather than per event
	complete bool
}

// NewStreamWatcher returns a watcher for streams of protocol p.
func NewStreamWatcher(p Protocol) *StreamWatcher { return &StreamWatcher{family: p.Family()} }

// Observe looks at one upstream SSE event and reports whether it is an
// event of the protocol: a JSON object (Chat's [DONE] aside) that, for the
// protocols whose events are typed (Responses, Anthropic), names its type.
// Once the stream is complete every event is accepted unread: what follows
// the terminal event cannot cost the client an answer it already has.
func (w *StreamWatcher) Observe(name, data []byte, bare bool) bool {
	if w.complete {
		return true
	}
	s := jsonx.BytesToString(data)
	switch w.family {
	case OpenAIChat:
		// [DONE] ends a stream; so does an error chunk, which the client
		// already sees as an error.
		if s == "[DONE]" {
			w.complete = true
			return true
		}
		if !isJSONObject(s) {
			return false
		}
		// (The substring test spares the lookup on every text chunk.)
		w.complete = strings.Contains(s, `"error"`) && gjson.Get(s, "error").Exists()
	case OpenAIResponses, AnthropicMessages:
		if !isJSONObject(s) {
			return false
		}
		typ := gjson.Get(s, "type")
		if typ.Type != gjson.String {
			return false
		}
		switch typ.Str {
		case "response.completed", "response.incomplete", "response.failed", "error", "message_stop":
			w.complete = true
		}
	case Gemini:
		// A bare block is an error object or an array of them, which
		// ends the stream however it is shaped.
		if bare {
			w.complete = jsonx.Valid(s)
			return w.complete
		}
		if !isJSONObject(s) {
			return false
		}
		// Gemini has no terminal event: a stream is complete once a
		// candidate has a finish reason, the prompt was blocked, or an
		// error arrived.
		w.complete = strings.Contains(s, `"finishReason"`) && gjson.Get(s, "candidates.0.finishReason").Exists() ||
			strings.Contains(s, `"blockReason"`) && gjson.Get(s, "promptFeedback.blockReason").Exists() ||
			strings.Contains(s, `"error"`) && gjson.Get(s, "error").Exists()
	}
	return true
}

// Complete reports whether the stream's terminal event has been seen.
func (w *StreamWatcher) Complete() bool { return w.complete }

// isJSONObject reports whether s is one valid JSON object, with optional
// surrounding whitespace.
func isJSONObject(s string) bool {
	t := strings.TrimLeft(s, " \t\r\n")
	return len(t) > 0 && t[0] == '{' && jsonx.Valid(t)
}

// IsProtocolBody reports whether body, a complete non-streamed answer of an
// upstream of protocol p with HTTP status, is what the protocol sends: a
// JSON object for a success, the protocol's error object (an "error"
// object with a message; for Gemini also an array of such objects) for
// any other status. A passthrough forwards such a body byte for byte and
// turns anything else (a cut body, a load balancer's HTML page) into an
// error the client's SDK can read.
func IsProtocolBody(p Protocol, status int, body []byte) bool {
	s := jsonx.BytesToString(body)
	if !isJSONObject(s) {
		return status >= 400 && p.Family() == Gemini && isGeminiErrorArray(s)
	}
	if status < 400 {
		return true
	}
	return gjson.Get(s, "error.message").Type == gjson.String
}

// isGeminiErrorArray reports whether s is a JSON array whose first element
// is a Google error object, as Gemini sends for some failed requests.
func isGeminiErrorArray(s string) bool {
	t := strings.TrimLeft(s, " \t\r\n")
	return len(t) > 0 && t[0] == '[' && jsonx.Valid(t) && gjson.Get(t, "0.error.message").Type == gjson.String
}

// AppendStreamError appends protocol p's in-stream error for e, as a fresh
// stream encoder writes it: what a passthrough adds to a stream that broke
// off. It appends nothing for an unknown protocol.
func AppendStreamError(dst []byte, p Protocol, req *Request, e *Error) []byte {
	enc, err := NewStreamEncoder(p, req)
	if err != nil {
		return dst
	}
	ev := Event{Type: EventError, Err: e}
	return enc.Encode(dst, &ev)
}
