package codec

import (
	"slices"
	"strconv"

	"github.com/llmbridge/llmbridge/mapping"
	"github.com/tidwall/gjson"
)

// This file is the Anthropic Messages codec. It serves two protocols that
// share one wire format: first-party anthropic-messages (POST /v1/messages,
// the model in the body) and vertex-anthropic (:rawPredict on Vertex AI, the
// model in the URL path and an anthropic_version field in the body). The
// vertex parameter of the request functions selects the dialect; responses
// are identical in both.

// anthropicProtocol returns the protocol constant of a dialect, so that
// errors name the protocol the client or upstream actually speaks.
func anthropicProtocol(vertex bool) Protocol {
	if vertex {
		return VertexAnthropic
	}
	return AnthropicMessages
}

// anthropicRequestDecoder holds the state of one request decode: the
// destination and what has been seen of the required fields.
type anthropicRequestDecoder struct {
	req         *Request
	vertex      bool
	sawMessages bool
	parts       []Part // backing array shared by the Parts of all messages
}

// decodeAnthropicRequest decodes a Messages request body into req. The
// top-level object is walked once; every key is mapped, recorded as a
// dropped hint, rejected as a capability outside the current scope, or
// rejected as unknown.
func decodeAnthropicRequest(root gjson.Result, req *Request, vertex bool) *Error {
	d := anthropicRequestDecoder{req: req, vertex: vertex}
	var err *Error
	eachMember(root, &req.text, func(key, value gjson.Result) bool {
		err = d.field(key.Str, value)
		return err == nil
	})
	if err != nil {
		return err
	}
	if !d.sawMessages {
		return invalid("messages", "is required")
	}
	// An Anthropic stream always reports usage, so a streaming Anthropic
	// client expects it whatever the upstream.
	req.StreamUsage = req.Stream
	return nil
}

// field decodes one top-level field.
func (d *anthropicRequestDecoder) field(name string, v gjson.Result) *Error {
	req := d.req
	switch name {
	case "model":
		return d.model(v)
	case "messages":
		return d.messages(v)
	case "system":
		return d.system(v)
	case "max_tokens":
		return readInt(v, "max_tokens", &req.MaxTokens)
	case "temperature":
		return readFloat(v, "temperature", &req.Temperature)
	case "top_p":
		return readFloat(v, "top_p", &req.TopP)
	case "top_k":
		return readInt(v, "top_k", &req.TopK)
	case "stop_sequences":
		var err *Error
		req.StopSequences, err = readStringList(v, "stop_sequences", false, req.StopSequences)
		return err
	case "stream":
		if v.Type == gjson.Null {
			return nil
		}
		var err *Error
		req.Stream, err = readBool(v, "stream")
		return err
	case "metadata":
		return d.metadata(v)
	case "anthropic_version":
		// Only the Vertex dialect carries the API version in the body; the
		// encoder of the upstream protocol writes its own.
		if !d.vertex {
			return unknownField(name)
		}
		return anthropicStringHint(req, name, v)
	case "service_tier", "inference_geo", "speed":
		// Capacity, region and speed choices steer the provider, not what
		// the model generates.
		return anthropicStringHint(req, name, v)
	case "context_management", "cache_control", "diagnostics":
		// Context editing, automatic prompt caching (seen in real traffic)
		// and cache diagnostics are provider-side optimisations.
		return anthropicObjectHint(req, name, v)
	case "thinking":
		return anthropicThinking(v)
	case "tools":
		return anthropicRejectNonEmpty(name, v, "tools are not supported yet")
	case "mcp_servers":
		return anthropicRejectNonEmpty(name, v, "MCP servers are not supported yet")
	case "tool_choice":
		return anthropicReject(name, v, "tool choice is not supported yet")
	case "container":
		return anthropicReject(name, v, "code execution containers are not supported")
	case "output_format", "output_config":
		return anthropicReject(name, v, "structured output and output configuration are not supported yet")
	}
	return unknownField(name)
}

