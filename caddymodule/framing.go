package caddymodule

import (
	"mime"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/sse/eventstream"
)

// Stream codecs read and write SSE text whatever a protocol's framing
// (codec.Descriptor.Framing); the writers convert at the edges: an
// upstream's AWS event stream is read into SSE text before anything looks
// at it (unframer), and SSE text meant for a client of an AWS protocol is
// written as event stream messages (framer). Both are nil for SSE, which
// passes as it is.

// streamContentType is the media type of protocol p's streams.
func streamContentType(p codec.Protocol) string {
	if framingOf(p) == codec.FramingSSE {
		return "text/event-stream"
	}
	return eventstream.ContentType
}

// isStreamOf reports whether contentType is the media type of protocol
// p's streams.
func isStreamOf(p codec.Protocol, contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	return err == nil && mt == streamContentType(p)
}

// framingOf is protocol p's stream framing.
func framingOf(p codec.Protocol) codec.Framing {
	if d := p.Descriptor(); d != nil {
		return d.Framing
	}
	return codec.FramingSSE
}

// newUnframer returns the reader that turns an upstream stream of
// protocol p into SSE text, refusing messages over maxEvent bytes, or nil
// when p streams SSE.
func newUnframer(p codec.Protocol, maxEvent int) *eventstream.Reader {
	switch framingOf(p) {
	case codec.FramingEventStream:
		return eventstream.NewReader(maxEvent)
	case codec.FramingEventChunks:
		return eventstream.NewChunkReader(maxEvent)
	}
	return nil
}

// newFramer returns the writer that turns SSE text into a stream for a
// client of protocol p, or nil when p streams SSE.
func newFramer(p codec.Protocol, maxEvent int) *eventstream.Writer {
	switch framingOf(p) {
	case codec.FramingEventStream:
		return eventstream.NewWriter(maxEvent)
	case codec.FramingEventChunks:
		return eventstream.NewChunkWriter(maxEvent)
	}
	return nil
}
