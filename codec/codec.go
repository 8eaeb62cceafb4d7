package codec

// DecodeRequest decodes a request body of protocol p into req, which should
// be zero or Reset. For protocols that carry the model in the URL path
// (Protocol.ModelInPath), the caller sets req.Model.
//
// A body that is not a JSON object, a field of the wrong type, and a field
// the codec cannot carry are all *Error values with status 400.
func DecodeRequest(p Protocol, body []byte, req *Request) error {
	c, err := codecOf(p)
	if err != nil {
		return err
	}
	return c.DecodeRequest(p, body, req)
}

// AppendRequest appends req encoded as a protocol p request body to dst.
//
// Protocols with the model in the path get no model in the body; the
// caller builds the path. Content the protocol cannot express is an *Error
// with status 400 naming the field.
func AppendRequest(dst []byte, p Protocol, req *Request, opts EncodeOptions) ([]byte, error) {
	c, cerr := codecOf(p)
	if cerr != nil {
		return dst, cerr
	}
	dst, err := c.AppendRequest(dst, p, req, opts)
	if err != nil {
		return dst, err
	}
	// After encoding, so that what an encoder refuses in a result (its
	// content, its place) is named first.
	if terr := checkToolResults(p, req); terr != nil {
		return dst, terr
	}
	return dst, nil
}

// DecodeResponse decodes a non-streamed response body of protocol p into
// resp. A body that is not a response of that protocol is an *Error with
// status 502.
func DecodeResponse(p Protocol, body []byte, resp *Response) error {
	c, err := codecOf(p)
	if err != nil {
		return err
	}
	return c.DecodeResponse(p, body, resp)
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
	c, err := codecOf(p)
	if err != nil {
		return dst, err
	}
	return c.AppendResponse(dst, p, resp, req)
}
