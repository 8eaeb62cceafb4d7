package chat

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/codectest"
	"github.com/llmbridge/llmbridge/codec/internal/wire"
	"github.com/llmbridge/llmbridge/mapping"
	"github.com/tidwall/gjson"
)

// checkStreamGolden compares an encoded SSE stream with
// testdata/openai-chat/stream_<name>.sse, byte for byte; with -update it
// rewrites the file.
func checkStreamGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join(codectest.Testdata, "openai-chat", "stream_"+name+".sse")
	if *codectest.Update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -update in this package writes it)", err)
	}
	if !bytes.Equal([]byte(got), want) {
		t.Errorf("%s differs from golden file:\n got: %s\nwant: %s", path, got, want)
	}
}

// streamEncodeCases are canonical streams for the encoder's golden
// files and the round trip.
func streamEncodeCases() []struct {
	name  string
	usage bool // the client asked for include_usage
	evs   []codec.Event
} {
	start := codec.Event{Type: codec.EventStart, ID: "chatcmpl-abc", Model: "gpt-4o-2024-08-06", Created: 1727346171}
	usage := codec.Usage{Known: true, InputTokens: 79, OutputTokens: 11, CacheReadTokens: 64, ReasoningTokens: 3}
	upstreamErr := &codec.Error{Status: 529, Kind: mapping.ErrOverloaded, Message: "Overloaded", Code: "overloaded_error", Protocol: codec.AnthropicMessages}
	return []struct {
		name  string
		usage bool
		evs   []codec.Event
	}{
		{"plain_text", true, []codec.Event{start, evPart(0, codec.PartText), evDelta(0, "Hello"), evDelta(0, ", \"world\"\n"),
			evPartStop(0), evStop(mapping.StopEnd), evUsage(usage), evEnd()}},
		{"refusal", true, []codec.Event{start, evPart(0, codec.PartRefusal), evDelta(0, "I'm sorry,"), evDelta(0, " I can't."),
			evPartStop(0), evStop(mapping.StopRefusal), evUsage(usage), evEnd()}},
		{"text_then_refusal", false, []codec.Event{start, evPart(0, codec.PartText), evDelta(0, "Well."), evPartStop(0),
			evPart(1, codec.PartRefusal), evDelta(1, "No."), evPartStop(1), evStop(mapping.StopEnd), evEnd()}},
		{"max_tokens", true, []codec.Event{start, evPart(0, codec.PartText), evDelta(0, `{"`), evPartStop(0),
			evStop(mapping.StopMaxTokens), evUsage(codec.Usage{Known: true, InputTokens: 79, OutputTokens: 1}), evEnd()}},
		// Usage before the stop reason, as Gemini and Anthropic upstreams
		// report it (input usage in the start event, then cumulative).
		{"usage_before_stop", true, []codec.Event{
			{Type: codec.EventStart, ID: "msg_01", Model: "claude-sonnet-4-5", Created: 1727346171,
				Usage: codec.Usage{Known: true, InputTokens: 30, CacheWriteTokens: 10}},
			evPart(0, codec.PartText), evDelta(0, "Hi"), evPartStop(0),
			evUsage(codec.Usage{Known: true, InputTokens: 30, CacheWriteTokens: 10, OutputTokens: 7}),
			evStop(mapping.StopSequence), evEnd()}},
		{"usage_after_stop", true, []codec.Event{start, evPart(0, codec.PartText), evDelta(0, "Hi"), evPartStop(0),
			evStop(mapping.StopContentFilter), evUsage(usage), evEnd()}},
		{"no_include_usage", false, []codec.Event{start, evPart(0, codec.PartText), evDelta(0, "Hi"), evPartStop(0),
			evStop(mapping.StopEnd), evUsage(usage), evEnd()}},
		{"end_without_stop", true, []codec.Event{start, evPart(0, codec.PartText), evDelta(0, "Hi"), evPartStop(0), evEnd()}},
		{"empty", true, []codec.Event{start, evStop(mapping.StopEnd), evEnd()}},
		{"error_mid_stream", true, []codec.Event{start, evPart(0, codec.PartText), evDelta(0, "Hel"),
			{Type: codec.EventError, Err: upstreamErr}}},
		{"error_before_content", true, []codec.Event{start, {Type: codec.EventError, Err: &codec.Error{Status: 429, Kind: mapping.ErrRateLimit,
			Message: "Rate limit reached", Code: "rate_limit_exceeded", Param: "model", Protocol: codec.OpenAIChat}}}},
		{"error_truncated", true, []codec.Event{start, evPart(0, codec.PartText), evDelta(0, "Hi"), evPartStop(0),
			evStop(mapping.StopEnd), {Type: codec.EventError, Err: wire.Truncated(codec.AnthropicMessages, codectest.ErrTestBroken)}}},
	}
}

