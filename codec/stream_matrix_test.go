package codec_test

import (
	"testing"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/codectest"
	"github.com/llmbridge/llmbridge/mapping"
)

// TestStreamMatrix encodes one canonical stream for every client protocol and
// decodes the result with the same protocol's decoder: what a client of each
// protocol assembles must be the same text, stop reason and usage, whatever
// the protocol (the round trip every upstream -> client pair relies on).
func TestStreamMatrix(t *testing.T) {
	usage := codec.Usage{Known: true, InputTokens: 120, CacheReadTokens: 100, OutputTokens: 30, ReasoningTokens: 5}
	for _, stop := range []codec.StopReason{mapping.StopEnd, mapping.StopMaxTokens} {
		events := []codec.Event{
			{Type: codec.EventStart, ID: "resp-1", Model: "m-1"},
			{Type: codec.EventPartStart, Index: 0, Part: codec.PartText},
			{Type: codec.EventPartDelta, Index: 0, Text: "Hello"},
			{Type: codec.EventPartDelta, Index: 0, Text: ", \"world\"\n"},
			{Type: codec.EventPartDelta, Index: 0, Text: "é€😀"},
			{Type: codec.EventPartStop, Index: 0},
			{Type: codec.EventStop, StopReason: stop},
			{Type: codec.EventUsage, Usage: usage},
			{Type: codec.EventEnd},
		}
		for _, p := range codec.Protocols() {
			req := &codec.Request{Model: "m-1", Stream: true, StreamUsage: true}
			body := codectest.EncodeStream(p, req, events)
			got := codectest.DecodeStream(t, p, body, nil)
			codectest.CheckWellFormed(t, got)
			s := codectest.Summarize(got)
			if !s.Complete || s.Err != nil {
				t.Fatalf("%s: stream not complete: %+v\n%s", p, s, body)
			}
			if s.Text != "Hello, \"world\"\né€😀" {
				t.Errorf("%s: text %q", p, s.Text)
			}
			if s.Stop != stop {
				t.Errorf("%s: stop %v, want %v", p, s.Stop, stop)
			}
			want := usage
			if p.Family() == codec.Bedrock {
				want.ReasoningTokens = 0 // Converse does not count reasoning apart
			}
			if s.Usage != want {
				t.Errorf("%s: usage %+v, want %+v", p, s.Usage, want)
			}
		}
	}
}

// TestStreamMatrixErrors checks that an error after partial output reaches
// every client protocol as an error, never as a clean end.
func TestStreamMatrixErrors(t *testing.T) {
	events := []codec.Event{
		{Type: codec.EventStart, ID: "resp-1", Model: "m-1"},
		{Type: codec.EventPartStart, Index: 0, Part: codec.PartText},
		{Type: codec.EventPartDelta, Index: 0, Text: "partial"},
		{Type: codec.EventError, Err: &codec.Error{Status: 529, Kind: mapping.ErrOverloaded, Message: "Overloaded"}},
	}
	for _, p := range codec.Protocols() {
		body := codectest.EncodeStream(p, &codec.Request{Model: "m", Stream: true}, events)
		got := codectest.DecodeStream(t, p, body, nil)
		s := codectest.Summarize(got)
		if s.Complete || s.Err == nil || s.Text != "partial" {
			t.Errorf("%s: %+v\n%s", p, s, body)
		}
		if s.Err != nil && s.Err.Kind != mapping.ErrOverloaded {
			t.Errorf("%s: error kind %v (%s)", p, s.Err.Kind, s.Err.Message)
		}
	}
}

// TestStreamAndJSONAgree checks that the same upstream content yields the
// same text, stop reason and usage whether it arrives as one JSON body or as
// a stream, for every protocol.
func TestStreamAndJSONAgree(t *testing.T) {
	resp := &codec.Response{ID: "id-7", Model: "m-7", StopReason: mapping.StopMaxTokens,
		Content: []codec.Part{{Type: codec.PartText, Text: "Line one\nline \"two\""}},
		Usage:   codec.Usage{Known: true, InputTokens: 50, CacheReadTokens: 20, OutputTokens: 9, ReasoningTokens: 2}}
	for _, p := range codec.Protocols() {
		body, err := codec.AppendResponse(nil, p, resp)
		if err != nil {
			t.Fatal(err)
		}
		var fromJSON codec.Response
		if err := codec.DecodeResponse(p, body, &fromJSON); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		stream := codectest.EncodeStream(p, &codec.Request{Model: "m-7", Stream: true, StreamUsage: true}, codec.AppendResponseEvents(nil, resp))
		s := codectest.Summarize(codectest.DecodeStream(t, p, stream, nil))
		var text string
		for _, part := range fromJSON.Content {
			text += part.Text
		}
		if s.Text != text || s.Stop != fromJSON.StopReason || s.Usage != fromJSON.Usage || !s.Complete {
			t.Errorf("%s: stream %+v, JSON text %q stop %v usage %+v", p, s, text, fromJSON.StopReason, fromJSON.Usage)
		}
	}
}
