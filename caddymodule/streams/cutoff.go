package streams

import (
	"context"
	"errors"
	"net/http"
	"time"
)

// Once the client's stream has ended (its terminal event or an in-stream
// error written), what the upstream still sends has nowhere to go, and
// reverse_proxy would go on reading it until the upstream ends its body:
// a connection held open after a broken frame kept the client's response
// open for as long. The stream writers stop that read:
//
//   - after an error, their Write fails with ErrClientStreamEnded:
//     reverse_proxy closes the upstream body at once and aborts with
//     http.ErrAbortHandler, which the handler recovers, so the client's
//     response ends properly and immediately;
//   - after a complete stream, the upstream gets EndGrace to end
//     its body (its end usually follows the terminal event at once, and
//     reading it keeps the upstream connection reusable); then the
//     upstream request's context is cancelled, which ends reverse_proxy's
//     read the same way (Cutoff).

// EndGrace is how long an upstream stream may go on after its
// terminal event before llmbridge stops reading it.
const EndGrace = 20 * time.Millisecond

// ErrClientStreamEnded is what a stream writer answers reverse_proxy's
// writes once the client's stream has ended with an error.
var ErrClientStreamEnded = errors.New("llmbridge: the client's stream has ended, the rest of the upstream's is not read")

// Cutoff cancels the context of a streamed upstream request once
// the client's stream is complete and the upstream has had
// EndGrace to end its body.
type Cutoff struct {
	cancel context.CancelFunc
	timer  *time.Timer
}

// WithCutoff returns the request to hand to reverse_proxy and its cutoff:
// for a request that asked for a stream, r with a context of its own;
// otherwise r itself and a nil cutoff, at no cost (a JSON body ends with
// its Content-Length).
func WithCutoff(r *http.Request, stream bool) (*http.Request, *Cutoff) {
	if !stream {
		return r, nil
	}
	ctx, cancel := context.WithCancel(r.Context())
	return r.WithContext(ctx), &Cutoff{cancel: cancel}
}

// Completed starts the grace after which the upstream body is no longer
// read. It does nothing on a nil cutoff or after the first call.
func (c *Cutoff) Completed() {
	if c == nil || c.timer != nil {
		return
	}
	c.timer = time.AfterFunc(EndGrace, c.cancel)
}

// Release frees the cutoff once reverse_proxy has returned.
func (c *Cutoff) Release() {
	if c == nil {
		return
	}
	if c.timer != nil {
		c.timer.Stop()
	}
	c.cancel()
}