// model reads the model. A Vertex body must not carry one: on Vertex the
// model is part of the URL path, which the caller has read.
func (d *anthropicRequestDecoder) model(v gjson.Result) *Error {
	if v.Type == gjson.Null {
		return nil
	}
	if d.vertex {
		return invalid("model", "must not be set in a vertex-anthropic body: the model is part of the URL path")
	}
	var err *Error
	d.req.Model, err = readString(v, "model")
	return err
}

// messages decodes the conversation. The messages are counted first so that
// req.Messages and one backing array for all their parts are allocated once;
// most messages hold one part, and a request with more grows the backing
// array (messages decoded before the growth keep the old one, which stays
// valid).
func (d *anthropicRequestDecoder) messages(v gjson.Result) *Error {
	if v.Type == gjson.Null {
		return nil
	}
	if !v.IsArray() {
		return wrongType("messages", "array", v)
	}
	n := anthropicCount(v)
	if n == 0 {
		return invalid("messages", "must contain at least one message")
	}
	d.sawMessages = true
	req := d.req
	req.Messages = slices.Grow(req.Messages, n)
	d.parts = make([]Part, 0, n)
	i := 0
	var err *Error
	eachMember(v, &req.text, func(_, m gjson.Result) bool {
		var msg Message
		msg, err = d.message(m, i)
		if err != nil {
			return false
		}
		req.Messages = append(req.Messages, msg)
		i++
		return true
	})
	return err
}

// message decodes messages[i].
func (d *anthropicRequestDecoder) message(m gjson.Result, i int) (Message, *Error) {
	var msg Message
	if !m.IsObject() {
		return msg, wrongType(indexPath("messages", i), "object", m)
	}
	start := len(d.parts)
	var hasRole, hasContent bool
	var err *Error
	eachMember(m, &d.req.text, func(key, value gjson.Result) bool {
		switch key.Str {
		case "role":
			hasRole = true
			msg.Role, err = anthropicRole(value, i)
		case "content":
			if value.Type != gjson.Null {
				hasContent = true
				err = d.content(value, i)
			}
		default:
			err = unknownField(indexPath("messages", i) + "." + key.Str)
		}
		return err == nil
	})
	switch {
	case err != nil:
		return msg, err
	case !hasRole:
		return msg, invalid(indexPath("messages", i)+".role", "is required")
	case !hasContent:
		return msg, invalid(indexPath("messages", i)+".content", "is required")
	}
	if end := len(d.parts); end > start {
		msg.Parts = d.parts[start:end:end]
	}
	return msg, nil
}

// anthropicRole reads messages[i].role. Anthropic has only user and
// assistant turns; system instructions are the top-level system field.
func anthropicRole(v gjson.Result, i int) (Role, *Error) {
	if v.Type != gjson.String {
		return RoleUser, wrongType(indexPath("messages", i)+".role", "string", v)
	}
	switch v.Str {
	case "user":
		return RoleUser, nil
	case "assistant":
		return RoleAssistant, nil
	}
	return RoleUser, invalid(indexPath("messages", i)+".role", `must be "user" or "assistant"`)
}

// content decodes messages[i].content, a string or an array of blocks, into
// the shared parts array.
func (d *anthropicRequestDecoder) content(v gjson.Result, i int) *Error {
	if v.Type == gjson.String {
		d.parts = append(d.parts, Part{Type: PartText, Text: v.Str})
		return nil
	}
	if !v.IsArray() {
		return wrongType(indexPath("messages", i)+".content", "string or array", v)
	}
	j := 0
	var err *Error
	v.ForEach(func(_, b gjson.Result) bool {
		var p Part
		p, err = d.block(b, anthropicBlockPos{msg: i, block: j})
		if err != nil {
			return false
		}
		d.parts = append(d.parts, p)
		j++
		return true
	})
	return err
}

