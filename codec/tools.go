package codec

import (
	"hash/fnv"
	"strconv"

	"github.com/llmbridge/llmbridge/codec/internal/jsonx"
	"github.com/tidwall/gjson"
)

// This file holds the rules shared by every codec for the tool kinds
// beyond functions:
//
//   - Hosted web search (ToolWebSearch) goes only to upstreams that have
//     it: Responses web_search, Anthropic web_search_20250305, Gemini
//     googleSearch. Toward Chat, or an option the upstream has no
//     equivalent for, the request is rejected with hostedToolError, which
//     names the tool and says how to get rid of it.
//   - Responses custom (freeform) tools (ToolCustom) become a function of
//     the same name with CustomToolParameters toward other protocols; a
//     call's Arguments are {"input": "<raw text>"} in the canonical model
//     (customArguments, customInput).
//   - Codex namespace groups are flattened to FlatToolName toward other
//     protocols and restored for a Responses client by
//     restoreResponsesTool, from the tools of the client's request.

// maxToolName is the longest tool name every provider accepts (OpenAI,
// Anthropic and Gemini all take 64 characters).
const maxToolName = 64

// FlatToolName is the name the function name of Codex namespace ns takes
// toward protocols without tool groups: "<ns>__<name>", with characters
// other than [a-zA-Z0-9_-] replaced by "_" (the set every provider
// accepts). A name longer than 64 characters keeps its first 55 and ends
// with "_" and 8 hex digits of a hash of the whole, so distinct long names
// stay distinct. With ns empty, name is returned unchanged. The way back
// does not parse the name: it compares it with the flat names of the
// request's namespaced tools.
func FlatToolName(ns, name string) string {
	if ns == "" {
		return name
	}
	b := make([]byte, 0, len(ns)+2+len(name))
	for _, s := range [...]string{ns, "__", name} {
		for i := 0; i < len(s); i++ {
			c := s[i]
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
				c = '_'
			}
			b = append(b, c)
		}
	}
	if len(b) > maxToolName {
		h := fnv.New32a()
		h.Write([]byte(ns))
		h.Write([]byte{0})
		h.Write([]byte(name))
		sum := strconv.FormatUint(uint64(h.Sum32()), 16)
		for len(sum) < 8 {
			sum = "0" + sum
		}
		b = append(b[:maxToolName-9], '_')
		b = append(b, sum...)
	}
	return string(b)
}

// toolWireName is the name tool t is declared with toward protocols
// without tool groups.
func toolWireName(t *Tool) string { return FlatToolName(t.Namespace, t.Name) }

// callWireName is the name a tool call or result part carries toward
// protocols without tool groups.
func callWireName(p *Part) string { return FlatToolName(p.Namespace, p.ToolName) }

// hostedToolError rejects a hosted tool (or one of its options, when
// option is not "") that the target protocol cannot run. The message names
// the tool where the client declared it and says how to get rid of it.
//
// It is a capability error about canonical tools[i] (its Param), which
// Request.Drop removes under the lenient policy; the message names the
// tool where the client declared it (Tool.Source).
func hostedToolError(target Protocol, t *Tool, i int, option, why string) *Error {
	path := t.Source
	if path == "" {
		path = indexPath("tools", i)
	}
	what := `hosted tool "` + hostedToolName(t) + `"`
	if option != "" {
		what += " option " + option
	}
	e := invalid(indexPath("tools", i), what+" cannot be translated for the "+string(target)+" upstream: "+why+
		"; remove the tool from the request or ask the operator to drop it (field "+path+")")
	e.Class = ClassCapability
	return e
}

// hostedToolName is the name a hosted tool is known by in errors.
func hostedToolName(t *Tool) string {
	if t.Name != "" {
		return t.Name
	}
	return "web_search"
}

