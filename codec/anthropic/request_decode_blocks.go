package anthropic

import (
	"cmp"
	"math/bits"
	"strconv"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/jsonx"
	"github.com/llmbridge/llmbridge/codec/internal/wire"
	"github.com/llmbridge/llmbridge/mapping"
	"github.com/tidwall/gjson"
)

// blockPos locates a content block (system[block],
// messages[msg].content[block], or entry inner of the content of the tool
// result at messages[msg].content[block]) so that its path is built only
// when an error or a hint needs it.
type blockPos struct {
	msg, block int
	inner      int
	system     bool
	nested     bool // the block is entry inner of a tool_result's content
}

// path returns the block's path followed by suffix, such as
// "messages[3].content[0].cache_control", in a single allocation: it is
// built on the hot path for every cache_control breakpoint.
func (p blockPos) path(suffix string) string {
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

// Members of content blocks, as bits of block.seen; each block type
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

// keyNames are the member names of the ak bits, in bit order.
var keyNames = [...]string{"text", "cache_control", "citations", "id", "name", "input", "caller",
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

// block holds the members of one content block, collected before
// its type is interpreted so that a block of one type is reported as such
// rather than as another type with odd fields.
type block struct {
	typ, text, cacheControl, citations, id, name, input, caller gjson.Result
	toolUseID, content, isError, source, title, context         gjson.Result
	thinking, signature, data                                   gjson.Result
	// textV and contentV are the text and content members themselves:
	// text and content hold them unescaped only as far as their type and
	// raw text go (jsonx.Value.Shallow), so that a text whose literal is
	// only copied is never unescaped (wire.ValueTextPart).
	textV, contentV jsonx.Value
	seen            uint16
	unknown         string // the first member no block type has
}

// collect reads the members of b.
func (f *block) collect(b gjson.Result, a *jsonx.Arena) {
	for key, member := range jsonx.Members(b.Raw, a) {
		var value gjson.Result
		if key == "text" || key == "content" {
			value = member.Shallow()
		} else {
			value = member.Result()
		}
		var bit uint16
		switch key {
		case "type":
			f.typ = value
		case "text":
			f.text, f.textV, bit = value, member, akText
		case "cache_control": //field:messages[].content[].cache_control: hint
			f.cacheControl, bit = value, akCacheControl
		case "citations": //field:messages[].content[].citations: capability
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
			f.content, f.contentV, bit = value, member, akContent
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
				f.unknown = key
			}
		}
		f.seen |= bit
	}
}

// block decodes one content block: text everywhere; tool_use, tool_result,
// image, document, thinking and redacted_thinking in messages; text and
// image inside a tool result. Every other block type (server tools, search
// results, ...) is rejected by name.
func (d *requestDecoder) block(b gjson.Result, pos blockPos) (codec.Part, *codec.Error) {
	if !b.IsObject() {
		return codec.Part{}, wire.WrongType(pos.path(""), "object", b)
	}
	var f block
	f.collect(b, &d.req.Text)
	switch {
	case !f.typ.Exists():
		return codec.Part{}, codec.InvalidRequest(pos.path(".type"), "is required")
	case f.typ.Type != gjson.String:
		return codec.Part{}, wire.WrongType(pos.path(".type"), "string", f.typ)
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
			return codec.Part{}, wire.UnsupportedField(pos.path(""), "documents in tool results are not supported yet")
		}
		allowed = akDocumentBlock
	case "thinking":
		allowed = akThinkingBlock
	case "redacted_thinking":
		allowed = akRedactedBlock
	default:
		return codec.Part{}, wire.UnsupportedField(pos.path(""), `content part type "`+f.typ.Str+`" is not supported yet`)
	}
	if where := blockPlace(f.typ.Str, pos); where != "" {
		return codec.Part{}, codec.InvalidRequest(pos.path(""), `content part type "`+f.typ.Str+`" is not allowed in `+where)
	}
	if f.unknown != "" {
		return codec.Part{}, wire.UnknownField(pos.path("." + f.unknown))
	}
	if extra := f.seen &^ allowed; extra != 0 {
		return codec.Part{}, wire.UnknownField(pos.path("." + keyNames[bits.TrailingZeros16(extra)]))
	}
	cache := codec.CacheNone
	if f.cacheControl.Type != gjson.Null { // absent or null: no breakpoint
		var err *codec.Error
		if cache, err = anthropicCache(f.cacheControl, pos.path(".cache_control")); err != nil {
			return codec.Part{}, err
		}
	}
	p, err := d.blockContent(&f, pos)
	p.Cache = cache
	return p, err
}

