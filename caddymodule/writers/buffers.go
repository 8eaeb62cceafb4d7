package writers

import (
	"bytes"
	"io"
	"sync/atomic"

	"github.com/llmbridge/llmbridge/caddymodule/internal/pool"
)

// Sent is a request body sent upstream. It notes when the transport
// has read it to the end: from then on nothing reads it again (a retry
// of the request would come before the response), so a stream can give
// its buffer back to the pool at once instead of when it ends.
type Sent struct {
	r bytes.Reader
	// Body is what the transport reads, for the call span's settings
	// (observe.Tracing.StartCall).
	Body []byte
	read atomic.Bool
	// The pooled buffer holding the body, if it is one.
	Held
}

// Read reads from the body.
func (b *Sent) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	if err == io.EOF {
		b.read.Store(true)
	}
	return n, err
}

// WriteTo writes the rest of the body to w, as bytes.Reader does: the
// transport copies a body with it when it can.
func (b *Sent) WriteTo(w io.Writer) (int64, error) {
	n, err := b.r.WriteTo(w)
	if err == nil {
		b.read.Store(true)
	}
	return n, err
}

// Close does nothing: the body is in memory.
func (b *Sent) Close() error { return nil }

// ReadToEnd reports whether the transport has read the body to its end
// (false for a nil body): nothing reads it, or the buffer it is in,
// again.
func (b *Sent) ReadToEnd() bool { return b != nil && b.read.Load() }

// Held is a pooled buffer with one owner, which gives it back to the
// pool once: when it is done with it, or earlier when what it holds is no
// longer read (the client's body and the body sent, once a stream opens).
type Held struct {
	// Buf is the buffer, nil once released.
	Buf *[]byte
}

// Release gives the buffer back to the pool, once.
func (b *Held) Release() {
	if b.Buf != nil {
		pool.Put(b.Buf)
		b.Buf = nil
	}
}

// NewSent returns body as a request body to send upstream.
func NewSent(body []byte) *Sent {
	sb := &Sent{Body: body}
	sb.r.Reset(body)
	return sb
}
