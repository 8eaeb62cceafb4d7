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
	max    int
	chunks bool
	// idle reports that the SSE text pushed so far ends at an event's
	// end, where r holds nothing: the events that follow, in the one
	// shape stream encoders write, are read without it (plainEvent).
	idle bool
	// fed reports that r has been given text, and skipped that text went
	// by without it before: r then has not seen the stream's start, where
	// it would skip a byte order mark.
	fed, skipped bool
	err          error // sticky: the stream is broken
}

// NewWriter returns a Writer that refuses SSE events larger than
// maxEvent bytes.
func NewWriter(maxEvent int) *Writer {
	if maxEvent <= 0 {
		maxEvent = sse.DefaultMaxEventSize
	}
	return &Writer{r: sse.NewPushReader(maxEvent), max: maxEvent, idle: true}
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
// completes. An event larger than the bound, or whose name (or exception
// type) is longer than a header value can be (32767 bytes), breaks the
// stream: Push returns that error from then on.
func (w *Writer) Push(dst, p []byte) ([]byte, error) {
	if w.err != nil {
		return dst, w.err
	}
	for w.idle {
		name, data, n := plainEvent(p, w.max)
		if n == 0 {
			break
		}
		var err error
		if dst, err = w.message(dst, name, data); err != nil {
			return dst, w.fail(err)
		}
		p = p[n:]
		w.skipped = true
	}
	if len(p) == 0 {
		return dst, nil
	}
	if !w.fed && w.skipped {
		// A blank line, where r holds nothing, reads as nothing but
		// the stream's start.
		w.r.Push([]byte("\n"))
		if _, err := w.r.Next(); !errors.Is(err, sse.ErrNeedInput) {
			return dst, w.fail(fmt.Errorf("sse: a blank line read as %v", err))
		}
	}
	w.fed = true
	w.r.Push(p)
	for {
		ev, err := w.r.Next()
		switch {
		case errors.Is(err, sse.ErrNeedInput):
			// A blank line ends what r has read: it holds nothing more.
			w.idle = bytes.HasSuffix(p, []byte("\n\n"))
			return dst, nil
		case err != nil:
			return dst, w.fail(err)
		}
		if ev.Bare {
			continue
		}
		if dst, err = w.message(dst, ev.Name, ev.Data); err != nil {
			return dst, w.fail(err)
		}
	}
}

// fail breaks the stream with err.
func (w *Writer) fail(err error) error {
	w.err, w.idle = err, false
	return err
}

// message appends the message of the SSE event (name, data).
func (w *Writer) message(dst, name, data []byte) ([]byte, error) {
	var start, headersLen int
	if w.chunks && !bytes.HasPrefix(name, []byte(ExceptionPrefix)) {
		// The chunk's payload is encoded in place.
		dst, start, headersLen = startMessage(dst, "event", ":event-type", chunkEvent)
		dst = append(dst, `{"bytes":"`...)
		dst = base64.StdEncoding.AppendEncode(dst, data)
		return endMessage(append(dst, `"}`...), start, headersLen), nil
	}
	var ok bool
	if dst, start, headersLen, ok = startEventMessage(dst, name); !ok {
		return dst, fmt.Errorf("an SSE event name of %d bytes is longer than an event stream header value can be (%d)", len(name), maxHeaderValueLen)
	}
	return endMessage(append(dst, data...), start, headersLen), nil
}

// plainEvent reads the event at the start of p if it has the shape
// sse.AppendEvent gives an event with a name and one line of data
// ("event: <name>\n", "data: <data>\n", then a blank line, no CR) and is
// well within the size bound max: then an sse.Reader would read the same
// name and data. It returns the event's length, or 0.
func plainEvent(p []byte, max int) (name, data []byte, n int) {
	const event, dataField = "event: ", "\ndata: "
	if len(p) < len(event) || string(p[:len(event)]) != event {
		return nil, nil, 0
	}
	i := bytes.IndexByte(p, '\n')
	if i < 0 || len(p) < i+len(dataField) || string(p[i:i+len(dataField)]) != dataField {
		return nil, nil, 0
	}
	j := bytes.IndexByte(p[i+len(dataField):], '\n')
	if j < 0 {
		return nil, nil, 0
	}
	n = i + len(dataField) + j + 2
	// The bound counts an event's lines and line ends; a margin keeps
	// clear of its edge, where r decides.
	if len(p) < n || p[n-1] != '\n' || n+16 > max || bytes.IndexByte(p[:n], '\r') >= 0 {
		return nil, nil, 0
	}
	return p[len(event):i], p[i+len(dataField) : n-2], n
}
