package websocket

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	ws "github.com/coder/websocket"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/tidwall/gjson"
	"go.uber.org/zap"

	// The error events are written in the Responses family's format,
	// which the handler package registers with every family.
	_ "github.com/llmbridge/llmbridge/codec/all"
	"github.com/llmbridge/llmbridge/internal/wstest"
)

// hostFunc is a Host that answers every turn itself, as the handler
// would after its upstream answered.
type hostFunc func(w http.ResponseWriter, r *http.Request) error

// ServeHTTP answers the turn r.
func (f hostFunc) ServeHTTP(w http.ResponseWriter, r *http.Request, _ caddyhttp.Handler) error {
	return f(w, r)
}

// testConfig has a handler's default limits.
var testConfig = Config{MaxFrameSize: 32 << 20, MaxEventSize: 64 << 20, MaxAnswerSize: 64 << 20, MaxMemory: 64 << 20}

// socketSite serves srv's sockets over HTTP on every path.
func socketSite(t testing.TB, srv *Server) *httptest.Server {
	t.Helper()
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if cerr := Handshake(r); !IsUpgrade(r) || cerr != nil {
			http.Error(w, "not a WebSocket handshake", http.StatusBadRequest)
			return
		}
		srv.Serve(w, r, nil)
	}))
	t.Cleanup(site.Close)
	return site
}

// newSite serves the sockets of a Server of host with cfg, logging
// nothing.
func newSite(t testing.TB, cfg Config, host hostFunc) (*Server, *httptest.Server) {
	t.Helper()
	cfg.Logger = zap.NewNop()
	srv := New(host, cfg)
	return srv, socketSite(t, srv)
}

// answer writes a completed Responses stream whose response is id and
// whose output is one message saying text.
func answer(w http.ResponseWriter, id, text string) error {
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	output := `[{"type":"message","id":"msg_` + id + `","role":"assistant","content":[{"type":"output_text","text":` + strconv.Quote(text) + `}]}]`
	_, err := io.WriteString(w, "event: response.created\ndata: {\"type\":\"response.created\",\"response\":{\"id\":\""+id+"\",\"status\":\"in_progress\",\"output\":[]}}\n\n"+
		"event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"delta\":"+strconv.Quote(text)+"}\n\n"+
		"event: response.completed\ndata: {\"type\":\"response.completed\",\"response\":{\"id\":\""+id+"\",\"status\":\"completed\",\"output\":"+output+"}}\n\n"+
		"data: [DONE]\n\n")
	return err
}

// closedWith waits for the server's close of c and returns its status.
func closedWith(t *testing.T, c *ws.Conn) ws.StatusCode {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, _, err := c.Read(ctx)
	return ws.CloseStatus(err)
}

// TestRefusals sends what a socket refuses: each is answered with an
// error event in OpenAI's format, and the connection stays usable unless
// the refusal closes it. A turn the host refuses is its error event.
func TestRefusals(t *testing.T) {
	var n atomic.Int32
	_, site := newSite(t, Config{MaxFrameSize: 4096, MaxEventSize: 1 << 20, MaxAnswerSize: 1 << 20, MaxMemory: 1 << 20}, func(w http.ResponseWriter, r *http.Request) error {
		if body, _ := io.ReadAll(r.Body); gjson.GetBytes(body, "bogus").Exists() {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			_, err := io.WriteString(w, `{"error":{"type":"invalid_request_error","code":"unknown_parameter","message":"bogus"}}`)
			return err
		}
		return answer(w, "resp_"+strconv.Itoa(int(n.Add(1))), "Hi")
	})
	for _, tc := range []struct {
		name   string
		frame  string
		binary bool
		code   string // error.code, or error.type when it has no code
		closes ws.StatusCode
	}{
		{"not JSON", `hello`, false, "invalid_request_error", 0},
		{"not an object", `[1]`, false, "invalid_request_error", 0},
		{"unknown event type", `{"type":"response.cancel"}`, false, "invalid_request_error", 0},
		{"background", `{"type":"response.create","model":"m","background":true,"input":"hi"}`, false, "invalid_request_error", 0},
		{"stream_id", `{"type":"response.create","model":"m","stream_id":"s2","input":"hi"}`, false, "invalid_request_error", 0},
		{"refused by the host", `{"type":"response.create","model":"m","input":"hi","bogus":1}`, false, "unknown_parameter", 0},
		{"binary frame", `{"type":"response.create"}`, true, "invalid_request_error", ws.StatusUnsupportedData},
		{"oversized frame", `{"type":"response.create","input":"` + strings.Repeat("a", 5000) + `"}`, false, "invalid_request_error", ws.StatusMessageTooBig},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := wstest.Dial(t, site.URL, nil, 5*time.Second)
			typ := ws.MessageText
			if tc.binary {
				typ = ws.MessageBinary
			}
			if err := c.Write(context.Background(), typ, []byte(tc.frame)); err != nil {
				t.Fatal(err)
			}
			ev := wstest.Turn(t, c)[0]
			code := ev.Get("error.code").Str
			if code == "" {
				code = ev.Get("error.type").Str
			}
			if ev.Get("type").Str != "error" || code != tc.code || ev.Get("status").Int() < 400 || ev.Get("error.message").Str == "" {
				t.Fatalf("got %s, want an error event with code %s", ev.Raw, tc.code)
			}
			if tc.closes != 0 {
				if status := closedWith(t, c); status != tc.closes {
					t.Fatalf("closed with %v, want %v", status, tc.closes)
				}
				return
			}
			// Still usable.
			wstest.Send(t, c, `{"type":"response.create","model":"m","input":"hi"}`)
			if last := wstest.Turn(t, c); last[len(last)-1].Get("type").Str != "response.completed" {
				t.Fatalf("after the refusal: %s", last[len(last)-1].Raw)
			}
		})
	}
}

