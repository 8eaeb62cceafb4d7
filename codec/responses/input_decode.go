package responses

import (
	"strings"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/jsonx"
	"github.com/llmbridge/llmbridge/codec/internal/wire"
	"github.com/llmbridge/llmbridge/mapping"
	"github.com/tidwall/gjson"
)

// decodeInput builds req.System and req.Messages from instructions
// and input. All parts share one backing array: system parts first
// (instructions, then the parts of leading system and developer messages),
// then each message's parts in order.
//
// inputV is the input member itself (input holds it shallowly:
// jsonx.Value.Shallow), and instructions the instructions member when it
// is a non-empty string, else the zero Value: their texts are read only
// if need be (wire.ValueTextPart).
func decodeInput(input gjson.Result, inputV, instructions jsonx.Value, req *request) *codec.Error {
	hint := capacityHint(input, &req.Text)
	parts := wire.PartSlab(req, hint)
	defer func() { wire.KeepParts(req, parts) }()
	haveSystem := instructions.Raw != ""
	if haveSystem {
		parts = append(parts, wire.ValueTextPart(codec.PartText, instructions))
		req.SystemRole = codec.RoleSystem
	}
	msgs := req.Messages[:0]
	if input.Type == gjson.String {
		if len(parts) > 0 {
			req.System = parts[:1:1]
		}
		parts = append(parts, wire.ValueTextPart(codec.PartText, inputV))
		req.Messages = append(msgs, codec.Message{Role: codec.RoleUser, Parts: parts[len(parts)-1:]})
		return nil
	}
	if cap(msgs) < hint {
		msgs = make([]codec.Message, 0, hint)
	}

	systemEnd := len(parts)
	leading := true
	var err *codec.Error
	i := 0
	prev := itemNone
	msgStart := 0 // where the last message's parts start in parts
	for _, member := range jsonx.Members(input.Raw, &req.Text) {
		item := member.Result()
		var role codec.Role
		var kind itemKind
		start := len(parts)
		role, kind, parts, err = decodeItem(item, i, parts, req)
		if err != nil {
			break
		}
		if kind == itemSkipped {
			i++
			continue
		}
		isSystem := role == codec.RoleSystem || role == codec.RoleDeveloper
		switch {
		case leading && isSystem:
			// Leading system and developer messages join the
			// instructions; the role of the first source names them.
			if !haveSystem {
				req.SystemRole, haveSystem = role, true
			}
			systemEnd = len(parts)
		case len(msgs) > 0 && merges(prev, kind, role):
			// The item continues the last message, whose parts end
			// where this item's start: re-slice them from the current
			// array, which holds every part decoded so far.
			msgs[len(msgs)-1].Parts = parts[msgStart:len(parts):len(parts)]
		default:
			leading = false
			// If a later append moves parts to a larger array, this
			// message keeps the old one, which still holds its parts.
			msgs = append(msgs, codec.Message{Role: role, Parts: parts[start:len(parts):len(parts)]})
			msgStart = start
		}
		prev = kind
		if leading {
			prev = itemNone
		} else if kind == itemMessage && role == codec.RoleAssistant {
			prev = itemAssistant
		}
		i++
	}
	if err != nil {
		return err
	}
	if systemEnd > 0 {
		req.System = parts[:systemEnd:systemEnd]
	}
	req.Messages = msgs
	return nil
}

// capacityHint sizes the parts and messages of an input: its
// items (counted from the document index without reading them) and the
// instructions. Messages with several content parts grow the parts array.
func capacityHint(input gjson.Result, a *jsonx.Arena) int {
	return jsonx.CountMembers(input, a) + 2
}

// Keys of input items and content parts, as bits, so that one pass over an
// object can collect them before its type says which are allowed.
const (
	keyType uint32 = 1 << iota
	keyRole
	keyContent
	keyID
	keyStatus
	keyPhase
	keyText
	keyRefusal
	keyAnnotations
	keyLogprobs
	keyCacheBreakpoint
	keyImageURL
	keyFileID
	keyDetail
	keyFileData
	keyFileURL
	keyFilename
	keyParsed
	keyMetadata
	keyUnknown
)

