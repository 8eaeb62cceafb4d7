package chat

import (
	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/jsonx"
	"github.com/llmbridge/llmbridge/codec/internal/wire"
	"github.com/llmbridge/llmbridge/mapping"
	"github.com/tidwall/gjson"
)

// decodeChatRequest decodes a Chat Completions request body.
//
// The top-level object is walked once. Fields whose meaning depends on other
// fields (max_tokens against max_completion_tokens, user against
// safety_identifier, the messages themselves) are collected first and
// settled by finish, so that the result never depends on key order.
func decodeChatRequest(root gjson.Result, req *request) *codec.Error {
	d := requestDecoder{req: req, results: -1}
	var err *codec.Error
	for key, member := range jsonx.Members(root.Raw, &req.Text) {
		value := member.Result()
		err = d.field(key, value)
		if err != nil {
			break
		}
	}
	if err != nil {
		return err
	}
	return d.finish()
}

// requestDecoder carries the state of one request decode.
type requestDecoder struct {
	req *request

	model    gjson.Result
	messages gjson.Result

	maxTokens           codec.OptInt
	maxCompletionTokens codec.OptInt

	user             gjson.Result
	safetyIdentifier gjson.Result

	// cacheTTL is prompt_cache_options.ttl, for every breakpoint.
	cacheTTL codec.CacheTTL

	// parts is the one backing array that the content of every message and
	// of the system prompt is sub-sliced from.
	parts []codec.Part
	// conversationStarted is set by the first user or assistant message;
	// system and developer messages before it form the system prompt.
	conversationStarted bool
	// results is the index in req.Messages of the user message that the
	// tool messages just decoded became, or -1; resultsStart is where its
	// parts start in parts.
	results, resultsStart int
	// leading are the Anthropic reasoning parts the tool-call ids of the
	// message being decoded carried (idReasoning), which go to the
	// start of the message.
	leading []codec.Part
}

