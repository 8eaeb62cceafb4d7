package codec

import (
	"github.com/llmbridge/llmbridge/mapping"
)

// EventType is the kind of a canonical stream event.
type EventType uint8

// Canonical stream event types. A decoded stream is always well formed:
//
//	EventStart
//	( EventPartStart ( EventPartDelta | EventCitation )* EventPartStop | EventUsage )*
//	EventStop? EventUsage*
//	( EventEnd | EventError )
//
// Parts are numbered from 0 in the order they start and never interleave:
// a decoder closes the open part before it starts the next one. EventUsage
// may come at any point and always carries the complete usage known so far
// (it replaces, not adds to, earlier values). EventDropped may come at any
// point after EventStart, inside a part too, and changes nothing in the
// sequence. Exactly one of EventEnd (the upstream finished cleanly) and
// EventError (it failed, was cut short, or sent something invalid) ends
// every stream. Tool calls, reasoning with
// signatures and refusals are parts of this same sequence: a later part
// type, with its deltas carrying argument JSON, thinking text or refusal
// text.
const (
	// EventStart opens the response: ID, Model and Created when known, and
	// Usage when the upstream reports input usage up front (Anthropic).
	EventStart EventType = iota
	// EventPartStart opens content part Index of kind Part.
	EventPartStart
	// EventPartDelta appends Text to part Index.
	EventPartDelta
	// EventPartStop closes part Index.
	EventPartStop
	// EventUsage reports the cumulative usage so far in Usage.
	EventUsage
	// EventStop reports why generation ended: StopReason and, when known,
	// StopSequence.
	EventStop
	// EventEnd reports that the upstream stream completed cleanly.
	EventEnd
	// EventError ends the stream with Err: an in-stream error from the
	// upstream, a truncated stream, or an event that could not be decoded.
	EventError
	// EventCitation adds Citation to the open text part Index (Anthropic
	// citations_delta, Responses output_text.annotation.added). Its
	// offsets are bytes of the part's text as streamed so far and after;
	// End -1 cites the whole part. Encoders whose protocol cannot carry
	// citations in a stream ignore it.
	EventCitation
	// EventDropped reports upstream output that the decoder left out
	// because it is display only and no canonical part carries it (such as
	// an image a Gemini model made): Text names its kind, the upstream
	// protocol's own name for it. It changes nothing in the stream;
	// encoders ignore it, and the caller may log and count it.
	EventDropped
)

var eventTypeNames = [...]string{"start", "part_start", "part_delta", "part_stop", "usage", "stop", "end", "error", "citation", "dropped"}

// String returns the event type's name, for logs and tests.
func (t EventType) String() string {
	if int(t) < len(eventTypeNames) {
		return eventTypeNames[t]
	}
	return "unknown"
}

// Event is one canonical stream event. Strings may alias the upstream event
// being decoded: an Event is valid until the decoder's next call. Its
// one-byte fields come first, where they share a word: every event is
// built and copied whole.
type Event struct {
	// Type is the kind of event; it says which fields are set.
	Type EventType
	// Part is the kind of part an EventPartStart opens.
	Part PartType
	// Redacted marks a reasoning part that is Anthropic redacted_thinking
	// (EventPartStart of a PartReasoning); it has no deltas.
	Redacted bool
	// IsError marks a PartServerToolResult that reports a failed search
	// (EventPartStart).
	IsError bool
	// Origin is the family that issued Signature (EventPartStop).
	Origin Family
	// StopReason is why generation ended (EventStop).
	StopReason StopReason
	// Index is the content part a part event is about.
	Index int
	// Text is the text an EventPartDelta appends; for a tool call part it
	// is a fragment of the arguments' JSON text. On an EventDropped it
	// names the kind of output dropped.
	Text string
	// ToolCallID and ToolName identify the tool call an EventPartStart of
	// a PartToolCall opens; they are sent once, at the start.
	ToolCallID string
	// ToolName is the called tool's name (EventPartStart of a tool call).
	ToolName string
	// ItemID is a reasoning item's provider id (EventPartStart of a
	// PartReasoning), when known.
	ItemID string
	// Sources are the pages a PartServerToolResult found (its
	// EventPartStart; such a part has no deltas). IsError marks a failed
	// search, with the provider's error code in Text.
	Sources []Source
	// Citation is what an EventCitation adds.
	Citation Citation
	// Signature, on the EventPartStop of a PartReasoning, is the part's
	// opaque value (see Part.Signature), issued by family Origin. It comes
	// at the stop because every upstream sends it last (Anthropic
	// signature_delta, Responses output_item.done) or with the following
	// part (Gemini thoughtSignature).
	Signature string
	// ID is the response id (EventStart).
	ID string
	// Model is the model producing the response (EventStart).
	Model string
	// Created is the creation time in Unix seconds, or 0 (EventStart).
	Created int64
	// Usage is the cumulative usage (EventUsage, and EventStart when the
	// upstream reports input usage first).
	Usage Usage
	// StopSequence is the stop sequence that ended generation (EventStop).
	StopSequence string
	// StopDetails explains a refusal or filter stop (EventStop).
	StopDetails StopDetails
	// Err is the error that ends the stream (EventError).
	Err *Error
	// Latency is how long the upstream took (EventEnd), set by the caller
	// that measured it; Bedrock's encoders report it.
	Latency Latency
}

