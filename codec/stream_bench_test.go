package codec_test

import (
	"strings"
	"testing"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/interactions"
	"github.com/llmbridge/llmbridge/codec/internal/codectest"
	"github.com/llmbridge/llmbridge/mapping"
	"github.com/llmbridge/llmbridge/sse"
)

// benchTexts are the texts of the benchmark stream's deltas, in turn: a
// real stream's consecutive events differ in their text (and in its
// length and escapes), which a benchmark repeating one event would hide
// from anything that compares an event with the previous one.
var benchTexts = []string{" a token\n", " tokens", " tok", ` token "quoted", then a longer run`, "\n\n** token", " toke"}

// benchStream is a canonical stream of n text deltas, as an upstream of any
// protocol would produce it once encoded.
func benchStream(n int) []codec.Event {
	evs := []codec.Event{{Type: codec.EventStart, ID: "id-1", Model: "bench-model"}, {Type: codec.EventPartStart, Part: codec.PartText}}
	for i := 0; i < n; i++ {
		evs = append(evs, codec.Event{Type: codec.EventPartDelta, Text: benchTexts[i%len(benchTexts)]})
	}
	return append(evs, codec.Event{Type: codec.EventPartStop}, codec.Event{Type: codec.EventStop, StopReason: mapping.StopEnd},
		codec.Event{Type: codec.EventUsage, Usage: codec.Usage{Known: true, InputTokens: 10, OutputTokens: int64(n)}}, codec.Event{Type: codec.EventEnd})
}

// upstreamStream returns the benchmark stream as protocol p's upstream
// would send it, split into its SSE events.
func upstreamStream(b *testing.B, p codec.Protocol, n int) []*sse.Event {
	b.Helper()
	body := codectest.EncodeStream(p, &codec.Request{Model: "bench-model", Stream: true, StreamUsage: true}, benchStream(n))
	r := sse.NewReader(strings.NewReader(body), 0)
	var out []*sse.Event
	for {
		ev, err := r.Next()
		if err != nil {
			break
		}
		c := *ev
		c.Name = append([]byte(nil), ev.Name...)
		c.Data = append([]byte(nil), ev.Data...)
		out = append(out, &c)
	}
	return out
}

// BenchmarkStreamDelta measures the translation of one upstream text-delta
// event into a client event, for every upstream -> client pair: the
// per-event hot path of a streamed response. The deltas of the stream
// (benchTexts) are translated in turn.
func BenchmarkStreamDelta(b *testing.B) {
	for _, up := range codec.Protocols() {
		evs := upstreamStream(b, up, len(benchTexts))
		// The deltas follow the preamble; every text holds " tok" once
		// (which no member name of any protocol does: "completion_tokens"),
		// and the events that repeat the whole text hold it more often.
		var deltas []*sse.Event
		for _, ev := range evs {
			if strings.Count(string(ev.Data), " tok") == 1 {
				deltas = append(deltas, ev)
			}
		}
		delta := deltas[0]
		for _, client := range codec.Protocols() {
			b.Run(string(up)+"->"+string(client), func(b *testing.B) {
				dec := codectest.StreamDecoder(up)
				enc := codectest.StreamEncoder(client, &codec.Request{Model: "bench-model", Stream: true})
				var out []codec.Event
				var dst []byte
				// Run the preamble so that the decoder is mid-stream.
				for _, ev := range evs {
					if ev == delta {
						break
					}
					out = dec.Decode(out[:0], ev.Name, ev.Data, ev.Bare)
					for i := range out {
						dst = enc.Encode(dst[:0], &out[i])
					}
				}
				// And its deltas once, so that the buffers have grown.
				for _, ev := range deltas {
					out = dec.Decode(out[:0], ev.Name, ev.Data, ev.Bare)
					dst = dst[:0]
					for i := range out {
						dst = enc.Encode(dst, &out[i])
					}
				}
				b.ReportAllocs()
				n := 0
				for b.Loop() {
					delta := deltas[n%len(deltas)]
					n++
					out = dec.Decode(out[:0], delta.Name, delta.Data, delta.Bare)
					dst = dst[:0]
					for i := range out {
						dst = enc.Encode(dst, &out[i])
					}
				}
			})
		}
	}
}

// BenchmarkStream500 measures a whole 500-event stream through a push
// reader, decoder and encoder, as the Caddy writer runs it.
func BenchmarkStream500(b *testing.B) {
	pairs := [][2]codec.Protocol{{codec.OpenAIChat, codec.AnthropicMessages}, {codec.AnthropicMessages, codec.OpenAIChat}, {codec.Gemini, codec.OpenAIResponses}, {codec.OpenAIResponses, codec.Gemini},
		{interactions.Gemini, codec.OpenAIResponses}, {codec.OpenAIResponses, interactions.Gemini}}
	for _, pair := range pairs {
		up, client := pair[0], pair[1]
		body := []byte(codectest.EncodeStream(up, &codec.Request{Model: "bench-model", Stream: true, StreamUsage: true}, benchStream(500)))
		b.Run(string(up)+"->"+string(client), func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			dst := make([]byte, 0, 1024)
			for b.Loop() {
				rd := sse.NewPushReader(0)
				dec := codectest.StreamDecoder(up)
				enc := codectest.StreamEncoder(client, &codec.Request{Model: "bench-model", Stream: true})
				var out []codec.Event
				for i := 0; i < len(body); i += 4096 {
					rd.Push(body[i:min(i+4096, len(body))])
					for {
						ev, err := rd.Next()
						if err != nil {
							break
						}
						out = dec.Decode(out[:0], ev.Name, ev.Data, ev.Bare)
						dst = dst[:0]
						for j := range out {
							dst = enc.Encode(dst, &out[j])
						}
					}
				}
				out = dec.Close(out[:0], nil)
				for j := range out {
					dst = enc.Encode(dst[:0], &out[j])
				}
			}
		})
	}
}
