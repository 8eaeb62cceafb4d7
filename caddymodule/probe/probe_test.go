package probe

import (
	"testing"

	"github.com/llmbridge/llmbridge/codec"
	_ "github.com/llmbridge/llmbridge/codec/all"
	"github.com/llmbridge/llmbridge/codec/rules"
)

func TestDefaultGuess(t *testing.T) {
	if defaultGuess([]string{"low", "high"}) != "low" || defaultGuess([]string{"none"}) != "" {
		t.Error("defaultGuess")
	}
}

// TestFor writes the probes of each family in its first-party protocol,
// every body naming the model to measure.
func TestFor(t *testing.T) {
	for _, tc := range []struct {
		up      codec.Protocol
		dialect bool
		client  codec.Protocol
	}{
		{codec.OpenAIChat, false, codec.OpenAIChat},
		{codec.OpenAIChat, true, codec.OpenAIChat},
		{codec.AzureOpenAI, false, codec.OpenAIChat},
		{codec.OpenAIResponses, false, codec.OpenAIResponses},
		{codec.AnthropicMessages, false, codec.AnthropicMessages},
		{codec.VertexAnthropic, false, codec.AnthropicMessages},
		{codec.Gemini, false, codec.Gemini},
		{codec.Vertex, false, codec.Gemini},
	} {
		client, reqs, err := For(tc.up, tc.dialect)
		if err != nil {
			t.Fatalf("%s: %v", tc.up, err)
		}
		if client.Family() != tc.client.Family() || len(reqs) < 3 || reqs[0].Name != probeBaseline {
			t.Errorf("%s: client %s, %d probes starting with %q", tc.up, client, len(reqs), reqs[0].Name)
		}
		for _, r := range reqs {
			if r.Name == "" || r.Body == "" {
				t.Errorf("%s: a probe without a name or body: %+v", tc.up, r)
			}
		}
	}
}

// outcome is a probe's result in a table: accepted, or refused with msg.
func outcome(name string, accepted bool, msg string) Result {
	return Result{Name: name, Accepted: accepted, Status: map[bool]int{true: 200, false: 400}[accepted], Message: msg}
}

