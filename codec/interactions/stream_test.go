package interactions

import (
	"strings"
	"testing"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/codectest"
	"github.com/llmbridge/llmbridge/mapping"
)

// sse writes events as an Interactions stream, each named by its
// event_type.
func sse(events ...string) string {
	var b strings.Builder
	for _, e := range events {
		if e == "[DONE]" {
			b.WriteString("data: [DONE]\n\n")
			continue
		}
		name := e[strings.Index(e, `"event_type":"`)+len(`"event_type":"`):]
		name = name[:strings.IndexByte(name, '"')]
		b.WriteString("event: " + name + "\ndata: " + e + "\n\n")
	}
	return b.String()
}

const (
	evCreated   = `{"event_type":"interaction.created","event_id":"e1","interaction":{"id":"v1_a","model":"gemini-3-flash","status":"in_progress"}}`
	evThought   = `{"event_type":"step.start","event_id":"e2","index":0,"step":{"type":"thought"}}`
	evSummary   = `{"event_type":"step.delta","event_id":"e3","index":0,"delta":{"type":"thought_summary","content":{"type":"text","text":"Hm."}}}`
	evSignature = `{"event_type":"step.delta","event_id":"e4","index":0,"delta":{"type":"thought_signature","signature":"c2ln"}}`
	evStop0     = `{"event_type":"step.stop","event_id":"e5","index":0}`
	evOutput    = `{"event_type":"step.start","event_id":"e6","index":1,"step":{"type":"model_output"}}`
	evText      = `{"event_type":"step.delta","event_id":"e7","index":1,"delta":{"type":"text","text":"Hello"}}`
	evStop1     = `{"event_type":"step.stop","event_id":"e8","index":1}`
	evCall      = `{"event_type":"step.start","event_id":"e9","index":2,"step":{"type":"function_call","id":"c1","name":"w","arguments":{}}}`
	evArgs      = `{"event_type":"step.delta","event_id":"e10","index":2,"delta":{"type":"arguments_delta","arguments":"{\"city\":\"Paris\"}"}}`
	evStop2     = `{"event_type":"step.stop","event_id":"e11","index":2}`
	evStatus    = `{"event_type":"interaction.status_update","event_id":"e12","interaction_id":"v1_a","status":"requires_action"}`
	evCompleted = `{"event_type":"interaction.completed","event_id":"e13","interaction":{"id":"v1_a","status":"requires_action",` +
		`"usage":{"total_input_tokens":10,"total_output_tokens":4,"total_thought_tokens":6,"total_tokens":20}}}`
	evError = `{"event_type":"error","event_id":"e14","error":{"code":"RESOURCE_EXHAUSTED","message":"quota"}}`
)

// TestStreamDecode checks complete and broken upstream streams.
func TestStreamDecode(t *testing.T) {
	full := []string{evCreated, evThought, evSummary, evSignature, evStop0, evOutput, evText, evStop1, evCall, evArgs, evStop2, evStatus, evCompleted, "[DONE]"}
	t.Run("complete", func(t *testing.T) {
		evs := codectest.DecodeStream(t, Gemini, sse(full...), nil)
		codectest.CheckWellFormed(t, evs)
		s := codectest.Summarize(evs)
		if !s.Complete || s.Text != "Hm.Hello" || s.Tools != `c1 w {"city":"Paris"};` || s.Stop != mapping.StopToolUse ||
			s.Usage.OutputTokens != 10 || s.Usage.ReasoningTokens != 6 || s.ID != "v1_a" || s.Model != "gemini-3-flash" {
			t.Errorf("%+v", s)
		}
		for _, ev := range evs {
			if ev.Type == codec.EventPartStop && ev.Index == 0 && (ev.Signature != "c2ln" || ev.Origin != mapping.FamilyGemini) {
				t.Errorf("the thought's stop %+v", ev)
			}
		}
	})
	for _, tt := range []struct {
		name   string
		events []string
		want   string // in the error's message
		status int
	}{
		{"cut between step.start and step.stop", []string{evCreated, evOutput, evText}, "ended before it was complete", 502},
		{"cut before interaction.completed", []string{evCreated, evOutput, evText, evStop1}, "ended before it was complete", 502},
		{"an error event after content", []string{evCreated, evOutput, evText, evError}, "quota", 429},
		{"a delta of no open step", []string{evCreated, evText}, "not open", 502},
		{"a step inside a step", []string{evCreated, evOutput, evThought}, "another is open", 502},
		{"an unknown event", []string{evCreated, `{"event_type":"step.teleport","event_id":"x"}`}, "unknown event type", 502},
		{"a hosted tool step", []string{evCreated, `{"event_type":"step.start","event_id":"x","index":0,"step":{"type":"code_execution_call"}}`}, "cannot be translated", 502},
		{"a failed interaction", []string{evCreated, `{"event_type":"interaction.completed","event_id":"x","interaction":{"status":"failed",` +
			`"errors":[{"code":"INTERNAL","message":"boom"}]}}`}, "boom", 500},
	} {
		t.Run(tt.name, func(t *testing.T) {
			evs := codectest.DecodeStream(t, Gemini, sse(tt.events...), nil)
			codectest.CheckWellFormed(t, evs)
			s := codectest.Summarize(evs)
			if s.Err == nil || s.Complete || !strings.Contains(s.Err.Message, tt.want) || s.Err.Status != tt.status {
				t.Errorf("%+v (err %+v), want an error %d saying %q", s, s.Err, tt.status, tt.want)
			}
		})
	}
}

