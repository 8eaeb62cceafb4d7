package bedrock

import (
	"strconv"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/jsonx"
	"github.com/llmbridge/llmbridge/codec/internal/wire"
	"github.com/llmbridge/llmbridge/mapping"
	"github.com/tidwall/gjson"
)

// blockPos is where a content block is: message msg's block block.
type blockPos struct{ msg, block int }

// path returns the block's path, followed by suffix. Paths are put
// together only for errors and dropped hints.
func (p blockPos) path(suffix string) string {
	return "messages[" + strconv.Itoa(p.msg) + "].content[" + strconv.Itoa(p.block) + "]" + suffix
}

// block decodes one content block of a message of role role, a union named
// by its one member, and appends its parts to the shared parts array.
func (d *converseRequestDecoder) block(b gjson.Result, pos blockPos, role codec.Role) *codec.Error {
	key, v, ok := unionMember(b, &d.req.Text)
	if !ok {
		return unionError(pos.path(""), b)
	}
	switch key {
	case "text":
		if v.Type != gjson.String {
			return wire.WrongType(pos.path(".text"), "string", v)
		}
		d.parts = append(d.parts, wire.TextPart(codec.PartText, v))
		return nil
	case "image", "document": //field:messages[].content[] (image, document): mapped
		p, err := d.media(key, v, pos.path("."+key))
		if err != nil {
			return err
		}
		d.parts = append(d.parts, p)
		return nil
	case "toolUse", "toolResult": //field:messages[].content[] (toolUse, toolResult): mapped
		if key == "toolUse" {
			return d.toolUse(v, pos, role)
		}
		return d.toolResult(v, pos, role)
	case "reasoningContent": //field:messages[].content[] (reasoningContent): hint
		if role != codec.RoleAssistant {
			return codec.InvalidRequest(pos.path(""), "reasoningContent blocks belong in assistant messages")
		}
		p, err := d.reasoning(v, pos.path(".reasoningContent"))
		if err != nil {
			return err
		}
		d.parts = append(d.parts, p)
		return nil
	case "cachePoint": //field:messages[].content[] (cachePoint): hint
		// A breakpoint after the block before it, of this message or an
		// earlier one: the prefix ends there either way.
		return cachePoint(d.req.Request, v, pos.path(""), lastCache(d.parts))
	case "citationsContent": //field:messages[].content[] (citationsContent): hint
		return d.citationsContent(v, pos)
	case "guardContent", "video", "audio", "searchResult", "toolAddition", "toolRemoval": //field:messages[].content[] (guardContent, video, audio, ...): capability
		return wire.UnsupportedField(pos.path(""), key+" blocks have no equivalent in the other protocols")
	}
	return wire.UnknownField(pos.path("." + key))
}

// media decodes an image or document block at path: its format and its
// source's bytes (base64), and a document's name, which is its title.
// Sources in S3 and documents given as text are Bedrock's own and cannot
// be carried.
func (d *converseRequestDecoder) media(kind string, v gjson.Result, path string) (codec.Part, *codec.Error) {
	p := codec.Part{Type: codec.PartImage}
	table := imageFormats[:]
	if kind == "document" {
		p.Type, table = codec.PartDocument, documentFormats[:]
	}
	if !v.IsObject() {
		return p, wire.WrongType(path, "object", v)
	}
	var format, source gjson.Result
	var err *codec.Error
	for key, member := range jsonx.Members(v.Raw, &d.req.Text) {
		value := member.Result()
		switch key {
		case "format":
			format = value
		case "source":
			source = value
		case "name":
			if kind == "document" {
				p.Text, err = wire.ReadString(value, path+".name")
				break
			}
			err = wire.UnknownField(path + ".name")
		case "context", "citations": //field:messages[].content[].document.context: capability; messages[].content[].document.citations: capability
			if kind == "document" && value.Type != gjson.Null {
				err = wire.UnsupportedField(path+"."+key, "document context and citations are Bedrock's own")
				break
			}
			if kind != "document" {
				err = wire.UnknownField(path + "." + key)
			}
		default:
			err = wire.UnknownField(path + "." + key)
		}
		if err != nil {
			break
		}
	}
	if err != nil {
		return p, err
	}
	switch {
	case !format.Exists():
		return p, codec.InvalidRequest(path+".format", "is required")
	case format.Type != gjson.String:
		return p, wire.WrongType(path+".format", "string", format)
	}
	if p.MediaType = mimeOf(table, format.Str); p.MediaType == "" {
		return p, codec.InvalidRequest(path+".format", "unknown "+kind+" format "+strconv.Quote(format.Str))
	}
	if !source.Exists() {
		return p, codec.InvalidRequest(path+".source", "is required")
	}
	key, value, ok := unionMember(source, &d.req.Text)
	switch {
	case !ok:
		return p, unionError(path+".source", source)
	case key == "bytes":
		if value.Type != gjson.String {
			return p, wire.WrongType(path+".source.bytes", "string", value)
		}
		if err := wire.CheckBase64(path+".source.bytes", value.Str); err != nil {
			return p, err
		}
		p.Data = value.Str
		return p, nil
	case key == "s3Location" || key == "text" || key == "content": //field:messages[].content[] (image or document in S3, or as text): capability
		return p, wire.UnsupportedField(path+".source", kind+" sources of kind "+key+" are Bedrock's own; send the bytes")
	}
	return p, wire.UnknownField(path + ".source." + key)
}