// TestChatStreamEncodeGolden checks the client streams byte for byte.
func TestChatStreamEncodeGolden(t *testing.T) {
	for _, tc := range streamEncodeCases() {
		t.Run(tc.name, func(t *testing.T) {
			req := &codec.Request{Model: "requested-model", Stream: true, StreamUsage: tc.usage}
			checkStreamGolden(t, tc.name, codectest.EncodeStream(codec.OpenAIChat, req, tc.evs))
		})
	}
}

// TestChatStreamRoundTrip: canonical events -> encoder -> decoder give the
// same summary, for everything Chat can carry.
func TestChatStreamRoundTrip(t *testing.T) {
	for _, tc := range streamEncodeCases() {
		t.Run(tc.name, func(t *testing.T) {
			req := &codec.Request{Model: "requested-model", Stream: true, StreamUsage: tc.usage}
			sse := codectest.EncodeStream(codec.OpenAIChat, req, tc.evs)
			got := codectest.DecodeStream(t, codec.OpenAIChat, sse, nil)
			codectest.CheckWellFormed(t, got)
			g, w := codectest.Summarize(got), codectest.Summarize(tc.evs)
			// What Chat cannot carry: a stop sequence and a refusal end
			// as "stop"; an end without reason gets "stop"; cache writes
			// and usage the client did not ask for are not sent.
			switch w.Stop {
			case mapping.StopSequence, mapping.StopRefusal, mapping.StopNone:
				if w.Complete {
					w.Stop = mapping.StopEnd
				}
			}
			if w.Refusal != "" && w.Stop == mapping.StopEnd {
				// A refusal part that ends naturally is a refusal again.
				w.Stop = mapping.StopRefusal
			}
			w.Usage.CacheWriteTokens = 0
			if !tc.usage || w.Err != nil {
				w.Usage = codec.Usage{}
			}
			if tc.name == "error_before_content" {
				// Nothing but the error went out: no chunk carried them.
				w.ID, w.Model = "", ""
			}
			if w.Err != nil {
				// Chat has no type for a bad gateway: it is a server_error.
				kind := w.Err.Kind
				if kind == mapping.ErrBadGateway {
					kind = mapping.ErrAPI
				}
				if g.Err == nil || g.Err.Message != w.Err.Message || g.Err.Kind != kind {
					t.Errorf("error = %+v, want %+v", g.Err, w.Err)
				}
				g.Err, w.Err = nil, nil
			}
			if g != w {
				t.Errorf("round trip differs:\n got %+v\nwant %+v", g, w)
			}
		})
	}
}

