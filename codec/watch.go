package codec

import (
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
	p        Protocol
	codec    Translator // p's codec, looked up once rather than per event
	complete bool
}

// NewStreamWatcher returns a watcher for streams of protocol p; for an
// unknown protocol it accepts every event.
func NewStreamWatcher(p Protocol) *StreamWatcher {
	w := &StreamWatcher{p: p}
	if d := p.Descriptor(); d != nil {
		w.codec = d.codec
	}
	return w
}

// Observe looks at one upstream SSE event and reports whether it is an
// event of the protocol (Translator.CheckEvent). Once the stream is complete
// every event is accepted unread: what follows the terminal event cannot
// cost the client an answer it already has.
func (w *StreamWatcher) Observe(name, data []byte, bare bool) bool {
	if w.complete || w.codec == nil {
		return true
	}
	valid, terminal := w.codec.CheckEvent(w.p, jsonx.BytesToString(name), jsonx.BytesToString(data), bare)
	w.complete = terminal
	return valid
}

// Complete reports whether the stream's terminal event has been seen.
func (w *StreamWatcher) Complete() bool { return w.complete }

// IsProtocolBody reports whether body, a complete non-streamed answer of an
// upstream of protocol p with HTTP status, is what the protocol sends: a
// JSON object for a success, the protocol's error object (an "error"
// object with a message; for AWS's protocols an object with a message,
// ErrorAtRoot) or another shape of its error bodies (ErrorBodyChecker) for
// any other status. A passthrough forwards such a body byte for byte and
// turns anything else (a cut body, a load balancer's HTML page) into an
// error the client's SDK can read.
func IsProtocolBody(p Protocol, status int, body []byte) bool {
	s := jsonx.BytesToString(body)
	if !jsonx.IsObject(s) {
		d := p.Descriptor()
		return status >= 400 && d != nil && d.errorBodies != nil && d.errorBodies.IsErrorBody(p, s)
	}
	if status < 400 {
		return true
	}
	if d := p.Descriptor(); d != nil && d.ErrorAtRoot {
		return gjson.Get(s, "message").Type == gjson.String || gjson.Get(s, "Message").Type == gjson.String
	}
	return gjson.Get(s, "error.message").Type == gjson.String
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
