package codec

import "strconv"

// checkToolResults refuses a request whose tool results answer no tool
// call, before any upstream sees it: every provider rejects such a result
// ("tool_result block(s) provided when previous message does not have
// tool_use blocks", "messages with role 'tool' must be a response to a
// preceding message with 'tool_calls'", "No tool call found for function
// call output with call_id"), and the client is better served by an error
// naming the result than by the upstream's. Anthropic, Chat and Gemini
// require the call in the assistant message right before the results; the
// Responses API takes a call anywhere earlier in the input. A result
// without an id is left to the encoders, which match it by name or refuse
// it.
func checkToolResults(p Protocol, req *Request) *Error {
	anywhere := p == OpenAIResponses
	last := -1 // the latest assistant message before the one being read
	for i := range req.Messages {
		m := &req.Messages[i]
		if m.Role == RoleAssistant {
			last = i
			continue
		}
		for j := range m.Parts {
			r := &m.Parts[j]
			if r.Type != PartToolResult || r.ToolCallID == "" {
				continue
			}
			if !answersCall(req.Messages, r.ToolCallID, last, anywhere) {
				where := "the assistant message before it"
				if anywhere {
					where = "the conversation before it"
				}
				return InvalidRequest("messages["+strconv.Itoa(i)+"].parts["+strconv.Itoa(j)+"].tool_call_id",
					`the tool result for call "`+r.ToolCallID+`" answers no tool call in `+where)
			}
		}
	}
	return nil
}

// answersCall reports whether a tool call with id is in msgs[last], or,
// when anywhere, in any assistant message before it. The message right
// before is looked at first: that is where the call of a result almost
// always is, so a long history is walked only for a result that answers an
// older call.
func answersCall(msgs []Message, id string, last int, anywhere bool) bool {
	if last < 0 {
		return false
	}
	if hasCall(&msgs[last], id) {
		return true
	}
	for i := last - 1; anywhere && i >= 0; i-- {
		if msgs[i].Role == RoleAssistant && hasCall(&msgs[i], id) {
			return true
		}
	}
	return false
}

// hasCall reports whether message m holds a tool call with id.
func hasCall(m *Message, id string) bool {
	for j := range m.Parts {
		if c := &m.Parts[j]; c.Type == PartToolCall && c.ToolCallID == id {
			return true
		}
	}
	return false
}
