package gemini

import (
	"strings"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/jsonx"
	"github.com/llmbridge/llmbridge/codec/internal/wire"
	"github.com/llmbridge/llmbridge/mapping"
)

// appendRequest appends req as a generateContent body. The model is
// not written: it belongs in the URL path, which the caller builds; and
// Gemini does not require an output limit. opts gives the thinking budgets
// that stand for reasoning efforts and what the target model takes
// (opts.Target); vertex reports that the body is for Vertex AI rather than
// the Gemini API.
//
// Gemini has a single system instruction at the top level, so req.System
// and every system or developer message later in the conversation are
// hoisted into systemInstruction, in order. The remaining turns must
// alternate between user and model, so consecutive turns of the same role
// are merged into one Content with their parts concatenated.
func appendRequest(dst []byte, req *codec.Request, opts *codec.EncodeOptions, vertex bool) ([]byte, *codec.Error) {
	start := len(dst)
	dst = append(dst, `{"contents":[`...)
	dst, n, err := appendContents(dst, req, opts, vertex)
	if err != nil {
		return dst[:start], err
	}
	if n == 0 {
		return dst[:start], wire.CannotEncode(codec.Gemini, "messages", "a conversation without any user or assistant text", codec.Capability{})
	}
	dst = append(dst, ']')
	if dst, err = appendSystemInstruction(dst, req); err != nil {
		return dst[:start], err
	}
	if dst, err = appendTools(dst, req); err != nil {
		return dst[:start], err
	}
	if dst, err = appendGenerationConfig(dst, req, opts); err != nil {
		return dst[:start], err
	}
	dst = append(dst, '}')
	if req.User != "" {
		// Gemini has no end-user identifier.
		req.Dropped = append(req.Dropped, "user")
	}
	wire.DropBreakpoints(req)
	wire.DropPromptCache(req)
	return dst, nil
}

// role returns the Content role of a user or assistant message.
func role(r codec.Role) string {
	if r == codec.RoleAssistant {
		return "model"
	}
	return "user"
}

// partText returns the text a part becomes in Gemini, where a refusal
// is plain model text; ok is false for a part Gemini cannot carry.
func partText(p codec.Part) (text string, ok bool) {
	switch p.Type {
	case codec.PartText, codec.PartRefusal:
		return p.TextValue(), true
	}
	return "", false
}