// TestQueuesTurns sends a second response.create while the first runs:
// it is answered after the first, in order.
func TestQueuesTurns(t *testing.T) {
	release := make(chan struct{})
	var calls atomic.Int32
	_, site := newSite(t, testConfig, func(w http.ResponseWriter, r *http.Request) error {
		n := calls.Add(1)
		if n == 1 {
			<-release
		}
		return answer(w, "resp_"+strconv.Itoa(int(n)), "turn "+strconv.Itoa(int(n)))
	})
	c := wstest.Dial(t, site.URL, nil, 5*time.Second)
	wstest.Send(t, c, `{"type":"response.create","model":"m","input":"one"}`)
	wstest.Send(t, c, `{"type":"response.create","model":"m","input":"two"}`)
	time.Sleep(50 * time.Millisecond)
	if n := calls.Load(); n != 1 {
		t.Errorf("%d turns served while the first runs, want 1", n)
	}
	close(release)
	for _, want := range []string{"turn 1", "turn 2"} {
		events := wstest.Turn(t, c)
		if got := events[len(events)-1].Get("response.output.0.content.0.text").Str; got != want {
			t.Errorf("answer %q, want %q", got, want)
		}
	}
}

// TestTurnRequest holds the request a turn is run as to a POST of the
// event's body with stream true, without the upgrade's headers and with
// the handshake's others.
func TestTurnRequest(t *testing.T) {
	seen := make(chan *http.Request, 1)
	bodies := make(chan string, 1)
	_, site := newSite(t, testConfig, func(w http.ResponseWriter, r *http.Request) error {
		body, _ := io.ReadAll(r.Body)
		seen <- r
		bodies <- string(body)
		return answer(w, "resp_1", "Hi")
	})
	c := wstest.Dial(t, site.URL, http.Header{"Authorization": {"Bearer sk-1"}, "OpenAI-Beta": {"responses_websockets=2026-02-06"}}, 5*time.Second)
	wstest.Send(t, c, `{"type":"response.create","model":"m","input":"hi"}`)
	wstest.Turn(t, c)
	r, body := <-seen, <-bodies
	if r.Method != http.MethodPost || r.Header.Get("Upgrade") != "" || r.Header.Get("Sec-WebSocket-Key") != "" || r.Header.Get("OpenAI-Beta") != "" ||
		r.Header.Get("Authorization") != "Bearer sk-1" || r.Header.Get("Accept") != "text/event-stream" || r.ContentLength != int64(len(body)) {
		t.Errorf("turn request %s %v", r.Method, r.Header)
	}
	if want := `{"stream":true,"model":"m","input":"hi"}`; body != want {
		t.Errorf("body %s, want %s", body, want)
	}
	if rc, err := r.GetBody(); err != nil {
		t.Error(err)
	} else if again, _ := io.ReadAll(rc); string(again) != body {
		t.Errorf("GetBody read %s", again)
	}
}

