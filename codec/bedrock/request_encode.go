package bedrock

import (
	"strings"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/jsonx"
	"github.com/llmbridge/llmbridge/codec/internal/wire"
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
	var cachePlan wire.CachePlan
	var cache *wire.CachePlan
	if target, ok := cacheTarget(wire.EncodeModel(opts, req), opts.Target.Cache); ok {
		cache = wire.PlanCache(req, opts.Cache, target, &cachePlan)
		cache.AutoOnLastBlock(req) // Converse has no top-level breakpoint
	} else if wire.HasBreakpoints(req) {
		req.Dropped = append(req.Dropped, "cache breakpoints (the model takes no cachePoint)")
	}
	start := len(dst)
	dst = append(dst, `{"messages":`...)
	if dst, err = appendConverseMessages(dst, req, cache); err != nil {
		return dst[:start], err
	}
	dst = appendConverseSystem(dst, req, cache)
	dst = appendInferenceConfig(dst, req, &plan)
	if dst, err = appendToolConfig(dst, req, cache); err != nil {
		return dst[:start], err
	}
	dst = appendOutputConfig(dst, req, &plan)
	dst = appendAdditionalFields(dst, &plan, req.TopK)
	wire.DropPromptCache(req)
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

// converseThinkingFields are where Converse takes Claude's thinking
// settings.
var converseThinkingFields = wire.ThinkingFields{Display: "additionalModelRequestFields.thinking.display",
	Budget: "additionalModelRequestFields.thinking.budget_tokens", Effort: "outputConfig.effort", MaxTokens: "inferenceConfig.maxTokens"}

// planThinking converts req.Reasoning toward a Claude model by Claude's
// thinking rules (wire.PlanClaudeThinking), the thinking object going in
// additionalModelRequestFields and the effort in outputConfig.effort.
// Toward a model that is not Claude reasoning has no field: asking for
// none is dropped (the model's default stays), asking for any is a
// capability error.
func planThinking(req *codec.Request, opts *codec.EncodeOptions, claude bool) (wire.ClaudeThinking, *codec.Error) {
	if claude {
		return wire.PlanClaudeThinking(req, opts, codec.Bedrock, &converseThinkingFields)
	}
	r := &req.Reasoning
	if r.Summary != "" {
		req.Dropped = append(req.Dropped, "reasoning.summary")
	}
	plan := wire.ClaudeThinking{MaxTokens: req.MaxTokens}
	switch typ, _ := wire.ThinkingType(r, opts); typ {
	case wire.ThinkingUnset:
		return plan, nil
	case wire.ThinkingDisabled:
		req.Dropped = append(req.Dropped, "reasoning")
		return plan, nil
	}
	return plan, wire.CannotEncode(codec.Bedrock, "reasoning", "reasoning settings toward a model whose fields llmbridge does not know", codec.Capability{})
}

// appendInferenceConfig appends inferenceConfig: max tokens, sampling and
// stop sequences, when any is set.
func appendInferenceConfig(dst []byte, req *codec.Request, plan *wire.ClaudeThinking) []byte {
	if !plan.MaxTokens.Set && !req.Temperature.Set && !req.TopP.Set && len(req.StopSequences) == 0 {
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
	if plan.MaxTokens.Set {
		field(`"maxTokens":`)
		dst = jsonx.AppendInt(dst, plan.MaxTokens.Value)
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
func appendOutputConfig(dst []byte, req *codec.Request, plan *wire.ClaudeThinking) []byte {
	f := &req.Format
	if f.Kind != codec.FormatJSONSchema && plan.Effort == "" {
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
		if plan.Effort != "" {
			dst = append(dst, ',')
		}
	}
	if plan.Effort != "" {
		dst = append(dst, `"effort":`...)
		dst = jsonx.AppendString(dst, plan.Effort)
	}
	return append(dst, '}')
}

// appendAdditionalFields appends additionalModelRequestFields: Claude's
// thinking object and top_k (planThinking and the caller have refused
// them toward other models).
func appendAdditionalFields(dst []byte, plan *wire.ClaudeThinking, topK codec.OptInt) []byte {
	if plan.Type == wire.ThinkingUnset && !topK.Set {
		return dst
	}
	dst = append(dst, `,"additionalModelRequestFields":{`...)
	if plan.Type != wire.ThinkingUnset {
		dst = append(dst, `"thinking":`...)
		dst = wire.AppendThinking(dst, plan)
		if topK.Set {
			dst = append(dst, ',')
		}
	}
	if topK.Set {
		dst = append(dst, `"top_k":`...)
		dst = jsonx.AppendInt(dst, topK.Value)
	}
	return append(dst, '}')
}
