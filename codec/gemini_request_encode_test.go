package codec

import (
	"errors"
	"strings"
	"testing"
)

// Tests of writing canonical requests as Gemini bodies, and of request
// round trips.

func TestGeminiAppendRequest(t *testing.T) {
	tests := []struct {
		name    string
		req     Request
		dropped []string
	}{
		{
			name: "minimal",
			req:  Request{Model: "gemini-2.5-flash", Messages: []Message{geminiText(RoleUser, "Hello")}},
		},
		{
			name: "full",
			req: Request{
				Model:      "ignored-the-model-is-in-the-path",
				System:     []Part{{Type: PartText, Text: "You are terse."}, {Type: PartText, Text: "Answer in French."}},
				SystemRole: RoleSystem,
				Messages: []Message{
					geminiText(RoleUser, "What is the capital of France?"),
					geminiText(RoleAssistant, "Paris."),
					{Role: RoleUser, Parts: []Part{{Type: PartText, Text: "And of \"Italy\"?"}, {Type: PartText, Text: "\nOne word."}}},
				},
				MaxTokens:        OptInt{Value: 1024, Set: true},
				Temperature:      OptFloat{Value: 0.2, Set: true},
				TopP:             OptFloat{Value: 0.95, Set: true},
				TopK:             OptInt{Value: 40, Set: true},
				StopSequences:    []string{"END", "\n\n"},
				Seed:             OptInt{Value: 7, Set: true},
				PresencePenalty:  OptFloat{Value: 0.1, Set: true},
				FrequencyPenalty: OptFloat{Value: -0.5, Set: true},
				User:             "user-1234",
			},
			dropped: []string{"user"},
		},
		{
			// System and developer messages after the first turn are
			// hoisted in order; the turns around them, and around an
			// assistant turn left empty, are merged; a refusal is text.
			name: "hoist_and_merge",
			req: Request{
				System:     []Part{{Type: PartText, Text: "Leading instruction."}},
				SystemRole: RoleDeveloper,
				Messages: []Message{
					geminiText(RoleUser, "First question."),
					geminiText(RoleUser, "Second question."),
					{Role: RoleAssistant, Parts: []Part{{Type: PartText, Text: "I can answer the first."}, {Type: PartRefusal, Text: "I can't help with the second."}}},
					geminiText(RoleSystem, "Mid-conversation system instruction."),
					geminiText(RoleUser, "Why not?"),
					{Role: RoleAssistant, Parts: []Part{{Type: PartText, Text: ""}}},
					geminiText(RoleDeveloper, "Developer instruction."),
					{Role: RoleUser, Parts: []Part{{Type: PartText, Text: ""}, {Type: PartText, Text: "Please?"}}},
					geminiText(RoleAssistant, "Because."),
					geminiText(RoleAssistant, " That is all."),
				},
				Temperature: OptFloat{Value: 0, Set: true},
			},
		},
		{
			name: "system_only_in_conversation",
			req: Request{
				System: []Part{{Type: PartText, Text: ""}},
				Messages: []Message{
					geminiText(RoleDeveloper, "Only a developer message."),
					geminiText(RoleUser, "Hi"),
				},
				MaxTokens: OptInt{Value: 5, Set: true},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := tt.req
			out, err := AppendRequest(nil, Gemini, &req, EncodeOptions{Model: "other-model"})
			if err != nil {
				t.Fatal(err)
			}
			checkGolden(t, "gemini/request_"+tt.name+".json", out)
			if !equalDecoded(req.Dropped, tt.dropped) {
				t.Errorf("Dropped %q, want %q", req.Dropped, tt.dropped)
			}
			vreq := tt.req
			vout, err := AppendRequest(nil, Vertex, &vreq, EncodeOptions{})
			if err != nil || string(vout) != string(out) {
				t.Errorf("vertex body differs: %s (%v)", vout, err)
			}
		})
	}
}

func TestGeminiAppendRequestErrors(t *testing.T) {
	odd := Part{Type: PartType(200), Text: "x"}
	tests := []struct {
		name  string
		req   Request
		param string
	}{
		{"no messages", Request{System: []Part{{Text: "sys"}}}, "messages"},
		{"only empty and system messages", Request{Messages: []Message{geminiText(RoleUser, ""), geminiText(RoleSystem, "s")}}, "messages"},
		{"unknown part in a turn", Request{Messages: []Message{geminiText(RoleUser, "a"), {Role: RoleAssistant, Parts: []Part{{Text: "b"}, odd}}}}, "messages[1].content[1]"},
		{"unknown part in system", Request{System: []Part{odd}, Messages: []Message{geminiText(RoleUser, "a")}}, "system[0]"},
		{"unknown part in a system message", Request{Messages: []Message{geminiText(RoleUser, "a"), {Role: RoleSystem, Parts: []Part{odd}}}}, "messages[1].content[0]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dst := []byte("prefix")
			out, err := AppendRequest(dst, Gemini, &tt.req, EncodeOptions{})
			var e *Error
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
	req, derr := geminiDecode(t, Gemini, body)
	if derr != nil {
		t.Fatal(derr)
	}
	out, err := AppendRequest(nil, Vertex, &req, EncodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "vertex/request_from_snake_case.json", out)
	again, derr := geminiDecode(t, Gemini, string(out))
	if derr != nil {
		t.Fatal(derr)
	}
	req.Dropped = nil
	if !equalDecoded(again, req) {
		t.Errorf("round trip:\n got %+v\nwant %+v", again, req)
	}
}
