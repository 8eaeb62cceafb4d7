package responses

import (
	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/jsonx"
	"github.com/llmbridge/llmbridge/codec/internal/wire"
	"github.com/llmbridge/llmbridge/mapping"
	"github.com/tidwall/gjson"
)

// requestDecoder holds what decoding the top-level object collects
// before the conversation can be built: input needs instructions (which may
// come after it in the body) to lay out req.System, and safety_identifier
// only stands in for user when user is absent.
type requestDecoder struct {
	req   *request
	input gjson.Result
	// inputV and instructions are the input and instructions members
	// themselves, whose texts are read only if need be
	// (wire.ValueTextPart); input holds inputV shallowly
	// (jsonx.Value.Shallow), and instructions is set only when it is a
	// non-empty string.
	inputV, instructions jsonx.Value
	userSet              bool
	safetyIdentifier     string
	safetySet            bool
	toolChoice           gjson.Result   // checked once tools are known
	parallel             codec.OptBool  // parallel_tool_calls, kept once tools are known
	maxToolCalls         codec.OptInt   // max_tool_calls, kept once tools are known
	cacheTTL             codec.CacheTTL // prompt_cache_options.ttl, for every breakpoint
}

// decodeRequest decodes a Responses create-response body. The root
// object is walked once; every key is mapped, recorded as a dropped hint,
// rejected as a capability outside the current scope, or rejected as
// unknown.
func decodeRequest(root gjson.Result, req *request) *codec.Error {
	d := requestDecoder{req: req}
	var err *codec.Error
	for key, member := range jsonx.Members(root.Raw, &req.Text) {
		var value gjson.Result
		switch key {
		case "input":
			d.inputV, value = member, member.Shallow()
		case "instructions":
			d.instructions, value = jsonx.Value{}, member.Shallow()
			if value.Type == gjson.String && value.Str != "" {
				d.instructions = member
			}
		default:
			value = member.Result()
		}
		err = d.field(key, value)
		if err != nil {
			break
		}
	}
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
	if (!d.input.Exists() || d.input.Type == gjson.Null) && req.Continues != "" {
		// The caller decodes the request again once the conversation
		// it continues is its input.
		return nil
	}
	if !d.input.Exists() || d.input.Type == gjson.Null {
		// previous_response_id and prompt, the other sources of a
		// conversation, are rejected, so input is required here.
		return codec.InvalidRequest("input", "is required")
	}
	if err := decodeInput(d.input, d.inputV, d.instructions, req); err != nil {
		return err
	}
	wire.FinishOpenAICache(req.Request, d.cacheTTL)
	return nil
}

