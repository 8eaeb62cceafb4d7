package caddymodule

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/llmbridge/llmbridge/caddymodule/writers"
	"github.com/tidwall/gjson"
)

// passFamily is one passthrough pair of the tests below: a client path and
// bodies, and what its upstream sends when it keeps to its protocol.
type passFamily struct {
	name, upstream string
	// target and body are the non-streamed request; streamTarget and
	// streamBody the streamed one.
	target, body             string
	streamTarget, streamBody string
	// answer is a successful JSON answer; apiError the protocol's error
	// body; stream a complete stream, and events its events one by one
	// (the last one terminal).
	answer, apiError string
	events           []string
	// errPath is where the client's error format names the error's type.
	errPath string
}

func (f passFamily) stream() string { return strings.Join(f.events, "") }

var passFamilies = []passFamily{
	{
		name: "openai-chat", upstream: "openai-chat",
		target: "/v1/chat/completions", body: `{"model":"gpt-x","messages":[{"role":"user","content":"hi"}]}`,
		streamTarget: "/v1/chat/completions", streamBody: `{"model":"gpt-x","stream":true,"messages":[{"role":"user","content":"hi"}]}`,
		answer:   `{"id":"c1","object":"chat.completion","model":"gpt-x","choices":[{"index":0,"message":{"role":"assistant","content":"Hi"},"finish_reason":"stop"}]}`,
		apiError: `{"error":{"message":"Rate limit reached","type":"requests","param":null,"code":"rate_limit_exceeded"}}`,
		events: []string{
			"data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"model\":\"gpt-x\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"Hi\"}}]}\n\n",
			": keep-alive\n\n",
			"data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"model\":\"gpt-x\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n",
			"data: [DONE]\n\n",
		},
		errPath: "error.type",
	},
	{
		name: "openai-responses", upstream: "openai-responses",
		target: "/v1/responses", body: `{"model":"gpt-x","input":"hi"}`,
		streamTarget: "/v1/responses", streamBody: `{"model":"gpt-x","stream":true,"input":"hi"}`,
		answer:   `{"id":"resp_1","object":"response","status":"completed","model":"gpt-x","output":[{"type":"message","id":"m1","role":"assistant","content":[{"type":"output_text","text":"Hi","annotations":[]}]}]}`,
		apiError: `{"error":{"message":"Invalid model","type":"invalid_request_error","param":"model","code":null}}`,
		events: []string{
			"event: response.created\ndata: {\"type\":\"response.created\",\"response\":{\"id\":\"resp_1\",\"status\":\"in_progress\",\"model\":\"gpt-x\",\"output\":[]}}\n\n",
			"event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"item_id\":\"m1\",\"output_index\":0,\"content_index\":0,\"delta\":\"Hi\"}\n\n",
			"event: response.completed\ndata: {\"type\":\"response.completed\",\"response\":{\"id\":\"resp_1\",\"status\":\"completed\",\"model\":\"gpt-x\",\"output\":[]}}\n\n",
		},
		errPath: "error.type",
	},
	{
		name: "anthropic-messages", upstream: "anthropic-messages",
		target: "/v1/messages", body: `{"model":"claude-x","max_tokens":5,"messages":[{"role":"user","content":"hi"}]}`,
		streamTarget: "/v1/messages", streamBody: `{"model":"claude-x","max_tokens":5,"stream":true,"messages":[{"role":"user","content":"hi"}]}`,
		answer:   `{"id":"msg_1","type":"message","role":"assistant","model":"claude-x","content":[{"type":"text","text":"Hi"}],"stop_reason":"end_turn","usage":{"input_tokens":3,"output_tokens":1}}`,
		apiError: `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`,
		events: []string{
			"event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"claude-x\",\"content\":[],\"usage\":{\"input_tokens\":3,\"output_tokens\":0}}}\n\n",
			"event: ping\ndata: {\"type\":\"ping\"}\n\n",
			"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n",
			"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Hi\"}}\n\n",
			"event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n",
			"event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":1}}\n\n",
			"event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n",
		},
		errPath: "error.type",
	},
	{
		name: "vertex-anthropic", upstream: "vertex-anthropic",
		target: "/v1/messages", body: `{"model":"claude-x","max_tokens":5,"messages":[{"role":"user","content":"hi"}]}`,
		streamTarget: "/v1/messages", streamBody: `{"model":"claude-x","max_tokens":5,"stream":true,"messages":[{"role":"user","content":"hi"}]}`,
		answer:   `{"id":"msg_1","type":"message","role":"assistant","model":"claude-x","content":[{"type":"text","text":"Hi"}],"stop_reason":"end_turn","usage":{"input_tokens":3,"output_tokens":1}}`,
		apiError: `{"type":"error","error":{"type":"invalid_request_error","message":"bad"}}`,
		events: []string{
			"event: message_start\r\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"claude-x\",\"content\":[],\"usage\":{\"input_tokens\":3,\"output_tokens\":0}}}\r\n\r\n",
			"event: message_delta\r\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":1}}\r\n\r\n",
			"event: message_stop\r\ndata: {\"type\":\"message_stop\"}\r\n\r\n",
		},
		errPath: "error.type",
	},
	{
		name: "gemini", upstream: "gemini",
		target: "/v1beta/models/gemini-x:generateContent", body: `{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}`,
		streamTarget: "/v1beta/models/gemini-x:streamGenerateContent?alt=sse", streamBody: `{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}`,
		answer:   `{"candidates":[{"content":{"role":"model","parts":[{"text":"Hi"}]},"finishReason":"STOP"}],"modelVersion":"gemini-x"}`,
		apiError: `{"error":{"code":400,"message":"API key not valid","status":"INVALID_ARGUMENT"}}`,
		events: []string{
			"data: {\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"text\":\"Hi\"}]}}],\"modelVersion\":\"gemini-x\"}\r\n\r\n",
			"data: {\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"text\":\" there\"}]},\"finishReason\":\"STOP\"}],\"modelVersion\":\"gemini-x\"}\r\n\r\n",
		},
		errPath: "error.status",
	},
	{
		name: "vertex", upstream: "vertex",
		target: "/v1beta/models/gemini-x:generateContent", body: `{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}`,
		streamTarget: "/v1beta/models/gemini-x:streamGenerateContent?alt=sse", streamBody: `{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}`,
		answer:   `{"candidates":[{"content":{"role":"model","parts":[{"text":"Hi"}]},"finishReason":"STOP"}],"modelVersion":"gemini-x"}`,
		apiError: `[{"error":{"code":429,"message":"Resource exhausted","status":"RESOURCE_EXHAUSTED"}}]`,
		events: []string{
			"data: {\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"text\":\"Hi\"}]}}]}\n\n",
			"data: {\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"text\":\"!\"}]},\"finishReason\":\"STOP\"}]}\n\n",
		},
		errPath: "error.status",
	},
}

