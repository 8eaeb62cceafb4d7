package bedrock

import (
	"slices"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/jsonx"
	"github.com/llmbridge/llmbridge/codec/internal/wire"
)

// permissiveSchema is the input schema of a tool declared only because
// the history calls it (see appendToolConfig).
const permissiveSchema = `{"type":"object"}`

// appendToolConfig appends toolConfig: the tool specifications and the
// tool choice.
//
// Bedrock refuses a conversation whose history holds toolUse or
// toolResult blocks without a toolConfig (a ValidationException), while
// clients of other protocols send such histories without tools (a summary
// turn, or a client that declares tools only while it wants them called).
// Each tool the history uses that the request does not declare is
// therefore declared with a permissive {"type":"object"} schema, as
// LiteLLM does: the model sees a tool it may call again, which is what its
// history already says it had.
//
// Converse has no tool choice "none": without tool blocks in the history,
// choice none writes no tools at all, which forbids calls as well; with
// them it cannot be expressed. Strict tools are written with Converse's
// strict flag; hosted tools (web search) have no Converse counterpart.
func appendToolConfig(dst []byte, req *codec.Request, cache *wire.CachePlan) ([]byte, *codec.Error) {
	const p = codec.Bedrock
	if err := wire.CheckFlatNames(p, req); err != nil {
		return dst, err
	}
	for i := range req.Tools {
		t := &req.Tools[i]
		switch {
		case t.Kind == codec.ToolWebSearch:
			return dst, wire.HostedToolError(p, t, i, "", "Converse has no hosted web search")
		case t.Kind == codec.ToolCustom:
			if err := wire.CheckCustomFor(p, t, i); err != nil {
				return dst, err
			}
		case t.Kind != codec.ToolFunction:
			return dst, wire.CannotEncode(p, wire.IndexPath("tools", i), "a hosted tool", codec.Capability{Kind: codec.CapTool, Tool: i})
		case t.Name == "":
			return dst, codec.InvalidRequest(wire.IndexPath("tools", i)+".name", "is required")
		case t.Parameters != "" && !jsonx.IsObject(t.Parameters):
			return dst, codec.InvalidRequest(wire.IndexPath("tools", i)+".parameters", "must be a JSON object")
		}
	}
	used := historyTools(req)
	c := &req.ToolChoice
	switch c.Mode {
	case codec.ToolChoiceNone:
		if used == nil && !hasToolBlocks(req) {
			if len(req.Tools) > 0 {
				req.Dropped = append(req.Dropped, "tools (tool choice none)")
			}
			return dst, nil
		}
		return dst, wire.CannotEncode(p, "tool_choice", "tool choice none with tool calls in the history", codec.Capability{Kind: codec.CapToolChoice})
	case codec.ToolChoiceRequired, codec.ToolChoiceNamed:
		if len(req.Tools) == 0 {
			return dst, codec.InvalidRequest("tool_choice", "forces a tool call but no tools are given")
		}
		if c.Mode == codec.ToolChoiceNamed && c.Name == "" {
			return dst, codec.InvalidRequest("tool_choice.name", "is required")
		}
	}
	if len(req.Tools) == 0 && len(used) == 0 {
		return dst, nil
	}
	dst = append(dst, `,"toolConfig":{"tools":[`...)
	for i := range req.Tools {
		if i > 0 {
			dst = append(dst, ',')
		}
		t := &req.Tools[i]
		name, desc, params := wire.FunctionView(t)
		dst = append(dst, `{"toolSpec":{"name":`...)
		dst = jsonx.AppendString(dst, name)
		if desc != "" {
			dst = append(dst, `,"description":`...)
			dst = jsonx.AppendString(dst, desc)
		}
		dst = append(dst, `,"inputSchema":{"json":`...)
		if params == "" {
			dst = append(dst, `{"type":"object","properties":{}}`...)
		} else {
			dst = append(dst, params...)
		}
		dst = append(dst, '}')
		if t.Strict.Set {
			dst = append(dst, `,"strict":`...)
			if t.Strict.Value {
				dst = append(dst, "true"...)
			} else {
				dst = append(dst, "false"...)
			}
		}
		dst = append(dst, "}}"...)
		dst = appendCachePoint(dst, cache.Tool(t))
	}
	for k, name := range used {
		if k > 0 || len(req.Tools) > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"toolSpec":{"name":`...)
		dst = jsonx.AppendString(dst, name)
		dst = append(dst, `,"inputSchema":{"json":`+permissiveSchema+`}}}`...)
	}
	dst = append(dst, ']')
	switch c.Mode {
	case codec.ToolChoiceAuto:
		dst = append(dst, `,"toolChoice":{"auto":{}}`...)
	case codec.ToolChoiceRequired:
		dst = append(dst, `,"toolChoice":{"any":{}}`...)
	case codec.ToolChoiceNamed:
		dst = append(dst, `,"toolChoice":{"tool":{"name":`...)
		dst = jsonx.AppendString(dst, codec.FlatToolName(c.Namespace, c.Name))
		dst = append(dst, "}}"...)
	}
	return append(dst, '}'), nil
}

// historyTools returns the names of the tools the history's calls and
// results use that the request does not declare, each once, in order of
// first use; nil when there are none.
func historyTools(req *codec.Request) []string {
	var names []string
	for i := range req.Messages {
		m := &req.Messages[i]
		for j := range m.Parts {
			part := &m.Parts[j]
			if (part.Type != codec.PartToolCall && part.Type != codec.PartToolResult) || part.ToolName == "" {
				continue
			}
			name := wire.CallWireName(part)
			if declared(req, name) || slices.Contains(names, name) {
				continue
			}
			names = append(names, name)
		}
	}
	return names
}

// hasToolBlocks reports whether the history holds a tool call or result.
func hasToolBlocks(req *codec.Request) bool {
	for i := range req.Messages {
		for j := range req.Messages[i].Parts {
			if t := req.Messages[i].Parts[j].Type; t == codec.PartToolCall || t == codec.PartToolResult {
				return true
			}
		}
	}
	return false
}

// declared reports whether a tool of the request is declared as name
// (its flat name, as FunctionView writes it).
func declared(req *codec.Request, name string) bool {
	for i := range req.Tools {
		if t := &req.Tools[i]; codec.FlatToolName(t.Namespace, t.Name) == name {
			return true
		}
	}
	return false
}
