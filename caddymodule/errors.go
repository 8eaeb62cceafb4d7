package caddymodule

import (
	"net/http"
	"strconv"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/mapping"
)

// writeError answers the client with e in protocol p's error format and
// returns the status it wrote.
func writeError(w http.ResponseWriter, p codec.Protocol, e *codec.Error) int {
	buf := getBuffer()
	defer putBuffer(buf)
	*buf = codec.AppendError(*buf, p, e)
	hdr := w.Header()
	hdr.Del("Content-Encoding")
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

// asCodecError turns any error from the codec into a *codec.Error.
func asCodecError(err error) *codec.Error {
	if e, ok := err.(*codec.Error); ok {
		return e
	}
	return codec.NewError(mapping.ErrAPI, err.Error())
}
