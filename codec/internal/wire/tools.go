package wire

import (
	"strconv"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/jsonx"
	"github.com/tidwall/gjson"
)

// toolWireName is the name tool t is declared with toward protocols
// without tool groups.
func toolWireName(t *codec.Tool) string { return codec.FlatToolName(t.Namespace, t.Name) }

// CallWireName is the name a tool call or result part carries toward
// protocols without tool groups.
func CallWireName(p *codec.Part) string { return codec.FlatToolName(p.Namespace, p.ToolName) }

// HostedToolError rejects a hosted tool (or one of its options, when
// option is not "") that the target protocol cannot run. The message names
// the tool where the client declared it and says how to get rid of it.
//
// It is a capability error about canonical tools[i] (its Param), which
// Request.Drop removes under the lenient policy; the message names the
// tool where the client declared it (Tool.Source).
func HostedToolError(target codec.Protocol, t *codec.Tool, i int, option, why string) *codec.Error {
	path := t.Source
	if path == "" {
		path = IndexPath("tools", i)
	}
	what := `hosted tool "` + hostedToolName(t) + `"`
	if option != "" {
		what += " option " + option
	}
	e := codec.InvalidRequest(IndexPath("tools", i), what+" cannot be translated for the "+string(target)+" upstream: "+why+
		"; remove the tool from the request or ask the operator to drop it (field "+path+")")
	e.Class = codec.ClassCapability
	e.Capability = codec.Capability{Kind: codec.CapTool, Tool: i}
	return e
}

// hostedToolName is the name a hosted tool is known by in errors.
func hostedToolName(t *codec.Tool) string {
	if t.Name != "" {
		return t.Name
	}
	return "web_search"
}

// CheckWebSearchFor checks that the options of web search tool t (tools[i])
// can be carried to target, whose search has the options in has. Options
// without an equivalent change which results the model sees, so each is
// rejected rather than dropped; search_context_size "medium" is the
// default and says nothing.
func CheckWebSearchFor(target codec.Protocol, t *codec.Tool, i int, has WebSearchCaps) *codec.Error {
	w := &t.WebSearch
	switch {
	case w.MaxUses.Set && !has.MaxUses:
		return HostedToolError(target, t, i, "max_uses", "the upstream's search has no limit on the number of searches")
	case len(w.AllowedDomains) > 0 && !has.Allowed:
		return HostedToolError(target, t, i, "allowed_domains", "the upstream's search cannot be restricted to domains")
	case len(w.BlockedDomains) > 0 && !has.Blocked:
		return HostedToolError(target, t, i, "blocked_domains", "the upstream's search cannot exclude domains")
	case !w.Location.IsZero() && !has.Location:
		return HostedToolError(target, t, i, "user_location", "the upstream's search takes no user location")
	case w.ContextSize != "" && w.ContextSize != "medium" && !has.ContextSize:
		return HostedToolError(target, t, i, "search_context_size", "the upstream's search has no context size setting")
	}
	return nil
}

// WebSearchCaps are the web search options a protocol can carry.
type WebSearchCaps struct {
	MaxUses, Allowed, Blocked, Location, ContextSize bool
}

// CustomArguments returns the canonical arguments of a call of a custom
// tool whose raw input is input: {"input": input}.
func CustomArguments(input string) string {
	b := make([]byte, 0, len(input)+16)
	b = append(b, `{"input":`...)
	b = jsonx.AppendString(b, input)
	return string(append(b, '}'))
}

// CustomArgumentsOf is CustomArguments for an input that is the string
// value v of a walk: a literal with escapes that may be copied (valid
// UTF-8, no surrogate escaped) becomes the input member as the client
// wrote it, so that a custom call's input (a patch, whose every newline
// and quote is escaped) is neither unescaped nor escaped again. The
// caller has checked that v is a string.
func CustomArgumentsOf(v jsonx.Value) string {
	if _, ok := CopyableBody(v); ok {
		return `{"input":` + v.Raw + `}`
	}
	return CustomArguments(v.Result().Str)
}

// CustomInput returns the raw input of a custom tool call from its
// canonical arguments: the string member "input" when the arguments have
// one (what customArguments and a model calling the function write),
// else the arguments' text itself, so nothing the model wrote is lost.
func CustomInput(args string) string {
	if args == "" {
		return ""
	}
	v := gjson.Get(args, "input")
	if v.Type == gjson.String {
		return v.Str
	}
	return args
}

// RestoreResponsesTool finds the tool of the client's request that a call
// named name (as the upstream spelled it) is for, when that tool is not a
// plain top-level function: a custom tool, or a function of a namespace
// (named by its flat name). It returns nil for any other name.
func RestoreResponsesTool(req *codec.Request, name string) *codec.Tool {
	if req == nil {
		return nil
	}
	for i := range req.Tools {
		// Any other tool is called by the name the upstream saw.
		if t := &req.Tools[i]; t.RestoredInAnswers() && toolWireName(t) == name {
			return t
		}
	}
	return nil
}

// CheckFlatNames rejects a request whose flattened tool names collide
// (a namespaced function whose flat name is another tool's name), which
// would make calls ambiguous toward target.
func CheckFlatNames(target codec.Protocol, req *codec.Request) *codec.Error {
	grouped := false
	for i := range req.Tools {
		if req.Tools[i].Namespace != "" {
			grouped = true
			break
		}
	}
	if !grouped {
		return nil
	}
	seen := make(map[string]int, len(req.Tools))
	for i := range req.Tools {
		t := &req.Tools[i]
		if t.Kind == codec.ToolWebSearch {
			continue
		}
		n := toolWireName(t)
		if j, dup := seen[n]; dup {
			return codec.InvalidRequest(IndexPath("tools", i), `tool name "`+n+`" (a namespace function flattened for the `+string(target)+
				` protocol) is also the name of tools[`+strconv.Itoa(j)+`]`)
		}
		seen[n] = i
	}
	return nil
}

// CheckCustomFor rejects a custom tool whose grammar the target cannot
// enforce: only an OpenAI upstream constrains a custom tool's input.
func CheckCustomFor(target codec.Protocol, t *codec.Tool, i int) *codec.Error {
	if t.Grammar == "" {
		return nil
	}
	e := codec.InvalidRequest(IndexPath("tools", i)+".format", `custom tool "`+t.Name+`" has a grammar format, which the `+string(target)+
		` upstream cannot enforce (it gets a function with one string parameter); remove the format or use an OpenAI upstream`)
	e.Class = codec.ClassCapability
	e.Capability = codec.Capability{Kind: codec.CapToolGrammar, Tool: i}
	return e
}

// FunctionView returns the function a tool is declared as toward
// protocols without custom tools or groups: its wire name, its
// description (after the group's, for a namespace function), and for a
// custom tool the parameters of CustomToolParameters.
func FunctionView(t *codec.Tool) (name, desc, params string) {
	params = t.Parameters
	if t.Kind == codec.ToolCustom {
		params = codec.CustomToolParameters
	}
	desc = t.Description
	if t.NamespaceDescription != "" {
		if desc == "" {
			desc = t.NamespaceDescription
		} else {
			desc = t.NamespaceDescription + "\n\n" + desc
		}
	}
	return toolWireName(t), desc, params
}
