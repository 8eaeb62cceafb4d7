package caddymodule

import (
	"net/http"
	"strings"
	"testing"

	"github.com/llmbridge/llmbridge/codec"
)

// TestExplainRetired rewrites the provider's "no such model" for a model
// the table marks retired into an error naming the retirement, and leaves
// other refusals alone.
func TestExplainRetired(t *testing.T) {
	h := newTestHandler(t, &Handler{Upstream: "openai-chat"})
	const model = "o4-mini"
	// The table dates o4-mini's retirement (2026-10-23): the test holds
	// the table to it as much as the rewrite to the table.
	if r := h.fitter.RuleFor(model); r == nil || r.Retired == "" {
		t.Fatalf("the table marks no retirement for %s", model)
	}
	notFound := []byte(`{"error":{"message":"The model o4-mini does not exist","type":"invalid_request_error","code":"model_not_found"}}`)
	for _, tc := range []struct {
		status  int
		body    []byte
		model   string
		rewrite bool
	}{
		{http.StatusNotFound, notFound, model, true},
		{http.StatusBadRequest, notFound, model, true},
		{http.StatusBadRequest, []byte(`{"error":{"message":"max_tokens is too large","type":"invalid_request_error"}}`), model, false},
		{http.StatusTooManyRequests, notFound, model, false},
		{http.StatusNotFound, notFound, "gpt-5.4", false},
	} {
		body := append([]byte(nil), tc.body...)
		h.explainRetired(codec.OpenAIChat, tc.model, tc.status, http.Header{}, &body)
		rewritten := strings.Contains(string(body), "was retired")
		if rewritten != tc.rewrite {
			t.Errorf("%d %s for %s: rewritten %v, want %v: %s", tc.status, tc.body, tc.model, rewritten, tc.rewrite, body)
		}
	}
}
