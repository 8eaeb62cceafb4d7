package gemini

import (
	"bytes"
	"math"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/jsonx"
	"github.com/llmbridge/llmbridge/codec/internal/wire"
	"github.com/llmbridge/llmbridge/mapping"
	"github.com/tidwall/gjson"
)

// streamDecoder decodes upstream Gemini and Vertex streams.
//
// A finishReason does not end the canonical stream at once: the stop is
// reported when the body ends (Close), which is also the only moment
// Gemini's stream can be known to be complete. Older Vertex models put
// finishReason STOP on every chunk, and a failure can still follow the
// finishing chunk; reporting the stop at Close keeps the text of such
// chunks in one part, and keeps their error, instead of having to reject
// content that arrives after a stop. Encoders lose nothing: the client's
// terminal event cannot be written before EventEnd anyway.
//
// A chunk is decoded in one pass: the parts lie five levels deep
// (candidates[0].content.parts[i].text), and walk (jsonx.Members, with the
// offset of each member in the event) lets the decoder descend into the
// values it needs and skip the others as it meets them, so every byte is
// scanned about once after validation; strings are unescaped into the
// decoder's jsonx.Arena.
type streamDecoder struct {
	// index is the structure of the event being decoded (jsonx.Arena.IndexEvent).
	index jsonx.Index
	p     codec.Protocol
	// text holds the strings unescaped from the event being decoded.
	text jsonx.Arena
	// started reports that EventStart was emitted.
	started bool
	// done reports that a terminal event was emitted.
	done bool
	// open reports that part next-1 is open: a text part, or a reasoning
	// part when thinking.
	open     bool
	thinking bool
	// next is the index of the next part to start.
	next int
	// finished reports that a finishReason (or a prompt blockReason) was
	// seen: the stream is complete once the body ends.
	finished bool
	// stop is the stop reason of the last finishReason seen.
	stop codec.StopReason
	// details explains a filter stop (the blocked prompt's or the
	// candidate's); its strings are copies, as they outlive their event.
	details codec.StopDetails
	// usage is the last usage emitted.
	usage codec.Usage
	// calls counts the function calls started, for synthesised ids.
	calls int
	// grounded reports that a groundingMetadata's searches were emitted.
	grounded bool
	// textParts counts the text parts started, and textBytes is the
	// length of the open one's text: grounding supports point into it.
	textParts, textBytes int
	// responseID is the stream's responseId, for synthesised call ids.
	responseID string
	// partial holds the arguments of a function call whose arguments are
	// being streamed (Vertex streamFunctionCallArguments); nil when none
	// is open. The call is part next-1.
	partial *argNode

	// err is the first error found in the event being decoded; the walk
	// stops there.
	err *codec.Error
	// hasCandidate reports that the event being decoded has a candidate.
	hasCandidate bool
}

func newStreamDecoder(p codec.Protocol) *streamDecoder {
	return &streamDecoder{p: p}
}

// walk calls fn for each member of the JSON object or array that
// starts at s[i], with the member's key (unescaped into a; none in arrays)
// and the offset of its value. fn returns len(s) to stop the walk; any
// other offset (such as the end of the value, which descending into it
// finds) goes on with the next member, which the walk finds itself.
// walk returns the offset just past the container. s must have
// passed jsonx.Valid.
func walk(s string, i int, a *jsonx.Arena, fn func(key gjson.Result, i int) int) int {
	if s[i] != '{' && s[i] != '[' {
		return len(s)
	}
	key := gjson.Result{Type: gjson.String}
	base := uintptr(unsafe.Pointer(unsafe.StringData(s)))
	end := i + 1 // past the last member, or the opening bracket
	for k, v := range jsonx.Members(s[i:], a) {
		key.Str = k
		j := int(uintptr(unsafe.Pointer(unsafe.StringData(v.Raw))) - base)
		if fn(key, j) >= len(s) {
			return len(s)
		}
		end = j + len(v.Raw)
	}
	// The closing bracket follows the last member.
	return min(jsonx.SkipSpace(s, end)+1, len(s))
}

// value returns the scalar (or skipped container) at s[i] and the offset
// just past it.
func (d *streamDecoder) value(s string, i int) (gjson.Result, int) {
	return d.text.ValueAt(s, i)
}

// bad records err for the event being decoded and returns len(s), which
// stops the walk.
func (d *streamDecoder) bad(s string, err *codec.Error) int {
	if d.err == nil {
		d.err = err
	}
	return len(s)
}

