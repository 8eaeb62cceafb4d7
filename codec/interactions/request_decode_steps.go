package interactions

import (
	"strings"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/jsonx"
	"github.com/llmbridge/llmbridge/codec/internal/wire"
	"github.com/llmbridge/llmbridge/mapping"
	"github.com/tidwall/gjson"
)

// conversation builds req.Messages from steps: consecutive steps of one
// role are one message, whose parts are a view of one backing array.
type conversation struct {
	req   *request
	parts []codec.Part
	// start is where the open message's parts begin, role its role and
	// open whether one is open.
	start int
	role  codec.Role
	open  bool
}

// callBefore returns the name of the latest function call named id among
// the parts decoded so far, which a function result answers, and whether
// there is one. A result follows its call closely: searched from the end,
// a tool loop of n steps costs n short searches, where a list of the calls
// searched from its start cost n*n/2 comparisons and grew with the loop.
func (c *conversation) callBefore(id string) (string, bool) {
	for i := len(c.parts) - 1; i >= 0; i-- {
		if p := &c.parts[i]; p.Type == codec.PartToolCall && p.ToolCallID == id {
			return p.ToolName, true
		}
	}
	return "", false
}

// add appends part p to a message of role r.
func (c *conversation) add(r codec.Role, p codec.Part) {
	if c.open && c.role != r {
		c.close()
	}
	if !c.open {
		c.start, c.role, c.open = len(c.parts), r, true
	}
	c.parts = append(c.parts, p)
}

// close ends the open message.
func (c *conversation) close() {
	if c.open {
		c.req.Messages = append(c.req.Messages, codec.Message{Role: c.role, Parts: c.parts[c.start:len(c.parts):len(c.parts)]})
		c.open = false
	}
}

// decodeInput decodes input: a string (one user turn), content (an
// object or a list of content objects: one user turn), or a list of
// typed steps (the history of a conversation). Content objects between
// steps belong to a user turn.
func decodeInput(v gjson.Result, req *request) *codec.Error {
	// A step of content names two types (its own and its content's), a
	// call or a thought one: half the types is a close estimate of the
	// parts and an upper one of the messages, and the arrays seldom grow.
	n := strings.Count(v.Raw, `"type"`)/2 + 1
	if cap(req.Messages)-len(req.Messages) < n {
		req.Messages = make([]codec.Message, len(req.Messages), len(req.Messages)+n)
	}
	c := conversation{req: req, parts: wire.PartSlab(req, n)}
	defer func() { wire.KeepParts(req, c.parts) }()
	switch {
	case v.Type == gjson.String:
		c.add(codec.RoleUser, wire.TextPart(codec.PartText, v))
	case v.IsObject():
		if err := c.element(v, "input"); err != nil {
			return err
		}
	case v.IsArray():
		i := 0
		for _, member := range jsonx.Members(v.Raw, &req.Text) {
			if err := c.element(member.Result(), wire.IndexPath("input", i)); err != nil {
				return err
			}
			i++
		}
	default:
		return wire.WrongType("input", "string, object or array", v)
	}
	c.close()
	if len(req.Messages) == 0 {
		return codec.InvalidRequest("input", "holds no content")
	}
	return nil
}

// element decodes one element of input: a step, or content of a user
// turn.
func (c *conversation) element(v gjson.Result, path string) *codec.Error {
	if !v.IsObject() {
		return wire.WrongType(path, "object", v)
	}
	typ := v.Get("type")
	if typ.Type != gjson.String {
		return codec.InvalidRequest(path+".type", "is required")
	}
	if contentTypes[typ.Str] {
		p, err := decodeContent(v, contentAt{path, "", -1}, c.req)
		if err == nil {
			c.add(codec.RoleUser, p)
		}
		return err
	}
	return c.step(typ.Str, v, path)
}

// contentTypes are the types of content objects, as opposed to steps.
var contentTypes = map[string]bool{"text": true, "image": true, "audio": true, "document": true, "video": true}

