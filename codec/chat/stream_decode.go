package chat

import (
	"strconv"
	"strings"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/jsonx"
	"github.com/llmbridge/llmbridge/codec/internal/wire"
	"github.com/llmbridge/llmbridge/mapping"
	"github.com/tidwall/gjson"
)

// arenaSize is the arena the decoder unescapes chunk strings into: it
// fits the escaped strings of any ordinary chunk, so that a stream allocates
// it once.
const arenaSize = 2 << 10

// streamDecoder decodes upstream Chat streams. It is a state machine fed
// one SSE event at a time.
type streamDecoder struct {
	// index is the structure of the event being decoded (jsonx.Arena.IndexEvent).
	index jsonx.Index
	// text holds the unescaped strings of the event being decoded.
	text jsonx.Arena
	// started: EventStart was emitted (from the first chunk).
	started bool
	// stopped: a finish_reason arrived and EventStop was emitted.
	stopped bool
	// done: the terminal EventEnd or EventError was emitted.
	done bool
	// open is the index of the open part, or -1; openKind is its kind.
	open     int
	openKind codec.PartType
	// next is the index of the next part to start.
	next int
	// callIndex and callID are the Chat tool_calls index and the id of the
	// open tool call part; sawCalls: a tool call part was started.
	callIndex int
	callID    string
	sawCalls  bool
	// sawRefusal: a refusal part was started; a natural end is then a
	// refusal (see refusalStop).
	sawRefusal bool
	// usage is the usage last reported, so that a repeated one is not
	// reported again.
	usage codec.Usage
	// content follows the message's content text, and partBase is where
	// the open text part starts in it, for the offsets of annotations.
	content  wire.TextOffsets
	partBase int
	// audioID is the id of the audio answer, kept until the answer ends
	// (audioState); audioDropped: its sound was reported dropped.
	audioID      string
	audioDropped bool
	// chunkID is the raw id of the chunk being decoded (every chunk
	// repeats the response id), valid during Decode.
	chunkID string
}

// legacyIndex is the callIndex of an open legacy function_call part,
// which has no tool_calls index.
const legacyIndex = -1

func newStreamDecoder() *streamDecoder {
	return &streamDecoder{text: jsonx.NewArena(arenaSize), open: -1}
}

// chunk is the top level of one chunk, as raw JSON values ("" when
// absent), collected before it is interpreted so that the result never
// depends on key order.
type chunk struct {
	id, model, created, choices, usage, err string
}

// Decode implements StreamDecoder.
func (d *streamDecoder) Decode(out []codec.Event, name, data []byte, bare bool) []codec.Event {
	if d.done {
		return out
	}
	d.text.Reset()
	s := jsonx.BytesToString(data)
	switch {
	case bare:
		// Chat never writes bare JSON: such a block is an error body that
		// something on the way wrote into the stream, or garbage.
		return d.decodeBare(out, s)
	case len(name) > 0 && string(name) != "message":
		// Chat events have no names. OpenAI-compatible servers that name an
		// event "error" mean an error; other names are events this codec
		// does not know, which are ignored, never forwarded.
		if string(name) == "error" {
			return d.fail(out, eventError(s))
		}
		return out
	case isDone(s):
		return d.end(out)
	}
	if !d.text.IndexEvent(s, &d.index) {
		return d.fail(out, codec.BadUpstream(codec.OpenAIChat, "stream event is not valid JSON"))
	}
	if !isObject(s) {
		return d.fail(out, codec.BadUpstream(codec.OpenAIChat, "stream event is not a JSON object"))
	}
	var c chunk
	for key, value := range jsonx.Members(s, &d.text) {
		switch key {
		case "id":
			c.id = value.Raw
		case "model":
			c.model = value.Raw
		case "created":
			c.created = value.Raw
		case "choices":
			c.choices = value.Raw
		case "usage":
			c.usage = value.Raw
		case "error":
			c.err = value.Raw
		}
		// object, system_fingerprint, service_tier and the obfuscation
		// padding say nothing a canonical event carries.
	}
	return d.chunk(out, &c)
}

