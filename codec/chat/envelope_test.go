package chat

import (
	"errors"
	"strings"
	"testing"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/codectest"
	"github.com/llmbridge/llmbridge/mapping"
)

// TestChatDecodeIDEnvelopes: a damaged continuation in a tool-call id is a
// 400 naming the id; an id with none passes unchanged; a Gemini signature
// comes back right before its call.
func TestChatDecodeIDEnvelopes(t *testing.T) {
	replay := func(id string) string {
		return `{"model":"m","messages":[{"role":"user","content":"Q"},{"role":"assistant","content":null,"tool_calls":[{"id":"` + id +
			`","type":"function","function":{"name":"f","arguments":"{}"}}]},{"role":"tool","tool_call_id":"` + id + `","content":"ok"}]}`
	}
	_, err := decodeRequest(t, replay("call_1~"+mapping.EnvelopePrefix+"!!!"))
	var e *codec.Error
	if !errors.As(err, &e) || e.Status != 400 || e.Param != "messages[1].tool_calls[0].id" || !strings.Contains(e.Message, "malformed") {
		t.Errorf("damaged envelope: %v", err)
	}
	req, err := decodeRequest(t, replay("call~plain"))
	if err != nil || req.Messages[1].Parts[0].ToolCallID != "call~plain" || req.Messages[2].Parts[0].ToolCallID != "call~plain" {
		t.Errorf("an id without an envelope: %+v, %v", req, err)
	}
	gem := string(mapping.AppendIDEnvelope([]byte("c1"), mapping.Continuation{Origin: mapping.FamilyGemini, Signature: "sig"}))
	req, err = decodeRequest(t, replay(gem))
	if err != nil {
		t.Fatal(err)
	}
	want := []codec.Part{{Type: codec.PartReasoning, Signature: "sig", Origin: mapping.FamilyGemini},
		{Type: codec.PartToolCall, ToolCallID: "c1", ToolName: "f", Arguments: "{}"}}
	if got := req.Messages[1].Parts; !codectest.EqualDecoded(got, want) {
		t.Errorf("gemini signature:\n got %+v\nwant %+v", got, want)
	}
	if got := req.Messages[2].Parts[0].ToolCallID; got != "c1" {
		t.Errorf("result id %q", got)
	}
}

// TestChatDecodeReasoningAlias: assistant reasoning replayed under
// OpenRouter's and Ollama's name, reasoning, is read as reasoning_content.
func TestChatDecodeReasoningAlias(t *testing.T) {
	req, err := decodeRequest(t, `{"model":"m","messages":[{"role":"user","content":"Q"},{"role":"assistant","content":"A","reasoning":"thought"},{"role":"user","content":"Go on"}]}`)
	if err != nil {
		t.Fatal(err)
	}
	want := []codec.Part{{Type: codec.PartReasoning, Text: "thought"}, {Type: codec.PartText, Text: "A"}}
	if got := req.Messages[1].Parts; !codectest.EqualDecoded(got, want) {
		t.Errorf("parts = %+v, want %+v", got, want)
	}
}
