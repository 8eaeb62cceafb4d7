package eventstream

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"unsafe"

	"github.com/tidwall/gjson"

	"github.com/llmbridge/llmbridge/sse"
)

// Reader turns the bytes of an AWS event stream, pushed as they arrive,
// into SSE text. It holds the bytes of at most one incomplete message.
type Reader struct {
	buf    []byte // the start of an incomplete message
	chunk  []byte // a chunk's decoded bytes (chunk Readers)
	name   []byte // an exception's or error's event name
	max    int
	chunks bool
	err    error
}

// NewReader returns a Reader that refuses messages longer than maxMessage
// bytes (a malformed or hostile length would otherwise make it wait for
// bytes that never come, or buffer without bound).
func NewReader(maxMessage int) *Reader {
	return &Reader{max: maxMessage}
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
	// Whole messages are read where they are: only an incomplete one is
	// copied, and only what completes it is appended to it.
	if len(r.buf) > 0 {
		var done bool
		if p, done = r.complete(p); !done {
			return dst, r.err
		}
		var err error
		if dst, err = r.message(dst, r.buf); err != nil {
			return dst, r.fail(err)
		}
		r.buf = r.buf[:0]
	}
	in := p
	for len(in) >= preludeLen {
		total, err := r.length(in)
		if err != nil {
			return dst, r.fail(err)
		}
		if len(in) < total {
			break
		}
		if dst, err = r.message(dst, in[:total]); err != nil {
			return dst, r.fail(err)
		}
		in = in[total:]
	}
	r.buf = append(r.buf, in...)
	return dst, nil
}

// complete appends to the held incomplete message what p has of its
// rest: its prelude first, which says its length, then the rest of it.
// It returns what p holds after the message, and whether the message is
// now complete (with r.err set when its length is out of bounds).
func (r *Reader) complete(p []byte) ([]byte, bool) {
	if len(r.buf) < preludeLen {
		k := min(preludeLen-len(r.buf), len(p))
		r.buf, p = append(r.buf, p[:k]...), p[k:]
		if len(r.buf) < preludeLen {
			return p, false
		}
	}
	total, err := r.length(r.buf)
	if err != nil {
		r.fail(err)
		return p, false
	}
	k := min(total-len(r.buf), len(p))
	r.buf, p = append(r.buf, p[:k]...), p[k:]
	return p, len(r.buf) == total
}

// length returns the length of the message whose prelude starts b, or
// an error when it is out of bounds.
func (r *Reader) length(b []byte) (int, error) {
	total := int(binary.BigEndian.Uint32(b))
	if total < minMessageLen || total > r.max {
		return 0, fmt.Errorf("event stream message of %d bytes (the limit is %d)", total, r.max)
	}
	return total, nil
}

// message appends to dst the SSE event of message msg.
func (r *Reader) message(dst, msg []byte) ([]byte, error) {
	f, payload, err := parseMessage(msg)
	if err != nil {
		return dst, fmt.Errorf("malformed event stream message: %w", err)
	}
	var name []byte
	data := payload
	switch string(f.messageType) {
	case "exception":
		r.name = append(append(r.name[:0], ExceptionPrefix...), f.exceptionType...)
		name = r.name
	case "error":
		r.name = append(append(r.name[:0], ErrorPrefix...), f.errorCode...)
		name, data = r.name, f.errorMessage
	default:
		name = f.eventType
	}
	if len(name) == 0 {
		// The AWS SDKs refuse such a message too: nothing says what it
		// is.
		return dst, fmt.Errorf("malformed event stream message: %w", errNoEventType)
	}
	if r.chunks && string(name) == chunkEvent {
		if name, data, err = r.unwrap(data); err != nil {
			return dst, err
		}
	}
	return sse.AppendEvent(dst, bytesString(name), data), nil
}

// fail breaks the stream with err; the bytes held are of no further use.
func (r *Reader) fail(err error) error {
	r.err, r.buf = err, nil
	return err
}

// unwrap returns the event a chunk's payload carries: its bytes member,
// base64-decoded, named by its "type" member. Both point into r.chunk.
func (r *Reader) unwrap(payload []byte) (name, data []byte, err error) {
	b, ok := stringMember(payload, "bytes")
	if !ok {
		return nil, nil, errors.New("malformed event stream chunk: no bytes member")
	}
	n := base64.StdEncoding.DecodedLen(len(b))
	if cap(r.chunk) < n {
		r.chunk = make([]byte, n)
	}
	m, err := base64.StdEncoding.Decode(r.chunk[:n], b)
	if err != nil {
		return nil, nil, fmt.Errorf("malformed event stream chunk: %w", err)
	}
	data = r.chunk[:m]
	if name, ok = stringMember(data, "type"); !ok || len(name) == 0 {
		return nil, nil, errors.New("malformed event stream chunk: its event has no type")
	}
	return name, data, nil
}

// stringMember returns the string value of the member key of JSON object
// obj, as gjson finds it, without copying it when it has no escapes. The
// member comes first in the objects Bedrock and Anthropic write (the
// chunk's bytes, the event's type): that value is found without gjson's
// scan, which goes a byte at a time. The result is only read.
func stringMember(obj []byte, key string) ([]byte, bool) {
	// {"key":"value" where value has no escape: the string gjson returns.
	if k := len(key) + 5; len(obj) > k && obj[0] == '{' && obj[1] == '"' &&
		string(obj[2:k-3]) == key && string(obj[k-3:k]) == `":"` {
		v := obj[k:]
		if end := bytes.IndexByte(v, '"'); end >= 0 && bytes.IndexByte(v[:end], '\\') < 0 {
			return v[:end], true
		}
	}
	res := gjson.Get(bytesString(obj), key)
	if res.Type != gjson.String {
		return nil, false
	}
	return unsafe.Slice(unsafe.StringData(res.Str), len(res.Str)), true
}

// Pending reports how many bytes of an incomplete message the Reader
// holds: a stream that ends with some was cut off.
func (r *Reader) Pending() int { return len(r.buf) }

// bytesString returns b as a string without copying it: the string is
// only read, and only while b is left alone.
func bytesString(b []byte) string {
	return unsafe.String(unsafe.SliceData(b), len(b))
}
