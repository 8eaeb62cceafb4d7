package responses

import (
	"strings"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/jsonx"
	"github.com/llmbridge/llmbridge/codec/internal/wire"
	"github.com/llmbridge/llmbridge/mapping"
)

// appendDataURL appends p's source as a JSON string: its URL, or a
// data: URL rebuilt from MediaType and Data.
func appendDataURL(dst []byte, p *codec.Part) []byte {
	if p.URL != "" {
		return jsonx.AppendString(dst, p.URL)
	}
	dst = append(dst, `"data:`...)
	dst = appendStringBody(dst, p.MediaType)
	dst = append(dst, ";base64,"...)
	dst = appendStringBody(dst, p.Data)
	return append(dst, '"')
}

// appendStringBody appends s escaped as in a JSON string, without
// the quotes.
func appendStringBody(dst []byte, s string) []byte {
	n := len(dst)
	dst = jsonx.AppendString(dst, s)
	copy(dst[n:], dst[n+1:len(dst)-1])
	return dst[:len(dst)-2]
}

// appendRequest encodes req as a Responses create-response body.
//
// llmbridge is stateless, so the body always says store:false and carries
// the whole history in input. System instructions become a leading system
// or developer message (per req.SystemRole) rather than the instructions
// field, and later system and developer messages stay in place: the
// Responses API accepts both roles anywhere in input.
func appendRequest(dst []byte, req *codec.Request, opts *codec.EncodeOptions) ([]byte, *codec.Error) {
	if err := checkEncodable(req); err != nil {
		return dst, err
	}
	if req.Seed.Set {
		// Responses has no seed; best-effort determinism is a hint.
		req.Dropped = append(req.Dropped, "seed")
	}
	wire.DropBreakpoints(req)
	dst = append(dst, `{"model":`...)
	dst = jsonx.AppendString(dst, wire.EncodeModel(opts, req))
	dst = append(dst, `,"input":[`...)
	first := true
	var err *codec.Error
	if len(req.System) > 0 {
		role := codec.RoleSystem
		if req.SystemRole == codec.RoleDeveloper {
			role = codec.RoleDeveloper
		}
		if dst, err = appendItems(dst, req, role, req.System, -1, &first); err != nil {
			return dst, err
		}
	}
	for i := range req.Messages {
		if dst, err = appendItems(dst, req, req.Messages[i].Role, req.Messages[i].Parts, i, &first); err != nil {
			return dst, err
		}
	}
	dst = append(dst, ']')
	if dst, err = appendTools(dst, req); err != nil {
		return dst, err
	}
	dst = appendReasoning(dst, req, opts)
	if dst, err = appendText(dst, req); err != nil {
		return dst, err
	}
	if req.MaxTokens.Set {
		dst = append(dst, `,"max_output_tokens":`...)
		dst = jsonx.AppendInt(dst, req.MaxTokens.Value)
	}
	if req.Temperature.Set {
		dst = append(dst, `,"temperature":`...)
		dst = jsonx.AppendFloat(dst, req.Temperature.Value)
	}
	if req.TopP.Set {
		dst = append(dst, `,"top_p":`...)
		dst = jsonx.AppendFloat(dst, req.TopP.Value)
	}
	if req.User != "" {
		dst = append(dst, `,"user":`...)
		dst = wire.AppendOpenAIUser(dst, req.User)
	}
	if req.Stream {
		dst = append(dst, `,"stream":true`...)
	}
	dst = append(dst, `,"store":false}`...)
	return dst, nil
}

