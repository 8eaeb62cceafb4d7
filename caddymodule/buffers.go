package caddymodule

import (
	"bytes"
	"io"
	"math/bits"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/llmbridge/llmbridge/codec"
)

// Buffers (request bodies read and encoded, response bodies held, stream
// output) come from pools by size class, from minPooledBuffer to
// maxPooledBuffer in steps of 2^k and 1.5 x 2^k. A request is given a
// buffer of about its size rather than one size for all: a stream holds
// its request's body for as long as it is open, so a thousand open
// streams of 6 KB requests hold 6 MB in 6 KB buffers where one 16 KB
// size would hold 16 MB, and a 1 MB body does not grow its buffer by
// doubling.
const (
	minBufferShift  = 10 // 1 KB
	maxBufferShift  = 21 // 2 MB: agent bodies reach 1 MB
	minPooledBuffer = 1 << minBufferShift
	maxPooledBuffer = 1 << maxBufferShift
)

// bufferPools are the pools of the size classes, smallest first: class c
// holds buffers of bufferClassSize(c) bytes.
var bufferPools [2*(maxBufferShift-minBufferShift) + 1]sync.Pool

// bufferClassSize is the size of class c's buffers.
func bufferClassSize(c int) int {
	return (2 + c%2) << (c/2 + minBufferShift - 1)
}

// bufferClass returns the smallest size class holding n bytes; n above
// maxPooledBuffer gets the largest.
func bufferClass(n int) int {
	if n <= minPooledBuffer {
		return 0
	}
	if n >= maxPooledBuffer {
		return len(bufferPools) - 1
	}
	// n-1 < 2^k: class 2(k-10) is 2^k, class 2(k-10)-1 is 1.5 x 2^(k-1).
	k := bits.Len(uint(n - 1))
	c := 2 * (k - minBufferShift)
	if n <= bufferClassSize(c-1) {
		c--
	}
	return c
}

// getBuffer returns an empty buffer with room for at least size bytes (up
// to maxPooledBuffer; a larger need grows it by appending).
func getBuffer(size int) *[]byte {
	c := bufferClass(size)
	// A buffer of the next class serves too: a body that outgrew the
	// size it declared went back one class up.
	for i := c; i <= min(c+1, len(bufferPools)-1); i++ {
		if b, ok := bufferPools[i].Get().(*[]byte); ok {
			*b = (*b)[:0]
			return b
		}
	}
	b := make([]byte, 0, bufferClassSize(c))
	return &b
}

// putBuffer returns b to the pool of the largest class its capacity
// fills, unless it is smaller than the smallest or grew larger than the
// largest: rare huge bodies should not pin their memory in a pool.
func putBuffer(b *[]byte) {
	if b == nil {
		return
	}
	n := cap(*b)
	if n < minPooledBuffer || n > maxPooledBuffer {
		return
	}
	c := bufferClass(n)
	if bufferClassSize(c) > n {
		c--
	}
	bufferPools[c].Put(b)
}

// streamBufferSize is the buffer size of a stream's pending output and of
// bodies of unknown length: a few events.
const streamBufferSize = 4 << 10

// requestBufferSize is the buffer size for reading r's body: its declared
// length, which readBody checks against the limit (a client that claims
// more than maxUpfrontBody gets a buffer grown as its bytes arrive).
func requestBufferSize(r *http.Request) int {
	if r.ContentLength > 0 {
		return int(min(r.ContentLength, maxUpfrontBody))
	}
	return streamBufferSize
}

// responseBufferSize is the buffer size for holding a response body whose
// header is hdr: its Content-Length when it has one.
func responseBufferSize(hdr http.Header) int {
	if n, err := strconv.ParseInt(hdr.Get("Content-Length"), 10, 64); err == nil && n > 0 {
		return int(min(n, maxPooledBuffer))
	}
	return streamBufferSize
}

