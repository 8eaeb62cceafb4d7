package caddymodule

import (
	"net/http"
	"sync"

	"github.com/llmbridge/llmbridge/caddymodule/internal/pool"
	"github.com/llmbridge/llmbridge/codec"
)

// requestBufferSize is the buffer size for reading r's body: its declared
// length, which readBody checks against the limit (a client that claims
// more than maxUpfrontBody gets a buffer grown as its bytes arrive).
func requestBufferSize(r *http.Request) int {
	if r.ContentLength > 0 {
		return int(min(r.ContentLength, maxUpfrontBody))
	}
	return pool.StreamSize
}

// requestPool holds canonical requests for reuse: a decoded request keeps
// its slices and its decode memory (codec.Scratch), so an agent's next
// turn, as long as the last, is decoded without allocating for its
// length. A request's strings and parts are views of that memory and of
// the pooled body buffer: nothing may keep them past ServeHTTP (the
// exchange, the learned rules and the telemetry copy what they keep).
var requestPool = sync.Pool{New: func() any { return new(codec.Request) }}

// maxPooledParts bounds the parts a pooled request keeps room for, like
// pool.MaxPooled its text: a rare huge conversation should not pin its
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
	if cap(s.Text) > pool.MaxPooled || cap(s.Parts) > maxPooledParts || cap(req.Messages) > maxPooledParts {
		return
	}
	// What the caller set before decoding, which Reset keeps, is the
	// caller's alone.
	req.Items, req.Conversations = nil, false
	req.Reset()
	requestPool.Put(req)
}
