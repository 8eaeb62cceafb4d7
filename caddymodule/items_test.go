package caddymodule

import (
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// TestItemReferences runs a Responses client's tool loop through an
// Anthropic upstream: the items of the first answer, streamed and not, are
// referred to by id in the second request, and the upstream gets them
// back; with item_cache off only a short text is restored.
func TestItemReferences(t *testing.T) {
	const long = "Let me look up the current weather in Paris with the weather tool."
	answer := `{"id":"msg_01A","type":"message","role":"assistant","model":"claude-x","content":[{"type":"text","text":` + strconv.Quote(long) + `},` +
		`{"type":"tool_use","id":"toolu_1","name":"weather","input":{"city":"Paris"}}],"stop_reason":"tool_use","usage":{"input_tokens":5,"output_tokens":3}}`
	stream := "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_01A\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"claude-x\",\"content\":[],\"usage\":{\"input_tokens\":5,\"output_tokens\":1}}}\n\n" +
		"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n" +
		"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":" + strconv.Quote(long) + "}}\n\n" +
		"event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n" +
		"event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":3}}\n\n" +
		"event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"
	const tools = `"tools":[{"type":"function","name":"weather","parameters":{"type":"object","properties":{"city":{"type":"string"}}}}]`
	for _, tc := range []struct {
		name      string
		cacheSize int64
		stream    bool
		restored  bool
	}{
		{"response", 0, false, true},
		{"stream", 0, true, true},
		{"response, no cache", -1, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newTestHandler(t, &Handler{Upstream: "anthropic-messages", ItemCacheSize: tc.cacheSize})
			first := `{"model":"claude-x","input":"Weather in Paris?",` + tools + `}`
			next := jsonAnswer(200, answer)
			if tc.stream {
				first = `{"model":"claude-x","stream":true,"input":"Weather in Paris?",` + tools + `}`
				next = sseAnswer(stream, 40, nil)
			}
			w, _ := serve(t, h, httptest.NewRequest("POST", "/v1/responses", strings.NewReader(first)), next)
			var id string
			if tc.stream {
				for _, line := range strings.Split(w.Body.String(), "\n") {
					if data, ok := strings.CutPrefix(line, "data: "); ok && gjson.Get(data, "type").Str == "response.output_item.added" {
						id = gjson.Get(data, "item.id").Str
						break
					}
				}
			} else {
				id = gjson.Get(w.Body.String(), "output.0.id").Str
			}
			if id == "" || len(id) > 64 {
				t.Fatalf("message id %q in %s", id, w.Body)
			}
			second := `{"model":"claude-x","input":[{"role":"user","content":"Weather in Paris?"},{"type":"item_reference","id":"` + id + `"},` +
				`{"type":"function_call","call_id":"toolu_1","name":"weather","arguments":"{\"city\":\"Paris\"}"},` +
				`{"type":"function_call_output","call_id":"toolu_1","output":"sunny"}],` + tools + `}`
			w, call := serve(t, h, httptest.NewRequest("POST", "/v1/responses", strings.NewReader(second)), jsonAnswer(200, answer))
			if !tc.restored {
				if call.called || w.Code != 400 || gjson.Get(w.Body.String(), "error.param").Str != "input[1]" {
					t.Errorf("a reference without the cache: %d %s (upstream called: %v)", w.Code, w.Body, call.called)
				}
				return
			}
			if w.Code != 200 || gjson.Get(call.body, "messages.1.content.0.text").Str != long {
				t.Errorf("%d %s; upstream got %s", w.Code, w.Body, call.body)
			}
		})
	}
}
