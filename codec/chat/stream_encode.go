package chat

import (
	"strings"
	"time"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/jsonx"
	"github.com/llmbridge/llmbridge/codec/internal/wire"
	"github.com/llmbridge/llmbridge/mapping"
)

// streamEncoder encodes Chat streams for clients:
//
//	data: {chunk: delta {"role":"assistant","content":"","refusal":null}}
//	      (or {"role":"assistant","content":null,"refusal":""} when the
//	      first part is a refusal, as OpenAI starts refusals)
//	      (content null and refusal null when the first part is reasoning
//	      or a tool call)
//	data: {chunk: delta {"reasoning_content":"..."}} ...  (reasoning text;
//	      its opaque value goes in the next tool call's id)
//	data: {chunk: delta {"content":"..."} or {"refusal":"..."}} ...
//	      (a refusal stop before any content: the upstream's explanation as
//	      one refusal delta, or an in-stream error when there is none or
//	      tool calls went out)
//	data: {chunk: delta {"tool_calls":[{"index":k,"id","type":"function",
//	      "function":{"name","arguments":""}}]}}   (once per call; k counts
//	      the calls from 0)
//	data: {chunk: delta {"tool_calls":[{"index":k,"function":{"arguments":"..."}}]}} ...
//	      ("{}" when the upstream sent no argument fragment at all)
//	data: {chunk: delta {}, finish_reason}
//	data: {chunk: choices [], usage}   (include_usage and usage known)
//	data: [DONE]
//
// or, on an error, data: {"error":{...}} and nothing after it.
type streamEncoder struct {
	req *codec.Request
	// server hides hosted search parts, which this protocol cannot carry
	// in a stream. Citations go out as annotations (see cite).
	server wire.ServerFilter
	// prefix is `data: {"id":...,"object":...,"created":...,"model":...,"choices":[`,
	// built once so that every chunk repeats the same id, created and model.
	prefix []byte
	// roleSent: the role chunk went out. It waits for the first event that
	// produces output, because its shape depends on the first part's kind.
	roleSent bool
	// stopSent: the finish chunk went out.
	stopSent bool
	// partIndex and partKind are the part last started.
	partIndex int
	partKind  codec.PartType
	// calls is the number of tool call parts started; the open one, when
	// partKind is PartToolCall, has the Chat index calls-1. argsSent: an
	// argument fragment of it went out.
	calls    int
	argsSent bool
	// sent: a non-empty content or refusal delta went out, so a refusal
	// stop has visible output already and adds nothing.
	sent bool
	// itemID and redacted are the open reasoning part's item id (copied:
	// event strings alias the upstream's data) and redacted flag, which its
	// continuation envelope carries at the part's stop.
	itemID   []byte
	redacted bool
	// thinking is the open reasoning part's text, kept for the
	// continuation of Anthropic thinking (whose signature covers it), up
	// to mapping.MaxEnvelopeSize; pending are the continuations of the
	// signed reasoning since the last tool call, in tool-call id form,
	// which the next call's id carries (openai_chat_envelope.go).
	thinking []byte
	pending  []byte
	// reasoningSent: reasoning text went out, so the next reasoning part's
	// text starts a new paragraph.
	reasoningSent bool
	// usage is the latest usage, sent in the last chunk.
	usage codec.Usage
	done  bool
	// content follows the content text sent, partBase is where the open
	// text part starts in it, and cites are the open text part's
	// citations (strings copied), sent as annotations when it stops.
	content  wire.TextOffsets
	partBase int
	cites    []codec.Citation
}

func newStreamEncoder(req *codec.Request) *streamEncoder {
	if req == nil {
		req = &codec.Request{}
	}
	return &streamEncoder{req: req, partIndex: -1}
}

