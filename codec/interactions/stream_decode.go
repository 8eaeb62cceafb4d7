package interactions

import (
	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/jsonx"
	"github.com/llmbridge/llmbridge/codec/internal/wire"
	"github.com/llmbridge/llmbridge/mapping"
	"github.com/tidwall/gjson"
)

// streamDecoder decodes upstream Interactions streams. Each step is one
// canonical part (a model_output step's text deltas one text part, a
// thought one reasoning part whose signature arrives in a
// thought_signature delta and is reported at its stop), parts are closed
// at step.stop, and interaction.completed reports the stop, the final
// usage and the end. The data: [DONE] after it is ignored. A stream
// that ends before interaction.completed (inside a step too) or with an
// error event is an error.
type streamDecoder struct {
	p codec.Protocol
	// index and text are the structure of the event being decoded and
	// the strings unescaped from it.
	index jsonx.Index
	text  jsonx.Arena
	// started and done report that EventStart and a terminal event were
	// emitted.
	started, done bool
	// step is the index of the open step, -1 when none is; kind is its
	// type, and part whether a canonical part of it is open.
	step int
	kind string
	part bool
	// next is the index of the next canonical part.
	next int
	// signature is the open thought's signature, kept in a buffer of the
	// decoder's (the event it came in is gone at the step's stop); args
	// whether any of the open call's arguments were emitted, and whole
	// whether they all came with its step.start (deltas of them are then
	// repeats).
	signature   []byte
	args, whole bool
	// calls reports that the stream holds function calls.
	calls bool
	// status is the last status reported.
	status string
}

func newStreamDecoder(p codec.Protocol) *streamDecoder {
	return &streamDecoder{p: p, step: -1}
}

// event is what the decoder reads of one event's top level.
type event struct {
	typ                                        string
	index                                      gjson.Result
	step, delta, interaction, err, status, use gjson.Result
}

// Decode implements StreamDecoder.
func (d *streamDecoder) Decode(out []codec.Event, _, data []byte, bare bool) []codec.Event {
	if d.done {
		return out
	}
	s := jsonx.BytesToString(data)
	if s == "[DONE]" {
		return out
	}
	d.text.Reset()
	if bare || !d.text.IndexEvent(s, &d.index) || !jsonx.IsObject(s) {
		return d.fail(out, wire.InvalidStream(d.p, "an event is not a JSON object"))
	}
	var ev event
	for k, member := range jsonx.Members(s, &d.text) {
		switch k {
		case "event_type":
			ev.typ = member.Result().Str
		case "index":
			ev.index = member.Result()
		case "step", "content":
			ev.step = member.Result()
		case "delta":
			ev.delta = member.Result()
		case "interaction":
			ev.interaction = member.Result()
		case "error":
			ev.err = member.Result()
		case "status":
			ev.status = member.Result()
		case "usage":
			ev.use = member.Result()
		}
	}
	if ev.typ != "error" && ev.typ != "interaction.created" && !d.started {
		out = d.start(out, gjson.Result{})
	}
	switch ev.typ {
	case "interaction.created":
		if d.started {
			return out
		}
		return d.start(out, ev.interaction)
	case "step.start", "content.start":
		return d.stepStart(out, &ev)
	case "step.delta", "content.delta":
		return d.stepDelta(out, &ev)
	case "step.stop", "content.stop":
		if i, ok := wire.BlockIndex(ev.index); !ok || i != d.step {
			return d.fail(out, wire.InvalidStream(d.p, "step.stop of a step that is not open"))
		}
		return d.closeStep(out)
	case "interaction.status_update":
		d.status = ev.status.Str
		if ev.use.IsObject() {
			out = append(out, codec.Event{Type: codec.EventUsage, Usage: decodeUsage(ev.use)})
		}
		return out
	case "interaction.completed":
		return d.complete(out, &ev)
	case "error":
		if !ev.err.IsObject() {
			return d.fail(out, wire.InvalidStream(d.p, "an error event has no error object"))
		}
		return d.fail(out, errorEvent(d.p, ev.err))
	}
	return d.fail(out, wire.InvalidStream(d.p, `unknown event type "`+ev.typ+`"`))
}

