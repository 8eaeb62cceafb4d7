package codec

import "github.com/tidwall/gjson"

func decodeAnthropicRequest(root gjson.Result, req *Request, vertex bool) *Error {
	return invalid("", "not implemented")
}

func appendAnthropicRequest(dst []byte, req *Request, opts *EncodeOptions, vertex bool) ([]byte, *Error) {
	return dst, invalid("", "not implemented")
}

func decodeAnthropicResponse(root gjson.Result, resp *Response) *Error {
	return invalid("", "not implemented")
}

func appendAnthropicResponse(dst []byte, resp *Response) ([]byte, *Error) {
	return dst, invalid("", "not implemented")
}
