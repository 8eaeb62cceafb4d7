package codec

import (
	"strings"
	"testing"

	"github.com/llmbridge/llmbridge/mapping"
	"github.com/llmbridge/llmbridge/sse"
)

// TestStreamWatcher feeds every protocol's complete stream and each of its
// prefixes to a watcher: only a stream that reached its terminal event is
// complete.
func TestStreamWatcher(t *testing.T) {
	events := []Event{{Type: EventStart, ID: "i", Model: "m"}, {Type: EventPartStart, Part: PartText},
		{Type: EventPartDelta, Text: "hi"}, {Type: EventPartStop}, {Type: EventStop, StopReason: mapping.StopEnd},
		{Type: EventUsage, Usage: Usage{Known: true, InputTokens: 1, OutputTokens: 1}}, {Type: EventEnd}}
	for _, p := range Protocols() {
		body := encodeStream(p, &Request{Model: "m", Stream: true, StreamUsage: true}, events)
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
			w := NewStreamWatcher(p)
			for _, ev := range raw[:n] {
				w.Observe(ev.Name, ev.Data, ev.Bare)
			}
			// Chat's usage chunk and Gemini's final chunk come last; every
			// protocol's stream is complete only with its last event.
			if got, want := w.Complete(), n == len(raw); got != want {
				t.Errorf("%s: after %d of %d events complete = %v", p, n, len(raw), got)
			}
		}
		w := NewStreamWatcher(p)
		w.Observe(nil, []byte(`{"error":{"code":500,"message":"x","status":"INTERNAL"}}`), true)
		if (p.Family() == Gemini || p.Family() == OpenAIChat) != w.Complete() {
			t.Errorf("%s: error chunk complete = %v", p, w.Complete())
		}
	}
}

func TestAppendStreamError(t *testing.T) {
	e := &Error{Status: 502, Kind: mapping.ErrBadGateway, Message: "broke off"}
	for _, p := range Protocols() {
		body := AppendStreamError(nil, p, &Request{Model: "m", Stream: true}, e)
		s := summarize(decodeStream(t, p, string(body), nil))
		if s.Err == nil || s.Complete || !strings.Contains(s.Err.Message, "broke off") {
			t.Errorf("%s: %+v from %s", p, s, body)
		}
	}
}

// TestIsProtocolBody: a success is a JSON object; an error status needs
// the protocol's error object (for Gemini also an array of them).
func TestIsProtocolBody(t *testing.T) {
	tests := []struct {
		p      Protocol
		status int
		body   string
		want   bool
	}{
		{OpenAIChat, 200, `{"id":"c"}`, true},
		{OpenAIChat, 200, ` {"id":"c"} `, true},
		{OpenAIChat, 200, `{"id":"c"`, false},
		{OpenAIChat, 200, `[]`, false},
		{OpenAIChat, 200, ``, false},
		{OpenAIChat, 200, `<html></html>`, false},
		{OpenAIResponses, 429, `{"error":{"message":"slow down","type":"requests"}}`, true},
		{OpenAIResponses, 500, `{"detail":"Internal Server Error"}`, false},
		{OpenAIResponses, 502, `<html>bad gateway</html>`, false},
		{AnthropicMessages, 529, `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`, true},
		{VertexAnthropic, 400, `{"error":{"message":7}}`, false},
		{Gemini, 400, `{"error":{"code":400,"message":"bad","status":"INVALID_ARGUMENT"}}`, true},
		{Vertex, 429, `[{"error":{"code":429,"message":"exhausted","status":"RESOURCE_EXHAUSTED"}}]`, true},
		{Vertex, 200, `[{"candidates":[]}]`, false},
		{OpenAIChat, 429, `[{"error":{"message":"x"}}]`, false},
		{Gemini, 404, `[]`, false},
	}
	for _, tt := range tests {
		if got := IsProtocolBody(tt.p, tt.status, []byte(tt.body)); got != tt.want {
			t.Errorf("IsProtocolBody(%s, %d, %q) = %v, want %v", tt.p, tt.status, tt.body, got, tt.want)
		}
	}
}

// TestStreamWatcherChecksEvents: an event that is not the protocol's is
// refused until the terminal event, and everything after it is accepted.
func TestStreamWatcherChecksEvents(t *testing.T) {
	tests := []struct {
		p     Protocol
		name  string
		data  string
		bare  bool
		valid bool
	}{
		{OpenAIChat, "", `{"choices":[]}`, false, true},
		{OpenAIChat, "", `[DONE]`, false, true},
		{OpenAIChat, "", `<html>`, false, false},
		{OpenAIChat, "", `42`, false, false},
		{OpenAIResponses, "response.created", `{"type":"response.created"}`, false, true},
		{OpenAIResponses, "", `{"no":"type"}`, false, false},
		{AnthropicMessages, "ping", `{"type":"ping"}`, false, true},
		{AnthropicMessages, "message_start", `{"type":7}`, false, false},
		{Gemini, "", `{"candidates":[]}`, false, true},
		{Gemini, "", `[{"error":{"code":500,"message":"x"}}]`, true, true},
		{Gemini, "", `{"error":`, true, false},
		{Vertex, "", `"text"`, false, false},
	}
	for _, tt := range tests {
		w := NewStreamWatcher(tt.p)
		if got := w.Observe([]byte(tt.name), []byte(tt.data), tt.bare); got != tt.valid {
			t.Errorf("%s %q: valid = %v, want %v", tt.p, tt.data, got, tt.valid)
		}
	}
	w := NewStreamWatcher(AnthropicMessages)
	w.Observe([]byte("message_stop"), []byte(`{"type":"message_stop"}`), false)
	if !w.Complete() || !w.Observe(nil, []byte("garbage"), false) {
		t.Errorf("an event after the terminal one was refused")
	}
}