// checkWebSearchFor checks that the options of web search tool t (tools[i])
// can be carried to target, whose search has the options in has. Options
// without an equivalent change which results the model sees, so each is
// rejected rather than dropped; search_context_size "medium" is the
// default and says nothing.
func checkWebSearchFor(target Protocol, t *Tool, i int, has webSearchCaps) *Error {
	w := &t.WebSearch
	switch {
	case w.MaxUses.Set && !has.maxUses:
		return hostedToolError(target, t, i, "max_uses", "the upstream's search has no limit on the number of searches")
	case len(w.AllowedDomains) > 0 && !has.allowed:
		return hostedToolError(target, t, i, "allowed_domains", "the upstream's search cannot be restricted to domains")
	case len(w.BlockedDomains) > 0 && !has.blocked:
		return hostedToolError(target, t, i, "blocked_domains", "the upstream's search cannot exclude domains")
	case !w.Location.IsZero() && !has.location:
		return hostedToolError(target, t, i, "user_location", "the upstream's search takes no user location")
	case w.ContextSize != "" && w.ContextSize != "medium" && !has.contextSize:
		return hostedToolError(target, t, i, "search_context_size", "the upstream's search has no context size setting")
	}
	return nil
}

// webSearchCaps are the web search options a protocol can carry.
type webSearchCaps struct {
	maxUses, allowed, blocked, location, contextSize bool
}

// customArguments returns the canonical arguments of a call of a custom
// tool whose raw input is input: {"input": input}.
func customArguments(input string) string {
	b := make([]byte, 0, len(input)+16)
	b = append(b, `{"input":`...)
	b = jsonx.AppendString(b, input)
	return string(append(b, '}'))
}

// customInput returns the raw input of a custom tool call from its
// canonical arguments: the string member "input" when the arguments have
// one (what customArguments and a model calling the function write),
// else the arguments' text itself, so nothing the model wrote is lost.
func customInput(args string) string {
	if args == "" {
		return ""
	}
	v := gjson.Get(args, "input")
	if v.Type == gjson.String {
		return v.Str
	}
	return args
}

// restoreResponsesTool finds the tool of the client's request that a call
// named name (as the upstream spelled it) is for, when that tool is not a
// plain top-level function: a custom tool, or a function of a namespace
// (named by its flat name). It returns nil for any other name.
func restoreResponsesTool(req *Request, name string) *Tool {
	if req == nil {
		return nil
	}
	for i := range req.Tools {
		t := &req.Tools[i]
		switch {
		case t.Kind == ToolWebSearch:
		case t.Namespace != "":
			if toolWireName(t) == name {
				return t
			}
		case t.Kind == ToolCustom && t.Name == name:
			return t
		}
	}
	return nil
}

// checkFlatNames rejects a request whose flattened tool names collide
// (a namespaced function whose flat name is another tool's name), which
// would make calls ambiguous toward target.
func checkFlatNames(target Protocol, req *Request) *Error {
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
		if t.Kind == ToolWebSearch {
			continue
		}
		n := toolWireName(t)
		if j, dup := seen[n]; dup {
			return invalid(indexPath("tools", i), `tool name "`+n+`" (a namespace function flattened for the `+string(target)+
				` protocol) is also the name of tools[`+strconv.Itoa(j)+`]`)
		}
		seen[n] = i
	}
	return nil
}

// checkCustomFor rejects a custom tool whose grammar the target cannot
// enforce: only an OpenAI upstream constrains a custom tool's input.
func checkCustomFor(target Protocol, t *Tool, i int) *Error {
	if t.Grammar == "" {
		return nil
	}
	e := invalid(indexPath("tools", i)+".format", `custom tool "`+t.Name+`" has a grammar format, which the `+string(target)+
		` upstream cannot enforce (it gets a function with one string parameter); remove the format or use an OpenAI upstream`)
	e.Class = ClassCapability
	return e
}

// functionView returns the function a tool is declared as toward
// protocols without custom tools or groups: its wire name, its
// description (after the group's, for a namespace function), and for a
// custom tool the parameters of CustomToolParameters.
func functionView(t *Tool) (name, desc, params string) {
	params = t.Parameters
	if t.Kind == ToolCustom {
		params = CustomToolParameters
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
