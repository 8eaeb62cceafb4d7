package codec

import (
	"errors"
	"strings"
	"testing"
)

// TestOrphanToolResults: a tool result whose id answers no call is a 400
// naming it toward every upstream, before anything is sent; Responses takes
// a call anywhere earlier, the others only in the assistant message right
// before the results.
func TestOrphanToolResults(t *testing.T) {
	user := Message{Role: RoleUser, Parts: []Part{{Type: PartText, Text: "go"}}}
	call := func(id string) Message {
		return Message{Role: RoleAssistant, Parts: []Part{{Type: PartToolCall, ToolCallID: id, ToolName: "f", Arguments: "{}"}}}
	}
	result := func(id string) Message {
		return Message{Role: RoleUser, Parts: []Part{{Type: PartToolResult, ToolCallID: id, ToolName: "f", Content: []Part{{Type: PartText, Text: "ok"}}}}}
	}
	tests := []struct {
		name     string
		msgs     []Message
		orphanAt string // the error's param, "" when the request is fine
		// responsesOK: the Responses API takes it (a call earlier on).
		responsesOK bool
	}{
		{"answered", []Message{user, call("c1"), result("c1")}, "", true},
		{"unknown id", []Message{user, call("c1"), result("c2")}, "messages[2].parts[0].tool_call_id", false},
		{"no call at all", []Message{user, result("c1")}, "messages[1].parts[0].tool_call_id", false},
		{"call two turns back", []Message{user, call("c1"), result("c1"), {Role: RoleAssistant, Parts: []Part{{Type: PartText, Text: "done"}}}, result("c1")},
			"messages[4].parts[0].tool_call_id", true},
	}
	for _, tt := range tests {
		for _, p := range []Protocol{OpenAIChat, OpenAIResponses, AnthropicMessages, VertexAnthropic, Gemini, Vertex} {
			t.Run(tt.name+"/"+string(p), func(t *testing.T) {
				req := Request{Model: "m", Messages: tt.msgs}
				_, err := AppendRequest(nil, p, &req, EncodeOptions{})
				want := tt.orphanAt
				if p == OpenAIResponses && tt.responsesOK {
					want = ""
				}
				var e *Error
				switch {
				case want == "" && err != nil && strings.Contains(err.Error(), "answers no tool call"):
					t.Errorf("refused: %v", err)
				case want != "" && (!errors.As(err, &e) || e.Status != 400 || e.Param != want || !strings.Contains(e.Message, "answers no tool call")):
					if p.Family() == Gemini && err != nil {
						// Gemini names the result by its own rules first.
						return
					}
					t.Errorf("err = %v, want a 400 at %s", err, want)
				}
			})
		}
	}
}
