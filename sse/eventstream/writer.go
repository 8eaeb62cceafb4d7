package eventstream

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"

	"github.com/llmbridge/llmbridge/sse"
)

// AppendMessage appends the event stream message that carries the SSE
// event (name, data): an exception message for a name "exception:<type>",
// else an event message of :event-type name, both with a JSON payload. A
// header value holds at most 32767 bytes: for a longer type or name it
// appends nothing.
func AppendMessage(dst []byte, name string, data []byte) []byte {
	out, start, headersLen, ok := startEventMessage(dst, name)
	if !ok {
		return dst
	}
	return endMessage(append(out, data...), start, headersLen)
}

// startEventMessage starts the message of an SSE event named name
// (startMessage), or reports that its header value would be too long.
func startEventMessage[T string | []byte](dst []byte, name T) (out []byte, start, headersLen int, ok bool) {
	kind, header := "event", ":event-type"
	if len(name) >= len(ExceptionPrefix) && string(name[:len(ExceptionPrefix)]) == ExceptionPrefix {
		kind, header, name = "exception", ":exception-type", name[len(ExceptionPrefix):]
	}
	if len(name) > maxHeaderValueLen {
		return dst, 0, 0, false
	}
	out, start, headersLen = startMessage(dst, kind, header, name)
	return out, start, headersLen, true
}

// Writer turns SSE text, pushed as a stream encoder writes it, into AWS
// event stream messages (AppendMessage); SSE comments are dropped.
type Writer struct {
	r      *sse.Reader
	chunks bool
}

// NewWriter returns a Writer that refuses SSE events larger than
// maxEvent bytes.
func NewWriter(maxEvent int) *Writer {
	return &Writer{r: sse.NewPushReader(maxEvent)}
}

// NewChunkWriter returns a Writer that wraps every SSE event but an
// exception in an InvokeModelWithResponseStream chunk: a "chunk" event
// whose payload's bytes member is the event's data, base64-encoded.
func NewChunkWriter(maxEvent int) *Writer {
	w := NewWriter(maxEvent)
	w.chunks = true
	return w
}

// Push appends p and appends to dst the message of every SSE event it
// completes. An event whose name (or exception type) is longer than a
// header value can be (32767 bytes) is an error.
func (w *Writer) Push(dst, p []byte) ([]byte, error) {
	w.r.Push(p)
	for {
		ev, err := w.r.Next()
		switch {
		case errors.Is(err, sse.ErrNeedInput):
			return dst, nil
		case err != nil:
			return dst, err
		}
		if ev.Bare {
			continue
		}
		var start, headersLen int
		if w.chunks && !bytes.HasPrefix(ev.Name, []byte(ExceptionPrefix)) {
			// The chunk's payload is encoded in place.
			dst, start, headersLen = startMessage(dst, "event", ":event-type", chunkEvent)
			dst = append(dst, `{"bytes":"`...)
			dst = base64.StdEncoding.AppendEncode(dst, ev.Data)
			dst = endMessage(append(dst, `"}`...), start, headersLen)
			continue
		}
		var ok bool
		if dst, start, headersLen, ok = startEventMessage(dst, ev.Name); !ok {
			return dst, fmt.Errorf("an SSE event name of %d bytes is longer than an event stream header value can be (%d)", len(ev.Name), maxHeaderValueLen)
		}
		dst = endMessage(append(dst, ev.Data...), start, headersLen)
	}
}