// start emits EventStart for the interaction v (empty when the stream did
// not begin with interaction.created).
func (d *streamDecoder) start(out []codec.Event, v gjson.Result) []codec.Event {
	d.started = true
	return append(out, codec.Event{Type: codec.EventStart, ID: v.Get("id").Str, Model: v.Get("model").Str, Created: parseTime(v.Get("created").Str)})
}

// stepStart opens a step: a thought, a function call and a search step
// are a part at once; a model_output step's text opens one with its
// first delta.
func (d *streamDecoder) stepStart(out []codec.Event, ev *event) []codec.Event {
	i, ok := wire.BlockIndex(ev.index)
	if !ok || d.step >= 0 {
		return d.fail(out, wire.InvalidStream(d.p, "a step starts while another is open, or without an index"))
	}
	s := ev.step
	d.step, d.kind, d.signature, d.args, d.whole = i, stepKind(s.Get("type").Str), d.signature[:0], false, false
	switch d.kind {
	case "model_output":
		for _, c := range s.Get("content").Array() {
			if t := c.Get("text"); t.Type == gjson.String && t.Str != "" {
				out = d.text1(out, t.Str)
			}
		}
	case "thought":
		d.signature = append(d.signature, s.Get("signature").Str...)
		out = d.open(out, codec.Event{Type: codec.EventPartStart, Part: codec.PartReasoning})
		if t := joinSummary(s.Get("summary"), &d.text); t != "" {
			out = append(out, codec.Event{Type: codec.EventPartDelta, Index: d.next - 1, Text: t})
		}
	case "function_call":
		if sig := s.Get("signature").Str; sig != "" {
			out = d.open(out, codec.Event{Type: codec.EventPartStart, Part: codec.PartReasoning})
			out = d.closePart(out, sig)
		}
		d.calls = true
		out = d.open(out, codec.Event{Type: codec.EventPartStart, Part: codec.PartToolCall, ToolCallID: s.Get("id").Str, ToolName: s.Get("name").Str})
		if a := s.Get("arguments"); a.IsObject() && a.Raw != "{}" {
			out = append(out, codec.Event{Type: codec.EventPartDelta, Index: d.next - 1, Text: a.Raw})
			d.args, d.whole = true, true
		}
	case "google_search_call":
		out = d.open(out, codec.Event{Type: codec.EventPartStart, Part: codec.PartServerToolCall, ToolCallID: s.Get("id").Str, ToolName: "web_search"})
		if q := s.Get("arguments.queries.0"); q.Type == gjson.String {
			out = append(out, codec.Event{Type: codec.EventPartDelta, Index: d.next - 1, Text: wire.SearchArguments(q.Str)})
		}
	case "google_search_result":
		out = d.open(out, codec.Event{Type: codec.EventPartStart, Part: codec.PartServerToolResult, ToolCallID: s.Get("call_id").Str, IsError: s.Get("is_error").Bool()})
	default:
		return d.fail(out, wire.UntranslatedStream(d.p, "step type "+s.Get("type").Str+" cannot be translated"))
	}
	return out
}

// stepKind returns the kind of step a step.start's type names, as a
// string of the decoder's own (the event's strings are gone at the next
// event): a content.start's text is a model_output step; "" for a kind
// the decoder does not translate.
func stepKind(typ string) string {
	for _, k := range [...]string{"model_output", "thought", "function_call", "google_search_call", "google_search_result"} {
		if typ == k {
			return k
		}
	}
	if typ == "text" {
		return "model_output"
	}
	return ""
}

