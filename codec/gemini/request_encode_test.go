package gemini

import (
	"errors"
	"strings"
	"testing"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/codectest"
)

func TestGeminiAppendRequest(t *testing.T) {
	tests := []struct {
		name    string
		req     codec.Request
		dropped []string
	}{
		{
			name: "minimal",
			req:  codec.Request{Model: "gemini-2.5-flash", Messages: []codec.Message{geminiText(codec.RoleUser, "Hello")}},
		},
		{
			name: "full",
			req: codec.Request{
				Model:      "ignored-the-model-is-in-the-path",
				System:     []codec.Part{{Type: codec.PartText, Text: "You are terse."}, {Type: codec.PartText, Text: "Answer in French."}},
				SystemRole: codec.RoleSystem,
				Messages: []codec.Message{
					geminiText(codec.RoleUser, "What is the capital of France?"),
					geminiText(codec.RoleAssistant, "Paris."),
					{Role: codec.RoleUser, Parts: []codec.Part{{Type: codec.PartText, Text: "And of \"Italy\"?"}, {Type: codec.PartText, Text: "\nOne word."}}},
				},
				MaxTokens:        codec.OptInt{Value: 1024, Set: true},
				Temperature:      codec.OptFloat{Value: 0.2, Set: true},
				TopP:             codec.OptFloat{Value: 0.95, Set: true},
				TopK:             codec.OptInt{Value: 40, Set: true},
				StopSequences:    []string{"END", "\n\n"},
				Seed:             codec.OptInt{Value: 7, Set: true},
				PresencePenalty:  codec.OptFloat{Value: 0.1, Set: true},
				FrequencyPenalty: codec.OptFloat{Value: -0.5, Set: true},
				User:             "user-1234",
			},
			dropped: []string{"user"},
		},
		{
			// System and developer messages after the first turn are
			// hoisted in order; the turns around them, and around an
			// assistant turn left empty, are merged; a refusal is text.
			name: "hoist_and_merge",
			req: codec.Request{
				System:     []codec.Part{{Type: codec.PartText, Text: "Leading instruction."}},
				SystemRole: codec.RoleDeveloper,
				Messages: []codec.Message{
					geminiText(codec.RoleUser, "First question."),
					geminiText(codec.RoleUser, "Second question."),
					{Role: codec.RoleAssistant, Parts: []codec.Part{{Type: codec.PartText, Text: "I can answer the first."}, {Type: codec.PartRefusal, Text: "I can't help with the second."}}},
					geminiText(codec.RoleSystem, "Mid-conversation system instruction."),
					geminiText(codec.RoleUser, "Why not?"),
					{Role: codec.RoleAssistant, Parts: []codec.Part{{Type: codec.PartText, Text: ""}}},
					geminiText(codec.RoleDeveloper, "Developer instruction."),
					{Role: codec.RoleUser, Parts: []codec.Part{{Type: codec.PartText, Text: ""}, {Type: codec.PartText, Text: "Please?"}}},
					geminiText(codec.RoleAssistant, "Because."),
					geminiText(codec.RoleAssistant, " That is all."),
				},
				Temperature: codec.OptFloat{Value: 0, Set: true},
			},
		},
		{
			name: "system_only_in_conversation",
			req: codec.Request{
				System: []codec.Part{{Type: codec.PartText, Text: ""}},
				Messages: []codec.Message{
					geminiText(codec.RoleDeveloper, "Only a developer message."),
					geminiText(codec.RoleUser, "Hi"),
				},
				MaxTokens: codec.OptInt{Value: 5, Set: true},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := tt.req
			out, err := codec.AppendRequest(nil, codec.Gemini, &req, codec.EncodeOptions{Model: "other-model"})
			if err != nil {
				t.Fatal(err)
			}
			codectest.CheckGolden(t, "gemini/request_"+tt.name+".json", out)
			if !codectest.EqualDecoded(req.Dropped, tt.dropped) {
				t.Errorf("Dropped %q, want %q", req.Dropped, tt.dropped)
			}
			vreq := tt.req
			vout, err := codec.AppendRequest(nil, codec.Vertex, &vreq, codec.EncodeOptions{})
			if err != nil || string(vout) != string(out) {
				t.Errorf("vertex body differs: %s (%v)", vout, err)
			}
		})
	}
}

func TestGeminiAppendRequestErrors(t *testing.T) {
	odd := codec.Part{Type: codec.PartType(200), Text: "x"}
	tests := []struct {
		name  string
		req   codec.Request
		param string
	}{
		{"no messages", codec.Request{System: []codec.Part{{Text: "sys"}}}, "messages"},
		{"only empty and system messages", codec.Request{Messages: []codec.Message{geminiText(codec.RoleUser, ""), geminiText(codec.RoleSystem, "s")}}, "messages"},
		{"unknown part in a turn", codec.Request{Messages: []codec.Message{geminiText(codec.RoleUser, "a"), {Role: codec.RoleAssistant, Parts: []codec.Part{{Text: "b"}, odd}}}}, "messages[1].content[1]"},
		{"unknown part in system", codec.Request{System: []codec.Part{odd}, Messages: []codec.Message{geminiText(codec.RoleUser, "a")}}, "system[0]"},
		{"unknown part in a system message", codec.Request{Messages: []codec.Message{geminiText(codec.RoleUser, "a"), {Role: codec.RoleSystem, Parts: []codec.Part{odd}}}}, "messages[1].content[0]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dst := []byte("prefix")
			out, err := codec.AppendRequest(dst, codec.Gemini, &tt.req, codec.EncodeOptions{})
			var e *codec.Error
			if !errors.As(err, &e) {
				t.Fatalf("error %v, want an *Error", err)
			}
			if e.Status != 400 || e.Param != tt.param || !strings.Contains(e.Message, "gemini protocol") {
				t.Errorf("got %d %q %q, want 400 about %s", e.Status, e.Param, e.Message, tt.param)
			}
			if string(out) != "prefix" {
				t.Errorf("dst not restored: %q", out)
			}
		})
	}
}

// TestGeminiRequestRoundTrip decodes snake_case Gemini and re-encodes it in
// the canonical camelCase form.
func TestGeminiRequestRoundTrip(t *testing.T) {
	body := `{"system_instruction":{"parts":[{"text":"Be brief."}]},"contents":[{"role":"user","parts":[{"text":"Hi"}]},{"role":"model","parts":[{"text":"Hello!"}]},{"parts":[{"text":"Bye"}]}],"generation_config":{"max_output_tokens":64,"top_k":5,"stop_sequences":["."]},"safety_settings":[]}`
	req, derr := decode(t, codec.Gemini, body)
	if derr != nil {
		t.Fatal(derr)
	}
	out, err := codec.AppendRequest(nil, codec.Vertex, &req, codec.EncodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	codectest.CheckGolden(t, "vertex/request_from_snake_case.json", out)
	again, derr := decode(t, codec.Gemini, string(out))
	if derr != nil {
		t.Fatal(derr)
	}
	req.Dropped = nil
	if !codectest.EqualDecoded(again, req) {
		t.Errorf("round trip:\n got %+v\nwant %+v", again, req)
	}
}
