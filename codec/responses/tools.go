package responses

import (
	"strings"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/jsonx"
	"github.com/llmbridge/llmbridge/codec/internal/wire"
	"github.com/tidwall/gjson"
)

// resolveChoiceNamespace finds the namespace group of the tool a named
// choice forces when the choice does not say: a function of that name
// outside any group wins, else the one group that has it. A name that more
// than one group has is ambiguous and a 400; a name no tool has is left
// for the upstream to judge, as for other clients.
func resolveChoiceNamespace(c *codec.ToolChoice, tools []codec.Tool) *codec.Error {
	if c.Mode != codec.ToolChoiceNamed || c.Namespace != "" {
		return nil
	}
	ns, groups := "", 0
	for i := range tools {
		switch t := &tools[i]; {
		case t.Name != c.Name || t.Kind == codec.ToolWebSearch:
		case t.Namespace == "":
			return nil
		case t.Namespace != ns:
			ns = t.Namespace
			groups++
		}
	}
	if groups > 1 {
		return codec.InvalidRequest("tool_choice.name", `names a tool "`+c.Name+`" that more than one namespace has; set tool_choice.namespace`)
	}
	c.Namespace = ns
	return nil
}

// choiceFindsNamespace reports whether resolveChoiceNamespace would find
// the namespace of named choice c from its name alone.
func choiceFindsNamespace(c codec.ToolChoice, tools []codec.Tool) bool {
	found := codec.ToolChoice{Mode: c.Mode, Name: c.Name}
	return resolveChoiceNamespace(&found, tools) == nil && found.Namespace == c.Namespace
}

// decodeToolChoice decodes tool_choice: "auto", "none",
// "required" or {type:function, name}. allowed_tools and the choices of
// hosted, custom and MCP tools name tools that are rejected, so they are
// rejected too.
func decodeToolChoice(v gjson.Result) (codec.ToolChoice, *codec.Error) {
	switch {
	case v.Type == gjson.String:
		switch v.Str {
		case "auto":
			return codec.ToolChoice{Mode: codec.ToolChoiceAuto}, nil
		case "none":
			return codec.ToolChoice{Mode: codec.ToolChoiceNone}, nil
		case "required":
			return codec.ToolChoice{Mode: codec.ToolChoiceRequired}, nil
		}
		return codec.ToolChoice{}, codec.InvalidRequest("tool_choice", `must be "auto", "none", "required" or an object`)
	case !v.IsObject():
		return codec.ToolChoice{}, wire.WrongType("tool_choice", "string or object", v)
	}
	typ := v.Get("type")
	if typ.Type != gjson.String {
		if !typ.Exists() || typ.Type == gjson.Null {
			return codec.ToolChoice{}, codec.InvalidRequest("tool_choice.type", "is required")
		}
		return codec.ToolChoice{}, wire.WrongType("tool_choice.type", "string", typ)
	}
	switch typ.Str {
	case "function":
	case "allowed_tools":
		return codec.ToolChoice{}, wire.UnsupportedField("tool_choice", `tool choice "allowed_tools" is not supported yet`)
	case "custom":
	default:
		return codec.ToolChoice{}, wire.UnsupportedField("tool_choice", `forcing hosted tool "`+typ.Str+`" cannot be translated`)
	}
	var c codec.ToolChoice
	var err *codec.Error
	for key, member := range jsonx.Members(v.Raw, nil) {
		value := member.Result()
		switch key {
		case "type":
		case "name":
			c.Name, err = wire.ReadString(value, "tool_choice.name")
		case "namespace":
			c.Namespace, err = wire.ReadString(value, "tool_choice.namespace")
		default:
			err = wire.UnknownField("tool_choice." + key)
		}
		if err != nil {
			break
		}
	}
	if err == nil && c.Name == "" {
		err = codec.InvalidRequest("tool_choice.name", "is required")
	}
	c.Mode = codec.ToolChoiceNamed
	return c, err
}

