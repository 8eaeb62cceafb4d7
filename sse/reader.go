package sse

import (
	"bytes"
	"errors"
	"io"
	"sync"
)

// DefaultMaxEventSize is the event size bound used when NewReader is given a
// bound <= 0. It is 32 MiB, the longest line the official OpenAI and
// Anthropic Go SDKs accept (bufio.MaxScanTokenSize<<9), so that llmbridge
// never rejects an event those clients would read. Real events can be large:
// a Gemini chunk or a Responses event carrying a generated image in base64
// is several MiB on a single line. Memory is only used as events need it;
// the bound caps what one stream can claim.
const DefaultMaxEventSize = 32 << 20

// ErrEventTooLarge is returned by Reader.Next when an event exceeds the
// reader's size bound. The reader stops there: every later call returns the
// same error, because the rest of the stream cannot be framed reliably.
var ErrEventTooLarge = errors.New("sse: event exceeds the maximum event size")

// initialBufSize is the read buffer's starting size; it fits typical
// provider events whole, and grows (up to the bound) only for larger lines.
const initialBufSize = 4 << 10

// maxEmptyReads is how many (0, nil) reads in a row are tolerated before
// giving up with io.ErrNoProgress, as bufio does, so that a misbehaving
// io.Reader cannot make Next spin forever.
const maxEmptyReads = 100

// utf8BOM is skipped once at the start of the stream, as the spec requires.
var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// Event is one dispatched event. Its byte slices are valid until the next
// call to Reader.Next; copy them to keep them longer.
type Event struct {
	// Name is the value of the last event: field of the event; it is
	// empty when there was none (the spec's default type "message" is
	// not filled in, so that callers can tell the two apart).
	Name []byte
	// Data is the values of the event's data: lines joined with "\n" (the
	// SSE rule); for a Bare event it is the bare lines joined with "\n",
	// that is the JSON text.
	Data []byte
	// ID is the stream's last event ID: the value of the last id: field
	// seen so far in the stream, in this event or an earlier one, as the
	// spec defines it (an id: field whose value contains NUL is ignored).
	// It is nil when the stream has had no id: field.
	ID []byte
	// Retry is the value in milliseconds of the last valid retry: field
	// of this event (ASCII digits only, fitting an int), or -1.
	Retry int
	// Bare reports that the event came from lines without a field name,
	// as Gemini writes its mid-stream errors (see Reader).
	Bare bool
}

// IsDone reports whether the event's data is exactly "[DONE]", the marker
// OpenAI Chat Completions sends as its last event.
func (e *Event) IsDone() bool {
	return string(e.Data) == "[DONE]"
}

// Reader parses an event stream incrementally, one event per call to Next.
// It reads from the underlying io.Reader only as far as needed to complete
// the current event, so events are returned as soon as they arrive.
//
// Lines end with "\n", "\r\n" or a lone "\r", also when a CRLF pair is split
// between two reads. Fields follow the WHATWG rules: data, event, id and
// retry are understood, one space after the colon is stripped, lines that
// start with ":" are comments, other field names are ignored, and a line
// without a colon is a field name with an empty value. A UTF-8 BOM at the
// start of the stream is skipped. A blank line dispatches the pending event
// if it has at least one data: line; events without data (only event:, id:
// or retry: fields) are dropped, as the spec says.
//
// Bare JSON. Gemini writes mid-stream errors as bare JSON without a data:
// prefix, often pretty-printed over several lines. google.golang.org/genai
// splits its stream into blocks at blank lines and parses any block whose
// first line is not a data: field, all its lines verbatim, as JSON
// {"error": ...}. Reader does the same for the blocks it can recognise: a
// line whose first byte other than space or tab is '{', '[' or '}' starts a
// bare block, and every following line up to the next blank line (or the end
// of the stream) belongs to it, whatever it holds. The block is returned as
// one event with Bare set, Data the lines joined with "\n", no Name and
// Retry -1. If a data: event is pending when a bare block starts, that event
// is dispatched first, as if a blank line had preceded the bare block, so
// that neither is lost; field lines without data before the block are
// dropped like any event without data.
//
// End of stream. If the stream ends at a line end, a pending event with data
// (or a bare block) is dispatched even without the final blank line, as
// genai does, then Next returns io.EOF. If the last line has no line end,
// the connection was cut in the middle of a line: Next returns
// io.ErrUnexpectedEOF and the pending event is dropped, so that a truncated
// stream is never taken for a complete one. Errors from the underlying
// reader are returned unchanged. All errors are sticky.
//
// Size bound. The size of an event is the length of all its lines, counting
// one byte for each line end; comment lines do not count, but no single line
// may exceed the bound either. An event (or line) larger than the bound makes
// Next return ErrEventTooLarge as soon as the excess is seen, before it is
// buffered. Memory therefore stays within a small multiple of the bound (the
// read buffer, the event's name and data, the last event ID) whatever the
// input, and grows from 4 KiB only as the events need it.
//
// A Reader is not safe for concurrent use.
type Reader struct {
	rd     io.Reader
	buf    []byte  // read buffer; buf[r:w] is unconsumed input
	pooled *[]byte // buf's pool entry while buf is a pooled buffer
	r, w   int
	base   int64       // input offset of buf[0]
	bufMax int         // the read buffer never grows beyond this
	max    int         // the event size bound
	rerr   error       // error from rd, reported once buf[r:w] is used up
	err    error       // sticky error returned by Next
	push   *pushSource // the input of a push reader, nil otherwise

	bomChecked bool // the start of the stream was checked for a BOM
	skipLF     bool // the last line ended with '\r': skip a '\n' that follows

	// A line that arrives in many reads is scanned once, not once per
	// read (which is quadratic): buf[r.r:r.r+scanned] is known to hold no
	// line end, and buf[r.r:r.r+lead] only blanks.
	scanned int
	lead    int

	// State of the event being assembled. It is cleared lazily, at the
	// start of the Next call that follows a dispatch, because the returned
	// Event points into these buffers.
	ev         Event
	dispatched bool
	data       []byte
	name       []byte
	id         []byte
	hasID      bool
	retry      int
	size       int  // size of the event so far, for the bound
	hasData    bool // at least one data: line
	bare       bool // collecting a bare JSON block
}

