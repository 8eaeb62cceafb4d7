package gemini

import (
	"encoding/base64"
	"strconv"
	"strings"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/jsonx"
	"github.com/llmbridge/llmbridge/codec/internal/wire"
	"github.com/llmbridge/llmbridge/mapping"
	"github.com/tidwall/gjson"
)

// decodeParts decodes a Content's parts array, appending to parts.
//
// A thoughtSignature belongs to the reasoning before the part that carries
// it (Gemini puts it on the first part after the thoughts, or on an empty
// text part at the end): it signs the part's own reasoning when the part is
// a thought, else the unsigned reasoning part just before it, else a new
// empty reasoning part inserted before the carrying part. An empty text
// part that only carries a signature adds nothing else.
func decodeParts(v gjson.Result, path contentPath, parts []codec.Part, req *request) ([]codec.Part, *codec.Error) {
	if !v.IsArray() {
		return parts, wire.WrongType(path.String()+".parts", "array", v)
	}
	start := len(parts)
	var err *codec.Error
	j := 0
	for _, member := range jsonx.Members(v.Raw, &req.Text) {
		p := member.Result()
		var part codec.Part
		var sig, sigKey string
		part, sig, sigKey, err = decodePart(p, path, j, req)
		if err != nil {
			break
		}
		if sig != "" {
			parts, err = sign(parts, start, &part, sig)
			if err != nil {
				wire.SetPath(err, path.part(j)+"."+sigKey)
				break
			}
		}
		n := len(parts)
		switch {
		case part.Type == codec.PartText && !part.HasText() && sig != "":
			// Only the signature: it is applied already.
		case part.Type == codec.PartReasoning && !part.HasText() && part.Signature == "":
			// An empty thought carries nothing.
		case part.Type == codec.PartReasoning && part.Signature == "" && n > start &&
			parts[n-1].Type == codec.PartReasoning && parts[n-1].Signature == "":
			// A client that replays a streamed answer as it came sends one
			// thought part per chunk: they are one reasoning, which the
			// signature after them signs as a whole.
			parts[n-1].Text = parts[n-1].TextValue() + part.TextValue()
		default:
			parts = append(parts, part)
		}
		j++
	}
	return parts, err
}

// sign applies a client's thoughtSignature value to part, the part
// that carried it, or to the reasoning before it in parts[start:] (see
// decodeParts). The value may hold several continuation tokens (see
// appendToken): each signs, in order, the next part of the run of
// unsigned reasoning just before the carrying part, or becomes a reasoning
// part of its own when none is left (the client dropped the thought parts;
// an Anthropic token restores the text). Errors have no path; the caller
// sets it.
func sign(parts []codec.Part, start int, part *codec.Part, sig string) ([]codec.Part, *codec.Error) {
	run := len(parts)
	for run > start && parts[run-1].Type == codec.PartReasoning && parts[run-1].Signature == "" {
		run--
	}
	for rest := unwrapSignature(sig); rest != ""; {
		tok := rest
		if k := strings.IndexByte(rest, ' '); k >= 0 && mapping.IsEnvelope(rest) {
			tok, rest = rest[:k], rest[k+1:]
		} else {
			rest = ""
		}
		var r codec.Part
		if err := wire.ReadOpaque(&r, tok, mapping.FamilyGemini, ""); err != nil {
			return parts, err
		}
		if part.Type == codec.PartReasoning && part.Signature == "" {
			// A thought part that carries its own signature.
			setSignature(part, &r)
			continue
		}
		if run < len(parts) {
			setSignature(&parts[run], &r)
			run++
			continue
		}
		r.Type = codec.PartReasoning
		parts = append(parts, r)
		run = len(parts)
	}
	return parts, nil
}

// setSignature copies the opaque state of r into reasoning part p,
// and the text the envelope's signature covers when it carries one (see
// appendToken).
func setSignature(p, r *codec.Part) {
	p.Signature, p.Origin, p.Redacted = r.Signature, r.Origin, r.Redacted
	if r.ItemID != "" {
		p.ItemID = r.ItemID
	}
	if r.HasText() {
		p.Text = r.TextValue()
	}
}

// wrappedPrefix is the standard (and URL-safe) base64 encoding of
// "llmbridge.v1", the first 12 bytes of every continuation token: a
// thoughtSignature that starts with it is a wrapped token (see
// appendToken).
const wrappedPrefix = "bGxtYnJpZGdlLnYx"