// appendContents appends the conversation turns and returns how many
// Contents it wrote.
//
// Empty text parts are skipped and a turn left without parts is dropped,
// because Gemini rejects empty parts and contents with 400 INVALID_ARGUMENT.
// Merging happens after that, so a dropped turn between two turns of the
// same role merges them. Tool calls become functionCall parts of model
// turns and tool results functionResponse parts of user turns.
//
// A part Gemini sent that llmbridge does not translate (an opaquePart of
// FamilyGemini, see keepsPart) goes back whole, in place, as a part
// of the model turn. Other reasoning parts are sent only as what Gemini
// accepts back: the signature of a reasoning part Gemini signed
// (signedFor) goes as thoughtSignature on the next part of the same
// assistant message, or on an empty text part of its own when there is
// none or that part carries a signature already.
// Reasoning text is never sent (Gemini takes its thoughts back only through
// the signature), and unsigned or foreign reasoning is left out; both are
// listed in req.Dropped.
//
// Toward a model that requires signed function calls
// (opts.Target.SignedFunctionCalls), the first functionCall part of each
// model Content that has no Gemini signature of its own gets
// SkipThoughtSignature. A model Content is one step of the model: Gemini signs
// only the first call of parallel calls, so later calls of the step need
// none. Every model Content is treated so, not only those of the current
// turn, where Gemini checks: older ones do not need it, but take it without
// harm. Toward Vertex AI (vertex) calls and results are written without
// their ids, which Vertex rejects; it matches them by name and order, as
// the Gemini API does for calls without ids.
func appendContents(dst []byte, req *codec.Request, opts *codec.EncodeOptions, vertex bool) ([]byte, int, *codec.Error) {
	w := contentWriter{dst: dst, ids: !vertex, signCalls: opts.Target.SignedFunctionCalls}
	for i := range req.Messages {
		m := &req.Messages[i]
		if m.Role == codec.RoleSystem || m.Role == codec.RoleDeveloper {
			continue
		}
		role := role(m.Role)
		pending := "" // a signature waiting for the next part
		for j := range m.Parts {
			p := &m.Parts[j]
			switch p.Type {
			case codec.PartReasoning:
				if m.Role == codec.RoleAssistant && wire.IsOpaque(p, mapping.FamilyGemini) && jsonx.Valid(p.Signature) {
					// A part llmbridge does not translate, back where
					// it was, after the signature waiting for a part.
					w.open(role)
					if pending != "" {
						w.dst = appendSignedEmpty(w.dst, pending)
						w.dst = append(w.dst, ',')
						pending = ""
					}
					w.dst = append(w.dst, p.Signature...)
					continue
				}
				if m.Role != codec.RoleAssistant || !wire.SignedFor(p, codec.Gemini) {
					req.Dropped = append(req.Dropped, messagePartPath(i, j)+" (reasoning)")
					continue
				}
				if p.HasText() {
					req.Dropped = append(req.Dropped, messagePartPath(i, j)+" (reasoning text)")
				}
				if pending != "" {
					w.open(role)
					w.dst = appendSignedEmpty(w.dst, pending)
				}
				pending = p.Signature
				continue
			case codec.PartText, codec.PartRefusal:
				if !p.HasText() {
					continue
				}
			case codec.PartToolCall:
				if m.Role != codec.RoleAssistant {
					return w.dst, w.n, wire.CannotEncode(codec.Gemini, messagePartPath(i, j), "a tool call outside an assistant message", codec.PartCapability(i, j))
				}
			case codec.PartToolResult:
				if m.Role != codec.RoleUser {
					return w.dst, w.n, wire.CannotEncode(codec.Gemini, messagePartPath(i, j), "a tool result outside a user message", codec.PartCapability(i, j))
				}
			case codec.PartImage, codec.PartDocument, codec.PartAudio:
			default:
				return w.dst, w.n, wire.CannotEncode(codec.Gemini, messagePartPath(i, j), "this content part type", codec.PartCapability(i, j))
			}
			w.open(role)
			var err *codec.Error
			switch p.Type {
			case codec.PartToolCall:
				w.dst, err = appendFunctionCall(w.dst, p, partAt{msg: i, part: j, known: true}, w.ids)
				if err == nil && pending == "" && w.signCalls && !w.called {
					w.dst = appendSignatureField(w.dst, SkipThoughtSignature)
				}
				w.called = true
			case codec.PartToolResult:
				w.dst, err = appendFunctionResponse(w.dst, req, i, j, w.ids)
			case codec.PartImage, codec.PartDocument, codec.PartAudio:
				w.dst, err = appendMedia(w.dst, p, i, j)
			default:
				w.dst = append(w.dst, `{"text":`...)
				w.dst = wire.AppendPartText(w.dst, p)
				w.dst = append(w.dst, '}')
			}
			if err != nil {
				return w.dst, w.n, err
			}
			if pending != "" {
				w.dst = appendSignatureField(w.dst, pending)
				pending = ""
			}
		}
		if pending != "" {
			w.open(role)
			w.dst = appendSignedEmpty(w.dst, pending)
		}
	}
	if w.isOpen {
		w.dst = append(w.dst, `]}`...)
	}
	return w.dst, w.n, nil
}

// contentWriter writes the contents array, opening a Content when the
// role changes and merging consecutive parts of one role into one Content.
type contentWriter struct {
	dst []byte
	// n counts the Contents written.
	n int
	// isOpen reports that a Content of role openRole is open.
	isOpen   bool
	openRole string
	// ids reports that functionCall and functionResponse parts carry the
	// ids of the calls (not toward Vertex AI).
	ids bool
	// signCalls reports that the first functionCall part of each model
	// Content must carry a thoughtSignature (Target.SignedFunctionCalls).
	signCalls bool
	// called reports that the open Content has a functionCall part.
	called bool
}

