package caddymodule

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/coder/websocket"
	"github.com/tidwall/gjson"
	"go.uber.org/zap"

	"github.com/llmbridge/llmbridge/internal/wstest"
)

// BenchmarkTurn runs the same streamed Responses turn toward an Anthropic
// upstream over HTTP (a request per turn, the connection kept alive) and
// over an open WebSocket (a frame per turn, the events as frames), each
// through a local server, client included: what a turn costs on each
// transport. The upstream's events arrive one write each, as a real
// upstream's do.
func BenchmarkTurn(b *testing.B) {
	var events [][]byte
	for _, ev := range strings.SplitAfter(anthropicToolStream(strings.Repeat("Weather words. ", 40)), "\n\n") {
		events = append(events, []byte(ev))
	}
	body := `{"model":"claude-x","store":false,"input":"Weather in Paris?",` + wsTools + `}`
	h := newTestHandler(&testing.T{}, &Handler{Upstream: "anthropic-messages"})
	h.setLogger(zap.NewNop())
	site := socketSite(&testing.T{}, h, func(w http.ResponseWriter, r *http.Request) error {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(200)
		for _, ev := range events {
			_, _ = w.Write(ev)
			_ = http.NewResponseController(w).Flush()
		}
		return nil
	})
	defer site.Close()

	b.Run("http", func(b *testing.B) {
		client := site.Client()
		b.ReportAllocs()
		for b.Loop() {
			resp, err := client.Post(site.URL+"/v1/responses", "application/json", strings.NewReader(`{"stream":true,`+body[1:]))
			if err != nil {
				b.Fatal(err)
			}
			out, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if !bytes.Contains(out, []byte("response.completed")) {
				b.Fatalf("%s", out)
			}
		}
	})
	b.Run("websocket", func(b *testing.B) {
		ctx := context.Background()
		c, _, err := websocket.Dial(ctx, wstest.URL(site.URL), nil)
		if err != nil {
			b.Fatal(err)
		}
		defer c.CloseNow()
		frame := []byte(`{"type":"response.create",` + body[1:])
		b.ReportAllocs()
		for b.Loop() {
			if err := c.Write(ctx, websocket.MessageText, frame); err != nil {
				b.Fatal(err)
			}
			for {
				_, data, err := c.Read(ctx)
				if err != nil {
					b.Fatal(err)
				}
				if gjson.GetBytes(data, "type").Str == "response.completed" {
					break
				}
			}
		}
	})
}

// TestWebSocketAllocsPerEvent holds a socket turn to no allocation per
// event beyond the HTTP stream's: a turn of 110 text deltas against one
// of 10, the client reading each frame into the same buffer.
func TestWebSocketAllocsPerEvent(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts: the race detector allocates")
	}
	// The events as bytes, made once: writing a string would allocate
	// per event in the test's upstream, not in llmbridge.
	stream := func(n int) [][]byte {
		parts := strings.SplitAfter(anthropicToolStream("x"), "\n\n")
		var out [][]byte
		for i, p := range parts {
			switch {
			case i == 2:
				for range n {
					out = append(out, []byte(p))
				}
			case i < 4 || i >= 7:
				out = append(out, []byte(p))
			}
		}
		return out
	}
	var events [][]byte
	h := newTestHandler(t, &Handler{Upstream: "anthropic-messages"})
	h.setLogger(zap.NewNop())
	site := socketSite(t, h, func(w http.ResponseWriter, r *http.Request) error {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(200)
		for _, ev := range events {
			_, _ = w.Write(ev)
			_ = http.NewResponseController(w).Flush()
		}
		return nil
	})
	ctx := context.Background()
	c, _, err := websocket.Dial(ctx, wstest.URL(site.URL), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseNow()
	frame := []byte(`{"type":"response.create","model":"claude-x","store":false,"input":"Hi"}`)
	buf := make([]byte, 1<<20)
	turn := func() {
		if err := c.Write(ctx, websocket.MessageText, frame); err != nil {
			t.Fatal(err)
		}
		for {
			_, rd, err := c.Reader(ctx)
			if err != nil {
				t.Fatal(err)
			}
			n, _ := io.ReadFull(rd, buf)
			if bytes.Contains(buf[:min(n, 40)], []byte(`"response.completed"`)) {
				return
			}
		}
	}
	events = stream(10)
	few := testing.AllocsPerRun(50, turn)
	events = stream(110)
	many := testing.AllocsPerRun(50, turn)
	perEvent := (many - few) / 100
	t.Logf("a socket turn: %.0f allocations with 10 text deltas, %.2f per further delta (server and client)", few, perEvent)
	if perEvent > 0.2 {
		t.Errorf("%.2f allocations per event", perEvent)
	}
}
