package codec_test

import (
	"testing"
)

// The stop correspondence Anthropic stop_reason -> Responses status, one
// case per correspondence, including the truncation and unknown reasons.
func TestAnthropicToResponsesStatus(t *testing.T) {
	tests := []struct {
		in, status, reason string
		ambiguous          bool
	}{
		{"end_turn", "completed", "", false},
		{"stop_sequence", "completed", "", false},
		{"tool_use", "completed", "", false},
		{"pause_turn", "completed", "", false},
		{"max_tokens", "incomplete", "max_output_tokens", false},
		{"refusal", "completed", "", false}, // a refusal is never failed
		{"", "in_progress", "", false},      // no reason yet: streaming
		// A context-window stop is a truncation; an unknown reason is
		// completed and ambiguous.
		{"model_context_window_exceeded", "incomplete", "max_output_tokens", false},
		{"brand_new_reason", "completed", "", true},
	}
	for _, tt := range tests {
		status, reason, amb := AnthropicToResponsesStatus(tt.in)
		if status != tt.status || reason != tt.reason || amb != tt.ambiguous {
			t.Errorf("%q: got %q %q %v, want %q %q %v", tt.in, status, reason, amb, tt.status, tt.reason, tt.ambiguous)
		}
	}
}

// The second table of the stop correspondences: Responses status -> Anthropic stop_reason.
func TestResponsesToAnthropicStopReason(t *testing.T) {
	tests := []struct {
		status, reason string
		out            OutputKind
		want           string
		ok, ambiguous  bool
	}{
		{"completed", "", OutputText, "end_turn", true, false},
		{"completed", "", OutputToolCall, "tool_use", true, false},
		{"completed", "", OutputRefusal, "refusal", true, false},
		{"incomplete", "max_output_tokens", OutputText, "max_tokens", true, false},
		{"incomplete", "content_filter", OutputText, "refusal", true, false},
		{"incomplete", "", OutputText, "max_tokens", true, true}, // missing details: traced
		{"incomplete", "something_new", OutputText, "", false, true},
		{"failed", "", OutputText, "", false, true}, // failure, never a refusal
		{"failed", "", OutputRefusal, "", false, true},
		{"cancelled", "", OutputText, "", false, true},
		{"queued", "", OutputText, "", false, true},
		{"in_progress", "", OutputText, "", false, false},
	}
	for _, tt := range tests {
		got, ok, amb := ResponsesToAnthropicStopReason(tt.status, tt.reason, tt.out)
		if got != tt.want || ok != tt.ok || amb != tt.ambiguous {
			t.Errorf("%s/%s/%d: got %q %v %v, want %q %v %v", tt.status, tt.reason, tt.out, got, ok, amb, tt.want, tt.ok, tt.ambiguous)
		}
	}
}

// Round trips: end_turn, tool_use, max_tokens and refusal survive
// Anthropic -> Responses -> Anthropic; stop_sequence and pause_turn come
// back as end_turn.
func TestAnthropicResponsesRoundTrip(t *testing.T) {
	tests := []struct {
		in   string
		out  OutputKind
		want string
	}{
		{"end_turn", OutputText, "end_turn"},
		{"tool_use", OutputToolCall, "tool_use"},
		{"max_tokens", OutputText, "max_tokens"},
		{"refusal", OutputRefusal, "refusal"},
		{"stop_sequence", OutputText, "end_turn"},
		{"pause_turn", OutputText, "end_turn"},
	}
	for _, tt := range tests {
		status, reason, _ := AnthropicToResponsesStatus(tt.in)
		got, ok, _ := ResponsesToAnthropicStopReason(status, reason, tt.out)
		if !ok || got != tt.want {
			t.Errorf("%s -> %s/%s -> %q, want %q", tt.in, status, reason, got, tt.want)
		}
	}
}

