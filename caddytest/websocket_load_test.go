package caddytest

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/tidwall/gjson"

	"github.com/llmbridge/llmbridge/internal/wstest"
)

var (
	loadSockets = flag.Int("load.sockets", 50, "concurrent sockets of the WebSocket load test (CI: 200)")
	loadTurns   = flag.Int("load.turns", 10, "turns per socket of the WebSocket load test (CI: 20)")
)

// TestLoadWebSockets runs -load.sockets Responses WebSockets at once, each
// -load.turns streamed turns continuing the one before by
// previous_response_id (store false), through translated sites; every turn
// must complete with the upstream's text. Then it opens as many idle
// sockets and reports the memory and goroutines each holds, beside a bare
// WebSocket server's (the library's own cost, both ends).
func TestLoadWebSockets(t *testing.T) {
	env := setup(t)
	ups := []proto{anthropicMsgs, gemini, openaiChat}
	for _, up := range ups {
		env.mocks[up].setReply(reply{Text: fmt.Sprintf("Socket load answer from %s ✓", up), Stop: "end", Usage: defaultUsage})
		env.mocks[up].setStreamPlan(streamPlan{pieces: loadTextPieces})
	}
	start := time.Now()
	var wg sync.WaitGroup
	errs := make(chan error, *loadSockets)
	for i := range *loadSockets {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- runLoadSocket(env.plain[ups[i%len(ups)]], ups[i%len(ups)])
		}()
	}
	wg.Wait()
	close(errs)
	failed := 0
	for err := range errs {
		if err != nil {
			if failed < 5 {
				t.Error(err)
			}
			failed++
		}
	}
	took := time.Since(start)
	t.Logf("%d sockets × %d turns in %v (%.0f turns/s), %d sockets failed", *loadSockets, *loadTurns, took.Round(time.Millisecond),
		float64(*loadSockets**loadTurns)/took.Seconds(), failed)

	llmbridge := idleSocketCost(t, wstest.URL(env.plain[anthropicMsgs]), *loadSockets)
	bare := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		for {
			if _, _, err := c.Read(context.Background()); err != nil {
				return
			}
		}
	}))
	defer bare.Close()
	library := idleSocketCost(t, "ws"+strings.TrimPrefix(bare.URL, "http"), *loadSockets)
	t.Logf("an idle socket holds %d bytes and %.1f goroutines through llmbridge (both ends), %d bytes and %.1f goroutines on a bare WebSocket server: llmbridge adds %d bytes",
		llmbridge.bytes, llmbridge.goroutines, library.bytes, library.goroutines, llmbridge.bytes-library.bytes)
}

// runLoadSocket runs one socket's turns.
func runLoadSocket(site string, up proto) error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	hdr := http.Header{"Authorization": {"Bearer " + clientKey}}
	c, _, err := websocket.Dial(ctx, wstest.URL(site), &websocket.DialOptions{HTTPHeader: hdr})
	if err != nil {
		return fmt.Errorf("%s: dial: %v", up, err)
	}
	defer c.CloseNow()
	want := fmt.Sprintf("Socket load answer from %s ✓", up)
	id := ""
	for turn := range *loadTurns {
		event := map[string]any{"type": "response.create", "model": openaiResponses.defaultModel(), "store": false, "input": fmt.Sprintf("Turn %d", turn+1)}
		if id != "" {
			event["previous_response_id"] = id
		}
		frame, _ := json.Marshal(event)
		if err := c.Write(ctx, websocket.MessageText, frame); err != nil {
			return fmt.Errorf("%s turn %d: %v", up, turn+1, err)
		}
		for {
			_, data, err := c.Read(ctx)
			if err != nil {
				return fmt.Errorf("%s turn %d: %v", up, turn+1, err)
			}
			ev := gjson.ParseBytes(data)
			typ := ev.Get("type").Str
			if typ == "response.completed" {
				if got := ev.Get("response.output.0.content.0.text").Str; got != want {
					return fmt.Errorf("%s turn %d: %q, want %q", up, turn+1, got, want)
				}
				id = ev.Get("response.id").Str
				break
			}
			if typ == "error" || typ == "response.failed" {
				return fmt.Errorf("%s turn %d: %s", up, turn+1, data)
			}
		}
	}
	return c.Close(websocket.StatusNormalClosure, "")
}

// socketCost is what an idle socket holds.
type socketCost struct {
	bytes      int64
	goroutines float64
}

// idleSocketCost opens n idle sockets to url and returns what each holds
// in heap and stacks, both ends together.
func idleSocketCost(t *testing.T, url string, n int) socketCost {
	t.Helper()
	measure := func() (int64, int) {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return int64(m.HeapInuse + m.StackInuse), runtime.NumGoroutine()
	}
	time.Sleep(100 * time.Millisecond)
	mem0, g0 := measure()
	conns := make([]*websocket.Conn, 0, n)
	ctx := context.Background()
	hdr := http.Header{"Authorization": {"Bearer " + clientKey}}
	for range n {
		c, _, err := websocket.Dial(ctx, url, &websocket.DialOptions{HTTPHeader: hdr})
		if err != nil {
			t.Fatalf("dial %s: %v", url, err)
		}
		conns = append(conns, c)
	}
	time.Sleep(200 * time.Millisecond)
	mem1, g1 := measure()
	for _, c := range conns {
		_ = c.CloseNow()
	}
	return socketCost{bytes: (mem1 - mem0) / int64(n), goroutines: float64(g1-g0) / float64(n)}
}