// TestChatStreamEncode covers the encoder's defaults and edges.
func TestChatStreamEncode(t *testing.T) {
	t.Run("id, created and model are filled in and stable", func(t *testing.T) {
		before := time.Now().Unix()
		out := codectest.EncodeStream(codec.OpenAIChat, &codec.Request{Model: "m"}, []codec.Event{{Type: codec.EventStart},
			evPart(0, codec.PartText), evDelta(0, "a"), evDelta(0, "b"), evPartStop(0), evEnd()})
		evs := codectest.DecodeStream(t, codec.OpenAIChat, out, nil)
		codectest.CheckWellFormed(t, evs)
		start := evs[0]
		if !strings.HasPrefix(start.ID, "chatcmpl-") || len(start.ID) != len("chatcmpl-")+24 || start.Model != "m" ||
			start.Created < before || start.Created > time.Now().Unix() {
			t.Errorf("start = %+v", start)
		}
		if n := strings.Count(out, `"id":"`+start.ID+`"`); n != 4 {
			t.Errorf("id appears on %d chunks, want 4:\n%s", n, out)
		}
	})
	t.Run("nil request, events without start", func(t *testing.T) {
		out := codectest.EncodeStream(codec.OpenAIChat, nil, []codec.Event{evPart(0, codec.PartText), evDelta(0, "a"),
			evUsage(streamUsage), evEnd()})
		s := codectest.Summarize(codectest.DecodeStream(t, codec.OpenAIChat, out, nil))
		if s.Text != "a" || !s.Complete || s.Usage.Known || s.Model != "" || s.Stop != mapping.StopEnd {
			t.Errorf("summary = %+v\n%s", s, out)
		}
	})
	t.Run("a delta without part start is text; empty deltas send nothing", func(t *testing.T) {
		out := codectest.EncodeStream(codec.OpenAIChat, nil, []codec.Event{evStart(), evDelta(0, ""), evDelta(3, "x")})
		want := `data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1700000000,"model":"gpt-4o","choices":[{"index":0,"delta":{"role":"assistant","content":"","refusal":null},"logprobs":null,"finish_reason":null}]}` + "\n\n" +
			`data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1700000000,"model":"gpt-4o","choices":[{"index":0,"delta":{"content":"x"},"logprobs":null,"finish_reason":null}]}` + "\n\n"
		if out != want {
			t.Errorf("got\n%s\nwant\n%s", out, want)
		}
	})
	t.Run("a second start and a second stop change nothing", func(t *testing.T) {
		out := codectest.EncodeStream(codec.OpenAIChat, nil, []codec.Event{evStart(), {Type: codec.EventStart, ID: "other", Model: "other"},
			evStop(mapping.StopMaxTokens), evStop(mapping.StopEnd), evEnd()})
		if strings.Contains(out, "other") || strings.Count(out, "finish_reason\":\"") != 1 || !strings.Contains(out, `"length"`) {
			t.Errorf("got\n%s", out)
		}
	})
	t.Run("nothing after the end or an error", func(t *testing.T) {
		for _, last := range []codec.Event{evEnd(), {Type: codec.EventError, Err: codec.NewError(mapping.ErrAPI, "x")}} {
			enc := newStreamEncoder(nil)
			enc.Encode(nil, &last)
			for _, ev := range []codec.Event{evStart(), evPart(0, codec.PartText), evDelta(0, "a"), evStop(mapping.StopEnd), evEnd(),
				{Type: codec.EventError, Err: codec.NewError(mapping.ErrAPI, "y")}} {
				if out := enc.Encode(nil, &ev); len(out) != 0 {
					t.Errorf("after %v, %v wrote %s", last.Type, ev.Type, out)
				}
			}
		}
	})
	t.Run("an error event without Err still sends an error", func(t *testing.T) {
		out := codectest.EncodeStream(codec.OpenAIChat, nil, []codec.Event{{Type: codec.EventError}})
		want := `data: {"error":{"message":"upstream stream failed","type":"server_error","param":null,"code":null}}` + "\n\n"
		if out != want {
			t.Errorf("got %s", out)
		}
	})
}

