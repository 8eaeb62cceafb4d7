package interactions

import (
	"strings"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/jsonx"
	"github.com/llmbridge/llmbridge/codec/internal/wire"
	"github.com/llmbridge/llmbridge/mapping"
)

// streamEncoder encodes Interactions streams for clients: each canonical
// part is one step (text a model_output step, reasoning a thought step
// whose signature is a thought_signature delta before its step.stop),
// every event carries an event_id, and the stream ends with
// interaction.completed and data: [DONE], which the SDKs wait for. A
// function call's step is written whole at its end, arguments included:
// clients read a call's arguments from its step, not from deltas.
// Hosted search steps and citations are left out, as toward Gemini
// clients: they are display only, and the answer itself still arrives.
type streamEncoder struct {
	req *codec.Request
	// server hides hosted search parts and citations.
	server wire.ServerFilter
	// id and model are the interaction's.
	id, model string
	// seq numbers the events (event_id); step numbers the steps.
	seq, step int
	// kind is the open part's kind; open reports that one is open.
	kind codec.PartType
	open bool
	// redacted and itemID are the open reasoning part's, for its token.
	redacted bool
	itemID   string
	// callID and callName are the open call's, args its arguments so far;
	// thought collects the open reasoning part's text for a token.
	callID, callName string
	args, thought    []byte
	tok              []byte
	usage            codec.Usage
	stop             codec.StopReason
	began, done      bool
	// output and calls report that text and function calls went out,
	// which a refusal at the end must know.
	output, calls bool
}

func newStreamEncoder(req *codec.Request) *streamEncoder {
	return &streamEncoder{req: req}
}

// Encode implements StreamEncoder.
func (e *streamEncoder) Encode(dst []byte, ev *codec.Event) []byte {
	if e.done || e.server.Skip(ev) {
		return dst
	}
	if !e.began && ev.Type != codec.EventError {
		dst = e.begin(dst, ev)
		if ev.Type == codec.EventStart {
			return dst
		}
	}
	switch ev.Type {
	case codec.EventPartStart:
		dst = e.partStart(dst, ev)
	case codec.EventPartDelta:
		dst = e.partDelta(dst, ev)
	case codec.EventPartStop:
		dst = e.partStop(dst, ev)
	case codec.EventUsage:
		e.usage = ev.Usage
	case codec.EventStop:
		e.stop = ev.StopReason
		if ev.StopReason == mapping.StopRefusal && !e.output {
			dst = e.refusal(dst, ev)
		}
	case codec.EventEnd:
		e.done = true
		dst = e.head(dst, "interaction.completed")
		dst = append(dst, `,"interaction":{"id":`...)
		dst = jsonx.AppendString(dst, e.id)
		dst = append(dst, `,"model":`...)
		dst = jsonx.AppendString(dst, e.model)
		dst = append(dst, `,"status":"`...)
		dst = append(dst, status(e.stop)...)
		dst = append(dst, '"')
		if e.usage.Known {
			dst = appendUsage(dst, &e.usage)
		}
		dst = append(dst, "}}\n\ndata: [DONE]\n\n"...)
	case codec.EventError:
		dst = e.appendError(dst, ev.Err)
	}
	return dst
}

// refusal handles a refusal before any text went out. The Interactions
// API has no refusal slot and no refusal status: the upstream's
// explanation becomes the output, which is what the client is told;
// without one there is nothing true to tell, and after function calls the
// client could not tell which of them the refusal withdrew, so both end
// the stream with an error event rather than a blank or misleading
// success.
func (e *streamEncoder) refusal(dst []byte, ev *codec.Event) []byte {
	switch {
	case e.calls:
		return e.appendError(dst, wire.RefusalError(Gemini, "the upstream refused after producing tool call output"))
	case ev.StopDetails.Explanation == "":
		return e.appendError(dst, wire.RefusalError(Gemini, "the upstream refused without any text or explanation"))
	}
	dst = e.stepHead(dst, "step.start")
	dst = append(dst, `,"step":{"type":"model_output","content":[]}}`+"\n\n"...)
	dst = e.stepHead(dst, "step.delta")
	dst = append(dst, `,"delta":{"type":"text","text":`...)
	dst = jsonx.AppendString(dst, ev.StopDetails.Explanation)
	dst = append(dst, "}}\n\n"...)
	dst = e.stepHead(dst, "step.stop")
	dst = append(dst, "}\n\n"...)
	e.step++
	e.output = true
	return dst
}

// appendError ends the stream with an error event.
func (e *streamEncoder) appendError(dst []byte, err *codec.Error) []byte {
	e.done = true
	dst = e.head(dst, "error")
	dst = append(dst, `,"error":{"code":`...)
	code := mapping.GoogleStatus(err.Kind, err.Status)
	if isStatusName(err.Code) {
		code = err.Code
	}
	dst = jsonx.AppendString(dst, code)
	dst = append(dst, `,"message":`...)
	dst = jsonx.AppendString(dst, err.Message)
	return append(dst, "}}\n\n"...)
}

// begin writes interaction.created for the first event.
func (e *streamEncoder) begin(dst []byte, ev *codec.Event) []byte {
	e.began = true
	if ev.Type == codec.EventStart {
		e.id, e.model = ev.ID, ev.Model
	}
	if e.id == "" {
		e.id = wire.NewID("v1_")
	} else {
		e.id = strings.Clone(e.id)
	}
	if e.model == "" {
		e.model = e.req.Model
	} else {
		e.model = strings.Clone(e.model)
	}
	dst = e.head(dst, "interaction.created")
	dst = append(dst, `,"interaction":{"id":`...)
	dst = jsonx.AppendString(dst, e.id)
	dst = append(dst, `,"model":`...)
	dst = jsonx.AppendString(dst, e.model)
	return append(dst, `,"status":"in_progress"}}`+"\n\n"...)
}

