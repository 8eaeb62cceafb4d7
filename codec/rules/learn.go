package rules

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// A Lesson is what an upstream's refusal of a request taught about its
// model: the rule the refusal names, as the fields of a row that would
// make the request acceptable once Fit applies them.
type Lesson struct {
	// ID names what was learned, as adjustments and metrics name rules
	// ("learned.sampling.fixed").
	ID string
	// Rule holds only the learned fields; the others are zero.
	Rule Rule
	// Param, Value and Why describe the fix of a lesson that Fit does not
	// report as an adjustment, because it is made by the encoder or the
	// body fitting (thought signatures), or because the canonical request
	// cannot hold what the refused body had (an effort beside disabled
	// thinking): the field the retry changes, what it sends ("" for
	// nothing), and why. Empty for a lesson whose fix Fit reports.
	Param, Value, Why string
}

// LessonBetweenTools is the lesson of a refusal of thinking type
// between_tools, which the canonical request cannot hold: the caller
// writes such a body's thinking as adaptive before fitting it.
const LessonBetweenTools = "learned.thinking.between-tools"

// Fix returns the adjustment that reports the fix of a lesson with a
// Param, for model.
func (l *Lesson) Fix(model string) Adjustment {
	return Adjustment{Rule: l.ID, Param: l.Param, Value: l.Value, Why: l.Why + " on " + model}
}

// lessonGrammar is one provider grammar of a refusal that names a setting
// or value a model does not take, and the rule it teaches. Each pattern is
// the provider's own words, from its documentation or public reports.
type lessonGrammar struct {
	re    *regexp.Regexp
	learn func(m []string, base *Rule) (Lesson, bool)
}

// setting teaches the rule of a setting the model refuses, by the name the
// refusal gives it.
func setting(name string, base *Rule) (Lesson, bool) {
	switch name {
	case "temperature", "top_p", "top_k", "topP", "topK":
		return Lesson{ID: "learned.sampling.fixed", Rule: Rule{Sampling: SamplingFixed}}, true
	case "stop", "stop_sequences", "stopSequences":
		return Lesson{ID: "learned.stop.unsupported", Rule: Rule{Rejects: withReject(base, "stop")}}, true
	case "presence_penalty", "presencePenalty":
		return Lesson{ID: "learned.penalties.unsupported", Rule: Rule{Rejects: withReject(base, "presence_penalty")}}, true
	case "frequency_penalty", "frequencyPenalty":
		return Lesson{ID: "learned.penalties.unsupported", Rule: Rule{Rejects: withReject(base, "frequency_penalty")}}, true
	case "reasoning_effort", "reasoning.effort", "reasoning", "reasoningEffort":
		return Lesson{ID: "learned.reasoning.unsupported", Rule: Rule{Reasoning: ReasoningNone}}, true
	}
	return Lesson{}, false
}

// withReject returns base's rejected settings with name added (the Rejects
// of a learned row replace its base's).
func withReject(base *Rule, name string) []string {
	var out []string
	if base != nil {
		out = append(out, base.Rejects...)
	}
	if slices.Contains(out, name) {
		return out
	}
	return append(out, name)
}

// quoted are the single-quoted words of a list ("'none', 'low', and 'high'").
var quoted = regexp.MustCompile(`'([a-z]+)'`)