// streamDeltaEvent is a realistic 2025 text delta (obfuscation padding,
// usage null, a line break in the text).
const streamDeltaEvent = `{"id":"chatcmpl-D8Z5oo6uDh67AD85p73ksdT1KxhE0","object":"chat.completion.chunk","created":1770933892,` +
	`"model":"gpt-4.1-nano-2025-04-14","service_tier":"default","system_fingerprint":"fp_de604bd877","choices":[{"index":0,` +
	`"delta":{"content":" Day\n\n**Date"},"logprobs":null,"finish_reason":null}],"usage":null,"obfuscation":"Dt1W7Y"}`

// TestChatStreamDeltaAllocations holds the per-delta hot path to zero
// allocations in steady state, both ways.
func TestChatStreamDeltaAllocations(t *testing.T) {
	dec := newStreamDecoder()
	data := []byte(streamDeltaEvent)
	out := dec.Decode(nil, nil, data, false)
	out = dec.Decode(out[:0], nil, data, false)
	if n := testing.AllocsPerRun(100, func() { out = dec.Decode(out[:0], nil, data, false) }); n != 0 {
		t.Errorf("decode: %v allocations per delta", n)
	}
	if len(out) != 1 || out[0].Type != codec.EventPartDelta || out[0].Text != " Day\n\n**Date" {
		t.Errorf("decoded %+v", out)
	}

	enc := newStreamEncoder(&codec.Request{Model: "m"})
	dst := enc.Encode(nil, &codec.Event{Type: codec.EventStart, ID: "chatcmpl-1", Model: "gpt-4o", Created: 1})
	dst = enc.Encode(dst, &codec.Event{Type: codec.EventPartStart})
	ev := codec.Event{Type: codec.EventPartDelta, Text: " Day\n\n**Date"}
	dst = enc.Encode(dst[:0], &ev)
	if n := testing.AllocsPerRun(100, func() { dst = enc.Encode(dst[:0], &ev) }); n != 0 {
		t.Errorf("encode: %v allocations per delta", n)
	}
}

// BenchmarkChatStreamDecodeDelta decodes text deltas like
// streamDeltaEvent whose texts differ from one to the next, as a real
// stream's do.
func BenchmarkChatStreamDecodeDelta(b *testing.B) {
	dec := newStreamDecoder()
	var events [][]byte
	for _, text := range []string{` Day\n\n**Date`, ` the`, ` quick brown`, `:`, ` \"fox\"`, ` jumps over the lazy dog`} {
		events = append(events, []byte(strings.Replace(streamDeltaEvent, ` Day\n\n**Date`, text, 1)))
	}
	out := dec.Decode(nil, nil, events[0], false)
	b.ReportAllocs()
	b.SetBytes(int64(len(events[0])))
	n := 0
	for b.Loop() {
		out = dec.Decode(out[:0], nil, events[n%len(events)], false)
		n++
	}
}

func BenchmarkChatStreamEncodeDelta(b *testing.B) {
	enc := newStreamEncoder(&codec.Request{Model: "m"})
	dst := enc.Encode(nil, &codec.Event{Type: codec.EventStart, ID: "chatcmpl-D8Z5oo6uDh67AD85p73ksdT1KxhE0", Model: "gpt-4.1-nano-2025-04-14", Created: 1770933892})
	dst = enc.Encode(dst, &codec.Event{Type: codec.EventPartStart})
	ev := codec.Event{Type: codec.EventPartDelta, Text: " Day\n\n**Date"}
	b.ReportAllocs()
	for b.Loop() {
		dst = enc.Encode(dst[:0], &ev)
	}
}

// BenchmarkChatStreamValidBaseline is the gjson.Valid pass alone on the
// same event, the part of BenchmarkChatStreamDecodeDelta that every
// decoder pays whatever it does after.
func BenchmarkChatStreamValidBaseline(b *testing.B) {
	s := streamDeltaEvent
	b.ReportAllocs()
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		if !gjson.Valid(s) {
			b.Fatal("invalid")
		}
	}
}
