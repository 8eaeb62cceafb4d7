package caddymodule

import (
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// TestPreviousResponseID continues a Responses client's tool loop by
// previous_response_id through an Anthropic upstream: the second request
// carries only the tool's output, and the upstream gets the whole
// conversation.
func TestPreviousResponseID(t *testing.T) {
	const text = "Let me look up the weather."
	answer := `{"id":"msg_01A","type":"message","role":"assistant","model":"claude-x","content":[{"type":"text","text":` + strconv.Quote(text) + `},` +
		`{"type":"tool_use","id":"toolu_1","name":"weather","input":{"city":"Paris"}}],"stop_reason":"tool_use","usage":{"input_tokens":5,"output_tokens":3}}`
	stream := "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_01A\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"claude-x\",\"content\":[],\"usage\":{\"input_tokens\":5,\"output_tokens\":1}}}\n\n" +
		"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n" +
		"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":" + strconv.Quote(text) + "}}\n\n" +
		"event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n" +
		"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":1,\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_1\",\"name\":\"weather\",\"input\":{}}}\n\n" +
		"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"city\\\":\\\"Paris\\\"}\"}}\n\n" +
		"event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":1}\n\n" +
		"event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"tool_use\"},\"usage\":{\"output_tokens\":3}}\n\n" +
		"event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"
	const tools = `"tools":[{"type":"function","name":"weather","parameters":{"type":"object","properties":{"city":{"type":"string"}}}}]`
	for _, tc := range []struct {
		name   string
		first  string // fields of the first request besides model, input and tools
		stream bool
		kept   bool
	}{
		{"response", ``, false, true},
		{"stream", `"stream":true,`, true, true},
		{"store false", `"store":false,`, false, false},
		{"stream, store false", `"stream":true,"store":false,`, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newTestHandler(t, &Handler{Upstream: "anthropic-messages"})
			first := `{"model":"claude-x",` + tc.first + `"instructions":"Be brief.","input":"Weather in Paris?",` + tools + `}`
			next := jsonAnswer(200, answer)
			if tc.stream {
				next = sseAnswer(stream, 40, nil)
			}
			w, _ := serve(t, h, httptest.NewRequest("POST", "/v1/responses", strings.NewReader(first)), next)
			id := gjson.Get(w.Body.String(), "id").Str
			if tc.stream {
				for _, line := range strings.Split(w.Body.String(), "\n") {
					if data, ok := strings.CutPrefix(line, "data: "); ok && gjson.Get(data, "type").Str == "response.completed" {
						id = gjson.Get(data, "response.id").Str
					}
				}
			}
			if w.Code != 200 || id == "" {
				t.Fatalf("first answer %d without an id: %s", w.Code, w.Body)
			}
			second := `{"model":"claude-x","previous_response_id":"` + id + `","input":[{"type":"function_call_output","call_id":"toolu_1","output":"sunny"}],` + tools + `}`
			w, call := serve(t, h, httptest.NewRequest("POST", "/v1/responses", strings.NewReader(second)), jsonAnswer(200, answer))
			if !tc.kept {
				if call.called || w.Code != 400 || gjson.Get(w.Body.String(), "error.code").Str != "previous_response_not_found" ||
					gjson.Get(w.Body.String(), "error.param").Str != "previous_response_id" {
					t.Errorf("continuing a store: false response: %d %s (upstream called: %v)", w.Code, w.Body, call.called)
				}
				return
			}
			if w.Code != 200 {
				t.Fatalf("second answer %d: %s", w.Code, w.Body)
			}
			body := gjson.Parse(call.body)
			if body.Get("system").Exists() {
				t.Errorf("the first request's instructions were carried over: %s", call.body)
			}
			msgs := body.Get("messages").Array()
			if len(msgs) != 3 || msgs[0].Get("content").String() != "Weather in Paris?" && msgs[0].Get("content.0.text").Str != "Weather in Paris?" ||
				msgs[1].Get("content.0.text").Str != text || msgs[1].Get("content.1.id").Str != "toolu_1" ||
				msgs[2].Get("content.0.type").Str != "tool_result" {
				t.Errorf("upstream got %s", call.body)
			}
			// The answer to the second request continues in turn.
			third := `{"model":"claude-x","previous_response_id":"` + gjson.Get(w.Body.String(), "id").Str + `","input":"Thanks",` + tools + `}`
			_, call = serve(t, h, httptest.NewRequest("POST", "/v1/responses", strings.NewReader(third)), jsonAnswer(200, answer))
			if n := len(gjson.Get(call.body, "messages").Array()); n != 5 {
				t.Errorf("third request: %d messages upstream, want 5: %s", n, call.body)
			}
		})
	}
}