// passHandler is the handler of a passthrough family.
func passHandler(t *testing.T, f passFamily, maxEvent int64) *Handler {
	return newTestHandler(t, &Handler{Upstream: f.upstream, CloudRaw: testCloud(f.upstream), MaxEventSize: maxEvent})
}

// rawAnswer answers status with ctype and body in writes of chunk bytes,
// then aborts as reverse_proxy does when the upstream body breaks off if
// abort is set.
func rawAnswer(status int, ctype, body string, chunk int, abort bool) func(w http.ResponseWriter) error {
	return func(w http.ResponseWriter) error {
		if ctype != "" {
			w.Header().Set("Content-Type", ctype)
		}
		w.Header().Set("X-Request-Id", "req-1")
		w.WriteHeader(status)
		for i := 0; i < len(body); i += chunk {
			if _, err := io.WriteString(w, body[i:min(i+chunk, len(body))]); err != nil {
				return err
			}
			_ = http.NewResponseController(w).Flush()
		}
		if abort {
			panic(http.ErrAbortHandler)
		}
		return nil
	}
}

// TestPassthroughBodies answers every passthrough pair's non-streamed
// request with what upstreams send, faithful or not: a faithful answer
// passes byte for byte with the upstream's headers, anything else becomes
// an error in the client's format.
func TestPassthroughBodies(t *testing.T) {
	type check struct {
		name       string
		answer     func(f passFamily) func(w http.ResponseWriter) error
		wantStatus int
		same       bool   // the body passes unchanged
		wantInMsg  string // else the client's error says this
	}
	checks := []check{
		{"success", func(f passFamily) func(w http.ResponseWriter) error {
			return rawAnswer(200, "application/json", f.answer, 7, false)
		}, 200, true, ""},
		{"protocol error", func(f passFamily) func(w http.ResponseWriter) error {
			return rawAnswer(429, "application/json; charset=utf-8", f.apiError, 5, false)
		}, 429, true, ""},
		{"load balancer HTML page", func(f passFamily) func(w http.ResponseWriter) error {
			return rawAnswer(502, "text/html", "<html><body><h1>502 Bad Gateway</h1>nginx</body></html>", 9, false)
		}, 502, false, "502 Bad Gateway"},
		{"plain-text 404", func(f passFamily) func(w http.ResponseWriter) error {
			return rawAnswer(404, "text/plain", "404 page not found", 64, false)
		}, 404, false, "404 page not found"},
		{"JSON error of another shape", func(f passFamily) func(w http.ResponseWriter) error {
			return rawAnswer(500, "application/json", `{"detail":"Internal Server Error"}`, 64, false)
		}, 500, false, "Internal Server Error"},
		{"200 HTML", func(f passFamily) func(w http.ResponseWriter) error {
			return rawAnswer(200, "text/html", "<html>maintenance</html>", 64, false)
		}, 502, false, "where JSON was expected"},
		{"200 cut short", func(f passFamily) func(w http.ResponseWriter) error {
			return rawAnswer(200, "application/json", f.answer[:len(f.answer)/2], 64, false)
		}, 502, false, "not a JSON object"},
		{"200 empty", func(f passFamily) func(w http.ResponseWriter) error {
			return rawAnswer(200, "application/json", "", 64, false)
		}, 502, false, "an empty body"},
		{"reset mid-body", func(f passFamily) func(w http.ResponseWriter) error {
			return rawAnswer(200, "application/json", f.answer[:len(f.answer)/2], 8, true)
		}, 502, false, "interrupted"},
		{"error status reset mid-body", func(f passFamily) func(w http.ResponseWriter) error {
			return rawAnswer(429, "application/json", f.apiError[:10], 8, true)
		}, 502, false, "interrupted"},
	}
	for _, f := range passFamilies {
		for _, c := range checks {
			t.Run(f.name+"/"+c.name, func(t *testing.T) {
				answer := c.answer(f)
				w, call := serve(t, passHandler(t, f, 0), httptest.NewRequest("POST", f.target, strings.NewReader(f.body)), answer)
				if !call.called {
					t.Fatalf("upstream not called: %d %s", w.Code, w.Body)
				}
				rec := httptest.NewRecorder()
				func() {
					defer func() { _ = recover() }()
					_ = answer(rec)
				}()
				body := w.Body.String()
				if w.Code != c.wantStatus {
					t.Fatalf("status %d, want %d: %s", w.Code, c.wantStatus, body)
				}
				if c.same {
					if body != rec.Body.String() || w.Header().Get("X-Request-Id") != "req-1" || w.Header().Get("Content-Length") != "" && w.Header().Get("Content-Length") != strconv.Itoa(len(body)) {
						t.Fatalf("body or headers changed: %v\n%s", w.Header(), body)
					}
					return
				}
				if !gjson.Get(body, f.errPath).Exists() || w.Header().Get("Content-Type") != "application/json" {
					t.Fatalf("not an error in the client's format: %v %s", w.Header(), body)
				}
				if msg := gjson.Get(body, "error.message").Str; !strings.Contains(msg, c.wantInMsg) {
					t.Errorf("message %q lacks %q", msg, c.wantInMsg)
				}
				if w.Header().Get("X-Request-Id") != "req-1" {
					t.Errorf("the upstream's headers were lost: %v", w.Header())
				}
			})
		}
	}
}

