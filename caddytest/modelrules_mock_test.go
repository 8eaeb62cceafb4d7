package caddytest

import (
	"fmt"
	"slices"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/rules"
)

// enforceModelRules returns every reject-level rule of model that body, a
// request of upstream protocol p, breaks, each in the words of the
// provider's own 400. The model's facts come from the rule table; the
// checks read the wire body as the provider would, independently of the
// fitting code that should have made the body acceptable.
func enforceModelRules(p proto, model string, body []byte) []string {
	up := codec.Protocol(p)
	if up.Family() == codec.Bedrock {
		// Bedrock holds a Claude model to Anthropic's rules.
		return enforceModelRule(p, model, rules.Builtin().Lookup("anthropic", model), body)
	}
	return enforceModelRule(p, model, rules.Builtin().Lookup(rules.ProviderFor(up, ""), model), body)
}

// enforceModelRule is enforceModelRules with the model's rule r given: the
// table's, or one the mock knows and llmbridge does not (learn_test.go).
func enforceModelRule(p proto, model string, r *rules.Rule, body []byte) []string {
	up := codec.Protocol(p)
	if r == nil {
		r = &rules.Rule{}
	}
	root := gjson.ParseBytes(body)
	var problems []string
	bad := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	// capped refuses an output limit over the model's, in the words of
	// the provider of protocol p's family.
	capped := func(field string, v gjson.Result) {
		if r.MaxOutput <= 0 || !v.Exists() || v.Int() <= r.MaxOutput {
			return
		}
		switch up.Family() {
		case codec.OpenAIChat, codec.OpenAIResponses:
			bad("%s is too large: %d. This model supports at most %d completion tokens, whereas you provided %d.", field, v.Int(), r.MaxOutput, v.Int())
		case codec.Gemini:
			bad("Unable to submit request because it has a maxOutputTokens value of %d but the supported range is from 1 (inclusive) to %d (exclusive). Update the value and try again.", v.Int(), r.MaxOutput+1)
		default:
			bad("%s: %d > %d, which is the maximum allowed number of output tokens for %s", field, v.Int(), r.MaxOutput, model)
		}
	}
	switch up.Family() {
	case codec.Bedrock:
		// Bedrock holds a Claude model to Anthropic's rules, which the
		// mock reads from Converse's own fields.
		if !strings.HasPrefix(bedrockVendorModel(model), "claude-") || bedrockVendorModel(model) == model {
			break
		}
		enforceAnthropic(r, model, converseAsAnthropic(root), bad)
		capped("inferenceConfig.maxTokens", root.Get("inferenceConfig.maxTokens"))
	case codec.AnthropicMessages:
		enforceAnthropic(r, model, root, bad)
		capped("max_tokens", root.Get("max_tokens"))
	case codec.Gemini:
		enforceGemini(up, r, model, root, bad)
		capped("generationConfig.maxOutputTokens", root.Get("generationConfig.maxOutputTokens"))
	case codec.OpenAIChat:
		if r.Provider == "openai" && root.Get("thinking").Exists() {
			bad("Unrecognized request argument supplied: thinking")
		}
		if r.ResponsesOnly {
			bad("This is not a chat model and thus not supported in the v1/chat/completions endpoint. Did you mean to use v1/completions?")
		}
		enforceOpenAI(r, model, root, "reasoning_effort", bad)
		enforceChatTools(r, model, root, bad)
		capped("max_completion_tokens", root.Get("max_completion_tokens"))
	case codec.OpenAIResponses:
		enforceOpenAI(r, model, root, "reasoning.effort", bad)
		capped("max_output_tokens", root.Get("max_output_tokens"))
	}
	return problems
}

