package bedrock

import (
	"strings"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/jsonx"
	"github.com/llmbridge/llmbridge/codec/internal/wire"
	"github.com/llmbridge/llmbridge/mapping"
)

// converseStreamEncoder encodes canonical events as ConverseStream events,
// one SSE event per event-stream message (the HTTP layer frames them),
// with the payloads the AWS SDK's ConverseStream reader takes:
// messageStart, then per part its contentBlockDelta events and a
// contentBlockStop (a tool use starts with contentBlockStart, as AWS's do;
// text and reasoning blocks are opened by their first delta), then
// messageStop with the stop reason and metadata with the usage, which
// Converse sends last. A reasoning part's opaque value, known at its stop,
// is a signature delta (a continuation token for another family's) or,
// for Claude's redacted reasoning, a redactedContent delta. Hosted search
// parts and citations have no Converse form and are skipped. A failed
// stream ends with an exception event.
type converseStreamEncoder struct {
	filter  wire.ServerFilter
	started bool
	done    bool

	open  bool           // a part is open
	kind  codec.PartType // the open part's type
	wrote bool           // the open part's block has had an event
	block int64          // contentBlockIndex of the open part, or of the next one

	// redacted is set while a redacted reasoning part is open; its
	// content is written at the part's stop.
	redacted bool
	itemID   string

	calls   bool // a tool call part has been sent
	stop    codec.StopReason
	stopSeq string
	usage   codec.Usage
}

// newConverseStreamEncoder returns an encoder at the start of a stream.
// It needs nothing of the client's request: Converse streams name no
// model.
func newConverseStreamEncoder() *converseStreamEncoder {
	return &converseStreamEncoder{}
}

// Encode implements StreamEncoder.
func (e *converseStreamEncoder) Encode(dst []byte, ev *codec.Event) []byte {
	if e.done || e.filter.Skip(ev) {
		return dst
	}
	switch ev.Type {
	case codec.EventStart:
		return e.ensureStarted(dst)
	case codec.EventPartStart:
		dst = e.ensureStarted(dst)
		e.open, e.kind, e.wrote, e.redacted = true, ev.Part, false, ev.Redacted
		e.itemID = ""
		if ev.Part == codec.PartReasoning && ev.ItemID != "" {
			e.itemID = strings.Clone(ev.ItemID)
		}
		if ev.Part == codec.PartToolCall {
			e.calls = true
			return e.toolStart(dst, ev.ToolCallID, ev.ToolName)
		}
		return dst
	case codec.EventPartDelta:
		if !e.open || ev.Text == "" {
			return dst
		}
		return e.delta(dst, ev.Text)
	case codec.EventPartStop:
		return e.partStop(dst, ev)
	case codec.EventUsage:
		e.usage = ev.Usage
	case codec.EventStop:
		e.stop = ev.StopReason
		e.stopSeq = strings.Clone(ev.StopSequence)
	case codec.EventEnd:
		return e.end(dst, &ev.Latency)
	case codec.EventError:
		e.done = true
		return wire.AppendStreamException(dst, ev.Err)
	}
	return dst
}

// ensureStarted writes messageStart once.
func (e *converseStreamEncoder) ensureStarted(dst []byte) []byte {
	if e.started {
		return dst
	}
	e.started = true
	return append(dst, "event: messageStart\ndata: {\"role\":\"assistant\"}\n\n"...)
}

// toolStart writes contentBlockStart of a tool use. A call without an id
// gets a new one, since clients answer by id.
func (e *converseStreamEncoder) toolStart(dst []byte, id, name string) []byte {
	if id == "" {
		id = wire.NewID("tooluse_")
	}
	e.wrote = true
	dst = append(dst, "event: contentBlockStart\ndata: {\"contentBlockIndex\":"...)
	dst = jsonx.AppendInt(dst, e.block)
	dst = append(dst, `,"start":{"toolUse":{"toolUseId":`...)
	dst = jsonx.AppendString(dst, id)
	dst = append(dst, `,"name":`...)
	dst = jsonx.AppendString(dst, name)
	return append(dst, "}}}\n\n"...)
}

// delta writes the contentBlockDelta of a fragment of the open part: text
// (refusals too, which Converse has no block for), tool input, or
// reasoning text. Parts of other kinds have no deltas in Converse.
func (e *converseStreamEncoder) delta(dst []byte, text string) []byte {
	var head string
	switch e.kind {
	case codec.PartText, codec.PartRefusal:
		head = `,"delta":{"text":`
	case codec.PartToolCall:
		head = `,"delta":{"toolUse":{"input":`
	case codec.PartReasoning:
		if e.redacted {
			return dst
		}
		head = `,"delta":{"reasoningContent":{"text":`
	default:
		return dst
	}
	dst = e.deltaHead(dst, head)
	dst = jsonx.AppendString(dst, text)
	if e.kind == codec.PartText || e.kind == codec.PartRefusal {
		return append(dst, "}}\n\n"...)
	}
	return append(dst, "}}}\n\n"...)
}

// deltaHead writes the start of a contentBlockDelta event up to the delta
// member's value, head.
func (e *converseStreamEncoder) deltaHead(dst []byte, head string) []byte {
	e.wrote = true
	dst = append(dst, "event: contentBlockDelta\ndata: {\"contentBlockIndex\":"...)
	dst = jsonx.AppendInt(dst, e.block)
	return append(dst, head...)
}

// partStop writes a reasoning part's opaque value and the
// contentBlockStop of the open part. A part that wrote nothing (an empty
// text) has no block and moves no index.
func (e *converseStreamEncoder) partStop(dst []byte, ev *codec.Event) []byte {
	if !e.open {
		return dst
	}
	e.open = false
	if e.kind == codec.PartReasoning && ev.Signature != "" {
		p := codec.Part{Type: codec.PartReasoning, Signature: ev.Signature, Origin: ev.Origin, Redacted: e.redacted, ItemID: e.itemID}
		opaque := clientOpaque(&p)
		if e.redacted && opaque == p.Signature && p.Origin == mapping.FamilyAnthropic {
			dst = e.deltaHead(dst, `,"delta":{"reasoningContent":{"redactedContent":`)
		} else {
			dst = e.deltaHead(dst, `,"delta":{"reasoningContent":{"signature":`)
		}
		dst = jsonx.AppendString(dst, opaque)
		dst = append(dst, "}}}\n\n"...)
	}
	if !e.wrote {
		return dst
	}
	dst = append(dst, "event: contentBlockStop\ndata: {\"contentBlockIndex\":"...)
	dst = jsonx.AppendInt(dst, e.block)
	e.block++
	return append(dst, "}\n\n"...)
}

// end writes messageStop and metadata, the last event, with the usage
// (zeros when the upstream reported none: the SDK's readers expect it) and
// the latency lat the caller measured (0 when unknown).
func (e *converseStreamEncoder) end(dst []byte, lat *codec.Latency) []byte {
	dst = e.ensureStarted(dst)
	if e.open {
		dst = e.partStop(dst, &codec.Event{})
	}
	e.done = true
	dst = append(dst, "event: messageStop\ndata: {\"stopReason\":"...)
	dst = jsonx.AppendString(dst, mapping.ConverseStopReason(toolStop(e.stop, e.calls)))
	dst = appendStopSequence(dst, e.stopSeq)
	dst = append(dst, "}\n\nevent: metadata\ndata: {"...)
	dst = appendUsage(dst, `"usage":`, &e.usage)
	dst = append(dst, `,"metrics":{"latencyMs":`...)
	dst = jsonx.AppendInt(dst, lat.InvocationMs)
	return append(dst, "}}\n\n"...)
}
