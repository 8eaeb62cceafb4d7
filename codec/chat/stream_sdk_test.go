package chat

import (
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/codectest"
	"github.com/llmbridge/llmbridge/mapping"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/ssestream"
)

func TestChatStreamSDK(t *testing.T) {
	for _, tc := range streamEncodeCases() {
		t.Run(tc.name, func(t *testing.T) {
			req := &codec.Request{Model: "requested-model", Stream: true, StreamUsage: tc.usage}
			body := codectest.EncodeStream(codec.OpenAIChat, req, tc.evs)
			res := &http.Response{
				StatusCode: 200,
				Header:     http.Header{"Content-Type": []string{"text/event-stream; charset=utf-8"}},
				Body:       io.NopCloser(strings.NewReader(body)),
			}
			stream := ssestream.NewStream[openai.ChatCompletionChunk](ssestream.NewDecoder(res), nil)
			var acc openai.ChatCompletionAccumulator
			chunks, refusalDone, contentDone := 0, "", ""
			for stream.Next() {
				chunks++
				if !acc.AddChunk(stream.Current()) {
					t.Fatalf("accumulator rejected chunk %d: %s", chunks, stream.Current().RawJSON())
				}
				if r, ok := acc.JustFinishedRefusal(); ok {
					refusalDone = r
				}
				if c, ok := acc.JustFinishedContent(); ok {
					contentDone = c
				}
			}
			want := codectest.Summarize(tc.evs)
			err := stream.Err()
			if want.Err != nil {
				var se *ssestream.StreamError
				if !errors.As(err, &se) || !strings.Contains(se.Message, want.Err.Message) {
					t.Fatalf("err = %v, want a StreamError with %q", err, want.Err.Message)
				}
				t.Logf("SDK error: %v", err)
			} else if err != nil {
				t.Fatalf("stream error: %v", err)
			}
			if chunks == 0 {
				if want.Text != "" || want.Refusal != "" {
					t.Fatal("no chunks")
				}
				return
			}
			if acc.ID != want.ID || acc.Model != want.Model || acc.Object != "chat.completion" {
				t.Errorf("id/model/object = %q %q %q, want %q %q", acc.ID, acc.Model, acc.Object, want.ID, want.Model)
			}
			if len(acc.Choices) != 1 {
				t.Fatalf("choices = %d", len(acc.Choices))
			}
			msg := acc.Choices[0].Message
			if msg.Content != want.Text || msg.Refusal != want.Refusal || msg.Role != "assistant" {
				t.Errorf("content/refusal/role = %q %q %q, want %q %q", msg.Content, msg.Refusal, msg.Role, want.Text, want.Refusal)
			}
			if want.Err != nil {
				if acc.Choices[0].FinishReason != "" && tc.name != "error_truncated" {
					t.Errorf("finish reason %q before the error", acc.Choices[0].FinishReason)
				}
				return
			}
			if got, w := acc.Choices[0].FinishReason, mapping.ChatFinishReason(want.Stop); got != w {
				t.Errorf("finish_reason = %q, want %q", got, w)
			}
			if want.Refusal != "" && refusalDone != want.Refusal {
				t.Errorf("JustFinishedRefusal = %q, want %q", refusalDone, want.Refusal)
			}
			if want.Refusal == "" && want.Text != "" && contentDone != want.Text {
				t.Errorf("JustFinishedContent = %q, want %q", contentDone, want.Text)
			}
			u := acc.Usage
			if tc.usage && want.Usage.Known {
				if u.PromptTokens != want.Usage.InputTokens || u.CompletionTokens != want.Usage.OutputTokens ||
					u.TotalTokens != want.Usage.TotalTokens() || u.PromptTokensDetails.CachedTokens != want.Usage.CacheReadTokens ||
					u.CompletionTokensDetails.ReasoningTokens != want.Usage.ReasoningTokens {
					t.Errorf("usage = %+v, want %+v", u, want.Usage)
				}
			} else if u.PromptTokens != 0 || u.CompletionTokens != 0 || u.JSON.PromptTokens.Valid() {
				t.Errorf("usage sent although not asked for or unknown: %+v", u)
			}
			t.Logf("SDK: %d chunks, content %q refusal %q finish %q usage %d/%d", chunks, msg.Content, msg.Refusal,
				acc.Choices[0].FinishReason, u.PromptTokens, u.CompletionTokens)
		})
	}
}

// TestChatStreamToolsSDK reads the encoded tool call stream with
// openai-go's accumulator: each call whole, with its id, name and
// arguments, and finish_reason tool_calls.
func TestChatStreamToolsSDK(t *testing.T) {
	body := codectest.EncodeStream(codec.OpenAIChat, &codec.Request{Model: "m", Stream: true, StreamUsage: true}, streamToolEvents())
	res := &http.Response{
		StatusCode: 200,
		Header:     http.Header{"Content-Type": []string{"text/event-stream"}},
		Body:       io.NopCloser(strings.NewReader(body)),
	}
	stream := ssestream.NewStream[openai.ChatCompletionChunk](ssestream.NewDecoder(res), nil)
	var acc openai.ChatCompletionAccumulator
	var finished []string
	for stream.Next() {
		if !acc.AddChunk(stream.Current()) {
			t.Fatalf("accumulator rejected %s", stream.Current().RawJSON())
		}
		if c, ok := acc.JustFinishedToolCall(); ok {
			finished = append(finished, c.ID+" "+c.Name+" "+c.Arguments)
		}
	}
	if err := stream.Err(); err != nil {
		t.Fatal(err)
	}
	msg := acc.Choices[0].Message
	if msg.Content != "Checking." || acc.Choices[0].FinishReason != "tool_calls" || len(msg.ToolCalls) != 2 {
		t.Fatalf("message = %+v, finish %q", msg, acc.Choices[0].FinishReason)
	}
	for i, want := range [][3]string{{"call_1", "weather", `{"city":"Paris"}`}, {"call_2", "now", "{}"}} {
		c := msg.ToolCalls[i]
		if c.ID != want[0] || c.Function.Name != want[1] || c.Function.Arguments != want[2] || c.Type != "function" {
			t.Errorf("tool call %d = %+v, want %v", i, c, want)
		}
	}
	if len(finished) != 2 || finished[0] != `call_1 weather {"city":"Paris"}` {
		t.Errorf("JustFinishedToolCall = %q", finished)
	}
}