func enforceAnthropic(r *rules.Rule, model string, root gjson.Result, bad func(string, ...any)) {
	thinking := root.Get("thinking.type").String()
	// A model that always thinks is held to the thinking rules only where
	// the request turns thinking on: whether its providers enforce them on
	// requests without a thinking setting is not documented. A model that
	// thinks unless thinking is disabled (Sonnet 5, Opus 5) thinks when
	// the request leaves thinking out.
	on := thinking == "enabled" || thinking == "adaptive" || thinking == "" && r.ThinkingOff == rules.ThinkingOffDisabled
	temp, topP, topK := root.Get("temperature"), root.Get("top_p"), root.Get("top_k")
	if temp.Exists() && temp.Float() > 1 {
		bad("temperature: range: 0..1")
	}
	switch thinking {
	case "enabled":
		if r.Reasoning == rules.ReasoningAdaptive {
			bad(`"thinking.type.enabled" is not supported for this model. Use "thinking.type.adaptive" and "output_config.effort"`)
		}
		if b := root.Get("thinking.budget_tokens").Int(); b < 1024 || b >= root.Get("max_tokens").Int() {
			bad("thinking.budget_tokens: %d must be >= 1024 and less than max_tokens", b)
		}
	case "adaptive":
		if r.Reasoning == rules.ReasoningBudget || r.Reasoning == rules.ReasoningNone {
			bad("thinking.type: adaptive thinking is not supported on %s", model)
		}
	case "between_tools":
		e := root.Get("output_config.effort").String()
		switch {
		case !strings.HasPrefix(model, "claude-sonnet-5-5"):
			bad(`thinking.type: Only Claude Sonnet 5.5 accepts "between_tools"; use "adaptive"`)
		case e == "xhigh" || e == "max":
			bad(`thinking.type "between_tools" is not supported with output_config.effort '%s'; use "adaptive"`, e)
		}
	case "disabled":
		if r.Reasoning == rules.ReasoningAdaptive && r.ThinkingOff != rules.ThinkingOffDisabled {
			bad(`"thinking.type.disabled" is not supported for this model`)
		}
		// Opus 5 and Haiku 5.5 take thinking disabled only at effort high
		// or below.
		opus5 := strings.HasPrefix(model, "claude-opus-5") && !strings.HasPrefix(model, "claude-opus-5-5")
		if e := root.Get("output_config.effort").String(); (opus5 || strings.HasPrefix(model, "claude-haiku-5-5")) && (e == "xhigh" || e == "max") {
			bad("output_config.effort '%s' is not supported when thinking is disabled on this model", e)
		}
	}
	// A row that says nothing of reasoning says nothing of efforts either.
	if e := root.Get("output_config.effort"); e.Exists() && r.Reasoning != rules.ReasoningUnknown && !slices.Contains(r.Efforts, e.String()) {
		bad("This model does not support effort level '%s'. Supported levels: %s.", e.String(), strings.Join(r.Efforts, ", "))
	}
	switch r.Sampling {
	case rules.SamplingExclusive:
		if temp.Exists() && topP.Exists() {
			bad("`temperature` and `top_p` cannot both be specified for this model. Please use only one.")
		}
	case rules.SamplingFixed:
		if temp.Exists() && temp.Float() != 1 || topP.Exists() && topP.Float() != 1 || topK.Exists() {
			bad("`temperature` is deprecated for this model.")
		}
	}
	msgs := root.Get("messages").Array()
	endsAssistant := len(msgs) > 0 && msgs[len(msgs)-1].Get("role").String() == "assistant"
	if r.NoPrefill && endsAssistant {
		bad("This model does not support assistant message prefill. The conversation must end with a user message.")
	}
	if !on {
		return
	}
	if temp.Exists() && temp.Float() != 1 || topK.Exists() {
		bad("temperature may only be set to 1 when thinking is enabled or in interleaved thinking mode; top_k is not allowed")
	}
	if topP.Exists() && (topP.Float() < 0.95 || topP.Float() > 1) {
		bad("top_p must be between 0.95 and 1 when thinking is enabled")
	}
	if tc := root.Get("tool_choice.type").String(); tc == "any" || tc == "tool" {
		bad("Thinking may not be enabled when tool_choice forces tool use.")
	}
	if endsAssistant {
		bad("messages: with thinking, the final message must be a user message")
	}
	if n := len(msgs); n >= 2 && msgs[n-1].Get(`content.#(type=="tool_result")`).Exists() {
		last := msgs[n-2]
		if first := last.Get("content.0.type").String(); last.Get(`content.#(type=="tool_use")`).Exists() && first != "thinking" && first != "redacted_thinking" {
			bad("messages.%d.content.0.type: Expected `thinking` or `redacted_thinking`, but found `%s`. When `thinking` is enabled, a final `assistant` message must start with a thinking block", n-2, first)
		}
	}
}

