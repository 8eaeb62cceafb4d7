package caddymodule

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"unsafe"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/llmbridge/llmbridge/caddymodule/internal/pool"
	"github.com/llmbridge/llmbridge/codec"
)

// TestOpenStreamGivesBackClientBody checks that a stream gives the pooled
// buffer holding the client's body back as soon as it opens, translated
// and passed through, and that nothing the stream reads afterwards points
// into it: once the stream is open, the upstream takes every buffer of
// that size the pool has and writes over it, and the rest of the stream
// must still come out right (a Responses client's namespaced tool is
// restored from the request's tool names, escaped in the body so that
// they are unescaped into the decode memory the stream gives back too).
// The header copy kept to retry the request goes back too: nothing
// retries a stream.
func TestOpenStreamGivesBackClientBody(t *testing.T) {
	const chunk = `data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"up","choices":[{"index":0,"delta":%s,"finish_reason":%s}]}` + "\n\n"
	chat := func(delta, finish string) string {
		return strings.Replace(strings.Replace(chunk, "%s", delta, 1), "%s", finish, 1)
	}
	cases := []struct {
		name     string
		client   codec.Protocol
		upstream string
		path     string
		body     string
		// open is the upstream's stream up to its first content; rest
		// follows once the client's body buffer has been written over.
		open, rest string
		want       []string
	}{{
		name: "translated", client: codec.OpenAIResponses, upstream: "openai-chat", path: "/v1/responses",
		// Escaped names are unescaped into the decode memory, which the
		// stream gives back too: the upstream writes over that as well.
		body: `{"model":"client\u002dmodel","stream":true,"input":"Use the tool, please.","tools":[` +
			`{"type":"namespace","name":"n\u0073","tools":[{"type":"function","name":"\u0066","parameters":{"type":"object"}}]},` +
			`{"type":"function","name":"g","description":"` + strings.Repeat("a long description ", 200) + `","parameters":{"type":"object"}}]}`,
		open: chat(`{"role":"assistant","content":"Calling."}`, "null"),
		rest: chat(`{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"ns__f","arguments":"{}"}}]}`, "null") +
			chat(`{}`, `"tool_calls"`) + "data: [DONE]\n\n",
		want: []string{`"namespace":"ns"`, `"name":"f"`, "response.completed"},
	}, {
		name: "passthrough", client: codec.AnthropicMessages, upstream: "anthropic-messages", path: "/v1/messages",
		body: `{"model":"claude-x","max_tokens":10,"stream":true,"messages":[{"role":"user","content":"` + strings.Repeat("hello ", 600) + `"}]}`,
		open: "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m1\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"claude-x\",\"content\":[],\"stop_reason\":null,\"usage\":{\"input_tokens\":3,\"output_tokens\":0}}}\n\n" +
			"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n" +
			"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Hi\"}}\n\n",
		rest: "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n" +
			"event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":1}}\n\n" +
			"event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n",
		want: []string{`"text":"Hi"`, "message_stop"},
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := newAllocServer(t, tc.client, tc.upstream)
			// The stateless path: a site keeping conversations holds the
			// client's body until the answer ends, as the conversation
			// kept is built from it.
			s.h.conversations.Store = nil
			size := requestBufferSize(&http.Request{ContentLength: int64(len(tc.body))})
			// The pool is per processor and drops items under the race
			// detector: a few tries for the buffer to be seen again.
			released, headerBack := false, false
			for try := 0; try < 5 && !(released && headerBack); try++ {
				// The buffer ServeHTTP will take: the one just put back;
				// the same for the attempt's header copy.
				seed := pool.Get(size)
				clientBuf := unsafe.SliceData((*seed)[:1])
				pool.Put(seed)
				seedHeader := headerPool.Get().(http.Header)
				headerPool.Put(seedHeader)
				next := caddyhttp.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
					_, _ = io.Copy(io.Discard, r.Body)
					w.Header().Set("Content-Type", "text/event-stream")
					w.WriteHeader(http.StatusOK)
					_, _ = io.WriteString(w, tc.open)
					if hdr := headerPool.Get().(http.Header); reflect.ValueOf(hdr).UnsafePointer() == reflect.ValueOf(seedHeader).UnsafePointer() {
						headerBack = true
					} else {
						headerPool.Put(hdr)
					}
					// The decode memory the stream gave back, in the request
					// the next decode would take.
					for range 4 {
						spare := getRequest()
						text := spare.Scratch().Text
						for i := range text[:cap(text)] {
							text[:cap(text)][i] = 'X'
						}
						defer putRequest(spare)
					}
					var taken []*[]byte
					for range 8 {
						b := pool.Get(size)
						all := (*b)[:cap(*b)]
						if unsafe.SliceData(all) == clientBuf {
							released = true
						}
						for i := range all {
							all[i] = 'X'
						}
						taken = append(taken, b)
					}
					_, err := io.WriteString(w, tc.rest)
					for _, b := range taken {
						pool.Put(b)
					}
					return err
				})
				r := httptest.NewRequestWithContext(s.rctx, http.MethodPost, tc.path, bytes.NewReader([]byte(tc.body)))
				r.Header.Set("X-Api-Key", "k")
				r.Header.Set("Authorization", "Bearer k")
				w := httptest.NewRecorder()
				if err := s.h.ServeHTTP(w, r, next); err != nil || w.Code != http.StatusOK {
					t.Fatalf("%v, status %d: %.300s", err, w.Code, w.Body.String())
				}
				out := w.Body.String()
				if strings.Contains(out, "XXXX") {
					t.Fatalf("the stream read the client's body after giving it back: %s", out)
				}
				for _, want := range tc.want {
					if !strings.Contains(out, want) {
						t.Fatalf("the stream lacks %s: %s", want, out)
					}
				}
			}
			if !released && !raceEnabled {
				t.Error("the client's body buffer was not given back when the stream opened")
			}
			if !headerBack && !raceEnabled {
				t.Error("the attempt's header copy was not given back when the stream opened")
			}
		})
	}
}
