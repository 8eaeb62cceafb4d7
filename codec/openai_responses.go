package codec

import (
	"strconv"
	"strings"
	"time"

	"github.com/llmbridge/llmbridge/codec/internal/jsonx"
	"github.com/llmbridge/llmbridge/mapping"
	"github.com/tidwall/gjson"
)

// This file is the codec of the OpenAI Responses API (POST /v1/responses).
//
// Scope: conversations of text, refusals, reasoning items (summaries and
// encrypted_content, carried between families in continuation envelopes),
// function tools (definitions, tool_choice, parallel_tool_calls,
// function_call and function_call_output items), images (input_image),
// documents (input_file), reasoning settings, structured output
// (text.format), verbosity, custom (freeform) tools, Codex namespace tool
// groups and the hosted web search (tools.go, hosted.go). Other hosted
// tools and audio are rejected by name. Output items llmbridge does not
// translate are kept whole as opaque parts (opaquePart), except those that
// ask the client to act (responsesClientAction), which fail the response.

// responsesRequestDecoder holds what decoding the top-level object collects
// before the conversation can be built: input needs instructions (which may
// come after it in the body) to lay out req.System, and safety_identifier
// only stands in for user when user is absent.
type responsesRequestDecoder struct {
	req              *Request
	input            gjson.Result
	instructions     string
	userSet          bool
	safetyIdentifier string
	safetySet        bool
	toolChoice       gjson.Result // checked once tools are known
	parallel         OptBool      // parallel_tool_calls, kept once tools are known
	maxToolCalls     OptInt       // max_tool_calls, kept once tools are known
}

// decodeResponsesRequest decodes a Responses create-response body. The root
// object is walked once; every key is mapped, recorded as a dropped hint,
// rejected as a capability outside the current scope, or rejected as
// unknown.
func decodeResponsesRequest(root gjson.Result, req *Request) *Error {
	d := responsesRequestDecoder{req: req}
	var err *Error
	jsonx.EachMember(root, &req.text, func(key, value gjson.Result) bool {
		err = d.field(key.Str, value)
		return err == nil
	})
	if err != nil {
		return err
	}
	switch {
	case d.safetySet && !d.userSet:
		// safety_identifier replaces the deprecated user for abuse
		// monitoring, which is what the canonical User is for.
		req.User = d.safetyIdentifier
	case d.safetySet:
		req.Dropped = append(req.Dropped, "safety_identifier")
	}
	if err := d.finishTools(); err != nil {
		return err
	}
	if !d.input.Exists() || d.input.Type == gjson.Null {
		// previous_response_id and prompt, the other sources of a
		// conversation, are rejected, so input is required here.
		return invalid("input", "is required")
	}
	return decodeResponsesInput(d.input, d.instructions, req)
}

// field decodes one top-level key. null means absent for every optional
// field, so a null known field is accepted and ignored.
func (d *responsesRequestDecoder) field(key string, v gjson.Result) *Error {
	req := d.req
	switch key {
	// Mapped fields.
	case "model":
		if v.Type == gjson.Null {
			return nil
		}
		s, err := readString(v, key)
		req.Model = s
		return err
	case "input":
		if v.Type != gjson.Null && v.Type != gjson.String && !v.IsArray() {
			return wrongType(key, "string or array", v)
		}
		d.input = v
	case "instructions":
		if v.Type == gjson.Null {
			return nil
		}
		s, err := readString(v, key)
		// An empty instructions string is "no instructions" (some clients
		// always send the field); an empty system part would be rejected
		// by upstreams such as Anthropic.
		d.instructions = s
		return err
	case "max_output_tokens":
		return readInt(v, key, &req.MaxTokens)
	case "temperature":
		return readFloat(v, key, &req.Temperature)
	case "top_p":
		return readFloat(v, key, &req.TopP)
	case "user":
		if v.Type == gjson.Null {
			return nil
		}
		s, err := readString(v, key)
		req.User, d.userSet = s, s != ""
		return err
	case "safety_identifier":
		if v.Type == gjson.Null {
			return nil
		}
		s, err := readString(v, key)
		d.safetyIdentifier, d.safetySet = s, true
		return err
	case "stream":
		if v.Type == gjson.Null {
			return nil
		}
		b, err := readBool(v, key)
		// Responses streams always end with usage in response.completed.
		req.Stream, req.StreamUsage = b, b
		return err
	case "stream_options":
		return d.streamOptions(v)

	// Hints: they steer the provider, not what the model generates.
	case "store":
		return d.hint(key, v, responsesHintBool)
	case "parallel_tool_calls":
		return readOptBool(v, key, &d.parallel)
	case "metadata", "client_metadata":
		return d.hint(key, v, responsesHintObject)
	case "service_tier", "prompt_cache_key":
		return d.hint(key, v, responsesHintString)
	case "max_tool_calls":
		// Kept until the tools are known (finishTools).
		return readInt(v, key, &d.maxToolCalls)
	case "truncation":
		return d.truncation(v)
	case "include":
		return d.include(v)
	case "tool_choice":
		d.toolChoice = v
	case "tools":
		return decodeResponsesTools(v, req)
	case "text":
		return responsesTextConfig(v, req)
	case "reasoning":
		return d.reasoning(v)
	case "background":
		if v.Type == gjson.Null {
			return nil
		}
		b, err := readBool(v, key)
		if err == nil && b {
			return unsupportedField(key, "background responses are kept on the provider's servers; llmbridge is stateless")
		}
		return err
	case "top_logprobs":
		var n OptInt
		if err := readInt(v, key, &n); err != nil {
			return err
		}
		if n.Value != 0 {
			return unsupportedField(key, "log probabilities are not supported")
		}

	// Capabilities outside the current scope.
	case "previous_response_id", "conversation":
		return rejectUnlessNull(v, key, "server-side conversation state is not supported; send the history in input")
	case "prompt":
		return rejectUnlessNull(v, key, "prompt templates are stored on the provider's servers and cannot be translated")
	case "prompt_cache_retention", "prompt_cache_options":
		return rejectUnlessNull(v, key, "prompt cache lifetimes and modes cannot be guaranteed by other providers")
	case "context_management":
		return rejectUnlessNull(v, key, "server-side context compaction is not supported")
	case "moderation":
		return rejectUnlessNull(v, key, "provider-side moderation of input and output is not supported")
	case "access_programs":
		return rejectUnlessNull(v, key, "access programs are specific to OpenAI")
	case "image":
		return rejectUnlessNull(v, key, "image options are not supported yet")
	default:
		return unknownField(key)
	}
	return nil
}

// responsesHintKind is the JSON type a hint field must have.
type responsesHintKind uint8

const (
	responsesHintBool responsesHintKind = iota
	responsesHintString
	responsesHintObject
	responsesHintInt
)

// checkResponsesHintKind checks that v, which is not null, is of kind k.
func checkResponsesHintKind(v gjson.Result, path string, k responsesHintKind) *Error {
	switch k {
	case responsesHintBool:
		_, err := readBool(v, path)
		return err
	case responsesHintString:
		_, err := readString(v, path)
		return err
	case responsesHintObject:
		if !v.IsObject() {
			return wrongType(path, "object", v)
		}
		return nil
	}
	var n OptInt
	return readInt(v, path, &n)
}

// hint validates a hint field's type and records it as dropped.
func (d *responsesRequestDecoder) hint(path string, v gjson.Result, k responsesHintKind) *Error {
	if v.Type == gjson.Null {
		return nil
	}
	if err := checkResponsesHintKind(v, path, k); err != nil {
		return err
	}
	d.req.Dropped = append(d.req.Dropped, path)
	return nil
}

// streamOptions decodes stream_options, whose only option is a hint.
func (d *responsesRequestDecoder) streamOptions(v gjson.Result) *Error {
	if v.Type == gjson.Null {
		return nil
	}
	if !v.IsObject() {
		return wrongType("stream_options", "object", v)
	}
	var err *Error
	jsonx.EachMember(v, &d.req.text, func(key, value gjson.Result) bool {
		switch key.Str {
		case "include_obfuscation":
			err = d.hint("stream_options.include_obfuscation", value, responsesHintBool)
		default:
			err = unknownField("stream_options." + key.Str)
		}
		return err == nil
	})
	return err
}

// truncation accepts the default "disabled" as a hint; "auto" lets the
// provider drop the start of the conversation, which no other protocol does.
func (d *responsesRequestDecoder) truncation(v gjson.Result) *Error {
	if v.Type == gjson.Null {
		return nil
	}
	s, err := readString(v, "truncation")
	if err != nil {
		return err
	}
	switch s {
	case "disabled":
		d.req.Dropped = append(d.req.Dropped, "truncation")
		return nil
	case "auto":
		return unsupportedField("truncation", `"auto" truncation of the conversation is not supported`)
	}
	return invalid("truncation", `must be "auto" or "disabled"`)
}

// include asks for extra output data. The values are kept in
// Request.Include, where encoders read what they need:
// reasoning.encrypted_content asks for the opaque reasoning state, which a
// Responses upstream is asked for and other upstreams' reasoning is
// returned in anyway (it is never fabricated). The other values ask for
// nothing in a conversation without hosted tools, so when one is present the
// field is listed as dropped; logprobs are a capability.
func (d *responsesRequestDecoder) include(v gjson.Result) *Error {
	if v.Type == gjson.Null {
		return nil
	}
	if !v.IsArray() {
		return wrongType("include", "array of strings", v)
	}
	var err *Error
	n := 0
	hint := false
	include := d.req.Include[:0]
	jsonx.EachMember(v, &d.req.text, func(_, value gjson.Result) bool {
		if value.Type != gjson.String {
			err = wrongType(indexPath("include", n), "string", value)
			return false
		}
		switch value.Str {
		case "reasoning.encrypted_content":
		case "file_search_call.results", "web_search_call.results",
			"web_search_call.action.sources", "message.input_image.image_url",
			"computer_call_output.output.image_url", "code_interpreter_call.outputs":
			hint = true
		case "message.output_text.logprobs":
			err = unsupportedField(indexPath("include", n), "log probabilities are not supported")
		default:
			err = invalid(indexPath("include", n), `unknown include value "`+value.Str+`"`)
		}
		include = append(include, value.Str)
		n++
		return err == nil
	})
	d.req.Include = include
	if err == nil && hint {
		d.req.Dropped = append(d.req.Dropped, "include")
	}
	return err
}

// finishTools decodes tool_choice and parallel_tool_calls once tools are
// known (they may come before tools in the body). Without tools, the choices
// that mean "no tool call" (auto, none) and parallel_tool_calls change
// nothing the model can do: they are recorded as dropped hints, and encoders
// never see a choice without tools. A choice that forces a call needs tools.
func (d *responsesRequestDecoder) finishTools() *Error {
	req := d.req
	v := d.toolChoice
	if v.Exists() && v.Type != gjson.Null {
		c, err := decodeResponsesToolChoice(v)
		if err != nil {
			return err
		}
		switch {
		case len(req.Tools) > 0:
			if err := resolveChoiceNamespace(&c, req.Tools); err != nil {
				return err
			}
			req.ToolChoice = c
		case c.Mode == ToolChoiceAuto || c.Mode == ToolChoiceNone:
			req.Dropped = append(req.Dropped, "tool_choice")
		default:
			return invalid("tool_choice", "forces a tool call, but the request has no tools")
		}
	}
	if d.parallel.Set {
		if len(req.Tools) > 0 {
			req.ParallelToolCalls = d.parallel
		} else {
			req.Dropped = append(req.Dropped, "parallel_tool_calls")
		}
	}
	if d.maxToolCalls.Set {
		// max_tool_calls bounds the calls of hosted tools. The web search
		// is the only hosted tool llmbridge carries, so with one it is
		// that search's limit (Anthropic max_uses); without, it limits
		// nothing.
		search := false
		for i := range req.Tools {
			if req.Tools[i].Kind == ToolWebSearch {
				req.Tools[i].WebSearch.MaxUses = d.maxToolCalls
				search = true
			}
		}
		if !search {
			req.Dropped = append(req.Dropped, "max_tool_calls")
		}
	}
	return nil
}

// resolveChoiceNamespace finds the namespace group of the tool a named
// choice forces when the choice does not say: a function of that name
// outside any group wins, else the one group that has it. A name that more
// than one group has is ambiguous and a 400; a name no tool has is left
// for the upstream to judge, as for other clients.
func resolveChoiceNamespace(c *ToolChoice, tools []Tool) *Error {
	if c.Mode != ToolChoiceNamed || c.Namespace != "" {
		return nil
	}
	ns, groups := "", 0
	for i := range tools {
		switch t := &tools[i]; {
		case t.Name != c.Name || t.Kind == ToolWebSearch:
		case t.Namespace == "":
			return nil
		case t.Namespace != ns:
			ns = t.Namespace
			groups++
		}
	}
	if groups > 1 {
		return invalid("tool_choice.name", `names a tool "`+c.Name+`" that more than one namespace has; set tool_choice.namespace`)
	}
	c.Namespace = ns
	return nil
}

// choiceFindsNamespace reports whether resolveChoiceNamespace would find
// the namespace of named choice c from its name alone.
func choiceFindsNamespace(c ToolChoice, tools []Tool) bool {
	found := ToolChoice{Mode: c.Mode, Name: c.Name}
	return resolveChoiceNamespace(&found, tools) == nil && found.Namespace == c.Namespace
}

