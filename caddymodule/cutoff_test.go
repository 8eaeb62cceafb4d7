package caddymodule

import (
	"bytes"
	"encoding/base64"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/llmbridge/llmbridge/caddymodule/streams"
	"github.com/llmbridge/llmbridge/sse/eventstream"
)

// awsFault is a broken event stream message an upstream may send after
// good ones.
type awsFault struct {
	name string
	// chunksOnly faults are of InvokeModel's chunk wrapping.
	chunksOnly bool
	frame      func(t *testing.T, chunks bool) []byte
}

// awsFaults are the ways a message of an AWS event stream can be broken.
var awsFaults = []awsFault{
	{name: "bad prelude CRC", frame: func(t *testing.T, chunks bool) []byte {
		b := goodAWSMessage(t, chunks)
		b[9] ^= 0xff
		return b
	}},
	{name: "bad message CRC", frame: func(t *testing.T, chunks bool) []byte {
		b := goodAWSMessage(t, chunks)
		b[len(b)-1] ^= 0xff
		return b
	}},
	{name: "invalid base64", chunksOnly: true, frame: func(t *testing.T, chunks bool) []byte {
		return eventstream.AppendMessage(nil, "chunk", []byte(`{"bytes":"!!not base64!!"}`))
	}},
	{name: "event without its type", chunksOnly: true, frame: func(t *testing.T, chunks bool) []byte {
		return eventstream.AppendMessage(nil, "chunk", []byte(`{"bytes":"`+base64.StdEncoding.EncodeToString([]byte(`{"index":0,"delta":{"type":"text_delta","text":"lost"}}`))+`"}`))
	}},
	{name: "length of 2 GiB", frame: func(t *testing.T, chunks bool) []byte {
		return []byte{0x7f, 0xff, 0xff, 0xff, 0, 0, 0, 0, 0, 0, 0, 0}
	}},
}

// goodAWSMessage is a valid text delta message, of InvokeModel's chunks or
// Converse's events.
func goodAWSMessage(t *testing.T, chunks bool) []byte {
	t.Helper()
	if chunks {
		return []byte(chunkStream(t, "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\" more\"}}\n\n", 0))
	}
	return []byte(eventStream(t, "event: contentBlockDelta\ndata: {\"contentBlockIndex\":0,\"delta\":{\"text\":\" more\"}}\n\n"))
}

// TestAWSStreamFaults sends, for both Bedrock upstreams, the start of an
// answer and then a broken message in the same write, to a translating
// and a passthrough client: the text before the fault reaches the client,
// the stream ends with the client's error, and the upstream body is not
// read any further (the next write fails, which makes reverse_proxy close
// it).
func TestAWSStreamFaults(t *testing.T) {
	invokeHead := anthropicStream[:strings.Index(anthropicStream, "event: content_block_stop")]
	converseHead := converseStream[:strings.Index(converseStream, "event: contentBlockStop")]
	for _, up := range []string{"bedrock-anthropic", "bedrock"} {
		chunks := up == "bedrock-anthropic"
		for _, f := range awsFaults {
			if f.chunksOnly && !chunks {
				continue
			}
			for _, target := range []string{"/v1/chat/completions", "passthrough"} {
				name := up + "/" + f.name + "/" + target
				t.Run(name, func(t *testing.T) {
					var head []byte
					body := `{"model":"anthropic.claude-sonnet-4-5-20250929-v1:0","stream":true,"max_tokens":10,"messages":[{"role":"user","content":"hi"}]}`
					if chunks {
						head = []byte(chunkStream(t, invokeHead, 0))
					} else {
						head = []byte(eventStream(t, converseHead))
					}
					path := target
					if target == "passthrough" {
						path = "/v1/messages"
						if !chunks {
							path = "/model/amazon.nova-pro-v1:0/converse-stream"
							body = `{"messages":[{"role":"user","content":[{"text":"hi"}]}]}`
						}
					}
					var laterWrite error
					answer := func(w http.ResponseWriter) error {
						w.Header().Set("Content-Type", eventstream.ContentType)
						w.WriteHeader(200)
						if _, err := w.Write(append(bytes.Clone(head), f.frame(t, chunks)...)); err != nil {
							laterWrite = err
							return err
						}
						// An upstream that goes on after its broken message.
						_, laterWrite = w.Write(goodAWSMessage(t, chunks))
						return laterWrite
					}
					h := newTestHandler(t, bedrockTestHandler(up, "k"))
					r := httptest.NewRequest("POST", path, strings.NewReader(body))
					w, call := serve(t, h, r, answer)
					if !call.called {
						t.Fatalf("no upstream call: %d %s", w.Code, w.Body)
					}
					out := w.Body.String()
					if !chunks && target == "passthrough" {
						sse, err := eventstream.NewReader(1<<20).Push(nil, w.Body.Bytes())
						if err != nil {
							t.Fatalf("the client's event stream: %v", err)
						}
						out = string(sse)
					}
					hello := strings.Index(out, "Hello")
					if hello < 0 {
						t.Fatalf("the text before the fault did not reach the client:\n%s", out)
					}
					if !strings.Contains(out[hello:], "error") && !strings.Contains(out[hello:], "exception") {
						t.Errorf("the client's stream does not end with an error after the text:\n%s", out)
					}
					if strings.Contains(out, " more") || strings.Contains(out, "lost") {
						t.Errorf("the client got events from after the fault:\n%s", out)
					}
					if !errors.Is(laterWrite, streams.ErrClientStreamEnded) {
						t.Errorf("the upstream's write after the fault got %v, want streams.ErrClientStreamEnded (stop reading the upstream)", laterWrite)
					}
				})
			}
		}
	}
}