// Encode implements StreamEncoder.
func (e *streamEncoder) Encode(dst []byte, ev *codec.Event) []byte {
	if e.done {
		return dst
	}
	if ev.Type == codec.EventCitation {
		e.cite(ev)
		return dst
	}
	if e.server.Skip(ev) {
		return dst
	}
	switch ev.Type {
	case codec.EventStart:
		if e.prefix == nil {
			e.begin(ev)
		}
		if ev.Usage.Known {
			e.usage = ev.Usage
		}
	case codec.EventPartStart:
		e.partIndex, e.partKind = ev.Index, ev.Part
		dst = e.role(dst, ev.Part)
		switch ev.Part {
		case codec.PartToolCall:
			dst = e.startCall(dst, ev)
		case codec.PartReasoning:
			e.itemID = append(e.itemID[:0], ev.ItemID...)
			e.redacted = ev.Redacted
			e.thinking = e.thinking[:0]
		case codec.PartText:
			e.partBase = e.content.N
		}
	case codec.EventPartDelta:
		dst = e.role(dst, codec.PartText)
		if ev.Text == "" {
			return dst
		}
		kind := codec.PartText
		if ev.Index == e.partIndex {
			kind = e.partKind
		}
		switch kind {
		case codec.PartToolCall:
			e.argsSent = true
			return e.arguments(dst, ev.Text)
		case codec.PartRefusal:
			dst = append(dst, e.prefix...)
			dst = append(dst, `{"index":0,"delta":{"refusal":`...)
			e.sent = true
		case codec.PartReasoning:
			// DeepSeek's extension field, which Chat clients that show
			// thinking read; never content.
			if len(e.thinking)+len(ev.Text) <= mapping.MaxEnvelopeSize {
				e.thinking = append(e.thinking, ev.Text...)
			}
			dst = append(dst, e.prefix...)
			dst = append(dst, `{"index":0,"delta":{"reasoning_content":`...)
			if e.reasoningSent && len(e.thinking) == len(ev.Text) {
				// The first text of another reasoning part: a new
				// paragraph, as in non-streamed responses.
				dst = append(dst, `"\n\n`...)
				dst = jsonx.AppendStringBody(dst, ev.Text)
				dst = append(dst, "\"},\"logprobs\":null,\"finish_reason\":null}]}\n\n"...)
				return dst
			}
			e.reasoningSent = true
		default:
			dst = append(dst, e.prefix...)
			dst = append(dst, `{"index":0,"delta":{"content":`...)
			e.sent = true
			e.content.Add(ev.Text)
		}
		dst = jsonx.AppendString(dst, ev.Text)
		dst = append(dst, "},\"logprobs\":null,\"finish_reason\":null}]}\n\n"...)
	case codec.EventPartStop:
		if ev.Index != e.partIndex {
			return dst
		}
		switch {
		case e.partKind == codec.PartToolCall && !e.argsSent:
			// The upstream sent no arguments at all: Chat clients parse
			// the arguments string, so it becomes an empty object.
			e.argsSent = true
			dst = e.arguments(dst, "{}")
		case e.partKind == codec.PartText && len(e.cites) > 0:
			dst = e.annotations(dst)
		case e.partKind == codec.PartReasoning && ev.Signature != "":
			// The opaque value waits for the next tool call's id.
			p := codec.Part{Origin: ev.Origin, Redacted: e.redacted, ItemID: jsonx.BytesToString(e.itemID), Signature: ev.Signature}
			e.pending = mapping.AppendIDEnvelope(e.pending, continuation(&p, jsonx.BytesToString(e.thinking)))
		}
	case codec.EventUsage:
		if ev.Usage.Known {
			e.usage = ev.Usage
		}
	case codec.EventStop:
		if ev.StopReason == mapping.StopRefusal && !e.sent {
			return e.refusal(dst, ev)
		}
		dst = e.finish(e.annotations(e.role(dst, codec.PartText)), ev.StopReason)
	case codec.EventEnd:
		dst = e.finish(e.annotations(e.role(dst, codec.PartText)), mapping.StopNone)
		if e.req.StreamUsage && e.usage.Known {
			dst = append(dst, e.prefix...)
			dst = append(dst, ']')
			dst = appendUsage(dst, &e.usage)
			dst = append(dst, "}\n\n"...)
		}
		dst = append(dst, "data: [DONE]\n\n"...)
		e.done = true
	case codec.EventError:
		err := ev.Err
		if err == nil {
			err = &codec.Error{Status: 502, Kind: mapping.ErrBadGateway, Message: "upstream stream failed"}
		}
		dst = e.fail(dst, err)
	}
	return dst
}