// decodeResponsesToolChoice decodes tool_choice: "auto", "none",
// "required" or {type:function, name}. allowed_tools and the choices of
// hosted, custom and MCP tools name tools that are rejected, so they are
// rejected too.
func decodeResponsesToolChoice(v gjson.Result) (ToolChoice, *Error) {
	switch {
	case v.Type == gjson.String:
		switch v.Str {
		case "auto":
			return ToolChoice{Mode: ToolChoiceAuto}, nil
		case "none":
			return ToolChoice{Mode: ToolChoiceNone}, nil
		case "required":
			return ToolChoice{Mode: ToolChoiceRequired}, nil
		}
		return ToolChoice{}, invalid("tool_choice", `must be "auto", "none", "required" or an object`)
	case !v.IsObject():
		return ToolChoice{}, wrongType("tool_choice", "string or object", v)
	}
	typ := v.Get("type")
	if typ.Type != gjson.String {
		if !typ.Exists() || typ.Type == gjson.Null {
			return ToolChoice{}, invalid("tool_choice.type", "is required")
		}
		return ToolChoice{}, wrongType("tool_choice.type", "string", typ)
	}
	switch typ.Str {
	case "function":
	case "allowed_tools":
		return ToolChoice{}, unsupportedField("tool_choice", `tool choice "allowed_tools" is not supported yet`)
	case "custom":
	default:
		return ToolChoice{}, unsupportedField("tool_choice", `forcing hosted tool "`+typ.Str+`" cannot be translated`)
	}
	var c ToolChoice
	var err *Error
	v.ForEach(func(key, value gjson.Result) bool {
		switch key.Str {
		case "type":
		case "name":
			c.Name, err = readString(value, "tool_choice.name")
		case "namespace":
			c.Namespace, err = readString(value, "tool_choice.namespace")
		default:
			err = unknownField("tool_choice." + key.Str)
		}
		return err == nil
	})
	if err == nil && c.Name == "" {
		err = invalid("tool_choice.name", "is required")
	}
	c.Mode = ToolChoiceNamed
	return c, err
}

// decodeResponsesTools decodes the tools: functions, custom (freeform)
// tools, Codex namespace groups (each member function is one canonical
// tool with the group's name in Namespace) and the hosted web search.
// Other hosted tools (file_search, tool_search, computer use, MCP, ...)
// are rejected by type.
func decodeResponsesTools(v gjson.Result, req *Request) *Error {
	if v.Type == gjson.Null {
		return nil
	}
	if !v.IsArray() {
		return wrongType("tools", "array", v)
	}
	var err *Error
	i := 0
	tools := req.Tools[:0]
	jsonx.EachMember(v, &req.text, func(_, tool gjson.Result) bool {
		tools, err = decodeResponsesTool(tool, indexPath("tools", i), tools, "", "", req)
		i++
		return err == nil
	})
	req.Tools = tools
	return err
}

// decodeResponsesTool decodes one tool definition at path, appending it to
// tools; ns and nsDesc name the namespace group it is in, if any.
func decodeResponsesTool(v gjson.Result, path string, tools []Tool, ns, nsDesc string, req *Request) ([]Tool, *Error) {
	a := &req.text
	var t Tool
	if !v.IsObject() {
		return tools, wrongType(path, "object", v)
	}
	typ := v.Get("type")
	if typ.Type != gjson.String {
		if !typ.Exists() || typ.Type == gjson.Null {
			return tools, invalid(path+".type", "is required")
		}
		return tools, wrongType(path+".type", "string", typ)
	}
	switch typ.Str {
	case "function":
	case "custom":
		t.Kind = ToolCustom
	case "namespace":
		if ns != "" {
			return tools, invalid(path+".type", "a namespace cannot hold another namespace")
		}
		return decodeResponsesNamespace(v, path, tools, req)
	case "web_search", "web_search_preview", "web_search_2025_08_26", "web_search_preview_2025_03_11":
		if ns != "" {
			return tools, invalid(path+".type", "a namespace holds function and custom tools only")
		}
		t, err := decodeResponsesWebSearch(v, path, typ.Str, req)
		return append(tools, t), err
	default:
		return tools, unsupportedField(path, `hosted tool "`+typ.Str+`" cannot be translated (only web_search is); remove the tool or ask the operator to drop it (field `+path+`)`)
	}
	t.Namespace, t.NamespaceDescription = ns, nsDesc
	var err *Error
	hasName := false
	jsonx.EachMember(v, a, func(key, value gjson.Result) bool {
		switch key.Str {
		case "type":
		case "name":
			t.Name, err = readStringAt(value, path, ".name")
			hasName = true
		case "description":
			if value.Type != gjson.Null {
				t.Description, err = readStringAt(value, path, ".description")
			}
		case "parameters":
			switch {
			case t.Kind == ToolCustom:
				err = unknownField(path + ".parameters")
			case value.Type == gjson.Null:
			case value.IsObject():
				t.Parameters = value.Raw
			default:
				err = wrongType(path+".parameters", "object", value)
			}
		case "strict":
			if t.Kind == ToolCustom {
				err = unknownField(path + ".strict")
			} else if value.Type != gjson.Null {
				t.Strict.Value, err = readBool(value, path+".strict")
				t.Strict.Set = true
			}
		case "format":
			if t.Kind != ToolCustom {
				err = unknownField(path + ".format")
			} else {
				t.Grammar, err = responsesCustomFormat(value, path+".format")
			}
		case "defer_loading":
			if value.Type != gjson.Null && value.Type != gjson.False {
				err = unsupportedField(path+".defer_loading", "deferred tool loading (tool search) is not supported")
			}
		default:
			err = unknownField(path + "." + key.Str)
		}
		return err == nil
	})
	if err == nil && (!hasName || t.Name == "") {
		err = invalid(path+".name", "is required")
	}
	return append(tools, t), err
}

// responsesCustomFormat reads a custom tool's format: text (free text, the
// default) is ""; a grammar is kept as its JSON text.
func responsesCustomFormat(v gjson.Result, path string) (string, *Error) {
	if v.Type == gjson.Null {
		return "", nil
	}
	if !v.IsObject() {
		return "", wrongType(path, "object", v)
	}
	typ, err := readString(v.Get("type"), path+".type")
	if err != nil {
		return "", err
	}
	switch typ {
	case "text":
		var err *Error
		v.ForEach(func(key, _ gjson.Result) bool {
			if key.Str != "type" {
				err = unknownField(path + "." + key.Str)
			}
			return err == nil
		})
		return "", err
	case "grammar":
		return v.Raw, nil
	}
	return "", invalid(path+".type", `must be "text" or "grammar"`)
}

// decodeResponsesNamespace decodes a Codex namespace group {type:
// "namespace", name, description, tools}: each function or custom tool in
// it is appended as a canonical tool of that namespace.
func decodeResponsesNamespace(v gjson.Result, path string, tools []Tool, req *Request) ([]Tool, *Error) {
	var name, desc string
	var members gjson.Result
	var err *Error
	jsonx.EachMember(v, &req.text, func(key, value gjson.Result) bool {
		switch key.Str {
		case "type":
		case "name":
			name, err = readStringAt(value, path, ".name")
		case "description":
			if value.Type != gjson.Null {
				desc, err = readStringAt(value, path, ".description")
			}
		case "tools":
			members = value
		default:
			err = unknownField(path + "." + key.Str)
		}
		return err == nil
	})
	switch {
	case err != nil:
		return tools, err
	case name == "":
		return tools, invalid(path+".name", "is required")
	case !members.IsArray():
		if !members.Exists() || members.Type == gjson.Null {
			return tools, invalid(path+".tools", "is required")
		}
		return tools, wrongType(path+".tools", "array", members)
	}
	j := 0
	jsonx.EachMember(members, &req.text, func(_, m gjson.Result) bool {
		tools, err = decodeResponsesTool(m, indexPath(path+".tools", j), tools, name, desc, req)
		j++
		return err == nil
	})
	return tools, err
}

// decodeResponsesWebSearch decodes the hosted web search tool (web_search
// or web_search_preview, and their dated names): its domain filter, user
// location and context size. external_web_access false (cached results
// only) and search_content_types change what is found and have no
// equivalent elsewhere.
func decodeResponsesWebSearch(v gjson.Result, path, typ string, req *Request) (Tool, *Error) {
	t := Tool{Kind: ToolWebSearch, Name: "web_search", Source: path}
	w := &t.WebSearch
	w.Preview = strings.HasPrefix(typ, "web_search_preview")
	var err *Error
	jsonx.EachMember(v, &req.text, func(key, value gjson.Result) bool {
		p := path + "." + key.Str
		switch key.Str {
		case "type":
		case "filters":
			if w.Preview {
				err = unknownField(p)
				break
			}
			err = responsesSearchFilters(value, p, w, req)
		case "user_location":
			err = responsesUserLocation(value, p, &w.Location)
		case "search_context_size":
			if value.Type == gjson.Null {
				break
			}
			if w.ContextSize, err = readString(value, p); err == nil {
				switch w.ContextSize {
				case "low", "medium", "high":
				default:
					err = invalid(p, `must be "low", "medium" or "high"`)
				}
			}
		case "external_web_access":
			if value.Type != gjson.Null && value.Type != gjson.True {
				if _, err = readBool(value, p); err == nil {
					err = unsupportedField(p, "searching cached results only has no equivalent in other protocols")
				}
			}
		case "search_content_types":
			err = rejectUnlessNull(value, p, "search content types have no equivalent in other protocols")
		default:
			err = unknownField(p)
		}
		return err == nil
	})
	return t, err
}

// responsesSearchFilters reads web_search filters: allowed_domains.
func responsesSearchFilters(v gjson.Result, path string, w *WebSearchOptions, req *Request) *Error {
	if v.Type == gjson.Null {
		return nil
	}
	if !v.IsObject() {
		return wrongType(path, "object", v)
	}
	var err *Error
	jsonx.EachMember(v, &req.text, func(key, value gjson.Result) bool {
		if key.Str != "allowed_domains" {
			err = unknownField(path + "." + key.Str)
			return false
		}
		w.AllowedDomains, err = readStrings(value, path+".allowed_domains", w.AllowedDomains)
		return err == nil
	})
	return err
}

// readStrings appends the strings of array v (null: none) to dst.
func readStrings(v gjson.Result, path string, dst []string) ([]string, *Error) {
	if v.Type == gjson.Null {
		return dst, nil
	}
	if !v.IsArray() {
		return dst, wrongType(path, "array of strings", v)
	}
	var err *Error
	i := 0
	v.ForEach(func(_, s gjson.Result) bool {
		if s.Type != gjson.String {
			err = wrongType(indexPath(path, i), "string", s)
			return false
		}
		dst = append(dst, s.Str)
		i++
		return true
	})
	return dst, err
}

// responsesUserLocation reads an approximate user location, as Responses
// and Anthropic spell it: {type: "approximate", city, region, country,
// timezone}.
func responsesUserLocation(v gjson.Result, path string, l *UserLocation) *Error {
	if v.Type == gjson.Null {
		return nil
	}
	if !v.IsObject() {
		return wrongType(path, "object", v)
	}
	var err *Error
	v.ForEach(func(key, value gjson.Result) bool {
		p := path + "." + key.Str
		var dst *string
		switch key.Str {
		case "type":
			var s string
			if s, err = readString(value, p); err == nil && s != "approximate" {
				err = invalid(p, `must be "approximate"`)
			}
			return err == nil
		case "city":
			dst = &l.City
		case "region":
			dst = &l.Region
		case "country":
			dst = &l.Country
		case "timezone":
			dst = &l.Timezone
		default:
			err = unknownField(p)
			return false
		}
		if value.Type != gjson.Null {
			*dst, err = readString(value, p)
		}
		return err == nil
	})
	return err
}

// responsesTextConfig decodes text: the output format (structured
// output) and verbosity.
func responsesTextConfig(v gjson.Result, req *Request) *Error {
	if v.Type == gjson.Null {
		return nil
	}
	if !v.IsObject() {
		return wrongType("text", "object", v)
	}
	var err *Error
	jsonx.EachMember(v, &req.text, func(key, value gjson.Result) bool {
		switch key.Str {
		case "format":
			err = responsesTextFormat(value, req)
		case "verbosity":
			req.Verbosity, err = responsesVerbosity(value, "text.verbosity")
		default:
			err = unknownField("text." + key.Str)
		}
		return err == nil
	})
	return err
}

// responsesVerbosity reads an OpenAI verbosity value (low, medium or
// high); null is "".
func responsesVerbosity(v gjson.Result, path string) (string, *Error) {
	if v.Type == gjson.Null {
		return "", nil
	}
	s, err := readString(v, path)
	if err != nil {
		return "", err
	}
	switch s {
	case "low", "medium", "high":
		return s, nil
	}
	return "", invalid(path, `must be "low", "medium" or "high"`)
}

// responsesTextFormat decodes text.format into req.Format: text (the
// default, normalised to the zero format), json_object, or json_schema with
// its name, schema, description and strict flag.
func responsesTextFormat(v gjson.Result, req *Request) *Error {
	if v.Type == gjson.Null {
		return nil
	}
	if !v.IsObject() {
		return wrongType("text.format", "object", v)
	}
	typ := v.Get("type")
	if !typ.Exists() || typ.Type == gjson.Null {
		return invalid("text.format.type", "is required")
	}
	s, err := readString(typ, "text.format.type")
	if err != nil {
		return err
	}
	var f OutputFormat
	switch s {
	case "text":
	case "json_object":
		f.Kind = FormatJSONObject
	case "json_schema":
		f.Kind = FormatJSONSchema
	default:
		return invalid("text.format.type", `unknown format type "`+s+`"`)
	}
	hasSchema := false
	jsonx.EachMember(v, &req.text, func(key, value gjson.Result) bool {
		path := "text.format." + key.Str
		switch {
		case key.Str == "type":
		case f.Kind != FormatJSONSchema:
			err = unknownField(path)
		case key.Str == "name":
			f.Name, err = readString(value, path)
		case key.Str == "description":
			if value.Type != gjson.Null {
				f.Description, err = readString(value, path)
			}
		case key.Str == "schema":
			if !value.IsObject() {
				err = wrongType(path, "object", value)
			}
			f.Schema, hasSchema = value.Raw, true
		case key.Str == "strict":
			if value.Type != gjson.Null {
				f.Strict.Value, err = readBool(value, path)
				f.Strict.Set = true
			}
		default:
			err = unknownField(path)
		}
		return err == nil
	})
	switch {
	case err != nil:
		return err
	case f.Kind == FormatJSONSchema && f.Name == "":
		return invalid("text.format.name", "is required")
	case f.Kind == FormatJSONSchema && !hasSchema:
		return invalid("text.format.schema", "is required")
	}
	req.Format = f
	return nil
}

