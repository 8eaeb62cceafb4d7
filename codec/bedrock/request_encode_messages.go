package bedrock

import (
	"strconv"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/jsonx"
	"github.com/llmbridge/llmbridge/codec/internal/wire"
	"github.com/llmbridge/llmbridge/mapping"
)

// checkSystem rejects a system prompt or system message with a part that
// is not text: Converse's system prompt holds text only.
func checkSystem(req *codec.Request) *codec.Error {
	i, j := badSystemPart(req)
	if j < 0 {
		return nil
	}
	path := wire.IndexPath("system", j)
	if i >= 0 {
		path = wire.IndexPath(wire.IndexPath("messages", i)+".content", j)
	}
	return wire.CannotEncode(codec.Bedrock, path, "content part type", codec.PartCapability(i, j))
}

// appendConverseSystem appends the system prompt: req.System followed by
// the system and developer messages of the conversation, in order, since
// Converse only has a top-level system prompt. Empty texts are skipped
// (Converse rejects blank text blocks) and no text writes no system field.
// The parts have been checked with checkSystem.
func appendConverseSystem(dst []byte, req *codec.Request, cache *wire.CachePlan) []byte {
	start := len(dst)
	dst = append(dst, `,"system":[`...)
	comma := appendSystemTexts(&dst, req.System, false, cache)
	for i := range req.Messages {
		if m := &req.Messages[i]; wire.IsSystemRole(m.Role) {
			comma = appendSystemTexts(&dst, m.Parts, comma, cache)
		}
	}
	if !comma {
		return dst[:start]
	}
	return append(dst, ']')
}

// badSystemPart returns where the first system part that is not text is:
// its message (-1 for req.System) and part, or part -1 when there is none.
func badSystemPart(req *codec.Request) (msg, part int) {
	for j := range req.System {
		if t := req.System[j].Type; t != codec.PartText && t != codec.PartRefusal {
			return -1, j
		}
	}
	for i := range req.Messages {
		if m := &req.Messages[i]; wire.IsSystemRole(m.Role) {
			for j := range m.Parts {
				if t := m.Parts[j].Type; t != codec.PartText && t != codec.PartRefusal {
					return i, j
				}
			}
		}
	}
	return -1, -1
}

// appendSystemTexts appends the non-empty texts of ps as system text
// blocks to *dst, after a comma when comma is true, and reports whether a
// block has been written; a breakpoint of cache follows its text as a
// cachePoint.
func appendSystemTexts(dst *[]byte, ps []codec.Part, comma bool, cache *wire.CachePlan) bool {
	for i := range ps {
		if !ps[i].HasText() {
			continue
		}
		if comma {
			*dst = append(*dst, ',')
		}
		*dst = append(*dst, `{"text":`...)
		*dst = wire.AppendPartText(*dst, &ps[i])
		*dst = append(*dst, '}')
		*dst = appendCachePoint(*dst, cache.System(&ps[i]))
		comma = true
	}
	return comma
}

// appendConverseMessages appends the conversation. Converse wants turns
// that alternate and start with the user, so consecutive messages of one
// role are merged into one turn, their blocks concatenated in order,
// except that in a user turn the toolResult blocks come first (Claude
// requires the results right after its calls; text a client put before
// them follows them). Empty texts are skipped (Converse rejects blank
// text) and a message left without blocks is dropped; the messages around
// it may then merge. System and developer messages go in the system
// prompt.
//
// A breakpoint of cache follows its block as a cachePoint; the automatic
// one (Cache.Auto, Anthropic's top-level cache_control) follows the last
// block that can carry one, where Anthropic would place it
// (CachePlan.AutoOnLastBlock).
func appendConverseMessages(dst []byte, req *codec.Request, cache *wire.CachePlan) ([]byte, *codec.Error) {
	wire.DropUnsentReasoning(req, sendsReasoning)
	dst = append(dst, '[')
	msgs := req.Messages
	first := true
	for i := 0; i < len(msgs); {
		if wire.IsSystemRole(msgs[i].Role) {
			i++
			continue
		}
		at := i
		turn, role, n, results, next, err := wire.NextTurn(msgs, i, checkParts)
		if err != nil {
			return dst, err
		}
		i = next
		if n == 0 {
			continue
		}
		if first && role != codec.RoleUser {
			return dst, codec.InvalidRequest(wire.IndexPath("messages", at), "a Converse conversation must start with a user message")
		}
		if !first {
			dst = append(dst, ',')
		}
		first = false
		if role == codec.RoleAssistant {
			dst = append(dst, `{"role":"assistant","content":[`...)
		} else {
			dst = append(dst, `{"role":"user","content":[`...)
		}
		comma := false
		for _, which := range wire.TurnBlocks(results) {
			dst, comma = appendTurn(dst, turn, role, which, comma, cache)
		}
		dst = append(dst, "]}"...)
	}
	if first {
		return dst, codec.InvalidRequest("messages", "must contain at least one message with content")
	}
	return append(dst, ']'), nil
}