// TestPassthroughLargeBodyStreamsThrough checks that a body over the hold
// bound is passed on as it arrives, unchecked and whole.
func TestPassthroughLargeBodyStreamsThrough(t *testing.T) {
	f := passFamilies[0]
	big := `{"pad":"` + strings.Repeat("x", writers.MaxHeldBody) + `"}`
	var flushedEarly bool
	answer := func(w http.ResponseWriter) error {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(200)
		for i := 0; i < len(big); i += 1 << 20 {
			if _, err := io.WriteString(w, big[i:min(i+1<<20, len(big))]); err != nil {
				return err
			}
			if rec, ok := w.(interface{ Unwrap() http.ResponseWriter }); ok && i == writers.MaxHeldBody>>20<<20 {
				flushedEarly = rec.Unwrap().(*httptest.ResponseRecorder).Body.Len() > 0
			}
		}
		return nil
	}
	w, _ := serve(t, passHandler(t, f, 0), httptest.NewRequest("POST", f.target, strings.NewReader(f.body)), answer)
	if w.Code != 200 || w.Body.String() != big {
		t.Fatalf("status %d, %d bytes", w.Code, w.Body.Len())
	}
	if !flushedEarly {
		t.Errorf("the body was held past the bound")
	}
}

// TestPassthroughStreams answers every passthrough pair's streamed request
// with complete, garbled and cut streams: a complete one passes byte for
// byte whatever the chunking, and the others keep every event before the
// fault byte for byte and end with the client's in-stream error, never
// with the Content-Length an upstream declared for its own bytes.
func TestPassthroughStreams(t *testing.T) {
	const garbage = "data: <html>upstream error</html>\n\n"
	for _, f := range passFamilies {
		events := f.events
		last := len(events) - 1
		checks := []struct {
			name     string
			body     string
			abort    bool
			maxEvent int64
			// keep is how many of the events pass before the error; -1
			// when the stream must pass whole.
			keep int
			msg  string
		}{
			{name: "complete", body: f.stream(), keep: -1},
			{name: "garbage event", body: events[0] + garbage + strings.Join(events[1:], ""), keep: 1, msg: "not valid in its protocol"},
			{name: "event without a JSON object", body: events[0] + "data: 42\n\n" + strings.Join(events[1:], ""), keep: 1, msg: "not valid in its protocol"},
			{name: "no terminal event", body: strings.Join(events[:last], ""), keep: last, msg: "ended before it was complete"},
			{name: "cut mid-event", body: strings.Join(events[:last], "") + events[last][:len(events[last])/2], keep: last, msg: "ended before it was complete"},
			{name: "reset", body: strings.Join(events[:last], ""), abort: true, keep: last, msg: "broke off"},
			{name: "garbage after the terminal event", body: f.stream() + garbage, keep: -2},
			{name: "event too large", body: events[0] + "data: {\"x\":\"" + strings.Repeat("y", 300) + "\"}\n\n" + f.stream(), maxEvent: 256, keep: 1, msg: "larger than 256 bytes"},
		}
		for _, c := range checks {
			for _, chunk := range []int{1, 7, 1 << 20} {
				t.Run(f.name+"/"+c.name+"/"+strconv.Itoa(chunk), func(t *testing.T) {
					maxEvent := c.maxEvent
					if maxEvent != 0 && maxEvent < int64(len(events[0])) {
						t.Fatalf("event bound %d below the first event", maxEvent)
					}
					answer := rawAnswer(200, "text/event-stream", c.body, chunk, c.abort)
					if chunk == 1<<20 {
						// An upstream that wrote its whole stream before
						// its first flush declares its length, which the
						// stream passed on may not have.
						whole := answer
						answer = func(w http.ResponseWriter) error {
							w.Header().Set("Content-Length", strconv.Itoa(len(c.body)))
							return whole(w)
						}
					}
					w, _ := serve(t, passHandler(t, f, maxEvent), httptest.NewRequest("POST", f.streamTarget, strings.NewReader(f.streamBody)), answer)
					if cl := w.Header().Get("Content-Length"); cl != "" {
						t.Fatalf("the stream passed on declares the upstream's Content-Length %s", cl)
					}
					got := w.Body.String()
					switch c.keep {
					case -1, -2:
						if got != c.body {
							t.Fatalf("stream changed:\n%q\nwant\n%q", got, c.body)
						}
						return
					}
					prefix := strings.Join(events[:c.keep], "")
					if !strings.HasPrefix(got, prefix) {
						t.Fatalf("the events before the fault changed:\n%q", got)
					}
					rest := got[len(prefix):]
					if !strings.Contains(rest, c.msg) || !writers.EndsEvent([]byte(rest)) || strings.Contains(rest, "<html>") {
						t.Fatalf("no in-stream error %q after the good events:\n%q", c.msg, rest)
					}
					if strings.Contains(rest, events[last]) {
						t.Fatalf("events after the fault were passed on:\n%q", rest)
					}
				})
			}
		}
	}
}

