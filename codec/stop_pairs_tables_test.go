package codec_test

// OutputKind is what a finished response's output holds, which decides a
// completed Responses status's Anthropic stop reason.
type OutputKind uint8

// Output kinds.
const (
	// OutputText is ordinary output (or none).
	OutputText OutputKind = iota
	// OutputToolCall means the output holds a function or custom tool call.
	OutputToolCall
	// OutputRefusal means the output holds a refusal part.
	OutputRefusal
)

// AnthropicToResponsesStatus maps an Anthropic stop_reason to a Responses
// status and incomplete_details.reason: natural ends, tool use, pause and
// refusal are completed (a refusal is a successful model output, never
// failed); max_tokens and model_context_window_exceeded are truncations
// (incomplete/max_output_tokens); no reason yet is in_progress; an unknown
// reason is completed and reported as ambiguous.
func AnthropicToResponsesStatus(stopReason string) (status, incompleteReason string, ambiguous bool) {
	switch stopReason {
	case "end_turn", "stop_sequence", "tool_use", "pause_turn", "refusal":
		return "completed", "", false
	case "max_tokens", "model_context_window_exceeded":
		return "incomplete", "max_output_tokens", false
	case "":
		return "in_progress", "", false
	}
	return "completed", "", true
}

// ResponsesToAnthropicStopReason maps a Responses status and
// incomplete_details.reason to an Anthropic stop_reason (the second
// table). completed is inferred from the output: a refusal part is
// refusal, a tool call tool_use, anything else end_turn. incomplete is
// max_tokens for max_output_tokens and, ambiguously, for missing details;
// content_filter is refusal. An unknown incomplete reason, failed,
// cancelled, queued and in_progress have no stop reason ("", ok false):
// failed is a provider failure, never a refusal.
func ResponsesToAnthropicStopReason(status, incompleteReason string, out OutputKind) (stopReason string, ok, ambiguous bool) {
	switch status {
	case "completed":
		switch out {
		case OutputRefusal:
			return "refusal", true, false
		case OutputToolCall:
			return "tool_use", true, false
		}
		return "end_turn", true, false
	case "incomplete":
		switch incompleteReason {
		case "max_output_tokens":
			return "max_tokens", true, false
		case "content_filter":
			return "refusal", true, false
		case "":
			return "max_tokens", true, true
		}
		return "", false, true
	case "in_progress":
		return "", false, false
	}
	return "", false, true
}

// AnthropicToChatFinishReason maps an Anthropic stop_reason to a Chat
// finish_reason: refusal is "stop" (OpenAI ends refusals with stop; the
// refusal text travels in message.refusal), tool_use "tool_calls",
// max_tokens and model_context_window_exceeded "length"; end_turn,
// stop_sequence and pause_turn "stop"; no reason yet is "" (null). Unknown
// reasons are "stop", reported as ambiguous.
func AnthropicToChatFinishReason(stopReason string) (finish string, ambiguous bool) {
	switch stopReason {
	case "end_turn", "stop_sequence", "pause_turn", "refusal":
		return "stop", false
	case "tool_use":
		return "tool_calls", false
	case "max_tokens", "model_context_window_exceeded":
		return "length", false
	case "":
		return "", false
	}
	return "stop", true
}

// ChatToAnthropicStopReason maps a Chat finish_reason to an Anthropic
// stop_reason: stop is end_turn unless the message holds a refusal
// (refusal) or tool calls (tool_use: some Chat servers end tool calls with
// stop), length max_tokens, tool_calls and the deprecated
// function_call tool_use, content_filter refusal (Anthropic has no filter
// reason; a withheld output is the nearest). null is "" (no reason yet);
// unknown values are end_turn, reported as ambiguous.
func ChatToAnthropicStopReason(finish string, out OutputKind) (stopReason string, ambiguous bool) {
	switch finish {
	case "stop":
		switch out {
		case OutputRefusal:
			return "refusal", false
		case OutputToolCall:
			return "tool_use", false
		}
		return "end_turn", false
	case "length":
		return "max_tokens", false
	case "tool_calls", "function_call":
		return "tool_use", false
	case "content_filter":
		return "refusal", false
	case "":
		return "", false
	}
	return "end_turn", true
}

// GeminiFilterReasons are the Gemini finishReason values that mean the
// provider's filters withheld output. Toward OpenAI they are
// content_filter (Chat) and incomplete/content_filter (Responses), toward
// Anthropic a refusal; the value itself is kept as the stop detail's
// category.
var GeminiFilterReasons = []string{"SAFETY", "RECITATION", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII",
	"IMAGE_SAFETY", "IMAGE_PROHIBITED_CONTENT", "IMAGE_RECITATION", "MODEL_ARMOR"}

func isGeminiFilter(finish string) bool {
	for _, f := range GeminiFilterReasons {
		if f == finish {
			return true
		}
	}
	return false
}

// GeminiToAnthropicStopReason maps a Gemini finishReason: STOP is tool_use
// when the candidate holds function calls and end_turn otherwise;
// MAX_TOKENS max_tokens; every filter reason refusal; no reason yet "".
// Other values (LANGUAGE, OTHER, MALFORMED_FUNCTION_CALL, ...) are end_turn,
// reported as ambiguous.
func GeminiToAnthropicStopReason(finish string, out OutputKind) (stopReason string, ambiguous bool) {
	switch {
	case finish == "STOP":
		if out == OutputToolCall {
			return "tool_use", false
		}
		return "end_turn", false
	case finish == "MAX_TOKENS":
		return "max_tokens", false
	case isGeminiFilter(finish):
		return "refusal", false
	case finish == "":
		return "", false
	}
	return "end_turn", true
}

