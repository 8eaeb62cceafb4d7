package bedrock

import (
	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/jsonx"
	"github.com/llmbridge/llmbridge/codec/internal/wire"
	"github.com/llmbridge/llmbridge/mapping"
	"github.com/tidwall/gjson"
)

// arenaSize is the initial size of a stream decoder's text arena: most
// events are far smaller, so it is allocated once per stream.
const arenaSize = 1 << 10

// converseStreamDecoder decodes ConverseStream events (as SSE events named
// by their :event-type) into canonical events. Converse opens text and
// reasoning blocks with their first delta (only tool uses have a
// contentBlockStart), so a delta for another block than the open one
// closes the open part and opens the next. The stop reason comes in
// messageStop and the usage after it, in metadata, the last event.
type converseStreamDecoder struct {
	// index is the structure of the event being decoded.
	index jsonx.Index
	p     codec.Protocol
	text  jsonx.Arena

	started bool // EventStart emitted
	stopped bool // messageStop seen: only metadata may follow
	done    bool // a terminal event was emitted

	open      int            // canonical index of the open part, or -1
	openBlock int            // Converse contentBlockIndex of the open part
	openKind  codec.PartType // the open part's type
	next      int            // canonical index of the next part
	calls     bool           // a tool use has been seen

	// signature is the open reasoning part's signature or redacted
	// content, which goes out on its EventPartStop; a copy, since the
	// events it came in are gone by then.
	signature []byte
}

// newConverseStreamDecoder returns a decoder at the start of a stream of
// protocol p.
func newConverseStreamDecoder(p codec.Protocol) *converseStreamDecoder {
	return &converseStreamDecoder{p: p, text: jsonx.NewArena(arenaSize), open: -1}
}

// Decode implements StreamDecoder.
func (d *converseStreamDecoder) Decode(out []codec.Event, name, data []byte, _ bool) []codec.Event {
	if d.done {
		return out
	}
	d.text.Reset()
	s := jsonx.BytesToString(data)
	ev := jsonx.BytesToString(name)
	if e := wire.DecodeStreamException(d.p, ev, s); e != nil {
		// An exception or error message, whatever its data.
		return d.fail(out, e)
	}
	if !d.text.IndexEvent(s, &d.index) {
		return d.fail(out, wire.InvalidStream(d.p, "event data is not valid JSON"))
	}
	root := gjson.Parse(s)
	if !root.IsObject() {
		return d.fail(out, wire.InvalidStream(d.p, "event data is not a JSON object"))
	}
	if d.stopped && ev != "metadata" {
		return d.fail(out, wire.InvalidStream(d.p, ev+" after messageStop"))
	}
	out = d.ensureStarted(out)
	switch ev {
	case "messageStart":
		return out
	case "contentBlockStart":
		return d.blockStart(out, root)
	case "contentBlockDelta":
		return d.blockDelta(out, root)
	case "contentBlockStop":
		i, ok := wire.BlockIndex(root.Get("contentBlockIndex"))
		if !ok {
			return d.fail(out, wire.InvalidStream(d.p, "contentBlockStop without a contentBlockIndex"))
		}
		if d.open >= 0 && d.openBlock == i {
			out = d.closePart(out)
		}
		return out
	case "messageStop":
		return d.messageStop(out, root)
	case "metadata":
		return d.metadata(out, root)
	}
	// Events added to the protocol later carry nothing llmbridge
	// translates yet; skipping them keeps the stream going.
	return out
}

// ensureStarted emits EventStart before the first event that needs it:
// messageStart normally, any event of a stream that lacks one.
func (d *converseStreamDecoder) ensureStarted(out []codec.Event) []codec.Event {
	if d.started {
		return out
	}
	d.started = true
	return append(out, codec.Event{Type: codec.EventStart})
}

