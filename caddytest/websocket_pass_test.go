package caddytest

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/tidwall/gjson"

	"github.com/llmbridge/llmbridge/internal/wstest"
)

// wsUpstream is OpenAI's Responses WebSocket mode, as far as a passed
// through socket needs it: it checks the handshake's path and credential,
// and answers each response.create frame with response.created and
// response.completed frames naming the frame's model.
func wsUpstream(t *testing.T) (*httptest.Server, *[]string) {
	var problems []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/responses" || r.Header.Get("Authorization") != "Bearer "+upstreamKey || strings.Contains(fmt.Sprint(r.Header), clientKey) {
			problems = append(problems, fmt.Sprintf("handshake %s with %v", r.URL.Path, r.Header))
			http.Error(w, "bad handshake", http.StatusUnauthorized)
			return
		}
		c, err := websocket.Accept(w, r, nil)
		if err != nil {
			problems = append(problems, err.Error())
			return
		}
		defer c.CloseNow()
		for {
			_, frame, err := c.Read(r.Context())
			if err != nil {
				return
			}
			model := gjson.GetBytes(frame, "model").Str
			for _, ev := range []string{
				`{"type":"response.created","response":{"id":"resp_ws1","object":"response","status":"in_progress","model":"` + model + `","output":[]}}`,
				`{"type":"response.completed","response":{"id":"resp_ws1","object":"response","status":"completed","model":"` + model + `","output":[{"type":"message","id":"msg_1","role":"assistant","status":"completed","content":[{"type":"output_text","text":"over the upstream's socket","annotations":[]}]}]}}`,
			} {
				if err := c.Write(r.Context(), websocket.MessageText, []byte(ev)); err != nil {
					return
				}
			}
		}
	}))
	t.Cleanup(srv.Close)
	return srv, &problems
}

// TestWebSocketPassthrough hands a Responses WebSocket to the upstream's
// own WebSocket mode (websocket passthrough): the client's key is checked
// at the handshake and replaced by the upstream's, the frames pass
// untouched both ways, and a handshake without a valid key is refused in
// OpenAI's format.
func TestWebSocketPassthrough(t *testing.T) {
	env := setup(t)
	up, problems := wsUpstream(t)
	base := newOneSite(t, env).load(t, "", fmt.Sprintf(`	llmbridge {
		upstream openai-responses
		api_key %s
		client_keys {
			alice %s
		}
		websocket passthrough
	}
	reverse_proxy %s
`, upstreamKey, clientKey, strings.TrimPrefix(up.URL, "http://")))
	url := wstest.URL(base)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, _, err := websocket.Dial(ctx, url, &websocket.DialOptions{HTTPHeader: http.Header{"Authorization": {"Bearer " + clientKey}}})
	if err != nil {
		t.Fatalf("dialling through the gateway: %v (upstream saw %v)", err, *problems)
	}
	defer c.CloseNow()
	for turn := range 2 {
		if err := c.Write(ctx, websocket.MessageText, []byte(`{"type":"response.create","model":"gpt-5.4","input":"Hi"}`)); err != nil {
			t.Fatal(err)
		}
		var types []string
		for range 2 {
			_, ev, err := c.Read(ctx)
			if err != nil {
				t.Fatalf("turn %d: %v", turn, err)
			}
			types = append(types, gjson.GetBytes(ev, "type").Str)
			if gjson.GetBytes(ev, "response.model").Str != "gpt-5.4" {
				t.Errorf("turn %d: event %s", turn, ev)
			}
		}
		if fmt.Sprint(types) != "[response.created response.completed]" {
			t.Errorf("turn %d: events %v", turn, types)
		}
	}
	_ = c.Close(websocket.StatusNormalClosure, "")
	if len(*problems) > 0 {
		t.Errorf("the upstream saw: %v", *problems)
	}
	_, resp, err := websocket.Dial(ctx, url, &websocket.DialOptions{HTTPHeader: http.Header{"Authorization": {"Bearer wrong"}}})
	if err == nil || resp == nil || resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("a handshake with a wrong key: %v %v, want 401", err, resp)
	}
}
