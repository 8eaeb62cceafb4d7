package caddymodule

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

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"github.com/coder/websocket"
	"github.com/tidwall/gjson"

	"github.com/llmbridge/llmbridge/internal/wstest"
)

// anthropicToolStream is an Anthropic stream answering with text and a
// call of the weather tool.
func anthropicToolStream(text string) string {
	return "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_01A\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"claude-x\",\"content\":[],\"usage\":{\"input_tokens\":5,\"output_tokens\":1}}}\n\n" +
		"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n" +
		"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":" + strconv.Quote(text) + "}}\n\n" +
		"event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n" +
		"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":1,\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_1\",\"name\":\"weather\",\"input\":{}}}\n\n" +
		"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"city\\\":\\\"Paris\\\"}\"}}\n\n" +
		"event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":1}\n\n" +
		"event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"tool_use\"},\"usage\":{\"output_tokens\":3}}\n\n" +
		"event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"
}

// socketSite serves h over HTTP with next as its upstream, in a request
// context as Caddy's.
func socketSite(t *testing.T, h *Handler, next caddyhttp.HandlerFunc) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := context.WithValue(r.Context(), caddy.ReplacerCtxKey, caddy.NewReplacer())
		ctx = context.WithValue(ctx, caddyhttp.VarsCtxKey, map[string]any{})
		_ = h.ServeHTTP(w, r.WithContext(ctx), next)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// dialSocket opens a WebSocket on the site's Responses path.
func dialSocket(t *testing.T, url string, hdr http.Header) *websocket.Conn {
	t.Helper()
	return wstest.Dial(t, url, hdr, 5*time.Second)
}

// readTurn reads the events of one turn, within five seconds.
func readTurn(t *testing.T, c *websocket.Conn) []gjson.Result {
	t.Helper()
	return readTurnWithin(t, c, 5*time.Second)
}

// readTurnWithin reads the events of one turn, within d.
func readTurnWithin(t *testing.T, c *websocket.Conn, d time.Duration) []gjson.Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	return wstest.ReadTurn(ctx, t, c)
}

func send(t *testing.T, c *websocket.Conn, frame string) {
	t.Helper()
	if err := c.Write(context.Background(), websocket.MessageText, []byte(frame)); err != nil {
		t.Fatal(err)
	}
}

const wsTools = `"tools":[{"type":"function","name":"weather","parameters":{"type":"object","properties":{"city":{"type":"string"}}}}]`

// TestWebSocketToolLoop runs a tool loop over one socket toward an
// Anthropic upstream: the second turn sends only the tool's output and
// previous_response_id, and the upstream gets the whole conversation.
func TestWebSocketToolLoop(t *testing.T) {
	var bodies []string
	h := newTestHandler(t, &Handler{Upstream: "anthropic-messages"})
	site := socketSite(t, h, func(w http.ResponseWriter, r *http.Request) error {
		if r.Header.Get("Upgrade") != "" || r.Method != http.MethodPost {
			t.Errorf("turn request %s with Upgrade %q", r.Method, r.Header.Get("Upgrade"))
		}
		b := make([]byte, r.ContentLength)
		_, _ = r.Body.Read(b)
		bodies = append(bodies, string(b))
		return sseAnswer(anthropicToolStream("Looking."), 64, nil)(w)
	})
	c := dialSocket(t, site.URL, nil)
	send(t, c, `{"type":"response.create","model":"claude-x","store":false,"instructions":"Be brief.","input":"Weather in Paris?",`+wsTools+`}`)
	first := readTurn(t, c)
	done := first[len(first)-1]
	if done.Get("type").Str != "response.completed" || first[0].Get("type").Str != "response.created" {
		t.Fatalf("first turn: %v", first)
	}
	id := done.Get("response.id").Str
	for turn := 2; turn <= 4; turn++ {
		send(t, c, `{"type":"response.create","model":"claude-x","store":false,"previous_response_id":"`+id+`","input":[{"type":"function_call_output","call_id":"toolu_1","output":"sunny"}],`+wsTools+`}`)
		events := readTurn(t, c)
		last := events[len(events)-1]
		if last.Get("type").Str != "response.completed" {
			t.Fatalf("turn %d: %s", turn, last.Raw)
		}
		id = last.Get("response.id").Str
		msgs := gjson.Get(bodies[len(bodies)-1], "messages").Array()
		if len(msgs) != 2*turn-1 || gjson.Get(bodies[len(bodies)-1], "system").Exists() {
			t.Errorf("turn %d: the upstream got %d messages, want %d: %s", turn, len(msgs), 2*turn-1, bodies[len(bodies)-1])
		}
	}
	if !gjson.Get(bodies[0], "system").Exists() {
		t.Errorf("the first turn lost its instructions: %s", bodies[0])
	}
}

