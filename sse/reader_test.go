package sse

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"
	"time"
)

// want is the comparable form of an Event.
type want struct {
	Name  string
	Data  string
	ID    string
	HasID bool
	Retry int
	Bare  bool
}

func d(data string) want              { return want{Data: data, Retry: -1} }
func (w want) named(name string) want { w.Name = name; return w }
func (w want) withID(id string) want  { w.ID, w.HasID = id, true; return w }
func (w want) withRetry(ms int) want  { w.Retry = ms; return w }
func (w want) bare() want             { w.Bare = true; return w }
func bareEv(data string) want         { return d(data).bare() }
func toWant(e *Event) want {
	return want{string(e.Name), string(e.Data), string(e.ID), e.ID != nil, e.Retry, e.Bare}
}
func (w want) String() string {
	s := fmt.Sprintf("{%q %q", w.Name, w.Data)
	if w.HasID {
		s += fmt.Sprintf(" id=%q", w.ID)
	}
	if w.Retry >= 0 {
		s += fmt.Sprintf(" retry=%d", w.Retry)
	}
	if w.Bare {
		s += " bare"
	}
	return s + "}"
}
func evs(ws ...want) []want              { return ws }
func repeat(s string, n int) string      { return strings.Repeat(s, n) }
func lineOf(prefix string, n int) string { return prefix + repeat("x", n-len(prefix)) }

// readAll reads every event of r and the error that ended the stream.
func readAll(r io.Reader, max int) ([]want, error) {
	rd := NewReader(r, max)
	var got []want
	for {
		e, err := rd.Next()
		if err != nil {
			// Errors are sticky.
			if _, err2 := rd.Next(); err2 != err {
				return got, fmt.Errorf("error not sticky: %v then %v", err, err2)
			}
			return got, err
		}
		if len(e.Data) > max && max > 0 {
			return got, fmt.Errorf("event data of %d bytes exceeds bound %d", len(e.Data), max)
		}
		got = append(got, toWant(e))
	}
}

// oneByteReader returns one byte per Read, and io.EOF only on the read
// after the last byte.
type oneByteReader struct{ b []byte }

func (r *oneByteReader) Read(p []byte) (int, error) {
	if len(r.b) == 0 {
		return 0, io.EOF
	}
	if len(p) == 0 {
		return 0, nil
	}
	p[0] = r.b[0]
	r.b = r.b[1:]
	return 1, nil
}

// readModes are the ways of splitting the input into reads that every case
// is checked with: they must all give the same events.
var readModes = []struct {
	name string
	wrap func([]byte) io.Reader
}{
	{"whole", func(b []byte) io.Reader { return bytes.NewReader(b) }},
	{"onebyte", func(b []byte) io.Reader { return &oneByteReader{b} }},
	{"iotest.OneByteReader", func(b []byte) io.Reader { return iotest.OneByteReader(bytes.NewReader(b)) }},
	{"iotest.DataErrReader", func(b []byte) io.Reader { return iotest.DataErrReader(bytes.NewReader(b)) }},
	{"iotest.HalfReader", func(b []byte) io.Reader { return iotest.HalfReader(bytes.NewReader(b)) }},
	{"DataErr+OneByte", func(b []byte) io.Reader {
		return iotest.DataErrReader(iotest.OneByteReader(bytes.NewReader(b)))
	}},
}

const bom = "\xEF\xBB\xBF"

// geminiError is the bare, pretty-printed error Gemini sends mid-stream
// (vertex/mid-stream-error-499 recording).
const geminiError = "{\n  \"error\": {\n    \"code\": 499,\n    \"message\": \"The operation was cancelled.\",\n" +
	"    \"status\": \"CANCELLED\",\n    \"details\": [\n      {\n        \"detail\": \"generic::cancelled: \"\n" +
	"      }\n    ]\n  }\n}"

