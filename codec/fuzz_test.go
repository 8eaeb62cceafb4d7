package codec_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/codectest"
	"github.com/llmbridge/llmbridge/sse"
)

// maxFuzzInput caps the input size so that each iteration stays fast.
const maxFuzzInput = 64 << 10

// maxFuzzOutput bounds what one input may make an encoder write: far more
// than any translation of a 64 KiB input needs, so exceeding it means an
// output that grows without bound.
const maxFuzzOutput = 16 << 20

// fuzzProtocol maps the fuzzer's protocol byte to a protocol.
func fuzzProtocol(i uint8) codec.Protocol { return codec.Protocols()[int(i)%len(codec.Protocols())] }

// protocolIndex returns the index of p in Protocols.
func protocolIndex(p codec.Protocol) uint8 {
	for i, q := range codec.Protocols() {
		if q == p {
			return uint8(i)
		}
	}
	panic("unknown protocol " + p)
}

// fuzzSeeds holds the seed inputs gathered from testdata and recordings.
type fuzzSeeds struct {
	requests  []fuzzSeed // request bodies
	responses []fuzzSeed // non-streamed response bodies
	errors    []fuzzSeed // error bodies with their status
	streams   []fuzzSeed // SSE stream bodies
}

type fuzzSeed struct {
	p      codec.Protocol
	status int
	body   []byte
}

// loadFuzzSeeds reads the request and response goldens, the conversation,
// the translation matrix outputs and the stream goldens under testdata, and
// the recorded exchanges under ../../shared/recordings when present.
func loadFuzzSeeds(f *testing.F) *fuzzSeeds {
	f.Helper()
	var s fuzzSeeds
	for _, p := range codec.Protocols() {
		files, _ := filepath.Glob(filepath.Join("testdata", string(p), "*"))
		for _, name := range files {
			b, err := os.ReadFile(name)
			if err != nil {
				f.Fatal(err)
			}
			base := filepath.Base(name)
			switch {
			case strings.HasPrefix(base, "request_"):
				s.requests = append(s.requests, fuzzSeed{p: p, body: b})
			case strings.HasPrefix(base, "response_"):
				s.responses = append(s.responses, fuzzSeed{p: p, body: b})
			case strings.HasSuffix(base, ".sse"):
				s.streams = append(s.streams, fuzzSeed{p: p, body: b})
			}
		}
		if b, err := os.ReadFile(filepath.Join("testdata", "conversation", string(p)+".json")); err == nil {
			s.requests = append(s.requests, fuzzSeed{p: p, body: b})
		}
	}
	// Matrix goldens are requests in the protocol after "--".
	matrix, _ := filepath.Glob(filepath.Join("testdata", "matrix", "*--*.json"))
	for _, name := range matrix {
		to := strings.TrimSuffix(filepath.Base(name)[strings.Index(filepath.Base(name), "--")+2:], ".json")
		p, err := codec.ParseProtocol(to)
		if err != nil {
			continue
		}
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		s.requests = append(s.requests, fuzzSeed{p: p, body: b})
	}
	// Recorded exchanges; absent on machines without the shared data.
	recs, _ := filepath.Glob(filepath.Join("..", "..", "shared", "recordings", "*", "*.json"))
	for _, name := range recs {
		b, err := os.ReadFile(name)
		if err != nil {
			continue
		}
		var rec struct {
			Protocol string `json:"protocol"`
			Stream   bool   `json:"stream"`
			Request  struct {
				Body json.RawMessage `json:"body"`
			} `json:"request"`
			Response struct {
				Status int             `json:"status"`
				Body   json.RawMessage `json:"body"`
			} `json:"response"`
		}
		if json.Unmarshal(b, &rec) != nil {
			continue
		}
		p, err := codec.ParseProtocol(rec.Protocol)
		if err != nil {
			continue
		}
		if body := rawBody(rec.Request.Body); body != nil {
			s.requests = append(s.requests, fuzzSeed{p: p, body: body})
		}
		body := rawBody(rec.Response.Body)
		if body == nil {
			continue
		}
		switch {
		case rec.Response.Status >= 400:
			s.errors = append(s.errors, fuzzSeed{p: p, status: rec.Response.Status, body: body})
		case rec.Stream:
			s.streams = append(s.streams, fuzzSeed{p: p, body: body})
		default:
			s.responses = append(s.responses, fuzzSeed{p: p, body: body})
		}
	}
	return &s
}

