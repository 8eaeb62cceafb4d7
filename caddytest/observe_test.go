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
var llmPlaceholders = []string{"client_protocol", "upstream_protocol", "client_key", "model", "upstream_model", "response_model",
	"input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens", "reasoning_tokens", "cost_usd", "stop_reason", "error_type", "ttft_ms"}

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
			check("error_type", "invalid_request")
			continue
		}
		// No client keys, no prices and no error on this site.
		for _, f := range []string{"client_key", "cost_usd", "error_type"} {
			if own, ph := got(f); own != "" || ph != "" {
				t.Errorf("%s: %s = %q/%q, want none", name, f, own, ph)
			}
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

// TestUsageCounts checks the numbers llmbridge reports (log fields,
// {http.llmbridge.*} placeholders, tokens_total and the client's usage)
// when the upstream reports reasoning and cache-write tokens. The rule
// (mapping/usage.go): input tokens include cache reads and cache writes,
// output tokens include reasoning tokens; cached counts cache reads only.
// Anthropic's output_tokens already includes thinking, so the reported
// output must not add it again; Gemini's candidatesTokenCount excludes
// thoughts, so the reported output must add them.
func TestUsageCounts(t *testing.T) {
	env := setup(t)
	// 40 input tokens: 23 uncached, 5 read from the cache and 12 written
	// to it; 30 output tokens, 18 of them reasoning.
	u := usage{Input: 40, CacheRead: 5, CacheWrite: 12, Output: 30, Reasoning: 18, ThinkingDetail: true}
	const ns = "caddy_llmbridge_"
	tokens := func(typ, model string) string {
		return metric(ns+"tokens_total", "type", typ, "upstream_model", model)
	}
	chat, claude := openaiChat.defaultModel(), anthropicMsgs.defaultModel()

	t.Run("anthropic upstream", func(t *testing.T) {
		env.mocks.resetAll(t)
		env.mocks[anthropicMsgs].setReply(reply{Text: "counted", Stop: "end", Usage: u})
		before := len(observedEntries(t, env, 0))
		metricsBefore := scrapeMetrics(t)
		reqs := []struct {
			name  string
			req   *http.Request
			model string
		}{
			{"chat client", newClientRequest(t, http.MethodPost, env.observed, openaiChat, chat, minimalBody(openaiChat, chat)), chat},
			{"chat client, stream", newClientStreamRequestFor(t, env.observed, openaiChat, chat), chat},
			{"anthropic client (passthrough)", newClientRequest(t, http.MethodPost, env.observed, anthropicMsgs, claude, minimalBody(anthropicMsgs, claude)), claude},
		}
		for i, r := range reqs {
			resp := do(t, r.req)
			if resp.Status != http.StatusOK {
				t.Fatalf("%s: status %d; body %s", r.name, resp.Status, resp.Body)
			}
			if i == 0 {
				body := gjson.ParseBytes(resp.Body)
				for path, want := range map[string]int64{"usage.prompt_tokens": 40, "usage.completion_tokens": 30,
					"usage.prompt_tokens_details.cached_tokens": 5, "usage.completion_tokens_details.reasoning_tokens": 18} {
					if got := body.Get(path).Int(); got != want {
						t.Errorf("%s: %s = %d, want %d; body %s", r.name, path, got, want, resp.Body)
					}
				}
			}
			observedEntries(t, env, before+i+1)
		}
		entries := observedEntries(t, env, before+len(reqs))
		entries = entries[len(entries)-len(reqs):]
		for i, r := range reqs {
			e := entries[i]
			for field, want := range map[string]string{"input_tokens": "40", "output_tokens": "30",
				"cache_read_tokens": "5", "cache_write_tokens": "12", "reasoning_tokens": "18"} {
				own, ph := e.Get("llmbridge."+field).String(), e.Get("ph_"+field).String()
				if own != want || ph != want {
					t.Errorf("%s: %s = %q (log field) and %q (placeholder), want %s; entry %s", r.name, field, own, ph, want, e.Raw)
				}
			}
		}
		after := scrapeMetrics(t)
		for key, want := range map[string]float64{
			tokens("input", chat): 2 * 40, tokens("output", chat): 2 * 30, tokens("cached", chat): 2 * 5, tokens("reasoning", chat): 2 * 18,
			tokens("input", claude): 40, tokens("output", claude): 30, tokens("cached", claude): 5, tokens("reasoning", claude): 18,
		} {
			if got := after[key] - metricsBefore[key]; got != want {
				t.Errorf("%s grew by %v, want %v", key, got, want)
			}
		}
	})

	t.Run("gemini upstream", func(t *testing.T) {
		env.mocks.resetAll(t)
		// Gemini has no cache-write counter: its prompt count holds them.
		g := u
		g.CacheWrite, g.ThinkingDetail = 0, false
		env.mocks[gemini].setReply(reply{Text: "counted", Stop: "end", Usage: g})
		before := scrapeMetrics(t)
		for _, req := range []*http.Request{
			newClientRequest(t, http.MethodPost, env.plain[gemini], openaiChat, chat, minimalBody(openaiChat, chat)),
			newClientStreamRequestFor(t, env.plain[gemini], openaiChat, chat),
		} {
			resp := do(t, req)
			if resp.Status != http.StatusOK {
				t.Fatalf("status %d; body %s", resp.Status, resp.Body)
			}
			if !bytes.Contains(resp.Body, []byte(`"completion_tokens":30`)) || !bytes.Contains(resp.Body, []byte(`"reasoning_tokens":18`)) {
				t.Errorf("the client's usage does not count 30 output tokens with 18 of reasoning: %s", resp.Body)
			}
		}
		after := scrapeMetrics(t)
		for key, want := range map[string]float64{
			tokens("input", chat): 2 * 40, tokens("output", chat): 2 * 30, tokens("cached", chat): 2 * 5, tokens("reasoning", chat): 2 * 18,
		} {
			if got := after[key] - before[key]; got != want {
				t.Errorf("%s grew by %v, want %v", key, got, want)
			}
		}
	})
}
