// Package eventstream converts AWS event streams
// (application/vnd.amazon.eventstream, the framing of Amazon Bedrock's
// streaming responses) to Server-Sent Events and back, so that stream
// codecs that read and write SSE serve Bedrock's streams too.
//
// A message of the event stream and an SSE event correspond one to one:
// an event message's :event-type is the SSE event's name and its payload
// the event's data; an exception message becomes an event named
// "exception:" followed by its :exception-type, and an error message one
// named "error:" followed by its :error-code, with its :error-message as
// data.
//
// The binary framing (prelude, typed headers, CRCs) is read and written
// here, without allocating per message: a Reader accepts and refuses
// exactly the messages aws-sdk-go-v2's decoder does, and a Writer's
// messages are byte for byte what its encoder writes (the tests hold
// both to that library).
//
// Bedrock's InvokeModelWithResponseStream wraps each event of the model's
// own stream in a "chunk" event whose payload is {"bytes": base64 of the
// event's JSON}. A chunk Reader unwraps them (the SSE event is named by
// the JSON's "type" member, as the model's own SSE stream names it) and a
// chunk Writer wraps every SSE event that way.
package eventstream

// The names of the SSE events that stand for exception and error
// messages, before their type.
const (
	ExceptionPrefix = "exception:"
	ErrorPrefix     = "error:"
)

// ContentType is the media type of an AWS event stream.
const ContentType = "application/vnd.amazon.eventstream"

// chunkEvent is the :event-type of InvokeModelWithResponseStream's
// events, which carry a model's own event in their bytes member.
const chunkEvent = "chunk"
