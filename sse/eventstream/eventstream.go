// Package eventstream converts AWS event streams
// (application/vnd.amazon.eventstream, the framing of Amazon Bedrock's
// streaming responses) to Server-Sent Events and back, so that stream
// codecs that read and write SSE serve Bedrock's streams too.
//
// A message of the event stream and an SSE event correspond one to one:
// an event message's :event-type is the SSE event's name and its payload
// the event's data; an exception message becomes an event named
// "exception:" followed by its :exception-type, and an error message one
// named "error:" followed by its :error-code, with its :error-message as
// data. The binary framing (prelude, headers, CRCs) is read and written
// with aws-sdk-go-v2's eventstream package.
//
// Bedrock's InvokeModelWithResponseStream wraps each event of the model's
// own stream in a "chunk" event whose payload is {"bytes": base64 of the
// event's JSON}. A chunk Reader unwraps them (the SSE event is named by
// the JSON's "type" member, as the model's own SSE stream names it) and a
// chunk Writer wraps every SSE event that way.
package eventstream

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"

	awsstream "github.com/aws/aws-sdk-go-v2/aws/protocol/eventstream"
	"github.com/tidwall/gjson"

	"github.com/llmbridge/llmbridge/sse"
)

// The names of the SSE events that stand for exception and error
// messages, before their type.
const (
	ExceptionPrefix = "exception:"
	ErrorPrefix     = "error:"
)

// ContentType is the media type of an AWS event stream.
const ContentType = "application/vnd.amazon.eventstream"

// chunkEvent is the :event-type of InvokeModelWithResponseStream's
// events, which carry a model's own event in their bytes member.
const chunkEvent = "chunk"

// preludeLen is the length of a message's prelude: its total length, its
// headers' length and the prelude's CRC, 4 bytes each.
const preludeLen = 12

// minMessageLen is the length of a message without headers or payload:
// the prelude and the message CRC.
const minMessageLen = preludeLen + 4

// Reader turns the bytes of an AWS event stream, pushed as they arrive,
// into SSE text. It holds the bytes of at most one incomplete message.
type Reader struct {
	buf     []byte
	dec     *awsstream.Decoder
	payload []byte
	chunk   []byte // a chunk's decoded bytes (chunk Readers)
	max     int
	chunks  bool
	err     error
}

// NewReader returns a Reader that refuses messages longer than maxMessage
// bytes (a malformed or hostile length would otherwise make it wait for
// bytes that never come, or buffer without bound).
func NewReader(maxMessage int) *Reader {
	return &Reader{dec: awsstream.NewDecoder(), max: maxMessage}
}

// NewChunkReader returns a Reader that unwraps InvokeModelWithResponseStream
// chunks: each chunk event becomes the event its bytes hold, named by
// their "type" member. Other messages are read as NewReader's are.
func NewChunkReader(maxMessage int) *Reader {
	r := NewReader(maxMessage)
	r.chunks = true
	return r
}

// Push appends p to the stream and appends to dst the SSE text of every
// message it completes. After an error (a length out of bounds, a CRC
// mismatch, a malformed header) the stream is broken: Push returns the
// same error and appends nothing.
func (r *Reader) Push(dst, p []byte) ([]byte, error) {
	if r.err != nil {
		return dst, r.err
	}
	r.buf = append(r.buf, p...)
	for len(r.buf) >= preludeLen {
		total := int(binary.BigEndian.Uint32(r.buf))
		if total < minMessageLen || total > r.max {
			return dst, r.fail(fmt.Errorf("event stream message of %d bytes (the limit is %d)", total, r.max))
		}
		if len(r.buf) < total {
			break
		}
		msg, err := r.dec.Decode(bytes.NewReader(r.buf[:total]), r.payload[:0])
		if err != nil {
			return dst, r.fail(fmt.Errorf("malformed event stream message: %w", err))
		}
		r.payload = msg.Payload
		name, data := eventOf(&msg)
		if name == "" {
			// The AWS SDKs refuse such a message too: nothing says
			// what it is.
			return dst, r.fail(errors.New("malformed event stream message: an event without its :event-type"))
		}
		if r.chunks && name == chunkEvent {
			if name, data, err = r.unwrap(data); err != nil {
				return dst, r.fail(err)
			}
		}
		dst = sse.AppendEvent(dst, name, data)
		r.buf = r.buf[:copy(r.buf, r.buf[total:])]
	}
	return dst, nil
}