// step decodes one typed step of the history.
func (c *conversation) step(typ string, v gjson.Result, path string) *codec.Error {
	switch typ {
	case "user_input": //field:input[] (user_input): mapped
		return c.contentStep(v, path, codec.RoleUser)
	case "model_output": //field:input[] (model_output): mapped
		return c.contentStep(v, path, codec.RoleAssistant)
	case "thought": //field:input[] (thought): hint
		return c.thought(v, path)
	case "function_call": //field:input[] (function_call, function_result): mapped
		return c.functionCall(v, path)
	case "function_result":
		return c.functionResult(v, path)
	case "google_search_call": //field:input[] (google_search_call, google_search_result): capability
		return c.searchCall(v, path)
	case "google_search_result":
		return c.searchResult(v, path)
	}
	if hostedSteps[typ] {
		return wire.UnsupportedField(path, `hosted tool step "`+typ+`" cannot be translated (only google_search steps are)`)
	}
	return codec.InvalidRequest(path+".type", `unknown step type "`+typ+`"`)
}

// hostedSteps are the steps of Google's hosted tools other than search,
// which no other protocol can carry.
var hostedSteps = map[string]bool{
	"code_execution_call": true, "code_execution_result": true, "url_context_call": true, "url_context_result": true,
	"file_search_call": true, "file_search_result": true, "mcp_server_tool_call": true, "mcp_server_tool_result": true,
	"google_maps_call": true, "google_maps_result": true, "retrieval_call": true, "retrieval_result": true,
	"processing_call": true, "processing_result": true,
}

// contentStep decodes a user_input or model_output step: its content, a
// list of content objects (or a string).
func (c *conversation) contentStep(v gjson.Result, path string, r codec.Role) *codec.Error {
	for k, member := range jsonx.Members(v.Raw, &c.req.Text) {
		f := member.Shallow() // a string is read through member, if at all
		switch k {
		case "type":
		case "content":
			if f.Type == gjson.String {
				c.add(r, wire.ValueTextPart(codec.PartText, member))
				continue
			}
			if err := c.contents(f, path, r); err != nil {
				return err
			}
		case "error":
			// A failed model output keeps its error for the record; it
			// says nothing the next turn needs.
			c.req.Dropped = append(c.req.Dropped, path+".error")
		default:
			return wire.UnknownField(path + "." + k)
		}
	}
	return nil
}

// contents adds the content objects of v, the content of the step at
// path (one or a list of them), to a message of role r.
func (c *conversation) contents(v gjson.Result, path string, r codec.Role) *codec.Error {
	if v.IsObject() {
		p, err := decodeContent(v, contentAt{path, ".content", -1}, c.req)
		if err == nil {
			c.add(r, p)
		}
		return err
	}
	if !v.IsArray() {
		return wire.WrongType(path+".content", "array", v)
	}
	i := 0
	for _, member := range jsonx.Members(v.Raw, &c.req.Text) {
		p, err := decodeContent(member.Result(), contentAt{path, ".content", i}, c.req)
		if err != nil {
			return err
		}
		c.add(r, p)
		i++
	}
	return nil
}

// thought decodes a thought step: its signature (the opaque value the
// model needs back, or a continuation token of another family's) and its
// summary, whose text is the part's.
func (c *conversation) thought(v gjson.Result, path string) *codec.Error {
	p := codec.Part{Type: codec.PartReasoning}
	var sig string
	for k, member := range jsonx.Members(v.Raw, &c.req.Text) {
		f := member.Result()
		switch k {
		case "type":
		case "signature":
			if err := wire.ReadOptString(f, path+"."+k, &sig); err != nil {
				return err
			}
		case "summary":
			text, err := summaryText(f, path+"."+k, c.req)
			if err != nil {
				return err
			}
			p.Text = text
		default:
			return wire.UnknownField(path + "." + k)
		}
	}
	if err := wire.ReadOpaque(&p, sig, mapping.FamilyGemini, path+".signature"); err != nil {
		return err
	}
	c.add(codec.RoleAssistant, p)
	return nil
}

// summaryText returns the text of a thought's summary, a list of text
// content objects, joined.
func summaryText(v gjson.Result, path string, req *request) (string, *codec.Error) {
	if v.Type == gjson.Null {
		return "", nil
	}
	if !v.IsArray() {
		return "", wire.WrongType(path, "array", v)
	}
	var text string
	var b strings.Builder
	n, i := 0, 0
	for _, member := range jsonx.Members(v.Raw, &req.Text) {
		s := member.Result()
		t := s.Get("text")
		if !s.IsObject() || s.Get("type").Str != "text" || t.Type != gjson.String {
			return "", codec.InvalidRequest(wire.IndexPath(path, i), "a thought summary holds text only")
		}
		if n == 0 {
			text = t.Str
		} else {
			if n == 1 {
				b.WriteString(text)
			}
			b.WriteString(t.Str)
		}
		n++
		i++
	}
	if n > 1 {
		text = b.String()
	}
	return text, nil
}