// decodeTools decodes the tools: functions, custom (freeform)
// tools, Codex namespace groups (each member function is one canonical
// tool with the group's name in Namespace) and the hosted web search.
// Other hosted tools (file_search, tool_search, computer use, MCP, ...)
// are rejected by type.
func decodeTools(v gjson.Result, req *request) *codec.Error {
	if v.Type == gjson.Null {
		return nil
	}
	if !v.IsArray() {
		return wire.WrongType("tools", "array", v)
	}
	var err *codec.Error
	i := 0
	tools := req.Tools[:0]
	for _, member := range jsonx.Members(v.Raw, &req.Text) {
		tool := member.Result()
		tools, err = decodeTool(tool, wire.IndexPath("tools", i), tools, "", "", req)
		i++
		if err != nil {
			break
		}
	}
	req.Tools = tools
	return err
}

// decodeTool decodes one tool definition at path, appending it to
// tools; ns and nsDesc name the namespace group it is in, if any.
func decodeTool(v gjson.Result, path string, tools []codec.Tool, ns, nsDesc string, req *request) ([]codec.Tool, *codec.Error) {
	a := &req.Text
	var t codec.Tool
	if !v.IsObject() {
		return tools, wire.WrongType(path, "object", v)
	}
	typ := v.Get("type")
	if typ.Type != gjson.String {
		if !typ.Exists() || typ.Type == gjson.Null {
			return tools, codec.InvalidRequest(path+".type", "is required")
		}
		return tools, wire.WrongType(path+".type", "string", typ)
	}
	switch typ.Str {
	case "function":
	case "custom": //field:tools[] (custom): mapped
		t.Kind = codec.ToolCustom
	case "namespace": //field:tools[] (namespace): mapped
		if ns != "" {
			return tools, codec.InvalidRequest(path+".type", "a namespace cannot hold another namespace")
		}
		return decodeNamespace(v, path, tools, req)
	case "web_search", "web_search_preview", "web_search_2025_08_26", "web_search_preview_2025_03_11": //field:tools[] (web_search): capability
		if ns != "" {
			return tools, codec.InvalidRequest(path+".type", "a namespace holds function and custom tools only")
		}
		t, err := decodeWebSearch(v, path, typ.Str, req)
		return append(tools, t), err
	default:
		return tools, wire.UnsupportedField(path, `hosted tool "`+typ.Str+`" cannot be translated (only web_search is); remove the tool or ask the operator to drop it (field `+path+`)`) //field:tools[] (tool_search, file_search, ...): capability
	}
	t.Namespace, t.NamespaceDescription = ns, nsDesc
	var err *codec.Error
	hasName := false
	for key, member := range jsonx.Members(v.Raw, a) {
		value := member.Result()
		switch key {
		case "type":
		case "name":
			t.Name, err = wire.ReadStringAt(value, path, ".name")
			hasName = true
		case "description":
			if value.Type != gjson.Null {
				t.Description, err = wire.ReadStringAt(value, path, ".description")
			}
		case "parameters":
			switch {
			case t.Kind == codec.ToolCustom:
				err = wire.UnknownField(path + ".parameters")
			case value.Type == gjson.Null:
			case value.IsObject():
				t.Parameters = value.Raw
			default:
				err = wire.WrongType(path+".parameters", "object", value)
			}
		case "strict":
			if t.Kind == codec.ToolCustom {
				err = wire.UnknownField(path + ".strict")
			} else if value.Type != gjson.Null {
				t.Strict.Value, err = wire.ReadBool(value, path+".strict")
				t.Strict.Set = true
			}
		case "format":
			if t.Kind != codec.ToolCustom {
				err = wire.UnknownField(path + ".format")
			} else {
				t.Grammar, err = customFormat(value, path+".format")
			}
		case "defer_loading":
			if value.Type != gjson.Null && value.Type != gjson.False {
				err = wire.UnsupportedField(path+".defer_loading", "deferred tool loading (tool search) is not supported")
			}
		default:
			err = wire.UnknownField(path + "." + key)
		}
		if err != nil {
			break
		}
	}
	if err == nil && (!hasName || t.Name == "") {
		err = codec.InvalidRequest(path+".name", "is required")
	}
	return append(tools, t), err
}