// open prepares for a part of role: a comma in the open Content of that
// role, else a new Content.
func (w *contentWriter) open(role string) {
	if w.isOpen && role == w.openRole {
		w.dst = append(w.dst, ',')
		return
	}
	if w.isOpen {
		w.dst = append(w.dst, `]},`...)
	}
	w.dst = append(w.dst, `{"role":"`...)
	w.dst = append(w.dst, role...)
	w.dst = append(w.dst, `","parts":[`...)
	w.isOpen, w.openRole, w.called = true, role, false
	w.n++
}

// SkipThoughtSignature is the thoughtSignature Google documents for a
// function call that no Gemini model signed (a history written by another
// model, or calls the client added itself): Gemini 3 then skips the check
// that the first call of each step is signed.
const SkipThoughtSignature = "skip_thought_signature_validator"

// appendSignatureField adds "thoughtSignature": sig to the part
// object that dst ends with.
func appendSignatureField(dst []byte, sig string) []byte {
	dst = append(dst[:len(dst)-1], `,"thoughtSignature":`...)
	dst = jsonx.AppendString(dst, sig)
	return append(dst, '}')
}

// appendSignedEmpty appends an empty text part that carries only
// sig, the form Gemini itself uses for a signature with no part to sit on.
func appendSignedEmpty(dst []byte, sig string) []byte {
	dst = append(dst, `{"text":"","thoughtSignature":`...)
	dst = jsonx.AppendString(dst, sig)
	return append(dst, '}')
}

// appendMedia appends an image, document or audio part as
// inlineData {mimeType, data}. llmbridge never fetches a URL, so a URL part
// is rejected for both the Gemini API (which takes no http URLs) and Vertex
// (whose fileData takes https and gs URIs, which the encoder does not write
// yet).
func appendMedia(dst []byte, p *codec.Part, i, j int) ([]byte, *codec.Error) {
	switch {
	case p.Data == "":
		return dst, wire.CannotEncode(codec.Gemini, messagePartPath(i, j), "a "+p.Type.String()+" given by URL", codec.PartCapability(i, j))
	case p.MediaType == "":
		return dst, codec.InvalidRequest(messagePartPath(i, j), "the media type of the "+p.Type.String()+" is required")
	}
	dst = append(dst, `{"inlineData":{"mimeType":`...)
	dst = jsonx.AppendString(dst, p.MediaType)
	dst = append(dst, `,"data":`...)
	dst = jsonx.AppendString(dst, p.Data)
	return append(dst, `}}`...), nil
}

// messagePartPath is the path of part j of message i, for errors.
func messagePartPath(i, j int) string {
	return partPath(i, j)
}

// partAt is where a part is in a request, for errors: a path is only
// written for an error, not for every part encoded. The zero partAt is a
// part of a response, which has no path.
type partAt struct {
	msg, part int
	known     bool
}

// path returns the part's path, or "" in a response.
func (a partAt) path() string {
	if !a.known {
		return ""
	}
	return messagePartPath(a.msg, a.part)
}

// partPath names part j of message i, or of the system prompt when
// i is -1, in an encoding error.
func partPath(i, j int) string {
	if i < 0 {
		return wire.IndexPath("system", j)
	}
	return wire.IndexPath(wire.IndexPath("messages", i)+".content", j)
}

// appendFunctionCall appends a tool call as a functionCall part: its
// id when it has one and ids is true (Gemini echoes it in the
// functionResponse; Vertex AI takes none), its name and its arguments object
// ({} when there are none). at names the part for errors.
func appendFunctionCall(dst []byte, p *codec.Part, at partAt, ids bool) ([]byte, *codec.Error) {
	dst = append(dst, `{"functionCall":{`...)
	if ids && p.ToolCallID != "" {
		dst = append(dst, `"id":`...)
		dst = jsonx.AppendString(dst, p.ToolCallID)
		dst = append(dst, ',')
	}
	dst = append(dst, `"name":`...)
	dst = jsonx.AppendString(dst, wire.CallWireName(p))
	dst = append(dst, `,"args":`...)
	switch {
	case !p.HasArguments():
		dst = append(dst, "{}"...)
	case wire.ArgumentsObject(p, jsonx.IsObject):
		dst = wire.AppendArgumentsObject(dst, p)
	default:
		return dst, codec.InvalidRequest(at.path()+".arguments", "must be a JSON object")
	}
	return append(dst, `}}`...), nil
}

