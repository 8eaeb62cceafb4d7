package anthropic

import (
	"strings"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/jsonx"
	"github.com/llmbridge/llmbridge/codec/internal/wire"
	"github.com/llmbridge/llmbridge/mapping"
)

// appendMessages appends the conversation. Anthropic wants strict
// user/assistant alternation, so consecutive messages of the same role are
// merged into one turn, their blocks concatenated in order, except that in a
// user turn the tool_result blocks come first, as Anthropic requires (text
// that a client put before the results follows them). Content is always an
// array of blocks. Empty text parts are skipped because Anthropic rejects
// empty text blocks, and a message left without content is dropped (it said
// nothing); the messages around it may then merge. System and developer
// messages were hoisted into the system prompt.
func appendMessages(dst []byte, req *codec.Request, p codec.Protocol, cache *wire.CachePlan) ([]byte, *codec.Error) {
	wire.DropUnsentReasoning(req, sendsReasoning)
	dst = append(dst, `,"messages":[`...)
	msgs := req.Messages
	count := func(m *codec.Message, i int) (int, int, *codec.Error) { return checkParts(m, i, p) }
	first := true
	for i := 0; i < len(msgs); {
		if wire.IsSystemRole(msgs[i].Role) {
			i++
			continue
		}
		turn, role, n, results, next, err := wire.NextTurn(msgs, i, count)
		if err != nil {
			return dst, err
		}
		i = next
		if n == 0 {
			continue
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
	return append(dst, ']'), nil
}

// sendsReasoning reports whether reasoning part part of a message
// of role r goes to an Anthropic upstream: only assistant history can hold
// thinking, and only with a signature Anthropic issued (it verifies every
// thinking block; unsigned or foreign reasoning would be refused).
func sendsReasoning(part *codec.Part, r codec.Role) bool {
	return r == codec.RoleAssistant && wire.SignedFor(part, codec.AnthropicMessages)
}

// appendTurn appends the blocks of the role messages of turn that
// pass which writes (wire.InPass), after a comma when comma is set, and
// reports whether the turn's content now has a block.
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
					dst, comma = appendReasoning(dst, part, false, comma), true
				}
				continue
			}
			dst, comma = appendBlock(dst, part, comma, cache)
		}
	}
	return dst, comma
}

// checkParts checks that the parts of messages[i] can be written in
// a turn of the message's role, and returns the number of blocks they become
// and how many of those are tool results.
func checkParts(m *codec.Message, i int, p codec.Protocol) (blocks, results int, err *codec.Error) {
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
				return 0, 0, wire.CannotEncode(p, path, what, codec.Capability{Kind: codec.CapResultContent, Message: i, Part: j, Content: k})
			}
			results++
		default:
			what = "content part type"
		}
		if what != "" {
			return 0, 0, wire.CannotEncode(p, wire.IndexPath(wire.IndexPath("messages", i)+".content", j), what, codec.PartCapability(i, j))
		}
		blocks++
	}
	return blocks, results, nil
}

// checkToolCall returns what makes a tool call part of a message
// of role r impossible to write as a tool_use block, or "".
func checkToolCall(part *codec.Part, r codec.Role) string {
	switch {
	case r != codec.RoleAssistant:
		return "a tool call outside an assistant message"
	case part.ToolCallID == "":
		return "a tool call without an id"
	case part.ToolName == "":
		return "a tool call without a name"
	case !wire.ArgumentsObject(part, isObject):
		return "tool call arguments that are not a JSON object"
	}
	return ""
}

// checkToolResult returns what makes a tool result part of a
// message of role r impossible to write as a tool_result block, or "", and
// the index of the offending entry of its content, or -1.
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
		case codec.PartImage:
			if what := checkMedia(c); what != "" {
				return what, k
			}
		default:
			return "content part type " + c.Type.String() + " in a tool result", k
		}
	}
	return "", -1
}

// checkMedia returns what makes an image or document part
// impossible to write as a block, or "": base64 data needs its media type,
// and a part needs data or a URL. A data: URL (decoders split them, so only
// a hand-made part has one) cannot be a url source.
func checkMedia(part *codec.Part) string {
	switch {
	case part.Data != "" && part.MediaType == "":
		return "an " + part.Type.String() + " without a media type"
	case part.Data == "" && part.URL == "":
		return "an " + part.Type.String() + " without data or URL"
	case part.Data == "" && !strings.HasPrefix(part.URL, "https://") && !strings.HasPrefix(part.URL, "http://"):
		return "an " + part.Type.String() + " URL that is not http(s)"
	}
	return ""
}

