package caddymodule

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/tidwall/gjson"
)

const chatStream = `data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"gpt-x","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}

data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"gpt-x","choices":[{"index":0,"delta":{"content":"Hel"},"finish_reason":null}]}

data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"gpt-x","choices":[{"index":0,"delta":{"content":"lo"},"finish_reason":null}]}

data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"gpt-x","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}

data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"gpt-x","choices":[],"usage":{"prompt_tokens":7,"completion_tokens":2,"total_tokens":9}}

data: [DONE]

`

// sseAnswer answers with body as an event stream, in writes of chunk
// bytes, and then returns err.
func sseAnswer(body string, chunk int, err error) func(w http.ResponseWriter) error {
	return func(w http.ResponseWriter) error {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(200)
		for i := 0; i < len(body); i += chunk {
			if _, werr := io.WriteString(w, body[i:min(i+chunk, len(body))]); werr != nil {
				return werr
			}
			_ = http.NewResponseController(w).Flush()
		}
		return err
	}
}

// anthropicEvents lists the event names of an Anthropic stream.
func anthropicEvents(body string) []string {
	var names []string
	for _, line := range strings.Split(body, "\n") {
		if name, ok := strings.CutPrefix(line, "event: "); ok {
			names = append(names, name)
		}
	}
	return names
}

func streamRequest() *http.Request {
	return httptest.NewRequest("POST", "/v1/messages", strings.NewReader(
		`{"model":"gpt-x","max_tokens":10,"stream":true,"messages":[{"role":"user","content":"hi"}]}`))
}

func TestStreamTranslation(t *testing.T) {
	for _, chunk := range []int{1, 7, len(chatStream)} {
		h := newTestHandler(t, &Handler{Upstream: "openai-chat"})
		w, call := serve(t, h, streamRequest(), sseAnswer(chatStream, chunk, nil))
		if !strings.Contains(call.body, `"stream":true`) || !strings.Contains(call.body, `"include_usage":true`) {
			t.Fatalf("upstream request %s", call.body)
		}
		if call.header.Get("Accept") != "text/event-stream" {
			t.Errorf("Accept %q", call.header.Get("Accept"))
		}
		if ct := w.Header().Get("Content-Type"); ct != "text/event-stream" {
			t.Errorf("Content-Type %q", ct)
		}
		got := strings.Join(anthropicEvents(w.Body.String()), ",")
		want := "message_start,content_block_start,content_block_delta,content_block_delta,content_block_stop,message_delta,message_stop"
		if got != want {
			t.Fatalf("chunk %d: events %s\n%s", chunk, got, w.Body)
		}
		if !strings.Contains(w.Body.String(), `"stop_reason":"end_turn"`) || !strings.Contains(w.Body.String(), `"input_tokens":7`) {
			t.Errorf("final usage or stop missing:\n%s", w.Body)
		}
	}
}

func TestStreamEndsWithErrorWhenTruncated(t *testing.T) {
	cut := chatStream[:strings.Index(chatStream, "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"gpt-x\",\"choices\":[{\"index\":0,\"delta\":{},")]
	tests := []struct {
		name   string
		answer func(w http.ResponseWriter) error
	}{
		{"clean end without [DONE]", sseAnswer(cut, 64, nil)},
		{"cut mid-line", sseAnswer(cut+`data: {"id":"chat`, 64, nil)},
		{"reverse_proxy aborts", func(w http.ResponseWriter) error {
			_ = sseAnswer(cut, 64, nil)(w)
			panic(http.ErrAbortHandler)
		}},
		{"next returns an error", sseAnswer(cut, 64, io.ErrUnexpectedEOF)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newTestHandler(t, &Handler{Upstream: "openai-chat"})
			w, _ := serve(t, h, streamRequest(), tt.answer)
			events := anthropicEvents(w.Body.String())
			if len(events) == 0 || events[len(events)-1] != "error" {
				t.Fatalf("events %v\n%s", events, w.Body)
			}
			for _, e := range events {
				if e == "message_stop" {
					t.Fatalf("a truncated stream ended cleanly:\n%s", w.Body)
				}
			}
			if strings.Count(w.Body.String(), "content_block_start") != strings.Count(w.Body.String(), "content_block_stop") {
				t.Errorf("a block was left open:\n%s", w.Body)
			}
		})
	}
}

func TestStreamEventTooLarge(t *testing.T) {
	h := newTestHandler(t, &Handler{Upstream: "openai-chat", MaxEventSize: 256})
	big := `data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"` + strings.Repeat("x", 1000) + `"}}]}` + "\n\n"
	w, _ := serve(t, h, streamRequest(), sseAnswer(big+chatStream, 100, nil))
	events := anthropicEvents(w.Body.String())
	if len(events) == 0 || events[len(events)-1] != "error" || !strings.Contains(w.Body.String(), "larger than 256 bytes") {
		t.Fatalf("events %v\n%s", events, w.Body)
	}
}

func TestStreamRequestAnsweredWithJSONError(t *testing.T) {
	h := newTestHandler(t, &Handler{Upstream: "openai-chat"})
	w, _ := serve(t, h, streamRequest(), jsonAnswer(429, `{"error":{"message":"slow down","type":"requests","code":"rate_limit_exceeded"}}`,
		"Retry-After", "7", "X-Ratelimit-Remaining-Requests", "0"))
	if w.Code != 429 || w.Header().Get("Retry-After") != "7" || w.Header().Get("X-Ratelimit-Remaining-Requests") != "0" {
		t.Fatalf("status %d headers %v", w.Code, w.Header())
	}
	if ct := w.Header().Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type %q", ct)
	}
	if gjson.Get(w.Body.String(), "error.type").Str != "rate_limit_error" || gjson.Get(w.Body.String(), "error.message").Str != "slow down" {
		t.Errorf("body %s", w.Body)
	}
}

