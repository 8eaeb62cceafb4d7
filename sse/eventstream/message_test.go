package eventstream

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"strings"
	"testing"
	"time"

	awsstream "github.com/aws/aws-sdk-go-v2/aws/protocol/eventstream"
)

// str is a string header.
func str(name, value string) awsstream.Header {
	return awsstream.Header{Name: name, Value: awsstream.StringValue(value)}
}

// frame builds a message of raw headers and payload with correct CRCs,
// its prelude saying headersLen (-1: the headers' own length).
func frame(headers, payload []byte, headersLen int) []byte {
	if headersLen < 0 {
		headersLen = len(headers)
	}
	m := binary.BigEndian.AppendUint32(nil, uint32(minMessageLen+len(headers)+len(payload)))
	m = binary.BigEndian.AppendUint32(m, uint32(headersLen))
	m = binary.BigEndian.AppendUint32(m, crc32.ChecksumIEEE(m))
	m = append(append(m, headers...), payload...)
	return binary.BigEndian.AppendUint32(m, crc32.ChecksumIEEE(m))
}

// rawHeader is a header's bytes: its name, then typ and value as given.
func rawHeader(name string, typ byte, value ...byte) []byte {
	return append(append(append([]byte{byte(len(name))}, name...), typ), value...)
}

// rawString is a string header's bytes.
func rawString(name, value string) []byte {
	return rawHeader(name, typeString, append(binary.BigEndian.AppendUint16(nil, uint16(len(value))), value...)...)
}

