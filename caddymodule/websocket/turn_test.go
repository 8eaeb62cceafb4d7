package websocket

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	ws "github.com/coder/websocket"
	"github.com/tidwall/gjson"

	"github.com/llmbridge/llmbridge/internal/wstest"
)

// TestContinues continues the connection's last response by its id: the
// host gets the whole conversation as input, without
// previous_response_id; another id goes on in the request.
func TestContinues(t *testing.T) {
	var bodies []string
	var n atomic.Int32
	_, site := newSite(t, testConfig, func(w http.ResponseWriter, r *http.Request) error {
		b, _ := io.ReadAll(r.Body)
		bodies = append(bodies, string(b))
		return answer(w, "resp_"+strconv.Itoa(int(n.Add(1))), "Hi")
	})
	c := wstest.Dial(t, site.URL, nil, 5*time.Second)
	wstest.Send(t, c, `{"type":"response.create","model":"m","store":false,"input":"one"}`)
	first := wstest.Turn(t, c)
	id := first[len(first)-1].Get("response.id").Str
	wstest.Send(t, c, `{"type":"response.create","model":"m","store":false,"previous_response_id":"`+id+`","input":[{"type":"message","role":"user","content":"two"}]}`)
	wstest.Turn(t, c)
	wstest.Send(t, c, `{"type":"response.create","model":"m","previous_response_id":"resp_elsewhere","input":"three"}`)
	wstest.Turn(t, c)
	continued := gjson.Get(bodies[1], "input")
	if len(continued.Array()) != 3 || gjson.Get(bodies[1], "previous_response_id").Exists() || continued.Get("1.role").Str != "assistant" {
		t.Errorf("the continued turn's body: %s", bodies[1])
	}
	if gjson.Get(bodies[2], "previous_response_id").Str != "resp_elsewhere" {
		t.Errorf("a turn naming another response: %s", bodies[2])
	}
}

// TestPrewarm answers a response.create with generate false without
// serving a turn, and continues from it.
func TestPrewarm(t *testing.T) {
	var bodies []string
	_, site := newSite(t, testConfig, func(w http.ResponseWriter, r *http.Request) error {
		b, _ := io.ReadAll(r.Body)
		bodies = append(bodies, string(b))
		return answer(w, "resp_1", "Hi")
	})
	c := wstest.Dial(t, site.URL, nil, 5*time.Second)
	wstest.Send(t, c, `{"type":"response.create","model":"m","generate":false,"store":false,"input":[{"type":"message","role":"developer","content":"Be brief."}]}`)
	events := wstest.Turn(t, c)
	done := events[len(events)-1]
	if len(events) != 2 || done.Get("type").Str != "response.completed" || done.Get("response.model").Str != "m" ||
		len(done.Get("response.output").Array()) != 0 || len(bodies) != 0 {
		t.Fatalf("prewarm: %v; host called %d times", events, len(bodies))
	}
	wstest.Send(t, c, `{"type":"response.create","model":"m","store":false,"previous_response_id":"`+done.Get("response.id").Str+`","input":"Weather?"}`)
	wstest.Turn(t, c)
	if len(bodies) != 1 || gjson.Get(bodies[0], "input.0.role").Str != "developer" || len(gjson.Get(bodies[0], "input").Array()) != 2 {
		t.Fatalf("the host got %v", bodies)
	}
	// A prewarm without a model names none.
	wstest.Send(t, c, `{"type":"response.create","generate":false}`)
	if ev := wstest.Turn(t, c)[1]; ev.Get("response.model").Str != "" || !ev.Get("response.model").Exists() {
		t.Errorf("a prewarm without a model: %s", ev.Raw)
	}
}

