package codec

import "github.com/tidwall/gjson"

func decodeGeminiRequest(root gjson.Result, req *Request) *Error {
	return invalid("", "not implemented")
}

func appendGeminiRequest(dst []byte, req *Request, opts *EncodeOptions) ([]byte, *Error) {
	return dst, invalid("", "not implemented")
}

func decodeGeminiResponse(root gjson.Result, resp *Response) *Error {
	return invalid("", "not implemented")
}

func appendGeminiResponse(dst []byte, resp *Response) ([]byte, *Error) {
	return dst, invalid("", "not implemented")
}
