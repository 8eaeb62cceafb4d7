package codec

import (
	"strings"
	"time"

	"github.com/llmbridge/llmbridge/mapping"
	"github.com/tidwall/gjson"
)

// This file is the codec of the OpenAI Responses API (POST /v1/responses).
//
// Scope: text-only, non-streamed conversations. Tool calls, reasoning items,
// structured output and non-text inputs are rejected by name until the
// issues that add them extend the switches over item and part types below.

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
}

// decodeResponsesRequest decodes a Responses create-response body. The root
// object is walked once; every key is mapped, recorded as a dropped hint,
// rejected as a capability outside the current scope, or rejected as
// unknown.
func decodeResponsesRequest(root gjson.Result, req *Request) *Error {
	d := responsesRequestDecoder{req: req}
	var err *Error
	eachMember(root, &req.text, func(key, value gjson.Result) bool {
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
	case "store", "parallel_tool_calls":
		return d.hint(key, v, responsesHintBool)
	case "metadata", "client_metadata":
		return d.hint(key, v, responsesHintObject)
	case "service_tier", "prompt_cache_key":
		return d.hint(key, v, responsesHintString)
	case "max_tool_calls":
		return d.hint(key, v, responsesHintInt)
	case "truncation":
		return d.truncation(v)
	case "include":
		return d.include(v)
	case "tool_choice":
		return d.toolChoice(v)
	case "tools":
		return responsesTools(v)
	case "text":
		return responsesTextConfig(v)
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
		return responsesRejectUnlessNull(v, key, "server-side conversation state is not supported; send the history in input")
	case "prompt":
		return responsesRejectUnlessNull(v, key, "prompt templates are stored on the provider's servers and cannot be translated")
	case "prompt_cache_retention", "prompt_cache_options":
		return responsesRejectUnlessNull(v, key, "prompt cache lifetimes and modes cannot be guaranteed by other providers")
	case "context_management":
		return responsesRejectUnlessNull(v, key, "server-side context compaction is not supported")
	case "moderation":
		return responsesRejectUnlessNull(v, key, "provider-side moderation of input and output is not supported")
	case "access_programs":
		return responsesRejectUnlessNull(v, key, "access programs are specific to OpenAI")
	case "image":
		return responsesRejectUnlessNull(v, key, "image options are not supported yet")
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

// responsesRejectUnlessNull rejects a capability field that the client set.
func responsesRejectUnlessNull(v gjson.Result, path, why string) *Error {
	if v.Type == gjson.Null {
		return nil
	}
	return unsupportedField(path, why)
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
	v.ForEach(func(key, value gjson.Result) bool {
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

// include asks for extra output data. Values about tool calls and input
// images ask for nothing in a text-only conversation, and
// reasoning.encrypted_content asks for something llmbridge will not
// fabricate, so all of them are hints; logprobs are a capability.
func (d *responsesRequestDecoder) include(v gjson.Result) *Error {
	if v.Type == gjson.Null {
		return nil
	}
	if !v.IsArray() {
		return wrongType("include", "array of strings", v)
	}
	var err *Error
	n := 0
	v.ForEach(func(_, value gjson.Result) bool {
		if value.Type != gjson.String {
			err = wrongType(indexPath("include", n), "string", value)
			return false
		}
		switch value.Str {
		case "reasoning.encrypted_content", "file_search_call.results", "web_search_call.results",
			"web_search_call.action.sources", "message.input_image.image_url",
			"computer_call_output.output.image_url", "code_interpreter_call.outputs":
		case "message.output_text.logprobs":
			err = unsupportedField(indexPath("include", n), "log probabilities are not supported")
		default:
			err = invalid(indexPath("include", n), `unknown include value "`+value.Str+`"`)
		}
		n++
		return err == nil
	})
	if err == nil && n > 0 {
		d.req.Dropped = append(d.req.Dropped, "include")
	}
	return err
}

// toolChoice accepts the choices that mean "no tool call" when there are no
// tools (tools are rejected unless empty); any other choice needs tools.
func (d *responsesRequestDecoder) toolChoice(v gjson.Result) *Error {
	switch {
	case v.Type == gjson.Null:
		return nil
	case v.Type == gjson.String:
		switch v.Str {
		case "auto", "none":
			d.req.Dropped = append(d.req.Dropped, "tool_choice")
			return nil
		case "required":
			return unsupportedField("tool_choice", "tools are not supported yet")
		}
		return invalid("tool_choice", `must be "auto", "none", "required" or an object`)
	case v.IsObject():
		return unsupportedField("tool_choice", "tools are not supported yet")
	}
	return wrongType("tool_choice", "string or object", v)
}

// responsesTools accepts an empty tool list, the harmless default.
func responsesTools(v gjson.Result) *Error {
	if v.Type == gjson.Null {
		return nil
	}
	if !v.IsArray() {
		return wrongType("tools", "array", v)
	}
	var err *Error
	v.ForEach(func(_, _ gjson.Result) bool {
		err = unsupportedField("tools", "tools are not supported yet")
		return false
	})
	return err
}

// responsesTextConfig accepts a plain-text output format, which is the
// default and needs no record; structured output and verbosity are
// capabilities outside the current scope.
func responsesTextConfig(v gjson.Result) *Error {
	if v.Type == gjson.Null {
		return nil
	}
	if !v.IsObject() {
		return wrongType("text", "object", v)
	}
	var err *Error
	v.ForEach(func(key, value gjson.Result) bool {
		switch key.Str {
		case "format":
			err = responsesTextFormat(value)
		case "verbosity":
			err = responsesRejectUnlessNull(value, "text.verbosity", "output verbosity cannot be translated")
		default:
			err = unknownField("text." + key.Str)
		}
		return err == nil
	})
	return err
}

// responsesTextFormat checks text.format.
func responsesTextFormat(v gjson.Result) *Error {
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
	switch s {
	case "text":
	case "json_schema", "json_object":
		return unsupportedField("text.format", `format type "`+s+`" (structured output) is not supported yet`)
	default:
		return invalid("text.format.type", `unknown format type "`+s+`"`)
	}
	v.ForEach(func(key, _ gjson.Result) bool {
		if key.Str != "type" {
			err = unknownField("text.format." + key.Str)
		}
		return err == nil
	})
	return err
}

// reasoning accepts an empty configuration and a summary request (a hint:
// no summary is produced without reasoning, which a later issue maps);
// anything that changes how the model reasons is rejected for now.
func (d *responsesRequestDecoder) reasoning(v gjson.Result) *Error {
	if v.Type == gjson.Null {
		return nil
	}
	if !v.IsObject() {
		return wrongType("reasoning", "object", v)
	}
	var err *Error
	v.ForEach(func(key, value gjson.Result) bool {
		switch key.Str {
		case "effort":
			err = responsesRejectUnlessNull(value, "reasoning.effort", "reasoning effort is not supported yet")
		case "context":
			err = responsesRejectUnlessNull(value, "reasoning.context", "reasoning context modes are not supported yet")
		case "mode":
			err = responsesRejectUnlessNull(value, "reasoning.mode", "reasoning execution modes are not supported yet")
		case "summary", "generate_summary":
			err = d.reasoningSummary("reasoning."+key.Str, value)
		default:
			err = unknownField("reasoning." + key.Str)
		}
		return err == nil
	})
	return err
}

// reasoningSummary validates reasoning.summary (or its deprecated alias
// generate_summary) and records it as dropped.
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
		d.req.Dropped = append(d.req.Dropped, path)
		return nil
	}
	return invalid(path, `must be "auto", "concise" or "detailed"`)
}

// decodeResponsesInput builds req.System and req.Messages from instructions
// and input. All parts share one backing array: system parts first
// (instructions, then the parts of leading system and developer messages),
// then each message's parts in order.
func decodeResponsesInput(input gjson.Result, instructions string, req *Request) *Error {
	hint := responsesCapacityHint(input)
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
		parts = append(parts, Part{Type: PartText, Text: input.Str})
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
	eachMember(input, &req.text, func(_, item gjson.Result) bool {
		var role Role
		start := len(parts)
		role, parts, err = decodeResponsesItem(item, i, parts, req)
		if err != nil {
			return false
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
		default:
			leading = false
			// If a later append moves parts to a larger array, this
			// message keeps the old one, which still holds its parts.
			msgs = append(msgs, Message{Role: role, Parts: parts[start:len(parts):len(parts)]})
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

// responsesCapacityHint estimates the number of input items, and of content
// parts, from the size of input: real items are rarely shorter than 128
// bytes, and most hold one part. Counting exactly would cost one more scan
// of every text in the conversation (with gjson, about a third of the
// decoding time); an underestimate only costs a few slice growths.
func responsesCapacityHint(input gjson.Result) int {
	return len(input.Raw)/128 + 2
}

// Keys of input items and content parts, as bits, so that one pass over an
// object can collect them before its type says which are allowed.
const (
	responsesKeyType uint16 = 1 << iota
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
	responsesKeyUnknown
)

// The keys each content part type allows.
const (
	responsesInputTextKeys  = responsesKeyType | responsesKeyText | responsesKeyCacheBreakpoint
	responsesOutputTextKeys = responsesKeyType | responsesKeyText | responsesKeyAnnotations | responsesKeyLogprobs
	responsesRefusalKeys    = responsesKeyType | responsesKeyRefusal
)

// responsesItem is one input item, collected in a single pass over its keys.
type responsesItem struct {
	keys                        uint16
	typ, role, content, id, sts gjson.Result
	phase                       gjson.Result
}

// collectResponsesItem reads the keys of an input item.
func collectResponsesItem(item gjson.Result, a *textArena) responsesItem {
	var it responsesItem
	eachMember(item, a, func(key, value gjson.Result) bool {
		switch key.Str {
		case "type":
			it.keys |= responsesKeyType
			it.typ = value
		case "role":
			it.keys |= responsesKeyRole
			it.role = value
		case "content":
			it.keys |= responsesKeyContent
			it.content = value
		case "id":
			it.keys |= responsesKeyID
			it.id = value
		case "status":
			it.keys |= responsesKeyStatus
			it.sts = value
		case "phase":
			it.keys |= responsesKeyPhase
			it.phase = value
		default:
			it.keys |= responsesKeyUnknown
		}
		return true
	})
	return it
}

// decodeResponsesItem decodes input item i, appending its content parts to
// parts. Only message items are in scope; the switch over item types is
// where tool calls, tool outputs and reasoning items will be added.
func decodeResponsesItem(item gjson.Result, i int, parts []Part, req *Request) (Role, []Part, *Error) {
	if !item.IsObject() {
		return 0, parts, wrongType(indexPath("input", i), "object", item)
	}
	it := collectResponsesItem(item, &req.text)
	typ := ""
	if it.keys&responsesKeyType != 0 && it.typ.Type != gjson.Null {
		if it.typ.Type != gjson.String {
			return 0, parts, wrongType(indexPath("input", i)+".type", "string", it.typ)
		}
		typ = it.typ.Str
	}
	switch typ {
	case "message":
	case "":
		if it.keys&responsesKeyRole == 0 && it.keys&responsesKeyID != 0 {
			// An item with only an id is an item reference, whose
			// type is optional.
			return 0, parts, unsupportedField(indexPath("input", i), `input item type "item_reference" is not supported yet`)
		}
	default:
		return 0, parts, unsupportedField(indexPath("input", i), `input item type "`+typ+`" is not supported yet`)
	}
	return decodeResponsesMessage(item, &it, i, parts, req)
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
		return role, append(parts, Part{Type: PartText, Text: it.content.Str}), nil
	case !it.content.IsArray():
		return 0, parts, wrongType(indexPath("input", i)+".content", "string or array", it.content)
	}
	j := 0
	it.content.ForEach(func(_, part gjson.Result) bool {
		parts, err = appendResponsesPart(parts, part, role, i, j, req)
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
	keys               uint16
	typ, text, refusal gjson.Result
}

// appendResponsesPart decodes content part j of input item i.
//
// input_text and output_text both carry plain text and are accepted in any
// message: the SDK types allow input_text in assistant messages while the
// API expects output_text there, and the role, not the part type, says who
// wrote the text. A refusal only exists in assistant history.
func appendResponsesPart(parts []Part, part gjson.Result, role Role, i, j int, req *Request) ([]Part, *Error) {
	path := func() string { return indexPath(indexPath("input", i)+".content", j) }
	if !part.IsObject() {
		return parts, wrongType(path(), "object", part)
	}
	var p responsesPart
	eachMember(part, &req.text, func(key, value gjson.Result) bool {
		switch key.Str {
		case "type":
			p.keys |= responsesKeyType
			p.typ = value
		case "text":
			p.keys |= responsesKeyText
			p.text = value
		case "refusal":
			p.keys |= responsesKeyRefusal
			p.refusal = value
		case "annotations":
			p.keys |= responsesKeyAnnotations
		case "logprobs":
			p.keys |= responsesKeyLogprobs
		case "prompt_cache_breakpoint":
			p.keys |= responsesKeyCacheBreakpoint
		default:
			p.keys |= responsesKeyUnknown
		}
		return true
	})
	if p.keys&responsesKeyType == 0 || p.typ.Type == gjson.Null {
		return parts, invalid(path()+".type", "is required")
	}
	if p.typ.Type != gjson.String {
		return parts, wrongType(path()+".type", "string", p.typ)
	}
	var allowed uint16
	var kind PartType
	var text gjson.Result
	switch p.typ.Str {
	case "input_text":
		allowed, kind, text = responsesInputTextKeys, PartText, p.text
	case "output_text":
		// annotations (citations) and logprobs describe an earlier
		// output; the model does not read them back, so they are ignored.
		allowed, kind, text = responsesOutputTextKeys, PartText, p.text
	case "refusal":
		if role != RoleAssistant {
			return parts, invalid(path()+".type", `content part type "refusal" is only valid in assistant messages`)
		}
		allowed, kind, text = responsesRefusalKeys, PartRefusal, p.refusal
	default:
		return parts, unsupportedField(path(), `content part type "`+p.typ.Str+`" is not supported yet`)
	}
	if p.keys&^allowed != 0 {
		return parts, unknownField(path() + "." + responsesFirstUnknownKey(part, func(k string) bool { return responsesPartKey(k, allowed) }))
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
	return append(parts, Part{Type: kind, Text: text.Str}), nil
}

// responsesPartKey reports whether key is one of the allowed part keys.
func responsesPartKey(key string, allowed uint16) bool {
	var bit uint16
	switch key {
	case "type":
		bit = responsesKeyType
	case "text":
		bit = responsesKeyText
	case "refusal":
		bit = responsesKeyRefusal
	case "annotations":
		bit = responsesKeyAnnotations
	case "logprobs":
		bit = responsesKeyLogprobs
	case "prompt_cache_breakpoint":
		bit = responsesKeyCacheBreakpoint
	}
	return allowed&bit != 0
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
	dst = appendString(dst, opts.model(req))
	dst = append(dst, `,"input":[`...)
	first := true
	if len(req.System) > 0 {
		role := RoleSystem
		if req.SystemRole == RoleDeveloper {
			role = RoleDeveloper
		}
		dst = appendResponsesMessage(dst, role, req.System)
		first = false
	}
	for i := range req.Messages {
		if !first {
			dst = append(dst, ',')
		}
		first = false
		dst = appendResponsesMessage(dst, req.Messages[i].Role, req.Messages[i].Parts)
	}
	dst = append(dst, ']')
	if req.MaxTokens.Set {
		dst = append(dst, `,"max_output_tokens":`...)
		dst = appendInt(dst, req.MaxTokens.Value)
	}
	if req.Temperature.Set {
		dst = append(dst, `,"temperature":`...)
		dst = appendFloat(dst, req.Temperature.Value)
	}
	if req.TopP.Set {
		dst = append(dst, `,"top_p":`...)
		dst = appendFloat(dst, req.TopP.Value)
	}
	if req.User != "" {
		dst = append(dst, `,"user":`...)
		dst = appendString(dst, req.User)
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

// appendResponsesMessage appends one input message item. Assistant text is
// output_text and keeps refusals in their own part; the other roles take
// input_text, and a refusal there (which only an assistant writes) is
// projected to text unchanged.
func appendResponsesMessage(dst []byte, role Role, parts []Part) []byte {
	dst = append(dst, `{"type":"message","role":`...)
	dst = appendString(dst, role.String())
	dst = append(dst, `,"content":[`...)
	for i := range parts {
		if i > 0 {
			dst = append(dst, ',')
		}
		p := &parts[i]
		switch {
		case role != RoleAssistant:
			dst = append(dst, `{"type":"input_text","text":`...)
			dst = appendString(dst, p.Text)
		case p.Type == PartRefusal:
			dst = append(dst, `{"type":"refusal","refusal":`...)
			dst = appendString(dst, p.Text)
		default:
			dst = append(dst, `{"type":"output_text","text":`...)
			dst = appendString(dst, p.Text)
		}
		dst = append(dst, '}')
	}
	return append(dst, `]}`...)
}

// decodeResponsesResponse decodes a non-streamed Responses response body.
// Unknown top-level fields are ignored: a response echoes the request's
// configuration, which grows with every API release.
func decodeResponsesResponse(root gjson.Result, resp *Response) *Error {
	*resp = Response{Content: resp.Content[:0]}
	var status, incompleteReason string
	var output, usage, failure gjson.Result
	var err *Error
	root.ForEach(func(key, value gjson.Result) bool {
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
	hasRefusal, err := decodeResponsesOutput(output, resp)
	if err != nil {
		return err
	}
	// Tool calls are rejected above, so hasToolCall is false for now.
	resp.StopReason, _ = mapping.FromResponsesStatus(status, incompleteReason, false)
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
// resp.Content and reports whether it holds a refusal.
func decodeResponsesOutput(output gjson.Result, resp *Response) (hasRefusal bool, err *Error) {
	i := 0
	output.ForEach(func(_, item gjson.Result) bool {
		typ := item.Get("type")
		switch typ.Str {
		case "message":
			var refused bool
			refused, err = decodeResponsesOutputMessage(item, i, resp)
			hasRefusal = hasRefusal || refused
		case "reasoning":
			// Reasoning items carry no visible text, only summaries
			// and encrypted content, which a later issue maps.
		default:
			err = badUpstream(OpenAIResponses, indexPath("output", i)+`: output item type "`+typ.String()+`" cannot be translated yet`)
		}
		i++
		return err == nil
	})
	return hasRefusal, err
}

// decodeResponsesOutputMessage appends the parts of output message i.
func decodeResponsesOutputMessage(item gjson.Result, i int, resp *Response) (hasRefusal bool, err *Error) {
	content := item.Get("content")
	if !content.IsArray() {
		return false, badUpstream(OpenAIResponses, indexPath("output", i)+".content is not an array")
	}
	j := 0
	content.ForEach(func(_, part gjson.Result) bool {
		typ := part.Get("type")
		switch typ.Str {
		case "output_text":
			var text string
			text, err = responsesUpstreamString(part.Get("text"), indexPath(indexPath("output", i)+".content", j)+".text")
			resp.Content = append(resp.Content, Part{Type: PartText, Text: text})
		case "refusal":
			var text string
			text, err = responsesUpstreamString(part.Get("refusal"), indexPath(indexPath("output", i)+".content", j)+".refusal")
			resp.Content = append(resp.Content, Part{Type: PartRefusal, Text: text})
			hasRefusal = true
		default:
			err = badUpstream(OpenAIResponses, indexPath(indexPath("output", i)+".content", j)+`: content part type "`+typ.String()+`" cannot be translated yet`)
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
func appendResponsesResponse(dst []byte, resp *Response) ([]byte, *Error) {
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
	dst = appendString(dst, id)
	dst = append(dst, `,"object":"response","created_at":`...)
	dst = appendInt(dst, created)
	dst = append(dst, `,"status":`...)
	dst = appendString(dst, status)
	dst = append(dst, `,"error":null,"incomplete_details":`...)
	if incompleteReason != "" {
		dst = append(dst, `{"reason":`...)
		dst = appendString(dst, incompleteReason)
		dst = append(dst, '}')
	} else {
		dst = append(dst, "null"...)
	}
	dst = append(dst, `,"instructions":null,"metadata":{},"model":`...)
	dst = appendString(dst, resp.Model)
	dst = append(dst, `,"output":[`...)
	var err *Error
	if len(resp.Content) > 0 {
		if dst, err = appendResponsesOutputMessage(dst, id, status, resp.Content); err != nil {
			return dst, err
		}
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

// appendResponsesOutputMessage appends the single assistant message item.
// Adjacent text parts stay separate output_text parts, as OpenAI emits them.
func appendResponsesOutputMessage(dst []byte, responseID, status string, content []Part) ([]byte, *Error) {
	dst = append(dst, `{"type":"message","id":`...)
	dst = appendString(dst, responsesMessageID(responseID))
	dst = append(dst, `,"status":`...)
	dst = appendString(dst, status)
	dst = append(dst, `,"role":"assistant","content":[`...)
	for i := range content {
		if i > 0 {
			dst = append(dst, ',')
		}
		switch p := &content[i]; p.Type {
		case PartText:
			dst = append(dst, `{"type":"output_text","text":`...)
			dst = appendString(dst, p.Text)
			dst = append(dst, `,"annotations":[],"logprobs":[]}`...)
		case PartRefusal:
			dst = append(dst, `{"type":"refusal","refusal":`...)
			dst = appendString(dst, p.Text)
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
	dst = appendInt(dst, u.InputTokens)
	dst = append(dst, `,"input_tokens_details":{"cached_tokens":`...)
	dst = appendInt(dst, u.CacheReadTokens)
	if u.CacheWriteTokens > 0 {
		dst = append(dst, `,"cache_write_tokens":`...)
		dst = appendInt(dst, u.CacheWriteTokens)
	}
	dst = append(dst, `},"output_tokens":`...)
	dst = appendInt(dst, u.OutputTokens)
	dst = append(dst, `,"output_tokens_details":{"reasoning_tokens":`...)
	dst = appendInt(dst, u.ReasoningTokens)
	dst = append(dst, `},"total_tokens":`...)
	dst = appendInt(dst, u.TotalTokens())
	return append(dst, `}`...)
}