// Decode implements StreamDecoder.
func (d *streamDecoder) Decode(out []codec.Event, name, data []byte, bare bool) []codec.Event {
	if d.done {
		return out
	}
	if bare {
		return d.fail(out, d.bareError(data))
	}
	if len(name) != 0 && string(name) != "message" {
		// Gemini names no events; a named one is something Google added
		// since, and is not forwarded.
		return out
	}
	s := jsonx.BytesToString(data)
	// No string of the event can be longer than the event, so one buffer
	// of that size holds all of them: at most one allocation per event,
	// none once the arena has grown to the largest event.
	d.text.Reserve(len(data))
	d.text.Reset()
	if !d.text.IndexEvent(s, &d.index) {
		return d.fail(out, codec.BadUpstream(d.p, "stream event is not valid JSON"))
	}
	i := jsonx.SkipSpace(s, 0)
	if s[i] != '{' {
		return d.fail(out, codec.BadUpstream(d.p, "stream event is not a JSON object"))
	}
	d.err, d.hasCandidate = nil, false

	// EventStart comes first, but responseId and modelVersion follow the
	// candidates: its slot is reserved and filled in after the walk.
	mark := len(out)
	if !d.started {
		out = append(out, codec.Event{Type: codec.EventStart})
	}
	var id, model, created, feedback, errv gjson.Result
	known := false
	walk(s, i, &d.text, func(k gjson.Result, j int) int {
		var end int
		switch k.Str {
		case "candidates":
			known = true
			out, end = d.candidates(out, s, j)
		case "usageMetadata":
			known = true
			out, end = d.usageEvent(out, s, j)
		case "promptFeedback":
			known = true
			feedback, end = d.value(s, j)
		case "modelVersion", "responseId", "createTime":
			// Read for EventStart only: every chunk repeats them.
			known, end = true, j
			if d.started {
				break
			}
			switch k.Str {
			case "modelVersion":
				model, end = d.value(s, j)
			case "responseId":
				id, end = d.value(s, j)
			default:
				created, end = d.value(s, j)
			}
		case "error":
			errv, end = d.value(s, j)
		default:
			// Other fields (modelStatus, ...) carry nothing canonical.
			end = d.text.ValueEnd(s, j)
		}
		return end
	})
	// A chunk that cannot be decoded contributes nothing but the error.
	switch {
	case errv.Type != gjson.Null:
		return d.fail(out[:mark], d.upstreamError(errv, data))
	case d.err != nil:
		return d.fail(out[:mark], d.err)
	case !known:
		return d.fail(out[:mark], codec.BadUpstream(d.p, "stream event is not a GenerateContentResponse"))
	}
	if !d.started {
		if err := d.start(&out[mark], id, model, created); err != nil {
			return d.fail(out[:mark], err)
		}
		d.started = true
	}
	if !d.hasCandidate {
		if err := d.blockReason(feedback); err != nil {
			return d.fail(out[:mark], err)
		}
	}
	return out
}

// start fills in EventStart from the first chunk.
func (d *streamDecoder) start(ev *codec.Event, id, model, created gjson.Result) *codec.Error {
	var err *codec.Error
	if ev.ID, err = d.str(id, "responseId"); err != nil {
		return err
	}
	if ev.Model, err = d.str(model, "modelVersion"); err != nil {
		return err
	}
	t, err := d.str(created, "createTime")
	if err != nil || t == "" {
		return err
	}
	ct, perr := time.Parse(time.RFC3339Nano, t)
	if perr != nil {
		return codec.BadUpstream(d.p, "createTime is not an RFC 3339 timestamp")
	}
	ev.Created = ct.Unix()
	return nil
}

// candidates decodes the candidates array at s[i]; llmbridge asks for one
// candidate, so a second one is an error rather than text to merge.
func (d *streamDecoder) candidates(out []codec.Event, s string, i int) ([]codec.Event, int) {
	switch s[i] {
	case 'n':
		return out, d.text.ValueEnd(s, i)
	case '[':
	default:
		return out, d.bad(s, codec.BadUpstream(d.p, "candidates is not an array"))
	}
	end := walk(s, i, &d.text, func(_ gjson.Result, j int) int {
		if d.hasCandidate {
			return d.bad(s, codec.BadUpstream(d.p, "stream chunk has more than one candidate"))
		}
		d.hasCandidate = true
		var end int
		out, end = d.candidate(out, s, j)
		return end
	})
	return out, end
}