// reasoning decodes the reasoning configuration: null,
// {} and a summary alone ask for nothing (the summary is kept for encoders
// that can use it); an effort is mapped, "none" included. A non-null
// context (which turns' reasoning the provider keeps) and execution modes
// have no equivalent elsewhere and are rejected.
func (d *responsesRequestDecoder) reasoning(v gjson.Result) *Error {
	if v.Type == gjson.Null {
		return nil
	}
	if !v.IsObject() {
		return wrongType("reasoning", "object", v)
	}
	r := &d.req.Reasoning
	var err *Error
	jsonx.EachMember(v, &d.req.text, func(key, value gjson.Result) bool {
		switch key.Str {
		case "effort":
			err = responsesEffort(value, "reasoning.effort", &r.Effort)
		case "context":
			err = rejectUnlessNull(value, "reasoning.context", "reasoning context modes cannot be translated")
		case "mode":
			err = rejectUnlessNull(value, "reasoning.mode", "reasoning execution modes are not supported")
		case "summary", "generate_summary":
			err = d.reasoningSummary("reasoning."+key.Str, value)
		default:
			err = unknownField("reasoning." + key.Str)
		}
		return err == nil
	})
	return err
}

// responsesEffort reads an OpenAI reasoning effort; null leaves dst unset.
func responsesEffort(v gjson.Result, path string, dst *mapping.Effort) *Error {
	if v.Type == gjson.Null {
		return nil
	}
	s, err := readString(v, path)
	if err != nil {
		return err
	}
	e, ok := mapping.ParseEffort(s)
	if !ok || e == mapping.EffortMax {
		// max is Anthropic's word; OpenAI's highest effort is xhigh.
		return invalid(path, `must be "none", "minimal", "low", "medium", "high" or "xhigh"`)
	}
	*dst = e
	return nil
}

// reasoningSummary reads reasoning.summary (or its deprecated alias
// generate_summary) into Reasoning.Summary.
func (d *responsesRequestDecoder) reasoningSummary(path string, v gjson.Result) *Error {
	if v.Type == gjson.Null {
		return nil
	}
	s, err := readString(v, path)
	if err != nil {
		return err
	}
	switch s {
	case "auto", "concise", "detailed":
		d.req.Reasoning.Summary = s
		return nil
	}
	return invalid(path, `must be "auto", "concise" or "detailed"`)
}

// decodeResponsesInput builds req.System and req.Messages from instructions
// and input. All parts share one backing array: system parts first
// (instructions, then the parts of leading system and developer messages),
// then each message's parts in order.
func decodeResponsesInput(input gjson.Result, instructions string, req *Request) *Error {
	hint := responsesCapacityHint(input, &req.text)
	parts := make([]Part, 0, hint)
	if instructions != "" {
		parts = append(parts, Part{Type: PartText, Text: instructions})
		req.SystemRole = RoleSystem
	}
	msgs := req.Messages[:0]
	if input.Type == gjson.String {
		if len(parts) > 0 {
			req.System = parts[:1:1]
		}
		parts = append(parts, textPart(PartText, input))
		req.Messages = append(msgs, Message{Role: RoleUser, Parts: parts[len(parts)-1:]})
		return nil
	}
	if cap(msgs) < hint {
		msgs = make([]Message, 0, hint)
	}

	systemEnd := len(parts)
	haveSystem := instructions != ""
	leading := true
	var err *Error
	i := 0
	prev := responsesItemNone
	msgStart := 0 // where the last message's parts start in parts
	jsonx.EachMember(input, &req.text, func(_, item gjson.Result) bool {
		var role Role
		var kind responsesItemKind
		start := len(parts)
		role, kind, parts, err = decodeResponsesItem(item, i, parts, req)
		if err != nil {
			return false
		}
		if kind == responsesItemSkipped {
			i++
			return true
		}
		isSystem := role == RoleSystem || role == RoleDeveloper
		switch {
		case leading && isSystem:
			// Leading system and developer messages join the
			// instructions; the role of the first source names them.
			if !haveSystem {
				req.SystemRole, haveSystem = role, true
			}
			systemEnd = len(parts)
		case len(msgs) > 0 && responsesMerges(prev, kind, role):
			// The item continues the last message, whose parts end
			// where this item's start: re-slice them from the current
			// array, which holds every part decoded so far.
			msgs[len(msgs)-1].Parts = parts[msgStart:len(parts):len(parts)]
		default:
			leading = false
			// If a later append moves parts to a larger array, this
			// message keeps the old one, which still holds its parts.
			msgs = append(msgs, Message{Role: role, Parts: parts[start:len(parts):len(parts)]})
			msgStart = start
		}
		prev = kind
		if leading {
			prev = responsesItemNone
		} else if kind == responsesItemMessage && role == RoleAssistant {
			prev = responsesItemAssistant
		}
		i++
		return true
	})
	if err != nil {
		return err
	}
	if systemEnd > 0 {
		req.System = parts[:systemEnd:systemEnd]
	}
	req.Messages = msgs
	return nil
}

// responsesCapacityHint sizes the parts and messages of an input: its
// items (counted from the document index without reading them) and the
// instructions. Messages with several content parts grow the parts array.
func responsesCapacityHint(input gjson.Result, a *jsonx.Arena) int {
	return jsonx.CountMembers(input, a) + 2
}

// Keys of input items and content parts, as bits, so that one pass over an
// object can collect them before its type says which are allowed.
const (
	responsesKeyType uint32 = 1 << iota
	responsesKeyRole
	responsesKeyContent
	responsesKeyID
	responsesKeyStatus
	responsesKeyPhase
	responsesKeyText
	responsesKeyRefusal
	responsesKeyAnnotations
	responsesKeyLogprobs
	responsesKeyCacheBreakpoint
	responsesKeyImageURL
	responsesKeyFileID
	responsesKeyDetail
	responsesKeyFileData
	responsesKeyFileURL
	responsesKeyFilename
	responsesKeyUnknown
)

// The keys each content part type allows.
const (
	responsesInputTextKeys  = responsesKeyType | responsesKeyText | responsesKeyCacheBreakpoint
	responsesOutputTextKeys = responsesKeyType | responsesKeyText | responsesKeyAnnotations | responsesKeyLogprobs
	responsesRefusalKeys    = responsesKeyType | responsesKeyRefusal
	responsesImageKeys      = responsesKeyType | responsesKeyImageURL | responsesKeyFileID | responsesKeyDetail | responsesKeyCacheBreakpoint
	responsesFileKeys       = responsesKeyType | responsesKeyFileID | responsesKeyFileData | responsesKeyFileURL |
		responsesKeyFilename | responsesKeyDetail | responsesKeyCacheBreakpoint
)

// responsesItem is one input item, collected in a single pass over its keys.
type responsesItem struct {
	keys                        uint32
	typ, role, content, id, sts gjson.Result
	phase                       gjson.Result
}

// collectResponsesItem reads the keys of an input item.
//
// The members are walked raw and only those kept are read: the others
// (a call's arguments, a tool output's text) are read by the item's own
// decoder, and unescaping them here too doubled the cost of tool outputs.
func collectResponsesItem(item gjson.Result, a *jsonx.Arena) responsesItem {
	var it responsesItem
	var m jsonx.MemberIter
	if !m.Init(item.Raw, a) {
		return it
	}
	for {
		key, value, ok := m.Next()
		if !ok {
			return it
		}
		var dst *gjson.Result
		switch key {
		case "type":
			it.keys |= responsesKeyType
			dst = &it.typ
		case "role":
			it.keys |= responsesKeyRole
			dst = &it.role
		case "content":
			it.keys |= responsesKeyContent
			dst = &it.content
		case "id":
			it.keys |= responsesKeyID
			dst = &it.id
		case "status":
			it.keys |= responsesKeyStatus
			dst = &it.sts
		case "phase":
			it.keys |= responsesKeyPhase
			dst = &it.phase
		default:
			it.keys |= responsesKeyUnknown
		}
		if dst != nil {
			*dst = m.Result(value)
		}
	}
}

// responsesItemKind says what an input item was, for merging items into
// canonical messages.
type responsesItemKind uint8

const (
	responsesItemNone      responsesItemKind = iota // no item yet, or a leading system item
	responsesItemMessage                            // a user, system or developer message
	responsesItemAssistant                          // an assistant message
	responsesItemCall                               // a function_call
	responsesItemOutput                             // a function_call_output
	responsesItemReasoning                          // a reasoning item
	responsesItemSkipped                            // an item dropped from the history (a hosted tool's call)
)

// responsesMerges reports whether an item of kind (with role) continues the
// message of the previous item of kind prev. Responses spreads one turn over
// several items; the canonical model, like Chat and Anthropic, has one
// message per turn:
//   - a reasoning item or a function_call joins the assistant message,
//     reasoning or calls before it (reasoning precedes what it led to, and
//     a turn may interleave them);
//   - an assistant message right after reasoning joins it;
//   - a function_call_output joins the outputs before it, in one user
//     message of tool results;
//   - a user message right after outputs joins them, after the results (as
//     Anthropic wants tool_result blocks first in the user turn).
func responsesMerges(prev, kind responsesItemKind, role Role) bool {
	switch kind {
	case responsesItemCall, responsesItemReasoning:
		return prev == responsesItemAssistant || prev == responsesItemCall || prev == responsesItemReasoning
	case responsesItemOutput:
		return prev == responsesItemOutput
	case responsesItemMessage:
		return prev == responsesItemOutput && role == RoleUser || prev == responsesItemReasoning && role == RoleAssistant
	}
	return false
}

// decodeResponsesItem decodes input item i, appending its content parts to
// parts. Message, reasoning, function_call and function_call_output items
// are in scope; the items of hosted tools are rejected by type.
func decodeResponsesItem(item gjson.Result, i int, parts []Part, req *Request) (Role, responsesItemKind, []Part, *Error) {
	if !item.IsObject() {
		return 0, 0, parts, wrongType(indexPath("input", i), "object", item)
	}
	it := collectResponsesItem(item, &req.text)
	typ := ""
	if it.keys&responsesKeyType != 0 && it.typ.Type != gjson.Null {
		if it.typ.Type != gjson.String {
			return 0, 0, parts, wrongType(indexPath("input", i)+".type", "string", it.typ)
		}
		typ = it.typ.Str
	}
	switch typ {
	case "message":
	case "":
		if it.keys&responsesKeyRole == 0 && it.keys&responsesKeyID != 0 {
			// An item with only an id is an item reference, whose
			// type is optional.
			return 0, 0, parts, unsupportedField(indexPath("input", i), `input item type "item_reference" is not supported yet`)
		}
	case "function_call", "custom_tool_call":
		parts, err := decodeResponsesCall(item, i, parts, typ == "custom_tool_call", req)
		return RoleAssistant, responsesItemCall, parts, err
	case "function_call_output", "custom_tool_call_output":
		parts, err := decodeResponsesOutputItem(item, i, parts, req)
		return RoleUser, responsesItemOutput, parts, err
	case "web_search_call":
		// A search the provider ran in an earlier turn: its results
		// are OpenAI's server-side state, which no other upstream can
		// read, while the answer that used them stays in the history.
		// Like another family's reasoning, it is dropped and listed.
		req.Dropped = append(req.Dropped, indexPath("input", i)+" (web_search_call)")
		return RoleAssistant, responsesItemSkipped, parts, nil
	case "reasoning":
		parts, err := decodeResponsesReasoningItem(item, i, parts, req)
		return RoleAssistant, responsesItemReasoning, parts, err
	default:
		return 0, 0, parts, unsupportedField(indexPath("input", i), `input item type "`+typ+`" is not supported yet`)
	}
	role, parts, err := decodeResponsesMessage(item, &it, i, parts, req)
	return role, responsesItemMessage, parts, err
}

// responsesItemString reads an optional string member of input item i.
func responsesItemString(v gjson.Result, path, field string) (string, *Error) {
	if v.Type == gjson.Null {
		return "", nil
	}
	return readStringAt(v, path, field)
}

// responsesItemStatus validates an item's status, identity metadata of an
// earlier response that is accepted and ignored.
func responsesItemStatus(v gjson.Result, path, field string) *Error {
	_, err := responsesItemString(v, path, field)
	return err
}

