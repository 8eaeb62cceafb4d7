package responses

import (
	"strings"
	"time"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/jsonx"
	"github.com/llmbridge/llmbridge/codec/internal/wire"
	"github.com/llmbridge/llmbridge/mapping"
)

// streamEncoder encodes Responses streams for clients:
//
//	response.created, response.in_progress            (EventStart)
//	per output item:
//	  message: response.output_item.added,
//	    per part: response.content_part.added,
//	      response.output_text.delta | response.refusal.delta ...,
//	      response.output_text.done | response.refusal.done,
//	      response.content_part.done
//	  response.output_item.done                        (next call, or EventEnd)
//	  function_call: response.output_item.added (arguments ""),
//	    response.function_call_arguments.delta ...,
//	    response.function_call_arguments.done,
//	  response.output_item.done                        (its EventPartStop)
//	  reasoning: response.output_item.added (summary []),
//	    response.reasoning_summary_part.added,         (first delta)
//	    response.reasoning_summary_text.delta ...,
//	    response.reasoning_summary_text.done,
//	    response.reasoning_summary_part.done,
//	  response.output_item.done (summary, encrypted_content) (EventPartStop)
//	response.completed | response.incomplete           (EventEnd)
//
// or, on EventError, error and response.failed. Text and refusal parts
// belong to one message item until a tool call or reasoning comes; a part
// after them opens a new message item. The full texts and arguments are
// kept for the .done events and the final response object, which repeat
// them. A reasoning part's signature becomes a continuation envelope in
// encrypted_content. A refusal stop with nothing shown yet becomes a
// refusal part holding the upstream's explanation.
type streamEncoder struct {
	req *codec.Request

	seq      int64 // sequence_number of the next event
	started  bool
	ended    bool
	partOpen bool // a content part of the last (message) item is open
	itemOpen bool // the last item is not done

	id, model string
	created   int64

	items []streamItem
	parts []streamPart
	text  []byte // the texts of all parts and arguments, back to back
	usage codec.Usage
	stop  codec.StopReason

	// What the client was shown, for a refusal stop: text
	// cannot be withdrawn, and a refusal after tool calls cannot be
	// expressed.
	sentText, sentRefusal, sentCall bool
}

// streamPart is one part of a message, or a call's arguments: its
// kind and its text in the encoder's text buffer.
type streamPart struct {
	kind       codec.PartType
	start, end int
	// cites are a text part's citations (copies), sent as annotations
	// when the part ends, once its whole text is known.
	cites []codec.Citation
}

// streamItem is one output item: a message with the parts
// e.parts[first:end], a function call, or a reasoning item.
type streamItem struct {
	call         bool
	reasoning    bool
	id           string
	status       string // when done
	first, end   int
	callID, name string
	args         streamPart // a call's arguments, or a reasoning item's summary text

	// Reasoning items: whether the summary part was sent, the part's
	// Redacted flag and provider item id (for its envelope), and the
	// envelope once the part stopped.
	summary   bool
	redacted  bool
	itemID    string
	encrypted string

	// Calls of the client's custom tools (custom_tool_call items, whose
	// input is sent at the end) and of namespaced functions.
	custom    bool
	namespace string

	// key names the item in the request's item store, which keeps it
	// once it is done (zero without a store).
	key codec.ItemKey

	// Hosted searches (web_search_call items): the item stays open after
	// the call's arguments until its results (sources, failed) come or
	// another part starts.
	search  bool
	sources []codec.Source
	failed  bool
}

func newStreamEncoder(req *codec.Request) *streamEncoder {
	return &streamEncoder{req: req}
}

