package gemini

import (
	"strings"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/jsonx"
	"github.com/llmbridge/llmbridge/codec/internal/wire"
	"github.com/llmbridge/llmbridge/mapping"
)

// streamEncoder encodes Gemini (and Vertex) streams for clients: one
// `data: <GenerateContentResponse>` chunk per text delta, separated by
// "\r\n\r\n" as Google does, one chunk per tool call with its complete
// functionCall, and a last chunk with the finishReason and the final
// usage. Text parts (refusals included: Gemini has no refusal slot) have
// nothing to open or close; a tool call's argument fragments are buffered
// until its PartStop, as Gemini sends every call whole.
//
// Reasoning deltas are thought chunks ({"text": ..., "thought": true}). A
// reasoning part's opaque value arrives on its PartStop and is held as a
// wrapped continuation token (appendToken) until the next part that
// is not reasoning, whose first chunk carries it as thoughtSignature, as
// appendResponse does. When a thought or another signature comes
// first, or the stream ends, it goes out on an empty text part of its own.
type streamEncoder struct {
	req *codec.Request
	// server hides hosted search parts and citations, which this
	// protocol cannot carry in a stream.
	server wire.ServerFilter
	id     string
	model  string
	// usage is the latest usage, repeated on every chunk as Gemini does.
	usage codec.Usage
	// stop is reported on the last chunk, with message (the stop's
	// explanation) as its finishMessage.
	stop    codec.StopReason
	message string
	began   bool
	done    bool
	// call is the tool call part being buffered, if inCall.
	inCall   bool
	callID   string
	callName string
	args     []byte
	// thinking reports that a reasoning part is open; redacted and itemID
	// are its PartStart's, kept for its signature.
	thinking bool
	redacted bool
	itemID   string
	// thought collects the open reasoning part's text, which the token of
	// an Anthropic signature carries (see appendToken).
	thought []byte
	// pending holds the continuation tokens (space-separated) waiting for
	// a part that is not a thought, or is empty;
	// tok is scratch space for the token.
	pending []byte
	tok     []byte
}

func newStreamEncoder(req *codec.Request) *streamEncoder {
	return &streamEncoder{req: req}
}

// Encode implements StreamEncoder.
func (e *streamEncoder) Encode(dst []byte, ev *codec.Event) []byte {
	if e.done {
		return dst
	}
	if e.server.Skip(ev) {
		return dst
	}
	switch ev.Type {
	case codec.EventStart:
		e.begin(ev.ID, ev.Model, ev.Usage)
	case codec.EventPartStart:
		switch ev.Part {
		case codec.PartToolCall:
			// Event strings are only valid during this call.
			e.inCall = true
			e.callID, e.callName = strings.Clone(ev.ToolCallID), strings.Clone(ev.ToolName)
			e.args = e.args[:0]
		case codec.PartReasoning:
			e.thinking, e.redacted, e.itemID, e.thought = true, ev.Redacted, "", e.thought[:0]
			if ev.ItemID != "" {
				e.itemID = strings.Clone(ev.ItemID)
			}
		}
	case codec.EventPartDelta:
		switch {
		case e.inCall:
			e.args = append(e.args, ev.Text...)
		case ev.Text == "":
		case e.thinking:
			e.thought = append(e.thought, ev.Text...)
			dst = e.appendThought(dst, ev.Text)
		default:
			dst = e.appendChunk(dst, ev.Text, false)
		}
	case codec.EventPartStop:
		switch {
		case e.inCall:
			e.inCall = false
			dst = e.appendCallChunk(dst)
		case e.thinking:
			e.thinking = false
			// The signature waits for the next part that is not a thought,
			// with any other signature since the last one (see
			// appendToken).
			e.pending, e.tok = appendToken(e.pending, ev.Signature, ev.Origin, e.redacted, e.itemID, jsonx.BytesToString(e.thought), e.tok)
		}
	case codec.EventUsage:
		e.usage = ev.Usage
	case codec.EventStop:
		e.stop = ev.StopReason
		e.message = strings.Clone(ev.StopDetails.Explanation)
	case codec.EventEnd:
		e.done = true
		dst = e.appendChunk(dst, "", true)
	case codec.EventError:
		dst = e.appendError(dst, ev.Err)
	}
	return dst
}

