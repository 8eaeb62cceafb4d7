package bedrock

import (
	"strconv"
	"strings"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/jsonx"
	"github.com/llmbridge/llmbridge/codec/internal/wire"
	"github.com/llmbridge/llmbridge/mapping"
)

// appendConverseRequest appends req as a Converse request body. The model
// goes in the path, not the body; it is read here only to choose the shape
// of additionalModelRequestFields. Fields are written only when set.
func appendConverseRequest(dst []byte, req *codec.Request, opts *codec.EncodeOptions) ([]byte, *codec.Error) {
	const p = codec.Bedrock
	switch {
	case req.PresencePenalty.Set:
		return dst, wire.CannotEncode(p, "presence_penalty", "presence_penalty", codec.Capability{Kind: codec.CapPresencePenalty})
	case req.FrequencyPenalty.Set:
		return dst, wire.CannotEncode(p, "frequency_penalty", "frequency_penalty", codec.Capability{Kind: codec.CapFrequencyPenalty})
	case req.Verbosity != "":
		return dst, wire.CannotEncode(p, "verbosity", "output verbosity", codec.Capability{Kind: codec.CapVerbosity})
	case req.Format.Kind == codec.FormatJSONObject:
		return dst, wire.CannotEncode(p, "outputConfig.textFormat", "JSON output without a schema (json_object)", codec.Capability{Kind: codec.CapFormat})
	case req.Format.Kind == codec.FormatJSONSchema && !jsonx.IsObject(req.Format.Schema):
		return dst, codec.InvalidRequest("outputConfig.textFormat.structure.jsonSchema.schema", "must be a JSON object")
	}
	claude := isClaudeModel(wire.EncodeModel(opts, req))
	if req.TopK.Set && !claude {
		return dst, wire.CannotEncode(p, "top_k", "top_k toward a model whose fields llmbridge does not know", codec.Capability{Kind: codec.CapTopK})
	}
	plan, err := planThinking(req, opts, claude)
	if err != nil {
		return dst, err
	}
	if err := checkSystem(req); err != nil {
		return dst, err
	}
	start := len(dst)
	dst = append(dst, `{"messages":`...)
	if dst, err = appendConverseMessages(dst, req); err != nil {
		return dst[:start], err
	}
	dst = appendConverseSystem(dst, req)
	dst = appendInferenceConfig(dst, req, &plan)
	if dst, err = appendToolConfig(dst, req); err != nil {
		return dst[:start], err
	}
	dst = appendOutputConfig(dst, req, &plan)
	dst = appendAdditionalFields(dst, &plan)
	// Converse has no seed, no end-user id and no parallel tool switch:
	// each only steers the provider, and is dropped.
	if req.Seed.Set {
		req.Dropped = append(req.Dropped, "seed")
	}
	if req.User != "" {
		req.Dropped = append(req.Dropped, "user")
	}
	if req.ParallelToolCalls.Set {
		req.Dropped = append(req.Dropped, "parallel_tool_calls")
	}
	return append(dst, '}'), nil
}

// isClaudeModel reports whether model, a Bedrock model id, inference
// profile id or ARN, names an Anthropic Claude model: anthropic.claude-*,
// after an optional cross-region prefix (us., eu., apac., global., ...)
// and, for an ARN, after its last '/'. Other vendors' models (and
// application inference profiles, whose ARNs do not say) take none of
// Claude's fields.
func isClaudeModel(model string) bool {
	if i := strings.LastIndexByte(model, '/'); i >= 0 {
		model = model[i+1:]
	}
	if strings.HasPrefix(model, "anthropic.claude") {
		return true
	}
	dot := strings.IndexByte(model, '.')
	return dot > 0 && dot <= len("us-gov") && strings.HasPrefix(model[dot+1:], "anthropic.claude")
}

// Thinking types of Claude's thinking object.
const (
	thinkingUnset    = ""
	thinkingDisabled = "disabled"
	thinkingEnabled  = "enabled"
	thinkingAdaptive = "adaptive"
)

