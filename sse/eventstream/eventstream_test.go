package eventstream

import (
	"bytes"
	"encoding/binary"
	"strings"
	"testing"
	"time"

	awsstream "github.com/aws/aws-sdk-go-v2/aws/protocol/eventstream"
)

// message encodes one event stream message with aws-sdk-go-v2's encoder,
// as Bedrock sends it.
func message(t testing.TB, payload string, headers ...string) []byte {
	t.Helper()
	var h awsstream.Headers
	for i := 0; i+1 < len(headers); i += 2 {
		h.Set(headers[i], awsstream.StringValue(headers[i+1]))
	}
	var b bytes.Buffer
	if err := awsstream.NewEncoder().Encode(&b, awsstream.Message{Headers: h, Payload: []byte(payload)}); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// bedrockStream is an InvokeModelWithResponseStream answer: two chunks, an
// exception and an error message.
func bedrockStream(t testing.TB) ([]byte, string) {
	var in []byte
	in = append(in, message(t, `{"bytes":"eyJ0eXBlIjoibWVzc2FnZV9zdGFydCJ9"}`, ":message-type", "event", ":event-type", "chunk", ":content-type", "application/json")...)
	in = append(in, message(t, `{"bytes":"eyJ0eXBlIjoibWVzc2FnZV9zdG9wIn0="}`, ":message-type", "event", ":event-type", "chunk", ":content-type", "application/json")...)
	in = append(in, message(t, `{"message":"Too many tokens"}`, ":message-type", "exception", ":exception-type", "throttlingException", ":content-type", "application/json")...)
	in = append(in, message(t, "", ":message-type", "error", ":error-code", "InternalFailure", ":error-message", "boom")...)
	want := "event: chunk\ndata: {\"bytes\":\"eyJ0eXBlIjoibWVzc2FnZV9zdGFydCJ9\"}\n\n" +
		"event: chunk\ndata: {\"bytes\":\"eyJ0eXBlIjoibWVzc2FnZV9zdG9wIn0=\"}\n\n" +
		"event: exception:throttlingException\ndata: {\"message\":\"Too many tokens\"}\n\n" +
		"event: error:InternalFailure\ndata: boom\n\n"
	return in, want
}

// TestReader reads a Bedrock stream pushed in pieces of every size: the
// SSE text does not depend on where the bytes were split.
func TestReader(t *testing.T) {
	in, want := bedrockStream(t)
	for _, size := range []int{1, 2, 7, 11, 12, 13, 100, len(in)} {
		r := NewReader(1 << 20)
		var out []byte
		for i := 0; i < len(in); i += size {
			var err error
			if out, err = r.Push(out, in[i:min(i+size, len(in))]); err != nil {
				t.Fatalf("pieces of %d: %v", size, err)
			}
		}
		if string(out) != want || r.Pending() != 0 {
			t.Errorf("pieces of %d: got %q (%d pending), want %q", size, out, r.Pending(), want)
		}
	}
	r := NewReader(1 << 20)
	if _, err := r.Push(nil, in[:20]); err != nil || r.Pending() != 20 {
		t.Errorf("a partial message: %v, %d pending", err, r.Pending())
	}
}

// TestReaderRejects checks that malformed messages break the stream and
// that an announced length out of bounds is refused before its bytes
// arrive.
func TestReaderRejects(t *testing.T) {
	good := message(t, `{"bytes":"e30="}`, ":message-type", "event", ":event-type", "chunk")
	badCRC := append([]byte(nil), good...)
	badCRC[len(badCRC)-1] ^= 0xff
	badPayload := append([]byte(nil), good...)
	badPayload[len(badPayload)-6] ^= 0xff
	for name, in := range map[string][]byte{
		"message CRC":     badCRC,
		"payload changed": badPayload,
		"too long":        {0, 0x10, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
		"too short":       {0, 0, 0, 8, 0, 0, 0, 0, 0, 0, 0, 0},
	} {
		r := NewReader(1 << 16)
		if _, err := r.Push(nil, in); err == nil {
			t.Errorf("%s: no error", name)
			continue
		}
		if out, err := r.Push(nil, good); err == nil || len(out) != 0 {
			t.Errorf("%s: the stream goes on after an error", name)
		}
	}
}

// TestWriter turns SSE text, as stream encoders write it, into messages
// that aws-sdk-go-v2 decodes, and back.
func TestWriter(t *testing.T) {
	in, sseText := bedrockStream(t)
	_ = in
	w := NewWriter(1 << 20)
	var msgs []byte
	for _, piece := range strings.SplitAfter(": a comment\n\n"+sseText[:strings.Index(sseText, "event: error:")], "\n") {
		var err error
		if msgs, err = w.Push(msgs, []byte(piece)); err != nil {
			t.Fatal(err)
		}
	}
	dec := awsstream.NewDecoder()
	rd := bytes.NewReader(msgs)
	var got []string
	for rd.Len() > 0 {
		m, err := dec.Decode(rd, nil)
		if err != nil {
			t.Fatal(err)
		}
		name, data := libEvent(&m)
		got = append(got, name+" "+string(data)+" "+libHeader(&m, ":content-type"))
	}
	want := []string{
		`chunk {"bytes":"eyJ0eXBlIjoibWVzc2FnZV9zdGFydCJ9"} application/json`,
		`chunk {"bytes":"eyJ0eXBlIjoibWVzc2FnZV9zdG9wIn0="} application/json`,
		`exception:throttlingException {"message":"Too many tokens"} application/json`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("messages:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// And back to the same SSE text.
	back, err := NewReader(1<<20).Push(nil, msgs)
	if err != nil || !strings.HasPrefix(sseText, string(back)) || len(back) == 0 {
		t.Errorf("round trip: %q, %v", back, err)
	}
	if _, err := NewWriter(16).Push(nil, []byte("data: "+strings.Repeat("x", 100)+"\n\n")); err == nil {
		t.Errorf("an SSE event over the limit was accepted")
	}
}

// TestChunks unwraps InvokeModelWithResponseStream chunks into the events
// they carry, wraps them back, and refuses chunks that carry no event.
func TestChunks(t *testing.T) {
	in, _ := bedrockStream(t)
	want := "event: message_start\ndata: {\"type\":\"message_start\"}\n\n" +
		"event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n" +
		"event: exception:throttlingException\ndata: {\"message\":\"Too many tokens\"}\n\n" +
		"event: error:InternalFailure\ndata: boom\n\n"
	for _, size := range []int{1, 13, len(in)} {
		r := NewChunkReader(1 << 20)
		var out []byte
		for i := 0; i < len(in); i += size {
			var err error
			if out, err = r.Push(out, in[i:min(i+size, len(in))]); err != nil {
				t.Fatalf("pieces of %d: %v", size, err)
			}
		}
		if string(out) != want {
			t.Errorf("pieces of %d: got %q, want %q", size, out, want)
		}
	}
	msgs, err := NewChunkWriter(1<<20).Push(nil, []byte(want[:strings.Index(want, "event: error:")]))
	if err != nil {
		t.Fatal(err)
	}
	plain, err := NewReader(1<<20).Push(nil, msgs)
	if err != nil || !strings.HasPrefix(string(plain), "event: chunk\ndata: {\"bytes\":\"eyJ0eXBlIjoibWVzc2FnZV9zdGFydCJ9\"}\n\n") ||
		!strings.HasSuffix(string(plain), "event: exception:throttlingException\ndata: {\"message\":\"Too many tokens\"}\n\n") {
		t.Errorf("wrapped: %q, %v", plain, err)
	}
	back, err := NewChunkReader(1<<20).Push(nil, msgs)
	if err != nil || !strings.HasPrefix(want, string(back)) || !strings.Contains(string(back), "exception:") {
		t.Errorf("round trip: %q, %v", back, err)
	}
	for name, payload := range map[string]string{
		"no bytes":     `{"p":"abc"}`,
		"not base64":   `{"bytes":"%%%"}`,
		"no type":      `{"bytes":"e30="}`,
		"bytes number": `{"bytes":5}`,
	} {
		m := message(t, payload, ":message-type", "event", ":event-type", "chunk")
		if _, err := NewChunkReader(1<<20).Push(nil, m); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// FuzzReader feeds arbitrary bytes, in two pieces, to the Reader: it
// never panics, never holds more than the limit, reads and refuses
// exactly what aws-sdk-go-v2's decoder does, and what it reads from a
// valid stream does not depend on the split.
func FuzzReader(f *testing.F) {
	in, _ := bedrockStream(f)
	f.Add(in, 5)
	f.Add(in[:30], 12)
	f.Add([]byte{0, 0, 0, 16, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, 3)
	// Good messages, then a bad message CRC in the last one; good
	// messages, then a length of 2 GiB.
	badCRC := bytes.Clone(in)
	badCRC[len(badCRC)-2] ^= 0xff
	f.Add(badCRC, 4)
	f.Add(append(bytes.Clone(in), 0x7f, 0xff, 0xff, 0xff, 0, 0, 0, 0, 0, 0, 0, 0), 6)
	// Headers of every type; headers that end in a name's length.
	f.Add(libMessage(f, []byte(`{}`),
		awsstream.Header{Name: "b", Value: awsstream.BoolValue(true)},
		awsstream.Header{Name: "i", Value: awsstream.Int64Value(-1)},
		awsstream.Header{Name: "u", Value: awsstream.UUIDValue{}},
		awsstream.Header{Name: "x", Value: awsstream.BytesValue("x")},
		str(":event-type", "chunk")), 1)
	f.Add(frame(append(rawString(":event-type", "e"), 3), nil, -1), 0)
	f.Fuzz(func(t *testing.T, in []byte, split int) {
		const limit = 1 << 12
		chunks := split%2 != 0
		newReader := NewReader
		if chunks {
			newReader = NewChunkReader
		}
		whole, errWhole := agree(t, in, limit, chunks)
		r := newReader(limit)
		split = min(max(split, 0), len(in))
		parts, err := r.Push(nil, in[:split])
		if err == nil {
			parts, err = r.Push(parts, in[split:])
		}
		if r.Pending() > limit {
			t.Fatalf("holds %d bytes over the limit %d", r.Pending(), limit)
		}
		if (err == nil) != (errWhole == nil) || !bytes.Equal(whole, parts) {
			t.Fatalf("split at %d: %q %v, whole: %q %v", split, parts, err, whole, errWhole)
		}
		// Pushed one message at a time, a stream yields each message's
		// events before it meets a bad one: the events returned with an
		// error are exactly those, whatever the reads were.
		one, errOne := pushMessages(newReader(limit), in)
		if (errOne == nil) != (errWhole == nil) || !bytes.Equal(whole, one) {
			t.Fatalf("one message per push: %q %v, whole: %q %v", one, errOne, whole, errWhole)
		}
	})
}

// FuzzMessage reads messages of arbitrary headers and payload whose CRCs
// are right, their prelude giving the headers' length or a little off it:
// the Reader reads and refuses exactly what aws-sdk-go-v2's decoder does.
func FuzzMessage(f *testing.F) {
	f.Add(rawString(":event-type", "chunk"), []byte(`{"bytes":"eyJ0eXBlIjoicGluZyJ9"}`), int8(0))
	f.Add(append(rawString(":message-type", "error"), rawString(":error-code", "E")...), []byte("x"), int8(0))
	f.Add(append(rawString(":event-type", "a"), rawHeader("u", typeUUID, make([]byte, 16)...)...), []byte(`{}`), int8(-3))
	f.Add(append(rawString(":event-type", "a"), 4), []byte(`{}`), int8(0))
	f.Add(rawString(":event-type", "a"), []byte(`{}`), int8(2))
	// Headers of every type, as aws-sdk-go-v2 encodes them.
	all := libMessage(f, nil, str(":event-type", "a"),
		awsstream.Header{Name: "t", Value: awsstream.BoolValue(true)},
		awsstream.Header{Name: "f", Value: awsstream.BoolValue(false)},
		awsstream.Header{Name: "b", Value: awsstream.Int8Value(1)},
		awsstream.Header{Name: "s", Value: awsstream.Int16Value(2)},
		awsstream.Header{Name: "i", Value: awsstream.Int32Value(3)},
		awsstream.Header{Name: "l", Value: awsstream.Int64Value(4)},
		awsstream.Header{Name: "x", Value: awsstream.BytesValue("5")},
		awsstream.Header{Name: "d", Value: awsstream.TimestampValue(time.UnixMilli(6))},
		awsstream.Header{Name: "u", Value: awsstream.UUIDValue{7}},
		str(":message-type", "event"))
	f.Add(all[preludeLen:len(all)-4], []byte(nil), int8(0))
	f.Fuzz(func(t *testing.T, headers, payload []byte, off int8) {
		headersLen := max(len(headers)+int(off), 0)
		in := frame(headers, payload, headersLen)
		agree(t, in, 1<<16, false)
		agree(t, in, 1<<16, true)
	})
}

// FuzzChunk reads arbitrary chunk payloads: the Reader unwraps and
// refuses exactly the chunks the oracle does (the bytes member found as
// gjson finds it, escapes and all).
func FuzzChunk(f *testing.F) {
	for _, p := range []string{
		`{"bytes":"eyJ0eXBlIjoicGluZyJ9","p":"abc"}`,
		`{"bytes":"eyJ0eXBlIjoi\u0063GluZyJ9"}`,
		`{"p":"x","bytes":"eyJ0eXBlIjoicGluZyJ9"}`,
		`{"bytes":"eyJ0eXBlIjoicGluZyJ9`,
		`{"bytes":"eyAidHlwZSI6ICJwaW5nIiB9"}`,
		`{"bytes":"eyJ0eXBlIjoiXHUwMDcwaW5nIn0="}`,
		`{"bytes":"e30="}`,
		`{"bytes":5}`,
	} {
		f.Add([]byte(p))
	}
	f.Fuzz(func(t *testing.T, payload []byte) {
		agree(t, libMessage(t, payload, str(":event-type", "chunk")), 1<<16, true)
	})
}

// FuzzWriter writes arbitrary SSE text as messages, with and without
// chunks, pushed in three pieces and a line at a time, under a bound of
// 40 to 295 bytes: byte for byte what aws-sdk-go-v2's encoder writes, the
// same events refused, and read back by the Reader as by aws-sdk-go-v2's
// decoder.
func FuzzWriter(f *testing.F) {
	_, text := bedrockStream(f)
	f.Add(text, 3)
	f.Add(": c\n\nevent: a\r\ndata: x\r\ndata:y\n\n{\"bare\":1}\n\n", 2)
	f.Add("event: exception:\ndata: \n\nevent:exception\ndata\n\n", 1)
	f.Add("event: a\ndata: 1\n\n\xef\xbb\xbfevent: b\ndata: 2\n\n", 40)
	f.Add("event: a\ndata: 1\n\nevent: b\ndata: 2\ndata: 3\n\nevent: c\ndata: 4\n\n", 7)
	f.Add("event: a\ndata: "+strings.Repeat("x", 60)+"\n\nevent: b\ndata: 2\n\n", 10)
	f.Add("event: a\ndata: 1\n\nid: 7\nevent: b\ndata: 2\n\nevent:  c\ndata:  3\n\n", 5)
	f.Fuzz(func(t *testing.T, text string, split int) {
		split = max(split, 0)
		chunks := split%2 != 0
		limit := 40 + split%256
		want, wantErr := libWrite([]byte(text), chunks, limit)
		a, b := split%(len(text)+1), (split*7)%(len(text)+1)
		a, b = min(a, b), max(a, b)
		lines := strings.SplitAfter(text, "\n")
		for _, pieces := range [][]string{{text[:a], text[a:b], text[b:]}, lines} {
			w := NewWriter(limit)
			if chunks {
				w = NewChunkWriter(limit)
			}
			var got []byte
			var err error
			for _, piece := range pieces {
				if got, err = w.Push(got, []byte(piece)); err != nil {
					break
				}
			}
			if !bytes.Equal(got, want) || (err == nil) != (wantErr == nil) {
				t.Fatalf("pushed as %q: the Writer's messages (error %v) differ from aws-sdk-go-v2's (error %v):\n% x\nwant\n% x", pieces, err, wantErr, got, want)
			}
		}
		// Read back as aws-sdk-go-v2 reads them (an event without a
		// name is a message neither can read).
		agree(t, want, 1<<16, false)
	})
}

// pushMessages pushes in to r one message at a time, as the prelude of
// each gives its length (the rest, a message's start, last), and returns
// what r yields until the first error.
func pushMessages(r *Reader, in []byte) ([]byte, error) {
	var out []byte
	for len(in) > 0 {
		n := len(in)
		if n >= preludeLen {
			if total := int(binary.BigEndian.Uint32(in)); total >= preludeLen && total < n {
				n = total
			}
		}
		var err error
		if out, err = r.Push(out, in[:n]); err != nil {
			return out, err
		}
		in = in[n:]
	}
	return out, nil
}

// benchEvent is a typical streamed text delta of Anthropic's Messages.
const benchEvent = `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"The quick brown fox jumps over the lazy dog."}}`

// BenchmarkReader reads one event message (a ConverseStream-style event)
// per iteration, as an upstream stream arrives.
func BenchmarkReader(b *testing.B) {
	benchmarkReader(b, NewReader(1<<20), AppendMessage(nil, "contentBlockDelta", []byte(benchEvent)))
}

// BenchmarkChunkReader reads one InvokeModelWithResponseStream chunk per
// iteration and unwraps the event it carries.
func BenchmarkChunkReader(b *testing.B) {
	msg, err := NewChunkWriter(1<<20).Push(nil, []byte("event: content_block_delta\ndata: "+benchEvent+"\n\n"))
	if err != nil {
		b.Fatal(err)
	}
	benchmarkReader(b, NewChunkReader(1<<20), msg)
}

func benchmarkReader(b *testing.B, r *Reader, msg []byte) {
	b.ReportAllocs()
	b.SetBytes(int64(len(msg)))
	var out []byte
	for b.Loop() {
		var err error
		if out, err = r.Push(out[:0], msg); err != nil || len(out) == 0 {
			b.Fatal(err)
		}
	}
}

// BenchmarkWriter and BenchmarkChunkWriter write one SSE event per
// iteration as an event stream message, as a client's stream is written.
func BenchmarkWriter(b *testing.B) { benchmarkWriter(b, NewWriter(1<<20)) }

func BenchmarkChunkWriter(b *testing.B) { benchmarkWriter(b, NewChunkWriter(1<<20)) }

func benchmarkWriter(b *testing.B, w *Writer) {
	ev := []byte("event: content_block_delta\ndata: " + benchEvent + "\n\n")
	b.ReportAllocs()
	b.SetBytes(int64(len(ev)))
	var out []byte
	for b.Loop() {
		var err error
		if out, err = w.Push(out[:0], ev); err != nil || len(out) == 0 {
			b.Fatal(err)
		}
	}
}

// TestAllocs holds every framing path to no allocation per event once
// its buffers have grown: a Bedrock side must cost no more garbage than
// an SSE side.
func TestAllocs(t *testing.T) {
	msg := AppendMessage(nil, "contentBlockDelta", []byte(benchEvent))
	ev := []byte("event: content_block_delta\ndata: " + benchEvent + "\n\n")
	chunk, err := NewChunkWriter(1<<20).Push(nil, ev)
	if err != nil {
		t.Fatal(err)
	}
	exception := AppendMessage(nil, "exception:throttlingException", []byte(`{"message":"slow"}`))
	for name, push := range map[string]struct {
		push func(dst, p []byte) ([]byte, error)
		in   []byte
	}{
		"Reader":               {NewReader(1 << 20).Push, msg},
		"Reader, an exception": {NewReader(1 << 20).Push, exception},
		"Reader, byte by byte": {bytewise(NewReader(1 << 20).Push), msg},
		"ChunkReader":          {NewChunkReader(1 << 20).Push, chunk},
		"Writer":               {NewWriter(1 << 20).Push, ev},
		"Writer, an exception": {NewWriter(1 << 20).Push, []byte("event: exception:throttlingException\ndata: {}\n\n")},
		"ChunkWriter":          {NewChunkWriter(1 << 20).Push, ev},
	} {
		var out []byte
		allocs := testing.AllocsPerRun(100, func() {
			if out, err = push.push(out[:0], push.in); err != nil || len(out) == 0 {
				t.Fatalf("%s: %q, %v", name, out, err)
			}
		})
		if allocs != 0 {
			t.Errorf("%s: %.1f allocations per event, want 0", name, allocs)
		}
	}
}

// bytewise pushes its input one byte at a time.
func bytewise(push func(dst, p []byte) ([]byte, error)) func(dst, p []byte) ([]byte, error) {
	return func(dst, p []byte) ([]byte, error) {
		var err error
		for i := range p {
			if dst, err = push(dst, p[i:i+1]); err != nil {
				break
			}
		}
		return dst, err
	}
}
