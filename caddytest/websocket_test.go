package caddytest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/tidwall/gjson"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"go.uber.org/goleak"

	"github.com/llmbridge/llmbridge/internal/wstest"
)

// The Responses API's WebSocket mode through a real Caddy: tool loops over
// one socket toward every upstream protocol, each turn sending only its new
// input items and previous_response_id.

// dialResponses opens a Responses WebSocket on site, as Codex's built-in
// provider does.
func dialResponses(t *testing.T, site string) *websocket.Conn {
	t.Helper()
	hdr := http.Header{"Authorization": {"Bearer " + clientKey}, "OpenAI-Beta": {"responses_websockets=2026-02-06"}}
	return wstest.Dial(t, site, hdr, callTimeout)
}

// socketTurn sends one response.create event and reads the events of its
// answer, up to the one that ends it.
func socketTurn(t *testing.T, c *websocket.Conn, event map[string]any) []gjson.Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	event["type"] = "response.create"
	frame, _ := json.Marshal(event)
	if err := c.Write(ctx, websocket.MessageText, frame); err != nil {
		t.Fatalf("send: %v", err)
	}
	return wstest.ReadTurn(ctx, t, c)
}

// socketTool is the weather tool as a Responses function tool.
func socketTool() []any {
	return []any{map[string]any{"type": "function", "name": weatherTool.Name, "description": weatherTool.Description, "parameters": weatherTool.Schema}}
}

// TestWebSocketToolLoop runs a tool loop over one socket through every
// upstream: turn 1 sends the prompt and gets the calls, turn 2 sends only
// the results and previous_response_id (the upstream gets the whole
// history), turn 3 a follow-up question continuing turn 2.
func TestWebSocketToolLoop(t *testing.T) {
	env := setup(t)
	for _, up := range allProtocols {
		t.Run(string(up), func(t *testing.T) {
			env.mocks.resetAll(t)
			m := env.mocks[up]
			sent := agentCase.calls(up)
			c := dialResponses(t, env.plain[up])
			model := openaiResponses.defaultModel()

			m.setScenario(toolCallAnswer(up, model, sent, true))
			m.setCheck(func(body []byte) []string {
				v := viewTools(up, body)
				return append(v.Problems, checkToolDefs(v, agentCase.tools)...)
			})
			events := socketTurn(t, c, map[string]any{"model": model, "store": false, "input": agentCase.prompt, "tools": socketTool()})
			done := events[len(events)-1]
			if done.Get("type").Str != "response.completed" {
				t.Fatalf("turn 1 ended with %s", done.Raw)
			}
			var results []any
			for _, item := range done.Get("response.output").Array() {
				if item.Get("type").Str == "function_call" {
					results = append(results, map[string]any{"type": "function_call_output", "call_id": item.Get("call_id").Str, "output": toolResults[item.Get("name").Str]})
				}
			}
			if len(results) != len(sent) {
				t.Fatalf("turn 1: %d calls in %s, want %d", len(results), done.Get("response.output").Raw, len(sent))
			}

			want := reply{Text: fmt.Sprintf("Done via %s over a socket ✓", up), Stop: "end", Usage: defaultUsage}
			m.clearRequests()
			m.setReply(want)
			m.setCheck(func(body []byte) []string {
				v := viewTools(up, body)
				return append(append(v.Problems, checkToolDefs(v, agentCase.tools)...), checkHistory(up, v, sent, toolResults)...)
			})
			events = socketTurn(t, c, map[string]any{"model": model, "store": false, "previous_response_id": done.Get("response.id").Str, "input": results, "tools": socketTool()})
			done = events[len(events)-1]
			if done.Get("type").Str != "response.completed" || done.Get("response.output.0.content.0.text").Str != want.Text {
				t.Fatalf("turn 2 ended with %s", done.Raw)
			}
			if _, hits := m.lastRequest(); hits != 1 {
				t.Errorf("turn 2: %d upstream requests, want 1", hits)
			}

			m.clearRequests()
			m.setCheck(nil)
			events = socketTurn(t, c, map[string]any{"model": model, "store": false, "previous_response_id": done.Get("response.id").Str, "input": "And tomorrow?", "tools": socketTool()})
			if last := events[len(events)-1]; last.Get("type").Str != "response.completed" {
				t.Fatalf("turn 3 ended with %s", last.Raw)
			}
			rec, _ := m.lastRequest()
			if rec == nil || !strings.Contains(string(rec.Body), "And tomorrow?") || !strings.Contains(string(rec.Body), want.Text) ||
				!strings.Contains(string(rec.Body), "Lisbon") {
				t.Errorf("turn 3: the upstream did not get the whole conversation: %s", rec.Body)
			}
		})
	}
}