// TestMemoryBound holds the connections' last conversations to the
// memory limit together: past it a connection keeps none, and its next
// continuation goes on to the host, which knows no such response; a
// connection that closes gives its memory back.
func TestMemoryBound(t *testing.T) {
	var n atomic.Int32
	srv, site := newSite(t, Config{MaxFrameSize: 32 << 20, MaxEventSize: 1 << 20, MaxAnswerSize: 1 << 20, MaxMemory: 6000}, func(w http.ResponseWriter, r *http.Request) error {
		if b, _ := io.ReadAll(r.Body); gjson.GetBytes(b, "previous_response_id").Exists() {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			_, err := io.WriteString(w, `{"error":{"type":"invalid_request_error","code":"previous_response_not_found","message":"not found"}}`)
			return err
		}
		return answer(w, "resp_"+strconv.Itoa(int(n.Add(1))), "Hi")
	})
	turn := func(c *ws.Conn, prev string) gjson.Result {
		frame := `{"type":"response.create","model":"m","store":false,"input":"` + strings.Repeat("a", 2000) + `"`
		if prev != "" {
			frame += `,"previous_response_id":"` + prev + `"`
		}
		wstest.Send(t, c, frame+"}")
		events := wstest.Turn(t, c)
		return events[len(events)-1]
	}
	a, b := wstest.Dial(t, site.URL, nil, 5*time.Second), wstest.Dial(t, site.URL, nil, 5*time.Second)
	idA := turn(a, "").Get("response.id").Str
	if next := turn(a, idA); next.Get("type").Str != "response.completed" {
		t.Fatalf("a continued within the bound: %s", next.Raw)
	}
	idB := turn(b, "").Get("response.id").Str
	if ev := turn(b, idB); ev.Get("error.code").Str != "previous_response_not_found" || ev.Get("status").Int() != 400 {
		t.Fatalf("b continued past the bound: %s", ev.Raw)
	}
	_ = a.Close(ws.StatusNormalClosure, "")
	deadline := time.Now().Add(5 * time.Second)
	for srv.held.Load() > 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := srv.held.Load(); n != 0 {
		t.Errorf("%d bytes held with no conversation kept", n)
	}
}

// TestSlowReader streams a long answer to a client that stops reading:
// the host's writes wait for it (what is in flight stays within the
// kernel's socket buffers), and the turn completes once it reads again.
func TestSlowReader(t *testing.T) {
	const events, size = 2000, 8 << 10 // 16 MiB of text, more than the socket buffers hold
	var written atomic.Int64
	_, site := newSite(t, testConfig, func(w http.ResponseWriter, r *http.Request) error {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(200)
		_, _ = io.WriteString(w, "event: response.created\ndata: {\"type\":\"response.created\",\"response\":{\"id\":\"r\",\"status\":\"in_progress\",\"output\":[]}}\n\n")
		delta := "event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"delta\":\"" + strings.Repeat("y", size) + "\"}\n\n"
		for range events {
			if _, err := io.WriteString(w, delta); err != nil {
				return err
			}
			written.Add(int64(len(delta)))
		}
		_, err := io.WriteString(w, "event: response.completed\ndata: {\"type\":\"response.completed\",\"response\":{\"id\":\"r\",\"status\":\"completed\",\"output\":[]}}\n\n")
		return err
	})
	c := wstest.Dial(t, site.URL, nil, 5*time.Second)
	wstest.Send(t, c, `{"type":"response.create","model":"m","input":"A long story."}`)
	time.Sleep(500 * time.Millisecond)
	if n := written.Load(); n > 12<<20 {
		t.Errorf("the host wrote %d MiB to a client that read nothing", n>>20)
	}
	t.Logf("in flight to a client that stopped reading: %d KiB", written.Load()>>10)
	got := wstest.TurnWithin(t, c, time.Minute)
	if last := got[len(got)-1]; last.Get("type").Str != "response.completed" || len(got) < events {
		t.Fatalf("%d events, the last %.200s", len(got), last.Raw)
	}
}

