package streams

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"go.uber.org/zap"

	"github.com/llmbridge/llmbridge/codec"
	_ "github.com/llmbridge/llmbridge/codec/all"
	"github.com/llmbridge/llmbridge/mapping"
	"github.com/llmbridge/llmbridge/sse/eventstream"
)

// chatStream is an OpenAI Chat stream of one short answer.
const chatStream = `data: {"id":"c1","object":"chat.completion.chunk","model":"gpt-4o","choices":[{"index":0,"delta":{"role":"assistant","content":"Hel"}}]}

data: {"id":"c1","object":"chat.completion.chunk","model":"gpt-4o","choices":[{"index":0,"delta":{"content":"lo"},"finish_reason":"stop"}]}

data: [DONE]

`

// TestTranslator translates a Chat stream for an Anthropic client in
// pieces of every size, ends a stream cut short with an error event, and
// refuses an event past the bound with one.
func TestTranslator(t *testing.T) {
	cfg := &Config{Logger: zap.NewNop(), MaxEventSize: 1 << 16, MaxFrameSize: 1 << 20}
	req := &codec.Request{Model: "claude", Stream: true}
	run := func(t *testing.T, cfg *Config, chunks []string, nextErr error) string {
		t.Helper()
		w := httptest.NewRecorder()
		s, err := NewTranslator(w, cfg, codec.AnthropicMessages, codec.OpenAIChat, req)
		if err != nil {
			t.Fatal(err)
		}
		s.Model = "claude-as-asked"
		StartHeaders(w, codec.AnthropicMessages, http.StatusOK)
		for _, c := range chunks {
			if _, err := s.Write([]byte(c)); err != nil && !errors.Is(err, ErrClientStreamEnded) {
				t.Fatal(err)
			}
		}
		s.Finish(nextErr)
		if ct := w.Header().Get("Content-Type"); ct != "text/event-stream" {
			t.Errorf("Content-Type %q", ct)
		}
		return w.Body.String()
	}
	for _, size := range []int{1, 7, len(chatStream)} {
		var chunks []string
		for i := 0; i < len(chatStream); i += size {
			chunks = append(chunks, chatStream[i:min(i+size, len(chatStream))])
		}
		out := run(t, cfg, chunks, nil)
		if !strings.Contains(out, "event: message_start") || !strings.Contains(out, `"claude-as-asked"`) ||
			!strings.Contains(out, `"text":"Hel"`) || !strings.HasSuffix(out, "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n") {
			t.Errorf("pieces of %d bytes: %s", size, out)
		}
	}
	cut := run(t, cfg, []string{chatStream[:strings.Index(chatStream, "data: [DONE]")-60]}, errors.New("connection reset"))
	if !strings.Contains(cut, "event: error") || strings.Contains(cut, "message_stop") {
		t.Errorf("a stream cut short: %s", cut)
	}
	small := &Config{Logger: zap.NewNop(), MaxEventSize: 64, MaxFrameSize: 1 << 20}
	if out := run(t, small, []string{chatStream}, nil); !strings.Contains(out, "larger than 64 bytes") {
		t.Errorf("an event past the bound: %s", out)
	}

	// An answer given as one JSON body, streamed to a client that asked
	// for a stream.
	w := httptest.NewRecorder()
	s, err := NewTranslator(w, cfg, codec.AnthropicMessages, codec.OpenAIChat, req)
	if err != nil {
		t.Fatal(err)
	}
	s.Respond(&codec.Response{ID: "r1", Model: "m", StopReason: mapping.StopEnd, Content: []codec.Part{{Type: codec.PartText, Text: "whole"}}})
	if out := w.Body.String(); !strings.Contains(out, `"text":"whole"`) || !strings.Contains(out, "message_stop") {
		t.Errorf("Respond: %s", out)
	}
	if _, err := NewTranslator(w, cfg, codec.AnthropicMessages, codec.Protocol("no-such"), req); err == nil {
		t.Error("a protocol without a stream codec got a translator")
	}
}

// TestFraming: SSE passes as it is; AWS protocols are read and written as
// event streams.
func TestFraming(t *testing.T) {
	if ContentType(codec.OpenAIChat) != "text/event-stream" || ContentType(codec.Bedrock) != eventstream.ContentType {
		t.Errorf("content types %q, %q", ContentType(codec.OpenAIChat), ContentType(codec.Bedrock))
	}
	if !IsStreamOf(codec.OpenAIChat, "text/event-stream; charset=utf-8") || IsStreamOf(codec.OpenAIChat, "application/json") || IsStreamOf(codec.OpenAIChat, ";;") {
		t.Error("IsStreamOf")
	}
	if NewUnframer(codec.OpenAIChat, 10) != nil || NewFramer(codec.OpenAIChat, 10) != nil {
		t.Error("SSE got a framer")
	}
	for _, p := range []codec.Protocol{codec.Bedrock, codec.BedrockAnthropic} {
		if NewUnframer(p, 10) == nil || NewFramer(p, 10) == nil {
			t.Errorf("%s got no framer", p)
		}
	}
	if framing(codec.Protocol("no-such")) != codec.FramingSSE {
		t.Error("an unknown protocol's framing")
	}
}
