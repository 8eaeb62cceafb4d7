package responses

import (
	"strings"
	"testing"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/codectest"
	"github.com/llmbridge/llmbridge/mapping"
	"github.com/tidwall/gjson"
)

// TestResponsesOpaqueItems: Responses output items llmbridge does not
// translate (a compaction item, hosted tools' calls, types added later)
// never fail an answer: they travel in an Anthropic client's signature and
// come back whole, in place, to a Responses upstream on the next turn.
func TestResponsesOpaqueItems(t *testing.T) {
	items := []string{
		`{"type":"compaction","id":"cmp_1","encrypted_content":"gAAAAAB"}`,
		`{"type":"code_interpreter_call","id":"ci_1","status":"completed","code":"print(4)","outputs":[]}`,
		`{"type":"item_of_2027","id":"x_1"}`,
	}
	for _, item := range items {
		body := `{"id":"resp_1","object":"response","status":"completed","model":"gpt-5","output":[` + item +
			`,{"type":"message","id":"msg_1","role":"assistant","status":"completed","content":[{"type":"output_text","text":"The answer.","annotations":[]}]}],` +
			`"usage":{"input_tokens":10,"output_tokens":5,"total_tokens":15}}`
		var resp codec.Response
		if err := codec.DecodeResponse(codec.OpenAIResponses, []byte(body), &resp); err != nil {
			t.Fatalf("%s: %v", item, err)
		}
		want := codec.Part{Type: codec.PartReasoning, Redacted: true, Origin: mapping.FamilyOpenAI, Signature: item}
		if len(resp.Content) != 2 || !codectest.EqualDecoded(resp.Content[0], want) || resp.Content[1].Text != "The answer." {
			t.Fatalf("%s: content %+v", item, resp.Content)
		}
		out, err := codec.AppendResponse(nil, codec.AnthropicMessages, &resp)
		if err != nil {
			t.Fatal(err)
		}
		data := gjson.GetBytes(out, "content.0.data").Str
		if !mapping.IsEnvelope(data) || gjson.GetBytes(out, "content.1.text").Str != "The answer." {
			t.Fatalf("%s: %s", item, out)
		}
		content := gjson.GetBytes(out, "content").Raw
		next := `{"model":"m","max_tokens":100,"messages":[{"role":"user","content":"Q"},{"role":"assistant","content":` + content +
			`},{"role":"user","content":"And then?"}]}`
		var req codec.Request
		if err := codec.DecodeRequest(codec.AnthropicMessages, []byte(next), &req); err != nil {
			t.Fatal(err)
		}
		up, err := codec.AppendRequest(nil, codec.OpenAIResponses, &req, codec.EncodeOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if got := gjson.GetBytes(up, "input.1").Raw; got != item {
			t.Errorf("the item came back as %s, want %s\n%s", got, item, up)
		}
		if strings.Contains(string(out), "print(4)") {
			t.Errorf("the item's content reached the client: %s", out)
		}
	}
}

// TestResponsesStreamOpaqueItems: in a stream, an item llmbridge does not
// translate is emitted whole at its output_item.done, the text after it
// flows, and an Anthropic client gets it as redacted thinking; a call the
// client must run still fails the stream.
func TestResponsesStreamOpaqueItems(t *testing.T) {
	item := `{"type":"compaction","id":"cmp_1","encrypted_content":"gAAAAAB"}`
	ev := func(typ, fields string) string {
		return "event: " + typ + "\ndata: {\"type\":\"" + typ + "\"," + fields + "}\n\n"
	}
	resp := `{"id":"resp_1","object":"response","status":"in_progress","model":"gpt-5","output":[]}`
	body := ev("response.created", `"response":`+resp) +
		ev("response.output_item.added", `"output_index":0,"item":{"type":"compaction","id":"cmp_1"}`) +
		ev("response.compaction.in_progress", `"output_index":0`) +
		ev("response.output_item.done", `"output_index":0,"item":`+item) +
		ev("response.output_item.added", `"output_index":1,"item":{"type":"message","id":"msg_1","role":"assistant","status":"in_progress","content":[]}`) +
		ev("response.content_part.added", `"item_id":"msg_1","output_index":1,"content_index":0,"part":{"type":"output_text","text":"","annotations":[]}`) +
		ev("response.output_text.delta", `"item_id":"msg_1","output_index":1,"content_index":0,"delta":"The answer."`) +
		ev("response.output_text.done", `"item_id":"msg_1","output_index":1,"content_index":0,"text":"The answer."`) +
		ev("response.output_item.done", `"output_index":1,"item":{"type":"message","id":"msg_1","role":"assistant","status":"completed","content":[{"type":"output_text","text":"The answer.","annotations":[]}]}`) +
		ev("response.completed", `"response":{"id":"resp_1","object":"response","status":"completed","model":"gpt-5","output":[],"usage":{"input_tokens":3,"output_tokens":2,"total_tokens":5}}`)
	evs := codectest.DecodeStream(t, codec.OpenAIResponses, body, nil)
	var sig string
	for _, e := range evs {
		if e.Type == codec.EventPartStop && e.Signature != "" {
			sig = e.Signature
		}
		if e.Type == codec.EventError {
			t.Fatalf("the stream failed: %v", e.Err)
		}
	}
	if sig != item {
		t.Fatalf("opaque value %q, want the item %s", sig, item)
	}
	sse := codectest.EncodeStream(codec.AnthropicMessages, &codec.Request{Model: "m", Stream: true}, evs)
	if !strings.Contains(sse, `"type":"redacted_thinking","data":"llmbridge.v1.`) || !strings.Contains(sse, "The answer.") {
		t.Errorf("Anthropic client stream:\n%s", sse)
	}

	bad := ev("response.created", `"response":`+resp) +
		ev("response.output_item.added", `"output_index":0,"item":{"type":"local_shell_call","id":"ls_1"}`)
	evs = codectest.DecodeStream(t, codec.OpenAIResponses, bad, nil)
	if last := evs[len(evs)-1]; last.Type != codec.EventError || !strings.Contains(last.Err.Message, "local_shell_call") {
		t.Errorf("a call the client must run: last event %+v", last)
	}
}

// TestResponsesDisplayParts: a content part of a type llmbridge does not
// translate (output_audio) is display: dropped and listed, while the text
// beside it reaches the client.
func TestResponsesDisplayParts(t *testing.T) {
	body := `{"id":"resp_1","object":"response","status":"completed","model":"gpt-5","output":[{"type":"message","id":"msg_1","role":"assistant",` +
		`"content":[{"type":"output_audio","data":"UklGR","transcript":"x"},{"type":"output_text","text":"The answer.","annotations":[]}]}]}`
	var resp codec.Response
	if err := codec.DecodeResponse(codec.OpenAIResponses, []byte(body), &resp); err != nil {
		t.Fatal(err)
	}
	if len(resp.Content) != 1 || resp.Content[0].Text != "The answer." ||
		len(resp.Dropped) != 1 || resp.Dropped[0] != "output[0].content[0] (output_audio)" {
		t.Errorf("content %+v dropped %q", resp.Content, resp.Dropped)
	}
}