// cite keeps a citation of the open text part until the part stops, when
// its length (a whole-part citation's end) is known.
func (e *streamEncoder) cite(ev *codec.Event) {
	if ev.Index != e.partIndex || e.partKind != codec.PartText {
		return
	}
	c := ev.Citation
	c.URL, c.Title, c.CitedText = strings.Clone(c.URL), strings.Clone(c.Title), ""
	e.cites = append(e.cites, c)
}

// annotations appends the kept citations as one chunk of url_citation
// annotations (as search models send them, after the text), with
// character indexes counted from the start of the message content.
func (e *streamEncoder) annotations(dst []byte) []byte {
	if len(e.cites) == 0 {
		return dst
	}
	partLen := e.content.N - e.partBase
	dst = append(dst, e.prefix...)
	dst = append(dst, `{"index":0,"delta":{"annotations":[`...)
	for k := range e.cites {
		c := &e.cites[k]
		end := c.End
		if end < 0 || end > partLen {
			end = partLen
		}
		start := max(0, min(c.Start, end))
		if k > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"type":"url_citation","url_citation":{"start_index":`...)
		dst = jsonx.AppendInt(dst, int64(e.content.CharIndex(e.partBase+start)))
		dst = append(dst, `,"end_index":`...)
		dst = jsonx.AppendInt(dst, int64(e.content.CharIndex(e.partBase+end)))
		dst = append(dst, `,"url":`...)
		dst = jsonx.AppendString(dst, c.URL)
		dst = append(dst, `,"title":`...)
		dst = jsonx.AppendString(dst, c.Title)
		dst = append(dst, `}}`...)
	}
	e.cites = e.cites[:0]
	return append(dst, "]},\"logprobs\":null,\"finish_reason\":null}]}\n\n"...)
}

// fail appends an in-stream error and ends the stream: openai-go's stream
// fails on any data: whose JSON has a top-level "error" (checked in the SDK
// test); no [DONE] follows.
func (e *streamEncoder) fail(dst []byte, err *codec.Error) []byte {
	dst = append(dst, "data: "...)
	dst = codec.AppendError(dst, codec.OpenAIChat, err)
	dst = append(dst, "\n\n"...)
	e.done = true
	return dst
}

// refusal ends a stream whose upstream refused before any content or
// refusal text went out. The upstream's explanation
// becomes the refusal, started as OpenAI starts refusals; without one
// there is nothing true to tell the client, and after tool calls the client
// could not tell which of them the refusal withdrew, so both are in-stream
// errors rather than a blank or misleading success.
func (e *streamEncoder) refusal(dst []byte, ev *codec.Event) []byte {
	switch {
	case e.calls > 0:
		return e.fail(dst, wire.RefusalError(codec.OpenAIChat, "the upstream refused after producing tool call output"))
	case ev.StopDetails.Explanation == "":
		return e.fail(dst, wire.RefusalError(codec.OpenAIChat, "the upstream refused without any text or explanation"))
	}
	dst = e.role(dst, codec.PartRefusal)
	dst = append(dst, e.prefix...)
	dst = append(dst, `{"index":0,"delta":{"refusal":`...)
	dst = jsonx.AppendString(dst, ev.StopDetails.Explanation)
	dst = append(dst, "},\"logprobs\":null,\"finish_reason\":null}]}\n\n"...)
	e.sent = true
	return e.finish(dst, ev.StopReason)
}

// begin builds the chunk prefix from the start event: the upstream's id and
// model when it gave them, else a new id and the requested model.
func (e *streamEncoder) begin(ev *codec.Event) {
	id, model, created := ev.ID, ev.Model, ev.Created
	if id == "" {
		id = wire.NewID("chatcmpl-")
	}
	if model == "" {
		model = e.req.Model
	}
	if created == 0 {
		created = time.Now().Unix()
	}
	p := make([]byte, 0, 96+len(id)+len(model))
	p = append(p, `data: {"id":`...)
	p = jsonx.AppendString(p, id)
	p = append(p, `,"object":"chat.completion.chunk","created":`...)
	p = jsonx.AppendInt(p, created)
	p = append(p, `,"model":`...)
	p = jsonx.AppendString(p, model)
	p = append(p, `,"choices":[`...)
	e.prefix = p
}

// role appends the role chunk once, before the first output. first is the
// kind of the first part: a refusal starts as OpenAI starts refusals.
func (e *streamEncoder) role(dst []byte, first codec.PartType) []byte {
	if e.roleSent {
		return dst
	}
	if e.prefix == nil {
		e.begin(&codec.Event{})
	}
	e.roleSent = true
	dst = append(dst, e.prefix...)
	switch first {
	case codec.PartRefusal:
		dst = append(dst, `{"index":0,"delta":{"role":"assistant","content":null,"refusal":""}`...)
	case codec.PartToolCall, codec.PartReasoning:
		dst = append(dst, `{"index":0,"delta":{"role":"assistant","content":null,"refusal":null}`...)
	default:
		dst = append(dst, `{"index":0,"delta":{"role":"assistant","content":"","refusal":null}`...)
	}
	return append(dst, ",\"logprobs\":null,\"finish_reason\":null}]}\n\n"...)
}

// finish appends the finish chunk once: an end without a stop reason still
// gets one, "stop", so that clients see a finished choice.
func (e *streamEncoder) finish(dst []byte, s codec.StopReason) []byte {
	if e.stopSent {
		return dst
	}
	e.stopSent = true
	if e.calls > 0 && (s == mapping.StopEnd || s == mapping.StopNone) {
		// Chat clients run tools on finish_reason "tool_calls"; upstreams
		// such as Gemini end tool calls with a natural stop.
		s = mapping.StopToolUse
	}
	dst = append(dst, e.prefix...)
	dst = append(dst, `{"index":0,"delta":{},"logprobs":null,"finish_reason":`...)
	dst = jsonx.AppendString(dst, mapping.ChatFinishReason(s))
	return append(dst, "}]}\n\n"...)
}

// startCall appends the first fragment of a tool call: its index among the
// tool calls, id, type and name, with arguments "".
func (e *streamEncoder) startCall(dst []byte, ev *codec.Event) []byte {
	e.calls++
	e.argsSent = false
	id := ev.ToolCallID
	if id == "" {
		id = wire.NewID("call_")
	}
	dst = append(dst, e.prefix...)
	dst = append(dst, `{"index":0,"delta":{"tool_calls":[{"index":`...)
	dst = jsonx.AppendInt(dst, int64(e.calls-1))
	dst = append(dst, `,"id":"`...)
	dst = jsonx.AppendStringBody(dst, id)
	dst = append(dst, e.pending...)
	e.pending = e.pending[:0]
	dst = append(dst, `","type":"function","function":{"name":`...)
	dst = jsonx.AppendString(dst, ev.ToolName)
	return append(dst, ",\"arguments\":\"\"}}]},\"logprobs\":null,\"finish_reason\":null}]}\n\n"...)
}

// arguments appends a fragment of the open tool call's arguments.
func (e *streamEncoder) arguments(dst []byte, text string) []byte {
	dst = append(dst, e.prefix...)
	dst = append(dst, `{"index":0,"delta":{"tool_calls":[{"index":`...)
	dst = jsonx.AppendInt(dst, int64(e.calls-1))
	dst = append(dst, `,"function":{"arguments":`...)
	dst = jsonx.AppendString(dst, text)
	return append(dst, "}}]},\"logprobs\":null,\"finish_reason\":null}]}\n\n"...)
}
