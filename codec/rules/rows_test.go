package rules

import (
	"strings"
	"testing"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/mapping"
)

// TestEveryRowFits fits requests that break everything a model may refuse
// to a model of every row of the table (its first glob with the wildcards
// taken out), under each protocol of its provider, and checks that the
// fitted request keeps the row's rules: the output cap, the reasoning kind
// and its efforts, levels or budget range, the sampling regime, prefill
// and rejected settings.
func TestEveryRowFits(t *testing.T) {
	tbl := Builtin()
	protocols := map[string][]codec.Protocol{
		"anthropic": {codec.AnthropicMessages, codec.VertexAnthropic},
		"openai":    {codec.OpenAIChat, codec.OpenAIResponses},
		"google":    {codec.Gemini, codec.Vertex},
	}
	reasonings := []codec.Reasoning{
		{Effort: mapping.EffortXHigh}, {Effort: mapping.EffortMax}, {Effort: mapping.EffortMinimal}, {Effort: mapping.EffortNone},
		{Budget: optI(100)}, {Budget: optI(200000)}, {Budget: optI(0)}, {Adaptive: true}, {Adaptive: true, Effort: mapping.EffortMax},
	}
	for _, name := range tbl.names {
		ps := protocols[name]
		if ps == nil {
			ps = []codec.Protocol{codec.OpenAIChat}
		}
		for _, row := range tbl.Rows(name) {
			model := strings.ReplaceAll(row.Models[0], "*", "")
			if strings.HasSuffix(model, "-") || model == "" {
				model += "x"
			}
			for _, p := range ps {
				for _, rz := range reasonings {
					req := codec.Request{
						MaxTokens: optI(10_000_000), Temperature: optF(1.7), TopP: optF(0.5), TopK: optI(5),
						PresencePenalty: optF(0.5), FrequencyPenalty: optF(0.5), StopSequences: []string{"END"}, Reasoning: rz,
						Messages: []codec.Message{
							{Role: codec.RoleUser, Parts: []codec.Part{{Type: codec.PartText, Text: "hi"}}},
							{Role: codec.RoleAssistant, Parts: []codec.Part{{Type: codec.PartText, Text: "{"}}},
						},
					}
					opts := Options{Protocol: p, Provider: name, Model: model}
					adj, target := Fit(&req, tbl.Lookup(name, model), &opts, nil)
					if problems := rowProblems(row, name, &req, target); len(problems) > 0 {
						t.Errorf("%s %s %s with %+v: %s\nadjustments: %v", name, model, p, rz, strings.Join(problems, "; "), adj)
					}
				}
			}
		}
	}
}

// rowProblems returns how the fitted request breaks row r of provider.
func rowProblems(r *Rule, provider string, req *codec.Request, target codec.Target) []string {
	var out []string
	bad := func(s string) { out = append(out, s) }
	z := &req.Reasoning
	if r.MaxOutput > 0 && req.MaxTokens.Value > r.MaxOutput {
		bad("max tokens over the cap")
	}
	if provider == "anthropic" && req.Temperature.Value > 1 || req.Temperature.Value > 2 {
		bad("temperature out of range")
	}
	switch r.Reasoning {
	case ReasoningNone, ReasoningAlways:
		if z.Effort != mapping.EffortUnset || z.Budget.Set || z.Adaptive && provider != "google" {
			bad("reasoning settings sent")
		}
	case ReasoningEffort, ReasoningLevel:
		if z.Effort != mapping.EffortUnset && !r.efforts.has(z.Effort) && !(z.Effort == mapping.EffortNone && r.ThinkingOff == ThinkingOffDisabled) {
			bad("effort " + z.Effort.String() + " not accepted")
		}
		if z.Budget.Set {
			bad("a budget sent")
		}
		if r.Reasoning == ReasoningLevel && !target.ThinkingLevel {
			bad("no thinking levels")
		}
	case ReasoningBudget, ReasoningBudgetAdaptive:
		if z.Budget.Set && z.Budget.Value > 0 && (z.Budget.Value < max(r.BudgetMin, 1) || r.BudgetMax > 0 && z.Budget.Value > r.BudgetMax) {
			bad("budget out of range")
		}
		if provider == "anthropic" && z.Budget.Set && z.Budget.Value > 0 && (z.Budget.Value < 1024 || z.Budget.Value >= req.MaxTokens.Value) {
			bad("anthropic budget not within 1024..max_tokens")
		}
		if r.AlwaysThinks && z.Budget.Set && z.Budget.Value == 0 {
			bad("thinking turned off")
		}
		if provider == "anthropic" && r.Reasoning == ReasoningBudget && z.Adaptive {
			bad("adaptive thinking sent")
		}
		if provider == "anthropic" && z.Effort > mapping.EffortNone && !r.efforts.has(z.Effort) {
			bad("output effort not accepted")
		}
	case ReasoningAdaptive:
		if z.Budget.Set || z.Effort == mapping.EffortNone && r.ThinkingOff != ThinkingOffDisabled {
			bad("budget or disabled thinking sent")
		}
		if z.Effort > mapping.EffortNone && !r.efforts.has(z.Effort) {
			bad("effort not accepted")
		}
	}
	fixed := r.Sampling == SamplingFixed || r.Sampling == SamplingFixedWhenReasoning && z.Effort > mapping.EffortNone
	if fixed && (req.Temperature.Set && req.Temperature.Value != 1 || req.TopP.Set && req.TopP.Value != 1 || req.TopK.Set) {
		bad("sampling sent to a model that fixes it")
	}
	if r.Sampling == SamplingExclusive && req.Temperature.Set && req.TopP.Set {
		bad("temperature with top_p")
	}
	if r.rejects&rejectStop != 0 && len(req.StopSequences) > 0 {
		bad("stop sent")
	}
	if r.rejects&rejectPresencePenalty != 0 && req.PresencePenalty.Set || r.rejects&rejectFrequencyPenalty != 0 && req.FrequencyPenalty.Set {
		bad("penalties sent")
	}
	if r.NoPrefill && req.Messages[len(req.Messages)-1].Role == codec.RoleAssistant {
		bad("prefill sent")
	}
	if provider == "anthropic" && thinkingOn(z) && (req.Temperature.Set && req.Temperature.Value != 1 || req.TopK.Set ||
		req.Messages[len(req.Messages)-1].Role == codec.RoleAssistant) {
		bad("thinking with sampling or a prefill")
	}
	if r.SignedCalls != target.SignedFunctionCalls {
		bad("signed calls target")
	}
	return out
}