// NewReader returns a Reader that parses the event stream read from r.
// maxEventSize bounds the size of one event (see Reader); a value <= 0
// means DefaultMaxEventSize.
func NewReader(r io.Reader, maxEventSize int) *Reader {
	if maxEventSize <= 0 {
		maxEventSize = DefaultMaxEventSize
	}
	// The buffer must hold the longest partial line that can still be
	// within the bound, plus one byte to make progress, and the 3 bytes of
	// a BOM; initialBufSize covers the latter.
	bufMax := max(maxEventSize, initialBufSize)
	return &Reader{
		rd:     r,
		bufMax: bufMax,
		max:    maxEventSize,
		retry:  -1,
	}
}

// Next returns the next event of the stream. It returns io.EOF when the
// stream ended cleanly, io.ErrUnexpectedEOF when it was cut in the middle of
// a line, ErrEventTooLarge when an event exceeds the bound, or the error of
// the underlying reader. The returned Event and its slices are valid until
// the next call to Next.
func (r *Reader) Next() (*Event, error) {
	if r.err != nil {
		return nil, r.err
	}
	if r.dispatched {
		r.clearEvent()
	}
	for {
		line, n, err := r.scanLine()
		if err == ErrNeedInput {
			// A push reader ran out of input: not an error of the
			// stream, so nothing is sticky and the read is retried.
			r.rerr = nil
			r.releaseBuffer()
			return nil, err
		}
		if err != nil {
			if err == io.EOF && (r.hasData || r.bare) {
				// The stream ended at a line end: dispatch what is
				// pending; the next call finds io.EOF again.
				return r.dispatch(), nil
			}
			r.err = err
			// The stream is over: nothing reads the buffer again, and a
			// reader that ended holding it would leave the pool to make
			// one for the next stream.
			r.releaseBuffer()
			return nil, err
		}
		if len(line) == 0 {
			r.r += n
			if r.hasData || r.bare {
				return r.dispatch(), nil
			}
			// Nothing to dispatch; the spec still resets the
			// event type buffer.
			r.clearEvent()
			continue
		}
		if len(line)+1 > r.max {
			// No line may exceed the bound, whatever it turns out to
			// be; checking first keeps the outcome the same as that
			// of checkPartial when the line arrives in pieces.
			return nil, r.tooLarge()
		}
		if r.bare {
			if err := r.grow(len(line)); err != nil {
				return nil, err
			}
			r.data = append(r.data, '\n')
			r.data = append(r.data, line...)
			r.r += n
			continue
		}
		if isBareStart(line) {
			if r.hasData {
				// Leave the line unconsumed: it starts the
				// next event, after this one is dispatched.
				return r.dispatch(), nil
			}
			if err := r.grow(len(line)); err != nil {
				return nil, err
			}
			r.bare = true
			r.name = r.name[:0]
			r.retry = -1
			r.data = append(r.data[:0], line...)
			r.r += n
			continue
		}
		if line[0] == ':' {
			// A comment is not part of the event.
			r.r += n
			continue
		}
		if err := r.grow(len(line)); err != nil {
			return nil, err
		}
		r.field(line)
		r.r += n
	}
}

// Offset returns how many bytes of the input the reader has consumed. Right
// after Next returns an event, the input before Offset holds that event
// and everything before it, and nothing of a later event: a proxy that
// passes the raw stream on can forward exactly the complete events, byte
// for byte, and hold back the rest.
func (r *Reader) Offset() int64 { return r.base + int64(r.r) }

