package codec

import (
	"github.com/llmbridge/llmbridge/codec/internal/jsonx"
	"github.com/tidwall/gjson"
)

// HasTokenCount reports whether protocol p has a token counting endpoint.
func HasTokenCount(p Protocol) bool {
	d := p.Descriptor()
	return d != nil && d.counter != nil && d.Counting.Member != ""
}

// DecodeCountRequest decodes a token counting request body of protocol p
// into req, as the generation request whose input it counts. As with
// DecodeRequest, the caller sets req.Model for protocols with the model in
// the path; a Gemini generateContentRequest's own model member is ignored
// in favour of the path.
func DecodeCountRequest(p Protocol, body []byte, req *Request) error {
	if !HasTokenCount(p) {
		return InvalidRequest("", "protocol "+string(p)+" has no token counting endpoint")
	}
	d := p.Descriptor()
	gen, err := d.counter.CountedBody(p, body)
	if err != nil {
		return err
	}
	return DecodeRequest(d.countAs(), gen, req)
}

// AppendCountRequest appends req encoded as protocol p's token counting
// request body to dst: the generation body AppendRequest writes, less the
// members a count request does not take, in the count request's framing.
func AppendCountRequest(dst []byte, p Protocol, req *Request, opts EncodeOptions) ([]byte, error) {
	if !HasTokenCount(p) {
		return dst, InvalidRequest("", "protocol "+string(p)+" has no token counting endpoint")
	}
	d := p.Descriptor()
	// Counting caches nothing: no breakpoints or cache keys of llmbridge's.
	opts.Cache = CachePolicy{}
	gen, err := AppendRequest(nil, d.countAs(), req, opts)
	if err != nil {
		return dst, err
	}
	return d.counter.AppendCountBody(dst, p, gen, req, opts), nil
}

// DecodeCountResponse returns the number of input tokens in an upstream's
// token counting response of protocol p. A body that is not such a
// response is an *Error with status 502.
func DecodeCountResponse(p Protocol, body []byte) (int64, error) {
	if !HasTokenCount(p) {
		return 0, InvalidRequest("", "protocol "+string(p)+" has no token counting endpoint")
	}
	root, problem := jsonx.ParseObject(jsonx.BytesToString(body))
	if problem != "" {
		return 0, BadUpstream(p, "token count is not a JSON object")
	}
	c := p.Descriptor().Counting
	n := root.Get(c.Member)
	if !n.Exists() && c.OmitsZero {
		return 0, nil
	}
	if n.Type != gjson.Number || n.Int() < 0 || float64(n.Int()) != n.Num {
		return 0, BadUpstream(p, "token count has no non-negative integer count")
	}
	return n.Int(), nil
}

// AppendCountResponse appends a count of n input tokens as protocol p's
// token counting response to dst (as Anthropic's for a protocol without
// one).
func AppendCountResponse(dst []byte, p Protocol, n int64) []byte {
	member, object := "input_tokens", ""
	if d := p.Descriptor(); d != nil && d.Counting.Member != "" {
		member, object = d.Counting.Member, d.Counting.Object
	}
	dst = append(dst, '{')
	if object != "" {
		dst = append(dst, `"object":`...)
		dst = jsonx.AppendString(dst, object)
		dst = append(dst, ',')
	}
	dst = jsonx.AppendString(dst, member)
	dst = append(dst, ':')
	dst = jsonx.AppendInt(dst, n)
	return append(dst, '}')
}
