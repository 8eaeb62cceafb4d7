package codec

import (
	"cmp"
	"math/bits"
	"slices"
	"strconv"
	"strings"

	"github.com/llmbridge/llmbridge/codec/internal/jsonx"
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

	// thinkingOff and effort are thinking {type:"disabled"} and
	// output_config.effort, combined into req.Reasoning once the whole body
	// is read, since both speak for Reasoning.Effort and may come in either
	// order.
	thinkingOff bool
	effort      mapping.Effort
}

// decodeAnthropicRequest decodes a Messages request body into req. The
// top-level object is walked once; every key is mapped, recorded as a
// dropped hint, rejected as a capability outside the current scope, or
// rejected as unknown.
func decodeAnthropicRequest(root gjson.Result, req *Request, vertex bool) *Error {
	d := anthropicRequestDecoder{req: req, vertex: vertex}
	var err *Error
	jsonx.EachMember(root, &req.text, func(key, value gjson.Result) bool {
		err = d.field(key.Str, value)
		return err == nil
	})
	if err != nil {
		return err
	}
	if !d.sawMessages {
		return invalid("messages", "is required")
	}
	d.finishReasoning()
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
	case "context_management":
		return anthropicContextManagement(req, v)
	case "cache_control", "diagnostics":
		// Automatic prompt caching (seen in real traffic) and cache
		// diagnostics are provider-side optimisations.
		return anthropicObjectHint(req, name, v)
	case "thinking":
		return d.thinking(v)
	case "output_config":
		return d.outputConfig(v)
	case "tools":
		return d.tools(v)
	case "mcp_servers":
		return anthropicRejectNonEmpty(name, v, "MCP servers are not supported yet")
	case "tool_choice":
		return d.toolChoice(v)
	case "container":
		return rejectUnlessNull(v, name, "code execution containers are not supported")
	case "output_format":
		// The beta predecessor of output_config.format; the released API
		// takes the format there.
		return rejectUnlessNull(v, name, "use output_config.format for structured output")
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
	n := jsonx.CountMembers(v, &d.req.text)
	if n == 0 {
		return invalid("messages", "must contain at least one message")
	}
	d.sawMessages = true
	req := d.req
	// A repeated key replaces the earlier value, as JSON decoders do.
	req.Messages = slices.Grow(req.Messages[:0], n)
	d.parts = make([]Part, 0, n)
	i := 0
	var err *Error
	jsonx.EachMember(v, &req.text, func(_, m gjson.Result) bool {
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
	jsonx.EachMember(m, &d.req.text, func(key, value gjson.Result) bool {
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
	return msg, d.checkToolParts(&msg, i)
}

// checkToolParts checks that tool_use and thinking blocks are in an
// assistant message and tool_result blocks in a user message (the role may follow the content in
// the object, so this is done once the message is decoded), and gives each
// tool result the name of the call it answers when the preceding assistant
// message has it: Anthropic does not repeat the name, and protocols such as
// Gemini need it.
func (d *anthropicRequestDecoder) checkToolParts(msg *Message, i int) *Error {
	for j := range msg.Parts {
		p := &msg.Parts[j]
		switch {
		case p.Type == PartToolCall && msg.Role != RoleAssistant:
			return invalid(anthropicBlockPos{msg: i, block: j}.path(""), "tool_use blocks belong in assistant messages")
		case p.Type == PartToolResult && msg.Role != RoleUser:
			return invalid(anthropicBlockPos{msg: i, block: j}.path(""), "tool_result blocks belong in user messages")
		case p.Type == PartReasoning && msg.Role != RoleAssistant:
			return invalid(anthropicBlockPos{msg: i, block: j}.path(""), "thinking and redacted_thinking blocks belong in assistant messages")
		case p.Type == PartToolResult && i > 0:
			p.ToolName = anthropicCallName(d.req.Messages[i-1].Parts, p.ToolCallID)
		}
	}
	return nil
}

// anthropicCallName returns the name of the tool call with id among ps, or
// "".
func anthropicCallName(ps []Part, id string) string {
	for k := range ps {
		if ps[k].Type == PartToolCall && ps[k].ToolCallID == id {
			return ps[k].ToolName
		}
	}
	return ""
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
		d.parts = append(d.parts, textPart(PartText, v))
		return nil
	}
	if !v.IsArray() {
		return wrongType(indexPath("messages", i)+".content", "string or array", v)
	}
	j := 0
	var err *Error
	jsonx.EachMember(v, &d.req.text, func(_, b gjson.Result) bool {
		// Most blocks are plain text: read them without block's
		// general collection (plainText).
		if p, ok := plainText(&d.req.text, b.Raw, `"text"`); ok {
			d.parts = append(d.parts, p)
			j++
			return true
		}
		if typ := b.Get("type"); typ.Str == "server_tool_use" || typ.Str == "web_search_tool_result" {
			// A web search Anthropic ran in an earlier turn: its
			// results are encrypted for Anthropic alone, while the
			// answer that used them stays. Like another family's
			// reasoning, it is dropped and listed.
			d.req.Dropped = append(d.req.Dropped, anthropicBlockPos{msg: i, block: j}.path(" ("+typ.Str+")"))
			j++
			return true
		}
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
	// A repeated key replaces the earlier value, as JSON decoders do.
	req.System = req.System[:0]
	switch {
	case v.Type == gjson.Null:
		return nil
	case v.Type == gjson.String:
		req.System = append(req.System, textPart(PartText, v))
	case v.IsArray():
		req.System = slices.Grow(req.System, jsonx.CountMembers(v, &d.req.text))
		j := 0
		var err *Error
		jsonx.EachMember(v, &d.req.text, func(_, b gjson.Result) bool {
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

// anthropicBlockPos locates a content block (system[block],
// messages[msg].content[block], or entry inner of the content of the tool
// result at messages[msg].content[block]) so that its path is built only
// when an error or a hint needs it.
type anthropicBlockPos struct {
	msg, block int
	inner      int
	system     bool
	nested     bool // the block is entry inner of a tool_result's content
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
	if p.nested {
		b = append(b, ".content["...)
		b = strconv.AppendInt(b, int64(p.inner), 10)
		b = append(b, ']')
	}
	b = append(b, suffix...)
	return string(b)
}

// Members of content blocks, as bits of anthropicBlock.seen; each block type
// allows a subset of them.
const (
	akText uint16 = 1 << iota
	akCacheControl
	akCitations
	akID
	akName
	akInput
	akCaller
	akToolUseID
	akContent
	akIsError
	akSource
	akTitle
	akContext
	akThinking
	akSignature
	akData
)

// anthropicKeyNames are the member names of the ak bits, in bit order.
var anthropicKeyNames = [...]string{"text", "cache_control", "citations", "id", "name", "input", "caller",
	"tool_use_id", "content", "is_error", "source", "title", "context", "thinking", "signature", "data"}

// The members each block type allows.
const (
	akTextBlock       = akText | akCacheControl | akCitations
	akToolUseBlock    = akID | akName | akInput | akCaller | akCacheControl
	akToolResultBlock = akToolUseID | akContent | akIsError | akCacheControl
	akImageBlock      = akSource | akCacheControl
	akDocumentBlock   = akSource | akTitle | akContext | akCitations | akCacheControl
	// Thinking blocks take no cache_control: Anthropic caches them as part
	// of the turn and rejects the marker on them.
	akThinkingBlock = akThinking | akSignature
	akRedactedBlock = akData
)

// anthropicBlock holds the members of one content block, collected before
// its type is interpreted so that a block of one type is reported as such
// rather than as another type with odd fields.
type anthropicBlock struct {
	typ, text, cacheControl, citations, id, name, input, caller gjson.Result
	toolUseID, content, isError, source, title, context         gjson.Result
	thinking, signature, data                                   gjson.Result
	seen                                                        uint16
	unknown                                                     string // the first member no block type has
}

// collect reads the members of b.
func (f *anthropicBlock) collect(b gjson.Result, a *jsonx.Arena) {
	jsonx.EachMember(b, a, func(key, value gjson.Result) bool {
		var bit uint16
		switch key.Str {
		case "type":
			f.typ = value
		case "text":
			f.text, bit = value, akText
		case "cache_control":
			f.cacheControl, bit = value, akCacheControl
		case "citations":
			f.citations, bit = value, akCitations
		case "id":
			f.id, bit = value, akID
		case "name":
			f.name, bit = value, akName
		case "input":
			f.input, bit = value, akInput
		case "caller":
			f.caller, bit = value, akCaller
		case "tool_use_id":
			f.toolUseID, bit = value, akToolUseID
		case "content":
			f.content, bit = value, akContent
		case "is_error":
			f.isError, bit = value, akIsError
		case "source":
			f.source, bit = value, akSource
		case "title":
			f.title, bit = value, akTitle
		case "context":
			f.context, bit = value, akContext
		case "thinking":
			f.thinking, bit = value, akThinking
		case "signature":
			f.signature, bit = value, akSignature
		case "data":
			f.data, bit = value, akData
		default:
			if f.unknown == "" {
				f.unknown = key.Str
			}
		}
		f.seen |= bit
		return true
	})
}

// block decodes one content block: text everywhere; tool_use, tool_result,
// image, document, thinking and redacted_thinking in messages; text and
// image inside a tool result. Every other block type (server tools, search
// results, ...) is rejected by name.
func (d *anthropicRequestDecoder) block(b gjson.Result, pos anthropicBlockPos) (Part, *Error) {
	if !b.IsObject() {
		return Part{}, wrongType(pos.path(""), "object", b)
	}
	var f anthropicBlock
	f.collect(b, &d.req.text)
	switch {
	case !f.typ.Exists():
		return Part{}, invalid(pos.path(".type"), "is required")
	case f.typ.Type != gjson.String:
		return Part{}, wrongType(pos.path(".type"), "string", f.typ)
	}
	var allowed uint16
	switch f.typ.Str {
	case "text":
		allowed = akTextBlock
	case "tool_use":
		allowed = akToolUseBlock
	case "tool_result":
		allowed = akToolResultBlock
	case "image":
		allowed = akImageBlock
	case "document":
		if pos.nested {
			return Part{}, unsupportedField(pos.path(""), "documents in tool results are not supported yet")
		}
		allowed = akDocumentBlock
	case "thinking":
		allowed = akThinkingBlock
	case "redacted_thinking":
		allowed = akRedactedBlock
	default:
		return Part{}, unsupportedField(pos.path(""), `content part type "`+f.typ.Str+`" is not supported yet`)
	}
	if where := anthropicBlockPlace(f.typ.Str, pos); where != "" {
		return Part{}, invalid(pos.path(""), `content part type "`+f.typ.Str+`" is not allowed in `+where)
	}
	if f.unknown != "" {
		return Part{}, unknownField(pos.path("." + f.unknown))
	}
	if extra := f.seen &^ allowed; extra != 0 {
		return Part{}, unknownField(pos.path("." + anthropicKeyNames[bits.TrailingZeros16(extra)]))
	}
	if f.cacheControl.Type != gjson.Null { // absent or null: nothing to record
		if err := anthropicObjectHint(d.req, pos.path(".cache_control"), f.cacheControl); err != nil {
			return Part{}, err
		}
	}
	switch f.typ.Str {
	case "tool_use":
		return anthropicToolUse(&f, pos)
	case "tool_result":
		return d.toolResult(&f, pos)
	case "image":
		return d.mediaSource(&f, pos, PartImage)
	case "document":
		return d.document(&f, pos)
	case "thinking", "redacted_thinking":
		return anthropicReasoningBlock(&f, pos)
	}
	switch {
	case !f.text.Exists():
		return Part{}, invalid(pos.path(".text"), "is required")
	case f.text.Type != gjson.String:
		return Part{}, wrongType(pos.path(".text"), "string", f.text)
	}
	if err := anthropicCitations(d.req, f.citations, pos); err != nil {
		return Part{}, err
	}
	return textPart(PartText, f.text), nil
}

// anthropicBlockPlace returns where a block of type typ may not be, when it
// is there: the system prompt takes text only, and a tool result's content
// text and images only.
func anthropicBlockPlace(typ string, pos anthropicBlockPos) string {
	switch {
	case typ == "text":
		return ""
	case pos.system:
		return "the system prompt"
	case pos.nested && typ != "image" && typ != "document":
		return "a tool result"
	}
	return ""
}

// anthropicToolUse decodes a tool_use block, a tool call in an assistant
// message. Its input object is kept as the arguments' JSON text. caller,
// which newer responses add (and clients replay), is accepted when it says
// the model called the tool directly: that is every call llmbridge carries.
func anthropicToolUse(f *anthropicBlock, pos anthropicBlockPos) (Part, *Error) {
	switch {
	case f.id.Type != gjson.String || f.id.Str == "":
		return Part{}, anthropicRequired(pos.path(".id"), f.id)
	case f.name.Type != gjson.String || f.name.Str == "":
		return Part{}, anthropicRequired(pos.path(".name"), f.name)
	case !f.input.Exists():
		return Part{}, invalid(pos.path(".input"), "is required")
	case !f.input.IsObject():
		return Part{}, wrongType(pos.path(".input"), "object", f.input)
	}
	if err := anthropicCaller(f.caller, pos); err != nil {
		return Part{}, err
	}
	return Part{Type: PartToolCall, ToolCallID: f.id.Str, ToolName: f.name.Str, Arguments: f.input.Raw}, nil
}

// anthropicReasoningBlock decodes a thinking or redacted_thinking block of
// assistant history into a reasoning part. The opaque value (thinking
// signature, redacted data) is read with readOpaque: a continuation envelope
// that llmbridge handed out is unwrapped, anything else is Anthropic's own
// value. A thinking block with an empty signature is unsigned reasoning
// (llmbridge writes one for reasoning no upstream signed).
func anthropicReasoningBlock(f *anthropicBlock, pos anthropicBlockPos) (Part, *Error) {
	p := Part{Type: PartReasoning}
	if f.typ.Str == "redacted_thinking" {
		if f.data.Type != gjson.String || f.data.Str == "" {
			return Part{}, anthropicRequired(pos.path(".data"), f.data)
		}
		if !mapping.IsEnvelope(f.data.Str) {
			p.Redacted, p.Signature, p.Origin = true, f.data.Str, mapping.FamilyAnthropic
			return p, nil
		}
		return p, readOpaque(&p, f.data.Str, mapping.FamilyAnthropic, pos.path(".data"))
	}
	switch {
	case !f.thinking.Exists():
		return Part{}, invalid(pos.path(".thinking"), "is required")
	case f.thinking.Type != gjson.String:
		return Part{}, wrongType(pos.path(".thinking"), "string", f.thinking)
	case !f.signature.Exists():
		return Part{}, invalid(pos.path(".signature"), "is required")
	case f.signature.Type != gjson.String:
		return Part{}, wrongType(pos.path(".signature"), "string", f.signature)
	}
	p.Text = f.thinking.Str
	return p, readOpaque(&p, f.signature.Str, mapping.FamilyAnthropic, pos.path(".signature"))
}

// anthropicCaller accepts a tool_use block's caller when it is absent, null
// or {"type":"direct"}; calls made from code execution (programmatic tool
// calling) are server-side state that cannot be carried.
func anthropicCaller(v gjson.Result, pos anthropicBlockPos) *Error {
	if v.Type == gjson.Null {
		return nil
	}
	if !v.IsObject() {
		return wrongType(pos.path(".caller"), "object", v)
	}
	typ := v.Get("type")
	if typ.Type != gjson.String {
		return anthropicRequired(pos.path(".caller.type"), typ)
	}
	if typ.Str != "direct" {
		return unsupportedField(pos.path(".caller"), `tool caller type "`+typ.Str+`" is not supported yet`)
	}
	return nil
}

// document decodes a document block: a PDF as base64 or URL source, with
// its title in Text. context (extra text for the model about the document)
// has no canonical slot and citations, when enabled, are output that cannot
// be translated yet: both are rejected rather than dropped.
func (d *anthropicRequestDecoder) document(f *anthropicBlock, pos anthropicBlockPos) (Part, *Error) {
	switch {
	case f.title.Type != gjson.Null && f.title.Type != gjson.String:
		return Part{}, wrongType(pos.path(".title"), "string", f.title)
	case f.context.Type != gjson.Null:
		return Part{}, unsupportedField(pos.path(".context"), "document context is not supported yet")
	case f.citations.Type == gjson.Null:
	case !f.citations.IsObject():
		return Part{}, wrongType(pos.path(".citations"), "object", f.citations)
	case f.citations.Get("enabled").Type == gjson.True:
		return Part{}, unsupportedField(pos.path(".citations"), "document citations are not supported yet")
	}
	p, err := d.mediaSource(f, pos, PartDocument)
	p.Text = f.title.Str
	return p, err
}

// mediaSource decodes the source of an image or document block: base64
// (media_type and data) or url. File references (the Files API) name
// server-side state and are rejected, as are plain-text and content
// document sources, which are not in this round.
func (d *anthropicRequestDecoder) mediaSource(f *anthropicBlock, pos anthropicBlockPos, kind PartType) (Part, *Error) {
	path := pos.path(".source")
	switch {
	case !f.source.Exists():
		return Part{}, invalid(path, "is required")
	case !f.source.IsObject():
		return Part{}, wrongType(path, "object", f.source)
	}
	var typ, mediaType, data, url gjson.Result
	var unknown string
	jsonx.EachMember(f.source, &d.req.text, func(key, value gjson.Result) bool {
		switch key.Str {
		case "type":
			typ = value
		case "media_type":
			mediaType = value
		case "data":
			data = value
		case "url":
			url = value
		default:
			if unknown == "" {
				unknown = key.Str
			}
		}
		return true
	})
	if typ.Type != gjson.String {
		return Part{}, anthropicRequired(path+".type", typ)
	}
	p := Part{Type: kind}
	switch typ.Str {
	case "base64":
		switch {
		case unknown != "" || url.Exists():
			return Part{}, unknownField(path + "." + cmp.Or(unknown, "url"))
		case mediaType.Type != gjson.String || mediaType.Str == "":
			return Part{}, anthropicRequired(path+".media_type", mediaType)
		case data.Type != gjson.String || data.Str == "":
			return Part{}, anthropicRequired(path+".data", data)
		}
		if err := checkBase64(path+".data", data.Str); err != nil {
			return Part{}, err
		}
		p.MediaType, p.Data = mediaType.Str, data.Str
	case "url":
		switch {
		case unknown != "" || mediaType.Exists() || data.Exists():
			return Part{}, unknownField(path + "." + cmp.Or(unknown, anthropicFirstKey(mediaType, "media_type", "data")))
		case url.Type != gjson.String || url.Str == "":
			return Part{}, anthropicRequired(path+".url", url)
		}
		p.URL = url.Str
	case "file":
		return Part{}, unsupportedField(path, "file references (file_id) name server-side state and are not supported")
	default:
		return Part{}, unsupportedField(path+".type", `source type "`+typ.Str+`" is not supported yet`)
	}
	return p, nil
}

// anthropicFirstKey returns a when v exists, else b.
func anthropicFirstKey(v gjson.Result, a, b string) string {
	if v.Exists() {
		return a
	}
	return b
}

// anthropicRequired is the error for a required string member that is
// missing, empty or not a string.
func anthropicRequired(path string, v gjson.Result) *Error {
	if v.Type == gjson.String || !v.Exists() {
		return invalid(path, "is required")
	}
	return wrongType(path, "string", v)
}

// toolResult decodes a tool_result block, the result of a tool call in a
// user message: tool_use_id, content (a string, or text and image blocks)
// and is_error. The called tool's name is filled in by checkToolParts.
func (d *anthropicRequestDecoder) toolResult(f *anthropicBlock, pos anthropicBlockPos) (Part, *Error) {
	if f.toolUseID.Type != gjson.String || f.toolUseID.Str == "" {
		return Part{}, anthropicRequired(pos.path(".tool_use_id"), f.toolUseID)
	}
	p := Part{Type: PartToolResult, ToolCallID: f.toolUseID.Str}
	switch {
	case f.isError.Type == gjson.True:
		p.IsError = true
	case f.isError.Type != gjson.Null && f.isError.Type != gjson.False:
		return Part{}, wrongType(pos.path(".is_error"), "boolean", f.isError)
	}
	switch {
	case f.content.Type == gjson.Null: // absent or null: no content
	case f.content.Type == gjson.String:
		if f.content.Str != "" {
			p.Content = []Part{textPart(PartText, f.content)}
		}
	case f.content.IsArray():
		n := jsonx.CountMembers(f.content, &d.req.text)
		if n == 0 {
			break
		}
		p.Content = make([]Part, 0, n)
		inner := pos
		inner.nested = true
		var err *Error
		jsonx.EachMember(f.content, &d.req.text, func(_, b gjson.Result) bool {
			var c Part
			if c, err = d.block(b, inner); err != nil {
				return false
			}
			p.Content = append(p.Content, c)
			inner.inner++
			return true
		})
		if err != nil {
			return Part{}, err
		}
	default:
		return Part{}, wrongType(pos.path(".content"), "string or array", f.content)
	}
	return p, nil
}

// anthropicCitations accepts a text block's citations. Citations of an
// earlier answer label its text with the search results they came from;
// the model does not read them back as content, and their
// encrypted_index only means something to Anthropic, so they are dropped
// and listed.
func anthropicCitations(req *Request, v gjson.Result, pos anthropicBlockPos) *Error {
	switch {
	case v.Type == gjson.Null: // absent or null
		return nil
	case !v.IsArray():
		return wrongType(pos.path(".citations"), "array", v)
	case jsonx.CountMembers(v, &req.text) > 0:
		req.Dropped = append(req.Dropped, pos.path(".citations"))
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
	jsonx.EachMember(v, &d.req.text, func(key, value gjson.Result) bool {
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

// anthropicMinBudget is the smallest thinking budget Anthropic accepts.
const anthropicMinBudget = 1024

// thinking decodes the thinking configuration, the union of
// anthropic-sdk-go's ThinkingConfigParamUnion: enabled {budget_tokens,
// display?} is a thinking budget, adaptive {display?} lets the model decide,
// disabled asks for no reasoning (Effort none). between_tools has no
// canonical meaning (no other protocol can confine thinking to tool
// boundaries), so it is rejected rather than approximated.
func (d *anthropicRequestDecoder) thinking(v gjson.Result) *Error {
	r := &d.req.Reasoning
	// A repeated key replaces the earlier value, as JSON decoders do.
	r.Budget, r.Adaptive, r.Display, d.thinkingOff = OptInt{}, false, "", false
	if v.Type == gjson.Null {
		return nil
	}
	if !v.IsObject() {
		return wrongType("thinking", "object", v)
	}
	var typ, budget, display gjson.Result
	var other string
	jsonx.EachMember(v, &d.req.text, func(key, value gjson.Result) bool {
		switch key.Str {
		case "type":
			typ = value
		case "budget_tokens":
			budget = value
		case "display":
			display = value
		default:
			if other == "" {
				other = key.Str
			}
		}
		return true
	})
	var allowBudget, allowDisplay bool
	switch {
	case !typ.Exists():
		return invalid("thinking.type", "is required")
	case typ.Type != gjson.String:
		return wrongType("thinking.type", "string", typ)
	case typ.Str == "enabled":
		allowBudget, allowDisplay = true, true
	case typ.Str == "adaptive":
		allowDisplay = true
		r.Adaptive = true
	case typ.Str == "disabled":
		d.thinkingOff = true
	case typ.Str == "between_tools":
		return unsupportedField("thinking.type", `thinking type "between_tools" has no equivalent in the other protocols`)
	default:
		return invalid("thinking.type", `must be "enabled", "adaptive", "disabled" or "between_tools"`)
	}
	switch {
	case other != "":
		return unknownField("thinking." + other)
	case budget.Exists() && !allowBudget:
		return unknownField("thinking.budget_tokens")
	case display.Exists() && !allowDisplay:
		return unknownField("thinking.display")
	}
	if allowBudget {
		if !budget.Exists() {
			return invalid("thinking.budget_tokens", "is required")
		}
		if err := readInt(budget, "thinking.budget_tokens", &r.Budget); err != nil {
			return err
		}
		if r.Budget.Value < anthropicMinBudget {
			return invalid("thinking.budget_tokens", "must be at least 1024")
		}
	}
	if display.Type != gjson.Null {
		if display.Type != gjson.String {
			return wrongType("thinking.display", "string", display)
		}
		if display.Str != "summarized" && display.Str != "omitted" {
			return invalid("thinking.display", `must be "summarized" or "omitted"`)
		}
		r.Display = display.Str
	}
	return nil
}

// outputConfig decodes output_config: effort (low, medium, high, xhigh or
// max) and format, Anthropic's structured output ({type:"json_schema",
// schema}).
func (d *anthropicRequestDecoder) outputConfig(v gjson.Result) *Error {
	// A repeated key replaces the earlier value, as JSON decoders do.
	d.effort, d.req.Format = mapping.EffortUnset, OutputFormat{}
	switch {
	case v.Type == gjson.Null:
		return nil
	case !v.IsObject():
		return wrongType("output_config", "object", v)
	}
	var err *Error
	jsonx.EachMember(v, &d.req.text, func(key, value gjson.Result) bool {
		switch key.Str {
		case "effort":
			err = d.outputEffort(value)
		case "format":
			err = d.outputFormat(value)
		default:
			err = unknownField("output_config." + key.Str)
		}
		return err == nil
	})
	return err
}

// outputEffort reads output_config.effort.
func (d *anthropicRequestDecoder) outputEffort(v gjson.Result) *Error {
	switch {
	case v.Type == gjson.Null:
		return nil
	case v.Type != gjson.String:
		return wrongType("output_config.effort", "string", v)
	}
	switch v.Str {
	case "low", "medium", "high", "xhigh", "max":
		d.effort, _ = mapping.ParseEffort(v.Str)
		return nil
	}
	return invalid("output_config.effort", `must be "low", "medium", "high", "xhigh" or "max"`)
}

// outputFormat reads output_config.format, a JSON schema the answer must
// follow.
func (d *anthropicRequestDecoder) outputFormat(v gjson.Result) *Error {
	switch {
	case v.Type == gjson.Null:
		return nil
	case !v.IsObject():
		return wrongType("output_config.format", "object", v)
	}
	var typ, schema gjson.Result
	var other string
	jsonx.EachMember(v, &d.req.text, func(key, value gjson.Result) bool {
		switch key.Str {
		case "type":
			typ = value
		case "schema":
			schema = value
		default:
			if other == "" {
				other = key.Str
			}
		}
		return true
	})
	switch {
	case typ.Type != gjson.String:
		return anthropicRequired("output_config.format.type", typ)
	case typ.Str != "json_schema":
		return invalid("output_config.format.type", `must be "json_schema"`)
	case other != "":
		return unknownField("output_config.format." + other)
	case !schema.Exists():
		return invalid("output_config.format.schema", "is required")
	case !schema.IsObject():
		return wrongType("output_config.format.schema", "object", schema)
	}
	d.req.Format = OutputFormat{Kind: FormatJSONSchema, Schema: schema.Raw}
	return nil
}

// finishReasoning sets Reasoning.Effort from thinking disabled and
// output_config.effort. Disabled thinking is an explicit "no reasoning",
// which the canonical effort says as EffortNone; an output
// effort beside it has no canonical slot left and is recorded as dropped.
func (d *anthropicRequestDecoder) finishReasoning() {
	r := &d.req.Reasoning
	switch {
	case d.thinkingOff:
		r.Effort = mapping.EffortNone
		if d.effort != mapping.EffortUnset {
			d.req.Dropped = append(d.req.Dropped, "output_config.effort")
		}
	default:
		r.Effort = d.effort
	}
}

// tools decodes the tool definitions. Client tools (no type, or type
// "custom") become function tools; Anthropic's server and built-in tools
// (web_search_20250305, bash_20250124, ...) are rejected by type.
func (d *anthropicRequestDecoder) tools(v gjson.Result) *Error {
	switch {
	case v.Type == gjson.Null:
		return nil
	case !v.IsArray():
		return wrongType("tools", "array", v)
	}
	req := d.req
	req.Tools = slices.Grow(req.Tools, jsonx.CountMembers(v, &d.req.text))
	i := 0
	var err *Error
	jsonx.EachMember(v, &req.text, func(_, t gjson.Result) bool {
		var tool Tool
		if tool, err = d.tool(t, i); err != nil {
			return false
		}
		req.Tools = append(req.Tools, tool)
		i++
		return true
	})
	return err
}

// tool decodes tools[i]. cache_control is a hint and eager_input_streaming
// (fine-grained streaming of the input) changes only how the arguments are
// chunked, so both are recorded as dropped. defer_loading (tool search)
// only keeps a tool's definition out of the context until the model looks
// for it; no other protocol can defer, so the tool is offered up front, the
// same capability, and the flag is recorded as dropped (Claude Code sets it
// on one of its tools). Programmatic calling (allowed_callers) and
// input_examples change what the model sees and are rejected.
func (d *anthropicRequestDecoder) tool(t gjson.Result, i int) (Tool, *Error) {
	path := indexPath("tools", i)
	if !t.IsObject() {
		return Tool{}, wrongType(path, "object", t)
	}
	var typ, name, desc, schema, strict gjson.Result
	var hints [3]gjson.Result // cache_control, eager_input_streaming, defer_loading
	var unsupported, unknown string
	jsonx.EachMember(t, &d.req.text, func(key, value gjson.Result) bool {
		switch key.Str {
		case "type":
			typ = value
		case "name":
			name = value
		case "description":
			desc = value
		case "input_schema":
			schema = value
		case "strict":
			strict = value
		case "cache_control":
			hints[0] = value
		case "eager_input_streaming":
			hints[1] = value
		case "defer_loading":
			hints[2] = value
		case "allowed_callers", "input_examples":
			if unsupported == "" && value.Type != gjson.Null {
				unsupported = key.Str
			}
		default:
			if unknown == "" {
				unknown = key.Str
			}
		}
		return true
	})
	switch {
	case typ.Type != gjson.Null && typ.Type != gjson.String:
		return Tool{}, wrongType(path+".type", "string", typ)
	case typ.Str == "web_search_20250305":
		return d.webSearchTool(t, path)
	case typ.Str != "" && typ.Str != "custom":
		return Tool{}, unsupportedField(path+".type", `hosted tool "`+typ.Str+`" cannot be translated (only web_search_20250305 is); remove the tool or ask the operator to drop it (field `+path+`)`)
	case unknown != "":
		return Tool{}, unknownField(path + "." + unknown)
	case unsupported != "":
		return Tool{}, unsupportedField(path+"."+unsupported, "tool "+unsupported+" is not supported yet")
	case name.Type != gjson.String || name.Str == "":
		return Tool{}, anthropicRequired(path+".name", name)
	case desc.Type != gjson.Null && desc.Type != gjson.String:
		return Tool{}, wrongType(path+".description", "string", desc)
	case !schema.Exists():
		return Tool{}, invalid(path+".input_schema", "is required")
	case !schema.IsObject():
		return Tool{}, wrongType(path+".input_schema", "object", schema)
	}
	tool := Tool{Kind: ToolFunction, Name: name.Str, Description: desc.Str, Parameters: schema.Raw}
	if strict.Type != gjson.Null {
		v, err := readBool(strict, path+".strict")
		if err != nil {
			return Tool{}, err
		}
		tool.Strict = OptBool{Value: v, Set: true}
	}
	if hints[0].Type != gjson.Null {
		if err := anthropicObjectHint(d.req, path+".cache_control", hints[0]); err != nil {
			return Tool{}, err
		}
	}
	if hints[1].Type != gjson.Null {
		if _, err := readBool(hints[1], path+".eager_input_streaming"); err != nil {
			return Tool{}, err
		}
		d.req.Dropped = append(d.req.Dropped, path+".eager_input_streaming")
	}
	if hints[2].Type != gjson.Null {
		deferred, err := readBool(hints[2], path+".defer_loading")
		if err != nil {
			return Tool{}, err
		}
		if deferred {
			d.req.Dropped = append(d.req.Dropped, path+".defer_loading")
		}
	}
	return tool, nil
}

// webSearchTool decodes the web search server tool {type:
// "web_search_20250305", name: "web_search", max_uses, allowed_domains,
// blocked_domains, user_location, cache_control} at path.
func (d *anthropicRequestDecoder) webSearchTool(t gjson.Result, path string) (Tool, *Error) {
	tool := Tool{Kind: ToolWebSearch, Name: "web_search", Source: path}
	w := &tool.WebSearch
	var err *Error
	jsonx.EachMember(t, &d.req.text, func(key, value gjson.Result) bool {
		p := path + "." + key.Str
		switch key.Str {
		case "type":
		case "name":
			var name string
			if name, err = readString(value, p); err == nil && name != "web_search" {
				err = invalid(p, `must be "web_search"`)
			}
		case "max_uses":
			if err = readInt(value, p, &w.MaxUses); err == nil && w.MaxUses.Set && w.MaxUses.Value < 1 {
				err = invalid(p, "must be at least 1")
			}
		case "allowed_domains":
			w.AllowedDomains, err = readStrings(value, p, nil)
		case "blocked_domains":
			w.BlockedDomains, err = readStrings(value, p, nil)
		case "user_location":
			err = responsesUserLocation(value, p, &w.Location)
		case "cache_control":
			if value.Type != gjson.Null {
				err = anthropicObjectHint(d.req, p, value)
			}
		default:
			err = unknownField(p)
		}
		return err == nil
	})
	if err == nil && len(w.AllowedDomains) > 0 && len(w.BlockedDomains) > 0 {
		err = invalid(path, "allowed_domains and blocked_domains cannot both be given")
	}
	return tool, err
}

// toolChoice decodes tool_choice: {type: auto | any | tool | none, name (for
// tool), disable_parallel_tool_use}. disable_parallel_tool_use is the
// inverse of ParallelToolCalls; type none takes no other member.
func (d *anthropicRequestDecoder) toolChoice(v gjson.Result) *Error {
	switch {
	case v.Type == gjson.Null:
		return nil
	case !v.IsObject():
		return wrongType("tool_choice", "object", v)
	}
	var typ, name, parallel gjson.Result
	var unknown string
	jsonx.EachMember(v, &d.req.text, func(key, value gjson.Result) bool {
		switch key.Str {
		case "type":
			typ = value
		case "name":
			name = value
		case "disable_parallel_tool_use":
			parallel = value
		default:
			if unknown == "" {
				unknown = key.Str
			}
		}
		return true
	})
	if typ.Type != gjson.String {
		return anthropicRequired("tool_choice.type", typ)
	}
	c := &d.req.ToolChoice
	switch typ.Str {
	case "auto":
		c.Mode = ToolChoiceAuto
	case "any":
		c.Mode = ToolChoiceRequired
	case "tool":
		if name.Type != gjson.String || name.Str == "" {
			return anthropicRequired("tool_choice.name", name)
		}
		c.Mode, c.Name = ToolChoiceNamed, name.Str
	case "none":
		c.Mode = ToolChoiceNone
	default:
		return invalid("tool_choice.type", `must be "auto", "any", "tool" or "none"`)
	}
	switch {
	case unknown != "":
		return unknownField("tool_choice." + unknown)
	case name.Type != gjson.Null && typ.Str != "tool":
		return unknownField("tool_choice.name")
	case parallel.Type != gjson.Null && typ.Str == "none":
		return unknownField("tool_choice.disable_parallel_tool_use")
	case parallel.Type == gjson.Null:
		return nil
	}
	disable, err := readBool(parallel, "tool_choice.disable_parallel_tool_use")
	if err != nil {
		return err
	}
	d.req.ParallelToolCalls = OptBool{Value: !disable, Set: true}
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

// anthropicContextManagement reads context_management. Its edits change
// what the model sees of the conversation on Anthropic's servers: context
// editing clears old tool uses (clear_tool_uses_20250919) and compaction
// (compact_20260112) replaces the earlier turns with a summary. No other
// family does either, and translation is always toward another family, so
// such an edit is a capability the upstream lacks: rejected, or dropped
// and reported under the lenient policy. An edit that clears thinking
// (clear_thinking_20251015, which Claude Code sends with keep: all) only
// says which of Anthropic's own thinking blocks stay in its context;
// another family takes earlier reasoning back by its own rules, so that
// edit, and a field without edits, is a hint.
func anthropicContextManagement(req *Request, v gjson.Result) *Error {
	if v.Type == gjson.Null {
		return nil
	}
	if !v.IsObject() {
		return wrongType("context_management", "object", v)
	}
	edits := v.Get("edits")
	switch {
	case edits.Type == gjson.Null:
	case !edits.IsArray():
		return wrongType("context_management.edits", "array", edits)
	default:
		var err *Error
		i := 0
		edits.ForEach(func(_, e gjson.Result) bool {
			if typ := e.Get("type"); typ.Type != gjson.String || !strings.HasPrefix(typ.Str, "clear_thinking_") {
				err = unsupportedField("context_management", "context editing of tool uses and compaction happen on Anthropic's servers, which no other protocol has (edits["+strconv.Itoa(i)+"] is "+strconv.Quote(typ.String())+")")
				return false
			}
			i++
			return true
		})
		if err != nil {
			return err
		}
	}
	req.Dropped = append(req.Dropped, "context_management")
	return nil
}

// anthropicRejectNonEmpty rejects an array capability field unless it is
// empty, which asks for nothing.
func anthropicRejectNonEmpty(path string, v gjson.Result, why string) *Error {
	switch {
	case v.Type == gjson.Null:
		return nil
	case !v.IsArray():
		return wrongType(path, "array", v)
	case jsonx.CountMembers(v, &jsonx.Arena{}) == 0:
		return nil
	}
	return unsupportedField(path, why)
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
	if req.Verbosity != "" {
		return dst, cannotEncode(p, "verbosity", "output verbosity")
	}
	plan, err := planAnthropicThinking(req, opts, p)
	if err != nil {
		return dst, err
	}
	start := len(dst)
	if vertex {
		// The version is always Vertex's own here; a same-family passthrough
		// elsewhere keeps the client's.
		dst = append(dst, `{"anthropic_version":`...)
		dst = jsonx.AppendString(dst, VertexAnthropicVersion)
	} else {
		model := opts.model(req)
		if model == "" {
			return dst, invalid("model", "is required")
		}
		dst = append(dst, `{"model":`...)
		dst = jsonx.AppendString(dst, model)
	}
	dst = append(dst, `,"max_tokens":`...)
	dst = jsonx.AppendInt(dst, plan.maxTokens)
	if dst, err = appendAnthropicSystem(dst, req, p); err != nil {
		return dst[:start], err
	}
	if dst, err = appendAnthropicMessages(dst, req, p); err != nil {
		return dst[:start], err
	}
	dst = appendAnthropicSampling(dst, req)
	if dst, err = appendAnthropicTools(dst, req, p); err != nil {
		return dst[:start], err
	}
	if req.User != "" {
		dst = append(dst, `,"metadata":{"user_id":`...)
		dst = jsonx.AppendString(dst, req.User)
		dst = append(dst, '}')
	}
	dst = plan.append(dst)
	if dst, err = appendAnthropicOutputConfig(dst, req, &plan, p); err != nil {
		return dst[:start], err
	}
	// Anthropic has no seed; best-effort determinism is a mere hint.
	if req.Seed.Set {
		req.Dropped = append(req.Dropped, "seed")
	}
	return append(dst, '}'), nil
}

// Thinking types of an Anthropic request.
const (
	anthropicThinkingUnset    = ""
	anthropicThinkingDisabled = "disabled"
	anthropicThinkingEnabled  = "enabled"
	anthropicThinkingAdaptive = "adaptive"
)

// anthropicThinkingPlan is what a request's reasoning configuration becomes
// toward Anthropic: the thinking object, the max_tokens that goes with it,
// and the output_config.effort that rides beside it.
type anthropicThinkingPlan struct {
	typ       string // one of the anthropicThinking constants
	budget    int64  // budget_tokens of enabled thinking
	display   string // thinking.display, or ""
	maxTokens int64  // the max_tokens to write
	effort    string // output_config.effort, or ""
}

// planAnthropicThinking converts req.Reasoning following the shared
// reasoning rules:
//
//   - Nothing asked (the zero Reasoning, or only a Responses summary) writes
//     nothing: the upstream's default stays, since some models reject
//     disabled thinking and others force adaptive.
//   - Effort none (or a zero budget) is thinking disabled.
//   - Adaptive (or Gemini's dynamic budget -1) is thinking adaptive.
//   - A budget, or else a non-zero effort converted with EffortBudgets, is
//     thinking enabled. Anthropic wants budget_tokens of at least 1024 and
//     below max_tokens: a client max_tokens at or under the budget lowers the
//     budget to max_tokens-1 when that stays at least 1024 (the client's
//     output limit is the harder promise) and is a 400 otherwise; without a
//     client max_tokens the default output allowance comes on top of the
//     budget, so thinking cannot eat the whole answer.
//   - An effort given beside a budget or adaptive thinking (an Anthropic
//     client's output_config.effort) is output_config.effort.
func planAnthropicThinking(req *Request, opts *EncodeOptions, p Protocol) (anthropicThinkingPlan, *Error) {
	r := &req.Reasoning
	plan := anthropicThinkingPlan{maxTokens: opts.maxTokens(req)}
	switch {
	case r.Effort == mapping.EffortNone || (r.Budget.Set && r.Budget.Value == 0):
		plan.typ = anthropicThinkingDisabled
	case r.Adaptive || (r.Budget.Set && r.Budget.Value < 0):
		plan.typ = anthropicThinkingAdaptive
	case r.Budget.Set:
		plan.typ, plan.budget = anthropicThinkingEnabled, r.Budget.Value
	case r.Effort != mapping.EffortUnset:
		plan.typ, plan.budget = anthropicThinkingEnabled, opts.EffortBudgets.Budget(r.Effort)
	}
	if r.Summary != "" {
		// Anthropic chooses how thinking is summarised itself.
		req.Dropped = append(req.Dropped, "reasoning.summary")
	}
	switch plan.typ {
	case anthropicThinkingUnset, anthropicThinkingDisabled:
		if r.Display != "" {
			req.Dropped = append(req.Dropped, "thinking.display")
		}
		return plan, nil
	}
	plan.display = r.Display
	if plan.display == "" && r.IncludeThoughts.Set && !r.IncludeThoughts.Value {
		// Gemini's includeThoughts false: reasoning happens but its text is
		// not returned, which is Anthropic's display omitted.
		plan.display = "omitted"
	}
	if r.Effort > mapping.EffortNone && (r.Adaptive || r.Budget.Set) {
		switch r.Effort {
		case mapping.EffortLow, mapping.EffortMedium, mapping.EffortHigh, mapping.EffortXHigh, mapping.EffortMax:
			plan.effort = r.Effort.String()
		default:
			return plan, cannotEncode(p, "output_config.effort", "reasoning effort "+r.Effort.String())
		}
	}
	if plan.typ != anthropicThinkingEnabled {
		return plan, nil
	}
	if plan.budget < anthropicMinBudget {
		return plan, cannotEncode(p, "thinking.budget_tokens",
			"a thinking budget of "+strconv.FormatInt(plan.budget, 10)+" tokens (Anthropic's smallest is 1024)")
	}
	switch {
	case !req.MaxTokens.Set:
		plan.maxTokens = plan.budget + plan.maxTokens
	case req.MaxTokens.Value > plan.budget:
	case req.MaxTokens.Value-1 >= anthropicMinBudget:
		plan.budget = req.MaxTokens.Value - 1
	default:
		return plan, cannotEncode(p, "max_tokens", "thinking with max_tokens "+strconv.FormatInt(req.MaxTokens.Value, 10)+
			" (Anthropic needs max_tokens above the thinking budget, which is at least 1024)")
	}
	return plan, nil
}

// append appends the thinking object, if any.
func (plan *anthropicThinkingPlan) append(dst []byte) []byte {
	if plan.typ == anthropicThinkingUnset {
		return dst
	}
	dst = append(dst, `,"thinking":{"type":"`...)
	dst = append(dst, plan.typ...)
	dst = append(dst, '"')
	if plan.typ == anthropicThinkingEnabled {
		dst = append(dst, `,"budget_tokens":`...)
		dst = jsonx.AppendInt(dst, plan.budget)
	}
	if plan.display != "" {
		dst = append(dst, `,"display":`...)
		dst = jsonx.AppendString(dst, plan.display)
	}
	return append(dst, '}')
}

// appendAnthropicOutputConfig appends output_config: the effort of the
// thinking plan and the structured output format. Anthropic takes a JSON
// schema only; any-JSON output (json_object) cannot be asked for. The
// schema's name has no Anthropic counterpart and no effect; Anthropic
// always enforces the schema, which is what strict asks for; a description
// is a hint to the model that Anthropic cannot take, and is recorded as
// dropped.
func appendAnthropicOutputConfig(dst []byte, req *Request, plan *anthropicThinkingPlan, p Protocol) ([]byte, *Error) {
	f := &req.Format
	switch f.Kind {
	case FormatText:
		if plan.effort == "" {
			return dst, nil
		}
	case FormatJSONObject:
		return dst, cannotEncode(p, "output_config.format", "JSON output without a schema (json_object)")
	case FormatJSONSchema:
		if f.Schema == "" || !anthropicIsObject(f.Schema) {
			return dst, invalid("output_config.format.schema", "must be a JSON object")
		}
	default:
		return dst, cannotEncode(p, "output_config.format", "output format")
	}
	dst = append(dst, `,"output_config":{`...)
	if plan.effort != "" {
		dst = append(dst, `"effort":"`...)
		dst = append(dst, plan.effort...)
		dst = append(dst, '"')
		if f.Kind == FormatJSONSchema {
			dst = append(dst, ',')
		}
	}
	if f.Kind == FormatJSONSchema {
		dst = append(dst, `"format":{"type":"json_schema","schema":`...)
		dst = append(dst, f.Schema...)
		dst = append(dst, '}')
		if f.Description != "" {
			req.Dropped = append(req.Dropped, "format.description")
		}
	}
	return append(dst, '}'), nil
}

// appendAnthropicSampling appends the sampling parameters, stop sequences
// and the stream flag.
func appendAnthropicSampling(dst []byte, req *Request) []byte {
	if req.Temperature.Set {
		dst = append(dst, `,"temperature":`...)
		dst = jsonx.AppendFloat(dst, req.Temperature.Value)
	}
	if req.TopP.Set {
		dst = append(dst, `,"top_p":`...)
		dst = jsonx.AppendFloat(dst, req.TopP.Value)
	}
	if req.TopK.Set {
		dst = append(dst, `,"top_k":`...)
		dst = jsonx.AppendInt(dst, req.TopK.Value)
	}
	if len(req.StopSequences) > 0 {
		dst = append(dst, `,"stop_sequences":`...)
		dst = jsonx.AppendStringArray(dst, req.StopSequences)
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
		return jsonx.AppendString(dst, anthropicFirstSystemText(req)), nil
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
// merged into one turn, their blocks concatenated in order, except that in a
// user turn the tool_result blocks come first, as Anthropic requires (text
// that a client put before the results follows them). Content is always an
// array of blocks. Empty text parts are skipped because Anthropic rejects
// empty text blocks, and a message left without content is dropped (it said
// nothing); the messages around it may then merge. System and developer
// messages were hoisted into the system prompt.
func appendAnthropicMessages(dst []byte, req *Request, p Protocol) ([]byte, *Error) {
	anthropicDropReasoning(req, p)
	dst = append(dst, `,"messages":[`...)
	msgs := req.Messages
	first := true
	for i := 0; i < len(msgs); {
		if isAnthropicSystemRole(msgs[i].Role) {
			i++
			continue
		}
		// The turn is msgs[i:j]: messages of role, and the system messages
		// and empty messages of the other role between them.
		role := msgs[i].Role
		n, results := 0, 0
		j := i
		for ; j < len(msgs); j++ {
			m := &msgs[j]
			if isAnthropicSystemRole(m.Role) {
				continue
			}
			k, r, err := anthropicCheckParts(m, j, p)
			if err != nil {
				return dst, err
			}
			if m.Role != role {
				if k == 0 {
					continue
				}
				break
			}
			n += k
			results += r
		}
		turn := msgs[i:j]
		i = j
		if n == 0 {
			continue
		}
		if !first {
			dst = append(dst, ',')
		}
		first = false
		if role == RoleAssistant {
			dst = append(dst, `{"role":"assistant","content":[`...)
		} else {
			dst = append(dst, `{"role":"user","content":[`...)
		}
		if results > 0 {
			dst = appendAnthropicTurn(dst, turn, role, anthropicOnlyResults)
			dst = appendAnthropicTurn(dst, turn, role, anthropicNoResults)
		} else {
			dst = appendAnthropicTurn(dst, turn, role, anthropicAllBlocks)
		}
		dst = append(dst, "]}"...)
	}
	return append(dst, ']'), nil
}

// anthropicSendsReasoning reports whether reasoning part part of a message
// of role r goes to an Anthropic upstream: only assistant history can hold
// thinking, and only with a signature Anthropic issued (it verifies every
// thinking block; unsigned or foreign reasoning would be refused).
func anthropicSendsReasoning(part *Part, r Role) bool {
	return r == RoleAssistant && signedFor(part, AnthropicMessages)
}

// anthropicDropReasoning records the reasoning parts of the conversation
// that do not go to the upstream (see anthropicSendsReasoning), as
// "messages[i].content[j] (reasoning)". It runs once per encode, before the
// turns are written, since the turn grouping looks at messages twice.
func anthropicDropReasoning(req *Request, p Protocol) {
	for i := range req.Messages {
		m := &req.Messages[i]
		if isAnthropicSystemRole(m.Role) {
			continue // a system message with reasoning is refused later
		}
		for j := range m.Parts {
			if part := &m.Parts[j]; part.Type == PartReasoning && !anthropicSendsReasoning(part, m.Role) {
				req.Dropped = append(req.Dropped, indexPath(indexPath("messages", i)+".content", j)+" (reasoning)")
			}
		}
	}
}

// Which blocks of a turn appendAnthropicTurn writes.
const (
	anthropicAllBlocks = iota
	anthropicOnlyResults
	anthropicNoResults
)

// appendAnthropicTurn appends the blocks of the role messages of turn that
// which selects, after a comma when the turn's content already has a block.
func appendAnthropicTurn(dst []byte, turn []Message, role Role, which int) []byte {
	comma := which == anthropicNoResults
	for k := range turn {
		m := &turn[k]
		if m.Role != role {
			continue
		}
		for l := range m.Parts {
			part := &m.Parts[l]
			if which != anthropicAllBlocks && (part.Type == PartToolResult) != (which == anthropicOnlyResults) {
				continue
			}
			if part.Type == PartReasoning {
				if anthropicSendsReasoning(part, role) {
					dst, comma = appendAnthropicReasoning(dst, part, false, comma), true
				}
				continue
			}
			dst, comma = appendAnthropicBlock(dst, part, comma)
		}
	}
	return dst
}

// anthropicCheckParts checks that the parts of messages[i] can be written in
// a turn of the message's role, and returns the number of blocks they become
// and how many of those are tool results.
func anthropicCheckParts(m *Message, i int, p Protocol) (blocks, results int, err *Error) {
	for j := range m.Parts {
		part := &m.Parts[j]
		var what string
		switch part.Type {
		case PartText, PartRefusal:
			if part.Text != "" {
				blocks++
			}
			continue
		case PartToolCall:
			what = anthropicCheckToolCall(part, m.Role)
		case PartImage, PartDocument:
			what = anthropicCheckMedia(part)
		case PartReasoning:
			if anthropicSendsReasoning(part, m.Role) {
				blocks++
			}
			continue
		case PartToolResult:
			var k int
			if what, k = anthropicCheckToolResult(part, m.Role); k >= 0 {
				path := indexPath(indexPath(indexPath("messages", i)+".content", j)+".content", k)
				return 0, 0, cannotEncode(p, path, what)
			}
			results++
		default:
			what = "content part type"
		}
		if what != "" {
			return 0, 0, cannotEncode(p, indexPath(indexPath("messages", i)+".content", j), what)
		}
		blocks++
	}
	return blocks, results, nil
}

// anthropicCheckToolCall returns what makes a tool call part of a message
// of role r impossible to write as a tool_use block, or "".
func anthropicCheckToolCall(part *Part, r Role) string {
	switch {
	case r != RoleAssistant:
		return "a tool call outside an assistant message"
	case part.ToolCallID == "":
		return "a tool call without an id"
	case part.ToolName == "":
		return "a tool call without a name"
	case !anthropicIsObject(part.Arguments):
		return "tool call arguments that are not a JSON object"
	}
	return ""
}

// anthropicCheckToolResult returns what makes a tool result part of a
// message of role r impossible to write as a tool_result block, or "", and
// the index of the offending entry of its content, or -1.
func anthropicCheckToolResult(part *Part, r Role) (string, int) {
	switch {
	case r != RoleUser:
		return "a tool result outside a user message", -1
	case part.ToolCallID == "":
		return "a tool result without a call id", -1
	}
	for k := range part.Content {
		c := &part.Content[k]
		switch c.Type {
		case PartText, PartRefusal:
		case PartImage:
			if what := anthropicCheckMedia(c); what != "" {
				return what, k
			}
		default:
			return "content part type " + c.Type.String() + " in a tool result", k
		}
	}
	return "", -1
}

// anthropicCheckMedia returns what makes an image or document part
// impossible to write as a block, or "": base64 data needs its media type,
// and a part needs data or a URL. A data: URL (decoders split them, so only
// a hand-made part has one) cannot be a url source.
func anthropicCheckMedia(part *Part) string {
	switch {
	case part.Data != "" && part.MediaType == "":
		return "an " + part.Type.String() + " without a media type"
	case part.Data == "" && part.URL == "":
		return "an " + part.Type.String() + " without data or URL"
	case part.Data == "" && !strings.HasPrefix(part.URL, "https://") && !strings.HasPrefix(part.URL, "http://"):
		return "an " + part.Type.String() + " URL that is not http(s)"
	}
	return ""
}

// anthropicIsObject reports whether args, a tool call's arguments, can be
// written as an object: "" (no arguments, written as {}) or the text of a
// JSON object. Decoders produce nothing else; the check only keeps a
// malformed canonical request from producing an invalid body.
func anthropicIsObject(args string) bool {
	i := jsonx.SkipSpace(args, 0)
	if i == len(args) {
		return true
	}
	j := len(args)
	for j > i && args[j-1] <= ' ' {
		j--
	}
	return args[i] == '{' && args[j-1] == '}'
}

// appendAnthropicArguments appends a tool call's arguments as an object.
func appendAnthropicArguments(dst []byte, args string) []byte {
	if jsonx.SkipSpace(args, 0) == len(args) {
		return append(dst, "{}"...)
	}
	return append(dst, args...)
}

// appendAnthropicBlock appends the block of a part that has been checked,
// preceded by a comma when comma is true, and reports whether a block has
// been written so far. Empty texts write nothing.
func appendAnthropicBlock(dst []byte, part *Part, comma bool) ([]byte, bool) {
	switch part.Type {
	case PartText, PartRefusal:
		if part.Text == "" {
			return dst, comma
		}
	}
	if comma {
		dst = append(dst, ',')
	}
	switch part.Type {
	case PartToolCall:
		dst = append(dst, `{"type":"tool_use","id":`...)
		dst = jsonx.AppendString(dst, part.ToolCallID)
		dst = append(dst, `,"name":`...)
		dst = jsonx.AppendString(dst, callWireName(part))
		dst = append(dst, `,"input":`...)
		dst = appendAnthropicArguments(dst, part.Arguments)
	case PartImage, PartDocument:
		dst = appendAnthropicMedia(dst, part)
	case PartToolResult:
		dst = append(dst, `{"type":"tool_result","tool_use_id":`...)
		dst = jsonx.AppendString(dst, part.ToolCallID)
		dst = appendAnthropicResultContent(dst, part.Content)
		if part.IsError {
			dst = append(dst, `,"is_error":true`...)
		}
	default:
		dst = append(dst, `{"type":"text","text":`...)
		dst = appendText(dst, part.Text, part)
	}
	return append(dst, '}'), true
}

// appendAnthropicReasoning appends a reasoning part as a thinking block
// ({thinking, signature}) or, when Redacted, a redacted_thinking block
// ({data}), preceded by a comma when comma is true. Toward an upstream
// (envelope false) the opaque value is the part's own signature; toward a
// client (envelope true) it is the continuation token (appendOpaque), which
// needs no JSON escaping, and "" for unsigned reasoning.
func appendAnthropicReasoning(dst []byte, part *Part, envelope, comma bool) []byte {
	if comma {
		dst = append(dst, ',')
	}
	if !envelope && isOpaque(part, mapping.FamilyAnthropic) && jsonx.Valid(part.Signature) {
		// A block llmbridge does not translate, back where it was. (One
		// that is not JSON goes as redacted data, which Anthropic
		// refuses, rather than into the body's syntax.)
		return append(dst, part.Signature...)
	}
	if part.Redacted {
		dst = append(dst, `{"type":"redacted_thinking","data":`...)
	} else {
		dst = append(dst, `{"type":"thinking","thinking":`...)
		dst = jsonx.AppendString(dst, part.Text)
		dst = append(dst, `,"signature":`...)
	}
	if !envelope {
		dst = jsonx.AppendString(dst, part.Signature)
		return append(dst, '}')
	}
	dst = append(dst, '"')
	dst = appendOpaque(dst, part.Signature, part.Origin, part.Redacted, part.ItemID)
	return append(dst, `"}`...)
}

// appendAnthropicMedia appends an image or document block, without its
// closing brace: a base64 source when the part has data, a url source
// otherwise, and a document's title.
func appendAnthropicMedia(dst []byte, part *Part) []byte {
	if part.Type == PartImage {
		dst = append(dst, `{"type":"image","source":{"type":`...)
	} else {
		dst = append(dst, `{"type":"document","source":{"type":`...)
	}
	if part.Data != "" {
		dst = append(dst, `"base64","media_type":`...)
		dst = jsonx.AppendString(dst, part.MediaType)
		dst = append(dst, `,"data":`...)
		dst = jsonx.AppendString(dst, part.Data)
	} else {
		dst = append(dst, `"url","url":`...)
		dst = jsonx.AppendString(dst, part.URL)
	}
	dst = append(dst, '}')
	if part.Type == PartDocument && part.Text != "" {
		dst = append(dst, `,"title":`...)
		dst = jsonx.AppendString(dst, part.Text)
	}
	return dst
}

// appendAnthropicResultContent appends a tool result's content member: a
// string for a single text, blocks otherwise, and nothing when there is no
// content (empty texts are skipped, as everywhere).
func appendAnthropicResultContent(dst []byte, content []Part) []byte {
	n, last := 0, (*Part)(nil)
	for k := range content {
		if c := &content[k]; c.Type != PartText && c.Type != PartRefusal || c.Text != "" {
			n++
			last = c
		}
	}
	switch {
	case n == 0:
		return dst
	case n == 1 && last.Text != "":
		dst = append(dst, `,"content":`...)
		return appendText(dst, last.Text, last)
	}
	dst = append(dst, `,"content":[`...)
	comma := false
	for k := range content {
		dst, comma = appendAnthropicBlock(dst, &content[k], comma)
	}
	return append(dst, ']')
}

// appendAnthropicTools appends the tool definitions and the tool choice.
// A tool without parameters gets the empty object schema Anthropic
// requires; strict and hosted tools cannot be carried. The parallel switch
// is disable_parallel_tool_use on the choice, so a ParallelToolCalls without
// a choice is written as auto; without tools, or with choice none, it says
// nothing and is not written. A choice of none or auto without tools says
// nothing either, while forcing a tool without tools is an error.
func appendAnthropicTools(dst []byte, req *Request, p Protocol) ([]byte, *Error) {
	if err := checkFlatNames(p, req); err != nil {
		return dst, err
	}
	for i := range req.Tools {
		t := &req.Tools[i]
		if t.Kind == ToolWebSearch {
			if err := checkWebSearchFor(p, t, i, webSearchCaps{maxUses: true, allowed: true, blocked: true, location: true}); err != nil {
				return dst, err
			}
			if i == 0 {
				dst = append(dst, `,"tools":[`...)
			} else {
				dst = append(dst, ',')
			}
			dst = appendAnthropicWebSearch(dst, &t.WebSearch)
			continue
		}
		switch {
		case t.Kind == ToolCustom:
			if err := checkCustomFor(p, t, i); err != nil {
				return dst, err
			}
		case t.Kind != ToolFunction:
			return dst, cannotEncode(p, indexPath("tools", i), "a hosted tool")
		case t.Strict.Set && t.Strict.Value:
			return dst, cannotEncode(p, indexPath("tools", i)+".strict", "strict tool schemas")
		case t.Name == "":
			return dst, invalid(indexPath("tools", i)+".name", "is required")
		case t.Parameters != "" && !anthropicIsObject(t.Parameters):
			return dst, invalid(indexPath("tools", i)+".parameters", "must be a JSON object")
		}
		if i == 0 {
			dst = append(dst, `,"tools":[`...)
		} else {
			dst = append(dst, ',')
		}
		name, desc, params := functionView(t)
		dst = append(dst, `{"name":`...)
		dst = jsonx.AppendString(dst, name)
		if desc != "" {
			dst = append(dst, `,"description":`...)
			dst = jsonx.AppendString(dst, desc)
		}
		dst = append(dst, `,"input_schema":`...)
		if anthropicEmptyObject(params) {
			dst = append(dst, `{"type":"object","properties":{}}`...)
		} else {
			dst = append(dst, params...)
		}
		dst = append(dst, '}')
	}
	if len(req.Tools) > 0 {
		dst = append(dst, ']')
	}
	c := &req.ToolChoice
	var typ string
	switch c.Mode {
	case ToolChoiceUnset, ToolChoiceAuto:
		typ = "auto"
		if len(req.Tools) == 0 || (c.Mode == ToolChoiceUnset && !req.ParallelToolCalls.Set) {
			return dst, nil
		}
	case ToolChoiceNone:
		if len(req.Tools) == 0 {
			return dst, nil
		}
		return append(dst, `,"tool_choice":{"type":"none"}`...), nil
	case ToolChoiceRequired:
		typ = "any"
	case ToolChoiceNamed:
		if c.Name == "" {
			return dst, invalid("tool_choice.name", "is required")
		}
		typ = "tool"
	default:
		return dst, cannotEncode(p, "tool_choice", "tool choice mode")
	}
	if len(req.Tools) == 0 {
		return dst, invalid("tool_choice", "forces a tool call but no tools are given")
	}
	dst = append(dst, `,"tool_choice":{"type":"`...)
	dst = append(dst, typ...)
	dst = append(dst, '"')
	if c.Mode == ToolChoiceNamed {
		dst = append(dst, `,"name":`...)
		dst = jsonx.AppendString(dst, c.wireName())
	}
	if req.ParallelToolCalls.Set {
		if req.ParallelToolCalls.Value {
			dst = append(dst, `,"disable_parallel_tool_use":false`...)
		} else {
			dst = append(dst, `,"disable_parallel_tool_use":true`...)
		}
	}
	return append(dst, '}'), nil
}

// appendAnthropicWebSearch appends the web search server tool with its
// options.
func appendAnthropicWebSearch(dst []byte, w *WebSearchOptions) []byte {
	dst = append(dst, `{"type":"web_search_20250305","name":"web_search"`...)
	if w.MaxUses.Set {
		dst = append(dst, `,"max_uses":`...)
		dst = jsonx.AppendInt(dst, w.MaxUses.Value)
	}
	if len(w.AllowedDomains) > 0 {
		dst = append(dst, `,"allowed_domains":`...)
		dst = appendStrings(dst, w.AllowedDomains)
	}
	if len(w.BlockedDomains) > 0 {
		dst = append(dst, `,"blocked_domains":`...)
		dst = appendStrings(dst, w.BlockedDomains)
	}
	if !w.Location.IsZero() {
		dst = append(dst, `,"user_location":`...)
		dst = appendUserLocation(dst, &w.Location)
	}
	return append(dst, '}')
}

// anthropicEmptyObject reports whether a schema is "" or an object without
// members: Anthropic needs an object schema with a type, so both become the
// empty object schema.
func anthropicEmptyObject(schema string) bool {
	i := jsonx.SkipSpace(schema, 0)
	if i == len(schema) {
		return true
	}
	if schema[i] != '{' {
		return false
	}
	i = jsonx.SkipSpace(schema, i+1)
	return i < len(schema) && schema[i] == '}' && jsonx.SkipSpace(schema, i+1) == len(schema)
}

// anthropicPartText returns the text a part contributes as an Anthropic text
// block, and false for a part type Anthropic cannot carry. A refusal becomes
// plain text: Anthropic has no refusal block, and a refusal in assistant
// history is replayed as its text, unchanged.
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
		dst = appendText(dst, t, &ps[i])
		dst = append(dst, '}')
		comma = true
	}
	return dst, comma
}

// decodeAnthropicResponse decodes a non-streamed Messages response. Fields
// outside the current scope that do not carry output (container,
// diagnostics, context_management and future additions) are ignored, so
// that an upstream adding a field keeps working; output the client could
// not receive (server tools, citations, ...) is an error.
func decodeAnthropicResponse(root gjson.Result, resp *Response) *Error {
	var typ, id, model, role, content, stopReason, stopSequence, stopDetails, usage gjson.Result
	jsonx.EachMember(root, &resp.text, func(key, value gjson.Result) bool {
		switch key.Str {
		case "stop_details":
			stopDetails = value
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
	var why string
	if resp.StopDetails, why = decodeAnthropicStopDetails(stopDetails); why != "" {
		return anthropicBadUpstream(why)
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
	jsonx.EachMember(v, &resp.text, func(_, b gjson.Result) bool {
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

// decodeAnthropicResponseBlock decodes one content block of a response:
// text, tool_use, thinking, redacted_thinking and the web search's blocks.
// Any other block (compaction, other server tools' blocks, types added
// later) is an opaque part (anthropicOpaquePart): it never fails the
// answer, and travels to the client as a continuation, back to Anthropic
// on the next turn.
func decodeAnthropicResponseBlock(b gjson.Result) (Part, *Error) {
	if !b.IsObject() {
		return Part{}, anthropicBadUpstream("content block is not an object")
	}
	var typ, text, citations, id, name, input, thinking, signature, data, toolUseID, content gjson.Result
	b.ForEach(func(key, value gjson.Result) bool {
		switch key.Str {
		case "tool_use_id":
			toolUseID = value
		case "content":
			content = value
		case "thinking":
			thinking = value
		case "signature":
			signature = value
		case "data":
			data = value
		case "type":
			typ = value
		case "text":
			text = value
		case "citations":
			citations = value
		case "id":
			id = value
		case "name":
			name = value
		case "input":
			input = value
		}
		return true
	})
	switch {
	case typ.Type != gjson.String || typ.Str == "":
		return Part{}, anthropicBadUpstream("content block has no type")
	case typ.Str == "tool_use":
		if id.Type != gjson.String || id.Str == "" || name.Type != gjson.String || name.Str == "" || !input.IsObject() {
			return Part{}, anthropicBadUpstream("tool_use block lacks its id, name or input object")
		}
		return Part{Type: PartToolCall, ToolCallID: id.Str, ToolName: name.Str, Arguments: input.Raw}, nil
	case typ.Str == "thinking":
		return anthropicThinkingPart(thinking, signature)
	case typ.Str == "redacted_thinking":
		if data.Type != gjson.String || data.Str == "" {
			return Part{}, anthropicBadUpstream("redacted_thinking block has no data")
		}
		return Part{Type: PartReasoning, Redacted: true, Signature: data.Str, Origin: mapping.FamilyAnthropic}, nil
	case typ.Str == "server_tool_use" && name.Str != "web_search":
		return opaquePart(mapping.FamilyAnthropic, b.Raw), nil
	case typ.Str == "server_tool_use":
		if id.Type != gjson.String || id.Str == "" || !input.IsObject() {
			return Part{}, anthropicBadUpstream("server_tool_use block lacks its id or input object")
		}
		return Part{Type: PartServerToolCall, ToolKind: ToolWebSearch, ToolCallID: id.Str, ToolName: name.Str, Arguments: input.Raw}, nil
	case typ.Str == "web_search_tool_result":
		return anthropicSearchResult(toolUseID, content), nil
	case typ.Str != "text":
		return opaquePart(mapping.FamilyAnthropic, b.Raw), nil
	case text.Type != gjson.String:
		return Part{}, anthropicBadUpstream("text block has no text")
	}
	return Part{Type: PartText, Text: text.Str, Citations: anthropicTextCitations(citations, nil)}, nil
}

// anthropicSearchResult converts a web_search_tool_result block: its
// content is a list of web_search_result entries (url, title, page_age;
// their encrypted_content only means something to Anthropic) or an error
// object {type: "web_search_tool_result_error", error_code}. Entries that
// are not results are skipped: a search result never fails a response.
func anthropicSearchResult(toolUseID, content gjson.Result) Part {
	p := Part{Type: PartServerToolResult, ToolKind: ToolWebSearch, ToolCallID: toolUseID.Str}
	if content.IsObject() {
		p.IsError, p.Text = true, content.Get("error_code").Str
		return p
	}
	content.ForEach(func(_, r gjson.Result) bool {
		if url := r.Get("url"); url.Type == gjson.String && url.Str != "" {
			p.Sources = append(p.Sources, Source{URL: url.Str, Title: r.Get("title").Str, PageAge: r.Get("page_age").Str})
		}
		return true
	})
	return p
}

// anthropicTextCitations appends the web search citations of a text block
// to dst: each cites the whole block (End -1). Citations of other kinds
// (documents) are skipped; llmbridge sends no document with citations.
func anthropicTextCitations(v gjson.Result, dst []Citation) []Citation {
	if !v.IsArray() {
		return dst
	}
	v.ForEach(func(_, c gjson.Result) bool {
		dst = anthropicCitation(c, dst)
		return true
	})
	return dst
}

// anthropicCitation appends citation c when it is a web search result
// location.
func anthropicCitation(c gjson.Result, dst []Citation) []Citation {
	if c.Get("type").Str != "web_search_result_location" || c.Get("url").Str == "" {
		return dst
	}
	return append(dst, Citation{URL: c.Get("url").Str, Title: c.Get("title").Str, CitedText: c.Get("cited_text").Str, End: -1})
}

// anthropicThinkingPart converts a thinking block of an upstream response:
// its text and, when present, its signature, issued by Anthropic. With
// display omitted the text is empty and only the signature comes.
func anthropicThinkingPart(thinking, signature gjson.Result) (Part, *Error) {
	if (thinking.Type != gjson.String && thinking.Type != gjson.Null) || (signature.Type != gjson.String && signature.Type != gjson.Null) {
		return Part{}, anthropicBadUpstream("thinking block thinking or signature is not a string")
	}
	p := Part{Type: PartReasoning, Text: thinking.Str, Signature: signature.Str}
	if p.Signature != "" {
		p.Origin = mapping.FamilyAnthropic
	}
	return p, nil
}

// decodeAnthropicStopDetails reads stop_details, which newer responses
// attach to a refusal: {type:"refusal", category, explanation}, each member
// a string or null. Absent and null are no details. Anything else is an
// invalid response, since the explanation may become the refusal text a
// client sees: the reason is returned for the caller to wrap in its error.
func decodeAnthropicStopDetails(v gjson.Result) (sd StopDetails, why string) {
	if v.Type == gjson.Null {
		return sd, ""
	}
	if !v.IsObject() {
		return sd, "stop_details is not an object"
	}
	v.ForEach(func(key, value gjson.Result) bool {
		switch key.Str {
		case "type", "category", "explanation":
		default:
			return true // newer members carry nothing llmbridge translates
		}
		if value.Type != gjson.String && value.Type != gjson.Null {
			why = "stop_details." + key.Str + " is not a string"
			return false
		}
		switch key.Str {
		case "category":
			sd.Category = value.Str
		case "explanation":
			sd.Explanation = value.Str
		}
		return true
	})
	if why != "" {
		return StopDetails{}, why
	}
	return sd, ""
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
// every field anthropic-sdk-go's Message reads. Refusal parts become text
// blocks, since Anthropic has no refusal block (the refusal itself is in
// stop_reason, with stop_details when the upstream explained it); empty
// texts are skipped, as a client replaying the answer as history would be
// refused for an empty text block. Tool calls become tool_use blocks; one
// without an id (no upstream sends one, but the canonical form allows it)
// gets a new toolu_ id, since Anthropic clients answer by id. Reasoning
// becomes thinking blocks (redacted_thinking when redacted) whose opaque
// value is a continuation token, so that the client's replay can be sent
// back to the family that issued it.
func appendAnthropicResponse(dst []byte, resp *Response) ([]byte, *Error) {
	for i := range resp.Content {
		part := &resp.Content[i]
		switch part.Type {
		case PartText, PartRefusal:
			continue
		case PartReasoning:
			if !part.Redacted || part.Signature != "" {
				continue
			}
		case PartToolCall:
			if part.ToolName != "" && anthropicIsObject(part.Arguments) {
				continue
			}
		case PartServerToolCall, PartServerToolResult:
			continue
		}
		return dst, &Error{Status: 502, Kind: mapping.ErrBadGateway,
			Message: "content part type " + part.Type.String() + " cannot be expressed in an " + string(AnthropicMessages) + " response"}
	}
	id := resp.ID
	if id == "" {
		id = newID("msg_")
	}
	dst = append(dst, `{"id":`...)
	dst = jsonx.AppendString(dst, id)
	dst = append(dst, `,"type":"message","role":"assistant","model":`...)
	dst = jsonx.AppendString(dst, resp.Model)
	dst = append(dst, `,"content":[`...)
	comma := false
	serverID := ""
	for i := range resp.Content {
		part := &resp.Content[i]
		if part.Type == PartToolCall && part.ToolCallID == "" {
			withID := *part
			withID.ToolCallID = newID("toolu_")
			part = &withID
		}
		switch part.Type {
		case PartReasoning:
			dst, comma = appendAnthropicReasoning(dst, part, true, comma), true
			continue
		case PartServerToolCall:
			serverID = anthropicServerID(part.ToolCallID, id, i)
			dst, comma = appendAnthropicServerCall(dst, part, serverID, comma), true
			continue
		case PartServerToolResult:
			rid := part.ToolCallID
			if rid == "" {
				rid = serverID
			}
			if rid == "" {
				// A result of no search the client saw cannot be placed.
				resp.Dropped = append(resp.Dropped, indexPath("content", i)+" (server tool result)")
				continue
			}
			dst, comma = appendAnthropicSearchResult(dst, part, anthropicServerID(rid, id, i), comma), true
			continue
		case PartText:
			if len(part.Citations) > 0 {
				dst, comma = appendAnthropicCitedText(dst, part, comma)
				continue
			}
		}
		dst, comma = appendAnthropicBlock(dst, part, comma)
	}
	dst = append(dst, `],"stop_reason":`...)
	dst = appendAnthropicStopReason(dst, resp.StopReason)
	dst = append(dst, `,"stop_sequence":`...)
	if resp.StopSequence != "" {
		dst = jsonx.AppendString(dst, resp.StopSequence)
	} else {
		dst = append(dst, "null"...)
	}
	dst = appendAnthropicStopDetails(dst, resp.StopReason, &resp.StopDetails)
	return appendAnthropicUsage(dst, &resp.Usage), nil
}

// anthropicServerID is the id of a server tool call: its own, or one
// made from the message id and the part's index (Gemini gives none).
func anthropicServerID(own, msgID string, i int) string {
	if own != "" {
		return own
	}
	return "srvtoolu_" + strings.TrimPrefix(msgID, "msg_") + "_" + strconv.Itoa(i)
}

// appendAnthropicServerCall appends a server_tool_use block for a hosted
// search call.
func appendAnthropicServerCall(dst []byte, p *Part, id string, comma bool) []byte {
	if comma {
		dst = append(dst, ',')
	}
	dst = append(dst, `{"type":"server_tool_use","id":`...)
	dst = jsonx.AppendString(dst, id)
	dst = append(dst, `,"name":"web_search","input":`...)
	dst = appendAnthropicArguments(dst, p.Arguments)
	return append(dst, '}')
}

// appendAnthropicSearchResult appends a web_search_tool_result block. Its
// results carry an empty encrypted_content: the search ran at another
// provider, whose results Anthropic could not read back anyway (llmbridge
// drops such blocks from the history it sends on).
func appendAnthropicSearchResult(dst []byte, p *Part, id string, comma bool) []byte {
	if comma {
		dst = append(dst, ',')
	}
	dst = append(dst, `{"type":"web_search_tool_result","tool_use_id":`...)
	dst = jsonx.AppendString(dst, id)
	if p.IsError {
		dst = append(dst, `,"content":{"type":"web_search_tool_result_error","error_code":`...)
		code := p.Text
		if code == "" {
			code = "unavailable"
		}
		dst = jsonx.AppendString(dst, code)
		return append(dst, `}}`...)
	}
	dst = append(dst, `,"content":[`...)
	for k := range p.Sources {
		src := &p.Sources[k]
		if k > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"type":"web_search_result","url":`...)
		dst = jsonx.AppendString(dst, src.URL)
		dst = append(dst, `,"title":`...)
		dst = jsonx.AppendString(dst, src.Title)
		dst = append(dst, `,"encrypted_content":"","page_age":`...)
		if src.PageAge != "" {
			dst = jsonx.AppendString(dst, src.PageAge)
		} else {
			dst = append(dst, "null"...)
		}
		dst = append(dst, '}')
	}
	return append(dst, `]}`...)
}

// appendAnthropicCitedText appends a text part with citations as text
// blocks: Anthropic cites whole blocks, so the text is split at the cited
// spans, each span a block with its citations (web_search_result_location,
// with an empty encrypted_index: the citation was made by another
// provider) and the text between spans blocks of their own.
func appendAnthropicCitedText(dst []byte, p *Part, comma bool) ([]byte, bool) {
	for _, seg := range citedSegments(p) {
		if seg.text == "" {
			continue
		}
		if comma {
			dst = append(dst, ',')
		}
		comma = true
		dst = append(dst, `{"type":"text","text":`...)
		dst = jsonx.AppendString(dst, seg.text)
		if len(seg.cites) > 0 {
			dst = append(dst, `,"citations":[`...)
			for k, c := range seg.cites {
				if k > 0 {
					dst = append(dst, ',')
				}
				dst = append(dst, `{"type":"web_search_result_location","url":`...)
				dst = jsonx.AppendString(dst, c.URL)
				dst = append(dst, `,"title":`...)
				dst = jsonx.AppendString(dst, c.Title)
				dst = append(dst, `,"cited_text":`...)
				cited := c.CitedText
				if cited == "" {
					cited = seg.text
				}
				dst = jsonx.AppendString(dst, cited)
				dst = append(dst, `,"encrypted_index":""}`...)
			}
			dst = append(dst, ']')
		}
		dst = append(dst, '}')
	}
	return dst, comma
}

// appendAnthropicStopDetails appends stop_details for a refusal or a filter
// stop (both are stop_reason refusal toward Anthropic), with only the
// members the upstream gave: none is invented, and without any the member is
// left out (a client reads that as null).
func appendAnthropicStopDetails(dst []byte, stop StopReason, sd *StopDetails) []byte {
	if (stop != mapping.StopRefusal && stop != mapping.StopContentFilter) || (sd.Category == "" && sd.Explanation == "") {
		return dst
	}
	dst = append(dst, `,"stop_details":{"type":"refusal"`...)
	if sd.Category != "" {
		dst = append(dst, `,"category":`...)
		dst = jsonx.AppendString(dst, sd.Category)
	}
	if sd.Explanation != "" {
		dst = append(dst, `,"explanation":`...)
		dst = jsonx.AppendString(dst, sd.Explanation)
	}
	return append(dst, '}')
}

// appendAnthropicUsage appends the usage object and closes the response.
// Anthropic's input_tokens excludes cache reads and writes, so they are
// taken out of the canonical count. The protocol requires usage: when the
// upstream reported none (u.Known is false), all counters are zero.
func appendAnthropicUsage(dst []byte, u *Usage) []byte {
	dst = append(dst, `,"usage":{"input_tokens":`...)
	dst = jsonx.AppendInt(dst, u.AnthropicInputTokens())
	dst = append(dst, `,"cache_creation_input_tokens":`...)
	dst = jsonx.AppendInt(dst, u.CacheWriteTokens)
	dst = append(dst, `,"cache_read_input_tokens":`...)
	dst = jsonx.AppendInt(dst, u.CacheReadTokens)
	dst = append(dst, `,"output_tokens":`...)
	dst = jsonx.AppendInt(dst, u.OutputTokens)
	if u.ReasoningTokens > 0 {
		// Newer Anthropic responses detail thinking tokens; the stream
		// encoder writes the same field.
		dst = append(dst, `,"output_tokens_details":{"thinking_tokens":`...)
		dst = jsonx.AppendInt(dst, u.ReasoningTokens)
		dst = append(dst, '}')
	}
	return append(dst, "}}"...)
}

// appendAnthropicStopReason appends the stop_reason value for s. A response
// whose upstream gave no stop reason (a Responses incomplete status with an
// unknown reason, say) gets null: a stop with no exact equivalent is
// traced, never replaced by an invented reason.
func appendAnthropicStopReason(dst []byte, s StopReason) []byte {
	if s == mapping.StopNone {
		return append(dst, "null"...)
	}
	return jsonx.AppendString(dst, mapping.AnthropicStopReason(s))
}
