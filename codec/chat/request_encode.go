package chat

import (
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/jsonx"
	"github.com/llmbridge/llmbridge/codec/internal/wire"
	"github.com/llmbridge/llmbridge/mapping"
)

// appendRequest encodes req as a Chat Completions request body.
//
// Chat keeps system and developer instructions in place, so req.System
// becomes one leading message and later instructions stay where they are.
// Streaming requests always ask for usage (stream_options.include_usage):
// the other protocols report it unasked, and a client of any protocol must
// get it (peer-lessons rule 5).
func appendRequest(dst []byte, req *codec.Request, opts *codec.EncodeOptions) ([]byte, *codec.Error) {
	if req.TopK.Set {
		return dst, wire.CannotEncode(codec.OpenAIChat, "top_k", "top_k sampling", codec.Capability{Kind: codec.CapTopK})
	}
	dst = slices.Grow(dst, requestSizeHint(req))
	wire.DropBreakpoints(req)
	dst = append(dst, `{"model":`...)
	dst = jsonx.AppendString(dst, wire.EncodeModel(opts, req))

	var err *codec.Error
	d := opts.Target.Dialect
	dst = append(dst, `,"messages":[`...)
	if len(req.System) > 0 {
		role := codec.RoleSystem
		if req.SystemRole == codec.RoleDeveloper {
			role = codec.RoleDeveloper
		}
		if dst, err = appendMessage(dst, role, req.System, -1, nil, d, false); err != nil {
			return dst, err
		}
	}
	// afterTool: the last message written is a tool message. toolTurn:
	// the current turn (from a user message to the next) made tool
	// calls, so each of its assistant messages carries a reasoning field
	// where the dialect wants one (emptyReasoning).
	emptyReasoning := emptyReasoning(d)
	afterTool, toolTurn := false, emptyReasoning && chatToolTurn(req.Messages)
	for i := range req.Messages {
		m := &req.Messages[i]
		if m.Role == codec.RoleAssistant {
			dropReasoning(req, m.Parts, i, noReasoning(d))
		}
		if m.Role == codec.RoleUser && hasResults(m.Parts) {
			dst, afterTool, err = appendResults(dst, m.Parts, i, d)
		} else {
			if m.Role == codec.RoleUser && emptyReasoning {
				toolTurn = chatToolTurn(req.Messages[i+1:])
			}
			if afterTool && m.Role == codec.RoleUser && d != nil && d.AssistantAfterTool {
				dst = append(comma(dst), bridgeMessage...)
			}
			dst, err = appendMessage(comma(dst), m.Role, m.Parts, i, nil, d, toolTurn)
			afterTool = false
		}
		if err != nil {
			return dst, err
		}
	}
	dst = append(dst, ']')

	if dst, err = appendTools(dst, req); err != nil {
		return dst, err
	}
	dst = appendSampling(dst, req, d)
	dst = appendReasoning(dst, req, opts)
	dst = appendFormat(dst, req)
	if req.Stream {
		dst = appendStream(d, dst)
	}
	return append(dst, '}'), nil
}

// dropReasoning lists the reasoning parts of assistant message i that
// cannot go to a Chat upstream in req.Dropped. Signed ones never can: a
// signature is only valid toward the family that issued it, and no Chat
// server issues or accepts one, so such reasoning (text and signature) is
// dropped. State a Chat server issued (ownState) goes back. Unsigned reasoning goes in the dialect's reasoning field,
// reasoning_content by default (see appendMessage); when the server
// takes none (unsigned is true), the unsigned parts with text are dropped
// too.
func dropReasoning(req *codec.Request, parts []codec.Part, i int, unsigned bool) {
	for j := range parts {
		if p := &parts[j]; p.Type == codec.PartReasoning && !ownState(p) && (p.Signature != "" || unsigned && p.HasText()) {
			req.Dropped = append(req.Dropped, wire.IndexPath(wire.IndexPath("messages", i)+".content", j)+" (reasoning)")
		}
	}
}