// unwrapSignature returns the continuation tokens a Gemini client's
// thoughtSignature wraps, space-separated, or the value itself when it
// wraps none (a native Gemini signature, or a bare token). genai's
// Part.ThoughtSignature is []byte, which JSON carries as standard base64,
// so llmbridge wraps its tokens (whose '.', '-' and '_' are not standard
// base64) in base64 (see appendPendingField); this unwraps them in
// either base64 alphabet, with or without padding, as SDKs re-encode bytes
// in their own way (pydantic-ai replays URL-safe base64).
func unwrapSignature(value string) string {
	if strings.HasPrefix(value, wrappedPrefix) {
		if tok, ok := unwrap(value); ok && mapping.IsEnvelope(tok) {
			return tok
		}
	}
	return value
}

// unwrap decodes s as base64, padded or not. A token's bytes are
// letters, digits, '.', '-' and '_', whose base64 never holds '+' or '/':
// the standard and URL-safe encodings of a token are the same. A value
// longer than any wrapped envelope is not one, and is not copied.
func unwrap(s string) (string, bool) {
	s = strings.TrimRight(s, "=")
	if len(s) > base64.RawStdEncoding.EncodedLen(mapping.MaxEnvelopeSize) {
		return "", false
	}
	b, err := base64.RawStdEncoding.DecodeString(s)
	if err != nil {
		return "", false
	}
	return string(b), true
}

// nonModelReasoning checks the reasoning decoded in a turn that is
// not the model's (a user turn or the system instruction), whose wire parts
// are v: a thought part there is an error, as only the model thinks; a
// thoughtSignature (which then only made an empty reasoning part) means
// nothing outside a model turn and is dropped as a hint, as it was before
// reasoning was translated.
func nonModelReasoning(v gjson.Result, path contentPath, parts []codec.Part, start int, req *request) ([]codec.Part, *codec.Error) {
	found := false
	for i := start; i < len(parts) && !found; i++ {
		found = parts[i].Type == codec.PartReasoning
	}
	if !found {
		return parts, nil
	}
	var err *codec.Error
	j := 0
	for _, member := range jsonx.Members(v.Raw, &req.Text) {
		p := member.Result()
		if p.Get("thought").Type == gjson.True {
			err = codec.InvalidRequest(path.part(j)+".thought", `thought parts (reasoning) are only allowed in "model" turns`)
			break
		}
		for _, k := range [...]string{"thoughtSignature", "thought_signature"} {
			if s := p.Get(k); s.Type == gjson.String && s.Str != "" {
				req.Dropped = append(req.Dropped, path.part(j)+"."+k)
			}
		}
		j++
	}
	if err != nil {
		return parts, err
	}
	n := start
	for i := start; i < len(parts); i++ {
		if parts[i].Type != codec.PartReasoning {
			parts[n] = parts[i]
			n++
		}
	}
	return parts[:n], nil
}