// customFormat reads a custom tool's format: text (free text, the
// default) is ""; a grammar is kept as its JSON text.
func customFormat(v gjson.Result, path string) (string, *codec.Error) {
	if v.Type == gjson.Null {
		return "", nil
	}
	if !v.IsObject() {
		return "", wire.WrongType(path, "object", v)
	}
	typ, err := wire.ReadString(v.Get("type"), path+".type")
	if err != nil {
		return "", err
	}
	switch typ {
	case "text":
		var err *codec.Error
		for key := range jsonx.Members(v.Raw, nil) {
			if key != "type" {
				err = wire.UnknownField(path + "." + key)
			}
			if err != nil {
				break
			}
		}
		return "", err
	case "grammar":
		return v.Raw, nil
	}
	return "", codec.InvalidRequest(path+".type", `must be "text" or "grammar"`)
}

// decodeNamespace decodes a Codex namespace group {type:
// "namespace", name, description, tools}: each function or custom tool in
// it is appended as a canonical tool of that namespace.
func decodeNamespace(v gjson.Result, path string, tools []codec.Tool, req *request) ([]codec.Tool, *codec.Error) {
	var name, desc string
	var members gjson.Result
	var err *codec.Error
	for key, member := range jsonx.Members(v.Raw, &req.Text) {
		value := member.Result()
		switch key {
		case "type":
		case "name":
			name, err = wire.ReadStringAt(value, path, ".name")
		case "description":
			if value.Type != gjson.Null {
				desc, err = wire.ReadStringAt(value, path, ".description")
			}
		case "tools":
			members = value
		default:
			err = wire.UnknownField(path + "." + key)
		}
		if err != nil {
			break
		}
	}
	switch {
	case err != nil:
		return tools, err
	case name == "":
		return tools, codec.InvalidRequest(path+".name", "is required")
	case !members.IsArray():
		if !members.Exists() || members.Type == gjson.Null {
			return tools, codec.InvalidRequest(path+".tools", "is required")
		}
		return tools, wire.WrongType(path+".tools", "array", members)
	}
	j := 0
	for _, member := range jsonx.Members(members.Raw, &req.Text) {
		m := member.Result()
		tools, err = decodeTool(m, wire.IndexPath(path+".tools", j), tools, name, desc, req)
		j++
		if err != nil {
			break
		}
	}
	return tools, err
}

// decodeWebSearch decodes the hosted web search tool (web_search
// or web_search_preview, and their dated names): its domain filter, user
// location and context size. external_web_access false (cached results
// only) and search_content_types change what is found and have no
// equivalent elsewhere.
func decodeWebSearch(v gjson.Result, path, typ string, req *request) (codec.Tool, *codec.Error) {
	t := codec.Tool{Kind: codec.ToolWebSearch, Name: "web_search", Source: path}
	w := &t.WebSearch
	w.Preview = strings.HasPrefix(typ, "web_search_preview")
	var err *codec.Error
	for key, member := range jsonx.Members(v.Raw, &req.Text) {
		value := member.Result()
		p := path + "." + key
		switch key {
		case "type":
		case "filters":
			if w.Preview {
				err = wire.UnknownField(p)
				break
			}
			err = searchFilters(value, p, w, req)
		case "user_location":
			err = wire.ResponsesUserLocation(value, p, &w.Location)
		case "search_context_size":
			if value.Type == gjson.Null {
				break
			}
			if w.ContextSize, err = wire.ReadString(value, p); err == nil {
				switch w.ContextSize {
				case "low", "medium", "high":
				default:
					err = codec.InvalidRequest(p, `must be "low", "medium" or "high"`)
				}
			}
		case "external_web_access":
			if value.Type != gjson.Null && value.Type != gjson.True {
				if _, err = wire.ReadBool(value, p); err == nil {
					err = wire.UnsupportedField(p, "searching cached results only has no equivalent in other protocols")
				}
			}
		case "search_content_types":
			err = wire.RejectUnlessNull(value, p, "search content types have no equivalent in other protocols")
		default:
			err = wire.UnknownField(p)
		}
		if err != nil {
			break
		}
	}
	return t, err
}

