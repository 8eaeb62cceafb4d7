package gemini

import (
	"fmt"
	"testing"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/mapping"
)

// TestGeminiStreamAllocs checks the steady state of the hot path: a text
// delta costs no allocation to decode or to encode.
func TestGeminiStreamAllocs(t *testing.T) {
	a, b := benchChunks()
	d := newStreamDecoder(codec.Gemini)
	out := d.Decode(nil, nil, a, false)
	i := 0
	if n := testing.AllocsPerRun(100, func() {
		i++
		data := a
		if i%2 == 1 {
			data = b
		}
		out = d.Decode(out[:0], nil, data, false)
		if len(out) != 2 {
			t.Fatalf("events %v", eventStrings(out))
		}
	}); n != 0 {
		t.Errorf("decode: %v allocations per delta", n)
	}
	enc := newStreamEncoder(&codec.Request{Model: "m"})
	dst := enc.Encode(nil, &codec.Event{Type: codec.EventStart, ID: "id", Usage: codec.Usage{Known: true, InputTokens: 9}})
	ev := codec.Event{Type: codec.EventPartDelta, Text: benchText}
	dst = enc.Encode(dst[:0], &ev)
	if n := testing.AllocsPerRun(100, func() { dst = enc.Encode(dst[:0], &ev) }); n != 0 {
		t.Errorf("encode: %v allocations per delta", n)
	}
}

const benchText = "Rayleigh scattering makes the sky blue:\nshorter wavelengths are \"scattered\" more."

// benchChunks returns two realistic consecutive text chunks (usage
// changes on each, as it does upstream).
func benchChunks() (a, b []byte) {
	chunk := func(n int) []byte {
		return []byte(`{"candidates": [{"content": {"parts": [{"text": "Rayleigh scattering makes the sky blue:\nshorter wavelengths are \"scattered\" more."}],"role": "model"},"index": 0}],"usageMetadata": {"promptTokenCount": 9,"candidatesTokenCount": ` +
			fmt.Sprint(n) + `,"totalTokenCount": 40,"promptTokensDetails": [{"modality": "TEXT","tokenCount": 9}],"thoughtsTokenCount": 21},"modelVersion": "gemini-2.5-flash","responseId": "VwCzabneCuzPz7IP0aL64A0"}`)
	}
	return chunk(10), chunk(11)
}

func BenchmarkGeminiStreamDecodeDelta(b *testing.B) {
	x, y := benchChunks()
	d := newStreamDecoder(codec.Gemini)
	out := d.Decode(nil, nil, x, false)
	b.ReportAllocs()
	b.SetBytes(int64(len(x)))
	for i := 0; b.Loop(); i++ {
		data := x
		if i%2 == 0 {
			data = y
		}
		out = d.Decode(out[:0], nil, data, false)
	}
}

func BenchmarkGeminiStreamEncodeDelta(b *testing.B) {
	enc := newStreamEncoder(&codec.Request{Model: "gemini-2.5-flash"})
	dst := enc.Encode(nil, &codec.Event{Type: codec.EventStart, ID: "VwCzabneCuzPz7IP0aL64A0"})
	enc.Encode(nil, &codec.Event{Type: codec.EventUsage, Usage: mapping.FromGeminiUsage(9, 0, 0, 10, 21)})
	ev := codec.Event{Type: codec.EventPartDelta, Text: benchText}
	b.ReportAllocs()
	for b.Loop() {
		dst = enc.Encode(dst[:0], &ev)
	}
}
