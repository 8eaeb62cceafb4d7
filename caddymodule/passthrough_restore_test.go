package caddymodule

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// readFromAnswer answers like sseAnswer and jsonAnswer, but copies body
// with the writer's ReadFrom, as reverse_proxy does when it can.
func readFromAnswer(contentType, body string) func(w http.ResponseWriter) error {
	return func(w http.ResponseWriter) error {
		w.Header().Set("Content-Type", contentType)
		w.WriteHeader(200)
		_, err := w.(io.ReaderFrom).ReadFrom(strings.NewReader(body))
		return err
	}
}

// TestPassthroughRestoresModel routes an Anthropic client's model to
// another model of the same protocol: the upstream's answer names the
// upstream model, and the client must get its own model back, in a JSON
// body (with a matching Content-Length) and in every event of a stream,
// whatever way the upstream's bytes are written, with usage still
// counted; response_model upstream leaves the upstream's name. Other
// bytes are unchanged.
func TestPassthroughRestoresModel(t *testing.T) {
	const jsonBody = `{"model":"claude-up","id":"msg_1","type":"message","role":"assistant","content":[{"type":"text","text":"Hi"}],` +
		`"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":9,"output_tokens":4}}`
	const stream = "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"claude-up\",\"content\":[],\"stop_reason\":null,\"usage\":{\"input_tokens\":9,\"output_tokens\":1}}}\n\n" +
		"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n" +
		"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Hi\"}}\n\n" +
		"event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n" +
		"event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":4}}\n\n" +
		"event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"
	request := func(streamed bool) *http.Request {
		body := `{"model":"claude-client","max_tokens":5,"messages":[{"role":"user","content":"hi"}]}`
		if streamed {
			body = strings.Replace(body, `{`, `{"stream":true,`, 1)
		}
		return httptest.NewRequest("POST", "/v1/messages", strings.NewReader(body))
	}
	tests := []struct {
		name          string
		streamed      bool
		upstreamModel bool // response_model upstream
		answer        func(w http.ResponseWriter) error
		want          string // the body the client must get
	}{
		{name: "JSON body", answer: jsonAnswer(200, jsonBody),
			want: strings.Replace(jsonBody, `"claude-up"`, `"claude-client"`, 1)},
		{name: "JSON body through ReadFrom", answer: readFromAnswer("application/json", jsonBody),
			want: strings.Replace(jsonBody, `"claude-up"`, `"claude-client"`, 1)},
		{name: "JSON body, response_model upstream", upstreamModel: true, answer: jsonAnswer(200, jsonBody), want: jsonBody},
		{name: "stream in small writes", streamed: true, answer: sseAnswer(stream, 7, nil),
			want: strings.Replace(stream, `"claude-up"`, `"claude-client"`, 1)},
		{name: "stream through ReadFrom", streamed: true, answer: readFromAnswer("text/event-stream", stream),
			want: strings.Replace(stream, `"claude-up"`, `"claude-client"`, 1)},
		{name: "stream, response_model upstream", streamed: true, upstreamModel: true, answer: sseAnswer(stream, 7, nil), want: stream},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := &Handler{Upstream: "anthropic-messages", Models: []ModelRoute{{Match: "claude-client", Upstream: "claude-up"}}}
			if tt.upstreamModel {
				h.ResponseModel = "upstream"
			}
			h = newTestHandler(t, h)
			w, rec := serveRecorded(t, h, request(tt.streamed), tt.answer)
			if w.Code != 200 {
				t.Fatalf("status %d: %s", w.Code, w.Body)
			}
			if got := w.Body.String(); got != tt.want {
				t.Fatalf("client body\n%s\nwant\n%s", got, tt.want)
			}
			if !tt.streamed && !tt.upstreamModel {
				if cl := w.Header().Get("Content-Length"); cl != strconv.Itoa(len(tt.want)) {
					t.Errorf("Content-Length %q, want %d", cl, len(tt.want))
				}
				if gjson.Get(w.Body.String(), "model").Str != "claude-client" {
					t.Errorf("model %q", gjson.Get(w.Body.String(), "model").Str)
				}
			}
			for name, want := range map[string]any{"model": "claude-client", "upstream_model": "claude-up", "input_tokens": int64(9),
				"output_tokens": int64(4), "stop_reason": "end"} {
				if got, _ := rec.placeholder(name); got != want {
					t.Errorf("%s = %#v, want %#v", name, got, want)
				}
			}
		})
	}
}

// TestTranslatedAnswerThroughReadFrom checks that an upstream answer copied
// with the writer's ReadFrom, as reverse_proxy does, is translated like
// one written piece by piece: a JSON body and a stream from a Chat
// upstream reach an Anthropic client complete.
func TestTranslatedAnswerThroughReadFrom(t *testing.T) {
	const chatJSON = `{"id":"chatcmpl-9","object":"chat.completion","created":1,"model":"gpt-x","choices":[{"index":0,"message":{"role":"assistant","content":"Whole answer"},"finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5}}`
	tests := []struct {
		name   string
		req    *http.Request
		answer func(w http.ResponseWriter) error
		events string // the client's Anthropic events, or "" for a JSON body
	}{
		{name: "JSON", req: httptest.NewRequest("POST", "/v1/messages", strings.NewReader(`{"model":"gpt-x","max_tokens":10,"messages":[{"role":"user","content":"hi"}]}`)),
			answer: readFromAnswer("application/json", chatJSON)},
		{name: "stream", req: streamRequest(), answer: readFromAnswer("text/event-stream", chatStream),
			events: "message_start,content_block_start,content_block_delta,content_block_delta,content_block_stop,message_delta,message_stop"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newTestHandler(t, &Handler{Upstream: "openai-chat"})
			w, _ := serve(t, h, tt.req, tt.answer)
			if w.Code != 200 {
				t.Fatalf("status %d: %s", w.Code, w.Body)
			}
			if tt.events == "" {
				if gjson.Get(w.Body.String(), "content.0.text").Str != "Whole answer" || gjson.Get(w.Body.String(), "stop_reason").Str != "end_turn" {
					t.Errorf("body %s", w.Body)
				}
				return
			}
			if got := strings.Join(anthropicEvents(w.Body.String()), ","); got != tt.events {
				t.Errorf("events %s\n%s", got, w.Body)
			}
		})
	}
}