var readerCases = []struct {
	name string
	in   string
	max  int // 0: default
	want []want
	err  error // io.EOF when zero
}{
	// Line ends.
	{name: "LF", in: "data: a\n\ndata: b\n\n", want: evs(d("a"), d("b"))},
	{name: "CRLF", in: "data: a\r\n\r\ndata: b\r\n\r\n", want: evs(d("a"), d("b"))},
	{name: "CR", in: "data: a\r\rdata: b\r\r", want: evs(d("a"), d("b"))},
	{name: "mixed", in: "event: x\rdata: a\r\ndata: b\n\r\ndata: c\r\n\n", want: evs(d("a\nb").named("x"), d("c"))},
	{name: "CR then LF across events", in: "data: a\r\n\rdata: b\n\r\n", want: evs(d("a"), d("b"))},
	{name: "CR CR is a blank line", in: "data: a\r\r\ndata: b\r\n\n", want: evs(d("a"), d("b"))},
	{name: "gemini CRLF", in: "data: {\"a\":1}\r\n\r\ndata: {\"a\":2}\r\n\r\n", want: evs(d(`{"a":1}`), d(`{"a":2}`))},
	// Fields.
	{name: "multi-line data", in: "data: a\ndata: b\ndata: c\n\n", want: evs(d("a\nb\nc"))},
	{name: "no space after colon", in: "data:a\n\n", want: evs(d("a"))},
	{name: "only one space stripped", in: "data:  a \n\n", want: evs(d(" a "))},
	{name: "tab not stripped", in: "data:\ta\n\n", want: evs(d("\ta"))},
	{name: "colon in value", in: "data: a: b\n\n", want: evs(d("a: b"))},
	{name: "field without colon", in: "data\n\n", want: evs(d(""))},
	{name: "empty data", in: "data:\n\n", want: evs(d(""))},
	{name: "two empty data lines", in: "data\ndata\n\n", want: evs(d("\n"))},
	{name: "empty data then text", in: "data:\ndata: a\n\n", want: evs(d("\na"))},
	{name: "comments", in: ": ping\n\n:\n\ndata: a\n: inside\ndata: b\n\n: end\n\n", want: evs(d("a\nb"))},
	{name: "unknown fields ignored", in: "foo: bar\nData: no\n data: no\ndata: a\nx\n\n", want: evs(d("a"))},
	{name: "event name", in: "event: message_start\ndata: {}\n\n", want: evs(d("{}").named("message_start"))},
	{name: "last event name wins", in: "event: a\nevent: b\ndata: x\n\n", want: evs(d("x").named("b"))},
	{name: "event name per event", in: "event: a\ndata: x\n\ndata: y\n\n", want: evs(d("x").named("a"), d("y"))},
	{name: "event without data ignored", in: "event: ping\n\ndata: x\n\n", want: evs(d("x"))},
	{name: "event without data then blank lines", in: "event: a\n\n\n\nevent: b\n\n", want: nil},
	{name: "blank lines dispatch nothing", in: "\n\r\n\r\n\ndata: x\n\n\n\n", want: evs(d("x"))},
	{name: "id", in: "id: 7\ndata: x\n\n", want: evs(d("x").withID("7"))},
	{name: "id persists", in: "id: 7\ndata: x\n\ndata: y\n\nid\ndata: z\n\n",
		want: evs(d("x").withID("7"), d("y").withID("7"), d("z").withID(""))},
	{name: "id with NUL ignored", in: "id: 1\n\nid: a\x00b\ndata: x\n\n", want: evs(d("x").withID("1"))},
	{name: "id-only event not dispatched", in: "id: 1\n\n", want: nil},
	{name: "retry valid", in: "retry: 3000\ndata: x\n\ndata: y\n\n", want: evs(d("x").withRetry(3000), d("y"))},
	{name: "retry zero", in: "retry:0\ndata: x\n\n", want: evs(d("x").withRetry(0))},
	{name: "retry invalid", in: "retry: 10a\ndata: a\n\nretry:\ndata: b\n\nretry: -1\ndata: c\n\nretry: 1 \ndata: d\n\n" +
		"retry: 99999999999999999999999999\ndata: e\n\nretry\ndata: f\n\n",
		want: evs(d("a"), d("b"), d("c"), d("d"), d("e"), d("f"))},
	{name: "last valid retry wins", in: "retry: 5\nretry: x\nretry: 6\nretry: y\ndata: a\n\n", want: evs(d("a").withRetry(6))},
	{name: "retry-only event not dispatched", in: "retry: 5\n\ndata: a\n\n", want: evs(d("a"))},
	{name: "DONE", in: "data: {\"a\":1}\n\ndata: [DONE]\n\n", want: evs(d(`{"a":1}`), d("[DONE]"))},
	// Bare JSON.
	{name: "bare single line", in: "{\"error\":{\"code\":500}}\n\n", want: evs(bareEv(`{"error":{"code":500}}`))},
	{name: "bare multi-line at EOF", in: "data: {\"a\":1}\r\n\r\n" + geminiError + "\n",
		want: evs(d(`{"a":1}`), bareEv(geminiError))},
	{name: "bare multi-line CRLF", in: strings.ReplaceAll(geminiError, "\n", "\r\n") + "\r\n\r\ndata: x\r\n\r\n",
		want: evs(bareEv(geminiError), d("x"))},
	{name: "bare after data without blank line", in: "data: a\n{\"error\":1}\n\n", want: evs(d("a"), bareEv(`{"error":1}`))},
	{name: "bare after data at EOF", in: "data: a\n{\"error\":1}\n", want: evs(d("a"), bareEv(`{"error":1}`))},
	{name: "bare with leading blanks", in: " \t {\"a\":1}\n\n", want: evs(bareEv(" \t {\"a\":1}"))},
	{name: "bare array", in: "[{\"error\":{}}]\n\n", want: evs(bareEv(`[{"error":{}}]`))},
	{name: "bare closing brace", in: "}\n\n", want: evs(bareEv("}"))},
	{name: "bare block takes every line", in: "{\ndata: x\n: c\nevent: e\n\n", want: evs(bareEv("{\ndata: x\n: c\nevent: e"))},
	{name: "bare drops fields without data", in: "event: e\nretry: 5\nid: 3\n{}\n\n", want: evs(bareEv("{}").withID("3"))},
	{name: "bare DONE", in: "[DONE]\n\n", want: evs(bareEv("[DONE]"))},
	{name: "blank-only line is not blank", in: " \ndata: a\n\n", want: evs(d("a"))},
	// BOM.
	{name: "BOM skipped", in: bom + "data: a\n\n", want: evs(d("a"))},
	{name: "BOM only", in: bom, want: nil},
	{name: "BOM only once", in: bom + bom + "data: a\n\n", want: nil},
	{name: "BOM not at start", in: "data: a\n\n" + bom + "data: b\n\n", want: evs(d("a"))},
	{name: "BOM then bare", in: bom + "{}\n", want: evs(bareEv("{}"))},
	{name: "partial BOM", in: "\xEF\xBB", err: io.ErrUnexpectedEOF},
	{name: "not a BOM", in: "\xEFdata: a\n\ndata: b\n\n", want: evs(d("b"))},
	// End of stream.
	{name: "empty", in: "", want: nil},
	{name: "no trailing blank line", in: "data: a\n\ndata: b\n", want: evs(d("a"), d("b"))},
	{name: "no trailing blank line CRLF", in: "data: a\r\n", want: evs(d("a"))},
	{name: "no trailing blank line CR", in: "data: a\r", want: evs(d("a"))},
	{name: "gemini prompt blocked", in: "data: {\"promptFeedback\":{}}\r\n", want: evs(d(`{"promptFeedback":{}}`))},
	{name: "truncated last line", in: "data: a\n\ndata: b", want: evs(d("a")), err: io.ErrUnexpectedEOF},
	{name: "truncated first line", in: "data: {\"a\":", err: io.ErrUnexpectedEOF},
	{name: "truncated comment", in: "data: a\n\n: ping", want: evs(d("a")), err: io.ErrUnexpectedEOF},
	{name: "truncated after data line", in: "data: a\ndata: b", err: io.ErrUnexpectedEOF},
	{name: "truncated bare", in: "data: a\n\n{\n  \"error\"", want: evs(d("a")), err: io.ErrUnexpectedEOF},
	{name: "truncated bare after data", in: "data: a\n{\"e\"", err: io.ErrUnexpectedEOF},
	{name: "pending fields without data at EOF", in: "event: a\nid: 1\n", want: nil},
	// Size bound. An event's size counts each line and one byte per line end.
	{name: "event at bound", max: 17, in: "data: 0123456789\n\n", want: evs(d("0123456789"))},
	{name: "event at bound CRLF", max: 17, in: "data: 0123456789\r\n\r\n", want: evs(d("0123456789"))},
	{name: "single line over bound", max: 16, in: "data: 01234567890\n\n", err: ErrEventTooLarge},
	{name: "huge line", max: 64, in: lineOf("data: ", 100000) + "\n\n", err: ErrEventTooLarge},
	{name: "huge unterminated line", max: 64, in: lineOf("data: ", 100000), err: ErrEventTooLarge},
	{name: "many lines over bound", max: 64, in: "data: a\n\n" + repeat("data: 0123456789\n", 6) + "\n",
		want: evs(d("a")), err: ErrEventTooLarge},
	{name: "many lines at bound", max: 68, in: repeat("data: 0123456789\n", 4) + "\n", want: evs(d(repeat("0123456789\n", 3) + "0123456789"))},
	// A multi-line event of exactly the bound passes and one byte more
	// fails: each line counts with one byte for its end, whatever the
	// line end is (27 + 1, 11 + 1, 15 + 1 and 17 + 1 bytes).
	{name: "multi-line event at bound", max: 74, in: "event: response.output_text\ndata: {\"a\":\ndata: \"0123456\"\ndata: ,\"b\":\"xyz\"}\n\n",
		want: evs(d("{\"a\":\n\"0123456\"\n,\"b\":\"xyz\"}").named("response.output_text"))},
	{name: "multi-line event at bound CRLF", max: 74, in: "event: response.output_text\r\ndata: {\"a\":\r\ndata: \"0123456\"\r\ndata: ,\"b\":\"xyz\"}\r\n\r\n",
		want: evs(d("{\"a\":\n\"0123456\"\n,\"b\":\"xyz\"}").named("response.output_text"))},
	{name: "multi-line event one byte over bound", max: 73, in: "event: response.output_text\ndata: {\"a\":\ndata: \"0123456\"\ndata: ,\"b\":\"xyz\"}\n\n",
		err: ErrEventTooLarge},
	{name: "multi-line event one byte over bound CRLF", max: 73, in: "event: response.output_text\r\ndata: {\"a\":\r\ndata: \"0123456\"\r\ndata: ,\"b\":\"xyz\"}\r\n\r\n",
		err: ErrEventTooLarge},
	{name: "multi-line event one byte over bound, unterminated", max: 73, in: "event: response.output_text\ndata: {\"a\":\ndata: \"0123456\"\ndata: ,\"b\":\"xyz\"}",
		err: ErrEventTooLarge},
	{name: "many lines one byte over bound", max: 67, in: repeat("data: 0123456789\n", 4) + "\n", err: ErrEventTooLarge},
	{name: "fields count", max: 30, in: "event: 0123456789\nid: 0123456789\ndata: x\n\n", err: ErrEventTooLarge},
	{name: "stream larger than bound", max: 17, in: repeat("data: 0123456789\n\n", 100), want: evs(repeatWant(d("0123456789"), 100)...)},
	{name: "comment over bound", max: 16, in: ": " + repeat("x", 20) + "\n\ndata: a\n\n", err: ErrEventTooLarge},
	{name: "comments do not count", max: 16, in: "data: a\n" + repeat(": 0123456789\n", 10) + "\n", want: evs(d("a"))},
	{name: "bare over bound", max: 32, in: "{\n" + repeat("  \"abcdef\": 1,\n", 3) + "}\n\n", err: ErrEventTooLarge},
	{name: "bare start over bound after fields", max: 20, in: "event: abcdefghij\n{0123456}\n\n", err: ErrEventTooLarge},
	{name: "bare at bound", max: 7, in: "{\n 1\n}\n\n", want: evs(bareEv("{\n 1\n}"))},
	{name: "bare line over bound after data", max: 16, in: "data: a\n{" + repeat(" ", 20) + "}\n\n", err: ErrEventTooLarge},
	{name: "bare line after data fits alone", max: 17, in: "data: 0123456789\n{012345678901}\n\n",
		want: evs(d("0123456789"), bareEv("{012345678901}"))},
	{name: "blank line over bound after data", max: 16, in: "data: a\n" + repeat(" ", 20) + "{}\n\n", err: ErrEventTooLarge},
	{name: "unterminated over remaining bound", max: 16, in: "data: 0123\ndata: 0123", err: ErrEventTooLarge},
}