// stepDelta appends a delta to the open step's part. The delta's
// members are walked with the decoder's arena, so that a text delta with
// escapes costs no allocation.
func (d *streamDecoder) stepDelta(out []codec.Event, ev *event) []codec.Event {
	if i, ok := wire.BlockIndex(ev.index); !ok || i != d.step {
		return d.fail(out, wire.InvalidStream(d.p, "a delta of a step that is not open"))
	}
	var typ, text, content string
	for k, member := range jsonx.Members(ev.delta.Raw, &d.text) {
		switch k {
		case "type":
			typ = member.Result().Str
		case "text", "signature", "arguments":
			text = member.Result().Str
		case "content":
			content = member.Raw
		}
	}
	switch {
	case typ == "text" && d.kind == "model_output":
		return d.text1(out, text)
	case typ == "thought_summary" && d.kind == "thought":
		for k, member := range jsonx.Members(content, &d.text) {
			if k == "text" {
				if t := member.Result().Str; t != "" {
					out = append(out, codec.Event{Type: codec.EventPartDelta, Index: d.next - 1, Text: t})
				}
			}
		}
		return out
	case typ == "thought_signature" && d.kind == "thought":
		// The signature is reported at the part's stop; the event's text
		// is gone by then.
		d.signature = append(d.signature[:0], text...)
		return out
	case typ == "arguments_delta" && d.kind == "function_call":
		if text != "" && !d.whole {
			out = append(out, codec.Event{Type: codec.EventPartDelta, Index: d.next - 1, Text: text})
			d.args = true
		}
		return out
	case typ == "text_annotation_delta", typ == "google_search_call", typ == "google_search_result":
		return out
	case d.kind == "model_output" && (typ == "image" || typ == "audio" || typ == "video" || typ == "document"):
		// Media a model made is display only.
		return append(out, codec.Event{Type: codec.EventDropped, Text: typ})
	default:
		return d.fail(out, wire.InvalidStream(d.p, `a delta of type "`+typ+`" in a `+d.kind+" step"))
	}
}

// text1 appends text to the open step's text part, opening it.
func (d *streamDecoder) text1(out []codec.Event, text string) []codec.Event {
	if !d.part {
		out = d.open(out, codec.Event{Type: codec.EventPartStart, Part: codec.PartText})
	}
	if text == "" {
		return out
	}
	return append(out, codec.Event{Type: codec.EventPartDelta, Index: d.next - 1, Text: text})
}

// open starts a canonical part.
func (d *streamDecoder) open(out []codec.Event, ev codec.Event) []codec.Event {
	ev.Index = d.next
	d.next++
	d.part = true
	return append(out, ev)
}

// closePart stops the open part, with signature for a reasoning part.
func (d *streamDecoder) closePart(out []codec.Event, signature string) []codec.Event {
	d.part = false
	ev := codec.Event{Type: codec.EventPartStop, Index: d.next - 1}
	if signature != "" {
		ev.Signature, ev.Origin = signature, mapping.FamilyGemini
	}
	return append(out, ev)
}

// closeStep ends the open step and its part.
func (d *streamDecoder) closeStep(out []codec.Event) []codec.Event {
	if d.part {
		if d.kind == "function_call" && !d.args {
			out = append(out, codec.Event{Type: codec.EventPartDelta, Index: d.next - 1, Text: "{}"})
		}
		out = d.closePart(out, jsonx.BytesToString(d.signature))
	}
	d.step, d.kind = -1, ""
	return out
}

// complete ends the stream at interaction.completed: its status is the
// stop (or the error of a failed interaction) and its usage the final.
func (d *streamDecoder) complete(out []codec.Event, ev *event) []codec.Event {
	if d.step >= 0 {
		// A step whose step.stop is missing ends with the interaction (a
		// usage observer sees only some events).
		out = d.closeStep(out)
	}
	v := ev.interaction
	status := v.Get("status").Str
	if status == "" {
		status = d.status
	}
	reason, err := stopOf(d.p, status, d.calls, v.Get("errors"))
	if err != nil {
		return d.fail(out, err)
	}
	out = append(out, codec.Event{Type: codec.EventStop, StopReason: reason})
	if u := v.Get("usage"); u.IsObject() {
		out = append(out, codec.Event{Type: codec.EventUsage, Usage: decodeUsage(u)})
	}
	d.done = true
	return append(out, codec.Event{Type: codec.EventEnd})
}

// fail ends the stream with err.
func (d *streamDecoder) fail(out []codec.Event, err *codec.Error) []codec.Event {
	d.done = true
	return append(out, codec.Event{Type: codec.EventError, Err: err})
}

// Close implements StreamDecoder: a stream that ends before
// interaction.completed was cut short.
func (d *streamDecoder) Close(out []codec.Event, cause error) []codec.Event {
	if d.done {
		return out
	}
	d.done = true
	return append(out, codec.Event{Type: codec.EventError, Err: wire.Truncated(d.p, cause)})
}
