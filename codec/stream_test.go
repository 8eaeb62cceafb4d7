package codec_test

import (
	"testing"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/codectest"
)

func TestAppendResponseEvents(t *testing.T) {
	resp := &codec.Response{ID: "r", Model: "m", StopReason: 1, Usage: codec.Usage{Known: true, InputTokens: 3, OutputTokens: 4},
		Content: []codec.Part{{Type: codec.PartText, Text: "a"}, {Type: codec.PartRefusal, Text: "no"}, {Type: codec.PartText},
			{Type: codec.PartToolCall, ToolCallID: "call_1", ToolName: "get", Arguments: `{"x":1}`}}}
	evs := codec.AppendResponseEvents(nil, resp)
	codectest.CheckWellFormed(t, evs)
	if ev := evs[len(evs)-6]; ev.Type != codec.EventPartStart || ev.ToolCallID != "call_1" || ev.ToolName != "get" || evs[len(evs)-5].Text != `{"x":1}` {
		t.Errorf("tool call events %+v %+v", ev, evs[len(evs)-5])
	}
	s := codectest.Summarize(evs)
	if s.Text != "a" || s.Refusal != "no" || s.Stop != 1 || s.Usage != resp.Usage || !s.Complete || s.ID != "r" || s.Model != "m" {
		t.Errorf("summary %+v", s)
	}
}
