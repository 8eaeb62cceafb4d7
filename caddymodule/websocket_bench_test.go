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
)

// BenchmarkTurn runs the same streamed Responses turn toward an Anthropic
// upstream over HTTP (a request per turn, the connection kept alive) and
// over an open WebSocket (a frame per turn, the events as frames), each
// through a local server, client included: what a turn costs on each
// transport. The upstream's events arrive one write each, as a real
// upstream's do.
func BenchmarkTurn(b *testing.B) {
	events := strings.SplitAfter(anthropicToolStream(strings.Repeat("Weather words. ", 40)), "\n\n")
	body := `{"model":"claude-x","store":false,"input":"Weather in Paris?",` + wsTools + `}`
	h := newTestHandler(&testing.T{}, &Handler{Upstream: "anthropic-messages"})
	h.logger = zap.NewNop()
	site := socketSite(&testing.T{}, h, func(w http.ResponseWriter, r *http.Request) error {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(200)
		for _, ev := range events {
			_, _ = io.WriteString(w, ev)
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
		c, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(site.URL, "http")+"/v1/responses", nil)
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
