package responses

import (
	"strings"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/jsonx"
	"github.com/llmbridge/llmbridge/codec/internal/wire"
	"github.com/llmbridge/llmbridge/mapping"
	"github.com/tidwall/gjson"
)

// decodeResponse decodes a non-streamed Responses response body.
// Unknown top-level fields are ignored: a response echoes the request's
// configuration, which grows with every API release.
func decodeResponse(root gjson.Result, resp *response) *codec.Error {
	*resp.Response = codec.Response{Content: resp.Content[:0]}
	var status, incompleteReason string
	var output, usage, failure gjson.Result
	var err *codec.Error
	for key, member := range jsonx.Members(root.Raw, &resp.Text) {
		value := member.Result()
		switch key {
		case "object":
			if value.Str != "response" {
				err = codec.BadUpstream(codec.OpenAIResponses, `object is not "response"`)
			}
		case "id":
			resp.ID, err = upstreamString(value, "id")
		case "model":
			resp.Model, err = upstreamString(value, "model")
		case "created_at":
			resp.Created, err = upstreamCount(value, "created_at")
		case "status":
			status, err = upstreamString(value, "status")
		case "incomplete_details":
			if value.IsObject() {
				incompleteReason, err = upstreamString(value.Get("reason"), "incomplete_details.reason")
			}
		case "error":
			failure = value
		case "output":
			output = value
		case "usage":
			usage = value
		}
		if err != nil {
			break
		}
	}
	if err != nil {
		return err
	}
	if status == "" {
		return codec.BadUpstream(codec.OpenAIResponses, "status is missing")
	}
	if status == "failed" {
		return responsesFailure(failure)
	}
	if !output.IsArray() {
		return codec.BadUpstream(codec.OpenAIResponses, "output is missing or not an array")
	}
	hasRefusal, hasCall, err := decodeOutput(output, resp)
	if err != nil {
		return err
	}
	resp.StopReason, _ = mapping.FromResponsesStatus(status, incompleteReason, hasCall)
	if resp.StopReason == mapping.StopEnd && hasRefusal {
		resp.StopReason = mapping.StopRefusal
	}
	if usage.IsObject() {
		resp.Usage, err = decodeUsage(usage)
	}
	return err
}

// upstreamString reads a string field of an upstream response; null and
// absent are "".
func upstreamString(v gjson.Result, path string) (string, *codec.Error) {
	if v.Type != gjson.String && v.Type != gjson.Null && v.Exists() {
		return "", codec.BadUpstream(codec.OpenAIResponses, path+" is not a string")
	}
	return v.Str, nil
}

// upstreamCount reads an integer field of an upstream response; null and
// absent are 0.
func upstreamCount(v gjson.Result, path string) (int64, *codec.Error) {
	if v.Type != gjson.Number && v.Type != gjson.Null && v.Exists() {
		return 0, codec.BadUpstream(codec.OpenAIResponses, path+" is not a number")
	}
	return v.Int(), nil
}

// responsesFailure converts the error of a failed response. The upstream
// answered HTTP 200, but the generation failed on its side, hence 500.
func responsesFailure(v gjson.Result) *codec.Error {
	e := &codec.Error{Status: 500, Kind: mapping.ErrAPI, Protocol: codec.OpenAIResponses}
	if v.IsObject() {
		e.Code = v.Get("code").String()
		e.Message = v.Get("message").String()
		if k, ok := mapping.FromOpenAIErrorType(e.Code); ok {
			e.Kind = k
		}
	}
	if e.Message == "" {
		e.Message = "upstream " + string(codec.OpenAIResponses) + " response failed without an error message"
	}
	return e
}