// appendFunctionResponse appends the tool result at part j of message
// i as a functionResponse. Gemini needs the function's name: ToolName, else
// the name of the call with the result's id earlier in the conversation.
// The result's text becomes {"output": text}, or {"error": text} for an
// error, as functionResponse.response must be an object; several text
// parts are joined with newlines. The result's id is written when ids is
// true, as for calls.
func appendFunctionResponse(dst []byte, req *codec.Request, i, j int, ids bool) ([]byte, *codec.Error) {
	p := &req.Messages[i].Parts[j]
	name := wire.CallWireName(p)
	if name == "" {
		name = callName(req, i, p.ToolCallID)
		if name == "" {
			return dst, codec.InvalidRequest(messagePartPath(i, j), `tool result for unknown call id "`+p.ToolCallID+`"`)
		}
	}
	dst = append(dst, `{"functionResponse":{`...)
	if ids && p.ToolCallID != "" {
		dst = append(dst, `"id":`...)
		dst = jsonx.AppendString(dst, p.ToolCallID)
		dst = append(dst, ',')
	}
	dst = append(dst, `"name":`...)
	dst = jsonx.AppendString(dst, name)
	if p.IsError {
		dst = append(dst, `,"response":{"error":`...)
	} else {
		dst = append(dst, `,"response":{"output":`...)
	}
	if len(p.Content) == 1 && p.Content[0].Type == codec.PartText {
		// One text, copied as its literal when it keeps one.
		dst = wire.AppendPartText(dst, &p.Content[0])
	} else {
		text, err := resultText(p.Content, i, j)
		if err != nil {
			return dst, err
		}
		dst = jsonx.AppendString(dst, text)
	}
	return append(dst, `}}}`...), nil
}

// resultText joins the text parts of a tool result's content with
// newlines; path names the result for errors.
func resultText(content []codec.Part, i, j int) (string, *codec.Error) {
	if len(content) == 1 && content[0].Type == codec.PartText {
		return content[0].TextValue(), nil
	}
	var b strings.Builder
	for k := range content {
		if content[k].Type != codec.PartText {
			return "", wire.CannotEncode(codec.Gemini, wire.IndexPath(messagePartPath(i, j)+".content", k), "this tool result content type",
				codec.Capability{Kind: codec.CapResultContent, Message: i, Part: j, Content: k})
		}
		if k > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(content[k].TextValue())
	}
	return b.String(), nil
}

// callName returns the name of the tool call with id in messages
// before and at i, or "".
func callName(req *codec.Request, i int, id string) string {
	if id == "" {
		return ""
	}
	for ; i >= 0; i-- {
		parts := req.Messages[i].Parts
		for j := range parts {
			if parts[j].Type == codec.PartToolCall && parts[j].ToolCallID == id {
				return wire.CallWireName(&parts[j])
			}
		}
	}
	return ""
}