// chunk turns one collected chunk into events: the start (first chunk),
// then the choice's delta and finish reason, then the usage.
func (d *streamDecoder) chunk(out []codec.Event, c *chunk) []codec.Event {
	if !isNull(c.err) {
		return d.fail(out, upstreamError(gjson.Parse(c.err)))
	}
	usage := !isNull(c.usage)
	// Every chunk has choices, [] in the include_usage chunk; some
	// compatible servers leave them out of a usage-only chunk.
	if !isArray(c.choices) && (!isNull(c.choices) || !usage) {
		return d.fail(out, codec.BadUpstream(codec.OpenAIChat, "stream event is not a chat.completion.chunk: choices is missing or not an array"))
	}
	if !d.started && !usage && namesNothing(c.id) && namesNothing(c.model) && (c.created == "" || c.created == "0") &&
		!gjson.Parse(c.choices).Get("0").Exists() {
		// A chunk without choices, usage or id says nothing a client
		// reads: Azure OpenAI's first chunk carries only its prompt
		// filter results. The stream starts with the next, which names
		// the response.
		return out
	}
	if !d.started {
		start := codec.Event{Type: codec.EventStart}
		if err := upstreamString(d.result(c.id), "id", &start.ID); err != nil {
			return d.fail(out, err)
		}
		if err := upstreamString(d.result(c.model), "model", &start.Model); err != nil {
			return d.fail(out, err)
		}
		if err := upstreamInt(d.result(c.created), "created", &start.Created); err != nil {
			return d.fail(out, err)
		}
		d.started = true
		out = append(out, start)
	}
	var err *codec.Error
	d.chunkID = c.id
	// A usage-only chunk's choices may be null, which a walk would yield
	// itself: it holds no choice.
	if isArray(c.choices) {
		for _, choice := range jsonx.Members(c.choices, &d.text) {
			out, err = d.choice(out, choice.Raw)
			if err != nil {
				break
			}
		}
	}
	if err != nil {
		return d.fail(out, err)
	}
	if !usage {
		return out
	}
	var u codec.Usage
	if err := decodeUsage(gjson.Parse(c.usage), &u); err != nil {
		return d.fail(out, err)
	}
	if u != d.usage {
		d.usage = u
		out = append(out, codec.Event{Type: codec.EventUsage, Usage: u})
	}
	return out
}

// valueOf returns the value v of a walk, with strings unescaped into the
// walk's arena; a missing value (the zero Value) is null.
func valueOf(v jsonx.Value) gjson.Result {
	if v.Raw == "" {
		return gjson.Result{}
	}
	return v.Result()
}

// result returns the value of the raw JSON value raw, with strings
// unescaped into the arena; a missing value is null.
func (d *streamDecoder) result(raw string) gjson.Result {
	if raw == "" {
		return gjson.Result{}
	}
	return d.text.Result(raw)
}

