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

// TestKeepForStream checks what a streaming request keeps: its model,
// stream and numeric settings, its item store and the kind and names of
// the tools a stream encoder restores, none of them in the body it was
// decoded from or its scratch memory (both are written over before the
// checks), and that the request decodes again after Reset.
func TestKeepForStream(t *testing.T) {
	body := []byte(`{"model":"the-model","stream":true,"temperature":0.5,"max_output_tokens":99,"instructions":"Be \"brief\".",` +
		`"input":[{"role":"user","content":"Q \"1\""}],"tools":[` +
		`{"type":"namespace","name":"ns","tools":[{"type":"function","name":"f","parameters":{"type":"object"}}]},` +
		`{"type":"custom","name":"patch","description":"d"},{"type":"function","name":"plain","parameters":{"type":"object"}}]}`)
	var req codec.Request
	if err := codec.DecodeRequest(codec.OpenAIResponses, body, &req); err != nil {
		t.Fatal(err)
	}
	req.KeepForStream()
	for i := range body {
		body[i] = 'X'
	}
	for _, b := range [][]byte{req.Scratch().Text} {
		for i := range b[:cap(b)] {
			b[:cap(b)][i] = 'X'
		}
	}
	if req.Model != "the-model" || !req.Stream || req.Temperature.Value != 0.5 || req.MaxTokens.Value != 99 {
		t.Errorf("settings lost: %+v", req)
	}
	if req.System != nil || req.Messages != nil || len(req.Scratch().Text) != 0 {
		t.Errorf("the conversation or its memory kept: system %v, messages %v", req.System, req.Messages)
	}
	want := []codec.Tool{{Kind: codec.ToolFunction, Name: "f", Namespace: "ns"}, {Kind: codec.ToolCustom, Name: "patch"}}
	if len(req.Tools) != len(want) {
		t.Fatalf("tools kept: %+v, want %+v", req.Tools, want)
	}
	for i := range want {
		if got := req.Tools[i]; got.Kind != want[i].Kind || got.Name != want[i].Name || got.Namespace != want[i].Namespace || got.Description != "" || got.Parameters != "" {
			t.Errorf("tool %d: %+v, want %+v", i, got, want[i])
		}
	}
	req.Reset()
	if err := codec.DecodeRequest(codec.OpenAIResponses, []byte(`{"model":"m2","input":"hi"}`), &req); err != nil || req.Model != "m2" || len(req.Messages) != 1 {
		t.Errorf("decoding after KeepForStream and Reset: %v, %+v", err, req)
	}
}
