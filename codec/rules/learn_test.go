package rules

import (
	"slices"
	"testing"
)

func TestLearn(t *testing.T) {
	gpt5 := Builtin().Lookup("openai", "gpt-5")
	tests := []struct {
		name, message string
		base          *Rule
		id            string
		check         func(r *Rule) bool
	}{
		{"OpenAI temperature", "Unsupported value: 'temperature' does not support 0.7 with this model. Only the default (1) value is supported.", nil,
			"learned.sampling.fixed", func(r *Rule) bool { return r.Sampling == SamplingFixed }},
		{"OpenAI top_p", "Unsupported parameter: 'top_p' is not supported with this model.", nil,
			"learned.sampling.fixed", func(r *Rule) bool { return r.Sampling == SamplingFixed }},
		{"OpenAI stop, added to the base's", "Unsupported parameter: 'stop' is not supported with this model.", &Rule{Rejects: []string{"presence_penalty"}},
			"learned.stop.unsupported", func(r *Rule) bool { return slices.Equal(r.Rejects, []string{"presence_penalty", "stop"}) }},
		{"OpenAI stop already known", "Unsupported parameter: 'stop' is not supported with this model.", gpt5,
			"learned.stop.unsupported", func(r *Rule) bool { return slices.Equal(r.Rejects, gpt5.Rejects) }},
		{"OpenAI penalties", "Unsupported parameter: 'frequency_penalty' is not supported with this model.", nil,
			"learned.penalties.unsupported", func(r *Rule) bool { return slices.Equal(r.Rejects, []string{"frequency_penalty"}) }},
		{"OpenAI presence penalty", "Unsupported parameter: 'presence_penalty' is not supported with this model.", nil,
			"learned.penalties.unsupported", func(r *Rule) bool { return slices.Equal(r.Rejects, []string{"presence_penalty"}) }},
		{"OpenAI non-reasoning", "Unsupported parameter: 'reasoning.effort' is not supported with this model.", nil,
			"learned.reasoning.unsupported", func(r *Rule) bool { return r.Reasoning == ReasoningNone }},
		{"OpenAI effort values", "Unsupported value: 'reasoning_effort' does not support 'high' with this model. Supported values are: 'medium'.", nil,
			"learned.reasoning_effort.values", func(r *Rule) bool { return slices.Equal(r.Efforts, []string{"medium"}) }},
		{"OpenAI effort values, a longer list", "Unsupported value: 'reasoning_effort' does not support null with this model. Supported values are: 'none', 'low', 'medium', and 'high'.", nil,
			"learned.reasoning_effort.values", func(r *Rule) bool { return slices.Equal(r.Efforts, []string{"none", "low", "medium", "high"}) }},
		{"OpenAI function tools", "Function tools with reasoning_effort are not supported for gpt-5.5 in /v1/chat/completions. To use function tools, use /v1/responses or set reasoning_effort to 'none'.", nil,
			"learned.chat.tools-with-reasoning", func(r *Rule) bool { return r.ChatTools == ChatToolsEffortNone }},
		{"OpenAI max tokens", "max_tokens is too large: 300000. This model supports at most 128000 completion tokens, whereas you provided 300000.", nil,
			"learned.max_tokens.model-cap", func(r *Rule) bool { return r.MaxOutput == 128000 }},
		{"Anthropic max tokens in Bedrock's words", "The model returned the following errors: max_tokens: 64001 > 64000, which is the maximum allowed number of output tokens for claude-sonnet-4-5-20250929", nil,
			"learned.max_tokens.model-cap", func(r *Rule) bool { return r.MaxOutput == 64000 }},
		{"Gemini max output", "Unable to submit request because it has a maxOutputTokens value of 300000 but the supported range is from 1 (inclusive) to 65537 (exclusive). Update the value and try again.", nil,
			"learned.max_tokens.model-cap", func(r *Rule) bool { return r.MaxOutput == 65536 }},
		{"Anthropic exclusive sampling", "`temperature` and `top_p` cannot both be specified for this model. Please use only one.", nil,
			"learned.sampling.temperature-xor-top_p", func(r *Rule) bool { return r.Sampling == SamplingExclusive }},
		{"Anthropic fixed sampling", "`temperature` is deprecated for this model.", nil,
			"learned.sampling.fixed", func(r *Rule) bool { return r.Sampling == SamplingFixed }},
		{"Anthropic adaptive only", `"thinking.type.enabled" is not supported for this model. Use "thinking.type.adaptive" and "output_config.effort" to control thinking behavior.`, nil,
			"learned.thinking.adaptive-only", func(r *Rule) bool { return r.Reasoning == ReasoningAdaptive && len(r.Efforts) == 3 }},
		{"Anthropic disabled", `"thinking.type.disabled" is not supported for this model`, nil,
			"learned.thinking.cannot-disable", func(r *Rule) bool { return r.ThinkingOff == ThinkingOffOmit }},
		{"Anthropic prefill", "This model does not support assistant message prefill. The conversation must end with a user message.", nil,
			"learned.prefill.removed", func(r *Rule) bool { return r.NoPrefill }},
		{"Mistral extra inputs", `[{"type":"extra_forbidden","loc":["body","reasoning_effort"],"msg":"Extra inputs are not permitted","input":"high"}]`, nil,
			"learned.reasoning.unsupported", func(r *Rule) bool { return r.Reasoning == ReasoningNone }},
		{"Gemini budget range", "The thinking_budget is out of range; supported values are integers from 128 to 32768", nil,
			"learned.thinking.budget-range", func(r *Rule) bool { return r.BudgetMin == 128 && r.BudgetMax == 32768 }},
		{"Gemini penalties", "Penalty is not enabled for models/gemini-3.5-flash-lite", nil,
			"learned.penalties.unsupported", func(r *Rule) bool { return slices.Equal(r.Rejects, []string{"presence_penalty", "frequency_penalty"}) }},
		{"Gemini 4 budget", "Thinking budget is not supported for this model. Use thinking level instead.", nil,
			"learned.thinking.level-only", func(r *Rule) bool { return r.Reasoning == ReasoningLevel && len(r.Efforts) == 3 && r.AlwaysThinks }},
		{"Gemini 4 budget, the base's levels", "Thinking budget is not supported for this model. Use thinking level instead.", Builtin().Lookup("google", "gemini-4-neon"),
			"learned.thinking.level-only", func(r *Rule) bool { return slices.Contains(r.Efforts, "xhigh") }},
		{"Gemini thought signature", "Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly.", nil,
			"learned.thought-signature", func(r *Rule) bool { return r.SignedCalls }},
		{"DeepSeek forced tool choice", "Thinking mode does not support this tool_choice", nil,
			"learned.thinking.forced-tool-choice", func(r *Rule) bool { return r.ThinkingOff == ThinkingOffDisabled }},
		{"xAI reasoning effort", "Model grok-4.20-0309-reasoning does not support parameter reasoningEffort.", nil,
			"learned.reasoning.unsupported", func(r *Rule) bool { return r.Reasoning == ReasoningNone }},
		{"xAI presence penalty", "Model grok-4 does not support parameter presencePenalty.", nil,
			"learned.penalties.unsupported", func(r *Rule) bool { return slices.Equal(r.Rejects, []string{"presence_penalty"}) }},
		{"OpenAI not a chat model", "This is not a chat model and thus not supported in the v1/chat/completions endpoint. Did you mean to use v1/completions?", nil,
			"learned.chat.responses-only-model", func(r *Rule) bool { return r.ResponsesOnly }},
		{"Anthropic disabled only at", "output_config.effort 'xhigh' is not supported when thinking is disabled on this model", nil,
			"learned.thinking.disabled-effort", func(r *Rule) bool { return r.ThinkingOff == ThinkingOffDisabled }},
		{"Anthropic between_tools", `Only Claude Sonnet 5.5 accepts "between_tools"`, nil,
			LessonBetweenTools, func(r *Rule) bool { return true }},
		{"generic", "'top_k' is not supported for this model", nil,
			"learned.sampling.fixed", func(r *Rule) bool { return r.Sampling == SamplingFixed }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, ok := Learn(tt.base, tt.message)
			if !ok || l.ID != tt.id || !tt.check(&l.Rule) {
				t.Fatalf("Learn = %+v, %v; want %s", l, ok, tt.id)
			}
			if _, err := Learned("openai", "m", tt.base, &l, "400 "+tt.message); err != nil {
				t.Errorf("Learned: %v", err)
			}
		})
	}
	for _, msg := range []string{"", "Request contains an invalid argument.", "Unsupported parameter: 'model' is not supported with this model.",
		"Unsupported value: 'reasoning_effort' does not support 'x' with this model. Supported values are: none."} {
		if l, ok := Learn(nil, msg); ok {
			t.Errorf("Learn(%q) = %+v, want nothing learned", msg, l)
		}
	}
}

func TestLearned(t *testing.T) {
	base := Builtin().Lookup("openai", "gpt-5.5")
	l, _ := Learn(base, "Unsupported value: 'reasoning_effort' does not support 'medium' with this model. Supported values are: 'low' and 'high'.")
	r, err := Learned("openai", "gpt-5.5-new", base, &l, "400 ...")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(r.Efforts, []string{"low", "high"}) || r.DefaultEffort != "" || r.MaxOutput != base.MaxOutput || r.Sources[0] != "learned from the provider's refusal: 400 ..." {
		t.Errorf("learned rule = %+v", r)
	}
	if !r.globs[0].match("gpt-5.5-new") || r.globs[0].match("gpt-5.5") {
		t.Errorf("the learned rule must match its model only")
	}
	l, _ = Learn(base, "Unsupported parameter: 'reasoning_effort' is not supported with this model.")
	if r, err = Learned("openai", "x", base, &l, ""); err != nil || r.Efforts != nil || r.ChatTools != "" {
		t.Errorf("a non-reasoning model keeps no efforts: %+v, %v", r, err)
	}
}
