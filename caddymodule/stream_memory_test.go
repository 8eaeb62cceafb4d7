package caddymodule

import (
	"context"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2"

	"github.com/llmbridge/llmbridge/caddymodule/streams"
	"github.com/llmbridge/llmbridge/codec"
)

// TestStreamMemoryPerOpenStream holds many streams open mid-response, as a
// busy server does, and checks what each costs while it waits for the next
// upstream event: the bound is 6 KB. Between inputs a stream holds no read
// buffer and no event slice (both pooled), only its codecs' state.
func TestStreamMemoryPerOpenStream(t *testing.T) {
	const open = 500
	ctx, cancel := caddy.NewContext(caddy.Context{Context: context.Background()})
	defer cancel()
	pairs := [][2]codec.Protocol{
		{codec.OpenAIChat, codec.AnthropicMessages},
		{codec.AnthropicMessages, codec.OpenAIResponses},
		{codec.Gemini, codec.OpenAIChat},
		{codec.OpenAIResponses, codec.Gemini},
	}
	for _, pair := range pairs {
		up, client := pair[0], pair[1]
		h := &Handler{Upstream: string(up), CloudRaw: testCloud(string(up))}
		if err := h.Provision(ctx); err != nil {
			t.Fatal(err)
		}
		// The opening of a stream in the upstream's protocol.
		start := openingEvents(t, up)
		req := &codec.Request{Model: "m", Stream: true, StreamUsage: true}
		held := make([]*streams.Translator, 0, open)
		recorders := make([]*httptest.ResponseRecorder, 0, open)
		var before, after runtime.MemStats
		// Twice: the pools' contents (kept one collection as victims) are
		// freed on both sides of the measurement, so that only what the
		// streams hold counts.
		runtime.GC()
		runtime.GC()
		runtime.ReadMemStats(&before)
		for range open {
			rec := httptest.NewRecorder()
			s, err := streams.NewTranslator(rec, &h.writers.Config, client, h.upstream, req)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := s.Write(start); err != nil {
				t.Fatal(err)
			}
			held = append(held, s)
			recorders = append(recorders, rec)
		}
		runtime.GC()
		runtime.GC()
		runtime.ReadMemStats(&after)
		// The recorders keep everything written to them; count only the
		// translators' own memory.
		var recorded uint64
		for _, rec := range recorders {
			recorded += uint64(rec.Body.Cap()) + 1024
		}
		per := (int64(after.HeapAlloc) - int64(before.HeapAlloc) - int64(recorded)) / open
		t.Logf("%s -> %s: %d bytes per open stream", up, client, per)
		if per > 6<<10 {
			t.Errorf("%s -> %s: %d bytes per open stream, want at most 6 KiB", up, client, per)
		}
		runtime.KeepAlive(held)
	}
}

// openingEvents returns the first events of a text stream of protocol p,
// up to and including the first text delta.
func openingEvents(t *testing.T, p codec.Protocol) []byte {
	t.Helper()
	enc, err := codec.NewStreamEncoder(p, &codec.Request{Model: "m", Stream: true})
	if err != nil {
		t.Fatal(err)
	}
	var b []byte
	for _, ev := range []codec.Event{
		{Type: codec.EventStart, ID: "id-1", Model: "m"},
		{Type: codec.EventPartStart, Part: codec.PartText},
		{Type: codec.EventPartDelta, Text: strings.Repeat("token ", 20)},
	} {
		b = enc.Encode(b, &ev)
	}
	return b
}
