package anthropic

import (
	"strconv"
	"strings"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/jsonx"
	"github.com/llmbridge/llmbridge/codec/internal/wire"
	"github.com/llmbridge/llmbridge/mapping"
)

// appendResponse appends resp as a Messages response body, with
// every field anthropic-sdk-go's Message reads. Refusal parts become text
// blocks, since Anthropic has no refusal block (the refusal itself is in
// stop_reason, with stop_details when the upstream explained it); empty
// texts are skipped, as a client replaying the answer as history would be
// refused for an empty text block. Tool calls become tool_use blocks; one
// without an id (no upstream sends one, but the canonical form allows it)
// gets a new toolu_ id, since Anthropic clients answer by id. Reasoning
// becomes thinking blocks (redacted_thinking when redacted) whose opaque
// value is a continuation token, so that the client's replay can be sent
// back to the family that issued it.
func appendResponse(dst []byte, resp *codec.Response) ([]byte, *codec.Error) {
	for i := range resp.Content {
		part := &resp.Content[i]
		switch part.Type {
		case codec.PartText, codec.PartRefusal:
			continue
		case codec.PartReasoning:
			if !part.Redacted || part.Signature != "" {
				continue
			}
		case codec.PartToolCall:
			if part.ToolName != "" && wire.ArgumentsObject(part, isObject) {
				continue
			}
		case codec.PartServerToolCall, codec.PartServerToolResult:
			continue
		}
		return dst, &codec.Error{Status: 502, Kind: mapping.ErrBadGateway,
			Message: "content part type " + part.Type.String() + " cannot be expressed in an " + string(codec.AnthropicMessages) + " response"}
	}
	id := resp.ID
	if id == "" {
		id = wire.NewID("msg_")
	}
	dst = append(dst, `{"id":`...)
	dst = jsonx.AppendString(dst, id)
	dst = append(dst, `,"type":"message","role":"assistant","model":`...)
	dst = jsonx.AppendString(dst, resp.Model)
	dst = append(dst, `,"content":[`...)
	comma := false
	serverID := ""
	for i := range resp.Content {
		part := &resp.Content[i]
		if part.Type == codec.PartToolCall && part.ToolCallID == "" {
			withID := *part
			withID.ToolCallID = wire.NewID("toolu_")
			part = &withID
		}
		switch part.Type {
		case codec.PartReasoning:
			dst, comma = appendReasoning(dst, part, true, comma), true
			continue
		case codec.PartServerToolCall:
			serverID = anthropicServerID(part.ToolCallID, id, i)
			dst, comma = appendServerCall(dst, part, serverID, comma), true
			continue
		case codec.PartServerToolResult:
			rid := part.ToolCallID
			if rid == "" {
				rid = serverID
			}
			if rid == "" {
				// A result of no search the client saw cannot be placed.
				resp.Dropped = append(resp.Dropped, wire.IndexPath("content", i)+" (server tool result)")
				continue
			}
			dst, comma = appendSearchResult(dst, part, anthropicServerID(rid, id, i), comma), true
			continue
		case codec.PartText:
			if len(part.Citations) > 0 {
				dst, comma = appendCitedText(dst, part, comma)
				continue
			}
		}
		dst, comma = appendBlock(dst, part, comma, nil)
	}
	dst = append(dst, `],"stop_reason":`...)
	dst = appendStopReason(dst, resp.StopReason)
	dst = append(dst, `,"stop_sequence":`...)
	if resp.StopSequence != "" {
		dst = jsonx.AppendString(dst, resp.StopSequence)
	} else {
		dst = append(dst, "null"...)
	}
	dst = appendStopDetails(dst, resp.StopReason, &resp.StopDetails)
	return appendUsage(dst, &resp.Usage), nil
}

// anthropicServerID is the id of a server tool call: its own, or one
// made from the message id and the part's index (Gemini gives none).
func anthropicServerID(own, msgID string, i int) string {
	if own != "" {
		return own
	}
	return "srvtoolu_" + strings.TrimPrefix(msgID, "msg_") + "_" + strconv.Itoa(i)
}

// appendServerCall appends a server_tool_use block for a hosted
// search call.
func appendServerCall(dst []byte, p *codec.Part, id string, comma bool) []byte {
	if comma {
		dst = append(dst, ',')
	}
	dst = append(dst, `{"type":"server_tool_use","id":`...)
	dst = jsonx.AppendString(dst, id)
	dst = append(dst, `,"name":"web_search","input":`...)
	dst = wire.AppendArgumentsObject(dst, p)
	return append(dst, '}')
}