// appendReasoning appends reasoning_effort from req.Reasoning: an effort by its OpenAI name (max, which OpenAI lacks, as xhigh), a
// thinking budget as the effort it stands for (opts.EffortBudgets), and
// nothing for adaptive thinking or no setting, which leave the choice to the
// model. Effort none toward a model that is turned off by thinking type
// (Target.ThinkingTypeDisabled) is thinking: {type: disabled}. Settings Chat has no field for (a Responses summary, Anthropic's
// display, Gemini's includeThoughts) only shape what is shown of the
// reasoning and are listed in req.Dropped.
func appendReasoning(dst []byte, req *codec.Request, opts *codec.EncodeOptions) []byte {
	r := &req.Reasoning
	e := r.Effort
	if e == mapping.EffortUnset && r.Budget.Set && !r.Adaptive {
		e = opts.EffortBudgets.Effort(r.Budget.Value)
	}
	if e == mapping.EffortMax {
		e = mapping.EffortXHigh
	}
	if e == mapping.EffortNone && opts.Target.ThinkingTypeDisabled {
		dst = append(dst, `,"thinking":{"type":"disabled"}`...)
	} else if on := opts.Target.EffortOn; on != "" && e > mapping.EffortNone {
		dst = append(dst, `,"reasoning_effort":`...)
		dst = jsonx.AppendString(dst, on)
	} else if e != mapping.EffortUnset {
		dst = append(dst, `,"reasoning_effort":"`...)
		dst = append(dst, e.String()...)
		dst = append(dst, '"')
	}
	if r.Summary != "" {
		req.Dropped = append(req.Dropped, "reasoning.summary")
	}
	if r.Display != "" {
		req.Dropped = append(req.Dropped, "thinking.display")
	}
	if r.IncludeThoughts.Set {
		req.Dropped = append(req.Dropped, "generationConfig.thinkingConfig.includeThoughts")
	}
	return dst
}

// appendFormat appends response_format and verbosity. Plain text is
// Chat's default and is left out; a JSON Schema without a name gets
// "response", since Chat requires one and the other protocols have none.
func appendFormat(dst []byte, req *codec.Request) []byte {
	f := &req.Format
	switch f.Kind {
	case codec.FormatJSONObject:
		dst = append(dst, `,"response_format":{"type":"json_object"}`...)
	case codec.FormatJSONSchema:
		dst = append(dst, `,"response_format":{"type":"json_schema","json_schema":{"name":`...)
		name := f.Name
		if name == "" {
			name = "response"
		}
		dst = jsonx.AppendString(dst, name)
		if f.Description != "" {
			dst = append(dst, `,"description":`...)
			dst = jsonx.AppendString(dst, f.Description)
		}
		if f.Schema != "" {
			dst = append(dst, `,"schema":`...)
			dst = append(dst, f.Schema...)
		}
		if f.Strict.Set {
			dst = append(dst, `,"strict":`...)
			dst = strconv.AppendBool(dst, f.Strict.Value)
		}
		dst = append(dst, "}}"...)
	}
	if req.Verbosity != "" {
		dst = append(dst, `,"verbosity":`...)
		dst = jsonx.AppendString(dst, req.Verbosity)
	}
	return dst
}

// comma appends the comma that separates array elements unless dst
// ends with the array's opening bracket.
func comma(dst []byte) []byte {
	if dst[len(dst)-1] == '[' {
		return dst
	}
	return append(dst, ',')
}

// hasResults reports whether parts hold a tool result.
func hasResults(parts []codec.Part) bool {
	for i := range parts {
		if parts[i].Type == codec.PartToolResult {
			return true
		}
	}
	return false
}