// blockContent decodes a block that block has checked.
func (d *requestDecoder) blockContent(f *block, pos blockPos) (codec.Part, *codec.Error) {
	switch f.typ.Str {
	case "tool_use": //field:messages[].content[] (tool_use, tool_result): mapped
		return toolUse(f, pos)
	case "tool_result":
		return d.toolResult(f, pos)
	case "image": //field:messages[].content[] (image, base64): mapped; messages[].content[] (image, URL): capability
		return d.mediaSource(f, pos, codec.PartImage)
	case "document": //field:messages[].content[] (document): mapped
		return d.document(f, pos)
	case "thinking", "redacted_thinking": //field:messages[].content[] (thinking): hint
		return reasoningBlock(f, pos)
	}
	switch {
	case !f.text.Exists():
		return codec.Part{}, codec.InvalidRequest(pos.path(".text"), "is required")
	case f.text.Type != gjson.String:
		return codec.Part{}, wire.WrongType(pos.path(".text"), "string", f.text)
	}
	if err := citations(d.req, f.citations, pos); err != nil {
		return codec.Part{}, err
	}
	return wire.ValueTextPart(codec.PartText, f.textV), nil
}

// blockPlace returns where a block of type typ may not be, when it
// is there: the system prompt takes text only, and a tool result's content
// text and images only.
func blockPlace(typ string, pos blockPos) string {
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

// toolUse decodes a tool_use block, a tool call in an assistant
// message. Its input object is kept as the arguments' JSON text. caller,
// which newer responses add (and clients replay), is accepted when it says
// the model called the tool directly: that is every call llmbridge carries.
func toolUse(f *block, pos blockPos) (codec.Part, *codec.Error) {
	switch {
	case f.id.Type != gjson.String || f.id.Str == "":
		return codec.Part{}, required(pos.path(".id"), f.id)
	case f.name.Type != gjson.String || f.name.Str == "":
		return codec.Part{}, required(pos.path(".name"), f.name)
	case !f.input.Exists():
		return codec.Part{}, codec.InvalidRequest(pos.path(".input"), "is required")
	case !f.input.IsObject():
		return codec.Part{}, wire.WrongType(pos.path(".input"), "object", f.input)
	}
	if err := caller(f.caller, pos); err != nil {
		return codec.Part{}, err
	}
	return codec.Part{Type: codec.PartToolCall, ToolCallID: f.id.Str, ToolName: f.name.Str, Arguments: f.input.Raw}, nil
}

// reasoningBlock decodes a thinking or redacted_thinking block of
// assistant history into a reasoning part. The opaque value (thinking
// signature, redacted data) is read with readOpaque: a continuation envelope
// that llmbridge handed out is unwrapped, anything else is Anthropic's own
// value. A thinking block with an empty signature is unsigned reasoning
// (llmbridge writes one for reasoning no upstream signed).
func reasoningBlock(f *block, pos blockPos) (codec.Part, *codec.Error) {
	p := codec.Part{Type: codec.PartReasoning}
	if f.typ.Str == "redacted_thinking" {
		if f.data.Type != gjson.String || f.data.Str == "" {
			return codec.Part{}, required(pos.path(".data"), f.data)
		}
		if !mapping.IsEnvelope(f.data.Str) {
			p.Redacted, p.Signature, p.Origin = true, f.data.Str, mapping.FamilyAnthropic
			return p, nil
		}
		return p, wire.ReadOpaque(&p, f.data.Str, mapping.FamilyAnthropic, pos.path(".data"))
	}
	switch {
	case !f.thinking.Exists():
		return codec.Part{}, codec.InvalidRequest(pos.path(".thinking"), "is required")
	case f.thinking.Type != gjson.String:
		return codec.Part{}, wire.WrongType(pos.path(".thinking"), "string", f.thinking)
	case !f.signature.Exists():
		return codec.Part{}, codec.InvalidRequest(pos.path(".signature"), "is required")
	case f.signature.Type != gjson.String:
		return codec.Part{}, wire.WrongType(pos.path(".signature"), "string", f.signature)
	}
	p.Text = f.thinking.Str
	return p, wire.ReadOpaque(&p, f.signature.Str, mapping.FamilyAnthropic, pos.path(".signature"))
}

// caller accepts a tool_use block's caller when it is absent, null
// or {"type":"direct"}; calls made from code execution (programmatic tool
// calling) are server-side state that cannot be carried.
func caller(v gjson.Result, pos blockPos) *codec.Error {
	if v.Type == gjson.Null {
		return nil
	}
	if !v.IsObject() {
		return wire.WrongType(pos.path(".caller"), "object", v)
	}
	typ := v.Get("type")
	if typ.Type != gjson.String {
		return required(pos.path(".caller.type"), typ)
	}
	if typ.Str != "direct" {
		return wire.UnsupportedField(pos.path(".caller"), `tool caller type "`+typ.Str+`" is not supported yet`)
	}
	return nil
}

// document decodes a document block: a PDF as base64 or URL source, with
// its title in Text. context (extra text for the model about the document)
// has no canonical slot and citations, when enabled, are output that cannot
// be translated yet: both are rejected rather than dropped.
func (d *requestDecoder) document(f *block, pos blockPos) (codec.Part, *codec.Error) {
	switch {
	case f.title.Type != gjson.Null && f.title.Type != gjson.String:
		return codec.Part{}, wire.WrongType(pos.path(".title"), "string", f.title)
	case f.context.Type != gjson.Null:
		return codec.Part{}, wire.UnsupportedField(pos.path(".context"), "document context is not supported yet") //field:messages[].content[].context: capability
	case f.citations.Type == gjson.Null:
	case !f.citations.IsObject():
		return codec.Part{}, wire.WrongType(pos.path(".citations"), "object", f.citations)
	case f.citations.Get("enabled").Type == gjson.True:
		return codec.Part{}, wire.UnsupportedField(pos.path(".citations"), "document citations are not supported yet")
	}
	p, err := d.mediaSource(f, pos, codec.PartDocument)
	p.Text = f.title.Str
	return p, err
}

// mediaSource decodes the source of an image or document block: base64
// (media_type and data) or url. File references (the Files API) name
// server-side state and are rejected, as are plain-text and content
// document sources, which are not in this round.
func (d *requestDecoder) mediaSource(f *block, pos blockPos, kind codec.PartType) (codec.Part, *codec.Error) {
	path := pos.path(".source")
	switch {
	case !f.source.Exists():
		return codec.Part{}, codec.InvalidRequest(path, "is required")
	case !f.source.IsObject():
		return codec.Part{}, wire.WrongType(path, "object", f.source)
	}
	var typ, mediaType, data, url gjson.Result
	var unknown string
	for key, member := range jsonx.Members(f.source.Raw, &d.req.Text) {
		value := member.Result()
		switch key {
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
				unknown = key
			}
		}
	}
	if typ.Type != gjson.String {
		return codec.Part{}, required(path+".type", typ)
	}
	p := codec.Part{Type: kind}
	switch typ.Str {
	case "base64":
		switch {
		case unknown != "" || url.Exists():
			return codec.Part{}, wire.UnknownField(path + "." + cmp.Or(unknown, "url"))
		case mediaType.Type != gjson.String || mediaType.Str == "":
			return codec.Part{}, required(path+".media_type", mediaType)
		case data.Type != gjson.String || data.Str == "":
			return codec.Part{}, required(path+".data", data)
		}
		if err := wire.CheckBase64(path+".data", data.Str); err != nil {
			return codec.Part{}, err
		}
		p.MediaType, p.Data = mediaType.Str, data.Str
	case "url":
		switch {
		case unknown != "" || mediaType.Exists() || data.Exists():
			return codec.Part{}, wire.UnknownField(path + "." + cmp.Or(unknown, firstKey(mediaType, "media_type", "data")))
		case url.Type != gjson.String || url.Str == "":
			return codec.Part{}, required(path+".url", url)
		}
		p.URL = url.Str
	case "file":
		return codec.Part{}, wire.UnsupportedField(path, "file references (file_id) name server-side state and are not supported")
	default:
		return codec.Part{}, wire.UnsupportedField(path+".type", `source type "`+typ.Str+`" is not supported yet`)
	}
	return p, nil
}

