package sse

import (
	"errors"
	"io"
)

// ErrNeedInput is returned by Next on a push reader when the input pushed so
// far holds no further complete event. It is not sticky: Push more input (or
// call CloseInput) and call Next again.
var ErrNeedInput = errors.New("sse: more input needed")

// pushSource is the io.Reader behind a push reader: it hands out what was
// pushed, then reports ErrNeedInput, or io.EOF once the input is closed.
type pushSource struct {
	p      []byte
	closed bool
}

func (s *pushSource) Read(b []byte) (int, error) {
	if len(s.p) == 0 {
		if s.closed {
			return 0, io.EOF
		}
		return 0, ErrNeedInput
	}
	n := copy(b, s.p)
	s.p = s.p[n:]
	return n, nil
}

// NewPushReader returns a Reader that is given its input with Push instead
// of reading it from an io.Reader. It suits a writer that receives a stream
// in Write calls (an http.ResponseWriter wrapper): each Write pushes its
// bytes and then calls Next until ErrNeedInput, with no goroutine and no
// copy beyond the reader's own buffer. Size bounds and end-of-stream rules
// are those of NewReader; CloseInput marks the end of the stream.
func NewPushReader(maxEventSize int) *Reader {
	src := &pushSource{}
	r := NewReader(src, maxEventSize)
	r.push = src
	return r
}

// Push gives a push reader its next input. Call it only when Next has
// returned ErrNeedInput (or before the first Next); p must not be modified
// until Next returns ErrNeedInput again, by which time the reader has copied
// all of it. Push panics on a reader made by NewReader.
func (r *Reader) Push(p []byte) {
	r.push.p = p
}

// CloseInput tells a push reader that the stream has ended: Next then
// dispatches what is complete and returns io.EOF, or io.ErrUnexpectedEOF
// when the input ended within a line.
func (r *Reader) CloseInput() {
	r.push.closed = true
}