// Encode implements StreamEncoder.
func (e *streamEncoder) Encode(dst []byte, ev *codec.Event) []byte {
	if e.ended {
		return dst
	}
	switch ev.Type {
	case codec.EventStart:
		if !e.started {
			dst = e.start(dst, ev)
		}
	case codec.EventPartStart:
		switch dst = e.ensureStarted(dst); ev.Part {
		case codec.PartToolCall:
			dst = e.callStart(dst, ev)
		case codec.PartReasoning:
			dst = e.reasoningStart(dst, ev)
		case codec.PartServerToolCall:
			dst = e.searchStart(dst, ev)
		case codec.PartServerToolResult:
			dst = e.searchResult(dst, ev)
		default:
			dst = e.partStart(dst, ev.Part)
		}
	case codec.EventCitation:
		if e.partOpen {
			p := &e.parts[len(e.parts)-1]
			c := ev.Citation
			c.URL, c.Title, c.CitedText = strings.Clone(c.URL), strings.Clone(c.Title), strings.Clone(c.CitedText)
			// Offsets count from the part's start in e.text.
			p.cites = append(p.cites, c)
		}
	case codec.EventPartDelta:
		if ev.Text != "" {
			switch {
			case e.callOpen():
				dst = e.callDelta(dst, ev.Text)
			case e.reasoningOpen():
				dst = e.reasoningDelta(dst, ev.Text)
			case e.partOpen:
				dst = e.delta(dst, ev.Text)
			default:
				dst = e.delta(e.partStart(e.ensureStarted(dst), codec.PartText), ev.Text)
			}
		}
	case codec.EventPartStop:
		switch {
		case e.partOpen:
			dst = e.partStop(dst)
		case e.searchOpen():
			// The item waits for its results.
		case e.callOpen():
			dst = e.callStop(dst)
		case e.reasoningOpen():
			dst = e.reasoningStop(dst, ev)
		}
	case codec.EventUsage:
		e.usage = ev.Usage
	case codec.EventStop:
		e.stop = ev.StopReason
		if ev.StopReason == mapping.StopRefusal {
			dst = e.refusalStop(e.ensureStarted(dst), ev)
		}
	case codec.EventEnd:
		dst = e.end(e.ensureStarted(dst))
	case codec.EventError:
		dst = e.fail(dst, ev.Err)
	}
	return dst
}

// init fixes the response's identity from the start event: the upstream's
// id, model and creation time when known. The strings are copied: events
// are only valid until the decoder's next call.
func (e *streamEncoder) init(ev *codec.Event) {
	e.started = true
	e.id = strings.Clone(ev.ID)
	if e.id == "" {
		e.id = wire.NewID("resp_")
	}
	e.model = strings.Clone(ev.Model)
	if e.model == "" && e.req != nil {
		e.model = e.req.Model
	}
	e.created = ev.Created
	if e.created == 0 {
		e.created = time.Now().Unix()
	}
	if ev.Usage.Known {
		e.usage = ev.Usage
	}
}

// start sends response.created and response.in_progress.
func (e *streamEncoder) start(dst []byte, ev *codec.Event) []byte {
	e.init(ev)
	for _, name := range [...]string{"response.created", "response.in_progress"} {
		dst = e.begin(dst, name)
		dst = append(dst, `,"response":`...)
		dst = e.appendResponse(dst, "in_progress", "", nil)
		dst = e.finishEvent(dst)
	}
	return dst
}

// ensureStarted starts a stream whose first event was not EventStart.
func (e *streamEncoder) ensureStarted(dst []byte) []byte {
	if e.started {
		return dst
	}
	return e.start(dst, &codec.Event{})
}

// begin opens an event: its SSE name and the start of its data, whose type
// repeats the name.
func (e *streamEncoder) begin(dst []byte, name string) []byte {
	dst = append(dst, "event: "...)
	dst = append(dst, name...)
	dst = append(dst, "\ndata: {\"type\":\""...)
	dst = append(dst, name...)
	return append(dst, '"')
}

// finishEvent closes an event with its sequence number.
func (e *streamEncoder) finishEvent(dst []byte) []byte {
	dst = append(dst, `,"sequence_number":`...)
	dst = jsonx.AppendInt(dst, e.seq)
	e.seq++
	return append(dst, "}\n\n"...)
}

// last returns the last output item.
func (e *streamEncoder) last() *streamItem { return &e.items[len(e.items)-1] }

// callOpen reports whether a function call item is open.
func (e *streamEncoder) callOpen() bool { return e.itemOpen && e.last().call }

// searchOpen reports whether a web_search_call item is open.
func (e *streamEncoder) searchOpen() bool { return e.itemOpen && e.last().search }

// reasoningOpen reports whether a reasoning item is open.
func (e *streamEncoder) reasoningOpen() bool { return e.itemOpen && e.last().reasoning }

// appendItemRef appends the item_id and output_index members of the last
// item.
func (e *streamEncoder) appendItemRef(dst []byte) []byte {
	dst = append(dst, `,"item_id":`...)
	dst = jsonx.AppendString(dst, e.last().id)
	dst = append(dst, `,"output_index":`...)
	return jsonx.AppendInt(dst, int64(len(e.items)-1))
}

// appendPartRef appends the content_index, item_id and output_index
// members that locate the open part.
func (e *streamEncoder) appendPartRef(dst []byte, logprobs bool) []byte {
	dst = append(dst, `,"content_index":`...)
	dst = jsonx.AppendInt(dst, int64(len(e.parts)-1-e.last().first))
	dst = append(dst, `,"item_id":`...)
	dst = jsonx.AppendString(dst, e.last().id)
	if logprobs {
		dst = append(dst, `,"logprobs":[]`...)
	}
	dst = append(dst, `,"output_index":`...)
	return jsonx.AppendInt(dst, int64(len(e.items)-1))
}

// itemAdded sends response.output_item.added for a new item.
func (e *streamEncoder) itemAdded(dst []byte, it streamItem) []byte {
	switch {
	case it.search:
		it.id = searchItemID(it.callID, e.id, len(e.items))
	case !it.reasoning:
		it.id = outputItemID(e.id, len(e.items), it.call)
	case it.itemID != "":
		it.id = it.itemID
	default:
		it.id = reasoningItemID(e.id, len(e.items))
	}
	if e.req != nil && e.req.Items != nil && !it.search {
		// The id is sent before the item's content is known, so
		// no item of a stream travels in its id: the store keeps
		// it once it is done.
		prefix := itemRefPrefix
		switch {
		case it.call:
			prefix = "fc_"
		case it.reasoning:
			prefix = "rs_"
		}
		it.key, it.id = storedItemID(e.req.Items, prefix)
	}
	e.items = append(e.items, it)
	e.itemOpen = true
	dst = e.begin(dst, "response.output_item.added")
	dst = append(dst, `,"item":`...)
	dst = e.appendItem(dst, e.last(), "in_progress")
	dst = append(dst, `,"output_index":`...)
	dst = jsonx.AppendInt(dst, int64(len(e.items)-1))
	return e.finishEvent(dst)
}

// itemDone sends response.output_item.done for the last item.
func (e *streamEncoder) itemDone(dst []byte, status string) []byte {
	it := e.last()
	it.status = status
	e.itemOpen = false
	dst = e.begin(dst, "response.output_item.done")
	dst = append(dst, `,"item":`...)
	start := len(dst)
	dst = e.appendItem(dst, it, status)
	if e.req != nil {
		keepItem(e.req.Items, it.key, dst[start:])
	}
	dst = append(dst, `,"output_index":`...)
	dst = jsonx.AppendInt(dst, int64(len(e.items)-1))
	return e.finishEvent(dst)
}

// closeItem closes the open part and the open item, as a new item or the
// end requires.
func (e *streamEncoder) closeItem(dst []byte, status string) []byte {
	if e.partOpen {
		dst = e.partStop(dst)
	}
	switch {
	case e.searchOpen():
		dst = e.searchStop(dst)
	case e.callOpen():
		dst = e.callStop(dst)
	case e.reasoningOpen():
		dst = e.reasoningStop(dst, &codec.Event{})
	case e.itemOpen:
		dst = e.itemDone(dst, status)
	}
	return dst
}

