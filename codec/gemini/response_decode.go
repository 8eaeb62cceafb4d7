package gemini

import (
	"strconv"
	"time"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/jsonx"
	"github.com/llmbridge/llmbridge/codec/internal/wire"
	"github.com/llmbridge/llmbridge/mapping"
	"github.com/tidwall/gjson"
)

// decodeResponse decodes a non-streamed GenerateContentResponse.
// Fields that carry no canonical meaning (safetyRatings, citationMetadata,
// avgLogprobs, the token details per modality, ...) are ignored; fields the
// codec reads must have the right type.
func decodeResponse(root gjson.Result, resp *response) *codec.Error {
	var candidate gjson.Result
	var block codec.StopDetails
	var err *codec.Error
members:
	for k, member := range jsonx.Members(root.Raw, &resp.Text) {
		v := member.Result()
		switch k {
		case "candidates":
			if v.Type == gjson.Null {
				continue
			}
			if !v.IsArray() {
				err = codec.BadUpstream(codec.Gemini, "candidates is not an array")
				break members
			}
			// Only one candidate is ever asked for (candidateCount
			// greater than 1 is rejected), so the first is the answer.
			for _, member := range jsonx.Members(v.Raw, &resp.Text) {
				c := member.Result()
				candidate = c
				break
			}
		case "promptFeedback":
			block, err = decodeBlockReason(codec.Gemini, v)
		case "usageMetadata":
			err = decodeUsage(v, &resp.Usage)
		case "modelVersion":
			resp.Model, err = responseString(v, "modelVersion")
		case "responseId":
			resp.ID, err = responseString(v, "responseId")
		case "createTime":
			resp.Created, err = decodeCreateTime(v)
		}
		if err != nil {
			break
		}
	}
	if err != nil {
		return err
	}
	if candidate.Exists() {
		return decodeCandidate(candidate, resp)
	}
	if block.Category != "" {
		// The prompt itself was blocked: no candidate was generated.
		resp.StopReason = mapping.StopContentFilter
		resp.StopDetails = block
		return nil
	}
	return codec.BadUpstream(codec.Gemini, "response has no candidates and no promptFeedback.blockReason")
}

// responseString reads an optional string field of a response.
func responseString(v gjson.Result, name string) (string, *codec.Error) {
	switch v.Type {
	case gjson.Null:
		return "", nil
	case gjson.String:
		return v.Str, nil
	}
	return "", codec.BadUpstream(codec.Gemini, name+" is not a string")
}

// decodeCreateTime reads Vertex's createTime, an RFC 3339 timestamp.
func decodeCreateTime(v gjson.Result) (int64, *codec.Error) {
	s, err := responseString(v, "createTime")
	if err != nil || s == "" {
		return 0, err
	}
	t, perr := time.Parse(time.RFC3339Nano, s)
	if perr != nil {
		return 0, codec.BadUpstream(codec.Gemini, "createTime is not an RFC 3339 timestamp")
	}
	return t.Unix(), nil
}

// decodeBlockReason reads promptFeedback of an upstream of protocol
// p: blockReason, which says that the prompt was blocked, becomes the
// Category and Vertex's blockReasonMessage the Explanation. Category is ""
// when the prompt was not blocked.
func decodeBlockReason(p codec.Protocol, v gjson.Result) (codec.StopDetails, *codec.Error) {
	var d codec.StopDetails
	if v.Type == gjson.Null {
		return d, nil
	}
	if !v.IsObject() {
		return d, codec.BadUpstream(p, "promptFeedback is not an object")
	}
	var err *codec.Error
	for k, member := range jsonx.Members(v.Raw, nil) {
		f := member.Result()
		switch k {
		case "blockReason":
			d.Category, err = upstreamString(p, f, "promptFeedback.blockReason")
		case "blockReasonMessage":
			d.Explanation, err = upstreamString(p, f, "promptFeedback.blockReasonMessage")
		}
		if err != nil {
			break
		}
	}
	if d.Category == "" {
		d.Explanation = ""
	}
	return d, err
}

// upstreamString reads an optional string field of a response of
// protocol p; null is "".
func upstreamString(p codec.Protocol, v gjson.Result, name string) (string, *codec.Error) {
	switch v.Type {
	case gjson.Null:
		return "", nil
	case gjson.String:
		return v.Str, nil
	}
	return "", codec.BadUpstream(p, name+" is not a string")
}