// decodePart decodes one Part. A Part holds one kind of data (text,
// functionCall, functionResponse, inlineData, ...) plus metadata; kinds out
// of scope are rejected by name so that nothing is dropped silently, and so
// is a part that holds two kinds at once. A text part with thought: true is
// reasoning. sig is the part's thoughtSignature, spelled sigKey, which
// decodeParts applies; a part may hold nothing but a signature.
func decodePart(p gjson.Result, path contentPath, j int, req *request) (part codec.Part, sig, sigKey string, err *codec.Error) {
	part = codec.Part{Type: codec.PartText}
	if !p.IsObject() {
		return part, "", "", wire.WrongType(path.part(j), "object", p)
	}
	kind := "" // the key of the part's data, once seen
	thought := false
	for k, member := range jsonx.Members(p.Raw, &req.Text) {
		var v gjson.Result
		if k == "text" {
			// A text is kept as its literal, unescaped only if read
			// (wire.ValueTextPart).
			v = member.Shallow()
		} else {
			v = member.Result()
		}
		switch k {
		// The checks are written out rather than left to readString and
		// readBool so that the path is only built for an error.
		case "text":
			switch v.Type {
			case gjson.String:
				if err = oneKind(&kind, k, path, j); err == nil {
					part.Type = codec.PartText
					wire.SetValueText(&part, member)
				}
			case gjson.Null:
			default:
				err = wire.WrongType(path.part(j)+".text", "string", v)
			}
		case "thought": //field:contents[].parts[] (thought): hint
			// thought:false is the default and means plain text.
			switch v.Type {
			case gjson.False, gjson.Null:
				thought = false
			case gjson.True:
				thought = true
			default:
				err = wire.WrongType(path.part(j)+".thought", "boolean", v)
			}
		case "thoughtSignature", "thought_signature": //field:contents[].parts[].thoughtSignature: hint
			switch v.Type {
			case gjson.Null:
				sig, sigKey = "", ""
			case gjson.String:
				sig, sigKey = v.Str, k
			default:
				err = wire.WrongType(path.part(j)+"."+k, "string", v)
			}
		case "functionCall", "function_call": //field:contents[].parts[] (functionCall, functionResponse): mapped
			if v.Type == gjson.Null {
				break
			}
			if err = oneKind(&kind, k, path, j); err == nil {
				part, err = decodeFunctionCall(v, path, j, k, &req.Text)
			}
		case "functionResponse", "function_response":
			if v.Type == gjson.Null {
				break
			}
			if err = oneKind(&kind, k, path, j); err == nil {
				part, err = decodeFunctionResponse(v, path.part(j)+"."+k, &req.Text)
			}
		case "inlineData", "inline_data", "fileData", "file_data": //field:contents[].parts[] (inlineData): mapped; contents[].parts[] (fileData): capability
			if v.Type == gjson.Null {
				break
			}
			if err = oneKind(&kind, k, path, j); err == nil {
				file := k == "fileData" || k == "file_data"
				part, err = decodeMedia(v, path.part(j)+"."+k, file, &req.Text)
			}
		case "executableCode", "executable_code", "codeExecutionResult", "code_execution_result",
			"toolCall", "tool_call", "toolResponse", "tool_response",
			"videoMetadata", "video_metadata", "mediaResolution", "media_resolution":
			if v.Type != gjson.Null {
				err = wire.UnsupportedField(path.part(j), `content part type "`+k+`" is not supported yet`)
			}
		default:
			err = wire.UnknownField(path.part(j) + "." + k)
		}
		if err != nil {
			break
		}
	}
	switch {
	case err != nil:
	case kind == "" && sig == "":
		err = codec.InvalidRequest(path.part(j)+".text", "is required")
	case thought && kind != "text" && kind != "":
		err = codec.InvalidRequest(path.part(j)+".thought", "only a text part can be a thought")
	case thought:
		part.Type = codec.PartReasoning
	}
	return part, sig, sigKey, err
}

// oneKind records that a part holds data of kind key, and rejects a
// part that already holds another kind (the proto's data oneof).
func oneKind(kind *string, key string, path contentPath, j int) *codec.Error {
	if *kind != "" {
		return codec.InvalidRequest(path.part(j)+"."+key, "a part holds one kind of data, but this one also has "+*kind)
	}
	*kind = key
	return nil
}

// decodeFunctionCall decodes a functionCall part of the history
// (key is its spelling). Its args object is copied as raw text; a call
// without args has Arguments "". The Gemini API sends calls without id: a
// missing id is synthesised from the part's position, "call_<content
// index>_<part index>", which is stable for the same request and unique
// within it; functionResponses without id are matched to it by name (see
// resolveToolResults).
func decodeFunctionCall(v gjson.Result, path contentPath, j int, key string, a *jsonx.Arena) (codec.Part, *codec.Error) {
	part := codec.Part{Type: codec.PartToolCall}
	fpath := path.part(j) + "." + key
	if !v.IsObject() {
		return part, wire.WrongType(fpath, "object", v)
	}
	var err *codec.Error
	for k, member := range jsonx.Members(v.Raw, a) {
		f := member.Result()
		switch k {
		case "id":
			part.ToolCallID, err = optString(f, fpath+".id")
		case "name":
			part.ToolName, err = optString(f, fpath+".name")
		case "args":
			switch {
			case f.Type == gjson.Null:
			case !f.IsObject():
				err = wire.WrongType(fpath+".args", "object", f)
			default:
				part.Arguments = f.Raw
			}
		case "partialArgs", "partial_args":
			if f.Type != gjson.Null {
				err = wire.UnsupportedField(fpath+"."+k, "partial arguments only occur in streamed responses; send the call's complete args")
			}
		case "willContinue", "will_continue":
			if f.Type != gjson.Null && f.Type != gjson.False {
				err = wire.UnsupportedField(fpath+"."+k, "partial function calls only occur in streamed responses; send the complete call")
			}
		default:
			err = wire.UnknownField(fpath + "." + k)
		}
		if err != nil {
			break
		}
	}
	if err != nil {
		return part, err
	}
	if part.ToolName == "" {
		return part, codec.InvalidRequest(fpath+".name", "is required")
	}
	if part.ToolCallID == "" {
		part.ToolCallID = "call_" + strconv.Itoa(path.index) + "_" + strconv.Itoa(j)
	}
	return part, nil
}

