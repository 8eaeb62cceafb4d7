package streams

import (
	"mime"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/sse/eventstream"
)

// Stream codecs read and write SSE text whatever a protocol's framing
// (codec.Descriptor.Framing); the writers convert at the edges (Framing):
// an upstream's AWS event stream is read into SSE text before anything
// looks at it (NewUnframer), and SSE text meant for a client of an AWS
// protocol is written as event stream messages (NewFramer). Both are nil
// for SSE, which passes as it is.

// Framing converts a stream at its two edges, for a writer that passes it
// on: a read of the upstream's stream into the SSE text the codecs and the
// checks read (Unframe), and SSE text into the client's stream (Frame).
// Each keeps its converted bytes in a buffer the next call reuses.
type Framing struct {
	unframe  *eventstream.Reader
	unframed []byte
	frame    *eventstream.Writer
	framed   []byte
}

// NewFraming returns the framing of a stream from an upstream of protocol
// upstream, whose messages over maxEvent bytes are refused, to a client of
// protocol client, whose messages are bounded by maxFrame.
func NewFraming(upstream, client codec.Protocol, maxEvent, maxFrame int) Framing {
	return Framing{unframe: NewUnframer(upstream, maxEvent), frame: NewFramer(client, maxFrame)}
}

// Unframe returns p, a read of the upstream's stream, as SSE text (p itself
// when the upstream streams SSE), valid until the next Unframe. With an
// error the stream is broken, and the text is that of the messages that
// came whole before the break.
func (f *Framing) Unframe(p []byte) ([]byte, error) {
	if f.unframe == nil {
		return p, nil
	}
	var err error
	f.unframed, err = f.unframe.Push(f.unframed[:0], p)
	return f.unframed, err
}

// Frame returns b, SSE text, as the client's stream (b itself when the
// client reads SSE), valid until the next Frame.
func (f *Framing) Frame(b []byte) ([]byte, error) {
	if f.frame == nil {
		return b, nil
	}
	var err error
	f.framed, err = f.frame.Push(f.framed[:0], b)
	return f.framed, err
}

// UpstreamFramed reports whether the upstream's stream is framed, not SSE.
func (f *Framing) UpstreamFramed() bool { return f.unframe != nil }

// Framed reports whether either edge is framed: the stream passed on is
// then framed anew, not the upstream's bytes.
func (f *Framing) Framed() bool { return f.unframe != nil || f.frame != nil }

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
