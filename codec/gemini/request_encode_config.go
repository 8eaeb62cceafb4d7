package gemini

import (
	"strconv"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/jsonx"
	"github.com/llmbridge/llmbridge/codec/internal/wire"
	"github.com/llmbridge/llmbridge/mapping"
)

// appendGenerationConfig appends generationConfig with the sampling,
// thinking and output format parameters that are set, and nothing when none
// is. Verbosity is OpenAI's alone and is rejected.
func appendGenerationConfig(dst []byte, req *codec.Request, opts *codec.EncodeOptions) ([]byte, *codec.Error) {
	if req.Verbosity != "" {
		return dst, wire.CannotEncode(codec.Gemini, "verbosity", "output verbosity", codec.Capability{Kind: codec.CapVerbosity})
	}
	start := len(dst)
	dst = append(dst, `,"generationConfig":{`...)
	empty := len(dst)
	if req.MaxTokens.Set {
		dst = appendKey(dst, empty, "maxOutputTokens")
		dst = jsonx.AppendInt(dst, req.MaxTokens.Value)
	}
	if req.Temperature.Set {
		dst = appendKey(dst, empty, "temperature")
		dst = jsonx.AppendFloat(dst, req.Temperature.Value)
	}
	if req.TopP.Set {
		dst = appendKey(dst, empty, "topP")
		dst = jsonx.AppendFloat(dst, req.TopP.Value)
	}
	if req.TopK.Set {
		dst = appendKey(dst, empty, "topK")
		dst = jsonx.AppendInt(dst, req.TopK.Value)
	}
	if len(req.StopSequences) > 0 {
		dst = appendKey(dst, empty, "stopSequences")
		dst = jsonx.AppendStringArray(dst, req.StopSequences)
	}
	if req.Seed.Set {
		dst = appendKey(dst, empty, "seed")
		dst = jsonx.AppendInt(dst, req.Seed.Value)
	}
	if req.PresencePenalty.Set {
		dst = appendKey(dst, empty, "presencePenalty")
		dst = jsonx.AppendFloat(dst, req.PresencePenalty.Value)
	}
	if req.FrequencyPenalty.Set {
		dst = appendKey(dst, empty, "frequencyPenalty")
		dst = jsonx.AppendFloat(dst, req.FrequencyPenalty.Value)
	}
	var err *codec.Error
	if dst, err = appendFormat(dst, empty, req); err != nil {
		return dst, err
	}
	dst = appendThinking(dst, empty, &req.Reasoning, opts)
	if len(dst) == empty {
		return dst[:start], nil
	}
	return append(dst, '}'), nil
}

// appendFormat appends the structured output fields of
// generationConfig: responseMimeType application/json for JSON, with the
// schema as responseJsonSchema (which takes JSON Schema as it is). Gemini
// always constrains output to the schema, so Strict needs nothing; a schema
// has no name there, and its description no slot, which is listed as
// dropped.
func appendFormat(dst []byte, empty int, req *codec.Request) ([]byte, *codec.Error) {
	f := &req.Format
	if f.Kind == codec.FormatText {
		return dst, nil
	}
	if f.Kind == codec.FormatJSONSchema && f.Schema != "" && !jsonx.IsObject(f.Schema) {
		return dst, codec.InvalidRequest("format.schema", "must be a JSON object")
	}
	dst = appendKey(dst, empty, "responseMimeType")
	dst = append(dst, `"application/json"`...)
	if f.Kind == codec.FormatJSONSchema && f.Schema != "" {
		dst = appendKey(dst, empty, "responseJsonSchema")
		dst = append(dst, f.Schema...)
	}
	if f.Description != "" {
		req.Dropped = append(req.Dropped, "format.description")
	}
	return dst, nil
}

