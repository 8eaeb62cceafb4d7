package interactions

import (
	"testing"

	"github.com/llmbridge/llmbridge/codec"
)

// benchDelta is a realistic text delta of the stream's model_output step.
const benchDelta = `{"event_type":"step.delta","event_id":"ev_00000042","index":1,"delta":{"type":"text",` +
	`"text":"Rayleigh scattering makes the sky blue:\nshorter wavelengths are \"scattered\" more."}}`

// benchStreamDecoder returns a decoder inside the model_output step.
func benchStreamDecoder(t testing.TB) *streamDecoder {
	d := newStreamDecoder(Gemini)
	var out []codec.Event
	for _, ev := range []string{evCreated, evThought, evSummary, evSignature, evStop0, evOutput} {
		out = d.Decode(out[:0], nil, []byte(ev), false)
	}
	if d.step != 1 {
		t.Fatalf("the decoder is not in step 1: %+v", out)
	}
	return d
}

// TestInteractionsStreamAllocs checks the steady state of the hot path: a
// text delta costs no allocation to decode or to encode.
func TestInteractionsStreamAllocs(t *testing.T) {
	d := benchStreamDecoder(t)
	data := []byte(benchDelta)
	var out []codec.Event
	out = d.Decode(out, nil, data, false)
	if n := testing.AllocsPerRun(100, func() {
		out = d.Decode(out[:0], nil, data, false)
		if len(out) != 1 || out[0].Type != codec.EventPartDelta {
			t.Fatalf("events %+v", out)
		}
	}); n != 0 {
		t.Errorf("decode: %v allocations per delta", n)
	}
	enc := newStreamEncoder(&codec.Request{Model: "m"})
	dst := enc.Encode(nil, &codec.Event{Type: codec.EventStart, ID: "v1_a"})
	dst = enc.Encode(dst[:0], &codec.Event{Type: codec.EventPartStart, Part: codec.PartText})
	ev := codec.Event{Type: codec.EventPartDelta, Text: "Rayleigh scattering makes the sky blue:\nshorter wavelengths are \"scattered\" more."}
	dst = enc.Encode(dst[:0], &ev)
	if n := testing.AllocsPerRun(100, func() { dst = enc.Encode(dst[:0], &ev) }); n != 0 {
		t.Errorf("encode: %v allocations per delta", n)
	}
}

func BenchmarkInteractionsStreamDecodeDelta(b *testing.B) {
	d := benchStreamDecoder(b)
	data := []byte(benchDelta)
	out := d.Decode(nil, nil, data, false)
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		out = d.Decode(out[:0], nil, data, false)
	}
}

func BenchmarkInteractionsStreamEncodeDelta(b *testing.B) {
	enc := newStreamEncoder(&codec.Request{Model: "gemini-2.5-flash"})
	dst := enc.Encode(nil, &codec.Event{Type: codec.EventStart, ID: "v1_a"})
	dst = enc.Encode(dst[:0], &codec.Event{Type: codec.EventPartStart, Part: codec.PartText})
	ev := codec.Event{Type: codec.EventPartDelta, Text: "Rayleigh scattering makes the sky blue:\nshorter wavelengths are \"scattered\" more."}
	b.ReportAllocs()
	for b.Loop() {
		dst = enc.Encode(dst[:0], &ev)
	}
}
