package writers

import (
	"net/http"
	"slices"
	"strconv"
	"sync"

	"github.com/llmbridge/llmbridge/caddymodule/internal/pool"
	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/mapping"
)

// writeError answers the client with e in protocol p's error format and
// returns the status it wrote.
func WriteError(w http.ResponseWriter, p codec.Protocol, e *codec.Error) int {
	buf := pool.Get(pool.MinPooled)
	defer pool.Put(buf)
	*buf = codec.AppendError(*buf, p, e)
	hdr := w.Header()
	hdr.Del("Content-Encoding")
	for _, name := range errorTypeHeaders() {
		// An upstream's error type would contradict the body's: the
		// AWS SDKs read the header first.
		hdr.Del(name)
	}
	hdr.Set("Content-Type", "application/json")
	hdr.Set("Content-Length", strconv.Itoa(len(*buf)))
	hdr.Set("X-Content-Type-Options", "nosniff")
	if e.Kind == mapping.ErrMethodNotAllowed && hdr.Get("Allow") == "" {
		hdr.Set("Allow", http.MethodPost)
	}
	status := codec.ClientStatus(p, e)
	w.WriteHeader(status)
	_, _ = w.Write(*buf)
	return status
}

// errorTypeHeaders are the headers in which protocols send an error's type
// beside its body (codec.Descriptor.ErrorTypeHeader).
var errorTypeHeaders = sync.OnceValue(func() []string {
	var names []string
	for _, p := range codec.Protocols() {
		if h := p.Descriptor().ErrorTypeHeader; h != "" && !slices.Contains(names, h) {
			names = append(names, h)
		}
	}
	return names
})

// decodeUpstreamError decodes an upstream's error response of protocol p:
// its body, and the error type p sends in a header (AWS's
// X-Amzn-Errortype).
func DecodeUpstreamError(p codec.Protocol, status int, hdr http.Header, body []byte) *codec.Error {
	e := codec.DecodeError(p, status, body)
	if name := p.Descriptor().ErrorTypeHeader; name != "" {
		codec.DecodeErrorType(p, hdr.Get(name), e)
	}
	return e
}
