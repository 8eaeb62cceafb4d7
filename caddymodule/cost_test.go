package caddymodule

import (
	"encoding/json"
	"math"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/llmbridge/llmbridge/codec/rules"
)

// TestPriceRules checks that a configured price reaches the access log
// and the span for the upstream model it matches, that a rule with only a
// price leaves the built-in rule of its models in force, and that a
// price of another provider does not apply.
func TestPriceRules(t *testing.T) {
	price := &rules.Price{Input: 2, Output: 8, Source: "https://example.com/pricing", Date: "2026-11-30"}
	h := newTestHandler(t, &Handler{Upstream: "openai-chat", ModelRules: []rules.Rule{
		{Models: []string{"o3*"}, Price: price},
		{Provider: "anthropic", Models: []string{"gpt-*"}, Price: &rules.Price{Input: 100, Output: 100, Source: "s", Date: "2026-01-01"}},
	}})
	if r := h.fitter.Rules().Lookup(h.provider, "o3"); r == nil || r.Sampling == "" {
		t.Fatalf("the price-only rule hid o3's built-in rule: %+v", r)
	}
	answer := jsonAnswer(200, `{"id":"c","object":"chat.completion","created":1,"model":"o3","choices":[{"index":0,"message":{"role":"assistant","content":"ok"},"finish_reason":"stop"}],"usage":{"prompt_tokens":1000,"completion_tokens":500,"total_tokens":1500}}`)
	_, rec, spans := serveTraced(t, h, httptest.NewRequest("POST", "/v1/messages", strings.NewReader(`{"model":"o3","max_tokens":10,"messages":[{"role":"user","content":"hi"}]}`)), answer)
	want := (1000*2 + 500*8) / 1e6
	if got, _ := rec.fields["cost_usd"].(float64); math.Abs(got-want) > 1e-12 {
		t.Errorf("access log cost_usd %v, want %v", rec.fields["cost_usd"], want)
	}
	if got, ok := rec.placeholder("cost_usd"); !ok || math.Abs(got.(float64)-want) > 1e-12 {
		t.Errorf("cost_usd placeholder %v", got)
	}
	if got := attrs(spans.server)["llmbridge.cost_usd"].AsFloat64(); math.Abs(got-want) > 1e-12 {
		t.Errorf("span cost %v, want %v", got, want)
	}
	_, rec, _ = serveTraced(t, h, httptest.NewRequest("POST", "/v1/messages", strings.NewReader(`{"model":"gpt-5","max_tokens":10,"messages":[{"role":"user","content":"hi"}]}`)), answer)
	if _, ok := rec.fields["cost_usd"]; ok {
		t.Errorf("a price of another provider applied: %v", rec.fields["cost_usd"])
	}
}

// TestClientKeyJSON reads client keys as strings and as named objects,
// and writes unnamed ones back as strings.
func TestClientKeyJSON(t *testing.T) {
	var h Handler
	if err := json.Unmarshal([]byte(`{"client_keys":["k1",{"name":"team-a","key":"{env.A}"}]}`), &h); err != nil {
		t.Fatal(err)
	}
	want := []ClientKey{{Key: "k1"}, {Name: "team-a", Key: "{env.A}"}}
	if len(h.ClientKeys) != 2 || h.ClientKeys[0] != want[0] || h.ClientKeys[1] != want[1] {
		t.Fatalf("client keys %+v, want %+v", h.ClientKeys, want)
	}
	b, err := json.Marshal(h.ClientKeys)
	if err != nil || string(b) != `["k1",{"name":"team-a","key":"{env.A}"}]` {
		t.Fatalf("marshalled %s, %v", b, err)
	}
}
