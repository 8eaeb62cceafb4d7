package caddytest

import (
	"bytes"
	"context"
	"encoding/base64"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/llmbridge/llmbridge/sse/eventstream"
)

// frameFault is a broken event stream message a Bedrock mock sends after
// the start and the text of its answer, in the same write as them or
// byte by byte, and then holds its connection open (or, for a cut
// message, ends its body).
type frameFault struct {
	bytes      []byte
	cut        bool // the body ends after bytes
	byteByByte bool // a write and a flush per byte, else one write in all
	// sent receives when the fault was flushed; held how long the
	// connection then stayed open before llmbridge closed it (or the
	// hold timed out).
	sent chan time.Time
	held chan time.Duration
}

// faultHold bounds how long a mock holds its connection open after a
// broken message.
const faultHold = 10 * time.Second

// serve writes head (SSE frames, framed as the mock's protocol) and the
// fault, then holds the connection until the request ends.
func (f *frameFault) serve(ctx context.Context, sw *streamWriter, head []string) {
	var b []byte
	for _, h := range head {
		b = append(b, sw.aws.frame(h)...)
	}
	b = append(b, f.bytes...)
	step := len(b)
	if f.byteByByte {
		step = 1
	}
	for i := 0; i < len(b); i += step {
		if !sw.raw(b[i:min(i+step, len(b))]) {
			break
		}
	}
	report(f.sent, time.Now())
	if f.cut {
		report(f.held, 0)
		return
	}
	start := time.Now()
	select {
	case <-ctx.Done():
	case <-time.After(faultHold):
	}
	report(f.held, time.Since(start))
}

// report sends v on c unless c is full: a fault serves one request, and a
// client that retries must not block the mock.
func report[T any](c chan T, v T) {
	select {
	case c <- v:
	default:
	}
}

// raw writes and flushes b as it is; it reports whether the client is
// still there.
func (sw *streamWriter) raw(b []byte) bool {
	if sw.err != nil {
		return false
	}
	if _, sw.err = sw.out.Write(b); sw.err != nil {
		return false
	}
	if sw.zw != nil {
		if sw.err = sw.zw.Flush(); sw.err != nil {
			return false
		}
	}
	sw.err = sw.rc.Flush()
	return sw.err == nil
}

// awsFrameFault is a way an event stream message of a Bedrock upstream
// breaks.
type awsFrameFault struct {
	name string
	// chunks faults are of InvokeModel's chunk wrapping only.
	chunks bool
	cut    bool
	bytes  func(up proto) []byte
}

// awsTextMessage is a valid text delta message of upstream up's event
// stream.
func awsTextMessage(up proto) []byte {
	frame := "event: contentBlockDelta\ndata: {\"contentBlockIndex\":0,\"delta\":{\"text\":\" after the fault\"}}\n\n"
	if up == bedrockAnthropic {
		frame = "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\" after the fault\"}}\n\n"
	}
	return []byte(newAWSStreamFramer(up).frame(frame))
}

// awsFrameFaults are the faults of a real network and service: a bad
// prelude CRC, a bad message CRC, a chunk whose base64 does not decode, an
// event without its type, a length of 2 GiB, and a message cut off by the
// end of the body.
var awsFrameFaults = []awsFrameFault{
	{name: "bad-prelude-crc", bytes: func(up proto) []byte {
		b := awsTextMessage(up)
		b[10] ^= 0x5a
		return b
	}},
	{name: "bad-message-crc", bytes: func(up proto) []byte {
		b := awsTextMessage(up)
		b[len(b)-2] ^= 0x5a
		return b
	}},
	{name: "invalid-base64", chunks: true, bytes: func(proto) []byte {
		return eventstream.AppendMessage(nil, "chunk", []byte(`{"bytes":"eyJ0eXBlIjoi*not*base64*"}`))
	}},
	{name: "event-without-type", bytes: func(up proto) []byte {
		if up == bedrockAnthropic {
			inner := base64.StdEncoding.EncodeToString([]byte(`{"index":0,"delta":{"type":"text_delta","text":" after the fault"}}`))
			return eventstream.AppendMessage(nil, "chunk", []byte(`{"bytes":"`+inner+`"}`))
		}
		return eventstream.AppendMessage(nil, "", []byte(`{"contentBlockIndex":0,"delta":{"text":" after the fault"}}`))
	}},
	{name: "length-2GiB", bytes: func(proto) []byte {
		return []byte{0x7f, 0xff, 0xff, 0xff, 0, 0, 0, 0x40, 0x12, 0x34, 0x56, 0x78}
	}},
	{name: "cut-message", cut: true, bytes: func(up proto) []byte {
		b := awsTextMessage(up)
		return b[:len(b)/2]
	}},
}