// choice decodes one element of choices: its delta, then its finish reason
// (a chunk may carry the last text and the finish reason together).
func (d *streamDecoder) choice(out []codec.Event, choice string) ([]codec.Event, *codec.Error) {
	if !isObject(choice) {
		return out, codec.BadUpstream(codec.OpenAIChat, "choices[] is not an object")
	}
	var delta, finish string
	var err *codec.Error
	for key, value := range jsonx.Members(choice, &d.text) {
		switch key {
		case "index":
			// llmbridge never asks for n > 1, so a second choice means
			// the upstream answered something that was not asked.
			if value.Raw == "0" {
				break
			}
			if v := gjson.Parse(value.Raw); v.Type != gjson.Number || v.Num != 0 {
				err = codec.BadUpstream(codec.OpenAIChat, "only choice 0 can be translated, got index "+value.Raw)
			}
		case "delta":
			delta = value.Raw
		case "finish_reason":
			finish = value.Raw
		}
		// logprobs are never asked for (the request codec rejects them).
		if err != nil {
			break
		}
	}
	if err != nil {
		return out, err
	}
	switch {
	case isNull(delta):
	case !isObject(delta):
		return out, codec.BadUpstream(codec.OpenAIChat, "choices[0].delta is not an object")
	default:
		if out, err = d.delta(out, delta); err != nil {
			return out, err
		}
	}
	if isNull(finish) {
		return out, nil
	}
	reason := d.result(finish)
	if reason.Type != gjson.String {
		return out, codec.BadUpstream(codec.OpenAIChat, "choices[0].finish_reason is not a string")
	}
	// A repeated finish reason (some compatible servers send it again with
	// the usage) changes nothing; "" is no reason, as null.
	if reason.Str == "" || d.stopped {
		return out, nil
	}
	out = d.closePart(out)
	out = d.flushAudio(out)
	d.stopped = true
	stop := mapping.FromChatFinishReason(reason.Str)
	if d.sawCalls && stop == mapping.StopEnd {
		// Some compatible servers finish tool calls with "stop".
		stop = mapping.StopToolUse
	}
	stop = refusalStop(stop, d.sawRefusal)
	return append(out, codec.Event{Type: codec.EventStop, StopReason: stop}), nil
}

// toolCalls decodes delta.tool_calls: fragments {index, id, type,
// function:{name, arguments}}. The first fragment of a call (a new index,
// or a new id at the open index, as servers that send each call whole at
// index 0 do) starts a tool call part with its id and name; argument
// fragments become deltas, empty ones nothing. Chat sends calls one after
// another, so a fragment of a call that is no longer open is an error.
func (d *streamDecoder) toolCalls(out []codec.Event, raw string) ([]codec.Event, *codec.Error) {
	switch {
	case isNull(raw):
		return out, nil
	case !isArray(raw):
		return out, codec.BadUpstream(codec.OpenAIChat, "choices[0].delta.tool_calls is not an array")
	}
	var err *codec.Error
	k := 0
	for _, call := range jsonx.Members(raw, &d.text) {
		out, err = d.toolCall(out, wire.IndexPath("choices[0].delta.tool_calls", k), call.Raw)
		k++
		if err != nil {
			break
		}
	}
	return out, err
}

// toolCall decodes one tool call fragment at path.
func (d *streamDecoder) toolCall(out []codec.Event, path, raw string) ([]codec.Event, *codec.Error) {
	if !isObject(raw) {
		return out, codec.BadUpstream(codec.OpenAIChat, path+" is not an object")
	}
	if d.stopped {
		return out, codec.BadUpstream(codec.OpenAIChat, path+" after finish_reason")
	}
	var index, id, typ, name, args gjson.Result
	for key, v := range jsonx.Members(raw, &d.text) {
		switch key {
		case "index":
			index = d.result(v.Raw)
		case "id":
			id = d.result(v.Raw)
		case "type":
			typ = d.result(v.Raw)
		case "function":
			for key, v := range jsonx.Members(v.Raw, &d.text) {
				switch key {
				case "name":
					name = d.result(v.Raw)
				case "arguments":
					args = d.result(v.Raw)
				}
			}
		}
	}
	switch {
	case index.Type != gjson.Number:
		return out, codec.BadUpstream(codec.OpenAIChat, path+".index is missing or not a number")
	case id.Type != gjson.Null && id.Type != gjson.String:
		return out, codec.BadUpstream(codec.OpenAIChat, path+".id is not a string")
	case typ.Type != gjson.Null && typ.Type != gjson.String:
		return out, codec.BadUpstream(codec.OpenAIChat, path+".type is not a string")
	case typ.Type == gjson.String && typ.Str != "function":
		return out, clientAction(path, typ.Str)
	case name.Type != gjson.Null && name.Type != gjson.String:
		return out, codec.BadUpstream(codec.OpenAIChat, path+".function.name is not a string")
	case args.Type != gjson.Null && args.Type != gjson.String:
		return out, codec.BadUpstream(codec.OpenAIChat, path+".function.arguments is not a string")
	}
	i := int(index.Int())
	open := d.open >= 0 && d.openKind == codec.PartToolCall && d.callIndex == i
	if !open || (id.Str != "" && id.Str != d.callID) {
		if name.Str == "" {
			return out, codec.BadUpstream(codec.OpenAIChat, path+" starts a tool call without a function name, or continues one that has ended")
		}
		out = d.closePart(out)
		d.open, d.openKind, d.callIndex = d.next, codec.PartToolCall, i
		d.next++
		d.sawCalls = true
		d.callID = strings.Clone(id.Str)
		if d.callID == "" {
			// Some compatible servers give no id; a stable one stands in.
			d.callID = "call_" + strconv.Itoa(d.open)
		}
		out = append(out, codec.Event{Type: codec.EventPartStart, Index: d.open, Part: codec.PartToolCall, ToolCallID: d.callID, ToolName: name.Str})
	}
	if args.Str == "" {
		return out, nil
	}
	return append(out, codec.Event{Type: codec.EventPartDelta, Index: d.open, Text: args.Str}), nil
}

