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

	"github.com/llmbridge/llmbridge/codec"
)

// BenchmarkTurnAgent runs an agent-sized streamed Responses turn (the
// bodies of the allocation budgets, 92 KB and 1 MB) toward an Anthropic
// upstream over HTTP and over an open WebSocket, through a local server,
// client included: at these sizes the frame's own reading (its members,
// the HTTP body made of it) is what the two transports differ by.
func BenchmarkTurnAgent(b *testing.B) {
	events := [][]byte{}
	for _, ev := range strings.SplitAfter(anthropicToolStream("Done."), "\n\n") {
		events = append(events, []byte(ev))
	}
	h := newTestHandler(&testing.T{}, &Handler{Upstream: "anthropic-messages"})
	h.setLogger(zap.NewNop())
	site := socketSite(&testing.T{}, h, func(w http.ResponseWriter, r *http.Request) error {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(200)
		for _, ev := range events {
			_, _ = w.Write(ev)
		}
		return nil
	})
	defer site.Close()
	for _, size := range allocSizes[1:] {
		body, err := codec.AppendRequest(nil, codec.OpenAIResponses, allocConversation(size.steps, false), codec.EncodeOptions{})
		if err != nil {
			b.Fatal(err)
		}
		body = append([]byte(`{"store":false,`), body[1:]...)
		b.Run("http/"+size.name, func(b *testing.B) {
			client := site.Client()
			post := append([]byte(`{"stream":true,`), body[1:]...)
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			for b.Loop() {
				resp, err := client.Post(site.URL+"/v1/responses", "application/json", bytes.NewReader(post))
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
		b.Run("websocket/"+size.name, func(b *testing.B) {
			ctx := context.Background()
			c, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(site.URL, "http")+"/v1/responses", nil)
			if err != nil {
				b.Fatal(err)
			}
			defer c.CloseNow()
			c.SetReadLimit(-1)
			frame := append([]byte(`{"type":"response.create",`), body[1:]...)
			b.SetBytes(int64(len(body)))
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
					if t := gjson.GetBytes(data, "type").Str; t == "response.completed" {
						break
					} else if t == "error" {
						b.Fatalf("%s", data)
					}
				}
			}
		})
	}
}