// appendResults appends user message i, which holds tool results: one
// tool message per result, in order, then a user message with the rest.
// Chat tool messages carry text only, so the images of a result go into
// that user message, right after the tool messages and before the user's
// other content; toward a server that takes no user message right after a
// tool message (Dialect.AssistantAfterTool), after a bridging assistant
// message. It reports whether the last message written is a tool message.
func appendResults(dst []byte, parts []codec.Part, i int, d *codec.Dialect) ([]byte, bool, *codec.Error) {
	var rest []codec.Part
	var idx []int
	var err *codec.Error
	for j := range parts {
		p := &parts[j]
		if p.Type != codec.PartToolResult {
			continue
		}
		if dst, err = appendToolMessage(comma(dst), p, i, j, iDs(d)); err != nil {
			return dst, true, err
		}
		for _, c := range p.Content {
			if c.Type == codec.PartImage {
				rest, idx = append(rest, c), append(idx, j)
			}
		}
	}
	for j := range parts {
		if parts[j].Type != codec.PartToolResult {
			rest, idx = append(rest, parts[j]), append(idx, j)
		}
	}
	if len(rest) == 0 {
		return dst, true, nil
	}
	if d != nil && d.AssistantAfterTool {
		dst = append(comma(dst), bridgeMessage...)
	}
	dst, err = appendMessage(comma(dst), codec.RoleUser, rest, i, idx, d, false)
	return dst, false, err
}

// appendToolMessage appends the tool message of result p, part j of
// message i, its call id in format ids. Chat has no error flag: a failed
// result's text is prefixed with "Error: ", which decoders do not parse
// back.
func appendToolMessage(dst []byte, p *codec.Part, i, j int, ids codec.IDFormat) ([]byte, *codec.Error) {
	// Every tool result passes here: the path is only put together for an
	// error.
	if p.ToolCallID == "" {
		return dst, wire.CannotEncode(codec.OpenAIChat, encodePartPath(i, j)+".tool_call_id", "a tool result without a call id", codec.Capability{})
	}
	texts := 0
	for k := range p.Content {
		switch p.Content[k].Type {
		case codec.PartText:
			texts++
		case codec.PartImage:
		default:
			return dst, wire.CannotEncode(codec.OpenAIChat, wire.IndexPath(encodePartPath(i, j)+".content", k), "a "+p.Content[k].Type.String()+" in a tool result",
				codec.Capability{Kind: codec.CapResultContent, Message: i, Part: j, Content: k})
		}
	}
	dst = append(dst, `{"role":"tool","tool_call_id":`...)
	dst = appendToolCallID(dst, p.ToolCallID, ids)
	dst = append(dst, `,"content":`...)
	prefix := ""
	if p.IsError {
		prefix = "Error: "
	}
	if texts <= 1 {
		dst = append(dst, '"')
		dst = append(dst, prefix...)
		for k := range p.Content {
			if c := &p.Content[k]; c.Type == codec.PartText {
				dst = wire.AppendPartTextBody(dst, c)
			}
		}
		return append(dst, `"}`...), nil
	}
	dst = append(dst, '[')
	for k := range p.Content {
		c := &p.Content[k]
		if c.Type != codec.PartText {
			continue
		}
		dst = comma(dst)
		dst = append(dst, `{"type":"text","text":"`...)
		dst = append(dst, prefix...)
		dst = wire.AppendPartTextBody(dst, c)
		dst = append(dst, `"}`...)
		prefix = ""
	}
	return append(dst, "]}"...), nil
}