// The keys each content part type allows.
const (
	inputTextKeys  = keyType | keyText | keyCacheBreakpoint
	outputTextKeys = keyType | keyText | keyAnnotations | keyLogprobs | keyParsed
	refusalKeys    = keyType | keyRefusal | keyParsed
	imageKeys      = keyType | keyImageURL | keyFileID | keyDetail | keyCacheBreakpoint
	fileKeys       = keyType | keyFileID | keyFileData | keyFileURL |
		keyFilename | keyDetail | keyCacheBreakpoint
)

// responsesItem is one input item, collected in a single pass over its keys.
type responsesItem struct {
	keys                        uint32
	typ, role, content, id, sts gjson.Result
	phase, metadata             gjson.Result
	// contentV is the content member itself: content holds it unescaped
	// only as far as its type and raw text go (jsonx.Value.Shallow), so
	// that a text content whose literal is only copied is never unescaped
	// (wire.ValueTextPart).
	contentV jsonx.Value
}

// collectItem reads the keys of an input item.
//
// The members are walked raw and only those kept are read: the others
// (a call's arguments, a tool output's text) are read by the item's own
// decoder, and unescaping them here too doubled the cost of tool outputs.
func collectItem(item gjson.Result, a *jsonx.Arena) responsesItem {
	var it responsesItem
	for key, value := range jsonx.Members(item.Raw, a) {
		var dst *gjson.Result
		switch key {
		case "type":
			it.keys |= keyType
			dst = &it.typ
		case "role":
			it.keys |= keyRole
			dst = &it.role
		case "content":
			it.keys |= keyContent
			it.content, it.contentV = value.Shallow(), value
		case "id":
			it.keys |= keyID
			dst = &it.id
		case "status":
			it.keys |= keyStatus
			dst = &it.sts
		case "phase": //field:input[].phase: hint
			it.keys |= keyPhase
			dst = &it.phase
		case metadataPassthroughKey: //field:input[].internal_chat_message_metadata_passthrough: hint
			it.keys |= keyMetadata
			dst = &it.metadata
		default:
			it.keys |= keyUnknown
		}
		if dst != nil {
			*dst = value.Result()
		}
	}
	return it
}

// itemKind says what an input item was, for merging items into
// canonical messages.
type itemKind uint8

const (
	itemNone      itemKind = iota // no item yet, or a leading system item
	itemMessage                   // a user, system or developer message
	itemAssistant                 // an assistant message
	itemCall                      // a function_call
	itemOutput                    // a function_call_output
	itemReasoning                 // a reasoning item
	itemSkipped                   // an item dropped from the history (a hosted tool's call)
)

// merges reports whether an item of kind (with role) continues the
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
func merges(prev, kind itemKind, role codec.Role) bool {
	switch kind {
	case itemCall, itemReasoning:
		return prev == itemAssistant || prev == itemCall || prev == itemReasoning
	case itemOutput:
		return prev == itemOutput
	case itemMessage:
		return prev == itemOutput && role == codec.RoleUser || prev == itemReasoning && role == codec.RoleAssistant
	}
	return false
}

// decodeItem decodes input item i, appending its content parts to
// parts. Message, reasoning, function_call and function_call_output items
// are in scope; the items of hosted tools are rejected by type.
func decodeItem(item gjson.Result, i int, parts []codec.Part, req *request) (codec.Role, itemKind, []codec.Part, *codec.Error) {
	if !item.IsObject() {
		return 0, 0, parts, wire.WrongType(wire.IndexPath("input", i), "object", item)
	}
	it := collectItem(item, &req.Text)
	typ := ""
	if it.keys&keyType != 0 && it.typ.Type != gjson.Null {
		if it.typ.Type != gjson.String {
			return 0, 0, parts, wire.WrongType(wire.IndexPath("input", i)+".type", "string", it.typ)
		}
		typ = it.typ.Str
	}
	switch typ {
	case "message":
	case "":
		if it.keys&keyRole == 0 && it.keys&keyID != 0 {
			// An item with only an id is an item reference, whose
			// type is optional.
			return decodeItemReference(item, &it, i, parts, req)
		}
	case "item_reference": //field:input[] (item_reference, to an item llmbridge issued): mapped; input[] (item_reference): capability
		return decodeItemReference(item, &it, i, parts, req)
	case "function_call", "custom_tool_call": //field:input[] (function_call, function_call_output): mapped
		parts, err := decodeCall(item, i, parts, typ == "custom_tool_call", req)
		return codec.RoleAssistant, itemCall, parts, err
	case "function_call_output", "custom_tool_call_output":
		parts, err := decodeOutputItem(item, i, parts, req)
		return codec.RoleUser, itemOutput, parts, err
	case "web_search_call":
		// A search the provider ran in an earlier turn: its results
		// are OpenAI's server-side state, which no other upstream can
		// read, while the answer that used them stays in the history.
		// Like another family's reasoning, it is dropped and listed.
		req.Dropped = append(req.Dropped, wire.IndexPath("input", i)+" (web_search_call)")
		return codec.RoleAssistant, itemSkipped, parts, nil
	case "reasoning":
		parts, err := decodeReasoningItem(item, i, parts, req)
		return codec.RoleAssistant, itemReasoning, parts, err
	default:
		return 0, 0, parts, wire.UnsupportedField(wire.IndexPath("input", i), `input item type "`+typ+`" is not supported yet`)
	}
	role, parts, err := decodeMessage(item, &it, i, parts, req)
	return role, itemMessage, parts, err
}