// toolUse decodes a toolUse block: a call with its id, name and input (a
// JSON object, copied as the arguments).
func (d *converseRequestDecoder) toolUse(v gjson.Result, pos blockPos, role codec.Role) *codec.Error {
	path := pos.path(".toolUse")
	if role != codec.RoleAssistant {
		return codec.InvalidRequest(pos.path(""), "toolUse blocks belong in assistant messages")
	}
	if !v.IsObject() {
		return wire.WrongType(path, "object", v)
	}
	p := codec.Part{Type: codec.PartToolCall}
	var input gjson.Result
	var err *codec.Error
	for key, member := range jsonx.Members(v.Raw, &d.req.Text) {
		value := member.Result()
		switch key {
		case "toolUseId":
			p.ToolCallID, err = wire.ReadStringAt(value, path, ".toolUseId")
		case "name":
			p.ToolName, err = wire.ReadStringAt(value, path, ".name")
		case "input":
			input = value
		case "type":
			// A server tool's use (a Bedrock system tool) ran on
			// Bedrock; only client tools are calls.
			err = wire.UnsupportedField(path+".type", "calls of Bedrock system tools cannot be carried")
		default:
			err = wire.UnknownField(path + "." + key)
		}
		if err != nil {
			break
		}
	}
	switch {
	case err != nil:
		return err
	case p.ToolCallID == "":
		return codec.InvalidRequest(path+".toolUseId", "is required")
	case p.ToolName == "":
		return codec.InvalidRequest(path+".name", "is required")
	case !input.IsObject():
		return wire.WrongType(path+".input", "object", input)
	}
	p.Arguments = input.Raw
	d.parts = append(d.parts, p)
	return nil
}

// toolResult decodes a toolResult block: the id of the call it answers,
// its content and whether it reports an error (status "error").
func (d *converseRequestDecoder) toolResult(v gjson.Result, pos blockPos, role codec.Role) *codec.Error {
	path := pos.path(".toolResult")
	if role != codec.RoleUser {
		return codec.InvalidRequest(pos.path(""), "toolResult blocks belong in user messages")
	}
	if !v.IsObject() {
		return wire.WrongType(path, "object", v)
	}
	p := codec.Part{Type: codec.PartToolResult}
	var content gjson.Result
	var err *codec.Error
	for key, member := range jsonx.Members(v.Raw, &d.req.Text) {
		value := member.Result()
		switch key {
		case "toolUseId":
			p.ToolCallID, err = wire.ReadStringAt(value, path, ".toolUseId")
		case "content":
			content = value
		case "status":
			var s string
			if s, err = wire.ReadStringAt(value, path, ".status"); err == nil {
				switch s {
				case "success":
				case "error":
					p.IsError = true
				default:
					err = codec.InvalidRequest(path+".status", `must be "success" or "error"`)
				}
			}
		default:
			err = wire.UnknownField(path + "." + key)
		}
		if err != nil {
			break
		}
	}
	switch {
	case err != nil:
		return err
	case p.ToolCallID == "":
		return codec.InvalidRequest(path+".toolUseId", "is required")
	case !content.Exists():
		return codec.InvalidRequest(path+".content", "is required")
	case !content.IsArray():
		return wire.WrongType(path+".content", "array", content)
	}
	k := 0
members:
	for _, member := range jsonx.Members(content.Raw, &d.req.Text) {
		c := member.Result()
		cpath := wire.IndexPath(path+".content", k)
		k++
		key, value, ok := unionMember(c, &d.req.Text)
		if !ok {
			err = unionError(cpath, c)
			break
		}
		switch key {
		case "text":
			if value.Type != gjson.String {
				err = wire.WrongType(cpath+".text", "string", value)
				break members
			}
			p.Content = append(p.Content, wire.TextPart(codec.PartText, value))
		case "json":
			// Other protocols carry a result's content as text; JSON
			// is text that a model reads the same way.
			p.Content = append(p.Content, codec.Part{Type: codec.PartText, Text: value.Raw})
		case "image", "document":
			var m codec.Part
			if m, err = d.media(key, value, cpath+"."+key); err != nil {
				break members
			}
			p.Content = append(p.Content, m)
		case "video", "searchResult":
			err = wire.UnsupportedField(cpath, key+" tool result content has no equivalent in the other protocols")
		default:
			err = wire.UnknownField(cpath + "." + key)
		}
		if err != nil {
			break
		}
	}
	if err != nil {
		return err
	}
	d.parts = append(d.parts, p)
	return nil
}

