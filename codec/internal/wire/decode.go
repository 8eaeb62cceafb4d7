package wire

import (
	"sync"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/jsonx"
	"github.com/tidwall/gjson"
)

// Request is a request being decoded, with the arena its strings are
// unescaped into: what every family's request decoder works on.
type Request struct {
	*codec.Request
	Text jsonx.Arena
}

// Response is Request's counterpart for a response being decoded.
type Response struct {
	*codec.Response
	Text jsonx.Arena
}

// The wrappers of requests and responses being decoded are reused: the
// decoders' closures make a wrapper escape to the heap, which would cost
// an allocation per decode.
var (
	requestPool  = sync.Pool{New: func() any { return new(Request) }}
	responsePool = sync.Pool{New: func() any { return new(Response) }}
)

// DecodeRequest parses body and runs decode, a family's request decoder,
// on its root object, with req wrapped with an arena sized for the body's
// escaped strings. The decoded strings keep the arena's buffer alive;
// nothing else holds on to it.
func DecodeRequest(body []byte, req *codec.Request, decode func(root gjson.Result, r *Request) *codec.Error) error {
	root, index, err := ParseIndexed(body)
	if err != nil {
		return err
	}
	r := requestPool.Get().(*Request)
	scratch := req.Scratch()
	r.Request, r.Text = req, jsonx.IndexedArenaIn(index, scratch.Text)
	err = decode(root, r)
	scratch.Text = r.Text.Buffer()
	index.Release()
	*r = Request{}
	requestPool.Put(r)
	return Err(err)
}

// PartSlab returns the empty backing array for the parts of r's
// messages, with room for n: the Scratch of the request decoded before
// when it has the room. A decoder whose array grew past it gives it back
// with KeepParts, so the next decode of a conversation as long needs
// none.
func PartSlab(r *Request, n int) []codec.Part {
	s := r.Scratch()
	if cap(s.Parts) < n {
		s.Parts = make([]codec.Part, 0, n)
	}
	return s.Parts[:0]
}

// KeepParts keeps parts, a decoder's backing array of parts after
// decoding, as the request's Scratch when it grew larger than the one it
// started from.
func KeepParts(r *Request, parts []codec.Part) {
	if s := r.Scratch(); cap(parts) > cap(s.Parts) {
		s.Parts = parts[:0]
	}
}

// ContentParts returns an empty slice with room for n parts, for the
// content of a part (a tool result's), carved from r's Scratch so that
// tool results cost no allocation each. Appending more than n moves the
// slice out of the Scratch, as append does.
func ContentParts(r *Request, n int) []codec.Part {
	s := r.Scratch()
	l := len(s.Content)
	if cap(s.Content)-l < n {
		// Parts carved before keep the old array.
		s.Content, l = make([]codec.Part, 0, max(2*cap(s.Content), n, 16)), 0
	}
	s.Content = s.Content[:l+n]
	return s.Content[l : l : l+n]
}

// DecodeResponse is DecodeRequest for a response body of protocol p: a
// body that is not a JSON object is the upstream's fault (BadUpstream).
func DecodeResponse(p codec.Protocol, body []byte, resp *codec.Response, decode func(root gjson.Result, r *Response) *codec.Error) error {
	root, index, problem := jsonx.ParseIndexed(jsonx.BytesToString(body))
	if problem != "" {
		return codec.BadUpstream(p, "the body "+problem)
	}
	r := responsePool.Get().(*Response)
	r.Response, r.Text = resp, jsonx.IndexedArena(index)
	err := decode(root, r)
	index.Release()
	*r = Response{}
	responsePool.Put(r)
	return Err(err)
}

// ParseListing parses body, an upstream's model listing of protocol p; a
// body that is not a JSON object is the upstream's fault.
func ParseListing(p codec.Protocol, body []byte) (gjson.Result, error) {
	root, problem := jsonx.ParseObject(jsonx.BytesToString(body))
	if problem != "" {
		return root, codec.BadUpstream(p, "model listing is not a JSON object")
	}
	return root, nil
}

// Err returns e as an error: nil when e is nil, so that a nil *codec.Error
// never becomes a non-nil error.
func Err(e *codec.Error) error {
	if e == nil {
		return nil
	}
	return e
}
