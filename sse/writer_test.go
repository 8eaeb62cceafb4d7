package sse

import (
	"bytes"
	"io"
	"testing"
)

func TestAppendEvent(t *testing.T) {
	for _, tc := range []struct {
		name, evName, data, want string
	}{
		{"data only", "", `{"a":1}`, "data: {\"a\":1}\n\n"},
		{"named", "message_start", `{}`, "event: message_start\ndata: {}\n\n"},
		{"empty data", "", "", "data: \n\n"},
		{"empty data named", "ping", "", "event: ping\ndata: \n\n"},
		{"DONE", "", "[DONE]", "data: [DONE]\n\n"},
		{"multi-line", "", "a\nb\nc", "data: a\ndata: b\ndata: c\n\n"},
		{"trailing newline", "", "a\n", "data: a\ndata: \n\n"},
		{"only newline", "", "\n", "data: \ndata: \n\n"},
		{"CRLF and CR split", "", "a\r\nb\rc\n\rd", "data: a\ndata: b\ndata: c\ndata: \ndata: d\n\n"},
		{"leading space kept", " x", " a", "event:  x\ndata:  a\n\n"},
		{"line ends dropped from name", "a\r\nb\nc\r", "x", "event: abc\ndata: x\n\n"},
		{"name only line ends", "\n", "x", "event: \ndata: x\n\n"},
		{"bare-looking data", "", "{\n  \"error\": 1\n}", "data: {\ndata:   \"error\": 1\ndata: }\n\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			prefix := []byte("keep")
			got := AppendEvent(prefix, tc.evName, []byte(tc.data))
			if string(got) != "keep"+tc.want {
				t.Errorf("AppendEvent(%q, %q) = %q, want %q", tc.evName, tc.data, got[4:], tc.want)
			}
		})
	}
}

func TestAppendComment(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"ping", ": ping\n\n"},
		{"", ": \n\n"},
		{"a\nb", ": a\n: b\n\n"},
		{"a\r\ndata: x\r", ": a\n: data: x\n: \n\n"},
	} {
		if got := AppendComment([]byte("k"), tc.text); string(got) != "k"+tc.want {
			t.Errorf("AppendComment(%q) = %q, want %q", tc.text, got[1:], tc.want)
		}
	}
}

// TestWriterRoundTrip checks that a Reader returns what the writer wrote,
// event by event, with comments in between ignored.
func TestWriterRoundTrip(t *testing.T) {
	events := []struct{ name, data, want string }{
		{"message_start", `{"type":"message_start"}`, `{"type":"message_start"}`},
		{"", "a\nb", "a\nb"},
		{"", "", ""},
		{"", "\n", "\n"},
		{"x", "a\r\nb\rc", "a\nb\nc"},
		{"", "[DONE]", "[DONE]"},
		{"", "{\n}", "{\n}"},
		{"e", " lead", " lead"},
	}
	var buf []byte
	for _, e := range events {
		buf = AppendComment(buf, "keep-alive")
		buf = AppendEvent(buf, e.name, []byte(e.data))
	}
	for _, m := range readModes {
		got, err := readAll(m.wrap(buf), 0)
		if err != io.EOF || len(got) != len(events) {
			t.Fatalf("%s: %d events, error %v; want %d events and io.EOF", m.name, len(got), err, len(events))
		}
		for i, e := range events {
			if w := d(e.want).named(e.name); got[i] != w {
				t.Errorf("%s: event %d = %v, want %v", m.name, i, got[i], w)
			}
		}
	}
}

func TestAppendEventZeroAllocs(t *testing.T) {
	data := []byte("{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Hello\"}}\n{}")
	buf := make([]byte, 0, 1024)
	allocs := testing.AllocsPerRun(1000, func() {
		buf = AppendEvent(buf[:0], "content_block_delta", data)
		buf = AppendComment(buf, "ping")
	})
	if allocs != 0 {
		t.Errorf("%v allocations, want 0", allocs)
	}
}

func BenchmarkAppendEvent(b *testing.B) {
	for _, bc := range []struct {
		name, evName string
		data         []byte
	}{
		{"anthropic-delta", "content_block_delta",
			[]byte(`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hello, world"}}`)},
		{"openai-chunk", "", []byte(`{"id":"chatcmpl-ABfw3OqjZbzbj3AsGhaltbyJIpMCu","object":"chat.completion.chunk","created":1727346149,` +
			`"model":"gpt-4o-2024-08-06","system_fingerprint":"fp_5050236cbd","choices":[{"index":0,"delta":{"content":" world"},` +
			`"logprobs":null,"finish_reason":null}]}`)},
		{"multi-line-4KiB", "", bytes.Repeat([]byte("0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcde\n"), 64)},
	} {
		b.Run(bc.name, func(b *testing.B) {
			buf := make([]byte, 0, 8<<10)
			b.SetBytes(int64(len(bc.data)))
			b.ReportAllocs()
			for b.Loop() {
				buf = AppendEvent(buf[:0], bc.evName, bc.data)
			}
		})
	}
}
