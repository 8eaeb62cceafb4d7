package codec

import (
	"testing"

	"github.com/llmbridge/llmbridge/mapping"
)

// TestStreamMatrix encodes one canonical stream for every client protocol and
// decodes the result with the same protocol's decoder: what a client of each
// protocol assembles must be the same text, stop reason and usage, whatever
// the protocol (the round trip every upstream -> client pair relies on).
func TestStreamMatrix(t *testing.T) {
	usage := Usage{Known: true, InputTokens: 120, CacheReadTokens: 100, OutputTokens: 30, ReasoningTokens: 5}
	for _, stop := range []StopReason{mapping.StopEnd, mapping.StopMaxTokens} {
		events := []Event{
			{Type: EventStart, ID: "resp-1", Model: "m-1"},
			{Type: EventPartStart, Index: 0, Part: PartText},
			{Type: EventPartDelta, Index: 0, Text: "Hello"},
			{Type: EventPartDelta, Index: 0, Text: ", \"world\"\n"},
			{Type: EventPartDelta, Index: 0, Text: "é€😀"},
			{Type: EventPartStop, Index: 0},
			{Type: EventStop, StopReason: stop},
			{Type: EventUsage, Usage: usage},
			{Type: EventEnd},
		}
		for _, p := range Protocols() {
			req := &Request{Model: "m-1", Stream: true, StreamUsage: true}
			body := encodeStream(p, req, events)
			got := decodeStream(t, p, body, nil)
			checkWellFormed(t, got)
			s := summarize(got)
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
			if s.Usage != want {
				t.Errorf("%s: usage %+v, want %+v", p, s.Usage, want)
			}
		}
	}
}

// TestStreamMatrixErrors checks that an error after partial output reaches
// every client protocol as an error, never as a clean end.
func TestStreamMatrixErrors(t *testing.T) {
	events := []Event{
		{Type: EventStart, ID: "resp-1", Model: "m-1"},
		{Type: EventPartStart, Index: 0, Part: PartText},
		{Type: EventPartDelta, Index: 0, Text: "partial"},
		{Type: EventError, Err: &Error{Status: 529, Kind: mapping.ErrOverloaded, Message: "Overloaded"}},
	}
	for _, p := range Protocols() {
		body := encodeStream(p, &Request{Model: "m", Stream: true}, events)
		got := decodeStream(t, p, body, nil)
		s := summarize(got)
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
	resp := &Response{ID: "id-7", Model: "m-7", StopReason: mapping.StopMaxTokens,
		Content: []Part{{Type: PartText, Text: "Line one\nline \"two\""}},
		Usage:   Usage{Known: true, InputTokens: 50, CacheReadTokens: 20, OutputTokens: 9, ReasoningTokens: 2}}
	for _, p := range Protocols() {
		body, err := AppendResponse(nil, p, resp)
		if err != nil {
			t.Fatal(err)
		}
		var fromJSON Response
		if err := DecodeResponse(p, body, &fromJSON); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		stream := encodeStream(p, &Request{Model: "m-7", Stream: true, StreamUsage: true}, AppendResponseEvents(nil, resp))
		s := summarize(decodeStream(t, p, stream, nil))
		var text string
		for _, part := range fromJSON.Content {
			text += part.Text
		}
		if s.Text != text || s.Stop != fromJSON.StopReason || s.Usage != fromJSON.Usage || !s.Complete {
			t.Errorf("%s: stream %+v, JSON text %q stop %v usage %+v", p, s, text, fromJSON.StopReason, fromJSON.Usage)
		}
	}
}