func repeatWant(w want, n int) []want {
	ws := make([]want, n)
	for i := range ws {
		ws[i] = w
	}
	return ws
}

func TestReader(t *testing.T) {
	for _, tc := range readerCases {
		for _, m := range readModes {
			t.Run(tc.name+"/"+m.name, func(t *testing.T) {
				wantErr := tc.err
				if wantErr == nil {
					wantErr = io.EOF
				}
				got, err := readAll(m.wrap([]byte(tc.in)), tc.max)
				if err != wantErr {
					t.Errorf("error = %v, want %v", err, wantErr)
				}
				if !equalWants(got, tc.want) {
					t.Errorf("events:\n got %v\nwant %v", got, tc.want)
				}
			})
		}
	}
}

func equalWants(a, b []want) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestEventIsDone(t *testing.T) {
	for _, tc := range []struct {
		data string
		want bool
	}{
		{"[DONE]", true},
		{"[DONE] ", false},
		{" [DONE]", false},
		{"[done]", false},
		{"", false},
		{`{"done":true}`, false},
	} {
		e := Event{Data: []byte(tc.data)}
		if got := e.IsDone(); got != tc.want {
			t.Errorf("IsDone(%q) = %v, want %v", tc.data, got, tc.want)
		}
	}
}

// errReader returns its data, then err.
type errReader struct {
	data []byte
	err  error
}

