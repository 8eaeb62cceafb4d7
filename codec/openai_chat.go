package codec

import (
	"slices"
	"time"

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
	d := chatRequestDecoder{req: req}
	var err *Error
	eachMember(root, &req.text, func(key, value gjson.Result) bool {
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
	case "response_format":
		return chatResponseFormat(v)
	case "tools":
		return chatTools(v)
	case "tool_choice":
		return d.toolChoice(v)

	// Hints: they do not change what the model generates.
	case "parallel_tool_calls", "store":
		return d.hint(key, v, chatIsBool(v), "boolean")
	case "metadata":
		return d.hint(key, v, v.IsObject(), "object")
	case "service_tier", "prompt_cache_key", "prompt_cache_retention":
		return d.hint(key, v, v.Type == gjson.String, "string")

	// Capabilities outside the current scope.
	case "top_logprobs":
		return chatReject(v, key, "log probabilities are not supported yet")
	case "logit_bias":
		return chatReject(v, key, "token biases cannot be translated")
	case "audio":
		return chatReject(v, key, "audio output is not supported yet")
	case "functions", "function_call":
		return chatReject(v, key, "tool use is not supported yet")
	case "reasoning_effort":
		return chatReject(v, key, "reasoning settings are not supported yet")
	case "verbosity":
		return chatReject(v, key, "output verbosity is not supported yet")
	case "prediction":
		return chatReject(v, key, "predicted outputs are not supported yet")
	case "web_search_options":
		return chatReject(v, key, "web search is not supported yet")
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
	v.ForEach(func(key, value gjson.Result) bool {
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

// toolChoice accepts "none" and "auto", which say nothing when no tool is
// offered (tools with entries are rejected before tool_choice matters), and
// records them as a hint. Forcing a tool is rejected.
func (d *chatRequestDecoder) toolChoice(v gjson.Result) *Error {
	switch {
	case v.Type == gjson.Null:
		return nil
	case v.Type == gjson.String:
		switch v.Str {
		case "none", "auto":
			d.req.Dropped = append(d.req.Dropped, "tool_choice")
			return nil
		case "required":
			return unsupportedField("tool_choice", "tool use is not supported yet")
		}
		return invalid("tool_choice", `unknown value "`+v.Str+`"`)
	case v.IsObject():
		return unsupportedField("tool_choice", "tool use is not supported yet")
	}
	return wrongType("tool_choice", "string or object", v)
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

// chatResponseFormat accepts the default plain-text format only; structured
// output comes with a later issue.
func chatResponseFormat(v gjson.Result) *Error {
	if v.Type == gjson.Null {
		return nil
	}
	if !v.IsObject() {
		return wrongType("response_format", "object", v)
	}
	var typ gjson.Result
	var err *Error
	v.ForEach(func(key, value gjson.Result) bool {
		if key.Str == "type" {
			typ = value
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
	case "text":
		v.ForEach(func(key, _ gjson.Result) bool {
			if key.Str != "type" {
				err = unknownField("response_format." + key.Str)
			}
			return err == nil
		})
		return err
	case "json_object", "json_schema":
		return unsupportedField("response_format", "structured output is not supported yet")
	}
	return invalid("response_format.type", `unknown value "`+typ.Str+`"`)
}

// chatTools accepts an empty tool list, which some clients always send.
func chatTools(v gjson.Result) *Error {
	switch {
	case v.Type == gjson.Null:
		return nil
	case !v.IsArray():
		return wrongType("tools", "array", v)
	case !chatIsEmptyArray(v):
		return unsupportedField("tools", "tool use is not supported yet")
	}
	return nil
}

// chatReject rejects a capability field that is not translated yet; null
// means absent and is accepted.
func chatReject(v gjson.Result, path, why string) *Error {
	if v.Type == gjson.Null {
		return nil
	}
	return unsupportedField(path, why)
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
	n := 0
	v.ForEach(func(_, _ gjson.Result) bool {
		n++
		return true
	})
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
	eachMember(v, &req.text, func(key, m gjson.Result) bool {
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
	role    gjson.Result
	content gjson.Result
	refusal gjson.Result
}

// message decodes messages[i].
func (d *chatRequestDecoder) message(i int, v gjson.Result) *Error {
	if !v.IsObject() {
		return wrongType(indexPath("messages", i), "object", v)
	}
	var f chatMessageFields
	var err *Error
	eachMember(v, &d.req.text, func(key, value gjson.Result) bool {
		err = d.messageField(i, key.Str, value, &f)
		return err == nil
	})
	if err != nil {
		return err
	}
	role, err := chatRole(i, f.role)
	if err != nil {
		return err
	}

	start := len(d.parts)
	if err := d.content(i, role, f.content); err != nil {
		return err
	}
	if err := d.messageRefusal(i, role, f.refusal); err != nil {
		return err
	}
	if len(d.parts) == start {
		if f.content.Type == gjson.Null {
			return invalid(indexPath("messages", i)+".content", "is required")
		}
		return invalid(indexPath("messages", i)+".content", "must not be empty")
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
	d.req.Messages = append(d.req.Messages, Message{Role: role, Parts: d.parts[start:len(d.parts):len(d.parts)]})
	return nil
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
		// The participant name only tells same-role authors apart.
		if v.Type == gjson.Null {
			return nil
		}
		return d.hint(indexPath("messages", i)+".name", v, v.Type == gjson.String, "string")
	case "annotations":
		// URL citations an assistant message carries when a client echoes a
		// response back into history; they are not model input.
		if v.Type == gjson.Null || chatIsEmptyArray(v) {
			return nil
		}
		return d.hint(indexPath("messages", i)+".annotations", v, v.IsArray(), "array")
	case "tool_calls":
		if v.Type == gjson.Null || chatIsEmptyArray(v) {
			return nil
		}
		return unsupportedField(indexPath("messages", i)+".tool_calls", "tool use is not supported yet")
	case "function_call", "tool_call_id":
		return chatReject(v, indexPath("messages", i)+"."+key, "tool use is not supported yet")
	case "audio":
		return chatReject(v, indexPath("messages", i)+".audio", "audio is not supported yet")
	default:
		return unknownField(indexPath("messages", i) + "." + key)
	}
	return nil
}

// chatRole decodes messages[i].role. Tool results (roles tool and function)
// come with tool use in a later issue.
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
	case "tool", "function":
		return 0, unsupportedField(indexPath("messages", i)+".role", `role "`+v.Str+`" (tool results) is not supported yet`)
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
		d.parts = append(d.parts, Part{Type: PartText, Text: v.Str})
		return nil
	case !v.IsArray():
		return wrongType(indexPath("messages", i)+".content", "string or array", v)
	}
	var err *Error
	v.ForEach(func(key, p gjson.Result) bool {
		err = d.contentPart(i, int(key.Num), role, p)
		return err == nil
	})
	return err
}

// chatPartFields are the fields of one content part.
type chatPartFields struct {
	typ, text, refusal gjson.Result
	// other is the first key that is none of the above.
	other string
}

// contentPart appends messages[i].content[j]. The switch over the part type
// is where image, audio and file parts will be added.
func (d *chatRequestDecoder) contentPart(i, j int, role Role, v gjson.Result) *Error {
	if !v.IsObject() {
		return wrongType(chatPartPath(i, j), "object", v)
	}
	var f chatPartFields
	eachMember(v, &d.req.text, func(key, value gjson.Result) bool {
		switch key.Str {
		case "type":
			f.typ = value
		case "text":
			f.text = value
		case "refusal":
			f.refusal = value
		default:
			if f.other == "" {
				f.other = key.Str
			}
		}
		return true
	})
	switch {
	case f.typ.Type == gjson.Null:
		return invalid(chatPartPath(i, j)+".type", "is required")
	case f.typ.Type != gjson.String:
		return wrongType(chatPartPath(i, j)+".type", "string", f.typ)
	}
	switch f.typ.Str {
	case "text":
		return d.typedPart(i, j, PartText, "text", f.text, f.refusal, f.other)
	case "refusal":
		if role != RoleAssistant {
			return invalid(chatPartPath(i, j)+".type", `content part type "refusal" is only allowed in assistant messages`)
		}
		return d.typedPart(i, j, PartRefusal, "refusal", f.refusal, f.text, f.other)
	case "image_url", "input_audio", "file":
		return unsupportedField(chatPartPath(i, j), `content part type "`+f.typ.Str+`" is not supported yet`)
	}
	return invalid(chatPartPath(i, j)+".type", `unknown content part type "`+f.typ.Str+`"`)
}

// typedPart appends a text or refusal part whose string field is named
// field. stray is the other string field, which this type does not have.
func (d *chatRequestDecoder) typedPart(i, j int, t PartType, field string, value, stray gjson.Result, other string) *Error {
	switch {
	case other != "":
		return unknownField(chatPartPath(i, j) + "." + other)
	case stray.Exists():
		return unknownField(chatPartPath(i, j) + "." + chatOtherTextField(field))
	case value.Type == gjson.Null:
		return invalid(chatPartPath(i, j)+"."+field, "is required")
	case value.Type != gjson.String:
		return wrongType(chatPartPath(i, j)+"."+field, "string", value)
	}
	d.parts = append(d.parts, Part{Type: t, Text: value.Str})
	return nil
}

// chatOtherTextField returns the string field of the other part type.
func chatOtherTextField(field string) string {
	if field == "text" {
		return "refusal"
	}
	return "text"
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
	dst = appendString(dst, opts.model(req))

	var err *Error
	dst = append(dst, `,"messages":[`...)
	if len(req.System) > 0 {
		role := RoleSystem
		if req.SystemRole == RoleDeveloper {
			role = RoleDeveloper
		}
		if dst, err = appendChatMessage(dst, role, req.System, -1); err != nil {
			return dst, err
		}
	}
	for i := range req.Messages {
		if len(req.System) > 0 || i > 0 {
			dst = append(dst, ',')
		}
		m := &req.Messages[i]
		if dst, err = appendChatMessage(dst, m.Role, m.Parts, i); err != nil {
			return dst, err
		}
	}
	dst = append(dst, ']')

	dst = appendChatSampling(dst, req)
	if req.Stream {
		dst = append(dst, `,"stream":true,"stream_options":{"include_usage":true}`...)
	}
	return append(dst, '}'), nil
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
			n += len(p.Text) + 32
		}
	}
	return n
}

// appendChatSampling appends the generation parameters that are set.
func appendChatSampling(dst []byte, req *Request) []byte {
	if req.MaxTokens.Set {
		dst = append(dst, `,"max_completion_tokens":`...)
		dst = appendInt(dst, req.MaxTokens.Value)
	}
	dst = appendChatFloat(dst, `,"temperature":`, req.Temperature)
	dst = appendChatFloat(dst, `,"top_p":`, req.TopP)
	dst = appendChatFloat(dst, `,"presence_penalty":`, req.PresencePenalty)
	dst = appendChatFloat(dst, `,"frequency_penalty":`, req.FrequencyPenalty)
	if req.Seed.Set {
		dst = append(dst, `,"seed":`...)
		dst = appendInt(dst, req.Seed.Value)
	}
	if len(req.StopSequences) > 0 {
		dst = append(dst, `,"stop":`...)
		dst = appendStringArray(dst, req.StopSequences)
	}
	if req.User != "" {
		dst = append(dst, `,"user":`...)
		dst = appendString(dst, req.User)
	}
	return dst
}

// appendChatFloat appends key and f when f is set.
func appendChatFloat(dst []byte, key string, f OptFloat) []byte {
	if !f.Set {
		return dst
	}
	return appendFloat(append(dst, key...), f.Value)
}

// appendChatMessage appends one message; i is its index in req.Messages
// for error paths, or -1 for the system prompt.
//
// Text is a plain string when it is one part and an array of text parts
// otherwise. Refusal parts of an assistant message go to its refusal field,
// with content null when there is no text; Chat has no refusal slot in the
// other roles, so there a refusal is projected into text unchanged.
func appendChatMessage(dst []byte, role Role, parts []Part, i int) ([]byte, *Error) {
	texts, refusals := 0, 0
	for j := range parts {
		switch parts[j].Type {
		case PartText:
			texts++
		case PartRefusal:
			refusals++
		default:
			return dst, cannotEncode(OpenAIChat, chatEncodePartPath(i, j), "this content part type")
		}
	}
	if role != RoleAssistant {
		texts, refusals = texts+refusals, 0
	}

	dst = append(dst, `{"role":`...)
	dst = appendString(dst, role.String())
	dst = append(dst, `,"content":`...)
	switch {
	case texts == 0 && refusals > 0:
		dst = append(dst, "null"...)
	case texts == 0:
		dst = append(dst, `""`...)
	case texts == 1:
		dst = appendChatJoined(dst, parts, role != RoleAssistant)
	default:
		dst = appendChatTextParts(dst, parts, role != RoleAssistant)
	}
	if refusals > 0 {
		dst = append(dst, `,"refusal":`...)
		dst = appendChatJoinedRefusal(dst, parts)
	}
	return append(dst, '}'), nil
}

// chatEncodePartPath names a canonical part in an encoding error.
func chatEncodePartPath(i, j int) string {
	if i < 0 {
		return indexPath("system", j)
	}
	return indexPath(indexPath("messages", i)+".parts", j)
}

// appendChatTextParts appends the text parts (and, when refusalsAsText, the
// refusal parts) as an array of Chat text content parts.
func appendChatTextParts(dst []byte, parts []Part, refusalsAsText bool) []byte {
	dst = append(dst, '[')
	first := true
	for _, p := range parts {
		if p.Type != PartText && !refusalsAsText {
			continue
		}
		if !first {
			dst = append(dst, ',')
		}
		first = false
		dst = append(dst, `{"type":"text","text":`...)
		dst = appendString(dst, p.Text)
		dst = append(dst, '}')
	}
	return append(dst, ']')
}

// appendChatJoined appends the text parts (and, when refusalsAsText, the
// refusal parts) concatenated as one JSON string: they are one contiguous
// output, so no separator is added.
func appendChatJoined(dst []byte, parts []Part, refusalsAsText bool) []byte {
	dst = append(dst, '"')
	for _, p := range parts {
		if p.Type == PartText || refusalsAsText {
			dst = appendChatStringBody(dst, p.Text)
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
			dst = appendChatStringBody(dst, p.Text)
		}
	}
	return append(dst, '"')
}

// appendChatStringBody appends s escaped as in a JSON string, without the
// quotes, by moving appendString's output back over its opening quote.
func appendChatStringBody(dst []byte, s string) []byte {
	start := len(dst)
	dst = appendString(dst, s)
	copy(dst[start:], dst[start+1:len(dst)-1])
	return dst[:len(dst)-2]
}

// decodeChatResponse decodes a non-streamed Chat Completions body. Only the
// first choice is read: requests with n other than 1 are rejected, so the
// upstream answers one.
func decodeChatResponse(root gjson.Result, resp *Response) *Error {
	var choices, usage gjson.Result
	var err *Error
	root.ForEach(func(key, v gjson.Result) bool {
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
	choices.ForEach(func(_, c gjson.Result) bool {
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
	choice.ForEach(func(key, v gjson.Result) bool {
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
	return decodeChatResponseMessage(message, resp)
}

// decodeChatResponseMessage decodes choices[0].message: its text, then its
// refusal. Tool calls and audio come with later issues.
func decodeChatResponseMessage(message gjson.Result, resp *Response) *Error {
	if !message.IsObject() {
		return badUpstream(OpenAIChat, "choices[0].message is missing or not an object")
	}
	var content, refusal gjson.Result
	var err *Error
	message.ForEach(func(key, v gjson.Result) bool {
		switch key.Str {
		case "content":
			content = v
		case "refusal":
			refusal = v
		case "tool_calls":
			if v.Type != gjson.Null && !chatIsEmptyArray(v) {
				err = badUpstream(OpenAIChat, "tool calls cannot be translated yet")
			}
		case "function_call":
			if v.Type != gjson.Null {
				err = badUpstream(OpenAIChat, "function calls cannot be translated yet")
			}
		case "audio":
			if v.Type != gjson.Null {
				err = badUpstream(OpenAIChat, "audio output cannot be translated yet")
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
	}
	// A refusal comes with content null, or now and then "": the empty
	// string is then no output. Alone, "" is kept, so that an empty answer
	// stays an empty answer rather than becoming null.
	if content.Type == gjson.String && (content.Str != "" || refusal.Type != gjson.String) {
		resp.Content = append(resp.Content, Part{Type: PartText, Text: content.Str})
	}
	if refusal.Type == gjson.String {
		resp.Content = append(resp.Content, Part{Type: PartRefusal, Text: refusal.Str})
	}
	return nil
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
	v.ForEach(func(key, value gjson.Result) bool {
		switch key.Str {
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
func appendChatResponse(dst []byte, resp *Response) ([]byte, *Error) {
	texts, refusals := 0, 0
	for i := range resp.Content {
		switch resp.Content[i].Type {
		case PartText:
			texts++
		case PartRefusal:
			refusals++
		default:
			return dst, chatCannotRespond(indexPath("content", i))
		}
	}
	dst = slices.Grow(dst, chatResponseSizeHint(resp))

	dst = append(dst, `{"id":`...)
	if resp.ID != "" {
		dst = appendString(dst, resp.ID)
	} else {
		dst = appendString(dst, newID("chatcmpl-"))
	}
	dst = append(dst, `,"object":"chat.completion","created":`...)
	if resp.Created != 0 {
		dst = appendInt(dst, resp.Created)
	} else {
		dst = appendInt(dst, time.Now().Unix())
	}
	dst = append(dst, `,"model":`...)
	dst = appendString(dst, resp.Model)

	dst = append(dst, `,"choices":[{"index":0,"message":{"role":"assistant","content":`...)
	if texts > 0 {
		dst = appendChatJoined(dst, resp.Content, false)
	} else {
		dst = append(dst, "null"...)
	}
	dst = append(dst, `,"refusal":`...)
	if refusals > 0 {
		dst = appendChatJoinedRefusal(dst, resp.Content)
	} else {
		dst = append(dst, "null"...)
	}
	dst = append(dst, `},"logprobs":null,"finish_reason":`...)
	dst = appendString(dst, mapping.ChatFinishReason(resp.StopReason))
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
		n += len(p.Text)
	}
	return n
}

// appendChatUsage appends the usage object. Chat has no counter for cache
// writes; they remain part of prompt_tokens.
func appendChatUsage(dst []byte, u *Usage) []byte {
	dst = append(dst, `,"usage":{"prompt_tokens":`...)
	dst = appendInt(dst, u.InputTokens)
	dst = append(dst, `,"completion_tokens":`...)
	dst = appendInt(dst, u.OutputTokens)
	dst = append(dst, `,"total_tokens":`...)
	dst = appendInt(dst, u.TotalTokens())
	dst = append(dst, `,"prompt_tokens_details":{"cached_tokens":`...)
	dst = appendInt(dst, u.CacheReadTokens)
	dst = append(dst, `},"completion_tokens_details":{"reasoning_tokens":`...)
	dst = appendInt(dst, u.ReasoningTokens)
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
