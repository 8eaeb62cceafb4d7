package caddytest

import (
	"bufio"
	"bytes"
	"net/http"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/tidwall/gjson"
)

// llmPlaceholders are the names of llmbridge's {http.llmbridge.*}
// placeholders and of its access log fields.
var llmPlaceholders = []string{"client_protocol", "upstream_protocol", "model", "upstream_model",
	"input_tokens", "output_tokens", "stop_reason", "ttft_ms"}

// observedEntries waits until the observed site's access log has at least n
// entries and returns them.
func observedEntries(t *testing.T, env *testEnv, n int) []gjson.Result {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		b, err := os.ReadFile(env.observedLog)
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		var entries []gjson.Result
		sc := bufio.NewScanner(bytes.NewReader(b))
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			entries = append(entries, gjson.ParseBytes(append([]byte(nil), sc.Bytes()...)))
		}
		if len(entries) >= n || time.Now().After(deadline) {
			if len(entries) < n {
				t.Fatalf("the access log has %d entries, want at least %d", len(entries), n)
			}
			return entries
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestAccessLogFields sends requests through the observed site (Anthropic
// upstream): translated and passed through, streamed and not, and one
// rejected; each access log entry must carry llmbridge's fields, both as
// its own "llmbridge" object and through the placeholders (log_append).
func TestAccessLogFields(t *testing.T) {
	env := setup(t)
	type want struct {
		client           proto
		stream, rejected bool
	}
	cases := []want{
		{client: openaiChat},
		{client: openaiChat, stream: true},
		{client: anthropicMsgs},
		{client: anthropicMsgs, stream: true},
		{client: gemini},
		{client: gemini, stream: true},
		{client: openaiResponses, rejected: true},
	}
	before := len(observedEntries(t, env, 0))
	for _, c := range cases {
		env.mocks.resetAll(t)
		model := c.client.defaultModel()
		var req *http.Request
		switch {
		case c.rejected:
			req = newClientRequest(t, http.MethodPost, env.observed, c.client, model, []byte(`{"model":"x","input":`))
		case c.stream:
			req = newClientStreamRequestFor(t, env.observed, c.client, model)
		default:
			req = newClientRequest(t, http.MethodPost, env.observed, c.client, model, minimalBody(c.client, model))
		}
		resp := do(t, req)
		if c.rejected != (resp.Status != http.StatusOK) {
			t.Fatalf("%s: status %d; body %s", c.client, resp.Status, resp.Body)
		}
		// One request at a time: the log is then in request order.
		observedEntries(t, env, before+1)
		before++
	}
	entries := observedEntries(t, env, before)
	entries = entries[len(entries)-len(cases):]
	for i, c := range cases {
		e := entries[i]
		name := string(c.client)
		if c.stream {
			name += "/stream"
		}
		if c.rejected {
			name += "/rejected"
		}
		got := func(field string) (own, ph string) {
			return e.Get("llmbridge." + field).String(), e.Get("ph_" + field).String()
		}
		check := func(field, want string) {
			own, ph := got(field)
			if own != want || ph != want {
				t.Errorf("%s: %s = %q (log field) and %q (placeholder), want %q; entry %s", name, field, own, ph, want, e.Raw)
			}
		}
		check("client_protocol", string(c.client))
		check("upstream_protocol", string(anthropicMsgs))
		if c.rejected {
			for _, f := range []string{"input_tokens", "output_tokens", "stop_reason", "ttft_ms"} {
				if own, ph := got(f); own != "" || ph != "" {
					t.Errorf("%s: %s = %q/%q for a rejected request, want none", name, f, own, ph)
				}
			}
			continue
		}
		check("model", c.client.defaultModel())
		check("upstream_model", c.client.defaultModel())
		check("input_tokens", strconv.FormatInt(defaultUsage.Input, 10))
		check("output_tokens", strconv.FormatInt(defaultUsage.Output, 10))
		check("stop_reason", "end")
		own, ph := got("ttft_ms")
		if n, err := strconv.Atoi(own); err != nil || n < 0 || own != ph {
			t.Errorf("%s: ttft_ms = %q (log field) and %q (placeholder), want the same number of milliseconds", name, own, ph)
		}
	}
}