// decodeUsage converts usageMetadata to canonical usage: Gemini's
// candidatesTokenCount excludes thoughts, which mapping.FromGeminiUsage adds.
func decodeUsage(v gjson.Result, u *codec.Usage) *codec.Error {
	if v.Type == gjson.Null {
		return nil
	}
	if !v.IsObject() {
		return codec.BadUpstream(codec.Gemini, "usageMetadata is not an object")
	}
	var prompt, toolUsePrompt, cached, candidates, thoughts int64
	var err *codec.Error
	for k, member := range jsonx.Members(v.Raw, nil) {
		n := member.Result()
		var dst *int64
		switch k {
		case "promptTokenCount":
			dst = &prompt
		case "toolUsePromptTokenCount":
			dst = &toolUsePrompt
		case "cachedContentTokenCount":
			dst = &cached
		case "candidatesTokenCount":
			dst = &candidates
		case "thoughtsTokenCount":
			dst = &thoughts
		default:
			continue
		}
		if n.Type != gjson.Number {
			err = codec.BadUpstream(codec.Gemini, "usageMetadata."+k+" is not a number")
			break
		}
		*dst = n.Int()
	}
	if err != nil {
		return err
	}
	*u = mapping.FromGeminiUsage(prompt, toolUsePrompt, cached, candidates, thoughts)
	return nil
}

// decodeCandidate decodes the answer's content and finish reason. A
// candidate stopped by a filter (SAFETY, MODEL_ARMOR, ...) may have an
// empty content or none at all.
func decodeCandidate(c gjson.Result, resp *response) *codec.Error {
	if !c.IsObject() {
		return codec.BadUpstream(codec.Gemini, "candidates[0] is not an object")
	}
	var reason, message string
	var err *codec.Error
	var grounding gjson.Result
	var textAt []int // the resp.Content index of each Gemini part's text, or -1
	for k, member := range jsonx.Members(c.Raw, &resp.Text) {
		v := member.Result()
		switch k {
		case "groundingMetadata":
			grounding = v
		case "content":
			textAt, err = decodeResponseContent(v, resp)
		case "finishReason":
			reason, err = responseString(v, "candidates[0].finishReason")
			resp.StopReason = mapping.FromGeminiFinishReason(reason)
		case "finishMessage":
			message, err = responseString(v, "candidates[0].finishMessage")
		}
		if err != nil {
			break
		}
	}
	if err != nil {
		return err
	}
	if grounding.IsObject() {
		resp.Content = decodeGrounding(grounding, resp.Content, textAt)
	}
	resp.StopDetails = filterDetails(resp.StopReason, reason, message)
	if resp.StopReason == mapping.StopEnd && callCount(resp.Content) > 0 {
		// Gemini ends a turn with function calls with STOP.
		resp.StopReason = mapping.StopToolUse
	}
	return nil
}

// filterDetails returns the StopDetails of a candidate that finished
// with reason (stop in canonical form) and finishMessage message: for a
// filter stop, the reason (SAFETY, RECITATION, MODEL_ARMOR, ...) is the
// Category and the message, when there is one, the Explanation. Other
// stops have none: their finishMessage ("Model generated function
// call(s).") explains nothing a client needs.
func filterDetails(stop codec.StopReason, reason, message string) codec.StopDetails {
	if stop != mapping.StopContentFilter {
		return codec.StopDetails{}
	}
	return codec.StopDetails{Category: reason, Explanation: message}
}

// decodeResponseContent decodes candidates[0].content.parts, and
// returns where the text of each part went in resp.Content (-1 for parts
// that are not text), for grounding supports that point at parts.
func decodeResponseContent(v gjson.Result, resp *response) ([]int, *codec.Error) {
	if v.Type == gjson.Null {
		return nil, nil
	}
	if !v.IsObject() {
		return nil, codec.BadUpstream(codec.Gemini, "candidates[0].content is not an object")
	}
	parts := v.Get("parts")
	if parts.Type == gjson.Null || !parts.Exists() {
		return nil, nil
	}
	if !parts.IsArray() {
		return nil, codec.BadUpstream(codec.Gemini, "candidates[0].content.parts is not an array")
	}
	var err *codec.Error
	var textAt []int
	var buf [8]int
	textAt = buf[:0]
	for _, member := range jsonx.Members(parts.Raw, &resp.Text) {
		p := member.Result()
		n := len(resp.Content)
		err = decodeResponsePart(p, len(textAt), resp)
		at := -1
		if k := len(resp.Content) - 1; k >= n && resp.Content[k].Type == codec.PartText {
			at = k
		}
		textAt = append(textAt, at)
		if err != nil {
			break
		}
	}
	return textAt, err
}