// TestWebSocketClientGone closes a socket at the first text delta of its
// turn: the upstream request is cancelled at once and no goroutine is left
// behind.
func TestWebSocketClientGone(t *testing.T) {
	env := setup(t)
	for _, up := range []proto{anthropicMsgs, openaiResponses, gemini} {
		t.Run(string(up), func(t *testing.T) {
			env.mocks.resetAll(t)
			m := env.mocks[up]
			m.setReply(streamingReply(up, "end"))
			closeIdleConnections(env)
			baseline, running := goleak.IgnoreCurrent(), runtime.NumGoroutine()
			hold := newStreamHold(holdTimeout)
			m.setStreamPlan(streamPlan{hold: hold})

			c := dialResponses(t, env.plain[up])
			ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
			defer cancel()
			frame := `{"type":"response.create","model":"` + openaiResponses.defaultModel() + `","input":"Tell me a story."}`
			if err := c.Write(ctx, websocket.MessageText, []byte(frame)); err != nil {
				t.Fatal(err)
			}
			for {
				_, data, err := c.Read(ctx)
				if err != nil {
					t.Fatalf("no text delta arrived: %v", err)
				}
				if gjson.GetBytes(data, "type").Str == "response.output_text.delta" {
					break
				}
			}
			closedAt := time.Now()
			_ = c.CloseNow()
			outcome, endedAt, ok := hold.result(cancelPropagationLimit + time.Second)
			if !ok || outcome != holdCancelled {
				t.Fatalf("the upstream's hold ended with %q (ended: %v), want its request context cancelled", outcome, ok)
			}
			if d := endedAt.Sub(closedAt); d > cancelPropagationLimit {
				t.Errorf("the upstream request was cancelled %v after the client went; want under %v", d, cancelPropagationLimit)
			}
			settle(running, time.Second)
			if err := goleak.Find(append([]goleak.Option{baseline}, leakIgnores...)...); err != nil {
				t.Errorf("goroutines left behind after the socket closed: %v", err)
			}
		})
	}
}

