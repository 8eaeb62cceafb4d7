package caddymodule

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/llmbridge/llmbridge/caddymodule/failover"
	"github.com/llmbridge/llmbridge/caddymodule/limits"
	"github.com/llmbridge/llmbridge/caddymodule/limits/admission"
	"github.com/llmbridge/llmbridge/caddymodule/observe"
	"github.com/llmbridge/llmbridge/caddymodule/state"
	"github.com/llmbridge/llmbridge/codec"
)

// uniqueScope returns a scope no other run of the test shares: counters
// of the process's memory outlive a test.
func uniqueScope(t *testing.T) string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return t.Name() + "-" + hex.EncodeToString(b)
}

// TestLimitRefusals sends each client protocol's requests through a site
// whose key may make two requests a minute: the third is refused with a
// 429 in the client's error format, Retry-After, and the rate-limit
// headers of its protocol; admitted requests show what remains.
func TestLimitRefusals(t *testing.T) {
	chatOK := jsonAnswer(200, `{"id":"c","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"ok"},"finish_reason":"stop"}],"usage":{"prompt_tokens":5,"completion_tokens":2,"total_tokens":7}}`)
	for _, tc := range []struct {
		name, path, body, auth string
		errorPath, header      string
	}{
		{name: "anthropic", path: "/v1/messages", body: `{"model":"m","max_tokens":10,"messages":[{"role":"user","content":"hi"}]}`, auth: "X-Api-Key",
			errorPath: "error.type", header: "Anthropic-Ratelimit-Requests-Remaining"},
		{name: "chat", path: "/v1/chat/completions", body: `{"model":"m","messages":[{"role":"user","content":"hi"}]}`, auth: "Authorization",
			errorPath: "error.message", header: "X-Ratelimit-Remaining-Requests"},
		{name: "responses", path: "/v1/responses", body: `{"model":"m","input":"hi"}`, auth: "Authorization",
			errorPath: "error.message", header: "X-Ratelimit-Remaining-Requests"},
		{name: "gemini", path: "/v1beta/models/m:generateContent", body: `{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}`, auth: "X-Goog-Api-Key",
			errorPath: "error.status"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newTestHandler(t, &Handler{Upstream: "openai-chat", ClientKeys: []ClientKey{{Name: "alice", Key: "sk-alice"}},
				Limits: []limits.Limit{{Keys: []string{"alice"}, Scope: uniqueScope(t), Rates: []limits.Rate{{Of: "requests", Max: 2, Per: "hour"}}}}})
			send := func() *httptest.ResponseRecorder {
				r := httptest.NewRequest("POST", tc.path, strings.NewReader(tc.body))
				v := "sk-alice"
				if tc.auth == "Authorization" {
					v = "Bearer sk-alice"
				}
				r.Header.Set(tc.auth, v)
				w, _ := serve(t, h, r, chatOK)
				return w
			}
			for i := range 2 {
				w := send()
				if w.Code != 200 {
					t.Fatalf("request %d: %d %s", i, w.Code, w.Body)
				}
				if got, want := w.Header().Get(admission.Header), "requests/hour="+strconv.Itoa(1-i)+"/2;reset="; !strings.HasPrefix(got, want) {
					t.Errorf("request %d: %s %q, want %q...", i, admission.Header, got, want)
				}
			}
			w := send()
			if w.Code != 429 {
				t.Fatalf("third request: %d %s, want 429", w.Code, w.Body)
			}
			if !gjson.GetBytes(w.Body.Bytes(), tc.errorPath).Exists() {
				t.Errorf("the 429 is not in the client's error format: %s", w.Body)
			}
			ra, err := strconv.Atoi(w.Header().Get("Retry-After"))
			if err != nil || ra < 1 || ra > 3600 {
				t.Errorf("Retry-After %q, want the seconds to the hour's end", w.Header().Get("Retry-After"))
			}
			if tc.header != "" && w.Header().Get(tc.header) != "0" {
				t.Errorf("%s = %q, want 0; headers %v", tc.header, w.Header().Get(tc.header), w.Header())
			}
		})
	}
}