// delta holds the fields of choices[0].delta that produce output, as
// raw JSON values ("" when absent), collected first so that the events do
// not depend on key order.
type delta struct {
	toolCalls, annotations string
	// legacy is the legacy function_call; audio the audio answer.
	legacy, audio string
	// The texts are kept as the walk's values, which know whether their
	// literals hold escapes: reading them needs no search for a backslash.
	content, refusal jsonx.Value
	// reasoning is reasoning_content (DeepSeek and most compatible
	// servers); reasoningAlias is reasoning, vLLM's and OpenRouter's name
	// for the same text, which some servers send beside it.
	reasoning, reasoningAlias jsonx.Value
}

// delta decodes choices[0].delta: reasoning first (the model reasons before
// it answers), then content, refusal and tool calls.
func (d *streamDecoder) delta(out []codec.Event, raw string) ([]codec.Event, *codec.Error) {
	var f delta
	var err *codec.Error
	for key, value := range jsonx.Members(raw, &d.text) {
		switch key {
		case "content":
			f.content = value
		case "refusal":
			f.refusal = value
		case "tool_calls":
			f.toolCalls = value.Raw
		case "reasoning_content":
			f.reasoning = value
		case "reasoning":
			f.reasoningAlias = value
		case "function_call":
			f.legacy = value.Raw
		case "audio":
			f.audio = value.Raw
		case "annotations":
			f.annotations = value.Raw
		case "images":
			// Display only, as in complete answers.
			if !isEmpty(value.Raw) {
				out = append(out, codec.Event{Type: codec.EventDropped, Text: "images"})
			}
		}
		// role carries nothing (always "assistant"); reasoning_details
		// (OpenRouter) repeats reasoning in structured form; unknown fields
		// are ignored, never forwarded.
		if err != nil {
			break
		}
	}
	if err != nil {
		return out, err
	}
	field := "reasoning_content"
	if isNull(f.reasoning.Raw) || f.reasoning.Raw == `""` {
		f.reasoning, field = f.reasoningAlias, "reasoning"
	}
	if out, err = d.textDelta(out, codec.PartReasoning, field, valueOf(f.reasoning)); err != nil {
		return out, err
	}
	if out, err = d.textDelta(out, codec.PartText, "content", valueOf(f.content)); err != nil {
		return out, err
	}
	if out, err = d.textDelta(out, codec.PartRefusal, "refusal", valueOf(f.refusal)); err != nil {
		return out, err
	}
	out = d.annotations(out, f.annotations)
	if out, err = d.audio(out, f.audio); err != nil {
		return out, err
	}
	if out, err = d.legacyCall(out, f.legacy); err != nil {
		return out, err
	}
	return d.toolCalls(out, f.toolCalls)
}

