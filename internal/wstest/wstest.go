// Package wstest is the tests' client of the Responses API's WebSocket
// mode, shared by the handler's unit tests, caddymodule/websocket's and the
// integration suite: it dials a site's Responses path, sends events and
// reads the events of one turn.
package wstest

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/tidwall/gjson"
)

// URL is the WebSocket URL of the Responses path of the site at base, an
// http:// or https:// address.
func URL(base string) string {
	return "ws" + strings.TrimPrefix(base, "http") + "/v1/responses"
}

// Dial opens a WebSocket on the Responses path of the site at base with
// the handshake header hdr, within d; it fails t when the handshake does
// not succeed, and closes the connection when t ends.
func Dial(t testing.TB, base string, hdr http.Header, d time.Duration) *websocket.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	c, resp, err := websocket.Dial(ctx, URL(base), &websocket.DialOptions{HTTPHeader: hdr})
	if err != nil {
		t.Fatalf("dial %s: %v (%v)", URL(base), err, resp)
	}
	t.Cleanup(func() { _ = c.CloseNow() })
	return c
}

// ReadTurn reads events until one that ends a turn (response.completed,
// .incomplete, .failed, or error) and returns them; it fails t on a read
// error (ctx's deadline included) and on a frame that is not text.
func ReadTurn(ctx context.Context, t testing.TB, c *websocket.Conn) []gjson.Result {
	t.Helper()
	var events []gjson.Result
	for {
		typ, data, err := c.Read(ctx)
		if err != nil {
			t.Fatalf("read after %d events: %v", len(events), err)
		}
		if typ != websocket.MessageText {
			t.Fatalf("a %v frame", typ)
		}
		ev := gjson.ParseBytes(data)
		events = append(events, ev)
		switch ev.Get("type").Str {
		case "response.completed", "response.incomplete", "response.failed", "error":
			return events
		}
	}
}

// Send sends frame to c as a text frame; it fails t when the write fails.
func Send(t testing.TB, c *websocket.Conn, frame string) {
	t.Helper()
	if err := c.Write(context.Background(), websocket.MessageText, []byte(frame)); err != nil {
		t.Fatal(err)
	}
}

// Turn reads the events of one turn within five seconds (ReadTurn), long
// enough for a loaded machine, short enough for a test that hangs.
func Turn(t testing.TB, c *websocket.Conn) []gjson.Result {
	t.Helper()
	return TurnWithin(t, c, 5*time.Second)
}

// TurnWithin reads the events of one turn within d (ReadTurn).
func TurnWithin(t testing.TB, c *websocket.Conn, d time.Duration) []gjson.Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	return ReadTurn(ctx, t, c)
}