func TestPreviousResponseIDRefused(t *testing.T) {
	for _, tc := range []struct {
		name     string
		handler  *Handler
		id       string
		status   int
		code     string
		upstream bool // the request reaches the upstream as it was
	}{
		{"unknown id", &Handler{Upstream: "openai-chat"}, "resp_0123", 400, "previous_response_not_found", false},
		{"not a response id", &Handler{Upstream: "gemini"}, "msg_0123", 400, "previous_response_not_found", false},
		{"conversations off", &Handler{Upstream: "anthropic-messages", ConversationsSize: -1}, "resp_0123", 400, "", false},
		{"passed through to a Responses upstream", &Handler{Upstream: "openai-responses"}, "resp_0123", 200, "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newTestHandler(t, tc.handler)
			body := `{"model":"m","previous_response_id":"` + tc.id + `","input":"hi"}`
			w, call := serve(t, h, httptest.NewRequest("POST", "/v1/responses", strings.NewReader(body)), jsonAnswer(200, `{"id":"resp_1","object":"response","status":"completed","output":[]}`))
			if w.Code != tc.status || gjson.Get(w.Body.String(), "error.code").Str != tc.code || call.called != tc.upstream ||
				tc.upstream && call.body != body {
				t.Errorf("%d %s; upstream called %v with %s", w.Code, w.Body, call.called, call.body)
			}
			if tc.code != "" && !strings.Contains(gjson.Get(w.Body.String(), "error.message").Str, tc.id) {
				t.Errorf("the message does not name the id: %s", w.Body)
			}
		})
	}
}

// TestCodexMetadataPassthrough sends the input items of Codex's built-in
// OpenAI provider, each with its internal_chat_message_metadata_passthrough:
// toward another protocol they are dropped and listed; toward a Responses
// upstream they pass through.
func TestCodexMetadataPassthrough(t *testing.T) {
	const meta = `"internal_chat_message_metadata_passthrough":{"turn_id":"t1"}`
	body := `{"model":"m","store":false,"tools":[{"type":"function","name":"f","parameters":{"type":"object"}}],"input":[` +
		`{"type":"message","role":"user","content":[{"type":"input_text","text":"Hi"}],` + meta + `},` +
		`{"type":"reasoning","id":"rs_1","summary":[],` + meta + `},` +
		`{"type":"function_call","call_id":"c1","name":"f","arguments":"{}",` + meta + `},` +
		`{"type":"function_call_output","call_id":"c1","output":"ok",` + meta + `}]}`
	for _, upstream := range []string{"anthropic-messages", "openai-chat", "gemini", "openai-responses"} {
		t.Run(upstream, func(t *testing.T) {
			h := newTestHandler(t, &Handler{Upstream: upstream})
			w, call := serve(t, h, httptest.NewRequest("POST", "/v1/responses", strings.NewReader(body)), jsonAnswer(500, `{}`))
			if !call.called {
				t.Fatalf("refused: %d %s", w.Code, w.Body)
			}
			dropped := w.Header().Get("Llmbridge-Dropped")
			if upstream == "openai-responses" {
				if n := strings.Count(call.body, "internal_chat_message_metadata_passthrough"); n != 4 || strings.Contains(dropped, "internal_chat") {
					t.Errorf("passed through with %d of the 4 metadata members (dropped: %q): %s", n, dropped, call.body)
				}
				return
			}
			for _, i := range []string{"0", "1", "2", "3"} {
				if !strings.Contains(dropped, "input["+i+"].internal_chat_message_metadata_passthrough") {
					t.Errorf("Llmbridge-Dropped %q does not list input[%s]", dropped, i)
				}
			}
			if strings.Contains(call.body, "internal_chat") {
				t.Errorf("the metadata reached the upstream: %s", call.body)
			}
		})
	}
}

// TestPreviousResponseIDScope continues a response only for the client
// that created it: its client key on a site with client_keys, its
// credential on a site that passes it on.
func TestPreviousResponseIDScope(t *testing.T) {
	answer := `{"id":"msg_01A","type":"message","role":"assistant","model":"claude-x","content":[{"type":"text","text":"Hi"}],"stop_reason":"end_turn","usage":{"input_tokens":5,"output_tokens":3}}`
	for _, tc := range []struct {
		name           string
		handler        *Handler
		owner, another string // Authorization headers
	}{
		{"client keys", &Handler{Upstream: "anthropic-messages", ClientKeys: []ClientKey{{Name: "a", Key: "key-a"}, {Name: "b", Key: "key-b"}}}, "Bearer key-a", "Bearer key-b"},
		{"credentials passed on", &Handler{Upstream: "anthropic-messages"}, "Bearer sk-a", "Bearer sk-b"},
		{"no credential and one", &Handler{Upstream: "anthropic-messages"}, "", "Bearer sk-b"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newTestHandler(t, tc.handler)
			post := func(auth, body string) (*httptest.ResponseRecorder, *upstreamCall) {
				r := httptest.NewRequest("POST", "/v1/responses", strings.NewReader(body))
				if auth != "" {
					r.Header.Set("Authorization", auth)
				}
				return serve(t, h, r, jsonAnswer(200, answer))
			}
			w, _ := post(tc.owner, `{"model":"claude-x","input":"Hi"}`)
			id := gjson.Get(w.Body.String(), "id").Str
			next := `{"model":"claude-x","previous_response_id":"` + id + `","input":"Again"}`
			if w, call := post(tc.another, next); w.Code != 400 || call.called {
				t.Errorf("another client continued the conversation: %d %s", w.Code, w.Body)
			}
			if w, _ := post(tc.owner, next); w.Code != 200 {
				t.Errorf("its own client could not continue it: %d %s", w.Code, w.Body)
			}
		})
	}
}