// TestImplied reads the model_rule each pattern of outcomes implies.
func TestImplied(t *testing.T) {
	ok := func(names ...string) []Result {
		var rs []Result
		for _, n := range names {
			rs = append(rs, outcome(n, true, ""))
		}
		return rs
	}
	no := func(names ...string) []Result {
		var rs []Result
		for _, n := range names {
			rs = append(rs, outcome(n, false, "unsupported"))
		}
		return rs
	}
	join := func(parts ...[]Result) []Result {
		var rs []Result
		for _, p := range parts {
			rs = append(rs, p...)
		}
		return rs
	}
	for _, tc := range []struct {
		name     string
		up       codec.Protocol
		provider string
		results  []Result
		check    func(r rules.Rule, notes []string) bool
	}{
		{"openai reasoning, sampling fixed unless none", codec.OpenAIChat, "openai",
			join(ok(probeBaseline, Effort+"none", Effort+"low", Effort+"high", probeTempNone, probeToolsNone), no(probeTemperature, probeToolsBare, probeToolsHigh, probeDeveloper, probeUserAfter, probeStop, probePresence, probeFrequency)),
			func(r rules.Rule, notes []string) bool {
				return r.Reasoning == rules.ReasoningEffort && len(r.Efforts) == 3 && r.Sampling == rules.SamplingFixedWhenReasoning &&
					r.DefaultEffort == "low" && r.ChatTools == rules.ChatToolsEffortNone && len(notes) == 2 && len(r.Rejects) == 3 && r.Provider == ""
			}},
		{"temperature refused only above none", codec.OpenAIResponses, "openai",
			join(ok(probeBaseline, probeTemperature, probeTempNone, Effort+"none", Effort+"high"), no(probeTempOn, probeToolsHigh)),
			func(r rules.Rule, _ []string) bool {
				return r.Sampling == rules.SamplingFixedWhenReasoning && r.DefaultEffort == "none" && r.ChatTools == rules.ChatToolsEffortNone
			}},
		{"no reasoning, exclusive sampling, a dialect's provider", codec.OpenAIChat, "deepseek",
			join(ok(probeBaseline, probeTemperature, probeTopP), no(Effort+"medium", probeBoth), []Result{outcome(probeCap, false, "max_tokens is too large: 100000000. This model supports at most 8192 completion tokens")}),
			func(r rules.Rule, _ []string) bool {
				return r.Reasoning == rules.ReasoningNone && r.Sampling == rules.SamplingExclusive && r.Provider == "deepseek" && r.MaxOutput == 8192
			}},
		{"tools only on Responses", codec.OpenAIChat, "openai", join(ok(probeBaseline, Effort+"high"), no(probeToolsNone, probeToolsBare, probeToolsHigh)),
			func(r rules.Rule, _ []string) bool { return r.ChatTools == rules.ChatToolsResponses }},
		{"fixed sampling", codec.OpenAIChat, "openai", join(ok(probeBaseline), no(probeTopP)),
			func(r rules.Rule, _ []string) bool { return r.Sampling == rules.SamplingFixed }},
		{"responses only", codec.OpenAIChat, "openai",
			[]Result{outcome(probeBaseline, false, "This is not a chat model and thus not supported in the v1/chat/completions endpoint. Did you mean to use v1/completions?")},
			func(r rules.Rule, notes []string) bool { return r.ResponsesOnly && len(notes) == 1 }},
		{"anthropic adaptive", codec.AnthropicMessages, "anthropic",
			join(ok(probeBaseline, probeAdaptive, Effort+"low", Effort+"high"), no(probeTemperature, probeDisabled, probeForced, probePrefill)),
			func(r rules.Rule, notes []string) bool {
				return r.Reasoning == rules.ReasoningAdaptive && r.Sampling == rules.SamplingFixed && r.ThinkingOff == rules.ThinkingOffOmit &&
					r.AlwaysThinks && r.NoPrefill && len(notes) == 1
			}},
		{"anthropic budget, exclusive sampling", codec.AnthropicMessages, "anthropic", join(ok(probeBaseline), no(probeAdaptive, probeBoth)),
			func(r rules.Rule, _ []string) bool {
				return r.Reasoning == rules.ReasoningBudget && r.Sampling == rules.SamplingExclusive
			}},
		{"gemini levels only", codec.Gemini, "google",
			join(ok(probeBaseline, probeLevel+"low", probeLevel+"high"), no(probeBudget+"0", probeBudget+"1024", probePrefill), []Result{outcome(probeUnsigned, false, "Function call is missing a thought_signature in functionCall parts.")}),
			func(r rules.Rule, notes []string) bool {
				return r.Reasoning == rules.ReasoningLevel && len(r.Efforts) == 2 && r.AlwaysThinks && r.NoPrefill && r.SignedCalls && len(notes) == 1
			}},
		{"gemini budgets", codec.Gemini, "google", join(ok(probeBaseline, probeBudget+"128", probeBudget+"24576"), no(probeBudget+"1")),
			func(r rules.Rule, notes []string) bool {
				return r.Reasoning == rules.ReasoningBudget && r.BudgetMin == 128 && r.BudgetMax == 24576 && len(notes) == 1 && !r.SignedCalls
			}},
		{"gemini without thinking", codec.Gemini, "google", join(ok(probeBaseline), no(probeBudget+"1024", probeLevel+"low")),
			func(r rules.Rule, _ []string) bool { return r.Reasoning == rules.ReasoningNone }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, notes := Implied(tc.up, tc.provider, "m-1", tc.results)
			if len(r.Models) != 1 || r.Models[0] != "m-1" || r.Verified == "" || len(r.Sources) != 1 {
				t.Errorf("rule header %+v", r)
			}
			if !tc.check(r, notes) {
				t.Errorf("rule %+v, notes %q", r, notes)
			}
		})
	}
}