// decodeGrounding converts a candidate's groundingMetadata: each of
// webSearchQueries becomes a search call and groundingChunks (their web
// uri and title) one result with the pages, both put before the answer
// (the search came first); each groundingSupport's segment becomes a
// citation of the text part it points at (segment.partIndex, byte
// offsets) for every web chunk it names. Entries that do not fit are
// skipped: grounding never fails a response.
func decodeGrounding(g gjson.Result, content []codec.Part, textAt []int) []codec.Part {
	var chunks []codec.Source
	for _, member := range jsonx.Members(g.Get("groundingChunks").Raw, nil) {
		c := member.Result()
		web := c.Get("web")
		chunks = append(chunks, codec.Source{URL: web.Get("uri").Str, Title: web.Get("title").Str})
	}
	for _, member := range jsonx.Members(g.Get("groundingSupports").Raw, nil) {
		sup := member.Result()
		seg := sup.Get("segment")
		pi := int(seg.Get("partIndex").Int())
		if pi < 0 || pi >= len(textAt) || textAt[pi] < 0 {
			continue
		}
		p := &content[textAt[pi]]
		start, end := int(seg.Get("startIndex").Int()), int(seg.Get("endIndex").Int())
		for _, member := range jsonx.Members(sup.Get("groundingChunkIndices").Raw, nil) {
			k := member.Result()
			if i := int(k.Int()); i >= 0 && i < len(chunks) && chunks[i].URL != "" {
				p.Citations = append(p.Citations, codec.Citation{URL: chunks[i].URL, Title: chunks[i].Title, Start: start, End: end})
			}
		}
	}
	var lead []codec.Part
	id := ""
	for _, member := range jsonx.Members(g.Get("webSearchQueries").Raw, nil) {
		q := member.Result()
		id = "gs_" + strconv.Itoa(len(lead))
		lead = append(lead, codec.Part{Type: codec.PartServerToolCall, ToolKind: codec.ToolWebSearch, ToolCallID: id, ToolName: "web_search", Arguments: wire.SearchArguments(q.Str)})
	}
	r := codec.Part{Type: codec.PartServerToolResult, ToolKind: codec.ToolWebSearch, ToolCallID: id}
	for _, c := range chunks {
		if c.URL != "" {
			r.Sources = append(r.Sources, c)
		}
	}
	if len(r.Sources) > 0 {
		lead = append(lead, r)
	}
	if len(lead) == 0 {
		return content
	}
	return append(lead, content...)
}

// decodeResponsePart appends response part j to resp.Content: its
// text, a thought (thought: true) as reasoning, or its functionCall as a
// tool call. A thoughtSignature signs the reasoning before the part that
// carries it, as in requests (see decodeParts), with Origin
// FamilyGemini. Empty text is skipped: it carries nothing but, at times, a
// signature (Gemini pads final chunks with {"text":""}). A part whose data
// is of another kind is kept or dropped by keepsPart, and never fails
// the response.
func decodeResponsePart(p gjson.Result, j int, resp *response) *codec.Error {
	if !p.IsObject() {
		return codec.BadUpstream(codec.Gemini, "candidates[0].content.parts has an element that is not an object")
	}
	var text, sig, other string
	var call gjson.Result
	hasText, thought := false, false
	var err *codec.Error
	for k, member := range jsonx.Members(p.Raw, &resp.Text) {
		v := member.Result()
		switch k {
		case "text":
			text, err = responseString(v, "part text")
			hasText = true
		case "thought":
			thought = v.Type == gjson.True
		case "functionCall":
			call = v
		case "thoughtSignature":
			sig, err = responseString(v, "part thoughtSignature")
		case "partMetadata":
		default:
			if other == "" {
				other = k
			}
		}
		if err != nil {
			break
		}
	}
	if err != nil {
		return err
	}
	isCall := call.Exists() && call.Type != gjson.Null
	if other != "" && !hasText && !isCall {
		if keepsPart(other, sig != "") {
			resp.Content = append(resp.Content, wire.OpaquePart(mapping.FamilyGemini, p.Raw))
		} else {
			resp.Dropped = append(resp.Dropped, responsePartPath(j)+" ("+other+")")
		}
		return nil
	}
	if thought && !isCall {
		if text != "" || sig != "" {
			resp.Content = append(resp.Content, codec.Part{Type: codec.PartReasoning, Text: text, Signature: sig, Origin: origin(sig)})
		}
		return nil
	}
	if sig != "" {
		resp.Content = signResponse(resp.Content, sig)
	}
	switch {
	case isCall:
		var part codec.Part
		part, err = decodeCall(codec.Gemini, call, resp.ID, callCount(resp.Content))
		resp.Content = append(resp.Content, part)
	case text != "":
		resp.Content = append(resp.Content, codec.Part{Type: codec.PartText, Text: text})
	}
	return err
}