// partStart sends response.output_item.added when no message is open, then
// response.content_part.added.
func (e *streamEncoder) partStart(dst []byte, k codec.PartType) []byte {
	if e.partOpen {
		dst = e.partStop(dst)
	}
	if e.callOpen() || e.reasoningOpen() {
		dst = e.closeItem(dst, "completed")
	}
	if k == codec.PartRefusal {
		e.sentRefusal = true
	}
	if !e.itemOpen {
		dst = e.itemAdded(dst, streamItem{first: len(e.parts), end: len(e.parts)})
	}
	e.parts = append(e.parts, streamPart{kind: k, start: len(e.text), end: len(e.text)})
	e.last().end = len(e.parts)
	e.partOpen = true
	dst = e.begin(dst, "response.content_part.added")
	dst = e.appendPartRef(dst, false)
	dst = append(dst, `,"part":`...)
	dst = e.appendPart(dst, &e.parts[len(e.parts)-1])
	return e.finishEvent(dst)
}

// delta sends a text or refusal delta and keeps its text.
func (e *streamEncoder) delta(dst []byte, text string) []byte {
	p := &e.parts[len(e.parts)-1]
	if p.kind == codec.PartText {
		e.sentText = true
	}
	e.text = append(e.text, text...)
	p.end = len(e.text)
	if p.kind == codec.PartRefusal {
		dst = e.begin(dst, "response.refusal.delta")
	} else {
		dst = e.begin(dst, "response.output_text.delta")
	}
	dst = append(dst, `,"content_index":`...)
	dst = jsonx.AppendInt(dst, int64(len(e.parts)-1-e.last().first))
	dst = append(dst, `,"delta":`...)
	dst = jsonx.AppendString(dst, text)
	dst = append(dst, `,"item_id":`...)
	dst = jsonx.AppendString(dst, e.last().id)
	if p.kind != codec.PartRefusal {
		dst = append(dst, `,"logprobs":[]`...)
	}
	dst = append(dst, `,"output_index":`...)
	dst = jsonx.AppendInt(dst, int64(len(e.items)-1))
	return e.finishEvent(dst)
}

// partStop sends the part's annotations (its citations, now that its text
// is known), its .done event with its full text, then
// response.content_part.done.
func (e *streamEncoder) partStop(dst []byte) []byte {
	p := &e.parts[len(e.parts)-1]
	full := jsonx.BytesToString(e.text[p.start:p.end])
	for k := range p.cites {
		dst = e.begin(dst, "response.output_text.annotation.added")
		dst = append(dst, `,"annotation":`...)
		dst = wire.AppendURLCitation(dst, &p.cites[k], full, 0)
		dst = append(dst, `,"annotation_index":`...)
		dst = jsonx.AppendInt(dst, int64(k))
		dst = e.appendPartRef(dst, false)
		dst = e.finishEvent(dst)
	}
	if p.kind == codec.PartRefusal {
		dst = e.begin(dst, "response.refusal.done")
		dst = e.appendPartRef(dst, false)
		dst = append(dst, `,"refusal":`...)
	} else {
		dst = e.begin(dst, "response.output_text.done")
		dst = e.appendPartRef(dst, true)
		dst = append(dst, `,"text":`...)
	}
	dst = jsonx.AppendString(dst, full)
	dst = e.finishEvent(dst)
	dst = e.begin(dst, "response.content_part.done")
	dst = e.appendPartRef(dst, false)
	dst = append(dst, `,"part":`...)
	dst = e.appendPart(dst, p)
	e.partOpen = false
	return e.finishEvent(dst)
}

// callStart closes what is open and sends response.output_item.added for a
// function call, with its call id and name once and empty arguments.
func (e *streamEncoder) callStart(dst []byte, ev *codec.Event) []byte {
	dst = e.closeItem(dst, "completed")
	e.sentCall = true
	at := len(e.text)
	it := streamItem{call: true, callID: strings.Clone(ev.ToolCallID), name: strings.Clone(ev.ToolName),
		args: streamPart{kind: codec.PartToolCall, start: at, end: at}}
	if t := wire.RestoreResponsesTool(e.req, ev.ToolName); t != nil {
		// A custom tool or a namespaced function of the client's
		// request, which the upstream knew as a plain function.
		it.name, it.namespace, it.custom = t.Name, t.Namespace, t.Kind == codec.ToolCustom
	}
	return e.itemAdded(dst, it)
}

// callDelta sends an arguments fragment and keeps it. A custom tool's
// input is inside the arguments' JSON: it is sent whole at the end.
func (e *streamEncoder) callDelta(dst []byte, text string) []byte {
	it := e.last()
	e.text = append(e.text, text...)
	it.args.end = len(e.text)
	if it.custom || it.search {
		return dst
	}
	dst = e.begin(dst, "response.function_call_arguments.delta")
	dst = append(dst, `,"delta":`...)
	dst = jsonx.AppendString(dst, text)
	dst = e.appendItemRef(dst)
	return e.finishEvent(dst)
}

// callStop sends response.function_call_arguments.done and the item's
// output_item.done. A call whose upstream sent no arguments at all gets
// "{}", as one delta, so that clients summing the deltas agree with .done.
func (e *streamEncoder) callStop(dst []byte) []byte {
	it := e.last()
	if it.custom {
		// The raw input, as one delta and its .done.
		input := wire.CustomInput(jsonx.BytesToString(e.text[it.args.start:it.args.end]))
		if input != "" {
			dst = e.begin(dst, "response.custom_tool_call_input.delta")
			dst = append(dst, `,"delta":`...)
			dst = jsonx.AppendString(dst, input)
			dst = e.appendItemRef(dst)
			dst = e.finishEvent(dst)
		}
		dst = e.begin(dst, "response.custom_tool_call_input.done")
		dst = append(dst, `,"input":`...)
		dst = jsonx.AppendString(dst, input)
		dst = e.appendItemRef(dst)
		dst = e.finishEvent(dst)
		return e.itemDone(dst, "completed")
	}
	if it.args.start == it.args.end {
		dst = e.callDelta(dst, "{}")
	}
	dst = e.begin(dst, "response.function_call_arguments.done")
	dst = append(dst, `,"arguments":`...)
	dst = jsonx.AppendString(dst, jsonx.BytesToString(e.text[it.args.start:it.args.end]))
	dst = e.appendItemRef(dst)
	dst = append(dst, `,"name":`...)
	dst = jsonx.AppendString(dst, it.name)
	dst = e.finishEvent(dst)
	return e.itemDone(dst, "completed")
}

// searchStart closes what is open and sends response.output_item.added
// for a web_search_call item and its in_progress and searching events; the
// search's arguments are kept for its query.
func (e *streamEncoder) searchStart(dst []byte, ev *codec.Event) []byte {
	dst = e.closeItem(dst, "completed")
	at := len(e.text)
	dst = e.itemAdded(dst, streamItem{call: true, search: true, callID: strings.Clone(ev.ToolCallID),
		args: streamPart{kind: codec.PartServerToolCall, start: at, end: at}})
	for _, name := range [...]string{"response.web_search_call.in_progress", "response.web_search_call.searching"} {
		dst = e.begin(dst, name)
		dst = e.appendItemRef(dst)
		dst = e.finishEvent(dst)
	}
	return dst
}

// searchResult gives the open web_search_call item the sources of a search
// result and completes it. A result of no open search is left out.
func (e *streamEncoder) searchResult(dst []byte, ev *codec.Event) []byte {
	if !e.searchOpen() || ev.ToolCallID != "" && ev.ToolCallID != e.last().callID {
		dst = e.closeItem(dst, "completed")
		return dst
	}
	it := e.last()
	for _, src := range ev.Sources {
		it.sources = append(it.sources, codec.Source{URL: strings.Clone(src.URL)})
	}
	it.failed = it.failed || ev.IsError
	return e.searchStop(dst)
}

// searchStop sends response.web_search_call.completed and the item's
// output_item.done.
func (e *streamEncoder) searchStop(dst []byte) []byte {
	dst = e.begin(dst, "response.web_search_call.completed")
	dst = e.appendItemRef(dst)
	dst = e.finishEvent(dst)
	status := "completed"
	if e.last().failed {
		status = "failed"
	}
	return e.itemDone(dst, status)
}

// reasoningStart closes what is open and sends response.output_item.added
// for a reasoning item with an empty summary; its id is the upstream's item
// id when it has one.
func (e *streamEncoder) reasoningStart(dst []byte, ev *codec.Event) []byte {
	dst = e.closeItem(dst, "completed")
	at := len(e.text)
	return e.itemAdded(dst, streamItem{reasoning: true, itemID: strings.Clone(ev.ItemID), redacted: ev.Redacted,
		args: streamPart{kind: codec.PartReasoning, start: at, end: at}})
}

// appendSummaryRef appends the item_id, output_index and summary_index of
// the open reasoning item's only summary part.
func (e *streamEncoder) appendSummaryRef(dst []byte) []byte {
	dst = e.appendItemRef(dst)
	return append(dst, `,"summary_index":0`...)
}

// reasoningDelta sends a summary text delta, after
// response.reasoning_summary_part.added for the first one.
func (e *streamEncoder) reasoningDelta(dst []byte, text string) []byte {
	it := e.last()
	if !it.summary {
		it.summary = true
		dst = e.begin(dst, "response.reasoning_summary_part.added")
		dst = e.appendSummaryRef(dst)
		dst = append(dst, `,"part":{"type":"summary_text","text":""}`...)
		dst = e.finishEvent(dst)
	}
	e.text = append(e.text, text...)
	it.args.end = len(e.text)
	dst = e.begin(dst, "response.reasoning_summary_text.delta")
	dst = append(dst, `,"delta":`...)
	dst = jsonx.AppendString(dst, text)
	dst = e.appendSummaryRef(dst)
	return e.finishEvent(dst)
}

// reasoningStop ends the reasoning item: the summary part's .done events
// when it had text, then output_item.done with the summary and, when the
// part is signed, its continuation envelope as encrypted_content.
func (e *streamEncoder) reasoningStop(dst []byte, ev *codec.Event) []byte {
	it := e.last()
	if it.summary {
		full := jsonx.BytesToString(e.text[it.args.start:it.args.end])
		dst = e.begin(dst, "response.reasoning_summary_text.done")
		dst = e.appendSummaryRef(dst)
		dst = append(dst, `,"text":`...)
		dst = jsonx.AppendString(dst, full)
		dst = e.finishEvent(dst)
		dst = e.begin(dst, "response.reasoning_summary_part.done")
		dst = e.appendSummaryRef(dst)
		dst = append(dst, `,"part":{"type":"summary_text","text":`...)
		dst = jsonx.AppendString(dst, full)
		dst = append(dst, '}')
		dst = e.finishEvent(dst)
	}
	if ev.Signature != "" && ev.Origin != mapping.FamilyNone {
		it.encrypted = string(wire.AppendOpaque(nil, ev.Signature, ev.Origin, it.redacted, it.itemID))
	}
	return e.itemDone(dst, "completed")
}

// refusalStop handles a refusal stop. Nothing more is
// sent when the client already has a refusal part, or text (which cannot be
// withdrawn: the response completes normally). Otherwise the upstream's
// explanation becomes a message with a refusal part; a refusal after tool
// calls, or one with neither text nor explanation, cannot be expressed
// without inventing or losing content and fails the stream.
func (e *streamEncoder) refusalStop(dst []byte, ev *codec.Event) []byte {
	switch {
	case e.sentRefusal:
		return dst
	case e.sentCall:
		return e.fail(dst, wire.RefusalError(codec.OpenAIResponses, "the upstream refused after producing tool call output"))
	case e.sentText:
		return dst
	case ev.StopDetails.Explanation == "":
		return e.fail(dst, wire.RefusalError(codec.OpenAIResponses, "the upstream refused without any text or explanation"))
	}
	dst = e.closeItem(dst, "completed")
	dst = e.partStart(dst, codec.PartRefusal)
	dst = e.delta(dst, ev.StopDetails.Explanation)
	return e.partStop(dst)
}

// end closes what is open and sends response.completed (or
// response.incomplete) with the full response.
func (e *streamEncoder) end(dst []byte) []byte {
	status, reason := mapping.ResponsesStatus(e.stop)
	dst = e.closeItem(dst, status)
	dst = e.begin(dst, "response."+status)
	dst = append(dst, `,"response":`...)
	dst = e.appendResponse(dst, status, reason, nil)
	e.ended = true
	return e.finishEvent(dst)
}