// checkEncodable rejects canonical parameters the Responses API has
// no field for and that change what the model generates.
func checkEncodable(req *codec.Request) *codec.Error {
	switch {
	case req.TopK.Set:
		return wire.CannotEncode(codec.OpenAIResponses, "top_k", "top_k sampling", codec.Capability{Kind: codec.CapTopK})
	case len(req.StopSequences) > 0:
		return wire.CannotEncode(codec.OpenAIResponses, "stop_sequences", "stop sequences", codec.Capability{Kind: codec.CapStopSequences})
	case req.PresencePenalty.Set:
		return wire.CannotEncode(codec.OpenAIResponses, "presence_penalty", "a presence penalty", codec.Capability{Kind: codec.CapPresencePenalty})
	case req.FrequencyPenalty.Set:
		return wire.CannotEncode(codec.OpenAIResponses, "frequency_penalty", "a frequency penalty", codec.Capability{Kind: codec.CapFrequencyPenalty})
	}
	return nil
}

// appendItems appends the input items of one canonical message
// (messages[msg], or the system prompt when msg < 0, in errors), with a
// comma before each unless *first.
// Tool calls become function_call items and tool results
// function_call_output items, in place; the other parts between them are
// grouped into message items.
func appendItems(dst []byte, req *codec.Request, role codec.Role, parts []codec.Part, msg int, first *bool) ([]byte, *codec.Error) {
	// Paths are only built for errors: this runs for every message.
	partPath := func(k int) string { return partPath(msg, k) }
	comma := func() {
		if !*first {
			dst = append(dst, ',')
		}
		*first = false
	}
	if len(parts) == 0 {
		comma()
		return appendMessage(dst, role, nil), nil
	}
	for i := 0; i < len(parts); {
		p := &parts[i]
		switch p.Type {
		case codec.PartToolCall:
			if role != codec.RoleAssistant {
				return dst, wire.CannotEncode(codec.OpenAIResponses, partPath(i), "a tool call outside an assistant message", codec.PartCapability(msg, i))
			}
			comma()
			dst = appendCallItem(dst, p)
			i++
			continue
		case codec.PartToolResult:
			if role != codec.RoleUser {
				return dst, wire.CannotEncode(codec.OpenAIResponses, partPath(i), "a tool result outside a user message", codec.PartCapability(msg, i))
			}
			comma()
			var err *codec.Error
			if dst, err = appendOutputItem(dst, p, customCall(req, p.ToolCallID), msg, i); err != nil {
				return dst, err
			}
			i++
			continue
		case codec.PartReasoning:
			// Only OpenAI's own encrypted reasoning can go back to
			// OpenAI; anything else would be rejected or, as plain
			// text, misread as the model's words.
			if role == codec.RoleAssistant && wire.SignedFor(p, codec.OpenAIResponses) {
				comma()
				dst = appendReasoningItem(dst, p)
			} else {
				base := "system"
				if msg >= 0 {
					base = wire.IndexPath("messages", msg)
				}
				req.Dropped = append(req.Dropped, wire.IndexPath(base+".content", i)+" (reasoning)")
			}
			i++
			continue
		}
		// A run of content parts becomes one message item.
		j := i + 1
		for j < len(parts) && parts[j].Type != codec.PartToolCall && parts[j].Type != codec.PartToolResult && parts[j].Type != codec.PartReasoning {
			j++
		}
		for k := i; k < j; k++ {
			switch parts[k].Type {
			case codec.PartAudio:
				return dst, wire.CannotEncode(codec.OpenAIResponses, partPath(k), "audio input", codec.PartCapability(msg, k))
			case codec.PartImage, codec.PartDocument:
				if role != codec.RoleUser {
					return dst, wire.CannotEncode(codec.OpenAIResponses, partPath(k), "an image or document outside a user message", codec.PartCapability(msg, k))
				}
			case codec.PartText, codec.PartRefusal:
			default:
				return dst, wire.CannotEncode(codec.OpenAIResponses, partPath(k), "a "+parts[k].Type.String()+" part", codec.PartCapability(msg, k))
			}
		}
		comma()
		dst = appendMessage(dst, role, parts[i:j])
		i = j
	}
	return dst, nil
}

