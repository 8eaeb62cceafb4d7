package codec_test

import (
	"bytes"
	"errors"
	"testing"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/interactions"
	"github.com/llmbridge/llmbridge/codec/internal/codectest"
	"github.com/llmbridge/llmbridge/mapping"
)

// wantConversation is the canonical form of testdata/conversation/*.json:
// the same conversation written in every protocol.
func wantConversation(p codec.Protocol) codec.Request {
	r := codec.Request{
		Model:      "test-model",
		System:     []codec.Part{{Type: codec.PartText, Text: "You are a terse assistant.\nAnswer in one line."}},
		SystemRole: codec.RoleSystem,
		Messages: []codec.Message{
			{Role: codec.RoleUser, Parts: []codec.Part{{Type: codec.PartText, Text: "What is the capital of France?"}}},
			{Role: codec.RoleAssistant, Parts: []codec.Part{{Type: codec.PartText, Text: "Paris."}}},
			{Role: codec.RoleUser, Parts: []codec.Part{{Type: codec.PartText, Text: "And of \"Italy\"?"}}},
		},
		MaxTokens:     codec.OptInt{Value: 256, Set: true},
		Temperature:   codec.OptFloat{Value: 0.5, Set: true},
		TopP:          codec.OptFloat{Value: 0.9, Set: true},
		StopSequences: []string{"\n\n"},
		User:          "user-42",
	}
	switch p {
	case codec.OpenAIResponses:
		r.StopSequences = nil // Responses has no stop sequences
	case codec.Gemini, codec.Vertex, codec.Bedrock, interactions.Gemini:
		r.User = "" // Gemini, Interactions and Converse have no end-user field
	case codec.VertexAnthropic:
		r.Dropped = []string{"anthropic_version"}
	case codec.BedrockAnthropic:
		r.Dropped = []string{"anthropic_version", "anthropic_beta"}
	}
	return r
}

// TestConversationMatrix decodes one conversation written in every protocol,
// checks that all decode to the same canonical request, and encodes each into
// every protocol, comparing with golden files under testdata/matrix.
func TestConversationMatrix(t *testing.T) {
	for _, from := range codec.ClientProtocols() {
		t.Run(string(from), func(t *testing.T) {
			var req codec.Request
			if err := codec.DecodeRequest(from, codectest.ReadTestdata(t, "conversation/"+string(from)+".json"), &req); err != nil {
				t.Fatal(err)
			}
			if from.ModelInPath() {
				req.Model = "test-model"
			}
			want := wantConversation(from)
			if !codectest.EqualDecoded(req, want) {
				t.Fatalf("decoded\n%+v\nwant\n%+v", req, want)
			}
			for _, to := range codec.Protocols() {
				r := req
				r.Dropped = append([]string(nil), req.Dropped...)
				out, err := codec.AppendRequest(nil, to, &r, codec.EncodeOptions{})
				if to.Family() == codec.OpenAIResponses && len(req.StopSequences) > 0 {
					var e *codec.Error
					if !errors.As(err, &e) || e.Status != 400 || e.Param != "stop_sequences" || e.Kind != mapping.ErrInvalidRequest {
						t.Errorf("%s -> %s: err = %v, want a 400 about stop_sequences", from, to, err)
					}
					continue
				}
				if err != nil {
					t.Errorf("%s -> %s: %v", from, to, err)
					continue
				}
				if fam := to.Family(); fam != to {
					// A sibling that writes its family's bodies (Azure
					// OpenAI) has no golden files of its own.
					r2 := req
					r2.Dropped = append([]string(nil), req.Dropped...)
					if famOut, _ := codec.AppendRequest(nil, fam, &r2, codec.EncodeOptions{}); bytes.Equal(out, famOut) {
						continue
					}
				}
				codectest.CheckGolden(t, "matrix/"+string(from)+"--"+string(to)+".json", out)

				// The encoded request decodes to the same conversation.
				var back codec.Request
				if err := codec.DecodeRequest(to, out, &back); err != nil {
					t.Errorf("%s -> %s: decoding the output: %v", from, to, err)
					continue
				}
				if to.ModelInPath() {
					back.Model = r.Model
				}
				// Breakpoints llmbridge placed for a client without them
				// are not part of the conversation.
				clearBreakpoints(back.Messages, back.System)
				if !codectest.EqualDecoded(back.Messages, req.Messages) || !codectest.EqualDecoded(back.System, req.System) {
					t.Errorf("%s -> %s: round trip changed the conversation:\n%+v", from, to, back)
				}
			}
		})
	}
}

// clearBreakpoints removes the cache breakpoints of msgs and system.
func clearBreakpoints(msgs []codec.Message, system []codec.Part) {
	for i := range system {
		system[i].Cache = codec.CacheNone
	}
	for i := range msgs {
		for j := range msgs[i].Parts {
			msgs[i].Parts[j].Cache = codec.CacheNone
		}
	}
}