// encodedBufferSize is the buffer size for a body translated from one of n
// bytes: translations stay close to their source's size (names and
// nesting differ, the content is the same).
func encodedBufferSize(n int) int {
	return n + n/8 + minPooledBuffer
}

// sentBody is a request body sent upstream. It notes when the transport
// has read it to the end: from then on nothing reads it again (a retry
// of the request would come before the response), so a stream can give
// its buffer back to the pool at once instead of when it ends.
type sentBody struct {
	r bytes.Reader
	// body is what r reads, for the call span's settings (observe.Tracing.StartCall).
	body []byte
	read atomic.Bool
	// The pooled buffer holding the body, if it is one.
	heldBuffer
}

// Read reads from the body.
func (b *sentBody) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	if err == io.EOF {
		b.read.Store(true)
	}
	return n, err
}

// WriteTo writes the rest of the body to w, as bytes.Reader does: the
// transport copies a body with it when it can.
func (b *sentBody) WriteTo(w io.Writer) (int64, error) {
	n, err := b.r.WriteTo(w)
	if err == nil {
		b.read.Store(true)
	}
	return n, err
}

// Close does nothing: the body is in memory.
func (b *sentBody) Close() error { return nil }

// readToEnd reports whether the transport has read the body to its end
// (false for a nil body): nothing reads it, or the buffer it is in,
// again.
func (b *sentBody) readToEnd() bool { return b != nil && b.read.Load() }

// heldBuffer is a pooled buffer with one owner, which gives it back to the
// pool once: when it is done with it, or earlier when what it holds is no
// longer read (the client's body and the body sent, once a stream opens).
type heldBuffer struct {
	// buf is the buffer, nil once released.
	buf *[]byte
}

// release gives the buffer back to the pool, once.
func (b *heldBuffer) release() {
	if b.buf != nil {
		putBuffer(b.buf)
		b.buf = nil
	}
}

// requestPool holds canonical requests for reuse: a decoded request keeps
// its slices and its decode memory (codec.Scratch), so an agent's next
// turn, as long as the last, is decoded without allocating for its
// length. A request's strings and parts are views of that memory and of
// the pooled body buffer: nothing may keep them past ServeHTTP (the
// exchange, the learned rules and the telemetry copy what they keep).
var requestPool = sync.Pool{New: func() any { return new(codec.Request) }}

// maxPooledParts bounds the parts a pooled request keeps room for, like
// maxPooledBuffer its text: a rare huge conversation should not pin its
// memory in the pool.
const maxPooledParts = 1 << 14

// getRequest returns an empty request from the pool.
func getRequest() *codec.Request { return requestPool.Get().(*codec.Request) }

// recycleScratch gives decode memory that an open stream let go of
// (codec.Request.KeepForStream) to a pooled request, so that the next
// request decodes into it instead of allocating its own while the stream
// goes on.
func recycleScratch(spare codec.Scratch) {
	if cap(spare.Text) == 0 && cap(spare.Parts) == 0 && cap(spare.Content) == 0 {
		return
	}
	req := getRequest()
	s := req.Scratch()
	if cap(spare.Text) > cap(s.Text) {
		s.Text = spare.Text[:0]
	}
	if cap(spare.Parts) > cap(s.Parts) {
		s.Parts = spare.Parts[:0]
	}
	if cap(spare.Content) > cap(s.Content) {
		s.Content = spare.Content[:0]
	}
	putRequest(req)
}

// putRequest empties req and returns it to the pool unless it holds more
// memory than a pooled request should.
func putRequest(req *codec.Request) {
	s := req.Scratch()
	if cap(s.Text) > maxPooledBuffer || cap(s.Parts) > maxPooledParts || cap(req.Messages) > maxPooledParts {
		return
	}
	req.Items = nil
	req.Reset()
	requestPool.Put(req)
}

// bytesString returns b as a string without copying it, for gjson to read:
// what it returns aliases b, which stays unmodified while it is used.
func bytesString(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }
