package responses

import (
	"strings"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/jsonx"
	"github.com/llmbridge/llmbridge/codec/internal/wire"
	"github.com/llmbridge/llmbridge/mapping"
	"github.com/tidwall/gjson"
)

// streamDecoder decodes upstream Responses streams.
//
// Every output message content part becomes one canonical part. Parts of
// all message items are numbered in the order they start; the decoder
// closes an open part before it starts another, also when the upstream left
// it open.
type streamDecoder struct {
	// index is the structure of the event being decoded (jsonx.Arena.IndexEvent).
	index jsonx.Index
	// text unescapes the strings of the event being decoded; reset at
	// every call, since events are only valid until the next one.
	text jsonx.Arena

	started bool // EventStart was emitted
	done    bool // a terminal event was emitted

	open      bool           // a part is open
	openKind  codec.PartType // the open part's kind
	openIndex int            // the open part's index
	filled    bool           // the open part received text (so .done texts are repeats)
	next      int            // index of the next part
	refusal   bool           // a refusal part was seen: completed means refused

	callItem string // item id of the open function call part
	calls    int    // function calls seen: completed means tool use

	// cites are the url_citation annotations of the open text part,
	// with character indexes, until its output_text.done.
	cites []codec.Citation

	// A reasoning item opens its part at its first text, or at its
	// output_item.done when it has none, so that an item with neither
	// text nor encrypted content (a request without summary or include)
	// yields no empty part, as in the non-streamed decoder.
	rsItem  bool   // a reasoning item was added and is not done
	rsID    []byte // its id, kept across events without allocating
	rsLast  int    // index of its summary or content part that last got text, -1 for none
	rsIsSum bool   // whether rsLast is a summary index (else a content index)
}

// streamArena is the starting size of the decoder's arena: more
// than the escaped text of a delta, so that, the buffer being kept across
// events, deltas are unescaped without allocating.
const streamArena = 1 << 10

func newStreamDecoder() *streamDecoder {
	return &streamDecoder{text: jsonx.NewArena(streamArena)}
}

// eventFields are the top-level members of an event the decoder
// reads, collected in one pass; which ones are present depends on the type.
type eventFields struct {
	typ, delta, text, refusal    gjson.Result
	part, item, response, errObj gjson.Result
	code, message, param         gjson.Result
	arguments, itemID            gjson.Result
	summaryIndex, contentIndex   gjson.Result
	annotation                   gjson.Result
}

// Decode implements StreamDecoder.
func (d *streamDecoder) Decode(out []codec.Event, name, data []byte, bare bool) []codec.Event {
	if d.done {
		return out
	}
	d.text.Reset()
	s := jsonx.BytesToString(data)
	if !d.text.IndexEvent(s, &d.index) {
		return d.fail(out, codec.BadUpstream(codec.OpenAIResponses, "stream event data is not valid JSON"))
	}
	root := gjson.Parse(s)
	if !root.IsObject() {
		return d.fail(out, codec.BadUpstream(codec.OpenAIResponses, "stream event data is not a JSON object"))
	}
	var f eventFields
	d.scan(root.Raw, &f)
	if bare {
		// A JSON block outside any data: field is no Responses event
		// (openai-go skips such lines); only an error object there is
		// worth reading.
		if f.errObj.IsObject() {
			return d.fail(out, errorObject(f.errObj))
		}
		return d.fail(out, codec.BadUpstream(codec.OpenAIResponses, "stream holds JSON outside a data: field"))
	}
	typ := f.typ.Str
	switch {
	case f.typ.Type == gjson.String:
	case f.typ.Exists() && f.typ.Type != gjson.Null:
		return d.fail(out, codec.BadUpstream(codec.OpenAIResponses, "stream event type is not a string"))
	default:
		// The type repeats the SSE event name; an event without one
		// is named by its event: line, if any.
		typ = jsonx.BytesToString(name)
	}

	switch typ {
	case "response.output_text.delta":
		return d.delta(out, codec.PartText, f.delta)
	case "response.refusal.delta":
		return d.delta(out, codec.PartRefusal, f.delta)
	case "response.output_text.done":
		return d.doneText(out, codec.PartText, f.text)
	case "response.refusal.done":
		return d.doneText(out, codec.PartRefusal, f.refusal)
	case "response.content_part.added":
		return d.partAdded(out, f.part)
	case "response.content_part.done":
		return d.partDone(out, f.part)
	case "response.output_item.added":
		return d.itemAdded(out, f.item)
	case "response.output_item.done":
		return d.itemDone(out, f.item)
	case "response.function_call_arguments.delta":
		return d.callArguments(out, f.itemID, f.delta, false)
	case "response.function_call_arguments.done":
		return d.callArguments(out, f.itemID, f.arguments, true)
	case "response.created", "response.in_progress", "response.queued":
		// created is the start; in_progress and queued repeat it, and
		// only stand in for it when it did not come first.
		if d.started {
			return out
		}
		l, err := d.lifecycle(f.response)
		if err != nil {
			return d.fail(out, err)
		}
		return d.start(out, &l)
	case "response.completed", "response.incomplete":
		return d.finish(out, typ, f.response)
	case "response.failed":
		return d.failed(out, f.response)
	case "error":
		// The spec's error event is flat ({type, code, message, param});
		// real traffic nests the details under error.
		if f.errObj.IsObject() {
			return d.fail(out, errorObject(f.errObj))
		}
		return d.fail(out, upstreamError(f.code.String(), f.message.String(), f.param.String(), ""))
	case "":
		// An OpenAI-style {"error":{...}} without a type, as Chat
		// streams and some compatible servers send it.
		if f.errObj.IsObject() {
			return d.fail(out, errorObject(f.errObj))
		}
		return d.fail(out, codec.BadUpstream(codec.OpenAIResponses, "stream event has no type"))
	case "response.output_text.annotation.added":
		// Kept until output_text.done gives the text that their
		// character indexes count in.
		if n := len(d.cites); d.open && d.openKind == codec.PartText {
			if d.cites = wire.DecodeURLCitation(f.annotation, "", d.cites); len(d.cites) > n {
				c := &d.cites[n]
				c.URL, c.Title = strings.Clone(c.URL), strings.Clone(c.Title)
				c.Start = int(f.annotation.Get("start_index").Int())
				if c.End == 0 {
					c.End = int(f.annotation.Get("end_index").Int())
				}
			}
		}
		return out
	case "response.reasoning_summary_text.delta":
		return d.reasoningText(out, f.summaryIndex, true, f.delta, false)
	case "response.reasoning_summary_text.done":
		return d.reasoningText(out, f.summaryIndex, true, f.text, true)
	case "response.reasoning_summary_part.done":
		if f.part.IsObject() {
			return d.reasoningText(out, f.summaryIndex, true, f.part.Get("text"), true)
		}
		return out
	case "response.reasoning_text.delta":
		return d.reasoningText(out, f.contentIndex, false, f.delta, false)
	case "response.reasoning_text.done":
		return d.reasoningText(out, f.contentIndex, false, f.text, true)
	case "response.reasoning_summary_part.added":
		// An empty summary part; its text comes in deltas.
		return out
	}
	// Unknown events are ignored: OpenAI adds event types. The progress
	// events of tool calls and built-in tools belong to output items that
	// already ended the stream at output_item.added.
	return out
}

// scan collects the top-level members of a validated event object that the
// decoder reads. It looks at each key before building its value: a delta
// event has eight members of which two are read, and building a
// gjson.Result for the others (number parsing) tripled the cost of
// decoding it.
func (d *streamDecoder) scan(raw string, f *eventFields) {
	for key, value := range jsonx.Members(raw, &d.text) {
		var dst *gjson.Result
		switch key {
		case "type":
			dst = &f.typ
		case "delta":
			dst = &f.delta
		case "text":
			dst = &f.text
		case "refusal":
			dst = &f.refusal
		case "part":
			dst = &f.part
		case "item":
			dst = &f.item
		case "response":
			dst = &f.response
		case "error":
			dst = &f.errObj
		case "code":
			dst = &f.code
		case "message":
			dst = &f.message
		case "param":
			dst = &f.param
		case "arguments":
			dst = &f.arguments
		case "item_id":
			dst = &f.itemID
		case "summary_index":
			dst = &f.summaryIndex
		case "content_index":
			dst = &f.contentIndex
		case "annotation":
			dst = &f.annotation
		}
		if dst != nil {
			*dst = value.Result()
		}
	}
}

// Close implements StreamDecoder.
func (d *streamDecoder) Close(out []codec.Event, cause error) []codec.Event {
	if d.done {
		return out
	}
	return d.fail(out, wire.Truncated(codec.OpenAIResponses, cause))
}

// fail ends the stream with err.
func (d *streamDecoder) fail(out []codec.Event, err *codec.Error) []codec.Event {
	d.done = true
	return append(out, codec.Event{Type: codec.EventError, Err: err})
}

// ensureStarted emits an empty EventStart when content arrives before any
// response.created (encoders then name the response themselves).
func (d *streamDecoder) ensureStarted(out []codec.Event) []codec.Event {
	if d.started {
		return out
	}
	return d.start(out, &lifecycle{})
}

// start emits EventStart from a response object.
func (d *streamDecoder) start(out []codec.Event, l *lifecycle) []codec.Event {
	d.started = true
	return append(out, codec.Event{Type: codec.EventStart, ID: l.id, Model: l.model, Created: l.created})
}

// startPart opens a part of kind k, closing the open one first.
func (d *streamDecoder) startPart(out []codec.Event, k codec.PartType) []codec.Event {
	out = d.ensureStarted(out)
	out = d.closePart(out)
	d.open, d.openKind, d.openIndex, d.filled = true, k, d.next, false
	d.next++
	if k == codec.PartRefusal {
		d.refusal = true
	}
	return append(out, codec.Event{Type: codec.EventPartStart, Index: d.openIndex, Part: k})
}

// startCall opens the tool call part of a function_call item, with its id
// and name once; arguments already in the item (empty in real traffic)
// are its first delta. Each call item is its own part, so parallel calls
// never share an index.
func (d *streamDecoder) startCall(out []codec.Event, item gjson.Result) []codec.Event {
	var callID, name, args, itemID string
	var err *codec.Error
	for key, member := range jsonx.Members(item.Raw, &d.text) {
		v := member.Result()
		switch key {
		case "id":
			itemID, err = upstreamString(v, "item.id")
		case "call_id":
			callID, err = upstreamString(v, "item.call_id")
		case "name":
			name, err = upstreamString(v, "item.name")
		case "arguments":
			args, err = upstreamString(v, "item.arguments")
		}
		if err != nil {
			break
		}
	}
	if err == nil && (callID == "" || name == "") {
		err = codec.BadUpstream(codec.OpenAIResponses, "function_call item has no call_id or name")
	}
	if err != nil {
		return d.fail(out, err)
	}
	out = d.startPart(out, codec.PartToolCall)
	out[len(out)-1].ToolCallID, out[len(out)-1].ToolName = callID, name
	d.callItem = strings.Clone(itemID)
	d.calls++
	if args != "" {
		d.filled = true
		out = append(out, codec.Event{Type: codec.EventPartDelta, Index: d.openIndex, Text: args})
	}
	return out
}

// callOpen reports whether the open part is the function call of item id
// (any call when the event names no item).
func (d *streamDecoder) callOpen(itemID string) bool {
	return d.open && d.openKind == codec.PartToolCall && (itemID == "" || itemID == d.callItem)
}

// callArguments decodes function_call_arguments.delta (done false) and
// .done: deltas append to the open call; the full arguments of .done are
// used only when no delta came.
func (d *streamDecoder) callArguments(out []codec.Event, itemID, v gjson.Result, done bool) []codec.Event {
	if v.Type != gjson.String && v.Exists() && v.Type != gjson.Null {
		return d.fail(out, codec.BadUpstream(codec.OpenAIResponses, "function call arguments are not a string"))
	}
	if !d.callOpen(itemID.Str) {
		return d.fail(out, codec.BadUpstream(codec.OpenAIResponses, "function call arguments for an item that is not open"))
	}
	if v.Str == "" || (done && d.filled) {
		return out
	}
	d.filled = true
	return append(out, codec.Event{Type: codec.EventPartDelta, Index: d.openIndex, Text: v.Str})
}

// closePart closes the open part, if any, after the citations still kept
// for it (a part closed without its output_text.done: their indexes are
// taken as bytes, which they are for ASCII text).
func (d *streamDecoder) closePart(out []codec.Event) []codec.Event {
	if !d.open {
		return out
	}
	out = d.flushCites(out, "")
	d.open = false
	return append(out, codec.Event{Type: codec.EventPartStop, Index: d.openIndex})
}