// audio decodes delta.audio fragments ({id, transcript, data,
// expires_at}) by the rule of complete answers (decodeAudio): the
// transcript is text, the id is kept and sent as state when the answer
// ends (flushAudio), and the sound is reported dropped, once.
func (d *streamDecoder) audio(out []codec.Event, raw string) ([]codec.Event, *codec.Error) {
	switch {
	case isNull(raw):
		return out, nil
	case !isObject(raw):
		return out, codec.BadUpstream(codec.OpenAIChat, "choices[0].delta.audio is not an object")
	}
	var id, transcript, data gjson.Result
	for key, v := range jsonx.Members(raw, &d.text) {
		switch key {
		case "id":
			id = d.result(v.Raw)
		case "transcript":
			transcript = d.result(v.Raw)
		case "data":
			data = d.result(v.Raw)
		}
	}
	if id.Type == gjson.String && id.Str != "" {
		d.audioID = strings.Clone(id.Str)
	}
	if data.Type == gjson.String && data.Str != "" && !d.audioDropped {
		d.audioDropped = true
		out = append(out, codec.Event{Type: codec.EventDropped, Text: "audio"})
	}
	if transcript.Type == gjson.Null {
		return out, nil
	}
	return d.textDelta(out, codec.PartText, "audio.transcript", transcript)
}

// flushAudio appends the state part that keeps the audio answer's id
// (audioState), once the answer has ended.
func (d *streamDecoder) flushAudio(out []codec.Event) []codec.Event {
	if d.audioID == "" {
		return out
	}
	out = d.closePart(out)
	state := audioState(d.audioID)
	d.audioID = ""
	out = append(out, codec.Event{Type: codec.EventPartStart, Index: d.next, Part: codec.PartReasoning, Redacted: true},
		codec.Event{Type: codec.EventPartStop, Index: d.next, Signature: state.Signature, Origin: state.Origin})
	d.next++
	return out
}

// legacyCall decodes delta.function_call fragments ({name, arguments}) as
// one tool call, as complete answers do (decodeLegacyCall): the first
// fragment, with the name, starts it; arguments become deltas.
func (d *streamDecoder) legacyCall(out []codec.Event, raw string) ([]codec.Event, *codec.Error) {
	switch {
	case isNull(raw):
		return out, nil
	case !isObject(raw):
		return out, codec.BadUpstream(codec.OpenAIChat, "choices[0].delta.function_call is not an object")
	case d.stopped:
		return out, codec.BadUpstream(codec.OpenAIChat, "choices[0].delta.function_call after finish_reason")
	}
	var name, args gjson.Result
	for key, v := range jsonx.Members(raw, &d.text) {
		switch key {
		case "name":
			name = d.result(v.Raw)
		case "arguments":
			args = d.result(v.Raw)
		}
	}
	switch {
	case name.Type != gjson.Null && name.Type != gjson.String:
		return out, codec.BadUpstream(codec.OpenAIChat, "choices[0].delta.function_call.name is not a string")
	case args.Type != gjson.Null && args.Type != gjson.String:
		return out, codec.BadUpstream(codec.OpenAIChat, "choices[0].delta.function_call.arguments is not a string")
	}
	if d.open < 0 || d.openKind != codec.PartToolCall || d.callIndex != legacyIndex {
		if name.Str == "" {
			return out, codec.BadUpstream(codec.OpenAIChat, "choices[0].delta.function_call starts a call without a name")
		}
		out = d.closePart(out)
		d.open, d.openKind, d.callIndex = d.next, codec.PartToolCall, legacyIndex
		d.next++
		d.sawCalls = true
		d.callID = legacyCallID(d.result(d.chunkID).Str)
		out = append(out, codec.Event{Type: codec.EventPartStart, Index: d.open, Part: codec.PartToolCall, ToolCallID: d.callID, ToolName: name.Str})
	}
	if args.Str == "" {
		return out, nil
	}
	return append(out, codec.Event{Type: codec.EventPartDelta, Index: d.open, Text: args.Str}), nil
}