// TestCompletedStreamCutoff checks streams whose upstream holds its body
// open after its terminal event: the client's response ends once the
// upstream request is cancelled, streams.EndGrace later, translated and
// passed through.
func TestCompletedStreamCutoff(t *testing.T) {
	for _, target := range []string{"/v1/chat/completions", "/v1/messages"} {
		t.Run(target, func(t *testing.T) {
			h := newTestHandler(t, &Handler{Upstream: "anthropic-messages"})
			r := httptest.NewRequest("POST", target, strings.NewReader(`{"model":"claude-sonnet-4-5","stream":true,"max_tokens":10,"messages":[{"role":"user","content":"hi"}]}`))
			var held time.Duration
			next := caddyhttp.HandlerFunc(func(w http.ResponseWriter, up *http.Request) error {
				w.Header().Set("Content-Type", "text/event-stream")
				w.WriteHeader(200)
				// The grace starts while the write translates the
				// terminal event.
				start := time.Now()
				if _, err := io.WriteString(w, anthropicStream); err != nil {
					return err
				}
				select {
				case <-up.Context().Done():
				case <-time.After(5 * time.Second):
				}
				held = time.Since(start)
				return up.Context().Err()
			})
			w := serveNext(t, h, r, next)
			if held < streams.EndGrace || held > time.Second {
				t.Errorf("the upstream was read for %v after its terminal event, want about %v", held, streams.EndGrace)
			}
			if out := w.Body.String(); !strings.Contains(out, "Hello") || strings.Contains(out, "error") {
				t.Errorf("the client's stream is not the complete answer:\n%s", out)
			}
		})
	}
}

// TestSSEStreamFaults checks the SSE upstreams the same way: the start
// and text of an answer, then an event over max_event_size or (Gemini) a
// bare error object, in one write: the text reaches the client before its
// error, and the upstream is not read any further.
func TestSSEStreamFaults(t *testing.T) {
	geminiChunk := `data: {"candidates":[{"content":{"role":"model","parts":[{"text":"Hello"}]},"index":0}],"modelVersion":"gemini-2.5-flash"}` + "\r\n\r\n"
	tests := []struct {
		name, upstream, target, head, fault string
	}{
		{name: "anthropic, event too large", upstream: "anthropic-messages", target: "/v1/chat/completions",
			head:  anthropicStream[:strings.Index(anthropicStream, "event: content_block_stop")],
			fault: "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"" + strings.Repeat("x", 8192) + "\"}}\n\n"},
		{name: "anthropic, event too large (passthrough)", upstream: "anthropic-messages", target: "/v1/messages",
			head:  anthropicStream[:strings.Index(anthropicStream, "event: content_block_stop")],
			fault: "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"" + strings.Repeat("x", 8192) + "\"}}\n\n"},
		{name: "gemini, bare error object", upstream: "gemini", target: "/v1/chat/completions",
			head: geminiChunk, fault: "{\n  \"error\": {\n    \"code\": 503,\n    \"message\": \"overloaded\",\n    \"status\": \"UNAVAILABLE\"\n  }\n}\n"},
		{name: "gemini, garbage", upstream: "gemini", target: "/v1/messages",
			head: geminiChunk, fault: "data: <html>502 Bad Gateway</html>\n\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newTestHandler(t, &Handler{Upstream: tt.upstream, APIKey: "k", MaxEventSize: 4096})
			r := httptest.NewRequest("POST", tt.target, strings.NewReader(`{"model":"m","stream":true,"max_tokens":10,"messages":[{"role":"user","content":"hi"}]}`))
			var laterWrite error
			w, _ := serve(t, h, r, func(w http.ResponseWriter) error {
				w.Header().Set("Content-Type", "text/event-stream")
				w.WriteHeader(200)
				if _, laterWrite = io.WriteString(w, tt.head+tt.fault); laterWrite != nil {
					return laterWrite
				}
				_, laterWrite = io.WriteString(w, tt.head)
				return laterWrite
			})
			out := w.Body.String()
			hello := strings.Index(out, "Hello")
			if hello < 0 || !strings.Contains(out[hello:], "error") {
				t.Fatalf("want the text and then an error:\n%s", out)
			}
			if strings.Count(out, "Hello") != 1 {
				t.Errorf("the client got events from after the fault:\n%s", out)
			}
			if !errors.Is(laterWrite, streams.ErrClientStreamEnded) {
				t.Errorf("the upstream's write after the fault got %v, want streams.ErrClientStreamEnded", laterWrite)
			}
		})
	}
}
