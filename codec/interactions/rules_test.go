package interactions

import (
	"strings"
	"testing"

	"github.com/llmbridge/llmbridge/codec"
	modelrules "github.com/llmbridge/llmbridge/codec/rules"
	"github.com/llmbridge/llmbridge/mapping"
)

// TestModelRules checks that Google's rules govern the family's upstreams
// as they govern gemini's, and that their adjustments name the family's
// fields: a thinking budget becomes a level toward a model that takes
// levels, and a request body that passes through is fitted in place.
func TestModelRules(t *testing.T) {
	for _, p := range []codec.Protocol{Gemini, Vertex} {
		if got := p.Descriptor().Rules.Provider; got != "google" {
			t.Fatalf("%s: provider %q", p, got)
		}
	}
	table := modelrules.Builtin()
	for _, model := range []string{"gemini-3-pro-preview", "gemini-2.5-flash"} {
		r := table.Lookup("google", model)
		if r == nil {
			t.Fatalf("no rule for %s", model)
		}
		req := codec.Request{Model: model, Reasoning: codec.Reasoning{Effort: mapping.EffortXHigh}, Temperature: codec.OptFloat{Value: 0.2, Set: true},
			Messages: []codec.Message{{Parts: []codec.Part{{Type: codec.PartText, Text: "Hi"}}}}}
		opts := modelrules.Options{Protocol: Gemini, Provider: "google", Model: model, EffortBudgets: mapping.DefaultEffortBudgets}
		adj, target := modelrules.Fit(&req, r, &opts, nil)
		if len(adj) == 0 {
			t.Errorf("%s: an effort of xhigh was not fitted", model)
		}
		for _, a := range adj {
			if strings.Contains(a.Param, "thinking") && a.Param != "thinking_level" {
				t.Errorf("%s: an adjustment names %q, not the family's thinking_level", model, a.Param)
			}
		}
		out, err := codec.AppendRequest(nil, Gemini, &req, codec.EncodeOptions{Model: model, Target: target})
		if err != nil {
			t.Fatalf("%s: %v", model, err)
		}
		if !strings.Contains(string(out), `"thinking_level":"high"`) {
			t.Errorf("%s: %s (adjusted %v)", model, out, adj)
		}
		body, ferr := codec.FitBody(Gemini, []byte(`{"model":"`+model+`","input":"Hi","generation_config":{"thinking_level":"minimal"}}`),
			&req, []string{"thinking_level"}, target)
		if ferr != nil || !strings.Contains(string(body), `"thinking_level":"high"`) {
			t.Errorf("%s: fitted body %s %v", model, body, ferr)
		}
	}
}
