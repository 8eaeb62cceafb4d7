package caddytest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	caddytester "github.com/caddyserver/caddy/v2/caddytest"
)

// perfModeHeader tells the benchmark mock how to answer: perfModeJSON (or
// no header) for one JSON body, "sse-N" for a stream of N text deltas, and
// perfModeHold for a stream that stops after its first event until the
// test releases it. Caddy and llmbridge forward it unchanged.
const perfModeHeader = "X-Perf-Mode"

// perfGateHeader names a gate (perfMock.gates) that a streamed answer
// waits at after its first event: the client opens it once it has read
// that event's first byte. The time to first event is then the pipeline's
// latency for one event, not a matter of which goroutine the scheduler
// runs while a whole stream is pouring through; the rest of the stream
// follows at full speed.
const perfGateHeader = "X-Perf-Gate"

// Modes of the benchmark mock.
const (
	perfModeJSON = "json"
	perfModeHold = "hold"
)

// perfModeJSONSized, followed by a byte count, is the mode of one JSON
// answer of about that size (perfSizedMode).
const perfModeJSONSized = "json-"

// perfSizedMode is the mode of a JSON answer of about n bytes.
func perfSizedMode(n int) string { return perfModeJSONSized + strconv.Itoa(n) }

// perfStreamMode is the mode of a stream of n text deltas.
func perfStreamMode(n int) string { return "sse-" + strconv.Itoa(n) }

// perfAnswer is the assistant text of every non-streamed answer: a short
// paragraph, as a chat answer usually is.
var perfAnswer = strings.Repeat("The tests pass now; the fix was a missing \"nil\" check in the parser.\n", 6)

// perfDelta is the text of every streamed text-delta event.
const perfDelta = " token"

// perfHoldTimeout bounds how long a held stream waits for its release.
const perfHoldTimeout = time.Minute

// perfMock is the benchmark upstream: an OpenAI Chat Completions server
// that answers any request of the protocol at once with a fixed,
// precomputed body of the right shape. It reads and discards the request
// body and does no validation, so that it costs the same on both sides.
type perfMock struct {
	srv *http.Server
	ln  net.Listener

	jsonBody []byte
	// streams holds the precomputed events of each "sse-N" mode
	// (map[string][][]byte), built on first use.
	streams sync.Map
	// sized holds the JSON answers of each "json-N" mode
	// (map[string][]byte), built on first use.
	sized sync.Map
	// holdFirst and holdRest are the held stream's first event and the
	// rest of it.
	holdFirst, holdRest []byte
	// release is closed to let every held stream go on; swapped for a
	// new channel before each hold run.
	release atomic.Pointer[chan struct{}]
	// held counts the streams currently waiting for their release.
	held atomic.Int64

	// gates holds the open gates of streamed answers by name
	// (map[string]chan struct{}).
	gates sync.Map

	// capture, when set, receives a copy of each request body (used only
	// by the correctness check before measuring).
	capture atomic.Pointer[chan []byte]

	// conns tracks the server's connections, to close idle ones between
	// memory measurements.
	mu    sync.Mutex
	conns map[net.Conn]http.ConnState
}

// newPerfMock starts the benchmark upstream on a free loopback port.
func newPerfMock() (*perfMock, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	m := &perfMock{ln: ln, conns: map[net.Conn]http.ConnState{}}
	m.jsonBody = perfChatAnswer(perfAnswer)
	m.holdFirst = perfChunk(`{"role":"assistant","content":"Hi"}`, "null")
	rest := perfStreamEvents(0)
	m.holdRest = bytes.Join(rest[1:], nil)
	ch := make(chan struct{})
	m.release.Store(&ch)
	m.srv = &http.Server{
		Handler:           http.HandlerFunc(m.serveHTTP),
		ReadHeaderTimeout: 10 * time.Second,
		ConnState: func(c net.Conn, s http.ConnState) {
			m.mu.Lock()
			defer m.mu.Unlock()
			if s == http.StateClosed || s == http.StateHijacked {
				delete(m.conns, c)
			} else {
				m.conns[c] = s
			}
		},
	}
	go func() { _ = m.srv.Serve(ln) }()
	return m, nil
}

// addr is the mock's host:port.
func (m *perfMock) addr() string { return m.ln.Addr().String() }

// perfChunk is one Chat Completions stream event with delta and
// finish_reason (JSON) in its only choice.
func perfChunk(delta, finish string) []byte {
	return fmt.Appendf(nil, `data: {"id":"chatcmpl-perf","object":"chat.completion.chunk","created":1767225600,"model":%q,"system_fingerprint":"fp_perf",`+
		`"choices":[{"index":0,"delta":%s,"logprobs":null,"finish_reason":%s}]}`+"\n\n", perfModel, delta, finish)
}