// fail sends the error event in the spec's flat shape, then
// response.failed with the output produced so far (an unfinished message is
// "incomplete"). Open parts are not closed: their .done events would claim
// a complete text.
func (e *streamEncoder) fail(dst []byte, err *codec.Error) []byte {
	if err == nil {
		err = &codec.Error{Status: 500, Kind: mapping.ErrAPI, Message: "the upstream stream failed"}
	}
	if !e.started {
		e.init(&codec.Event{})
	}
	code := errorCode(err)
	dst = e.begin(dst, "error")
	dst = append(dst, `,"code":`...)
	dst = jsonx.AppendString(dst, code)
	dst = append(dst, `,"message":`...)
	dst = jsonx.AppendString(dst, err.Message)
	dst = append(dst, `,"param":`...)
	if err.Param != "" {
		dst = jsonx.AppendString(dst, err.Param)
	} else {
		dst = append(dst, "null"...)
	}
	dst = e.finishEvent(dst)
	dst = e.begin(dst, "response.failed")
	dst = append(dst, `,"response":`...)
	dst = e.appendResponse(dst, "failed", "", err)
	e.ended = true
	return e.finishEvent(dst)
}

// errorCode returns the Responses error code for err: the
// upstream's own when it speaks OpenAI, else the code OpenAI uses for its
// kind (rate_limit_exceeded, insufficient_quota, server_is_overloaded), or
// OpenAI's error type for kinds without a code of their own (server_error,
// invalid_request_error, ...). Each of them maps back to the same kind.
func errorCode(err *codec.Error) string {
	if err.Code != "" && (err.Protocol == codec.OpenAIResponses || err.Protocol == codec.OpenAIChat) {
		return err.Code
	}
	switch err.Kind {
	case mapping.ErrRateLimit:
		return "rate_limit_exceeded"
	case mapping.ErrBilling:
		return "insufficient_quota"
	case mapping.ErrOverloaded:
		return "server_is_overloaded"
	}
	return mapping.OpenAIErrorType(err.Kind)
}

// appendResponse appends the response object with the fields openai-go's
// responses.Response requires, as the non-streamed encoder writes them
// (appendResponse): output holds the message once a part was sent,
// and usage is written only in a terminal response and only when known.
func (e *streamEncoder) appendResponse(dst []byte, status, incompleteReason string, failure *codec.Error) []byte {
	dst = append(dst, `{"id":`...)
	dst = jsonx.AppendString(dst, e.id)
	dst = append(dst, `,"object":"response","created_at":`...)
	dst = jsonx.AppendInt(dst, e.created)
	dst = append(dst, `,"status":`...)
	dst = jsonx.AppendString(dst, status)
	dst = append(dst, `,"error":`...)
	if failure != nil {
		dst = append(dst, `{"code":`...)
		dst = jsonx.AppendString(dst, errorCode(failure))
		dst = append(dst, `,"message":`...)
		dst = jsonx.AppendString(dst, failure.Message)
		dst = append(dst, '}')
	} else {
		dst = append(dst, "null"...)
	}
	dst = append(dst, `,"incomplete_details":`...)
	if incompleteReason != "" {
		dst = append(dst, `{"reason":`...)
		dst = jsonx.AppendString(dst, incompleteReason)
		dst = append(dst, '}')
	} else {
		dst = append(dst, "null"...)
	}
	dst = append(dst, `,"instructions":null,"metadata":{},"model":`...)
	dst = jsonx.AppendString(dst, e.model)
	dst = append(dst, `,"output":[`...)
	for i := range e.items {
		if i > 0 {
			dst = append(dst, ',')
		}
		it := &e.items[i]
		itemStatus := it.status
		if itemStatus == "" || i == len(e.items)-1 && e.itemOpen {
			// An unfinished item of a failed response is incomplete.
			itemStatus = status
			if status == "failed" {
				itemStatus = "incomplete"
			}
		}
		dst = e.appendItem(dst, it, itemStatus)
	}
	dst = append(dst, `],"parallel_tool_calls":true,"temperature":null,"tool_choice":"auto","tools":[],"top_p":null,"access_programs":null`...)
	if status != "in_progress" && e.usage.Known {
		dst = appendUsage(dst, &e.usage)
	}
	return append(dst, '}')
}