func (r *errReader) Read(p []byte) (int, error) {
	if len(r.data) == 0 {
		return 0, r.err
	}
	n := copy(p, r.data)
	r.data = r.data[n:]
	return n, nil
}

// funcReader adapts a function to io.Reader.
type funcReader func(p []byte) (int, error)

func (f funcReader) Read(p []byte) (int, error) { return f(p) }

func TestReaderErrors(t *testing.T) {
	errConn := errors.New("connection reset")
	wrapped := fmt.Errorf("read tcp: %w", errConn)
	for _, tc := range []struct {
		name string
		r    io.Reader
		want []want
		err  error
	}{
		{"error before anything", &errReader{nil, errConn}, nil, errConn},
		{"error after event", &errReader{[]byte("data: a\n\ndata: b\n"), errConn}, evs(d("a")), errConn},
		{"error mid-line", &errReader{[]byte("data: a\n\ndata: b"), wrapped}, evs(d("a")), wrapped},
		{"error on second read", iotest.TimeoutReader(strings.NewReader("data: a\n\n")), evs(d("a")), iotest.ErrTimeout},
		{"unexpected EOF from reader", &errReader{[]byte("data: a\n\n"), io.ErrUnexpectedEOF}, evs(d("a")), io.ErrUnexpectedEOF},
		{"no progress", funcReader(func([]byte) (int, error) { return 0, nil }), nil, io.ErrNoProgress},
		{"negative count", funcReader(func([]byte) (int, error) { return -1, nil }), nil, errInvalidRead},
		{"count too large", funcReader(func(p []byte) (int, error) { return len(p) + 1, nil }), nil, errInvalidRead},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := readAll(tc.r, 0)
			if err != tc.err {
				t.Errorf("error = %v, want %v", err, tc.err)
			}
			if !errors.Is(err, tc.err) {
				t.Errorf("errors.Is(%v, %v) = false", err, tc.err)
			}
			if !equalWants(got, tc.want) {
				t.Errorf("events:\n got %v\nwant %v", got, tc.want)
			}
		})
	}
}