// appendReasoningItem appends a reasoning input item carrying
// OpenAI's encrypted reasoning back: its id when known, its summary (empty
// when the text is), and encrypted_content.
func appendReasoningItem(dst []byte, p *codec.Part) []byte {
	if wire.IsOpaque(p, mapping.FamilyOpenAI) && jsonx.Valid(p.Signature) {
		// An item llmbridge does not translate, back where it was.
		return append(dst, p.Signature...)
	}
	dst = append(dst, `{"type":"reasoning"`...)
	if p.ItemID != "" {
		dst = append(dst, `,"id":`...)
		dst = jsonx.AppendString(dst, p.ItemID)
	}
	dst = appendSummary(dst, p.TextValue())
	dst = append(dst, `,"encrypted_content":`...)
	dst = jsonx.AppendString(dst, p.Signature)
	return append(dst, '}')
}

// appendSummary appends the summary member of a reasoning item:
// one summary_text part holding text, or none when it is empty.
func appendSummary(dst []byte, text string) []byte {
	if text == "" {
		return append(dst, `,"summary":[]`...)
	}
	dst = append(dst, `,"summary":[{"type":"summary_text","text":`...)
	dst = jsonx.AppendString(dst, text)
	return append(dst, `}]`...)
}

// wantsReasoning reports whether req asks for reasoning: a
// non-zero effort, a positive budget, or adaptive thinking.
func wantsReasoning(r *codec.Reasoning) bool {
	return r.Effort > mapping.EffortNone || r.Budget.Set && r.Budget.Value > 0 || r.Adaptive
}

// appendReasoning appends reasoning and include. An effort is sent by name (Anthropic's max as xhigh), a budget as
// the effort it stands for, adaptive thinking as no effort (the model
// decides); nothing is sent when nothing was asked. When reasoning is asked
// for without a summary setting, summary "auto" is sent so that the client
// sees what the model thought, unless the client said it does not want the
// reasoning shown (Gemini includeThoughts false, Anthropic display
// omitted). Encrypted reasoning is requested whenever the model reasons
// or the history holds some: with store:false it is the only way the next
// turn can continue the reasoning.
func appendReasoning(dst []byte, req *codec.Request, opts *codec.EncodeOptions) []byte {
	r := &req.Reasoning
	effort := r.Effort
	if effort == mapping.EffortUnset && r.Budget.Set && !r.Adaptive {
		effort = opts.EffortBudgets.Effort(r.Budget.Value)
	}
	if effort == mapping.EffortMax {
		effort = mapping.EffortXHigh
	}
	wants := wantsReasoning(r)
	summary := r.Summary
	if summary == "" && wants && !(r.IncludeThoughts.Set && !r.IncludeThoughts.Value) && r.Display != "omitted" {
		summary = "auto"
	}
	if effort != mapping.EffortUnset || summary != "" {
		dst = append(dst, `,"reasoning":{`...)
		if effort != mapping.EffortUnset {
			dst = append(dst, `"effort":`...)
			dst = jsonx.AppendString(dst, effort.String())
			if summary != "" {
				dst = append(dst, ',')
			}
		}
		if summary != "" {
			dst = append(dst, `"summary":`...)
			dst = jsonx.AppendString(dst, summary)
		}
		dst = append(dst, '}')
	}
	encrypted := wants
	for i := 0; !encrypted && i < len(req.Include); i++ {
		encrypted = req.Include[i] == "reasoning.encrypted_content"
	}
	for i := 0; !encrypted && i < len(req.Messages); i++ {
		parts := req.Messages[i].Parts
		for k := range parts {
			if parts[k].Type == codec.PartReasoning && wire.SignedFor(&parts[k], codec.OpenAIResponses) {
				encrypted = true
				break
			}
		}
	}
	if encrypted {
		dst = append(dst, `,"include":["reasoning.encrypted_content"]`...)
	}
	return dst
}

