package chat

import (
	"strings"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/jsonx"
	"github.com/llmbridge/llmbridge/codec/internal/wire"
	"github.com/llmbridge/llmbridge/mapping"
	"github.com/tidwall/gjson"
)

// decodeMessages decodes the messages array into req.Messages and
// req.System.
//
// The messages are counted first so that req.Messages and the shared parts
// array are allocated once; most messages hold one part, so the parts array
// gets room for half as many again.
func (d *requestDecoder) decodeMessages() *codec.Error {
	v := d.messages
	switch {
	case v.Type == gjson.Null:
		return codec.InvalidRequest("messages", "is required")
	case !v.IsArray():
		return wire.WrongType("messages", "array", v)
	}
	n := jsonx.CountMembers(v, &d.req.Text)
	if n == 0 {
		return codec.InvalidRequest("messages", "must not be empty")
	}
	req := d.req
	if cap(req.Messages) < n {
		req.Messages = make([]codec.Message, 0, n)
	}
	req.Messages = req.Messages[:0]
	d.parts = wire.PartSlab(req, n+n/2+1)

	var err *codec.Error
	idx := -1
	for _, member := range jsonx.Members(v.Raw, &req.Text) {
		idx++
		m := member.Result()
		err = d.message(idx, m)
		if err != nil {
			break
		}
	}
	wire.KeepParts(req, d.parts)
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
func (d *requestDecoder) closeSystem(end int) {
	d.conversationStarted = true
	if end == 0 {
		d.req.System = d.req.System[:0]
		return
	}
	d.req.System = d.parts[:end:end]
}

// messageFields are the fields of one message, collected before they are
// interpreted because their meaning depends on the role.
type messageFields struct {
	role, content, refusal, name gjson.Result
	toolCalls, toolCallID        gjson.Result
	reasoning                    gjson.Result
	// contentV is the content member itself: content holds it unescaped
	// only as far as its type and raw text go (jsonx.Value.Shallow), so
	// that a text content whose literal is only copied is never unescaped
	// (wire.ValueTextPart).
	contentV jsonx.Value
}

// message decodes messages[i].
func (d *requestDecoder) message(i int, v gjson.Result) *codec.Error {
	if !v.IsObject() {
		return wire.WrongType(wire.IndexPath("messages", i), "object", v)
	}
	var f messageFields
	var err *codec.Error
	for key, member := range jsonx.Members(v.Raw, &d.req.Text) {
		var value gjson.Result
		if key == "content" {
			f.contentV, value = member, member.Shallow()
		} else {
			value = member.Result()
		}
		err = d.messageField(i, key, value, &f)
		if err != nil {
			break
		}
	}
	if err != nil {
		return err
	}
	path := wire.IndexPath("messages", i)
	if f.role.Type == gjson.String && f.role.Str == "tool" {
		return d.toolMessage(i, &f)
	}
	role, err := role(i, f.role)
	if err != nil {
		return err
	}
	if f.toolCallID.Type != gjson.Null {
		return codec.InvalidRequest(path+".tool_call_id", "is only allowed in tool messages")
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
	if err := d.content(i, role, f.content, f.contentV); err != nil {
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
			return codec.InvalidRequest(path+".content", "is required")
		}
		return codec.InvalidRequest(path+".content", "must not be empty")
	}

	isInstruction := role == codec.RoleSystem || role == codec.RoleDeveloper
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
	if role == codec.RoleUser && d.results >= 0 {
		// A user message right after tool results joins them: results
		// first, then the user's content, as one user turn.
		msgs[d.results].Parts = d.parts[d.resultsStart:len(d.parts):len(d.parts)]
		d.results = -1
		return nil
	}
	d.results = -1
	d.req.Messages = append(msgs, codec.Message{Role: role, Parts: d.parts[start:len(d.parts):len(d.parts)]})
	return nil
}

// toolMessage decodes messages[i], a tool message: a PartToolResult in a
// user message. Adjacent tool messages join one user message, and a user
// message that follows them joins it too (see message).
func (d *requestDecoder) toolMessage(i int, f *messageFields) *codec.Error {
	path := wire.IndexPath("messages", i)
	switch {
	case f.refusal.Type != gjson.Null:
		return codec.InvalidRequest(path+".refusal", "is only allowed in assistant messages")
	case f.reasoning.Type != gjson.Null:
		return codec.InvalidRequest(path+".reasoning_content", "is only allowed in assistant messages")
	case f.toolCalls.Type != gjson.Null && !isEmptyArray(f.toolCalls):
		return codec.InvalidRequest(path+".tool_calls", "is only allowed in assistant messages")
	}
	id, err := requiredString(f.toolCallID, path+".tool_call_id")
	if err != nil {
		return err
	}
	// The result names its call by the id the client got, envelopes and
	// all; the call's own id is what the upstream knows.
	id, _ = mapping.SplitToolCallID(id)
	p := codec.Part{Type: codec.PartToolResult, ToolCallID: id}
	if err := optionalText(f.name, path+".name", &p.ToolName); err != nil {
		return err
	}
	if p.ToolName == "" {
		p.ToolName = d.callName(id)
	}
	if f.content.Type == gjson.Null {
		return codec.InvalidRequest(path+".content", "is required")
	}
	// Tool message content is text: decode it as a system message's (text
	// parts only) and move the parts into the result.
	start := len(d.parts)
	if err := d.content(i, codec.RoleSystem, f.content, f.contentV); err != nil {
		return err
	}
	if n := len(d.parts) - start; n > 0 && (n > 1 || d.parts[start].HasText()) {
		p.Content = append(wire.ContentParts(d.req, n), d.parts[start:]...)
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
	d.req.Messages = append(d.req.Messages, codec.Message{Role: codec.RoleUser, Parts: d.parts[start:len(d.parts):len(d.parts)]})
	return nil
}

// callName returns the name of the tool call id in an earlier assistant
// message, or "" when there is none.
func (d *requestDecoder) callName(id string) string {
	msgs := d.req.Messages
	for m := len(msgs) - 1; m >= 0; m-- {
		if msgs[m].Role != codec.RoleAssistant {
			continue
		}
		for _, p := range msgs[m].Parts {
			if p.Type == codec.PartToolCall && p.ToolCallID == id {
				return p.ToolName
			}
		}
	}
	return ""
}

// toolCalls appends the tool calls of an assistant message, after its
// text and refusal.
func (d *requestDecoder) toolCalls(i int, role codec.Role, v gjson.Result) *codec.Error {
	if v.Type == gjson.Null || isEmptyArray(v) {
		return nil
	}
	path := wire.IndexPath("messages", i) + ".tool_calls"
	switch {
	case role != codec.RoleAssistant:
		return codec.InvalidRequest(path, "is only allowed in assistant messages")
	case !v.IsArray():
		return wire.WrongType(path, "array", v)
	}
	var err *codec.Error
	idx := -1
	for _, member := range jsonx.Members(v.Raw, &d.req.Text) {
		idx++
		c := member.Result()
		err = d.toolCall(wire.IndexPath(path, idx), c)
		if err != nil {
			break
		}
	}
	return err
}

// toolCall appends one tool call {id, type:"function", function:{name,
// arguments}} at path.
func (d *requestDecoder) toolCall(path string, v gjson.Result) *codec.Error {
	if !v.IsObject() {
		return wire.WrongType(path, "object", v)
	}
	var id, typ, fn gjson.Result
	var err *codec.Error
	for key, member := range jsonx.Members(v.Raw, &d.req.Text) {
		value := member.Result()
		switch key {
		case "id":
			id = value
		case "type":
			typ = value
		case "function":
			fn = value
		case "custom":
		default:
			err = wire.UnknownField(path + "." + key)
		}
		if err != nil {
			break
		}
	}
	if err != nil {
		return err
	}
	switch {
	case typ.Type == gjson.String && typ.Str == "custom":
		return wire.UnsupportedField(path, "custom (freeform) tool calls are not supported yet")
	case typ.Type == gjson.String && typ.Str != "function":
		return codec.InvalidRequest(path+".type", `unknown tool call type "`+typ.Str+`"`)
	case typ.Type != gjson.Null && typ.Type != gjson.String:
		return wire.WrongType(path+".type", "string", typ)
	case fn.Type == gjson.Null:
		return codec.InvalidRequest(path+".function", "is required")
	case !fn.IsObject():
		return wire.WrongType(path+".function", "object", fn)
	}
	p := codec.Part{Type: codec.PartToolCall}
	if p.ToolCallID, err = requiredString(id, path+".id"); err != nil {
		return err
	}
	if p.ToolCallID, err = d.idReasoning(p.ToolCallID, path+".id"); err != nil {
		return err
	}
	var name, args gjson.Result
	var argsV jsonx.Value // arguments itself, kept escaped when it may be
	for key, member := range jsonx.Members(fn.Raw, &d.req.Text) {
		if key == "arguments" {
			args, argsV = member.Shallow(), member
			continue
		}
		value := member.Result()
		switch key {
		case "name":
			name = value
		case "parsed_arguments": //field:messages[].tool_calls[].function.parsed_arguments: hint
			// The arguments as parsed by the openai SDKs' parse helpers
			// (ParsedFunction): a copy of arguments, never on the wire.
			err = d.hint(path+".function.parsed_arguments", value, true, "")
		default:
			err = wire.UnknownField(path + ".function." + key)
		}
		if err != nil {
			break
		}
	}
	if err != nil {
		return err
	}
	if p.ToolName, err = requiredString(name, path+".function.name"); err != nil {
		return err
	}
	switch {
	case args.Type == gjson.Null:
		return codec.InvalidRequest(path+".function.arguments", "is required")
	case args.Type != gjson.String:
		return wire.WrongType(path+".function.arguments", "string", args)
	}
	if !wire.KeepEscapedArguments(&p, argsV, &d.req.Text, untrimmedArguments) {
		var ok bool
		if p.Arguments, ok = arguments(argsV.Result().Str); !ok {
			return codec.InvalidRequest(path+".function.arguments", "must be the text of a JSON object")
		}
	}
	d.parts = append(d.parts, p)
	return nil
}

// arguments unquotes Chat's arguments string into canonical
// Arguments: the text of one JSON object, or "" for no arguments.
func arguments(s string) (string, bool) {
	t := strings.TrimSpace(s)
	if t == "" {
		return "", true
	}
	return t, t[0] == '{' && jsonx.Valid(t)
}

// untrimmedArguments reports whether arguments accepts s as it is, with
// nothing to trim: then s's literal may stand for the canonical arguments.
func untrimmedArguments(s string) bool {
	t, ok := arguments(s)
	return ok && t != "" && len(t) == len(s)
}

// messageField sorts one field of messages[i] into f, records hints and
// rejects what is not translated yet.
func (d *requestDecoder) messageField(i int, key string, v gjson.Result, f *messageFields) *codec.Error {
	switch key {
	case "role":
		f.role = v
	case "content":
		f.content = v
	case "refusal":
		f.refusal = v
	case "name": //field:messages[].name: hint
		f.name = v
	case "tool_calls": //field:messages[].tool_calls: mapped
		f.toolCalls = v
	case "tool_call_id":
		f.toolCallID = v
	case "reasoning_content", "reasoning": //field:messages[].reasoning_content: hint
		// The reasoning extension of DeepSeek and other compatible
		// servers; OpenRouter, vLLM and Ollama call it reasoning, and
		// clients (Qwen Code) replay it under either name.
		f.reasoning = v
	case "annotations": //field:messages[].annotations: hint
		// URL citations an assistant message carries when a client echoes a
		// response back into history; they are not model input.
		if v.Type == gjson.Null || isEmptyArray(v) {
			return nil
		}
		return d.hint(wire.IndexPath("messages", i)+".annotations", v, v.IsArray(), "array")
	case "function_call": //field:messages[].function_call: capability
		return wire.RejectUnlessNull(v, wire.IndexPath("messages", i)+".function_call", "the deprecated functions API is not supported; use tool_calls")
	case "audio": //field:messages[].audio: capability
		return wire.RejectUnlessNull(v, wire.IndexPath("messages", i)+".audio", "audio is not supported yet")
	case "parsed": //field:messages[].parsed: hint
		// The structured output openai-node's and openai-python's parse
		// helpers add to a message they return (ParsedChatCompletionMessage):
		// a copy of content, never on the wire, sent back by clients
		// that replay the message object.
		return d.hint(wire.IndexPath("messages", i)+".parsed", v, true, "")
	default:
		return wire.UnknownField(wire.IndexPath("messages", i) + "." + key)
	}
	return nil
}

// role decodes messages[i].role; tool messages are decoded before.
// The deprecated function messages are rejected with the functions API.
func role(i int, v gjson.Result) (codec.Role, *codec.Error) {
	switch {
	case v.Type == gjson.Null:
		return 0, codec.InvalidRequest(wire.IndexPath("messages", i)+".role", "is required")
	case v.Type != gjson.String:
		return 0, wire.WrongType(wire.IndexPath("messages", i)+".role", "string", v)
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
	case "function": //field:messages[].role (function): capability
		return 0, wire.UnsupportedField(wire.IndexPath("messages", i)+".role", `role "function" (the deprecated functions API) is not supported; use tool messages`)
	}
	return 0, codec.InvalidRequest(wire.IndexPath("messages", i)+".role", `unknown role "`+v.Str+`"`)
}

// content appends the parts of messages[i].content: a string is one text
// part; an array holds typed parts. Null (or absence) is allowed here and
// judged by the caller, since only assistant messages may omit content.
// member is the content member itself, of which v holds a string's text
// still escaped (jsonx.Value.Shallow).
func (d *requestDecoder) content(i int, role codec.Role, v gjson.Result, member jsonx.Value) *codec.Error {
	switch {
	case v.Type == gjson.Null:
		return nil
	case v.Type == gjson.String:
		d.parts = append(d.parts, wire.ValueTextPart(codec.PartText, member))
		return nil
	case !v.IsArray():
		return wire.WrongType(wire.IndexPath("messages", i)+".content", "string or array", v)
	}
	var err *codec.Error
	idx := -1
	for _, member := range jsonx.Members(v.Raw, &d.req.Text) {
		idx++
		p := member.Result()
		err = d.contentPart(i, idx, role, p)
		if err != nil {
			break
		}
	}
	return err
}

// The payload fields of content parts, each allowed only in the part type
// of the same name.
const (
	fieldText = iota
	fieldRefusal
	fieldImageURL
	fieldInputAudio
	fieldFile
	fieldCount
)

var partFieldNames = [fieldCount]string{"text", "refusal", "image_url", "input_audio", "file"}

// partFields are the fields of one content part.
type partFields struct {
	typ    gjson.Result
	cache  gjson.Result // prompt_cache_breakpoint
	fields [fieldCount]gjson.Result
	// text is the text or refusal member itself, which fields holds
	// unescaped only as far as its type and raw text go
	// (jsonx.Value.Shallow), for wire.ValueTextPart.
	text jsonx.Value
	// other is the first key that is none of the above.
	other string
}

// contentPart appends messages[i].content[j]: text everywhere, refusal in
// assistant messages, images, audio and files in user messages.
func (d *requestDecoder) contentPart(i, j int, role codec.Role, v gjson.Result) *codec.Error {
	path := partPath(i, j)
	if !v.IsObject() {
		return wire.WrongType(path, "object", v)
	}
	var f partFields
members:
	for key, member := range jsonx.Members(v.Raw, &d.req.Text) {
		var value gjson.Result
		switch key {
		case "text", "refusal":
			f.text, value = member, member.Shallow()
		default:
			value = member.Result()
		}
		switch key {
		case "type":
			f.typ = value
			continue
		case "prompt_cache_breakpoint": //field:messages[].content[].prompt_cache_breakpoint: hint
			f.cache = value
			continue
		}
		for k, name := range partFieldNames {
			if key == name {
				f.fields[k] = value
				continue members
			}
		}
		if f.other == "" {
			f.other = key
		}
	}
	switch {
	case f.typ.Type == gjson.Null:
		return codec.InvalidRequest(path+".type", "is required")
	case f.typ.Type != gjson.String:
		return wire.WrongType(path+".type", "string", f.typ)
	}
	field := -1
	for k, name := range partFieldNames {
		if f.typ.Str == name {
			field = k
		}
	}
	if field < 0 {
		return codec.InvalidRequest(path+".type", `unknown content part type "`+f.typ.Str+`"`)
	}
	switch {
	case field == fieldRefusal && role != codec.RoleAssistant:
		return codec.InvalidRequest(path+".type", `content part type "refusal" is only allowed in assistant messages`)
	case field >= fieldImageURL && role != codec.RoleUser:
		return codec.InvalidRequest(path+".type", `content part type "`+f.typ.Str+`" is only allowed in user messages`)
	case f.other != "":
		return wire.UnknownField(path + "." + f.other)
	}
	for k := range f.fields {
		if k != field && f.fields[k].Exists() {
			return wire.UnknownField(path + "." + partFieldNames[k])
		}
	}
	cache, err := wire.ReadOpenAIBreakpoint(f.cache, path+".prompt_cache_breakpoint")
	if err != nil {
		return err
	}
	value := f.fields[field]
	fieldPath := path + "." + partFieldNames[field]
	switch field {
	case fieldImageURL: //field:messages[].content[] (image_url, base64): mapped; messages[].content[] (image_url, URL): capability
		err = d.imagePart(fieldPath, value)
	case fieldInputAudio: //field:messages[].content[] (input_audio): capability
		err = d.audioPart(fieldPath, value)
	case fieldFile: //field:messages[].content[] (file): mapped
		err = d.filePart(fieldPath, value)
	}
	if field >= fieldImageURL {
		if err == nil && cache != codec.CacheNone {
			d.parts[len(d.parts)-1].Cache = cache
		}
		return err
	}
	t := codec.PartText
	if field == fieldRefusal {
		t = codec.PartRefusal
	}
	switch {
	case value.Type == gjson.Null:
		return codec.InvalidRequest(fieldPath, "is required")
	case value.Type != gjson.String:
		return wire.WrongType(fieldPath, "string", value)
	}
	p := wire.ValueTextPart(t, f.text)
	p.Cache = cache
	d.parts = append(d.parts, p)
	return nil
}

// objectFields reads the members of the object v at path into the
// results named by keys (in order), rejecting other members.
func (d *requestDecoder) objectFields(path string, v gjson.Result, keys []string, dst []gjson.Result) *codec.Error {
	switch {
	case v.Type == gjson.Null:
		return codec.InvalidRequest(path, "is required")
	case !v.IsObject():
		return wire.WrongType(path, "object", v)
	}
	var err *codec.Error
members:
	for key, member := range jsonx.Members(v.Raw, &d.req.Text) {
		value := member.Result()
		for k, name := range keys {
			if key == name {
				dst[k] = value
				continue members
			}
		}
		err = wire.UnknownField(path + "." + key)
		break
	}
	return err
}

// imagePart appends an image_url part: {url, detail}. A data: URL becomes
// MediaType and Data, an http(s) URL stays a URL. detail (the resolution
// OpenAI looks at) has no canonical form and is a hint.
func (d *requestDecoder) imagePart(path string, v gjson.Result) *codec.Error {
	var f [2]gjson.Result
	if err := d.objectFields(path, v, []string{"url", "detail"}, f[:]); err != nil {
		return err
	}
	url, err := requiredString(f[0], path+".url")
	if err != nil {
		return err
	}
	p := codec.Part{Type: codec.PartImage}
	if p.MediaType, p.Data, p.URL, err = parseURL(path+".url", url, true); err != nil {
		return err
	}
	if f[1].Type != gjson.Null {
		if err := d.hint(path+".detail", f[1], f[1].Type == gjson.String, "string"); err != nil { //field:messages[].content[].image_url.detail: hint
			return err
		}
	}
	d.parts = append(d.parts, p)
	return nil
}

// audioFormats maps input_audio formats to media types and back.
var audioFormats = [...]struct{ format, mediaType string }{
	{"wav", "audio/wav"},
	{"mp3", "audio/mp3"},
}

// audioPart appends an input_audio part: {data, format}, base64 audio of
// format wav (audio/wav) or mp3 (audio/mp3, as Gemini names it).
func (d *requestDecoder) audioPart(path string, v gjson.Result) *codec.Error {
	var f [2]gjson.Result
	if err := d.objectFields(path, v, []string{"data", "format"}, f[:]); err != nil {
		return err
	}
	data, err := requiredString(f[0], path+".data")
	if err != nil {
		return err
	}
	format, err := requiredString(f[1], path+".format")
	if err != nil {
		return err
	}
	if err := wire.CheckBase64(path+".data", data); err != nil {
		return err
	}
	for _, a := range audioFormats {
		if a.format == format {
			d.parts = append(d.parts, codec.Part{Type: codec.PartAudio, MediaType: a.mediaType, Data: data})
			return nil
		}
	}
	return codec.InvalidRequest(path+".format", `unknown audio format "`+format+`"`)
}

// filePart appends a file part: {file_data, filename} with file_data a
// base64 data: URL, as a document whose title is the file name. file_id
// names a file uploaded to OpenAI, server-side state that no other
// upstream can read.
func (d *requestDecoder) filePart(path string, v gjson.Result) *codec.Error {
	var f [3]gjson.Result
	if err := d.objectFields(path, v, []string{"file_data", "filename", "file_id"}, f[:]); err != nil {
		return err
	}
	if f[2].Type != gjson.Null {
		return wire.UnsupportedField(path+".file_id", "file_id references name files stored by OpenAI; send file_data") //field:messages[].content[].file.file_id: capability
	}
	data, err := requiredString(f[0], path+".file_data")
	if err != nil {
		return err
	}
	p := codec.Part{Type: codec.PartDocument}
	if p.MediaType, p.Data, _, err = parseURL(path+".file_data", data, false); err != nil {
		return err
	}
	if err := optionalText(f[1], path+".filename", &p.Text); err != nil {
		return err
	}
	d.parts = append(d.parts, p)
	return nil
}

// parseURL splits a base64 data: URL ("data:<media type>;base64,<data>")
// into its media type and data; when web is true an http(s) URL is kept
// as a URL instead.
func parseURL(path, url string, web bool) (mediaType, data, link string, err *codec.Error) {
	if rest, ok := strings.CutPrefix(url, "data:"); ok {
		mt, b64, ok := strings.Cut(rest, ";base64,")
		if !ok || mt == "" || strings.ContainsAny(mt, ",") {
			return "", "", "", codec.InvalidRequest(path, "a data: URL must be data:<media type>;base64,<data>")
		}
		if err := wire.CheckBase64(path, b64); err != nil {
			return "", "", "", err
		}
		return mt, b64, "", nil
	}
	if web && (strings.HasPrefix(url, "https://") || strings.HasPrefix(url, "http://")) {
		return "", "", url, nil
	}
	if web {
		return "", "", "", codec.InvalidRequest(path, "must be an http(s) URL or a base64 data: URL")
	}
	return "", "", "", codec.InvalidRequest(path, "must be a base64 data: URL")
}

// reasoning appends the reasoning parts of an assistant message's
// reasoning_content, before its other content since the model reasoned
// first. The text may hold continuation envelopes in their text form
// (mapping.SplitReasoningText, read but never written): each closes one
// signed part with the text before it; text after the last envelope is one
// unsigned part. A damaged envelope is an error rather than reasoning text,
// so that it never reaches an upstream as if the model had written it.
func (d *requestDecoder) reasoning(i int, role codec.Role, v gjson.Result) *codec.Error {
	// Every message passes here, most without reasoning: the path is only
	// put together for an error.
	path := func() string { return wire.IndexPath("messages", i) + ".reasoning_content" }
	switch {
	case v.Type == gjson.Null:
		return nil
	case role != codec.RoleAssistant:
		return codec.InvalidRequest(path(), "is only allowed in assistant messages")
	case v.Type != gjson.String:
		return wire.WrongType(path(), "string", v)
	}
	var buf [4]mapping.ReasoningSegment
	segs, err := mapping.SplitReasoningText(buf[:0], v.Str)
	if err != nil {
		return codec.InvalidRequest(path(), err.Error())
	}
	for _, s := range segs {
		p := codec.Part{Type: codec.PartReasoning, Text: s.Text}
		if s.Signed {
			c := &s.Continuation
			p.Signature, p.Origin, p.Redacted, p.ItemID = c.Signature, c.Origin, c.Redacted, c.ItemID
		}
		d.parts = append(d.parts, p)
	}
	return nil
}

// messageRefusal appends an assistant message's refusal after its text.
func (d *requestDecoder) messageRefusal(i int, role codec.Role, v gjson.Result) *codec.Error {
	switch {
	case v.Type == gjson.Null:
		return nil
	case role != codec.RoleAssistant:
		return codec.InvalidRequest(wire.IndexPath("messages", i)+".refusal", "is only allowed in assistant messages")
	case v.Type != gjson.String:
		return wire.WrongType(wire.IndexPath("messages", i)+".refusal", "string", v)
	}
	d.parts = append(d.parts, codec.Part{Type: codec.PartRefusal, Text: v.Str})
	return nil
}

// partPath returns messages[i].content[j], for error paths.
func partPath(i, j int) string {
	return wire.IndexPath(wire.IndexPath("messages", i)+".content", j)
}