// fail breaks the stream with err; the bytes held are of no further use.
func (r *Reader) fail(err error) error {
	r.err, r.buf = err, nil
	return err
}

// unwrap returns the event a chunk's payload carries: its bytes member,
// base64-decoded, named by its "type" member.
func (r *Reader) unwrap(payload []byte) (name string, data []byte, err error) {
	b := gjson.GetBytes(payload, "bytes")
	if b.Type != gjson.String {
		return "", nil, errors.New("malformed event stream chunk: no bytes member")
	}
	n := base64.StdEncoding.DecodedLen(len(b.Str))
	if cap(r.chunk) < n {
		r.chunk = make([]byte, n)
	}
	m, err := base64.StdEncoding.Decode(r.chunk[:n], []byte(b.Str))
	if err != nil {
		return "", nil, fmt.Errorf("malformed event stream chunk: %w", err)
	}
	data = r.chunk[:m]
	t := gjson.GetBytes(data, "type")
	if t.Type != gjson.String || t.Str == "" {
		return "", nil, errors.New("malformed event stream chunk: its event has no type")
	}
	return t.Str, data, nil
}

// Pending reports how many bytes of an incomplete message the Reader
// holds: a stream that ends with some was cut off.
func (r *Reader) Pending() int { return len(r.buf) }

// eventOf returns the SSE event of message m.
func eventOf(m *awsstream.Message) (name string, data []byte) {
	switch header(m, ":message-type") {
	case "exception":
		return ExceptionPrefix + header(m, ":exception-type"), m.Payload
	case "error":
		return ErrorPrefix + header(m, ":error-code"), []byte(header(m, ":error-message"))
	}
	return header(m, ":event-type"), m.Payload
}

// header returns the string value of m's header name, or "".
func header(m *awsstream.Message, name string) string {
	if v, ok := m.Headers.Get(name).(awsstream.StringValue); ok {
		return string(v)
	}
	return ""
}

// AppendMessage appends the event stream message that carries the SSE
// event (name, data): an exception message for a name "exception:<type>",
// else an event message of :event-type name, both with a JSON payload.
func AppendMessage(dst []byte, name string, data []byte) []byte {
	var h awsstream.Headers
	if t, ok := strings.CutPrefix(name, ExceptionPrefix); ok {
		h.Set(":message-type", awsstream.StringValue("exception"))
		h.Set(":exception-type", awsstream.StringValue(t))
	} else {
		h.Set(":message-type", awsstream.StringValue("event"))
		h.Set(":event-type", awsstream.StringValue(name))
	}
	h.Set(":content-type", awsstream.StringValue("application/json"))
	buf := bytes.NewBuffer(dst)
	// Encoding into memory fails only for a header name or value longer
	// than the format allows, which these are not.
	_ = awsstream.NewEncoder().Encode(buf, awsstream.Message{Headers: h, Payload: data})
	return buf.Bytes()
}

// Writer turns SSE text, pushed as a stream encoder writes it, into AWS
// event stream messages (AppendMessage); SSE comments are dropped.
type Writer struct {
	r      *sse.Reader
	chunks bool
	chunk  []byte // a chunk's payload (chunk Writers)
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
// completes.
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
		if w.chunks && !bytes.HasPrefix(ev.Name, []byte(ExceptionPrefix)) {
			w.chunk = append(w.chunk[:0], `{"bytes":"`...)
			w.chunk = base64.StdEncoding.AppendEncode(w.chunk, ev.Data)
			w.chunk = append(w.chunk, `"}`...)
			dst = AppendMessage(dst, chunkEvent, w.chunk)
			continue
		}
		dst = AppendMessage(dst, string(ev.Name), ev.Data)
	}
}