// annotations appends a citation event for each url_citation annotation
// of a delta. Search models send them after the text they cite, in a
// chunk of their own, counting characters of the whole message content:
// each becomes byte offsets of the open text part. Annotations with no
// text part open to attach to (or of other kinds) are left out.
func (d *streamDecoder) annotations(out []codec.Event, raw string) []codec.Event {
	if isEmpty(raw) || !isArray(raw) || d.open < 0 || d.openKind != codec.PartText {
		return out
	}
	partLen := d.content.N - d.partBase
	for _, member := range jsonx.Members(raw, &d.text) {
		a := member.Result()
		c, start, end, ok := wire.ChatCitation(a)
		if ok {
			c.Start = max(0, min(d.content.ByteOffset(start)-d.partBase, partLen))
			c.End = max(c.Start, min(d.content.ByteOffset(end)-d.partBase, partLen))
			out = append(out, codec.Event{Type: codec.EventCitation, Index: d.open, Citation: c})
		}
	}
	return out
}

// textDelta appends the events of a reasoning, content or refusal delta: a
// part start when no part of that kind is open (closing another first),
// then the delta. Empty and null values produce nothing: they open the
// stream ("content":"" or "refusal":"" beside role).
func (d *streamDecoder) textDelta(out []codec.Event, kind codec.PartType, field string, v gjson.Result) ([]codec.Event, *codec.Error) {
	switch {
	case v.Type == gjson.Null:
		return out, nil
	case v.Type != gjson.String:
		return out, codec.BadUpstream(codec.OpenAIChat, "choices[0].delta."+field+" is not a string")
	case v.Str == "":
		return out, nil
	case d.stopped:
		return out, codec.BadUpstream(codec.OpenAIChat, "choices[0].delta."+field+" after finish_reason")
	}
	if kind == codec.PartRefusal {
		d.sawRefusal = true
	}
	if d.open < 0 || d.openKind != kind {
		out = d.closePart(out)
		d.open, d.openKind = d.next, kind
		d.next++
		out = append(out, codec.Event{Type: codec.EventPartStart, Index: d.open, Part: kind})
		d.partBase = d.content.N
	}
	if kind == codec.PartText {
		d.content.Add(v.Str)
	}
	return append(out, codec.Event{Type: codec.EventPartDelta, Index: d.open, Text: v.Str}), nil
}

// closePart appends the stop of the open part, if any.
func (d *streamDecoder) closePart(out []codec.Event) []codec.Event {
	if d.open < 0 {
		return out
	}
	out = append(out, codec.Event{Type: codec.EventPartStop, Index: d.open})
	d.open = -1
	return out
}

// end handles [DONE]: the stream is complete, with or without a finish
// reason. A [DONE] before any chunk is no response at all.
func (d *streamDecoder) end(out []codec.Event) []codec.Event {
	if !d.started {
		return d.fail(out, codec.BadUpstream(codec.OpenAIChat, "stream ended with [DONE] before any chunk"))
	}
	out = d.closePart(out)
	out = d.flushAudio(out)
	d.done = true
	return append(out, codec.Event{Type: codec.EventEnd})
}

// decodeBare handles a bare JSON block: an error object is the upstream's
// error, anything else is not a Chat event.
func (d *streamDecoder) decodeBare(out []codec.Event, s string) []codec.Event {
	if jsonx.Valid(s) {
		if e := gjson.Get(s, "error"); e.Exists() && e.Type != gjson.Null {
			return d.fail(out, upstreamError(e))
		}
	}
	return d.fail(out, codec.BadUpstream(codec.OpenAIChat, "stream holds a block that is not a data: event"))
}

// fail appends the terminal EventError.
func (d *streamDecoder) fail(out []codec.Event, err *codec.Error) []codec.Event {
	d.done = true
	return append(out, codec.Event{Type: codec.EventError, Err: err})
}