// appendBlock appends the block of a part that has been checked,
// preceded by a comma when comma is true, and reports whether a block has
// been written so far, with its breakpoint when cache plans one (nil for
// blocks that carry none: answers, tool result content). Empty texts
// write nothing.
func appendBlock(dst []byte, part *codec.Part, comma bool, cache *wire.CachePlan) ([]byte, bool) {
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
		dst = append(dst, `{"type":"tool_use","id":`...)
		dst = jsonx.AppendString(dst, part.ToolCallID)
		dst = append(dst, `,"name":`...)
		dst = jsonx.AppendString(dst, wire.CallWireName(part))
		dst = append(dst, `,"input":`...)
		dst = wire.AppendArgumentsObject(dst, part)
	case codec.PartImage, codec.PartDocument:
		dst = appendMedia(dst, part)
	case codec.PartToolResult:
		dst = append(dst, `{"type":"tool_result","tool_use_id":`...)
		dst = jsonx.AppendString(dst, part.ToolCallID)
		dst = appendResultContent(dst, part.Content)
		if part.IsError {
			dst = append(dst, `,"is_error":true`...)
		}
	default:
		dst = append(dst, `{"type":"text","text":`...)
		dst = wire.AppendPartText(dst, part)
	}
	dst = appendCacheControl(dst, cache.Message(part))
	return append(dst, '}'), true
}

// appendReasoning appends a reasoning part as a thinking block
// ({thinking, signature}) or, when Redacted, a redacted_thinking block
// ({data}), preceded by a comma when comma is true. Toward an upstream
// (envelope false) the opaque value is the part's own signature; toward a
// client (envelope true) it is the continuation token (appendOpaque), which
// needs no JSON escaping, and "" for unsigned reasoning.
func appendReasoning(dst []byte, part *codec.Part, envelope, comma bool) []byte {
	if comma {
		dst = append(dst, ',')
	}
	if !envelope && wire.IsOpaque(part, mapping.FamilyAnthropic) && jsonx.Valid(part.Signature) {
		// A block llmbridge does not translate, back where it was. (One
		// that is not JSON goes as redacted data, which Anthropic
		// refuses, rather than into the body's syntax.)
		return append(dst, part.Signature...)
	}
	if part.Redacted {
		dst = append(dst, `{"type":"redacted_thinking","data":`...)
	} else {
		dst = append(dst, `{"type":"thinking","thinking":`...)
		dst = jsonx.AppendString(dst, part.TextValue())
		dst = append(dst, `,"signature":`...)
	}
	if !envelope {
		dst = jsonx.AppendString(dst, part.Signature)
		return append(dst, '}')
	}
	dst = append(dst, '"')
	dst = wire.AppendOpaque(dst, part.Signature, part.Origin, part.Redacted, part.ItemID)
	return append(dst, `"}`...)
}

// appendMedia appends an image or document block, without its
// closing brace: a base64 source when the part has data, a url source
// otherwise, and a document's title.
func appendMedia(dst []byte, part *codec.Part) []byte {
	if part.Type == codec.PartImage {
		dst = append(dst, `{"type":"image","source":{"type":`...)
	} else {
		dst = append(dst, `{"type":"document","source":{"type":`...)
	}
	if part.Data != "" {
		dst = append(dst, `"base64","media_type":`...)
		dst = jsonx.AppendString(dst, part.MediaType)
		dst = append(dst, `,"data":`...)
		dst = jsonx.AppendString(dst, part.Data)
	} else {
		dst = append(dst, `"url","url":`...)
		dst = jsonx.AppendString(dst, part.URL)
	}
	dst = append(dst, '}')
	if part.Type == codec.PartDocument && part.HasText() {
		dst = append(dst, `,"title":`...)
		dst = jsonx.AppendString(dst, part.TextValue())
	}
	return dst
}

// appendResultContent appends a tool result's content member: a
// string for a single text, blocks otherwise, and nothing when there is no
// content (empty texts are skipped, as everywhere).
func appendResultContent(dst []byte, content []codec.Part) []byte {
	n, last := 0, (*codec.Part)(nil)
	for k := range content {
		if c := &content[k]; c.Type != codec.PartText && c.Type != codec.PartRefusal || c.HasText() {
			n++
			last = c
		}
	}
	switch {
	case n == 0:
		return dst
	case n == 1 && last.HasText():
		dst = append(dst, `,"content":`...)
		return wire.AppendPartText(dst, last)
	}
	dst = append(dst, `,"content":[`...)
	comma := false
	for k := range content {
		dst, comma = appendBlock(dst, &content[k], comma, nil)
	}
	return append(dst, ']')
}