// itemString reads an optional string member of input item i.
func itemString(v gjson.Result, path, field string) (string, *codec.Error) {
	if v.Type == gjson.Null {
		return "", nil
	}
	return wire.ReadStringAt(v, path, field)
}

// itemStatus validates an item's status, identity metadata of an
// earlier response that is accepted and ignored.
func itemStatus(v gjson.Result, path, field string) *codec.Error {
	_, err := itemString(v, path, field)
	return err
}

// decodeCall decodes a function_call item (or, when custom, a
// custom_tool_call item): a tool call in the assistant's history. Its id
// (fc_... / ctc_...) names the item on OpenAI's servers and is ignored;
// call_id is the id that results refer to; namespace names the Codex
// group of the function. A custom call's raw input becomes the arguments
// {"input": input} (see ToolCustom).
func decodeCall(item gjson.Result, i int, parts []codec.Part, custom bool, req *request) ([]codec.Part, *codec.Error) {
	path := wire.IndexPath("input", i)
	p := codec.Part{Type: codec.PartToolCall}
	argsKey := "arguments"
	if custom {
		p.ToolKind, argsKey = codec.ToolCustom, "input"
	}
	var err *codec.Error
	var have uint8 // bits: call_id, name, arguments
	for key, member := range jsonx.Members(item.Raw, &req.Text) {
		if key == argsKey {
			if custom {
				err = customInput(&p, member, path)
			} else {
				err = arguments(&p, member, &req.Text, path, ".arguments")
			}
			have |= 4
			if err != nil {
				break
			}
			continue
		}
		v := member.Result()
		switch key {
		case "type":
		case "id":
			_, err = itemString(v, path, ".id")
		case "status":
			err = itemStatus(v, path, ".status")
		case "call_id":
			p.ToolCallID, err = wire.ReadStringAt(v, path, ".call_id")
			have |= 1
		case "name":
			p.ToolName, err = wire.ReadStringAt(v, path, ".name")
			have |= 2
		case "namespace":
			p.Namespace, err = itemString(v, path, ".namespace")
		case "parsed_arguments": //field:input[].parsed_arguments: hint
			// The arguments as parsed by the openai SDKs' parse and
			// stream helpers (openai-node, openai-python's
			// ParsedResponseFunctionToolCall): a copy of arguments,
			// never on the wire, sent back with response.output.
			if custom {
				err = wire.UnknownField(path + "." + key)
			} else if v.Type != gjson.Null {
				req.Dropped = append(req.Dropped, path+".parsed_arguments")
			}
		case metadataPassthroughKey:
			err = metadataPassthrough(v, path, req)
		default:
			err = wire.UnknownField(path + "." + key)
		}
		if err != nil {
			break
		}
	}
	switch {
	case err != nil:
		return parts, err
	case have&1 == 0 || p.ToolCallID == "":
		return parts, codec.InvalidRequest(path+".call_id", "is required")
	case have&2 == 0 || p.ToolName == "":
		return parts, codec.InvalidRequest(path+".name", "is required")
	case have&4 == 0:
		return parts, codec.InvalidRequest(path+"."+argsKey, "is required")
	}
	return append(parts, p), nil
}

