package responses

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/llmbridge/llmbridge/codec/internal/codectest"
	"github.com/openai/openai-go/v3/responses"
)

// summary is what a client of the SDK assembles from a stream.
type summary struct {
	text, refusal   string // from the deltas
	terminal        string // type of the last event
	response        responses.Response
	errCode, errMsg string // from the error event
	items, parts    int
	calls           []string // "call_id name arguments" from the events
	reasoning       []string // each reasoning item's summary text, from the deltas
}

func golden(t *testing.T, name string) summary {
	t.Helper()
	body, err := os.ReadFile(filepath.Join(codectest.Testdata, "openai-responses", "stream_"+name+".sse"))
	if err != nil {
		t.Fatal(err)
	}
	evs, err := codectest.ParseResponsesStream(t, body)
	if err != nil {
		t.Fatalf("SDK stream error: %v", err)
	}
	var s summary
	for i, ev := range evs {
		if ev.SequenceNumber != int64(i) {
			t.Errorf("event %d (%s): sequence number %d", i, ev.Type, ev.SequenceNumber)
		}
		typed := ev.AsAny()
		if typed == nil {
			t.Fatalf("event %d: the SDK does not know type %q", i, ev.Type)
		}
		codectest.CheckSDKFields(t, ev.Type, reflect.ValueOf(typed))
		s.terminal = ev.Type
		switch e := typed.(type) {
		case responses.ResponseOutputItemAddedEvent:
			s.items++
			switch e.Item.Type {
			case "message":
				if e.Item.AsMessage().Role != "assistant" {
					t.Errorf("item %+v", e.Item)
				}
			case "function_call":
				c := e.Item.AsFunctionCall()
				s.calls = append(s.calls, c.CallID+" "+c.Name+" ")
			case "reasoning":
				s.reasoning = append(s.reasoning, "")
			default:
				t.Errorf("item %+v", e.Item)
			}
		case responses.ResponseReasoningSummaryTextDeltaEvent:
			s.reasoning[len(s.reasoning)-1] += e.Delta
		case responses.ResponseReasoningSummaryTextDoneEvent:
			if e.Text != s.reasoning[len(s.reasoning)-1] {
				t.Errorf("done summary %q is not the deltas' %q", e.Text, s.reasoning[len(s.reasoning)-1])
			}
		case responses.ResponseFunctionCallArgumentsDeltaEvent:
			s.calls[len(s.calls)-1] += e.Delta
		case responses.ResponseFunctionCallArgumentsDoneEvent:
			if !strings.HasSuffix(s.calls[len(s.calls)-1], " "+e.Arguments) {
				t.Errorf("done arguments %q are not the deltas' %q", e.Arguments, s.calls[len(s.calls)-1])
			}
		case responses.ResponseContentPartAddedEvent:
			s.parts++
		case responses.ResponseTextDeltaEvent:
			s.text += e.Delta
		case responses.ResponseRefusalDeltaEvent:
			s.refusal += e.Delta
		case responses.ResponseTextDoneEvent:
			if !strings.HasSuffix(s.text, e.Text) {
				t.Errorf("done text %q is not the deltas' %q", e.Text, s.text)
			}
		case responses.ResponseRefusalDoneEvent:
			if !strings.HasSuffix(s.refusal, e.Refusal) {
				t.Errorf("done refusal %q is not the deltas' %q", e.Refusal, s.refusal)
			}
		case responses.ResponseCompletedEvent:
			s.response = e.Response
		case responses.ResponseIncompleteEvent:
			s.response = e.Response
		case responses.ResponseFailedEvent:
			s.response = e.Response
		case responses.ResponseErrorEvent:
			s.errCode, s.errMsg = e.Code, e.Message
		}
	}
	return s
}