// firstKey returns a when v exists, else b.
func firstKey(v gjson.Result, a, b string) string {
	if v.Exists() {
		return a
	}
	return b
}

// required is the error for a required string member that is
// missing, empty or not a string.
func required(path string, v gjson.Result) *codec.Error {
	if v.Type == gjson.String || !v.Exists() {
		return codec.InvalidRequest(path, "is required")
	}
	return wire.WrongType(path, "string", v)
}

// toolResult decodes a tool_result block, the result of a tool call in a
// user message: tool_use_id, content (a string, or text and image blocks)
// and is_error. The called tool's name is filled in by checkToolParts.
func (d *requestDecoder) toolResult(f *block, pos blockPos) (codec.Part, *codec.Error) {
	if f.toolUseID.Type != gjson.String || f.toolUseID.Str == "" {
		return codec.Part{}, required(pos.path(".tool_use_id"), f.toolUseID)
	}
	p := codec.Part{Type: codec.PartToolResult, ToolCallID: f.toolUseID.Str}
	switch {
	case f.isError.Type == gjson.True:
		p.IsError = true
	case f.isError.Type != gjson.Null && f.isError.Type != gjson.False:
		return codec.Part{}, wire.WrongType(pos.path(".is_error"), "boolean", f.isError)
	}
	switch {
	case f.content.Type == gjson.Null: // absent or null: no content
	case f.content.Type == gjson.String:
		if f.content.Str != "" {
			p.Content = append(wire.ContentParts(d.req, 1), wire.ValueTextPart(codec.PartText, f.contentV))
		}
	case f.content.IsArray():
		n := jsonx.CountMembers(f.content, &d.req.Text)
		if n == 0 {
			break
		}
		p.Content = wire.ContentParts(d.req, n)
		inner := pos
		inner.nested = true
		var err *codec.Error
		for _, member := range jsonx.Members(f.content.Raw, &d.req.Text) {
			b := member.Result()
			var c codec.Part
			if c, err = d.block(b, inner); err != nil {
				break
			}
			p.Content = append(p.Content, c)
			inner.inner++
		}
		if err != nil {
			return codec.Part{}, err
		}
	default:
		return codec.Part{}, wire.WrongType(pos.path(".content"), "string or array", f.content)
	}
	return p, nil
}

// citations accepts a text block's citations. Citations of an
// earlier answer label its text with the search results they came from;
// the model does not read them back as content, and their
// encrypted_index only means something to Anthropic, so they are dropped
// and listed.
func citations(req *request, v gjson.Result, pos blockPos) *codec.Error {
	switch {
	case v.Type == gjson.Null: // absent or null
		return nil
	case !v.IsArray():
		return wire.WrongType(pos.path(".citations"), "array", v)
	case jsonx.CountMembers(v, &req.Text) > 0:
		req.Dropped = append(req.Dropped, pos.path(".citations"))
	}
	return nil
}