func TestStreamRequestAnsweredWithJSONBody(t *testing.T) {
	h := newTestHandler(t, &Handler{Upstream: "openai-chat"})
	body := `{"id":"chatcmpl-9","object":"chat.completion","created":1,"model":"gpt-x","choices":[{"index":0,"message":{"role":"assistant","content":"Whole answer"},"finish_reason":"length"}],"usage":{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5}}`
	w, _ := serve(t, h, streamRequest(), jsonAnswer(200, body))
	if ct := w.Header().Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("Content-Type %q\n%s", ct, w.Body)
	}
	got := strings.Join(anthropicEvents(w.Body.String()), ",")
	if got != "message_start,content_block_start,content_block_delta,content_block_stop,message_delta,message_stop" ||
		!strings.Contains(w.Body.String(), `"stop_reason":"max_tokens"`) || !strings.Contains(w.Body.String(), "Whole answer") {
		t.Fatalf("events %s\n%s", got, w.Body)
	}
}

func TestPassthroughStreamWatched(t *testing.T) {
	const anthropicStream = "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"claude\",\"content\":[],\"stop_reason\":null,\"usage\":{\"input_tokens\":3,\"output_tokens\":0}}}\n\n" +
		"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n" +
		"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Hi\"}}\n\n"
	const end = "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n" +
		"event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":1}}\n\n" +
		"event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"
	body := `{"model":"claude","max_tokens":5,"stream":true,"messages":[{"role":"user","content":"hi"}]}`
	tests := []struct {
		name    string
		answer  func(w http.ResponseWriter) error
		want    string // exact body, or "" to expect a trailing error event
		wantErr bool
	}{
		{name: "complete stream passes byte for byte", answer: sseAnswer(anthropicStream+end, 13, nil), want: anthropicStream + end},
		{name: "clean end before message_stop", answer: sseAnswer(anthropicStream, 13, nil), wantErr: true},
		{name: "cut mid-line", answer: sseAnswer(anthropicStream+"event: content_bl", 13, nil), wantErr: true},
		{name: "reverse_proxy aborts", answer: func(w http.ResponseWriter) error {
			_ = sseAnswer(anthropicStream, 13, nil)(w)
			panic(http.ErrAbortHandler)
		}, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newTestHandler(t, &Handler{Upstream: "anthropic-messages"})
			w, _ := serve(t, h, httptest.NewRequest("POST", "/v1/messages", strings.NewReader(body)), tt.answer)
			got := w.Body.String()
			if !tt.wantErr {
				if got != tt.want {
					t.Fatalf("body changed:\n%s", got)
				}
				return
			}
			if !strings.HasPrefix(got, anthropicStream) || !strings.HasSuffix(got, "\n\n") || !strings.Contains(got[len(anthropicStream):], "event: error") {
				t.Fatalf("no error event after the partial stream:\n%s", got)
			}
			if strings.Contains(got, "message_stop") {
				t.Fatalf("a broken stream ended cleanly:\n%s", got)
			}
		})
	}
}

// TestStreamMaxEventSizeBoundary configures max_event_size in the
// Caddyfile and answers with an upstream stream whose largest event is a
// multi-line one of exactly that size, which must translate completely, and
// of one byte more, which must end the client's stream with an error and
// no message_stop. An event's size counts each of its lines with one byte
// for the line end.
func TestStreamMaxEventSizeBoundary(t *testing.T) {
	// The content chunk split over two data: lines (JSON allows the line
	// break between members); padded so that it is the largest event.
	line1 := `data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"gpt-x",`
	line2 := `data: "choices":[{"index":0,"delta":{"content":"` + strings.Repeat("x", 200) + `"},"finish_reason":null}]}`
	event := line1 + "\n" + line2 + "\n"
	size := len(line1) + 1 + len(line2) + 1
	first := chatStream[:strings.Index(chatStream, "\n\n")+2]
	stream := first + event + "\n" + chatStream[len(first):]
	for _, tt := range []struct {
		name string
		max  int
		ok   bool
	}{
		{"event of exactly max_event_size", size, true},
		{"event one byte over max_event_size", size - 1, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := &Handler{}
			input := fmt.Sprintf("llmbridge {\n\tupstream openai-chat\n\tmax_event_size %d\n}", tt.max)
			if err := h.UnmarshalCaddyfile(caddyfile.NewTestDispenser(input)); err != nil {
				t.Fatal(err)
			}
			if h.MaxEventSize != int64(tt.max) {
				t.Fatalf("max_event_size %d parsed as %d", tt.max, h.MaxEventSize)
			}
			h = newTestHandler(t, h)
			for _, chunk := range []int{1, 64, len(stream)} {
				w, _ := serve(t, h, streamRequest(), sseAnswer(stream, chunk, nil))
				body := w.Body.String()
				events := strings.Join(anthropicEvents(body), ",")
				if tt.ok {
					want := "message_start,content_block_start,content_block_delta,content_block_delta,content_block_delta,content_block_stop,message_delta,message_stop"
					if events != want || !strings.Contains(body, `"text":"`+strings.Repeat("x", 200)+`"`) {
						t.Fatalf("chunk %d: events %s\n%s", chunk, events, body)
					}
					continue
				}
				if !strings.HasSuffix(events, ",error") || strings.Contains(events, "message_stop") ||
					!strings.Contains(body, fmt.Sprintf("larger than %d bytes", tt.max)) || strings.Contains(body, "xxx") {
					t.Fatalf("chunk %d: events %s\n%s", chunk, events, body)
				}
			}
		})
	}
}
