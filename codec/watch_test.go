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