// field applies one field line (not a comment, not blank) to the pending
// event.
func (r *Reader) field(line []byte) {
	name, value := line, line[len(line):]
	if i := bytes.IndexByte(line, ':'); i >= 0 {
		name, value = line[:i], line[i+1:]
		if len(value) > 0 && value[0] == ' ' {
			value = value[1:]
		}
	}
	switch string(name) { // no allocation: the compiler converts in place
	case "data":
		if r.hasData {
			r.data = append(r.data, '\n')
		}
		r.data = append(r.data, value...)
		r.hasData = true
	case "event":
		r.name = append(r.name[:0], value...)
	case "id":
		if bytes.IndexByte(value, 0) < 0 {
			r.id = append(r.id[:0], value...)
			r.hasID = true
		}
	case "retry":
		if v, ok := parseRetry(value); ok {
			r.retry = v
		}
	}
}

// parseRetry parses a retry: value, which the spec allows to be ASCII
// digits only. Empty and overflowing values are invalid.
func parseRetry(b []byte) (int, bool) {
	if len(b) == 0 {
		return 0, false
	}
	const maxInt = int(^uint(0) >> 1)
	n := 0
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		d := int(c - '0')
		if n > (maxInt-d)/10 {
			return 0, false
		}
		n = n*10 + d
	}
	return n, true
}

// isBareStart reports whether line starts a bare JSON block: its first byte
// other than space or tab is '{', '[' or '}'.
func isBareStart(line []byte) bool {
	for _, c := range line {
		switch c {
		case ' ', '\t':
			continue
		case '{', '[', '}':
			return true
		}
		return false
	}
	return false
}

// grow adds a line of length n (plus its line end) to the event's size and
// fails once the bound is exceeded.
func (r *Reader) grow(n int) error {
	r.size += n + 1
	if r.size > r.max {
		return r.tooLarge()
	}
	return nil
}

func (r *Reader) tooLarge() error {
	r.err = ErrEventTooLarge
	return r.err
}

// dispatch fills r.ev from the pending event and returns it. The state is
// cleared at the next call to Next, once the caller is done with it.
func (r *Reader) dispatch() *Event {
	r.ev.Name = r.name
	r.ev.Data = r.data
	r.ev.ID = nil
	if r.hasID {
		r.ev.ID = r.id
	}
	r.ev.Retry = r.retry
	r.ev.Bare = r.bare
	r.dispatched = true
	return &r.ev
}

// clearEvent resets the pending event, keeping the buffers for reuse. The
// last event ID is not reset: it is stream state in the spec.
func (r *Reader) clearEvent() {
	r.data = r.data[:0]
	r.name = r.name[:0]
	r.retry = -1
	r.size = 0
	r.hasData = false
	r.bare = false
	r.dispatched = false
}

// scanLine returns the next complete line without its line end, and the
// number of bytes the caller must consume (r.r += n) once done with it; the
// line aliases the read buffer, valid until the next scanLine call. It
// returns io.EOF when the stream ends at a line end, io.ErrUnexpectedEOF
// when it ends within a line, ErrEventTooLarge when the partial line already
// exceeds the bound, and read errors as is.
func (r *Reader) scanLine() (line []byte, n int, err error) {
	for {
		if r.skipLF && r.r < r.w {
			if r.buf[r.r] == '\n' {
				r.r++
			}
			r.skipLF = false
		}
		if !r.bomChecked {
			if more := r.checkBOM(); more {
				if r.rerr != nil {
					// A stream that ends within the BOM's bytes
					// ends within its first line.
					return nil, 0, r.endError()
				}
				r.fill()
				continue
			}
		}
		seg := r.buf[r.r:r.w]
		if i := lineEnd(seg[r.scanned:]); i >= 0 {
			i += r.scanned
			r.scanned, r.lead = 0, 0
			if seg[i] == '\n' {
				return seg[:i], i + 1, nil
			}
			if i+1 < len(seg) {
				if seg[i+1] == '\n' {
					return seg[:i], i + 2, nil
				}
				return seg[:i], i + 1, nil
			}
			// The CR is the last byte read: the line is complete
			// whatever follows, but a '\n' that follows belongs to
			// this line end. Returning now avoids waiting on the
			// network for one byte.
			r.skipLF = true
			return seg[:i], i + 1, nil
		}
		r.scanned = len(seg)
		if err := r.checkPartial(seg); err != nil {
			return nil, 0, err
		}
		if r.rerr != nil {
			return nil, 0, r.endError()
		}
		r.fill()
	}
}