// appendTools appends tools, tool_choice and parallel_tool_calls. Chat
// takes a tool choice or a parallel switch only with tools; without them
// neither says anything and both are left out.
func appendTools(dst []byte, req *codec.Request) ([]byte, *codec.Error) {
	if len(req.Tools) == 0 {
		return dst, nil
	}
	if err := wire.CheckFlatNames(codec.OpenAIChat, req); err != nil {
		return dst, err
	}
	dst = append(dst, `,"tools":[`...)
	for i := range req.Tools {
		t := &req.Tools[i]
		switch t.Kind {
		case codec.ToolFunction:
		case codec.ToolCustom:
			if err := wire.CheckCustomFor(codec.OpenAIChat, t, i); err != nil {
				return dst, err
			}
		case codec.ToolWebSearch:
			return dst, wire.HostedToolError(codec.OpenAIChat, t, i, "", "Chat Completions has no hosted web search tool")
		default:
			return dst, wire.CannotEncode(codec.OpenAIChat, wire.IndexPath("tools", i), "a hosted tool", codec.Capability{Kind: codec.CapTool, Tool: i})
		}
		name, desc, params := wire.FunctionView(t)
		dst = comma(dst)
		dst = append(dst, `{"type":"function","function":{"name":`...)
		dst = jsonx.AppendString(dst, name)
		if desc != "" {
			dst = append(dst, `,"description":`...)
			dst = jsonx.AppendString(dst, desc)
		}
		if params != "" {
			dst = append(dst, `,"parameters":`...)
			dst = append(dst, params...)
		}
		if t.Strict.Set {
			dst = append(dst, `,"strict":`...)
			dst = strconv.AppendBool(dst, t.Strict.Value)
		}
		dst = append(dst, "}}"...)
	}
	dst = append(dst, ']')
	switch req.ToolChoice.Mode {
	case codec.ToolChoiceAuto:
		dst = append(dst, `,"tool_choice":"auto"`...)
	case codec.ToolChoiceNone:
		dst = append(dst, `,"tool_choice":"none"`...)
	case codec.ToolChoiceRequired:
		dst = append(dst, `,"tool_choice":"required"`...)
	case codec.ToolChoiceNamed:
		dst = append(dst, `,"tool_choice":{"type":"function","function":{"name":`...)
		dst = jsonx.AppendString(dst, codec.FlatToolName(req.ToolChoice.Namespace, req.ToolChoice.Name))
		dst = append(dst, "}}"...)
	}
	if req.ParallelToolCalls.Set {
		dst = append(dst, `,"parallel_tool_calls":`...)
		dst = strconv.AppendBool(dst, req.ParallelToolCalls.Value)
	}
	return dst, nil
}

// requestSizeHint estimates the encoded size of req, so that dst grows
// once rather than doubling its way up.
func requestSizeHint(req *codec.Request) int {
	n := 256 + len(req.Model)
	for _, p := range req.System {
		n += p.TextSize() + 32
	}
	for i := range req.Messages {
		n += 40
		for _, p := range req.Messages[i].Parts {
			n += p.TextSize() + p.ArgumentsSize() + len(p.Data) + len(p.URL) + 32
			for _, c := range p.Content {
				n += c.TextSize() + len(c.Data) + 64
			}
		}
	}
	for _, t := range req.Tools {
		n += len(t.Name) + len(t.Description) + len(t.Parameters) + 64
	}
	return n
}

// appendSampling appends the generation parameters that are set; the
// output limit under the dialect's name for it.
func appendSampling(dst []byte, req *codec.Request, d *codec.Dialect) []byte {
	if req.MaxTokens.Set {
		dst = append(dst, maxTokensKey(d)...)
		dst = jsonx.AppendInt(dst, req.MaxTokens.Value)
	}
	dst = appendFloat(dst, `,"temperature":`, req.Temperature)
	dst = appendFloat(dst, `,"top_p":`, req.TopP)
	dst = appendFloat(dst, `,"presence_penalty":`, req.PresencePenalty)
	dst = appendFloat(dst, `,"frequency_penalty":`, req.FrequencyPenalty)
	if req.Seed.Set {
		dst = append(dst, `,"seed":`...)
		dst = jsonx.AppendInt(dst, req.Seed.Value)
	}
	if len(req.StopSequences) > 0 {
		dst = append(dst, `,"stop":`...)
		dst = jsonx.AppendStringArray(dst, req.StopSequences)
	}
	if req.User != "" {
		dst = append(dst, `,"user":`...)
		dst = wire.AppendOpenAIUser(dst, req.User)
	}
	return dst
}

// appendFloat appends key and f when f is set.
func appendFloat(dst []byte, key string, f codec.OptFloat) []byte {
	if !f.Set {
		return dst
	}
	return jsonx.AppendFloat(append(dst, key...), f.Value)
}

