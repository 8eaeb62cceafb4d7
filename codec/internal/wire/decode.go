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
	r.Request, r.Text = req, jsonx.IndexedArena(index)
	err = decode(root, r)
	index.Release()
	*r = Request{}
	requestPool.Put(r)
	return Err(err)
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