var lessonGrammars = []lessonGrammar{
	// OpenAI: "Function tools with reasoning_effort are not supported for
	// gpt-5.5 in /v1/chat/completions. To use function tools, use
	// /v1/responses or set reasoning_effort to 'none'." (pipecat-ai/pipecat#4043,
	// charmbracelet/crush#2913).
	{regexp.MustCompile(`Function tools with reasoning_effort are not supported`), func([]string, *Rule) (Lesson, bool) {
		return Lesson{ID: "learned.chat.tools-with-reasoning", Rule: Rule{ChatTools: ChatToolsEffortNone}}, true
	}},
	// OpenAI: "Unsupported value: 'reasoning_effort' does not support
	// 'high' with this model. Supported values are: 'medium'."
	// (egoist/chatwise-releases#1257, livekit/agents#3966).
	{regexp.MustCompile(`Unsupported value: '(reasoning_effort|reasoning\.effort)' does not support .*Supported values are: (.*)`), func(m []string, base *Rule) (Lesson, bool) {
		var efforts []string
		for _, q := range quoted.FindAllStringSubmatch(m[2], -1) {
			efforts = append(efforts, q[1])
		}
		if len(efforts) == 0 {
			return Lesson{}, false
		}
		return Lesson{ID: "learned.reasoning_effort.values", Rule: Rule{Reasoning: ReasoningEffort, Efforts: efforts}}, true
	}},
	// OpenAI: "Unsupported value: 'temperature' does not support 0.7 with
	// this model. Only the default (1) value is supported."
	// (CopilotKit/CopilotKit#7191).
	{regexp.MustCompile(`Unsupported value: '([a-z_.]+)' does not support`), func(m []string, base *Rule) (Lesson, bool) {
		if strings.HasPrefix(m[1], "reasoning") {
			// A value the effort does not take, without the list of
			// those it does: nothing to learn.
			return Lesson{}, false
		}
		return setting(m[1], base)
	}},
	// OpenAI: "Unsupported parameter: 'top_p' is not supported with this
	// model." (lfnovo/open-notebook#107, huggingface/smolagents#1662).
	{regexp.MustCompile(`Unsupported parameter: '([a-z_.]+)'`), func(m []string, base *Rule) (Lesson, bool) {
		return setting(m[1], base)
	}},
	// OpenAI: "max_tokens is too large: 300000. This model supports at
	// most 128000 completion tokens" (ChatGPTNextWeb/NextChat#3195);
	// Anthropic (also inside Bedrock's ValidationException): "max_tokens:
	// 64001 > 64000, which is the maximum allowed number of output tokens
	// for claude-..." (BerriAI/litellm#14785).
	{regexp.MustCompile(`supports at most ([0-9]+) completion tokens|> ([0-9]+), which is the maximum allowed number of output tokens`), func(m []string, base *Rule) (Lesson, bool) {
		n, err := strconv.ParseInt(m[1]+m[2], 10, 64)
		if err != nil || n <= 0 {
			return Lesson{}, false
		}
		return Lesson{ID: "learned.max_tokens.model-cap", Rule: Rule{MaxOutput: n}}, true
	}},
	// Gemini: "maxOutputTokens value of 300000 but the supported range is
	// from 1 (inclusive) to 65537 (exclusive)" (BerriAI/litellm#10548).
	{regexp.MustCompile(`supported range is from 1 \(inclusive\) to ([0-9]+) \(exclusive\)`), func(m []string, base *Rule) (Lesson, bool) {
		n, err := strconv.ParseInt(m[1], 10, 64)
		if err != nil || n <= 1 {
			return Lesson{}, false
		}
		return Lesson{ID: "learned.max_tokens.model-cap", Rule: Rule{MaxOutput: n - 1}}, true
	}},
	// Anthropic: "`temperature` and `top_p` cannot both be specified for
	// this model. Please use only one." (ccbogel/QualCoder#1125).
	{regexp.MustCompile("`temperature` and `top_p` cannot both be specified"), func([]string, *Rule) (Lesson, bool) {
		return Lesson{ID: "learned.sampling.temperature-xor-top_p", Rule: Rule{Sampling: SamplingExclusive}}, true
	}},
	// Anthropic: "`temperature` is deprecated for this model."
	// (BerriAI/litellm#26444).
	{regexp.MustCompile("`(temperature|top_p|top_k)` is deprecated for this model"), func([]string, *Rule) (Lesson, bool) {
		return Lesson{ID: "learned.sampling.fixed", Rule: Rule{Sampling: SamplingFixed}}, true
	}},
	// Anthropic: "\"thinking.type.enabled\" is not supported for this
	// model. Use \"thinking.type.adaptive\" and \"output_config.effort\""
	// (NousResearch/hermes-agent#11137).
	{regexp.MustCompile(`"thinking\.type\.enabled" is not supported for this model`), func(_ []string, base *Rule) (Lesson, bool) {
		efforts := []string{"low", "medium", "high"}
		if base != nil && len(base.Efforts) > 0 {
			efforts = base.Efforts
		}
		return Lesson{ID: "learned.thinking.adaptive-only", Rule: Rule{Reasoning: ReasoningAdaptive, Efforts: efforts}}, true
	}},
	// Anthropic: "\"thinking.type.disabled\" is not supported for this
	// model" (cline/cline#13203).
	{regexp.MustCompile(`"thinking\.type\.disabled" is not supported for this model`), func([]string, *Rule) (Lesson, bool) {
		return Lesson{ID: "learned.thinking.cannot-disable", Rule: Rule{ThinkingOff: ThinkingOffOmit}}, true
	}},
	// Anthropic: "This model does not support assistant message prefill.
	// The conversation must end with a user message."
	// (docs.agentsflare.com's Opus 4.7 page).
	{regexp.MustCompile(`does not support assistant message prefill`), func([]string, *Rule) (Lesson, bool) {
		return Lesson{ID: "learned.prefill.removed", Rule: Rule{NoPrefill: true}}, true
	}},
	// Mistral (422 extra_forbidden): "reasoning_effort: Extra inputs are
	// not permitted" (editor-code-assistant/eca#231).
	{regexp.MustCompile(`reasoning_effort\W+(?:[^.]*\W)?Extra inputs are not permitted|Extra inputs are not permitted\W+(?:[^.]*\W)?reasoning_effort`), func([]string, *Rule) (Lesson, bool) {
		return Lesson{ID: "learned.reasoning.unsupported", Rule: Rule{Reasoning: ReasoningNone}}, true
	}},
	// Gemini: "The thinking_budget is out of range; supported values are
	// integers from 128 to 32768" (RooCodeInc/Roo-Code#4399).
	{regexp.MustCompile(`thinking_budget is out of range; supported values are integers from ([0-9]+) to ([0-9]+)`), func(m []string, base *Rule) (Lesson, bool) {
		lo, err1 := strconv.ParseInt(m[1], 10, 64)
		hi, err2 := strconv.ParseInt(m[2], 10, 64)
		if err1 != nil || err2 != nil || lo > hi {
			return Lesson{}, false
		}
		return Lesson{ID: "learned.thinking.budget-range", Rule: Rule{Reasoning: ReasoningBudget, BudgetMin: lo, BudgetMax: hi}}, true
	}},
	// Gemini: presence and frequency penalties refused by a model
	// ("Penalty is not enabled for models/..."; Gemini 3.5 Flash-Lite's
	// model page).
	{regexp.MustCompile(`(?i)penalty is not (?:enabled|supported)`), func(_ []string, base *Rule) (Lesson, bool) {
		return Lesson{ID: "learned.penalties.unsupported", Rule: Rule{Rejects: withReject(&Rule{Rejects: withReject(base, "presence_penalty")}, "frequency_penalty")}}, true
	}},
	// Gemini 4: "Thinking budget is not supported for this model. Use
	// thinking level instead." (docs.apiyi.com's Gemini 4 Argon page,
	// dev.to/aihubmix's Gemini 4 Neon migration guide).
	{regexp.MustCompile(`Thinking budget is not supported for this model`), func(_ []string, base *Rule) (Lesson, bool) {
		efforts := []string{"low", "medium", "high"}
		if base != nil && base.Reasoning == ReasoningLevel {
			efforts = base.Efforts
		}
		return Lesson{ID: "learned.thinking.level-only", Rule: Rule{Reasoning: ReasoningLevel, Efforts: efforts, AlwaysThinks: true}}, true
	}},
	// Gemini 3 and 4: "Function call is missing a thought_signature in
	// functionCall parts" (ai.google.dev's thought signatures page,
	// docs.apiyi.com's FAQ).
	{regexp.MustCompile(`Function call is missing a thought_signature`), func([]string, *Rule) (Lesson, bool) {
		return Lesson{ID: "learned.thought-signature", Rule: Rule{SignedCalls: true}, Param: "thoughtSignature", Value: "skip_thought_signature_validator",
			Why: "the first function call of each model step carries a thought signature, the documented dummy where it has none,"}, true
	}},
	// DeepSeek V4: "Thinking mode does not support this tool_choice"
	// (deepseek-ai/DeepSeek-V3#1376, BerriAI/litellm#37470).
	{regexp.MustCompile(`Thinking mode does not support this tool_choice`), func([]string, *Rule) (Lesson, bool) {
		return Lesson{ID: "learned.thinking.forced-tool-choice", Rule: Rule{ThinkingOff: ThinkingOffDisabled}}, true
	}},
	// xAI: "Model grok-4.20-0309-reasoning does not support parameter
	// reasoningEffort." (chenyme/grok2api#814); also presencePenalty,
	// frequencyPenalty and stop (lobehub/lobehub#8379).
	{regexp.MustCompile(`does not support parameter ([A-Za-z_]+)`), func(m []string, base *Rule) (Lesson, bool) {
		return setting(m[1], base)
	}},
	// OpenAI: "This is not a chat model and thus not supported in the
	// v1/chat/completions endpoint. Did you mean to use v1/completions?"
	// (SillyTavern/SillyTavern#5212): the model is served by the
	// Responses API only.
	{regexp.MustCompile(`This is not a chat model`), func([]string, *Rule) (Lesson, bool) {
		return Lesson{ID: "learned.chat.responses-only-model", Rule: Rule{ResponsesOnly: true}}, true
	}},
	// Anthropic: "output_config.effort 'xhigh' is not supported when
	// thinking is disabled on this model" (Opus 5 and Haiku 5.5 take
	// disabled thinking only at effort low, medium or high;
	// anthropics/claude-code#79798).
	{regexp.MustCompile(`output_config\.effort '[a-z]+' is not supported when thinking is disabled`), func([]string, *Rule) (Lesson, bool) {
		return Lesson{ID: "learned.thinking.disabled-effort", Rule: Rule{ThinkingOff: ThinkingOffDisabled}, Param: "output_config.effort",
			Why: "thinking.type disabled is taken only without an effort above high"}, true
	}},
	// Anthropic: "Only Claude Sonnet 5.5 accepts \"between_tools\"", and
	// Sonnet 5.5's own refusal of between_tools at effort xhigh or max
	// (platform.claude.com's thinking troubleshooting page): thinking
	// between tools becomes adaptive thinking, which every such model
	// takes.
	{regexp.MustCompile(`between_tools`), func([]string, *Rule) (Lesson, bool) {
		return Lesson{ID: LessonBetweenTools, Why: "thinking.type between_tools is not accepted here; adaptive thinking is"}, true
	}},
	// The generic form of several providers: "'top_k' is not supported
	// for this model", "stop is not supported with this model".
	{regexp.MustCompile("[`'\"]?([a-z_.]+)[`'\"]? is not supported (?:for|with) this model"), func(m []string, base *Rule) (Lesson, bool) {
		return setting(m[1], base)
	}},
}