// field decodes one top-level field. The groups follow the field policy:
// mapped fields, harmless defaults of capabilities that are not translated
// yet, hints that are recorded in Dropped, and capabilities that are
// rejected.
//
//fields:all
func (d *requestDecoder) field(key string, v gjson.Result) *codec.Error {
	req := d.req
	switch key {
	// Mapped fields.
	case "model": //field:mapped
		d.model = v
	case "messages": //field:mapped
		d.messages = v
	case "max_tokens": //field:mapped
		return wire.ReadInt(v, key, &d.maxTokens)
	case "max_completion_tokens": //field:mapped
		return wire.ReadInt(v, key, &d.maxCompletionTokens)
	case "temperature": //field:mapped
		return wire.ReadFloat(v, key, &req.Temperature)
	case "top_p": //field:mapped
		return wire.ReadFloat(v, key, &req.TopP)
	case "presence_penalty": //field:capability
		return wire.ReadFloat(v, key, &req.PresencePenalty)
	case "frequency_penalty": //field:capability
		return wire.ReadFloat(v, key, &req.FrequencyPenalty)
	case "seed": //field:hint
		return wire.ReadInt(v, key, &req.Seed)
	case "stop": //field:capability
		var err *codec.Error
		req.StopSequences, err = wire.ReadStringList(v, key, true, req.StopSequences[:0], &req.Text)
		return err
	case "user": //field:hint
		return optionalString(v, key, &d.user)
	case "safety_identifier": //field:hint
		return optionalString(v, key, &d.safetyIdentifier)
	case "stream": //field:mapped
		return optionalBool(v, key, &req.Stream)
	case "stream_options": //field:-
		return d.streamOptions(v)

	// Capabilities that are accepted only with their harmless defaults.
	case "n": //field:capability
		return choiceCount(v)
	case "logprobs": //field:capability
		if v.Type == gjson.True {
			return wire.UnsupportedField(key, "log probabilities are not supported yet")
		}
		var off bool
		return optionalBool(v, key, &off)
	case "modalities": //field:capability
		return modalities(v)

	// Reasoning and output settings.
	case "response_format": //field:mapped
		return responseFormat(v, &req.Text, &req.Format)
	case "reasoning_effort": //field:mapped
		return reasoningEffort(v, &req.Reasoning)
	case "verbosity": //field:capability
		return verbosity(v, &req.Verbosity)

	// Tool use, settled in finish: without tools, tool_choice auto or
	// none and parallel_tool_calls are hints.
	case "tools": //field:mapped
		return d.tools(v)
	case "tool_choice": //field:mapped
		return d.toolChoice(v)
	case "parallel_tool_calls": //field:hint
		return wire.ReadOptBool(v, key, &req.ParallelToolCalls)

	// Hints: they do not change what the model generates.
	case "store": //field:hint
		return d.hint(key, v, isBool(v), "boolean")
	case "metadata": //field:hint
		return d.hint(key, v, v.IsObject(), "object")
	case "service_tier": //field:hint
		return d.hint(key, v, v.Type == gjson.String, "string")
	case "prompt_cache_key": //field:hint
		// It routes requests to OpenAI's prompt cache: carried to OpenAI's
		// Responses, dropped toward the other providers.
		return wire.ReadOptString(v, key, &req.Cache.Key)
	case "prompt_cache_retention": //field:hint
		// How long OpenAI keeps the cached prefix: carried to OpenAI's
		// Responses; other providers keep their own lifetimes.
		return wire.ReadOptString(v, key, &req.Cache.Retention)
	case "prompt_cache_options": //field:hint
		// Whether OpenAI adds a breakpoint of its own (mode) and the
		// least lifetime of every breakpoint (ttl): the automatic
		// breakpoint and the lifetimes of the canonical request.
		var err *codec.Error
		d.cacheTTL, err = wire.ReadPromptCacheOptions(req.Request, v, key)
		return err

	// Capabilities outside the current scope.
	case "top_logprobs": //field:capability
		return wire.RejectUnlessNull(v, key, "log probabilities are not supported yet")
	case "logit_bias": //field:capability
		return wire.RejectUnlessNull(v, key, "token biases cannot be translated")
	case "audio": //field:capability
		return wire.RejectUnlessNull(v, key, "audio output is not supported yet")
	case "functions", "function_call": //field:capability
		return wire.RejectUnlessNull(v, key, "the deprecated functions API is not supported; use tools and tool_choice")
	case "prediction": //field:capability
		return wire.RejectUnlessNull(v, key, "predicted outputs are not supported yet")
	case "web_search_options": //field:capability
		// Search models always search with these options; every other
		// protocol offers search as a tool the model may or may not call,
		// which is a different request, so it is not approximated.
		return wire.RejectUnlessNull(v, key, "web_search_options is for OpenAI's search models, which always search; other upstreams offer web search only as a tool the model may call; remove it or ask the operator to drop it (field web_search_options)")
	default:
		return wire.UnknownField(key)
	}
	return nil
}

// finish checks the required fields, settles the fields that depend on each
// other and decodes the messages.
func (d *requestDecoder) finish() *codec.Error {
	req := d.req
	// The model is optional here: a library caller may name it when
	// encoding, and the HTTP layer requires it where the upstream does.
	switch d.model.Type {
	case gjson.Null:
	case gjson.String:
		req.Model = d.model.Str
	default:
		return wire.WrongType("model", "string", d.model)
	}

	if err := d.settleMaxTokens(); err != nil {
		return err
	}
	if err := d.settleTools(); err != nil {
		return err
	}
	d.settleUser()
	if err := d.decodeMessages(); err != nil {
		return err
	}
	wire.FinishOpenAICache(req.Request, d.cacheTTL)
	return nil
}