// system decodes the top-level system prompt: a string, or an array of text
// blocks like those of a message.
func (d *anthropicRequestDecoder) system(v gjson.Result) *Error {
	req := d.req
	switch {
	case v.Type == gjson.Null:
		return nil
	case v.Type == gjson.String:
		req.System = append(req.System, Part{Type: PartText, Text: v.Str})
	case v.IsArray():
		req.System = slices.Grow(req.System, anthropicCount(v))
		j := 0
		var err *Error
		eachMember(v, &d.req.text, func(_, b gjson.Result) bool {
			var p Part
			p, err = d.block(b, anthropicBlockPos{system: true, block: j})
			if err != nil {
				return false
			}
			req.System = append(req.System, p)
			j++
			return true
		})
		if err != nil {
			return err
		}
	default:
		return wrongType("system", "string or array", v)
	}
	req.SystemRole = RoleSystem
	return nil
}

// anthropicBlockPos locates a content block (system[block] or
// messages[msg].content[block]) so that its path is built only when an error
// or a hint needs it.
type anthropicBlockPos struct {
	msg, block int
	system     bool
}

// path returns the block's path followed by suffix, such as
// "messages[3].content[0].cache_control", in a single allocation: it is
// built on the hot path for every cache_control hint.
func (p anthropicBlockPos) path(suffix string) string {
	var buf [64]byte
	b := buf[:0]
	if p.system {
		b = append(b, "system["...)
	} else {
		b = append(b, "messages["...)
		b = strconv.AppendInt(b, int64(p.msg), 10)
		b = append(b, "].content["...)
	}
	b = strconv.AppendInt(b, int64(p.block), 10)
	b = append(b, ']')
	b = append(b, suffix...)
	return string(b)
}

// block decodes one content block. Only text blocks are in scope; every
// other block type (image, document, tool_use, tool_result, thinking, ...)
// is rejected by name. The keys are collected first so that a block of
// another type is reported as such rather than as a text block with odd
// fields.
func (d *anthropicRequestDecoder) block(b gjson.Result, pos anthropicBlockPos) (Part, *Error) {
	if !b.IsObject() {
		return Part{}, wrongType(pos.path(""), "object", b)
	}
	var typ, text, cacheControl, citations gjson.Result
	var unknown string
	eachMember(b, &d.req.text, func(key, value gjson.Result) bool {
		switch key.Str {
		case "type":
			typ = value
		case "text":
			text = value
		case "cache_control":
			cacheControl = value
		case "citations":
			citations = value
		default:
			if unknown == "" {
				unknown = key.Str
			}
		}
		return true
	})
	switch {
	case !typ.Exists():
		return Part{}, invalid(pos.path(".type"), "is required")
	case typ.Type != gjson.String:
		return Part{}, wrongType(pos.path(".type"), "string", typ)
	case typ.Str != "text":
		return Part{}, unsupportedField(pos.path(""), `content part type "`+typ.Str+`" is not supported yet`)
	case unknown != "":
		return Part{}, unknownField(pos.path("." + unknown))
	case !text.Exists():
		return Part{}, invalid(pos.path(".text"), "is required")
	case text.Type != gjson.String:
		return Part{}, wrongType(pos.path(".text"), "string", text)
	}
	if err := anthropicCitations(citations, pos); err != nil {
		return Part{}, err
	}
	if cacheControl.Type != gjson.Null { // absent or null: nothing to record
		if err := anthropicObjectHint(d.req, pos.path(".cache_control"), cacheControl); err != nil {
			return Part{}, err
		}
	}
	return Part{Type: PartText, Text: text.Str}, nil
}

// anthropicCitations accepts a text block's citations when there are none
// (absent, null or []); citations of earlier answers are a later issue.
func anthropicCitations(v gjson.Result, pos anthropicBlockPos) *Error {
	switch {
	case v.Type == gjson.Null: // absent or null
		return nil
	case !v.IsArray():
		return wrongType(pos.path(".citations"), "array", v)
	case anthropicCount(v) > 0:
		return unsupportedField(pos.path(".citations"), "text citations are not supported yet")
	}
	return nil
}