// lineEnd returns the index of the first CR or LF in s, or -1. Two
// vectorised IndexByte passes (LF first, then CR only before it) beat one
// bytes.IndexAny pass, which goes byte by byte.
func lineEnd(s []byte) int {
	i := bytes.IndexByte(s, '\n')
	if i < 0 {
		return bytes.IndexByte(s, '\r')
	}
	if j := bytes.IndexByte(s[:i], '\r'); j >= 0 {
		return j
	}
	return i
}

// checkBOM skips a BOM at the start of the stream. It reports whether more
// input is needed to decide.
func (r *Reader) checkBOM() (more bool) {
	seg := r.buf[r.r:r.w]
	if len(seg) < len(utf8BOM) && bytes.HasPrefix(utf8BOM, seg) {
		return r.rerr == nil || len(seg) > 0
	}
	if bytes.HasPrefix(seg, utf8BOM) {
		r.r += len(utf8BOM)
	}
	r.bomChecked = true
	return false
}

// endError is the error for the end of input from the underlying reader:
// with unconsumed bytes, a line was cut.
func (r *Reader) endError() error {
	if r.rerr == io.EOF && r.r < r.w {
		return io.ErrUnexpectedEOF
	}
	return r.rerr
}

// checkPartial fails as soon as the unterminated line seg can no longer fit
// the bound, so that it is never buffered beyond it. A line that will count
// toward the pending event is checked against what is left of the bound;
// one that will not (a comment, a bare line that will start a new event, a
// line of blanks that could still be either) against the bound alone. Both
// are necessary conditions of the check made when the line is complete, so
// the outcome does not depend on how the input was split into reads.
func (r *Reader) checkPartial(seg []byte) error {
	if len(seg) == 0 {
		return nil // it may be a blank line, which counts for nothing
	}
	limit := r.max - r.size
	if !r.bare {
		switch c := r.firstNonBlank(seg); {
		case seg[0] == ':', c < 0,
			r.hasData && (c == '{' || c == '[' || c == '}'):
			limit = r.max
		}
	}
	if len(seg)+1 > limit {
		return r.tooLarge()
	}
	return nil
}

// firstNonBlank returns the first byte of the partial line seg other than
// space and tab, or -1, resuming where the previous call for the same line
// stopped.
func (r *Reader) firstNonBlank(seg []byte) int {
	for r.lead < len(seg) {
		if c := seg[r.lead]; c != ' ' && c != '\t' {
			return int(c)
		}
		r.lead++
	}
	return -1
}

// fill reads more input into the buffer, compacting it first and growing it
// when a partial line fills it. Errors are kept in r.rerr.
func (r *Reader) fill() {
	if r.buf == nil {
		r.pooled = readBuffers.Get().(*[]byte)
		r.buf = *r.pooled
	}
	if r.r > 0 {
		r.base += int64(r.r)
		r.w = copy(r.buf, r.buf[r.r:r.w])
		r.r = 0
	}
	if r.w == len(r.buf) {
		// checkPartial guarantees the partial line is shorter than
		// bufMax, so there is room to grow.
		nb := make([]byte, min(2*len(r.buf), r.bufMax))
		copy(nb, r.buf[:r.w])
		r.buf = nb
		if r.pooled != nil {
			readBuffers.Put(r.pooled)
			r.pooled = nil
		}
	}
	for range maxEmptyReads {
		n, err := r.rd.Read(r.buf[r.w:])
		if n < 0 || n > len(r.buf)-r.w {
			r.rerr = errInvalidRead
			return
		}
		r.w += n
		if err != nil {
			r.rerr = err
			return
		}
		if n > 0 {
			return
		}
	}
	r.rerr = io.ErrNoProgress
}

// readBuffers are the read buffers of push readers between inputs.
var readBuffers = sync.Pool{New: func() any { b := make([]byte, initialBufSize); return &b }}

// releaseBuffer gives a push reader's read buffer back to the pool when
// it holds no unconsumed input, so that a stream waiting for its next
// input (most of a stream's life) holds none; fill takes one again. A
// buffer grown for large events is kept: the stream has them. Once the
// stream has ended (r.err is set), unconsumed input is never read: the
// buffer goes back whatever it holds.
func (r *Reader) releaseBuffer() {
	if r.pooled == nil || r.r != r.w && r.err == nil {
		return
	}
	r.base += int64(r.r)
	r.r, r.w, r.buf = 0, 0, nil
	readBuffers.Put(r.pooled)
	r.pooled = nil
}

// Release ends the reading of the stream early: its read buffer goes back
// to the pool, and Next reports io.EOF from then on. A caller that stops
// at a terminal event calls it rather than leave the buffer to the
// garbage collector, which would make the pool allocate one for the next
// stream.
func (r *Reader) Release() {
	if r.err == nil {
		r.err = io.EOF
	}
	r.releaseBuffer()
}

// errInvalidRead reports an io.Reader that returned an impossible count.
var errInvalidRead = errors.New("sse: reader returned an invalid count")
