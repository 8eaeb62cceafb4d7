package codec

import (
	"strconv"
	"strings"
	"time"

	"github.com/llmbridge/llmbridge/codec/internal/jsonx"
	"github.com/llmbridge/llmbridge/mapping"
	"github.com/tidwall/gjson"
)

// This file is the OpenAI Chat Completions stream codec: upstream
// chat.completion.chunk streams to canonical events, and canonical events to
// the chunk stream a Chat client expects.
//
// The wire: `data: <chunk>` events with no event names,
// ended by `data: [DONE]`; a mid-stream error is `data: {"error":{...}}`.

// chatArenaSize is the arena the decoder unescapes chunk strings into: it
// fits the escaped strings of any ordinary chunk, so that a stream allocates
// it once.
const chatArenaSize = 2 << 10

// chatStreamDecoder decodes upstream Chat streams. It is a state machine fed
// one SSE event at a time.
type chatStreamDecoder struct {
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
	openKind PartType
	// next is the index of the next part to start.
	next int
	// callIndex and callID are the Chat tool_calls index and the id of the
	// open tool call part; sawCalls: a tool call part was started.
	callIndex int
	callID    string
	sawCalls  bool
	// sawRefusal: a refusal part was started; a natural end is then a
	// refusal (see chatRefusalStop).
	sawRefusal bool
	// usage is the usage last reported, so that a repeated one is not
	// reported again.
	usage Usage
	// content follows the message's content text, and partBase is where
	// the open text part starts in it, for the offsets of annotations.
	content  textOffsets
	partBase int
	// audioID is the id of the audio answer, kept until the answer ends
	// (chatAudioState); audioDropped: its sound was reported dropped.
	audioID      string
	audioDropped bool
	// chunkID is the raw id of the chunk being decoded (every chunk
	// repeats the response id), valid during Decode.
	chunkID string
}

// chatLegacyIndex is the callIndex of an open legacy function_call part,
// which has no tool_calls index.
const chatLegacyIndex = -1

func newChatStreamDecoder() *chatStreamDecoder {
	return &chatStreamDecoder{text: jsonx.NewArena(chatArenaSize), open: -1}
}

// chatChunk is the top level of one chunk, as raw JSON values ("" when
// absent), collected before it is interpreted so that the result never
// depends on key order.
type chatChunk struct {
	id, model, created, choices, usage, err string
}

// Decode implements StreamDecoder.
func (d *chatStreamDecoder) Decode(out []Event, name, data []byte, bare bool) []Event {
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
			return d.fail(out, chatEventError(s))
		}
		return out
	case chatIsDone(s):
		return d.end(out)
	}
	if !d.text.IndexEvent(s, &d.index) {
		return d.fail(out, badUpstream(OpenAIChat, "stream event is not valid JSON"))
	}
	if !chatIsObject(s) {
		return d.fail(out, badUpstream(OpenAIChat, "stream event is not a JSON object"))
	}
	var c chatChunk
	jsonx.EachRawMember(s, &d.text, func(key, raw string) bool {
		switch key {
		case "id":
			c.id = raw
		case "model":
			c.model = raw
		case "created":
			c.created = raw
		case "choices":
			c.choices = raw
		case "usage":
			c.usage = raw
		case "error":
			c.err = raw
		}
		// object, system_fingerprint, service_tier and the obfuscation
		// padding say nothing a canonical event carries.
		return true
	})
	return d.chunk(out, &c)
}