// sendsReasoning reports whether reasoning part part of a message of role
// r goes to the upstream: only assistant history holds reasoning, and only
// reasoning Claude signed can be verified by it; a redacted part's data
// must be the base64 that redactedContent is.
func sendsReasoning(part *codec.Part, r codec.Role) bool {
	if r != codec.RoleAssistant || !wire.SignedFor(part, codec.Bedrock) {
		return false
	}
	return !part.Redacted || wire.CheckBase64("", part.Signature) == nil
}

// appendTurn appends the blocks of the role messages of turn that pass
// which writes (wire.InPass), after a comma when comma is set, and reports
// whether the turn's content now has a block.
func appendTurn(dst []byte, turn []codec.Message, role codec.Role, which int, comma bool, cache *wire.CachePlan) ([]byte, bool) {
	for k := range turn {
		m := &turn[k]
		if m.Role != role {
			continue
		}
		for l := range m.Parts {
			part := &m.Parts[l]
			if !wire.InPass(part, which) {
				continue
			}
			if part.Type == codec.PartReasoning {
				if sendsReasoning(part, role) {
					dst, comma = appendReasoning(dst, part, part.Signature, comma), true
				}
				continue
			}
			dst, comma = appendBlock(dst, part, comma)
			if comma && wire.BreakpointPart(part) {
				dst = appendCachePoint(dst, cache.Message(part))
			}
		}
	}
	return dst, comma
}

// checkParts checks that the parts of messages[i] can be written in a turn
// of the message's role, and returns the number of blocks they become and
// how many of those are tool results.
func checkParts(m *codec.Message, i int) (blocks, results int, err *codec.Error) {
	for j := range m.Parts {
		part := &m.Parts[j]
		var what string
		switch part.Type {
		case codec.PartText, codec.PartRefusal:
			if part.HasText() {
				blocks++
			}
			continue
		case codec.PartToolCall:
			what = checkToolCall(part, m.Role)
		case codec.PartImage, codec.PartDocument:
			what = checkMedia(part)
		case codec.PartReasoning:
			if sendsReasoning(part, m.Role) {
				blocks++
			}
			continue
		case codec.PartToolResult:
			var k int
			if what, k = checkToolResult(part, m.Role); k >= 0 {
				path := wire.IndexPath(wire.IndexPath(wire.IndexPath("messages", i)+".content", j)+".content", k)
				return 0, 0, wire.CannotEncode(codec.Bedrock, path, what, codec.Capability{Kind: codec.CapResultContent, Message: i, Part: j, Content: k})
			}
			results++
		default:
			what = "content part type " + part.Type.String()
		}
		if what != "" {
			return 0, 0, wire.CannotEncode(codec.Bedrock, wire.IndexPath(wire.IndexPath("messages", i)+".content", j), what, codec.PartCapability(i, j))
		}
		blocks++
	}
	return blocks, results, nil
}

// checkToolCall returns what makes a tool call part of a message of role r
// impossible to write as a toolUse block, or "".
func checkToolCall(part *codec.Part, r codec.Role) string {
	switch {
	case r != codec.RoleAssistant:
		return "a tool call outside an assistant message"
	case part.ToolCallID == "":
		return "a tool call without an id"
	case part.ToolName == "":
		return "a tool call without a name"
	case part.HasArguments() && !wire.ArgumentsObject(part, jsonx.IsObject):
		return "tool call arguments that are not a JSON object"
	}
	return ""
}

// checkToolResult returns what makes a tool result part of a message of
// role r impossible to write as a toolResult block, or "", and the index
// of the offending entry of its content, or -1.
func checkToolResult(part *codec.Part, r codec.Role) (string, int) {
	switch {
	case r != codec.RoleUser:
		return "a tool result outside a user message", -1
	case part.ToolCallID == "":
		return "a tool result without a call id", -1
	}
	for k := range part.Content {
		c := &part.Content[k]
		switch c.Type {
		case codec.PartText, codec.PartRefusal:
		case codec.PartImage, codec.PartDocument:
			if what := checkMedia(c); what != "" {
				return what, k
			}
		default:
			return "content part type " + c.Type.String() + " in a tool result", k
		}
	}
	return "", -1
}

