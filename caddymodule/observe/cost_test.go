package observe

import (
	"math"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"

	"github.com/prometheus/client_golang/prometheus"

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

// histogramCount reads the sample count of one histogram series.
func histogramCount(t *testing.T, o prometheus.Observer) uint64 {
	t.Helper()
	var m dto.Metric
	if err := o.(prometheus.Metric).Write(&m); err != nil {
		t.Fatal(err)
	}
	return m.GetHistogram().GetSampleCount()
}

// TestGenAIMetrics checks the GenAI histograms of one JSON exchange and of
// a stream, and the bound on model label values.
func TestGenAIMetrics(t *testing.T) {
	m := GlobalMetrics()
	series := func(model string) (in, dur, first prometheus.Observer) {
		return m.tokenUsage.WithLabelValues("chat", "openai", model, "anthropic-messages", "input"),
			m.duration.WithLabelValues("chat", "openai", model, "anthropic-messages", ""),
			m.firstChunk.WithLabelValues("chat", "openai", model, "anthropic-messages")
	}
	in, dur, first := series("gpt-metrics")
	in0, dur0, first0 := histogramCount(t, in), histogramCount(t, dur), histogramCount(t, first)
	start := time.Now()
	x := Exchange{Client: codec.AnthropicMessages, Upstream: codec.OpenAIChat, Model: "gpt-metrics", UpstreamModel: "gpt-metrics", Status: 200,
		Usage: codec.Usage{Known: true, InputTokens: 3, OutputTokens: 2}, Start: start, FirstWrite: start.Add(time.Millisecond)}
	m.RecordGenAI(&x, "openai", "", time.Second)
	if histogramCount(t, in) != in0+1 || histogramCount(t, dur) != dur0+1 || histogramCount(t, first) != first0 {
		t.Errorf("a JSON exchange: token usage %d, duration %d, first chunk %d observations; want one, one, none",
			histogramCount(t, in)-in0, histogramCount(t, dur)-dur0, histogramCount(t, first)-first0)
	}
	x.Stream = true
	m.RecordGenAI(&x, "openai", "", time.Second)
	if histogramCount(t, first) != first0+1 {
		t.Errorf("a stream made %d first chunk observations, want one", histogramCount(t, first)-first0)
	}
	x.Status = 502
	m.RecordGenAI(&x, "openai", "502", time.Second)
	if histogramCount(t, first) != first0+1 {
		t.Errorf("a failed stream observed a first chunk")
	}
	(*Metrics)(nil).RecordGenAI(&x, "openai", "", time.Second)

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
