package caddymodule

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/llmbridge/llmbridge/caddymodule/failover"
	"github.com/llmbridge/llmbridge/caddymodule/limits"
	"github.com/llmbridge/llmbridge/caddymodule/observe"
	"github.com/llmbridge/llmbridge/caddymodule/state"
	"github.com/llmbridge/llmbridge/codec"
)

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
		set, err := limits.New(h.Limits, unreachableStore{state.NewMemory(0)})
		if err != nil {
			t.Fatal(err)
		}
		h.limits, h.denyOnStoreError = set, deny
		r := httptest.NewRequest("POST", "/v1/messages", strings.NewReader(clientBody))
		r.Header.Set("X-Api-Key", "k")
		w, call := serve(t, h, r, jsonAnswer(200, chatOK))
		switch {
		case !deny && (w.Code != 200 || w.Header().Get(limitsHeader) != ""):
			t.Errorf("allow: %d %q, want 200 uncounted", w.Code, w.Header().Get(limitsHeader))
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
		if w := serveSite(site, srv, clientBody); w.Code != 200 || !strings.HasPrefix(w.Header().Get(limitsHeader), "requests/hour=") {
			t.Fatalf("request %d: %d %q %s", i, w.Code, w.Header().Get(limitsHeader), w.Body)
		}
	}
	hits := up.calls
	w := serveSite(site, srv, clientBody)
	if w.Code != 429 || up.calls != hits {
		t.Errorf("third request: %d (upstream hits %d -> %d), want 429 before any target", w.Code, hits, up.calls)
	}
	reports, err := site.limits.Report(context.Background(), []string{"alice"}, time.Now())
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
