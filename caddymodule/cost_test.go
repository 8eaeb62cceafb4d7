package caddymodule

import (
	"encoding/json"
	"math"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/rules"
)

// TestCost prices usage in its canonical meaning: cache reads and writes
// are part of the input and priced apart, reasoning is part of the
// output, and a cache price left out takes the input price.
func TestCost(t *testing.T) {
	p := &rules.Price{Input: 3, Output: 15, CacheRead: 0.3, CacheWrite: 3.75}
	for _, c := range []struct {
		name string
		u    codec.Usage
		p    *rules.Price
		want float64
	}{
		{"plain", codec.Usage{Known: true, InputTokens: 1_000_000, OutputTokens: 1_000_000}, p, 18},
		{"cached", codec.Usage{Known: true, InputTokens: 1000, CacheReadTokens: 600, CacheWriteTokens: 200, OutputTokens: 100, ReasoningTokens: 50},
			p, (200*3 + 600*0.3 + 200*3.75 + 100*15) / 1e6},
		{"no cache prices", codec.Usage{Known: true, InputTokens: 1000, CacheReadTokens: 600}, &rules.Price{Input: 2, Output: 8}, 1000 * 2 / 1e6},
		{"inconsistent counts", codec.Usage{Known: true, InputTokens: 10, CacheReadTokens: 20}, p, 20 * 0.3 / 1e6},
	} {
		if got := Cost(c.p, &c.u); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("%s: cost %v, want %v", c.name, got, c.want)
		}
	}
}

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
	if r := h.rules.Lookup(h.provider, "o3"); r == nil || r.Sampling == "" {
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

// histogramCount reads the sample count of one histogram series.
func histogramCount(t *testing.T, o prometheus.Observer) uint64 {
	t.Helper()
	var m dto.Metric
	if err := o.(prometheus.Metric).Write(&m); err != nil {
		t.Fatal(err)
	}
	return m.GetHistogram().GetSampleCount()
}

// TestGenAIMetrics checks the GenAI histograms of one translated exchange
// and of a stream, and the bound on model label values.
func TestGenAIMetrics(t *testing.T) {
	h := newTestHandler(t, &Handler{Upstream: "openai-chat"})
	m := h.metrics
	series := func(model string) (in, dur, first prometheus.Observer) {
		return m.tokenUsage.WithLabelValues("chat", "openai", model, "anthropic-messages", "input"),
			m.duration.WithLabelValues("chat", "openai", model, "anthropic-messages", ""),
			m.firstChunk.WithLabelValues("chat", "openai", model, "anthropic-messages")
	}
	in, dur, first := series("gpt-metrics")
	in0, dur0, first0 := histogramCount(t, in), histogramCount(t, dur), histogramCount(t, first)
	_, _ = serve(t, h, httptest.NewRequest("POST", "/v1/messages", strings.NewReader(`{"model":"gpt-metrics","max_tokens":10,"messages":[{"role":"user","content":"hi"}]}`)),
		jsonAnswer(200, `{"id":"c","object":"chat.completion","created":1,"model":"gpt-metrics","choices":[{"index":0,"message":{"role":"assistant","content":"ok"},"finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5}}`))
	if histogramCount(t, in) != in0+1 || histogramCount(t, dur) != dur0+1 || histogramCount(t, first) != first0 {
		t.Errorf("a JSON exchange: token usage %d, duration %d, first chunk %d observations; want one, one, none",
			histogramCount(t, in)-in0, histogramCount(t, dur)-dur0, histogramCount(t, first)-first0)
	}
	_, _ = serve(t, h, httptest.NewRequest("POST", "/v1/messages", strings.NewReader(`{"model":"gpt-metrics","max_tokens":10,"stream":true,"messages":[{"role":"user","content":"hi"}]}`)),
		sseAnswer(benchChatStream, 200, nil))
	if histogramCount(t, first) != first0+1 {
		t.Errorf("a stream made %d first chunk observations, want one", histogramCount(t, first)-first0)
	}

	b := boundedLabels{limit: 3}
	for _, name := range []string{"a", "b", "c", "d", "a", "e"} {
		got := b.get(name)
		want := name
		if name == "d" || name == "e" {
			want = otherModel
		}
		if got != want {
			t.Errorf("label for %q is %q, want %q", name, got, want)
		}
	}
	if n := testing.AllocsPerRun(100, func() { _ = b.get("a") }); n != 0 {
		t.Errorf("a known label allocates %v times", n)
	}
}