// thinkingPlan is what a request's reasoning configuration becomes toward
// a Claude model on Bedrock: the thinking object of
// additionalModelRequestFields, the maxTokens that goes with it, and
// outputConfig.effort.
type thinkingPlan struct {
	typ       string // one of the thinking constants
	budget    int64  // budget_tokens of enabled thinking
	display   string // thinking.display, or ""
	maxTokens codec.OptInt
	effort    string // outputConfig.effort, or ""
	topK      codec.OptInt
}

// planThinking converts req.Reasoning by the rules the Anthropic encoder
// follows (nothing asked writes nothing; effort none is disabled; adaptive
// or a dynamic budget is adaptive; a budget, or an effort converted with
// EffortBudgets, is enabled, with max tokens above the budget; an effort
// beside a budget or adaptive thinking is outputConfig.effort). Toward a
// model that is not Claude reasoning has no field: asking for none is
// dropped (the model's default stays), asking for any is a capability
// error.
func planThinking(req *codec.Request, opts *codec.EncodeOptions, claude bool) (thinkingPlan, *codec.Error) {
	const p = codec.Bedrock
	r := &req.Reasoning
	plan := thinkingPlan{maxTokens: req.MaxTokens, topK: req.TopK}
	switch {
	case r.Effort == mapping.EffortNone || (r.Budget.Set && r.Budget.Value == 0):
		plan.typ = thinkingDisabled
	case r.Adaptive || (r.Budget.Set && r.Budget.Value < 0):
		plan.typ = thinkingAdaptive
	case r.Budget.Set:
		plan.typ, plan.budget = thinkingEnabled, r.Budget.Value
	case r.Effort != mapping.EffortUnset:
		plan.typ, plan.budget = thinkingEnabled, opts.EffortBudgets.Budget(r.Effort)
	}
	if r.Summary != "" {
		req.Dropped = append(req.Dropped, "reasoning.summary")
	}
	switch {
	case plan.typ == thinkingUnset:
		return plan, nil
	case !claude && plan.typ == thinkingDisabled:
		req.Dropped = append(req.Dropped, "reasoning")
		plan.typ = thinkingUnset
		return plan, nil
	case !claude:
		return plan, wire.CannotEncode(p, "reasoning", "reasoning settings toward a model whose fields llmbridge does not know", codec.Capability{})
	case plan.typ == thinkingDisabled:
		return plan, nil
	}
	plan.display = r.Display
	if plan.display == "" && r.IncludeThoughts.Set && !r.IncludeThoughts.Value {
		plan.display = "omitted"
	}
	if r.Effort > mapping.EffortNone && (r.Adaptive || r.Budget.Set) {
		switch r.Effort {
		case mapping.EffortLow, mapping.EffortMedium, mapping.EffortHigh, mapping.EffortXHigh, mapping.EffortMax:
			plan.effort = r.Effort.String()
		default:
			return plan, wire.CannotEncode(p, "outputConfig.effort", "reasoning effort "+r.Effort.String(), codec.Capability{Kind: codec.CapEffort})
		}
	}
	if plan.typ != thinkingEnabled {
		return plan, nil
	}
	if plan.budget < minThinkingBudget {
		return plan, wire.CannotEncode(p, "additionalModelRequestFields.thinking.budget_tokens",
			"a thinking budget of "+strconv.FormatInt(plan.budget, 10)+" tokens (Claude's smallest is 1024)", codec.Capability{})
	}
	switch {
	case !req.MaxTokens.Set:
		plan.maxTokens = codec.OptInt{Value: plan.budget + wire.EncodeMaxTokens(opts, req), Set: true}
	case req.MaxTokens.Value > plan.budget:
	case req.MaxTokens.Value-1 >= minThinkingBudget:
		plan.budget = req.MaxTokens.Value - 1
	default:
		return plan, wire.CannotEncode(p, "inferenceConfig.maxTokens", "thinking with maxTokens "+strconv.FormatInt(req.MaxTokens.Value, 10)+
			" (Claude needs maxTokens above the thinking budget, which is at least 1024)", codec.Capability{})
	}
	return plan, nil
}