func enforceGemini(up codec.Protocol, r *rules.Rule, model string, root gjson.Result, bad func(string, ...any)) {
	tc := root.Get("generationConfig.thinkingConfig")
	budget, level := tc.Get("thinkingBudget"), tc.Get("thinkingLevel")
	if budget.Exists() && level.Exists() {
		bad("thinking_budget and thinking_level are not supported together.")
	}
	if t := root.Get("generationConfig.temperature"); t.Exists() && t.Float() > 2 {
		bad("temperature: range 0..2")
	}
	switch r.Reasoning {
	case rules.ReasoningNone:
		if budget.Exists() || level.Exists() {
			bad("Thinking is not supported by %s", model)
		}
	case rules.ReasoningBudget:
		if level.Exists() {
			bad("Thinking level is not supported for this model.")
		}
		if b := budget.Int(); budget.Exists() && b != -1 && !(b == 0 && !r.AlwaysThinks) && (b < r.BudgetMin || b > r.BudgetMax) {
			bad("The thinking_budget is out of range; supported values are integers from %d to %d", r.BudgetMin, r.BudgetMax)
		}
	case rules.ReasoningLevel:
		if budget.Exists() && levelOnly(model) {
			bad("Thinking budget is not supported for this model. Use thinking level instead.")
		}
		if level.Exists() && !slices.Contains(r.Efforts, strings.ToLower(level.String())) {
			bad("thinking_level %q is not supported by %s", level.String(), model)
		}
		if budget.Exists() && budget.Int() == 0 {
			bad("thinking cannot be turned off on %s", model)
		}
	}
	for _, rej := range r.Rejects {
		// Gemini 3.5 Flash-Lite: custom penalty values are an error.
		if f := map[string]string{"presence_penalty": "presencePenalty", "frequency_penalty": "frequencyPenalty"}[rej]; f != "" && root.Get("generationConfig."+f).Exists() {
			bad("Invalid JSON payload received. generationConfig.%s is not supported for %s", f, model)
		}
	}
	contents := root.Get("contents").Array()
	if r.NoPrefill && len(contents) > 0 && contents[len(contents)-1].Get("role").String() == "model" {
		bad("Please ensure that the last turn of contents is a user turn: %s takes no trailing model turn", model)
	}
	for i, c := range contents {
		firstCall := true
		for j, part := range c.Get("parts").Array() {
			fc := part.Get("functionCall")
			if up == codec.Vertex && (fc.Get("id").Exists() || part.Get("functionResponse.id").Exists()) {
				bad(`Invalid JSON payload received. Unknown name "id" at 'contents[%d].parts[%d]': Cannot find field.`, i, j)
			}
			if fc.Exists() && firstCall {
				firstCall = false
				if r.SignedCalls && !part.Get("thoughtSignature").Exists() {
					bad("Function call is missing a thought_signature in functionCall parts (contents[%d].parts[%d])", i, j)
				}
			}
		}
	}
}

// levelOnly reports whether a Gemini model refuses thinkingBudget outright
// (Gemini 4 and later), where Gemini 3 takes it for backward
// compatibility.
func levelOnly(model string) bool {
	m := strings.TrimPrefix(model, "models/")
	return strings.HasPrefix(m, "gemini-") && len(m) > len("gemini-") && m[len("gemini-")] >= '4' && m[len("gemini-")] <= '9'
}

// enforceChatTools holds a Chat request with function tools to the
// model's Chat tools rule: gpt-5.4 and later take them only at effort none
// (given, or the model's default), GPT-6 Astra and GPT-6.1 Sol not at all.
func enforceChatTools(r *rules.Rule, model string, root gjson.Result, bad func(string, ...any)) {
	if r.ChatTools == rules.ChatToolsAny || !root.Get(`tools.#(type=="function")`).Exists() {
		return
	}
	effort := root.Get("reasoning_effort").String()
	if effort == "" {
		effort = r.DefaultEffort
	}
	if r.ChatTools == rules.ChatToolsResponses || effort != "" && effort != "none" {
		bad("Function tools with reasoning_effort are not supported for %s in /v1/chat/completions. To use function tools, use /v1/responses or set reasoning_effort to 'none'.", model)
	}
}

func enforceOpenAI(r *rules.Rule, model string, root gjson.Result, effortField string, bad func(string, ...any)) {
	effort := root.Get(effortField)
	if effort.Exists() {
		switch r.Reasoning {
		case rules.ReasoningNone, rules.ReasoningAlways:
			bad("Unsupported parameter: '%s' is not supported with this model.", effortField)
		case rules.ReasoningEffort:
			if !slices.Contains(r.Efforts, effort.String()) {
				bad("Unsupported value: '%s' does not support '%s' with this model. Supported values are: %s.", effortField, effort.String(), openAIList(r.Efforts))
			}
		}
	}
	if t := root.Get("temperature"); t.Exists() && t.Float() > 2 {
		bad("temperature: range 0..2")
	}
	// A model reasons at its default effort when the request sets none.
	eff := effort.String()
	if !effort.Exists() {
		eff = r.DefaultEffort
	}
	fixed := r.Sampling == rules.SamplingFixed ||
		r.Sampling == rules.SamplingFixedWhenReasoning && eff != "" && eff != "none"
	if fixed {
		if t := root.Get("temperature"); t.Exists() && t.Float() != 1 {
			bad("Unsupported value: 'temperature' does not support %v with this model. Only the default (1) value is supported.", t.Float())
		}
		if t := root.Get("top_p"); t.Exists() && t.Float() != 1 {
			bad("Unsupported parameter: 'top_p' is not supported with this model.")
		}
	}
	for _, rej := range r.Rejects {
		if root.Get(rej).Exists() {
			bad("Unsupported parameter: '%s' is not supported with this model.", rej)
		}
	}
}

// openAIList writes values as OpenAI's errors list them: "'medium'",
// "'low' and 'high'", "'none', 'low', 'medium', and 'high'".
func openAIList(values []string) string {
	q := make([]string, len(values))
	for i, v := range values {
		q[i] = "'" + v + "'"
	}
	switch len(q) {
	case 0:
		return ""
	case 1:
		return q[0]
	case 2:
		return q[0] + " and " + q[1]
	}
	return strings.Join(q[:len(q)-1], ", ") + ", and " + q[len(q)-1]
}