// TestWebSocketRefusals sends what a socket refuses: each is answered
// with an error event in OpenAI's format, and the connection stays usable
// unless the refusal closes it.
func TestWebSocketRefusals(t *testing.T) {
	h := newTestHandler(t, &Handler{Upstream: "openai-chat", MaxRequestBody: 4096})
	site := socketSite(t, h, func(w http.ResponseWriter, r *http.Request) error {
		return sseAnswer("data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"Hi\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n", 64, nil)(w)
	})
	for _, tc := range []struct {
		name   string
		frame  string
		binary bool
		code   string // error.code, or error.type when it has no code
		closes websocket.StatusCode
	}{
		{"not JSON", `hello`, false, "invalid_request_error", 0},
		{"not an object", `[1]`, false, "invalid_request_error", 0},
		{"unknown event type", `{"type":"response.cancel"}`, false, "invalid_request_error", 0},
		{"unknown previous_response_id", `{"type":"response.create","model":"m","previous_response_id":"resp_nope","input":"hi"}`, false, "previous_response_not_found", 0},
		{"background", `{"type":"response.create","model":"m","background":true,"input":"hi"}`, false, "invalid_request_error", 0},
		{"stream_id", `{"type":"response.create","model":"m","stream_id":"s2","input":"hi"}`, false, "invalid_request_error", 0},
		{"unknown field", `{"type":"response.create","model":"m","input":"hi","bogus":1}`, false, "invalid_request_error", 0},
		{"binary frame", `{"type":"response.create"}`, true, "invalid_request_error", websocket.StatusUnsupportedData},
		{"oversized frame", `{"type":"response.create","input":"` + strings.Repeat("a", 5000) + `"}`, false, "invalid_request_error", websocket.StatusMessageTooBig},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := dialSocket(t, site.URL, nil)
			typ := websocket.MessageText
			if tc.binary {
				typ = websocket.MessageBinary
			}
			if err := c.Write(context.Background(), typ, []byte(tc.frame)); err != nil {
				t.Fatal(err)
			}
			ev := readTurn(t, c)[0]
			code := ev.Get("error.code").Str
			if code == "" {
				code = ev.Get("error.type").Str
			}
			if ev.Get("type").Str != "error" || code != tc.code || ev.Get("status").Int() < 400 || ev.Get("error.message").Str == "" {
				t.Fatalf("got %s, want an error event with code %s", ev.Raw, tc.code)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			if tc.closes != 0 {
				if _, _, err := c.Read(ctx); websocket.CloseStatus(err) != tc.closes {
					t.Fatalf("closed with %v, want %v", err, tc.closes)
				}
				return
			}
			// Still usable.
			send(t, c, `{"type":"response.create","model":"m","input":"hi"}`)
			if last := readTurn(t, c); last[len(last)-1].Get("type").Str != "response.completed" {
				t.Fatalf("after the refusal: %s", last[len(last)-1].Raw)
			}
		})
	}
}

// TestWebSocketQueuesTurns sends a second response.create while the first
// runs: it is answered after the first, in order.
func TestWebSocketQueuesTurns(t *testing.T) {
	release := make(chan struct{})
	var calls atomic.Int32
	h := newTestHandler(t, &Handler{Upstream: "anthropic-messages"})
	site := socketSite(t, h, func(w http.ResponseWriter, r *http.Request) error {
		if calls.Add(1) == 1 {
			<-release
		}
		return sseAnswer(anthropicToolStream("turn "+strconv.Itoa(int(calls.Load()))), 64, nil)(w)
	})
	c := dialSocket(t, site.URL, nil)
	send(t, c, `{"type":"response.create","model":"claude-x","input":"one"}`)
	send(t, c, `{"type":"response.create","model":"claude-x","input":"two"}`)
	time.Sleep(50 * time.Millisecond)
	if n := calls.Load(); n != 1 {
		t.Errorf("%d upstream calls while the first turn runs, want 1", n)
	}
	close(release)
	for _, want := range []string{"turn 1", "turn 2"} {
		events := readTurn(t, c)
		if got := events[len(events)-1].Get("response.output.0.content.0.text").Str; got != want {
			t.Errorf("answer %q, want %q", got, want)
		}
	}
}