// candidate decodes candidates[0] at s[i]: its parts and its finishReason.
// Other fields (safetyRatings, citationMetadata, finishMessage,
// avgLogprobs, ...) carry nothing canonical. A candidate stopped by a
// filter may have an empty content ({}) or none.
func (d *streamDecoder) candidate(out []codec.Event, s string, i int) ([]codec.Event, int) {
	if s[i] != '{' {
		return out, d.bad(s, codec.BadUpstream(d.p, "candidates[0] is not an object"))
	}
	var reason, message gjson.Result
	end := walk(s, i, &d.text, func(k gjson.Result, j int) int {
		var end int
		switch k.Str {
		case "content":
			out, end = d.content(out, s, j)
		case "finishReason":
			reason, end = d.value(s, j)
		case "finishMessage":
			message, end = d.value(s, j)
		case "groundingMetadata":
			var v gjson.Result
			v, end = d.value(s, j)
			out = d.grounding(out, v)
		case "index":
			var v gjson.Result
			v, end = d.value(s, j)
			if v.Type != gjson.Null && (v.Type != gjson.Number || v.Num != 0) {
				end = d.bad(s, codec.BadUpstream(d.p, "candidate index is not 0, but only one candidate was asked for"))
			}
		default:
			end = d.text.ValueEnd(s, j)
		}
		return end
	})
	if d.err != nil {
		return out, end
	}
	r, err := d.str(reason, "finishReason")
	if err != nil {
		return out, d.bad(s, err)
	}
	m, err := d.str(message, "finishMessage")
	if err != nil {
		return out, d.bad(s, err)
	}
	if r != "" {
		d.finished = true
		d.stop = mapping.FromGeminiFinishReason(r)
		// Copied only for a filter stop, which ends a stream once: the
		// STOP that older Vertex models put on every chunk costs nothing.
		d.details = codec.StopDetails{}
		if d.stop == mapping.StopContentFilter {
			d.details = codec.StopDetails{Category: strings.Clone(r), Explanation: strings.Clone(m)}
		}
	}
	return out, end
}

// grounding emits the searches of a groundingMetadata (Gemini sends it
// once, with the last chunk) as search call and result parts, after what
// came before (see decodeGrounding). Its supports point into the
// answer's text, which has been sent: they become citations of the open
// text part when the answer is that one part (byte offsets clamped to what
// was sent); with the text in several parts (around tool calls, say),
// which part a segment means cannot be told, and they are left out.
func (d *streamDecoder) grounding(out []codec.Event, v gjson.Result) []codec.Event {
	if d.grounded || !v.IsObject() || d.partial != nil {
		return out
	}
	answer := []codec.Part{{Type: codec.PartText}}
	lead := decodeGrounding(v, answer, []int{0})
	lead = lead[:len(lead)-1] // the answer, with the supports' citations
	cites := answer[0].Citations
	if len(lead) == 0 && len(cites) == 0 {
		return out
	}
	d.grounded = true
	if d.open {
		if !d.thinking && d.textParts == 1 {
			for _, c := range cites {
				c.Start, c.End = min(max(c.Start, 0), d.textBytes), min(c.End, d.textBytes)
				if c.End > c.Start {
					out = append(out, codec.Event{Type: codec.EventCitation, Index: d.next - 1, Citation: c})
				}
			}
		}
		out = append(out, codec.Event{Type: codec.EventPartStop, Index: d.next - 1})
		d.open = false
	}
	for k := range lead {
		p := &lead[k]
		out = append(out, codec.Event{Type: codec.EventPartStart, Index: d.next, Part: p.Type, ToolCallID: p.ToolCallID, ToolName: p.ToolName, Sources: p.Sources})
		if p.Type == codec.PartServerToolCall {
			out = append(out, codec.Event{Type: codec.EventPartDelta, Index: d.next, Text: p.ArgumentsValue()})
		}
		out = append(out, codec.Event{Type: codec.EventPartStop, Index: d.next})
		d.next++
	}
	return out
}