// TestReaderNeverEndingLine checks that a line that never ends is refused
// once it exceeds the bound, without the buffer growing beyond it.
func TestReaderNeverEndingLine(t *testing.T) {
	for _, prefix := range []string{"data: ", ": ", "{", "   ", ""} {
		t.Run(prefix, func(t *testing.T) {
			const max = 100 << 10
			read := 0
			first := true
			rd := NewReader(funcReader(func(p []byte) (int, error) {
				if first {
					first = false
					return copy(p, prefix), nil
				}
				for i := range p {
					p[i] = 'x'
				}
				read += len(p)
				if read > 10*max {
					t.Fatal("reader kept reading far beyond the bound")
				}
				return len(p), nil
			}), max)
			if _, err := rd.Next(); err != ErrEventTooLarge {
				t.Fatalf("error = %v, want ErrEventTooLarge", err)
			}
			if len(rd.buf) > max {
				t.Errorf("buffer grew to %d bytes, bound %d", len(rd.buf), max)
			}
			if read > 2*max {
				t.Errorf("read %d bytes for a bound of %d", read, max)
			}
		})
	}
}

// TestReaderLongLineLinear checks that a long line arriving one byte per
// read is scanned once, not once per read: the fuzzer stalled on such
// inputs when each read rescanned the whole partial line (1 MiB took
// minutes). The time limit is loose to stay reliable on a busy machine.
func TestReaderLongLineLinear(t *testing.T) {
	for _, in := range []string{lineOf("data: ", 1<<20), lineOf(": ", 1<<20), repeat(" ", 1<<20) + "{}"} {
		start := time.Now()
		if _, err := readAll(iotest.OneByteReader(strings.NewReader(in+"\n\n")), 0); err != io.EOF {
			t.Fatalf("%.8q: error %v", in, err)
		}
		if el := time.Since(start); el > 10*time.Second {
			t.Errorf("%.8q: a 1 MiB line in one-byte reads took %v", in, el)
		}
	}
}