// appendMessage appends one message; i is its index in req.Messages
// for error paths, or -1 for the system prompt, idx, when not nil, maps
// the positions in parts to the message's own (for the user message that
// follows tool results), d is the server's dialect (nil for OpenAI), and
// toolTurn reports that the message is the model's in a turn that made
// tool calls, where the dialect may want a reasoning field on it.
//
// Text is a plain string when it is one part and an array of text parts
// otherwise; images, documents and audio (user messages only) make it an
// array of typed parts. Refusal parts of an assistant message go to its
// refusal field and tool calls to tool_calls, with content null when there
// is no text; Chat has no refusal slot in the other roles, so there a
// refusal is projected into text unchanged. Unsigned reasoning of an
// assistant message goes to the dialect's reasoning field
// (reasoning_content by default), its texts concatenated; signed reasoning
// was listed as dropped by dropReasoning, and so was unsigned
// reasoning toward a server that takes no reasoning field.
func appendMessage(dst []byte, role codec.Role, parts []codec.Part, i int, idx []int, d *codec.Dialect, toolTurn bool) ([]byte, *codec.Error) {
	texts, refusals, media, calls, reasoning := 0, 0, 0, 0, 0
	for j := range parts {
		p := &parts[j]
		switch p.Type {
		case codec.PartReasoning:
			if role != codec.RoleAssistant {
				return dst, wire.CannotEncode(codec.OpenAIChat, encodeIdxPath(i, j, idx), "a reasoning outside an assistant message", partCapability(i, j, idx))
			}
			if p.Signature == "" && p.HasText() {
				reasoning++
			}
		case codec.PartText:
			texts++
		case codec.PartRefusal:
			refusals++
		case codec.PartToolCall:
			if role != codec.RoleAssistant {
				return dst, wire.CannotEncode(codec.OpenAIChat, encodeIdxPath(i, j, idx), "a tool call outside an assistant message", partCapability(i, j, idx))
			}
			calls++
		case codec.PartImage, codec.PartDocument, codec.PartAudio:
			if role != codec.RoleUser {
				return dst, wire.CannotEncode(codec.OpenAIChat, encodeIdxPath(i, j, idx), "a "+p.Type.String()+" outside a user message", partCapability(i, j, idx))
			}
			if what := mediaProblem(p); what != "" {
				return dst, wire.CannotEncode(codec.OpenAIChat, encodeIdxPath(i, j, idx), what, partCapability(i, j, idx))
			}
			media++
		default:
			return dst, wire.CannotEncode(codec.OpenAIChat, encodeIdxPath(i, j, idx), "a "+p.Type.String()+" outside a user message", partCapability(i, j, idx))
		}
	}
	if role != codec.RoleAssistant {
		texts, refusals = texts+refusals, 0
	}

	dst = append(dst, `{"role":`...)
	dst = jsonx.AppendString(dst, dialectRole(d, role).String())
	dst = append(dst, `,"content":`...)
	switch {
	case media > 0:
		dst = appendContentParts(dst, parts)
	case texts == 0 && (refusals > 0 || calls > 0):
		dst = append(dst, "null"...)
	case texts == 0:
		dst = append(dst, `""`...)
	case texts == 1:
		dst = appendJoined(dst, parts, role != codec.RoleAssistant)
	default:
		dst = appendTextParts(dst, parts, role != codec.RoleAssistant)
	}
	if key := reasoningKey(d); key != "" && (reasoning > 0 || (calls > 0 || toolTurn && role == codec.RoleAssistant) && emptyReasoning(d)) {
		dst = append(dst, key...)
		for j := range parts {
			if p := &parts[j]; p.Type == codec.PartReasoning && p.Signature == "" {
				dst = jsonx.AppendStringBody(dst, p.TextValue())
			}
		}
		dst = append(dst, '"')
	}
	if refusals > 0 {
		dst = append(dst, `,"refusal":`...)
		dst = appendJoinedRefusal(dst, parts)
	}
	if calls > 0 {
		dst = appendToolCalls(append(dst, `,"tool_calls":`...), parts, iDs(d))
	}
	if role == codec.RoleAssistant {
		dst = appendOwnState(dst, parts)
	}
	return append(dst, '}'), nil
}