// Learn reads an upstream's refusal of a request (a 400 or 422 whose
// message is message) for the lesson it teaches about the model whose
// rule is base (nil when the table has none): a setting or value the
// model does not take, in one of the providers' known grammars. It
// reports false for a refusal that names nothing known.
func Learn(base *Rule, message string) (Lesson, bool) {
	if message == "" {
		return Lesson{}, false
	}
	for _, g := range lessonGrammars {
		if m := g.re.FindStringSubmatch(message); m != nil {
			if l, ok := g.learn(m, base); ok {
				return l, true
			}
		}
	}
	return Lesson{}, false
}

// Learned returns the rule of model that base (nil when the table has
// none) becomes with lesson l applied: l's fields over base's, matching
// model exactly, compiled, with sources saying where it was learned. The
// learned row keeps base's provider, or takes provider.
func Learned(provider, model string, base *Rule, l *Lesson, reason string) (*Rule, error) {
	r := l.Rule
	r.Provider, r.Models = provider, []string{model}
	r.Sources = []string{"learned from the provider's refusal: " + strings.TrimSpace(reason)}
	if base != nil {
		r = r.Over(base)
		r.Provider, r.Models = provider, []string{model}
	}
	if r.Reasoning == ReasoningNone {
		// A model that takes no reasoning setting has no efforts either.
		r.Efforts, r.DefaultEffort, r.ChatTools, r.EffortOn = nil, "", ChatToolsAny, ""
	}
	if r.DefaultEffort != "" && !slices.Contains(r.Efforts, r.DefaultEffort) {
		r.DefaultEffort = ""
	}
	if err := r.compile(); err != nil {
		return nil, err
	}
	return &r, nil
}