// TestMessages reads messages of every shape: what each yields or why it
// is refused, always as aws-sdk-go-v2's decoder decides.
func TestMessages(t *testing.T) {
	eventType := rawString(":event-type", "delta")
	allTypes := []awsstream.Header{
		{Name: "t", Value: awsstream.BoolValue(true)},
		{Name: "f", Value: awsstream.BoolValue(false)},
		{Name: "byte", Value: awsstream.Int8Value(-3)},
		{Name: "short", Value: awsstream.Int16Value(-300)},
		{Name: "int", Value: awsstream.Int32Value(70000)},
		{Name: "long", Value: awsstream.Int64Value(1 << 40)},
		{Name: "bytes", Value: awsstream.BytesValue{0, 1, 2}},
		{Name: "timestamp", Value: awsstream.TimestampValue(time.UnixMilli(1764000000000))},
		{Name: "uuid", Value: awsstream.UUIDValue{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}},
		{Name: "", Value: awsstream.StringValue("")},
		str(":event-type", "delta"),
		{Name: strings.Repeat("n", 255), Value: awsstream.StringValue(strings.Repeat("v", maxHeaderValueLen))},
	}
	cutPrelude := libMessage(t, []byte(`{}`), str(":event-type", "a"))
	cutPrelude[9] ^= 1
	cutMessage := libMessage(t, []byte(`{}`), str(":event-type", "a"))
	cutMessage[len(cutMessage)-5] ^= 1
	for _, tc := range []struct {
		name    string
		in      []byte
		chunks  bool
		want    string // the SSE text, or the error's text
		refused bool
	}{
		{name: "every header type", in: libMessage(t, []byte(`{"x":1}`), allTypes...),
			want: "event: delta\ndata: {\"x\":1}\n\n"},
		{name: "no payload", in: libMessage(t, nil, str(":event-type", "ping")),
			want: "event: ping\ndata: \n\n"},
		{name: "an event of an unknown message type", in: libMessage(t, []byte(`{}`), str(":message-type", "other"), str(":event-type", "a")),
			want: "event: a\ndata: {}\n\n"},
		{name: "the last of two event types", in: libMessage(t, []byte(`{}`), str(":event-type", "a"), str(":event-type", "b")),
			want: "event: b\ndata: {}\n\n"},
		{name: "an exception", in: libMessage(t, []byte(`{"message":"slow"}`), str(":message-type", "exception"), str(":exception-type", "throttlingException")),
			want: "event: exception:throttlingException\ndata: {\"message\":\"slow\"}\n\n"},
		{name: "an exception without its type", in: libMessage(t, []byte(`{}`), str(":message-type", "exception")),
			want: "event: exception:\ndata: {}\n\n"},
		{name: "an error", in: libMessage(t, []byte(`ignored`), str(":message-type", "error"), str(":error-code", "InternalFailure"), str(":error-message", "two\nlines")),
			want: "event: error:InternalFailure\ndata: two\ndata: lines\n\n"},
		{name: "a chunk", chunks: true, in: libMessage(t, []byte(`{"bytes":"eyJ0eXBlIjoicGluZyJ9","p":"abc"}`), str(":event-type", "chunk")),
			want: "event: ping\ndata: {\"type\":\"ping\"}\n\n"},
		{name: "a chunk with escapes", chunks: true, in: libMessage(t, []byte(`{"bytes":"eyJ0eXBlIjoi\u0063GluZyJ9"}`), str(":event-type", "chunk")),
			want: "event: ping\ndata: {\"type\":\"ping\"}\n\n"},
		{name: "a chunk, read as it is", in: libMessage(t, []byte(`{"bytes":"e30="}`), str(":event-type", "chunk")),
			want: "event: chunk\ndata: {\"bytes\":\"e30=\"}\n\n"},
		// aws-sdk-go-v2 reads a name's length as the headers' last byte
		// as their end.
		{name: "headers ending in a name's length", in: frame(append(eventType, 5), []byte(`{}`), -1),
			want: "event: delta\ndata: {}\n\n"},

		{name: "no headers", in: libMessage(t, []byte(`{}`)),
			refused: true, want: "malformed event stream message: an event without its :event-type"},
		{name: "an event type of bytes", in: libMessage(t, []byte(`{}`), awsstream.Header{Name: ":event-type", Value: awsstream.BytesValue("a")}),
			refused: true, want: "without its :event-type"},
		{name: "an event type then another of int type", in: libMessage(t, []byte(`{}`), str(":event-type", "a"), awsstream.Header{Name: ":event-type", Value: awsstream.Int32Value(1)}),
			refused: true, want: "without its :event-type"},
		{name: "an empty event type", in: libMessage(t, []byte(`{}`), str(":event-type", "")),
			refused: true, want: "without its :event-type"},
		{name: "prelude CRC", in: cutPrelude, refused: true, want: "malformed event stream message: prelude checksum mismatch"},
		{name: "message CRC", in: cutMessage, refused: true, want: "malformed event stream message: message checksum mismatch"},
		{name: "headers beyond the message", in: frame(eventType, []byte(`{}`), len(eventType)+3),
			refused: true, want: "the headers' length exceeds the message"},
		{name: "headers' length of 2^32-1", in: frame(eventType, []byte(`{}`), 1<<32-1),
			refused: true, want: "the headers' length exceeds the message"},
		{name: "headers shorter than said", in: frame(eventType, nil, len(eventType)-1),
			refused: true, want: "cut off"},
		{name: "a name's length of 0 as the last byte", in: frame(append(eventType, 0), nil, -1),
			refused: true, want: "cut off"},
		{name: "a name cut", in: frame(append(eventType, 5, 'a'), nil, -1),
			refused: true, want: "cut off"},
		{name: "no value type", in: frame(append(eventType, 1, 'a'), nil, -1),
			refused: true, want: "cut off"},
		{name: "a long cut", in: frame(append(eventType, rawHeader("l", typeLong, 1, 2, 3)...), nil, -1),
			refused: true, want: "cut off"},
		{name: "a string's length cut", in: frame(append(eventType, rawHeader("s", typeString, 0)...), nil, -1),
			refused: true, want: "cut off"},
		{name: "a string cut", in: frame(append(eventType, rawHeader("s", typeString, 0, 3, 'a')...), nil, -1),
			refused: true, want: "cut off"},
		{name: "an unknown value type", in: frame(append(eventType, rawHeader("x", 10)...), nil, -1),
			refused: true, want: "a header value of unknown type"},
		{name: "shorter than a message can be", in: []byte{0, 0, 0, 15, 0, 0, 0, 0, 0, 0, 0, 0},
			refused: true, want: "event stream message of 15 bytes (the limit is 65536)"},
		{name: "longer than the limit", in: []byte{0, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0},
			refused: true, want: "event stream message of 65537 bytes (the limit is 65536)"},
		{name: "a chunk without bytes", chunks: true, in: libMessage(t, []byte(`{"p":"abc"}`), str(":event-type", "chunk")),
			refused: true, want: "malformed event stream chunk: no bytes member"},
		{name: "a chunk of bad base64", chunks: true, in: libMessage(t, []byte(`{"bytes":"e30"}`), str(":event-type", "chunk")),
			refused: true, want: "malformed event stream chunk: illegal base64 data"},
		{name: "a chunk whose event has no type", chunks: true, in: libMessage(t, []byte(`{"bytes":"eyJ0eXBlIjoiIn0="}`), str(":event-type", "chunk")),
			refused: true, want: "malformed event stream chunk: its event has no type"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := agree(t, tc.in, 1<<16, tc.chunks)
			if tc.refused {
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Errorf("error %v, want one saying %q", err, tc.want)
				}
				return
			}
			if err != nil || string(out) != tc.want {
				t.Errorf("got %q (%v), want %q", out, err, tc.want)
			}
			// Pushed one byte at a time, the same.
			r := NewReader(1 << 16)
			if tc.chunks {
				r = NewChunkReader(1 << 16)
			}
			var bytewise []byte
			for i := range tc.in {
				if bytewise, err = r.Push(bytewise, tc.in[i:i+1]); err != nil {
					t.Fatal(err)
				}
			}
			if !bytes.Equal(bytewise, out) || r.Pending() != 0 {
				t.Errorf("byte by byte: %q, %d pending", bytewise, r.Pending())
			}
		})
	}
}