// functionCall decodes a function_call step.
func (c *conversation) functionCall(v gjson.Result, path string) *codec.Error {
	p := codec.Part{Type: codec.PartToolCall, Arguments: "{}"}
	for k, member := range jsonx.Members(v.Raw, &c.req.Text) {
		f := member.Result()
		var err *codec.Error
		switch k {
		case "type":
		case "id":
			p.ToolCallID, err = wire.ReadStringAt(f, path, ".id")
		case "name":
			p.ToolName, err = wire.ReadStringAt(f, path, ".name")
		case "arguments":
			err = wire.ReadObjectRawAt(f, path, ".arguments", &p.Arguments)
		case "signature":
			// A signature on a call (Gemini signs a step's first call)
			// reaches only Google again, as a thought's does.
			var sig string
			if err = wire.ReadOptStringAt(f, path, ".signature", &sig); err == nil && sig != "" {
				sp := codec.Part{Type: codec.PartReasoning}
				if err = wire.ReadOpaque(&sp, sig, mapping.FamilyGemini, path+"."+k); err == nil {
					c.add(codec.RoleAssistant, sp)
				}
			}
		default:
			err = wire.UnknownField(path + "." + k)
		}
		if err != nil {
			return err
		}
	}
	if p.ToolCallID == "" || p.ToolName == "" {
		return codec.InvalidRequest(path, "a function_call step needs an id and a name")
	}
	c.add(codec.RoleAssistant, p)
	return nil
}

// functionResult decodes a function_result step. Its call_id must name
// a function_call step before it: a result of an unknown call cannot be
// matched to a call by any other protocol.
func (c *conversation) functionResult(v gjson.Result, path string) *codec.Error {
	p := codec.Part{Type: codec.PartToolResult}
	var result gjson.Result
	var resultV jsonx.Value // result itself, for a text read only if need be
	for k, member := range jsonx.Members(v.Raw, &c.req.Text) {
		if k == "result" {
			result, resultV = member.Shallow(), member
			continue
		}
		f := member.Result()
		var err *codec.Error
		switch k {
		case "type":
		case "call_id":
			p.ToolCallID, err = wire.ReadStringAt(f, path, ".call_id")
		case "name":
			err = wire.ReadOptStringAt(f, path, ".name", &p.ToolName)
		case "is_error":
			var b codec.OptBool
			err = wire.ReadOptBoolAt(f, path, ".is_error", &b)
			p.IsError = b.Value
		case "signature":
			c.req.Dropped = append(c.req.Dropped, path+".signature")
		default:
			err = wire.UnknownField(path + "." + k)
		}
		if err != nil {
			return err
		}
	}
	if p.ToolCallID == "" {
		return codec.InvalidRequest(path+".call_id", "is required")
	}
	name, known := c.callBefore(p.ToolCallID)
	if p.ToolName == "" {
		p.ToolName = name
	}
	if !known {
		return codec.InvalidRequest(path+".call_id", `"`+p.ToolCallID+`" names no function_call step before it`)
	}
	switch {
	case !result.Exists() || result.Type == gjson.Null:
	case result.Type == gjson.String:
		p.Content = append(wire.ContentParts(c.req, 1), wire.ValueTextPart(codec.PartText, resultV))
	case result.IsArray():
		parts, err := decodeContents(result, path, ".result", c.req, wire.ContentParts(c.req, 2))
		if err != nil {
			return err
		}
		p.Content = parts
	case result.IsObject():
		p.Content = append(wire.ContentParts(c.req, 1), codec.Part{Type: codec.PartText, Text: result.Raw})
	default:
		return wire.WrongType(path+".result", "string, array or object", result)
	}
	c.add(codec.RoleUser, p)
	return nil
}

// searchCall decodes a google_search_call step: the search Google ran,
// its first query as the canonical search's.
func (c *conversation) searchCall(v gjson.Result, path string) *codec.Error {
	id := v.Get("id")
	if id.Type != gjson.String {
		return codec.InvalidRequest(path+".id", "is required")
	}
	c.add(codec.RoleAssistant, codec.Part{Type: codec.PartServerToolCall, ToolCallID: id.Str, ToolName: "web_search",
		ToolKind: codec.ToolWebSearch, Arguments: wire.SearchArguments(v.Get("arguments.queries.0").Str)})
	return nil
}