func TestReaderDefaultBound(t *testing.T) {
	for _, max := range []int{0, -1} {
		if rd := NewReader(strings.NewReader(""), max); rd.max != DefaultMaxEventSize {
			t.Errorf("NewReader(_, %d) bound = %d, want %d", max, rd.max, DefaultMaxEventSize)
		}
	}
	// An event just under the default bound is read; one over it is not.
	big := lineOf("data: ", DefaultMaxEventSize-1) + "\n\n"
	got, err := readAll(strings.NewReader(big), 0)
	if err != io.EOF || len(got) != 1 || len(got[0].Data) != DefaultMaxEventSize-7 {
		t.Errorf("event at the default bound: %d events, error %v", len(got), err)
	}
	if _, err := readAll(strings.NewReader("x"+big), 0); err != ErrEventTooLarge {
		t.Errorf("event over the default bound: error %v, want ErrEventTooLarge", err)
	}
}

// loopReader serves b over and over, in reads of at most chunk bytes, as a
// network connection would.
type loopReader struct {
	b     []byte
	off   int
	chunk int
}

func (r *loopReader) Read(p []byte) (int, error) {
	if len(p) > r.chunk {
		p = p[:r.chunk]
	}
	n := copy(p, r.b[r.off:])
	r.off = (r.off + n) % len(r.b)
	return n, nil
}

func TestReaderZeroAllocs(t *testing.T) {
	for name, stream := range benchStreams() {
		t.Run(name, func(t *testing.T) {
			rd := NewReader(&loopReader{b: stream, chunk: 1500}, 0)
			for range 2000 { // warm up: buffers reach their steady size
				if _, err := rd.Next(); err != nil {
					t.Fatal(err)
				}
			}
			allocs := testing.AllocsPerRun(5000, func() {
				if _, err := rd.Next(); err != nil {
					t.Fatal(err)
				}
			})
			if allocs != 0 {
				t.Errorf("%v allocations per event, want 0", allocs)
			}
		})
	}
}

// TestEventValidUntilNext documents that the slices alias internal buffers
// and checks they hold the right bytes until the next call.
func TestEventValidUntilNext(t *testing.T) {
	rd := NewReader(strings.NewReader("event: a\nid: 1\ndata: x\n\nevent: b\nid: 2\ndata: y\n\n"), 0)
	e1, _ := rd.Next()
	if w := toWant(e1); w != d("x").named("a").withID("1") {
		t.Fatalf("first event %v", w)
	}
	e2, _ := rd.Next()
	if w := toWant(e2); w != d("y").named("b").withID("2") {
		t.Fatalf("second event %v", w)
	}
}