// appendSearchResult appends a web_search_tool_result block. Its
// results carry an empty encrypted_content: the search ran at another
// provider, whose results Anthropic could not read back anyway (llmbridge
// drops such blocks from the history it sends on).
func appendSearchResult(dst []byte, p *codec.Part, id string, comma bool) []byte {
	if comma {
		dst = append(dst, ',')
	}
	dst = append(dst, `{"type":"web_search_tool_result","tool_use_id":`...)
	dst = jsonx.AppendString(dst, id)
	if p.IsError {
		dst = append(dst, `,"content":{"type":"web_search_tool_result_error","error_code":`...)
		code := p.TextValue()
		if code == "" {
			code = "unavailable"
		}
		dst = jsonx.AppendString(dst, code)
		return append(dst, `}}`...)
	}
	dst = append(dst, `,"content":[`...)
	for k := range p.Sources {
		src := &p.Sources[k]
		if k > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"type":"web_search_result","url":`...)
		dst = jsonx.AppendString(dst, src.URL)
		dst = append(dst, `,"title":`...)
		dst = jsonx.AppendString(dst, src.Title)
		dst = append(dst, `,"encrypted_content":"","page_age":`...)
		if src.PageAge != "" {
			dst = jsonx.AppendString(dst, src.PageAge)
		} else {
			dst = append(dst, "null"...)
		}
		dst = append(dst, '}')
	}
	return append(dst, `]}`...)
}

// appendCitedText appends a text part with citations as text
// blocks: Anthropic cites whole blocks, so the text is split at the cited
// spans, each span a block with its citations (web_search_result_location,
// with an empty encrypted_index: the citation was made by another
// provider) and the text between spans blocks of their own.
func appendCitedText(dst []byte, p *codec.Part, comma bool) ([]byte, bool) {
	for _, seg := range wire.CitedSegments(p) {
		if seg.Text == "" {
			continue
		}
		if comma {
			dst = append(dst, ',')
		}
		comma = true
		dst = append(dst, `{"type":"text","text":`...)
		dst = jsonx.AppendString(dst, seg.Text)
		if len(seg.Cites) > 0 {
			dst = append(dst, `,"citations":[`...)
			for k, c := range seg.Cites {
				if k > 0 {
					dst = append(dst, ',')
				}
				dst = append(dst, `{"type":"web_search_result_location","url":`...)
				dst = jsonx.AppendString(dst, c.URL)
				dst = append(dst, `,"title":`...)
				dst = jsonx.AppendString(dst, c.Title)
				dst = append(dst, `,"cited_text":`...)
				cited := c.CitedText
				if cited == "" {
					cited = seg.Text
				}
				dst = jsonx.AppendString(dst, cited)
				dst = append(dst, `,"encrypted_index":""}`...)
			}
			dst = append(dst, ']')
		}
		dst = append(dst, '}')
	}
	return dst, comma
}

// appendStopDetails appends stop_details for a refusal or a filter
// stop (both are stop_reason refusal toward Anthropic), with only the
// members the upstream gave: none is invented, and without any the member is
// left out (a client reads that as null).
func appendStopDetails(dst []byte, stop codec.StopReason, sd *codec.StopDetails) []byte {
	if (stop != mapping.StopRefusal && stop != mapping.StopContentFilter) || (sd.Category == "" && sd.Explanation == "") {
		return dst
	}
	dst = append(dst, `,"stop_details":{"type":"refusal"`...)
	if sd.Category != "" {
		dst = append(dst, `,"category":`...)
		dst = jsonx.AppendString(dst, sd.Category)
	}
	if sd.Explanation != "" {
		dst = append(dst, `,"explanation":`...)
		dst = jsonx.AppendString(dst, sd.Explanation)
	}
	return append(dst, '}')
}

// appendUsage appends the usage object and closes the response.
// Anthropic's input_tokens excludes cache reads and writes, so they are
// taken out of the canonical count. The protocol requires usage: when the
// upstream reported none (u.Known is false), all counters are zero.
func appendUsage(dst []byte, u *codec.Usage) []byte {
	dst = append(dst, `,"usage":{"input_tokens":`...)
	dst = jsonx.AppendInt(dst, u.AnthropicInputTokens())
	dst = append(dst, `,"cache_creation_input_tokens":`...)
	dst = jsonx.AppendInt(dst, u.CacheWriteTokens)
	dst = append(dst, `,"cache_read_input_tokens":`...)
	dst = jsonx.AppendInt(dst, u.CacheReadTokens)
	dst = append(dst, `,"output_tokens":`...)
	dst = jsonx.AppendInt(dst, u.OutputTokens)
	if u.ReasoningTokens > 0 {
		// Newer Anthropic responses detail thinking tokens; the stream
		// encoder writes the same field.
		dst = append(dst, `,"output_tokens_details":{"thinking_tokens":`...)
		dst = jsonx.AppendInt(dst, u.ReasoningTokens)
		dst = append(dst, '}')
	}
	return append(dst, "}}"...)
}

// appendStopReason appends the stop_reason value for s. A response
// whose upstream gave no stop reason (a Responses incomplete status with an
// unknown reason, say) gets null: a stop with no exact equivalent is
// traced, never replaced by an invented reason.
func appendStopReason(dst []byte, s codec.StopReason) []byte {
	if s == mapping.StopNone {
		return append(dst, "null"...)
	}
	return jsonx.AppendString(dst, mapping.AnthropicStopReason(s))
}