// TestTurnAnswers holds what a turn sends for each kind of answer its
// host gives: a response not streamed becomes response.completed, an
// error body its error event, anything else an error event of the status,
// no answer at all a 502, an event past the limit or a panic the end of
// the turn without one.
func TestTurnAnswers(t *testing.T) {
	for _, tc := range []struct {
		name   string
		answer func(w http.ResponseWriter) error
		check  func(ev gjson.Result) bool
	}{
		{"not streamed", func(w http.ResponseWriter) error {
			w.Header().Set("Content-Type", "application/json")
			_, err := io.WriteString(w, `{"id":"resp_j","object":"response","status":"completed","output":[]}`)
			return err
		}, func(ev gjson.Result) bool {
			return ev.Get("type").Str == "response.completed" && ev.Get("response.id").Str == "resp_j"
		}},
		{"error object", func(w http.ResponseWriter) error {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusTooManyRequests)
			_, err := io.WriteString(w, `{"error":{"type":"rate_limit_error","message":"slow down"}}`)
			return err
		}, func(ev gjson.Result) bool {
			return ev.Get("type").Str == "error" && ev.Get("status").Int() == 429 && ev.Get("error.message").Str == "slow down"
		}},
		{"status only", func(w http.ResponseWriter) error {
			w.WriteHeader(http.StatusServiceUnavailable)
			_, err := io.WriteString(w, "down")
			return err
		}, func(ev gjson.Result) bool {
			return ev.Get("type").Str == "error" && ev.Get("status").Int() == 503
		}},
		{"no answer", func(w http.ResponseWriter) error { return errors.New("no upstream") },
			func(ev gjson.Result) bool {
				return ev.Get("type").Str == "error" && ev.Get("status").Int() == 502
			}},
		{"informational status ignored", func(w http.ResponseWriter) error {
			w.WriteHeader(http.StatusEarlyHints)
			return answer(w, "resp_h", "Hi")
		}, func(ev gjson.Result) bool { return ev.Get("type").Str == "response.created" }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, site := newSite(t, testConfig, func(w http.ResponseWriter, r *http.Request) error { return tc.answer(w) })
			c := wstest.Dial(t, site.URL, nil, 5*time.Second)
			wstest.Send(t, c, `{"type":"response.create","model":"m","input":"hi"}`)
			if ev := wstest.Turn(t, c)[0]; !tc.check(ev) {
				t.Fatalf("got %s", ev.Raw)
			}
		})
	}
}

// TestTurnEnds ends turns that cannot be answered (a panic in the host, an
// event past the limit) without an event, and serves the next turn.
func TestTurnEnds(t *testing.T) {
	var n atomic.Int32
	_, site := newSite(t, Config{MaxFrameSize: 4096, MaxEventSize: 1024, MaxAnswerSize: 1 << 20, MaxMemory: 1 << 20}, func(w http.ResponseWriter, r *http.Request) error {
		switch n.Add(1) {
		case 1:
			panic("the host failed")
		case 2:
			panic(http.ErrAbortHandler)
		case 3:
			w.Header().Set("Content-Type", "text/event-stream")
			_, err := io.WriteString(w, "data: {\"type\":\"response.output_text.delta\",\"delta\":\""+strings.Repeat("y", 2048)+"\"}\n\n")
			if err == nil {
				return errors.New("an oversized event was taken")
			}
			return nil
		}
		return answer(w, "resp_ok", "Hi")
	})
	c := wstest.Dial(t, site.URL, nil, 5*time.Second)
	for range 4 {
		wstest.Send(t, c, `{"type":"response.create","model":"m","input":"hi"}`)
	}
	events := wstest.Turn(t, c)
	if last := events[len(events)-1]; last.Get("response.id").Str != "resp_ok" {
		t.Fatalf("after the failed turns: %v", events)
	}
}

func TestDropSocketBeta(t *testing.T) {
	for _, tc := range []struct{ in, want []string }{
		{nil, nil},
		{[]string{"responses_websockets=2026-02-06"}, nil},
		{[]string{"responses_websockets=2026-02-06, assistants=v2"}, []string{"assistants=v2"}},
		{[]string{"assistants=v2", "responses_websockets=2026-02-06"}, []string{"assistants=v2"}},
	} {
		hdr := http.Header{}
		for _, v := range tc.in {
			hdr.Add("OpenAI-Beta", v)
		}
		dropSocketBeta(hdr)
		if got := hdr.Values("OpenAI-Beta"); strings.Join(got, "|") != strings.Join(tc.want, "|") {
			t.Errorf("%q: %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestHandshake tells a WebSocket upgrade from other requests and a valid
// handshake from one that is not.
func TestHandshake(t *testing.T) {
	r, _ := http.NewRequestWithContext(context.Background(), http.MethodGet, "/v1/responses", nil)
	if IsUpgrade(r) {
		t.Error("a GET without Upgrade is an upgrade")
	}
	r.Header.Set("Upgrade", "WebSocket")
	if !IsUpgrade(r) || Handshake(r) == nil {
		t.Error("Upgrade alone: not an upgrade, or a valid handshake")
	}
	r.Header.Set("Connection", "keep-alive, Upgrade")
	r.Header.Set("Sec-WebSocket-Version", "13")
	r.Header.Set("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ==")
	if Handshake(r) != nil {
		t.Error("a valid handshake refused")
	}
	r.Header.Set("Sec-WebSocket-Version", "8")
	if Handshake(r) == nil {
		t.Error("version 8 accepted")
	}
}