func TestAnthropicChat(t *testing.T) {
	toChat := []struct {
		in, want  string
		ambiguous bool
	}{
		{"end_turn", "stop", false}, {"stop_sequence", "stop", false}, {"pause_turn", "stop", false},
		{"refusal", "stop", false}, // a refusal finishes with stop
		{"tool_use", "tool_calls", false}, {"max_tokens", "length", false},
		{"model_context_window_exceeded", "length", false}, {"", "", false}, {"new", "stop", true},
	}
	for _, tt := range toChat {
		if got, amb := AnthropicToChatFinishReason(tt.in); got != tt.want || amb != tt.ambiguous {
			t.Errorf("to chat %q: got %q %v", tt.in, got, amb)
		}
	}
	fromChat := []struct {
		in   string
		out  OutputKind
		want string
		amb  bool
	}{
		{"stop", OutputText, "end_turn", false}, {"stop", OutputRefusal, "refusal", false},
		{"stop", OutputToolCall, "tool_use", false},
		{"length", OutputText, "max_tokens", false}, {"tool_calls", OutputToolCall, "tool_use", false},
		{"function_call", OutputToolCall, "tool_use", false}, {"content_filter", OutputText, "refusal", false},
		{"", OutputText, "", false}, {"new", OutputText, "end_turn", true},
	}
	for _, tt := range fromChat {
		if got, amb := ChatToAnthropicStopReason(tt.in, tt.out); got != tt.want || amb != tt.amb {
			t.Errorf("from chat %q: got %q %v", tt.in, got, amb)
		}
	}
}

func TestAnthropicGemini(t *testing.T) {
	toGemini := []struct {
		in, want string
		amb      bool
	}{
		{"end_turn", "STOP", false}, {"stop_sequence", "STOP", false}, {"tool_use", "STOP", false},
		{"pause_turn", "STOP", false}, {"max_tokens", "MAX_TOKENS", false},
		{"model_context_window_exceeded", "MAX_TOKENS", false}, {"refusal", "SAFETY", false},
		{"", "", false}, {"new", "OTHER", true},
	}
	for _, tt := range toGemini {
		if got, amb := AnthropicToGeminiFinishReason(tt.in); got != tt.want || amb != tt.amb {
			t.Errorf("to gemini %q: got %q %v", tt.in, got, amb)
		}
	}
	fromGemini := []struct {
		in   string
		out  OutputKind
		want string
		amb  bool
	}{
		{"STOP", OutputText, "end_turn", false}, {"STOP", OutputToolCall, "tool_use", false},
		{"MAX_TOKENS", OutputText, "max_tokens", false},
		{"SAFETY", OutputText, "refusal", false}, {"PROHIBITED_CONTENT", OutputText, "refusal", false},
		{"BLOCKLIST", OutputText, "refusal", false}, {"SPII", OutputText, "refusal", false},
		{"IMAGE_SAFETY", OutputText, "refusal", false}, {"RECITATION", OutputText, "refusal", false},
		{"MODEL_ARMOR", OutputText, "refusal", false},
		{"LANGUAGE", OutputText, "end_turn", true}, {"MALFORMED_FUNCTION_CALL", OutputText, "end_turn", true},
		{"OTHER", OutputText, "end_turn", true}, {"", OutputText, "", false},
	}
	for _, tt := range fromGemini {
		if got, amb := GeminiToAnthropicStopReason(tt.in, tt.out); got != tt.want || amb != tt.amb {
			t.Errorf("from gemini %q: got %q %v", tt.in, got, amb)
		}
	}
}

func TestResponsesChat(t *testing.T) {
	toChat := []struct {
		status, reason string
		out            OutputKind
		want           string
		ok, amb        bool
	}{
		{"completed", "", OutputText, "stop", true, false},
		{"completed", "", OutputToolCall, "tool_calls", true, false},
		{"completed", "", OutputRefusal, "stop", true, false},
		{"incomplete", "max_output_tokens", OutputText, "length", true, false},
		{"incomplete", "content_filter", OutputText, "content_filter", true, false},
		{"incomplete", "", OutputText, "length", true, true},
		{"incomplete", "new", OutputText, "", false, true},
		{"failed", "", OutputText, "", false, true}, {"cancelled", "", OutputText, "", false, true},
		{"queued", "", OutputText, "", false, true}, {"in_progress", "", OutputText, "", false, false},
	}
	for _, tt := range toChat {
		got, ok, amb := ResponsesToChatFinishReason(tt.status, tt.reason, tt.out)
		if got != tt.want || ok != tt.ok || amb != tt.amb {
			t.Errorf("to chat %s/%s: got %q %v %v", tt.status, tt.reason, got, ok, amb)
		}
	}
	fromChat := []struct {
		in, status, reason string
		amb                bool
	}{
		{"stop", "completed", "", false}, {"tool_calls", "completed", "", false},
		{"function_call", "completed", "", false},
		{"length", "incomplete", "max_output_tokens", false},
		{"content_filter", "incomplete", "content_filter", false},
		{"", "in_progress", "", false}, {"new", "completed", "", true},
	}
	for _, tt := range fromChat {
		s, r, amb := ChatToResponsesStatus(tt.in)
		if s != tt.status || r != tt.reason || amb != tt.amb {
			t.Errorf("from chat %q: got %q %q %v", tt.in, s, r, amb)
		}
	}
}