// settleMaxTokens maps max_tokens (deprecated) and max_completion_tokens,
// which mean the same limit; giving both with different values is
// ambiguous.
func (d *requestDecoder) settleMaxTokens() *codec.Error {
	mt, mct := d.maxTokens, d.maxCompletionTokens
	if mt.Set && mct.Set && mt.Value != mct.Value {
		return codec.InvalidRequest("max_completion_tokens", "differs from max_tokens; give only one of them")
	}
	if mct.Set {
		d.req.MaxTokens = mct
	} else {
		d.req.MaxTokens = mt
	}
	return nil
}

// settleUser maps user, and safety_identifier (its successor) when user is
// absent; when both are given, user wins and safety_identifier is a hint.
func (d *requestDecoder) settleUser() {
	switch {
	case d.user.Type == gjson.String:
		d.req.User = d.user.Str
		if d.safetyIdentifier.Type == gjson.String {
			d.req.Dropped = append(d.req.Dropped, "safety_identifier")
		}
	case d.safetyIdentifier.Type == gjson.String:
		d.req.User = d.safetyIdentifier.Str
	}
}

// hint records a hint field after checking its type; null means absent and
// is not recorded.
func (d *requestDecoder) hint(path string, v gjson.Result, typeOK bool, want string) *codec.Error {
	if v.Type == gjson.Null {
		return nil
	}
	if !typeOK {
		return wire.WrongType(path, want, v)
	}
	d.req.Dropped = append(d.req.Dropped, path)
	return nil
}

// streamOptions decodes stream_options. include_usage is honoured (and
// always asked of a Chat upstream anyway); include_obfuscation only pads
// stream chunks and is a hint.
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
		case "include_usage": //field:stream_options.include_usage: mapped
			err = optionalBool(value, "stream_options.include_usage", &d.req.StreamUsage)
		case "include_obfuscation": //field:stream_options.include_obfuscation: hint
			err = d.hint("stream_options.include_obfuscation", value, isBool(value), "boolean")
		default:
			err = wire.UnknownField("stream_options." + key)
		}
		if err != nil {
			break
		}
	}
	return err
}

// settleTools settles tool_choice and parallel_tool_calls against tools.
// Without tools, tool_choice auto or none and parallel_tool_calls say
// nothing (some clients always send them) and are hints; forcing a tool
// that is not offered is an error, as OpenAI answers it.
func (d *requestDecoder) settleTools() *codec.Error {
	req := d.req
	if len(req.Tools) > 0 {
		return nil
	}
	switch req.ToolChoice.Mode {
	case codec.ToolChoiceAuto, codec.ToolChoiceNone:
		req.ToolChoice = codec.ToolChoice{}
		req.Dropped = append(req.Dropped, "tool_choice")
	case codec.ToolChoiceRequired, codec.ToolChoiceNamed:
		return codec.InvalidRequest("tool_choice", "forces a tool call, but no tools are given")
	}
	if req.ParallelToolCalls.Set {
		req.ParallelToolCalls = codec.OptBool{}
		req.Dropped = append(req.Dropped, "parallel_tool_calls")
	}
	return nil
}

// tools decodes the tool definitions: {type:"function", function:{name,
// description, parameters, strict}}. Parameters keep their JSON Schema text
// unchanged; strict is kept as given. Custom (freeform) tools are not in
// this round.
func (d *requestDecoder) tools(v gjson.Result) *codec.Error {
	switch {
	case v.Type == gjson.Null:
		return nil
	case !v.IsArray():
		return wire.WrongType("tools", "array", v)
	}
	req := d.req
	req.Tools = req.Tools[:0]
	var err *codec.Error
	idx := -1
	for _, member := range jsonx.Members(v.Raw, &req.Text) {
		idx++
		t := member.Result()
		err = d.tool(wire.IndexPath("tools", idx), t)
		if err != nil {
			break
		}
	}
	return err
}