// checkMedia returns what makes an image or document part impossible to
// write as a block, or "": Converse takes bytes only (no URLs), in the
// formats it knows.
func checkMedia(part *codec.Part) string {
	table := imageFormats[:]
	if part.Type == codec.PartDocument {
		table = documentFormats[:]
	}
	switch {
	case part.Data == "":
		return "an " + part.Type.String() + " given by URL (Converse takes the bytes)"
	case formatOf(table, part.MediaType) == "":
		return "an " + part.Type.String() + " of media type " + strconv.Quote(part.MediaType)
	}
	return ""
}

// appendBlock appends the block of a part that has been checked, after a
// comma when comma is true, and reports whether a block has been written
// so far. Empty texts write nothing.
func appendBlock(dst []byte, part *codec.Part, comma bool) ([]byte, bool) {
	switch part.Type {
	case codec.PartText, codec.PartRefusal:
		if !part.HasText() {
			return dst, comma
		}
	}
	if comma {
		dst = append(dst, ',')
	}
	switch part.Type {
	case codec.PartToolCall:
		dst = append(dst, `{"toolUse":{"toolUseId":`...)
		dst = jsonx.AppendString(dst, part.ToolCallID)
		dst = append(dst, `,"name":`...)
		dst = jsonx.AppendString(dst, wire.CallWireName(part))
		dst = append(dst, `,"input":`...)
		dst = wire.AppendArgumentsObject(dst, part)
		dst = append(dst, '}')
	case codec.PartImage, codec.PartDocument:
		dst = appendMedia(dst, part)
	case codec.PartToolResult:
		dst = append(dst, `{"toolResult":{"toolUseId":`...)
		dst = jsonx.AppendString(dst, part.ToolCallID)
		dst = append(dst, `,"content":[`...)
		c := false
		for k := range part.Content {
			dst, c = appendBlock(dst, &part.Content[k], c)
		}
		dst = append(dst, ']')
		if part.IsError {
			dst = append(dst, `,"status":"error"`...)
		}
		dst = append(dst, '}')
	default:
		dst = append(dst, `{"text":`...)
		dst = wire.AppendPartText(dst, part)
	}
	return append(dst, '}'), true
}

// appendMedia appends an image or document block without its closing
// brace. A document needs a name, which its title is when it has one of
// the characters Converse allows in names, and "document" otherwise.
func appendMedia(dst []byte, part *codec.Part) []byte {
	if part.Type == codec.PartImage {
		dst = append(dst, `{"image":{"format":"`...)
		dst = append(dst, formatOf(imageFormats[:], part.MediaType)...)
	} else {
		dst = append(dst, `{"document":{"format":"`...)
		dst = append(dst, formatOf(documentFormats[:], part.MediaType)...)
		dst = append(dst, `","name":`...)
		name := part.TextValue()
		if !validDocumentName(name) {
			name = "document"
		}
		dst = jsonx.AppendString(dst, name)
		dst = append(dst, `,"source":{"bytes":`...)
		dst = jsonx.AppendString(dst, part.Data)
		return append(dst, "}}"...)
	}
	dst = append(dst, `","source":{"bytes":`...)
	dst = jsonx.AppendString(dst, part.Data)
	return append(dst, "}}"...)
}

// validDocumentName reports whether name is a document name Converse
// accepts: 1 to 200 letters, digits, single spaces, hyphens, parentheses
// and square brackets.
func validDocumentName(name string) bool {
	if name == "" || len(name) > 200 {
		return false
	}
	space := false
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c == ' ':
			if space {
				return false
			}
			space = true
			continue
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9',
			c == '-', c == '(', c == ')', c == '[', c == ']':
		default:
			return false
		}
		space = false
	}
	return true
}

// appendReasoning appends a reasoning part as a reasoningContent block
// whose opaque value is opaque: redactedContent for a redacted part of
// Claude's (its data is base64, as the blob is), else reasoningText {text,
// signature}, the signature left out when opaque is "". Toward an upstream
// opaque is the part's own signature; toward a client it is the
// continuation token of a part from another family (which is not base64,
// so even a redacted one goes in a signature).
func appendReasoning(dst []byte, part *codec.Part, opaque string, comma bool) []byte {
	if comma {
		dst = append(dst, ',')
	}
	if part.Redacted && opaque == part.Signature && part.Origin == mapping.FamilyAnthropic {
		dst = append(dst, `{"reasoningContent":{"redactedContent":`...)
		dst = jsonx.AppendString(dst, opaque)
		return append(dst, "}}"...)
	}
	dst = append(dst, `{"reasoningContent":{"reasoningText":{"text":`...)
	dst = jsonx.AppendString(dst, part.TextValue())
	if opaque != "" {
		dst = append(dst, `,"signature":`...)
		dst = jsonx.AppendString(dst, opaque)
	}
	return append(dst, "}}}"...)
}
