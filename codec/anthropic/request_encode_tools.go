package anthropic

import (
	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/jsonx"
	"github.com/llmbridge/llmbridge/codec/internal/wire"
)

// appendTools appends the tool definitions and the tool choice.
// A tool without parameters gets the empty object schema Anthropic
// requires; strict and hosted tools cannot be carried. The parallel switch
// is disable_parallel_tool_use on the choice, so a ParallelToolCalls without
// a choice is written as auto; without tools, or with choice none, it says
// nothing and is not written. A choice of none or auto without tools says
// nothing either, while forcing a tool without tools is an error.
func appendTools(dst []byte, req *codec.Request, p codec.Protocol, cache *wire.CachePlan) ([]byte, *codec.Error) {
	if err := wire.CheckFlatNames(p, req); err != nil {
		return dst, err
	}
	for i := range req.Tools {
		t := &req.Tools[i]
		if t.Kind == codec.ToolWebSearch {
			if p == codec.BedrockAnthropic {
				// Bedrock serves Claude without Anthropic's server tools
				// (Claude Code's Bedrock mode asks for no web search
				// beta, as its Vertex mode does).
				return dst, wire.HostedToolError(p, t, i, "", "Claude on Bedrock has no web search server tool")
			}
			if err := wire.CheckWebSearchFor(p, t, i, wire.WebSearchCaps{MaxUses: true, Allowed: true, Blocked: true, Location: true}); err != nil {
				return dst, err
			}
			if i == 0 {
				dst = append(dst, `,"tools":[`...)
			} else {
				dst = append(dst, ',')
			}
			dst = appendWebSearch(dst, &t.WebSearch)
			continue
		}
		switch {
		case t.Kind == codec.ToolCustom:
			if err := wire.CheckCustomFor(p, t, i); err != nil {
				return dst, err
			}
		case t.Kind != codec.ToolFunction:
			return dst, wire.CannotEncode(p, wire.IndexPath("tools", i), "a hosted tool", codec.Capability{Kind: codec.CapTool, Tool: i})
		case t.Strict.Set && t.Strict.Value:
			return dst, wire.CannotEncode(p, wire.IndexPath("tools", i)+".strict", "strict tool schemas", codec.Capability{Kind: codec.CapToolStrict, Tool: i})
		case t.Name == "":
			return dst, codec.InvalidRequest(wire.IndexPath("tools", i)+".name", "is required")
		case t.Parameters != "" && !isObject(t.Parameters):
			return dst, codec.InvalidRequest(wire.IndexPath("tools", i)+".parameters", "must be a JSON object")
		}
		if i == 0 {
			dst = append(dst, `,"tools":[`...)
		} else {
			dst = append(dst, ',')
		}
		name, desc, params := wire.FunctionView(t)
		dst = append(dst, `{"name":`...)
		dst = jsonx.AppendString(dst, name)
		if desc != "" {
			dst = append(dst, `,"description":`...)
			dst = jsonx.AppendString(dst, desc)
		}
		dst = append(dst, `,"input_schema":`...)
		if emptyObject(params) {
			dst = append(dst, `{"type":"object","properties":{}}`...)
		} else {
			dst = append(dst, params...)
		}
		dst = appendCacheControl(dst, cache.Tool(t))
		dst = append(dst, '}')
	}
	if len(req.Tools) > 0 {
		dst = append(dst, ']')
	}
	c := &req.ToolChoice
	var typ string
	switch c.Mode {
	case codec.ToolChoiceUnset, codec.ToolChoiceAuto:
		typ = "auto"
		if len(req.Tools) == 0 || (c.Mode == codec.ToolChoiceUnset && !req.ParallelToolCalls.Set) {
			return dst, nil
		}
	case codec.ToolChoiceNone:
		if len(req.Tools) == 0 {
			return dst, nil
		}
		return append(dst, `,"tool_choice":{"type":"none"}`...), nil
	case codec.ToolChoiceRequired:
		typ = "any"
	case codec.ToolChoiceNamed:
		if c.Name == "" {
			return dst, codec.InvalidRequest("tool_choice.name", "is required")
		}
		typ = "tool"
	default:
		return dst, wire.CannotEncode(p, "tool_choice", "tool choice mode", codec.Capability{Kind: codec.CapToolChoice})
	}
	if len(req.Tools) == 0 {
		return dst, codec.InvalidRequest("tool_choice", "forces a tool call but no tools are given")
	}
	dst = append(dst, `,"tool_choice":{"type":"`...)
	dst = append(dst, typ...)
	dst = append(dst, '"')
	if c.Mode == codec.ToolChoiceNamed {
		dst = append(dst, `,"name":`...)
		dst = jsonx.AppendString(dst, codec.FlatToolName(c.Namespace, c.Name))
	}
	if req.ParallelToolCalls.Set {
		if req.ParallelToolCalls.Value {
			dst = append(dst, `,"disable_parallel_tool_use":false`...)
		} else {
			dst = append(dst, `,"disable_parallel_tool_use":true`...)
		}
	}
	return append(dst, '}'), nil
}

// appendWebSearch appends the web search server tool with its
// options.
func appendWebSearch(dst []byte, w *codec.WebSearchOptions) []byte {
	dst = append(dst, `{"type":"web_search_20250305","name":"web_search"`...)
	if w.MaxUses.Set {
		dst = append(dst, `,"max_uses":`...)
		dst = jsonx.AppendInt(dst, w.MaxUses.Value)
	}
	if len(w.AllowedDomains) > 0 {
		dst = append(dst, `,"allowed_domains":`...)
		dst = jsonx.AppendStringArray(dst, w.AllowedDomains)
	}
	if len(w.BlockedDomains) > 0 {
		dst = append(dst, `,"blocked_domains":`...)
		dst = jsonx.AppendStringArray(dst, w.BlockedDomains)
	}
	if !w.Location.IsZero() {
		dst = append(dst, `,"user_location":`...)
		dst = wire.AppendUserLocation(dst, &w.Location)
	}
	return append(dst, '}')
}
