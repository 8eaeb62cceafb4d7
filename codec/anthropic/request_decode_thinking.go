package anthropic

import (
	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/jsonx"
	"github.com/llmbridge/llmbridge/codec/internal/wire"
	"github.com/llmbridge/llmbridge/mapping"
	"github.com/tidwall/gjson"
)

// thinking decodes the thinking configuration, the union of
// anthropic-sdk-go's ThinkingConfigParamUnion: enabled {budget_tokens,
// display?} is a thinking budget, adaptive {display?} lets the model decide,
// disabled asks for no reasoning (Effort none). between_tools has no
// canonical meaning (no other protocol can confine thinking to tool
// boundaries), so it is rejected rather than approximated.
func (d *requestDecoder) thinking(v gjson.Result) *codec.Error {
	r := &d.req.Reasoning
	// A repeated key replaces the earlier value, as JSON decoders do.
	r.Budget, r.Adaptive, r.Display, d.thinkingOff = codec.OptInt{}, false, "", false
	if v.Type == gjson.Null {
		return nil
	}
	if !v.IsObject() {
		return wire.WrongType("thinking", "object", v)
	}
	var typ, budget, display gjson.Result
	var other string
	for key, member := range jsonx.Members(v.Raw, &d.req.Text) {
		value := member.Result()
		switch key {
		case "type":
			typ = value
		case "budget_tokens":
			budget = value
		case "display": //field:thinking.display: hint
			display = value
		default:
			if other == "" {
				other = key
			}
		}
	}
	var allowBudget, allowDisplay bool
	switch {
	case !typ.Exists():
		return codec.InvalidRequest("thinking.type", "is required")
	case typ.Type != gjson.String:
		return wire.WrongType("thinking.type", "string", typ)
	case typ.Str == "enabled":
		allowBudget, allowDisplay = true, true
	case typ.Str == "adaptive":
		allowDisplay = true
		r.Adaptive = true
	case typ.Str == "disabled":
		d.thinkingOff = true
	case typ.Str == "between_tools":
		return wire.UnsupportedField("thinking.type", `thinking type "between_tools" has no equivalent in the other protocols`)
	default:
		return codec.InvalidRequest("thinking.type", `must be "enabled", "adaptive", "disabled" or "between_tools"`)
	}
	switch {
	case other != "":
		return wire.UnknownField("thinking." + other)
	case budget.Exists() && !allowBudget:
		return wire.UnknownField("thinking.budget_tokens")
	case display.Exists() && !allowDisplay:
		return wire.UnknownField("thinking.display")
	}
	if allowBudget {
		if !budget.Exists() {
			return codec.InvalidRequest("thinking.budget_tokens", "is required")
		}
		if err := wire.ReadInt(budget, "thinking.budget_tokens", &r.Budget); err != nil {
			return err
		}
		if r.Budget.Value < wire.ClaudeMinBudget {
			return codec.InvalidRequest("thinking.budget_tokens", "must be at least 1024")
		}
	}
	if display.Type != gjson.Null {
		if display.Type != gjson.String {
			return wire.WrongType("thinking.display", "string", display)
		}
		if display.Str != "summarized" && display.Str != "omitted" {
			return codec.InvalidRequest("thinking.display", `must be "summarized" or "omitted"`)
		}
		r.Display = display.Str
	}
	return nil
}

// outputConfig decodes output_config: effort (low, medium, high, xhigh or
// max) and format, Anthropic's structured output ({type:"json_schema",
// schema}).
func (d *requestDecoder) outputConfig(v gjson.Result) *codec.Error {
	// A repeated key replaces the earlier value, as JSON decoders do.
	d.effort, d.req.Format = mapping.EffortUnset, codec.OutputFormat{}
	switch {
	case v.Type == gjson.Null:
		return nil
	case !v.IsObject():
		return wire.WrongType("output_config", "object", v)
	}
	var err *codec.Error
	for key, member := range jsonx.Members(v.Raw, &d.req.Text) {
		value := member.Result()
		switch key {
		case "effort": //field:output_config.effort: mapped
			d.effort, err = wire.ReadEffort(value, "output_config.effort")
		case "format": //field:output_config.format: mapped
			err = d.outputFormat(value)
		default:
			err = wire.UnknownField("output_config." + key)
		}
		if err != nil {
			break
		}
	}
	return err
}

// outputFormat reads output_config.format, a JSON schema the answer must
// follow.
func (d *requestDecoder) outputFormat(v gjson.Result) *codec.Error {
	switch {
	case v.Type == gjson.Null:
		return nil
	case !v.IsObject():
		return wire.WrongType("output_config.format", "object", v)
	}
	var typ, schema gjson.Result
	var other string
	for key, member := range jsonx.Members(v.Raw, &d.req.Text) {
		value := member.Result()
		switch key {
		case "type":
			typ = value
		case "schema":
			schema = value
		default:
			if other == "" {
				other = key
			}
		}
	}
	switch {
	case typ.Type != gjson.String:
		return required("output_config.format.type", typ)
	case typ.Str != "json_schema":
		return codec.InvalidRequest("output_config.format.type", `must be "json_schema"`)
	case other != "":
		return wire.UnknownField("output_config.format." + other)
	case !schema.Exists():
		return codec.InvalidRequest("output_config.format.schema", "is required")
	case !schema.IsObject():
		return wire.WrongType("output_config.format.schema", "object", schema)
	}
	d.req.Format = codec.OutputFormat{Kind: codec.FormatJSONSchema, Schema: schema.Raw}
	return nil
}

// finishReasoning sets Reasoning.Effort from thinking disabled and
// output_config.effort. Disabled thinking is an explicit "no reasoning",
// which the canonical effort says as EffortNone; an output
// effort beside it has no canonical slot left and is recorded as dropped.
func (d *requestDecoder) finishReasoning() {
	r := &d.req.Reasoning
	switch {
	case d.thinkingOff:
		r.Effort = mapping.EffortNone
		if d.effort != mapping.EffortUnset {
			d.req.Dropped = append(d.req.Dropped, "output_config.effort")
		}
	default:
		r.Effort = d.effort
	}
}