// keepsPart reports whether an upstream part llmbridge does not
// translate is state, kept whole (opaquePart of FamilyGemini) so that it
// goes back in place to a Gemini upstream on the next turn, rather than
// display, dropped from the client's answer and reported. A part's kind is
// its data member: a part whose data is text or a functionCall is
// translated, and its members that are not data (thought,
// thoughtSignature, partMetadata, metadata added later) are read or
// ignored; any other kind is untranslated. The rule:
//
//   - A part with a thoughtSignature is state, whatever its kind: Gemini
//     checks the signed parts of its own turns.
//   - Media the model made (inlineData, fileData) without a signature is
//     display: the client protocols of other families have no slot for
//     model-made media in llmbridge's model, and Gemini does not need it
//     back.
//   - Every other kind is state: executableCode and codeExecutionResult
//     are the model's own server-side tool history, functionResponse is a
//     tool's answer, and a kind added later may be either, so it is kept.
func keepsPart(kind string, signed bool) bool {
	return signed || kind != "inlineData" && kind != "fileData"
}

// responsePartPath is the path of part j of a Gemini response, for
// Response.Dropped.
func responsePartPath(j int) string {
	return wire.IndexPath("candidates[0].content.parts", j)
}

// origin returns the family of a signature from a Gemini upstream:
// FamilyGemini, or FamilyNone when there is none.
func origin(sig string) mapping.Family {
	if sig == "" {
		return mapping.FamilyNone
	}
	return mapping.FamilyGemini
}

// signResponse applies an upstream's thoughtSignature to the unsigned
// reasoning part that content ends with, or appends an empty reasoning part
// that holds it.
func signResponse(content []codec.Part, sig string) []codec.Part {
	if n := len(content); n > 0 && content[n-1].Type == codec.PartReasoning && content[n-1].Signature == "" {
		content[n-1].Signature, content[n-1].Origin = sig, mapping.FamilyGemini
		return content
	}
	return append(content, codec.Part{Type: codec.PartReasoning, Signature: sig, Origin: mapping.FamilyGemini})
}

// callCount returns the number of tool calls in parts.
func callCount(parts []codec.Part) int {
	n := 0
	for i := range parts {
		if parts[i].Type == codec.PartToolCall {
			n++
		}
	}
	return n
}

// decodeCall decodes a complete functionCall of a response: its args
// object is copied as raw text ("" when absent). Gemini API calls have no
// id; one is synthesised with geminiCallID from the response id and the
// call's ordinal n among the response's calls.
func decodeCall(p codec.Protocol, v gjson.Result, responseID string, n int) (codec.Part, *codec.Error) {
	part := codec.Part{Type: codec.PartToolCall}
	if !v.IsObject() {
		return part, codec.BadUpstream(p, "functionCall is not an object")
	}
	var err *codec.Error
	for k, member := range jsonx.Members(v.Raw, nil) {
		f := member.Result()
		switch k {
		case "id":
			part.ToolCallID, err = responseString(f, "functionCall.id")
		case "name":
			part.ToolName, err = responseString(f, "functionCall.name")
		case "args":
			switch {
			case f.Type == gjson.Null:
			case !f.IsObject():
				err = codec.BadUpstream(p, "functionCall.args is not an object")
			default:
				part.Arguments = f.Raw
			}
		case "willContinue", "partialArgs":
			if f.Type != gjson.Null && f.Type != gjson.False {
				err = codec.BadUpstream(p, "functionCall with partial arguments outside a stream")
			}
		}
		if err != nil {
			break
		}
	}
	if err == nil && part.ToolName == "" {
		err = codec.BadUpstream(p, "functionCall has no name")
	}
	if part.ToolCallID == "" {
		part.ToolCallID = geminiCallID(responseID, n)
	}
	return part, err
}

// geminiCallID synthesises the id of the n-th function call (from 0) of
// the response with id responseID, for upstreams that give calls none (the
// Gemini API): "call_<responseId>_<n>", or "call_<n>" without a response id.
// It is deterministic, so the streamed and JSON forms of one response agree,
// and unique across the turns of a conversation, as Anthropic requires of
// tool_use ids; characters other than letters, digits, _ and - are left out
// of the response id, as Anthropic ids allow no others.
func geminiCallID(responseID string, n int) string {
	b := make([]byte, 0, len("call__")+len(responseID)+4)
	b = append(b, "call_"...)
	for i := 0; i < len(responseID); i++ {
		c := responseID[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' {
			b = append(b, c)
		}
	}
	if len(b) > len("call_") {
		b = append(b, '_')
	}
	b = strconv.AppendInt(b, int64(n), 10)
	return string(b)
}
