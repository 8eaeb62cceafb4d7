package codec

import (
	"errors"
	"testing"

	"github.com/llmbridge/llmbridge/mapping"
)

// wantConversation is the canonical form of testdata/conversation/*.json:
// the same conversation written in every protocol.
func wantConversation(p Protocol) Request {
	r := Request{
		Model:      "test-model",
		System:     []Part{{Type: PartText, Text: "You are a terse assistant.\nAnswer in one line."}},
		SystemRole: RoleSystem,
		Messages: []Message{
			{Role: RoleUser, Parts: []Part{{Type: PartText, Text: "What is the capital of France?"}}},
			{Role: RoleAssistant, Parts: []Part{{Type: PartText, Text: "Paris."}}},
			{Role: RoleUser, Parts: []Part{{Type: PartText, Text: "And of \"Italy\"?"}}},
		},
		MaxTokens:     OptInt{Value: 256, Set: true},
		Temperature:   OptFloat{Value: 0.5, Set: true},
		TopP:          OptFloat{Value: 0.9, Set: true},
		StopSequences: []string{"\n\n"},
		User:          "user-42",
	}
	switch p {
	case OpenAIResponses:
		r.StopSequences = nil // Responses has no stop sequences
	case Gemini, Vertex:
		r.User = "" // Gemini has no end-user field
	case VertexAnthropic:
		r.Dropped = []string{"anthropic_version"}
	}
	return r
}

// TestConversationMatrix decodes one conversation written in every protocol,
// checks that all decode to the same canonical request, and encodes each into
// every protocol, comparing with golden files under testdata/matrix.
func TestConversationMatrix(t *testing.T) {
	for _, from := range Protocols() {
		t.Run(string(from), func(t *testing.T) {
			var req Request
			if err := DecodeRequest(from, readTestdata(t, "conversation/"+string(from)+".json"), &req); err != nil {
				t.Fatal(err)
			}
			if from.ModelInPath() {
				req.Model = "test-model"
			}
			want := wantConversation(from)
			if !equalDecoded(req, want) {
				t.Fatalf("decoded\n%+v\nwant\n%+v", req, want)
			}
			for _, to := range Protocols() {
				r := req
				r.Dropped = append([]string(nil), req.Dropped...)
				out, err := AppendRequest(nil, to, &r, EncodeOptions{})
				if to == OpenAIResponses && len(req.StopSequences) > 0 {
					var e *Error
					if !errors.As(err, &e) || e.Status != 400 || e.Param != "stop_sequences" || e.Kind != mapping.ErrInvalidRequest {
						t.Errorf("%s -> %s: err = %v, want a 400 about stop_sequences", from, to, err)
					}
					continue
				}
				if err != nil {
					t.Errorf("%s -> %s: %v", from, to, err)
					continue
				}
				checkGolden(t, "matrix/"+string(from)+"--"+string(to)+".json", out)

				// The encoded request decodes to the same conversation.
				var back Request
				if err := DecodeRequest(to, out, &back); err != nil {
					t.Errorf("%s -> %s: decoding the output: %v", from, to, err)
					continue
				}
				if to.ModelInPath() {
					back.Model = r.Model
				}
				if !equalDecoded(back.Messages, req.Messages) || !equalDecoded(back.System, req.System) {
					t.Errorf("%s -> %s: round trip changed the conversation:\n%+v", from, to, back)
				}
			}
		})
	}
}