// mediaType returns the part type of a media type: images, PDF
// documents and audio are carried; ok is false for the rest (video, ...).
func mediaType(mime string) (t codec.PartType, ok bool) {
	switch {
	case strings.HasPrefix(mime, "image/"):
		return codec.PartImage, true
	case mime == "application/pdf":
		return codec.PartDocument, true
	case strings.HasPrefix(mime, "audio/"):
		return codec.PartAudio, true
	}
	return codec.PartText, false
}

// decodeMedia decodes an inlineData Blob {mimeType, data} (base64),
// or a fileData {mimeType, fileUri} (file), at fpath: images, PDF documents
// and (inline only) audio. A fileUri is kept as the part's URL; Gemini API
// Files API URIs name server-side state other providers cannot read and
// are rejected, as OpenAI file ids are. displayName is a label only.
func decodeMedia(v gjson.Result, fpath string, file bool, a *jsonx.Arena) (codec.Part, *codec.Error) {
	var part codec.Part
	if !v.IsObject() {
		return part, wire.WrongType(fpath, "object", v)
	}
	var mime, data, uri string
	var err *codec.Error
	for k, member := range jsonx.Members(v.Raw, a) {
		f := member.Result()
		switch {
		case k == "mimeType" || k == "mime_type":
			mime, err = optString(f, fpath+"."+k)
		case k == "displayName" || k == "display_name":
			_, err = optString(f, fpath+"."+k)
		case !file && k == "data":
			data, err = optString(f, fpath+".data")
		case file && (k == "fileUri" || k == "file_uri"):
			uri, err = optString(f, fpath+"."+k)
		default:
			err = wire.UnknownField(fpath + "." + k)
		}
		if err != nil {
			break
		}
	}
	if err != nil {
		return part, err
	}
	t, ok := mediaType(mime)
	switch {
	case mime == "":
		return part, codec.InvalidRequest(fpath+".mimeType", "is required")
	case !ok || (file && t == codec.PartAudio):
		return part, wire.UnsupportedField(fpath+".mimeType", `media type "`+mime+`" is not supported`)
	case !file && data == "":
		return part, codec.InvalidRequest(fpath+".data", "is required")
	case file && uri == "":
		return part, codec.InvalidRequest(fpath+".fileUri", "is required")
	case file && strings.Contains(uri, "generativelanguage.googleapis.com/"):
		return part, wire.UnsupportedField(fpath+".fileUri", "Files API files are server-side state that other providers cannot read")
	case file && !strings.HasPrefix(uri, "https://") && !strings.HasPrefix(uri, "http://") && !strings.HasPrefix(uri, "gs://"):
		return part, codec.InvalidRequest(fpath+".fileUri", "must be an http(s) or gs:// URI")
	case !file:
		if err := wire.CheckBase64(fpath+".data", data); err != nil {
			return part, err
		}
	}
	return codec.Part{Type: t, MediaType: mime, Data: data, URL: uri}, nil
}

// optString reads an optional string field of a request; null is "".
func optString(v gjson.Result, path string) (string, *codec.Error) {
	switch v.Type {
	case gjson.Null:
		return "", nil
	case gjson.String:
		return v.Str, nil
	}
	return "", wire.WrongType(path, "string", v)
}

