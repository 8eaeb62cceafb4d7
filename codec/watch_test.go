package codec_test

import (
	"strings"
	"testing"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/codectest"
	"github.com/llmbridge/llmbridge/mapping"
	"github.com/llmbridge/llmbridge/sse"
)

// TestStreamWatcher feeds every protocol's complete stream and each of its
// prefixes to a watcher: only a stream that reached its terminal event is
// complete.
func TestStreamWatcher(t *testing.T) {
	events := []codec.Event{{Type: codec.EventStart, ID: "i", Model: "m"}, {Type: codec.EventPartStart, Part: codec.PartText},
		{Type: codec.EventPartDelta, Text: "hi"}, {Type: codec.EventPartStop}, {Type: codec.EventStop, StopReason: mapping.StopEnd},
		{Type: codec.EventUsage, Usage: codec.Usage{Known: true, InputTokens: 1, OutputTokens: 1}}, {Type: codec.EventEnd}}
	for _, p := range codec.Protocols() {
		body := codectest.EncodeStream(p, &codec.Request{Model: "m", Stream: true, StreamUsage: true}, events)
		var raw []*sse.Event
		r := sse.NewReader(strings.NewReader(body), 0)
		for {
			ev, err := r.Next()
			if err != nil {
				break
			}
			c := *ev
			c.Name, c.Data = append([]byte(nil), ev.Name...), append([]byte(nil), ev.Data...)
			raw = append(raw, &c)
		}
		for n := 0; n <= len(raw); n++ {
			w := codec.NewStreamWatcher(p)
			for _, ev := range raw[:n] {
				w.Observe(ev.Name, ev.Data, ev.Bare)
			}
			// Chat's usage chunk and Gemini's final chunk come last; every
			// protocol's stream is complete only with its last event.
			if got, want := w.Complete(), n == len(raw); got != want {
				t.Errorf("%s: after %d of %d events complete = %v", p, n, len(raw), got)
			}
		}
		w := codec.NewStreamWatcher(p)
		w.Observe(nil, []byte(`{"error":{"code":500,"message":"x","status":"INTERNAL"}}`), true)
		if (p.Family() == codec.Gemini || p.Family() == codec.OpenAIChat) != w.Complete() {
			t.Errorf("%s: error chunk complete = %v", p, w.Complete())
		}
	}
}

func TestAppendStreamError(t *testing.T) {
	e := &codec.Error{Status: 502, Kind: mapping.ErrBadGateway, Message: "broke off"}
	for _, p := range codec.Protocols() {
		body := codec.AppendStreamError(nil, p, &codec.Request{Model: "m", Stream: true}, e)
		s := codectest.Summarize(codectest.DecodeStream(t, p, string(body), nil))
		if s.Err == nil || s.Complete || !strings.Contains(s.Err.Message, "broke off") {
			t.Errorf("%s: %+v from %s", p, s, body)
		}
	}
}

// TestIsProtocolBody: a success is a JSON object; an error status needs
// the protocol's error object (for Gemini also an array of them).
func TestIsProtocolBody(t *testing.T) {
	tests := []struct {
		p      codec.Protocol
		status int
		body   string
		want   bool
	}{
		{codec.OpenAIChat, 200, `{"id":"c"}`, true},
		{codec.OpenAIChat, 200, ` {"id":"c"} `, true},
		{codec.OpenAIChat, 200, `{"id":"c"`, false},
		{codec.OpenAIChat, 200, `[]`, false},
		{codec.OpenAIChat, 200, ``, false},
		{codec.OpenAIChat, 200, `<html></html>`, false},
		{codec.OpenAIResponses, 429, `{"error":{"message":"slow down","type":"requests"}}`, true},
		{codec.OpenAIResponses, 500, `{"detail":"Internal Server Error"}`, false},
		{codec.OpenAIResponses, 502, `<html>bad gateway</html>`, false},
		{codec.AnthropicMessages, 529, `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`, true},
		{codec.VertexAnthropic, 400, `{"error":{"message":7}}`, false},
		{codec.Gemini, 400, `{"error":{"code":400,"message":"bad","status":"INVALID_ARGUMENT"}}`, true},
		{codec.Vertex, 429, `[{"error":{"code":429,"message":"exhausted","status":"RESOURCE_EXHAUSTED"}}]`, true},
		{codec.Vertex, 200, `[{"candidates":[]}]`, false},
		{codec.OpenAIChat, 429, `[{"error":{"message":"x"}}]`, false},
		{codec.Gemini, 404, `[]`, false},
	}
	for _, tt := range tests {
		if got := codec.IsProtocolBody(tt.p, tt.status, []byte(tt.body)); got != tt.want {
			t.Errorf("IsProtocolBody(%s, %d, %q) = %v, want %v", tt.p, tt.status, tt.body, got, tt.want)
		}
	}
}

// TestStreamWatcherChecksEvents: an event that is not the protocol's is
// refused until the terminal event, and everything after it is accepted.
func TestStreamWatcherChecksEvents(t *testing.T) {
	tests := []struct {
		p     codec.Protocol
		name  string
		data  string
		bare  bool
		valid bool
	}{
		{codec.OpenAIChat, "", `{"choices":[]}`, false, true},
		{codec.OpenAIChat, "", `[DONE]`, false, true},
		{codec.OpenAIChat, "", `<html>`, false, false},
		{codec.OpenAIChat, "", `42`, false, false},
		{codec.OpenAIResponses, "response.created", `{"type":"response.created"}`, false, true},
		{codec.OpenAIResponses, "", `{"no":"type"}`, false, false},
		{codec.AnthropicMessages, "ping", `{"type":"ping"}`, false, true},
		{codec.AnthropicMessages, "message_start", `{"type":7}`, false, false},
		{codec.Gemini, "", `{"candidates":[]}`, false, true},
		{codec.Gemini, "", `[{"error":{"code":500,"message":"x"}}]`, true, true},
		{codec.Gemini, "", `{"error":`, true, false},
		{codec.Vertex, "", `"text"`, false, false},
	}
	for _, tt := range tests {
		w := codec.NewStreamWatcher(tt.p)
		if got := w.Observe([]byte(tt.name), []byte(tt.data), tt.bare); got != tt.valid {
			t.Errorf("%s %q: valid = %v, want %v", tt.p, tt.data, got, tt.valid)
		}
	}
	w := codec.NewStreamWatcher(codec.AnthropicMessages)
	w.Observe([]byte("message_stop"), []byte(`{"type":"message_stop"}`), false)
	if !w.Complete() || !w.Observe(nil, []byte("garbage"), false) {
		t.Errorf("an event after the terminal one was refused")
	}
}
