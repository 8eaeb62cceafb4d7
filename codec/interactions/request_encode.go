package interactions

import (
	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/jsonx"
	"github.com/llmbridge/llmbridge/codec/internal/wire"
	"github.com/llmbridge/llmbridge/mapping"
)

// appendRequest appends req as a create-interaction body for an upstream
// of protocol p. The whole conversation travels as typed steps with
// store false: a translated conversation is the client's, and Google
// keeping a copy of it would only cost storage that nothing refers to.
// The system prompt, and system or developer messages later in the
// conversation, are joined into system_instruction, a string.
func appendRequest(dst []byte, p codec.Protocol, req *codec.Request, opts *codec.EncodeOptions) ([]byte, *codec.Error) {
	start := len(dst)
	var err *codec.Error
	switch {
	case req.TopK.Set:
		err = wire.CannotEncode(p, "top_k", "top_k", codec.Capability{Kind: codec.CapTopK})
	case req.PresencePenalty.Set:
		err = wire.CannotEncode(p, "presence_penalty", "presence_penalty", codec.Capability{Kind: codec.CapPresencePenalty})
	case req.FrequencyPenalty.Set:
		err = wire.CannotEncode(p, "frequency_penalty", "frequency_penalty", codec.Capability{Kind: codec.CapFrequencyPenalty})
	case req.Verbosity != "":
		err = wire.CannotEncode(p, "verbosity", "verbosity", codec.Capability{Kind: codec.CapVerbosity})
	}
	if err == nil {
		err = wire.CheckFlatNames(p, req)
	}
	if err != nil {
		return dst, err
	}
	dst = append(dst, `{"model":`...)
	dst = jsonx.AppendString(dst, wire.EncodeModel(opts, req))
	dst = append(dst, `,"input":[`...)
	var n int
	if dst, n, err = appendSteps(dst, p, req); err != nil {
		return dst[:start], err
	}
	if n == 0 {
		return dst[:start], wire.CannotEncode(p, "messages", "a conversation without any user or assistant content", codec.Capability{})
	}
	dst = append(dst, ']')
	if dst, err = appendSystemInstruction(dst, p, req); err != nil {
		return dst[:start], err
	}
	if dst, err = appendTools(dst, p, req); err != nil {
		return dst[:start], err
	}
	dst = appendGenerationConfig(dst, req, opts)
	dst = appendResponseFormat(dst, &req.Format)
	if req.Stream {
		dst = append(dst, `,"stream":true`...)
	}
	dst = append(dst, `,"store":false}`...)
	if req.User != "" {
		// The Interactions API has no end-user identifier.
		req.Dropped = append(req.Dropped, "user")
	}
	if req.ParallelToolCalls.Set {
		// Gemini decides by itself whether to call functions in parallel.
		req.Dropped = append(req.Dropped, "parallel_tool_calls")
	}
	wire.DropBreakpoints(req)
	wire.DropPromptCache(req)
	return dst, nil
}

// appendSystemInstruction appends system_instruction, the text of the
// system prompt and of later system messages, joined by blank lines. The
// texts are written into the string one after the other, each copied from
// the literal it was decoded from where there is one.
func appendSystemInstruction(dst []byte, p codec.Protocol, req *codec.Request) ([]byte, *codec.Error) {
	start := len(dst)
	dst = append(dst, `,"system_instruction":"`...)
	empty := len(dst)
	add := func(parts []codec.Part, msg int) *codec.Error {
		for j := range parts {
			part := &parts[j]
			if part.Type != codec.PartText {
				return wire.CannotEncode(p, "system", "a system prompt part that is not text", codec.PartCapability(msg, j))
			}
			if !part.HasText() {
				continue
			}
			if len(dst) > empty {
				dst = append(dst, `\n\n`...)
			}
			dst = wire.AppendPartTextBody(dst, part)
		}
		return nil
	}
	if err := add(req.System, -1); err != nil {
		return dst[:start], err
	}
	for i := range req.Messages {
		if wire.IsSystemRole(req.Messages[i].Role) {
			if err := add(req.Messages[i].Parts, i); err != nil {
				return dst[:start], err
			}
		}
	}
	if len(dst) == empty {
		return dst[:start], nil
	}
	return append(dst, '"'), nil
}