// decodeResponsesCall decodes a function_call item (or, when custom, a
// custom_tool_call item): a tool call in the assistant's history. Its id
// (fc_... / ctc_...) names the item on OpenAI's servers and is ignored;
// call_id is the id that results refer to; namespace names the Codex
// group of the function. A custom call's raw input becomes the arguments
// {"input": input} (see ToolCustom).
func decodeResponsesCall(item gjson.Result, i int, parts []Part, custom bool, req *Request) ([]Part, *Error) {
	path := indexPath("input", i)
	p := Part{Type: PartToolCall}
	argsKey := "arguments"
	if custom {
		p.ToolKind, argsKey = ToolCustom, "input"
	}
	var err *Error
	var have uint8 // bits: call_id, name, arguments
	jsonx.EachMember(item, &req.text, func(key, v gjson.Result) bool {
		switch key.Str {
		case "type":
		case "id":
			_, err = responsesItemString(v, path, ".id")
		case "status":
			err = responsesItemStatus(v, path, ".status")
		case "call_id":
			p.ToolCallID, err = readStringAt(v, path, ".call_id")
			have |= 1
		case "name":
			p.ToolName, err = readStringAt(v, path, ".name")
			have |= 2
		case argsKey:
			if custom {
				var input string
				if input, err = readStringAt(v, path, ".input"); err == nil {
					p.Arguments = customArguments(input)
				}
			} else {
				p.Arguments, err = responsesArguments(v, path, ".arguments")
			}
			have |= 4
		case "namespace":
			p.Namespace, err = responsesItemString(v, path, ".namespace")
		default:
			err = unknownField(path + "." + key.Str)
		}
		return err == nil
	})
	switch {
	case err != nil:
		return parts, err
	case have&1 == 0 || p.ToolCallID == "":
		return parts, invalid(path+".call_id", "is required")
	case have&2 == 0 || p.ToolName == "":
		return parts, invalid(path+".name", "is required")
	case have&4 == 0:
		return parts, invalid(path+"."+argsKey, "is required")
	}
	return append(parts, p), nil
}

// decodeResponsesReasoningItem decodes a reasoning item of the history: a
// PartReasoning of the assistant turn it belongs to. Its text is the
// summary texts joined by blank lines (else the reasoning_text content),
// its ItemID the item's id, and its encrypted_content the opaque value: an
// envelope llmbridge issued (unwrapped, with the family and item id it
// names) or OpenAI's own encrypted reasoning.
func decodeResponsesReasoningItem(item gjson.Result, i int, parts []Part, req *Request) ([]Part, *Error) {
	path := indexPath("input", i)
	p := Part{Type: PartReasoning}
	var summary, content, encrypted gjson.Result
	var err *Error
	jsonx.EachMember(item, &req.text, func(key, v gjson.Result) bool {
		switch key.Str {
		case "type":
		case "id":
			p.ItemID, err = responsesItemString(v, path, ".id")
		case "status":
			err = responsesItemStatus(v, path, ".status")
		case "summary":
			summary = v
		case "content":
			content = v
		case "encrypted_content":
			encrypted = v
		default:
			err = unknownField(path + "." + key.Str)
		}
		return err == nil
	})
	if err != nil {
		return parts, err
	}
	var sum, cont string
	if sum, err = responsesReasoningTexts(summary, path+".summary", "summary_text", req); err != nil {
		return parts, err
	}
	if cont, err = responsesReasoningTexts(content, path+".content", "reasoning_text", req); err != nil {
		return parts, err
	}
	p.Text = sum
	if p.Text == "" {
		p.Text = cont
	}
	value, err := responsesItemString(encrypted, path, ".encrypted_content")
	if err != nil {
		return parts, err
	}
	if mapping.IsEnvelope(value) {
		// The item id beside an envelope is the one llmbridge gave the
		// client; the envelope names the issuer's own, if any.
		p.ItemID = ""
	}
	if err := readOpaque(&p, value, mapping.FamilyOpenAI, path+".encrypted_content"); err != nil {
		return parts, err
	}
	return append(parts, p), nil
}

// responsesReasoningTexts reads a reasoning item's summary or content: null,
// absent or a list of {type: typ, text} objects, whose texts are joined by
// blank lines (the separation OpenAI's own clients render between summary
// parts).
func responsesReasoningTexts(v gjson.Result, path, typ string, req *Request) (string, *Error) {
	if !v.Exists() || v.Type == gjson.Null {
		return "", nil
	}
	if !v.IsArray() {
		return "", wrongType(path, "array", v)
	}
	var texts []string
	var err *Error
	j := 0
	jsonx.EachMember(v, &req.text, func(_, part gjson.Result) bool {
		partPath := indexPath(path, j)
		j++
		if !part.IsObject() {
			err = wrongType(partPath, "object", part)
			return false
		}
		hasText := false
		jsonx.EachMember(part, &req.text, func(key, value gjson.Result) bool {
			switch key.Str {
			case "type":
				var t string
				if t, err = readString(value, partPath+".type"); err == nil && t != typ {
					err = invalid(partPath+".type", `must be "`+typ+`"`)
				}
			case "text":
				var t string
				t, err = readString(value, partPath+".text")
				texts, hasText = append(texts, t), true
			default:
				err = unknownField(partPath + "." + key.Str)
			}
			return err == nil
		})
		if err == nil && !hasText {
			err = invalid(partPath+".text", "is required")
		}
		return err == nil
	})
	if err != nil || len(texts) == 0 {
		return "", err
	}
	return strings.Join(texts, "\n\n"), nil
}

// responsesArguments unquotes an OpenAI arguments string into the text of
// one JSON object; "" (no arguments) stays "".
func responsesArguments(v gjson.Result, path, field string) (string, *Error) {
	s, err := readStringAt(v, path, field)
	if err != nil || s == "" {
		return s, err
	}
	if !jsonx.Valid(s) || !gjson.Parse(s).IsObject() {
		return "", invalid(path+field, "must be a JSON object in a string")
	}
	return s, nil
}

// decodeResponsesOutputItem decodes a function_call_output item: the
// result of a tool call, a PartToolResult of a user message. Its output is a
// string or a list of input_text and input_image parts (documents in
// results are rejected). Responses has no error flag: a result's failure is
// in its text.
func decodeResponsesOutputItem(item gjson.Result, i int, parts []Part, req *Request) ([]Part, *Error) {
	path := indexPath("input", i)
	p := Part{Type: PartToolResult}
	var err *Error
	var output gjson.Result
	jsonx.EachMember(item, &req.text, func(key, v gjson.Result) bool {
		switch key.Str {
		case "type":
		case "id":
			_, err = responsesItemString(v, path, ".id")
		case "status":
			err = responsesItemStatus(v, path, ".status")
		case "call_id":
			p.ToolCallID, err = readStringAt(v, path, ".call_id")
		case "name":
			p.ToolName, err = responsesItemString(v, path, ".name")
		case "output":
			output = v
		case "namespace":
			p.Namespace, err = responsesItemString(v, path, ".namespace")
		default:
			err = unknownField(path + "." + key.Str)
		}
		return err == nil
	})
	if err != nil {
		return parts, err
	}
	if p.ToolCallID == "" {
		return parts, invalid(path+".call_id", "is required")
	}
	switch {
	case output.Type == gjson.String:
		p.Content = []Part{textPart(PartText, output)}
	case output.IsArray():
		j := 0
		content := make([]Part, 0, 2)
		jsonx.EachMember(output, &req.text, func(_, part gjson.Result) bool {
			partPath := indexPath(path+".output", j)
			content, err = appendResponsesContent(content, part, RoleUser, func() string { return partPath }, true, req)
			j++
			return err == nil
		})
		if err != nil {
			return parts, err
		}
		p.Content = content
	case !output.Exists() || output.Type == gjson.Null:
		return parts, invalid(path+".output", "is required")
	default:
		return parts, wrongType(path+".output", "string or array", output)
	}
	return append(parts, p), nil
}

// decodeResponsesMessage decodes a message item. Its id and status are
// identity metadata of an earlier response (Codex sends an id on every item
// it replays); they do not change what the model generates and llmbridge
// keeps no server-side state they could refer to, so they are accepted and
// ignored after a type check.
func decodeResponsesMessage(item gjson.Result, it *responsesItem, i int, parts []Part, req *Request) (Role, []Part, *Error) {
	const allowed = responsesKeyType | responsesKeyRole | responsesKeyContent | responsesKeyID | responsesKeyStatus | responsesKeyPhase
	if it.keys&^allowed != 0 {
		return 0, parts, unknownField(indexPath("input", i) + "." + responsesFirstUnknownKey(item, responsesMessageKey))
	}
	role, err := responsesRole(it.role, it.keys&responsesKeyRole != 0, i)
	if err != nil {
		return 0, parts, err
	}
	for _, f := range [...]struct {
		v    gjson.Result
		name string
	}{{it.id, ".id"}, {it.sts, ".status"}} {
		if f.v.Exists() && f.v.Type != gjson.Null && f.v.Type != gjson.String {
			return 0, parts, wrongType(indexPath("input", i)+f.name, "string", f.v)
		}
	}
	if err := responsesPhase(it.phase, i, req); err != nil {
		return 0, parts, err
	}
	switch {
	case !it.content.Exists() || it.content.Type == gjson.Null:
		return 0, parts, invalid(indexPath("input", i)+".content", "is required")
	case it.content.Type == gjson.String:
		return role, append(parts, textPart(PartText, it.content)), nil
	case !it.content.IsArray():
		return 0, parts, wrongType(indexPath("input", i)+".content", "string or array", it.content)
	}
	j := 0
	jsonx.EachMember(it.content, &req.text, func(_, part gjson.Result) bool {
		parts, err = appendResponsesContent(parts, part, role, func() string { return indexPath(indexPath("input", i)+".content", j) }, false, req)
		j++
		return err == nil
	})
	return role, parts, err
}

// responsesMessageKey reports whether key is a message item key.
func responsesMessageKey(key string) bool {
	switch key {
	case "type", "role", "content", "id", "status", "phase":
		return true
	}
	return false
}

// responsesFirstUnknownKey returns the first key of obj that known rejects; it runs
// on error paths only.
func responsesFirstUnknownKey(obj gjson.Result, known func(string) bool) string {
	name := ""
	obj.ForEach(func(key, _ gjson.Result) bool {
		if !known(key.Str) {
			name = key.Str
			return false
		}
		return true
	})
	return name
}

// responsesRole decodes the role of input item i.
func responsesRole(v gjson.Result, present bool, i int) (Role, *Error) {
	if !present || v.Type == gjson.Null {
		return 0, invalid(indexPath("input", i)+".role", "is required")
	}
	if v.Type != gjson.String {
		return 0, wrongType(indexPath("input", i)+".role", "string", v)
	}
	switch v.Str {
	case "user":
		return RoleUser, nil
	case "assistant":
		return RoleAssistant, nil
	case "system":
		return RoleSystem, nil
	case "developer":
		return RoleDeveloper, nil
	}
	return 0, invalid(indexPath("input", i)+".role", `unknown role "`+v.Str+`"`)
}

// responsesPhase validates an assistant message's phase (commentary or final
// answer) and records it as a dropped hint. OpenAI asks clients to send it
// back because its newer Codex models read it, but it only labels history,
// no other protocol has a slot for it, and rejecting it would shut such
// clients out of every other upstream.
func responsesPhase(v gjson.Result, i int, req *Request) *Error {
	if !v.Exists() || v.Type == gjson.Null {
		return nil
	}
	if v.Type != gjson.String {
		return wrongType(indexPath("input", i)+".phase", "string", v)
	}
	switch v.Str {
	case "commentary", "final_answer":
		req.Dropped = append(req.Dropped, indexPath("input", i)+".phase")
		return nil
	}
	return invalid(indexPath("input", i)+".phase", `must be "commentary" or "final_answer"`)
}

// responsesPart is one content part, collected in a single pass over its
// keys.
type responsesPart struct {
	keys                         uint32
	typ, text, refusal, imageURL gjson.Result
	fileID, detail, data, url    gjson.Result
	filename                     gjson.Result
}

// responsesPartKeyBit returns the bit of a content part key (responsesKeyUnknown
// for keys no part type has).
func responsesPartKeyBit(key string) uint32 {
	switch key {
	case "type":
		return responsesKeyType
	case "text":
		return responsesKeyText
	case "refusal":
		return responsesKeyRefusal
	case "annotations":
		return responsesKeyAnnotations
	case "logprobs":
		return responsesKeyLogprobs
	case "prompt_cache_breakpoint":
		return responsesKeyCacheBreakpoint
	case "image_url":
		return responsesKeyImageURL
	case "file_id":
		return responsesKeyFileID
	case "detail":
		return responsesKeyDetail
	case "file_data":
		return responsesKeyFileData
	case "file_url":
		return responsesKeyFileURL
	case "filename":
		return responsesKeyFilename
	}
	return responsesKeyUnknown
}

// collectResponsesPart reads the keys of a content part.
func collectResponsesPart(part gjson.Result, a *jsonx.Arena) responsesPart {
	var p responsesPart
	jsonx.EachMember(part, a, func(key, value gjson.Result) bool {
		bit := responsesPartKeyBit(key.Str)
		p.keys |= bit
		switch bit {
		case responsesKeyType:
			p.typ = value
		case responsesKeyText:
			p.text = value
		case responsesKeyRefusal:
			p.refusal = value
		case responsesKeyImageURL:
			p.imageURL = value
		case responsesKeyFileID:
			p.fileID = value
		case responsesKeyDetail:
			p.detail = value
		case responsesKeyFileData:
			p.data = value
		case responsesKeyFileURL:
			p.url = value
		case responsesKeyFilename:
			p.filename = value
		}
		return true
	})
	return p
}

