package codec_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/codectest"
	"github.com/llmbridge/llmbridge/mapping"
	"github.com/llmbridge/llmbridge/sse"
)

// observed is what a passthrough records of a stream: the last known usage,
// the last stop reason, and whether an error event came.
type observed struct {
	usage codec.Usage
	stop  mapping.StopReason
	err   bool
}

func (o *observed) take(evs []codec.Event) {
	for i := range evs {
		switch ev := &evs[i]; ev.Type {
		case codec.EventStart, codec.EventUsage:
			if ev.Usage.Known {
				o.usage = ev.Usage
			}
		case codec.EventStop:
			o.stop = ev.StopReason
		case codec.EventError:
			o.err = true
		}
	}
}

// observeBoth replays the stream body of protocol p through a stream
// decoder that sees every event and through a UsageObserver.
func observeBoth(p codec.Protocol, body string) (full, filtered observed) {
	dec, obs := codectest.StreamDecoder(p), codec.NewUsageObserver(p)
	r := sse.NewReader(strings.NewReader(body), 0)
	var evs []codec.Event
	for {
		ev, err := r.Next()
		if err != nil {
			return full, filtered
		}
		evs = dec.Decode(evs[:0], ev.Name, ev.Data, ev.Bare)
		full.take(evs)
		evs = obs.Observe(evs[:0], ev.Name, ev.Data, ev.Bare)
		filtered.take(evs)
	}
}

// TestUsageObserverRecordings replays every recorded stream twice, through
// a stream decoder that sees every event and through a UsageObserver, and
// requires both to find the same usage, stop reason and errors.
func TestUsageObserverRecordings(t *testing.T) {
	codectest.SkipWithoutRecordings(t)
	n := 0
	for _, p := range codec.Protocols() {
		files, _ := filepath.Glob(filepath.Join(codectest.RecordingsDir, string(p), "*.json"))
		for _, file := range files {
			rec := codectest.ReadRecording(t, filepath.Join(string(p), filepath.Base(file)))
			body := rec.Get("response.body").String()
			if !rec.Get("stream").Bool() || rec.Get("response.status").Int() != 200 || !strings.Contains(body, "data:") {
				continue
			}
			full, filtered := observeBoth(p, body)
			if full != filtered {
				t.Errorf("%s: every event gives %+v, the observer %+v", file, full, filtered)
			}
			n++
		}
	}
	if n < 20 {
		t.Fatalf("only %d recorded streams", n)
	}
	t.Logf("%d recorded streams", n)
}

// TestReportsUsage checks the event tests that decide what the observer
// decodes.
func TestReportsUsage(t *testing.T) {
	for _, c := range []struct {
		p          codec.Protocol
		name, data string
		want       bool
	}{
		{codec.OpenAIChat, "", `{"choices":[{"delta":{"content":"a"},"finish_reason":null}]}`, false},
		{codec.OpenAIChat, "", `{"choices":[{"delta":{},"finish_reason" : "stop"}]}`, true},
		{codec.OpenAIChat, "", `{"choices":[],"usage":{"prompt_tokens":1}}`, true},
		{codec.OpenAIChat, "", `{"error":{"message":"x"}}`, true},
		{codec.AnthropicMessages, "content_block_delta", `{"type":"content_block_delta"}`, false},
		{codec.AnthropicMessages, "message_delta", `{"type":"message_delta"}`, true},
		{codec.AnthropicMessages, "", `{"type":"message_delta","usage":{}}`, true},
		{codec.AnthropicMessages, "", `{"type":"content_block_delta"}`, false},
		{codec.OpenAIResponses, "response.output_text.delta", `{}`, false},
		{codec.OpenAIResponses, "response.completed", `{}`, true},
		{codec.OpenAIResponses, "", `{"type":"response.failed"}`, true},
		{codec.OpenAIResponses, "", `{"type":"response.output_item.added"}`, true},
		{codec.OpenAIResponses, "response.function_call_arguments.delta", `{}`, false},
		{codec.OpenAIChat, "", `{"choices":[{"delta":{"refusal":"no"},"finish_reason":null}]}`, true},
		{codec.OpenAIChat, "", `{"choices":[{"delta":{"content":"a","refusal":null}}]}`, false},
		// Longer than a 64-byte block: the block quote scan.
		{codec.OpenAIChat, "", `{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1767225600,"model":"m","choices":[{"index":0,"delta":{"content":" word"},"logprobs":null,"finish_reason":null}]}`, false},
		{codec.OpenAIChat, "", `{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1767225600,"model":"m","choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"length"}]}`, true},
		{codec.OpenAIChat, "", `{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1767225600,"model":"m","choices":[],"usage":{"prompt_tokens":1}}`, true},
		{codec.Gemini, "", `{"candidates":[{"content":{"parts":[{"functionCall":{"name":"f"}}]}}]}`, true},
		{codec.Gemini, "", `{"candidates":[{"content":{"parts":[{"text":"a"}]}}]}`, false},
		{codec.Vertex, "", `{"candidates":[{"finishReason":"STOP"}]}`, true},
		{codec.Gemini, "", `{"usageMetadata":{}}`, true},
	} {
		if got := codec.ReportsUsage(c.p.Family(), c.name, c.data); got != c.want {
			t.Errorf("%s %q %s: %v, want %v", c.p, c.name, c.data, got, c.want)
		}
	}
}

// TestUsageObserverEncodedStreams does the same with the canonical streams
// of the encoder tests (text, parallel tool calls, refusal, reasoning, ...)
// as every protocol's upstream would send them.
func TestUsageObserverEncodedStreams(t *testing.T) {
	for _, c := range codectest.EncodeCases {
		for _, p := range codec.Protocols() {
			req := c.Req
			req.Stream, req.StreamUsage = true, true
			body := codectest.EncodeStream(p, &req, c.Evs)
			full, filtered := observeBoth(p, body)
			if full != filtered {
				t.Errorf("%s as %s: every event gives %+v, the observer %+v", c.Name, p, full, filtered)
			}
		}
	}
}

// TestUsageObserverClose gives the stop reason of a Gemini stream, which
// has no terminal event, at the stream's end; an observer of an unknown
// protocol gives nothing.
func TestUsageObserverClose(t *testing.T) {
	obs := codec.NewUsageObserver(codec.Gemini)
	var o observed
	for _, data := range []string{
		`{"candidates":[{"content":{"role":"model","parts":[{"text":"Hi"}]}}],"modelVersion":"gemini-2.5-flash"}`,
		`{"candidates":[{"content":{"role":"model","parts":[{"text":"!"}]},"finishReason":"MAX_TOKENS"}],"usageMetadata":{"promptTokenCount":3,"candidatesTokenCount":2,"totalTokenCount":5},"modelVersion":"gemini-2.5-flash"}`,
	} {
		o.take(obs.Observe(nil, nil, []byte(data), false))
	}
	if o.stop != mapping.StopNone || !o.usage.Known {
		t.Fatalf("before the end: %+v", o)
	}
	o.take(obs.Close(nil))
	if o.stop != mapping.StopMaxTokens || o.err {
		t.Errorf("at the end: %+v, want max_tokens without an error", o)
	}
	if evs := codec.NewUsageObserver("nothing").Close(nil); len(evs) != 0 {
		t.Errorf("an unknown protocol's observer closes with %+v", evs)
	}
}