// stepWriter writes the input's steps, opening a user_input or
// model_output step for content and merging consecutive content of one
// step.
type stepWriter struct {
	dst []byte
	// n counts the steps written.
	n int
	// open is the type of the content step being written, or "".
	open string
}

// content opens a content step of type typ unless one is open, and
// prepares for one more content object in it.
func (w *stepWriter) content(typ string) {
	if w.open == typ {
		w.dst = append(w.dst, ',')
		return
	}
	w.closeStep()
	w.next()
	w.dst = append(w.dst, `{"type":"`...)
	w.dst = append(w.dst, typ...)
	w.dst = append(w.dst, `","content":[`...)
	w.open = typ
}

// step closes any content step and starts another step.
func (w *stepWriter) step() {
	w.closeStep()
	w.next()
}

// next writes the comma before a step.
func (w *stepWriter) next() {
	if w.n > 0 {
		w.dst = append(w.dst, ',')
	}
	w.n++
}

// closeStep closes the open content step.
func (w *stepWriter) closeStep() {
	if w.open != "" {
		w.dst = append(w.dst, `]}`...)
		w.open = ""
	}
}

// appendSteps appends the conversation as steps and returns how many it
// wrote. User content is user_input, assistant text model_output (a
// refusal is text there), tool calls function_call and results
// function_result steps. Reasoning that Google signed goes back as a
// thought step with its signature and its text as the summary; other
// reasoning, which Google cannot verify, and hosted search history,
// which Google takes back only with its own signatures, are left out
// and listed in req.Dropped.
func appendSteps(dst []byte, p codec.Protocol, req *codec.Request) ([]byte, int, *codec.Error) {
	w := stepWriter{dst: dst}
	for i := range req.Messages {
		m := &req.Messages[i]
		if wire.IsSystemRole(m.Role) {
			continue
		}
		kind := "user_input"
		if m.Role == codec.RoleAssistant {
			kind = "model_output"
		}
		for j := range m.Parts {
			part := &m.Parts[j]
			switch part.Type {
			case codec.PartText, codec.PartRefusal:
				if !part.HasText() {
					continue
				}
				w.content(kind)
				w.dst = append(w.dst, `{"type":"text","text":`...)
				w.dst = wire.AppendPartText(w.dst, part)
				w.dst = append(w.dst, '}')
			case codec.PartImage, codec.PartDocument, codec.PartAudio:
				if m.Role != codec.RoleUser {
					return w.dst, w.n, wire.CannotEncode(p, wire.IndexPath("messages", i), "media in an assistant message", codec.PartCapability(i, j))
				}
				w.content(kind)
				w.dst = appendMedia(w.dst, part)
			case codec.PartReasoning:
				if m.Role != codec.RoleAssistant || !wire.SignedFor(part, p) || wire.IsOpaque(part, mapping.FamilyGemini) {
					req.Dropped = append(req.Dropped, partPath(i, j)+" (reasoning)")
					continue
				}
				w.step()
				w.dst = appendThought(w.dst, part.Signature, part.TextValue())
			case codec.PartToolCall:
				if m.Role != codec.RoleAssistant {
					return w.dst, w.n, wire.CannotEncode(p, partPath(i, j), "a tool call outside an assistant message", codec.PartCapability(i, j))
				}
				w.step()
				w.dst = appendFunctionCall(w.dst, part)
			case codec.PartToolResult:
				if m.Role != codec.RoleUser {
					return w.dst, w.n, wire.CannotEncode(p, partPath(i, j), "a tool result outside a user message", codec.PartCapability(i, j))
				}
				w.step()
				var err *codec.Error
				if w.dst, err = appendFunctionResult(w.dst, p, part, i, j); err != nil {
					return w.dst, w.n, err
				}
			case codec.PartServerToolCall, codec.PartServerToolResult:
				req.Dropped = append(req.Dropped, partPath(i, j)+" ("+part.Type.String()+")")
			default:
				return w.dst, w.n, wire.CannotEncode(p, partPath(i, j), "this content part type", codec.PartCapability(i, j))
			}
		}
		w.closeStep()
	}
	w.closeStep()
	return w.dst, w.n, nil
}

