package anthropic

import (
	"strings"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/jsonx"
	"github.com/llmbridge/llmbridge/codec/internal/wire"
	"github.com/llmbridge/llmbridge/mapping"
)

// streamEncoder encodes canonical events as an Anthropic stream:
// message_start, then per part content_block_start, content_block_delta*
// and content_block_stop (refusals are text blocks: Anthropic has none of
// its own), then message_delta with the stop reason, its stop details and
// the final usage, and message_stop. A tool call part is a tool_use block,
// started with its id, name and input {}, whose argument fragments are
// input_json_delta events; a call without fragments sends none (its input
// is {}). A reasoning part is a thinking block, started empty, whose text
// comes in thinking_delta events and whose opaque value, known at the
// part's stop, is a signature_delta holding a continuation token; a
// redacted reasoning part is a redacted_thinking block, written whole at
// the part's stop, when its data is known. The stop reason and usage are
// held until the end, because upstreams such as Chat and Gemini report the
// final counts after the stop. A failed stream ends with the open block's
// content_block_stop and an error event, never message_stop.
type streamEncoder struct {
	p       codec.Protocol // the client's protocol
	req     *codec.Request
	started bool
	open    bool  // a content block is open
	kind    uint8 // the open block's kind: blockText, ...Tool or ...Thinking
	block   int64 // index of the open block, or of the next one
	done    bool

	// redacted is set while a redacted reasoning part is open: its block is
	// written at the part's stop.
	redacted bool
	// itemID is the open reasoning part's item id (a copy), which its
	// continuation token carries.
	itemID string
	// serverID is the id of the last server tool call (a copy), which a
	// result without an id answers.
	serverID string

	stop    codec.StopReason
	stopSeq string
	details codec.StopDetails
	usage   codec.Usage
}

func newStreamEncoder(p codec.Protocol, req *codec.Request) *streamEncoder {
	return &streamEncoder{p: p, req: req}
}