// TestPassthroughRaw checks the answers a passthrough cannot check and
// passes on as they arrive, unchanged: a body with a Content-Encoding and a
// redirect, through Write
// and through ReadFrom (reverse_proxy uses either).
func TestPassthroughRaw(t *testing.T) {
	f := passFamilies[0]
	tests := []struct {
		name   string
		status int
		header map[string]string
		body   string
	}{
		{"gzip body", 200, map[string]string{"Content-Type": "application/json", "Content-Encoding": "gzip"}, "\x1f\x8b\x08\x00binary"},
		{"redirect", 307, map[string]string{"Location": "https://elsewhere.example/v1/chat/completions"}, ""},
	}
	for _, tt := range tests {
		for _, viaReadFrom := range []bool{false, true} {
			t.Run(tt.name+"/ReadFrom="+strconv.FormatBool(viaReadFrom), func(t *testing.T) {
				answer := func(w http.ResponseWriter) error {
					for k, v := range tt.header {
						w.Header().Set(k, v)
					}
					w.WriteHeader(tt.status)
					if viaReadFrom {
						_, err := w.(io.ReaderFrom).ReadFrom(strings.NewReader(tt.body))
						return err
					}
					_, err := io.WriteString(w, tt.body)
					_ = http.NewResponseController(w).Flush()
					return err
				}
				w, _ := serve(t, passHandler(t, f, 0), httptest.NewRequest("POST", f.target, strings.NewReader(f.body)), answer)
				if w.Code != tt.status || w.Body.String() != tt.body {
					t.Fatalf("status %d, body %q", w.Code, w.Body)
				}
				for k, v := range tt.header {
					if w.Header().Get(k) != v {
						t.Errorf("header %s = %q", k, w.Header().Get(k))
					}
				}
			})
		}
	}
}