// Close implements StreamDecoder. Chat's terminal event is [DONE]; a body
// that ends without it was cut short, even after a finish reason.
func (d *streamDecoder) Close(out []codec.Event, cause error) []codec.Event {
	if d.done {
		return out
	}
	return d.fail(out, wire.Truncated(codec.OpenAIChat, cause))
}

// isNull reports whether the raw value is null or absent.
func isNull(raw string) bool { return raw == "" || raw == "null" }

// isObject and isArray report the kind of a raw value (from a
// validated document, trimmed of spaces by the member walk): the first byte
// tells, where jsonx.IsObject would validate the value again.
func isObject(raw string) bool {
	i := jsonx.SkipSpace(raw, 0)
	return i < len(raw) && raw[i] == '{'
}

func isArray(raw string) bool { return raw != "" && raw[0] == '[' }

// isEmpty reports whether the raw value is null, absent or an empty
// array.
func isEmpty(raw string) bool {
	if isNull(raw) {
		return true
	}
	if !isArray(raw) {
		return false
	}
	i := jsonx.SkipSpace(raw, 1)
	return i < len(raw) && raw[i] == ']'
}

// isDone reports whether data is the [DONE] marker, tolerating
// surrounding spaces.
func isDone(s string) bool {
	return strings.TrimSpace(s) == "[DONE]"
}

// eventError decodes the data of an event named "error": an error
// object, wrapped in {"error": ...} or not.
func eventError(s string) *codec.Error {
	if !jsonx.Valid(s) {
		return codec.BadUpstream(codec.OpenAIChat, "error event is not valid JSON")
	}
	v := gjson.Parse(s)
	if e := v.Get("error"); e.Exists() && e.Type != gjson.Null {
		v = e
	}
	return upstreamError(v)
}

// upstreamError converts an in-stream error object ({message, type,
// param, code}, or a bare string) to canonical form. The status is 500
// unless the code says otherwise: an HTTP status as code, or a code or type
// that names a kind. Strings are copied: the error outlives the event.
func upstreamError(v gjson.Result) *codec.Error {
	e := &codec.Error{Status: 500, Kind: mapping.ErrAPI, Protocol: codec.OpenAIChat}
	var typ string
	switch {
	case v.Type == gjson.String:
		e.Message = strings.Clone(v.Str)
	case v.IsObject():
		for key, member := range jsonx.Members(v.Raw, nil) {
			value := member.Result()
			switch key {
			case "message":
				e.Message = strings.Clone(value.String())
			case "type":
				typ = value.String()
			case "param":
				if value.Type == gjson.String {
					e.Param = strings.Clone(value.Str)
				}
			case "code":
				if value.Type != gjson.Null {
					e.Code = strings.Clone(value.String())
				}
			}
		}
	}
	if status, err := strconv.Atoi(e.Code); err == nil && status >= 400 && status <= 599 {
		e.Status, e.Kind = status, mapping.KindForStatus(status)
	} else if k, ok := mapping.FromOpenAIErrorType(e.Code); ok {
		e.Kind = k
	} else if k, ok := mapping.FromOpenAIErrorType(typ); ok {
		e.Kind = k
	} else if typ == "service_unavailable_error" {
		// The type mapping.OpenAIErrorType writes for ErrOverloaded, which
		// mapping.FromOpenAIErrorType does not read back (yet).
		e.Kind = mapping.ErrOverloaded
	}
	if e.Kind != mapping.ErrAPI && e.Status == 500 {
		e.Status = mapping.StatusForKind(e.Kind)
	}
	if e.Message == "" {
		e.Message = "upstream " + string(codec.OpenAIChat) + " stream reported an error without a message"
	}
	return e
}

// namesNothing reports whether raw, a chunk member's raw value, is
// absent or the empty string.
func namesNothing(raw string) bool { return raw == "" || raw == `""` }