// appendText appends text: the output format and verbosity. A JSON
// schema format needs a schema (OpenAI requires one) and a name, which is
// "response" when the client's protocol has none.
func appendText(dst []byte, req *codec.Request) ([]byte, *codec.Error) {
	f := &req.Format
	if f.Kind == codec.FormatText && req.Verbosity == "" {
		return dst, nil
	}
	if f.Kind == codec.FormatJSONSchema && f.Schema == "" {
		return dst, wire.CannotEncode(codec.OpenAIResponses, "text.format.schema", "a JSON schema output format without a schema", codec.Capability{Kind: codec.CapFormat})
	}
	dst = append(dst, `,"text":{`...)
	switch f.Kind {
	case codec.FormatJSONObject:
		dst = append(dst, `"format":{"type":"json_object"}`...)
	case codec.FormatJSONSchema:
		dst = append(dst, `"format":{"type":"json_schema","name":`...)
		name := f.Name
		if name == "" {
			name = "response"
		}
		dst = jsonx.AppendString(dst, name)
		if f.Description != "" {
			dst = append(dst, `,"description":`...)
			dst = jsonx.AppendString(dst, f.Description)
		}
		dst = append(dst, `,"schema":`...)
		dst = append(dst, f.Schema...)
		if f.Strict.Set {
			if f.Strict.Value {
				dst = append(dst, `,"strict":true`...)
			} else {
				dst = append(dst, `,"strict":false`...)
			}
		}
		dst = append(dst, '}')
	}
	if req.Verbosity != "" {
		if f.Kind != codec.FormatText {
			dst = append(dst, ',')
		}
		dst = append(dst, `"verbosity":`...)
		dst = jsonx.AppendString(dst, req.Verbosity)
	}
	return append(dst, '}'), nil
}

// appendMessage appends one input message item of text, refusal,
// image and document parts (checked by the caller). Assistant text is
// output_text and keeps refusals in their own part; the other roles take
// input_text, and a refusal there (which only an assistant writes) is
// projected to text unchanged.
func appendMessage(dst []byte, role codec.Role, parts []codec.Part) []byte {
	dst = append(dst, `{"type":"message","role":`...)
	dst = jsonx.AppendString(dst, role.String())
	dst = append(dst, `,"content":[`...)
	for i := range parts {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendInputPart(dst, role, &parts[i])
	}
	return append(dst, `]}`...)
}

// appendInputPart appends one content part of an input message or
// tool output.
func appendInputPart(dst []byte, role codec.Role, p *codec.Part) []byte {
	switch {
	case p.Type == codec.PartImage:
		dst = append(dst, `{"type":"input_image","image_url":`...)
		dst = appendDataURL(dst, p)
		return append(dst, `,"detail":"auto"}`...)
	case p.Type == codec.PartDocument:
		dst = append(dst, `{"type":"input_file",`...)
		if p.URL != "" {
			dst = append(dst, `"file_url":`...)
			dst = jsonx.AppendString(dst, p.URL)
		} else {
			dst = append(dst, `"file_data":`...)
			dst = appendDataURL(dst, p)
		}
		// OpenAI needs a filename with file_data to read the file;
		// without a title, one is made from the media type.
		dst = append(dst, `,"filename":`...)
		dst = jsonx.AppendString(dst, filename(p))
		return append(dst, '}')
	case role != codec.RoleAssistant:
		dst = append(dst, `{"type":"input_text","text":`...)
	case p.Type == codec.PartRefusal:
		dst = append(dst, `{"type":"refusal","refusal":`...)
	default:
		dst = append(dst, `{"type":"output_text","text":`...)
	}
	dst = wire.AppendPartText(dst, p)
	return append(dst, '}')
}

// filename is the filename of a document: its title, or
// "document" with the extension of its media type.
func filename(p *codec.Part) string {
	if p.HasText() {
		return p.TextValue()
	}
	switch p.MediaType {
	case "application/pdf":
		return "document.pdf"
	case "text/plain":
		return "document.txt"
	}
	return "document"
}

