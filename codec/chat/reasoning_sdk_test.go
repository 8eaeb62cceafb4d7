package chat

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/codectest"
	"github.com/llmbridge/llmbridge/codec/internal/jsonx"
	"github.com/llmbridge/llmbridge/mapping"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/ssestream"
	"github.com/tidwall/gjson"
)

// sdkRead reads a Chat SSE body with openai-go and returns the
// accumulated completion, the concatenated reasoning_content deltas and the
// refusal JustFinishedRefusal reported.
func sdkRead(t *testing.T, body string) (openai.ChatCompletionAccumulator, string, string) {
	t.Helper()
	res := &http.Response{
		StatusCode: 200,
		Header:     http.Header{"Content-Type": []string{"text/event-stream"}},
		Body:       io.NopCloser(strings.NewReader(body)),
	}
	stream := ssestream.NewStream[openai.ChatCompletionChunk](ssestream.NewDecoder(res), nil)
	var acc openai.ChatCompletionAccumulator
	var reasoning strings.Builder
	refusal := ""
	for stream.Next() {
		chunk := stream.Current()
		if !acc.AddChunk(chunk) {
			t.Fatalf("accumulator rejected %s", chunk.RawJSON())
		}
		if r, ok := acc.JustFinishedRefusal(); ok {
			refusal = r
		}
		if len(chunk.Choices) == 0 {
			continue
		}
		// The SDK keeps unknown fields raw, with Valid() false: it has no
		// type for them.
		if f, ok := chunk.Choices[0].Delta.JSON.ExtraFields["reasoning_content"]; ok && f.Raw() != "" && f.Raw() != "null" {
			var s string
			if err := json.Unmarshal([]byte(f.Raw()), &s); err != nil {
				t.Fatalf("reasoning_content %s: %v", f.Raw(), err)
			}
			reasoning.WriteString(s)
		}
	}
	if err := stream.Err(); err != nil {
		t.Fatal(err)
	}
	return acc, reasoning.String(), refusal
}

func TestChatStreamReasoningSDK(t *testing.T) {
	resp := toolLoopResponse()
	body := codectest.EncodeStream(codec.OpenAIChat, &codec.Request{Model: "m", Stream: true, StreamUsage: true}, reasoningEvents(resp))
	acc, thinking, _ := sdkRead(t, body)
	msg := acc.Choices[0].Message
	if msg.Content != "The answer." || msg.Refusal != "" || acc.Choices[0].FinishReason != "tool_calls" || len(msg.ToolCalls) != 1 {
		t.Fatalf("message = %+v, finish %q", msg, acc.Choices[0].FinishReason)
	}
	if acc.Usage.CompletionTokensDetails.ReasoningTokens != 30 || acc.Usage.PromptTokensDetails.CachedTokens != 60 {
		t.Errorf("usage = %+v", acc.Usage)
	}
	// What the SDK collected, replayed as history, is the same reasoning.
	checkToolLoopReplay(t, gjson.Parse(string(jsonx.AppendString(nil, msg.Content))), thinking, msg.ToolCalls[0].ID)
}

func TestChatStreamRefusalSDK(t *testing.T) {
	evs := []codec.Event{{Type: codec.EventStart, ID: "msg_1", Model: "claude"},
		{Type: codec.EventStop, StopReason: mapping.StopRefusal, StopDetails: codec.StopDetails{Explanation: "Not with this."}}, evEnd()}
	acc, _, refusal := sdkRead(t, codectest.EncodeStream(codec.OpenAIChat, &codec.Request{Model: "m", Stream: true}, evs))
	msg := acc.Choices[0].Message
	if msg.Refusal != "Not with this." || msg.Content != "" || refusal != "Not with this." || acc.Choices[0].FinishReason != "stop" {
		t.Errorf("message = %+v, JustFinishedRefusal %q, finish %q", msg, refusal, acc.Choices[0].FinishReason)
	}
}

// TestChatResponseReasoningSDK reads non-streamed responses with openai-go:
// reasoning_content is an extra field of the message that replays to the
// same parts, and a refusal is the message's refusal with empty content.
func TestChatResponseReasoningSDK(t *testing.T) {
	resp := toolLoopResponse()
	out, err := codec.AppendResponse(nil, codec.OpenAIChat, resp)
	if err != nil {
		t.Fatal(err)
	}
	var c openai.ChatCompletion
	if err := json.Unmarshal(out, &c); err != nil {
		t.Fatal(err)
	}
	msg := c.Choices[0].Message
	var thinking string
	if err := json.Unmarshal([]byte(msg.JSON.ExtraFields["reasoning_content"].Raw()), &thinking); err != nil {
		t.Fatal(err)
	}
	if len(msg.ToolCalls) != 1 {
		t.Fatalf("tool calls = %+v", msg.ToolCalls)
	}
	checkToolLoopReplay(t, gjson.Parse(string(jsonx.AppendString(nil, msg.Content))), thinking, msg.ToolCalls[0].ID)

	refusal := &codec.Response{ID: "msg_1", Model: "claude", Created: 1, StopReason: mapping.StopRefusal,
		StopDetails: codec.StopDetails{Explanation: "Not with this."}}
	if out, err = codec.AppendResponse(nil, codec.OpenAIChat, refusal); err != nil {
		t.Fatal(err)
	}
	c = openai.ChatCompletion{}
	if err := json.Unmarshal(out, &c); err != nil {
		t.Fatal(err)
	}
	if m := c.Choices[0].Message; m.Refusal != "Not with this." || m.Content != "" || m.JSON.Content.Valid() || c.Choices[0].FinishReason != "stop" {
		t.Errorf("refusal message = %+v, finish %q", m, c.Choices[0].FinishReason)
	}
}
