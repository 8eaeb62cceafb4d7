package caddymodule

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
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
	c := wstest.Dial(t, site.URL, nil, 5*time.Second)
	wstest.Send(t, c, `{"type":"response.create","model":"claude-x","store":false,"instructions":"Be brief.","input":"Weather in Paris?",`+wsTools+`}`)
	first := wstest.Turn(t, c)
	done := first[len(first)-1]
	if done.Get("type").Str != "response.completed" || first[0].Get("type").Str != "response.created" {
		t.Fatalf("first turn: %v", first)
	}
	id := done.Get("response.id").Str
	for turn := 2; turn <= 4; turn++ {
		wstest.Send(t, c, `{"type":"response.create","model":"claude-x","store":false,"previous_response_id":"`+id+`","input":[{"type":"function_call_output","call_id":"toolu_1","output":"sunny"}],`+wsTools+`}`)
		events := wstest.Turn(t, c)
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

// TestWebSocketRefusals sends turns the handler refuses, through a
// socket: each is answered with an error event in OpenAI's format, and the
// connection stays usable unless the refusal closes it. The refusals of
// the transport itself are caddymodule/websocket's tests.
func TestWebSocketRefusals(t *testing.T) {
	h := newTestHandler(t, &Handler{Upstream: "openai-chat", MaxRequestBody: 4096})
	site := socketSite(t, h, func(w http.ResponseWriter, r *http.Request) error {
		return sseAnswer("data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"Hi\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n", 64, nil)(w)
	})
	for _, tc := range []struct {
		name   string
		frame  string
		code   string // error.code, or error.type when it has no code
		closes websocket.StatusCode
	}{
		{"unknown previous_response_id", `{"type":"response.create","model":"m","previous_response_id":"resp_nope","input":"hi"}`, "previous_response_not_found", 0},
		{"unknown field", `{"type":"response.create","model":"m","input":"hi","bogus":1}`, "invalid_request_error", 0},
		// The handler's max_request_body bounds a frame.
		{"oversized frame", `{"type":"response.create","input":"` + strings.Repeat("a", 5000) + `"}`, "invalid_request_error", websocket.StatusMessageTooBig},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := wstest.Dial(t, site.URL, nil, 5*time.Second)
			wstest.Send(t, c, tc.frame)
			ev := wstest.Turn(t, c)[0]
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
			wstest.Send(t, c, `{"type":"response.create","model":"m","input":"hi"}`)
			if last := wstest.Turn(t, c); last[len(last)-1].Get("type").Str != "response.completed" {
				t.Fatalf("after the refusal: %s", last[len(last)-1].Raw)
			}
		})
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
	c := wstest.Dial(t, site.URL, http.Header{"Authorization": {"Bearer sk-good"}}, 5*time.Second)
	_ = c.Close(websocket.StatusNormalClosure, "")
	req, _ := http.NewRequest("GET", site.URL+"/v1/responses", nil)
	req.Header.Set("Authorization", "Bearer sk-good")
	req.Header.Set("Upgrade", "websocket")
	r, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Body.Close()
	if r.StatusCode != 400 || r.Header.Get("Content-Type") != "application/json" || r.Header.Get("Sec-WebSocket-Version") != "13" {
		t.Fatalf("an invalid handshake: %d %s", r.StatusCode, r.Header)
	}
}