// appendResponsesContent decodes the content part at path() (built only for
// errors, as this runs for every part): of a message
// (inOutput false) or of a function_call_output's output (inOutput true).
//
// input_text and output_text both carry plain text and are accepted in any
// message: the SDK types allow input_text in assistant messages while the
// API expects output_text there, and the role, not the part type, says who
// wrote the text. A refusal only exists in assistant history. Images and
// files are user input; in a tool output only text and images are taken.
func appendResponsesContent(parts []Part, part gjson.Result, role Role, path func() string, inOutput bool, req *Request) ([]Part, *Error) {
	if !part.IsObject() {
		return parts, wrongType(path(), "object", part)
	}
	// Most parts are plain text: read them without the general collection
	// below (plainText). A tool output takes no output_text.
	types := [2]string{`"input_text"`, `"output_text"`}
	n := 2
	if inOutput {
		n = 1
	}
	if p, ok := plainText(&req.text, part.Raw, types[:n]...); ok {
		return append(parts, p), nil
	}
	p := collectResponsesPart(part, &req.text)
	if p.keys&responsesKeyType == 0 || p.typ.Type == gjson.Null {
		return parts, invalid(path()+".type", "is required")
	}
	if p.typ.Type != gjson.String {
		return parts, wrongType(path()+".type", "string", p.typ)
	}
	var allowed uint32
	var kind PartType
	var text gjson.Result
	switch p.typ.Str {
	case "input_text":
		allowed, kind, text = responsesInputTextKeys, PartText, p.text
	case "output_text":
		if inOutput {
			return parts, invalid(path()+".type", `a function_call_output holds input_text, input_image or input_file parts`)
		}
		// annotations (citations) and logprobs describe an earlier
		// output; the model does not read them back, so they are ignored.
		allowed, kind, text = responsesOutputTextKeys, PartText, p.text
	case "refusal":
		if role != RoleAssistant {
			return parts, invalid(path()+".type", `content part type "refusal" is only valid in assistant messages`)
		}
		allowed, kind, text = responsesRefusalKeys, PartRefusal, p.refusal
	case "input_image", "input_file":
		return appendResponsesMedia(parts, &p, part, role, path(), inOutput, req)
	case "input_audio":
		return parts, unsupportedField(path(), "audio input cannot be translated for the "+string(OpenAIResponses)+" protocol")
	default:
		return parts, unsupportedField(path(), `content part type "`+p.typ.Str+`" is not supported yet`)
	}
	if p.keys&^allowed != 0 {
		return parts, unknownField(path() + "." + responsesFirstUnknownKey(part, func(k string) bool { return responsesPartKeyBit(k)&allowed != 0 }))
	}
	field := ".text"
	if kind == PartRefusal {
		field = ".refusal"
	}
	if !text.Exists() || text.Type == gjson.Null {
		return parts, invalid(path()+field, "is required")
	}
	if text.Type != gjson.String {
		return parts, wrongType(path()+field, "string", text)
	}
	if p.keys&responsesKeyCacheBreakpoint != 0 {
		// A cache breakpoint steers the provider's prompt cache only.
		req.Dropped = append(req.Dropped, path()+".prompt_cache_breakpoint")
	}
	return append(parts, textPart(kind, text)), nil
}

// appendResponsesMedia decodes an input_image or input_file part: data:
// URLs become MediaType and base64 Data, http(s) URLs stay URLs (llmbridge
// never fetches them), and file_id references, which name files stored on
// OpenAI's servers, are rejected. detail is a rendering hint: recorded as
// dropped unless it is the default "auto".
func appendResponsesMedia(parts []Part, p *responsesPart, part gjson.Result, role Role, path string, inOutput bool, req *Request) ([]Part, *Error) {
	image := p.typ.Str == "input_image"
	allowed := responsesFileKeys
	if image {
		allowed = responsesImageKeys
	}
	if p.keys&^allowed != 0 {
		return parts, unknownField(path + "." + responsesFirstUnknownKey(part, func(k string) bool { return responsesPartKeyBit(k)&allowed != 0 }))
	}
	switch {
	case role == RoleAssistant:
		return parts, invalid(path+".type", `content part type "`+p.typ.Str+`" is only valid in user messages`)
	case role != RoleUser:
		return parts, unsupportedField(path, "images and files in system or developer messages cannot be translated")
	case inOutput && !image:
		return parts, unsupportedField(path, "files in a function_call_output cannot be translated; send them in a user message")
	case p.fileID.Exists() && p.fileID.Type != gjson.Null:
		return parts, unsupportedField(path+".file_id", "file_id names a file stored on OpenAI's servers; send the data or a URL")
	}
	out := Part{Type: PartImage}
	var src gjson.Result
	var srcPath string
	if image {
		src, srcPath = p.imageURL, path+".image_url"
	} else {
		out.Type = PartDocument
		if p.filename.Exists() && p.filename.Type != gjson.Null {
			name, err := readString(p.filename, path+".filename")
			if err != nil {
				return parts, err
			}
			out.Text = name
		}
		hasData := p.data.Exists() && p.data.Type != gjson.Null
		hasURL := p.url.Exists() && p.url.Type != gjson.Null
		switch {
		case hasData && hasURL:
			return parts, invalid(path, "give one of file_data and file_url")
		case hasData:
			src, srcPath = p.data, path+".file_data"
		default:
			src, srcPath = p.url, path+".file_url"
		}
	}
	if !src.Exists() || src.Type == gjson.Null {
		if image {
			return parts, invalid(srcPath, "is required")
		}
		return parts, invalid(path, "file_data or file_url is required")
	}
	if src.Type != gjson.String {
		return parts, wrongType(srcPath, "string", src)
	}
	switch {
	case strings.HasPrefix(src.Str, "data:"):
		mt, data, ok := responsesParseDataURL(src.Str)
		if !ok {
			return parts, invalid(srcPath, "must be a base64 data: URL (data:<media type>;base64,<data>)")
		}
		if err := checkBase64(srcPath, data); err != nil {
			return parts, err
		}
		out.MediaType, out.Data = mt, data
	case strings.HasPrefix(src.Str, "https://") || strings.HasPrefix(src.Str, "http://"):
		if srcPath == path+".file_data" {
			return parts, invalid(srcPath, "must be a base64 data: URL; put URLs in file_url")
		}
		out.URL = src.Str
	case srcPath == path+".file_data" && strings.HasSuffix(strings.ToLower(out.Text), ".pdf"):
		// Plain base64 named by a .pdf filename, as some clients send it.
		if err := checkBase64(srcPath, src.Str); err != nil {
			return parts, err
		}
		out.MediaType, out.Data = "application/pdf", src.Str
	default:
		return parts, invalid(srcPath, "must be a data: URL or an http(s) URL")
	}
	if p.detail.Exists() && p.detail.Type != gjson.Null {
		d, err := readString(p.detail, path+".detail")
		if err != nil {
			return parts, err
		}
		switch d {
		case "auto":
		case "low", "high", "original":
			req.Dropped = append(req.Dropped, path+".detail")
		default:
			return parts, invalid(path+".detail", `must be "auto", "low", "high" or "original"`)
		}
	}
	if p.keys&responsesKeyCacheBreakpoint != 0 {
		req.Dropped = append(req.Dropped, path+".prompt_cache_breakpoint")
	}
	return append(parts, out), nil
}

// responsesParseDataURL splits a data:<media type>;base64,<data> URL.
func responsesParseDataURL(s string) (mediaType, data string, ok bool) {
	header, data, found := strings.Cut(strings.TrimPrefix(s, "data:"), ",")
	mediaType, isBase64 := strings.CutSuffix(header, ";base64")
	if !found || !isBase64 || mediaType == "" || data == "" {
		return "", "", false
	}
	return mediaType, data, true
}

// appendResponsesDataURL appends p's source as a JSON string: its URL, or a
// data: URL rebuilt from MediaType and Data.
func appendResponsesDataURL(dst []byte, p *Part) []byte {
	if p.URL != "" {
		return jsonx.AppendString(dst, p.URL)
	}
	dst = append(dst, `"data:`...)
	dst = responsesAppendStringBody(dst, p.MediaType)
	dst = append(dst, ";base64,"...)
	dst = responsesAppendStringBody(dst, p.Data)
	return append(dst, '"')
}

// responsesAppendStringBody appends s escaped as in a JSON string, without
// the quotes.
func responsesAppendStringBody(dst []byte, s string) []byte {
	n := len(dst)
	dst = jsonx.AppendString(dst, s)
	copy(dst[n:], dst[n+1:len(dst)-1])
	return dst[:len(dst)-2]
}

// appendResponsesRequest encodes req as a Responses create-response body.
//
// llmbridge is stateless, so the body always says store:false and carries
// the whole history in input. System instructions become a leading system
// or developer message (per req.SystemRole) rather than the instructions
// field, and later system and developer messages stay in place: the
// Responses API accepts both roles anywhere in input.
func appendResponsesRequest(dst []byte, req *Request, opts *EncodeOptions) ([]byte, *Error) {
	if err := checkResponsesEncodable(req); err != nil {
		return dst, err
	}
	if req.Seed.Set {
		// Responses has no seed; best-effort determinism is a hint.
		req.Dropped = append(req.Dropped, "seed")
	}
	dst = append(dst, `{"model":`...)
	dst = jsonx.AppendString(dst, opts.model(req))
	dst = append(dst, `,"input":[`...)
	first := true
	var err *Error
	if len(req.System) > 0 {
		role := RoleSystem
		if req.SystemRole == RoleDeveloper {
			role = RoleDeveloper
		}
		if dst, err = appendResponsesItems(dst, req, role, req.System, -1, &first); err != nil {
			return dst, err
		}
	}
	for i := range req.Messages {
		if dst, err = appendResponsesItems(dst, req, req.Messages[i].Role, req.Messages[i].Parts, i, &first); err != nil {
			return dst, err
		}
	}
	dst = append(dst, ']')
	if dst, err = appendResponsesTools(dst, req); err != nil {
		return dst, err
	}
	dst = appendResponsesReasoning(dst, req, opts)
	if dst, err = appendResponsesText(dst, req); err != nil {
		return dst, err
	}
	if req.MaxTokens.Set {
		dst = append(dst, `,"max_output_tokens":`...)
		dst = jsonx.AppendInt(dst, req.MaxTokens.Value)
	}
	if req.Temperature.Set {
		dst = append(dst, `,"temperature":`...)
		dst = jsonx.AppendFloat(dst, req.Temperature.Value)
	}
	if req.TopP.Set {
		dst = append(dst, `,"top_p":`...)
		dst = jsonx.AppendFloat(dst, req.TopP.Value)
	}
	if req.User != "" {
		dst = append(dst, `,"user":`...)
		dst = appendOpenAIUser(dst, req.User)
	}
	if req.Stream {
		dst = append(dst, `,"stream":true`...)
	}
	dst = append(dst, `,"store":false}`...)
	return dst, nil
}

// checkResponsesEncodable rejects canonical parameters the Responses API has
// no field for and that change what the model generates.
func checkResponsesEncodable(req *Request) *Error {
	switch {
	case req.TopK.Set:
		return cannotEncode(OpenAIResponses, "top_k", "top_k sampling")
	case len(req.StopSequences) > 0:
		return cannotEncode(OpenAIResponses, "stop_sequences", "stop sequences")
	case req.PresencePenalty.Set:
		return cannotEncode(OpenAIResponses, "presence_penalty", "a presence penalty")
	case req.FrequencyPenalty.Set:
		return cannotEncode(OpenAIResponses, "frequency_penalty", "a frequency penalty")
	}
	return nil
}

// appendResponsesItems appends the input items of one canonical message
// (messages[msg], or the system prompt when msg < 0, in errors), with a
// comma before each unless *first.
// Tool calls become function_call items and tool results
// function_call_output items, in place; the other parts between them are
// grouped into message items.
func appendResponsesItems(dst []byte, req *Request, role Role, parts []Part, msg int, first *bool) ([]byte, *Error) {
	// Paths are only built for errors: this runs for every message.
	partPath := func(k int) string {
		base := "system"
		if msg >= 0 {
			base = indexPath("messages", msg)
		}
		return indexPath(base+".parts", k)
	}
	comma := func() {
		if !*first {
			dst = append(dst, ',')
		}
		*first = false
	}
	if len(parts) == 0 {
		comma()
		return appendResponsesMessage(dst, role, nil), nil
	}
	for i := 0; i < len(parts); {
		p := &parts[i]
		switch p.Type {
		case PartToolCall:
			if role != RoleAssistant {
				return dst, cannotEncode(OpenAIResponses, partPath(i), "a tool call outside an assistant message")
			}
			comma()
			dst = appendResponsesCallItem(dst, p)
			i++
			continue
		case PartToolResult:
			if role != RoleUser {
				return dst, cannotEncode(OpenAIResponses, partPath(i), "a tool result outside a user message")
			}
			comma()
			var err *Error
			if dst, err = appendResponsesOutputItem(dst, p, responsesCustomCall(req, p.ToolCallID), partPath(i)); err != nil {
				return dst, err
			}
			i++
			continue
		case PartReasoning:
			// Only OpenAI's own encrypted reasoning can go back to
			// OpenAI; anything else would be rejected or, as plain
			// text, misread as the model's words.
			if role == RoleAssistant && signedFor(p, OpenAIResponses) {
				comma()
				dst = appendResponsesReasoningItem(dst, p)
			} else {
				base := "system"
				if msg >= 0 {
					base = indexPath("messages", msg)
				}
				req.Dropped = append(req.Dropped, indexPath(base+".content", i)+" (reasoning)")
			}
			i++
			continue
		}
		// A run of content parts becomes one message item.
		j := i + 1
		for j < len(parts) && parts[j].Type != PartToolCall && parts[j].Type != PartToolResult && parts[j].Type != PartReasoning {
			j++
		}
		for k := i; k < j; k++ {
			switch parts[k].Type {
			case PartAudio:
				return dst, cannotEncode(OpenAIResponses, partPath(k), "audio input")
			case PartImage, PartDocument:
				if role != RoleUser {
					return dst, cannotEncode(OpenAIResponses, partPath(k), "an image or document outside a user message")
				}
			case PartText, PartRefusal:
			default:
				return dst, cannotEncode(OpenAIResponses, partPath(k), "a "+parts[k].Type.String()+" part")
			}
		}
		comma()
		dst = appendResponsesMessage(dst, role, parts[i:j])
		i = j
	}
	return dst, nil
}

