package anthropic

import (
	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/jsonx"
	"github.com/llmbridge/llmbridge/codec/internal/wire"
	"github.com/llmbridge/llmbridge/mapping"
	"github.com/tidwall/gjson"
)

// decodeResponse decodes a non-streamed Messages response. Fields
// outside the current scope that do not carry output (container,
// diagnostics, context_management and future additions) are ignored, so
// that an upstream adding a field keeps working; output the client could
// not receive (server tools, citations, ...) is an error.
func decodeResponse(root gjson.Result, resp *response) *codec.Error {
	var typ, id, model, role, content, stopReason, stopSequence, stopDetails, usage gjson.Result
	for key, member := range jsonx.Members(root.Raw, &resp.Text) {
		value := member.Result()
		switch key {
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
	}
	if typ.Type != gjson.String || typ.Str != "message" {
		return badUpstream(`type is not "message"`)
	}
	if role.Exists() && (role.Type != gjson.String || role.Str != "assistant") {
		return badUpstream(`role is not "assistant"`)
	}
	var err *codec.Error
	if resp.ID, err = upstreamString(id, "id"); err != nil {
		return err
	}
	if resp.Model, err = upstreamString(model, "model"); err != nil {
		return err
	}
	reason, err := upstreamString(stopReason, "stop_reason")
	if err != nil {
		return err
	}
	resp.StopReason = mapping.FromAnthropicStopReason(reason)
	if resp.StopSequence, err = upstreamString(stopSequence, "stop_sequence"); err != nil {
		return err
	}
	var why string
	if resp.StopDetails, why = decodeStopDetails(stopDetails, &resp.Text); why != "" {
		return badUpstream(why)
	}
	if resp.Usage, err = decodeUsage(usage, &resp.Text); err != nil {
		return err
	}
	return decodeContent(content, resp)
}

// decodeContent decodes the response's content blocks.
func decodeContent(v gjson.Result, resp *response) *codec.Error {
	if !v.IsArray() {
		return badUpstream("content is not an array")
	}
	resp.Content = resp.Content[:0]
	var err *codec.Error
	for _, member := range jsonx.Members(v.Raw, &resp.Text) {
		b := member.Result()
		var p codec.Part
		p, err = decodeResponseBlock(b, &resp.Text)
		if err != nil {
			break
		}
		resp.Content = append(resp.Content, p)
	}
	return err
}

// decodeResponseBlock decodes one content block of a response:
// text, tool_use, thinking, redacted_thinking and the web search's blocks.
// Any other block (compaction, other server tools' blocks, types added
// later) is an opaque part (wire.OpaquePart): it never fails the
// answer, and travels to the client as a continuation, back to Anthropic
// on the next turn.
func decodeResponseBlock(b gjson.Result, a *jsonx.Arena) (codec.Part, *codec.Error) {
	if !b.IsObject() {
		return codec.Part{}, badUpstream("content block is not an object")
	}
	var typ, text, citations, id, name, input, thinking, signature, data, toolUseID, content gjson.Result
	for key, member := range jsonx.Members(b.Raw, a) {
		value := member.Result()
		switch key {
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
	}
	switch {
	case typ.Type != gjson.String || typ.Str == "":
		return codec.Part{}, badUpstream("content block has no type")
	case typ.Str == "tool_use":
		if id.Type != gjson.String || id.Str == "" || name.Type != gjson.String || name.Str == "" || !input.IsObject() {
			return codec.Part{}, badUpstream("tool_use block lacks its id, name or input object")
		}
		return codec.Part{Type: codec.PartToolCall, ToolCallID: id.Str, ToolName: name.Str, Arguments: input.Raw}, nil
	case typ.Str == "thinking":
		return thinkingPart(thinking, signature)
	case typ.Str == "redacted_thinking":
		if data.Type != gjson.String || data.Str == "" {
			return codec.Part{}, badUpstream("redacted_thinking block has no data")
		}
		return codec.Part{Type: codec.PartReasoning, Redacted: true, Signature: data.Str, Origin: mapping.FamilyAnthropic}, nil
	case typ.Str == "server_tool_use" && name.Str != "web_search":
		return wire.OpaquePart(mapping.FamilyAnthropic, b.Raw), nil
	case typ.Str == "server_tool_use":
		if id.Type != gjson.String || id.Str == "" || !input.IsObject() {
			return codec.Part{}, badUpstream("server_tool_use block lacks its id or input object")
		}
		return codec.Part{Type: codec.PartServerToolCall, ToolKind: codec.ToolWebSearch, ToolCallID: id.Str, ToolName: name.Str, Arguments: input.Raw}, nil
	case typ.Str == "web_search_tool_result":
		return searchResult(toolUseID, content, a), nil
	case typ.Str != "text":
		return wire.OpaquePart(mapping.FamilyAnthropic, b.Raw), nil
	case text.Type != gjson.String:
		return codec.Part{}, badUpstream("text block has no text")
	}
	return codec.Part{Type: codec.PartText, Text: text.Str, Citations: textCitations(citations, nil, a)}, nil
}

// searchResult converts a web_search_tool_result block: its
// content is a list of web_search_result entries (url, title, page_age;
// their encrypted_content only means something to Anthropic) or an error
// object {type: "web_search_tool_result_error", error_code}. Entries that
// are not results are skipped: a search result never fails a response.
func searchResult(toolUseID, content gjson.Result, a *jsonx.Arena) codec.Part {
	p := codec.Part{Type: codec.PartServerToolResult, ToolKind: codec.ToolWebSearch, ToolCallID: toolUseID.Str}
	if content.IsObject() {
		p.IsError, p.Text = true, content.Get("error_code").Str
		return p
	}
	for _, member := range jsonx.Members(content.Raw, a) {
		r := member.Result()
		if url := r.Get("url"); url.Type == gjson.String && url.Str != "" {
			p.Sources = append(p.Sources, codec.Source{URL: url.Str, Title: r.Get("title").Str, PageAge: r.Get("page_age").Str})
		}
	}
	return p
}

// textCitations appends the web search citations of a text block
// to dst: each cites the whole block (End -1). Citations of other kinds
// (documents) are skipped; llmbridge sends no document with citations.
func textCitations(v gjson.Result, dst []codec.Citation, a *jsonx.Arena) []codec.Citation {
	if !v.IsArray() {
		return dst
	}
	for _, member := range jsonx.Members(v.Raw, a) {
		c := member.Result()
		dst = anthropicCitation(c, dst)
	}
	return dst
}

// anthropicCitation appends citation c when it is a web search result
// location.
func anthropicCitation(c gjson.Result, dst []codec.Citation) []codec.Citation {
	if c.Get("type").Str != "web_search_result_location" || c.Get("url").Str == "" {
		return dst
	}
	return append(dst, codec.Citation{URL: c.Get("url").Str, Title: c.Get("title").Str, CitedText: c.Get("cited_text").Str, End: -1})
}

// thinkingPart converts a thinking block of an upstream response:
// its text and, when present, its signature, issued by Anthropic. With
// display omitted the text is empty and only the signature comes.
func thinkingPart(thinking, signature gjson.Result) (codec.Part, *codec.Error) {
	if (thinking.Type != gjson.String && thinking.Type != gjson.Null) || (signature.Type != gjson.String && signature.Type != gjson.Null) {
		return codec.Part{}, badUpstream("thinking block thinking or signature is not a string")
	}
	p := codec.Part{Type: codec.PartReasoning, Text: thinking.Str, Signature: signature.Str}
	if p.Signature != "" {
		p.Origin = mapping.FamilyAnthropic
	}
	return p, nil
}

// decodeStopDetails reads stop_details, which newer responses
// attach to a refusal: {type:"refusal", category, explanation}, each member
// a string or null. Absent and null are no details. Anything else is an
// invalid response, since the explanation may become the refusal text a
// client sees: the reason is returned for the caller to wrap in its error.
func decodeStopDetails(v gjson.Result, a *jsonx.Arena) (sd codec.StopDetails, why string) {
	if v.Type == gjson.Null {
		return sd, ""
	}
	if !v.IsObject() {
		return sd, "stop_details is not an object"
	}
	for key, member := range jsonx.Members(v.Raw, a) {
		value := member.Result()
		switch key {
		case "type", "category", "explanation":
		default:
			continue // newer members carry nothing llmbridge translates
		}
		if value.Type != gjson.String && value.Type != gjson.Null {
			why = "stop_details." + key + " is not a string"
			break
		}
		switch key {
		case "category":
			sd.Category = value.Str
		case "explanation":
			sd.Explanation = value.Str
		}
	}
	if why != "" {
		return codec.StopDetails{}, why
	}
	return sd, ""
}

// decodeUsage converts the usage object into canonical meaning:
// Anthropic's input_tokens excludes cache reads and writes. A response
// without usage leaves it unknown.
func decodeUsage(v gjson.Result, a *jsonx.Arena) (codec.Usage, *codec.Error) {
	if v.Type == gjson.Null {
		return codec.Usage{}, nil
	}
	if !v.IsObject() {
		return codec.Usage{}, badUpstream("usage is not an object")
	}
	var input, cacheWrite, cacheRead, output, thinking int64
	var err *codec.Error
	for key, member := range jsonx.Members(v.Raw, a) {
		value := member.Result()
		switch key {
		case "input_tokens":
			input, err = tokenCount(value, "usage.input_tokens")
		case "cache_creation_input_tokens":
			cacheWrite, err = tokenCount(value, "usage.cache_creation_input_tokens")
		case "cache_read_input_tokens":
			cacheRead, err = tokenCount(value, "usage.cache_read_input_tokens")
		case "output_tokens":
			output, err = tokenCount(value, "usage.output_tokens")
		case "output_tokens_details":
			thinking, err = thinkingTokens(value, a)
		}
		if err != nil {
			break
		}
	}
	if err != nil {
		return codec.Usage{}, err
	}
	return mapping.FromAnthropicUsage(input, cacheWrite, cacheRead, output, thinking), nil
}

// thinkingTokens reads usage.output_tokens_details.thinking_tokens.
func thinkingTokens(v gjson.Result, a *jsonx.Arena) (int64, *codec.Error) {
	if v.Type == gjson.Null {
		return 0, nil
	}
	if !v.IsObject() {
		return 0, badUpstream("usage.output_tokens_details is not an object")
	}
	var n int64
	var err *codec.Error
	for key, member := range jsonx.Members(v.Raw, a) {
		value := member.Result()
		if key == "thinking_tokens" {
			n, err = tokenCount(value, "usage.output_tokens_details.thinking_tokens")
		}
		if err != nil {
			break
		}
	}
	return n, err
}

// tokenCount reads a token counter; null counts as zero.
func tokenCount(v gjson.Result, name string) (int64, *codec.Error) {
	if v.Type == gjson.Null {
		return 0, nil
	}
	var n codec.OptInt
	if wire.ReadInt(v, name, &n) != nil || n.Value < 0 {
		return 0, badUpstream(name + " is not a token count")
	}
	return n.Value, nil
}

// upstreamString reads an optional string field of a response;
// absent and null are empty.
func upstreamString(v gjson.Result, name string) (string, *codec.Error) {
	switch v.Type {
	case gjson.Null:
		return "", nil
	case gjson.String:
		return v.Str, nil
	}
	return "", badUpstream(name + " is not a string")
}

// badUpstream is the error for a response that is not a valid
// Messages response. decodeResponse is not told the dialect, so the
// message names the family; Vertex bodies are the same format.
func badUpstream(why string) *codec.Error {
	return codec.BadUpstream(codec.AnthropicMessages, why)
}