const recordingsDir = "../../shared/recordings"

// recording is the part of a recording file the tests use.
type recording struct {
	Stream   bool `json:"stream"`
	Response struct {
		Headers map[string]string `json:"headers"`
		Body    json.RawMessage   `json:"body"`
	} `json:"response"`
}

// streamBodies returns the SSE response bodies of the streaming recordings,
// by file name, or nil when the recordings are absent.
func streamBodies(tb testing.TB) map[string][]byte {
	files, err := filepath.Glob(filepath.Join(recordingsDir, "*", "*.json"))
	if err != nil {
		tb.Fatal(err)
	}
	bodies := map[string][]byte{}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		var rec recording
		if err := json.Unmarshal(raw, &rec); err != nil {
			tb.Fatalf("%s: %v", f, err)
		}
		if !rec.Stream || !strings.HasPrefix(rec.Response.Headers["content-type"], "text/event-stream") {
			continue
		}
		var body string
		if err := json.Unmarshal(rec.Response.Body, &body); err != nil {
			tb.Fatalf("%s: response body is not a string: %v", f, err)
		}
		rel, _ := filepath.Rel(recordingsDir, f)
		bodies[rel] = []byte(body)
	}
	return bodies
}

func TestRecordings(t *testing.T) {
	if _, err := os.Stat(recordingsDir); err != nil {
		t.Skip("../shared/recordings not present")
	}
	bodies := streamBodies(t)
	if len(bodies) == 0 {
		t.Fatal("no streaming recordings found")
	}
	for name, body := range bodies {
		t.Run(name, func(t *testing.T) {
			var first []want
			for i, m := range readModes {
				got, err := readAll(m.wrap(body), 0)
				if err != io.EOF {
					t.Fatalf("%s: stream ended with %v, want io.EOF", m.name, err)
				}
				if len(got) == 0 {
					t.Fatalf("%s: no events", m.name)
				}
				for j, e := range got {
					if e.Data != "[DONE]" && !json.Valid([]byte(e.Data)) {
						t.Errorf("%s: event %d (%q) data is not JSON: %.80q", m.name, j, e.Name, e.Data)
					}
				}
				if i == 0 {
					first = got
				} else if !equalWants(got, first) {
					t.Errorf("%s: events differ from a whole read", m.name)
				}
			}
			// The Anthropic and Responses event names repeat the
			// JSON "type"; check the reader paired them right.
			for _, e := range first {
				if e.Name == "" {
					continue
				}
				var v struct{ Type string }
				if json.Unmarshal([]byte(e.Data), &v) == nil && v.Type != "" && v.Type != e.Name {
					t.Errorf("event %q carries type %q", e.Name, v.Type)
				}
			}
			if strings.Contains(name, "mid-stream-error") {
				last := first[len(first)-1]
				if !last.Bare || !strings.Contains(last.Data, `"CANCELLED"`) {
					t.Errorf("last event %v, want the bare Gemini error", last)
				}
			}
		})
	}
}

