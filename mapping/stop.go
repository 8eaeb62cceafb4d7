package mapping

// StopReason is the canonical reason a model stopped generating.
//
// The zero value, StopNone, means no reason is known yet (a response still in
// progress, or an upstream that did not say).
type StopReason uint8

// Canonical stop reasons.
const (
	// StopNone means the reason is unknown or not yet decided.
	StopNone StopReason = iota
	// StopEnd is a natural end of the turn.
	StopEnd
	// StopMaxTokens means the output was cut by the output token limit.
	StopMaxTokens
	// StopSequence means a configured stop sequence was generated.
	StopSequence
	// StopToolUse means the model ended its turn to call tools.
	StopToolUse
	// StopPauseTurn means the model paused a long-running turn (Anthropic
	// pause_turn) and expects the conversation to be continued as is.
	StopPauseTurn
	// StopRefusal means the model declined to answer.
	StopRefusal
	// StopContentFilter means the provider's filters stopped or withheld the
	// output (Chat content_filter, Gemini SAFETY and friends).
	StopContentFilter
	// StopContextWindow means the conversation outgrew the model's context
	// window (Anthropic model_context_window_exceeded).
	StopContextWindow
	// StopOther is a reason that has no canonical equivalent; the wire value
	// is kept beside it where a codec needs it.
	StopOther
)

var stopReasonNames = [...]string{
	StopNone:          "none",
	StopEnd:           "end",
	StopMaxTokens:     "max_tokens",
	StopSequence:      "stop_sequence",
	StopToolUse:       "tool_use",
	StopPauseTurn:     "pause_turn",
	StopRefusal:       "refusal",
	StopContentFilter: "content_filter",
	StopContextWindow: "context_window",
	StopOther:         "other",
}

// String returns a short lower-case name of the stop reason, used in logs.
func (s StopReason) String() string {
	if int(s) < len(stopReasonNames) {
		return stopReasonNames[s]
	}
	return "other"
}

// FromAnthropicStopReason maps an Anthropic Messages stop_reason.
func FromAnthropicStopReason(s string) StopReason {
	switch s {
	case "":
		return StopNone
	case "end_turn":
		return StopEnd
	case "max_tokens":
		return StopMaxTokens
	case "stop_sequence":
		return StopSequence
	case "tool_use":
		return StopToolUse
	case "pause_turn":
		return StopPauseTurn
	case "refusal":
		return StopRefusal
	case "model_context_window_exceeded":
		return StopContextWindow
	}
	return StopOther
}

// AnthropicStopReason returns the Anthropic stop_reason for s.
//
// Anthropic has no content-filter reason: a provider filter stop is a refusal
// there (the model's output was withheld for policy reasons), which is also
// how a Responses incomplete/content_filter maps.
// Unknown and missing reasons become end_turn, the only value that claims
// nothing beyond "the turn ended".
func AnthropicStopReason(s StopReason) string {
	switch s {
	case StopMaxTokens:
		return "max_tokens"
	case StopSequence:
		return "stop_sequence"
	case StopToolUse:
		return "tool_use"
	case StopPauseTurn:
		return "pause_turn"
	case StopRefusal, StopContentFilter:
		return "refusal"
	case StopContextWindow:
		return "model_context_window_exceeded"
	}
	return "end_turn"
}

// FromChatFinishReason maps an OpenAI Chat Completions finish_reason.
func FromChatFinishReason(s string) StopReason {
	switch s {
	case "":
		return StopNone
	case "stop":
		return StopEnd
	case "length":
		return StopMaxTokens
	case "tool_calls", "function_call":
		return StopToolUse
	case "content_filter":
		return StopContentFilter
	}
	return StopOther
}

// ChatFinishReason returns the Chat Completions finish_reason for s.
//
// Chat cannot tell a stop sequence, a pause or a refusal from a natural end:
// OpenAI itself ends refusals with "stop", so all of them are
// "stop". A context-window stop is reported as "length", the closest Chat
// value: output was cut by a token limit.
func ChatFinishReason(s StopReason) string {
	switch s {
	case StopMaxTokens, StopContextWindow:
		return "length"
	case StopToolUse:
		return "tool_calls"
	case StopContentFilter:
		return "content_filter"
	}
	return "stop"
}