// flushCites emits the kept citations of the open text part, converting
// their character indexes to byte offsets of text when it is known.
func (d *streamDecoder) flushCites(out []codec.Event, text string) []codec.Event {
	for k := range d.cites {
		c := d.cites[k]
		if text != "" {
			c.Start, c.End = wire.ByteIndex(text, c.Start), wire.ByteIndex(text, c.End)
		}
		out = append(out, codec.Event{Type: codec.EventCitation, Index: d.openIndex, Citation: c})
	}
	d.cites = d.cites[:0]
	return out
}

// appendText appends text to the open part, which must be of kind k; a
// delta without its content_part.added opens the part itself.
func (d *streamDecoder) appendText(out []codec.Event, k codec.PartType, text string) []codec.Event {
	if !d.open || d.openKind != k {
		out = d.startPart(out, k)
	}
	d.filled = true
	return append(out, codec.Event{Type: codec.EventPartDelta, Index: d.openIndex, Text: text})
}

// delta decodes response.output_text.delta and response.refusal.delta.
func (d *streamDecoder) delta(out []codec.Event, k codec.PartType, v gjson.Result) []codec.Event {
	if v.Type != gjson.String {
		if v.Exists() && v.Type != gjson.Null {
			return d.fail(out, codec.BadUpstream(codec.OpenAIResponses, "delta is not a string"))
		}
		return out
	}
	if v.Str == "" {
		return out
	}
	return d.appendText(out, k, v.Str)
}

// doneText decodes response.output_text.done and response.refusal.done:
// their full text is used only when no delta came for the part.
func (d *streamDecoder) doneText(out []codec.Event, k codec.PartType, v gjson.Result) []codec.Event {
	if v.Type != gjson.String && v.Exists() && v.Type != gjson.Null {
		return d.fail(out, codec.BadUpstream(codec.OpenAIResponses, "done text is not a string"))
	}
	if len(d.cites) > 0 && d.open && d.openKind == codec.PartText {
		out = d.flushCites(out, v.Str)
	}
	if v.Str == "" || (d.open && d.openKind == k && d.filled) {
		return out
	}
	return d.appendText(out, k, v.Str)
}

// contentPart reads a content part object: its kind (ok false for reasoning
// text, whose part events carry nothing the reasoning_text events do not)
// and its text. A part of a type llmbridge does not translate is display,
// as in complete responses (decodeOutputMessage): ok is false and
// dropped names its type.
func (d *streamDecoder) contentPart(part gjson.Result) (k codec.PartType, text, dropped string, ok bool, err *codec.Error) {
	if !part.IsObject() {
		return 0, "", "", false, codec.BadUpstream(codec.OpenAIResponses, "content part event has no part object")
	}
	typ := part.Get("type").String()
	switch typ {
	case "output_text":
		k, text = codec.PartText, part.Get("text").String()
	case "refusal":
		k, text = codec.PartRefusal, part.Get("refusal").String()
	case "reasoning_text":
		// Reasoning content of a reasoning item (open-weight models):
		// its text comes in reasoning_text events, which map it.
		return 0, "", "", false, nil
	default:
		return 0, "", typ, false, nil
	}
	return k, text, "", true, nil
}

// partAdded decodes response.content_part.added.
func (d *streamDecoder) partAdded(out []codec.Event, part gjson.Result) []codec.Event {
	k, text, dropped, ok, err := d.contentPart(part)
	if err != nil {
		return d.fail(out, err)
	}
	if dropped != "" {
		// Encoders expect the stream started before anything else.
		return append(d.ensureStarted(out), codec.Event{Type: codec.EventDropped, Text: dropped})
	}
	if !ok {
		return out
	}
	out = d.startPart(out, k)
	if text != "" {
		// The part's initial text; always empty in real traffic.
		d.filled = true
		out = append(out, codec.Event{Type: codec.EventPartDelta, Index: d.openIndex, Text: text})
	}
	return out
}

// partDone decodes response.content_part.done: it closes the part, after
// taking its full text when no delta came for it.
func (d *streamDecoder) partDone(out []codec.Event, part gjson.Result) []codec.Event {
	k, text, _, ok, err := d.contentPart(part)
	if err != nil {
		return d.fail(out, err)
	}
	if !ok {
		return out
	}
	if d.open && d.openKind == k && d.filled {
		return d.closePart(out)
	}
	if text != "" {
		out = d.appendText(out, k, text)
	}
	return d.closePart(out)
}

