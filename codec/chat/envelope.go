package chat

import (
	"slices"
	"strings"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/jsonx"
	"github.com/llmbridge/llmbridge/codec/internal/wire"
	"github.com/llmbridge/llmbridge/mapping"
)

// continuation returns the continuation a Chat client is given for
// reasoning part p: Anthropic thinking carries its text, which the
// signature covers and which the client may not send back.
func continuation(p *codec.Part, text string) mapping.Continuation {
	c := mapping.Continuation{Origin: p.Origin, Redacted: p.Redacted, ItemID: p.ItemID, Signature: p.Signature}
	if p.Origin == mapping.FamilyAnthropic && !p.Redacted {
		c.Text = text
	}
	return c
}

// appendResponseToolCalls appends the tool calls of a response's
// content for a Chat client, each id followed by the continuations of the
// signed reasoning since the previous call.
func appendResponseToolCalls(dst []byte, parts []codec.Part) []byte {
	dst = append(dst, '[')
	from := 0
	for j := range parts {
		p := &parts[j]
		if p.Type != codec.PartToolCall {
			continue
		}
		dst = comma(dst)
		dst = append(dst, `{"id":"`...)
		dst = jsonx.AppendStringBody(dst, p.ToolCallID)
		for k := from; k < j; k++ {
			if r := &parts[k]; r.Type == codec.PartReasoning && r.Signature != "" {
				dst = mapping.AppendIDEnvelope(dst, continuation(r, r.TextValue()))
			}
		}
		from = j + 1
		dst = append(dst, `","type":"function","function":{"name":`...)
		dst = jsonx.AppendString(dst, wire.CallWireName(p))
		dst = append(dst, `,"arguments":`...)
		dst = wire.AppendArgumentsString(dst, p)
		dst = append(dst, "}}"...)
	}
	return append(dst, ']')
}

// dropUnfollowedSignatures lists in resp.Dropped the signed reasoning
// parts that no tool call follows: a Chat client has nowhere to keep their
// opaque values.
func dropUnfollowedSignatures(resp *codec.Response, parts []codec.Part) {
	last := -1
	for j := range parts {
		if parts[j].Type == codec.PartToolCall {
			last = j
		}
	}
	for j := last + 1; j < len(parts); j++ {
		if p := &parts[j]; p.Type == codec.PartReasoning && p.Signature != "" {
			resp.Dropped = append(resp.Dropped, wire.IndexPath("content", j)+".signature")
		}
	}
}

// idReasoning splits the continuations a client's tool-call id carries off
// the call's own id, which it returns. Their reasoning parts are appended
// before the call, where the reasoning was; Anthropic's go to the start of
// the message instead (d.leading, placeLeading), where Anthropic requires
// thinking to be. A damaged envelope is an error at path.
func (d *requestDecoder) idReasoning(id, path string) (string, *codec.Error) {
	own, tokens := mapping.SplitToolCallID(id)
	if tokens == "" {
		return id, nil
	}
	var buf [2]mapping.Continuation
	cs, err := mapping.ParseIDEnvelopes(buf[:0], tokens)
	if err != nil {
		return id, codec.InvalidRequest(path, err.Error())
	}
	for i := range cs {
		c := &cs[i]
		p := codec.Part{Type: codec.PartReasoning, Text: c.Text, Signature: c.Signature, Origin: c.Origin, Redacted: c.Redacted, ItemID: c.ItemID}
		if c.Origin == mapping.FamilyAnthropic {
			d.leading = append(d.leading, p)
		} else {
			d.parts = append(d.parts, p)
		}
	}
	return own, nil
}

// placeLeading puts the Anthropic reasoning carried by the message's
// tool-call ids at its start (it begins at start in d.parts). When the
// client sent the same reasoning back as reasoning_content too, that
// unsigned copy is removed: the signed parts carry the text.
func (d *requestDecoder) placeLeading(start int) {
	end := start
	for end < len(d.parts) && d.parts[end].Type == codec.PartReasoning && d.parts[end].Signature == "" {
		end++
	}
	if end > start {
		// reasoning_content holds the signed parts' texts as paragraphs
		// (appendReasoningContent), or as one run when the client
		// joined them itself.
		if u := joinedText(d.parts[start:end], ""); u == joinedText(d.leading, "\n\n") || u == joinedText(d.leading, "") {
			d.parts = slices.Delete(d.parts, start, end)
		}
	}
	d.parts = slices.Insert(d.parts, start, d.leading...)
	d.leading = d.leading[:0]
}

// joinedText returns the texts of parts with sep between the non-empty
// ones.
func joinedText(parts []codec.Part, sep string) string {
	var b strings.Builder
	for i := range parts {
		if !parts[i].HasText() {
			continue
		}
		if b.Len() > 0 {
			b.WriteString(sep)
		}
		b.WriteString(parts[i].TextValue())
	}
	return b.String()
}