// AnthropicToGeminiFinishReason maps an Anthropic stop_reason to a Gemini
// finishReason: Gemini has one value, STOP, for natural ends, stop
// sequences, tool calls and pauses; max_tokens and
// model_context_window_exceeded are MAX_TOKENS; a refusal is SAFETY (the
// refusal text stays visible as the candidate's text). No reason yet is "";
// unknown reasons are OTHER, reported as ambiguous.
func AnthropicToGeminiFinishReason(stopReason string) (finish string, ambiguous bool) {
	switch stopReason {
	case "end_turn", "stop_sequence", "tool_use", "pause_turn":
		return "STOP", false
	case "max_tokens", "model_context_window_exceeded":
		return "MAX_TOKENS", false
	case "refusal":
		return "SAFETY", false
	case "":
		return "", false
	}
	return "OTHER", true
}

// ResponsesToChatFinishReason maps a Responses status: completed is
// tool_calls with a tool call in the output and stop otherwise (a refusal
// too: its text travels in message.refusal); incomplete is length for
// max_output_tokens and missing details (ambiguous), content_filter for
// content_filter; other statuses have no finish reason ("", ok false).
func ResponsesToChatFinishReason(status, incompleteReason string, out OutputKind) (finish string, ok, ambiguous bool) {
	switch status {
	case "completed":
		if out == OutputToolCall {
			return "tool_calls", true, false
		}
		return "stop", true, false
	case "incomplete":
		switch incompleteReason {
		case "max_output_tokens":
			return "length", true, false
		case "content_filter":
			return "content_filter", true, false
		case "":
			return "length", true, true
		}
		return "", false, true
	case "in_progress":
		return "", false, false
	}
	return "", false, true
}

// ChatToResponsesStatus maps a Chat finish_reason: stop and tool_calls are
// completed, length is incomplete/max_output_tokens, content_filter is
// incomplete/content_filter, null is in_progress; unknown values are
// completed, reported as ambiguous.
func ChatToResponsesStatus(finish string) (status, incompleteReason string, ambiguous bool) {
	switch finish {
	case "stop", "tool_calls", "function_call":
		return "completed", "", false
	case "length":
		return "incomplete", "max_output_tokens", false
	case "content_filter":
		return "incomplete", "content_filter", false
	case "":
		return "in_progress", "", false
	}
	return "completed", "", true
}

// GeminiToResponsesStatus maps a Gemini finishReason: STOP is completed,
// MAX_TOKENS incomplete/max_output_tokens, the filter reasons
// incomplete/content_filter, no reason yet in_progress; other values are
// completed, reported as ambiguous.
func GeminiToResponsesStatus(finish string) (status, incompleteReason string, ambiguous bool) {
	switch {
	case finish == "STOP":
		return "completed", "", false
	case finish == "MAX_TOKENS":
		return "incomplete", "max_output_tokens", false
	case isGeminiFilter(finish):
		return "incomplete", "content_filter", false
	case finish == "":
		return "in_progress", "", false
	}
	return "completed", "", true
}

// ResponsesToGeminiFinishReason maps a Responses status: completed is
// STOP (tool calls included), or SAFETY when the output is a refusal, as
// for an Anthropic refusal; incomplete max_output_tokens (and missing
// details, ambiguous) is MAX_TOKENS, content_filter SAFETY; other statuses
// have none.
func ResponsesToGeminiFinishReason(status, incompleteReason string, out OutputKind) (finish string, ok, ambiguous bool) {
	switch status {
	case "completed":
		if out == OutputRefusal {
			return "SAFETY", true, false
		}
		return "STOP", true, false
	case "incomplete":
		switch incompleteReason {
		case "max_output_tokens":
			return "MAX_TOKENS", true, false
		case "content_filter":
			return "SAFETY", true, false
		case "":
			return "MAX_TOKENS", true, true
		}
		return "", false, true
	case "in_progress":
		return "", false, false
	}
	return "", false, true
}

// ChatToGeminiFinishReason maps a Chat finish_reason: stop and tool_calls
// are STOP (stop with a refusal in the message SAFETY, as for other
// refusals), length MAX_TOKENS, content_filter SAFETY, null ""; unknown
// values are OTHER, reported as ambiguous.
func ChatToGeminiFinishReason(finish string, out OutputKind) (gemini string, ambiguous bool) {
	switch finish {
	case "stop":
		if out == OutputRefusal {
			return "SAFETY", false
		}
		return "STOP", false
	case "tool_calls", "function_call":
		return "STOP", false
	case "length":
		return "MAX_TOKENS", false
	case "content_filter":
		return "SAFETY", false
	case "":
		return "", false
	}
	return "OTHER", true
}

// GeminiToChatFinishReason maps a Gemini finishReason: STOP is tool_calls
// with function calls in the candidate and stop otherwise, MAX_TOKENS
// length, the filter reasons content_filter, no reason yet ""; other values
// are stop, reported as ambiguous.
func GeminiToChatFinishReason(finish string, out OutputKind) (chat string, ambiguous bool) {
	switch {
	case finish == "STOP":
		if out == OutputToolCall {
			return "tool_calls", false
		}
		return "stop", false
	case finish == "MAX_TOKENS":
		return "length", false
	case isGeminiFilter(finish):
		return "content_filter", false
	case finish == "":
		return "", false
	}
	return "stop", true
}
