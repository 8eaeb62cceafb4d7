package responses

import (
	"strings"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/jsonx"
	"github.com/llmbridge/llmbridge/codec/internal/wire"
	"github.com/tidwall/gjson"
)

// responsesPart is one content part, collected in a single pass over its
// keys.
type responsesPart struct {
	keys                         uint32
	typ, text, refusal, imageURL gjson.Result
	fileID, detail, data, url    gjson.Result
	filename, parsed, cache      gjson.Result
}

// partKeyBit returns the bit of a content part key (keyUnknown
// for keys no part type has).
func partKeyBit(key string) uint32 {
	switch key {
	case "type":
		return keyType
	case "text":
		return keyText
	case "refusal":
		return keyRefusal
	case "annotations":
		return keyAnnotations
	case "logprobs":
		return keyLogprobs
	case "prompt_cache_breakpoint":
		return keyCacheBreakpoint
	case "image_url":
		return keyImageURL
	case "file_id":
		return keyFileID
	case "detail":
		return keyDetail
	case "file_data":
		return keyFileData
	case "file_url":
		return keyFileURL
	case "filename":
		return keyFilename
	case "parsed": //field:input[].content[].parsed: hint
		// The structured output openai-node's and openai-python's parse
		// and stream helpers add to output_text (and openai-node to
		// refusal) parts of the responses they return: a copy of the
		// text, never on the wire, sent back with response.output.
		return keyParsed
	}
	return keyUnknown
}

// collectPart reads the keys of a content part.
func collectPart(part gjson.Result, a *jsonx.Arena) responsesPart {
	var p responsesPart
	for key, member := range jsonx.Members(part.Raw, a) {
		value := member.Result()
		bit := partKeyBit(key)
		p.keys |= bit
		switch bit {
		case keyType:
			p.typ = value
		case keyText:
			p.text = value
		case keyRefusal:
			p.refusal = value
		case keyImageURL:
			p.imageURL = value
		case keyFileID:
			p.fileID = value
		case keyDetail:
			p.detail = value
		case keyFileData:
			p.data = value
		case keyFileURL:
			p.url = value
		case keyFilename:
			p.filename = value
		case keyParsed:
			p.parsed = value
		case keyCacheBreakpoint:
			p.cache = value
		}
	}
	return p
}

// appendContent decodes the content part at path() (built only for
// errors, as this runs for every part): of a message
// (inOutput false) or of a function_call_output's output (inOutput true).
//
// input_text and output_text both carry plain text and are accepted in any
// message: the SDK types allow input_text in assistant messages while the
// API expects output_text there, and the role, not the part type, says who
// wrote the text. A refusal only exists in assistant history. Images and
// files are user input; in a tool output only text and images are taken.
func appendContent(parts []codec.Part, part gjson.Result, role codec.Role, path func() string, inOutput bool, req *request) ([]codec.Part, *codec.Error) {
	if !part.IsObject() {
		return parts, wire.WrongType(path(), "object", part)
	}
	// Most parts are plain text: read them without the general collection
	// below (plainText). A tool output takes no output_text.
	types := [2]string{`"input_text"`, `"output_text"`}
	n := 2
	if inOutput {
		n = 1
	}
	if p, ok := wire.PlainText(&req.Text, part.Raw, types[:n]...); ok {
		return append(parts, p), nil
	}
	p := collectPart(part, &req.Text)
	if p.keys&keyType == 0 || p.typ.Type == gjson.Null {
		return parts, codec.InvalidRequest(path()+".type", "is required")
	}
	if p.typ.Type != gjson.String {
		return parts, wire.WrongType(path()+".type", "string", p.typ)
	}
	var allowed uint32
	var kind codec.PartType
	var text gjson.Result
	switch p.typ.Str {
	case "input_text":
		allowed, kind, text = inputTextKeys, codec.PartText, p.text
	case "output_text":
		if inOutput {
			return parts, codec.InvalidRequest(path()+".type", `a function_call_output holds input_text, input_image or input_file parts`)
		}
		// annotations (citations) and logprobs describe an earlier
		// output; the model does not read them back, so they are ignored.
		allowed, kind, text = outputTextKeys, codec.PartText, p.text
	case "refusal":
		if role != codec.RoleAssistant {
			return parts, codec.InvalidRequest(path()+".type", `content part type "refusal" is only valid in assistant messages`)
		}
		allowed, kind, text = refusalKeys, codec.PartRefusal, p.refusal
	case "input_image", "input_file": //field:input[].content[] (input_image, base64): mapped; input[].content[] (input_image, URL): capability; input[].content[] (input_file): mapped
		return appendMedia(parts, &p, part, role, path(), inOutput, req)
	case "input_audio":
		return parts, wire.UnsupportedField(path(), "audio input cannot be translated for the "+string(codec.OpenAIResponses)+" protocol")
	default:
		return parts, wire.UnsupportedField(path(), `content part type "`+p.typ.Str+`" is not supported yet`)
	}
	if p.keys&^allowed != 0 {
		return parts, wire.UnknownField(path() + "." + firstUnknownKey(part, func(k string) bool { return partKeyBit(k)&allowed != 0 }))
	}
	field := ".text"
	if kind == codec.PartRefusal {
		field = ".refusal"
	}
	if !text.Exists() || text.Type == gjson.Null {
		return parts, codec.InvalidRequest(path()+field, "is required")
	}
	if text.Type != gjson.String {
		return parts, wire.WrongType(path()+field, "string", text)
	}
	if p.keys&keyParsed != 0 && p.parsed.Type != gjson.Null {
		req.Dropped = append(req.Dropped, path()+".parsed")
	}
	out := wire.TextPart(kind, text)
	var err *codec.Error
	out.Cache, err = wire.ReadOpenAIBreakpoint(p.cache, path()+".prompt_cache_breakpoint")
	return append(parts, out), err
}