// ownState reports whether reasoning part p is state a Chat server
// issued (an opaquePart of FamilyOpenAIChat, such as audioState): the
// members of a JSON object to put back on the assistant message.
func ownState(p *codec.Part) bool {
	return wire.IsOpaque(p, mapping.FamilyOpenAIChat) && strings.HasSuffix(p.Signature, "}") && jsonx.Valid(p.Signature)
}

// appendOwnState appends the members of the Chat state among parts to
// the assistant message object dst is writing.
func appendOwnState(dst []byte, parts []codec.Part) []byte {
	for j := range parts {
		if p := &parts[j]; p.Type == codec.PartReasoning && ownState(p) {
			if members := strings.TrimSpace(p.Signature[1 : len(p.Signature)-1]); members != "" {
				dst = append(append(dst, ','), members...)
			}
		}
	}
	return dst
}

// encodeIdxPath names part j of parts in an encoding error, through
// idx when the parts were regrouped.
func encodeIdxPath(i, j int, idx []int) string {
	if idx != nil {
		j = idx[j]
	}
	return encodePartPath(i, j)
}

// partCapability is the Capability of the part encodeIdxPath
// names.
func partCapability(i, j int, idx []int) codec.Capability {
	if idx != nil {
		j = idx[j]
	}
	return codec.PartCapability(i, j)
}

// encodePartPath names a canonical part in an encoding error.
func encodePartPath(i, j int) string {
	if i < 0 {
		return wire.IndexPath("system", j)
	}
	return wire.IndexPath(wire.IndexPath("messages", i)+".parts", j)
}

// mediaProblem says why media part p cannot be written to Chat, or "".
// Chat takes images as data: or http(s) URLs, files as data: URLs only
// (llmbridge never fetches a URL) and audio as wav or mp3 data.
func mediaProblem(p *codec.Part) string {
	switch {
	case p.Type == codec.PartImage && p.URL != "":
		return ""
	case p.URL != "":
		return "a " + p.Type.String() + " given by URL"
	case p.MediaType == "" || p.Data == "":
		return "a " + p.Type.String() + " without media type and data"
	case p.Type == codec.PartAudio && audioFormat(p.MediaType) == "":
		return `audio of type "` + p.MediaType + `"`
	}
	return ""
}

// audioFormat returns the input_audio format of an audio media type,
// or "".
func audioFormat(mediaType string) string {
	switch mediaType {
	case "audio/wav", "audio/x-wav", "audio/wave":
		return "wav"
	case "audio/mp3", "audio/mpeg":
		return "mp3"
	}
	return ""
}

// appendContentParts appends the content of a user message with
// media as an array of typed parts; text and refusal parts are text.
func appendContentParts(dst []byte, parts []codec.Part) []byte {
	dst = append(dst, '[')
	for j := range parts {
		p := &parts[j]
		dst = comma(dst)
		switch p.Type {
		case codec.PartImage:
			dst = append(dst, `{"type":"image_url","image_url":{"url":`...)
			if p.URL != "" {
				dst = jsonx.AppendString(dst, p.URL)
			} else {
				dst = appendDataURL(dst, p)
			}
			dst = append(dst, "}}"...)
		case codec.PartDocument:
			dst = append(dst, `{"type":"file","file":{`...)
			if p.HasText() {
				dst = append(dst, `"filename":`...)
				dst = jsonx.AppendString(dst, p.TextValue())
				dst = append(dst, ',')
			}
			dst = append(dst, `"file_data":`...)
			dst = appendDataURL(dst, p)
			dst = append(dst, "}}"...)
		case codec.PartAudio:
			dst = append(dst, `{"type":"input_audio","input_audio":{"data":`...)
			dst = jsonx.AppendString(dst, p.Data)
			dst = append(dst, `,"format":"`...)
			dst = append(dst, audioFormat(p.MediaType)...)
			dst = append(dst, `"}}`...)
		default:
			dst = append(dst, `{"type":"text","text":`...)
			dst = wire.AppendPartText(dst, p)
			dst = append(dst, '}')
		}
	}
	return append(dst, ']')
}

