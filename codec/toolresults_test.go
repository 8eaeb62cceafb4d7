package codec_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/llmbridge/llmbridge/codec"
)

// TestOrphanToolResults: a tool result whose id answers no call is a 400
// naming it toward every upstream, before anything is sent; Responses takes
// a call anywhere earlier, the others only in the assistant message right
// before the results.
func TestOrphanToolResults(t *testing.T) {
	user := codec.Message{Role: codec.RoleUser, Parts: []codec.Part{{Type: codec.PartText, Text: "go"}}}
	call := func(id string) codec.Message {
		return codec.Message{Role: codec.RoleAssistant, Parts: []codec.Part{{Type: codec.PartToolCall, ToolCallID: id, ToolName: "f", Arguments: "{}"}}}
	}
	result := func(id string) codec.Message {
		return codec.Message{Role: codec.RoleUser, Parts: []codec.Part{{Type: codec.PartToolResult, ToolCallID: id, ToolName: "f", Content: []codec.Part{{Type: codec.PartText, Text: "ok"}}}}}
	}
	tests := []struct {
		name     string
		msgs     []codec.Message
		orphanAt string // the error's param, "" when the request is fine
		// responsesOK: the Responses API takes it (a call earlier on).
		responsesOK bool
	}{
		{"answered", []codec.Message{user, call("c1"), result("c1")}, "", true},
		{"unknown id", []codec.Message{user, call("c1"), result("c2")}, "messages[2].parts[0].tool_call_id", false},
		{"no call at all", []codec.Message{user, result("c1")}, "messages[1].parts[0].tool_call_id", false},
		{"call two turns back", []codec.Message{user, call("c1"), result("c1"), {Role: codec.RoleAssistant, Parts: []codec.Part{{Type: codec.PartText, Text: "done"}}}, result("c1")},
			"messages[4].parts[0].tool_call_id", true},
	}
	for _, tt := range tests {
		for _, p := range []codec.Protocol{codec.OpenAIChat, codec.OpenAIResponses, codec.AnthropicMessages, codec.VertexAnthropic, codec.Gemini, codec.Vertex} {
			t.Run(tt.name+"/"+string(p), func(t *testing.T) {
				req := codec.Request{Model: "m", Messages: tt.msgs}
				_, err := codec.AppendRequest(nil, p, &req, codec.EncodeOptions{})
				want := tt.orphanAt
				if p == codec.OpenAIResponses && tt.responsesOK {
					want = ""
				}
				var e *codec.Error
				switch {
				case want == "" && err != nil && strings.Contains(err.Error(), "answers no tool call"):
					t.Errorf("refused: %v", err)
				case want != "" && (!errors.As(err, &e) || e.Status != 400 || e.Param != want || !strings.Contains(e.Message, "answers no tool call")):
					if p.Family() == codec.Gemini && err != nil {
						// Gemini names the result by its own rules first.
						return
					}
					t.Errorf("err = %v, want a 400 at %s", err, want)
				}
			})
		}
	}
}
