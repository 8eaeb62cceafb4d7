package codec_test

import (
	"testing"
	"unsafe"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/codectest"
	"github.com/llmbridge/llmbridge/mapping"
)

// aliasEvent returns a copy of ev whose strings live in buf, as a decoder's
// events alias the upstream event it decodes; buf is overwritten after the
// encoder has seen the event, as the next upstream read does.
func aliasEvent(ev codec.Event, buf *[]byte) codec.Event {
	b := (*buf)[:0]
	alias := func(s string) string {
		if s == "" {
			return ""
		}
		start := len(b)
		b = append(b, s...)
		return unsafe.String(&b[start], len(s))
	}
	// Reserve the room first, so that appends never move the strings made
	// earlier.
	n := len(ev.Text) + len(ev.ID) + len(ev.Model) + len(ev.ToolCallID) + len(ev.ToolName) + len(ev.ItemID) +
		len(ev.Signature) + len(ev.StopSequence) + len(ev.StopDetails.Category) + len(ev.StopDetails.Explanation)
	if cap(b) < n {
		b = make([]byte, 0, n)
	}
	ev.Text, ev.ID, ev.Model = alias(ev.Text), alias(ev.ID), alias(ev.Model)
	ev.ToolCallID, ev.ToolName, ev.ItemID = alias(ev.ToolCallID), alias(ev.ToolName), alias(ev.ItemID)
	ev.Signature, ev.StopSequence = alias(ev.Signature), alias(ev.StopSequence)
	ev.StopDetails.Category, ev.StopDetails.Explanation = alias(ev.StopDetails.Category), alias(ev.StopDetails.Explanation)
	*buf = b
	return ev
}

// TestStreamEncodersDoNotRetainEventStrings feeds every stream encoder
// events whose strings are overwritten right after each Encode call, and
// checks the output is the same as with stable strings: an encoder that
// keeps an event string for later (an id, a model, a tool name, a stop
// detail) must copy it.
func TestStreamEncodersDoNotRetainEventStrings(t *testing.T) {
	resp := codec.Response{ID: "resp_abc123", Model: "model-x", StopReason: mapping.StopRefusal,
		StopSequence: "STOP", StopDetails: codec.StopDetails{Category: "cyber", Explanation: "Not allowed."},
		Usage: codec.Usage{Known: true, InputTokens: 12, OutputTokens: 7, ReasoningTokens: 3, CacheReadTokens: 2},
		Content: []codec.Part{
			{Type: codec.PartReasoning, Text: "thinking it over", Signature: "sig-abc", Origin: mapping.FamilyAnthropic, ItemID: "rs_1"},
			{Type: codec.PartText, Text: "Hello there."},
		}}
	tools := resp
	tools.StopReason, tools.StopDetails = mapping.StopToolUse, codec.StopDetails{}
	tools.Content = []codec.Part{
		{Type: codec.PartReasoning, Text: "plan", Signature: "sig-gem", Origin: mapping.FamilyGemini},
		{Type: codec.PartToolCall, ToolCallID: "call_1", ToolName: "get_weather", Arguments: `{"city":"Paris"}`},
		{Type: codec.PartToolCall, ToolCallID: "call_2", ToolName: "get_time", Arguments: `{}`},
	}
	for _, r := range []codec.Response{resp, tools} {
		events := codec.AppendResponseEvents(nil, &r)
		for _, p := range codec.Protocols() {
			req := &codec.Request{Model: "req-model", Stream: true, StreamUsage: true}
			want := codectest.EncodeStream(p, req, events)
			enc := codectest.StreamEncoder(p, req)
			var got, buf []byte
			for _, ev := range events {
				a := aliasEvent(ev, &buf)
				got = enc.Encode(got, &a)
				for i := range buf {
					buf[i] = '#'
				}
			}
			if string(got) != want {
				t.Errorf("%s (stop %v): output depends on event strings after Encode returned:\n got %q\nwant %q", p, r.StopReason, got, want)
			}
		}
	}
}