// decodeReasoningItem decodes a reasoning item of the history: a
// PartReasoning of the assistant turn it belongs to. Its text is the
// summary texts joined by blank lines (else the reasoning_text content),
// its ItemID the item's id, and its encrypted_content the opaque value: an
// envelope llmbridge issued (unwrapped, with the family and item id it
// names) or OpenAI's own encrypted reasoning.
func decodeReasoningItem(item gjson.Result, i int, parts []codec.Part, req *request) ([]codec.Part, *codec.Error) {
	path := wire.IndexPath("input", i)
	p := codec.Part{Type: codec.PartReasoning}
	var summary, content, encrypted gjson.Result
	var err *codec.Error
	for key, member := range jsonx.Members(item.Raw, &req.Text) {
		v := member.Result()
		switch key {
		case "type":
		case "id":
			p.ItemID, err = itemString(v, path, ".id")
		case "status":
			err = itemStatus(v, path, ".status")
		case "summary":
			summary = v
		case "content":
			content = v
		case "encrypted_content":
			encrypted = v
		case metadataPassthroughKey:
			err = metadataPassthrough(v, path, req)
		default:
			err = wire.UnknownField(path + "." + key)
		}
		if err != nil {
			break
		}
	}
	if err != nil {
		return parts, err
	}
	var sum, cont string
	if sum, err = reasoningTexts(summary, path+".summary", "summary_text", req); err != nil {
		return parts, err
	}
	if cont, err = reasoningTexts(content, path+".content", "reasoning_text", req); err != nil {
		return parts, err
	}
	p.Text = sum
	if !p.HasText() {
		p.Text = cont
	}
	value, err := itemString(encrypted, path, ".encrypted_content")
	if err != nil {
		return parts, err
	}
	if mapping.IsEnvelope(value) {
		// The item id beside an envelope is the one llmbridge gave the
		// client; the envelope names the issuer's own, if any.
		p.ItemID = ""
	}
	if err := wire.ReadOpaque(&p, value, mapping.FamilyOpenAI, path+".encrypted_content"); err != nil {
		return parts, err
	}
	return append(parts, p), nil
}

// reasoningTexts reads a reasoning item's summary or content: null,
// absent or a list of {type: typ, text} objects, whose texts are joined by
// blank lines (the separation OpenAI's own clients render between summary
// parts).
func reasoningTexts(v gjson.Result, path, typ string, req *request) (string, *codec.Error) {
	if !v.Exists() || v.Type == gjson.Null {
		return "", nil
	}
	if !v.IsArray() {
		return "", wire.WrongType(path, "array", v)
	}
	var texts []string
	var err *codec.Error
	j := 0
	for _, member := range jsonx.Members(v.Raw, &req.Text) {
		part := member.Result()
		partPath := wire.IndexPath(path, j)
		j++
		if !part.IsObject() {
			err = wire.WrongType(partPath, "object", part)
			break
		}
		hasText := false
		for key, member := range jsonx.Members(part.Raw, &req.Text) {
			value := member.Result()
			switch key {
			case "type":
				var t string
				if t, err = wire.ReadString(value, partPath+".type"); err == nil && t != typ {
					err = codec.InvalidRequest(partPath+".type", `must be "`+typ+`"`)
				}
			case "text":
				var t string
				t, err = wire.ReadString(value, partPath+".text")
				texts, hasText = append(texts, t), true
			default:
				err = wire.UnknownField(partPath + "." + key)
			}
			if err != nil {
				break
			}
		}
		if err == nil && !hasText {
			err = codec.InvalidRequest(partPath+".text", "is required")
		}
		if err != nil {
			break
		}
	}
	if err != nil || len(texts) == 0 {
		return "", err
	}
	return strings.Join(texts, "\n\n"), nil
}