// TestPassthroughHeldThroughReadFrom checks that a held body and a stream
// arriving through ReadFrom are checked like those arriving through Write.
func TestPassthroughHeldThroughReadFrom(t *testing.T) {
	f := passFamilies[2]
	readFrom := func(status int, ctype, body string) func(w http.ResponseWriter) error {
		return func(w http.ResponseWriter) error {
			w.Header().Set("Content-Type", ctype)
			w.WriteHeader(status)
			_, err := w.(io.ReaderFrom).ReadFrom(strings.NewReader(body))
			return err
		}
	}
	w, _ := serve(t, passHandler(t, f, 0), httptest.NewRequest("POST", f.target, strings.NewReader(f.body)), readFrom(200, "application/json", f.answer))
	if w.Code != 200 || w.Body.String() != f.answer {
		t.Fatalf("status %d, body %s", w.Code, w.Body)
	}
	w, _ = serve(t, passHandler(t, f, 0), httptest.NewRequest("POST", f.target, strings.NewReader(f.body)), readFrom(200, "application/json", "<html>"))
	if w.Code != 502 || !strings.Contains(w.Body.String(), `"type":"error"`) {
		t.Fatalf("status %d, body %s", w.Code, w.Body)
	}
	w, _ = serve(t, passHandler(t, f, 0), httptest.NewRequest("POST", f.streamTarget, strings.NewReader(f.streamBody)), readFrom(200, "text/event-stream", f.stream()))
	if w.Code != 200 || w.Body.String() != f.stream() {
		t.Fatalf("status %d, body %s", w.Code, w.Body)
	}
}