// TestWebSocketClientGoneCancelsUpstream closes the socket mid-answer: the
// upstream request is cancelled at once.
func TestWebSocketClientGoneCancelsUpstream(t *testing.T) {
	cancelled := make(chan struct{})
	h := newTestHandler(t, &Handler{Upstream: "anthropic-messages"})
	site := socketSite(t, h, func(w http.ResponseWriter, r *http.Request) error {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(200)
		_, _ = w.Write([]byte(strings.SplitAfter(anthropicToolStream("x"), "\n\n")[0]))
		<-r.Context().Done()
		close(cancelled)
		return r.Context().Err()
	})
	c := dialSocket(t, site.URL, nil)
	send(t, c, `{"type":"response.create","model":"claude-x","input":"one"}`)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, _, err := c.Read(ctx); err != nil { // response.created
		t.Fatal(err)
	}
	_ = c.CloseNow()
	select {
	case <-cancelled:
	case <-time.After(5 * time.Second):
		t.Fatal("the upstream request was not cancelled when the client went")
	}
}

// TestWebSocketAgeLimit closes a connection at its age limit with
// OpenAI's error event.
func TestWebSocketAgeLimit(t *testing.T) {
	h := newTestHandler(t, &Handler{Upstream: "anthropic-messages"})
	h.socketTimings = &socketTimings{maxAge: 200 * time.Millisecond, pingInterval: time.Hour, pingTimeout: time.Second}
	site := socketSite(t, h, func(w http.ResponseWriter, r *http.Request) error { return nil })
	c := dialSocket(t, site.URL, nil)
	ev := readTurn(t, c)[0]
	if ev.Get("error.code").Str != "websocket_connection_limit_reached" {
		t.Fatalf("got %s", ev.Raw)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, _, err := c.Read(ctx); websocket.CloseStatus(err) != websocket.StatusNormalClosure {
		t.Fatalf("closed with %v", err)
	}
}

// TestWebSocketIdlePing keeps an idle connection whose client answers
// pings, and closes one whose client stopped reading.
func TestWebSocketIdlePing(t *testing.T) {
	h := newTestHandler(t, &Handler{Upstream: "anthropic-messages"})
	h.socketTimings = &socketTimings{maxAge: time.Hour, pingInterval: 20 * time.Millisecond, pingTimeout: 100 * time.Millisecond}
	site := socketSite(t, h, func(w http.ResponseWriter, r *http.Request) error { return nil })
	// A client that reads answers the pings: the connection stays open.
	alive := dialSocket(t, site.URL, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	if _, _, err := alive.Read(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a reading client's connection ended: %v", err)
	}
	// A client that never reads answers no ping: the server closes it.
	silent := dialSocket(t, site.URL, nil)
	time.Sleep(500 * time.Millisecond)
	ctx2, cancel2 := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel2()
	if _, _, err := silent.Read(ctx2); err == nil || errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a silent client's connection is still open: %v", err)
	}
}

// TestWebSocketHandshakeRefusals refuses handshakes in OpenAI's format.
func TestWebSocketHandshakeRefusals(t *testing.T) {
	h := newTestHandler(t, &Handler{Upstream: "anthropic-messages", ClientKeys: []ClientKey{{Key: "sk-good"}}})
	site := socketSite(t, h, func(w http.ResponseWriter, r *http.Request) error { return nil })
	ctx := context.Background()
	_, resp, err := websocket.Dial(ctx, wstest.URL(site.URL), &websocket.DialOptions{HTTPHeader: http.Header{"Authorization": {"Bearer sk-bad"}}})
	if err == nil || resp == nil || resp.StatusCode != 401 {
		t.Fatalf("a bad key: %v %v", err, resp)
	}
	c := dialSocket(t, site.URL, http.Header{"Authorization": {"Bearer sk-good"}})
	_ = c.Close(websocket.StatusNormalClosure, "")
	req, _ := http.NewRequest("GET", site.URL+"/v1/responses", nil)
	req.Header.Set("Authorization", "Bearer sk-good")
	req.Header.Set("Upgrade", "websocket")
	r, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Body.Close()
	if r.StatusCode != 400 || r.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("an invalid handshake: %d %s", r.StatusCode, r.Header)
	}
}