// field decodes one top-level key. null means absent for every optional
// field, so a null known field is accepted and ignored.
//
//fields:all
func (d *requestDecoder) field(key string, v gjson.Result) *codec.Error {
	req := d.req
	switch key {
	// Mapped fields.
	case "model": //field:mapped
		if v.Type == gjson.Null {
			return nil
		}
		s, err := wire.ReadString(v, key)
		req.Model = s
		return err
	case "input": //field:mapped
		if v.Type != gjson.Null && v.Type != gjson.String && !v.IsArray() {
			return wire.WrongType(key, "string or array", v)
		}
		d.input = v
	case "instructions": //field:mapped
		if v.Type == gjson.Null {
			return nil
		}
		// The text itself is read from the member (decodeRequest keeps
		// it when it is a non-empty string). An empty instructions string
		// is "no instructions" (some clients always send the field); an
		// empty system part would be rejected by upstreams such as
		// Anthropic.
		_, err := wire.ReadString(v, key)
		return err
	case "max_output_tokens": //field:mapped
		return wire.ReadInt(v, key, &req.MaxTokens)
	case "temperature": //field:mapped
		return wire.ReadFloat(v, key, &req.Temperature)
	case "top_p": //field:mapped
		return wire.ReadFloat(v, key, &req.TopP)
	case "user": //field:hint
		if v.Type == gjson.Null {
			return nil
		}
		s, err := wire.ReadString(v, key)
		req.User, d.userSet = s, s != ""
		return err
	case "safety_identifier": //field:hint
		if v.Type == gjson.Null {
			return nil
		}
		s, err := wire.ReadString(v, key)
		d.safetyIdentifier, d.safetySet = s, true
		return err
	case "stream": //field:mapped
		if v.Type == gjson.Null {
			return nil
		}
		b, err := wire.ReadBool(v, key)
		// Responses streams always end with usage in response.completed.
		req.Stream, req.StreamUsage = b, b
		return err
	case "stream_options": //field:-
		return d.streamOptions(v)

	// Hints: they steer the provider, not what the model generates.
	case "store": //field:hint
		if req.Conversations && (v.Type == gjson.True || v.Type == gjson.False) {
			req.Store = codec.OptBool{Set: true, Value: v.Type == gjson.True}
		}
		return d.hint(key, v, hintBool)
	case "parallel_tool_calls": //field:hint
		return wire.ReadOptBool(v, key, &d.parallel)
	case "metadata", "client_metadata": //field:hint
		return d.hint(key, v, hintObject)
	case "service_tier": //field:hint
		return d.hint(key, v, hintString)
	case "prompt_cache_key": //field:hint
		// It routes requests to OpenAI's prompt cache: carried to Chat
		// Completions, dropped toward the other providers.
		return wire.ReadOptString(v, key, &req.Cache.Key)
	case "prompt_cache_retention": //field:hint
		// How long OpenAI keeps the cached prefix: carried to Chat
		// Completions; other providers keep their own lifetimes.
		return wire.ReadOptString(v, key, &req.Cache.Retention)
	case "prompt_cache_options": //field:hint
		// Whether OpenAI adds a breakpoint of its own (mode) and the
		// least lifetime of every breakpoint (ttl): the automatic
		// breakpoint and the lifetimes of the canonical request.
		var err *codec.Error
		d.cacheTTL, err = wire.ReadPromptCacheOptions(req.Request, v, key)
		return err
	case "max_tool_calls": //field:hint
		// Kept until the tools are known (finishTools).
		return wire.ReadInt(v, key, &d.maxToolCalls)
	case "truncation": //field:hint
		return d.truncation(v)
	case "include": //field:hint
		return d.include(v)
	case "tool_choice": //field:mapped
		d.toolChoice = v
	case "tools": //field:mapped
		return decodeTools(v, req)
	case "text": //field:-
		return textConfig(v, req)
	case "reasoning": //field:-
		return d.reasoning(v)
	case "background": //field:capability
		if v.Type == gjson.Null {
			return nil
		}
		b, err := wire.ReadBool(v, key)
		if err == nil && b {
			return wire.UnsupportedField(key, "background responses are kept on the provider's servers; llmbridge is stateless")
		}
		return err
	case "top_logprobs": //field:capability
		var n codec.OptInt
		if err := wire.ReadInt(v, key, &n); err != nil {
			return err
		}
		if n.Value != 0 {
			return wire.UnsupportedField(key, "log probabilities are not supported")
		}

	// Capabilities outside the current scope.
	case "previous_response_id": //field:capability
		if req.Conversations && v.Type == gjson.String && v.Str != "" {
			// The caller continues the conversations it keeps.
			req.Continues = v.Str
			return nil
		}
		return wire.RejectUnlessNull(v, key, "server-side conversation state is not supported; send the history in input")
	case "conversation": //field:capability
		return wire.RejectUnlessNull(v, key, "server-side conversation state is not supported; send the history in input")
	case "prompt": //field:capability
		return wire.RejectUnlessNull(v, key, "prompt templates are stored on the provider's servers and cannot be translated")
	case "context_management": //field:capability
		return wire.RejectUnlessNull(v, key, "server-side context compaction is not supported")
	case "moderation": //field:capability
		return wire.RejectUnlessNull(v, key, "provider-side moderation of input and output is not supported")
	case "access_programs": //field:capability
		return wire.RejectUnlessNull(v, key, "access programs are specific to OpenAI")
	case "image": //field:capability
		return wire.RejectUnlessNull(v, key, "image options are not supported yet")
	default:
		return wire.UnknownField(key)
	}
	return nil
}

// hintKind is the JSON type a hint field must have.
type hintKind uint8

const (
	hintBool hintKind = iota
	hintString
	hintObject
	hintInt
)

// checkHintKind checks that v, which is not null, is of kind k.
func checkHintKind(v gjson.Result, path string, k hintKind) *codec.Error {
	switch k {
	case hintBool:
		_, err := wire.ReadBool(v, path)
		return err
	case hintString:
		_, err := wire.ReadString(v, path)
		return err
	case hintObject:
		if !v.IsObject() {
			return wire.WrongType(path, "object", v)
		}
		return nil
	}
	var n codec.OptInt
	return wire.ReadInt(v, path, &n)
}

// hint validates a hint field's type and records it as dropped.
func (d *requestDecoder) hint(path string, v gjson.Result, k hintKind) *codec.Error {
	if v.Type == gjson.Null {
		return nil
	}
	if err := checkHintKind(v, path, k); err != nil {
		return err
	}
	d.req.Dropped = append(d.req.Dropped, path)
	return nil
}