// perfStreamEvents is a Chat Completions stream of n text deltas, event by
// event: the role, n deltas of perfDelta, the finish reason, the usage
// (stream_options.include_usage) and [DONE].
func perfStreamEvents(n int) [][]byte {
	evs := [][]byte{perfChunk(`{"role":"assistant","content":""}`, "null")}
	for range n {
		evs = append(evs, perfChunk(`{"content":`+string(mustJSON(perfDelta))+`}`, "null"))
	}
	return append(evs,
		perfChunk(`{}`, `"stop"`),
		fmt.Appendf(nil, `data: {"id":"chatcmpl-perf","object":"chat.completion.chunk","created":1767225600,"model":%q,"system_fingerprint":"fp_perf",`+
			`"choices":[],"usage":{"prompt_tokens":1500,"completion_tokens":%d,"total_tokens":%d}}`+"\n\n", perfModel, n, 1500+n),
		[]byte("data: [DONE]\n\n"))
}

// streamFor returns the precomputed events of mode "sse-N".
func (m *perfMock) streamFor(mode string) ([][]byte, bool) {
	if v, ok := m.streams.Load(mode); ok {
		return v.([][]byte), true
	}
	n, err := strconv.Atoi(strings.TrimPrefix(mode, "sse-"))
	if err != nil || n < 0 || !strings.HasPrefix(mode, "sse-") {
		return nil, false
	}
	v, _ := m.streams.LoadOrStore(mode, perfStreamEvents(n))
	return v.([][]byte), true
}

// perfChatAnswer is the mock's non-streamed Chat Completions answer with
// assistant text text.
func perfChatAnswer(text string) []byte {
	return fmt.Appendf(nil, `{"id":"chatcmpl-perf","object":"chat.completion","created":1767225600,"model":%q,`+
		`"choices":[{"index":0,"message":{"role":"assistant","content":%s,"refusal":null},"logprobs":null,"finish_reason":"stop"}],`+
		`"usage":{"prompt_tokens":1500,"completion_tokens":80,"total_tokens":1580},"system_fingerprint":"fp_perf"}`,
		perfModel, mustJSON(text))
}

// sizedBody returns the JSON answer of a perfSizedMode mode: a Chat
// completion whose text pads it to about the size the mode names, built
// on first use.
func (m *perfMock) sizedBody(mode string) ([]byte, bool) {
	if v, ok := m.sized.Load(mode); ok {
		return v.([]byte), true
	}
	n, err := strconv.Atoi(strings.TrimPrefix(mode, perfModeJSONSized))
	if err != nil || n < 0 || n > 64<<20 {
		return nil, false
	}
	text := strings.Repeat("The quick brown fox jumps over the lazy dog.\n", max(1, (n-len(m.jsonBody))/46+1))
	v, _ := m.sized.LoadOrStore(mode, perfChatAnswer(text))
	return v.([]byte), true
}

// serveHTTP answers one request in the mode its perfModeHeader names.
func (m *perfMock) serveHTTP(w http.ResponseWriter, r *http.Request) {
	if c := m.capture.Load(); c != nil {
		b, _ := io.ReadAll(r.Body)
		select {
		case *c <- b:
		default:
		}
	} else {
		_, _ = io.Copy(io.Discard, r.Body)
	}
	mode := r.Header.Get(perfModeHeader)
	hdr := w.Header()
	switch {
	case mode == "" || mode == perfModeJSON || strings.HasPrefix(mode, perfModeJSONSized):
		body := m.jsonBody
		if mode != "" && mode != perfModeJSON {
			var ok bool
			if body, ok = m.sizedBody(mode); !ok {
				http.Error(w, "unknown "+perfModeHeader, http.StatusBadRequest)
				return
			}
		}
		hdr["Content-Type"] = []string{"application/json"}
		hdr["Content-Length"] = []string{strconv.Itoa(len(body))}
		_, _ = w.Write(body)
	case mode == perfModeHold:
		release := *m.release.Load()
		hdr["Content-Type"] = []string{"text/event-stream"}
		hdr["Cache-Control"] = []string{"no-cache"}
		rc := http.NewResponseController(w)
		_, _ = w.Write(m.holdFirst)
		_ = rc.Flush()
		m.held.Add(1)
		timer := time.NewTimer(perfHoldTimeout)
		select {
		case <-release:
		case <-r.Context().Done():
		case <-timer.C:
		}
		timer.Stop()
		m.held.Add(-1)
		_, _ = w.Write(m.holdRest)
	default:
		evs, ok := m.streamFor(mode)
		if !ok {
			http.Error(w, "unknown "+perfModeHeader, http.StatusBadRequest)
			return
		}
		hdr["Content-Type"] = []string{"text/event-stream"}
		hdr["Cache-Control"] = []string{"no-cache"}
		rc := http.NewResponseController(w)
		for i, ev := range evs {
			if i == 1 {
				m.wait(r)
			}
			if _, err := w.Write(ev); err != nil {
				return
			}
			if err := rc.Flush(); err != nil {
				return
			}
		}
	}
}

