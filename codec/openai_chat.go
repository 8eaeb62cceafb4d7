package codec

import "github.com/tidwall/gjson"

func decodeChatRequest(root gjson.Result, req *Request) *Error {
	return invalid("", "not implemented")
}

func appendChatRequest(dst []byte, req *Request, opts *EncodeOptions) ([]byte, *Error) {
	return dst, invalid("", "not implemented")
}

func decodeChatResponse(root gjson.Result, resp *Response) *Error {
	return invalid("", "not implemented")
}

func appendChatResponse(dst []byte, resp *Response) ([]byte, *Error) {
	return dst, invalid("", "not implemented")
}