func TestResponsesStreamSDKGolden(t *testing.T) {
	tests := []struct {
		name                string
		text, refusal       string
		terminal, status    string
		reason              string
		in, cached, out, rs int64
		errCode, errMsg     string
		items, parts        int
		calls               []string
	}{
		{name: "tool_calls", text: "Let me check.", terminal: "response.completed", status: "completed", in: 20, cached: 4, out: 7, rs: 2,
			items: 3, parts: 1, calls: []string{`toolu_01 get_weather {"city":"Paris"}`, `toolu_02 now {}`}},
		{name: "text_after_call", text: "Done.", terminal: "response.completed", status: "completed", items: 2, parts: 1,
			calls: []string{`call_1 f {"a":1}`}},
		{name: "call_cut_by_max_tokens", terminal: "response.incomplete", status: "incomplete", reason: "max_output_tokens", items: 1,
			calls: []string{`call_1 f {"a":1}`}},
		{name: "error_in_call", text: "x", terminal: "response.failed", status: "failed", items: 2, parts: 1,
			errCode: "rate_limit_exceeded", errMsg: "Slow down.", calls: []string{`call_1 f {"a":`}},
		{name: "text", text: "Hello,\nworld \"quoted\" é", terminal: "response.completed", status: "completed",
			in: 20, cached: 4, out: 7, rs: 2, items: 1, parts: 1},
		{name: "refusal", refusal: "I can't help with that.", terminal: "response.completed", status: "completed",
			in: 20, cached: 4, out: 7, rs: 2, items: 1, parts: 1},
		{name: "text_and_refusal", text: "Here is what I can say.", refusal: "The rest I refuse.",
			terminal: "response.completed", status: "completed", items: 1, parts: 2},
		{name: "max_tokens", text: "Once upon a", terminal: "response.incomplete", status: "incomplete", reason: "max_output_tokens",
			in: 20, cached: 4, out: 7, rs: 2, items: 1, parts: 1},
		{name: "content_filter", text: "Partial", terminal: "response.incomplete", status: "incomplete", reason: "content_filter", items: 1, parts: 1},
		{name: "usage_before_stop", text: "Hi", terminal: "response.completed", status: "completed", in: 30, out: 3, items: 1, parts: 1},
		{name: "usage_after_stop", text: "Hi", terminal: "response.completed", status: "completed", in: 8, out: 2, items: 1, parts: 1},
		{name: "no_output", terminal: "response.completed", status: "completed"},
		{name: "error_mid_stream", text: "Partial answer", terminal: "response.failed", status: "failed",
			errCode: "server_is_overloaded", errMsg: "Overloaded", items: 1, parts: 1},
		{name: "error_before_content", terminal: "response.failed", status: "failed",
			errCode: "insufficient_quota", errMsg: "You exceeded your current quota."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := golden(t, tt.name)
			r := s.response
			if s.text != tt.text || s.refusal != tt.refusal || s.terminal != tt.terminal || string(r.Status) != tt.status ||
				s.items != tt.items || s.parts != tt.parts {
				t.Errorf("got text %q refusal %q terminal %s status %s items %d parts %d", s.text, s.refusal, s.terminal, r.Status, s.items, s.parts)
			}
			if r.IncompleteDetails.Reason != tt.reason {
				t.Errorf("incomplete reason %q, want %q", r.IncompleteDetails.Reason, tt.reason)
			}
			// The SDK's helper assembles the text from the final output.
			if got := r.OutputText(); got != tt.text {
				t.Errorf("OutputText %q, want %q", got, tt.text)
			}
			if tt.refusal != "" {
				parts := r.Output[0].AsMessage().Content
				if last := parts[len(parts)-1]; last.Type != "refusal" || last.AsRefusal().Refusal != tt.refusal {
					t.Errorf("final refusal part %+v", last)
				}
			}
			u := r.Usage
			if u.InputTokens != tt.in || u.InputTokensDetails.CachedTokens != tt.cached || u.OutputTokens != tt.out ||
				u.OutputTokensDetails.ReasoningTokens != tt.rs || u.TotalTokens != tt.in+tt.out {
				t.Errorf("usage %+v", u)
			}
			if strings.Join(s.calls, "\n") != strings.Join(tt.calls, "\n") {
				t.Errorf("calls %q, want %q", s.calls, tt.calls)
			}
			// The final output repeats the calls.
			var final []string
			for _, it := range r.Output {
				if it.Type == "function_call" {
					c := it.AsFunctionCall()
					final = append(final, c.CallID+" "+c.Name+" "+c.Arguments)
				}
			}
			if strings.Join(final, "\n") != strings.Join(tt.calls, "\n") {
				t.Errorf("final calls %q, want %q", final, tt.calls)
			}
			if s.errCode != tt.errCode || s.errMsg != tt.errMsg {
				t.Errorf("error event %q %q, want %q %q", s.errCode, s.errMsg, tt.errCode, tt.errMsg)
			}
			if tt.errMsg != "" && (string(r.Error.Code) != tt.errCode || r.Error.Message != tt.errMsg) {
				t.Errorf("failed response error %+v", r.Error)
			}
		})
	}
}

// TestErrorShapes records how the SDK surfaces the two shapes of the error
// event: the spec's flat one (which the encoder sends) is a typed
// ResponseErrorEvent followed by response.failed; the nested one seen in
// real traffic stops the stream with a Go error.
func TestResponsesStreamSDKErrorShapes(t *testing.T) {
	flat := "event: error\ndata: {\"type\":\"error\",\"code\":\"server_error\",\"message\":\"boom\",\"param\":null,\"sequence_number\":0}\n\n"
	evs, err := codectest.ParseResponsesStream(t, []byte(flat))
	if err != nil || len(evs) != 1 || evs[0].AsError().Message != "boom" {
		t.Errorf("flat: events %v, error %v", evs, err)
	}
	nested := "event: error\ndata: {\"type\":\"error\",\"sequence_number\":0,\"error\":{\"type\":\"server_error\",\"code\":\"server_error\",\"message\":\"boom\",\"param\":null}}\n\n"
	evs, err = codectest.ParseResponsesStream(t, []byte(nested))
	if err == nil || len(evs) != 0 || !strings.Contains(err.Error(), "boom") {
		t.Errorf("nested: events %v, error %v", evs, err)
	}
}
