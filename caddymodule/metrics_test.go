package caddymodule

import (
	"testing"

	"github.com/llmbridge/llmbridge/caddymodule/observe"
	"github.com/llmbridge/llmbridge/codec"
)

// TestMetricsRegistration provisions several handlers in one configuration
// and again in a new one (a reload): the shared collectors must be
// registered in each registry without an error.
func TestMetricsRegistration(t *testing.T) {
	for range 2 {
		ctx := testContext(t)
		for range 2 {
			h := &Handler{Upstream: "openai-chat"}
			if err := h.Provision(ctx); err != nil {
				t.Fatal(err)
			}
		}
		h := &Handler{Upstream: "openai-chat"}
		if err := h.Provision(ctx); err != nil {
			t.Fatal(err)
		}
		h.metrics.Record(&observe.Exchange{Client: codec.Gemini, Upstream: codec.OpenAIChat, Status: 200}, 0, false)
		mfs, err := ctx.GetMetricsRegistry().Gather()
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, mf := range mfs {
			if mf.GetName() == "caddy_llmbridge_requests_total" {
				found = true
			}
		}
		if !found {
			t.Errorf("caddy_llmbridge_requests_total is not in the configuration's registry")
		}
	}
}