// appendResponsesReasoningItem appends a reasoning input item carrying
// OpenAI's encrypted reasoning back: its id when known, its summary (empty
// when the text is), and encrypted_content.
func appendResponsesReasoningItem(dst []byte, p *Part) []byte {
	if isOpaque(p, mapping.FamilyOpenAI) && jsonx.Valid(p.Signature) {
		// An item llmbridge does not translate, back where it was.
		return append(dst, p.Signature...)
	}
	dst = append(dst, `{"type":"reasoning"`...)
	if p.ItemID != "" {
		dst = append(dst, `,"id":`...)
		dst = jsonx.AppendString(dst, p.ItemID)
	}
	dst = appendResponsesSummary(dst, p.Text)
	dst = append(dst, `,"encrypted_content":`...)
	dst = jsonx.AppendString(dst, p.Signature)
	return append(dst, '}')
}

// appendResponsesSummary appends the summary member of a reasoning item:
// one summary_text part holding text, or none when it is empty.
func appendResponsesSummary(dst []byte, text string) []byte {
	if text == "" {
		return append(dst, `,"summary":[]`...)
	}
	dst = append(dst, `,"summary":[{"type":"summary_text","text":`...)
	dst = jsonx.AppendString(dst, text)
	return append(dst, `}]`...)
}

// responsesWantsReasoning reports whether req asks for reasoning: a
// non-zero effort, a positive budget, or adaptive thinking.
func responsesWantsReasoning(r *Reasoning) bool {
	return r.Effort > mapping.EffortNone || r.Budget.Set && r.Budget.Value > 0 || r.Adaptive
}

// appendResponsesReasoning appends reasoning and include. An effort is sent by name (Anthropic's max as xhigh), a budget as
// the effort it stands for, adaptive thinking as no effort (the model
// decides); nothing is sent when nothing was asked. When reasoning is asked
// for without a summary setting, summary "auto" is sent so that the client
// sees what the model thought, unless the client said it does not want the
// reasoning shown (Gemini includeThoughts false, Anthropic display
// omitted). Encrypted reasoning is requested whenever the model reasons
// or the history holds some: with store:false it is the only way the next
// turn can continue the reasoning.
func appendResponsesReasoning(dst []byte, req *Request, opts *EncodeOptions) []byte {
	r := &req.Reasoning
	effort := r.Effort
	if effort == mapping.EffortUnset && r.Budget.Set && !r.Adaptive {
		effort = opts.EffortBudgets.Effort(r.Budget.Value)
	}
	if effort == mapping.EffortMax {
		effort = mapping.EffortXHigh
	}
	wants := responsesWantsReasoning(r)
	summary := r.Summary
	if summary == "" && wants && !(r.IncludeThoughts.Set && !r.IncludeThoughts.Value) && r.Display != "omitted" {
		summary = "auto"
	}
	if effort != mapping.EffortUnset || summary != "" {
		dst = append(dst, `,"reasoning":{`...)
		if effort != mapping.EffortUnset {
			dst = append(dst, `"effort":`...)
			dst = jsonx.AppendString(dst, effort.String())
			if summary != "" {
				dst = append(dst, ',')
			}
		}
		if summary != "" {
			dst = append(dst, `"summary":`...)
			dst = jsonx.AppendString(dst, summary)
		}
		dst = append(dst, '}')
	}
	encrypted := wants
	for i := 0; !encrypted && i < len(req.Include); i++ {
		encrypted = req.Include[i] == "reasoning.encrypted_content"
	}
	for i := 0; !encrypted && i < len(req.Messages); i++ {
		parts := req.Messages[i].Parts
		for k := range parts {
			if parts[k].Type == PartReasoning && signedFor(&parts[k], OpenAIResponses) {
				encrypted = true
				break
			}
		}
	}
	if encrypted {
		dst = append(dst, `,"include":["reasoning.encrypted_content"]`...)
	}
	return dst
}

// appendResponsesText appends text: the output format and verbosity. A JSON
// schema format needs a schema (OpenAI requires one) and a name, which is
// "response" when the client's protocol has none.
func appendResponsesText(dst []byte, req *Request) ([]byte, *Error) {
	f := &req.Format
	if f.Kind == FormatText && req.Verbosity == "" {
		return dst, nil
	}
	if f.Kind == FormatJSONSchema && f.Schema == "" {
		return dst, cannotEncode(OpenAIResponses, "text.format.schema", "a JSON schema output format without a schema")
	}
	dst = append(dst, `,"text":{`...)
	switch f.Kind {
	case FormatJSONObject:
		dst = append(dst, `"format":{"type":"json_object"}`...)
	case FormatJSONSchema:
		dst = append(dst, `"format":{"type":"json_schema","name":`...)
		name := f.Name
		if name == "" {
			name = "response"
		}
		dst = jsonx.AppendString(dst, name)
		if f.Description != "" {
			dst = append(dst, `,"description":`...)
			dst = jsonx.AppendString(dst, f.Description)
		}
		dst = append(dst, `,"schema":`...)
		dst = append(dst, f.Schema...)
		if f.Strict.Set {
			if f.Strict.Value {
				dst = append(dst, `,"strict":true`...)
			} else {
				dst = append(dst, `,"strict":false`...)
			}
		}
		dst = append(dst, '}')
	}
	if req.Verbosity != "" {
		if f.Kind != FormatText {
			dst = append(dst, ',')
		}
		dst = append(dst, `"verbosity":`...)
		dst = jsonx.AppendString(dst, req.Verbosity)
	}
	return append(dst, '}'), nil
}

// appendResponsesMessage appends one input message item of text, refusal,
// image and document parts (checked by the caller). Assistant text is
// output_text and keeps refusals in their own part; the other roles take
// input_text, and a refusal there (which only an assistant writes) is
// projected to text unchanged.
func appendResponsesMessage(dst []byte, role Role, parts []Part) []byte {
	dst = append(dst, `{"type":"message","role":`...)
	dst = jsonx.AppendString(dst, role.String())
	dst = append(dst, `,"content":[`...)
	for i := range parts {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendResponsesInputPart(dst, role, &parts[i])
	}
	return append(dst, `]}`...)
}

// appendResponsesInputPart appends one content part of an input message or
// tool output.
func appendResponsesInputPart(dst []byte, role Role, p *Part) []byte {
	switch {
	case p.Type == PartImage:
		dst = append(dst, `{"type":"input_image","image_url":`...)
		dst = appendResponsesDataURL(dst, p)
		return append(dst, `,"detail":"auto"}`...)
	case p.Type == PartDocument:
		dst = append(dst, `{"type":"input_file",`...)
		if p.URL != "" {
			dst = append(dst, `"file_url":`...)
			dst = jsonx.AppendString(dst, p.URL)
		} else {
			dst = append(dst, `"file_data":`...)
			dst = appendResponsesDataURL(dst, p)
		}
		// OpenAI needs a filename with file_data to read the file;
		// without a title, one is made from the media type.
		dst = append(dst, `,"filename":`...)
		dst = jsonx.AppendString(dst, responsesFilename(p))
		return append(dst, '}')
	case role != RoleAssistant:
		dst = append(dst, `{"type":"input_text","text":`...)
	case p.Type == PartRefusal:
		dst = append(dst, `{"type":"refusal","refusal":`...)
	default:
		dst = append(dst, `{"type":"output_text","text":`...)
	}
	dst = appendText(dst, p.Text, p)
	return append(dst, '}')
}

// responsesFilename is the filename of a document: its title, or
// "document" with the extension of its media type.
func responsesFilename(p *Part) string {
	if p.Text != "" {
		return p.Text
	}
	switch p.MediaType {
	case "application/pdf":
		return "document.pdf"
	case "text/plain":
		return "document.txt"
	}
	return "document"
}

// appendResponsesCallItem appends a function_call item (with its
// namespace, when it has one), or a custom_tool_call item for a call of a
// custom tool. Its arguments are the object text as a JSON string, "{}"
// when there are none; a custom call's input is its raw text.
func appendResponsesCallItem(dst []byte, p *Part) []byte {
	if p.ToolKind == ToolCustom {
		dst = append(dst, `{"type":"custom_tool_call","call_id":`...)
	} else {
		dst = append(dst, `{"type":"function_call","call_id":`...)
	}
	dst = jsonx.AppendString(dst, p.ToolCallID)
	dst = append(dst, `,"name":`...)
	dst = jsonx.AppendString(dst, p.ToolName)
	if p.Namespace != "" {
		dst = append(dst, `,"namespace":`...)
		dst = jsonx.AppendString(dst, p.Namespace)
	}
	if p.ToolKind == ToolCustom {
		dst = append(dst, `,"input":`...)
		dst = jsonx.AppendString(dst, customInput(p.Arguments))
	} else {
		dst = append(dst, `,"arguments":`...)
		dst = appendResponsesArguments(dst, p.Arguments)
	}
	return append(dst, '}')
}

// appendResponsesArguments appends arguments as a JSON string, "{}" for "".
func appendResponsesArguments(dst []byte, args string) []byte {
	if args == "" {
		return append(dst, `"{}"`...)
	}
	return jsonx.AppendString(dst, args)
}

// responsesCustomCall reports whether the call with id in req's history is
// a call of a custom tool, whose result is a custom_tool_call_output.
func responsesCustomCall(req *Request, id string) bool {
	custom := false
	for i := range req.Tools {
		custom = custom || req.Tools[i].Kind == ToolCustom
	}
	if !custom {
		return false
	}
	for i := range req.Messages {
		parts := req.Messages[i].Parts
		for k := range parts {
			if parts[k].Type == PartToolCall && parts[k].ToolCallID == id {
				return parts[k].ToolKind == ToolCustom
			}
		}
	}
	return false
}

// appendResponsesOutputItem appends a function_call_output item (a
// custom_tool_call_output for the result of a custom tool call). A result
// of one text part is a string output, anything else a list of input_text
// and input_image parts (Responses takes images in tool outputs). Responses
// has no error flag: an error result's text is prefixed with "Error: ", which
// decoders do not parse back.
func appendResponsesOutputItem(dst []byte, p *Part, custom bool, path string) ([]byte, *Error) {
	if custom {
		dst = append(dst, `{"type":"custom_tool_call_output","call_id":`...)
	} else {
		dst = append(dst, `{"type":"function_call_output","call_id":`...)
	}
	dst = jsonx.AppendString(dst, p.ToolCallID)
	dst = append(dst, `,"output":`...)
	prefix := ""
	if p.IsError {
		prefix = "Error: "
	}
	switch {
	case len(p.Content) == 0:
		dst = jsonx.AppendString(dst, strings.TrimSpace(prefix))
		return append(dst, '}'), nil
	case len(p.Content) == 1 && p.Content[0].Type == PartText:
		dst = appendText(dst, prefix+p.Content[0].Text, &p.Content[0])
		return append(dst, '}'), nil
	}
	dst = append(dst, '[')
	if p.IsError && p.Content[0].Type != PartText {
		dst = append(dst, `{"type":"input_text","text":"Error:"},`...)
	}
	for i := range p.Content {
		c := &p.Content[i]
		if i > 0 {
			dst = append(dst, ',')
		}
		switch c.Type {
		case PartText:
			dst = append(dst, `{"type":"input_text","text":`...)
			if i == 0 {
				dst = appendText(dst, prefix+c.Text, c)
			} else {
				dst = appendText(dst, c.Text, c)
			}
			dst = append(dst, '}')
		case PartImage:
			dst = appendResponsesInputPart(dst, RoleUser, c)
		default:
			return dst, cannotEncode(OpenAIResponses, indexPath(path+".content", i), "a "+c.Type.String()+" part in a tool result")
		}
	}
	return append(dst, "]}"...), nil
}

// appendResponsesTools appends tools, tool_choice and parallel_tool_calls.
// strict is always written: Responses treats a function without it as
// strict, while an unset canonical Strict means a plain tool. Without tools
// nothing is written (decoders keep no choice without tools). Functions of
// one namespace are grouped where the first of them stands; the web search
// keeps its options, with max_uses as max_tool_calls (it is the only hosted
// tool, so that limit is its limit).
func appendResponsesTools(dst []byte, req *Request) ([]byte, *Error) {
	if len(req.Tools) == 0 {
		return dst, nil
	}
	dst = append(dst, `,"tools":[`...)
	var maxUses OptInt
	n := 0
	for i := range req.Tools {
		t := &req.Tools[i]
		if t.Namespace != "" && responsesNamespaceSeen(req.Tools[:i], t.Namespace) {
			continue
		}
		if n > 0 {
			dst = append(dst, ',')
		}
		n++
		switch {
		case t.Kind == ToolWebSearch:
			if err := checkWebSearchFor(OpenAIResponses, t, i, webSearchCaps{maxUses: true, allowed: !t.WebSearch.Preview, location: true, contextSize: true}); err != nil {
				return dst, err
			}
			dst = appendResponsesWebSearch(dst, &t.WebSearch)
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
				dst = appendResponsesTool(dst, &req.Tools[j])
			}
			dst = append(dst, `]}`...)
		default:
			dst = appendResponsesTool(dst, t)
		}
	}
	if maxUses.Set {
		dst = append(dst, `],"max_tool_calls":`...)
		dst = jsonx.AppendInt(dst, maxUses.Value)
	} else {
		dst = append(dst, ']')
	}
	return appendResponsesToolChoice(dst, req), nil
}