// appendCallItem appends a function_call item (with its
// namespace, when it has one), or a custom_tool_call item for a call of a
// custom tool. Its arguments are the object text as a JSON string, "{}"
// when there are none; a custom call's input is its raw text.
func appendCallItem(dst []byte, p *codec.Part) []byte {
	if p.ToolKind == codec.ToolCustom {
		dst = append(dst, `{"type":"custom_tool_call","call_id":`...)
	} else {
		dst = append(dst, `{"type":"function_call","call_id":`...)
	}
	dst = jsonx.AppendString(dst, p.ToolCallID)
	dst = append(dst, `,"name":`...)
	dst = jsonx.AppendString(dst, p.ToolName)
	if p.Namespace != "" {
		dst = append(dst, `,"namespace":`...)
		dst = jsonx.AppendString(dst, p.Namespace)
	}
	if p.ToolKind == codec.ToolCustom {
		dst = append(dst, `,"input":`...)
		dst = jsonx.AppendString(dst, wire.CustomInput(p.ArgumentsValue()))
	} else {
		dst = append(dst, `,"arguments":`...)
		dst = wire.AppendArgumentsString(dst, p)
	}
	return append(dst, '}')
}

// customCall reports whether the call with id in req's history is
// a call of a custom tool, whose result is a custom_tool_call_output.
func customCall(req *codec.Request, id string) bool {
	custom := false
	for i := range req.Tools {
		custom = custom || req.Tools[i].Kind == codec.ToolCustom
	}
	if !custom {
		return false
	}
	for i := range req.Messages {
		parts := req.Messages[i].Parts
		for k := range parts {
			if parts[k].Type == codec.PartToolCall && parts[k].ToolCallID == id {
				return parts[k].ToolKind == codec.ToolCustom
			}
		}
	}
	return false
}

// appendOutputItem appends a function_call_output item (a
// custom_tool_call_output for the result of a custom tool call). A result
// of one text part is a string output, anything else a list of input_text
// and input_image parts (Responses takes images in tool outputs). Responses
// has no error flag: an error result's text is prefixed with "Error: ", which
// decoders do not parse back.
func appendOutputItem(dst []byte, p *codec.Part, custom bool, msg, part int) ([]byte, *codec.Error) {
	if custom {
		dst = append(dst, `{"type":"custom_tool_call_output","call_id":`...)
	} else {
		dst = append(dst, `{"type":"function_call_output","call_id":`...)
	}
	dst = jsonx.AppendString(dst, p.ToolCallID)
	dst = append(dst, `,"output":`...)
	prefix := ""
	if p.IsError {
		prefix = "Error: "
	}
	switch {
	case len(p.Content) == 0:
		dst = jsonx.AppendString(dst, strings.TrimSpace(prefix))
		return append(dst, '}'), nil
	case len(p.Content) == 1 && p.Content[0].Type == codec.PartText:
		dst = wire.AppendPrefixedPartText(dst, prefix, &p.Content[0])
		return append(dst, '}'), nil
	}
	dst = append(dst, '[')
	if p.IsError && p.Content[0].Type != codec.PartText {
		dst = append(dst, `{"type":"input_text","text":"Error:"},`...)
	}
	for i := range p.Content {
		c := &p.Content[i]
		if i > 0 {
			dst = append(dst, ',')
		}
		switch c.Type {
		case codec.PartText:
			dst = append(dst, `{"type":"input_text","text":`...)
			if i == 0 {
				dst = wire.AppendPrefixedPartText(dst, prefix, c)
			} else {
				dst = wire.AppendPartText(dst, c)
			}
			dst = append(dst, '}')
		case codec.PartImage:
			dst = appendInputPart(dst, codec.RoleUser, c)
		default:
			return dst, wire.CannotEncode(codec.OpenAIResponses, wire.IndexPath(partPath(msg, part)+".content", i), "a "+c.Type.String()+" part in a tool result",
				codec.Capability{Kind: codec.CapResultContent, Message: msg, Part: part, Content: i})
		}
	}
	return append(dst, "]}"...), nil
}

// partPath names part k of message msg, or of the system prompt
// when msg is -1, in an encoding error.
func partPath(msg, k int) string {
	base := "system"
	if msg >= 0 {
		base = wire.IndexPath("messages", msg)
	}
	return wire.IndexPath(base+".parts", k)
}