// itemAdded decodes response.output_item.added: a message item opens
// nothing by itself (its parts do), a reasoning item is skipped, a call the
// client must run that llmbridge cannot translate fails the stream, and any
// other item is taken whole at its output_item.done (opaqueDone).
func (d *streamDecoder) itemAdded(out []codec.Event, item gjson.Result) []codec.Event {
	if !item.IsObject() {
		return d.fail(out, codec.BadUpstream(codec.OpenAIResponses, "output item event has no item object"))
	}
	switch typ := item.Get("type").String(); typ {
	case "message":
		return out
	case "function_call":
		return d.startCall(out, item)
	case "web_search_call":
		// The search comes whole at its output_item.done.
		return d.closePart(out)
	case "reasoning":
		// The part opens with its first text (see rsItem). Its
		// encrypted_content here may be incomplete in real traffic:
		// only output_item.done's is taken.
		id, err := upstreamString(item.Get("id"), "item.id")
		if err != nil {
			return d.fail(out, err)
		}
		out = d.closePart(out)
		d.rsItem, d.rsID, d.rsLast = true, append(d.rsID[:0], id...), -1
		return out
	default:
		if clientAction[typ] {
			return d.fail(out, notYet(`output item type "`+typ+`"`))
		}
		// Kept whole at its output_item.done (opaqueDone).
		return d.closePart(out)
	}
}

// startReasoning opens the reasoning part of the current reasoning item.
func (d *streamDecoder) startReasoning(out []codec.Event) []codec.Event {
	out = d.startPart(out, codec.PartReasoning)
	out[len(out)-1].ItemID = jsonx.BytesToString(d.rsID)
	return out
}

// reasoningText decodes the text events of a reasoning item: summary
// (summary true) or reasoning text deltas, and their .done events, whose
// full text is used only when no delta came for that part. Text of a new
// summary or content part is preceded by a blank line, as the non-streamed
// decoder joins the parts.
func (d *streamDecoder) reasoningText(out []codec.Event, index gjson.Result, summary bool, v gjson.Result, done bool) []codec.Event {
	if v.Type != gjson.String && v.Exists() && v.Type != gjson.Null {
		return d.fail(out, codec.BadUpstream(codec.OpenAIResponses, "reasoning text is not a string"))
	}
	if index.Exists() && index.Type != gjson.Number && index.Type != gjson.Null {
		return d.fail(out, codec.BadUpstream(codec.OpenAIResponses, "reasoning part index is not a number"))
	}
	k := int(index.Int())
	open := d.open && d.openKind == codec.PartReasoning
	same := open && d.rsLast == k && d.rsIsSum == summary
	if v.Str == "" || (done && same) {
		return out
	}
	if !open {
		if !d.rsItem {
			d.rsID, d.rsLast = d.rsID[:0], -1
		}
		d.rsItem = true
		out = d.startReasoning(out)
	} else if !same && d.rsLast >= 0 {
		out = append(out, codec.Event{Type: codec.EventPartDelta, Index: d.openIndex, Text: "\n\n"})
	}
	d.rsLast, d.rsIsSum, d.filled = k, summary, true
	return append(out, codec.Event{Type: codec.EventPartDelta, Index: d.openIndex, Text: v.Str})
}