// metadata decodes the metadata object, whose only field is user_id.
func (d *anthropicRequestDecoder) metadata(v gjson.Result) *Error {
	if v.Type == gjson.Null {
		return nil
	}
	if !v.IsObject() {
		return wrongType("metadata", "object", v)
	}
	var err *Error
	v.ForEach(func(key, value gjson.Result) bool {
		switch key.Str {
		case "user_id":
			if value.Type != gjson.Null {
				d.req.User, err = readString(value, "metadata.user_id")
			}
		default:
			err = unknownField("metadata." + key.Str)
		}
		return err == nil
	})
	return err
}

// anthropicThinking accepts thinking that is disabled, which asks for
// nothing; enabled or adaptive thinking is a later issue.
func anthropicThinking(v gjson.Result) *Error {
	if v.Type == gjson.Null {
		return nil
	}
	if !v.IsObject() {
		return wrongType("thinking", "object", v)
	}
	var typ gjson.Result
	var other string
	v.ForEach(func(key, value gjson.Result) bool {
		if key.Str == "type" {
			typ = value
		} else if other == "" {
			other = key.Str
		}
		return true
	})
	switch {
	case !typ.Exists():
		return invalid("thinking.type", "is required")
	case typ.Type != gjson.String:
		return wrongType("thinking.type", "string", typ)
	case typ.Str != "disabled":
		return unsupportedField("thinking", `thinking type "`+typ.Str+`" is not supported yet`)
	case other != "":
		return unknownField("thinking." + other)
	}
	return nil
}

// anthropicStringHint records a string hint field: one that steers the
// provider but not what the model generates, and has no canonical slot.
// Null is absent and not recorded.
func anthropicStringHint(req *Request, path string, v gjson.Result) *Error {
	switch {
	case v.Type == gjson.Null:
		return nil
	case v.Type != gjson.String:
		return wrongType(path, "string", v)
	}
	req.Dropped = append(req.Dropped, path)
	return nil
}

// anthropicObjectHint records an object hint field, like
// anthropicStringHint.
func anthropicObjectHint(req *Request, path string, v gjson.Result) *Error {
	switch {
	case v.Type == gjson.Null:
		return nil
	case !v.IsObject():
		return wrongType(path, "object", v)
	}
	req.Dropped = append(req.Dropped, path)
	return nil
}

// anthropicReject rejects a capability field outside the current scope;
// null is absent.
func anthropicReject(path string, v gjson.Result, why string) *Error {
	if v.Type == gjson.Null {
		return nil
	}
	return unsupportedField(path, why)
}

// anthropicRejectNonEmpty rejects an array capability field unless it is
// empty, which asks for nothing.
func anthropicRejectNonEmpty(path string, v gjson.Result, why string) *Error {
	switch {
	case v.Type == gjson.Null:
		return nil
	case !v.IsArray():
		return wrongType(path, "array", v)
	case anthropicCount(v) == 0:
		return nil
	}
	return unsupportedField(path, why)
}

// anthropicCount returns the number of elements of a JSON array.
func anthropicCount(v gjson.Result) int {
	n := 0
	v.ForEach(func(_, _ gjson.Result) bool {
		n++
		return true
	})
	return n
}

// appendAnthropicRequest appends req as a Messages request body. Fields go
// in a fixed order; only fields that are set are written, except max_tokens,
// which Anthropic requires.
func appendAnthropicRequest(dst []byte, req *Request, opts *EncodeOptions, vertex bool) ([]byte, *Error) {
	p := anthropicProtocol(vertex)
	switch {
	case req.PresencePenalty.Set:
		return dst, cannotEncode(p, "presence_penalty", "presence_penalty")
	case req.FrequencyPenalty.Set:
		return dst, cannotEncode(p, "frequency_penalty", "frequency_penalty")
	}
	start := len(dst)
	if vertex {
		// The version is always Vertex's own here; a same-family passthrough
		// elsewhere keeps the client's.
		dst = append(dst, `{"anthropic_version":`...)
		dst = appendString(dst, VertexAnthropicVersion)
	} else {
		model := opts.model(req)
		if model == "" {
			return dst, invalid("model", "is required")
		}
		dst = append(dst, `{"model":`...)
		dst = appendString(dst, model)
	}
	dst = append(dst, `,"max_tokens":`...)
	dst = appendInt(dst, opts.maxTokens(req))
	var err *Error
	if dst, err = appendAnthropicSystem(dst, req, p); err != nil {
		return dst[:start], err
	}
	if dst, err = appendAnthropicMessages(dst, req, p); err != nil {
		return dst[:start], err
	}
	dst = appendAnthropicSampling(dst, req)
	if req.User != "" {
		dst = append(dst, `,"metadata":{"user_id":`...)
		dst = appendString(dst, req.User)
		dst = append(dst, '}')
	}
	// Anthropic has no seed; best-effort determinism is a mere hint.
	if req.Seed.Set {
		req.Dropped = append(req.Dropped, "seed")
	}
	return append(dst, '}'), nil
}