// appendError ends the stream with err.
func (e *streamEncoder) appendError(dst []byte, err *codec.Error) []byte {
	e.done = true
	if err == nil {
		err = codec.NewError(mapping.ErrBadGateway, "the upstream stream failed")
	}
	// google.golang.org/genai (and the JS and Python SDKs) surface a
	// data: chunk whose object has an "error" member as an APIError.
	dst = append(dst, "data: "...)
	dst = codec.AppendError(dst, codec.Gemini, err)
	return append(dst, "\r\n\r\n"...)
}

// begin fixes the response id and model for the whole stream.
func (e *streamEncoder) begin(id, model string, u codec.Usage) {
	if e.began {
		return
	}
	e.began = true
	if id == "" {
		// Gemini response ids carry no prefix.
		id = wire.NewID("")
	}
	if model == "" && e.req != nil {
		model = e.req.Model
	}
	// Event strings alias the upstream's event, which the next read
	// overwrites; every later chunk repeats these two.
	e.id, e.model = strings.Clone(id), strings.Clone(model)
	if u.Known {
		e.usage = u
	}
}

// appendChunk appends one chunk with text as its only part, carrying the
// pending signature if there is one; the last chunk (final) carries the
// finishReason (and finishMessage) and an empty text, as Gemini's own last
// chunk does, so that clients reading content.parts[0] find it.
func (e *streamEncoder) appendChunk(dst []byte, text string, final bool) []byte {
	e.begin("", "", codec.Usage{})
	dst = append(dst, `data: {"candidates":[{"content":{"role":"model","parts":[{"text":`...)
	dst = jsonx.AppendString(dst, text)
	dst = e.appendPending(dst)
	dst = append(dst, `}]}`...)
	if final {
		dst = append(dst, `,"finishReason":`...)
		dst = jsonx.AppendString(dst, mapping.GeminiFinishReason(e.stop))
		if e.message != "" {
			dst = append(dst, `,"finishMessage":`...)
			dst = jsonx.AppendString(dst, e.message)
		}
	}
	return e.appendChunkEnd(dst)
}

// appendThought appends one chunk with a thought part.
func (e *streamEncoder) appendThought(dst []byte, text string) []byte {
	e.begin("", "", codec.Usage{})
	dst = append(dst, `data: {"candidates":[{"content":{"role":"model","parts":[{"text":`...)
	dst = jsonx.AppendString(dst, text)
	dst = append(dst, `,"thought":true}]}`...)
	return e.appendChunkEnd(dst)
}

// appendPending appends the pending signature as a thoughtSignature field
// of the part being written, and clears it.
func (e *streamEncoder) appendPending(dst []byte) []byte {
	if len(e.pending) == 0 {
		return dst
	}
	dst = appendPendingField(dst, e.pending)
	e.pending = e.pending[:0]
	return dst
}

// appendCallChunk appends one chunk with the buffered tool call as a
// functionCall part; a call without argument fragments gets args {}.
// Arguments that are not a JSON object end the stream with an error, as
// they cannot be written as args.
func (e *streamEncoder) appendCallChunk(dst []byte) []byte {
	e.begin("", "", codec.Usage{})
	e.args = jsonx.Compact(e.args)
	p := codec.Part{Type: codec.PartToolCall, ToolCallID: e.callID, ToolName: e.callName, Arguments: jsonx.BytesToString(e.args)}
	start := len(dst)
	dst = append(dst, `data: {"candidates":[{"content":{"role":"model","parts":[`...)
	dst, err := appendFunctionCall(dst, &p, partAt{}, true)
	if err != nil {
		return e.appendError(dst[:start], codec.NewError(mapping.ErrBadGateway, "the upstream sent tool call arguments that are not a JSON object"))
	}
	dst = e.appendPending(dst[:len(dst)-1])
	dst = append(dst, `}]}`...)
	return e.appendChunkEnd(dst)
}

// appendChunkEnd closes a chunk's candidate and appends usage, model and
// response id.
func (e *streamEncoder) appendChunkEnd(dst []byte) []byte {
	dst = append(dst, `,"index":0}]`...)
	if e.usage.Known {
		dst = appendUsage(dst, &e.usage)
	}
	if e.model != "" {
		dst = append(dst, `,"modelVersion":`...)
		dst = jsonx.AppendString(dst, e.model)
	}
	dst = append(dst, `,"responseId":`...)
	dst = jsonx.AppendString(dst, e.id)
	return append(dst, "}\r\n\r\n"...)
}