// streamOptions decodes stream_options, whose only option is a hint.
func (d *requestDecoder) streamOptions(v gjson.Result) *codec.Error {
	if v.Type == gjson.Null {
		return nil
	}
	if !v.IsObject() {
		return wire.WrongType("stream_options", "object", v)
	}
	var err *codec.Error
	for key, member := range jsonx.Members(v.Raw, &d.req.Text) {
		value := member.Result()
		switch key {
		case "include_obfuscation": //field:stream_options.include_obfuscation: hint
			err = d.hint("stream_options.include_obfuscation", value, hintBool)
		default:
			err = wire.UnknownField("stream_options." + key)
		}
		if err != nil {
			break
		}
	}
	return err
}

// truncation accepts the default "disabled" as a hint; "auto" lets the
// provider drop the start of the conversation, which no other protocol does.
func (d *requestDecoder) truncation(v gjson.Result) *codec.Error {
	if v.Type == gjson.Null {
		return nil
	}
	s, err := wire.ReadString(v, "truncation")
	if err != nil {
		return err
	}
	switch s {
	case "disabled":
		d.req.Dropped = append(d.req.Dropped, "truncation")
		return nil
	case "auto":
		return wire.UnsupportedField("truncation", `"auto" truncation of the conversation is not supported`) //field:truncation (auto): capability
	}
	return codec.InvalidRequest("truncation", `must be "auto" or "disabled"`)
}

