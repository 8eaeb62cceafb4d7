package codec

import (
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/llmbridge/llmbridge/codec/internal/jsonx"
	"github.com/llmbridge/llmbridge/mapping"
	"github.com/tidwall/gjson"
)

// This file is the OpenAI Chat Completions codec (POST /v1/chat/completions).
//
// The package is flat and shared by one codec per protocol, so every
// package-level name here starts with "chat" to stay out of the others' way.

// decodeChatRequest decodes a Chat Completions request body.
//
// The top-level object is walked once. Fields whose meaning depends on other
// fields (max_tokens against max_completion_tokens, user against
// safety_identifier, the messages themselves) are collected first and
// settled by finish, so that the result never depends on key order.
func decodeChatRequest(root gjson.Result, req *Request) *Error {
	d := chatRequestDecoder{req: req, results: -1}
	var err *Error
	jsonx.EachMember(root, &req.text, func(key, value gjson.Result) bool {
		err = d.field(key.Str, value)
		return err == nil
	})
	if err != nil {
		return err
	}
	return d.finish()
}

// chatRequestDecoder carries the state of one request decode.
type chatRequestDecoder struct {
	req *Request

	model    gjson.Result
	messages gjson.Result

	maxTokens           OptInt
	maxCompletionTokens OptInt

	user             gjson.Result
	safetyIdentifier gjson.Result

	// parts is the one backing array that the content of every message and
	// of the system prompt is sub-sliced from.
	parts []Part
	// conversationStarted is set by the first user or assistant message;
	// system and developer messages before it form the system prompt.
	conversationStarted bool
	// results is the index in req.Messages of the user message that the
	// tool messages just decoded became, or -1; resultsStart is where its
	// parts start in parts.
	results, resultsStart int
	// leading are the Anthropic reasoning parts the tool-call ids of the
	// message being decoded carried (chatIDReasoning), which go to the
	// start of the message.
	leading []Part
}

// field decodes one top-level field. The groups follow the field policy:
// mapped fields, harmless defaults of capabilities that are not translated
// yet, hints that are recorded in Dropped, and capabilities that are
// rejected.
func (d *chatRequestDecoder) field(key string, v gjson.Result) *Error {
	req := d.req
	switch key {
	// Mapped fields.
	case "model":
		d.model = v
	case "messages":
		d.messages = v
	case "max_tokens":
		return readInt(v, key, &d.maxTokens)
	case "max_completion_tokens":
		return readInt(v, key, &d.maxCompletionTokens)
	case "temperature":
		return readFloat(v, key, &req.Temperature)
	case "top_p":
		return readFloat(v, key, &req.TopP)
	case "presence_penalty":
		return readFloat(v, key, &req.PresencePenalty)
	case "frequency_penalty":
		return readFloat(v, key, &req.FrequencyPenalty)
	case "seed":
		return readInt(v, key, &req.Seed)
	case "stop":
		var err *Error
		req.StopSequences, err = readStringList(v, key, true, req.StopSequences[:0])
		return err
	case "user":
		return chatOptionalString(v, key, &d.user)
	case "safety_identifier":
		return chatOptionalString(v, key, &d.safetyIdentifier)
	case "stream":
		return chatOptionalBool(v, key, &req.Stream)
	case "stream_options":
		return d.streamOptions(v)

	// Capabilities that are accepted only with their harmless defaults.
	case "n":
		return chatChoiceCount(v)
	case "logprobs":
		if v.Type == gjson.True {
			return unsupportedField(key, "log probabilities are not supported yet")
		}
		var off bool
		return chatOptionalBool(v, key, &off)
	case "modalities":
		return chatModalities(v)

	// Reasoning and output settings.
	case "response_format":
		return chatResponseFormat(v, &req.text, &req.Format)
	case "reasoning_effort":
		return chatReasoningEffort(v, &req.Reasoning)
	case "verbosity":
		return chatVerbosity(v, &req.Verbosity)

	// Tool use, settled in finish: without tools, tool_choice auto or
	// none and parallel_tool_calls are hints.
	case "tools":
		return d.tools(v)
	case "tool_choice":
		return d.toolChoice(v)
	case "parallel_tool_calls":
		return readOptBool(v, key, &req.ParallelToolCalls)

	// Hints: they do not change what the model generates.
	case "store":
		return d.hint(key, v, chatIsBool(v), "boolean")
	case "metadata":
		return d.hint(key, v, v.IsObject(), "object")
	case "service_tier", "prompt_cache_key":
		// prompt_cache_key only routes requests to OpenAI's prompt cache;
		// no other upstream has it, and it guarantees no cache hit.
		return d.hint(key, v, v.Type == gjson.String, "string")
	case "prompt_cache_retention":
		// A retention period is a promise about the upstream's cache that
		// no translation can keep.
		return rejectUnlessNull(v, key, "prompt cache retention has no equivalent in translation")

	// Capabilities outside the current scope.
	case "top_logprobs":
		return rejectUnlessNull(v, key, "log probabilities are not supported yet")
	case "logit_bias":
		return rejectUnlessNull(v, key, "token biases cannot be translated")
	case "audio":
		return rejectUnlessNull(v, key, "audio output is not supported yet")
	case "functions", "function_call":
		return rejectUnlessNull(v, key, "the deprecated functions API is not supported; use tools and tool_choice")
	case "prediction":
		return rejectUnlessNull(v, key, "predicted outputs are not supported yet")
	case "web_search_options":
		// Search models always search with these options; every other
		// protocol offers search as a tool the model may or may not call,
		// which is a different request, so it is not approximated.
		return rejectUnlessNull(v, key, "web_search_options is for OpenAI's search models, which always search; other upstreams offer web search only as a tool the model may call; remove it or ask the operator to drop it (field web_search_options)")
	default:
		return unknownField(key)
	}
	return nil
}

// finish checks the required fields, settles the fields that depend on each
// other and decodes the messages.
func (d *chatRequestDecoder) finish() *Error {
	req := d.req
	// The model is optional here: a library caller may name it when
	// encoding, and the HTTP layer requires it where the upstream does.
	switch d.model.Type {
	case gjson.Null:
	case gjson.String:
		req.Model = d.model.Str
	default:
		return wrongType("model", "string", d.model)
	}

	if err := d.settleMaxTokens(); err != nil {
		return err
	}
	if err := d.settleTools(); err != nil {
		return err
	}
	d.settleUser()
	return d.decodeMessages()
}