// content decodes candidates[0].content at s[i].
func (d *streamDecoder) content(out []codec.Event, s string, i int) ([]codec.Event, int) {
	switch s[i] {
	case 'n':
		return out, d.text.ValueEnd(s, i)
	case '{':
	default:
		return out, d.bad(s, codec.BadUpstream(d.p, "candidates[0].content is not an object"))
	}
	end := walk(s, i, &d.text, func(k gjson.Result, j int) int {
		if k.Str != "parts" {
			return d.text.ValueEnd(s, j) // role
		}
		switch s[j] {
		case 'n':
			return d.text.ValueEnd(s, j)
		case '[':
		default:
			return d.bad(s, codec.BadUpstream(d.p, "candidates[0].content.parts is not an array"))
		}
		return walk(s, j, &d.text, func(_ gjson.Result, j int) int {
			var end int
			out, end = d.part(out, s, j)
			return end
		})
	})
	return out, end
}

// part appends the events of the part at s[i]: its text, as a delta of the
// open text part (started if none is open), a thought (thought: true) as a
// delta of the open reasoning part, or its functionCall (see
// functionCall). Empty text carries nothing (Gemini ends streams with
// {"text": ""}) but, at times, a thoughtSignature (see signature). A part
// whose data is of another kind (inlineData, executableCode, ...) never
// fails the stream: see untranslated.
func (d *streamDecoder) part(out []codec.Event, s string, i int) ([]codec.Event, int) {
	if s[i] != '{' {
		return out, d.bad(s, codec.BadUpstream(d.p, "candidates[0].content.parts has an element that is not an object"))
	}
	if text, ok := d.plainText(s[i:]); ok {
		// Most parts: a piece of the answer and nothing else.
		if text == "" {
			return out, i
		}
		if d.partial != nil {
			return out, d.bad(s, codec.BadUpstream(d.p, "stream holds text inside a function call whose arguments are still streaming"))
		}
		return d.delta(out, false, text), i
	}
	var text, other string
	var call, sig gjson.Result
	hasText, thought := false, false
	end := walk(s, i, &d.text, func(k gjson.Result, j int) int {
		var v gjson.Result
		var end int
		switch k.Str {
		case "text":
			hasText = true
			v, end = d.value(s, j)
			switch v.Type {
			case gjson.String:
				text = v.Str
			case gjson.Null:
			default:
				end = d.bad(s, codec.BadUpstream(d.p, "part text is not a string"))
			}
		case "thought":
			v, end = d.value(s, j)
			thought = v.Type == gjson.True
		case "functionCall":
			call, end = d.value(s, j)
		case "thoughtSignature":
			sig, end = d.value(s, j)
		case "partMetadata":
			end = d.text.ValueEnd(s, j)
		default:
			if other == "" {
				other = k.Str
			}
			end = d.text.ValueEnd(s, j)
		}
		return end
	})
	if d.err != nil {
		return out, end
	}
	if other != "" && !hasText && call.Type == gjson.Null {
		if out = d.untranslated(out, s, s[i:end], other, sig.Type != gjson.Null); d.err != nil {
			return out, len(s)
		}
		return out, end
	}
	signature, err := d.str(sig, "part thoughtSignature")
	switch {
	case err != nil:
		return out, d.bad(s, err)
	case signature != "" && d.partial != nil:
		return out, d.bad(s, codec.BadUpstream(d.p, "stream holds a thoughtSignature inside a function call whose arguments are still streaming"))
	case thought && call.Type == gjson.Null:
		if text != "" {
			out = d.delta(out, true, text)
		}
		if signature != "" {
			out = d.signature(out, signature)
		}
		return out, end
	case signature != "":
		out = d.signature(out, signature)
	}
	if call.Type != gjson.Null {
		return d.functionCall(out, s, call), end
	}
	if text == "" {
		return out, end
	}
	if d.partial != nil {
		return out, d.bad(s, codec.BadUpstream(d.p, "stream holds text inside a function call whose arguments are still streaming"))
	}
	return d.delta(out, false, text), end
}

// untranslated appends the events of a part of kind whose data llmbridge
// does not translate, raw as the upstream sent it: the same rule as for
// complete responses (keepsPart). State is a redacted reasoning part
// of its own whose opaque value is raw (opaquePart); display is an
// EventDropped naming kind. Either way the stream goes on.
func (d *streamDecoder) untranslated(out []codec.Event, s, raw, kind string, signed bool) []codec.Event {
	if !keepsPart(kind, signed) {
		return append(out, codec.Event{Type: codec.EventDropped, Text: kind})
	}
	if d.partial != nil {
		d.bad(s, codec.BadUpstream(d.p, "stream holds a part of kind "+strconv.Quote(kind)+" inside a function call whose arguments are still streaming"))
		return out
	}
	if d.open {
		out = append(out, codec.Event{Type: codec.EventPartStop, Index: d.next - 1})
		d.open, d.thinking = false, false
	}
	out = append(out, codec.Event{Type: codec.EventPartStart, Index: d.next, Part: codec.PartReasoning, Redacted: true},
		codec.Event{Type: codec.EventPartStop, Index: d.next, Signature: raw, Origin: mapping.FamilyGemini})
	d.next++
	return out
}