// reasoningDone decodes the output_item.done of a reasoning item: its
// summary (or reasoning text) when no text came in deltas, then the part's
// stop with the final encrypted_content as its signature. An item with
// neither text nor encrypted content yields no part.
func (d *streamDecoder) reasoningDone(out []codec.Event, item gjson.Result) []codec.Event {
	var id, enc string
	var summary, content gjson.Result
	var err *codec.Error
	for key, member := range jsonx.Members(item.Raw, &d.text) {
		v := member.Result()
		switch key {
		case "id":
			id, err = upstreamString(v, "item.id")
		case "encrypted_content":
			enc, err = upstreamString(v, "item.encrypted_content")
		case "summary":
			summary = v
		case "content":
			content = v
		}
		if err != nil {
			break
		}
	}
	var text string
	if err == nil {
		text, err = upstreamTexts(summary, "item.summary")
	}
	if err == nil && text == "" {
		text, err = upstreamTexts(content, "item.content")
	}
	if err != nil {
		return d.fail(out, err)
	}
	open := d.open && d.openKind == codec.PartReasoning
	d.rsItem = false
	if !open {
		if text == "" && enc == "" {
			return out
		}
		if id != "" {
			d.rsID = append(d.rsID[:0], id...)
		}
		out = d.startReasoning(out)
	}
	if !d.filled && text != "" {
		d.filled = true
		out = append(out, codec.Event{Type: codec.EventPartDelta, Index: d.openIndex, Text: text})
	}
	d.open = false
	ev := codec.Event{Type: codec.EventPartStop, Index: d.openIndex, Signature: enc}
	if enc != "" {
		ev.Origin = mapping.FamilyOpenAI
	}
	return append(out, ev)
}

// itemDone decodes response.output_item.done: the end of a message closes
// a part the upstream left open; the end of a function call closes its part
// after taking its arguments when none came before, and stands for the whole
// call when its output_item.added was missing.
func (d *streamDecoder) itemDone(out []codec.Event, item gjson.Result) []codec.Event {
	switch item.Get("type").String() {
	case "message":
		return d.closePart(out)
	case "reasoning":
		return d.reasoningDone(out, item)
	case "web_search_call":
		return d.searchDone(d.closePart(out), item)
	case "function_call":
		if !d.callOpen(item.Get("id").String()) {
			out = d.startCall(out, item)
			if d.done {
				return out
			}
		} else if args := item.Get("arguments"); !d.filled && args.Type == gjson.String && args.Str != "" {
			d.filled = true
			out = append(out, codec.Event{Type: codec.EventPartDelta, Index: d.openIndex, Text: args.Str})
		}
		return d.closePart(out)
	default:
		if item.IsObject() && !clientAction[item.Get("type").Str] {
			return d.opaqueDone(d.closePart(out), item)
		}
	}
	return out
}

// opaqueDone emits an output item llmbridge does not translate, whole, as
// the opaque value of a part (opaquePart) that its client carries
// as a continuation.
func (d *streamDecoder) opaqueDone(out []codec.Event, item gjson.Result) []codec.Event {
	if !d.started {
		out = d.ensureStarted(out)
	}
	out = append(out, codec.Event{Type: codec.EventPartStart, Index: d.next, Part: codec.PartReasoning, Redacted: true},
		codec.Event{Type: codec.EventPartStop, Index: d.next, Signature: strings.Clone(item.Raw), Origin: mapping.FamilyOpenAI})
	d.next++
	return out
}

// searchDone emits a finished web_search_call item as a search call part
// and, when it has sources, a result part (see decodeSearchCall).
func (d *streamDecoder) searchDone(out []codec.Event, item gjson.Result) []codec.Event {
	var r codec.Response
	decodeSearchCall(item, &r)
	for k := range r.Content {
		p := &r.Content[k]
		ev := codec.Event{Type: codec.EventPartStart, Index: d.next, Part: p.Type, ToolCallID: p.ToolCallID, ToolName: p.ToolName,
			Sources: p.Sources, IsError: p.IsError, Text: p.TextValue()}
		if !d.started {
			out = d.ensureStarted(out)
		}
		out = append(out, ev)
		if p.Type == codec.PartServerToolCall {
			out = append(out, codec.Event{Type: codec.EventPartDelta, Index: d.next, Text: p.ArgumentsValue()})
		}
		out = append(out, codec.Event{Type: codec.EventPartStop, Index: d.next})
		d.next++
	}
	return out
}

// lifecycle is what the decoder reads from a response object.
type lifecycle struct {
	id, model, status, reason string
	created                   int64
	usage, err                gjson.Result
}