// Encode implements StreamEncoder.
func (e *streamEncoder) Encode(dst []byte, ev *codec.Event) []byte {
	if e.done {
		return dst
	}
	switch ev.Type {
	case codec.EventStart:
		if e.started {
			return dst
		}
		if ev.Usage.Known {
			e.usage = ev.Usage
		}
		return e.messageStart(dst, ev.ID, ev.Model)
	case codec.EventPartStart:
		dst = e.ensureStarted(dst)
		dst = e.closeBlock(dst)
		switch ev.Part {
		case codec.PartText, codec.PartRefusal:
			return e.openBlock(dst)
		case codec.PartReasoning:
			e.itemID = strings.Clone(ev.ItemID) // ev's strings are borrowed
			if ev.Redacted {
				e.redacted = true
				return dst
			}
			return e.openThinkingBlock(dst)
		case codec.PartToolCall:
			if ev.ToolName != "" {
				return e.openToolBlock(dst, ev.ToolCallID, ev.ToolName)
			}
		case codec.PartServerToolCall:
			return e.openServerBlock(dst, ev.ToolCallID)
		case codec.PartServerToolResult:
			return e.openSearchResultBlock(dst, ev)
		}
		return e.Encode(dst, &codec.Event{Type: codec.EventError, Err: &codec.Error{Status: 502, Kind: mapping.ErrBadGateway,
			Message: "content part type " + ev.Part.String() + " cannot be expressed in an " + string(codec.AnthropicMessages) + " stream"}})
	case codec.EventPartDelta:
		if ev.Text == "" || e.redacted {
			return dst // redacted reasoning has no readable text
		}
		dst = e.ensureStarted(dst)
		if !e.open {
			dst = e.openBlock(dst)
		}
		dst = append(dst, "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":"...)
		dst = jsonx.AppendInt(dst, e.block)
		switch e.kind {
		case blockTool:
			dst = append(dst, `,"delta":{"type":"input_json_delta","partial_json":`...)
		case blockThinking:
			dst = append(dst, `,"delta":{"type":"thinking_delta","thinking":`...)
		default:
			dst = append(dst, `,"delta":{"type":"text_delta","text":`...)
		}
		dst = jsonx.AppendString(dst, ev.Text)
		return append(dst, "}}\n\n"...)
	case codec.EventPartStop:
		return e.partStop(dst, ev)
	case codec.EventCitation:
		if !e.open || e.kind != blockText {
			return dst
		}
		// Anthropic cites whole blocks: the citation goes to the open
		// text block, whatever span it had.
		dst = append(dst, "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":"...)
		dst = jsonx.AppendInt(dst, e.block)
		dst = append(dst, `,"delta":{"type":"citations_delta","citation":{"type":"web_search_result_location","url":`...)
		dst = jsonx.AppendString(dst, ev.Citation.URL)
		dst = append(dst, `,"title":`...)
		dst = jsonx.AppendString(dst, ev.Citation.Title)
		dst = append(dst, `,"cited_text":`...)
		dst = jsonx.AppendString(dst, ev.Citation.CitedText)
		return append(dst, ",\"encrypted_index\":\"\"}}}\n\n"...)
	case codec.EventUsage:
		if ev.Usage.Known {
			e.usage = ev.Usage
		}
		return dst
	case codec.EventStop:
		e.stop = ev.StopReason
		// ev's strings are borrowed.
		e.stopSeq = strings.Clone(ev.StopSequence)
		e.details = codec.StopDetails{Category: strings.Clone(ev.StopDetails.Category), Explanation: strings.Clone(ev.StopDetails.Explanation)}
		return dst
	case codec.EventEnd:
		e.done = true
		dst = e.ensureStarted(dst)
		dst = e.closeBlock(dst)
		return e.messageEnd(dst, &ev.Latency)
	case codec.EventError:
		e.done = true
		dst = e.closeBlock(dst)
		err := ev.Err
		if err == nil {
			err = &codec.Error{Status: 502, Kind: mapping.ErrBadGateway, Message: "upstream stream failed"}
		}
		if e.p == codec.BedrockAnthropic {
			// Bedrock ends a stream with an exception message, which
			// its SDKs raise; they do not read an error chunk.
			return wire.AppendStreamException(dst, err)
		}
		dst = append(dst, "event: error\ndata: "...)
		dst = codec.AppendError(dst, codec.AnthropicMessages, err)
		return append(dst, "\n\n"...)
	}
	return dst
}

// ensureStarted writes message_start when the stream has not started, for
// an event source that skipped EventStart.
func (e *streamEncoder) ensureStarted(dst []byte) []byte {
	if e.started {
		return dst
	}
	return e.messageStart(dst, "", "")
}

// messageStart writes message_start. Usage is what is known so far (input
// tokens from Anthropic upstreams); upstreams that report usage only at the
// end get zeros here and their counts in message_delta.
func (e *streamEncoder) messageStart(dst []byte, id, model string) []byte {
	e.started = true
	if id == "" {
		id = wire.NewID("msg_")
	}
	if model == "" && e.req != nil {
		model = e.req.Model
	}
	dst = append(dst, "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":"...)
	dst = jsonx.AppendString(dst, id)
	dst = append(dst, `,"type":"message","role":"assistant","model":`...)
	dst = jsonx.AppendString(dst, model)
	dst = append(dst, `,"content":[],"stop_reason":null,"stop_sequence":null`...)
	dst = appendUsage(dst, &e.usage) // closes the message object
	return append(dst, "}\n\n"...)
}

// openBlock writes content_block_start for a text block.
func (e *streamEncoder) openBlock(dst []byte) []byte {
	e.open, e.kind = true, blockText
	dst = append(dst, "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":"...)
	dst = jsonx.AppendInt(dst, e.block)
	return append(dst, ",\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n"...)
}

// openToolBlock writes content_block_start for a tool_use block. A call
// without an id (no upstream decoder produces one) gets a new toolu_ id,
// since Anthropic clients answer by id.
func (e *streamEncoder) openToolBlock(dst []byte, id, name string) []byte {
	e.open, e.kind = true, blockTool
	if id == "" {
		id = wire.NewID("toolu_")
	}
	dst = append(dst, "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":"...)
	dst = jsonx.AppendInt(dst, e.block)
	dst = append(dst, `,"content_block":{"type":"tool_use","id":`...)
	dst = jsonx.AppendString(dst, id)
	dst = append(dst, `,"name":`...)
	dst = jsonx.AppendString(dst, name)
	return append(dst, ",\"input\":{}}}\n\n"...)
}

// openServerBlock writes content_block_start for a server_tool_use block
// of a hosted search; its input follows in input_json_delta events. A
// call without an id (Gemini gives none) gets a new srvtoolu_ id, which
// its result block names.
func (e *streamEncoder) openServerBlock(dst []byte, id string) []byte {
	e.open, e.kind = true, blockTool
	if id == "" {
		id = wire.NewID("srvtoolu_")
	}
	e.serverID = strings.Clone(id)
	dst = append(dst, "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":"...)
	dst = jsonx.AppendInt(dst, e.block)
	dst = append(dst, `,"content_block":{"type":"server_tool_use","id":`...)
	dst = jsonx.AppendString(dst, id)
	return append(dst, ",\"name\":\"web_search\",\"input\":{}}}\n\n"...)
}

// openSearchResultBlock writes content_block_start for a
// web_search_tool_result block, which comes whole (see
// appendSearchResult); its stop follows.
func (e *streamEncoder) openSearchResultBlock(dst []byte, ev *codec.Event) []byte {
	id := ev.ToolCallID
	if id == "" {
		id = e.serverID
	}
	if id == "" {
		// A result of no search the client saw cannot be placed.
		return dst
	}
	e.open, e.kind = true, blockClosed
	dst = append(dst, "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":"...)
	dst = jsonx.AppendInt(dst, e.block)
	dst = append(dst, `,"content_block":`...)
	dst = appendSearchResult(dst, &codec.Part{Sources: ev.Sources, IsError: ev.IsError, Text: ev.Text}, id, false)
	return append(dst, "}\n\n"...)
}

// openThinkingBlock writes content_block_start for a thinking block, empty
// as Anthropic starts it.
func (e *streamEncoder) openThinkingBlock(dst []byte) []byte {
	e.open, e.kind = true, blockThinking
	dst = append(dst, "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":"...)
	dst = jsonx.AppendInt(dst, e.block)
	return append(dst, ",\"content_block\":{\"type\":\"thinking\",\"thinking\":\"\",\"signature\":\"\"}}\n\n"...)
}

// partStop closes the open part. A reasoning part's opaque value, which
// comes with its stop, goes out first: as the thinking block's
// signature_delta, or as the data of the redacted_thinking block written
// now. Redacted reasoning without data carries nothing and writes nothing.
func (e *streamEncoder) partStop(dst []byte, ev *codec.Event) []byte {
	switch {
	case e.redacted:
		e.redacted = false
		if ev.Signature == "" {
			return dst
		}
		dst = e.ensureStarted(dst)
		dst = append(dst, "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":"...)
		dst = jsonx.AppendInt(dst, e.block)
		dst = append(dst, `,"content_block":{"type":"redacted_thinking","data":"`...)
		dst = wire.AppendOpaque(dst, ev.Signature, ev.Origin, true, e.itemID)
		dst = append(dst, "\"}}\n\n"...)
		e.open, e.kind = true, blockThinking
	case e.open && e.kind == blockThinking && ev.Signature != "":
		dst = append(dst, "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":"...)
		dst = jsonx.AppendInt(dst, e.block)
		dst = append(dst, `,"delta":{"type":"signature_delta","signature":"`...)
		dst = wire.AppendOpaque(dst, ev.Signature, ev.Origin, false, e.itemID)
		dst = append(dst, "\"}}\n\n"...)
	}
	return e.closeBlock(dst)
}

// closeBlock writes content_block_stop for the open block, if any. A
// redacted reasoning part still waiting for its data is abandoned: it has
// none.
func (e *streamEncoder) closeBlock(dst []byte) []byte {
	e.redacted = false
	if !e.open {
		return dst
	}
	e.open = false
	dst = append(dst, "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":"...)
	dst = jsonx.AppendInt(dst, e.block)
	e.block++
	return append(dst, "}\n\n"...)
}

// messageEnd writes message_delta and message_stop. The usage carries the
// final output tokens and, when the upstream reported usage, the final
// input and cache counters too (Chat and Gemini report them only now).
// Toward Bedrock, message_stop carries the invocation metrics, with the
// latencies lat the caller measured.
func (e *streamEncoder) messageEnd(dst []byte, lat *codec.Latency) []byte {
	dst = append(dst, "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":"...)
	dst = appendStopReason(dst, e.stop)
	dst = append(dst, `,"stop_sequence":`...)
	if e.stopSeq != "" {
		dst = jsonx.AppendString(dst, e.stopSeq)
	} else {
		dst = append(dst, "null"...)
	}
	dst = appendStopDetails(dst, e.stop, &e.details)
	dst = append(dst, `},"usage":{`...)
	u := &e.usage
	if u.Known {
		dst = append(dst, `"input_tokens":`...)
		dst = jsonx.AppendInt(dst, u.AnthropicInputTokens())
		dst = append(dst, `,"cache_creation_input_tokens":`...)
		dst = jsonx.AppendInt(dst, u.CacheWriteTokens)
		dst = append(dst, `,"cache_read_input_tokens":`...)
		dst = jsonx.AppendInt(dst, u.CacheReadTokens)
		dst = append(dst, ',')
	}
	dst = append(dst, `"output_tokens":`...)
	dst = jsonx.AppendInt(dst, u.OutputTokens)
	if u.ReasoningTokens > 0 {
		dst = append(dst, `,"output_tokens_details":{"thinking_tokens":`...)
		dst = jsonx.AppendInt(dst, u.ReasoningTokens)
		dst = append(dst, '}')
	}
	dst = append(dst, "}}\n\nevent: message_stop\ndata: {\"type\":\"message_stop\""...)
	if e.p == codec.BedrockAnthropic {
		// Bedrock adds its invocation metrics to the last chunk, where
		// its clients (boto3, the AWS SDKs' users, LiteLLM) read usage.
		dst = appendInvocationMetrics(dst, u, lat)
	}
	return append(dst, "}\n\n"...)
}