// TestWebSocketTurnsLogged runs two turns over one socket on the observed
// site: each is an access-log entry of its own, a POST with llmbridge's
// fields, as the same request over HTTP gets; the connection is one more.
func TestWebSocketTurnsLogged(t *testing.T) {
	env := setup(t)
	before := len(observedEntries(t, env, 0))
	metricsBefore := scrapeMetrics(t)
	c := dialResponses(t, env.observed)
	// The handshake's answer reaches the client before the server counts
	// the connection: the gauge is read until it does.
	want := metricsBefore["caddy_llmbridge_websocket_connections"] + 1
	open := scrapeMetrics(t)["caddy_llmbridge_websocket_connections"]
	for deadline := time.Now().Add(2 * time.Second); open != want && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
		open = scrapeMetrics(t)["caddy_llmbridge_websocket_connections"]
	}
	if open != want {
		t.Errorf("websocket_connections %v with the socket open, %v before", open, metricsBefore["caddy_llmbridge_websocket_connections"])
	}
	model := anthropicMsgs.defaultModel()
	var id string
	for turn := range 2 {
		event := map[string]any{"model": model, "input": fmt.Sprintf("Turn %d", turn+1)}
		if id != "" {
			event["previous_response_id"] = id
		}
		events := socketTurn(t, c, event)
		done := events[len(events)-1]
		if done.Get("type").Str != "response.completed" {
			t.Fatalf("turn %d ended with %s", turn+1, done.Raw)
		}
		id = done.Get("response.id").Str
	}
	turns := observedEntries(t, env, before+2)[before:]
	for i, e := range turns[:2] {
		if e.Get("request.method").Str != "POST" || e.Get("request.uri").Str != "/v1/responses" || e.Get("status").Int() != 200 ||
			e.Get("llmbridge.client_protocol").Str != string(openaiResponses) || e.Get("llmbridge.upstream_protocol").Str != string(anthropicMsgs) ||
			e.Get("llmbridge.output_tokens").Int() != defaultUsage.Output || e.Get("request.headers.Upgrade").Exists() {
			t.Errorf("turn %d's entry: %s", i+1, e.Raw)
		}
	}
	_ = c.Close(websocket.StatusNormalClosure, "")
	conn := observedEntries(t, env, before+3)[before+2]
	if conn.Get("request.method").Str != "GET" || conn.Get("status").Int() != http.StatusSwitchingProtocols {
		t.Errorf("the connection's entry: %s", conn.Raw)
	}
	after := scrapeMetrics(t)
	for name, want := range map[string]float64{
		"caddy_llmbridge_websocket_connections":                       0,
		"caddy_llmbridge_websocket_connection_turns_count":            1,
		"caddy_llmbridge_websocket_connection_turns_sum":              2,
		"caddy_llmbridge_websocket_connection_duration_seconds_count": 1,
		metric("caddy_llmbridge_requests_total", "client_protocol", string(openaiResponses), "upstream_protocol", string(anthropicMsgs), "status", "200"): 2,
	} {
		if got := after[name] - metricsBefore[name]; got != want {
			t.Errorf("%s changed by %v, want %v", name, got, want)
		}
	}
}