// head writes an event's name and the start of its data up to its
// event_id.
func (e *streamEncoder) head(dst []byte, typ string) []byte {
	e.seq++
	dst = append(dst, "event: "...)
	dst = append(dst, typ...)
	dst = append(dst, "\ndata: {\"event_type\":\""...)
	dst = append(dst, typ...)
	dst = append(dst, `","event_id":"evt_`...)
	dst = jsonx.AppendInt(dst, int64(e.seq))
	return append(dst, '"')
}

// stepHead writes the start of a step event up to its index.
func (e *streamEncoder) stepHead(dst []byte, typ string) []byte {
	dst = e.head(dst, typ)
	dst = append(dst, `,"index":`...)
	return jsonx.AppendInt(dst, int64(e.step))
}

// partStart opens a step for a part; a call's waits for its arguments.
func (e *streamEncoder) partStart(dst []byte, ev *codec.Event) []byte {
	e.kind, e.open = ev.Part, true
	switch ev.Part {
	case codec.PartText, codec.PartRefusal:
		dst = e.stepHead(dst, "step.start")
		return append(dst, `,"step":{"type":"model_output","content":[]}}`+"\n\n"...)
	case codec.PartReasoning:
		e.redacted, e.itemID, e.thought = ev.Redacted, strings.Clone(ev.ItemID), e.thought[:0]
		dst = e.stepHead(dst, "step.start")
		return append(dst, `,"step":{"type":"thought"}}`+"\n\n"...)
	case codec.PartToolCall:
		e.callID, e.callName, e.args = strings.Clone(ev.ToolCallID), strings.Clone(ev.ToolName), e.args[:0]
		return dst
	}
	e.open = false
	return dst
}

// partDelta writes a text or thought delta, or keeps a call's arguments.
func (e *streamEncoder) partDelta(dst []byte, ev *codec.Event) []byte {
	if !e.open || ev.Text == "" {
		return dst
	}
	switch e.kind {
	case codec.PartText, codec.PartRefusal:
		e.output = true
		dst = e.stepHead(dst, "step.delta")
		dst = append(dst, `,"delta":{"type":"text","text":`...)
		dst = jsonx.AppendString(dst, ev.Text)
		return append(dst, "}}\n\n"...)
	case codec.PartReasoning:
		e.thought = append(e.thought, ev.Text...)
		dst = e.stepHead(dst, "step.delta")
		dst = append(dst, `,"delta":{"type":"thought_summary","content":{"type":"text","text":`...)
		dst = jsonx.AppendString(dst, ev.Text)
		return append(dst, "}}}\n\n"...)
	case codec.PartToolCall:
		e.args = append(e.args, ev.Text...)
	}
	return dst
}

// partStop closes the part's step: a thought's signature comes first,
// and a call's step is written whole.
func (e *streamEncoder) partStop(dst []byte, ev *codec.Event) []byte {
	if !e.open {
		return dst
	}
	e.open = false
	switch e.kind {
	case codec.PartReasoning:
		if ev.Signature != "" {
			dst = e.stepHead(dst, "step.delta")
			dst = append(dst, `,"delta":{"type":"thought_signature","signature":`...)
			if ev.Origin == mapping.FamilyGemini && !strings.HasPrefix(ev.Signature, "{") {
				// A Gemini thought signature is the Interactions API's
				// own; a Gemini part kept whole (code execution and
				// the like) is not a signature and travels sealed.
				dst = jsonx.AppendString(dst, ev.Signature)
			} else {
				c := mapping.Continuation{Origin: ev.Origin, Redacted: e.redacted, ItemID: e.itemID, Signature: ev.Signature}
				if ev.Origin == mapping.FamilyAnthropic && !e.redacted {
					c.Text = jsonx.BytesToString(e.thought)
				}
				e.tok = mapping.AppendEnvelope(e.tok[:0], c)
				dst = jsonx.AppendString(dst, jsonx.BytesToString(e.tok))
			}
			dst = append(dst, "}}\n\n"...)
		}
	case codec.PartToolCall:
		e.args = jsonx.Compact(e.args)
		if len(e.args) > 0 && !jsonx.IsObject(jsonx.BytesToString(e.args)) {
			// Arguments that are not an object cannot be a step's.
			return e.appendError(dst, codec.NewError(mapping.ErrBadGateway, "the upstream sent tool call arguments that are not a JSON object"))
		}
		e.calls = true
		dst = e.stepHead(dst, "step.start")
		dst = append(dst, `,"step":{"type":"function_call","id":`...)
		dst = jsonx.AppendString(dst, e.callID)
		dst = append(dst, `,"name":`...)
		dst = jsonx.AppendString(dst, e.callName)
		dst = append(dst, `,"arguments":`...)
		if len(e.args) == 0 {
			dst = append(dst, "{}"...)
		} else {
			dst = append(dst, e.args...)
		}
		dst = append(dst, "}}\n\n"...)
	}
	dst = e.stepHead(dst, "step.stop")
	dst = append(dst, "}\n\n"...)
	e.step++
	return dst
}