// lifecycle reads the response object of a lifecycle event. A missing
// object reads as empty.
func (d *streamDecoder) lifecycle(resp gjson.Result) (lifecycle, *codec.Error) {
	var l lifecycle
	if !resp.IsObject() {
		if resp.Exists() && resp.Type != gjson.Null {
			return l, codec.BadUpstream(codec.OpenAIResponses, "response is not an object")
		}
		return l, nil
	}
	var err *codec.Error
	for key, member := range jsonx.Members(resp.Raw, &d.text) {
		v := member.Result()
		switch key {
		case "id":
			l.id, err = upstreamString(v, "response.id")
		case "model":
			l.model, err = upstreamString(v, "response.model")
		case "created_at":
			l.created, err = upstreamCount(v, "response.created_at")
		case "status":
			l.status, err = upstreamString(v, "response.status")
		case "incomplete_details":
			if v.IsObject() {
				l.reason, err = upstreamString(v.Get("reason"), "response.incomplete_details.reason")
			}
		case "usage":
			l.usage = v
		case "error":
			l.err = v
		}
		if err != nil {
			break
		}
	}
	return l, err
}

// usage appends the EventUsage of a response's usage object, if any.
func (d *streamDecoder) usage(out []codec.Event, l *lifecycle) ([]codec.Event, *codec.Error) {
	if !l.usage.IsObject() {
		return out, nil
	}
	u, err := decodeUsage(l.usage)
	if err != nil {
		return out, err
	}
	return append(out, codec.Event{Type: codec.EventUsage, Usage: u}), nil
}

// finish decodes response.completed and response.incomplete: usage, the
// stop reason and the end of the stream.
func (d *streamDecoder) finish(out []codec.Event, typ string, resp gjson.Result) []codec.Event {
	l, err := d.lifecycle(resp)
	if err != nil {
		return d.fail(out, err)
	}
	if !d.started {
		out = d.start(out, &l)
	}
	out = d.closePart(out)
	if out, err = d.usage(out, &l); err != nil {
		return d.fail(out, err)
	}
	status := l.status
	if status == "" {
		status = strings.TrimPrefix(typ, "response.")
	}
	stop, _ := mapping.FromResponsesStatus(status, l.reason, d.calls > 0)
	if stop == mapping.StopEnd && d.refusal {
		// A refusal is a completed response whose content is a
		// refusal part.
		stop = mapping.StopRefusal
	}
	if stop != mapping.StopNone {
		out = append(out, codec.Event{Type: codec.EventStop, StopReason: stop})
	}
	d.done = true
	return append(out, codec.Event{Type: codec.EventEnd})
}

// failed decodes response.failed: the usage the response reports, if any,
// then its error.
func (d *streamDecoder) failed(out []codec.Event, resp gjson.Result) []codec.Event {
	l, err := d.lifecycle(resp)
	if err != nil {
		return d.fail(out, err)
	}
	if d.started {
		if out, err = d.usage(out, &l); err != nil {
			return d.fail(out, err)
		}
	}
	if l.err.IsObject() {
		return d.fail(out, errorObject(l.err))
	}
	return d.fail(out, upstreamError("", "", "", ""))
}

// errorObject converts an upstream error object {code, message,
// param, type}.
func errorObject(v gjson.Result) *codec.Error {
	return upstreamError(v.Get("code").String(), v.Get("message").String(), v.Get("param").String(), v.Get("type").String())
}

// upstreamError converts an error the upstream reported inside its
// stream. The strings are copied: they outlive the event. The HTTP status
// is what the code (or type) implies, 500 when it implies nothing; quota
// errors keep OpenAI's own 429.
func upstreamError(code, message, param, typ string) *codec.Error {
	e := &codec.Error{Status: 500, Kind: mapping.ErrAPI, Protocol: codec.OpenAIResponses,
		Code: strings.Clone(code), Message: strings.Clone(message), Param: strings.Clone(param)}
	if k, ok := mapping.FromOpenAIErrorType(code); ok {
		e.Kind = k
	} else if k, ok := mapping.FromOpenAIErrorType(typ); ok {
		e.Kind = k
	}
	switch e.Kind {
	case mapping.ErrAPI:
	case mapping.ErrBilling:
		e.Status = 429
	default:
		e.Status = mapping.StatusForKind(e.Kind)
	}
	if e.Message == "" {
		e.Message = "upstream " + string(codec.OpenAIResponses) + " stream failed without an error message"
	}
	return e
}

// notYet is the error for upstream content outside the current
// scope.
func notYet(what string) *codec.Error {
	return &codec.Error{Status: 502, Kind: mapping.ErrBadGateway,
		Message: "upstream " + string(codec.OpenAIResponses) + " stream: " + what + " cannot be translated yet"}
}