// blockStart handles contentBlockStart, which opens a tool use.
func (d *converseStreamDecoder) blockStart(out []codec.Event, root gjson.Result) []codec.Event {
	var index, start gjson.Result
	for key, member := range jsonx.Members(root.Raw, &d.text) {
		value := member.Result()
		switch key {
		case "contentBlockIndex":
			index = value
		case "start":
			start = value
		}
	}
	i, ok := wire.BlockIndex(index)
	if !ok {
		return d.fail(out, wire.InvalidStream(d.p, "contentBlockStart without a contentBlockIndex"))
	}
	key, v, ok := unionMember(start, &d.text)
	if !ok {
		return d.fail(out, wire.InvalidStream(d.p, "contentBlockStart without a start"))
	}
	if key != "toolUse" {
		return d.fail(out, wire.UntranslatedStream(d.p, key+" content blocks cannot be translated"))
	}
	var id, name gjson.Result
	for key, member := range jsonx.Members(v.Raw, &d.text) {
		value := member.Result()
		switch key {
		case "toolUseId":
			id = value
		case "name":
			name = value
		}
	}
	if id.Type != gjson.String || name.Type != gjson.String || name.Str == "" {
		return d.fail(out, wire.InvalidStream(d.p, "toolUse start without toolUseId and name"))
	}
	out = d.openPart(out, i, codec.PartToolCall)
	d.calls = true
	ev := &out[len(out)-1]
	ev.ToolCallID, ev.ToolName = id.Str, name.Str
	return out
}

// openPart closes the open part and opens a part of kind kind for block
// i, appending its EventPartStart last.
func (d *converseStreamDecoder) openPart(out []codec.Event, i int, kind codec.PartType) []codec.Event {
	out = d.closePart(out)
	d.open, d.openBlock, d.openKind = d.next, i, kind
	d.next++
	return append(out, codec.Event{Type: codec.EventPartStart, Index: d.open, Part: kind})
}

// blockDelta handles contentBlockDelta: text, tool input, reasoning text,
// signature or redacted content, or a citation.
func (d *converseStreamDecoder) blockDelta(out []codec.Event, root gjson.Result) []codec.Event {
	var index, delta gjson.Result
	for key, member := range jsonx.Members(root.Raw, &d.text) {
		value := member.Result()
		switch key {
		case "contentBlockIndex":
			index = value
		case "delta":
			delta = value
		}
	}
	i, ok := wire.BlockIndex(index)
	if !ok {
		return d.fail(out, wire.InvalidStream(d.p, "contentBlockDelta without a contentBlockIndex"))
	}
	key, v, ok := unionMember(delta, &d.text)
	if !ok {
		return d.fail(out, wire.InvalidStream(d.p, "contentBlockDelta without a delta"))
	}
	switch key {
	case "text":
		if v.Type != gjson.String {
			return d.fail(out, wire.InvalidStream(d.p, "text delta is not a string"))
		}
		if d.open < 0 || d.openBlock != i || d.openKind != codec.PartText {
			out = d.openPart(out, i, codec.PartText)
		}
		return d.delta(out, v.Str)
	case "toolUse":
		if d.open < 0 || d.openBlock != i || d.openKind != codec.PartToolCall {
			return d.fail(out, wire.InvalidStream(d.p, "toolUse delta for a block that is not an open tool use"))
		}
		return d.delta(out, v.Get("input").Str)
	case "reasoningContent":
		return d.reasoningDelta(out, i, v)
	case "citation":
		// Converse citations point into the request's documents, which
		// no canonical citation (a web page) can name.
		return append(out, codec.Event{Type: codec.EventDropped, Text: "citation"})
	}
	return d.fail(out, wire.UntranslatedStream(d.p, key+" deltas cannot be translated"))
}

// delta appends the EventPartDelta of text to the open part; empty
// fragments say nothing and are not passed on.
func (d *converseStreamDecoder) delta(out []codec.Event, text string) []codec.Event {
	if text == "" {
		return out
	}
	return append(out, codec.Event{Type: codec.EventPartDelta, Index: d.open, Text: text})
}

