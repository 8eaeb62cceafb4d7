package bedrock

import (
	"testing"

	"github.com/llmbridge/llmbridge/codec"
)

const benchText = "Rayleigh scattering makes the sky blue:\nshorter wavelengths are \"scattered\" more."

// benchDelta is a text delta as Bedrock sends it, padding included.
var benchDelta = []byte(`{"contentBlockIndex":0,"delta":{"text":"Rayleigh scattering makes the sky blue:\nshorter wavelengths are \"scattered\" more."},"p":"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQR"}`)

// TestStreamAllocs checks the steady state of the hot path: a text delta
// costs no allocation to decode or to encode.
func TestStreamAllocs(t *testing.T) {
	d := newConverseStreamDecoder(codec.Bedrock)
	name := []byte("contentBlockDelta")
	out := d.Decode(nil, []byte("messageStart"), []byte(`{"role":"assistant"}`), false)
	out = d.Decode(out[:0], name, benchDelta, false)
	if n := testing.AllocsPerRun(100, func() {
		out = d.Decode(out[:0], name, benchDelta, false)
		if len(out) != 1 || out[0].Text != benchText {
			t.Fatalf("events %s", render(out))
		}
	}); n != 0 {
		t.Errorf("decode: %v allocations per delta", n)
	}
	enc := newConverseStreamEncoder()
	dst := enc.Encode(nil, &codec.Event{Type: codec.EventStart})
	dst = enc.Encode(dst, &codec.Event{Type: codec.EventPartStart, Part: codec.PartText})
	ev := codec.Event{Type: codec.EventPartDelta, Text: benchText}
	dst = enc.Encode(dst[:0], &ev)
	if n := testing.AllocsPerRun(100, func() { dst = enc.Encode(dst[:0], &ev) }); n != 0 {
		t.Errorf("encode: %v allocations per delta", n)
	}
}

func BenchmarkStreamDecodeDelta(b *testing.B) {
	d := newConverseStreamDecoder(codec.Bedrock)
	name := []byte("contentBlockDelta")
	out := d.Decode(nil, []byte("messageStart"), []byte(`{"role":"assistant"}`), false)
	out = d.Decode(out[:0], name, benchDelta, false)
	b.ReportAllocs()
	b.SetBytes(int64(len(benchDelta)))
	for b.Loop() {
		out = d.Decode(out[:0], name, benchDelta, false)
	}
}

func BenchmarkStreamEncodeDelta(b *testing.B) {
	enc := newConverseStreamEncoder()
	dst := enc.Encode(nil, &codec.Event{Type: codec.EventStart})
	dst = enc.Encode(dst, &codec.Event{Type: codec.EventPartStart, Part: codec.PartText})
	ev := codec.Event{Type: codec.EventPartDelta, Text: benchText}
	b.ReportAllocs()
	for b.Loop() {
		dst = enc.Encode(dst[:0], &ev)
	}
}
