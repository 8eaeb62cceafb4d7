package caddytest

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
)

// logEntryOf waits for the entry of trace id in the access log at path.
func logEntryOf(t *testing.T, path string, id []byte) gjson.Result {
	t.Helper()
	want := hex.EncodeToString(id)
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		b, err := os.ReadFile(path)
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(bytes.NewReader(b))
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			if e := gjson.ParseBytes(sc.Bytes()); e.Get("traceID").String() == want {
				return gjson.ParseBytes(append([]byte(nil), sc.Bytes()...))
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no access log entry for trace %s in %s", want, path)
		}
	}
}

// TestFailoverSiteSettings checks that a failover site applies its own
// settings as a plain site does: client answers other protocols' paths
// 404 in their format before any target runs, and the name of the
// client key it accepted reaches the access log and the request's span;
// and that the spans tell the request's outcome from each attempt's.
func TestFailoverSiteSettings(t *testing.T) {
	env, fe := setupFailover(t)
	a, b := fe.faulty[anthropicMsgs], fe.faulty[openaiChat]
	t.Run("client", func(t *testing.T) {
		for _, cp := range []proto{openaiChat, openaiResponses, gemini} {
			env.mocks.resetAll(t)
			resp := do(t, newClientRequest(t, http.MethodPost, fe.sites["keyed"], cp, cp.defaultModel(), minimalBody(cp, cp.defaultModel())))
			// A Gemini key is not where an Anthropic client puts it: the
			// site answers 401 first, as a plain site does, so that a
			// client without a key learns nothing of it.
			refusedFirst := cp == gemini && resp.Status == http.StatusUnauthorized
			if !refusedFirst && (resp.Status != http.StatusNotFound || !strings.Contains(string(resp.Body), "generation endpoint")) {
				t.Errorf("%s: %d %s, want 404 naming the site's generation endpoint", cp, resp.Status, resp.Body)
			}
			if cp.isOpenAI() && !gjson.GetBytes(resp.Body, "error.message").Exists() {
				t.Errorf("%s: the 404 is not in OpenAI's error format: %s", cp, resp.Body)
			}
			if ha, _ := a.seen(); ha != 0 {
				t.Errorf("%s: the first target received %d requests", cp, ha)
			}
			if hb, _ := b.seen(); hb != 0 {
				t.Errorf("%s: the second target received %d requests", cp, hb)
			}
		}
		env.mocks.resetAll(t)
		model := anthropicMsgs.defaultModel()
		if resp := do(t, newClientRequest(t, http.MethodPost, fe.sites["keyed"], anthropicMsgs, model, minimalBody(anthropicMsgs, model))); resp.Status != http.StatusOK {
			t.Errorf("anthropic-messages: %d %s, want 200", resp.Status, resp.Body)
		}
	})
	t.Run("moved-on", func(t *testing.T) {
		env.mocks.resetAll(t)
		a.set(&targetFault{status: 529, header: errorHeader(anthropicMsgs, 529), body: nativeError(anthropicMsgs, 529, "Overloaded")})
		defer a.set(nil)
		model := anthropicMsgs.defaultModel()
		req := newClientRequest(t, http.MethodPost, fe.sites["keyed"], anthropicMsgs, model, minimalBody(anthropicMsgs, model))
		id := tracedRequest(t, req)
		if resp := do(t, req); resp.Status != http.StatusOK {
			t.Fatalf("%d %s, want 200 from the second target", resp.Status, resp.Body)
		}
		spans := env.otlp.trace(t, id, 3)
		var server *tracepb.Span
		var calls []*tracepb.Span
		for _, s := range spans {
			switch s.GetKind() {
			case tracepb.Span_SPAN_KIND_SERVER:
				server = s
			case tracepb.Span_SPAN_KIND_CLIENT:
				calls = append(calls, s)
			}
		}
		if server == nil || len(calls) != 2 {
			t.Fatalf("%d spans: server %v, %d call spans; want the request's and one per attempt", len(spans), server != nil, len(calls))
		}
		sa := spanAttrs(server)
		for k, v := range map[string]string{"llmbridge.client_key": "bob", "llmbridge.failover.target": "keys-b", "llmbridge.failover.attempts": "2",
			"llmbridge.upstream.protocol": "openai-chat", "gen_ai.request.model": model} {
			if sa[k] != v {
				t.Errorf("request span: %s = %q, want %q", k, sa[k], v)
			}
		}
		for _, k := range []string{"error.type", "gen_ai.usage.input_tokens"} {
			if v, ok := sa[k]; ok {
				t.Errorf("request span: %s = %q, want none (the request succeeded; usage is the call's)", k, v)
			}
		}
		failed, answered := 0, 0
		for _, c := range calls {
			ca := spanAttrs(c)
			switch ca["gen_ai.provider.name"] {
			case "anthropic":
				failed++
				if ca["error.type"] != "529" || c.GetStatus().GetCode() != tracepb.Status_STATUS_CODE_ERROR {
					t.Errorf("the failed attempt's span: error.type %q status %v, want the provider's 529 and an error", ca["error.type"], c.GetStatus())
				}
			case "openai":
				answered++
				if _, ok := ca["error.type"]; ok || ca["gen_ai.usage.input_tokens"] == "" {
					t.Errorf("the answering attempt's span: %v, want usage and no error", ca)
				}
			}
			if ca["server.address"] == "" || ca["server.port"] == "" {
				t.Errorf("call span %q: server.address %q server.port %q", c.GetName(), ca["server.address"], ca["server.port"])
			}
		}
		if failed != 1 || answered != 1 {
			t.Errorf("call spans: %d of the failed attempt, %d of the answering one; want one each", failed, answered)
		}
		l := logEntryOf(t, fe.keyedLog, id).Get("llmbridge")
		if l.Get("client_key").String() != "bob" || l.Get("target").String() != "keys-b" || l.Get("attempts").Int() != 2 {
			t.Errorf("access log llmbridge fields %s, want client_key bob, target keys-b, attempts 2", l.Raw)
		}
	})
	t.Run("own-refusal", func(t *testing.T) {
		env.mocks.resetAll(t)
		model := anthropicMsgs.defaultModel()
		req := newClientRequest(t, http.MethodPost, fe.sites["keyed"], anthropicMsgs, model, minimalBody(anthropicMsgs, model))
		req.Header.Set("X-Api-Key", "not-a-key")
		req.Header.Del("Authorization")
		id := tracedRequest(t, req)
		if resp := do(t, req); resp.Status != http.StatusUnauthorized {
			t.Fatalf("%d %s, want 401", resp.Status, resp.Body)
		}
		server, call := tracedSpans(t, env.otlp.trace(t, id, 1))
		if call != nil {
			t.Errorf("a call span for a refused request")
		}
		if got := spanAttrs(server)["error.type"]; got != "authentication" {
			t.Errorf("request span: error.type %q, want authentication", got)
		}
	})
}