// appendItem appends an output item with what was sent of it so far, as
// appendOutputMessage and appendOutputCall write them.
func (e *streamEncoder) appendItem(dst []byte, it *streamItem, status string) []byte {
	if it.reasoning {
		dst = append(dst, `{"type":"reasoning","id":`...)
		dst = jsonx.AppendString(dst, it.id)
		dst = appendSummary(dst, jsonx.BytesToString(e.text[it.args.start:it.args.end]))
		if it.encrypted != "" {
			dst = append(dst, `,"encrypted_content":`...)
			dst = jsonx.AppendString(dst, it.encrypted)
		}
		return append(dst, '}')
	}
	if it.search {
		if status != "failed" && status != "in_progress" {
			status = "completed"
		}
		return appendSearchItem(dst, it.id, status, wire.SearchQuery(jsonx.BytesToString(e.text[it.args.start:it.args.end])),
			[]codec.Part{{Sources: it.sources}})
	}
	if it.custom {
		dst = append(dst, `{"type":"custom_tool_call","id":`...)
		dst = jsonx.AppendString(dst, it.id)
		dst = append(dst, `,"call_id":`...)
		dst = jsonx.AppendString(dst, it.callID)
		dst = append(dst, `,"name":`...)
		dst = jsonx.AppendString(dst, it.name)
		if it.namespace != "" {
			dst = append(dst, `,"namespace":`...)
			dst = jsonx.AppendString(dst, it.namespace)
		}
		dst = append(dst, `,"input":`...)
		input := ""
		if status != "in_progress" {
			input = wire.CustomInput(jsonx.BytesToString(e.text[it.args.start:it.args.end]))
		}
		dst = jsonx.AppendString(dst, input)
		return append(dst, '}')
	}
	if it.call {
		dst = append(dst, `{"type":"function_call","id":`...)
		dst = jsonx.AppendString(dst, it.id)
		dst = append(dst, `,"call_id":`...)
		dst = jsonx.AppendString(dst, it.callID)
		dst = append(dst, `,"name":`...)
		dst = jsonx.AppendString(dst, it.name)
		if it.namespace != "" {
			dst = append(dst, `,"namespace":`...)
			dst = jsonx.AppendString(dst, it.namespace)
		}
		dst = append(dst, `,"arguments":`...)
		dst = jsonx.AppendString(dst, jsonx.BytesToString(e.text[it.args.start:it.args.end]))
		dst = append(dst, `,"status":`...)
		dst = jsonx.AppendString(dst, status)
		return append(dst, '}')
	}
	dst = append(dst, `{"type":"message","id":`...)
	dst = jsonx.AppendString(dst, it.id)
	dst = append(dst, `,"status":`...)
	dst = jsonx.AppendString(dst, status)
	dst = append(dst, `,"role":"assistant","content":[`...)
	for i := it.first; i < it.end; i++ {
		if i > it.first {
			dst = append(dst, ',')
		}
		dst = e.appendPart(dst, &e.parts[i])
	}
	return append(dst, `]}`...)
}

// appendPart appends a content part with its text so far.
func (e *streamEncoder) appendPart(dst []byte, p *streamPart) []byte {
	text := jsonx.BytesToString(e.text[p.start:p.end])
	if p.kind == codec.PartRefusal {
		dst = append(dst, `{"type":"refusal","refusal":`...)
		dst = jsonx.AppendString(dst, text)
		return append(dst, '}')
	}
	dst = append(dst, `{"type":"output_text","text":`...)
	dst = jsonx.AppendString(dst, text)
	if len(p.cites) == 0 {
		return append(dst, `,"annotations":[],"logprobs":[]}`...)
	}
	dst = append(dst, `,"annotations":`...)
	dst = wire.AppendURLCitations(dst, &codec.Part{Text: text, Citations: p.cites})
	return append(dst, `,"logprobs":[]}`...)
}
