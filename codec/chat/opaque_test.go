package chat

import (
	"slices"
	"strings"
	"testing"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/codectest"
	"github.com/llmbridge/llmbridge/mapping"
	"github.com/tidwall/gjson"
)

// audioAnswer is a Chat answer with audio output (modalities text and
// audio) and an image OpenRouter-style.
const audioAnswer = `{"id":"chatcmpl-1","object":"chat.completion","created":1700000000,"model":"gpt-4o-audio-preview","choices":[{"index":0,` +
	`"message":{"role":"assistant","content":null,"refusal":null,"audio":{"id":"audio_abc","data":"UklGRiQAAABXQVZF","expires_at":1700003600,"transcript":"Hello there."},` +
	`"images":[{"type":"image_url","image_url":{"url":"data:image/png;base64,iVBORw0KGgo="}}]},"finish_reason":"stop"}],` +
	`"usage":{"prompt_tokens":10,"completion_tokens":5,"total_tokens":15}}`

// TestChatOpaqueOutput: a Chat answer's audio and images never fail it.
// The transcript is the answer; the audio's id is state that travels in
// each client's continuation slot and comes back to the Chat upstream on
// the assistant message; the sound and the images are display, dropped
// and listed in Response.Dropped.
func TestChatOpaqueOutput(t *testing.T) {
	var resp codec.Response
	if err := codec.DecodeResponse(codec.OpenAIChat, []byte(audioAnswer), &resp); err != nil {
		t.Fatal(err)
	}
	state := codec.Part{Type: codec.PartReasoning, Redacted: true, Origin: mapping.FamilyOpenAIChat, Signature: `{"audio":{"id":"audio_abc"}}`}
	if len(resp.Content) != 2 || resp.Content[0].Text != "Hello there." || !codectest.EqualDecoded(resp.Content[1], state) {
		t.Fatalf("content %+v", resp.Content)
	}
	if want := []string{"choices[0].message.images (images)", "choices[0].message.audio.data (audio)"}; !slices.Equal(resp.Dropped, want) {
		t.Errorf("dropped %q, want %q", resp.Dropped, want)
	}
	for _, c := range codectest.OtherFamilies(codec.OpenAIChat) {
		t.Run(string(c), func(t *testing.T) {
			r := resp
			r.Content, r.Dropped = slices.Clone(resp.Content), nil
			out, err := codec.AppendResponse(nil, c, &r)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(out), "Hello there.") || strings.Contains(string(out), "UklGR") || strings.Contains(string(out), "iVBORw0KGgo") {
				t.Fatalf("client answer %s", out)
			}
			var req codec.Request
			if err := codec.DecodeRequest(c, codectest.NextTurn(t, c, out), &req); err != nil {
				t.Fatal(err)
			}
			up, err := codec.AppendRequest(nil, codec.OpenAIChat, &req, codec.EncodeOptions{})
			if err != nil {
				t.Fatal(err)
			}
			msg := gjson.GetBytes(up, "messages.1")
			if msg.Get("audio").Raw != `{"id":"audio_abc"}` || msg.Get("content").Str != "Hello there." {
				t.Errorf("assistant message %s", msg.Raw)
			}
			if slices.ContainsFunc(req.Dropped, func(s string) bool { return strings.Contains(s, "reasoning") }) {
				t.Errorf("the state was dropped: %q", req.Dropped)
			}
		})
	}
}

// TestChatLegacyFunctionCall: a legacy function_call is a tool call, with
// an id that stands in for the one it lacks.
func TestChatLegacyFunctionCall(t *testing.T) {
	body := `{"id":"chatcmpl-9","object":"chat.completion","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":null,` +
		`"function_call":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}},"finish_reason":"function_call"}]}`
	var resp codec.Response
	if err := codec.DecodeResponse(codec.OpenAIChat, []byte(body), &resp); err != nil {
		t.Fatal(err)
	}
	want := codec.Part{Type: codec.PartToolCall, ToolCallID: "call_chatcmpl-9", ToolName: "get_weather", Arguments: `{"city":"Paris"}`}
	if len(resp.Content) != 1 || !codectest.EqualDecoded(resp.Content[0], want) || resp.StopReason != mapping.StopToolUse {
		t.Errorf("content %+v stop %v", resp.Content, resp.StopReason)
	}
}

// TestChatOwnStateOnlyTowardChat: the state of a Chat server is dropped
// toward upstreams of other families, like foreign reasoning, and an
// opaque value that is not a JSON object never reaches the body's syntax.
func TestChatOwnStateOnlyTowardChat(t *testing.T) {
	for _, sig := range []string{`{"audio":{"id":"audio_abc"}}`, `{"audio":1} `, `{"x":`} {
		req := codec.Request{Model: "m", Messages: []codec.Message{
			{Role: codec.RoleUser, Parts: []codec.Part{{Type: codec.PartText, Text: "Q"}}},
			{Role: codec.RoleAssistant, Parts: []codec.Part{{Type: codec.PartText, Text: "A"}, {Type: codec.PartReasoning, Redacted: true, Origin: mapping.FamilyOpenAIChat, Signature: sig}}},
			{Role: codec.RoleUser, Parts: []codec.Part{{Type: codec.PartText, Text: "Q2"}}},
		}}
		for _, u := range []codec.Protocol{codec.OpenAIChat, codec.OpenAIResponses, codec.AnthropicMessages, codec.Gemini} {
			r := req
			r.Messages = slices.Clone(req.Messages)
			up, err := codec.AppendRequest(nil, u, &r, codec.EncodeOptions{})
			if err != nil {
				t.Fatalf("%s %s: %v", u, sig, err)
			}
			if !gjson.ValidBytes(up) {
				t.Errorf("%s %s: invalid body %s", u, sig, up)
			}
			back := strings.Contains(string(up), `"audio":{"id":"audio_abc"}`)
			if back != (u == codec.OpenAIChat && sig == `{"audio":{"id":"audio_abc"}}`) {
				t.Errorf("%s %s: %s", u, sig, up)
			}
		}
	}
}