// appendAnthropicSampling appends the sampling parameters, stop sequences
// and the stream flag.
func appendAnthropicSampling(dst []byte, req *Request) []byte {
	if req.Temperature.Set {
		dst = append(dst, `,"temperature":`...)
		dst = appendFloat(dst, req.Temperature.Value)
	}
	if req.TopP.Set {
		dst = append(dst, `,"top_p":`...)
		dst = appendFloat(dst, req.TopP.Value)
	}
	if req.TopK.Set {
		dst = append(dst, `,"top_k":`...)
		dst = appendInt(dst, req.TopK.Value)
	}
	if len(req.StopSequences) > 0 {
		dst = append(dst, `,"stop_sequences":`...)
		dst = appendStringArray(dst, req.StopSequences)
	}
	if req.Stream {
		dst = append(dst, `,"stream":true`...)
	}
	return dst
}

// isAnthropicSystemRole reports whether a message of role r belongs in the
// top-level system prompt.
func isAnthropicSystemRole(r Role) bool { return r == RoleSystem || r == RoleDeveloper }

// appendAnthropicSystem appends the system prompt: req.System followed by
// the system and developer messages of the conversation, in order, because
// Anthropic only has a top-level system prompt. A single text is written as
// a string, several as text blocks; empty texts are skipped (Anthropic
// rejects empty text blocks) and no text at all writes no system field.
func appendAnthropicSystem(dst []byte, req *Request, p Protocol) ([]byte, *Error) {
	n, bad := anthropicTextParts(req.System)
	if bad >= 0 {
		return dst, cannotEncode(p, indexPath("system", bad), "content part type")
	}
	for i := range req.Messages {
		m := &req.Messages[i]
		if !isAnthropicSystemRole(m.Role) {
			continue
		}
		k, bad := anthropicTextParts(m.Parts)
		if bad >= 0 {
			return dst, cannotEncode(p, indexPath(indexPath("messages", i)+".content", bad), "content part type")
		}
		n += k
	}
	if n == 0 {
		return dst, nil
	}
	dst = append(dst, `,"system":`...)
	if n == 1 {
		return appendString(dst, anthropicFirstSystemText(req)), nil
	}
	dst = append(dst, '[')
	dst, more := appendAnthropicTextBlocks(dst, req.System, false)
	for i := range req.Messages {
		if m := &req.Messages[i]; isAnthropicSystemRole(m.Role) {
			dst, more = appendAnthropicTextBlocks(dst, m.Parts, more)
		}
	}
	return append(dst, ']'), nil
}

// anthropicFirstSystemText returns the first non-empty system text, from
// req.System or a later system or developer message.
func anthropicFirstSystemText(req *Request) string {
	if t := anthropicFirstText(req.System); t != "" {
		return t
	}
	for i := range req.Messages {
		if m := &req.Messages[i]; isAnthropicSystemRole(m.Role) {
			if t := anthropicFirstText(m.Parts); t != "" {
				return t
			}
		}
	}
	return ""
}

// anthropicFirstText returns the first non-empty text of ps.
func anthropicFirstText(ps []Part) string {
	for i := range ps {
		if t, _ := anthropicPartText(&ps[i]); t != "" {
			return t
		}
	}
	return ""
}

