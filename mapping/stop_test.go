package mapping

import "testing"

func TestAnthropicStopReason(t *testing.T) {
	tests := []struct {
		wire      string
		canonical StopReason
		back      string
	}{
		{"end_turn", StopEnd, "end_turn"},
		{"max_tokens", StopMaxTokens, "max_tokens"},
		{"stop_sequence", StopSequence, "stop_sequence"},
		{"tool_use", StopToolUse, "tool_use"},
		{"pause_turn", StopPauseTurn, "pause_turn"},
		{"refusal", StopRefusal, "refusal"},
		{"model_context_window_exceeded", StopContextWindow, "model_context_window_exceeded"},
		{"", StopNone, "end_turn"},
		{"something_new", StopOther, "end_turn"},
	}
	for _, tt := range tests {
		got := FromAnthropicStopReason(tt.wire)
		if got != tt.canonical {
			t.Errorf("FromAnthropicStopReason(%q) = %v, want %v", tt.wire, got, tt.canonical)
		}
		if back := AnthropicStopReason(got); back != tt.back {
			t.Errorf("AnthropicStopReason(%v) = %q, want %q", got, back, tt.back)
		}
	}
	if got := AnthropicStopReason(StopContentFilter); got != "refusal" {
		t.Errorf("content filter -> %q, want refusal", got)
	}
}

func TestChatFinishReason(t *testing.T) {
	tests := []struct {
		wire      string
		canonical StopReason
		back      string
	}{
		{"stop", StopEnd, "stop"},
		{"length", StopMaxTokens, "length"},
		{"tool_calls", StopToolUse, "tool_calls"},
		{"function_call", StopToolUse, "tool_calls"},
		{"content_filter", StopContentFilter, "content_filter"},
		{"", StopNone, "stop"},
		{"other", StopOther, "stop"},
	}
	for _, tt := range tests {
		got := FromChatFinishReason(tt.wire)
		if got != tt.canonical {
			t.Errorf("FromChatFinishReason(%q) = %v, want %v", tt.wire, got, tt.canonical)
		}
		if back := ChatFinishReason(got); back != tt.back {
			t.Errorf("ChatFinishReason(%v) = %q, want %q", got, back, tt.back)
		}
	}
	// Chat cannot tell these endings apart from a natural end
	// (OpenAI ends refusals with "stop").
	for _, s := range []StopReason{StopSequence, StopPauseTurn, StopRefusal} {
		if got := ChatFinishReason(s); got != "stop" {
			t.Errorf("ChatFinishReason(%v) = %q, want stop", s, got)
		}
	}
	if got := ChatFinishReason(StopContextWindow); got != "length" {
		t.Errorf("context window -> %q, want length", got)
	}
}

func TestGeminiFinishReason(t *testing.T) {
	tests := []struct {
		wire      string
		canonical StopReason
	}{
		{"STOP", StopEnd},
		{"MAX_TOKENS", StopMaxTokens},
		{"SAFETY", StopContentFilter},
		{"RECITATION", StopContentFilter},
		{"BLOCKLIST", StopContentFilter},
		{"PROHIBITED_CONTENT", StopContentFilter},
		{"SPII", StopContentFilter},
		{"IMAGE_SAFETY", StopContentFilter},
		{"MODEL_ARMOR", StopContentFilter},
		{"LANGUAGE", StopOther},
		{"MALFORMED_FUNCTION_CALL", StopOther},
		{"FINISH_REASON_UNSPECIFIED", StopOther},
		{"", StopNone},
	}
	for _, tt := range tests {
		if got := FromGeminiFinishReason(tt.wire); got != tt.canonical {
			t.Errorf("FromGeminiFinishReason(%q) = %v, want %v", tt.wire, got, tt.canonical)
		}
	}
	out := map[StopReason]string{
		StopEnd: "STOP", StopSequence: "STOP", StopToolUse: "STOP", StopPauseTurn: "STOP", StopNone: "STOP",
		StopMaxTokens: "MAX_TOKENS", StopContextWindow: "MAX_TOKENS",
		StopRefusal: "SAFETY", StopContentFilter: "SAFETY", StopOther: "OTHER",
	}
	for s, want := range out {
		if got := GeminiFinishReason(s); got != want {
			t.Errorf("GeminiFinishReason(%v) = %q, want %q", s, got, want)
		}
	}
}

