package anthropic

import (
	"math"
	"strconv"
	"strings"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/jsonx"
	"github.com/llmbridge/llmbridge/codec/internal/wire"
	"github.com/llmbridge/llmbridge/mapping"
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// arenaSize is the initial size of a stream decoder's text arena:
// most events are far smaller, so it is allocated once per stream.
const arenaSize = 1 << 10

// Upstream content block states, by Anthropic block index.
const (
	blockText     uint8 = iota + 1 // a text block mapped to the open canonical part
	blockThinking                  // a thinking block mapped to the open reasoning part
	blockClosed                    // a block that has been closed
	blockTool                      // a tool_use block mapped to the open canonical part
	blockOpaque                    // a block kept whole (opaquePart) in the open reasoning part
)

// streamDecoder decodes upstream Anthropic streams into canonical
// events. It keeps the state of each upstream content block, the canonical
// part that is open, and the usage counters reported so far (message_delta
// usage is merged over message_start's).
type streamDecoder struct {
	// index is the structure of the event being decoded (jsonx.Arena.IndexEvent).
	index jsonx.Index
	p     codec.Protocol
	text  jsonx.Arena

	started bool // message_start seen
	stopped bool // EventStop emitted
	done    bool // a terminal event was emitted

	blocks    []uint8 // state of upstream block i
	blockBuf  [16]uint8
	open      int // canonical index of the open part, or -1
	openBlock int // upstream index of the open part's block
	next      int // canonical index of the next part

	// signature is the open thinking block's signature, which arrives in
	// signature_delta events and goes out on the part's EventPartStop. It
	// is a copy: the event it came in is gone by then.
	signature string
	// opaque is the open opaque block (opaquePart) as it stands:
	// its start, with the string fields of its deltas appended, and
	// opaqueInput the input_json_delta fragments of a server tool's call.
	opaque, opaqueInput []byte

	usage counters
}

// counters are Anthropic's own usage counters, before conversion.
type counters struct {
	known                                          bool
	input, cacheWrite, cacheRead, output, thinking int64
}

// canonical converts the counters to canonical usage.
func (c *counters) canonical() codec.Usage {
	return mapping.FromAnthropicUsage(c.input, c.cacheWrite, c.cacheRead, c.output, c.thinking)
}

func newStreamDecoder(p codec.Protocol) *streamDecoder {
	d := &streamDecoder{p: p, text: jsonx.NewArena(arenaSize), open: -1}
	d.blocks = d.blockBuf[:0]
	return d
}

// streamEvent holds the top-level members of one event's data.
type streamEvent struct {
	typ, index, message, block, delta, usage, err gjson.Result
}

// Decode implements StreamDecoder.
func (d *streamDecoder) Decode(out []codec.Event, name, data []byte, bare bool) []codec.Event {
	if d.done {
		return out
	}
	if d.p == codec.BedrockAnthropic {
		if e := wire.DecodeStreamException(d.p, jsonx.BytesToString(name), jsonx.BytesToString(data)); e != nil {
			// Bedrock's exception message, which ends its stream.
			return d.fail(out, e)
		}
	}
	d.text.Reset()
	s := jsonx.BytesToString(data)
	if !d.text.IndexEvent(s, &d.index) {
		if string(name) == "error" {
			return d.fail(out, wire.InvalidStream(d.p, "error event data is not JSON: "+quoteStart(s)))
		}
		return d.fail(out, wire.InvalidStream(d.p, "event data is not valid JSON"))
	}
	if !bare && string(name) != "error" {
		if i, text, ok := d.fastTextDelta(s); ok {
			return d.textDelta(out, i, text)
		}
	}
	root := gjson.Parse(s)
	if !root.IsObject() {
		return d.fail(out, wire.InvalidStream(d.p, "event data is not a JSON object"))
	}
	var ev streamEvent
	for key, member := range jsonx.Members(root.Raw, &d.text) {
		value := member.Result()
		switch key {
		case "type":
			ev.typ = value
		case "index":
			ev.index = value
		case "message":
			ev.message = value
		case "content_block":
			ev.block = value
		case "delta":
			ev.delta = value
		case "usage":
			ev.usage = value
		case "error":
			ev.err = value
		}
	}
	typ := ev.typ.Str
	if ev.typ.Type != gjson.String {
		if ev.typ.Exists() {
			return d.fail(out, wire.InvalidStream(d.p, "event type is not a string"))
		}
		typ = jsonx.BytesToString(name)
	}
	if string(name) == "error" || typ == "error" {
		return d.fail(out, d.upstreamError(ev.err))
	}
	if bare {
		// Anthropic never writes JSON outside data: fields; whatever this
		// is, it is not part of the protocol.
		return d.fail(out, wire.InvalidStream(d.p, "JSON outside an SSE data field"))
	}
	switch typ {
	case "ping":
		return out
	case "message_start":
		return d.messageStart(out, &ev)
	case "content_block_start", "content_block_delta", "content_block_stop", "message_delta", "message_stop":
		if !d.started {
			return d.fail(out, wire.InvalidStream(d.p, typ+" before message_start"))
		}
	case "":
		return d.fail(out, wire.InvalidStream(d.p, "event has no type"))
	default:
		// Providers add event types; they are not forwarded.
		return out
	}
	switch typ {
	case "content_block_start":
		return d.blockStart(out, &ev)
	case "content_block_delta":
		return d.blockDelta(out, &ev)
	case "content_block_stop":
		return d.blockStop(out, &ev)
	case "message_delta":
		return d.messageDelta(out, &ev)
	}
	// message_stop
	out = d.closePart(out)
	d.done = true
	return append(out, codec.Event{Type: codec.EventEnd})
}

// messageStart opens the response with the message's id, model and the
// usage known up front (input tokens, and the first output tokens).
func (d *streamDecoder) messageStart(out []codec.Event, ev *streamEvent) []codec.Event {
	if d.started {
		return d.fail(out, wire.InvalidStream(d.p, "second message_start"))
	}
	if !ev.message.IsObject() {
		return d.fail(out, wire.InvalidStream(d.p, "message_start has no message object"))
	}
	var id, model, usage gjson.Result
	for key, member := range jsonx.Members(ev.message.Raw, &d.text) {
		value := member.Result()
		switch key {
		case "id":
			id = value
		case "model":
			model = value
		case "usage":
			usage = value
		}
	}
	if (id.Exists() && id.Type != gjson.String && id.Type != gjson.Null) ||
		(model.Exists() && model.Type != gjson.String && model.Type != gjson.Null) {
		return d.fail(out, wire.InvalidStream(d.p, "message id or model is not a string"))
	}
	if err := d.readUsage(usage); err != nil {
		return d.fail(out, err)
	}
	d.started = true
	start := codec.Event{Type: codec.EventStart, ID: id.Str, Model: model.Str}
	if d.usage.known {
		start.Usage = d.usage.canonical()
	}
	return append(out, start)
}

// blockStart handles content_block_start. Upstream blocks are numbered in
// order without gaps (the official SDK relies on it); text blocks become
// canonical text parts, tool_use blocks tool call parts, thinking and
// redacted_thinking blocks reasoning parts, and every other block type is
// output that cannot be translated yet. Each block is its own part, so
// parallel tool calls (consecutive tool_use blocks) get distinct part
// indexes.
func (d *streamDecoder) blockStart(out []codec.Event, ev *streamEvent) []codec.Event {
	i, ok := wire.BlockIndex(ev.index)
	if !ok || i != len(d.blocks) {
		return d.fail(out, wire.InvalidStream(d.p, "content_block_start index out of order"))
	}
	if d.stopped {
		return d.fail(out, wire.InvalidStream(d.p, "content_block_start after message_delta"))
	}
	if !ev.block.IsObject() {
		return d.fail(out, wire.InvalidStream(d.p, "content_block_start has no content_block object"))
	}
	var typ, text, id, name, input, thinking, signature, data, toolUseID, content gjson.Result
	for key, member := range jsonx.Members(ev.block.Raw, &d.text) {
		value := member.Result()
		switch key {
		case "tool_use_id":
			toolUseID = value
		case "content":
			content = value
		case "type":
			typ = value
		case "text":
			text = value
		case "thinking":
			thinking = value
		case "signature":
			signature = value
		case "data":
			data = value
		case "id":
			id = value
		case "name":
			name = value
		case "input":
			input = value
		}
	}
	switch {
	case typ.Type != gjson.String || typ.Str == "":
		return d.fail(out, wire.InvalidStream(d.p, "content block has no type"))
	case typ.Str == "thinking":
		return d.thinkingStart(out, i, thinking, signature)
	case typ.Str == "redacted_thinking":
		return d.redactedThinking(out, i, data)
	case typ.Str == "tool_use":
		return d.toolStart(out, i, id, name, input)
	case typ.Str == "server_tool_use" && name.Str != "web_search":
		return d.opaqueStart(out, i, ev.block)
	case typ.Str == "server_tool_use":
		out = d.toolStart(out, i, id, name, input)
		if !d.done {
			// toolStart opened a tool call part; it is a search the
			// upstream runs itself.
			for k := len(out) - 1; k >= 0; k-- {
				if out[k].Type == codec.EventPartStart {
					out[k].Part = codec.PartServerToolCall
					break
				}
			}
		}
		return out
	case typ.Str == "web_search_tool_result":
		// The results come whole at the start, as one part without
		// deltas.
		r := searchResult(toolUseID, content, &d.text)
		out = d.openPart(out, i, blockThinking)
		out = append(out, codec.Event{Type: codec.EventPartStart, Index: d.open, Part: codec.PartServerToolResult, ToolCallID: r.ToolCallID,
			Sources: r.Sources, IsError: r.IsError, Text: r.TextValue()})
		return d.closePart(out)
	case typ.Str != "text":
		return d.opaqueStart(out, i, ev.block)
	case text.Exists() && text.Type != gjson.String:
		return d.fail(out, wire.InvalidStream(d.p, "text block text is not a string"))
	}
	out = d.openPart(out, i, blockText)
	out = append(out, codec.Event{Type: codec.EventPartStart, Index: d.open, Part: codec.PartText})
	if text.Str != "" {
		out = append(out, codec.Event{Type: codec.EventPartDelta, Index: d.open, Text: text.Str})
	}
	return out
}

// opaqueStart opens the reasoning part that keeps block i whole, a block
// llmbridge does not translate (opaquePart): it never fails the
// stream, and goes to the client as a continuation when it stops.
func (d *streamDecoder) opaqueStart(out []codec.Event, i int, block gjson.Result) []codec.Event {
	out = d.openPart(out, i, blockOpaque)
	d.opaque = append(d.opaque[:0], block.Raw...)
	d.opaqueInput = d.opaqueInput[:0]
	return append(out, codec.Event{Type: codec.EventPartStart, Index: d.open, Part: codec.PartReasoning, Redacted: true})
}

// opaqueDelta adds a delta of the open opaque block i to it: the string
// fields of the delta are appended to the block's fields of the same name
// (a compaction_delta's content and encrypted_content), and the fragments
// of an input_json_delta make the block's input, as the SDKs' accumulators
// do. A delta of a block that is no longer open is dropped.
func (d *streamDecoder) opaqueDelta(out []codec.Event, i int, delta gjson.Result) []codec.Event {
	if i != d.openBlock || d.open < 0 {
		return out
	}
	if delta.Get("type").Str == "input_json_delta" {
		d.opaqueInput = append(d.opaqueInput, delta.Get("partial_json").Str...)
		return out
	}
	for k, member := range jsonx.Members(delta.Raw, &d.text) {
		v := member.Result()
		if k == "type" || v.Type != gjson.String || !plainKey(k) {
			continue
		}
		old := gjson.GetBytes(d.opaque, k)
		if b, err := sjson.SetBytes(d.opaque, k, old.Str+v.Str); err == nil {
			d.opaque = b
		}
	}
	return out
}

// plainKey reports whether k is a key that needs no escaping in
// a gjson or sjson path.
func plainKey(k string) bool {
	for i := 0; i < len(k); i++ {
		if c := k[i]; !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return k != ""
}

// toolStart opens the tool call part of tool_use block i, with its id and
// name. Anthropic starts with input {} and sends the arguments in
// input_json_delta events; an input that is not empty (a proxy that sends
// the whole call at once) is the arguments, as one delta.
func (d *streamDecoder) toolStart(out []codec.Event, i int, id, name, input gjson.Result) []codec.Event {
	switch {
	case id.Type != gjson.String || id.Str == "" || name.Type != gjson.String || name.Str == "":
		return d.fail(out, wire.InvalidStream(d.p, "tool_use block has no id or name"))
	case input.Exists() && !input.IsObject():
		return d.fail(out, wire.InvalidStream(d.p, "tool_use block input is not an object"))
	}
	out = d.openPart(out, i, blockTool)
	out = append(out, codec.Event{Type: codec.EventPartStart, Index: d.open, Part: codec.PartToolCall, ToolCallID: id.Str, ToolName: name.Str})
	if input.Exists() && !emptyObject(input.Raw) {
		out = append(out, codec.Event{Type: codec.EventPartDelta, Index: d.open, Text: input.Raw})
	}
	return out
}

// thinkingStart opens the reasoning part of thinking block i. Anthropic
// starts it with empty thinking and signature and fills both in deltas; a
// start that already holds them (a proxy replaying a whole block) is kept.
func (d *streamDecoder) thinkingStart(out []codec.Event, i int, thinking, signature gjson.Result) []codec.Event {
	if (thinking.Type != gjson.String && thinking.Type != gjson.Null) || (signature.Type != gjson.String && signature.Type != gjson.Null) {
		return d.fail(out, wire.InvalidStream(d.p, "thinking block thinking or signature is not a string"))
	}
	out = d.openPart(out, i, blockThinking)
	out = append(out, codec.Event{Type: codec.EventPartStart, Index: d.open, Part: codec.PartReasoning})
	if thinking.Str != "" {
		out = append(out, codec.Event{Type: codec.EventPartDelta, Index: d.open, Text: thinking.Str})
	}
	d.signature = strings.Clone(signature.Str)
	return out
}

// redactedThinking emits redacted_thinking block i, which comes whole in its
// content_block_start, as a complete redacted reasoning part: its data is
// the part's signature.
func (d *streamDecoder) redactedThinking(out []codec.Event, i int, data gjson.Result) []codec.Event {
	if data.Type != gjson.String || data.Str == "" {
		return d.fail(out, wire.InvalidStream(d.p, "redacted_thinking block has no data"))
	}
	out = d.openPart(out, i, blockThinking)
	out = append(out, codec.Event{Type: codec.EventPartStart, Index: d.open, Part: codec.PartReasoning, Redacted: true})
	d.signature = data.Str // used at once: no copy needed
	return d.closePart(out)
}

// openPart closes the open part and makes upstream block i, of state kind,
// the open one.
func (d *streamDecoder) openPart(out []codec.Event, i int, kind uint8) []codec.Event {
	out = d.closePart(out)
	d.blocks = append(d.blocks, kind)
	d.open, d.openBlock = d.next, i
	d.next++
	return out
}

// blockDelta handles content_block_delta: text_delta is the hot path, and
// input_json_delta carries a tool call's arguments.
func (d *streamDecoder) blockDelta(out []codec.Event, ev *streamEvent) []codec.Event {
	i, ok := wire.BlockIndex(ev.index)
	if !ok || i >= len(d.blocks) {
		return d.fail(out, wire.InvalidStream(d.p, "content_block_delta for a block that was not started"))
	}
	if !ev.delta.IsObject() {
		return d.fail(out, wire.InvalidStream(d.p, "content_block_delta has no delta object"))
	}
	if d.blocks[i] == blockOpaque {
		return d.opaqueDelta(out, i, ev.delta)
	}
	var typ, text, partial, thinking, signature, citation gjson.Result
	for key, member := range jsonx.Members(ev.delta.Raw, &d.text) {
		value := member.Result()
		switch key {
		case "citation":
			citation = value
		case "type":
			typ = value
		case "text":
			text = value
		case "partial_json":
			partial = value
		case "thinking":
			thinking = value
		case "signature":
			signature = value
		}
	}
	switch {
	case typ.Type != gjson.String || typ.Str == "":
		return d.fail(out, wire.InvalidStream(d.p, "delta has no type"))
	case typ.Str == "input_json_delta":
		return d.inputDelta(out, i, partial)
	case typ.Str == "thinking_delta" || typ.Str == "signature_delta":
		return d.thinkingDelta(out, i, typ.Str, thinking, signature)
	case typ.Str == "citations_delta":
		// A citation of the open text block, which it cites whole;
		// citations of other kinds (documents) are skipped, and one
		// that fits no open text block is dropped: a citation never
		// fails a stream.
		if d.blocks[i] != blockText || i != d.openBlock || d.open < 0 {
			return out
		}
		var c [1]codec.Citation
		if cs := anthropicCitation(citation, c[:0]); len(cs) > 0 {
			out = append(out, codec.Event{Type: codec.EventCitation, Index: d.open, Citation: cs[0]})
		}
		return out
	case typ.Str != "text_delta":
		return d.fail(out, wire.UntranslatedStream(d.p, `delta type "`+typ.Str+`" cannot be translated yet`))
	case text.Type != gjson.String:
		return d.fail(out, wire.InvalidStream(d.p, "text_delta has no text"))
	}
	return d.textDelta(out, i, text.Str)
}

// inputDelta appends a fragment of the arguments of tool_use block i.
// Anthropic sends a single empty fragment for a call without arguments:
// empty fragments are not forwarded.
func (d *streamDecoder) inputDelta(out []codec.Event, i int, partial gjson.Result) []codec.Event {
	switch {
	case d.blocks[i] != blockTool || i != d.openBlock || d.open < 0:
		return d.fail(out, wire.InvalidStream(d.p, "input_json_delta for a block that is not an open tool_use block"))
	case partial.Type != gjson.String:
		return d.fail(out, wire.InvalidStream(d.p, "input_json_delta has no partial_json"))
	case partial.Str == "":
		return out
	}
	return append(out, codec.Event{Type: codec.EventPartDelta, Index: d.open, Text: partial.Str})
}

// thinkingDelta handles a thinking_delta (reasoning text, forwarded unless
// empty) or a signature_delta (kept for the part's stop) of thinking block
// i. Anthropic sends one signature_delta; several are joined, as the SDK's
// accumulator does.
func (d *streamDecoder) thinkingDelta(out []codec.Event, i int, typ string, thinking, signature gjson.Result) []codec.Event {
	if d.blocks[i] != blockThinking || i != d.openBlock || d.open < 0 {
		return d.fail(out, wire.InvalidStream(d.p, typ+" for a block that is not an open thinking block"))
	}
	if typ == "signature_delta" {
		if signature.Type != gjson.String {
			return d.fail(out, wire.InvalidStream(d.p, "signature_delta has no signature"))
		}
		if d.signature == "" {
			d.signature = strings.Clone(signature.Str)
		} else {
			d.signature += signature.Str // a concatenation copies
		}
		return out
	}
	if thinking.Type != gjson.String {
		return d.fail(out, wire.InvalidStream(d.p, "thinking_delta has no thinking"))
	}
	if thinking.Str == "" {
		return out
	}
	return append(out, codec.Event{Type: codec.EventPartDelta, Index: d.open, Text: thinking.Str})
}

// textDelta appends the text of a text_delta for upstream block i.
func (d *streamDecoder) textDelta(out []codec.Event, i int, text string) []codec.Event {
	switch {
	case !d.started:
		return d.fail(out, wire.InvalidStream(d.p, "content_block_delta before message_start"))
	case i >= len(d.blocks):
		return d.fail(out, wire.InvalidStream(d.p, "content_block_delta for a block that was not started"))
	case d.blocks[i] != blockText || i != d.openBlock || d.open < 0:
		// A text block that was closed, or left open when a later block
		// started: its text cannot be placed in order any more. Or a
		// tool_use block, whose deltas are input_json_delta.
		return d.fail(out, wire.InvalidStream(d.p, "text_delta for a block that is not an open text block"))
	case text == "":
		return out
	}
	return append(out, codec.Event{Type: codec.EventPartDelta, Index: d.open, Text: text})
}

// Every text delta Anthropic sends starts with these bytes, in this order.
const (
	deltaPrefix     = `{"type":"content_block_delta","index":`
	textDeltaPrefix = `,"delta":{"type":"text_delta","text":"`
)

// fastTextDelta reads a text delta in the exact layout Anthropic sends,
// {"type":"content_block_delta","index":N,"delta":{"type":"text_delta",
// "text":"..."}} with optional trailing spaces, without walking the
// members twice: text deltas are most of a stream. s has passed
// gjson.Valid. Any other layout (other key order, extra members) reports
// false and takes the general path.
func (d *streamDecoder) fastTextDelta(s string) (index int, text string, ok bool) {
	if len(s) < len(deltaPrefix)+len(textDeltaPrefix)+4 || s[:len(deltaPrefix)] != deltaPrefix {
		return 0, "", false
	}
	j := len(deltaPrefix)
	for ; j < len(s) && j-len(deltaPrefix) < 9 && s[j] >= '0' && s[j] <= '9'; j++ {
		index = index*10 + int(s[j]-'0')
	}
	rest := s[j:]
	if j == len(deltaPrefix) || len(rest) < len(textDeltaPrefix) || rest[:len(textDeltaPrefix)] != textDeltaPrefix {
		return 0, "", false
	}
	q := j + len(textDeltaPrefix) - 1 // the text's opening quote
	end := jsonx.StringEnd(s, q)
	k := jsonx.SkipSpace(s, end)
	if k == len(s) || s[k] != '}' {
		return 0, "", false
	}
	k = jsonx.SkipSpace(s, k+1)
	if k == len(s) || s[k] != '}' || jsonx.SkipSpace(s, k+1) != len(s) {
		return 0, "", false
	}
	return index, d.text.StringResult(s[q:end]).Str, true
}

// blockStop handles content_block_stop.
func (d *streamDecoder) blockStop(out []codec.Event, ev *streamEvent) []codec.Event {
	i, ok := wire.BlockIndex(ev.index)
	if !ok || i >= len(d.blocks) {
		return d.fail(out, wire.InvalidStream(d.p, "content_block_stop for a block that was not started"))
	}
	if i == d.openBlock && d.open >= 0 {
		return d.closePart(out)
	}
	// A text block closed early because a later one started (blocks do
	// not interleave in practice) or a repeated stop: nothing is open.
	return out
}

// messageDelta handles message_delta: the stop reason with its stop
// details and the cumulative usage, merged over message_start's (older
// servers report only output_tokens here).
func (d *streamDecoder) messageDelta(out []codec.Event, ev *streamEvent) []codec.Event {
	var reason, seq, details gjson.Result
	if ev.delta.Exists() {
		if !ev.delta.IsObject() {
			return d.fail(out, wire.InvalidStream(d.p, "message_delta delta is not an object"))
		}
		for key, member := range jsonx.Members(ev.delta.Raw, &d.text) {
			value := member.Result()
			switch key {
			case "stop_reason":
				reason = value
			case "stop_sequence":
				seq = value
			case "stop_details":
				details = value
			}
		}
	}
	if (reason.Type != gjson.String && reason.Type != gjson.Null) || (seq.Type != gjson.String && seq.Type != gjson.Null) {
		return d.fail(out, wire.InvalidStream(d.p, "message_delta stop_reason or stop_sequence is not a string"))
	}
	sd, why := decodeStopDetails(details, &d.text)
	if why != "" {
		return d.fail(out, wire.InvalidStream(d.p, why))
	}
	if err := d.readUsage(ev.usage); err != nil {
		return d.fail(out, err)
	}
	out = d.closePart(out)
	if reason.Str != "" && !d.stopped {
		d.stopped = true
		// The details are copied: encoders may hold them until the end,
		// and they come once per stream.
		sd.Category, sd.Explanation = strings.Clone(sd.Category), strings.Clone(sd.Explanation)
		out = append(out, codec.Event{Type: codec.EventStop, StopReason: mapping.FromAnthropicStopReason(reason.Str), StopSequence: seq.Str, StopDetails: sd})
	}
	if ev.usage.Exists() && ev.usage.Type != gjson.Null {
		out = append(out, codec.Event{Type: codec.EventUsage, Usage: d.usage.canonical()})
	}
	return out
}

// readUsage merges a usage object (message_start's or message_delta's) into
// the counters: every counter present replaces the one known so far; null
// and absent counters keep it. Absent or null usage changes nothing.
func (d *streamDecoder) readUsage(v gjson.Result) *codec.Error {
	if v.Type == gjson.Null {
		return nil
	}
	if !v.IsObject() {
		return wire.InvalidStream(d.p, "usage is not an object")
	}
	c := &d.usage
	var err *codec.Error
	for key, member := range jsonx.Members(v.Raw, &d.text) {
		value := member.Result()
		var dst *int64
		switch key {
		case "input_tokens":
			dst = &c.input
		case "cache_creation_input_tokens":
			dst = &c.cacheWrite
		case "cache_read_input_tokens":
			dst = &c.cacheRead
		case "output_tokens":
			dst = &c.output
		case "output_tokens_details":
			if value.IsObject() {
				value = value.Get("thinking_tokens")
				dst = &c.thinking
			} else if value.Type != gjson.Null {
				err = wire.InvalidStream(d.p, "usage.output_tokens_details is not an object")
			}
		}
		if dst != nil && value.Type != gjson.Null {
			if value.Type != gjson.Number || value.Num < 0 || value.Num != math.Trunc(value.Num) || value.Num > 1<<53 {
				err = wire.InvalidStream(d.p, "usage."+key+" is not a token count")
				break
			}
			*dst = value.Int()
		}
		if err != nil {
			break
		}
	}
	if err == nil {
		c.known = true
	}
	return err
}

// closePart closes the open canonical part, if any. A reasoning part's
// stop carries its signature, issued by Anthropic.
func (d *streamDecoder) closePart(out []codec.Event) []codec.Event {
	if d.open < 0 {
		return out
	}
	stop := codec.Event{Type: codec.EventPartStop, Index: d.open}
	switch {
	case d.blocks[d.openBlock] == blockThinking && d.signature != "":
		stop.Signature, stop.Origin = d.signature, mapping.FamilyAnthropic
		d.signature = ""
	case d.blocks[d.openBlock] == blockOpaque:
		if len(d.opaqueInput) > 0 && jsonx.Valid(jsonx.BytesToString(d.opaqueInput)) {
			if b, err := sjson.SetRawBytes(d.opaque, "input", d.opaqueInput); err == nil {
				d.opaque = b
			}
		}
		stop.Signature, stop.Origin = string(d.opaque), mapping.FamilyAnthropic
	}
	d.blocks[d.openBlock] = blockClosed
	d.open = -1
	return append(out, stop)
}

// upstreamError converts the error object of an error event. overloaded_error
// is Anthropic's 529; other types take the status of their kind. The type is
// kept as the code, so that an Anthropic client receives it unchanged.
func (d *streamDecoder) upstreamError(v gjson.Result) *codec.Error {
	if !v.IsObject() {
		return wire.InvalidStream(d.p, "error event has no error object")
	}
	var typ, msg gjson.Result
	for key, member := range jsonx.Members(v.Raw, &d.text) {
		value := member.Result()
		switch key {
		case "type":
			typ = value
		case "message":
			msg = value
		}
	}
	kind, _ := mapping.FromAnthropicErrorType(typ.Str)
	status := mapping.StatusForKind(kind)
	if kind == mapping.ErrOverloaded {
		status = mapping.StatusOverloaded
	}
	e := &codec.Error{Status: status, Kind: kind, Message: strings.Clone(msg.Str), Protocol: d.p}
	if typ.Type == gjson.String {
		e.Code = strings.Clone(typ.Str)
	}
	if e.Message == "" {
		e.Message = "upstream " + string(d.p) + " stream failed"
		if e.Code != "" {
			e.Message += " with " + e.Code
		}
	}
	return e
}

// fail ends the stream with err.
func (d *streamDecoder) fail(out []codec.Event, err *codec.Error) []codec.Event {
	d.done = true
	return append(out, codec.Event{Type: codec.EventError, Err: err})
}

// quoteStart quotes the start of s for an error message.
func quoteStart(s string) string {
	const limit = 200
	if len(s) > limit {
		s = s[:limit] + "..."
	}
	return strconv.Quote(s)
}

// Close implements StreamDecoder.
func (d *streamDecoder) Close(out []codec.Event, cause error) []codec.Event {
	if d.done {
		return out
	}
	d.done = true
	return append(out, codec.Event{Type: codec.EventError, Err: wire.Truncated(d.p, cause)})
}