// rawBody returns a recorded body: a JSON string's contents, any other JSON
// value's text, or nil for null or nothing.
func rawBody(raw json.RawMessage) []byte {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	var str string
	if json.Unmarshal(raw, &str) == nil {
		return []byte(str)
	}
	return raw
}

// checkJSON fails unless out is valid JSON of bounded size.
func checkJSON(t *testing.T, what string, out []byte) {
	t.Helper()
	if len(out) > maxFuzzOutput {
		t.Fatalf("%s: %d bytes of output", what, len(out))
	}
	if !json.Valid(out) {
		t.Fatalf("%s: invalid JSON: %q", what, out)
	}
}

func FuzzDecodeRequest(f *testing.F) {
	for _, s := range loadFuzzSeeds(f).requests {
		f.Add(protocolIndex(s.p), s.body)
	}
	f.Fuzz(func(t *testing.T, pi uint8, body []byte) {
		if len(body) > maxFuzzInput {
			return
		}
		from := fuzzProtocol(pi)
		var req codec.Request
		if err := codec.DecodeRequest(from, body, &req); err != nil {
			return
		}
		if from.ModelInPath() {
			req.Model = "fuzz-model" // the caller sets it from the path
		}
		outs := make([][]byte, len(codec.Protocols()))
		for i, to := range codec.Protocols() {
			// Encoders append to Dropped; each gets its own.
			r := req
			r.Dropped = append([]string(nil), req.Dropped...)
			out, err := codec.AppendRequest(nil, to, &r, codec.EncodeOptions{})
			if err != nil {
				continue
			}
			checkJSON(t, string(from)+" request to "+string(to), out)
			outs[i] = out
		}
		// The literals the texts were decoded from say what escaping
		// the texts again says (Part.literal).
		dropLiterals(&req)
		for i, to := range codec.Protocols() {
			if outs[i] == nil {
				continue
			}
			r := req
			r.Dropped = append([]string(nil), req.Dropped...)
			out, err := codec.AppendRequest(nil, to, &r, codec.EncodeOptions{})
			if err != nil {
				t.Fatalf("%s request to %s: fails without literals: %v", from, to, err)
			}
			var a, b any
			if json.Unmarshal(outs[i], &a) != nil || json.Unmarshal(out, &b) != nil || !reflect.DeepEqual(a, b) {
				t.Fatalf("%s request to %s: with literals\n%s\nwithout\n%s", from, to, outs[i], out)
			}
		}
	})
}

func FuzzDecodeResponse(f *testing.F) {
	seeds := loadFuzzSeeds(f)
	for _, s := range seeds.responses {
		f.Add(protocolIndex(s.p), uint16(200), s.body)
	}
	for _, s := range seeds.errors {
		f.Add(protocolIndex(s.p), uint16(s.status), s.body)
	}
	f.Fuzz(func(t *testing.T, pi uint8, status uint16, body []byte) {
		if len(body) > maxFuzzInput {
			return
		}
		from := fuzzProtocol(pi)
		var resp codec.Response
		if err := codec.DecodeResponse(from, body, &resp); err == nil {
			// The stream a streaming client gets for a JSON answer.
			evs := codec.AppendResponseEvents(nil, &resp)
			if err := codectest.WellFormed(evs); err != nil {
				t.Fatalf("%s response as events: %v", from, err)
			}
			for _, to := range codec.Protocols() {
				out, err := codec.AppendResponse(nil, to, &resp)
				if err == nil {
					checkJSON(t, string(from)+" response to "+string(to), out)
				}
				if err := checkSSEData(codectest.EncodeStream(to, &codec.Request{Model: "m", Stream: true, StreamUsage: true}, evs)); err != nil {
					t.Fatalf("%s response streamed to %s: %v", from, to, err)
				}
			}
		}
		e := codec.DecodeError(from, int(status), body)
		if e == nil {
			t.Fatal("DecodeError returned nil")
		}
		for _, to := range codec.Protocols() {
			checkJSON(t, string(from)+" error to "+string(to), codec.AppendError(nil, to, e))
		}
	})
}

