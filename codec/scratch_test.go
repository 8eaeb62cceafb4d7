package codec_test

import (
	"testing"

	"github.com/llmbridge/llmbridge/codec"
	_ "github.com/llmbridge/llmbridge/codec/all"
)

// TestRequestReuse decodes bodies of every client protocol one after the
// other into the same Request, reset in between as a server that pools
// its requests does, and checks each against a fresh decode: the memory
// one decode leaves (Scratch, the slices Reset keeps) must never show
// through in the next, whichever protocols they are.
func TestRequestReuse(t *testing.T) {
	bodies := []struct {
		p    codec.Protocol
		body string
	}{
		{codec.OpenAIChat, `{"model":"m","messages":[{"role":"system","content":"Be \"terse\"."},{"role":"user","content":"Say \"hi\"."},{"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{\"a\":1}"}}]},{"role":"tool","tool_call_id":"c1","content":"out\n1"}]}`},
		{codec.AnthropicMessages, `{"model":"m","max_tokens":10,"system":"You are \"kind\".","messages":[{"role":"user","content":"Say \"hola\"."},{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"f","input":{"a":1}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"r\n2"},{"type":"text","text":"next \"one\""}]}]}`},
		{codec.OpenAIResponses, `{"model":"m","instructions":"Be \"brief\".","input":[{"role":"user","content":"Q \"1\""},{"type":"function_call","call_id":"c","name":"f","arguments":"{}"},{"type":"function_call_output","call_id":"c","output":"o\n3"}]}`},
		{codec.Gemini, `{"systemInstruction":{"parts":[{"text":"Sys \"g\""}]},"contents":[{"role":"user","parts":[{"text":"A \"b\""}]},{"role":"model","parts":[{"functionCall":{"name":"f","args":{}}}]},{"role":"user","parts":[{"functionResponse":{"name":"f","response":{"output":"x\ny"}}}]}]}`},
	}
	var reused codec.Request
	// Twice round, so that every protocol follows every other's memory.
	for round := range 2 {
		for i := range bodies {
			b := bodies[(i+round)%len(bodies)]
			reused.Reset()
			if err := codec.DecodeRequest(b.p, []byte(b.body), &reused); err != nil {
				t.Fatalf("%s: %v", b.p, err)
			}
			var fresh codec.Request
			if err := codec.DecodeRequest(b.p, []byte(b.body), &fresh); err != nil {
				t.Fatal(err)
			}
			got, err := codec.AppendRequest(nil, codec.AnthropicMessages, &reused, codec.EncodeOptions{Model: "m"})
			if err != nil {
				t.Fatal(err)
			}
			want, err := codec.AppendRequest(nil, codec.AnthropicMessages, &fresh, codec.EncodeOptions{Model: "m"})
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != string(want) {
				t.Errorf("round %d, %s after a reset:\n got %s\nwant %s", round, b.p, got, want)
			}
		}
	}
}