// benchStreams returns realistic streams for the benchmarks and the
// allocation test: an Anthropic text stream of 500 deltas and a Gemini
// stream with CRLF framing.
func benchStreams() map[string][]byte {
	var a bytes.Buffer
	a.WriteString("event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_01XFDUDYJgAACzvnptvVoYEL\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"claude-sonnet-4-5-20250929\",\"content\":[],\"stop_reason\":null,\"stop_sequence\":null,\"usage\":{\"input_tokens\":472,\"cache_creation_input_tokens\":0,\"cache_read_input_tokens\":0,\"output_tokens\":2}}}\n\n")
	a.WriteString("event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n")
	a.WriteString("event: ping\ndata: {\"type\": \"ping\"}\n\n")
	words := []string{"The", " quick", " brown", " fox", " jumps over", " the lazy", " dog", ".\\n\\n", " It", "'s a"}
	for i := range 500 {
		fmt.Fprintf(&a, "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"%s%s\"}}\n\n",
			words[i%len(words)], words[(i*7)%len(words)])
	}
	a.WriteString("event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0           }\n\n")
	a.WriteString("event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\",\"stop_sequence\":null},\"usage\":{\"output_tokens\":1021}}\n\n")
	a.WriteString("event: message_stop\ndata: {\"type\":\"message_stop\"       }\n\n")

	var g bytes.Buffer
	for i := range 100 {
		fmt.Fprintf(&g, "data: {\"candidates\": [{\"content\": {\"parts\": [{\"text\": \"%s%s\"}],\"role\": \"model\"},\"index\": 0}],"+
			"\"usageMetadata\": {\"promptTokenCount\": 11,\"candidatesTokenCount\": %d,\"totalTokenCount\": %d,"+
			"\"promptTokensDetails\": [{\"modality\": \"TEXT\",\"tokenCount\": 11}],\"thoughtsTokenCount\": 21},"+
			"\"modelVersion\": \"gemini-2.5-flash\",\"responseId\": \"xHg4aPeHLrqhz7IPpOaL64A0\"}\r\n\r\n",
			words[i%len(words)], words[(i*3)%len(words)], i, i+32)
	}
	return map[string][]byte{"anthropic-500-deltas": a.Bytes(), "gemini-crlf": g.Bytes()}
}

// BenchmarkReader measures one event per op on a stream served in
// network-sized reads, so ns/op is the cost per event; the stream loops, so
// buffers are in their steady state.
func BenchmarkReader(b *testing.B) {
	for name, stream := range benchStreams() {
		b.Run(name, func(b *testing.B) {
			rd := NewReader(&loopReader{b: stream, chunk: 16 << 10}, 0)
			events := bytes.Count(stream, []byte("\n\n")) + bytes.Count(stream, []byte("\r\n\r\n"))
			b.SetBytes(int64(len(stream) / events))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := rd.Next(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N), "ns/event")
		})
	}
}

// FuzzReader checks, for any input, that the reader does not panic, keeps
// events within the bound, gives the same events and error whatever the
// read sizes, and that what AppendEvent writes reads back unchanged.
func FuzzReader(f *testing.F) {
	for _, tc := range readerCases {
		f.Add([]byte(tc.in))
	}
	for _, s := range benchStreams() {
		f.Add(s)
	}
	if _, err := os.Stat(recordingsDir); err == nil {
		for _, body := range streamBodies(f) {
			f.Add(body)
		}
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		for _, max := range []int{1, 7, 64, 0} {
			whole, werr := readAll(bytes.NewReader(in), max)
			if werr != io.EOF && werr != io.ErrUnexpectedEOF && werr != ErrEventTooLarge {
				t.Fatalf("bound %d: unexpected error %v", max, werr)
			}
			for _, e := range whole {
				if bound := cmp.Or(max, DefaultMaxEventSize); len(e.Data) > bound {
					t.Fatalf("bound %d: event data of %d bytes", max, len(e.Data))
				}
			}
			split, serr := readAll(&oneByteReader{in}, max)
			if serr != werr || !equalWants(split, whole) {
				t.Fatalf("bound %d: one-byte reads differ from one read:\n got %v, %v\nwant %v, %v",
					max, split, serr, whole, werr)
			}
		}

		// Round trip: the input, cut at its first NUL, is an event
		// name and data.
		name, data := "", in
		if i := bytes.IndexByte(in, 0); i >= 0 {
			name, data = string(in[:i]), in[i+1:]
		}
		out := AppendComment(nil, name)
		out = AppendEvent(out, name, data)
		got, err := readAll(bytes.NewReader(out), 0)
		wantName := strings.NewReplacer("\r", "", "\n", "").Replace(name)
		wantData := strings.NewReplacer("\r\n", "\n", "\r", "\n").Replace(string(data))
		if err != io.EOF || len(got) != 1 || got[0] != d(wantData).named(wantName) {
			t.Fatalf("round trip of %q, %q through %q: got %v, %v", name, data, out, got, err)
		}
	})
}