// TestFailoverEdgeCases checks how a failover site decides the cases its
// docs name: Llmbridge-Attempts counts the targets tried, not those
// skipped while cooling; a target whose whole key pool is cooling
// answers 429 itself and the request moves on; when every target failed,
// Retry-After is set only when every target is cooling (a failure that
// names no time and is no limit leaves the target ready at once).
func TestFailoverEdgeCases(t *testing.T) {
	env, fe := setupFailover(t)
	send := func(site string) *http.Response {
		return postJSON(t, fe.sites[site]+"/v1/messages", `{"model":"claude-sonnet-4-5","max_tokens":10,"messages":[{"role":"user","content":"Hi"}]}`)
	}
	t.Run("attempts-skip-cooling", func(t *testing.T) {
		env.mocks.resetAll(t)
		a, b := fe.faulty[anthropicMsgs], fe.faulty[openaiChat]
		hdr := errorHeader(anthropicMsgs, 429)
		hdr.Set("Retry-After", "2")
		a.set(&targetFault{status: 429, header: hdr, body: nativeError(anthropicMsgs, 429, "limited")})
		defer a.set(nil)
		b.set(nil)
		if resp := send("no-time"); resp.StatusCode != 200 || resp.Header.Get("Llmbridge-Attempts") != "2" {
			t.Fatalf("first request: %d attempts %q, want 200 after 2", resp.StatusCode, resp.Header.Get("Llmbridge-Attempts"))
		}
		resp := send("no-time")
		if resp.StatusCode != 200 || resp.Header.Get("Llmbridge-Upstream") != "plain-b" || resp.Header.Get("Llmbridge-Attempts") != "1" {
			t.Errorf("while the first target cools: %d from %q after %q attempts, want 200 from plain-b after 1",
				resp.StatusCode, resp.Header.Get("Llmbridge-Upstream"), resp.Header.Get("Llmbridge-Attempts"))
		}
		time.Sleep(2100 * time.Millisecond)
	})
	t.Run("pool-cooling", func(t *testing.T) {
		env.mocks.resetAll(t)
		chat := fe.faulty[openaiChat]
		hdr := errorHeader(openaiChat, 429)
		hdr.Set("Retry-After", "30")
		chat.set(&targetFault{status: 429, header: hdr, body: nativeError(openaiChat, 429, "limited"), keys: map[string]int{"pooled-k0": 429, "pooled-k1": 429}})
		defer chat.set(nil)
		// The first key's 429 cools that key only: the pool has another,
		// and the request moves on.
		if resp := send("pooled"); resp.StatusCode != 200 || resp.Header.Get("Llmbridge-Upstream") != "pooled-b" {
			t.Fatalf("first request: %d from %q, want 200 from pooled-b", resp.StatusCode, resp.Header.Get("Llmbridge-Upstream"))
		}
		// The second key's 429 leaves the pool without a usable key: the
		// target cools too (for at most the site's max_cooldown).
		if resp := send("pooled"); resp.StatusCode != 200 || resp.Header.Get("Llmbridge-Attempts") != "2" {
			t.Fatalf("second request: %d after %q attempts, want 200 after 2", resp.StatusCode, resp.Header.Get("Llmbridge-Attempts"))
		}
		hits, _ := chat.seen()
		if resp := send("pooled"); resp.Header.Get("Llmbridge-Attempts") != "1" || resp.Header.Get("Llmbridge-Upstream") != "pooled-b" {
			t.Errorf("with the pooled target cooling: attempts %q from %q, want 1 from pooled-b", resp.Header.Get("Llmbridge-Attempts"), resp.Header.Get("Llmbridge-Upstream"))
		}
		// Its cooldown over while every key still cools: the target
		// answers 429 itself, calling nothing, and the request moves on.
		time.Sleep(450 * time.Millisecond)
		resp := send("pooled")
		if resp.StatusCode != 200 || resp.Header.Get("Llmbridge-Upstream") != "pooled-b" || resp.Header.Get("Llmbridge-Attempts") != "2" {
			t.Errorf("every key cooling: %d from %q after %q attempts, want 200 from pooled-b after 2",
				resp.StatusCode, resp.Header.Get("Llmbridge-Upstream"), resp.Header.Get("Llmbridge-Attempts"))
		}
		if now, _ := chat.seen(); now != hits {
			t.Errorf("the pooled target called its upstream %d times with every key cooling", now-hits)
		}
	})
	t.Run("retry-after-all-failed", func(t *testing.T) {
		env.mocks.resetAll(t)
		a, b := fe.faulty[anthropicMsgs], fe.faulty[openaiChat]
		defer a.set(nil)
		defer b.set(nil)
		a.set(&targetFault{status: 500, header: errorHeader(anthropicMsgs, 500), body: nativeError(anthropicMsgs, 500, "boom")})
		b.set(&targetFault{status: 500, header: errorHeader(openaiChat, 500), body: nativeError(openaiChat, 500, "boom")})
		resp := send("no-time")
		if resp.StatusCode != 500 || resp.Header.Get("Retry-After") != "" {
			t.Errorf("every target answered 500: %d Retry-After %q, want 500 without Retry-After (both can be tried at once)", resp.StatusCode, resp.Header.Get("Retry-After"))
		}
		// An overload that names no time cools its target for the site's
		// cooldown (2 s): Retry-After says when the soonest is ready.
		a.set(&targetFault{status: 529, header: errorHeader(anthropicMsgs, 529), body: nativeError(anthropicMsgs, 529, "Overloaded")})
		b.set(&targetFault{status: 503, header: errorHeader(openaiChat, 503), body: nativeError(openaiChat, 503, "busy")})
		resp = send("no-time")
		if ra, err := strconv.Atoi(resp.Header.Get("Retry-After")); (resp.StatusCode != 503 && resp.StatusCode != 529) || err != nil || ra < 1 || ra > 2 {
			t.Errorf("every target overloaded without a time: %d Retry-After %q, want an overload (503 or 529) with Retry-After 1-2", resp.StatusCode, resp.Header.Get("Retry-After"))
		}
		time.Sleep(2100 * time.Millisecond)
	})
}