// tool decodes one tool definition at path.
func (d *requestDecoder) tool(path string, v gjson.Result) *codec.Error {
	if !v.IsObject() {
		return wire.WrongType(path, "object", v)
	}
	var typ, fn gjson.Result
	var err *codec.Error
	for key, member := range jsonx.Members(v.Raw, &d.req.Text) {
		value := member.Result()
		switch key {
		case "type":
			typ = value
		case "function":
			fn = value
		case "custom": //field:tools[] (custom): capability
		default:
			err = wire.UnknownField(path + "." + key)
		}
		if err != nil {
			break
		}
	}
	if err != nil {
		return err
	}
	switch {
	case typ.Type == gjson.Null:
		return codec.InvalidRequest(path+".type", "is required")
	case typ.Type != gjson.String:
		return wire.WrongType(path+".type", "string", typ)
	case typ.Str == "custom":
		return wire.UnsupportedField(path, "custom (freeform) tools are not supported yet")
	case typ.Str != "function":
		return codec.InvalidRequest(path+".type", `unknown tool type "`+typ.Str+`"`)
	case fn.Type == gjson.Null:
		return codec.InvalidRequest(path+".function", "is required")
	case !fn.IsObject():
		return wire.WrongType(path+".function", "object", fn)
	}
	t := codec.Tool{Kind: codec.ToolFunction}
	var name gjson.Result
	for key, member := range jsonx.Members(fn.Raw, &d.req.Text) {
		value := member.Result()
		p := path + ".function." + key
		switch key {
		case "name":
			name = value
		case "description":
			err = optionalText(value, p, &t.Description)
		case "parameters":
			err = wire.ReadObjectRaw(value, p, &t.Parameters)
		case "strict":
			err = wire.ReadOptBool(value, p, &t.Strict)
		default:
			err = wire.UnknownField(p)
		}
		if err != nil {
			break
		}
	}
	if err != nil {
		return err
	}
	if t.Name, err = requiredString(name, path+".function.name"); err != nil {
		return err
	}
	d.req.Tools = append(d.req.Tools, t)
	return nil
}

// toolChoice decodes tool_choice: "none", "auto", "required", or
// {type:"function", function:{name}} forcing one tool. allowed_tools and
// custom tool choices are not in this round.
func (d *requestDecoder) toolChoice(v gjson.Result) *codec.Error {
	tc := &d.req.ToolChoice
	switch {
	case v.Type == gjson.Null:
		return nil
	case v.Type == gjson.String:
		switch v.Str {
		case "none":
			tc.Mode = codec.ToolChoiceNone
		case "auto":
			tc.Mode = codec.ToolChoiceAuto
		case "required":
			tc.Mode = codec.ToolChoiceRequired
		default:
			return codec.InvalidRequest("tool_choice", `unknown value "`+v.Str+`"`)
		}
		return nil
	case !v.IsObject():
		return wire.WrongType("tool_choice", "string or object", v)
	}
	var typ, fn gjson.Result
	var err *codec.Error
	for key, member := range jsonx.Members(v.Raw, &d.req.Text) {
		value := member.Result()
		switch key {
		case "type":
			typ = value
		case "function":
			fn = value
		case "allowed_tools", "custom":
		default:
			err = wire.UnknownField("tool_choice." + key)
		}
		if err != nil {
			break
		}
	}
	if err != nil {
		return err
	}
	switch {
	case typ.Type == gjson.Null:
		return codec.InvalidRequest("tool_choice.type", "is required")
	case typ.Type != gjson.String:
		return wire.WrongType("tool_choice.type", "string", typ)
	case typ.Str == "allowed_tools" || typ.Str == "custom":
		return wire.UnsupportedField("tool_choice", `tool choice type "`+typ.Str+`" is not supported yet`)
	case typ.Str != "function":
		return codec.InvalidRequest("tool_choice.type", `unknown value "`+typ.Str+`"`)
	case fn.Type == gjson.Null:
		return codec.InvalidRequest("tool_choice.function", "is required")
	case !fn.IsObject():
		return wire.WrongType("tool_choice.function", "object", fn)
	}
	var name gjson.Result
	for key, member := range jsonx.Members(fn.Raw, &d.req.Text) {
		value := member.Result()
		if key != "name" {
			err = wire.UnknownField("tool_choice.function." + key)
			break
		}
		name = value
	}
	if err != nil {
		return err
	}
	if tc.Name, err = requiredString(name, "tool_choice.function.name"); err != nil {
		return err
	}
	tc.Mode = codec.ToolChoiceNamed
	return nil
}