// decodeOutput appends the assistant content of output items to
// resp.Content and reports whether it holds a refusal and a tool call.
func decodeOutput(output gjson.Result, resp *response) (hasRefusal, hasCall bool, err *codec.Error) {
	i := 0
	for _, member := range jsonx.Members(output.Raw, &resp.Text) {
		item := member.Result()
		typ := item.Get("type")
		switch typ.Str {
		case "message":
			var refused bool
			refused, err = decodeOutputMessage(item, i, resp)
			hasRefusal = hasRefusal || refused
		case "function_call":
			err = decodeOutputCall(item, i, resp)
			hasCall = true
		case "reasoning":
			err = decodeOutputReasoning(item, i, resp)
		case "web_search_call":
			decodeSearchCall(item, resp.Response)
		default:
			if clientAction[typ.Str] || !item.IsObject() {
				// A call the client would have to run: dropping it would
				// end the turn without the action it asks for.
				err = codec.BadUpstream(codec.OpenAIResponses, wire.IndexPath("output", i)+`: output item type "`+typ.String()+`" cannot be translated yet`)
				break
			}
			resp.Content = append(resp.Content, wire.OpaquePart(mapping.FamilyOpenAI, item.Raw))
		}
		i++
		if err != nil {
			break
		}
	}
	return hasRefusal, hasCall, err
}

// decodeSearchCall appends a web_search_call output item: the
// search as a PartServerToolCall (its action's query, or its queries
// joined, when the action is a search; open_page and find actions have
// none), and its action's sources, when the request asked for them, as a
// PartServerToolResult. A failed search is an error result. The item is
// what the upstream did, not the answer, so a malformed one never fails
// the response.
func decodeSearchCall(item gjson.Result, resp *codec.Response) {
	id := item.Get("id").Str
	action := item.Get("action")
	query := action.Get("query").Str
	if query == "" {
		var qs []string
		for _, member := range jsonx.Members(action.Get("queries").Raw, nil) {
			q := member.Result()
			qs = append(qs, q.Str)
		}
		query = strings.Join(qs, "\n")
	}
	resp.Content = append(resp.Content, codec.Part{Type: codec.PartServerToolCall, ToolKind: codec.ToolWebSearch, ToolCallID: id, ToolName: "web_search",
		Arguments: wire.SearchArguments(query)})
	r := codec.Part{Type: codec.PartServerToolResult, ToolKind: codec.ToolWebSearch, ToolCallID: id}
	for _, member := range jsonx.Members(action.Get("sources").Raw, nil) {
		src := member.Result()
		if u := src.Get("url").Str; u != "" {
			r.Sources = append(r.Sources, codec.Source{URL: u, Title: src.Get("title").Str})
		}
	}
	if item.Get("status").Str == "failed" {
		r.IsError, r.Text = true, "unavailable"
	}
	if len(r.Sources) > 0 || r.IsError {
		resp.Content = append(resp.Content, r)
	}
}

// decodeOutputReasoning appends the reasoning of reasoning output
// item i: its summary (else its reasoning_text content) as Text, its id, and
// its encrypted_content as an OpenAI signature. An item with neither text
// nor encrypted content (a request without a summary or include) carries
// nothing a client could see or send back, and is left out.
func decodeOutputReasoning(item gjson.Result, i int, resp *response) *codec.Error {
	path := wire.IndexPath("output", i)
	p := codec.Part{Type: codec.PartReasoning}
	var err *codec.Error
	if p.ItemID, err = upstreamString(item.Get("id"), path+".id"); err != nil {
		return err
	}
	if p.Signature, err = upstreamString(item.Get("encrypted_content"), path+".encrypted_content"); err != nil {
		return err
	}
	if p.Text, err = upstreamTexts(item.Get("summary"), path+".summary"); err != nil {
		return err
	}
	if !p.HasText() {
		if p.Text, err = upstreamTexts(item.Get("content"), path+".content"); err != nil {
			return err
		}
	}
	if p.Signature != "" {
		p.Origin = mapping.FamilyOpenAI
	} else if !p.HasText() {
		return nil
	}
	resp.Content = append(resp.Content, p)
	return nil
}

// upstreamTexts joins the texts of an upstream reasoning item's
// summary or content parts with blank lines.
func upstreamTexts(v gjson.Result, path string) (string, *codec.Error) {
	if !v.Exists() || v.Type == gjson.Null {
		return "", nil
	}
	if !v.IsArray() {
		return "", codec.BadUpstream(codec.OpenAIResponses, path+" is not an array")
	}
	var b strings.Builder
	var err *codec.Error
	j := 0
	for _, member := range jsonx.Members(v.Raw, nil) {
		part := member.Result()
		var text string
		if text, err = upstreamString(part.Get("text"), wire.IndexPath(path, j)+".text"); err != nil {
			break
		}
		// Empty parts add no separator, as in the stream decoder,
		// which separates parts only between texts it has sent.
		if b.Len() > 0 && text != "" {
			b.WriteString("\n\n")
		}
		b.WriteString(text)
		j++
	}
	return b.String(), err
}