// TestWebSocketPrewarm answers a response.create with generate false
// without calling the upstream, and continues from it.
func TestWebSocketPrewarm(t *testing.T) {
	var bodies []string
	h := newTestHandler(t, &Handler{Upstream: "anthropic-messages"})
	site := socketSite(t, h, func(w http.ResponseWriter, r *http.Request) error {
		b := make([]byte, r.ContentLength)
		_, _ = r.Body.Read(b)
		bodies = append(bodies, string(b))
		return sseAnswer(anthropicToolStream("Hi"), 64, nil)(w)
	})
	c := dialSocket(t, site.URL, nil)
	send(t, c, `{"type":"response.create","model":"claude-x","generate":false,"store":false,"input":[{"type":"message","role":"developer","content":"Be brief."}],`+wsTools+`}`)
	events := readTurn(t, c)
	done := events[len(events)-1]
	if len(events) != 2 || done.Get("type").Str != "response.completed" || len(done.Get("response.output").Array()) != 0 || len(bodies) != 0 {
		t.Fatalf("prewarm: %v; upstream called %d times", events, len(bodies))
	}
	send(t, c, `{"type":"response.create","model":"claude-x","store":false,"previous_response_id":"`+done.Get("response.id").Str+`","input":"Weather?",`+wsTools+`}`)
	readTurn(t, c)
	if len(bodies) != 1 || gjson.Get(bodies[0], "system").String() != "Be brief." || len(gjson.Get(bodies[0], "messages").Array()) != 1 {
		t.Fatalf("the upstream got %v", bodies)
	}
}