// plainText reports whether the part at the start of raw is {"text":
// "..."} alone, and returns its text: the general walk of part, with its
// closure and the checks of the other members, is then not needed.
func (d *streamDecoder) plainText(raw string) (string, bool) {
	var text jsonx.Value
	for key, value := range jsonx.Members(raw, &d.text) {
		if text.Raw != "" || key != "text" || value.Raw[0] != '"' {
			return "", false
		}
		text = value
	}
	if text.Raw == "" {
		return "", false
	}
	return text.Result().Str, true
}

// delta appends text to the open part when it is of the right kind
// (reasoning when thinking), else closes the open part and starts one.
func (d *streamDecoder) delta(out []codec.Event, thinking bool, text string) []codec.Event {
	if d.open && d.thinking != thinking {
		out = append(out, codec.Event{Type: codec.EventPartStop, Index: d.next - 1})
		d.open = false
	}
	if !d.open {
		kind := codec.PartText
		if thinking {
			kind = codec.PartReasoning
		} else {
			d.textParts++
			d.textBytes = 0
		}
		out = append(out, codec.Event{Type: codec.EventPartStart, Index: d.next, Part: kind})
		d.open, d.thinking = true, thinking
		d.next++
	}
	if !thinking {
		d.textBytes += len(text)
	}
	return append(out, codec.Event{Type: codec.EventPartDelta, Index: d.next - 1, Text: text})
}

// signature appends the events of a thoughtSignature: it closes the open
// reasoning part, the thoughts it signs; otherwise it closes whatever is
// open and is an empty reasoning part of its own. The part that carried it
// follows.
func (d *streamDecoder) signature(out []codec.Event, sig string) []codec.Event {
	if !d.open || !d.thinking {
		if d.open {
			out = append(out, codec.Event{Type: codec.EventPartStop, Index: d.next - 1})
		}
		out = append(out, codec.Event{Type: codec.EventPartStart, Index: d.next, Part: codec.PartReasoning})
		d.next++
	}
	d.open, d.thinking = false, false
	return append(out, codec.Event{Type: codec.EventPartStop, Index: d.next - 1, Signature: sig, Origin: mapping.FamilyGemini})
}

// usageEvent appends EventUsage when the usageMetadata at s[i] holds token
// counts that differ from the last ones reported. Vertex sends
// usageMetadata with only trafficType on early chunks: that is no usage,
// not zero tokens.
func (d *streamDecoder) usageEvent(out []codec.Event, s string, i int) ([]codec.Event, int) {
	switch s[i] {
	case 'n':
		return out, d.text.ValueEnd(s, i)
	case '{':
	default:
		return out, d.bad(s, codec.BadUpstream(d.p, "usageMetadata is not an object"))
	}
	var prompt, toolUsePrompt, cached, candidates, thoughts int64
	counted := false
	end := walk(s, i, &d.text, func(k gjson.Result, j int) int {
		var dst *int64
		switch k.Str {
		case "promptTokenCount":
			dst = &prompt
		case "toolUsePromptTokenCount":
			dst = &toolUsePrompt
		case "cachedContentTokenCount":
			dst = &cached
		case "candidatesTokenCount":
			dst = &candidates
		case "thoughtsTokenCount":
			dst = &thoughts
		default:
			return d.text.ValueEnd(s, j) // totalTokenCount, details, trafficType
		}
		if n, end, ok := count(s, j); ok {
			*dst, counted = n, true
			return end
		}
		n, end := d.value(s, j)
		switch {
		case n.Type == gjson.Null:
		case n.Type == gjson.Number && n.Num >= 0 && n.Num == math.Trunc(n.Num) && n.Num <= 1<<53:
			*dst = int64(n.Num)
			counted = true
		default:
			end = d.bad(s, codec.BadUpstream(d.p, "a usageMetadata token count is not a non-negative integer"))
		}
		return end
	})
	if d.err != nil || !counted {
		return out, end
	}
	u := mapping.FromGeminiUsage(prompt, toolUsePrompt, cached, candidates, thoughts)
	if u == d.usage {
		return out, end
	}
	d.usage = u
	return append(out, codec.Event{Type: codec.EventUsage, Usage: u}), end
}