// appendTools appends tools, one Tool holding a functionDeclaration
// per function with its JSON Schema as parametersJsonSchema (which takes
// full JSON Schema, so nothing is down-converted), and toolConfig for the
// tool choice. Gemini cannot enforce a schema strictly (strict: true is
// rejected) and has no switch for parallel calls, which is dropped as a
// hint.
func appendTools(dst []byte, req *codec.Request) ([]byte, *codec.Error) {
	if req.ParallelToolCalls.Set {
		req.Dropped = append(req.Dropped, "parallel_tool_calls")
	}
	if len(req.Tools) == 0 {
		return dst, nil
	}
	if err := wire.CheckFlatNames(codec.Gemini, req); err != nil {
		return dst, err
	}
	dst = append(dst, `,"tools":[`...)
	search, n := false, 0
	for i := range req.Tools {
		t := &req.Tools[i]
		switch {
		case t.Kind == codec.ToolWebSearch:
			if err := wire.CheckWebSearchFor(codec.Gemini, t, i, wire.WebSearchCaps{}); err != nil {
				return dst, err
			}
			search = true
			continue
		case t.Kind == codec.ToolCustom:
			if err := wire.CheckCustomFor(codec.Gemini, t, i); err != nil {
				return dst, err
			}
		case t.Kind != codec.ToolFunction:
			return dst, wire.CannotEncode(codec.Gemini, wire.IndexPath("tools", i), "a hosted tool", codec.Capability{Kind: codec.CapTool, Tool: i})
		case t.Strict.Set && t.Strict.Value:
			return dst, wire.CannotEncode(codec.Gemini, wire.IndexPath("tools", i)+".strict", "strict: true (schema enforcement)", codec.Capability{Kind: codec.CapToolStrict, Tool: i})
		case t.Parameters != "" && !jsonx.IsObject(t.Parameters):
			return dst, codec.InvalidRequest(wire.IndexPath("tools", i)+".parameters", "must be a JSON object")
		}
		if n == 0 {
			dst = append(dst, `{"functionDeclarations":[`...)
		} else {
			dst = append(dst, ',')
		}
		n++
		name, desc, params := wire.FunctionView(t)
		dst = append(dst, `{"name":`...)
		dst = jsonx.AppendString(dst, name)
		if desc != "" {
			dst = append(dst, `,"description":`...)
			dst = jsonx.AppendString(dst, desc)
		}
		if params != "" {
			dst = append(dst, `,"parametersJsonSchema":`...)
			dst = append(dst, params...)
		}
		dst = append(dst, '}')
	}
	if n > 0 {
		dst = append(dst, `]}`...)
	}
	if search {
		// The hosted search is a Tool of its own; it takes no options
		// (checkWebSearchFor rejected any that were set).
		if n > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"googleSearch":{}}`...)
	}
	dst = append(dst, ']')
	if n == 0 {
		// Only the search: the function calling configuration has no
		// function to govern.
		return dst, nil
	}
	var mode string
	switch req.ToolChoice.Mode {
	case codec.ToolChoiceUnset:
		return dst, nil
	case codec.ToolChoiceAuto:
		mode = "AUTO"
	case codec.ToolChoiceNone:
		mode = "NONE"
	default: // required and named
		mode = "ANY"
	}
	dst = append(dst, `,"toolConfig":{"functionCallingConfig":{"mode":"`...)
	dst = append(dst, mode...)
	dst = append(dst, '"')
	if req.ToolChoice.Mode == codec.ToolChoiceNamed {
		dst = append(dst, `,"allowedFunctionNames":[`...)
		dst = jsonx.AppendString(dst, codec.FlatToolName(req.ToolChoice.Namespace, req.ToolChoice.Name))
		dst = append(dst, ']')
	}
	return append(dst, `}}`...), nil
}

// appendSystemInstruction appends systemInstruction from req.System
// and the system and developer messages of the conversation, in order, and
// nothing when they hold no text.
func appendSystemInstruction(dst []byte, req *codec.Request) ([]byte, *codec.Error) {
	written := false
	var err *codec.Error
	dst, written, err = appendSystemParts(dst, req.System, written, -1)
	if err != nil {
		return dst, err
	}
	for i := range req.Messages {
		m := &req.Messages[i]
		if m.Role != codec.RoleSystem && m.Role != codec.RoleDeveloper {
			continue
		}
		dst, written, err = appendSystemParts(dst, m.Parts, written, i)
		if err != nil {
			return dst, err
		}
	}
	if written {
		dst = append(dst, `]}`...)
	}
	return dst, nil
}

// appendSystemParts appends the non-empty parts to systemInstruction,
// opening it before the first one; path names the parts for errors only.
func appendSystemParts(dst []byte, parts []codec.Part, written bool, msg int) ([]byte, bool, *codec.Error) {
	for j := range parts {
		if t := parts[j].Type; t != codec.PartText && t != codec.PartRefusal {
			return dst, written, wire.CannotEncode(codec.Gemini, partPath(msg, j), "this system content part type", codec.PartCapability(msg, j))
		}
		if !parts[j].HasText() {
			continue
		}
		if written {
			dst = append(dst, ',')
		} else {
			dst = append(dst, `,"systemInstruction":{"parts":[`...)
			written = true
		}
		dst = append(dst, `{"text":`...)
		dst = wire.AppendPartText(dst, &parts[j])
		dst = append(dst, '}')
	}
	return dst, written, nil
}