// reasoning decodes a reasoningContent block at path: reasoningText
// {text, signature}, or redactedContent (base64 bytes). A signature or
// redacted content is Anthropic's (Claude's, the only Bedrock models that
// sign), unless it is a continuation envelope, which says whose it is.
func (d *converseRequestDecoder) reasoning(v gjson.Result, path string) (codec.Part, *codec.Error) {
	p := codec.Part{Type: codec.PartReasoning}
	key, value, ok := unionMember(v, &d.req.Text)
	switch {
	case !ok:
		return p, unionError(path, v)
	case key == "redactedContent":
		if value.Type != gjson.String {
			return p, wire.WrongType(path+".redactedContent", "string", value)
		}
		if err := wire.CheckBase64(path+".redactedContent", value.Str); err != nil {
			return p, err
		}
		p.Redacted, p.Signature, p.Origin = true, value.Str, mapping.FamilyAnthropic
		return p, nil
	case key != "reasoningText":
		return p, wire.UnknownField(path + "." + key)
	case !value.IsObject():
		return p, wire.WrongType(path+".reasoningText", "object", value)
	}
	path += ".reasoningText"
	var signature string
	var err *codec.Error
	for k, member := range jsonx.Members(value.Raw, &d.req.Text) {
		val := member.Result()
		switch k {
		case "text":
			p.Text, err = wire.ReadStringAt(val, path, ".text")
		case "signature":
			signature, err = wire.ReadStringAt(val, path, ".signature")
		default:
			err = wire.UnknownField(path + "." + k)
		}
		if err != nil {
			break
		}
	}
	if err != nil {
		return p, err
	}
	return p, wire.ReadOpaque(&p, signature, mapping.FamilyAnthropic, path+".signature")
}

// citationsContent decodes a citationsContent block of assistant history:
// its generated texts are the answer and become text parts; the citations
// that point into the request's documents are Bedrock's own and are
// dropped (and listed), like other families' display-only annotations.
func (d *converseRequestDecoder) citationsContent(v gjson.Result, pos blockPos) *codec.Error {
	path := pos.path(".citationsContent")
	if !v.IsObject() {
		return wire.WrongType(path, "object", v)
	}
	var err *codec.Error
members:
	for key, member := range jsonx.Members(v.Raw, &d.req.Text) {
		value := member.Result()
		switch key {
		case "content":
			if !value.IsArray() {
				err = wire.WrongType(path+".content", "array", value)
				break members
			}
			k := 0
			for _, member := range jsonx.Members(value.Raw, &d.req.Text) {
				c := member.Result()
				t := c.Get("text")
				if t.Type != gjson.String {
					err = wire.WrongType(wire.IndexPath(path+".content", k)+".text", "string", t)
					break
				}
				d.parts = append(d.parts, wire.TextPart(codec.PartText, t))
				k++
			}
		case "citations":
			d.req.Dropped = append(d.req.Dropped, path+".citations")
		default:
			err = wire.UnknownField(path + "." + key)
		}
		if err != nil {
			break
		}
	}
	return err
}
