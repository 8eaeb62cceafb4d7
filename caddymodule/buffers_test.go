package caddymodule

import (
	"testing"
	"time"

	"github.com/llmbridge/llmbridge/caddymodule/sessions"
	"github.com/llmbridge/llmbridge/codec"
)

// TestPooledRequestForgetsItsCaller gives back a request its caller set up
// for decoding (a kept conversation's, with an item store) and takes one
// from the pool: what one caller set must not reach the next, which would
// decode a previous_response_id it has to reject as recorded instead.
func TestPooledRequestForgetsItsCaller(t *testing.T) {
	for range 10 {
		req := getRequest()
		req.Conversations, req.Items = true, sessions.NewMemoryItems(1<<10, time.Minute)
		if err := codec.DecodeRequest(codec.OpenAIResponses, []byte(`{"model":"m","previous_response_id":"resp_1","input":"hi","store":false}`), req); err != nil {
			t.Fatal(err)
		}
		putRequest(req)
		next := getRequest()
		if next.Conversations || next.Items != nil || next.Continues != "" || next.Store.Set {
			t.Fatalf("a pooled request kept its caller's settings: conversations %v, items %v, continues %q, store %+v",
				next.Conversations, next.Items != nil, next.Continues, next.Store)
		}
		putRequest(next)
	}
}