// appendMedia decodes an input_image or input_file part: data:
// URLs become MediaType and base64 Data, http(s) URLs stay URLs (llmbridge
// never fetches them), and file_id references, which name files stored on
// OpenAI's servers, are rejected. detail is a rendering hint: recorded as
// dropped unless it is the default "auto".
func appendMedia(parts []codec.Part, p *responsesPart, part gjson.Result, role codec.Role, path string, inOutput bool, req *request) ([]codec.Part, *codec.Error) {
	image := p.typ.Str == "input_image"
	allowed := fileKeys
	if image {
		allowed = imageKeys
	}
	if p.keys&^allowed != 0 {
		return parts, wire.UnknownField(path + "." + firstUnknownKey(part, func(k string) bool { return partKeyBit(k)&allowed != 0 }))
	}
	switch {
	case role == codec.RoleAssistant:
		return parts, codec.InvalidRequest(path+".type", `content part type "`+p.typ.Str+`" is only valid in user messages`)
	case role != codec.RoleUser:
		return parts, wire.UnsupportedField(path, "images and files in system or developer messages cannot be translated")
	case inOutput && !image:
		return parts, wire.UnsupportedField(path, "files in a function_call_output cannot be translated; send them in a user message")
	case p.fileID.Exists() && p.fileID.Type != gjson.Null:
		return parts, wire.UnsupportedField(path+".file_id", "file_id names a file stored on OpenAI's servers; send the data or a URL") //field:input[].content[].file_id: capability
	}
	out := codec.Part{Type: codec.PartImage}
	var src gjson.Result
	var srcPath string
	if image {
		src, srcPath = p.imageURL, path+".image_url"
	} else {
		out.Type = codec.PartDocument
		if p.filename.Exists() && p.filename.Type != gjson.Null {
			name, err := wire.ReadString(p.filename, path+".filename")
			if err != nil {
				return parts, err
			}
			out.Text = name
		}
		hasData := p.data.Exists() && p.data.Type != gjson.Null
		hasURL := p.url.Exists() && p.url.Type != gjson.Null
		switch {
		case hasData && hasURL:
			return parts, codec.InvalidRequest(path, "give one of file_data and file_url")
		case hasData:
			src, srcPath = p.data, path+".file_data"
		default:
			src, srcPath = p.url, path+".file_url"
		}
	}
	if !src.Exists() || src.Type == gjson.Null {
		if image {
			return parts, codec.InvalidRequest(srcPath, "is required")
		}
		return parts, codec.InvalidRequest(path, "file_data or file_url is required")
	}
	if src.Type != gjson.String {
		return parts, wire.WrongType(srcPath, "string", src)
	}
	switch {
	case strings.HasPrefix(src.Str, "data:"):
		mt, data, ok := parseDataURL(src.Str)
		if !ok {
			return parts, codec.InvalidRequest(srcPath, "must be a base64 data: URL (data:<media type>;base64,<data>)")
		}
		if err := wire.CheckBase64(srcPath, data); err != nil {
			return parts, err
		}
		out.MediaType, out.Data = mt, data
	case strings.HasPrefix(src.Str, "https://") || strings.HasPrefix(src.Str, "http://"):
		if srcPath == path+".file_data" {
			return parts, codec.InvalidRequest(srcPath, "must be a base64 data: URL; put URLs in file_url")
		}
		out.URL = src.Str
	case srcPath == path+".file_data" && strings.HasSuffix(strings.ToLower(out.TextValue()), ".pdf"):
		// Plain base64 named by a .pdf filename, as some clients send it.
		if err := wire.CheckBase64(srcPath, src.Str); err != nil {
			return parts, err
		}
		out.MediaType, out.Data = "application/pdf", src.Str
	default:
		return parts, codec.InvalidRequest(srcPath, "must be a data: URL or an http(s) URL")
	}
	if p.detail.Exists() && p.detail.Type != gjson.Null {
		d, err := wire.ReadString(p.detail, path+".detail")
		if err != nil {
			return parts, err
		}
		switch d {
		case "auto":
		case "low", "high", "original":
			req.Dropped = append(req.Dropped, path+".detail") //field:input[].content[].detail: hint
		default:
			return parts, codec.InvalidRequest(path+".detail", `must be "auto", "low", "high" or "original"`)
		}
	}
	var err *codec.Error
	out.Cache, err = wire.ReadOpenAIBreakpoint(p.cache, path+".prompt_cache_breakpoint")
	return append(parts, out), err
}

// parseDataURL splits a data:<media type>;base64,<data> URL.
func parseDataURL(s string) (mediaType, data string, ok bool) {
	header, data, found := strings.Cut(strings.TrimPrefix(s, "data:"), ",")
	mediaType, isBase64 := strings.CutSuffix(header, ";base64")
	if !found || !isBase64 || mediaType == "" || data == "" {
		return "", "", false
	}
	return mediaType, data, true
}