// appendDataURL appends the data: URL of p's media type and data.
func appendDataURL(dst []byte, p *codec.Part) []byte {
	dst = append(dst, `"data:`...)
	dst = jsonx.AppendStringBody(dst, p.MediaType)
	dst = append(dst, ";base64,"...)
	dst = jsonx.AppendStringBody(dst, p.Data)
	return append(dst, '"')
}

// appendToolCalls appends the tool call parts as a tool_calls array,
// their ids in format ids. Arguments are written as a JSON string holding
// the object's text, "{}" when there are none.
func appendToolCalls(dst []byte, parts []codec.Part, ids codec.IDFormat) []byte {
	dst = append(dst, '[')
	for j := range parts {
		p := &parts[j]
		if p.Type != codec.PartToolCall {
			continue
		}
		dst = comma(dst)
		dst = append(dst, `{"id":`...)
		dst = appendToolCallID(dst, p.ToolCallID, ids)
		dst = append(dst, `,"type":"function","function":{"name":`...)
		dst = jsonx.AppendString(dst, wire.CallWireName(p))
		dst = append(dst, `,"arguments":`...)
		dst = wire.AppendArgumentsString(dst, p)
		dst = append(dst, "}}"...)
	}
	return append(dst, ']')
}

// appendTextParts appends the text parts (and, when refusalsAsText, the
// refusal parts) as an array of Chat text content parts.
func appendTextParts(dst []byte, parts []codec.Part, refusalsAsText bool) []byte {
	dst = append(dst, '[')
	first := true
	for i := range parts {
		p := &parts[i]
		if p.Type != codec.PartText && !refusalsAsText {
			continue
		}
		if !first {
			dst = append(dst, ',')
		}
		first = false
		dst = append(dst, `{"type":"text","text":`...)
		dst = wire.AppendPartText(dst, p)
		dst = append(dst, '}')
	}
	return append(dst, ']')
}

// appendAnnotations appends the citations of the text parts as Chat
// url_citation annotations ({type, url_citation: {start_index, end_index,
// url, title}}), whose character indexes count from the start of the
// message content, the text parts joined.
func appendAnnotations(dst []byte, parts []codec.Part) []byte {
	dst = append(dst, '[')
	base, first := 0, true
	for i := range parts {
		p := &parts[i]
		if p.Type != codec.PartText {
			continue
		}
		for k := range p.Citations {
			if !first {
				dst = append(dst, ',')
			}
			first = false
			dst = append(dst, `{"type":"url_citation","url_citation":{`...)
			dst = wire.AppendURLCitationFields(dst, &p.Citations[k], p.TextValue(), base)
			dst = append(dst, `}}`...)
		}
		base += utf8.RuneCountInString(p.TextValue())
	}
	return append(dst, ']')
}

// appendJoined appends the text parts (and, when refusalsAsText, the
// refusal parts) concatenated as one JSON string: they are one contiguous
// output, so no separator is added.
func appendJoined(dst []byte, parts []codec.Part, refusalsAsText bool) []byte {
	dst = append(dst, '"')
	for i := range parts {
		if p := &parts[i]; p.Type == codec.PartText || refusalsAsText {
			dst = wire.AppendPartTextBody(dst, p)
		}
	}
	return append(dst, '"')
}

// appendJoinedRefusal appends the refusal parts concatenated as one JSON
// string.
func appendJoinedRefusal(dst []byte, parts []codec.Part) []byte {
	dst = append(dst, '"')
	for _, p := range parts {
		if p.Type == codec.PartRefusal {
			dst = jsonx.AppendStringBody(dst, p.TextValue())
		}
	}
	return append(dst, '"')
}