// TestStreamEncode checks the events a client gets: ids on every event,
// a thought's signature before its stop, a call's step whole, and
// [DONE] after interaction.completed.
func TestStreamEncode(t *testing.T) {
	evs := []codec.Event{{Type: codec.EventStart, ID: "v1_a", Model: "m"},
		{Type: codec.EventPartStart, Index: 0, Part: codec.PartReasoning}, {Type: codec.EventPartDelta, Index: 0, Text: "Hm."},
		{Type: codec.EventPartStop, Index: 0, Signature: "c2ln", Origin: mapping.FamilyGemini},
		{Type: codec.EventPartStart, Index: 1, Part: codec.PartText}, {Type: codec.EventPartDelta, Index: 1, Text: "Hi"},
		{Type: codec.EventPartStop, Index: 1},
		{Type: codec.EventPartStart, Index: 2, Part: codec.PartToolCall, ToolCallID: "c1", ToolName: "w"},
		{Type: codec.EventPartDelta, Index: 2, Text: `{"city":`}, {Type: codec.EventPartDelta, Index: 2, Text: `"Paris"}`},
		{Type: codec.EventPartStop, Index: 2},
		{Type: codec.EventStop, StopReason: mapping.StopToolUse},
		{Type: codec.EventUsage, Usage: codec.Usage{Known: true, InputTokens: 3, OutputTokens: 5, ReasoningTokens: 2}},
		{Type: codec.EventEnd}}
	got := codectest.EncodeStream(Gemini, &codec.Request{Model: "m", Stream: true}, evs)
	want := sse(
		`{"event_type":"interaction.created","event_id":"evt_1","interaction":{"id":"v1_a","model":"m","status":"in_progress"}}`,
		`{"event_type":"step.start","event_id":"evt_2","index":0,"step":{"type":"thought"}}`,
		`{"event_type":"step.delta","event_id":"evt_3","index":0,"delta":{"type":"thought_summary","content":{"type":"text","text":"Hm."}}}`,
		`{"event_type":"step.delta","event_id":"evt_4","index":0,"delta":{"type":"thought_signature","signature":"c2ln"}}`,
		`{"event_type":"step.stop","event_id":"evt_5","index":0}`,
		`{"event_type":"step.start","event_id":"evt_6","index":1,"step":{"type":"model_output","content":[]}}`,
		`{"event_type":"step.delta","event_id":"evt_7","index":1,"delta":{"type":"text","text":"Hi"}}`,
		`{"event_type":"step.stop","event_id":"evt_8","index":1}`,
		`{"event_type":"step.start","event_id":"evt_9","index":2,"step":{"type":"function_call","id":"c1","name":"w","arguments":{"city":"Paris"}}}`,
		`{"event_type":"step.stop","event_id":"evt_10","index":2}`,
		`{"event_type":"interaction.completed","event_id":"evt_11","interaction":{"id":"v1_a","model":"m","status":"requires_action",`+
			`"usage":{"total_input_tokens":3,"total_output_tokens":3,"total_thought_tokens":2,"total_tokens":8}}}`,
		"[DONE]")
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	// The client's stream decodes back to what was encoded.
	s := codectest.Summarize(codectest.DecodeStream(t, Gemini, got, nil))
	if !s.Complete || s.Text != "Hm.Hi" || s.Tools != `c1 w {"city":"Paris"};` || s.Stop != mapping.StopToolUse {
		t.Errorf("decoded back: %+v", s)
	}
}

// TestStreamEncodeError checks an error ending a stream after content:
// an error event with Google's status name, and no [DONE].
func TestStreamEncodeError(t *testing.T) {
	evs := []codec.Event{{Type: codec.EventStart}, {Type: codec.EventPartStart, Part: codec.PartText}, {Type: codec.EventPartDelta, Text: "Hi"},
		{Type: codec.EventError, Err: &codec.Error{Status: 429, Kind: mapping.ErrRateLimit, Message: "slow down"}}}
	got := codectest.EncodeStream(Gemini, &codec.Request{Model: "m", Stream: true}, evs)
	if !strings.Contains(got, `"event_type":"error","event_id":"evt_4","error":{"code":"RESOURCE_EXHAUSTED","message":"slow down"}`) ||
		strings.Contains(got, "[DONE]") {
		t.Errorf("%s", got)
	}
}
