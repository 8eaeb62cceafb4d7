package codec

import "github.com/tidwall/gjson"

func decodeResponsesRequest(root gjson.Result, req *Request) *Error {
	return invalid("", "not implemented")
}

func appendResponsesRequest(dst []byte, req *Request, opts *EncodeOptions) ([]byte, *Error) {
	return dst, invalid("", "not implemented")
}

func decodeResponsesResponse(root gjson.Result, resp *Response) *Error {
	return invalid("", "not implemented")
}

func appendResponsesResponse(dst []byte, resp *Response) ([]byte, *Error) {
	return dst, invalid("", "not implemented")
}
