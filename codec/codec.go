package codec

import "github.com/llmbridge/llmbridge/codec/internal/jsonx"

// DecodeRequest decodes a request body of protocol p into req, which should
// be zero or Reset. For protocols that carry the model in the URL path
// (Protocol.ModelInPath), the caller sets req.Model.
//
// A body that is not a JSON object, a field of the wrong type, and a field
// the codec cannot carry are all *Error values with status 400.
func DecodeRequest(p Protocol, body []byte, req *Request) error {
	root, index, err := parseIndexed(body)
	if err != nil {
		return err
	}
	req.text = jsonx.IndexedArena(index)
	c, derr := wireOf(p)
	if derr == nil {
		derr = c.decodeRequest(root, req, p)
	}
	// The decoded strings keep the arena's buffer alive; the request itself
	// need not hold on to it.
	req.text = jsonx.Arena{}
	index.Release()
	if derr != nil {
		return derr
	}
	return nil
}

// AppendRequest appends req encoded as a protocol p request body to dst.
//
// Protocols with the model in the path get no model in the body; the
// caller builds the path. Content the protocol cannot express is an *Error
// with status 400 naming the field.
func AppendRequest(dst []byte, p Protocol, req *Request, opts EncodeOptions) ([]byte, error) {
	c, err := wireOf(p)
	if err == nil {
		dst, err = c.appendRequest(dst, req, opts, p)
	}
	if err == nil {
		// After encoding, so that what an encoder refuses in a result
		// (its content, its place) is named first.
		err = checkToolResults(p, req)
	}
	if err != nil {
		return dst, err
	}
	return dst, nil
}

// DecodeResponse decodes a non-streamed response body of protocol p into
// resp. A body that is not a response of that protocol is an *Error with
// status 502.
func DecodeResponse(p Protocol, body []byte, resp *Response) error {
	root, index, perr := parseIndexed(body)
	if perr != nil {
		return badUpstream(p, perr.Message)
	}
	resp.text = jsonx.IndexedArena(index)
	c, err := wireOf(p)
	if err == nil {
		err = c.decodeResponse(root, resp)
	}
	resp.text = jsonx.Arena{}
	index.Release()
	if err != nil {
		return err
	}
	return nil
}

// AppendResponse appends resp encoded as a protocol p response body to dst.
// Content the protocol cannot express is an *Error (status 502: the request
// was valid, but the upstream's answer cannot be carried to this client).
// It is AppendResponseFor without the client's request.
func AppendResponse(dst []byte, p Protocol, resp *Response) ([]byte, error) {
	return AppendResponseFor(dst, p, resp, nil)
}

// AppendResponseFor appends resp, the answer to the client's decoded
// request req, encoded as a protocol p response body to dst. req may be
// nil; a Responses client needs it to get its custom tool calls back as
// custom_tool_call items and its namespaced functions' calls with their
// namespace (the upstream only saw functions with flattened names). What
// the client protocol cannot carry and is not the answer itself (hosted
// search calls toward Chat, say) is left out and listed in resp.Dropped.
func AppendResponseFor(dst []byte, p Protocol, resp *Response, req *Request) ([]byte, error) {
	c, err := wireOf(p)
	if err == nil {
		dst, err = c.appendResponse(dst, resp, req)
	}
	if err != nil {
		return dst, err
	}
	return dst, nil
}