// partPath is the path of part j of message i, for Dropped and errors.
func partPath(i, j int) string {
	return wire.IndexPath(wire.IndexPath("messages", i)+".parts", j)
}

// appendMedia appends an image, document or audio content object.
func appendMedia(dst []byte, p *codec.Part) []byte {
	switch p.Type {
	case codec.PartImage:
		dst = append(dst, `{"type":"image"`...)
	case codec.PartDocument:
		dst = append(dst, `{"type":"document"`...)
	default:
		dst = append(dst, `{"type":"audio"`...)
	}
	if p.Data != "" {
		dst = append(dst, `,"data":`...)
		dst = jsonx.AppendString(dst, p.Data)
	} else {
		dst = append(dst, `,"uri":`...)
		dst = jsonx.AppendString(dst, p.URL)
	}
	if p.MediaType != "" {
		dst = append(dst, `,"mime_type":`...)
		dst = jsonx.AppendString(dst, p.MediaType)
	}
	return append(dst, '}')
}

// appendThought appends a thought step with its signature and, when
// there is one, its summary text.
func appendThought(dst []byte, signature, text string) []byte {
	dst = append(dst, `{"type":"thought","signature":`...)
	dst = jsonx.AppendString(dst, signature)
	if text != "" {
		dst = append(dst, `,"summary":[{"type":"text","text":`...)
		dst = jsonx.AppendString(dst, text)
		dst = append(dst, `}]`...)
	}
	return append(dst, '}')
}

// appendFunctionCall appends a function_call step.
func appendFunctionCall(dst []byte, p *codec.Part) []byte {
	dst = append(dst, `{"type":"function_call","id":`...)
	dst = jsonx.AppendString(dst, p.ToolCallID)
	dst = append(dst, `,"name":`...)
	dst = jsonx.AppendString(dst, wire.CallWireName(p))
	dst = append(dst, `,"arguments":`...)
	dst = wire.AppendArgumentsObject(dst, p)
	return append(dst, '}')
}

// appendFunctionResult appends a function_result step: its result is a
// string when the content is text only, else a list of content objects.
func appendFunctionResult(dst []byte, p codec.Protocol, part *codec.Part, i, j int) ([]byte, *codec.Error) {
	dst = append(dst, `{"type":"function_result","call_id":`...)
	dst = jsonx.AppendString(dst, part.ToolCallID)
	if part.ToolName != "" {
		dst = append(dst, `,"name":`...)
		dst = jsonx.AppendString(dst, wire.CallWireName(part))
	}
	if part.IsError {
		dst = append(dst, `,"is_error":true`...)
	}
	textOnly := true
	for k := range part.Content {
		if part.Content[k].Type != codec.PartText {
			textOnly = false
		}
	}
	dst = append(dst, `,"result":`...)
	if textOnly {
		if len(part.Content) == 1 {
			dst = wire.AppendPartText(dst, &part.Content[0])
			return append(dst, '}'), nil
		}
		dst = append(dst, '"')
		for k := range part.Content {
			dst = jsonx.AppendStringBody(dst, part.Content[k].TextValue())
		}
		return append(dst, `"}`...), nil
	}
	dst = append(dst, '[')
	for k := range part.Content {
		c := &part.Content[k]
		if k > 0 {
			dst = append(dst, ',')
		}
		switch c.Type {
		case codec.PartText:
			dst = append(dst, `{"type":"text","text":`...)
			dst = jsonx.AppendString(dst, c.TextValue())
			dst = append(dst, '}')
		case codec.PartImage, codec.PartDocument, codec.PartAudio:
			dst = appendMedia(dst, c)
		default:
			return dst, wire.CannotEncode(p, partPath(i, j)+".content", "this tool result content", codec.Capability{Kind: codec.CapResultContent, Message: i, Part: j, Content: k})
		}
	}
	return append(dst, `]}`...), nil
}