// faultPromptness is how soon after a broken message the client's
// response must have ended.
const faultPromptness = 100 * time.Millisecond

// TestAWSStreamFaults sends, from both Bedrock upstreams to a client of
// every protocol (translated, and passed through to Anthropic and
// Converse clients), the start and text of an answer followed by a broken
// event stream message, in one write with them and byte by byte: the
// client's SDK gets all the text before the fault and then its protocol's
// in-stream error. With the upstream holding its connection open after
// the fault, the client's response ends within faultPromptness and
// llmbridge closes the upstream connection.
func TestAWSStreamFaults(t *testing.T) {
	env := setup(t)
	clients := streamingClients()
	for _, up := range []proto{bedrockAnthropic, bedrockConverse} {
		for _, ff := range awsFrameFaults {
			if ff.chunks && up != bedrockAnthropic {
				continue
			}
			for _, cp := range allProtocols {
				for _, byteByByte := range []bool{false, true} {
					name := pairName(cp, up) + "/" + ff.name + "/one-write"
					if byteByByte {
						name = pairName(cp, up) + "/" + ff.name + "/byte-by-byte"
					}
					t.Run(name, func(t *testing.T) {
						env.mocks.resetAll(t)
						runAWSFault(t, env, clients[cp], up, ff, byteByByte)
					})
				}
				t.Run(pairName(cp, up)+"/"+ff.name+"/promptness", func(t *testing.T) {
					env.mocks.resetAll(t)
					runAWSFaultPromptness(t, env, cp, up, ff)
				})
			}
		}
	}
}

// newFrameFault returns the fault ff of upstream up for a mock's plan.
func newFrameFault(up proto, ff awsFrameFault, byteByByte bool) *frameFault {
	return &frameFault{bytes: ff.bytes(up), cut: ff.cut, byteByByte: byteByByte,
		sent: make(chan time.Time, 1), held: make(chan time.Duration, 1)}
}

func runAWSFault(t *testing.T, env *testEnv, c streamingClient, up proto, ff awsFrameFault, byteByByte bool) {
	m := env.mocks[up]
	rep := failureReply(up)
	m.setReply(rep)
	fault := newFrameFault(up, ff, byteByByte)
	m.setStreamPlan(streamPlan{fault: fault})
	want := buildStream(up, up.defaultModel(), rep).sentText

	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	res, err := c.stream(ctx, env.plain[up], sharedConversation(c.protocol().defaultModel()), streamOptions{})
	cp := c.protocol()
	if err == nil {
		t.Fatalf("the client's SDK reported a clean completion (text %q, stop %q); want an error after the text", res.Text, res.Stop)
	}
	if ctx.Err() != nil {
		t.Fatalf("the client's stream never ended; it failed only at the test's deadline: %s", describeStreamErr(err))
	}
	if res.Text != want {
		t.Errorf("text before the error = %q, want %q (all the text the upstream sent before its broken message)", res.Text, want)
	}
	if !isInStreamError(cp, err) {
		t.Errorf("the client got %s; want its protocol's in-stream error", describeStreamErr(err))
	}
}

func runAWSFaultPromptness(t *testing.T, env *testEnv, cp, up proto, ff awsFrameFault) {
	m := env.mocks[up]
	m.setReply(failureReply(up))
	fault := newFrameFault(up, ff, false)
	m.setStreamPlan(streamPlan{fault: fault})

	req := newClientStreamRequest(t, env.plain[up], cp)
	ctx, cancel := context.WithTimeout(req.Context(), callTimeout)
	defer cancel()
	resp, err := (&http.Client{Transport: sdkTransport}).Do(req.WithContext(ctx))
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(resp.Body)
	ended := time.Now()
	resp.Body.Close()
	if err != nil {
		t.Fatalf("the client's response did not end properly: %v after %d bytes", err, len(body))
	}
	if resp.StatusCode != http.StatusOK || len(body) == 0 {
		t.Fatalf("status %d, %d bytes", resp.StatusCode, len(body))
	}
	var sent time.Time
	select {
	case sent = <-fault.sent:
	case <-time.After(time.Second):
		t.Fatal("the mock did not report sending its fault")
	}
	if d := ended.Sub(sent); d > faultPromptness {
		t.Errorf("the client's response ended %v after the broken message, want at most %v", d, faultPromptness)
	}
	select {
	case held := <-fault.held:
		if held >= faultHold {
			t.Errorf("llmbridge kept reading the upstream for the whole %v hold", faultHold)
		}
	case <-time.After(2 * time.Second):
		t.Error("llmbridge did not close the upstream connection after the broken message")
	}
	if !bytes.Contains(body, []byte("rror")) && !bytes.Contains(body, []byte("xception")) {
		t.Errorf("the client's stream does not carry an error:\n%q", body)
	}
}