// settleMaxTokens maps max_tokens (deprecated) and max_completion_tokens,
// which mean the same limit; giving both with different values is
// ambiguous.
func (d *chatRequestDecoder) settleMaxTokens() *Error {
	mt, mct := d.maxTokens, d.maxCompletionTokens
	if mt.Set && mct.Set && mt.Value != mct.Value {
		return invalid("max_completion_tokens", "differs from max_tokens; give only one of them")
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
func (d *chatRequestDecoder) settleUser() {
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
func (d *chatRequestDecoder) hint(path string, v gjson.Result, typeOK bool, want string) *Error {
	if v.Type == gjson.Null {
		return nil
	}
	if !typeOK {
		return wrongType(path, want, v)
	}
	d.req.Dropped = append(d.req.Dropped, path)
	return nil
}

// streamOptions decodes stream_options. include_usage is honoured (and
// always asked of a Chat upstream anyway); include_obfuscation only pads
// stream chunks and is a hint.
func (d *chatRequestDecoder) streamOptions(v gjson.Result) *Error {
	if v.Type == gjson.Null {
		return nil
	}
	if !v.IsObject() {
		return wrongType("stream_options", "object", v)
	}
	var err *Error
	jsonx.EachMember(v, &d.req.text, func(key, value gjson.Result) bool {
		switch key.Str {
		case "include_usage":
			err = chatOptionalBool(value, "stream_options.include_usage", &d.req.StreamUsage)
		case "include_obfuscation":
			err = d.hint("stream_options.include_obfuscation", value, chatIsBool(value), "boolean")
		default:
			err = unknownField("stream_options." + key.Str)
		}
		return err == nil
	})
	return err
}

// settleTools settles tool_choice and parallel_tool_calls against tools.
// Without tools, tool_choice auto or none and parallel_tool_calls say
// nothing (some clients always send them) and are hints; forcing a tool
// that is not offered is an error, as OpenAI answers it.
func (d *chatRequestDecoder) settleTools() *Error {
	req := d.req
	if len(req.Tools) > 0 {
		return nil
	}
	switch req.ToolChoice.Mode {
	case ToolChoiceAuto, ToolChoiceNone:
		req.ToolChoice = ToolChoice{}
		req.Dropped = append(req.Dropped, "tool_choice")
	case ToolChoiceRequired, ToolChoiceNamed:
		return invalid("tool_choice", "forces a tool call, but no tools are given")
	}
	if req.ParallelToolCalls.Set {
		req.ParallelToolCalls = OptBool{}
		req.Dropped = append(req.Dropped, "parallel_tool_calls")
	}
	return nil
}

// tools decodes the tool definitions: {type:"function", function:{name,
// description, parameters, strict}}. Parameters keep their JSON Schema text
// unchanged; strict is kept as given. Custom (freeform) tools are not in
// this round.
func (d *chatRequestDecoder) tools(v gjson.Result) *Error {
	switch {
	case v.Type == gjson.Null:
		return nil
	case !v.IsArray():
		return wrongType("tools", "array", v)
	}
	req := d.req
	req.Tools = req.Tools[:0]
	var err *Error
	jsonx.EachMember(v, &req.text, func(key, t gjson.Result) bool {
		err = d.tool(indexPath("tools", int(key.Num)), t)
		return err == nil
	})
	return err
}

// tool decodes one tool definition at path.
func (d *chatRequestDecoder) tool(path string, v gjson.Result) *Error {
	if !v.IsObject() {
		return wrongType(path, "object", v)
	}
	var typ, fn gjson.Result
	var err *Error
	jsonx.EachMember(v, &d.req.text, func(key, value gjson.Result) bool {
		switch key.Str {
		case "type":
			typ = value
		case "function":
			fn = value
		case "custom":
		default:
			err = unknownField(path + "." + key.Str)
		}
		return err == nil
	})
	if err != nil {
		return err
	}
	switch {
	case typ.Type == gjson.Null:
		return invalid(path+".type", "is required")
	case typ.Type != gjson.String:
		return wrongType(path+".type", "string", typ)
	case typ.Str == "custom":
		return unsupportedField(path, "custom (freeform) tools are not supported yet")
	case typ.Str != "function":
		return invalid(path+".type", `unknown tool type "`+typ.Str+`"`)
	case fn.Type == gjson.Null:
		return invalid(path+".function", "is required")
	case !fn.IsObject():
		return wrongType(path+".function", "object", fn)
	}
	t := Tool{Kind: ToolFunction}
	var name gjson.Result
	jsonx.EachMember(fn, &d.req.text, func(key, value gjson.Result) bool {
		p := path + ".function." + key.Str
		switch key.Str {
		case "name":
			name = value
		case "description":
			err = chatOptionalText(value, p, &t.Description)
		case "parameters":
			err = readObjectRaw(value, p, &t.Parameters)
		case "strict":
			err = readOptBool(value, p, &t.Strict)
		default:
			err = unknownField(p)
		}
		return err == nil
	})
	if err != nil {
		return err
	}
	if t.Name, err = chatRequiredString(name, path+".function.name"); err != nil {
		return err
	}
	d.req.Tools = append(d.req.Tools, t)
	return nil
}

// toolChoice decodes tool_choice: "none", "auto", "required", or
// {type:"function", function:{name}} forcing one tool. allowed_tools and
// custom tool choices are not in this round.
func (d *chatRequestDecoder) toolChoice(v gjson.Result) *Error {
	tc := &d.req.ToolChoice
	switch {
	case v.Type == gjson.Null:
		return nil
	case v.Type == gjson.String:
		switch v.Str {
		case "none":
			tc.Mode = ToolChoiceNone
		case "auto":
			tc.Mode = ToolChoiceAuto
		case "required":
			tc.Mode = ToolChoiceRequired
		default:
			return invalid("tool_choice", `unknown value "`+v.Str+`"`)
		}
		return nil
	case !v.IsObject():
		return wrongType("tool_choice", "string or object", v)
	}
	var typ, fn gjson.Result
	var err *Error
	jsonx.EachMember(v, &d.req.text, func(key, value gjson.Result) bool {
		switch key.Str {
		case "type":
			typ = value
		case "function":
			fn = value
		case "allowed_tools", "custom":
		default:
			err = unknownField("tool_choice." + key.Str)
		}
		return err == nil
	})
	if err != nil {
		return err
	}
	switch {
	case typ.Type == gjson.Null:
		return invalid("tool_choice.type", "is required")
	case typ.Type != gjson.String:
		return wrongType("tool_choice.type", "string", typ)
	case typ.Str == "allowed_tools" || typ.Str == "custom":
		return unsupportedField("tool_choice", `tool choice type "`+typ.Str+`" is not supported yet`)
	case typ.Str != "function":
		return invalid("tool_choice.type", `unknown value "`+typ.Str+`"`)
	case fn.Type == gjson.Null:
		return invalid("tool_choice.function", "is required")
	case !fn.IsObject():
		return wrongType("tool_choice.function", "object", fn)
	}
	var name gjson.Result
	jsonx.EachMember(fn, &d.req.text, func(key, value gjson.Result) bool {
		if key.Str != "name" {
			err = unknownField("tool_choice.function." + key.Str)
			return false
		}
		name = value
		return true
	})
	if err != nil {
		return err
	}
	if tc.Name, err = chatRequiredString(name, "tool_choice.function.name"); err != nil {
		return err
	}
	tc.Mode = ToolChoiceNamed
	return nil
}

// chatRequiredString reads a string that must be given and not be empty.
func chatRequiredString(v gjson.Result, path string) (string, *Error) {
	switch {
	case v.Type == gjson.Null:
		return "", invalid(path, "is required")
	case v.Type != gjson.String:
		return "", wrongType(path, "string", v)
	case v.Str == "":
		return "", invalid(path, "must not be empty")
	}
	return v.Str, nil
}

// chatOptionalText reads an optional string into dst; null leaves it "".
func chatOptionalText(v gjson.Result, path string, dst *string) *Error {
	switch v.Type {
	case gjson.Null:
		return nil
	case gjson.String:
		*dst = v.Str
		return nil
	}
	return wrongType(path, "string", v)
}

// chatChoiceCount accepts n only when it asks for the one choice that every
// other protocol produces.
func chatChoiceCount(v gjson.Result) *Error {
	var n OptInt
	if err := readInt(v, "n", &n); err != nil {
		return err
	}
	if n.Set && n.Value != 1 {
		return unsupportedField("n", "only one choice (n: 1) can be translated")
	}
	return nil
}

// chatModalities accepts text output only.
func chatModalities(v gjson.Result) *Error {
	if v.Type == gjson.Null {
		return nil
	}
	if !v.IsArray() {
		return wrongType("modalities", "array of strings", v)
	}
	var err *Error
	v.ForEach(func(key, m gjson.Result) bool {
		switch {
		case m.Type != gjson.String:
			err = wrongType(indexPath("modalities", int(key.Num)), "string", m)
		case m.Str == "audio":
			err = unsupportedField("modalities", "audio output is not supported yet")
		case m.Str != "text":
			err = invalid(indexPath("modalities", int(key.Num)), `unknown modality "`+m.Str+`"`)
		}
		return err == nil
	})
	return err
}

// chatResponseFormat decodes response_format into f: {type:"text"} (the
// default, FormatText), {type:"json_object"}, or {type:"json_schema",
// json_schema:{name, description, schema, strict}}. Each type takes only its
// own members, so that nothing a client asked for is silently lost.
func chatResponseFormat(v gjson.Result, arena *jsonx.Arena, f *OutputFormat) *Error {
	if v.Type == gjson.Null {
		return nil
	}
	if !v.IsObject() {
		return wrongType("response_format", "object", v)
	}
	var typ, schema gjson.Result
	var other string
	jsonx.EachMember(v, arena, func(key, value gjson.Result) bool {
		switch key.Str {
		case "type":
			typ = value
		case "json_schema":
			schema = value
		default:
			if other == "" {
				other = key.Str
			}
		}
		return true
	})
	switch {
	case typ.Type == gjson.Null:
		return invalid("response_format.type", "is required")
	case typ.Type != gjson.String:
		return wrongType("response_format.type", "string", typ)
	}
	switch typ.Str {
	case "text", "json_object":
		switch {
		case other != "":
			return unknownField("response_format." + other)
		case schema.Exists():
			return unknownField("response_format.json_schema")
		}
		*f = OutputFormat{Kind: FormatText}
		if typ.Str == "json_object" {
			f.Kind = FormatJSONObject
		}
		return nil
	case "json_schema":
		if other != "" {
			return unknownField("response_format." + other)
		}
		return chatJSONSchema(schema, arena, f)
	}
	return invalid("response_format.type", `unknown value "`+typ.Str+`"`)
}

// chatJSONSchema decodes response_format.json_schema: name (required, as
// OpenAI requires it), description, schema (a JSON Schema object, kept as
// its text) and strict.
func chatJSONSchema(v gjson.Result, arena *jsonx.Arena, f *OutputFormat) *Error {
	const path = "response_format.json_schema"
	switch {
	case v.Type == gjson.Null:
		return invalid(path, "is required")
	case !v.IsObject():
		return wrongType(path, "object", v)
	}
	out := OutputFormat{Kind: FormatJSONSchema}
	var name gjson.Result
	var err *Error
	jsonx.EachMember(v, arena, func(key, value gjson.Result) bool {
		p := path + "." + key.Str
		switch key.Str {
		case "name":
			name = value
		case "description":
			err = chatOptionalText(value, p, &out.Description)
		case "schema":
			err = readObjectRaw(value, p, &out.Schema)
		case "strict":
			err = readOptBool(value, p, &out.Strict)
		default:
			err = unknownField(p)
		}
		return err == nil
	})
	if err != nil {
		return err
	}
	if out.Name, err = chatRequiredString(name, path+".name"); err != nil {
		return err
	}
	*f = out
	return nil
}

// chatReasoningEffort decodes reasoning_effort into r.Effort; null is
// absent and injects nothing. "max" is accepted beside OpenAI's
// names as the canonical name of Anthropic's highest effort.
func chatReasoningEffort(v gjson.Result, r *Reasoning) *Error {
	switch {
	case v.Type == gjson.Null:
		return nil
	case v.Type != gjson.String:
		return wrongType("reasoning_effort", "string", v)
	}
	e, ok := mapping.ParseEffort(v.Str)
	if !ok {
		return invalid("reasoning_effort", `unknown value "`+v.Str+`"`)
	}
	r.Effort = e
	return nil
}

// chatVerbosity decodes verbosity (low, medium or high); null is absent.
func chatVerbosity(v gjson.Result, dst *string) *Error {
	switch {
	case v.Type == gjson.Null:
		return nil
	case v.Type != gjson.String:
		return wrongType("verbosity", "string", v)
	}
	switch v.Str {
	case "low", "medium", "high":
		*dst = v.Str
		return nil
	}
	return invalid("verbosity", `unknown value "`+v.Str+`"`)
}

// chatOptionalString keeps a string field for later; null means absent.
func chatOptionalString(v gjson.Result, path string, dst *gjson.Result) *Error {
	if v.Type != gjson.Null && v.Type != gjson.String {
		return wrongType(path, "string", v)
	}
	*dst = v
	return nil
}

// chatOptionalBool reads a boolean field; null leaves dst unchanged.
func chatOptionalBool(v gjson.Result, path string, dst *bool) *Error {
	if v.Type == gjson.Null {
		return nil
	}
	b, err := readBool(v, path)
	if err != nil {
		return err
	}
	*dst = b
	return nil
}

// chatIsEmptyArray reports whether v is an array without elements, without
// building the slice that Result.Array would.
func chatIsEmptyArray(v gjson.Result) bool {
	if !v.IsArray() {
		return false
	}
	empty := true
	v.ForEach(func(_, _ gjson.Result) bool {
		empty = false
		return false
	})
	return empty
}

// chatIsBool reports whether v is a JSON boolean.
func chatIsBool(v gjson.Result) bool {
	return v.Type == gjson.True || v.Type == gjson.False
}

// decodeMessages decodes the messages array into req.Messages and
// req.System.
//
// The messages are counted first so that req.Messages and the shared parts
// array are allocated once; most messages hold one part, so the parts array
// gets room for half as many again.
func (d *chatRequestDecoder) decodeMessages() *Error {
	v := d.messages
	switch {
	case v.Type == gjson.Null:
		return invalid("messages", "is required")
	case !v.IsArray():
		return wrongType("messages", "array", v)
	}
	n := jsonx.CountMembers(v, &d.req.text)
	if n == 0 {
		return invalid("messages", "must not be empty")
	}
	req := d.req
	if cap(req.Messages) < n {
		req.Messages = make([]Message, 0, n)
	}
	req.Messages = req.Messages[:0]
	d.parts = make([]Part, 0, n+n/2+1)

	var err *Error
	jsonx.EachMember(v, &req.text, func(key, m gjson.Result) bool {
		err = d.message(int(key.Num), m)
		return err == nil
	})
	if err != nil {
		return err
	}
	if !d.conversationStarted {
		d.closeSystem(len(d.parts))
	}
	return nil
}

// closeSystem ends the system prompt at parts[end]: the leading system and
// developer messages are the first messages, so their parts are the start
// of the shared parts array.
func (d *chatRequestDecoder) closeSystem(end int) {
	d.conversationStarted = true
	if end == 0 {
		d.req.System = d.req.System[:0]
		return
	}
	d.req.System = d.parts[:end:end]
}

// chatMessageFields are the fields of one message, collected before they are
// interpreted because their meaning depends on the role.
type chatMessageFields struct {
	role, content, refusal, name gjson.Result
	toolCalls, toolCallID        gjson.Result
	reasoning                    gjson.Result
}

// message decodes messages[i].
func (d *chatRequestDecoder) message(i int, v gjson.Result) *Error {
	if !v.IsObject() {
		return wrongType(indexPath("messages", i), "object", v)
	}
	var f chatMessageFields
	var err *Error
	jsonx.EachMember(v, &d.req.text, func(key, value gjson.Result) bool {
		err = d.messageField(i, key.Str, value, &f)
		return err == nil
	})
	if err != nil {
		return err
	}
	path := indexPath("messages", i)
	if f.role.Type == gjson.String && f.role.Str == "tool" {
		return d.toolMessage(i, &f)
	}
	role, err := chatRole(i, f.role)
	if err != nil {
		return err
	}
	if f.toolCallID.Type != gjson.Null {
		return invalid(path+".tool_call_id", "is only allowed in tool messages")
	}
	if f.name.Type != gjson.Null {
		// The participant name only tells same-role authors apart.
		if err := d.hint(path+".name", f.name, f.name.Type == gjson.String, "string"); err != nil {
			return err
		}
	}

	start := len(d.parts)
	if err := d.reasoning(i, role, f.reasoning); err != nil {
		return err
	}
	if err := d.content(i, role, f.content); err != nil {
		return err
	}
	if err := d.messageRefusal(i, role, f.refusal); err != nil {
		return err
	}
	if err := d.toolCalls(i, role, f.toolCalls); err != nil {
		return err
	}
	if len(d.leading) > 0 {
		d.placeLeading(start)
	}
	if len(d.parts) == start {
		if f.content.Type == gjson.Null {
			return invalid(path+".content", "is required")
		}
		return invalid(path+".content", "must not be empty")
	}

	isInstruction := role == RoleSystem || role == RoleDeveloper
	if !d.conversationStarted {
		if isInstruction {
			if start == 0 {
				d.req.SystemRole = role
			}
			return nil
		}
		d.closeSystem(start)
	}
	msgs := d.req.Messages
	if role == RoleUser && d.results >= 0 {
		// A user message right after tool results joins them: results
		// first, then the user's content, as one user turn.
		msgs[d.results].Parts = d.parts[d.resultsStart:len(d.parts):len(d.parts)]
		d.results = -1
		return nil
	}
	d.results = -1
	d.req.Messages = append(msgs, Message{Role: role, Parts: d.parts[start:len(d.parts):len(d.parts)]})
	return nil
}

// toolMessage decodes messages[i], a tool message: a PartToolResult in a
// user message. Adjacent tool messages join one user message, and a user
// message that follows them joins it too (see message).
func (d *chatRequestDecoder) toolMessage(i int, f *chatMessageFields) *Error {
	path := indexPath("messages", i)
	switch {
	case f.refusal.Type != gjson.Null:
		return invalid(path+".refusal", "is only allowed in assistant messages")
	case f.reasoning.Type != gjson.Null:
		return invalid(path+".reasoning_content", "is only allowed in assistant messages")
	case f.toolCalls.Type != gjson.Null && !chatIsEmptyArray(f.toolCalls):
		return invalid(path+".tool_calls", "is only allowed in assistant messages")
	}
	id, err := chatRequiredString(f.toolCallID, path+".tool_call_id")
	if err != nil {
		return err
	}
	// The result names its call by the id the client got, envelopes and
	// all; the call's own id is what the upstream knows.
	id, _ = mapping.SplitToolCallID(id)
	p := Part{Type: PartToolResult, ToolCallID: id}
	if err := chatOptionalText(f.name, path+".name", &p.ToolName); err != nil {
		return err
	}
	if p.ToolName == "" {
		p.ToolName = d.callName(id)
	}
	if f.content.Type == gjson.Null {
		return invalid(path+".content", "is required")
	}
	// Tool message content is text: decode it as a system message's (text
	// parts only) and move the parts into the result.
	start := len(d.parts)
	if err := d.content(i, RoleSystem, f.content); err != nil {
		return err
	}
	if n := len(d.parts) - start; n > 0 && (n > 1 || d.parts[start].Text != "") {
		p.Content = slices.Clone(d.parts[start:])
	}
	d.parts = d.parts[:start]

	if !d.conversationStarted {
		d.closeSystem(start)
	}
	d.parts = append(d.parts, p)
	if d.results >= 0 {
		d.req.Messages[d.results].Parts = d.parts[d.resultsStart:len(d.parts):len(d.parts)]
		return nil
	}
	d.results, d.resultsStart = len(d.req.Messages), start
	d.req.Messages = append(d.req.Messages, Message{Role: RoleUser, Parts: d.parts[start:len(d.parts):len(d.parts)]})
	return nil
}

// callName returns the name of the tool call id in an earlier assistant
// message, or "" when there is none.
func (d *chatRequestDecoder) callName(id string) string {
	msgs := d.req.Messages
	for m := len(msgs) - 1; m >= 0; m-- {
		if msgs[m].Role != RoleAssistant {
			continue
		}
		for _, p := range msgs[m].Parts {
			if p.Type == PartToolCall && p.ToolCallID == id {
				return p.ToolName
			}
		}
	}
	return ""
}

// toolCalls appends the tool calls of an assistant message, after its
// text and refusal.
func (d *chatRequestDecoder) toolCalls(i int, role Role, v gjson.Result) *Error {
	if v.Type == gjson.Null || chatIsEmptyArray(v) {
		return nil
	}
	path := indexPath("messages", i) + ".tool_calls"
	switch {
	case role != RoleAssistant:
		return invalid(path, "is only allowed in assistant messages")
	case !v.IsArray():
		return wrongType(path, "array", v)
	}
	var err *Error
	jsonx.EachMember(v, &d.req.text, func(key, c gjson.Result) bool {
		err = d.toolCall(indexPath(path, int(key.Num)), c)
		return err == nil
	})
	return err
}

// toolCall appends one tool call {id, type:"function", function:{name,
// arguments}} at path.
func (d *chatRequestDecoder) toolCall(path string, v gjson.Result) *Error {
	if !v.IsObject() {
		return wrongType(path, "object", v)
	}
	var id, typ, fn gjson.Result
	var err *Error
	jsonx.EachMember(v, &d.req.text, func(key, value gjson.Result) bool {
		switch key.Str {
		case "id":
			id = value
		case "type":
			typ = value
		case "function":
			fn = value
		case "custom":
		default:
			err = unknownField(path + "." + key.Str)
		}
		return err == nil
	})
	if err != nil {
		return err
	}
	switch {
	case typ.Type == gjson.String && typ.Str == "custom":
		return unsupportedField(path, "custom (freeform) tool calls are not supported yet")
	case typ.Type == gjson.String && typ.Str != "function":
		return invalid(path+".type", `unknown tool call type "`+typ.Str+`"`)
	case typ.Type != gjson.Null && typ.Type != gjson.String:
		return wrongType(path+".type", "string", typ)
	case fn.Type == gjson.Null:
		return invalid(path+".function", "is required")
	case !fn.IsObject():
		return wrongType(path+".function", "object", fn)
	}
	p := Part{Type: PartToolCall}
	if p.ToolCallID, err = chatRequiredString(id, path+".id"); err != nil {
		return err
	}
	if p.ToolCallID, err = d.idReasoning(p.ToolCallID, path+".id"); err != nil {
		return err
	}
	var name, args gjson.Result
	jsonx.EachMember(fn, &d.req.text, func(key, value gjson.Result) bool {
		switch key.Str {
		case "name":
			name = value
		case "arguments":
			args = value
		default:
			err = unknownField(path + ".function." + key.Str)
		}
		return err == nil
	})
	if err != nil {
		return err
	}
	if p.ToolName, err = chatRequiredString(name, path+".function.name"); err != nil {
		return err
	}
	switch {
	case args.Type == gjson.Null:
		return invalid(path+".function.arguments", "is required")
	case args.Type != gjson.String:
		return wrongType(path+".function.arguments", "string", args)
	}
	var ok bool
	if p.Arguments, ok = chatArguments(args.Str); !ok {
		return invalid(path+".function.arguments", "must be the text of a JSON object")
	}
	d.parts = append(d.parts, p)
	return nil
}

// chatArguments unquotes Chat's arguments string into canonical
// Arguments: the text of one JSON object, or "" for no arguments.
func chatArguments(s string) (string, bool) {
	t := strings.TrimSpace(s)
	if t == "" {
		return "", true
	}
	return t, t[0] == '{' && jsonx.Valid(t)
}

// messageField sorts one field of messages[i] into f, records hints and
// rejects what is not translated yet.
func (d *chatRequestDecoder) messageField(i int, key string, v gjson.Result, f *chatMessageFields) *Error {
	switch key {
	case "role":
		f.role = v
	case "content":
		f.content = v
	case "refusal":
		f.refusal = v
	case "name":
		f.name = v
	case "tool_calls":
		f.toolCalls = v
	case "tool_call_id":
		f.toolCallID = v
	case "reasoning_content", "reasoning":
		// The reasoning extension of DeepSeek and other compatible
		// servers; OpenRouter, vLLM and Ollama call it reasoning, and
		// clients (Qwen Code) replay it under either name.
		f.reasoning = v
	case "annotations":
		// URL citations an assistant message carries when a client echoes a
		// response back into history; they are not model input.
		if v.Type == gjson.Null || chatIsEmptyArray(v) {
			return nil
		}
		return d.hint(indexPath("messages", i)+".annotations", v, v.IsArray(), "array")
	case "function_call":
		return rejectUnlessNull(v, indexPath("messages", i)+".function_call", "the deprecated functions API is not supported; use tool_calls")
	case "audio":
		return rejectUnlessNull(v, indexPath("messages", i)+".audio", "audio is not supported yet")
	default:
		return unknownField(indexPath("messages", i) + "." + key)
	}
	return nil
}

// chatRole decodes messages[i].role; tool messages are decoded before.
// The deprecated function messages are rejected with the functions API.
func chatRole(i int, v gjson.Result) (Role, *Error) {
	switch {
	case v.Type == gjson.Null:
		return 0, invalid(indexPath("messages", i)+".role", "is required")
	case v.Type != gjson.String:
		return 0, wrongType(indexPath("messages", i)+".role", "string", v)
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
	case "function":
		return 0, unsupportedField(indexPath("messages", i)+".role", `role "function" (the deprecated functions API) is not supported; use tool messages`)
	}
	return 0, invalid(indexPath("messages", i)+".role", `unknown role "`+v.Str+`"`)
}

// content appends the parts of messages[i].content: a string is one text
// part; an array holds typed parts. Null (or absence) is allowed here and
// judged by the caller, since only assistant messages may omit content.
func (d *chatRequestDecoder) content(i int, role Role, v gjson.Result) *Error {
	switch {
	case v.Type == gjson.Null:
		return nil
	case v.Type == gjson.String:
		d.parts = append(d.parts, textPart(PartText, v))
		return nil
	case !v.IsArray():
		return wrongType(indexPath("messages", i)+".content", "string or array", v)
	}
	var err *Error
	jsonx.EachMember(v, &d.req.text, func(key, p gjson.Result) bool {
		err = d.contentPart(i, int(key.Num), role, p)
		return err == nil
	})
	return err
}

// The payload fields of content parts, each allowed only in the part type
// of the same name.
const (
	chatFieldText = iota
	chatFieldRefusal
	chatFieldImageURL
	chatFieldInputAudio
	chatFieldFile
	chatFieldCount
)

var chatPartFieldNames = [chatFieldCount]string{"text", "refusal", "image_url", "input_audio", "file"}

// chatPartFields are the fields of one content part.
type chatPartFields struct {
	typ    gjson.Result
	fields [chatFieldCount]gjson.Result
	// other is the first key that is none of the above.
	other string
}

// contentPart appends messages[i].content[j]: text everywhere, refusal in
// assistant messages, images, audio and files in user messages.
func (d *chatRequestDecoder) contentPart(i, j int, role Role, v gjson.Result) *Error {
	path := chatPartPath(i, j)
	if !v.IsObject() {
		return wrongType(path, "object", v)
	}
	var f chatPartFields
	jsonx.EachMember(v, &d.req.text, func(key, value gjson.Result) bool {
		if key.Str == "type" {
			f.typ = value
			return true
		}
		for k, name := range chatPartFieldNames {
			if key.Str == name {
				f.fields[k] = value
				return true
			}
		}
		if f.other == "" {
			f.other = key.Str
		}
		return true
	})
	switch {
	case f.typ.Type == gjson.Null:
		return invalid(path+".type", "is required")
	case f.typ.Type != gjson.String:
		return wrongType(path+".type", "string", f.typ)
	}
	field := -1
	for k, name := range chatPartFieldNames {
		if f.typ.Str == name {
			field = k
		}
	}
	if field < 0 {
		return invalid(path+".type", `unknown content part type "`+f.typ.Str+`"`)
	}
	switch {
	case field == chatFieldRefusal && role != RoleAssistant:
		return invalid(path+".type", `content part type "refusal" is only allowed in assistant messages`)
	case field >= chatFieldImageURL && role != RoleUser:
		return invalid(path+".type", `content part type "`+f.typ.Str+`" is only allowed in user messages`)
	case f.other != "":
		return unknownField(path + "." + f.other)
	}
	for k := range f.fields {
		if k != field && f.fields[k].Exists() {
			return unknownField(path + "." + chatPartFieldNames[k])
		}
	}
	value := f.fields[field]
	fieldPath := path + "." + chatPartFieldNames[field]
	switch field {
	case chatFieldImageURL:
		return d.imagePart(fieldPath, value)
	case chatFieldInputAudio:
		return d.audioPart(fieldPath, value)
	case chatFieldFile:
		return d.filePart(fieldPath, value)
	}
	t := PartText
	if field == chatFieldRefusal {
		t = PartRefusal
	}
	switch {
	case value.Type == gjson.Null:
		return invalid(fieldPath, "is required")
	case value.Type != gjson.String:
		return wrongType(fieldPath, "string", value)
	}
	d.parts = append(d.parts, textPart(t, value))
	return nil
}

// chatObjectFields reads the members of the object v at path into the
// results named by keys (in order), rejecting other members.
func (d *chatRequestDecoder) chatObjectFields(path string, v gjson.Result, keys []string, dst []gjson.Result) *Error {
	switch {
	case v.Type == gjson.Null:
		return invalid(path, "is required")
	case !v.IsObject():
		return wrongType(path, "object", v)
	}
	var err *Error
	jsonx.EachMember(v, &d.req.text, func(key, value gjson.Result) bool {
		for k, name := range keys {
			if key.Str == name {
				dst[k] = value
				return true
			}
		}
		err = unknownField(path + "." + key.Str)
		return false
	})
	return err
}

// imagePart appends an image_url part: {url, detail}. A data: URL becomes
// MediaType and Data, an http(s) URL stays a URL. detail (the resolution
// OpenAI looks at) has no canonical form and is a hint.
func (d *chatRequestDecoder) imagePart(path string, v gjson.Result) *Error {
	var f [2]gjson.Result
	if err := d.chatObjectFields(path, v, []string{"url", "detail"}, f[:]); err != nil {
		return err
	}
	url, err := chatRequiredString(f[0], path+".url")
	if err != nil {
		return err
	}
	p := Part{Type: PartImage}
	if p.MediaType, p.Data, p.URL, err = chatParseURL(path+".url", url, true); err != nil {
		return err
	}
	if f[1].Type != gjson.Null {
		if err := d.hint(path+".detail", f[1], f[1].Type == gjson.String, "string"); err != nil {
			return err
		}
	}
	d.parts = append(d.parts, p)
	return nil
}

// chatAudioFormats maps input_audio formats to media types and back.
var chatAudioFormats = [...]struct{ format, mediaType string }{
	{"wav", "audio/wav"},
	{"mp3", "audio/mp3"},
}

// audioPart appends an input_audio part: {data, format}, base64 audio of
// format wav (audio/wav) or mp3 (audio/mp3, as Gemini names it).
func (d *chatRequestDecoder) audioPart(path string, v gjson.Result) *Error {
	var f [2]gjson.Result
	if err := d.chatObjectFields(path, v, []string{"data", "format"}, f[:]); err != nil {
		return err
	}
	data, err := chatRequiredString(f[0], path+".data")
	if err != nil {
		return err
	}
	format, err := chatRequiredString(f[1], path+".format")
	if err != nil {
		return err
	}
	if err := checkBase64(path+".data", data); err != nil {
		return err
	}
	for _, a := range chatAudioFormats {
		if a.format == format {
			d.parts = append(d.parts, Part{Type: PartAudio, MediaType: a.mediaType, Data: data})
			return nil
		}
	}
	return invalid(path+".format", `unknown audio format "`+format+`"`)
}

// filePart appends a file part: {file_data, filename} with file_data a
// base64 data: URL, as a document whose title is the file name. file_id
// names a file uploaded to OpenAI, server-side state that no other
// upstream can read.
func (d *chatRequestDecoder) filePart(path string, v gjson.Result) *Error {
	var f [3]gjson.Result
	if err := d.chatObjectFields(path, v, []string{"file_data", "filename", "file_id"}, f[:]); err != nil {
		return err
	}
	if f[2].Type != gjson.Null {
		return unsupportedField(path+".file_id", "file_id references name files stored by OpenAI; send file_data")
	}
	data, err := chatRequiredString(f[0], path+".file_data")
	if err != nil {
		return err
	}
	p := Part{Type: PartDocument}
	if p.MediaType, p.Data, _, err = chatParseURL(path+".file_data", data, false); err != nil {
		return err
	}
	if err := chatOptionalText(f[1], path+".filename", &p.Text); err != nil {
		return err
	}
	d.parts = append(d.parts, p)
	return nil
}

// chatParseURL splits a base64 data: URL ("data:<media type>;base64,<data>")
// into its media type and data; when web is true an http(s) URL is kept
// as a URL instead.
func chatParseURL(path, url string, web bool) (mediaType, data, link string, err *Error) {
	if rest, ok := strings.CutPrefix(url, "data:"); ok {
		mt, b64, ok := strings.Cut(rest, ";base64,")
		if !ok || mt == "" || strings.ContainsAny(mt, ",") {
			return "", "", "", invalid(path, "a data: URL must be data:<media type>;base64,<data>")
		}
		if err := checkBase64(path, b64); err != nil {
			return "", "", "", err
		}
		return mt, b64, "", nil
	}
	if web && (strings.HasPrefix(url, "https://") || strings.HasPrefix(url, "http://")) {
		return "", "", url, nil
	}
	if web {
		return "", "", "", invalid(path, "must be an http(s) URL or a base64 data: URL")
	}
	return "", "", "", invalid(path, "must be a base64 data: URL")
}

// reasoning appends the reasoning parts of an assistant message's
// reasoning_content, before its other content since the model reasoned
// first. The text may hold continuation envelopes in their text form
// (mapping.SplitReasoningText, read but never written): each closes one
// signed part with the text before it; text after the last envelope is one
// unsigned part. A damaged envelope is an error rather than reasoning text,
// so that it never reaches an upstream as if the model had written it.
func (d *chatRequestDecoder) reasoning(i int, role Role, v gjson.Result) *Error {
	// Every message passes here, most without reasoning: the path is only
	// put together for an error.
	path := func() string { return indexPath("messages", i) + ".reasoning_content" }
	switch {
	case v.Type == gjson.Null:
		return nil
	case role != RoleAssistant:
		return invalid(path(), "is only allowed in assistant messages")
	case v.Type != gjson.String:
		return wrongType(path(), "string", v)
	}
	var buf [4]mapping.ReasoningSegment
	segs, err := mapping.SplitReasoningText(buf[:0], v.Str)
	if err != nil {
		return invalid(path(), err.Error())
	}
	for _, s := range segs {
		p := Part{Type: PartReasoning, Text: s.Text}
		if s.Signed {
			c := &s.Continuation
			p.Signature, p.Origin, p.Redacted, p.ItemID = c.Signature, c.Origin, c.Redacted, c.ItemID
		}
		d.parts = append(d.parts, p)
	}
	return nil
}

// messageRefusal appends an assistant message's refusal after its text.
func (d *chatRequestDecoder) messageRefusal(i int, role Role, v gjson.Result) *Error {
	switch {
	case v.Type == gjson.Null:
		return nil
	case role != RoleAssistant:
		return invalid(indexPath("messages", i)+".refusal", "is only allowed in assistant messages")
	case v.Type != gjson.String:
		return wrongType(indexPath("messages", i)+".refusal", "string", v)
	}
	d.parts = append(d.parts, Part{Type: PartRefusal, Text: v.Str})
	return nil
}

// chatPartPath returns messages[i].content[j], for error paths.
func chatPartPath(i, j int) string {
	return indexPath(indexPath("messages", i)+".content", j)
}

// appendChatRequest encodes req as a Chat Completions request body.
//
// Chat keeps system and developer instructions in place, so req.System
// becomes one leading message and later instructions stay where they are.
// Streaming requests always ask for usage (stream_options.include_usage):
// the other protocols report it unasked, and a client of any protocol must
// get it (peer-lessons rule 5).
func appendChatRequest(dst []byte, req *Request, opts *EncodeOptions) ([]byte, *Error) {
	if req.TopK.Set {
		return dst, cannotEncode(OpenAIChat, "top_k", "top_k sampling")
	}
	dst = slices.Grow(dst, chatRequestSizeHint(req))
	dst = append(dst, `{"model":`...)
	dst = jsonx.AppendString(dst, opts.model(req))

	var err *Error
	d := opts.Target.Dialect
	dst = append(dst, `,"messages":[`...)
	if len(req.System) > 0 {
		role := RoleSystem
		if req.SystemRole == RoleDeveloper {
			role = RoleDeveloper
		}
		if dst, err = appendChatMessage(dst, role, req.System, -1, nil, d); err != nil {
			return dst, err
		}
	}
	for i := range req.Messages {
		m := &req.Messages[i]
		if m.Role == RoleAssistant {
			chatDropReasoning(req, m.Parts, i, d.chatNoReasoning())
		}
		if m.Role == RoleUser && chatHasResults(m.Parts) {
			dst, err = appendChatResults(dst, m.Parts, i, d)
		} else {
			dst, err = appendChatMessage(chatComma(dst), m.Role, m.Parts, i, nil, d)
		}
		if err != nil {
			return dst, err
		}
	}
	dst = append(dst, ']')

	if dst, err = appendChatTools(dst, req); err != nil {
		return dst, err
	}
	dst = appendChatSampling(dst, req, d)
	dst = appendChatReasoning(dst, req, opts)
	dst = appendChatFormat(dst, req)
	if req.Stream {
		dst = d.appendChatStream(dst)
	}
	return append(dst, '}'), nil
}

// chatDropReasoning lists the reasoning parts of assistant message i that
// cannot go to a Chat upstream in req.Dropped. Signed ones never can: a
// signature is only valid toward the family that issued it, and no Chat
// server issues or accepts one, so such reasoning (text and signature) is
// dropped. State a Chat server issued (chatOwnState) goes back. Unsigned reasoning goes in the dialect's reasoning field,
// reasoning_content by default (see appendChatMessage); when the server
// takes none (unsigned is true), the unsigned parts with text are dropped
// too.
func chatDropReasoning(req *Request, parts []Part, i int, unsigned bool) {
	for j := range parts {
		if p := &parts[j]; p.Type == PartReasoning && !chatOwnState(p) && (p.Signature != "" || unsigned && p.Text != "") {
			req.Dropped = append(req.Dropped, indexPath(indexPath("messages", i)+".content", j)+" (reasoning)")
		}
	}
}

// appendChatReasoning appends reasoning_effort from req.Reasoning: an effort by its OpenAI name (max, which OpenAI lacks, as xhigh), a
// thinking budget as the effort it stands for (opts.EffortBudgets), and
// nothing for adaptive thinking or no setting, which leave the choice to the
// model. Settings Chat has no field for (a Responses summary, Anthropic's
// display, Gemini's includeThoughts) only shape what is shown of the
// reasoning and are listed in req.Dropped.
func appendChatReasoning(dst []byte, req *Request, opts *EncodeOptions) []byte {
	r := &req.Reasoning
	e := r.Effort
	if e == mapping.EffortUnset && r.Budget.Set && !r.Adaptive {
		e = opts.EffortBudgets.Effort(r.Budget.Value)
	}
	if e == mapping.EffortMax {
		e = mapping.EffortXHigh
	}
	if e != mapping.EffortUnset {
		dst = append(dst, `,"reasoning_effort":"`...)
		dst = append(dst, e.String()...)
		dst = append(dst, '"')
	}
	if r.Summary != "" {
		req.Dropped = append(req.Dropped, "reasoning.summary")
	}
	if r.Display != "" {
		req.Dropped = append(req.Dropped, "thinking.display")
	}
	if r.IncludeThoughts.Set {
		req.Dropped = append(req.Dropped, "generationConfig.thinkingConfig.includeThoughts")
	}
	return dst
}

// appendChatFormat appends response_format and verbosity. Plain text is
// Chat's default and is left out; a JSON Schema without a name gets
// "response", since Chat requires one and the other protocols have none.
func appendChatFormat(dst []byte, req *Request) []byte {
	f := &req.Format
	switch f.Kind {
	case FormatJSONObject:
		dst = append(dst, `,"response_format":{"type":"json_object"}`...)
	case FormatJSONSchema:
		dst = append(dst, `,"response_format":{"type":"json_schema","json_schema":{"name":`...)
		name := f.Name
		if name == "" {
			name = "response"
		}
		dst = jsonx.AppendString(dst, name)
		if f.Description != "" {
			dst = append(dst, `,"description":`...)
			dst = jsonx.AppendString(dst, f.Description)
		}
		if f.Schema != "" {
			dst = append(dst, `,"schema":`...)
			dst = append(dst, f.Schema...)
		}
		if f.Strict.Set {
			dst = append(dst, `,"strict":`...)
			dst = strconv.AppendBool(dst, f.Strict.Value)
		}
		dst = append(dst, "}}"...)
	}
	if req.Verbosity != "" {
		dst = append(dst, `,"verbosity":`...)
		dst = jsonx.AppendString(dst, req.Verbosity)
	}
	return dst
}

// chatComma appends the comma that separates array elements unless dst
// ends with the array's opening bracket.
func chatComma(dst []byte) []byte {
	if dst[len(dst)-1] == '[' {
		return dst
	}
	return append(dst, ',')
}

// chatHasResults reports whether parts hold a tool result.
func chatHasResults(parts []Part) bool {
	for i := range parts {
		if parts[i].Type == PartToolResult {
			return true
		}
	}
	return false
}

// appendChatResults appends user message i, which holds tool results: one
// tool message per result, in order, then a user message with the rest.
// Chat tool messages carry text only, so the images of a result go into
// that user message, right after the tool messages and before the user's
// other content.
func appendChatResults(dst []byte, parts []Part, i int, d *Dialect) ([]byte, *Error) {
	var rest []Part
	var idx []int
	var err *Error
	for j := range parts {
		p := &parts[j]
		if p.Type != PartToolResult {
			continue
		}
		if dst, err = appendChatToolMessage(chatComma(dst), p, i, j, d.chatIDs()); err != nil {
			return dst, err
		}
		for _, c := range p.Content {
			if c.Type == PartImage {
				rest, idx = append(rest, c), append(idx, j)
			}
		}
	}
	for j := range parts {
		if parts[j].Type != PartToolResult {
			rest, idx = append(rest, parts[j]), append(idx, j)
		}
	}
	if len(rest) == 0 {
		return dst, nil
	}
	return appendChatMessage(chatComma(dst), RoleUser, rest, i, idx, d)
}

// appendChatToolMessage appends the tool message of result p, part j of
// message i, its call id in format ids. Chat has no error flag: a failed
// result's text is prefixed with "Error: ", which decoders do not parse
// back.
func appendChatToolMessage(dst []byte, p *Part, i, j int, ids IDFormat) ([]byte, *Error) {
	// Every tool result passes here: the path is only put together for an
	// error.
	if p.ToolCallID == "" {
		return dst, cannotEncode(OpenAIChat, chatEncodePartPath(i, j)+".tool_call_id", "a tool result without a call id")
	}
	texts := 0
	for k := range p.Content {
		switch p.Content[k].Type {
		case PartText:
			texts++
		case PartImage:
		default:
			return dst, cannotEncode(OpenAIChat, indexPath(chatEncodePartPath(i, j)+".content", k), "a "+p.Content[k].Type.String()+" in a tool result")
		}
	}
	dst = append(dst, `{"role":"tool","tool_call_id":`...)
	dst = appendChatToolCallID(dst, p.ToolCallID, ids)
	dst = append(dst, `,"content":`...)
	prefix := ""
	if p.IsError {
		prefix = "Error: "
	}
	if texts <= 1 {
		dst = append(dst, '"')
		dst = append(dst, prefix...)
		for k := range p.Content {
			if c := &p.Content[k]; c.Type == PartText {
				dst = appendTextBody(dst, c.Text, c)
			}
		}
		return append(dst, `"}`...), nil
	}
	dst = append(dst, '[')
	for k := range p.Content {
		c := &p.Content[k]
		if c.Type != PartText {
			continue
		}
		dst = chatComma(dst)
		dst = append(dst, `{"type":"text","text":"`...)
		dst = append(dst, prefix...)
		dst = appendTextBody(dst, c.Text, c)
		dst = append(dst, `"}`...)
		prefix = ""
	}
	return append(dst, "]}"...), nil
}

// appendChatTools appends tools, tool_choice and parallel_tool_calls. Chat
// takes a tool choice or a parallel switch only with tools; without them
// neither says anything and both are left out.
func appendChatTools(dst []byte, req *Request) ([]byte, *Error) {
	if len(req.Tools) == 0 {
		return dst, nil
	}
	if err := checkFlatNames(OpenAIChat, req); err != nil {
		return dst, err
	}
	dst = append(dst, `,"tools":[`...)
	for i := range req.Tools {
		t := &req.Tools[i]
		switch t.Kind {
		case ToolFunction:
		case ToolCustom:
			if err := checkCustomFor(OpenAIChat, t, i); err != nil {
				return dst, err
			}
		case ToolWebSearch:
			return dst, hostedToolError(OpenAIChat, t, i, "", "Chat Completions has no hosted web search tool")
		default:
			return dst, cannotEncode(OpenAIChat, indexPath("tools", i), "a hosted tool")
		}
		name, desc, params := functionView(t)
		dst = chatComma(dst)
		dst = append(dst, `{"type":"function","function":{"name":`...)
		dst = jsonx.AppendString(dst, name)
		if desc != "" {
			dst = append(dst, `,"description":`...)
			dst = jsonx.AppendString(dst, desc)
		}
		if params != "" {
			dst = append(dst, `,"parameters":`...)
			dst = append(dst, params...)
		}
		if t.Strict.Set {
			dst = append(dst, `,"strict":`...)
			dst = strconv.AppendBool(dst, t.Strict.Value)
		}
		dst = append(dst, "}}"...)
	}
	dst = append(dst, ']')
	switch req.ToolChoice.Mode {
	case ToolChoiceAuto:
		dst = append(dst, `,"tool_choice":"auto"`...)
	case ToolChoiceNone:
		dst = append(dst, `,"tool_choice":"none"`...)
	case ToolChoiceRequired:
		dst = append(dst, `,"tool_choice":"required"`...)
	case ToolChoiceNamed:
		dst = append(dst, `,"tool_choice":{"type":"function","function":{"name":`...)
		dst = jsonx.AppendString(dst, req.ToolChoice.wireName())
		dst = append(dst, "}}"...)
	}
	if req.ParallelToolCalls.Set {
		dst = append(dst, `,"parallel_tool_calls":`...)
		dst = strconv.AppendBool(dst, req.ParallelToolCalls.Value)
	}
	return dst, nil
}

// chatRequestSizeHint estimates the encoded size of req, so that dst grows
// once rather than doubling its way up.
func chatRequestSizeHint(req *Request) int {
	n := 256 + len(req.Model)
	for _, p := range req.System {
		n += len(p.Text) + 32
	}
	for i := range req.Messages {
		n += 40
		for _, p := range req.Messages[i].Parts {
			n += len(p.Text) + len(p.Arguments) + len(p.Data) + len(p.URL) + 32
			for _, c := range p.Content {
				n += len(c.Text) + len(c.Data) + 64
			}
		}
	}
	for _, t := range req.Tools {
		n += len(t.Name) + len(t.Description) + len(t.Parameters) + 64
	}
	return n
}

// appendChatSampling appends the generation parameters that are set; the
// output limit under the dialect's name for it.
func appendChatSampling(dst []byte, req *Request, d *Dialect) []byte {
	if req.MaxTokens.Set {
		dst = append(dst, d.chatMaxTokensKey()...)
		dst = jsonx.AppendInt(dst, req.MaxTokens.Value)
	}
	dst = appendChatFloat(dst, `,"temperature":`, req.Temperature)
	dst = appendChatFloat(dst, `,"top_p":`, req.TopP)
	dst = appendChatFloat(dst, `,"presence_penalty":`, req.PresencePenalty)
	dst = appendChatFloat(dst, `,"frequency_penalty":`, req.FrequencyPenalty)
	if req.Seed.Set {
		dst = append(dst, `,"seed":`...)
		dst = jsonx.AppendInt(dst, req.Seed.Value)
	}
	if len(req.StopSequences) > 0 {
		dst = append(dst, `,"stop":`...)
		dst = jsonx.AppendStringArray(dst, req.StopSequences)
	}
	if req.User != "" {
		dst = append(dst, `,"user":`...)
		dst = appendOpenAIUser(dst, req.User)
	}
	return dst
}

// appendChatFloat appends key and f when f is set.
func appendChatFloat(dst []byte, key string, f OptFloat) []byte {
	if !f.Set {
		return dst
	}
	return jsonx.AppendFloat(append(dst, key...), f.Value)
}

// appendChatMessage appends one message; i is its index in req.Messages
// for error paths, or -1 for the system prompt, idx, when not nil, maps
// the positions in parts to the message's own (for the user message that
// follows tool results), and d is the server's dialect (nil for OpenAI).
//
// Text is a plain string when it is one part and an array of text parts
// otherwise; images, documents and audio (user messages only) make it an
// array of typed parts. Refusal parts of an assistant message go to its
// refusal field and tool calls to tool_calls, with content null when there
// is no text; Chat has no refusal slot in the other roles, so there a
// refusal is projected into text unchanged. Unsigned reasoning of an
// assistant message goes to the dialect's reasoning field
// (reasoning_content by default), its texts concatenated; signed reasoning
// was listed as dropped by chatDropReasoning, and so was unsigned
// reasoning toward a server that takes no reasoning field.
func appendChatMessage(dst []byte, role Role, parts []Part, i int, idx []int, d *Dialect) ([]byte, *Error) {
	texts, refusals, media, calls, reasoning := 0, 0, 0, 0, 0
	for j := range parts {
		p := &parts[j]
		switch p.Type {
		case PartReasoning:
			if role != RoleAssistant {
				return dst, cannotEncode(OpenAIChat, chatEncodeIdxPath(i, j, idx), "a reasoning outside an assistant message")
			}
			if p.Signature == "" && p.Text != "" {
				reasoning++
			}
		case PartText:
			texts++
		case PartRefusal:
			refusals++
		case PartToolCall:
			if role != RoleAssistant {
				return dst, cannotEncode(OpenAIChat, chatEncodeIdxPath(i, j, idx), "a tool call outside an assistant message")
			}
			calls++
		case PartImage, PartDocument, PartAudio:
			if role != RoleUser {
				return dst, cannotEncode(OpenAIChat, chatEncodeIdxPath(i, j, idx), "a "+p.Type.String()+" outside a user message")
			}
			if what := chatMediaProblem(p); what != "" {
				return dst, cannotEncode(OpenAIChat, chatEncodeIdxPath(i, j, idx), what)
			}
			media++
		default:
			return dst, cannotEncode(OpenAIChat, chatEncodeIdxPath(i, j, idx), "a "+p.Type.String()+" outside a user message")
		}
	}
	if role != RoleAssistant {
		texts, refusals = texts+refusals, 0
	}

	dst = append(dst, `{"role":`...)
	dst = jsonx.AppendString(dst, d.chatRole(role).String())
	dst = append(dst, `,"content":`...)
	switch {
	case media > 0:
		dst = appendChatContentParts(dst, parts)
	case texts == 0 && (refusals > 0 || calls > 0):
		dst = append(dst, "null"...)
	case texts == 0:
		dst = append(dst, `""`...)
	case texts == 1:
		dst = appendChatJoined(dst, parts, role != RoleAssistant)
	default:
		dst = appendChatTextParts(dst, parts, role != RoleAssistant)
	}
	if key := d.chatReasoningKey(); key != "" && (reasoning > 0 || calls > 0 && d.chatEmptyReasoning()) {
		dst = append(dst, key...)
		for j := range parts {
			if p := &parts[j]; p.Type == PartReasoning && p.Signature == "" {
				dst = jsonx.AppendStringBody(dst, p.Text)
			}
		}
		dst = append(dst, '"')
	}
	if refusals > 0 {
		dst = append(dst, `,"refusal":`...)
		dst = appendChatJoinedRefusal(dst, parts)
	}
	if calls > 0 {
		dst = appendChatToolCalls(append(dst, `,"tool_calls":`...), parts, d.chatIDs())
	}
	if role == RoleAssistant {
		dst = appendChatOwnState(dst, parts)
	}
	return append(dst, '}'), nil
}

// chatOwnState reports whether reasoning part p is state a Chat server
// issued (an opaquePart of FamilyOpenAIChat, such as chatAudioState): the
// members of a JSON object to put back on the assistant message.
func chatOwnState(p *Part) bool {
	return isOpaque(p, mapping.FamilyOpenAIChat) && strings.HasSuffix(p.Signature, "}") && jsonx.Valid(p.Signature)
}

// appendChatOwnState appends the members of the Chat state among parts to
// the assistant message object dst is writing.
func appendChatOwnState(dst []byte, parts []Part) []byte {
	for j := range parts {
		if p := &parts[j]; p.Type == PartReasoning && chatOwnState(p) {
			if members := strings.TrimSpace(p.Signature[1 : len(p.Signature)-1]); members != "" {
				dst = append(append(dst, ','), members...)
			}
		}
	}
	return dst
}

// chatEncodeIdxPath names part j of parts in an encoding error, through
// idx when the parts were regrouped.
func chatEncodeIdxPath(i, j int, idx []int) string {
	if idx != nil {
		j = idx[j]
	}
	return chatEncodePartPath(i, j)
}

// chatEncodePartPath names a canonical part in an encoding error.
func chatEncodePartPath(i, j int) string {
	if i < 0 {
		return indexPath("system", j)
	}
	return indexPath(indexPath("messages", i)+".parts", j)
}

// chatMediaProblem says why media part p cannot be written to Chat, or "".
// Chat takes images as data: or http(s) URLs, files as data: URLs only
// (llmbridge never fetches a URL) and audio as wav or mp3 data.
func chatMediaProblem(p *Part) string {
	switch {
	case p.Type == PartImage && p.URL != "":
		return ""
	case p.URL != "":
		return "a " + p.Type.String() + " given by URL"
	case p.MediaType == "" || p.Data == "":
		return "a " + p.Type.String() + " without media type and data"
	case p.Type == PartAudio && chatAudioFormat(p.MediaType) == "":
		return `audio of type "` + p.MediaType + `"`
	}
	return ""
}

// chatAudioFormat returns the input_audio format of an audio media type,
// or "".
func chatAudioFormat(mediaType string) string {
	switch mediaType {
	case "audio/wav", "audio/x-wav", "audio/wave":
		return "wav"
	case "audio/mp3", "audio/mpeg":
		return "mp3"
	}
	return ""
}

// appendChatContentParts appends the content of a user message with
// media as an array of typed parts; text and refusal parts are text.
func appendChatContentParts(dst []byte, parts []Part) []byte {
	dst = append(dst, '[')
	for j := range parts {
		p := &parts[j]
		dst = chatComma(dst)
		switch p.Type {
		case PartImage:
			dst = append(dst, `{"type":"image_url","image_url":{"url":`...)
			if p.URL != "" {
				dst = jsonx.AppendString(dst, p.URL)
			} else {
				dst = appendChatDataURL(dst, p)
			}
			dst = append(dst, "}}"...)
		case PartDocument:
			dst = append(dst, `{"type":"file","file":{`...)
			if p.Text != "" {
				dst = append(dst, `"filename":`...)
				dst = jsonx.AppendString(dst, p.Text)
				dst = append(dst, ',')
			}
			dst = append(dst, `"file_data":`...)
			dst = appendChatDataURL(dst, p)
			dst = append(dst, "}}"...)
		case PartAudio:
			dst = append(dst, `{"type":"input_audio","input_audio":{"data":`...)
			dst = jsonx.AppendString(dst, p.Data)
			dst = append(dst, `,"format":"`...)
			dst = append(dst, chatAudioFormat(p.MediaType)...)
			dst = append(dst, `"}}`...)
		default:
			dst = append(dst, `{"type":"text","text":`...)
			dst = appendText(dst, p.Text, p)
			dst = append(dst, '}')
		}
	}
	return append(dst, ']')
}

// appendChatDataURL appends the data: URL of p's media type and data.
func appendChatDataURL(dst []byte, p *Part) []byte {
	dst = append(dst, `"data:`...)
	dst = jsonx.AppendStringBody(dst, p.MediaType)
	dst = append(dst, ";base64,"...)
	dst = jsonx.AppendStringBody(dst, p.Data)
	return append(dst, '"')
}

// appendChatToolCalls appends the tool call parts as a tool_calls array,
// their ids in format ids. Arguments are written as a JSON string holding
// the object's text, "{}" when there are none.
func appendChatToolCalls(dst []byte, parts []Part, ids IDFormat) []byte {
	dst = append(dst, '[')
	for j := range parts {
		p := &parts[j]
		if p.Type != PartToolCall {
			continue
		}
		dst = chatComma(dst)
		dst = append(dst, `{"id":`...)
		dst = appendChatToolCallID(dst, p.ToolCallID, ids)
		dst = append(dst, `,"type":"function","function":{"name":`...)
		dst = jsonx.AppendString(dst, callWireName(p))
		dst = append(dst, `,"arguments":`...)
		dst = jsonx.AppendString(dst, chatArgumentsText(p.Arguments))
		dst = append(dst, "}}"...)
	}
	return append(dst, ']')
}

// chatArgumentsText returns the arguments object text, "{}" for none.
func chatArgumentsText(args string) string {
	if args == "" {
		return "{}"
	}
	return args
}

// appendChatTextParts appends the text parts (and, when refusalsAsText, the
// refusal parts) as an array of Chat text content parts.
func appendChatTextParts(dst []byte, parts []Part, refusalsAsText bool) []byte {
	dst = append(dst, '[')
	first := true
	for i := range parts {
		p := &parts[i]
		if p.Type != PartText && !refusalsAsText {
			continue
		}
		if !first {
			dst = append(dst, ',')
		}
		first = false
		dst = append(dst, `{"type":"text","text":`...)
		dst = appendText(dst, p.Text, p)
		dst = append(dst, '}')
	}
	return append(dst, ']')
}

// appendChatAnnotations appends the citations of the text parts as Chat
// url_citation annotations ({type, url_citation: {start_index, end_index,
// url, title}}), whose character indexes count from the start of the
// message content, the text parts joined.
func appendChatAnnotations(dst []byte, parts []Part) []byte {
	dst = append(dst, '[')
	base, first := 0, true
	for i := range parts {
		p := &parts[i]
		if p.Type != PartText {
			continue
		}
		for k := range p.Citations {
			if !first {
				dst = append(dst, ',')
			}
			first = false
			dst = append(dst, `{"type":"url_citation","url_citation":{`...)
			dst = appendURLCitationFields(dst, &p.Citations[k], p.Text, base)
			dst = append(dst, `}}`...)
		}
		base += utf8.RuneCountInString(p.Text)
	}
	return append(dst, ']')
}

// appendChatJoined appends the text parts (and, when refusalsAsText, the
// refusal parts) concatenated as one JSON string: they are one contiguous
// output, so no separator is added.
func appendChatJoined(dst []byte, parts []Part, refusalsAsText bool) []byte {
	dst = append(dst, '"')
	for i := range parts {
		if p := &parts[i]; p.Type == PartText || refusalsAsText {
			dst = appendTextBody(dst, p.Text, p)
		}
	}
	return append(dst, '"')
}

// appendChatJoinedRefusal appends the refusal parts concatenated as one JSON
// string.
func appendChatJoinedRefusal(dst []byte, parts []Part) []byte {
	dst = append(dst, '"')
	for _, p := range parts {
		if p.Type == PartRefusal {
			dst = jsonx.AppendStringBody(dst, p.Text)
		}
	}
	return append(dst, '"')
}

// decodeChatResponse decodes a non-streamed Chat Completions body. Only the
// first choice is read: requests with n other than 1 are rejected, so the
// upstream answers one.
func decodeChatResponse(root gjson.Result, resp *Response) *Error {
	var choices, usage gjson.Result
	var err *Error
	jsonx.EachMember(root, &resp.text, func(key, v gjson.Result) bool {
		switch key.Str {
		case "id":
			err = chatUpstreamString(v, "id", &resp.ID)
		case "model":
			err = chatUpstreamString(v, "model", &resp.Model)
		case "created":
			err = chatUpstreamInt(v, "created", &resp.Created)
		case "choices":
			choices = v
		case "usage":
			usage = v
		}
		return err == nil
	})
	if err != nil {
		return err
	}
	if err := decodeChatChoice(choices, resp); err != nil {
		return err
	}
	return decodeChatUsage(usage, &resp.Usage)
}

// decodeChatChoice decodes choices[0].
func decodeChatChoice(choices gjson.Result, resp *Response) *Error {
	if !choices.IsArray() {
		return badUpstream(OpenAIChat, "choices is missing or not an array")
	}
	var choice gjson.Result
	jsonx.EachMember(choices, &resp.text, func(_, c gjson.Result) bool {
		choice = c
		return false
	})
	switch {
	case !choice.Exists():
		return badUpstream(OpenAIChat, "choices is empty")
	case !choice.IsObject():
		return badUpstream(OpenAIChat, "choices[0] is not an object")
	}
	var message gjson.Result
	var err *Error
	jsonx.EachMember(choice, &resp.text, func(key, v gjson.Result) bool {
		switch key.Str {
		case "message":
			message = v
		case "finish_reason":
			var reason string
			err = chatUpstreamString(v, "finish_reason", &reason)
			resp.StopReason = mapping.FromChatFinishReason(reason)
		}
		return err == nil
	})
	if err != nil {
		return err
	}
	if err := decodeChatResponseMessage(message, resp); err != nil {
		return err
	}
	resp.StopReason = chatToolStop(resp.StopReason, resp.Content)
	return nil
}

// chatRefusalStop returns StopRefusal for a natural end of output that
// holds a refusal: OpenAI ends refusals with "stop", but a
// refusal is its own kind of ending that clients of other protocols are
// told about (Anthropic stop_reason refusal). Other reasons stay s.
func chatRefusalStop(s StopReason, refusal bool) StopReason {
	if refusal && s == mapping.StopEnd {
		return mapping.StopRefusal
	}
	return s
}

// chatToolStop returns StopToolUse for a natural end of output that holds
// tool calls (some compatible servers finish tool calls with "stop"), and
// s otherwise.
func chatToolStop(s StopReason, content []Part) StopReason {
	if s != mapping.StopEnd && s != mapping.StopNone {
		return s
	}
	for i := range content {
		if content[i].Type == PartToolCall {
			return mapping.StopToolUse
		}
	}
	return s
}

// decodeChatResponseMessage decodes choices[0].message: its reasoning, then
// its text, then its refusal, then its audio (chatAudio), then its tool
// calls, the legacy function_call among them (chatLegacyCall). Generated
// images (OpenRouter's images) are display only: no client protocol of
// another family carries model-made images in llmbridge's model, so they
// are dropped and listed in resp.Dropped.
func decodeChatResponseMessage(message gjson.Result, resp *Response) *Error {
	if !message.IsObject() {
		return badUpstream(OpenAIChat, "choices[0].message is missing or not an object")
	}
	var content, refusal, calls, reasoning, reasoningAlias, annotations, legacy, audio gjson.Result
	var err *Error
	jsonx.EachMember(message, &resp.text, func(key, v gjson.Result) bool {
		switch key.Str {
		case "content":
			content = v
		case "annotations":
			// Search models (and OpenRouter's web plugin) cite pages.
			annotations = v
		case "refusal":
			refusal = v
		case "reasoning_content":
			reasoning = v
		case "reasoning":
			// vLLM and OpenRouter name the same text reasoning; some
			// servers send both names.
			reasoningAlias = v
		case "tool_calls":
			calls = v
		case "function_call":
			legacy = v
		case "audio":
			audio = v
		case "images":
			if v.IsArray() && len(v.Raw) > 2 {
				resp.Dropped = append(resp.Dropped, "choices[0].message.images (images)")
			}
		}
		return err == nil
	})
	if err != nil {
		return err
	}
	switch {
	case content.Type != gjson.Null && content.Type != gjson.String:
		return badUpstream(OpenAIChat, "choices[0].message.content is not a string")
	case refusal.Type != gjson.Null && refusal.Type != gjson.String:
		return badUpstream(OpenAIChat, "choices[0].message.refusal is not a string")
	case reasoning.Type != gjson.Null && reasoning.Type != gjson.String:
		return badUpstream(OpenAIChat, "choices[0].message.reasoning_content is not a string")
	case reasoningAlias.Type != gjson.Null && reasoningAlias.Type != gjson.String:
		return badUpstream(OpenAIChat, "choices[0].message.reasoning is not a string")
	}
	if reasoning.Str == "" {
		reasoning = reasoningAlias
	}
	// Chat reasoning is plain text: no Chat server signs it, so it goes on
	// unsigned (Origin FamilyNone).
	if reasoning.Str != "" {
		resp.Content = append(resp.Content, Part{Type: PartReasoning, Text: reasoning.Str})
	}
	// A refusal comes with content null, or now and then "": the empty
	// string is then no output. Alone, "" is kept, so that an empty answer
	// stays an empty answer rather than becoming null.
	if content.Type == gjson.String && (content.Str != "" || refusal.Type != gjson.String) {
		resp.Content = append(resp.Content, Part{Type: PartText, Text: content.Str,
			Citations: decodeChatAnnotations(annotations, content.Str)})
	}
	if refusal.Type == gjson.String {
		resp.Content = append(resp.Content, Part{Type: PartRefusal, Text: refusal.Str})
		resp.StopReason = chatRefusalStop(resp.StopReason, true)
	}
	if err := decodeChatAudio(audio, resp); err != nil {
		return err
	}
	if err := decodeChatLegacyCall(legacy, resp); err != nil {
		return err
	}
	return decodeChatResponseToolCalls(calls, resp)
}

// decodeChatAudio decodes the audio of an answer (audio output,
// modalities ["text", "audio"]): {id, data, transcript, expires_at}.
//
//   - transcript is what the model said, the answer itself: a text part.
//   - id is state: a Chat server wants {"audio": {"id": ...}} back on the
//     assistant message of the next turn instead of the sound. It is kept
//     as an opaquePart of FamilyOpenAIChat (chatAudioState), which goes
//     back to a Chat upstream only.
//   - data, the sound, is display only: no client protocol of another
//     family carries model-made audio in llmbridge's model, so it is
//     dropped and listed in resp.Dropped.
func decodeChatAudio(v gjson.Result, resp *Response) *Error {
	if v.Type == gjson.Null {
		return nil
	}
	if !v.IsObject() {
		return badUpstream(OpenAIChat, "choices[0].message.audio is not an object")
	}
	var id, transcript, data string
	var err *Error
	jsonx.EachMember(v, &resp.text, func(k, f gjson.Result) bool {
		switch k.Str {
		case "id":
			err = chatUpstreamString(f, "choices[0].message.audio.id", &id)
		case "transcript":
			err = chatUpstreamString(f, "choices[0].message.audio.transcript", &transcript)
		case "data":
			err = chatUpstreamString(f, "choices[0].message.audio.data", &data)
		}
		return err == nil
	})
	if err != nil {
		return err
	}
	if transcript != "" {
		resp.Content = append(resp.Content, Part{Type: PartText, Text: transcript})
	}
	if id != "" {
		resp.Content = append(resp.Content, chatAudioState(id))
	}
	if data != "" {
		resp.Dropped = append(resp.Dropped, "choices[0].message.audio.data (audio)")
	}
	return nil
}

// chatAudioState is the opaque part that keeps the id of a Chat audio
// answer: the members to put back on the assistant message, as a JSON
// object.
func chatAudioState(id string) Part {
	b := jsonx.AppendString([]byte(`{"audio":{"id":`), id)
	b = append(b, "}}"...)
	return Part{Type: PartReasoning, Redacted: true, Origin: mapping.FamilyOpenAIChat, Signature: string(b)}
}

// decodeChatLegacyCall decodes the legacy function_call of an answer
// ({name, arguments}, from servers that predate tool_calls) as a tool
// call. It has no id; chatLegacyCallID stands in, and the client's result
// for it goes back to a Chat upstream as a tool message with that id.
func decodeChatLegacyCall(v gjson.Result, resp *Response) *Error {
	if v.Type == gjson.Null {
		return nil
	}
	if !v.IsObject() {
		return badUpstream(OpenAIChat, "choices[0].message.function_call is not an object")
	}
	p := Part{Type: PartToolCall, ToolCallID: chatLegacyCallID(resp.ID)}
	var args string
	var err *Error
	jsonx.EachMember(v, &resp.text, func(k, f gjson.Result) bool {
		switch k.Str {
		case "name":
			err = chatUpstreamString(f, "choices[0].message.function_call.name", &p.ToolName)
		case "arguments":
			err = chatUpstreamString(f, "choices[0].message.function_call.arguments", &args)
		}
		return err == nil
	})
	if err != nil {
		return err
	}
	if p.ToolName == "" {
		return badUpstream(OpenAIChat, "choices[0].message.function_call has no name")
	}
	var ok bool
	if p.Arguments, ok = chatArguments(args); !ok {
		return badUpstream(OpenAIChat, "choices[0].message.function_call.arguments is not the text of a JSON object")
	}
	resp.Content = append(resp.Content, p)
	return nil
}

// chatLegacyCallID is the id given to a legacy function_call, which has
// none: unique to the response, so that a history of several turns keeps
// its calls apart.
func chatLegacyCallID(responseID string) string {
	if responseID == "" {
		return "call_function"
	}
	return "call_" + responseID
}

// decodeChatAnnotations reads the url_citation annotations of a message
// whose content is text, converting their character indexes to byte
// offsets. Annotations of other kinds are skipped.
func decodeChatAnnotations(v gjson.Result, text string) []Citation {
	if !v.IsArray() {
		return nil
	}
	var cs []Citation
	v.ForEach(func(_, a gjson.Result) bool {
		if c, start, end, ok := chatCitation(a); ok {
			c.Start, c.End = byteIndex(text, start), byteIndex(text, end)
			cs = append(cs, c)
		}
		return true
	})
	return cs
}

// decodeChatResponseToolCalls appends the tool calls of choices[0].message,
// with their arguments string unquoted into Arguments.
func decodeChatResponseToolCalls(calls gjson.Result, resp *Response) *Error {
	switch {
	case calls.Type == gjson.Null:
		return nil
	case !calls.IsArray():
		return badUpstream(OpenAIChat, "choices[0].message.tool_calls is not an array")
	}
	var err *Error
	jsonx.EachMember(calls, &resp.text, func(key, c gjson.Result) bool {
		path := indexPath("choices[0].message.tool_calls", int(key.Num))
		if !c.IsObject() {
			err = badUpstream(OpenAIChat, path+" is not an object")
			return false
		}
		p := Part{Type: PartToolCall}
		var typ, args string
		jsonx.EachMember(c, &resp.text, func(k, v gjson.Result) bool {
			switch k.Str {
			case "id":
				err = chatUpstreamString(v, path+".id", &p.ToolCallID)
			case "type":
				err = chatUpstreamString(v, path+".type", &typ)
			case "function":
				jsonx.EachMember(v, &resp.text, func(fk, fv gjson.Result) bool {
					switch fk.Str {
					case "name":
						err = chatUpstreamString(fv, path+".function.name", &p.ToolName)
					case "arguments":
						err = chatUpstreamString(fv, path+".function.arguments", &args)
					}
					return err == nil
				})
			}
			return err == nil
		})
		switch {
		case err != nil:
		case typ != "" && typ != "function":
			err = chatClientAction(path, typ)
		case p.ToolCallID == "" || p.ToolName == "":
			err = badUpstream(OpenAIChat, path+" has no id or no function name")
		default:
			var ok bool
			if p.Arguments, ok = chatArguments(args); !ok {
				err = badUpstream(OpenAIChat, path+".function.arguments is not the text of a JSON object")
			}
		}
		resp.Content = append(resp.Content, p)
		return err == nil
	})
	return err
}

// chatClientAction is the error for a tool call of a type other than
// function (a custom tool's call, types added later): a call the client
// must run, which llmbridge's model has no slot for. Dropping it would end
// the turn without the action the model asked for, as though it had
// finished, so the response fails instead.
func chatClientAction(path, typ string) *Error {
	return badUpstream(OpenAIChat, path+` is a tool call of type "`+typ+
		`", which the client would have to run and llmbridge cannot translate; leaving it out would end the turn without it`)
}

// decodeChatUsage decodes the usage object, whose counters already have
// the canonical meaning: prompt_tokens includes cached tokens and
// completion_tokens includes reasoning tokens.
func decodeChatUsage(v gjson.Result, u *Usage) *Error {
	if v.Type == gjson.Null {
		return nil
	}
	if !v.IsObject() {
		return badUpstream(OpenAIChat, "usage is not an object")
	}
	*u = Usage{Known: true}
	var err *Error
	var hit int64
	v.ForEach(func(key, value gjson.Result) bool {
		switch key.Str {
		case "prompt_cache_hit_tokens":
			// DeepSeek's name for cached prompt tokens, which its
			// prompt_tokens include as OpenAI's do.
			err = chatUpstreamInt(value, "usage.prompt_cache_hit_tokens", &hit)
		case "prompt_tokens":
			err = chatUpstreamInt(value, "usage.prompt_tokens", &u.InputTokens)
		case "completion_tokens":
			err = chatUpstreamInt(value, "usage.completion_tokens", &u.OutputTokens)
		case "prompt_tokens_details":
			err = chatUsageDetail(value, "usage.prompt_tokens_details", "cached_tokens", &u.CacheReadTokens)
		case "completion_tokens_details":
			err = chatUsageDetail(value, "usage.completion_tokens_details", "reasoning_tokens", &u.ReasoningTokens)
		}
		return err == nil
	})
	if u.CacheReadTokens == 0 {
		u.CacheReadTokens = hit
	}
	return err
}

// chatUsageDetail reads the counter named field from a usage details object,
// which may be null or absent.
func chatUsageDetail(v gjson.Result, path, field string, dst *int64) *Error {
	if v.Type == gjson.Null {
		return nil
	}
	if !v.IsObject() {
		return badUpstream(OpenAIChat, path+" is not an object")
	}
	var err *Error
	v.ForEach(func(key, value gjson.Result) bool {
		if key.Str == field {
			err = chatUpstreamInt(value, path+"."+field, dst)
		}
		return err == nil
	})
	return err
}

// chatUpstreamString reads an optional string of an upstream response.
func chatUpstreamString(v gjson.Result, path string, dst *string) *Error {
	switch v.Type {
	case gjson.Null:
		return nil
	case gjson.String:
		*dst = v.Str
		return nil
	}
	return badUpstream(OpenAIChat, path+" is not a string")
}

// chatUpstreamInt reads an optional integer of an upstream response.
func chatUpstreamInt(v gjson.Result, path string, dst *int64) *Error {
	switch v.Type {
	case gjson.Null:
		return nil
	case gjson.Number:
		*dst = v.Int()
		return nil
	}
	return badUpstream(OpenAIChat, path+" is not a number")
}

// appendChatResponse encodes resp as a Chat Completions body with every
// field openai-go's ChatCompletion requires. Usage is optional in Chat and
// is omitted when the upstream gave none, rather than reported as zero.
//
// A refusal (StopRefusal) is given as message.refusal with content null,
// following refusalOutput. Reasoning goes into reasoning_content, the
// extension field of DeepSeek and other compatible servers that Chat clients
// show as thinking; an opaque value goes there too, as a continuation
// envelope after its part's text, since Chat has no slot for it and the
// client must replay it for the next turn to reach the issuing upstream.
func appendChatResponse(dst []byte, resp *Response) ([]byte, *Error) {
	var buf [1]Part
	content, err := refusalOutput(resp, OpenAIChat, buf[:0])
	if err != nil {
		return dst, err
	}
	texts, refusals, calls, reasoning, cites := 0, 0, 0, 0, 0
	for i := range content {
		switch content[i].Type {
		case PartText:
			texts++
			cites += len(content[i].Citations)
		case PartRefusal:
			refusals++
		case PartToolCall:
			calls++
		case PartReasoning:
			reasoning++
		case PartServerToolCall, PartServerToolResult:
			// Chat has no item for a search the upstream ran; the
			// answer and its citations (annotations) carry what it
			// found.
			resp.Dropped = append(resp.Dropped, indexPath("content", i)+" ("+content[i].Type.String()+")")
		default:
			return dst, chatCannotRespond(indexPath("content", i))
		}
	}
	dst = slices.Grow(dst, chatResponseSizeHint(resp))

	dst = append(dst, `{"id":`...)
	if resp.ID != "" {
		dst = jsonx.AppendString(dst, resp.ID)
	} else {
		dst = jsonx.AppendString(dst, newID("chatcmpl-"))
	}
	dst = append(dst, `,"object":"chat.completion","created":`...)
	if resp.Created != 0 {
		dst = jsonx.AppendInt(dst, resp.Created)
	} else {
		dst = jsonx.AppendInt(dst, time.Now().Unix())
	}
	dst = append(dst, `,"model":`...)
	dst = jsonx.AppendString(dst, resp.Model)

	dst = append(dst, `,"choices":[{"index":0,"message":{"role":"assistant","content":`...)
	if texts > 0 {
		dst = appendChatJoined(dst, content, false)
	} else {
		dst = append(dst, "null"...)
	}
	if reasoning > 0 {
		dst = appendChatReasoningContent(append(dst, `,"reasoning_content":`...), content)
	}
	if cites > 0 {
		dst = appendChatAnnotations(append(dst, `,"annotations":`...), content)
	}
	dst = append(dst, `,"refusal":`...)
	if refusals > 0 {
		dst = appendChatJoinedRefusal(dst, content)
	} else {
		dst = append(dst, "null"...)
	}
	if calls > 0 {
		dst = appendChatResponseToolCalls(append(dst, `,"tool_calls":`...), content)
	}
	if reasoning > 0 {
		chatDropUnfollowedSignatures(resp, content)
	}
	dst = append(dst, `},"logprobs":null,"finish_reason":`...)
	dst = jsonx.AppendString(dst, mapping.ChatFinishReason(chatToolStop(resp.StopReason, content)))
	dst = append(dst, "}]"...)

	if resp.Usage.Known {
		dst = appendChatUsage(dst, &resp.Usage)
	}
	return append(dst, '}'), nil
}

// chatResponseSizeHint estimates the encoded size of resp.
func chatResponseSizeHint(resp *Response) int {
	n := 512 + len(resp.ID) + len(resp.Model)
	for _, p := range resp.Content {
		n += len(p.Text) + len(p.Arguments) + len(p.ToolCallID) + len(p.ToolName) + 64
		n += (len(p.Signature)+len(p.ItemID))*4/3 + len(mapping.EnvelopePrefix) + 16
	}
	return n
}

// appendChatReasoningContent appends the reasoning parts' texts as one
// reasoning_content string. Their opaque values go with the tool call that
// follows them (appendChatResponseToolCalls), never into text a person
// reads.
func appendChatReasoningContent(dst []byte, parts []Part) []byte {
	dst = append(dst, '"')
	first := true
	for j := range parts {
		p := &parts[j]
		if p.Type != PartReasoning || p.Text == "" {
			continue
		}
		if !first {
			// Separate parts as paragraphs, as the stream does.
			dst = append(dst, `\n\n`...)
		}
		first = false
		dst = jsonx.AppendStringBody(dst, p.Text)
	}
	return append(dst, '"')
}

// appendChatUsage appends the usage object. Chat has no counter for cache
// writes; they remain part of prompt_tokens.
func appendChatUsage(dst []byte, u *Usage) []byte {
	dst = append(dst, `,"usage":{"prompt_tokens":`...)
	dst = jsonx.AppendInt(dst, u.InputTokens)
	dst = append(dst, `,"completion_tokens":`...)
	dst = jsonx.AppendInt(dst, u.OutputTokens)
	dst = append(dst, `,"total_tokens":`...)
	dst = jsonx.AppendInt(dst, u.TotalTokens())
	dst = append(dst, `,"prompt_tokens_details":{"cached_tokens":`...)
	dst = jsonx.AppendInt(dst, u.CacheReadTokens)
	dst = append(dst, `},"completion_tokens_details":{"reasoning_tokens":`...)
	dst = jsonx.AppendInt(dst, u.ReasoningTokens)
	return append(dst, "}}"...)
}

// chatCannotRespond is the error for response content a Chat client cannot
// be given. It is a 502 like an invalid upstream answer: the request was
// valid, but the answer cannot be carried to this client.
func chatCannotRespond(path string) *Error {
	return &Error{
		Status:  502,
		Kind:    mapping.ErrBadGateway,
		Param:   path,
		Message: "this content part type cannot be expressed in the " + string(OpenAIChat) + " protocol",
	}
}