// TestResponsesStatus mirrors the two direction tables of the stop correspondences row by row.
func TestResponsesStatus(t *testing.T) {
	forward := []struct {
		in         StopReason
		status     string
		incomplete string
	}{
		{StopEnd, "completed", ""},
		{StopSequence, "completed", ""},
		{StopToolUse, "completed", ""},
		{StopPauseTurn, "completed", ""},
		{StopMaxTokens, "incomplete", "max_output_tokens"},
		{StopRefusal, "completed", ""}, // a refusal is a successful model output, never failed
		{StopContentFilter, "incomplete", "content_filter"},
		{StopContextWindow, "incomplete", "max_output_tokens"},
	}
	for _, tt := range forward {
		s, r := ResponsesStatus(tt.in)
		if s != tt.status || r != tt.incomplete {
			t.Errorf("ResponsesStatus(%v) = %q, %q; want %q, %q", tt.in, s, r, tt.status, tt.incomplete)
		}
	}
	backward := []struct {
		status, reason string
		toolCall       bool
		want           StopReason
		ambiguous      bool
	}{
		{"completed", "", false, StopEnd, false},
		{"completed", "", true, StopToolUse, false},
		{"incomplete", "max_output_tokens", false, StopMaxTokens, false},
		{"incomplete", "content_filter", false, StopContentFilter, false},
		{"incomplete", "", false, StopMaxTokens, true},
		{"incomplete", "something_new", false, StopNone, true},
		{"failed", "", false, StopNone, true},
		{"cancelled", "", false, StopNone, true},
		{"queued", "", false, StopNone, true},
		{"in_progress", "", false, StopNone, true},
	}
	for _, tt := range backward {
		got, amb := FromResponsesStatus(tt.status, tt.reason, tt.toolCall)
		if got != tt.want || amb != tt.ambiguous {
			t.Errorf("FromResponsesStatus(%q, %q, %v) = %v, %v; want %v, %v", tt.status, tt.reason, tt.toolCall, got, amb, tt.want, tt.ambiguous)
		}
	}
}

func TestStopReasonString(t *testing.T) {
	if StopEnd.String() != "end" || StopReason(200).String() != "other" || StopMaxTokens.String() != "max_tokens" {
		t.Error("unexpected names")
	}
}

func TestConverseStopReason(t *testing.T) {
	tests := []struct {
		wire      string
		canonical StopReason
		back      string
	}{
		{"end_turn", StopEnd, "end_turn"},
		{"tool_use", StopToolUse, "tool_use"},
		{"max_tokens", StopMaxTokens, "max_tokens"},
		{"stop_sequence", StopSequence, "stop_sequence"},
		{"guardrail_intervened", StopContentFilter, "content_filtered"},
		{"content_filtered", StopContentFilter, "content_filtered"},
		{"model_context_window_exceeded", StopContextWindow, "model_context_window_exceeded"},
		{"malformed_model_output", StopOther, "end_turn"},
		{"malformed_tool_use", StopOther, "end_turn"},
		{"", StopNone, "end_turn"},
	}
	for _, tt := range tests {
		got := FromConverseStopReason(tt.wire)
		if got != tt.canonical {
			t.Errorf("FromConverseStopReason(%q) = %v, want %v", tt.wire, got, tt.canonical)
		}
		if back := ConverseStopReason(got); back != tt.back {
			t.Errorf("ConverseStopReason(%v) = %q, want %q", got, back, tt.back)
		}
	}
	// Converse has no refusal and no pause.
	for s, want := range map[StopReason]string{StopRefusal: "content_filtered", StopPauseTurn: "end_turn"} {
		if got := ConverseStopReason(s); got != want {
			t.Errorf("ConverseStopReason(%v) = %q, want %q", s, got, want)
		}
	}
}