// TestAppendMessage writes events as aws-sdk-go-v2's encoder does, byte
// for byte.
func TestAppendMessage(t *testing.T) {
	for _, tc := range []struct{ name, data string }{
		{"contentBlockDelta", `{"contentBlockIndex":0,"delta":{"text":"hé"}}`},
		{"messageStop", ""},
		{"", `{}`},
		{"exception:throttlingException", `{"message":"slow"}`},
		{"exception:", `{}`},
		{"exception", `{}`},
		{"chunk", `{"bytes":"e30="}`},
		{strings.Repeat("n", maxHeaderValueLen), "x"},
		{ExceptionPrefix + strings.Repeat("n", maxHeaderValueLen), "x"},
		// Longer than a header value can be: both append nothing.
		{strings.Repeat("n", maxHeaderValueLen+1), "x"},
		{"big", strings.Repeat("x", 1<<20)},
	} {
		prefix := []byte("kept")
		got := AppendMessage(bytes.Clone(prefix), tc.name, []byte(tc.data))
		want := libAppendMessage(bytes.Clone(prefix), tc.name, []byte(tc.data))
		if !bytes.Equal(got, want) {
			t.Errorf("%.40q: got\n% x\nwant\n% x", tc.name, got[:min(len(got), 96)], want[:min(len(want), 96)])
		}
	}
}

// TestWriterAgrees writes SSE text as aws-sdk-go-v2 would, byte for
// byte, with and without chunks, and refuses a name too long for a header.
func TestWriterAgrees(t *testing.T) {
	_, text := bedrockStream(t)
	text = ": keep-alive\n\n" + text + "data: no name\n\nevent: a\r\ndata: crlf\r\n\r\n{\"bare\":1}\n\nevent: e\ndata: x\ndata: y\n\n"
	for _, chunks := range []bool{false, true} {
		want, err := libWrite([]byte(text), chunks, 1<<20)
		if err != nil {
			t.Fatal(err)
		}
		w := NewWriter(1 << 20)
		if chunks {
			w = NewChunkWriter(1 << 20)
		}
		var got []byte
		for _, piece := range strings.SplitAfter(text, "\n") {
			if got, err = w.Push(got, []byte(piece)); err != nil {
				t.Fatal(err)
			}
		}
		if !bytes.Equal(got, want) {
			t.Errorf("chunks %v: the Writer's messages differ from aws-sdk-go-v2's:\n% x\nwant\n% x", chunks, got, want)
		}
	}
	long := "event: " + strings.Repeat("n", maxHeaderValueLen+1) + "\ndata: {}\n\n"
	if _, err := NewWriter(1<<20).Push(nil, []byte(long)); err == nil || !strings.Contains(err.Error(), "longer than an event stream header value") {
		t.Errorf("a name too long for a header: %v", err)
	}
	if out, err := NewChunkWriter(1<<20).Push(nil, []byte(long)); err != nil || len(out) == 0 {
		t.Errorf("a chunk does not carry the name: %v", err)
	}
}