// Stream fuzz inputs are a sequence of upstream SSE events separated by
// NUL bytes. An event starting with 'B' is a bare JSON block (the rest is
// its data); any other event is its first byte (ignored), its name up to
// the first newline, and its data.
const (
	fuzzEventSep  = 0
	fuzzEventBare = 'B'
)

// encodeFuzzEvents turns an SSE body into a stream fuzz input.
func encodeFuzzEvents(body []byte) []byte {
	r := sse.NewReader(bytes.NewReader(body), 0)
	var in []byte
	for {
		ev, err := r.Next()
		if err != nil {
			return in
		}
		if len(in) > 0 {
			in = append(in, fuzzEventSep)
		}
		if ev.Bare {
			in = append(in, fuzzEventBare)
		} else {
			in = append(in, 'E')
			in = append(in, ev.Name...)
			in = append(in, '\n')
		}
		in = append(in, ev.Data...)
	}
}

func FuzzStreamDecoder(f *testing.F) {
	for _, s := range loadFuzzSeeds(f).streams {
		f.Add(protocolIndex(s.p), false, encodeFuzzEvents(s.body))
	}
	f.Add(protocolIndex(codec.OpenAIChat), true, []byte("E\n{}"))
	f.Fuzz(func(t *testing.T, pi uint8, broken bool, in []byte) {
		if len(in) > maxFuzzInput {
			return
		}
		from := fuzzProtocol(pi)
		dec := codectest.StreamDecoder(from)
		var evs, buf []codec.Event
		for chunk := range bytes.SplitSeq(in, []byte{fuzzEventSep}) {
			if len(chunk) == 0 {
				continue
			}
			var name, data []byte
			bare := chunk[0] == fuzzEventBare
			if bare {
				data = chunk[1:]
			} else {
				name, data, _ = bytes.Cut(chunk[1:], []byte{'\n'})
			}
			buf = dec.Decode(buf[:0], name, data, bare)
			evs = codectest.AppendDetached(evs, buf)
		}
		var cause error
		if broken {
			cause = io.ErrUnexpectedEOF
		}
		evs = codectest.AppendDetached(evs, dec.Close(buf[:0], cause))
		if err := codectest.WellFormed(evs); err != nil {
			t.Fatalf("%s: %v", from, err)
		}
		req := &codec.Request{Model: "client-model", Stream: true, StreamUsage: true}
		for _, to := range codec.Protocols() {
			out := codectest.EncodeStream(to, req, evs)
			if len(out) > maxFuzzOutput {
				t.Fatalf("%s stream to %s: %d bytes of output", from, to, len(out))
			}
			if err := checkSSEData(out); err != nil {
				t.Fatalf("%s stream to %s: %v\n%s", from, to, err, out)
			}
		}
	})
}

// checkSSEData returns an error unless every data line of the SSE body out
// is valid JSON or [DONE].
func checkSSEData(out string) error {
	for line := range strings.Lines(out) {
		line = strings.TrimRight(line, "\r\n")
		data, ok := strings.CutPrefix(line, "data:")
		if !ok {
			continue
		}
		data = strings.TrimPrefix(data, " ")
		if data != "[DONE]" && !json.Valid([]byte(data)) {
			return fmt.Errorf("data line is not JSON: %q", line)
		}
	}
	return nil
}
