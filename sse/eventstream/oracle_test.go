package eventstream

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"testing"

	awsstream "github.com/aws/aws-sdk-go-v2/aws/protocol/eventstream"
	"github.com/tidwall/gjson"

	"github.com/llmbridge/llmbridge/sse"
)

// The oracle: aws-sdk-go-v2's encoder and decoder, which the AWS SDKs'
// clients of Bedrock use. The Reader and Writer must agree with them
// message for message.

// libMessage encodes a message of the given headers and payload with
// aws-sdk-go-v2's encoder.
func libMessage(t testing.TB, payload []byte, headers ...awsstream.Header) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := awsstream.NewEncoder().Encode(&b, awsstream.Message{Headers: headers, Payload: payload}); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// libAppendMessage is AppendMessage written with aws-sdk-go-v2's encoder.
func libAppendMessage(dst []byte, name string, data []byte) []byte {
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
	_ = awsstream.NewEncoder().Encode(buf, awsstream.Message{Headers: h, Payload: data})
	return buf.Bytes()
}

// libWrite is a Writer (a chunk Writer if chunks, refusing events over
// max bytes) written with aws-sdk-go-v2's encoder: the SSE text's events
// as messages, until the first error.
func libWrite(sseText []byte, chunks bool, max int) ([]byte, error) {
	r := sse.NewPushReader(max)
	r.Push(sseText)
	var out []byte
	for {
		ev, err := r.Next()
		if errors.Is(err, sse.ErrNeedInput) {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		if ev.Bare {
			continue
		}
		if chunks && !bytes.HasPrefix(ev.Name, []byte(ExceptionPrefix)) {
			out = libAppendMessage(out, chunkEvent, []byte(`{"bytes":"`+base64.StdEncoding.EncodeToString(ev.Data)+`"}`))
			continue
		}
		if len(strings.TrimPrefix(string(ev.Name), ExceptionPrefix)) > maxHeaderValueLen {
			// The encoder refuses a header value this long.
			return out, errors.New("header value too long")
		}
		out = libAppendMessage(out, string(ev.Name), ev.Data)
	}
}

// libRead is a Reader (a chunk Reader if chunks, refusing messages over
// max bytes) written with aws-sdk-go-v2's decoder: the SSE text of the
// stream's messages until the first bad one, whether the stream is bad,
// and how many bytes of an incomplete message it ends with.
func libRead(in []byte, max int, chunks bool) (out []byte, bad bool, pending int) {
	dec := awsstream.NewDecoder()
	for len(in) >= preludeLen {
		total := int(binary.BigEndian.Uint32(in))
		if total < minMessageLen || total > max {
			return out, true, 0
		}
		if len(in) < total {
			break
		}
		m, err := dec.Decode(bytes.NewReader(in[:total]), nil)
		if err != nil {
			return out, true, 0
		}
		name, data := libEvent(&m)
		if name == "" {
			return out, true, 0
		}
		if chunks && name == chunkEvent {
			if name, data, err = libUnwrap(data); err != nil {
				return out, true, 0
			}
		}
		out = sse.AppendEvent(out, name, data)
		in = in[total:]
	}
	return out, false, len(in)
}

// libEvent returns the SSE event of message m.
func libEvent(m *awsstream.Message) (name string, data []byte) {
	switch libHeader(m, ":message-type") {
	case "exception":
		return ExceptionPrefix + libHeader(m, ":exception-type"), m.Payload
	case "error":
		return ErrorPrefix + libHeader(m, ":error-code"), []byte(libHeader(m, ":error-message"))
	}
	return libHeader(m, ":event-type"), m.Payload
}

// libHeader returns the string value of m's header name, or "".
func libHeader(m *awsstream.Message, name string) string {
	if v, ok := m.Headers.Get(name).(awsstream.StringValue); ok {
		return string(v)
	}
	return ""
}

// libUnwrap returns the event a chunk's payload carries.
func libUnwrap(payload []byte) (string, []byte, error) {
	b := gjson.GetBytes(payload, "bytes")
	if b.Type != gjson.String {
		return "", nil, errors.New("no bytes")
	}
	data, err := base64.StdEncoding.DecodeString(b.Str)
	if err != nil {
		return "", nil, err
	}
	t := gjson.GetBytes(data, "type")
	if t.Type != gjson.String || t.Str == "" {
		return "", nil, errors.New("no type")
	}
	return t.Str, data, nil
}

// read pushes in to a new Reader (a chunk Reader if chunks) in one piece
// and returns what it yields, its error and what it holds.
func read(in []byte, max int, chunks bool) ([]byte, error, int) {
	r := NewReader(max)
	if chunks {
		r = NewChunkReader(max)
	}
	out, err := r.Push(nil, in)
	return out, err, r.Pending()
}

// agree fails t unless the Reader and the oracle read in alike: the same
// SSE text, both refusing it or neither, the same bytes held.
func agree(t testing.TB, in []byte, max int, chunks bool) (out []byte, err error) {
	t.Helper()
	out, err, pending := read(in, max, chunks)
	want, bad, wantPending := libRead(in, max, chunks)
	if !bytes.Equal(out, want) || (err != nil) != bad || pending != wantPending {
		t.Fatalf("%s: the Reader yields %q (error %v, %d pending); aws-sdk-go-v2: %q (refused: %v, %d pending)",
			describe(in), out, err, pending, want, bad, wantPending)
	}
	return out, err
}

// describe shows the first bytes of a stream, in hex.
func describe(in []byte) string {
	if len(in) > 64 {
		return fmt.Sprintf("% x... (%d bytes)", in[:64], len(in))
	}
	return fmt.Sprintf("% x", in)
}