func TestResponsesGemini(t *testing.T) {
	toGemini := []struct {
		status, reason string
		out            OutputKind
		want           string
		ok, amb        bool
	}{
		{"completed", "", OutputText, "STOP", true, false},
		{"completed", "", OutputToolCall, "STOP", true, false},
		{"completed", "", OutputRefusal, "SAFETY", true, false},
		{"incomplete", "max_output_tokens", OutputText, "MAX_TOKENS", true, false},
		{"incomplete", "content_filter", OutputText, "SAFETY", true, false},
		{"incomplete", "", OutputText, "MAX_TOKENS", true, true},
		{"incomplete", "new", OutputText, "", false, true},
		{"failed", "", OutputText, "", false, true}, {"cancelled", "", OutputText, "", false, true},
		{"queued", "", OutputText, "", false, true}, {"in_progress", "", OutputText, "", false, false},
	}
	for _, tt := range toGemini {
		got, ok, amb := ResponsesToGeminiFinishReason(tt.status, tt.reason, tt.out)
		if got != tt.want || ok != tt.ok || amb != tt.amb {
			t.Errorf("to gemini %s/%s: got %q %v %v", tt.status, tt.reason, got, ok, amb)
		}
	}
	fromGemini := []struct {
		in, status, reason string
		amb                bool
	}{
		{"STOP", "completed", "", false}, {"MAX_TOKENS", "incomplete", "max_output_tokens", false},
		{"SAFETY", "incomplete", "content_filter", false}, {"RECITATION", "incomplete", "content_filter", false},
		{"PROHIBITED_CONTENT", "incomplete", "content_filter", false},
		{"", "in_progress", "", false}, {"OTHER", "completed", "", true},
	}
	for _, tt := range fromGemini {
		s, r, amb := GeminiToResponsesStatus(tt.in)
		if s != tt.status || r != tt.reason || amb != tt.amb {
			t.Errorf("from gemini %q: got %q %q %v", tt.in, s, r, amb)
		}
	}
}

func TestChatGemini(t *testing.T) {
	toGemini := []struct {
		in   string
		out  OutputKind
		want string
		amb  bool
	}{
		{"stop", OutputText, "STOP", false}, {"stop", OutputRefusal, "SAFETY", false},
		{"tool_calls", OutputToolCall, "STOP", false}, {"function_call", OutputToolCall, "STOP", false},
		{"length", OutputText, "MAX_TOKENS", false}, {"content_filter", OutputText, "SAFETY", false},
		{"", OutputText, "", false}, {"new", OutputText, "OTHER", true},
	}
	for _, tt := range toGemini {
		if got, amb := ChatToGeminiFinishReason(tt.in, tt.out); got != tt.want || amb != tt.amb {
			t.Errorf("to gemini %q: got %q %v", tt.in, got, amb)
		}
	}
	fromGemini := []struct {
		in   string
		out  OutputKind
		want string
		amb  bool
	}{
		{"STOP", OutputText, "stop", false}, {"STOP", OutputToolCall, "tool_calls", false},
		{"MAX_TOKENS", OutputText, "length", false}, {"SAFETY", OutputText, "content_filter", false},
		{"SPII", OutputText, "content_filter", false}, {"", OutputText, "", false},
		{"LANGUAGE", OutputText, "stop", true},
	}
	for _, tt := range fromGemini {
		if got, amb := GeminiToChatFinishReason(tt.in, tt.out); got != tt.want || amb != tt.amb {
			t.Errorf("from gemini %q: got %q %v", tt.in, got, amb)
		}
	}
}