// arguments sets p's arguments from v, an OpenAI arguments string that
// holds the text of one JSON object: kept as its literal when it may be
// (wire.KeepEscapedArguments), else unquoted; "" (no arguments) stays "".
func arguments(p *codec.Part, v jsonx.Value, a *jsonx.Arena, path, field string) *codec.Error {
	if wire.KeepEscapedArguments(p, v, a, jsonx.IsObject) {
		return nil
	}
	s, err := wire.ReadStringAt(v.Result(), path, field)
	if err != nil || s == "" {
		return err
	}
	if !jsonx.IsObject(s) {
		return codec.InvalidRequest(path+field, "must be a JSON object in a string")
	}
	p.Arguments = s
	return nil
}

// customInput makes a custom tool call's input its canonical arguments,
// {"input": input} (wire.CustomArgumentsOf).
func customInput(p *codec.Part, v jsonx.Value, path string) *codec.Error {
	if len(v.Raw) == 0 || v.Raw[0] != '"' {
		_, err := wire.ReadStringAt(v.Result(), path, ".input")
		return err
	}
	p.Arguments = wire.CustomArgumentsOf(v)
	return nil
}

// decodeOutputItem decodes a function_call_output item: the
// result of a tool call, a PartToolResult of a user message. Its output is a
// string or a list of input_text and input_image parts (documents in
// results are rejected). Responses has no error flag: a result's failure is
// in its text.
func decodeOutputItem(item gjson.Result, i int, parts []codec.Part, req *request) ([]codec.Part, *codec.Error) {
	path := wire.IndexPath("input", i)
	p := codec.Part{Type: codec.PartToolResult}
	var err *codec.Error
	var output gjson.Result
	var outputV jsonx.Value // output itself, for a text read only if need be
	for key, member := range jsonx.Members(item.Raw, &req.Text) {
		if key == "output" {
			output, outputV = member.Shallow(), member
			continue
		}
		v := member.Result()
		switch key {
		case "type":
		case "id":
			_, err = itemString(v, path, ".id")
		case "status":
			err = itemStatus(v, path, ".status")
		case "call_id":
			p.ToolCallID, err = wire.ReadStringAt(v, path, ".call_id")
		case "name":
			p.ToolName, err = itemString(v, path, ".name")
		case "namespace":
			p.Namespace, err = itemString(v, path, ".namespace")
		case metadataPassthroughKey:
			err = metadataPassthrough(v, path, req)
		default:
			err = wire.UnknownField(path + "." + key)
		}
		if err != nil {
			break
		}
	}
	if err != nil {
		return parts, err
	}
	if p.ToolCallID == "" {
		return parts, codec.InvalidRequest(path+".call_id", "is required")
	}
	switch {
	case output.Type == gjson.String:
		p.Content = append(wire.ContentParts(req, 1), wire.ValueTextPart(codec.PartText, outputV))
	case output.IsArray():
		j := 0
		content := wire.ContentParts(req, jsonx.CountMembers(output, &req.Text))
		for _, member := range jsonx.Members(output.Raw, &req.Text) {
			part := member.Result()
			partPath := wire.IndexPath(path+".output", j)
			content, err = appendContent(content, part, codec.RoleUser, func() string { return partPath }, true, req)
			j++
			if err != nil {
				break
			}
		}
		if err != nil {
			return parts, err
		}
		p.Content = content
	case !output.Exists() || output.Type == gjson.Null:
		return parts, codec.InvalidRequest(path+".output", "is required")
	default:
		return parts, wire.WrongType(path+".output", "string or array", output)
	}
	return append(parts, p), nil
}

