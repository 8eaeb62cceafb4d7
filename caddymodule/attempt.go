package caddymodule

import (
	"maps"
	"net/http"
	"sync"
)

// An attempt is one call of the next handler (reverse_proxy) whose answer
// may be discarded, as long as nothing of it has reached the client, so
// that the request is sent again: with a fix the answer taught (learn.go),
// or elsewhere. The translating writer holds a non-streamed answer until
// the handler is done with it, so the only trace a discarded answer leaves
// is in the client's response header, where reverse_proxy copies the
// upstream's header (adding to what is there): the attempt keeps the
// header as it was before the call and puts it back.
//
// To send the request again, the caller sets its new body (setBody, which
// also sets GetBody and Content-Length, so that reverse_proxy can read it
// again and retry it itself), signs it again where the upstream signs
// bodies, rewinds the attempt and calls next with a new writer.
type attempt struct {
	w   http.ResponseWriter
	hdr http.Header
}

// headerPool holds the header copies of attempts: a copy per request would
// cost an allocation on every request.
var headerPool = sync.Pool{New: func() any { return make(http.Header, 16) }}

// newAttempt notes w's response header before next is called.
func newAttempt(w http.ResponseWriter) attempt {
	hdr := headerPool.Get().(http.Header)
	// The values are shared, not copied: reverse_proxy adds values by
	// appending, which never changes what a copied slice holds.
	maps.Copy(hdr, w.Header())
	return attempt{w: w, hdr: hdr}
}

// rewind puts the response header back as it was when the attempt
// started.
func (a *attempt) rewind() {
	h := a.w.Header()
	clear(h)
	maps.Copy(h, a.hdr)
}

// release returns the attempt's header copy; a is not used again.
func (a *attempt) release() {
	if a == nil || a.hdr == nil {
		return
	}
	clear(a.hdr)
	headerPool.Put(a.hdr)
	a.hdr = nil
}