// count reads the token count at s[i] when it is a plain decimal
// integer of at most 15 digits, which every real count is, without the
// float parsing of gjson; ok is false for anything else, which is read as
// a JSON number (up to 2^53).
func count(s string, i int) (n int64, end int, ok bool) {
	for end = i; end < len(s) && end-i <= 15 && s[end] >= '0' && s[end] <= '9'; end++ {
		n = n*10 + int64(s[end]-'0')
	}
	if end == i || end-i > 15 || (end < len(s) && (s[end] == '.' || s[end] == 'e' || s[end] == 'E')) {
		return 0, i, false
	}
	return n, end, true
}

// blockReason reads the promptFeedback of a chunk without candidates: a
// blockReason means the prompt was blocked and nothing will be generated.
func (d *streamDecoder) blockReason(v gjson.Result) *codec.Error {
	block, err := decodeBlockReason(d.p, v)
	if err == nil && block.Category != "" {
		d.finished = true
		d.stop = mapping.StopContentFilter
		d.details = codec.StopDetails{Category: strings.Clone(block.Category), Explanation: strings.Clone(block.Explanation)}
	}
	return err
}

// str reads an optional string field of a chunk; null is absent.
func (d *streamDecoder) str(v gjson.Result, name string) (string, *codec.Error) {
	switch v.Type {
	case gjson.Null:
		return "", nil
	case gjson.String:
		return v.Str, nil
	}
	return "", codec.BadUpstream(d.p, name+" is not a string")
}

// bareError decodes a bare JSON block, which Google writes for a failure
// after the stream started: {"error": {"code", "message", "status"}}.
func (d *streamDecoder) bareError(data []byte) *codec.Error {
	s := jsonx.BytesToString(data)
	if jsonx.Valid(s) {
		if e := gjson.Get(s, "error"); e.Type != gjson.Null {
			return d.upstreamError(e, data)
		}
	}
	return codec.BadUpstream(d.p, "stream holds a block that is neither a data: event nor an error")
}

// upstreamError converts an in-stream Google error. Its status is
// error.code (the HTTP status the error would have had), else the one its
// error.status implies; kind, message and code are read as from an error
// body. body is copied: errors outlive the event they came in.
func (d *streamDecoder) upstreamError(e gjson.Result, body []byte) *codec.Error {
	status := 0
	if code := e.Get("code"); code.Type == gjson.Number {
		status = int(code.Int())
	}
	if status < 400 || status > 599 {
		status = 500
		if k, ok := mapping.FromGoogleStatus(e.Get("status").Str); ok {
			status = mapping.StatusForKind(k)
		}
	}
	return codec.DecodeError(d.p, status, bytes.Clone(body))
}

// fail ends the stream with err.
func (d *streamDecoder) fail(out []codec.Event, err *codec.Error) []codec.Event {
	d.done = true
	return append(out, codec.Event{Type: codec.EventError, Err: err})
}

// Close implements StreamDecoder. A Gemini stream has no terminal event: it
// is complete when a finishReason (or a prompt block) was seen before the
// body ended, whether the body then ended cleanly or not.
func (d *streamDecoder) Close(out []codec.Event, cause error) []codec.Event {
	if d.done {
		return out
	}
	d.done = true
	if !d.finished {
		return append(out, codec.Event{Type: codec.EventError, Err: wire.Truncated(d.p, cause)})
	}
	if d.partial != nil {
		return append(out, codec.Event{Type: codec.EventError, Err: codec.BadUpstream(d.p, "stream ended inside a function call whose arguments were still streaming")})
	}
	if d.stop == mapping.StopEnd && d.calls > 0 {
		// Gemini ends a turn with function calls with STOP.
		d.stop = mapping.StopToolUse
	}
	if d.open {
		out = append(out, codec.Event{Type: codec.EventPartStop, Index: d.next - 1})
		d.open = false
	}
	return append(out, codec.Event{Type: codec.EventStop, StopReason: d.stop, StopDetails: d.details}, codec.Event{Type: codec.EventEnd})
}
