package anthropic

import (
	"slices"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/jsonx"
	"github.com/llmbridge/llmbridge/codec/internal/wire"
	"github.com/tidwall/gjson"
)

// tools decodes the tool definitions. Client tools (no type, or type
// "custom") become function tools; Anthropic's server and built-in tools
// (web_search_20250305, bash_20250124, ...) are rejected by type.
func (d *requestDecoder) tools(v gjson.Result) *codec.Error {
	switch {
	case v.Type == gjson.Null:
		return nil
	case !v.IsArray():
		return wire.WrongType("tools", "array", v)
	}
	req := d.req
	req.Tools = slices.Grow(req.Tools, jsonx.CountMembers(v, &d.req.Text))
	i := 0
	var err *codec.Error
	for _, member := range jsonx.Members(v.Raw, &req.Text) {
		t := member.Result()
		var tool codec.Tool
		if tool, err = d.tool(t, i); err != nil {
			break
		}
		req.Tools = append(req.Tools, tool)
		i++
	}
	return err
}

// tool decodes tools[i]. cache_control is a hint and eager_input_streaming
// (fine-grained streaming of the input) changes only how the arguments are
// chunked, so both are recorded as dropped. defer_loading (tool search)
// only keeps a tool's definition out of the context until the model looks
// for it; no other protocol can defer, so the tool is offered up front, the
// same capability, and the flag is recorded as dropped (Claude Code sets it
// on one of its tools). Programmatic calling (allowed_callers) and
// input_examples change what the model sees and are rejected.
func (d *requestDecoder) tool(t gjson.Result, i int) (codec.Tool, *codec.Error) {
	path := wire.IndexPath("tools", i)
	if !t.IsObject() {
		return codec.Tool{}, wire.WrongType(path, "object", t)
	}
	var typ, name, desc, schema, strict gjson.Result
	var hints [3]gjson.Result // cache_control, eager_input_streaming, defer_loading
	var unsupported, unknown string
	for key, member := range jsonx.Members(t.Raw, &d.req.Text) {
		value := member.Result()
		switch key {
		case "type":
			typ = value
		case "name":
			name = value
		case "description":
			desc = value
		case "input_schema":
			schema = value
		case "strict":
			strict = value
		case "cache_control": //field:tools[].cache_control: hint
			hints[0] = value
		case "eager_input_streaming": //field:tools[].eager_input_streaming: hint
			hints[1] = value
		case "defer_loading":
			hints[2] = value
		case "allowed_callers", "input_examples":
			if unsupported == "" && value.Type != gjson.Null {
				unsupported = key
			}
		default:
			if unknown == "" {
				unknown = key
			}
		}
	}
	switch {
	case typ.Type != gjson.Null && typ.Type != gjson.String:
		return codec.Tool{}, wire.WrongType(path+".type", "string", typ)
	case typ.Str == "web_search_20250305": //field:tools[] (web_search_20250305): capability
		return d.webSearchTool(t, path)
	case typ.Str != "" && typ.Str != "custom":
		return codec.Tool{}, wire.UnsupportedField(path+".type", `hosted tool "`+typ.Str+`" cannot be translated (only web_search_20250305 is); remove the tool or ask the operator to drop it (field `+path+`)`) //field:tools[] (bash_20250124, code_execution, ...): capability
	case unknown != "":
		return codec.Tool{}, wire.UnknownField(path + "." + unknown)
	case unsupported != "":
		return codec.Tool{}, wire.UnsupportedField(path+"."+unsupported, "tool "+unsupported+" is not supported yet")
	case name.Type != gjson.String || name.Str == "":
		return codec.Tool{}, required(path+".name", name)
	case desc.Type != gjson.Null && desc.Type != gjson.String:
		return codec.Tool{}, wire.WrongType(path+".description", "string", desc)
	case !schema.Exists():
		return codec.Tool{}, codec.InvalidRequest(path+".input_schema", "is required")
	case !schema.IsObject():
		return codec.Tool{}, wire.WrongType(path+".input_schema", "object", schema)
	}
	tool := codec.Tool{Kind: codec.ToolFunction, Name: name.Str, Description: desc.Str, Parameters: schema.Raw}
	if strict.Type != gjson.Null {
		v, err := wire.ReadBool(strict, path+".strict")
		if err != nil {
			return codec.Tool{}, err
		}
		tool.Strict = codec.OptBool{Value: v, Set: true}
	}
	if hints[0].Type != gjson.Null {
		var err *codec.Error
		if tool.Cache, err = anthropicCache(hints[0], path+".cache_control"); err != nil {
			return codec.Tool{}, err
		}
	}
	if hints[1].Type != gjson.Null {
		if _, err := wire.ReadBool(hints[1], path+".eager_input_streaming"); err != nil {
			return codec.Tool{}, err
		}
		d.req.Dropped = append(d.req.Dropped, path+".eager_input_streaming")
	}
	if hints[2].Type != gjson.Null {
		deferred, err := wire.ReadBool(hints[2], path+".defer_loading")
		if err != nil {
			return codec.Tool{}, err
		}
		if deferred {
			d.req.Dropped = append(d.req.Dropped, path+".defer_loading")
		}
	}
	return tool, nil
}

