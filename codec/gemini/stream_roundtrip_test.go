package gemini

import (
	"strings"
	"testing"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/codectest"
	"github.com/llmbridge/llmbridge/mapping"
)

// TestGeminiStreamRoundTrip encodes canonical streams for a Gemini client
// and decodes the result as a Gemini upstream: the client ends up with the
// same text, stop reason, usage, id, model and error, except where Gemini
// has no way to say it (refusals are text and a SAFETY stop, a stop
// sequence is STOP, cache writes are not counted).
func TestGeminiStreamRoundTrip(t *testing.T) {
	for _, tt := range streamEncodeCases {
		t.Run(tt.name, func(t *testing.T) {
			for _, p := range []codec.Protocol{codec.Gemini, codec.Vertex} {
				body := codectest.EncodeStream(p, tt.req, tt.evs)
				evs := decodeStream(t, p, body, nil)
				codectest.CheckWellFormed(t, evs)
				got, want := codectest.Summarize(evs), codectest.Summarize(untilTerminal(tt.evs))
				var gotCalls, wantCalls []codec.Part
				got.Text, gotCalls = streamContent(t, evs)
				want.Text, wantCalls = streamContent(t, untilTerminal(tt.evs))
				for i := range wantCalls {
					if wantCalls[i].Arguments == "" {
						wantCalls[i].Arguments = "{}" // Gemini sends args {}
					}
				}
				if !codectest.EqualDecoded(gotCalls, wantCalls) {
					t.Errorf("%s: calls %+v, want %+v", p, gotCalls, wantCalls)
				}
				if !strings.Contains(body, `"responseId"`) {
					// The stream failed before any chunk: the client
					// never saw an id or a model.
					want.ID, want.Model = "", ""
				}
				want.Text += want.Refusal
				want.Refusal = ""
				want.StopSeq = ""
				switch want.Stop {
				case mapping.StopRefusal:
					want.Stop = mapping.StopContentFilter
				case mapping.StopSequence, mapping.StopNone:
					want.Stop = mapping.StopEnd
				}
				if want.Model == "" && want.ID != "" && tt.req != nil {
					want.Model = tt.req.Model
				}
				if want.Err != nil {
					want.Stop = mapping.StopNone
					e := *want.Err
					e.Status = codec.ClientStatus(p, &e)
					e.Code = mapping.GoogleStatus(want.Err.Kind, e.Status)
					e.Param = ""
					e.Protocol = p
					if got.Err == nil || *got.Err != e {
						t.Errorf("%s: error %+v, want %+v", p, got.Err, e)
					}
					got.Err, want.Err = nil, nil
				}
				// A call without argument fragments comes back as {}.
				want.Tools = strings.ReplaceAll(want.Tools, " ;", " {};")
				if got != want {
					t.Errorf("%s: got %+v\nwant %+v", p, got, want)
				}
			}
		})
	}
}

// untilTerminal returns evs up to and including the first terminal
// event: what a client sees, since encoders write nothing after it.
func untilTerminal(evs []codec.Event) []codec.Event {
	for i, ev := range evs {
		if ev.Type == codec.EventEnd || ev.Type == codec.EventError {
			return evs[:i+1]
		}
	}
	return evs
}