// appendAnthropicMessages appends the conversation. Anthropic wants strict
// user/assistant alternation, so consecutive messages of the same role are
// merged into one turn, their blocks concatenated in order. Content is always
// an array of text blocks. Empty text parts are skipped because Anthropic
// rejects empty text blocks, and a message left without content is dropped
// (it said nothing); the messages around it may then merge. System and
// developer messages were hoisted into the system prompt.
func appendAnthropicMessages(dst []byte, req *Request, p Protocol) ([]byte, *Error) {
	dst = append(dst, `,"messages":[`...)
	open := false
	var role Role
	for i := range req.Messages {
		m := &req.Messages[i]
		if isAnthropicSystemRole(m.Role) {
			continue
		}
		n, bad := anthropicTextParts(m.Parts)
		if bad >= 0 {
			return dst, cannotEncode(p, indexPath(indexPath("messages", i)+".content", bad), "content part type")
		}
		if n == 0 {
			continue
		}
		if open && role == m.Role {
			dst, _ = appendAnthropicTextBlocks(dst, m.Parts, true)
			continue
		}
		if open {
			dst = append(dst, "]},"...)
		}
		if m.Role == RoleAssistant {
			dst = append(dst, `{"role":"assistant","content":[`...)
		} else {
			dst = append(dst, `{"role":"user","content":[`...)
		}
		dst, _ = appendAnthropicTextBlocks(dst, m.Parts, false)
		open, role = true, m.Role
	}
	if open {
		dst = append(dst, "]}"...)
	}
	return append(dst, ']'), nil
}

// anthropicPartText returns the text a part contributes as an Anthropic text
// block, and false for a part type Anthropic cannot carry. A refusal becomes
// plain text: Anthropic has no refusal block, and the seed rule projects a
// refusal into assistant history unchanged.
func anthropicPartText(p *Part) (string, bool) {
	switch p.Type {
	case PartText, PartRefusal:
		return p.Text, true
	}
	return "", false
}

// anthropicTextParts returns the number of parts of ps that become text
// blocks (non-empty texts) and the index of the first part Anthropic cannot
// carry, or -1.
func anthropicTextParts(ps []Part) (n, unsupported int) {
	for i := range ps {
		t, ok := anthropicPartText(&ps[i])
		if !ok {
			return n, i
		}
		if t != "" {
			n++
		}
	}
	return n, -1
}