// chunk turns one collected chunk into events: the start (first chunk),
// then the choice's delta and finish reason, then the usage.
func (d *chatStreamDecoder) chunk(out []Event, c *chatChunk) []Event {
	if !chatIsNull(c.err) {
		return d.fail(out, chatUpstreamError(gjson.Parse(c.err)))
	}
	usage := !chatIsNull(c.usage)
	// Every chunk has choices, [] in the include_usage chunk; some
	// compatible servers leave them out of a usage-only chunk.
	if !chatIsArray(c.choices) && (!chatIsNull(c.choices) || !usage) {
		return d.fail(out, badUpstream(OpenAIChat, "stream event is not a chat.completion.chunk: choices is missing or not an array"))
	}
	if !d.started {
		start := Event{Type: EventStart}
		if err := chatUpstreamString(d.result(c.id), "id", &start.ID); err != nil {
			return d.fail(out, err)
		}
		if err := chatUpstreamString(d.result(c.model), "model", &start.Model); err != nil {
			return d.fail(out, err)
		}
		if err := chatUpstreamInt(d.result(c.created), "created", &start.Created); err != nil {
			return d.fail(out, err)
		}
		d.started = true
		out = append(out, start)
	}
	var err *Error
	d.chunkID = c.id
	jsonx.EachRawMember(c.choices, &d.text, func(_, choice string) bool {
		out, err = d.choice(out, choice)
		return err == nil
	})
	if err != nil {
		return d.fail(out, err)
	}
	if !usage {
		return out
	}
	var u Usage
	if err := decodeChatUsage(gjson.Parse(c.usage), &u); err != nil {
		return d.fail(out, err)
	}
	if u != d.usage {
		d.usage = u
		out = append(out, Event{Type: EventUsage, Usage: u})
	}
	return out
}

// result returns the value of the raw JSON value raw, with strings
// unescaped into the arena; a missing value is null.
func (d *chatStreamDecoder) result(raw string) gjson.Result {
	if raw == "" {
		return gjson.Result{}
	}
	return d.text.Result(raw)
}

