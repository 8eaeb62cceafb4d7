package wire

import (
	"strconv"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/jsonx"
	"github.com/llmbridge/llmbridge/mapping"
	"github.com/tidwall/gjson"
)

// Claude's thinking types, as Anthropic's Messages and Claude's fields in
// Bedrock's Converse spell them.
const (
	ThinkingUnset    = ""
	ThinkingDisabled = "disabled"
	ThinkingEnabled  = "enabled"
	ThinkingAdaptive = "adaptive"
)

// ClaudeMinBudget is the smallest thinking budget Claude accepts.
const ClaudeMinBudget = 1024

// ThinkingFields name where a protocol writes Claude's thinking settings,
// for its errors and dropped hints.
type ThinkingFields struct {
	Display, Budget, Effort, MaxTokens string
}

// ClaudeThinking is what a request's reasoning configuration becomes
// toward Claude: the thinking object, the output limit that goes with it
// and the effort beside it.
type ClaudeThinking struct {
	// Type is one of the Thinking constants; Budget is budget_tokens of
	// enabled thinking and Display thinking.display, or "".
	Type    string
	Budget  int64
	Display string
	// MaxTokens is the output limit to write: the client's, or with
	// enabled thinking and none from the client the budget plus the
	// default allowance; unset otherwise.
	MaxTokens codec.OptInt
	// Effort is the effort beside the thinking object, or "".
	Effort string
}

// ThinkingType returns the thinking type, and the budget of enabled
// thinking, that reasoning r asks for: nothing asked (the zero Reasoning,
// or only a Responses summary) is unset, so that the model's default
// stays (some models reject disabled thinking and others force adaptive);
// effort none or a zero budget is disabled; adaptive, or Gemini's dynamic
// budget -1, is adaptive; a budget, or else a non-zero effort converted
// with EffortBudgets, is enabled.
func ThinkingType(r *codec.Reasoning, opts *codec.EncodeOptions) (typ string, budget int64) {
	switch {
	case r.Effort == mapping.EffortNone || (r.Budget.Set && r.Budget.Value == 0):
		return ThinkingDisabled, 0
	case r.Adaptive || (r.Budget.Set && r.Budget.Value < 0):
		return ThinkingAdaptive, 0
	case r.Budget.Set:
		return ThinkingEnabled, r.Budget.Value
	case r.Effort != mapping.EffortUnset:
		return ThinkingEnabled, opts.EffortBudgets.Budget(r.Effort)
	}
	return ThinkingUnset, 0
}

// PlanClaudeThinking converts req.Reasoning for Claude (ThinkingType),
// toward protocol p whose fields f names. Claude chooses how thinking is
// summarised itself, so a summary is dropped, and a display without
// thinking too. Gemini's includeThoughts false (reasoning whose text is
// not returned) is display omitted. An effort given beside a budget or
// adaptive thinking (an Anthropic client's output_config.effort) is the
// effort. Claude wants budget_tokens of at least 1024 and below the
// output limit: a client limit at or under the budget lowers the budget
// to the limit less one when that stays at least 1024 (the client's output
// limit is the harder promise) and is refused otherwise; without a client
// limit the default allowance comes on top of the budget, so thinking
// cannot eat the whole answer.
func PlanClaudeThinking(req *codec.Request, opts *codec.EncodeOptions, p codec.Protocol, f *ThinkingFields) (ClaudeThinking, *codec.Error) {
	r := &req.Reasoning
	plan := ClaudeThinking{MaxTokens: req.MaxTokens}
	plan.Type, plan.Budget = ThinkingType(r, opts)
	if r.Summary != "" {
		req.Dropped = append(req.Dropped, "reasoning.summary")
	}
	if plan.Type == ThinkingUnset || plan.Type == ThinkingDisabled {
		if r.Display != "" {
			req.Dropped = append(req.Dropped, f.Display)
		}
		return plan, nil
	}
	plan.Display = r.Display
	if plan.Display == "" && r.IncludeThoughts.Set && !r.IncludeThoughts.Value {
		plan.Display = "omitted"
	}
	if r.Effort > mapping.EffortNone && (r.Adaptive || r.Budget.Set) {
		switch r.Effort {
		case mapping.EffortLow, mapping.EffortMedium, mapping.EffortHigh, mapping.EffortXHigh, mapping.EffortMax:
			plan.Effort = r.Effort.String()
		default:
			return plan, CannotEncode(p, f.Effort, "reasoning effort "+r.Effort.String(), codec.Capability{Kind: codec.CapEffort})
		}
	}
	if plan.Type != ThinkingEnabled {
		return plan, nil
	}
	if plan.Budget < ClaudeMinBudget {
		return plan, CannotEncode(p, f.Budget, "a thinking budget of "+strconv.FormatInt(plan.Budget, 10)+" tokens (Claude's smallest is 1024)", codec.Capability{})
	}
	switch {
	case !req.MaxTokens.Set:
		plan.MaxTokens = codec.OptInt{Value: plan.Budget + EncodeMaxTokens(opts, req), Set: true}
	case req.MaxTokens.Value > plan.Budget:
	case req.MaxTokens.Value-1 >= ClaudeMinBudget:
		plan.Budget = req.MaxTokens.Value - 1
	default:
		return plan, CannotEncode(p, f.MaxTokens, "thinking with "+f.MaxTokens+" "+strconv.FormatInt(req.MaxTokens.Value, 10)+
			" (Claude needs "+f.MaxTokens+" above the thinking budget, which is at least 1024)", codec.Capability{})
	}
	return plan, nil
}

// AppendThinking appends plan's thinking object ({"type":…}, with the
// budget of enabled thinking and the display); plan.Type is not
// ThinkingUnset.
func AppendThinking(dst []byte, plan *ClaudeThinking) []byte {
	dst = append(dst, `{"type":"`...)
	dst = append(dst, plan.Type...)
	dst = append(dst, '"')
	if plan.Type == ThinkingEnabled {
		dst = append(dst, `,"budget_tokens":`...)
		dst = jsonx.AppendInt(dst, plan.Budget)
	}
	if plan.Display != "" {
		dst = append(dst, `,"display":`...)
		dst = jsonx.AppendString(dst, plan.Display)
	}
	return append(dst, '}')
}

// ReadEffort reads an effort member at path (Anthropic's
// output_config.effort, Converse's outputConfig.effort): low, medium,
// high, xhigh or max; null is no effort.
func ReadEffort(v gjson.Result, path string) (mapping.Effort, *codec.Error) {
	switch {
	case v.Type == gjson.Null:
		return mapping.EffortUnset, nil
	case v.Type != gjson.String:
		return mapping.EffortUnset, WrongType(path, "string", v)
	}
	switch v.Str {
	case "low", "medium", "high", "xhigh", "max":
		e, _ := mapping.ParseEffort(v.Str)
		return e, nil
	}
	return mapping.EffortUnset, codec.InvalidRequest(path, `must be "low", "medium", "high", "xhigh" or "max"`)
}