// searchResult decodes a google_search_result step, which names the
// call it answers; its search suggestions are display only.
func (c *conversation) searchResult(v gjson.Result, path string) *codec.Error {
	id := v.Get("call_id")
	if id.Type != gjson.String {
		return codec.InvalidRequest(path+".call_id", "is required")
	}
	c.add(codec.RoleAssistant, codec.Part{Type: codec.PartServerToolResult, ToolCallID: id.Str, IsError: v.Get("is_error").Bool()})
	return nil
}

// contentAt names a content object in error paths without building the
// string unless an error needs it: element index of the list at
// parent+field, or parent+field itself (index < 0).
type contentAt struct {
	parent, field string
	index         int
}

// String returns the path of the content object.
func (c contentAt) String() string {
	if c.index < 0 {
		return c.parent + c.field
	}
	return wire.IndexPath(c.parent+c.field, c.index)
}

// decodeContents decodes a content object or a list of them at
// parent+field, appending to dst; the path is put together only for an
// error.
func decodeContents(v gjson.Result, parent, field string, req *request, dst []codec.Part) ([]codec.Part, *codec.Error) {
	if v.IsObject() {
		p, err := decodeContent(v, contentAt{parent, field, -1}, req)
		return append(dst, p), err
	}
	if !v.IsArray() {
		return dst, wire.WrongType(parent+field, "array", v)
	}
	i := 0
	for _, member := range jsonx.Members(v.Raw, &req.Text) {
		p, err := decodeContent(member.Result(), contentAt{parent, field, i}, req)
		if err != nil {
			return dst, err
		}
		dst = append(dst, p)
		i++
	}
	return dst, nil
}

// decodeContent decodes one content object: text, or an image, audio or
// document given inline (data and mime_type) or by uri.
func decodeContent(v gjson.Result, at contentAt, req *request) (codec.Part, *codec.Error) {
	if p, ok := wire.PlainText(&req.Text, v.Raw, `"text"`); ok {
		return p, nil
	}
	path := at.String()
	if !v.IsObject() {
		return codec.Part{}, wire.WrongType(path, "object", v)
	}
	var p codec.Part
	switch typ := v.Get("type").Str; typ {
	case "text":
		t := v.Get("text")
		if t.Type != gjson.String {
			return p, wire.WrongType(path+".text", "string", t)
		}
		p = wire.TextPart(codec.PartText, t)
		if v.Get("annotations").Exists() {
			// Citations of an earlier answer are for display.
			req.Dropped = append(req.Dropped, path+".annotations")
		}
		return p, nil
	case "image": //field:input[].content[] (image): mapped
		p.Type = codec.PartImage
	case "audio": //field:input[].content[] (audio): capability
		p.Type = codec.PartAudio
	case "document": //field:input[].content[] (document): mapped
		p.Type = codec.PartDocument
	case "video": //field:input[].content[] (video): capability
		return p, wire.UnsupportedField(path, "video content cannot be translated")
	default:
		return p, codec.InvalidRequest(path+".type", `unknown content type "`+typ+`"`)
	}
	for k, member := range jsonx.Members(v.Raw, &req.Text) {
		f := member.Result()
		var err *codec.Error
		switch k {
		case "type":
		case "data":
			if err = wire.ReadOptString(f, path+".data", &p.Data); err == nil {
				err = wire.CheckBase64(path+".data", p.Data)
			}
		case "mime_type":
			err = wire.ReadOptString(f, path+".mime_type", &p.MediaType)
		case "uri":
			err = wire.ReadOptString(f, path+".uri", &p.URL)
		case "resolution":
			req.Dropped = append(req.Dropped, path+".resolution")
		default:
			err = wire.UnknownField(path + "." + k)
		}
		if err != nil {
			return p, err
		}
	}
	if p.Data == "" && p.URL == "" {
		return p, codec.InvalidRequest(path, "needs data or uri")
	}
	if p.Data != "" && p.MediaType == "" {
		return p, codec.InvalidRequest(path+".mime_type", "is required with data")
	}
	return p, nil
}