// responsesNamespaceSeen reports whether a tool of namespace ns is among
// tools (its group has been written).
func responsesNamespaceSeen(tools []Tool, ns string) bool {
	for i := range tools {
		if tools[i].Namespace == ns {
			return true
		}
	}
	return false
}

// appendResponsesTool appends a function or custom tool definition.
func appendResponsesTool(dst []byte, t *Tool) []byte {
	if t.Kind == ToolCustom {
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

// appendResponsesWebSearch appends a web_search (or web_search_preview)
// tool with its options.
func appendResponsesWebSearch(dst []byte, w *WebSearchOptions) []byte {
	if w.Preview {
		dst = append(dst, `{"type":"web_search_preview"`...)
	} else {
		dst = append(dst, `{"type":"web_search"`...)
	}
	if len(w.AllowedDomains) > 0 {
		dst = append(dst, `,"filters":{"allowed_domains":`...)
		dst = appendStrings(dst, w.AllowedDomains)
		dst = append(dst, '}')
	}
	if !w.Location.IsZero() {
		dst = append(dst, `,"user_location":`...)
		dst = appendUserLocation(dst, &w.Location)
	}
	if w.ContextSize != "" {
		dst = append(dst, `,"search_context_size":`...)
		dst = jsonx.AppendString(dst, w.ContextSize)
	}
	return append(dst, '}')
}

// appendStrings appends ss as a JSON array of strings.
func appendStrings(dst []byte, ss []string) []byte {
	dst = append(dst, '[')
	for i, s := range ss {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = jsonx.AppendString(dst, s)
	}
	return append(dst, ']')
}

// appendUserLocation appends an approximate user location object, as
// Responses and Anthropic spell it.
func appendUserLocation(dst []byte, l *UserLocation) []byte {
	dst = append(dst, `{"type":"approximate"`...)
	for _, f := range [...]struct{ k, v string }{{"city", l.City}, {"region", l.Region}, {"country", l.Country}, {"timezone", l.Timezone}} {
		if f.v != "" {
			dst = append(dst, ',', '"')
			dst = append(dst, f.k...)
			dst = append(dst, '"', ':')
			dst = jsonx.AppendString(dst, f.v)
		}
	}
	return append(dst, '}')
}

// appendResponsesToolChoice appends tool_choice and parallel_tool_calls.
func appendResponsesToolChoice(dst []byte, req *Request) []byte {
	switch req.ToolChoice.Mode {
	case ToolChoiceAuto:
		dst = append(dst, `,"tool_choice":"auto"`...)
	case ToolChoiceNone:
		dst = append(dst, `,"tool_choice":"none"`...)
	case ToolChoiceRequired:
		dst = append(dst, `,"tool_choice":"required"`...)
	case ToolChoiceNamed:
		typ := `,"tool_choice":{"type":"function","name":`
		for i := range req.Tools {
			if t := &req.Tools[i]; t.Kind == ToolCustom && t.Name == req.ToolChoice.Name && t.Namespace == req.ToolChoice.Namespace {
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

// decodeResponsesResponse decodes a non-streamed Responses response body.
// Unknown top-level fields are ignored: a response echoes the request's
// configuration, which grows with every API release.
func decodeResponsesResponse(root gjson.Result, resp *Response) *Error {
	*resp = Response{Content: resp.Content[:0]}
	var status, incompleteReason string
	var output, usage, failure gjson.Result
	var err *Error
	jsonx.EachMember(root, &resp.text, func(key, value gjson.Result) bool {
		switch key.Str {
		case "object":
			if value.Str != "response" {
				err = badUpstream(OpenAIResponses, `object is not "response"`)
			}
		case "id":
			resp.ID, err = responsesUpstreamString(value, "id")
		case "model":
			resp.Model, err = responsesUpstreamString(value, "model")
		case "created_at":
			resp.Created, err = responsesUpstreamCount(value, "created_at")
		case "status":
			status, err = responsesUpstreamString(value, "status")
		case "incomplete_details":
			if value.IsObject() {
				incompleteReason, err = responsesUpstreamString(value.Get("reason"), "incomplete_details.reason")
			}
		case "error":
			failure = value
		case "output":
			output = value
		case "usage":
			usage = value
		}
		return err == nil
	})
	if err != nil {
		return err
	}
	if status == "" {
		return badUpstream(OpenAIResponses, "status is missing")
	}
	if status == "failed" {
		return responsesFailure(failure)
	}
	if !output.IsArray() {
		return badUpstream(OpenAIResponses, "output is missing or not an array")
	}
	hasRefusal, hasCall, err := decodeResponsesOutput(output, resp)
	if err != nil {
		return err
	}
	resp.StopReason, _ = mapping.FromResponsesStatus(status, incompleteReason, hasCall)
	if resp.StopReason == mapping.StopEnd && hasRefusal {
		resp.StopReason = mapping.StopRefusal
	}
	if usage.IsObject() {
		resp.Usage, err = decodeResponsesUsage(usage)
	}
	return err
}

// responsesUpstreamString reads a string field of an upstream response; null and
// absent are "".
func responsesUpstreamString(v gjson.Result, path string) (string, *Error) {
	if v.Type != gjson.String && v.Type != gjson.Null && v.Exists() {
		return "", badUpstream(OpenAIResponses, path+" is not a string")
	}
	return v.Str, nil
}

// responsesUpstreamCount reads an integer field of an upstream response; null and
// absent are 0.
func responsesUpstreamCount(v gjson.Result, path string) (int64, *Error) {
	if v.Type != gjson.Number && v.Type != gjson.Null && v.Exists() {
		return 0, badUpstream(OpenAIResponses, path+" is not a number")
	}
	return v.Int(), nil
}

// responsesFailure converts the error of a failed response. The upstream
// answered HTTP 200, but the generation failed on its side, hence 500.
func responsesFailure(v gjson.Result) *Error {
	e := &Error{Status: 500, Kind: mapping.ErrAPI, Protocol: OpenAIResponses}
	if v.IsObject() {
		e.Code = v.Get("code").String()
		e.Message = v.Get("message").String()
		if k, ok := mapping.FromOpenAIErrorType(e.Code); ok {
			e.Kind = k
		}
	}
	if e.Message == "" {
		e.Message = "upstream " + string(OpenAIResponses) + " response failed without an error message"
	}
	return e
}

// decodeResponsesOutput appends the assistant content of output items to
// resp.Content and reports whether it holds a refusal and a tool call.
func decodeResponsesOutput(output gjson.Result, resp *Response) (hasRefusal, hasCall bool, err *Error) {
	i := 0
	jsonx.EachMember(output, &resp.text, func(_, item gjson.Result) bool {
		typ := item.Get("type")
		switch typ.Str {
		case "message":
			var refused bool
			refused, err = decodeResponsesOutputMessage(item, i, resp)
			hasRefusal = hasRefusal || refused
		case "function_call":
			err = decodeResponsesOutputCall(item, i, resp)
			hasCall = true
		case "reasoning":
			err = decodeResponsesOutputReasoning(item, i, resp)
		case "web_search_call":
			decodeResponsesSearchCall(item, resp)
		default:
			if responsesClientAction[typ.Str] || !item.IsObject() {
				// A call the client would have to run: dropping it would
				// end the turn without the action it asks for.
				err = badUpstream(OpenAIResponses, indexPath("output", i)+`: output item type "`+typ.String()+`" cannot be translated yet`)
				break
			}
			resp.Content = append(resp.Content, opaquePart(mapping.FamilyOpenAI, item.Raw))
		}
		i++
		return err == nil
	})
	return hasRefusal, hasCall, err
}

// decodeResponsesSearchCall appends a web_search_call output item: the
// search as a PartServerToolCall (its action's query, or its queries
// joined, when the action is a search; open_page and find actions have
// none), and its action's sources, when the request asked for them, as a
// PartServerToolResult. A failed search is an error result. The item is
// what the upstream did, not the answer, so a malformed one never fails
// the response.
func decodeResponsesSearchCall(item gjson.Result, resp *Response) {
	id := item.Get("id").Str
	action := item.Get("action")
	query := action.Get("query").Str
	if query == "" {
		var qs []string
		action.Get("queries").ForEach(func(_, q gjson.Result) bool {
			qs = append(qs, q.Str)
			return true
		})
		query = strings.Join(qs, "\n")
	}
	resp.Content = append(resp.Content, Part{Type: PartServerToolCall, ToolKind: ToolWebSearch, ToolCallID: id, ToolName: "web_search",
		Arguments: searchArguments(query)})
	r := Part{Type: PartServerToolResult, ToolKind: ToolWebSearch, ToolCallID: id}
	action.Get("sources").ForEach(func(_, src gjson.Result) bool {
		if u := src.Get("url").Str; u != "" {
			r.Sources = append(r.Sources, Source{URL: u, Title: src.Get("title").Str})
		}
		return true
	})
	if item.Get("status").Str == "failed" {
		r.IsError, r.Text = true, "unavailable"
	}
	if len(r.Sources) > 0 || r.IsError {
		resp.Content = append(resp.Content, r)
	}
}

// decodeResponsesOutputReasoning appends the reasoning of reasoning output
// item i: its summary (else its reasoning_text content) as Text, its id, and
// its encrypted_content as an OpenAI signature. An item with neither text
// nor encrypted content (a request without a summary or include) carries
// nothing a client could see or send back, and is left out.
func decodeResponsesOutputReasoning(item gjson.Result, i int, resp *Response) *Error {
	path := indexPath("output", i)
	p := Part{Type: PartReasoning}
	var err *Error
	if p.ItemID, err = responsesUpstreamString(item.Get("id"), path+".id"); err != nil {
		return err
	}
	if p.Signature, err = responsesUpstreamString(item.Get("encrypted_content"), path+".encrypted_content"); err != nil {
		return err
	}
	if p.Text, err = responsesUpstreamTexts(item.Get("summary"), path+".summary"); err != nil {
		return err
	}
	if p.Text == "" {
		if p.Text, err = responsesUpstreamTexts(item.Get("content"), path+".content"); err != nil {
			return err
		}
	}
	if p.Signature != "" {
		p.Origin = mapping.FamilyOpenAI
	} else if p.Text == "" {
		return nil
	}
	resp.Content = append(resp.Content, p)
	return nil
}

// responsesUpstreamTexts joins the texts of an upstream reasoning item's
// summary or content parts with blank lines.
func responsesUpstreamTexts(v gjson.Result, path string) (string, *Error) {
	if !v.Exists() || v.Type == gjson.Null {
		return "", nil
	}
	if !v.IsArray() {
		return "", badUpstream(OpenAIResponses, path+" is not an array")
	}
	var b strings.Builder
	var err *Error
	j := 0
	v.ForEach(func(_, part gjson.Result) bool {
		var text string
		if text, err = responsesUpstreamString(part.Get("text"), indexPath(path, j)+".text"); err != nil {
			return false
		}
		// Empty parts add no separator, as in the stream decoder,
		// which separates parts only between texts it has sent.
		if b.Len() > 0 && text != "" {
			b.WriteString("\n\n")
		}
		b.WriteString(text)
		j++
		return true
	})
	return b.String(), err
}

// decodeResponsesOutputCall appends the tool call of function_call output
// item i; its arguments must be the text of a JSON object (or empty).
func decodeResponsesOutputCall(item gjson.Result, i int, resp *Response) *Error {
	path := indexPath("output", i)
	p := Part{Type: PartToolCall}
	var err *Error
	if p.ToolCallID, err = responsesUpstreamString(item.Get("call_id"), path+".call_id"); err != nil {
		return err
	}
	if p.ToolName, err = responsesUpstreamString(item.Get("name"), path+".name"); err != nil {
		return err
	}
	if p.Arguments, err = responsesUpstreamString(item.Get("arguments"), path+".arguments"); err != nil {
		return err
	}
	switch {
	case p.ToolCallID == "" || p.ToolName == "":
		return badUpstream(OpenAIResponses, path+": function_call has no call_id or name")
	case p.Arguments != "" && (!jsonx.Valid(p.Arguments) || !gjson.Parse(p.Arguments).IsObject()):
		return badUpstream(OpenAIResponses, path+".arguments is not a JSON object")
	}
	resp.Content = append(resp.Content, p)
	return nil
}

// decodeResponsesOutputMessage appends the parts of output message i. A
// content part is what the message shows (the upstream's state travels in
// items of their own: reasoning, compaction), so a part of a type
// llmbridge does not translate (output_audio, types added later) is
// display: it is dropped and listed in resp.Dropped, and the rest of the
// message reaches the client.
func decodeResponsesOutputMessage(item gjson.Result, i int, resp *Response) (hasRefusal bool, err *Error) {
	content := item.Get("content")
	if !content.IsArray() {
		return false, badUpstream(OpenAIResponses, indexPath("output", i)+".content is not an array")
	}
	j := 0
	jsonx.EachMember(content, &resp.text, func(_, part gjson.Result) bool {
		typ := part.Get("type")
		switch typ.Str {
		case "output_text":
			var text string
			text, err = responsesUpstreamString(part.Get("text"), indexPath(indexPath("output", i)+".content", j)+".text")
			resp.Content = append(resp.Content, Part{Type: PartText, Text: text, Citations: decodeURLCitations(part.Get("annotations"), text, nil)})
		case "refusal":
			var text string
			text, err = responsesUpstreamString(part.Get("refusal"), indexPath(indexPath("output", i)+".content", j)+".refusal")
			resp.Content = append(resp.Content, Part{Type: PartRefusal, Text: text})
			hasRefusal = true
		default:
			resp.Dropped = append(resp.Dropped, indexPath(indexPath("output", i)+".content", j)+" ("+typ.String()+")")
		}
		j++
		return err == nil
	})
	return hasRefusal, err
}

// decodeResponsesUsage reads usage. OpenAI counters already have canonical
// meaning: input_tokens includes cached tokens and output_tokens includes
// reasoning tokens. cache_write_tokens is documented but absent from real
// traffic, so it is optional.
func decodeResponsesUsage(v gjson.Result) (Usage, *Error) {
	u := Usage{Known: true}
	var err *Error
	for _, f := range [...]struct {
		path string
		dst  *int64
	}{
		{"input_tokens", &u.InputTokens},
		{"input_tokens_details.cached_tokens", &u.CacheReadTokens},
		{"input_tokens_details.cache_write_tokens", &u.CacheWriteTokens},
		{"output_tokens", &u.OutputTokens},
		{"output_tokens_details.reasoning_tokens", &u.ReasoningTokens},
	} {
		if *f.dst, err = responsesUpstreamCount(v.Get(f.path), "usage."+f.path); err != nil {
			return Usage{}, err
		}
	}
	return u, nil
}

// appendResponsesResponse encodes resp as a Responses response body with
// every field openai-go's responses.Response marks required. Fields that
// echo request configuration llmbridge did not keep (instructions,
// temperature, top_p, access_programs) are null, which the API spec allows,
// rather than invented values; metadata is empty because request metadata
// is a dropped hint; the tool fields state the only configuration a
// text-only translation can have.
func appendResponsesResponse(dst []byte, resp *Response, req *Request) ([]byte, *Error) {
	id := resp.ID
	if id == "" {
		id = newID("resp_")
	}
	created := resp.Created
	if created == 0 {
		created = time.Now().Unix()
	}
	status, incompleteReason := mapping.ResponsesStatus(resp.StopReason)

	dst = append(dst, `{"id":`...)
	dst = jsonx.AppendString(dst, id)
	dst = append(dst, `,"object":"response","created_at":`...)
	dst = jsonx.AppendInt(dst, created)
	dst = append(dst, `,"status":`...)
	dst = jsonx.AppendString(dst, status)
	dst = append(dst, `,"error":null,"incomplete_details":`...)
	if incompleteReason != "" {
		dst = append(dst, `{"reason":`...)
		dst = jsonx.AppendString(dst, incompleteReason)
		dst = append(dst, '}')
	} else {
		dst = append(dst, "null"...)
	}
	dst = append(dst, `,"instructions":null,"metadata":{},"model":`...)
	dst = jsonx.AppendString(dst, resp.Model)
	dst = append(dst, `,"output":[`...)
	// A refusal from a protocol without refusal parts (an Anthropic
	// stop_reason, say) becomes one (refusalOutput).
	var buf [1]Part
	content, err := refusalOutput(resp, OpenAIResponses, buf[:0])
	if err != nil {
		return dst, err
	}
	if dst, err = appendResponsesOutput(dst, id, status, content, req, resp); err != nil {
		return dst, err
	}
	dst = append(dst, `],"parallel_tool_calls":true,"temperature":null,"tool_choice":"auto","tools":[],"top_p":null,"access_programs":null`...)
	if resp.Usage.Known {
		dst = appendResponsesUsage(dst, &resp.Usage)
	}
	return append(dst, '}'), nil
}

// responsesMessageID derives the output message id from the response id, so
// that a response keeps the same ids however often it is encoded (and a
// streamed encoding can agree with a non-streamed one) without a random
// source per response.
func responsesMessageID(responseID string) string {
	if strings.HasPrefix(responseID, "msg_") {
		return responseID
	}
	return "msg_" + strings.TrimPrefix(responseID, "resp_")
}

// responsesOutputItemID returns the id of output item n: the message id for
// a message at index 0 (the only item of a text response), else the
// message id or, for a function call, "fc_" with the response id, and the
// item's index. The stream encoder uses the same ids.
func responsesOutputItemID(responseID string, n int, call bool) string {
	id := responsesMessageID(responseID)
	if call {
		id = "fc_" + strings.TrimPrefix(id, "msg_")
	} else if n == 0 {
		return id
	}
	return id + "_" + strconv.Itoa(n)
}

// responsesReasoningItemID returns the id of reasoning output item n that
// has no id of its own: "rs_" with the response id and the item's index.
func responsesReasoningItemID(responseID string, n int) string {
	return "rs_" + strings.TrimPrefix(responsesMessageID(responseID), "msg_") + "_" + strconv.Itoa(n)
}

// appendResponsesOutput appends the output items of content: each tool call
// is a function_call item (custom_tool_call for a custom tool of req, with
// its namespace restored for a namespaced function), each reasoning part a
// reasoning item, each hosted search a web_search_call item holding the
// sources of the results that follow it, and the parts between them are
// message items.
func appendResponsesOutput(dst []byte, responseID, status string, content []Part, req *Request, resp *Response) ([]byte, *Error) {
	n := 0
	for i := 0; i < len(content); n++ {
		switch p := &content[i]; p.Type {
		case PartToolCall:
			if n > 0 {
				dst = append(dst, ',')
			}
			dst = appendResponsesOutputCall(dst, responsesOutputItemID(responseID, n, true), status, p, req)
			i++
			continue
		case PartReasoning:
			if n > 0 {
				dst = append(dst, ',')
			}
			id := p.ItemID
			if id == "" {
				id = responsesReasoningItemID(responseID, n)
			}
			dst = appendResponsesOutputReasoning(dst, id, p.Text, p)
			i++
			continue
		case PartServerToolCall:
			if n > 0 {
				dst = append(dst, ',')
			}
			var next int
			dst, next = appendResponsesSearchCall(dst, responseID, n, content, i)
			i = next
			continue
		case PartServerToolResult:
			// A result after no search call has no item to go in.
			resp.Dropped = append(resp.Dropped, indexPath("content", i)+" (server tool result)")
			n--
			i++
			continue
		}
		if n > 0 {
			dst = append(dst, ',')
		}
		j := i + 1
		for j < len(content) && responsesInMessage(content[j].Type) {
			j++
		}
		var err *Error
		if dst, err = appendResponsesOutputMessage(dst, responsesOutputItemID(responseID, n, false), status, content[i:j]); err != nil {
			return dst, err
		}
		i = j
	}
	return dst, nil
}

// responsesInMessage reports whether a part of type t belongs in a message
// item.
func responsesInMessage(t PartType) bool {
	switch t {
	case PartToolCall, PartReasoning, PartServerToolCall, PartServerToolResult:
		return false
	}
	return true
}

// responsesSearchItemID is the id of web_search_call item n: the call's own
// id when it is a Responses one, else one made from the response id.
func responsesSearchItemID(own, responseID string, n int) string {
	if strings.HasPrefix(own, "ws_") {
		return own
	}
	return "ws_" + strings.TrimPrefix(responsesMessageID(responseID), "msg_") + "_" + strconv.Itoa(n)
}

// appendResponsesSearchCall appends the web_search_call item of the search
// call content[i], with the sources of the results that follow it (those
// answering its id, or without an id), and returns the index after them.
func appendResponsesSearchCall(dst []byte, responseID string, n int, content []Part, i int) ([]byte, int) {
	call := &content[i]
	j := i + 1
	failed := false
	for j < len(content) && content[j].Type == PartServerToolResult && (content[j].ToolCallID == "" || content[j].ToolCallID == call.ToolCallID) {
		failed = failed || content[j].IsError
		j++
	}
	status := "completed"
	if failed {
		status = "failed"
	}
	dst = appendResponsesSearchItem(dst, responsesSearchItemID(call.ToolCallID, responseID, n), status, searchQuery(call.Arguments), content[i+1:j])
	return dst, j
}

// appendResponsesSearchItem appends a web_search_call item: a search
// action with its query and the sources of results.
func appendResponsesSearchItem(dst []byte, id, status, query string, results []Part) []byte {
	dst = append(dst, `{"type":"web_search_call","id":`...)
	dst = jsonx.AppendString(dst, id)
	dst = append(dst, `,"status":`...)
	dst = jsonx.AppendString(dst, status)
	dst = append(dst, `,"action":{"type":"search","query":`...)
	dst = jsonx.AppendString(dst, query)
	first := true
	for k := range results {
		for _, src := range results[k].Sources {
			if first {
				dst = append(dst, `,"sources":[`...)
				first = false
			} else {
				dst = append(dst, ',')
			}
			dst = append(dst, `{"type":"url","url":`...)
			dst = jsonx.AppendString(dst, src.URL)
			dst = append(dst, '}')
		}
	}
	if !first {
		dst = append(dst, ']')
	}
	return append(dst, `}}`...)
}

// appendResponsesOutputReasoning appends a reasoning output item with id,
// summary text and, when p is signed, its opaque value as a continuation
// envelope in encrypted_content (the client sends the item back and
// llmbridge unwraps it for the upstream that issued it).
func appendResponsesOutputReasoning(dst []byte, id, text string, p *Part) []byte {
	dst = append(dst, `{"type":"reasoning","id":`...)
	dst = jsonx.AppendString(dst, id)
	dst = appendResponsesSummary(dst, text)
	if p.Signature != "" && p.Origin != mapping.FamilyNone {
		dst = append(dst, `,"encrypted_content":"`...)
		dst = appendOpaque(dst, p.Signature, p.Origin, p.Redacted, p.ItemID)
		dst = append(dst, '"')
	}
	return append(dst, '}')
}

// appendResponsesOutputCall appends a function_call output item, or a
// custom_tool_call item when the client's request (req, which may be nil)
// declared the called tool custom; a call of a namespaced function gets
// the function's own name and its namespace back.
func appendResponsesOutputCall(dst []byte, id, status string, p *Part, req *Request) []byte {
	name, ns, custom := p.ToolName, p.Namespace, p.ToolKind == ToolCustom
	if t := restoreResponsesTool(req, p.ToolName); t != nil {
		name, ns, custom = t.Name, t.Namespace, t.Kind == ToolCustom
	}
	if custom {
		dst = append(dst, `{"type":"custom_tool_call","id":`...)
	} else {
		dst = append(dst, `{"type":"function_call","id":`...)
	}
	dst = jsonx.AppendString(dst, id)
	dst = append(dst, `,"call_id":`...)
	dst = jsonx.AppendString(dst, p.ToolCallID)
	dst = append(dst, `,"name":`...)
	dst = jsonx.AppendString(dst, name)
	if ns != "" {
		dst = append(dst, `,"namespace":`...)
		dst = jsonx.AppendString(dst, ns)
	}
	if custom {
		dst = append(dst, `,"input":`...)
		dst = jsonx.AppendString(dst, customInput(p.Arguments))
		return append(dst, '}')
	}
	dst = append(dst, `,"arguments":`...)
	dst = appendResponsesArguments(dst, p.Arguments)
	dst = append(dst, `,"status":`...)
	dst = jsonx.AppendString(dst, status)
	return append(dst, '}')
}

// appendResponsesOutputMessage appends an assistant message item. Adjacent
// text parts stay separate output_text parts, as OpenAI emits them.
func appendResponsesOutputMessage(dst []byte, id, status string, content []Part) ([]byte, *Error) {
	dst = append(dst, `{"type":"message","id":`...)
	dst = jsonx.AppendString(dst, id)
	dst = append(dst, `,"status":`...)
	dst = jsonx.AppendString(dst, status)
	dst = append(dst, `,"role":"assistant","content":[`...)
	for i := range content {
		if i > 0 {
			dst = append(dst, ',')
		}
		switch p := &content[i]; p.Type {
		case PartText:
			dst = append(dst, `{"type":"output_text","text":`...)
			dst = jsonx.AppendString(dst, p.Text)
			dst = append(dst, `,"annotations":`...)
			dst = appendURLCitations(dst, p)
			dst = append(dst, `,"logprobs":[]}`...)
		case PartRefusal:
			dst = append(dst, `{"type":"refusal","refusal":`...)
			dst = jsonx.AppendString(dst, p.Text)
			dst = append(dst, '}')
		default:
			return dst, &Error{Status: 502, Kind: mapping.ErrBadGateway,
				Message: "the upstream response holds content that the " + string(OpenAIResponses) + " protocol cannot carry yet"}
		}
	}
	return append(dst, `]}`...), nil
}

// appendResponsesUsage appends the usage object; the counters are already
// in OpenAI's meaning. cache_write_tokens is written only when non-zero:
// OpenAI itself does not send it, but an Anthropic upstream's cache writes
// should not vanish.
func appendResponsesUsage(dst []byte, u *Usage) []byte {
	dst = append(dst, `,"usage":{"input_tokens":`...)
	dst = jsonx.AppendInt(dst, u.InputTokens)
	dst = append(dst, `,"input_tokens_details":{"cached_tokens":`...)
	dst = jsonx.AppendInt(dst, u.CacheReadTokens)
	if u.CacheWriteTokens > 0 {
		dst = append(dst, `,"cache_write_tokens":`...)
		dst = jsonx.AppendInt(dst, u.CacheWriteTokens)
	}
	dst = append(dst, `},"output_tokens":`...)
	dst = jsonx.AppendInt(dst, u.OutputTokens)
	dst = append(dst, `,"output_tokens_details":{"reasoning_tokens":`...)
	dst = jsonx.AppendInt(dst, u.ReasoningTokens)
	dst = append(dst, `},"total_tokens":`...)
	dst = jsonx.AppendInt(dst, u.TotalTokens())
	return append(dst, `}`...)
}

// responsesClientAction are the output item types that ask the client to
// act (run a tool, answer an approval): they cannot be carried as opaque
// state, since the turn would end without the action.
var responsesClientAction = map[string]bool{
	"custom_tool_call": true, "local_shell_call": true, "shell_call": true, "computer_call": true,
	"apply_patch_call": true, "mcp_approval_request": true,
}