// decodeMessage decodes a message item. Its id and status are
// identity metadata of an earlier response (Codex sends an id on every item
// it replays); they do not change what the model generates and llmbridge
// keeps no server-side state they could refer to, so they are accepted and
// ignored after a type check.
func decodeMessage(item gjson.Result, it *responsesItem, i int, parts []codec.Part, req *request) (codec.Role, []codec.Part, *codec.Error) {
	const allowed = keyType | keyRole | keyContent | keyID | keyStatus | keyPhase | keyMetadata
	if it.keys&^allowed != 0 {
		return 0, parts, wire.UnknownField(wire.IndexPath("input", i) + "." + firstUnknownKey(item, messageKey))
	}
	role, err := role(it.role, it.keys&keyRole != 0, i)
	if err != nil {
		return 0, parts, err
	}
	for _, f := range [...]struct {
		v    gjson.Result
		name string
	}{{it.id, ".id"}, {it.sts, ".status"}} {
		if f.v.Exists() && f.v.Type != gjson.Null && f.v.Type != gjson.String {
			return 0, parts, wire.WrongType(wire.IndexPath("input", i)+f.name, "string", f.v)
		}
	}
	if err := phase(it.phase, i, req); err != nil {
		return 0, parts, err
	}
	if err := metadataPassthrough(it.metadata, wire.IndexPath("input", i), req); err != nil {
		return 0, parts, err
	}
	switch {
	case !it.content.Exists() || it.content.Type == gjson.Null:
		return 0, parts, codec.InvalidRequest(wire.IndexPath("input", i)+".content", "is required")
	case it.content.Type == gjson.String:
		return role, append(parts, wire.ValueTextPart(codec.PartText, it.contentV)), nil
	case !it.content.IsArray():
		return 0, parts, wire.WrongType(wire.IndexPath("input", i)+".content", "string or array", it.content)
	}
	j := 0
	for _, member := range jsonx.Members(it.content.Raw, &req.Text) {
		part := member.Result()
		parts, err = appendContent(parts, part, role, func() string { return wire.IndexPath(wire.IndexPath("input", i)+".content", j) }, false, req)
		j++
		if err != nil {
			break
		}
	}
	return role, parts, err
}

// messageKey reports whether key is a message item key.
func messageKey(key string) bool {
	switch key {
	case "type", "role", "content", "id", "status", "phase", metadataPassthroughKey:
		return true
	}
	return false
}

// firstUnknownKey returns the first key of obj that known rejects; it runs
// on error paths only.
func firstUnknownKey(obj gjson.Result, known func(string) bool) string {
	name := ""
	for key := range jsonx.Members(obj.Raw, nil) {
		if !known(key) {
			name = key
			break
		}
	}
	return name
}

// role decodes the role of input item i.
func role(v gjson.Result, present bool, i int) (codec.Role, *codec.Error) {
	if !present || v.Type == gjson.Null {
		return 0, codec.InvalidRequest(wire.IndexPath("input", i)+".role", "is required")
	}
	if v.Type != gjson.String {
		return 0, wire.WrongType(wire.IndexPath("input", i)+".role", "string", v)
	}
	switch v.Str {
	case "user":
		return codec.RoleUser, nil
	case "assistant":
		return codec.RoleAssistant, nil
	case "system":
		return codec.RoleSystem, nil
	case "developer":
		return codec.RoleDeveloper, nil
	}
	return 0, codec.InvalidRequest(wire.IndexPath("input", i)+".role", `unknown role "`+v.Str+`"`)
}

// metadataPassthroughKey is the member Codex's built-in OpenAI provider
// adds to the input items it replays: its own bookkeeping (the turn id,
// what kind of content each part is), which OpenAI accepts.
const metadataPassthroughKey = "internal_chat_message_metadata_passthrough"

// metadataPassthrough validates the metadata member of the item at path,
// an object or null, and records it as a dropped hint: it labels history
// for the client and never reaches the model, and refusing it would shut
// Codex out of every upstream but OpenAI's.
func metadataPassthrough(v gjson.Result, path string, req *request) *codec.Error {
	if !v.Exists() || v.Type == gjson.Null {
		return nil
	}
	if !v.IsObject() {
		return wire.WrongType(path+"."+metadataPassthroughKey, "object", v)
	}
	req.Dropped = append(req.Dropped, path+"."+metadataPassthroughKey)
	return nil
}

// phase validates an assistant message's phase (commentary or final
// answer) and records it as a dropped hint. OpenAI asks clients to send it
// back because its newer Codex models read it, but it only labels history,
// no other protocol has a slot for it, and rejecting it would shut such
// clients out of every other upstream.
func phase(v gjson.Result, i int, req *request) *codec.Error {
	if !v.Exists() || v.Type == gjson.Null {
		return nil
	}
	if v.Type != gjson.String {
		return wire.WrongType(wire.IndexPath("input", i)+".phase", "string", v)
	}
	switch v.Str {
	case "commentary", "final_answer":
		req.Dropped = append(req.Dropped, wire.IndexPath("input", i)+".phase")
		return nil
	}
	return codec.InvalidRequest(wire.IndexPath("input", i)+".phase", `must be "commentary" or "final_answer"`)
}