// TestClientGoneCancelsTurn closes the socket mid-answer: the turn's
// request is cancelled at once.
func TestClientGoneCancelsTurn(t *testing.T) {
	cancelled := make(chan struct{})
	_, site := newSite(t, testConfig, func(w http.ResponseWriter, r *http.Request) error {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(200)
		_, _ = io.WriteString(w, "event: response.created\ndata: {\"type\":\"response.created\",\"response\":{\"id\":\"r\",\"status\":\"in_progress\",\"output\":[]}}\n\n")
		<-r.Context().Done()
		close(cancelled)
		return r.Context().Err()
	})
	c := wstest.Dial(t, site.URL, nil, 5*time.Second)
	wstest.Send(t, c, `{"type":"response.create","model":"m","input":"one"}`)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, _, err := c.Read(ctx); err != nil { // response.created
		t.Fatal(err)
	}
	_ = c.CloseNow()
	select {
	case <-cancelled:
	case <-time.After(5 * time.Second):
		t.Fatal("the turn was not cancelled when the client went")
	}
}

// TestAgeLimit closes a connection at its age limit with OpenAI's error
// event.
func TestAgeLimit(t *testing.T) {
	srv, site := newSite(t, testConfig, func(w http.ResponseWriter, r *http.Request) error { return nil })
	srv.timings = socketTimings{maxAge: 200 * time.Millisecond, pingInterval: time.Hour, pingTimeout: time.Second}
	c := wstest.Dial(t, site.URL, nil, 5*time.Second)
	if ev := wstest.Turn(t, c)[0]; ev.Get("error.code").Str != "websocket_connection_limit_reached" {
		t.Fatalf("got %s", ev.Raw)
	}
	if status := closedWith(t, c); status != ws.StatusNormalClosure {
		t.Fatalf("closed with %v", status)
	}
}

// TestAgeLimitMidTurn reaches the age limit while a turn runs: the turn
// completes, then the client gets the limit's error event and the close.
func TestAgeLimitMidTurn(t *testing.T) {
	srv, site := newSite(t, testConfig, func(w http.ResponseWriter, r *http.Request) error {
		time.Sleep(300 * time.Millisecond)
		return answer(w, "resp_1", "late")
	})
	srv.timings = socketTimings{maxAge: 150 * time.Millisecond, pingInterval: time.Hour, pingTimeout: time.Second}
	c := wstest.Dial(t, site.URL, nil, 5*time.Second)
	wstest.Send(t, c, `{"type":"response.create","model":"m","input":"one"}`)
	events := wstest.Turn(t, c)
	if last := events[len(events)-1]; last.Get("type").Str != "response.completed" {
		t.Fatalf("the turn running at the limit ended with %s", last.Raw)
	}
	if ev := wstest.Turn(t, c)[0]; ev.Get("error.code").Str != "websocket_connection_limit_reached" {
		t.Fatalf("after the turn: %s", ev.Raw)
	}
	if status := closedWith(t, c); status != ws.StatusNormalClosure {
		t.Fatalf("closed with %v", status)
	}
}

// TestIdlePing keeps an idle connection whose client answers pings, and
// closes one whose client stopped reading.
func TestIdlePing(t *testing.T) {
	srv, site := newSite(t, testConfig, func(w http.ResponseWriter, r *http.Request) error { return nil })
	srv.timings = socketTimings{maxAge: time.Hour, pingInterval: 20 * time.Millisecond, pingTimeout: 100 * time.Millisecond}
	// A client that reads answers the pings: the connection stays open.
	alive := wstest.Dial(t, site.URL, nil, 5*time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	if _, _, err := alive.Read(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a reading client's connection ended: %v", err)
	}
	// A client that never reads answers no ping: the server closes it.
	silent := wstest.Dial(t, site.URL, nil, 5*time.Second)
	time.Sleep(500 * time.Millisecond)
	ctx2, cancel2 := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel2()
	if _, _, err := silent.Read(ctx2); err == nil || errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a silent client's connection is still open: %v", err)
	}
}