// webSearchTool decodes the web search server tool {type:
// "web_search_20250305", name: "web_search", max_uses, allowed_domains,
// blocked_domains, user_location, cache_control} at path.
func (d *requestDecoder) webSearchTool(t gjson.Result, path string) (codec.Tool, *codec.Error) {
	tool := codec.Tool{Kind: codec.ToolWebSearch, Name: "web_search", Source: path}
	w := &tool.WebSearch
	var err *codec.Error
	for key, member := range jsonx.Members(t.Raw, &d.req.Text) {
		value := member.Result()
		p := path + "." + key
		switch key {
		case "type":
		case "name":
			var name string
			if name, err = wire.ReadString(value, p); err == nil && name != "web_search" {
				err = codec.InvalidRequest(p, `must be "web_search"`)
			}
		case "max_uses":
			if err = wire.ReadInt(value, p, &w.MaxUses); err == nil && w.MaxUses.Set && w.MaxUses.Value < 1 {
				err = codec.InvalidRequest(p, "must be at least 1")
			}
		case "allowed_domains":
			w.AllowedDomains, err = wire.ReadStringList(value, p, false, nil, &d.req.Text)
		case "blocked_domains":
			w.BlockedDomains, err = wire.ReadStringList(value, p, false, nil, &d.req.Text)
		case "user_location":
			err = wire.ResponsesUserLocation(value, p, &w.Location)
		case "cache_control":
			if value.Type != gjson.Null {
				err = objectHint(d.req, p, value)
			}
		default:
			err = wire.UnknownField(p)
		}
		if err != nil {
			break
		}
	}
	if err == nil && len(w.AllowedDomains) > 0 && len(w.BlockedDomains) > 0 {
		err = codec.InvalidRequest(path, "allowed_domains and blocked_domains cannot both be given")
	}
	return tool, err
}

// toolChoice decodes tool_choice: {type: auto | any | tool | none, name (for
// tool), disable_parallel_tool_use}. disable_parallel_tool_use is the
// inverse of ParallelToolCalls; type none takes no other member.
func (d *requestDecoder) toolChoice(v gjson.Result) *codec.Error {
	switch {
	case v.Type == gjson.Null:
		return nil
	case !v.IsObject():
		return wire.WrongType("tool_choice", "object", v)
	}
	var typ, name, parallel gjson.Result
	var unknown string
	for key, member := range jsonx.Members(v.Raw, &d.req.Text) {
		value := member.Result()
		switch key {
		case "type":
			typ = value
		case "name":
			name = value
		case "disable_parallel_tool_use": //field:tool_choice.disable_parallel_tool_use: hint
			parallel = value
		default:
			if unknown == "" {
				unknown = key
			}
		}
	}
	if typ.Type != gjson.String {
		return required("tool_choice.type", typ)
	}
	c := &d.req.ToolChoice
	switch typ.Str {
	case "auto":
		c.Mode = codec.ToolChoiceAuto
	case "any":
		c.Mode = codec.ToolChoiceRequired
	case "tool":
		if name.Type != gjson.String || name.Str == "" {
			return required("tool_choice.name", name)
		}
		c.Mode, c.Name = codec.ToolChoiceNamed, name.Str
	case "none":
		c.Mode = codec.ToolChoiceNone
	default:
		return codec.InvalidRequest("tool_choice.type", `must be "auto", "any", "tool" or "none"`)
	}
	switch {
	case unknown != "":
		return wire.UnknownField("tool_choice." + unknown)
	case name.Type != gjson.Null && typ.Str != "tool":
		return wire.UnknownField("tool_choice.name")
	case parallel.Type != gjson.Null && typ.Str == "none":
		return wire.UnknownField("tool_choice.disable_parallel_tool_use")
	case parallel.Type == gjson.Null:
		return nil
	}
	disable, err := wire.ReadBool(parallel, "tool_choice.disable_parallel_tool_use")
	if err != nil {
		return err
	}
	d.req.ParallelToolCalls = codec.OptBool{Value: !disable, Set: true}
	return nil
}