// TestWebSocketSlowReader streams a long answer to a client that stops
// reading: the upstream's writes wait for it (what is in flight stays
// within the kernel's socket buffers), and the turn completes once it
// reads again.
func TestWebSocketSlowReader(t *testing.T) {
	const events, size = 2000, 8 << 10 // 16 MiB of text, more than the socket buffers hold
	var written atomic.Int64
	h := newTestHandler(t, &Handler{Upstream: "anthropic-messages"})
	site := socketSite(t, h, func(w http.ResponseWriter, r *http.Request) error {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(200)
		parts := strings.SplitAfter(anthropicToolStream("x"), "\n\n")
		_, _ = io.WriteString(w, parts[0]+parts[1])
		delta := "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"" + strings.Repeat("y", size) + "\"}}\n\n"
		for range events {
			if _, err := io.WriteString(w, delta); err != nil {
				return err
			}
			written.Add(int64(len(delta)))
		}
		_, err := io.WriteString(w, parts[3]+parts[7]+parts[8])
		return err
	})
	c := dialSocket(t, site.URL, nil)
	c.SetReadLimit(64 << 20) // response.completed holds the whole text
	send(t, c, `{"type":"response.create","model":"claude-x","input":"A long story."}`)
	time.Sleep(500 * time.Millisecond)
	if n := written.Load(); n > 12<<20 {
		t.Errorf("the upstream wrote %d MiB to a client that read nothing", n>>20)
	}
	t.Logf("in flight to a client that stopped reading: %d KiB", written.Load()>>10)
	// 16 MiB of events and a response.completed holding all of it: under
	// the race detector on two cores, more than readTurn's 5 s.
	events2 := readTurnWithin(t, c, time.Minute)
	if last := events2[len(events2)-1]; last.Get("type").Str != "response.completed" || len(events2) < events {
		t.Fatalf("%d events, the last %.200s", len(events2), last.Raw)
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

// TestWebSocketAgeLimitMidTurn reaches the age limit while a turn runs:
// the turn completes, then the client gets the limit's error event and the
// close.
func TestWebSocketAgeLimitMidTurn(t *testing.T) {
	h := newTestHandler(t, &Handler{Upstream: "anthropic-messages"})
	h.socketTimings = &socketTimings{maxAge: 150 * time.Millisecond, pingInterval: time.Hour, pingTimeout: time.Second}
	site := socketSite(t, h, func(w http.ResponseWriter, r *http.Request) error {
		time.Sleep(300 * time.Millisecond)
		return sseAnswer(anthropicToolStream("late"), 64, nil)(w)
	})
	c := dialSocket(t, site.URL, nil)
	send(t, c, `{"type":"response.create","model":"claude-x","input":"one"}`)
	events := readTurn(t, c)
	if last := events[len(events)-1]; last.Get("type").Str != "response.completed" {
		t.Fatalf("the turn running at the limit ended with %s", last.Raw)
	}
	if ev := readTurn(t, c)[0]; ev.Get("error.code").Str != "websocket_connection_limit_reached" {
		t.Fatalf("after the turn: %s", ev.Raw)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, _, err := c.Read(ctx); websocket.CloseStatus(err) != websocket.StatusNormalClosure {
		t.Fatalf("closed with %v", err)
	}
}

// TestWebSocketConfigUnloaded closes the connections of a configuration
// that is unloaded with 1001, so that clients reconnect to the new one.
func TestWebSocketConfigUnloaded(t *testing.T) {
	h := newTestHandler(t, &Handler{Upstream: "anthropic-messages"})
	lifetime, unload := context.WithCancel(context.Background())
	h.lifetime = lifetime
	site := socketSite(t, h, func(w http.ResponseWriter, r *http.Request) error { return nil })
	c := dialSocket(t, site.URL, nil)
	time.Sleep(50 * time.Millisecond)
	unload()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, _, err := c.Read(ctx); websocket.CloseStatus(err) != websocket.StatusGoingAway {
		t.Fatalf("closed with %v, want 1001", err)
	}
}

// TestWebSocketQueueBound refuses a frame that would queue more bytes
// than one frame may have behind the turn running.
func TestWebSocketQueueBound(t *testing.T) {
	release := make(chan struct{})
	h := newTestHandler(t, &Handler{Upstream: "anthropic-messages", MaxRequestBody: 4096})
	site := socketSite(t, h, func(w http.ResponseWriter, r *http.Request) error {
		<-release
		return sseAnswer(anthropicToolStream("x"), 64, nil)(w)
	})
	c := dialSocket(t, site.URL, nil)
	big := `{"type":"response.create","model":"claude-x","input":"` + strings.Repeat("a", 3000) + `"}`
	send(t, c, `{"type":"response.create","model":"claude-x","input":"one"}`)
	time.Sleep(50 * time.Millisecond) // the first turn is running
	send(t, c, big)
	send(t, c, big)
	ev := readTurn(t, c)[0]
	if ev.Get("type").Str != "error" || ev.Get("status").Int() != 429 {
		t.Fatalf("a frame past the queue's bytes: %s", ev.Raw)
	}
	close(release)
	for range 2 {
		if events := readTurn(t, c); events[len(events)-1].Get("type").Str != "response.completed" {
			t.Fatalf("a queued turn ended with %s", events[len(events)-1].Raw)
		}
	}
}

// TestWebSocketMemoryBound holds the connections' last conversations to
// the conversations' size together: past it a connection keeps none, and
// its next continuation is previous_response_not_found; a connection
// that closes gives its memory back.
func TestWebSocketMemoryBound(t *testing.T) {
	h := newTestHandler(t, &Handler{Upstream: "anthropic-messages", ConversationsSize: 6000})
	site := socketSite(t, h, func(w http.ResponseWriter, r *http.Request) error {
		return sseAnswer(anthropicToolStream("Hi"), 64, nil)(w)
	})
	turn := func(c *websocket.Conn, prev string) gjson.Result {
		frame := `{"type":"response.create","model":"claude-x","store":false,"input":"` + strings.Repeat("a", 2000) + `"`
		if prev != "" {
			frame += `,"previous_response_id":"` + prev + `"`
		}
		send(t, c, frame+"}")
		events := readTurn(t, c)
		return events[len(events)-1]
	}
	a, b := dialSocket(t, site.URL, nil), dialSocket(t, site.URL, nil)
	idA := turn(a, "").Get("response.id").Str
	if next := turn(a, idA); next.Get("type").Str != "response.completed" {
		t.Fatalf("a continued within the bound: %s", next.Raw)
	}
	idB := turn(b, "").Get("response.id").Str
	if ev := turn(b, idB); ev.Get("error.code").Str != "previous_response_not_found" {
		t.Fatalf("b continued past the bound: %s", ev.Raw)
	}
	_ = a.Close(websocket.StatusNormalClosure, "")
	deadline := time.Now().Add(5 * time.Second)
	for h.sockets.held.Load() > 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := h.sockets.held.Load(); n != 0 {
		t.Errorf("%d bytes held with no conversation kept", n)
	}
}