// appendAnthropicTextBlocks appends the non-empty texts of ps as text blocks,
// preceded by a comma when comma is true, and reports whether a block has
// been written (so that the next block needs a comma). The parts must have
// been checked with anthropicTextParts.
func appendAnthropicTextBlocks(dst []byte, ps []Part, comma bool) ([]byte, bool) {
	for i := range ps {
		t, _ := anthropicPartText(&ps[i])
		if t == "" {
			continue
		}
		if comma {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"type":"text","text":`...)
		dst = appendString(dst, t)
		dst = append(dst, '}')
		comma = true
	}
	return dst, comma
}

// decodeAnthropicResponse decodes a non-streamed Messages response. Fields
// outside the current scope that do not carry output (container,
// stop_details, diagnostics, context_management and future additions) are
// ignored, so that an upstream adding a field keeps working; output the
// client could not receive (tool calls, thinking, ...) is an error.
func decodeAnthropicResponse(root gjson.Result, resp *Response) *Error {
	var typ, id, model, role, content, stopReason, stopSequence, usage gjson.Result
	root.ForEach(func(key, value gjson.Result) bool {
		switch key.Str {
		case "type":
			typ = value
		case "id":
			id = value
		case "model":
			model = value
		case "role":
			role = value
		case "content":
			content = value
		case "stop_reason":
			stopReason = value
		case "stop_sequence":
			stopSequence = value
		case "usage":
			usage = value
		}
		return true
	})
	if typ.Type != gjson.String || typ.Str != "message" {
		return anthropicBadUpstream(`type is not "message"`)
	}
	if role.Exists() && (role.Type != gjson.String || role.Str != "assistant") {
		return anthropicBadUpstream(`role is not "assistant"`)
	}
	var err *Error
	if resp.ID, err = anthropicUpstreamString(id, "id"); err != nil {
		return err
	}
	if resp.Model, err = anthropicUpstreamString(model, "model"); err != nil {
		return err
	}
	reason, err := anthropicUpstreamString(stopReason, "stop_reason")
	if err != nil {
		return err
	}
	resp.StopReason = mapping.FromAnthropicStopReason(reason)
	if resp.StopSequence, err = anthropicUpstreamString(stopSequence, "stop_sequence"); err != nil {
		return err
	}
	if resp.Usage, err = decodeAnthropicUsage(usage); err != nil {
		return err
	}
	return decodeAnthropicContent(content, resp)
}

// decodeAnthropicContent decodes the response's content blocks.
func decodeAnthropicContent(v gjson.Result, resp *Response) *Error {
	if !v.IsArray() {
		return anthropicBadUpstream("content is not an array")
	}
	resp.Content = resp.Content[:0]
	var err *Error
	v.ForEach(func(_, b gjson.Result) bool {
		var p Part
		p, err = decodeAnthropicResponseBlock(b)
		if err != nil {
			return false
		}
		resp.Content = append(resp.Content, p)
		return true
	})
	return err
}

// decodeAnthropicResponseBlock decodes one content block of a response.
// Only text is in scope; other output cannot be translated yet.
func decodeAnthropicResponseBlock(b gjson.Result) (Part, *Error) {
	if !b.IsObject() {
		return Part{}, anthropicBadUpstream("content block is not an object")
	}
	var typ, text, citations gjson.Result
	b.ForEach(func(key, value gjson.Result) bool {
		switch key.Str {
		case "type":
			typ = value
		case "text":
			text = value
		case "citations":
			citations = value
		}
		return true
	})
	switch {
	case typ.Type != gjson.String || typ.Str == "":
		return Part{}, anthropicBadUpstream("content block has no type")
	case typ.Str != "text":
		return Part{}, anthropicBadUpstream(`content block type "` + typ.Str + `" cannot be translated yet`)
	case text.Type != gjson.String:
		return Part{}, anthropicBadUpstream("text block has no text")
	case citations.IsArray() && anthropicCount(citations) > 0:
		return Part{}, anthropicBadUpstream("text citations cannot be translated yet")
	}
	return Part{Type: PartText, Text: text.Str}, nil
}

// decodeAnthropicUsage converts the usage object into canonical meaning:
// Anthropic's input_tokens excludes cache reads and writes. A response
// without usage leaves it unknown.
func decodeAnthropicUsage(v gjson.Result) (Usage, *Error) {
	if v.Type == gjson.Null {
		return Usage{}, nil
	}
	if !v.IsObject() {
		return Usage{}, anthropicBadUpstream("usage is not an object")
	}
	var input, cacheWrite, cacheRead, output, thinking int64
	var err *Error
	v.ForEach(func(key, value gjson.Result) bool {
		switch key.Str {
		case "input_tokens":
			input, err = anthropicTokenCount(value, "usage.input_tokens")
		case "cache_creation_input_tokens":
			cacheWrite, err = anthropicTokenCount(value, "usage.cache_creation_input_tokens")
		case "cache_read_input_tokens":
			cacheRead, err = anthropicTokenCount(value, "usage.cache_read_input_tokens")
		case "output_tokens":
			output, err = anthropicTokenCount(value, "usage.output_tokens")
		case "output_tokens_details":
			thinking, err = anthropicThinkingTokens(value)
		}
		return err == nil
	})
	if err != nil {
		return Usage{}, err
	}
	return mapping.FromAnthropicUsage(input, cacheWrite, cacheRead, output, thinking), nil
}

// anthropicThinkingTokens reads usage.output_tokens_details.thinking_tokens.
func anthropicThinkingTokens(v gjson.Result) (int64, *Error) {
	if v.Type == gjson.Null {
		return 0, nil
	}
	if !v.IsObject() {
		return 0, anthropicBadUpstream("usage.output_tokens_details is not an object")
	}
	var n int64
	var err *Error
	v.ForEach(func(key, value gjson.Result) bool {
		if key.Str == "thinking_tokens" {
			n, err = anthropicTokenCount(value, "usage.output_tokens_details.thinking_tokens")
		}
		return err == nil
	})
	return n, err
}

// anthropicTokenCount reads a token counter; null counts as zero.
func anthropicTokenCount(v gjson.Result, name string) (int64, *Error) {
	if v.Type == gjson.Null {
		return 0, nil
	}
	var n OptInt
	if readInt(v, name, &n) != nil || n.Value < 0 {
		return 0, anthropicBadUpstream(name + " is not a token count")
	}
	return n.Value, nil
}

// anthropicUpstreamString reads an optional string field of a response;
// absent and null are empty.
func anthropicUpstreamString(v gjson.Result, name string) (string, *Error) {
	switch v.Type {
	case gjson.Null:
		return "", nil
	case gjson.String:
		return v.Str, nil
	}
	return "", anthropicBadUpstream(name + " is not a string")
}

// anthropicBadUpstream is the error for a response that is not a valid
// Messages response. decodeAnthropicResponse is not told the dialect, so the
// message names the family; Vertex bodies are the same format.
func anthropicBadUpstream(why string) *Error {
	return badUpstream(AnthropicMessages, why)
}

// appendAnthropicResponse appends resp as a Messages response body, with
// every field anthropic-sdk-go's Message reads for a text answer. Refusal
// parts become text blocks, since Anthropic has no refusal block (the
// refusal itself is in stop_reason); empty texts are skipped, as a client
// replaying the answer as history would be refused for an empty text block.
func appendAnthropicResponse(dst []byte, resp *Response) ([]byte, *Error) {
	if _, bad := anthropicTextParts(resp.Content); bad >= 0 {
		return dst, &Error{Status: 502, Kind: mapping.ErrBadGateway,
			Message: "content part type cannot be expressed in an " + string(AnthropicMessages) + " response"}
	}
	id := resp.ID
	if id == "" {
		id = newID("msg_")
	}
	dst = append(dst, `{"id":`...)
	dst = appendString(dst, id)
	dst = append(dst, `,"type":"message","role":"assistant","model":`...)
	dst = appendString(dst, resp.Model)
	dst = append(dst, `,"content":[`...)
	dst, _ = appendAnthropicTextBlocks(dst, resp.Content, false)
	dst = append(dst, `],"stop_reason":`...)
	dst = appendString(dst, mapping.AnthropicStopReason(resp.StopReason))
	dst = append(dst, `,"stop_sequence":`...)
	if resp.StopSequence != "" {
		dst = appendString(dst, resp.StopSequence)
	} else {
		dst = append(dst, "null"...)
	}
	return appendAnthropicUsage(dst, &resp.Usage), nil
}

// appendAnthropicUsage appends the usage object and closes the response.
// Anthropic's input_tokens excludes cache reads and writes, so they are
// taken out of the canonical count. The protocol requires usage: when the
// upstream reported none (u.Known is false), all counters are zero.
func appendAnthropicUsage(dst []byte, u *Usage) []byte {
	dst = append(dst, `,"usage":{"input_tokens":`...)
	dst = appendInt(dst, u.AnthropicInputTokens())
	dst = append(dst, `,"cache_creation_input_tokens":`...)
	dst = appendInt(dst, u.CacheWriteTokens)
	dst = append(dst, `,"cache_read_input_tokens":`...)
	dst = appendInt(dst, u.CacheReadTokens)
	dst = append(dst, `,"output_tokens":`...)
	dst = appendInt(dst, u.OutputTokens)
	if u.ReasoningTokens > 0 {
		// Newer Anthropic responses detail thinking tokens; the stream
		// encoder writes the same field.
		dst = append(dst, `,"output_tokens_details":{"thinking_tokens":`...)
		dst = appendInt(dst, u.ReasoningTokens)
		dst = append(dst, '}')
	}
	return append(dst, "}}"...)
}