// requiredString reads a string that must be given and not be empty.
func requiredString(v gjson.Result, path string) (string, *codec.Error) {
	switch {
	case v.Type == gjson.Null:
		return "", codec.InvalidRequest(path, "is required")
	case v.Type != gjson.String:
		return "", wire.WrongType(path, "string", v)
	case v.Str == "":
		return "", codec.InvalidRequest(path, "must not be empty")
	}
	return v.Str, nil
}

// optionalText reads an optional string into dst; null leaves it "".
func optionalText(v gjson.Result, path string, dst *string) *codec.Error {
	switch v.Type {
	case gjson.Null:
		return nil
	case gjson.String:
		*dst = v.Str
		return nil
	}
	return wire.WrongType(path, "string", v)
}

// choiceCount accepts n only when it asks for the one choice that every
// other protocol produces.
func choiceCount(v gjson.Result) *codec.Error {
	var n codec.OptInt
	if err := wire.ReadInt(v, "n", &n); err != nil {
		return err
	}
	if n.Set && n.Value != 1 {
		return wire.UnsupportedField("n", "only one choice (n: 1) can be translated")
	}
	return nil
}

// modalities accepts text output only.
func modalities(v gjson.Result) *codec.Error {
	if v.Type == gjson.Null {
		return nil
	}
	if !v.IsArray() {
		return wire.WrongType("modalities", "array of strings", v)
	}
	var err *codec.Error
	idx := -1
	for _, member := range jsonx.Members(v.Raw, nil) {
		idx++
		m := member.Result()
		switch {
		case m.Type != gjson.String:
			err = wire.WrongType(wire.IndexPath("modalities", idx), "string", m)
		case m.Str == "audio":
			err = wire.UnsupportedField("modalities", "audio output is not supported yet")
		case m.Str != "text":
			err = codec.InvalidRequest(wire.IndexPath("modalities", idx), `unknown modality "`+m.Str+`"`)
		}
		if err != nil {
			break
		}
	}
	return err
}

// responseFormat decodes response_format into f: {type:"text"} (the
// default, FormatText), {type:"json_object"}, or {type:"json_schema",
// json_schema:{name, description, schema, strict}}. Each type takes only its
// own members, so that nothing a client asked for is silently lost.
func responseFormat(v gjson.Result, arena *jsonx.Arena, f *codec.OutputFormat) *codec.Error {
	if v.Type == gjson.Null {
		return nil
	}
	if !v.IsObject() {
		return wire.WrongType("response_format", "object", v)
	}
	var typ, schema gjson.Result
	var other string
	for key, member := range jsonx.Members(v.Raw, arena) {
		value := member.Result()
		switch key {
		case "type":
			typ = value
		case "json_schema":
			schema = value
		default:
			if other == "" {
				other = key
			}
		}
	}
	switch {
	case typ.Type == gjson.Null:
		return codec.InvalidRequest("response_format.type", "is required")
	case typ.Type != gjson.String:
		return wire.WrongType("response_format.type", "string", typ)
	}
	switch typ.Str {
	case "text", "json_object": //field:response_format (json_object): capability
		switch {
		case other != "":
			return wire.UnknownField("response_format." + other)
		case schema.Exists():
			return wire.UnknownField("response_format.json_schema")
		}
		*f = codec.OutputFormat{Kind: codec.FormatText}
		if typ.Str == "json_object" {
			f.Kind = codec.FormatJSONObject
		}
		return nil
	case "json_schema":
		if other != "" {
			return wire.UnknownField("response_format." + other)
		}
		return jsonSchema(schema, arena, f)
	}
	return codec.InvalidRequest("response_format.type", `unknown value "`+typ.Str+`"`)
}