// decodeFunctionResponse decodes a functionResponse part. Its
// response object becomes the result's content (see resultContent);
// its id, when missing, is found by resolveToolResults.
func decodeFunctionResponse(v gjson.Result, fpath string, a *jsonx.Arena) (codec.Part, *codec.Error) {
	part := codec.Part{Type: codec.PartToolResult}
	if !v.IsObject() {
		return part, wire.WrongType(fpath, "object", v)
	}
	var response gjson.Result
	var err *codec.Error
	for k, member := range jsonx.Members(v.Raw, a) {
		f := member.Result()
		switch k {
		case "id":
			part.ToolCallID, err = optString(f, fpath+".id")
		case "name":
			part.ToolName, err = optString(f, fpath+".name")
		case "response":
			switch {
			case f.Type == gjson.Null:
			case !f.IsObject():
				err = wire.WrongType(fpath+".response", "object", f)
			default:
				response = f
			}
		case "parts":
			if f.Type != gjson.Null {
				err = wire.UnsupportedField(fpath+".parts", "multimodal function responses are not supported yet")
			}
		case "willContinue", "will_continue", "scheduling":
			// Non-blocking function calls belong to the Live API.
			if f.Type != gjson.Null && f.Type != gjson.False && !(f.Type == gjson.String && f.Str == "SCHEDULING_UNSPECIFIED") {
				err = wire.UnsupportedField(fpath+"."+k, "non-blocking function responses are not supported")
			}
		default:
			err = wire.UnknownField(fpath + "." + k)
		}
		if err != nil {
			break
		}
	}
	switch {
	case err != nil:
		return part, err
	case part.ToolName == "":
		return part, codec.InvalidRequest(fpath+".name", "is required")
	case !response.Exists():
		return part, codec.InvalidRequest(fpath+".response", "is required")
	}
	text, isErr := resultContent(response, a)
	part.IsError = isErr
	part.Content = []codec.Part{{Type: codec.PartText, Text: text}}
	return part, nil
}

// resultContent returns the text of a functionResponse.response
// object: the string of its only member when that is "output", or "error"
// (isErr true), as the encoders write them; otherwise the object's JSON
// text, which other protocols carry as the result's text.
func resultContent(response gjson.Result, a *jsonx.Arena) (text string, isErr bool) {
	n := 0
	var key string
	var value gjson.Result
	for k, member := range jsonx.Members(response.Raw, a) {
		f := member.Result()
		n++
		key, value = k, f
		if n >= 2 {
			break
		}
	}
	if n == 1 && value.Type == gjson.String && (key == "output" || key == "error") {
		return value.Str, key == "error"
	}
	return response.Raw, false
}

// resolveToolResults checks where calls and results stand and gives
// every result the id of the call it answers. A functionCall must be in a
// model turn and a functionResponse in a user turn. A response with an id
// answers the unanswered call of the preceding model turn with that id; one
// without answers the first unanswered call of that turn with its name, so
// several calls of one function are answered in order. A response that
// answers no call (none left with its id or name, or no model turn before
// it) is an orphan and is rejected, as Gemini itself would.
func resolveToolResults(req *request) *codec.Error {
	type call struct {
		id, name string
		answered bool
	}
	var calls []call // those of the preceding model turn
	prev := codec.RoleUser
	for i := range req.Messages {
		m := &req.Messages[i]
		if m.Role == codec.RoleAssistant && prev != codec.RoleAssistant {
			calls = calls[:0]
		}
		prev = m.Role
		for j := range m.Parts {
			p := &m.Parts[j]
			switch p.Type {
			case codec.PartToolCall:
				if m.Role != codec.RoleAssistant {
					return codec.InvalidRequest(contentPath{key: "contents", index: i}.part(j)+".functionCall", `must be in a "model" turn`)
				}
				calls = append(calls, call{id: p.ToolCallID, name: p.ToolName})
			case codec.PartToolResult:
				path := contentPath{key: "contents", index: i}.part(j) + ".functionResponse"
				if m.Role != codec.RoleUser {
					return codec.InvalidRequest(path, `must be in a "user" turn`)
				}
				k := -1
				for c := range calls {
					if calls[c].answered {
						continue
					}
					if (p.ToolCallID != "" && calls[c].id == p.ToolCallID) || (p.ToolCallID == "" && calls[c].name == p.ToolName) {
						k = c
						break
					}
				}
				if k >= 0 && calls[k].name != p.ToolName {
					return codec.InvalidRequest(path+".name", `is "`+p.ToolName+`", but the functionCall with id "`+p.ToolCallID+`" calls "`+calls[k].name+`"`)
				}
				if k < 0 {
					if p.ToolCallID != "" {
						return codec.InvalidRequest(path+".id", `answers no unanswered functionCall with id "`+p.ToolCallID+`" in the preceding model turn`)
					}
					return codec.InvalidRequest(path, `answers no unanswered functionCall named "`+p.ToolName+`" in the preceding model turn`)
				}
				calls[k].answered = true
				p.ToolCallID = calls[k].id
			}
		}
	}
	return nil
}