// include asks for extra output data. The values are kept in
// Request.Include, where encoders read what they need:
// reasoning.encrypted_content asks for the opaque reasoning state, which a
// Responses upstream is asked for and other upstreams' reasoning is
// returned in anyway (it is never fabricated). The other values ask for
// nothing in a conversation without hosted tools, so when one is present the
// field is listed as dropped; logprobs are a capability.
func (d *requestDecoder) include(v gjson.Result) *codec.Error {
	if v.Type == gjson.Null {
		return nil
	}
	if !v.IsArray() {
		return wire.WrongType("include", "array of strings", v)
	}
	var err *codec.Error
	n := 0
	hint := false
	include := d.req.Include[:0]
	for _, member := range jsonx.Members(v.Raw, &d.req.Text) {
		value := member.Result()
		if value.Type != gjson.String {
			err = wire.WrongType(wire.IndexPath("include", n), "string", value)
			break
		}
		switch value.Str {
		case "reasoning.encrypted_content":
		case "file_search_call.results", "web_search_call.results",
			"web_search_call.action.sources", "message.input_image.image_url",
			"computer_call_output.output.image_url", "code_interpreter_call.outputs":
			hint = true
		case "message.output_text.logprobs": //field:include (message.output_text.logprobs): capability
			err = wire.UnsupportedField(wire.IndexPath("include", n), "log probabilities are not supported")
		default:
			err = codec.InvalidRequest(wire.IndexPath("include", n), `unknown include value "`+value.Str+`"`)
		}
		include = append(include, value.Str)
		n++
		if err != nil {
			break
		}
	}
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
func (d *requestDecoder) finishTools() *codec.Error {
	req := d.req
	v := d.toolChoice
	if v.Exists() && v.Type != gjson.Null {
		c, err := decodeToolChoice(v)
		if err != nil {
			return err
		}
		switch {
		case len(req.Tools) > 0:
			if err := resolveChoiceNamespace(&c, req.Tools); err != nil {
				return err
			}
			req.ToolChoice = c
		case c.Mode == codec.ToolChoiceAuto || c.Mode == codec.ToolChoiceNone:
			req.Dropped = append(req.Dropped, "tool_choice")
		default:
			return codec.InvalidRequest("tool_choice", "forces a tool call, but the request has no tools")
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
			if req.Tools[i].Kind == codec.ToolWebSearch {
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

// textConfig decodes text: the output format (structured
// output) and verbosity.
func textConfig(v gjson.Result, req *request) *codec.Error {
	if v.Type == gjson.Null {
		return nil
	}
	if !v.IsObject() {
		return wire.WrongType("text", "object", v)
	}
	var err *codec.Error
	for key, member := range jsonx.Members(v.Raw, &req.Text) {
		value := member.Result()
		switch key {
		case "format": //field:text.format: mapped
			err = textFormat(value, req)
		case "verbosity": //field:text.verbosity: capability
			req.Verbosity, err = verbosity(value, "text.verbosity")
		default:
			err = wire.UnknownField("text." + key)
		}
		if err != nil {
			break
		}
	}
	return err
}

// verbosity reads an OpenAI verbosity value (low, medium or
// high); null is "".
func verbosity(v gjson.Result, path string) (string, *codec.Error) {
	if v.Type == gjson.Null {
		return "", nil
	}
	s, err := wire.ReadString(v, path)
	if err != nil {
		return "", err
	}
	switch s {
	case "low", "medium", "high":
		return s, nil
	}
	return "", codec.InvalidRequest(path, `must be "low", "medium" or "high"`)
}

// textFormat decodes text.format into req.Format: text (the
// default, normalised to the zero format), json_object, or json_schema with
// its name, schema, description and strict flag.
func textFormat(v gjson.Result, req *request) *codec.Error {
	if v.Type == gjson.Null {
		return nil
	}
	if !v.IsObject() {
		return wire.WrongType("text.format", "object", v)
	}
	typ := v.Get("type")
	if !typ.Exists() || typ.Type == gjson.Null {
		return codec.InvalidRequest("text.format.type", "is required")
	}
	s, err := wire.ReadString(typ, "text.format.type")
	if err != nil {
		return err
	}
	var f codec.OutputFormat
	switch s {
	case "text":
	case "json_object": //field:text.format (json_object): capability
		f.Kind = codec.FormatJSONObject
	case "json_schema":
		f.Kind = codec.FormatJSONSchema
	default:
		return codec.InvalidRequest("text.format.type", `unknown format type "`+s+`"`)
	}
	hasSchema := false
	for key, member := range jsonx.Members(v.Raw, &req.Text) {
		value := member.Result()
		path := "text.format." + key
		switch {
		case key == "type":
		case f.Kind != codec.FormatJSONSchema:
			err = wire.UnknownField(path)
		case key == "name":
			f.Name, err = wire.ReadString(value, path)
		case key == "description":
			if value.Type != gjson.Null {
				f.Description, err = wire.ReadString(value, path)
			}
		case key == "schema":
			if !value.IsObject() {
				err = wire.WrongType(path, "object", value)
			}
			f.Schema, hasSchema = value.Raw, true
		case key == "strict":
			if value.Type != gjson.Null {
				f.Strict.Value, err = wire.ReadBool(value, path)
				f.Strict.Set = true
			}
		default:
			err = wire.UnknownField(path)
		}
		if err != nil {
			break
		}
	}
	switch {
	case err != nil:
		return err
	case f.Kind == codec.FormatJSONSchema && f.Name == "":
		return codec.InvalidRequest("text.format.name", "is required")
	case f.Kind == codec.FormatJSONSchema && !hasSchema:
		return codec.InvalidRequest("text.format.schema", "is required")
	}
	req.Format = f
	return nil
}

// reasoning decodes the reasoning configuration: null,
// {} and a summary alone ask for nothing (the summary is kept for encoders
// that can use it); an effort is mapped, "none" included. A non-null
// context (which turns' reasoning the provider keeps) and execution modes
// have no equivalent elsewhere and are rejected.
func (d *requestDecoder) reasoning(v gjson.Result) *codec.Error {
	if v.Type == gjson.Null {
		return nil
	}
	if !v.IsObject() {
		return wire.WrongType("reasoning", "object", v)
	}
	r := &d.req.Reasoning
	var err *codec.Error
	for key, member := range jsonx.Members(v.Raw, &d.req.Text) {
		value := member.Result()
		switch key {
		case "effort": //field:reasoning.effort: mapped
			err = effort(value, "reasoning.effort", &r.Effort)
		case "context": //field:reasoning.context: capability
			err = wire.RejectUnlessNull(value, "reasoning.context", "reasoning context modes cannot be translated")
		case "mode": //field:reasoning.mode: capability
			err = wire.RejectUnlessNull(value, "reasoning.mode", "reasoning execution modes are not supported")
		case "summary", "generate_summary": //field:reasoning.summary: hint
			err = d.reasoningSummary("reasoning."+key, value)
		default:
			err = wire.UnknownField("reasoning." + key)
		}
		if err != nil {
			break
		}
	}
	return err
}

// effort reads an OpenAI reasoning effort; null leaves dst unset.
func effort(v gjson.Result, path string, dst *mapping.Effort) *codec.Error {
	if v.Type == gjson.Null {
		return nil
	}
	s, err := wire.ReadString(v, path)
	if err != nil {
		return err
	}
	e, ok := mapping.ParseEffort(s)
	if !ok || e == mapping.EffortMax {
		// max is Anthropic's word; OpenAI's highest effort is xhigh.
		return codec.InvalidRequest(path, `must be "none", "minimal", "low", "medium", "high" or "xhigh"`)
	}
	*dst = e
	return nil
}

// reasoningSummary reads reasoning.summary (or its deprecated alias
// generate_summary) into Reasoning.Summary.
func (d *requestDecoder) reasoningSummary(path string, v gjson.Result) *codec.Error {
	if v.Type == gjson.Null {
		return nil
	}
	s, err := wire.ReadString(v, path)
	if err != nil {
		return err
	}
	switch s {
	case "auto", "concise", "detailed":
		d.req.Reasoning.Summary = s
		return nil
	}
	return codec.InvalidRequest(path, `must be "auto", "concise" or "detailed"`)
}