// decodeOutputCall appends the tool call of function_call output
// item i; its arguments must be the text of a JSON object (or empty).
func decodeOutputCall(item gjson.Result, i int, resp *response) *codec.Error {
	path := wire.IndexPath("output", i)
	p := codec.Part{Type: codec.PartToolCall}
	var err *codec.Error
	if p.ToolCallID, err = upstreamString(item.Get("call_id"), path+".call_id"); err != nil {
		return err
	}
	if p.ToolName, err = upstreamString(item.Get("name"), path+".name"); err != nil {
		return err
	}
	args, err := upstreamString(item.Get("arguments"), path+".arguments")
	if err != nil {
		return err
	}
	p.Arguments = args
	switch {
	case p.ToolCallID == "" || p.ToolName == "":
		return codec.BadUpstream(codec.OpenAIResponses, path+": function_call has no call_id or name")
	case args != "" && (!jsonx.Valid(args) || !gjson.Parse(args).IsObject()):
		return codec.BadUpstream(codec.OpenAIResponses, path+".arguments is not a JSON object")
	}
	resp.Content = append(resp.Content, p)
	return nil
}

// decodeOutputMessage appends the parts of output message i. A
// content part is what the message shows (the upstream's state travels in
// items of their own: reasoning, compaction), so a part of a type
// llmbridge does not translate (output_audio, types added later) is
// display: it is dropped and listed in resp.Dropped, and the rest of the
// message reaches the client.
func decodeOutputMessage(item gjson.Result, i int, resp *response) (hasRefusal bool, err *codec.Error) {
	content := item.Get("content")
	if !content.IsArray() {
		return false, codec.BadUpstream(codec.OpenAIResponses, wire.IndexPath("output", i)+".content is not an array")
	}
	j := 0
	for _, member := range jsonx.Members(content.Raw, &resp.Text) {
		part := member.Result()
		typ := part.Get("type")
		switch typ.Str {
		case "output_text":
			var text string
			text, err = upstreamString(part.Get("text"), wire.IndexPath(wire.IndexPath("output", i)+".content", j)+".text")
			resp.Content = append(resp.Content, codec.Part{Type: codec.PartText, Text: text, Citations: wire.DecodeURLCitations(part.Get("annotations"), text, nil)})
		case "refusal":
			var text string
			text, err = upstreamString(part.Get("refusal"), wire.IndexPath(wire.IndexPath("output", i)+".content", j)+".refusal")
			resp.Content = append(resp.Content, codec.Part{Type: codec.PartRefusal, Text: text})
			hasRefusal = true
		default:
			resp.Dropped = append(resp.Dropped, wire.IndexPath(wire.IndexPath("output", i)+".content", j)+" ("+typ.String()+")")
		}
		j++
		if err != nil {
			break
		}
	}
	return hasRefusal, err
}

// decodeUsage reads usage. OpenAI counters already have canonical
// meaning: input_tokens includes cached tokens and output_tokens includes
// reasoning tokens. cache_write_tokens is documented but absent from real
// traffic, so it is optional.
func decodeUsage(v gjson.Result) (codec.Usage, *codec.Error) {
	u := codec.Usage{Known: true}
	var err *codec.Error
	for _, f := range [...]struct {
		path string
		dst  *int64
	}{
		{"input_tokens", &u.InputTokens},
		{"input_tokens_details.cached_tokens", &u.CacheReadTokens},
		{"input_tokens_details.cache_write_tokens", &u.CacheWriteTokens},
		{"output_tokens", &u.OutputTokens},
		{"output_tokens_details.reasoning_tokens", &u.ReasoningTokens},
	} {
		if *f.dst, err = upstreamCount(v.Get(f.path), "usage."+f.path); err != nil {
			return codec.Usage{}, err
		}
	}
	return u, nil
}