// wait waits at the request's gate, if it names one, until the client opens
// it or the request ends.
func (m *perfMock) wait(r *http.Request) {
	g, ok := m.gates.Load(r.Header.Get(perfGateHeader))
	if !ok {
		return
	}
	timer := time.NewTimer(perfHoldTimeout)
	defer timer.Stop()
	select {
	case <-g.(chan struct{}):
	case <-r.Context().Done():
	case <-timer.C:
	}
}

// releaseHeld lets every held stream finish and arms a new hold for the
// next run.
func (m *perfMock) releaseHeld() {
	ch := make(chan struct{})
	old := m.release.Swap(&ch)
	close(*old)
}

// closeIdle closes the mock's idle keep-alive connections, which closes
// Caddy's upstream end of them.
func (m *perfMock) closeIdle() {
	m.mu.Lock()
	defer m.mu.Unlock()
	for c, s := range m.conns {
		if s == http.StateIdle {
			_ = c.Close()
		}
	}
}

// perfSide is one of the two ways through Caddy the benchmark compares, or
// straight to the mock (used only as the memory baseline).
type perfSide int

const (
	sidePlain  perfSide = iota // openai-chat client, plain reverse_proxy
	sideBridge                 // anthropic-messages client, llmbridge + reverse_proxy
	sideDirect                 // openai-chat client, straight to the mock
	// sidePassthrough is an openai-chat client on the llmbridge site,
	// whose upstream speaks openai-chat too: llmbridge's cost when it has
	// nothing to translate (benchmarks only).
	sidePassthrough
)

// String names the side as the table and the sub-benchmarks do.
func (s perfSide) String() string {
	return [...]string{"plain", "bridge", "direct", "passthrough"}[s]
}

// perfEnv is the Caddy configuration of the benchmark (two sites in the
// one in-process Caddy) and its mock.
type perfEnv struct {
	mock      *perfMock
	adminPort int
	caddyfile string
	// url is each side's full request URL.
	url [4]string
	// header is each side's request headers, without the mode; requests
	// share these maps, which the client transport only reads.
	header [4]http.Header
	// client is a keep-alive client with room for the 1,000-stream run.
	client *http.Client
	// gateSeq names the gates of streamed requests.
	gateSeq atomic.Int64
}

var (
	perfOnce      sync.Once
	sharedPerfEnv *perfEnv
	perfErr       error
)

// perfSetup returns the benchmark environment after loading its
// Caddyfile into the test binary's one Caddy (the admin API of the shared
// integration environment). The integration tests load their own
// Caddyfile again when they run.
func perfSetup(tb testing.TB) *perfEnv {
	tb.Helper()
	envOnce.Do(func() { sharedEnv, envErr = newTestEnv() })
	if envErr != nil {
		tb.Fatalf("setting up the test environment: %v", envErr)
	}
	perfOnce.Do(func() { sharedPerfEnv, perfErr = newPerfEnv(sharedEnv.adminPort) })
	if perfErr != nil {
		tb.Fatalf("setting up the benchmark environment: %v", perfErr)
	}
	e := sharedPerfEnv
	tester := caddytester.NewTester(tb).WithDefaultOverrides(caddytester.Config{AdminPort: e.adminPort})
	tester.InitServer(e.caddyfile, "caddyfile")
	if tb.Failed() {
		tb.FailNow()
	}
	return e
}