// TestWebSocketHandshakeKeys opens sockets on a site with client keys:
// without a valid key the handshake is refused 401 in OpenAI's format; with
// one the turn reaches the upstream with the site's key.
func TestWebSocketHandshakeKeys(t *testing.T) {
	env := setup(t)
	up := anthropicMsgs
	site := env.gated[up]
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	for _, key := range []string{"", wrongKey} {
		hdr := http.Header{}
		if key != "" {
			hdr.Set("Authorization", "Bearer "+key)
		}
		_, resp, err := websocket.Dial(ctx, wstest.URL(site), &websocket.DialOptions{HTTPHeader: hdr})
		if err == nil || resp == nil || resp.StatusCode != http.StatusUnauthorized {
			t.Fatalf("key %q: %v, %v; want a 401", key, err, resp)
		}
	}
	c, _, err := websocket.Dial(ctx, wstest.URL(site), &websocket.DialOptions{HTTPHeader: http.Header{"Authorization": {"Bearer " + gateKey}}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseNow()
	events := socketTurn(t, c, map[string]any{"model": up.defaultModel(), "input": "Hi"})
	if done := events[len(events)-1]; done.Get("type").Str != "response.completed" {
		t.Fatalf("turn ended with %s", done.Raw)
	}
	rec, _ := env.mocks[up].lastRequest()
	assertCredential(t, "socket turn", up, rec, upstreamKey, gateSecret)
}

// TestWebSocketAzure opens sockets on Azure OpenAI's Responses path: toward
// an azure-openai-responses upstream each turn goes to Azure as an HTTP
// request of its Responses API; on a site with client keys, Azure's api-key
// header is the client's key in the handshake.
func TestWebSocketAzure(t *testing.T) {
	env := setup(t)
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	for _, tc := range []struct {
		name, site, key string
		front           *azureFront
	}{
		{"azure-openai-responses upstream", env.azure.responsesSite, clientKey, env.azure.respFront},
		{"anthropic-messages upstream, client keys", env.gated[anthropicMsgs], gateKey, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env.mocks.resetAll(t)
			if tc.front != nil {
				tc.front.take()
			}
			url := "ws" + strings.TrimPrefix(tc.site, "http") + "/openai/v1/responses"
			c, resp, err := websocket.Dial(ctx, url, &websocket.DialOptions{HTTPHeader: http.Header{"Api-Key": {tc.key}}})
			if err != nil {
				t.Fatalf("dial %s: %v (%v)", url, err, resp)
			}
			defer c.CloseNow()
			var id string
			for turn := range 2 {
				event := map[string]any{"model": openaiResponses.defaultModel(), "input": fmt.Sprintf("Turn %d", turn+1), "store": false}
				if id != "" {
					event["previous_response_id"] = id
				}
				events := socketTurn(t, c, event)
				done := events[len(events)-1]
				if done.Get("type").Str != "response.completed" || done.Get("response.output.0.content.0.text").Str == "" {
					t.Fatalf("turn %d ended with %s", turn+1, done.Raw)
				}
				id = done.Get("response.id").Str
			}
			if tc.front == nil {
				return
			}
			seen, violations := tc.front.take()
			if len(seen) != 2 || len(violations) > 0 || seen[1].path != "/openai/v1/responses" {
				t.Errorf("Azure saw %+v, %v; want two requests to /openai/v1/responses", seen, violations)
			}
			// store false: Azure keeps nothing, so the socket sends the
			// conversation it keeps.
			if rec, _ := env.mocks[openaiResponses].lastRequest(); rec == nil || !strings.Contains(string(rec.Body), "Turn 1") || strings.Contains(string(rec.Body), "previous_response_id") {
				t.Errorf("the second turn reached Azure without the first: %s", rec.Body)
			}
		})
	}
}

// TestWebSocketTurnsTraced runs two turns over one socket on a traced
// site: each turn is a span of Caddy's server with llmbridge's GenAI
// attributes and its upstream call span below it, as the same request
// over HTTP gets; the turns belong to the handshake's trace.
func TestWebSocketTurnsTraced(t *testing.T) {
	env := setup(t)
	up := anthropicMsgs
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	req, _ := http.NewRequest(http.MethodGet, env.traced[up], nil)
	traceID := tracedRequest(t, req)
	hdr := http.Header{"Authorization": {"Bearer " + clientKey}, "Traceparent": req.Header.Values("Traceparent")}
	c, _, err := websocket.Dial(ctx, wstest.URL(env.traced[up]), &websocket.DialOptions{HTTPHeader: hdr})
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseNow()
	id := ""
	for turn := range 2 {
		event := map[string]any{"model": up.defaultModel(), "input": fmt.Sprintf("Turn %d", turn+1), "store": false}
		if id != "" {
			event["previous_response_id"] = id
		}
		events := socketTurn(t, c, event)
		id = events[len(events)-1].Get("response.id").Str
	}
	spans := env.otlp.trace(t, traceID, 4)
	turns, calls := 0, 0
	for _, s := range spans {
		a := spanAttrs(s)
		switch {
		case s.GetKind() == tracepb.Span_SPAN_KIND_SERVER && a["llmbridge.client.protocol"] == string(openaiResponses):
			turns++
			if a["llmbridge.upstream.protocol"] != string(up) || a["llmbridge.client_key"] != "team-a" || a["gen_ai.response.id"] == "" {
				t.Errorf("turn span %q: %v", s.GetName(), a)
			}
		case s.GetKind() == tracepb.Span_SPAN_KIND_CLIENT:
			calls++
		}
	}
	if turns != 2 || calls != 2 {
		t.Errorf("%d turn spans and %d upstream call spans among %d, want 2 and 2", turns, calls, len(spans))
	}
}