// appendInferenceConfig appends inferenceConfig: max tokens, sampling and
// stop sequences, when any is set.
func appendInferenceConfig(dst []byte, req *codec.Request, plan *thinkingPlan) []byte {
	if !plan.maxTokens.Set && !req.Temperature.Set && !req.TopP.Set && len(req.StopSequences) == 0 {
		return dst
	}
	dst = append(dst, `,"inferenceConfig":{`...)
	comma := false
	field := func(name string) {
		if comma {
			dst = append(dst, ',')
		}
		comma = true
		dst = append(dst, name...)
	}
	if plan.maxTokens.Set {
		field(`"maxTokens":`)
		dst = jsonx.AppendInt(dst, plan.maxTokens.Value)
	}
	if req.Temperature.Set {
		field(`"temperature":`)
		dst = jsonx.AppendFloat(dst, req.Temperature.Value)
	}
	if req.TopP.Set {
		field(`"topP":`)
		dst = jsonx.AppendFloat(dst, req.TopP.Value)
	}
	if len(req.StopSequences) > 0 {
		field(`"stopSequences":`)
		dst = jsonx.AppendStringArray(dst, req.StopSequences)
	}
	return append(dst, '}')
}

// appendOutputConfig appends outputConfig: the structured output format
// (its schema as the text of the object, in a string) and the effort of
// the thinking plan.
func appendOutputConfig(dst []byte, req *codec.Request, plan *thinkingPlan) []byte {
	f := &req.Format
	if f.Kind != codec.FormatJSONSchema && plan.effort == "" {
		return dst
	}
	dst = append(dst, `,"outputConfig":{`...)
	if f.Kind == codec.FormatJSONSchema {
		dst = append(dst, `"textFormat":{"type":"json_schema","structure":{"jsonSchema":{"schema":`...)
		dst = jsonx.AppendString(dst, f.Schema)
		if f.Name != "" {
			dst = append(dst, `,"name":`...)
			dst = jsonx.AppendString(dst, f.Name)
		}
		if f.Description != "" {
			dst = append(dst, `,"description":`...)
			dst = jsonx.AppendString(dst, f.Description)
		}
		dst = append(dst, `}}}`...)
		if plan.effort != "" {
			dst = append(dst, ',')
		}
	}
	if plan.effort != "" {
		dst = append(dst, `"effort":`...)
		dst = jsonx.AppendString(dst, plan.effort)
	}
	return append(dst, '}')
}

// appendAdditionalFields appends additionalModelRequestFields: Claude's
// thinking object and top_k (planThinking and the caller have refused
// them toward other models).
func appendAdditionalFields(dst []byte, plan *thinkingPlan) []byte {
	if plan.typ == thinkingUnset && !plan.topK.Set {
		return dst
	}
	dst = append(dst, `,"additionalModelRequestFields":{`...)
	if plan.typ != thinkingUnset {
		dst = append(dst, `"thinking":{"type":"`...)
		dst = append(dst, plan.typ...)
		dst = append(dst, '"')
		if plan.typ == thinkingEnabled {
			dst = append(dst, `,"budget_tokens":`...)
			dst = jsonx.AppendInt(dst, plan.budget)
		}
		if plan.display != "" {
			dst = append(dst, `,"display":`...)
			dst = jsonx.AppendString(dst, plan.display)
		}
		dst = append(dst, '}')
		if plan.topK.Set {
			dst = append(dst, ',')
		}
	}
	if plan.topK.Set {
		dst = append(dst, `"top_k":`...)
		dst = jsonx.AppendInt(dst, plan.topK.Value)
	}
	return append(dst, '}')
}