// newPerfEnv starts the mock and writes the Caddyfile of the two sites,
// with the admin API on adminPort.
func newPerfEnv(adminPort int) (*perfEnv, error) {
	mock, err := newPerfMock()
	if err != nil {
		return nil, err
	}
	ports, err := freePorts(4)
	if err != nil {
		return nil, err
	}
	e := &perfEnv{mock: mock, adminPort: adminPort}
	// Both sites without a log directive: no access log. No host in the
	// site address: no host matcher.
	e.caddyfile = fmt.Sprintf(`{
	admin localhost:%d
	http_port %d
	https_port %d
	grace_period 1ns
}

http://:%d {
	reverse_proxy %s
}

http://:%d {
	llmbridge {
		upstream openai-chat
	}
	reverse_proxy %s
}
`, adminPort, ports[0], ports[1], ports[2], mock.addr(), ports[3], mock.addr())
	e.url[sidePlain] = fmt.Sprintf("http://127.0.0.1:%d/v1/chat/completions", ports[2])
	e.url[sideBridge] = fmt.Sprintf("http://127.0.0.1:%d/v1/messages", ports[3])
	e.url[sideDirect] = "http://" + mock.addr() + "/v1/chat/completions"
	e.url[sidePassthrough] = fmt.Sprintf("http://127.0.0.1:%d/v1/chat/completions", ports[3])
	chat := http.Header{"Content-Type": {"application/json"}, "Authorization": {"Bearer perf-key"}}
	e.header[sidePlain] = chat
	e.header[sideDirect] = chat
	e.header[sidePassthrough] = chat
	e.header[sideBridge] = http.Header{"Content-Type": {"application/json"}, "X-Api-Key": {"perf-key"}, "Anthropic-Version": {"2023-06-01"}}
	tr := &http.Transport{
		DisableCompression:  true,
		MaxIdleConns:        0,
		MaxIdleConnsPerHost: 2048,
		IdleConnTimeout:     time.Minute,
	}
	e.client = &http.Client{Transport: tr}
	return e, nil
}

// perfRequest is one request the benchmark sends on a side: the body for
// that side's protocol and the mode the mock answers it in.
type perfRequest struct {
	side perfSide
	body []byte
	// header is the side's headers with the mode.
	header http.Header
	// want is a byte string the (end of the) answer must contain.
	want []byte
	// gated makes the mock wait after the first event of a streamed
	// answer until the client has read it (perfGateHeader).
	gated bool
}

// request builds the request of side for a conversation, streamed or not,
// answered by the mock in mode.
func (e *perfEnv) request(side perfSide, c perfConversation, stream bool, mode string) perfRequest {
	r := perfRequest{side: side, header: e.header[side].Clone(), gated: stream && mode != perfModeHold}
	r.header.Set(perfModeHeader, mode)
	if side == sideBridge {
		r.body = c.anthropicBody(stream)
	} else {
		r.body = c.chatBody(stream)
	}
	switch {
	case !stream && side == sideBridge:
		r.want = []byte(`"end_turn"`)
	case !stream:
		r.want = []byte(`"finish_reason":"stop"`)
	case side == sideBridge:
		r.want = []byte("message_stop")
	default:
		r.want = []byte("[DONE]")
	}
	return r
}

// perfTimes are the moments of one request, from before it is sent.
type perfTimes struct {
	// first is when the first byte of the response body was read (for a
	// stream: the first byte of its first event).
	first time.Duration
	// total is when the response body had been read to its end.
	total time.Duration
}

// errPerfAnswer reports a response that is not the expected answer.
var errPerfAnswer = errors.New("unexpected answer")

// do sends r once, reads the whole answer into buf (grown as needed) and
// returns its timings and the body read.
func (e *perfEnv) do(r *perfRequest, buf []byte) (perfTimes, []byte, error) {
	req, err := http.NewRequest(http.MethodPost, e.url[r.side], bytes.NewReader(r.body))
	if err != nil {
		return perfTimes{}, buf, err
	}
	req.Header = r.header
	var gate chan struct{}
	if r.gated {
		name := strconv.FormatInt(e.gateSeq.Add(1), 10)
		gate = make(chan struct{})
		e.mock.gates.Store(name, gate)
		defer e.mock.gates.Delete(name)
		req.Header = r.header.Clone()
		req.Header.Set(perfGateHeader, name)
	}
	open := func() {
		if gate != nil {
			close(gate)
			gate = nil
		}
	}
	defer open()
	start := time.Now()
	resp, err := e.client.Do(req)
	if err != nil {
		return perfTimes{}, buf, err
	}
	defer resp.Body.Close()
	var t perfTimes
	buf = buf[:0]
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := resp.Body.Read(buf[len(buf):cap(buf)])
		if n > 0 && len(buf) == 0 {
			t.first = time.Since(start)
			open()
		}
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			return t, buf, err
		}
	}
	t.total = time.Since(start)
	if resp.StatusCode != http.StatusOK {
		return t, buf, fmt.Errorf("%w: HTTP %d: %.300s", errPerfAnswer, resp.StatusCode, buf)
	}
	if tail := buf[max(0, len(buf)-300):]; !bytes.Contains(tail, r.want) {
		return t, buf, fmt.Errorf("%w: %q not at the end of: %.300s", errPerfAnswer, r.want, buf)
	}
	return t, buf, nil
}