// jsonSchema decodes response_format.json_schema: name (required, as
// OpenAI requires it), description, schema (a JSON Schema object, kept as
// its text) and strict.
func jsonSchema(v gjson.Result, arena *jsonx.Arena, f *codec.OutputFormat) *codec.Error {
	const path = "response_format.json_schema"
	switch {
	case v.Type == gjson.Null:
		return codec.InvalidRequest(path, "is required")
	case !v.IsObject():
		return wire.WrongType(path, "object", v)
	}
	out := codec.OutputFormat{Kind: codec.FormatJSONSchema}
	var name gjson.Result
	var err *codec.Error
	for key, member := range jsonx.Members(v.Raw, arena) {
		value := member.Result()
		p := path + "." + key
		switch key {
		case "name":
			name = value
		case "description":
			err = optionalText(value, p, &out.Description)
		case "schema":
			err = wire.ReadObjectRaw(value, p, &out.Schema)
		case "strict":
			err = wire.ReadOptBool(value, p, &out.Strict)
		default:
			err = wire.UnknownField(p)
		}
		if err != nil {
			break
		}
	}
	if err != nil {
		return err
	}
	if out.Name, err = requiredString(name, path+".name"); err != nil {
		return err
	}
	*f = out
	return nil
}

// reasoningEffort decodes reasoning_effort into r.Effort; null is
// absent and injects nothing. "max" is accepted beside OpenAI's
// names as the canonical name of Anthropic's highest effort.
func reasoningEffort(v gjson.Result, r *codec.Reasoning) *codec.Error {
	switch {
	case v.Type == gjson.Null:
		return nil
	case v.Type != gjson.String:
		return wire.WrongType("reasoning_effort", "string", v)
	}
	e, ok := mapping.ParseEffort(v.Str)
	if !ok {
		return codec.InvalidRequest("reasoning_effort", `unknown value "`+v.Str+`"`)
	}
	r.Effort = e
	return nil
}

// verbosity decodes verbosity (low, medium or high); null is absent.
func verbosity(v gjson.Result, dst *string) *codec.Error {
	switch {
	case v.Type == gjson.Null:
		return nil
	case v.Type != gjson.String:
		return wire.WrongType("verbosity", "string", v)
	}
	switch v.Str {
	case "low", "medium", "high":
		*dst = v.Str
		return nil
	}
	return codec.InvalidRequest("verbosity", `unknown value "`+v.Str+`"`)
}

// optionalString keeps a string field for later; null means absent.
func optionalString(v gjson.Result, path string, dst *gjson.Result) *codec.Error {
	if v.Type != gjson.Null && v.Type != gjson.String {
		return wire.WrongType(path, "string", v)
	}
	*dst = v
	return nil
}

// optionalBool reads a boolean field; null leaves dst unchanged.
func optionalBool(v gjson.Result, path string, dst *bool) *codec.Error {
	if v.Type == gjson.Null {
		return nil
	}
	b, err := wire.ReadBool(v, path)
	if err != nil {
		return err
	}
	*dst = b
	return nil
}

// isEmptyArray reports whether v is an array without elements, without
// building the slice that Result.Array would.
func isEmptyArray(v gjson.Result) bool {
	if !v.IsArray() {
		return false
	}
	empty := true
	for range jsonx.Members(v.Raw, nil) {
		empty = false
		break
	}
	return empty
}

// isBool reports whether v is a JSON boolean.
func isBool(v gjson.Result) bool {
	return v.Type == gjson.True || v.Type == gjson.False
}