// TestConfigUnloaded closes the connections of a configuration that is
// unloaded with 1001, so that clients reconnect to the new one.
func TestConfigUnloaded(t *testing.T) {
	lifetime, unload := context.WithCancel(context.Background())
	defer unload()
	cfg := testConfig
	cfg.Logger, cfg.Lifetime = zap.NewNop(), lifetime
	srv := New(hostFunc(func(w http.ResponseWriter, r *http.Request) error { return nil }), cfg)
	site := socketSite(t, srv)
	c := wstest.Dial(t, site.URL, nil, 5*time.Second)
	time.Sleep(50 * time.Millisecond)
	unload()
	if status := closedWith(t, c); status != ws.StatusGoingAway {
		t.Fatalf("closed with %v, want 1001", status)
	}
}

// TestQueueBound refuses a frame that would queue more bytes than one
// frame may have behind the turn running.
func TestQueueBound(t *testing.T) {
	release := make(chan struct{})
	_, site := newSite(t, Config{MaxFrameSize: 4096, MaxEventSize: 1 << 20, MaxAnswerSize: 1 << 20, MaxMemory: 1 << 20}, func(w http.ResponseWriter, r *http.Request) error {
		<-release
		return answer(w, "resp_1", "x")
	})
	c := wstest.Dial(t, site.URL, nil, 5*time.Second)
	big := `{"type":"response.create","model":"m","input":"` + strings.Repeat("a", 3000) + `"}`
	wstest.Send(t, c, `{"type":"response.create","model":"m","input":"one"}`)
	time.Sleep(50 * time.Millisecond) // the first turn is running
	wstest.Send(t, c, big)
	wstest.Send(t, c, big)
	if ev := wstest.Turn(t, c)[0]; ev.Get("type").Str != "error" || ev.Get("status").Int() != 429 {
		t.Fatalf("a frame past the queue's bytes: %s", ev.Raw)
	}
	close(release)
	for range 2 {
		if events := wstest.Turn(t, c); events[len(events)-1].Get("type").Str != "response.completed" {
			t.Fatalf("a queued turn ended with %s", events[len(events)-1].Raw)
		}
	}
}

// TestQueueCount refuses a frame past maxQueuedTurns waiting.
func TestQueueCount(t *testing.T) {
	release := make(chan struct{})
	_, site := newSite(t, testConfig, func(w http.ResponseWriter, r *http.Request) error {
		<-release
		return answer(w, "resp_1", "x")
	})
	c := wstest.Dial(t, site.URL, nil, 5*time.Second)
	wstest.Send(t, c, `{"type":"response.create","model":"m","input":"one"}`)
	time.Sleep(50 * time.Millisecond) // the first turn is running
	for range maxQueuedTurns + 1 {
		wstest.Send(t, c, `{"type":"response.create","model":"m","input":"more"}`)
	}
	if ev := wstest.Turn(t, c)[0]; ev.Get("status").Int() != 429 || !strings.Contains(ev.Get("error.message").Str, strconv.Itoa(maxQueuedTurns)) {
		t.Fatalf("a frame past the queue's count: %s", ev.Raw)
	}
	close(release)
}

// TestRegisterMetrics registers the connections' collectors with a
// registry as often as handlers are provisioned with it.
func TestRegisterMetrics(t *testing.T) {
	reg := prometheus.NewRegistry()
	for range 2 {
		if err := RegisterMetrics(reg); err != nil {
			t.Fatal(err)
		}
	}
	if err := RegisterMetrics(nil); err != nil {
		t.Fatal(err)
	}
	clash := prometheus.NewRegistry()
	clash.MustRegister(prometheus.NewCounter(prometheus.CounterOpts{Name: "caddy_llmbridge_websocket_connections", Help: "another"}))
	if err := RegisterMetrics(clash); err == nil {
		t.Error("a registry holding another collector of the name took the gauge")
	}
}

// TestCrossOrigin refuses a browser's handshake from another origin
// before the upgrade, as the WebSocket library does.
func TestCrossOrigin(t *testing.T) {
	_, site := newSite(t, testConfig, func(w http.ResponseWriter, r *http.Request) error { return nil })
	_, resp, err := ws.Dial(context.Background(), wstest.URL(site.URL), &ws.DialOptions{HTTPHeader: http.Header{"Origin": {"https://elsewhere.example"}}})
	if err == nil || resp == nil || resp.StatusCode != http.StatusForbidden {
		t.Fatalf("a cross-origin handshake: %v %v", err, resp)
	}
}