// reasoningDelta handles a reasoningContent delta of block i: text, a
// signature (which closes Claude's thinking) or redacted content (a
// redacted block whole).
func (d *converseStreamDecoder) reasoningDelta(out []codec.Event, i int, v gjson.Result) []codec.Event {
	key, value, ok := unionMember(v, &d.text)
	if !ok || value.Type != gjson.String {
		return d.fail(out, wire.InvalidStream(d.p, "reasoningContent delta is malformed"))
	}
	if d.open < 0 || d.openBlock != i || d.openKind != codec.PartReasoning {
		out = d.openPart(out, i, codec.PartReasoning)
		if key == "redactedContent" {
			out[len(out)-1].Redacted = true
		}
	}
	switch key {
	case "text":
		return d.delta(out, value.Str)
	case "signature", "redactedContent":
		d.signature = append(d.signature, value.Str...)
		return out
	}
	return d.fail(out, wire.UntranslatedStream(d.p, "reasoningContent "+key+" deltas cannot be translated"))
}

// closePart closes the open part, if any. A reasoning part's stop carries
// its signature or redacted content, issued by Claude.
func (d *converseStreamDecoder) closePart(out []codec.Event) []codec.Event {
	if d.open < 0 {
		return out
	}
	stop := codec.Event{Type: codec.EventPartStop, Index: d.open}
	if d.openKind == codec.PartReasoning && len(d.signature) > 0 {
		stop.Signature, stop.Origin = string(d.signature), mapping.FamilyAnthropic
		d.signature = d.signature[:0]
	}
	d.open = -1
	return append(out, stop)
}

// messageStop handles messageStop: the stop reason, and the stop sequence
// Claude models report in additionalModelResponseFields.
func (d *converseStreamDecoder) messageStop(out []codec.Event, root gjson.Result) []codec.Event {
	var reason, extra gjson.Result
	for key, member := range jsonx.Members(root.Raw, &d.text) {
		value := member.Result()
		switch key {
		case "stopReason":
			reason = value
		case "additionalModelResponseFields":
			extra = value
		}
	}
	if reason.Type != gjson.String {
		return d.fail(out, wire.InvalidStream(d.p, "messageStop without a stopReason"))
	}
	out = d.closePart(out)
	d.stopped = true
	return append(out, codec.Event{Type: codec.EventStop, StopReason: toolStop(mapping.FromConverseStopReason(reason.Str), d.calls),
		StopSequence: stopSequence(extra), StopDetails: stopDetails(reason.Str)})
}

// metadata handles metadata, the last event: the usage. After messageStop
// it ends the stream.
func (d *converseStreamDecoder) metadata(out []codec.Event, root gjson.Result) []codec.Event {
	u, err := decodeUsage(root.Get("usage"))
	if err != nil {
		return d.fail(out, wire.InvalidStream(d.p, err.Message))
	}
	if u.Known {
		out = append(out, codec.Event{Type: codec.EventUsage, Usage: u})
	}
	if d.stopped {
		d.done = true
		out = append(out, codec.Event{Type: codec.EventEnd})
	}
	return out
}

// fail ends the stream with err.
func (d *converseStreamDecoder) fail(out []codec.Event, err *codec.Error) []codec.Event {
	d.done = true
	return append(out, codec.Event{Type: codec.EventError, Err: err})
}

// Close implements StreamDecoder. A stream's terminal event is metadata,
// the last event AWS sends (CheckEvent): a body that ends without it was
// cut short, even after messageStop, as a Chat stream without [DONE] is
// after its finish reason.
func (d *converseStreamDecoder) Close(out []codec.Event, cause error) []codec.Event {
	if d.done {
		return out
	}
	d.done = true
	return append(out, codec.Event{Type: codec.EventError, Err: wire.Truncated(d.p, cause)})
}
