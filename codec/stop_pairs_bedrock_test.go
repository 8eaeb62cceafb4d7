package codec_test

// Converse (bedrock) stop reasons against the other families. Converse's
// values are Anthropic's, without pause_turn and refusal, and with two
// filter stops, guardrail_intervened (a Bedrock guardrail) and
// content_filtered (the model provider's filter): toward the other
// families they are what Gemini's filter reasons are (Anthropic refusal,
// Chat content_filter, Responses incomplete/content_filter, Gemini
// SAFETY), and a refusal from another family is content_filtered.

// ConverseFilterReasons are the Converse stopReason values that mean a
// filter withheld output.
var ConverseFilterReasons = []string{"guardrail_intervened", "content_filtered"}

func isConverseFilter(stop string) bool {
	return stop == ConverseFilterReasons[0] || stop == ConverseFilterReasons[1]
}

// ConverseToAnthropicStopReason maps a Converse stopReason: end_turn is
// tool_use when the message holds tool uses; the filter stops are refusal;
// the others keep their Anthropic names; no reason yet is "". Unknown and
// malformed-output values are end_turn, reported as ambiguous.
func ConverseToAnthropicStopReason(stop string, out OutputKind) (stopReason string, ambiguous bool) {
	switch {
	case stop == "end_turn":
		if out == OutputToolCall {
			return "tool_use", false
		}
		return "end_turn", false
	case stop == "tool_use", stop == "max_tokens", stop == "stop_sequence", stop == "model_context_window_exceeded":
		return stop, false
	case isConverseFilter(stop):
		return "refusal", false
	case stop == "":
		return "", false
	}
	return "end_turn", true
}

// ConverseToChatFinishReason maps a Converse stopReason: end_turn is
// tool_calls with tool uses and stop otherwise, tool_use tool_calls,
// max_tokens and model_context_window_exceeded length, stop_sequence stop,
// the filter stops content_filter; unknown values are stop, ambiguous.
func ConverseToChatFinishReason(stop string, out OutputKind) (finish string, ambiguous bool) {
	switch {
	case stop == "end_turn":
		if out == OutputToolCall {
			return "tool_calls", false
		}
		return "stop", false
	case stop == "tool_use":
		return "tool_calls", false
	case stop == "max_tokens", stop == "model_context_window_exceeded":
		return "length", false
	case stop == "stop_sequence":
		return "stop", false
	case isConverseFilter(stop):
		return "content_filter", false
	case stop == "":
		return "", false
	}
	return "stop", true
}

// ConverseToGeminiFinishReason maps a Converse stopReason: natural ends,
// stop sequences and tool uses are STOP, the length stops MAX_TOKENS, the
// filter stops SAFETY; unknown values are OTHER, ambiguous.
func ConverseToGeminiFinishReason(stop string) (finish string, ambiguous bool) {
	switch {
	case stop == "end_turn", stop == "tool_use", stop == "stop_sequence":
		return "STOP", false
	case stop == "max_tokens", stop == "model_context_window_exceeded":
		return "MAX_TOKENS", false
	case isConverseFilter(stop):
		return "SAFETY", false
	case stop == "":
		return "", false
	}
	return "OTHER", true
}

// ConverseToResponsesStatus maps a Converse stopReason: the length stops
// are incomplete/max_output_tokens, the filter stops
// incomplete/content_filter, the others completed; unknown values are
// completed, ambiguous.
func ConverseToResponsesStatus(stop string) (status, incompleteReason string, ambiguous bool) {
	switch {
	case stop == "end_turn", stop == "tool_use", stop == "stop_sequence":
		return "completed", "", false
	case stop == "max_tokens", stop == "model_context_window_exceeded":
		return "incomplete", "max_output_tokens", false
	case isConverseFilter(stop):
		return "incomplete", "content_filter", false
	case stop == "":
		return "in_progress", "", false
	}
	return "completed", "", true
}

// AnthropicToConverseStopReason maps an Anthropic stop_reason: pause_turn
// is end_turn (Converse has no pause), refusal content_filtered; the
// others keep their names; unknown values are end_turn, ambiguous.
func AnthropicToConverseStopReason(stopReason string) (stop string, ambiguous bool) {
	switch stopReason {
	case "end_turn", "stop_sequence", "tool_use", "max_tokens", "model_context_window_exceeded":
		return stopReason, false
	case "pause_turn":
		return "end_turn", false
	case "refusal":
		return "content_filtered", false
	case "":
		return "", false
	}
	return "end_turn", true
}

// ChatToConverseStopReason maps a Chat finish_reason: stop is
// content_filtered with a refusal in the message, tool_use with tool calls
// and end_turn otherwise; length max_tokens; tool_calls and function_call
// tool_use; content_filter content_filtered; unknown values end_turn,
// ambiguous.
func ChatToConverseStopReason(finish string, out OutputKind) (stop string, ambiguous bool) {
	switch finish {
	case "stop":
		switch out {
		case OutputRefusal:
			return "content_filtered", false
		case OutputToolCall:
			return "tool_use", false
		}
		return "end_turn", false
	case "length":
		return "max_tokens", false
	case "tool_calls", "function_call":
		return "tool_use", false
	case "content_filter":
		return "content_filtered", false
	case "":
		return "", false
	}
	return "end_turn", true
}

// GeminiToConverseStopReason maps a Gemini finishReason: STOP is tool_use
// with function calls and end_turn otherwise, MAX_TOKENS max_tokens, the
// filter reasons content_filtered; other values end_turn, ambiguous.
func GeminiToConverseStopReason(finish string, out OutputKind) (stop string, ambiguous bool) {
	switch {
	case finish == "STOP":
		if out == OutputToolCall {
			return "tool_use", false
		}
		return "end_turn", false
	case finish == "MAX_TOKENS":
		return "max_tokens", false
	case isGeminiFilter(finish):
		return "content_filtered", false
	case finish == "":
		return "", false
	}
	return "end_turn", true
}

// ResponsesToConverseStopReason maps a Responses status: completed is
// content_filtered with a refusal, tool_use with a tool call and end_turn
// otherwise; incomplete max_output_tokens (and missing details,
// ambiguous) is max_tokens, content_filter content_filtered; other
// statuses have none.
func ResponsesToConverseStopReason(status, incompleteReason string, out OutputKind) (stop string, ok, ambiguous bool) {
	switch status {
	case "completed":
		switch out {
		case OutputRefusal:
			return "content_filtered", true, false
		case OutputToolCall:
			return "tool_use", true, false
		}
		return "end_turn", true, false
	case "incomplete":
		switch incompleteReason {
		case "max_output_tokens":
			return "max_tokens", true, false
		case "content_filter":
			return "content_filtered", true, false
		case "":
			return "max_tokens", true, true
		}
		return "", false, true
	case "in_progress":
		return "", false, false
	}
	return "", false, true
}