// searchFilters reads web_search filters: allowed_domains.
func searchFilters(v gjson.Result, path string, w *codec.WebSearchOptions, req *request) *codec.Error {
	if v.Type == gjson.Null {
		return nil
	}
	if !v.IsObject() {
		return wire.WrongType(path, "object", v)
	}
	var err *codec.Error
	for key, member := range jsonx.Members(v.Raw, &req.Text) {
		value := member.Result()
		if key != "allowed_domains" {
			err = wire.UnknownField(path + "." + key)
			break
		}
		w.AllowedDomains, err = wire.ReadStringList(value, path+".allowed_domains", false, w.AllowedDomains, &req.Text)
		if err != nil {
			break
		}
	}
	return err
}

// appendTools appends tools, tool_choice and parallel_tool_calls.
// strict is always written: Responses treats a function without it as
// strict, while an unset canonical Strict means a plain tool. Without tools
// nothing is written (decoders keep no choice without tools). Functions of
// one namespace are grouped where the first of them stands; the web search
// keeps its options, with max_uses as max_tool_calls (it is the only hosted
// tool, so that limit is its limit).
func appendTools(dst []byte, req *codec.Request) ([]byte, *codec.Error) {
	if len(req.Tools) == 0 {
		return dst, nil
	}
	dst = append(dst, `,"tools":[`...)
	var maxUses codec.OptInt
	n := 0
	for i := range req.Tools {
		t := &req.Tools[i]
		if t.Namespace != "" && namespaceSeen(req.Tools[:i], t.Namespace) {
			continue
		}
		if n > 0 {
			dst = append(dst, ',')
		}
		n++
		switch {
		case t.Kind == codec.ToolWebSearch:
			if err := wire.CheckWebSearchFor(codec.OpenAIResponses, t, i, wire.WebSearchCaps{MaxUses: true, Allowed: !t.WebSearch.Preview, Location: true, ContextSize: true}); err != nil {
				return dst, err
			}
			dst = appendWebSearch(dst, &t.WebSearch)
			if t.WebSearch.MaxUses.Set {
				maxUses = t.WebSearch.MaxUses
			}
		case t.Namespace != "":
			dst = append(dst, `{"type":"namespace","name":`...)
			dst = jsonx.AppendString(dst, t.Namespace)
			dst = append(dst, `,"description":`...)
			dst = jsonx.AppendString(dst, t.NamespaceDescription)
			dst = append(dst, `,"tools":[`...)
			for j, k := i, 0; j < len(req.Tools); j++ {
				if req.Tools[j].Namespace != t.Namespace {
					continue
				}
				if k > 0 {
					dst = append(dst, ',')
				}
				k++
				dst = appendTool(dst, &req.Tools[j])
			}
			dst = append(dst, `]}`...)
		default:
			dst = appendTool(dst, t)
		}
	}
	if maxUses.Set {
		dst = append(dst, `],"max_tool_calls":`...)
		dst = jsonx.AppendInt(dst, maxUses.Value)
	} else {
		dst = append(dst, ']')
	}
	return appendToolChoice(dst, req), nil
}

// namespaceSeen reports whether a tool of namespace ns is among
// tools (its group has been written).
func namespaceSeen(tools []codec.Tool, ns string) bool {
	for i := range tools {
		if tools[i].Namespace == ns {
			return true
		}
	}
	return false
}