// choice decodes one element of choices: its delta, then its finish reason
// (a chunk may carry the last text and the finish reason together).
func (d *chatStreamDecoder) choice(out []Event, choice string) ([]Event, *Error) {
	if !chatIsObject(choice) {
		return out, badUpstream(OpenAIChat, "choices[] is not an object")
	}
	var delta, finish string
	var err *Error
	jsonx.EachRawMember(choice, &d.text, func(key, raw string) bool {
		switch key {
		case "index":
			// llmbridge never asks for n > 1, so a second choice means
			// the upstream answered something that was not asked.
			if raw == "0" {
				break
			}
			if v := gjson.Parse(raw); v.Type != gjson.Number || v.Num != 0 {
				err = badUpstream(OpenAIChat, "only choice 0 can be translated, got index "+raw)
			}
		case "delta":
			delta = raw
		case "finish_reason":
			finish = raw
		}
		// logprobs are never asked for (the request codec rejects them).
		return err == nil
	})
	if err != nil {
		return out, err
	}
	switch {
	case chatIsNull(delta):
	case !chatIsObject(delta):
		return out, badUpstream(OpenAIChat, "choices[0].delta is not an object")
	default:
		if out, err = d.delta(out, delta); err != nil {
			return out, err
		}
	}
	if chatIsNull(finish) {
		return out, nil
	}
	reason := d.result(finish)
	if reason.Type != gjson.String {
		return out, badUpstream(OpenAIChat, "choices[0].finish_reason is not a string")
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
	stop = chatRefusalStop(stop, d.sawRefusal)
	return append(out, Event{Type: EventStop, StopReason: stop}), nil
}

// toolCalls decodes delta.tool_calls: fragments {index, id, type,
// function:{name, arguments}}. The first fragment of a call (a new index,
// or a new id at the open index, as servers that send each call whole at
// index 0 do) starts a tool call part with its id and name; argument
// fragments become deltas, empty ones nothing. Chat sends calls one after
// another, so a fragment of a call that is no longer open is an error.
func (d *chatStreamDecoder) toolCalls(out []Event, raw string) ([]Event, *Error) {
	switch {
	case chatIsNull(raw):
		return out, nil
	case !chatIsArray(raw):
		return out, badUpstream(OpenAIChat, "choices[0].delta.tool_calls is not an array")
	}
	var err *Error
	k := 0
	jsonx.EachRawMember(raw, &d.text, func(_, call string) bool {
		out, err = d.toolCall(out, indexPath("choices[0].delta.tool_calls", k), call)
		k++
		return err == nil
	})
	return out, err
}

// toolCall decodes one tool call fragment at path.
func (d *chatStreamDecoder) toolCall(out []Event, path, raw string) ([]Event, *Error) {
	if !chatIsObject(raw) {
		return out, badUpstream(OpenAIChat, path+" is not an object")
	}
	if d.stopped {
		return out, badUpstream(OpenAIChat, path+" after finish_reason")
	}
	var index, id, typ, name, args gjson.Result
	jsonx.EachRawMember(raw, &d.text, func(key, v string) bool {
		switch key {
		case "index":
			index = d.result(v)
		case "id":
			id = d.result(v)
		case "type":
			typ = d.result(v)
		case "function":
			jsonx.EachRawMember(v, &d.text, func(key, v string) bool {
				switch key {
				case "name":
					name = d.result(v)
				case "arguments":
					args = d.result(v)
				}
				return true
			})
		}
		return true
	})
	switch {
	case index.Type != gjson.Number:
		return out, badUpstream(OpenAIChat, path+".index is missing or not a number")
	case id.Type != gjson.Null && id.Type != gjson.String:
		return out, badUpstream(OpenAIChat, path+".id is not a string")
	case typ.Type != gjson.Null && typ.Type != gjson.String:
		return out, badUpstream(OpenAIChat, path+".type is not a string")
	case typ.Type == gjson.String && typ.Str != "function":
		return out, chatClientAction(path, typ.Str)
	case name.Type != gjson.Null && name.Type != gjson.String:
		return out, badUpstream(OpenAIChat, path+".function.name is not a string")
	case args.Type != gjson.Null && args.Type != gjson.String:
		return out, badUpstream(OpenAIChat, path+".function.arguments is not a string")
	}
	i := int(index.Int())
	open := d.open >= 0 && d.openKind == PartToolCall && d.callIndex == i
	if !open || (id.Str != "" && id.Str != d.callID) {
		if name.Str == "" {
			return out, badUpstream(OpenAIChat, path+" starts a tool call without a function name, or continues one that has ended")
		}
		out = d.closePart(out)
		d.open, d.openKind, d.callIndex = d.next, PartToolCall, i
		d.next++
		d.sawCalls = true
		d.callID = strings.Clone(id.Str)
		if d.callID == "" {
			// Some compatible servers give no id; a stable one stands in.
			d.callID = "call_" + strconv.Itoa(d.open)
		}
		out = append(out, Event{Type: EventPartStart, Index: d.open, Part: PartToolCall, ToolCallID: d.callID, ToolName: name.Str})
	}
	if args.Str == "" {
		return out, nil
	}
	return append(out, Event{Type: EventPartDelta, Index: d.open, Text: args.Str}), nil
}

// chatDelta holds the fields of choices[0].delta that produce output, as
// raw JSON values ("" when absent), collected first so that the events do
// not depend on key order.
type chatDelta struct {
	content, refusal, toolCalls, annotations string
	// legacy is the legacy function_call; audio the audio answer.
	legacy, audio string
	// reasoning is reasoning_content (DeepSeek and most compatible
	// servers); reasoningAlias is reasoning, vLLM's and OpenRouter's name
	// for the same text, which some servers send beside it.
	reasoning, reasoningAlias string
}

// delta decodes choices[0].delta: reasoning first (the model reasons before
// it answers), then content, refusal and tool calls.
func (d *chatStreamDecoder) delta(out []Event, raw string) ([]Event, *Error) {
	var f chatDelta
	var err *Error
	jsonx.EachRawMember(raw, &d.text, func(key, raw string) bool {
		switch key {
		case "content":
			f.content = raw
		case "refusal":
			f.refusal = raw
		case "tool_calls":
			f.toolCalls = raw
		case "reasoning_content":
			f.reasoning = raw
		case "reasoning":
			f.reasoningAlias = raw
		case "function_call":
			f.legacy = raw
		case "audio":
			f.audio = raw
		case "annotations":
			f.annotations = raw
		case "images":
			// Display only, as in complete answers.
			if !chatIsEmpty(raw) {
				out = append(out, Event{Type: EventDropped, Text: "images"})
			}
		}
		// role carries nothing (always "assistant"); reasoning_details
		// (OpenRouter) repeats reasoning in structured form; unknown fields
		// are ignored, never forwarded.
		return err == nil
	})
	if err != nil {
		return out, err
	}
	field := "reasoning_content"
	if chatIsNull(f.reasoning) || f.reasoning == `""` {
		f.reasoning, field = f.reasoningAlias, "reasoning"
	}
	if out, err = d.textDelta(out, PartReasoning, field, f.reasoning); err != nil {
		return out, err
	}
	if out, err = d.textDelta(out, PartText, "content", f.content); err != nil {
		return out, err
	}
	if out, err = d.textDelta(out, PartRefusal, "refusal", f.refusal); err != nil {
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
// expires_at}) by the rule of complete answers (decodeChatAudio): the
// transcript is text, the id is kept and sent as state when the answer
// ends (flushAudio), and the sound is reported dropped, once.
func (d *chatStreamDecoder) audio(out []Event, raw string) ([]Event, *Error) {
	switch {
	case chatIsNull(raw):
		return out, nil
	case !chatIsObject(raw):
		return out, badUpstream(OpenAIChat, "choices[0].delta.audio is not an object")
	}
	var id, transcript, data gjson.Result
	jsonx.EachRawMember(raw, &d.text, func(key, v string) bool {
		switch key {
		case "id":
			id = d.result(v)
		case "transcript":
			transcript = d.result(v)
		case "data":
			data = d.result(v)
		}
		return true
	})
	if id.Type == gjson.String && id.Str != "" {
		d.audioID = strings.Clone(id.Str)
	}
	if data.Type == gjson.String && data.Str != "" && !d.audioDropped {
		d.audioDropped = true
		out = append(out, Event{Type: EventDropped, Text: "audio"})
	}
	if transcript.Type == gjson.Null {
		return out, nil
	}
	return d.textDelta(out, PartText, "audio.transcript", transcript.Raw)
}

// flushAudio appends the state part that keeps the audio answer's id
// (chatAudioState), once the answer has ended.
func (d *chatStreamDecoder) flushAudio(out []Event) []Event {
	if d.audioID == "" {
		return out
	}
	out = d.closePart(out)
	state := chatAudioState(d.audioID)
	d.audioID = ""
	out = append(out, Event{Type: EventPartStart, Index: d.next, Part: PartReasoning, Redacted: true},
		Event{Type: EventPartStop, Index: d.next, Signature: state.Signature, Origin: state.Origin})
	d.next++
	return out
}

// legacyCall decodes delta.function_call fragments ({name, arguments}) as
// one tool call, as complete answers do (decodeChatLegacyCall): the first
// fragment, with the name, starts it; arguments become deltas.
func (d *chatStreamDecoder) legacyCall(out []Event, raw string) ([]Event, *Error) {
	switch {
	case chatIsNull(raw):
		return out, nil
	case !chatIsObject(raw):
		return out, badUpstream(OpenAIChat, "choices[0].delta.function_call is not an object")
	case d.stopped:
		return out, badUpstream(OpenAIChat, "choices[0].delta.function_call after finish_reason")
	}
	var name, args gjson.Result
	jsonx.EachRawMember(raw, &d.text, func(key, v string) bool {
		switch key {
		case "name":
			name = d.result(v)
		case "arguments":
			args = d.result(v)
		}
		return true
	})
	switch {
	case name.Type != gjson.Null && name.Type != gjson.String:
		return out, badUpstream(OpenAIChat, "choices[0].delta.function_call.name is not a string")
	case args.Type != gjson.Null && args.Type != gjson.String:
		return out, badUpstream(OpenAIChat, "choices[0].delta.function_call.arguments is not a string")
	}
	if d.open < 0 || d.openKind != PartToolCall || d.callIndex != chatLegacyIndex {
		if name.Str == "" {
			return out, badUpstream(OpenAIChat, "choices[0].delta.function_call starts a call without a name")
		}
		out = d.closePart(out)
		d.open, d.openKind, d.callIndex = d.next, PartToolCall, chatLegacyIndex
		d.next++
		d.sawCalls = true
		d.callID = chatLegacyCallID(d.result(d.chunkID).Str)
		out = append(out, Event{Type: EventPartStart, Index: d.open, Part: PartToolCall, ToolCallID: d.callID, ToolName: name.Str})
	}
	if args.Str == "" {
		return out, nil
	}
	return append(out, Event{Type: EventPartDelta, Index: d.open, Text: args.Str}), nil
}

// annotations appends a citation event for each url_citation annotation
// of a delta. Search models send them after the text they cite, in a
// chunk of their own, counting characters of the whole message content:
// each becomes byte offsets of the open text part. Annotations with no
// text part open to attach to (or of other kinds) are left out.
func (d *chatStreamDecoder) annotations(out []Event, raw string) []Event {
	if chatIsEmpty(raw) || !chatIsArray(raw) || d.open < 0 || d.openKind != PartText {
		return out
	}
	partLen := d.content.n - d.partBase
	jsonx.EachMember(gjson.Result{Type: gjson.JSON, Raw: raw}, &d.text, func(_, a gjson.Result) bool {
		c, start, end, ok := chatCitation(a)
		if ok {
			c.Start = max(0, min(d.content.byteOffset(start)-d.partBase, partLen))
			c.End = max(c.Start, min(d.content.byteOffset(end)-d.partBase, partLen))
			out = append(out, Event{Type: EventCitation, Index: d.open, Citation: c})
		}
		return true
	})
	return out
}

// textDelta appends the events of a reasoning, content or refusal delta: a
// part start when no part of that kind is open (closing another first),
// then the delta. Empty and null values produce nothing: they open the
// stream ("content":"" or "refusal":"" beside role).
func (d *chatStreamDecoder) textDelta(out []Event, kind PartType, field, raw string) ([]Event, *Error) {
	v := d.result(raw)
	switch {
	case v.Type == gjson.Null:
		return out, nil
	case v.Type != gjson.String:
		return out, badUpstream(OpenAIChat, "choices[0].delta."+field+" is not a string")
	case v.Str == "":
		return out, nil
	case d.stopped:
		return out, badUpstream(OpenAIChat, "choices[0].delta."+field+" after finish_reason")
	}
	if kind == PartRefusal {
		d.sawRefusal = true
	}
	if d.open < 0 || d.openKind != kind {
		out = d.closePart(out)
		d.open, d.openKind = d.next, kind
		d.next++
		out = append(out, Event{Type: EventPartStart, Index: d.open, Part: kind})
		d.partBase = d.content.n
	}
	if kind == PartText {
		d.content.add(v.Str)
	}
	return append(out, Event{Type: EventPartDelta, Index: d.open, Text: v.Str}), nil
}

// closePart appends the stop of the open part, if any.
func (d *chatStreamDecoder) closePart(out []Event) []Event {
	if d.open < 0 {
		return out
	}
	out = append(out, Event{Type: EventPartStop, Index: d.open})
	d.open = -1
	return out
}

// end handles [DONE]: the stream is complete, with or without a finish
// reason. A [DONE] before any chunk is no response at all.
func (d *chatStreamDecoder) end(out []Event) []Event {
	if !d.started {
		return d.fail(out, badUpstream(OpenAIChat, "stream ended with [DONE] before any chunk"))
	}
	out = d.closePart(out)
	out = d.flushAudio(out)
	d.done = true
	return append(out, Event{Type: EventEnd})
}

// decodeBare handles a bare JSON block: an error object is the upstream's
// error, anything else is not a Chat event.
func (d *chatStreamDecoder) decodeBare(out []Event, s string) []Event {
	if jsonx.Valid(s) {
		if e := gjson.Get(s, "error"); e.Exists() && e.Type != gjson.Null {
			return d.fail(out, chatUpstreamError(e))
		}
	}
	return d.fail(out, badUpstream(OpenAIChat, "stream holds a block that is not a data: event"))
}

// fail appends the terminal EventError.
func (d *chatStreamDecoder) fail(out []Event, err *Error) []Event {
	d.done = true
	return append(out, Event{Type: EventError, Err: err})
}

// Close implements StreamDecoder. Chat's terminal event is [DONE]; a body
// that ends without it was cut short, even after a finish reason.
func (d *chatStreamDecoder) Close(out []Event, cause error) []Event {
	if d.done {
		return out
	}
	return d.fail(out, truncated(OpenAIChat, cause))
}

// chatIsNull reports whether the raw value is null or absent.
func chatIsNull(raw string) bool { return raw == "" || raw == "null" }

// chatIsObject and chatIsArray report the kind of a raw value (from a
// validated document, trimmed of spaces by chatEachMember).
func chatIsObject(raw string) bool {
	i := jsonx.SkipSpace(raw, 0)
	return i < len(raw) && raw[i] == '{'
}

func chatIsArray(raw string) bool { return raw != "" && raw[0] == '[' }

// chatIsEmpty reports whether the raw value is null, absent or an empty
// array.
func chatIsEmpty(raw string) bool {
	if chatIsNull(raw) {
		return true
	}
	if !chatIsArray(raw) {
		return false
	}
	i := jsonx.SkipSpace(raw, 1)
	return i < len(raw) && raw[i] == ']'
}

// chatIsDone reports whether data is the [DONE] marker, tolerating
// surrounding spaces.
func chatIsDone(s string) bool {
	return strings.TrimSpace(s) == "[DONE]"
}

// chatEventError decodes the data of an event named "error": an error
// object, wrapped in {"error": ...} or not.
func chatEventError(s string) *Error {
	if !jsonx.Valid(s) {
		return badUpstream(OpenAIChat, "error event is not valid JSON")
	}
	v := gjson.Parse(s)
	if e := v.Get("error"); e.Exists() && e.Type != gjson.Null {
		v = e
	}
	return chatUpstreamError(v)
}

// chatUpstreamError converts an in-stream error object ({message, type,
// param, code}, or a bare string) to canonical form. The status is 500
// unless the code says otherwise: an HTTP status as code, or a code or type
// that names a kind. Strings are copied: the error outlives the event.
func chatUpstreamError(v gjson.Result) *Error {
	e := &Error{Status: 500, Kind: mapping.ErrAPI, Protocol: OpenAIChat}
	var typ string
	switch {
	case v.Type == gjson.String:
		e.Message = strings.Clone(v.Str)
	case v.IsObject():
		v.ForEach(func(key, value gjson.Result) bool {
			switch key.Str {
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
			return true
		})
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
		e.Message = "upstream " + string(OpenAIChat) + " stream reported an error without a message"
	}
	return e
}

// chatStreamEncoder encodes Chat streams for clients:
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
type chatStreamEncoder struct {
	req *Request
	// server hides hosted search parts, which this protocol cannot carry
	// in a stream. Citations go out as annotations (see cite).
	server serverFilter
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
	partKind  PartType
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
	usage Usage
	done  bool
	// content follows the content text sent, partBase is where the open
	// text part starts in it, and cites are the open text part's
	// citations (strings copied), sent as annotations when it stops.
	content  textOffsets
	partBase int
	cites    []Citation
}

func newChatStreamEncoder(req *Request) *chatStreamEncoder {
	if req == nil {
		req = &Request{}
	}
	return &chatStreamEncoder{req: req, partIndex: -1}
}

// Encode implements StreamEncoder.
func (e *chatStreamEncoder) Encode(dst []byte, ev *Event) []byte {
	if e.done {
		return dst
	}
	if ev.Type == EventCitation {
		e.cite(ev)
		return dst
	}
	if e.server.skip(ev) {
		return dst
	}
	switch ev.Type {
	case EventStart:
		if e.prefix == nil {
			e.begin(ev)
		}
		if ev.Usage.Known {
			e.usage = ev.Usage
		}
	case EventPartStart:
		e.partIndex, e.partKind = ev.Index, ev.Part
		dst = e.role(dst, ev.Part)
		switch ev.Part {
		case PartToolCall:
			dst = e.startCall(dst, ev)
		case PartReasoning:
			e.itemID = append(e.itemID[:0], ev.ItemID...)
			e.redacted = ev.Redacted
			e.thinking = e.thinking[:0]
		case PartText:
			e.partBase = e.content.n
		}
	case EventPartDelta:
		dst = e.role(dst, PartText)
		if ev.Text == "" {
			return dst
		}
		kind := PartText
		if ev.Index == e.partIndex {
			kind = e.partKind
		}
		switch kind {
		case PartToolCall:
			e.argsSent = true
			return e.arguments(dst, ev.Text)
		case PartRefusal:
			dst = append(dst, e.prefix...)
			dst = append(dst, `{"index":0,"delta":{"refusal":`...)
			e.sent = true
		case PartReasoning:
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
			e.content.add(ev.Text)
		}
		dst = jsonx.AppendString(dst, ev.Text)
		dst = append(dst, "},\"logprobs\":null,\"finish_reason\":null}]}\n\n"...)
	case EventPartStop:
		if ev.Index != e.partIndex {
			return dst
		}
		switch {
		case e.partKind == PartToolCall && !e.argsSent:
			// The upstream sent no arguments at all: Chat clients parse
			// the arguments string, so it becomes an empty object.
			e.argsSent = true
			dst = e.arguments(dst, "{}")
		case e.partKind == PartText && len(e.cites) > 0:
			dst = e.annotations(dst)
		case e.partKind == PartReasoning && ev.Signature != "":
			// The opaque value waits for the next tool call's id.
			p := Part{Origin: ev.Origin, Redacted: e.redacted, ItemID: jsonx.BytesToString(e.itemID), Signature: ev.Signature}
			e.pending = mapping.AppendIDEnvelope(e.pending, chatContinuation(&p, jsonx.BytesToString(e.thinking)))
		}
	case EventUsage:
		if ev.Usage.Known {
			e.usage = ev.Usage
		}
	case EventStop:
		if ev.StopReason == mapping.StopRefusal && !e.sent {
			return e.refusal(dst, ev)
		}
		dst = e.finish(e.annotations(e.role(dst, PartText)), ev.StopReason)
	case EventEnd:
		dst = e.finish(e.annotations(e.role(dst, PartText)), mapping.StopNone)
		if e.req.StreamUsage && e.usage.Known {
			dst = append(dst, e.prefix...)
			dst = append(dst, ']')
			dst = appendChatUsage(dst, &e.usage)
			dst = append(dst, "}\n\n"...)
		}
		dst = append(dst, "data: [DONE]\n\n"...)
		e.done = true
	case EventError:
		err := ev.Err
		if err == nil {
			err = &Error{Status: 502, Kind: mapping.ErrBadGateway, Message: "upstream stream failed"}
		}
		dst = e.fail(dst, err)
	}
	return dst
}

// cite keeps a citation of the open text part until the part stops, when
// its length (a whole-part citation's end) is known.
func (e *chatStreamEncoder) cite(ev *Event) {
	if ev.Index != e.partIndex || e.partKind != PartText {
		return
	}
	c := ev.Citation
	c.URL, c.Title, c.CitedText = strings.Clone(c.URL), strings.Clone(c.Title), ""
	e.cites = append(e.cites, c)
}

// annotations appends the kept citations as one chunk of url_citation
// annotations (as search models send them, after the text), with
// character indexes counted from the start of the message content.
func (e *chatStreamEncoder) annotations(dst []byte) []byte {
	if len(e.cites) == 0 {
		return dst
	}
	partLen := e.content.n - e.partBase
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
		dst = jsonx.AppendInt(dst, int64(e.content.charIndex(e.partBase+start)))
		dst = append(dst, `,"end_index":`...)
		dst = jsonx.AppendInt(dst, int64(e.content.charIndex(e.partBase+end)))
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
func (e *chatStreamEncoder) fail(dst []byte, err *Error) []byte {
	dst = append(dst, "data: "...)
	dst = AppendError(dst, OpenAIChat, err)
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
func (e *chatStreamEncoder) refusal(dst []byte, ev *Event) []byte {
	switch {
	case e.calls > 0:
		return e.fail(dst, refusalError(OpenAIChat, "the upstream refused after producing tool call output"))
	case ev.StopDetails.Explanation == "":
		return e.fail(dst, refusalError(OpenAIChat, "the upstream refused without any text or explanation"))
	}
	dst = e.role(dst, PartRefusal)
	dst = append(dst, e.prefix...)
	dst = append(dst, `{"index":0,"delta":{"refusal":`...)
	dst = jsonx.AppendString(dst, ev.StopDetails.Explanation)
	dst = append(dst, "},\"logprobs\":null,\"finish_reason\":null}]}\n\n"...)
	e.sent = true
	return e.finish(dst, ev.StopReason)
}

// begin builds the chunk prefix from the start event: the upstream's id and
// model when it gave them, else a new id and the requested model.
func (e *chatStreamEncoder) begin(ev *Event) {
	id, model, created := ev.ID, ev.Model, ev.Created
	if id == "" {
		id = newID("chatcmpl-")
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
func (e *chatStreamEncoder) role(dst []byte, first PartType) []byte {
	if e.roleSent {
		return dst
	}
	if e.prefix == nil {
		e.begin(&Event{})
	}
	e.roleSent = true
	dst = append(dst, e.prefix...)
	switch first {
	case PartRefusal:
		dst = append(dst, `{"index":0,"delta":{"role":"assistant","content":null,"refusal":""}`...)
	case PartToolCall, PartReasoning:
		dst = append(dst, `{"index":0,"delta":{"role":"assistant","content":null,"refusal":null}`...)
	default:
		dst = append(dst, `{"index":0,"delta":{"role":"assistant","content":"","refusal":null}`...)
	}
	return append(dst, ",\"logprobs\":null,\"finish_reason\":null}]}\n\n"...)
}

// finish appends the finish chunk once: an end without a stop reason still
// gets one, "stop", so that clients see a finished choice.
func (e *chatStreamEncoder) finish(dst []byte, s StopReason) []byte {
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
func (e *chatStreamEncoder) startCall(dst []byte, ev *Event) []byte {
	e.calls++
	e.argsSent = false
	id := ev.ToolCallID
	if id == "" {
		id = newID("call_")
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
func (e *chatStreamEncoder) arguments(dst []byte, text string) []byte {
	dst = append(dst, e.prefix...)
	dst = append(dst, `{"index":0,"delta":{"tool_calls":[{"index":`...)
	dst = jsonx.AppendInt(dst, int64(e.calls-1))
	dst = append(dst, `,"function":{"arguments":`...)
	dst = jsonx.AppendString(dst, text)
	return append(dst, "}}]},\"logprobs\":null,\"finish_reason\":null}]}\n\n"...)
}