// TestLimitSettlesStream checks that a streamed request's reservation is
// settled with the usage its events reported, and a stream's place freed.
func TestLimitSettlesStream(t *testing.T) {
	scope := uniqueScope(t)
	h := newTestHandler(t, &Handler{Upstream: "openai-chat", ClientKeys: []ClientKey{{Name: "bob", Key: "sk-bob"}},
		Limits: []limits.Limit{{Scope: scope, Rates: []limits.Rate{{Of: "total_tokens", Max: 1e6, Per: "day"}}, Streams: 1}}})
	stream := "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"hi\"},\"finish_reason\":\"stop\"}]}\n\n" +
		"data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[],\"usage\":{\"prompt_tokens\":40,\"completion_tokens\":2,\"total_tokens\":42}}\n\ndata: [DONE]\n\n"
	for range 2 {
		r := httptest.NewRequest("POST", "/v1/messages", strings.NewReader(`{"model":"m","max_tokens":5000,"stream":true,"messages":[{"role":"user","content":"hi"}]}`))
		r.Header.Set("X-Api-Key", "sk-bob")
		w, _ := serve(t, h, r, sseAnswer(stream, 64, nil))
		if w.Code != 200 {
			t.Fatalf("%d %s: the stream's place was not freed", w.Code, w.Body)
		}
	}
	reports, err := h.limits.Set().Report(context.Background(), []string{"bob"}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	for _, rep := range reports {
		switch rep.Limit {
		case "total_tokens/day":
			if rep.Used != 84 {
				t.Errorf("total tokens used %v, want 84: two streams of 42, their 5,000-token reservations settled", rep.Used)
			}
		case "streams":
			if rep.Used != 0 {
				t.Errorf("%v streams open after both ended", rep.Used)
			}
		}
	}
}

// TestLimitsNeedNamedKeys refuses limits on a site without client_keys
// and a limit naming a key client_keys does not.
func TestLimitsNeedNamedKeys(t *testing.T) {
	l := []limits.Limit{{Keys: []string{"alice"}, Rates: []limits.Rate{{Of: "requests", Max: 1, Per: "minute"}}}}
	for _, h := range []*Handler{
		{Upstream: "openai-chat", Limits: l},
		{Upstream: "openai-chat", ClientKeys: []ClientKey{{Name: "bob", Key: "k"}}, Limits: l},
	} {
		ctx, cancel := caddyContext()
		err := h.Provision(ctx)
		cancel()
		if err == nil {
			t.Errorf("%+v provisioned", h.ClientKeys)
		}
	}
}

// unreachableStore is a state.Store that cannot count: the limits'
// policy for an outage is what is tested, not a store.
type unreachableStore struct{ *state.Memory }

func (unreachableStore) Take(context.Context, []state.Count, []int64) (bool, error) {
	return false, state.ErrUnavailable
}

// TestLimitsStorePolicy checks limits_on_store_error: allow admits a
// request the store cannot count, deny refuses it with a 503 in the
// client's format.
func TestLimitsStorePolicy(t *testing.T) {
	for _, deny := range []bool{false, true} {
		h := newTestHandler(t, &Handler{Upstream: "openai-chat", ClientKeys: []ClientKey{{Name: "alice", Key: "k"}},
			Limits: []limits.Limit{{Scope: uniqueScope(t), Rates: []limits.Rate{{Of: "requests", Max: 10, Per: "minute"}}}}})
		limits.Withdraw(h.limits.Set())
		g, err := admission.New(admission.Config{Limits: h.Limits, Store: unreachableStore{state.NewMemory(0)},
			DenyOnStoreError: deny, Keys: h.clientKeyNames, Fail: fail})
		if err != nil {
			t.Fatal(err)
		}
		h.limits = g
		t.Cleanup(func() { limits.Withdraw(g.Set()) })
		r := httptest.NewRequest("POST", "/v1/messages", strings.NewReader(clientBody))
		r.Header.Set("X-Api-Key", "k")
		w, call := serve(t, h, r, jsonAnswer(200, chatOK))
		switch {
		case !deny && (w.Code != 200 || w.Header().Get(admission.Header) != ""):
			t.Errorf("allow: %d %q, want 200 uncounted", w.Code, w.Header().Get(admission.Header))
		case deny && (w.Code != 503 || call.called || w.Header().Get("Retry-After") != "1" || !strings.Contains(w.Body.String(), `"overloaded_error"`)):
			t.Errorf("deny: %d %s (upstream called %v), want Anthropic's 503 with Retry-After 1", w.Code, w.Body, call.called)
		}
	}
}

// TestFailoverSiteLimits checks limits on a failover site: checked before
// any target runs, settled with the answering target's usage.
func TestFailoverSiteLimits(t *testing.T) {
	ctx, cancel := caddyContext()
	defer cancel()
	up := &fakeUpstream{status: 200, header: jsonHeader(), body: chatOK}
	_, srv := failoverSiteFor(t, ctx, []string{"openai-chat"}, []*fakeUpstream{up}, nil)
	var names []string
	for n := range srv.NamedRoutes {
		names = append(names, n)
	}
	site := &Handler{Failover: &failover.Config{Targets: names}, ClientKeys: []ClientKey{{Name: "alice", Key: "k"}},
		Limits: []limits.Limit{{Scope: uniqueScope(t), Rates: []limits.Rate{{Of: "requests", Max: 2, Per: "hour"}, {Of: "total_tokens", Max: 1e6, Per: "day"}}}}}
	if err := site.Provision(ctx); err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		if w := serveSite(site, srv, clientBody); w.Code != 200 || !strings.HasPrefix(w.Header().Get(admission.Header), "requests/hour=") {
			t.Fatalf("request %d: %d %q %s", i, w.Code, w.Header().Get(admission.Header), w.Body)
		}
	}
	hits := up.calls
	w := serveSite(site, srv, clientBody)
	if w.Code != 429 || up.calls != hits {
		t.Errorf("third request: %d (upstream hits %d -> %d), want 429 before any target", w.Code, hits, up.calls)
	}
	reports, err := site.limits.Set().Report(context.Background(), []string{"alice"}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	for _, rep := range reports {
		// chatOK reports 1 + 1 tokens: each request settled to 2.
		if rep.Limit == "total_tokens/day" && rep.Used != 4 {
			t.Errorf("total tokens %v, want 4: settled with the answering target's usage", rep.Used)
		}
	}
}

// TestPassthroughLimitEstimate estimates a passed-through request from
// its decoded body when the limits count tokens.
func TestPassthroughLimitEstimate(t *testing.T) {
	h := newTestHandler(t, &Handler{Upstream: "anthropic-messages", ClientKeys: []ClientKey{{Name: "alice", Key: "k"}},
		Limits: []limits.Limit{{Scope: uniqueScope(t), Rates: []limits.Rate{{Of: "input_tokens", Max: 1e6, Per: "day"}}}}})
	x := &observe.Exchange{UpstreamModel: "claude-sonnet-4-5"}
	body := []byte(`{"model":"claude-sonnet-4-5","max_tokens":100,"messages":[{"role":"user","content":"` + strings.Repeat("a", 300) + `"}]}`)
	head, err := codec.ReadRequestHead(body)
	if err != nil {
		t.Fatal(err)
	}
	if e := h.passthroughEstimate(&passthroughDecode{client: codec.AnthropicMessages, body: body}, &head, x); e.Input != 100 || e.Output != 100 {
		t.Errorf("estimate %+v, want 100 input tokens (300 bytes) and the body's 100 output tokens", e)
	}
	if e := h.passthroughEstimate(&passthroughDecode{client: codec.AnthropicMessages, body: []byte(`{"model":`)}, &head, x); e.Input != 3 {
		t.Errorf("a body that does not decode: %+v, want its bytes counted", e)
	}
	plain := newTestHandler(t, &Handler{Upstream: "anthropic-messages", ClientKeys: []ClientKey{{Name: "alice", Key: "k"}},
		Limits: []limits.Limit{{Scope: uniqueScope(t), Rates: []limits.Rate{{Of: "requests", Max: 1, Per: "day"}}}}})
	if e := plain.passthroughEstimate(&passthroughDecode{client: codec.AnthropicMessages, body: body}, &head, x); e != (limits.Estimate{}) {
		t.Errorf("a requests cap needs no estimate: %+v", e)
	}
}

// TestLimitsPublished makes a provisioned handler's limits part of the
// admin API's report until its configuration is unloaded.
func TestLimitsPublished(t *testing.T) {
	h := newTestHandler(t, &Handler{Upstream: "openai-chat", ClientKeys: []ClientKey{{Name: "alice", Key: "k"}},
		Limits: []limits.Limit{{Scope: uniqueScope(t), Rates: []limits.Rate{{Of: "spend", Max: 5, Per: "day"}}, Streams: 2}}})
	reported := func() int {
		reports, err := limits.Loaded(context.Background(), time.Now())
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, r := range reports {
			if r.Key == "alice" && r.Scope == h.Limits[0].Scope {
				n++
			}
		}
		return n
	}
	if n := reported(); n != 2 {
		t.Errorf("%d of alice's caps reported, want spend/day and streams", n)
	}
	if err := h.Cleanup(); err != nil {
		t.Fatal(err)
	}
	if n := reported(); n != 0 {
		t.Errorf("%d caps of an unloaded configuration reported", n)
	}
}

// BenchmarkServeLimits measures a translated request under a requests
// cap and a token budget on the memory store, beside the same request
// without limits (BenchmarkServeTranslate's).
func BenchmarkServeLimits(b *testing.B) {
	body := `{"model":"gpt-5.4","max_tokens":100,"temperature":0.2,"messages":[{"role":"user","content":"Hi"}]}`
	answer := `{"id":"c","object":"chat.completion","model":"gpt-5.4","choices":[{"index":0,"message":{"role":"assistant","content":"hi"},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}`
	b.Run("none", func(b *testing.B) {
		benchServeWith(b, &Handler{Upstream: "openai-chat", ClientKeys: []ClientKey{{Name: "k", Key: "k"}}}, body, answer)
	})
	b.Run("limits", func(b *testing.B) {
		benchServeWith(b, &Handler{Upstream: "openai-chat", ClientKeys: []ClientKey{{Name: "k", Key: "k"}},
			Limits: []limits.Limit{{Scope: "bench", Rates: []limits.Rate{{Of: "requests", Max: 1e12, Per: "minute"}, {Of: "total_tokens", Max: 1e15, Per: "day"}}}}}, body, answer)
	})
}