// FromGeminiFinishReason maps a Gemini finishReason.
//
// Gemini reports a tool call with STOP; the codec upgrades that to
// StopToolUse when the candidate holds function calls. Every safety-like
// reason (SAFETY, BLOCKLIST, PROHIBITED_CONTENT, SPII, IMAGE_SAFETY,
// RECITATION, MODEL_ARMOR and the IMAGE_* variants) is a content filter.
// Unknown values are StopOther: values such as MODEL_ARMOR appear in
// traffic before they are documented.
func FromGeminiFinishReason(s string) StopReason {
	switch s {
	case "":
		return StopNone
	case "STOP":
		return StopEnd
	case "MAX_TOKENS":
		return StopMaxTokens
	case "SAFETY", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII", "IMAGE_SAFETY",
		"RECITATION", "MODEL_ARMOR", "IMAGE_PROHIBITED_CONTENT", "IMAGE_RECITATION":
		return StopContentFilter
	}
	return StopOther
}

// GeminiFinishReason returns the Gemini finishReason for s.
//
// Gemini has no distinct value for stop sequences, tool calls or pauses: all
// are STOP. A refusal and a content filter are SAFETY; a context-window stop
// is MAX_TOKENS.
func GeminiFinishReason(s StopReason) string {
	switch s {
	case StopMaxTokens, StopContextWindow:
		return "MAX_TOKENS"
	case StopRefusal, StopContentFilter:
		return "SAFETY"
	case StopOther:
		return "OTHER"
	}
	return "STOP"
}

// ResponsesStatus returns the Responses API status and
// incomplete_details.reason for s: truncation is
// incomplete/max_output_tokens, a content filter is incomplete/content_filter,
// and every other ending (including a refusal, which is a successful model
// output) is completed with no details.
func ResponsesStatus(s StopReason) (status, incompleteReason string) {
	switch s {
	case StopMaxTokens, StopContextWindow:
		return "incomplete", "max_output_tokens"
	case StopContentFilter:
		return "incomplete", "content_filter"
	}
	return "completed", ""
}

// FromResponsesStatus maps a Responses API status and
// incomplete_details.reason, given whether the output holds tool calls.
//
// Completed is a tool use when the output holds a tool
// call and a natural end otherwise (a refusal part is recognised by the codec,
// which sees the content); incomplete without details is max tokens;
// incomplete with an unknown reason, failed, cancelled, queued and
// in_progress have no stop reason (StopNone), and the second result reports
// that the case was ambiguous or carried no stop reason so callers can trace
// it.
func FromResponsesStatus(status, incompleteReason string, hasToolCall bool) (reason StopReason, ambiguous bool) {
	switch status {
	case "completed":
		if hasToolCall {
			return StopToolUse, false
		}
		return StopEnd, false
	case "incomplete":
		switch incompleteReason {
		case "max_output_tokens":
			return StopMaxTokens, false
		case "content_filter":
			return StopContentFilter, false
		case "":
			return StopMaxTokens, true
		}
		return StopNone, true
	}
	return StopNone, true
}

// FromConverseStopReason maps an Amazon Bedrock Converse stopReason.
//
// guardrail_intervened (a Bedrock guardrail blocked or masked the output)
// and content_filtered (the model provider's filter withheld it) are
// provider filter stops, as Gemini's SAFETY is: StopContentFilter, which
// client protocols with refusal semantics render as a refusal.
// model_context_window_exceeded is the context-window stop. The malformed
// outputs (malformed_model_output, malformed_tool_use) and unknown values
// are StopOther.
func FromConverseStopReason(s string) StopReason {
	switch s {
	case "":
		return StopNone
	case "end_turn":
		return StopEnd
	case "tool_use":
		return StopToolUse
	case "max_tokens":
		return StopMaxTokens
	case "stop_sequence":
		return StopSequence
	case "guardrail_intervened", "content_filtered":
		return StopContentFilter
	case "model_context_window_exceeded":
		return StopContextWindow
	}
	return StopOther
}

// ConverseStopReason returns the Converse stopReason for s.
//
// Converse has no refusal and no pause: a refusal is content_filtered, the
// value Converse uses for output the model's side withheld (as Gemini's
// SAFETY stands for both), and a pause is end_turn. Unknown and missing
// reasons become end_turn, the only value that claims nothing beyond "the
// turn ended"; the AWS SDKs require a stop reason.
func ConverseStopReason(s StopReason) string {
	switch s {
	case StopMaxTokens:
		return "max_tokens"
	case StopSequence:
		return "stop_sequence"
	case StopToolUse:
		return "tool_use"
	case StopRefusal, StopContentFilter:
		return "content_filtered"
	case StopContextWindow:
		return "model_context_window_exceeded"
	}
	return "end_turn"
}