// appendTool appends a function or custom tool definition.
func appendTool(dst []byte, t *codec.Tool) []byte {
	if t.Kind == codec.ToolCustom {
		dst = append(dst, `{"type":"custom","name":`...)
		dst = jsonx.AppendString(dst, t.Name)
		if t.Description != "" {
			dst = append(dst, `,"description":`...)
			dst = jsonx.AppendString(dst, t.Description)
		}
		if t.Grammar != "" {
			dst = append(dst, `,"format":`...)
			dst = append(dst, t.Grammar...)
		}
		return append(dst, '}')
	}
	dst = append(dst, `{"type":"function","name":`...)
	dst = jsonx.AppendString(dst, t.Name)
	if t.Description != "" {
		dst = append(dst, `,"description":`...)
		dst = jsonx.AppendString(dst, t.Description)
	}
	dst = append(dst, `,"parameters":`...)
	if t.Parameters != "" {
		dst = append(dst, t.Parameters...)
	} else {
		dst = append(dst, `{"type":"object","properties":{}}`...)
	}
	if t.Strict.Set && t.Strict.Value {
		return append(dst, `,"strict":true}`...)
	}
	return append(dst, `,"strict":false}`...)
}

// appendWebSearch appends a web_search (or web_search_preview)
// tool with its options.
func appendWebSearch(dst []byte, w *codec.WebSearchOptions) []byte {
	if w.Preview {
		dst = append(dst, `{"type":"web_search_preview"`...)
	} else {
		dst = append(dst, `{"type":"web_search"`...)
	}
	if len(w.AllowedDomains) > 0 {
		dst = append(dst, `,"filters":{"allowed_domains":`...)
		dst = jsonx.AppendStringArray(dst, w.AllowedDomains)
		dst = append(dst, '}')
	}
	if !w.Location.IsZero() {
		dst = append(dst, `,"user_location":`...)
		dst = wire.AppendUserLocation(dst, &w.Location)
	}
	if w.ContextSize != "" {
		dst = append(dst, `,"search_context_size":`...)
		dst = jsonx.AppendString(dst, w.ContextSize)
	}
	return append(dst, '}')
}

// appendToolChoice appends tool_choice and parallel_tool_calls.
func appendToolChoice(dst []byte, req *codec.Request) []byte {
	switch req.ToolChoice.Mode {
	case codec.ToolChoiceAuto:
		dst = append(dst, `,"tool_choice":"auto"`...)
	case codec.ToolChoiceNone:
		dst = append(dst, `,"tool_choice":"none"`...)
	case codec.ToolChoiceRequired:
		dst = append(dst, `,"tool_choice":"required"`...)
	case codec.ToolChoiceNamed:
		typ := `,"tool_choice":{"type":"function","name":`
		for i := range req.Tools {
			if t := &req.Tools[i]; t.Kind == codec.ToolCustom && t.Name == req.ToolChoice.Name && t.Namespace == req.ToolChoice.Namespace {
				typ = `,"tool_choice":{"type":"custom","name":`
			}
		}
		dst = append(dst, typ...)
		dst = jsonx.AppendString(dst, req.ToolChoice.Name)
		// The namespace only where the name alone does not find it:
		// Codex itself names the function alone.
		if ns := req.ToolChoice.Namespace; ns != "" && !choiceFindsNamespace(req.ToolChoice, req.Tools) {
			dst = append(dst, `,"namespace":`...)
			dst = jsonx.AppendString(dst, req.ToolChoice.Namespace)
		}
		dst = append(dst, '}')
	}
	if req.ParallelToolCalls.Set {
		if req.ParallelToolCalls.Value {
			dst = append(dst, `,"parallel_tool_calls":true`...)
		} else {
			dst = append(dst, `,"parallel_tool_calls":false`...)
		}
	}
	return dst
}
