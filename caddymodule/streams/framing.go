package streams

import (
	"mime"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/sse/eventstream"
)

// Stream codecs read and write SSE text whatever a protocol's framing
// (codec.Descriptor.Framing); the writers convert at the edges: an
// upstream's AWS event stream is read into SSE text before anything looks
// at it (NewUnframer), and SSE text meant for a client of an AWS protocol is
// written as event stream messages (NewFramer). Both are nil for SSE, which
// passes as it is.

// ContentType is the media type of protocol p's streams.
func ContentType(p codec.Protocol) string {
	if framing(p) == codec.FramingSSE {
		return "text/event-stream"
	}
	return eventstream.ContentType
}

// IsStreamOf reports whether contentType is the media type of protocol
// p's streams.
func IsStreamOf(p codec.Protocol, contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	return err == nil && mt == ContentType(p)
}

// framing is protocol p's stream framing.
func framing(p codec.Protocol) codec.Framing {
	if d := p.Descriptor(); d != nil {
		return d.Framing
	}
	return codec.FramingSSE
}

// NewUnframer returns the reader that turns an upstream stream of
// protocol p into SSE text, refusing messages over maxEvent bytes, or nil
// when p streams SSE.
func NewUnframer(p codec.Protocol, maxEvent int) *eventstream.Reader {
	switch framing(p) {
	case codec.FramingEventStream:
		return eventstream.NewReader(maxEvent)
	case codec.FramingEventChunks:
		return eventstream.NewChunkReader(maxEvent)
	}
	return nil
}

// NewFramer returns the writer that turns SSE text into a stream for a
// client of protocol p, or nil when p streams SSE.
func NewFramer(p codec.Protocol, maxEvent int) *eventstream.Writer {
	switch framing(p) {
	case codec.FramingEventStream:
		return eventstream.NewWriter(maxEvent)
	case codec.FramingEventChunks:
		return eventstream.NewChunkWriter(maxEvent)
	}
	return nil
}