// appendThinking appends thinkingConfig for the requested reasoning
// (nothing when nothing was asked for). An explicit effort none
// is thinkingBudget 0; a budget is sent as it is; adaptive thinking is
// Gemini's dynamic budget -1; another effort is its budget from
// opts.EffortBudgets. Thought summaries are asked for (includeThoughts)
// whenever thinking is, unless the client said otherwise: Gemini's own
// includeThoughts, or Anthropic's display "omitted". A Responses summary
// setting alone injects nothing, as it asks for no reasoning by itself.
// Toward a model that takes thinking levels (opts.Target.ThinkingLevel),
// appendThinkingLevel writes the configuration instead.
func appendThinking(dst []byte, empty int, r *codec.Reasoning, opts *codec.EncodeOptions) []byte {
	if opts.Target.ThinkingLevel {
		return appendThinkingLevel(dst, empty, r, opts)
	}
	budget, hasBudget := int64(0), true
	switch {
	case r.Effort == mapping.EffortNone:
	case r.Budget.Set:
		budget = r.Budget.Value
	case r.Adaptive:
		budget = -1
	case r.Effort != mapping.EffortUnset:
		budget = opts.EffortBudgets.Budget(r.Effort)
	default:
		hasBudget = false
	}
	include := r.IncludeThoughts
	switch {
	case include.Set:
	case r.Display == "omitted":
		include = codec.OptBool{Value: false, Set: hasBudget && budget != 0}
	case hasBudget && budget != 0:
		include = codec.OptBool{Value: true, Set: true}
	}
	if !hasBudget && !include.Set {
		return dst
	}
	dst = appendKey(dst, empty, "thinkingConfig")
	dst = append(dst, '{')
	if hasBudget {
		dst = append(dst, `"thinkingBudget":`...)
		dst = jsonx.AppendInt(dst, budget)
	}
	if include.Set {
		if hasBudget {
			dst = append(dst, ',')
		}
		dst = append(dst, `"includeThoughts":`...)
		dst = strconv.AppendBool(dst, include.Value)
	}
	return append(dst, '}')
}

// appendThinkingLevel appends thinkingConfig toward a model that takes
// thinkingLevel (Gemini 3), which is never given a thinkingBudget: the two
// together are rejected. The request's effort is written as its level, or
// else the effort its budget stands for in opts.EffortBudgets (as toward
// Chat, whose reasoning_effort is a level too); efforts above high are
// high, the largest level most models take, except an explicit xhigh, which
// the model rules leave only toward a model that takes it. Adaptive thinking and Gemini's dynamic budget -1
// write no level, which leaves the model's own dynamic default. Thinking off
// (effort none, budget 0) writes no level either, as not every such model
// can stop thinking: which level, if any, the model is asked for instead is
// decided before the request is encoded. Thought summaries are then not
// asked for (includeThoughts false); otherwise includeThoughts follows the
// rules of appendThinking.
func appendThinkingLevel(dst []byte, empty int, r *codec.Reasoning, opts *codec.EncodeOptions) []byte {
	e := r.Effort
	if e == mapping.EffortUnset && r.Budget.Set && !r.Adaptive {
		e = opts.EffortBudgets.Effort(r.Budget.Value)
	}
	dynamic := e == mapping.EffortUnset && (r.Adaptive || r.Budget.Set)
	include := r.IncludeThoughts
	switch {
	case include.Set:
	case e == mapping.EffortNone:
		include = codec.OptBool{Value: false, Set: true}
	case e == mapping.EffortUnset && !dynamic:
	case r.Display == "omitted":
		include = codec.OptBool{Value: false, Set: true}
	default:
		include = codec.OptBool{Value: true, Set: true}
	}
	level := thinkingLevel(e)
	if r.Effort == mapping.EffortXHigh {
		// The model rules leave an effort of xhigh only toward a model
		// that takes that level (Gemini 4 Neon and Hydrogen).
		level = r.Effort.String()
	}
	if level == "" && !include.Set {
		return dst
	}
	dst = appendKey(dst, empty, "thinkingConfig")
	dst = append(dst, '{')
	if level != "" {
		dst = append(dst, `"thinkingLevel":"`...)
		dst = append(dst, level...)
		dst = append(dst, '"')
	}
	if include.Set {
		if level != "" {
			dst = append(dst, ',')
		}
		dst = append(dst, `"includeThoughts":`...)
		dst = strconv.AppendBool(dst, include.Value)
	}
	return append(dst, '}')
}

// thinkingLevel returns the thinkingLevel of a non-zero effort, in
// the lower-case spelling of Google's documentation: xhigh and max are high,
// the largest level. It returns "" for EffortUnset and EffortNone.
func thinkingLevel(e mapping.Effort) string {
	switch e {
	case mapping.EffortMinimal, mapping.EffortLow, mapping.EffortMedium, mapping.EffortHigh:
		return e.String()
	case mapping.EffortXHigh, mapping.EffortMax:
		return mapping.EffortHigh.String()
	}
	return ""
}

// appendKey appends "key": to an object whose first field would start
// at offset empty, with a comma unless it is the first field.
func appendKey(dst []byte, empty int, key string) []byte {
	if len(dst) > empty {
		dst = append(dst, ',')
	}
	dst = append(dst, '"')
	dst = append(dst, key...)
	return append(dst, '"', ':')
}