// StreamDecoder turns one protocol's upstream SSE events into canonical
// events. It is a state machine fed one SSE event at a time; it does no I/O
// and starts no goroutines.
type StreamDecoder interface {
	// Decode appends the canonical events for one upstream SSE event (its
	// event name, its data, and whether it was a bare JSON block without
	// data:) to out. Event strings may alias data.
	//
	// An error from the upstream inside the stream is an EventError, not a
	// returned error; after an EventError, Decode appends nothing more.
	Decode(out []Event, name, data []byte, bare bool) []Event
	// Close appends the events that end the stream when the upstream's body
	// has ended: EventEnd when the stream was complete, otherwise an
	// EventError saying it was truncated. cause, when not nil, is why the
	// body ended early (a broken connection); it makes the end an error
	// unless the stream had already completed.
	Close(out []Event, cause error) []Event
}

// StreamEncoder turns canonical events into one protocol's SSE bytes for
// the client. It keeps what the protocol needs to repeat or total up (ids,
// open blocks, usage, the stop reason) and nothing else.
type StreamEncoder interface {
	// Encode appends the client's SSE bytes for ev to dst; it may append
	// nothing when the protocol has no event for ev yet (a stop reason that
	// is reported with the final usage, say). After EventEnd or EventError
	// the stream is complete and Encode appends nothing more.
	Encode(dst []byte, ev *Event) []byte
}

// NewStreamDecoder returns a decoder for upstream streams of protocol p,
// or an error naming an unknown protocol.
func NewStreamDecoder(p Protocol) (StreamDecoder, error) {
	c, err := codecOf(p)
	if err != nil {
		return nil, err
	}
	return c.NewStreamDecoder(p), nil
}

// NewStreamEncoder returns an encoder for clients of protocol p, or an
// error naming an unknown protocol. req is the client's decoded request:
// encoders take the model to report when the upstream names none, and Chat
// takes StreamUsage (include_usage).
func NewStreamEncoder(p Protocol, req *Request) (StreamEncoder, error) {
	c, err := codecOf(p)
	if err != nil {
		return nil, err
	}
	return c.NewStreamEncoder(p, req), nil
}

// AppendResponseEvents appends the canonical stream of a complete response:
// what a streamed response with the same content would have produced. It
// lets a client that asked for a stream be answered in its streaming form
// when the upstream answered with one JSON body.
func AppendResponseEvents(out []Event, resp *Response) []Event {
	out = append(out, Event{Type: EventStart, ID: resp.ID, Model: resp.Model, Created: resp.Created})
	for i, p := range resp.Content {
		start := Event{Type: EventPartStart, Index: i, Part: p.Type, ToolCallID: p.ToolCallID, ToolName: p.ToolName,
			ItemID: p.ItemID, Redacted: p.Redacted}
		// A tool call's deltas are its arguments; other parts' their
		// text. A search result comes whole at its start.
		delta := p.TextValue()
		switch p.Type {
		case PartToolCall, PartServerToolCall:
			delta = p.ArgumentsValue()
		case PartServerToolResult:
			start.Sources, start.IsError, start.Text = p.Sources, p.IsError, p.TextValue()
			delta = ""
		}
		out = append(out, start)
		if delta != "" {
			out = append(out, Event{Type: EventPartDelta, Index: i, Text: delta})
		}
		for _, c := range p.Citations {
			out = append(out, Event{Type: EventCitation, Index: i, Citation: c})
		}
		out = append(out, Event{Type: EventPartStop, Index: i, Signature: p.Signature, Origin: p.Origin})
	}
	if resp.StopReason != mapping.StopNone {
		out = append(out, Event{Type: EventStop, StopReason: resp.StopReason, StopSequence: resp.StopSequence, StopDetails: resp.StopDetails})
	}
	if resp.Usage.Known {
		out = append(out, Event{Type: EventUsage, Usage: resp.Usage})
	}
	return append(out, Event{Type: EventEnd, Latency: resp.Latency})
}

// AppendStreamMetrics appends to dst, the text of the last event of a
// stream of protocol p without its closing brace, the members with which
// p reports usage u and latency lat there (Descriptor.MetricsHeaders);
// dst unchanged for a protocol without them.
func AppendStreamMetrics(dst []byte, p Protocol, u *Usage, lat *Latency) []byte {
	if d := p.Descriptor(); d != nil && d.metrics != nil {
		return d.metrics.AppendStreamMetrics(dst, p, u, lat)
	}
	return dst
}
