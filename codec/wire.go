package codec

import "github.com/tidwall/gjson"

// wireCodec is a protocol's codec as the entry points (DecodeRequest,
// AppendRequest, DecodeResponse, AppendResponseFor, NewStreamDecoder,
// NewStreamEncoder) call it. Each family registers its protocols' codecs
// beside its code (registerWire), so that an entry point is a lookup in
// the protocol's descriptor, not a switch on its name.
type wireCodec struct {
	// decodeRequest decodes the root object of a request body of
	// protocol p.
	decodeRequest func(root gjson.Result, req *Request, p Protocol) *Error
	// appendRequest encodes req as a request body of protocol p.
	// (opts is passed by value: a pointer through a function value would
	// escape and cost an allocation per request.)
	appendRequest func(dst []byte, req *Request, opts EncodeOptions, p Protocol) ([]byte, *Error)
	// decodeResponse decodes the root object of a response body.
	decodeResponse func(root gjson.Result, resp *Response) *Error
	// appendResponse encodes resp as a response body for the client's
	// request req (which may be nil).
	appendResponse func(dst []byte, resp *Response, req *Request) ([]byte, *Error)
	// newStreamDecoder returns a decoder of upstream streams of protocol
	// p.
	newStreamDecoder func(p Protocol) StreamDecoder
	// newStreamEncoder returns an encoder of client streams for the
	// client's request req.
	newStreamEncoder func(req *Request) StreamEncoder
	// decodeError reads what the protocol's error object says beyond its
	// message (its type, status or code) into e.
	decodeError func(errObj gjson.Result, e *Error)
	// appendError encodes e as the protocol's error body for a client of
	// protocol p.
	appendError func(dst []byte, p Protocol, e *Error) []byte
	// decodeModelList reads the protocol's model listing into l; nil
	// when it has none.
	decodeModelList func(root gjson.Result, p Protocol, l *ModelList) *Error
	// appendModelList writes l as the protocol's model listing.
	appendModelList func(dst []byte, l *ModelList, opts ModelListOptions) []byte
}

// registerWire sets the codec of the protocols ps. It is called from init
// functions only, before any entry point runs.
func registerWire(c *wireCodec, ps ...Protocol) {
	for _, p := range ps {
		d := p.Descriptor()
		if d == nil || d.wire != nil {
			panic("codec: cannot register a codec for protocol " + string(p))
		}
		d.wire = c
	}
}

// wireOf returns the codec of protocol p, or an error naming an unknown
// protocol.
func wireOf(p Protocol) (*wireCodec, *Error) {
	if d := p.Descriptor(); d != nil && d.wire != nil {
		return d.wire, nil
	}
	return nil, invalid("", "unknown protocol "+string(p))
}

func init() {
	registerWire(&wireCodec{
		decodeRequest: func(root gjson.Result, req *Request, _ Protocol) *Error { return decodeChatRequest(root, req) },
		appendRequest: func(dst []byte, req *Request, opts EncodeOptions, _ Protocol) ([]byte, *Error) {
			return appendChatRequest(dst, req, &opts)
		},
		decodeResponse:   decodeChatResponse,
		appendResponse:   func(dst []byte, resp *Response, _ *Request) ([]byte, *Error) { return appendChatResponse(dst, resp) },
		newStreamDecoder: func(Protocol) StreamDecoder { return newChatStreamDecoder() },
		newStreamEncoder: func(req *Request) StreamEncoder { return newChatStreamEncoder(req) },
		decodeError:      decodeOpenAIError,
		appendError:      appendOpenAIError,
		decodeModelList:  decodeOpenAIModelList,
		appendModelList:  appendOpenAIModelList,
	}, OpenAIChat)
	registerWire(&wireCodec{
		decodeRequest: func(root gjson.Result, req *Request, _ Protocol) *Error { return decodeResponsesRequest(root, req) },
		appendRequest: func(dst []byte, req *Request, opts EncodeOptions, _ Protocol) ([]byte, *Error) {
			return appendResponsesRequest(dst, req, &opts)
		},
		decodeResponse:   decodeResponsesResponse,
		appendResponse:   appendResponsesResponse,
		newStreamDecoder: func(Protocol) StreamDecoder { return newResponsesStreamDecoder() },
		newStreamEncoder: func(req *Request) StreamEncoder { return newResponsesStreamEncoder(req) },
		decodeError:      decodeOpenAIError,
		appendError:      appendOpenAIError,
		decodeModelList:  decodeOpenAIModelList,
		appendModelList:  appendOpenAIModelList,
	}, OpenAIResponses)
	registerWire(&wireCodec{
		decodeRequest: func(root gjson.Result, req *Request, p Protocol) *Error {
			return decodeAnthropicRequest(root, req, p == VertexAnthropic)
		},
		appendRequest: func(dst []byte, req *Request, opts EncodeOptions, p Protocol) ([]byte, *Error) {
			return appendAnthropicRequest(dst, req, &opts, p == VertexAnthropic)
		},
		decodeResponse: decodeAnthropicResponse,
		appendResponse: func(dst []byte, resp *Response, _ *Request) ([]byte, *Error) {
			return appendAnthropicResponse(dst, resp)
		},
		newStreamDecoder: func(p Protocol) StreamDecoder { return newAnthropicStreamDecoder(p) },
		newStreamEncoder: func(req *Request) StreamEncoder { return newAnthropicStreamEncoder(req) },
		decodeError:      decodeAnthropicError,
		appendError:      appendAnthropicError,
		decodeModelList:  decodeAnthropicModelList,
		appendModelList:  appendAnthropicModelList,
	}, AnthropicMessages, VertexAnthropic)
	registerWire(&wireCodec{
		decodeRequest: func(root gjson.Result, req *Request, _ Protocol) *Error { return decodeGeminiRequest(root, req) },
		appendRequest: func(dst []byte, req *Request, opts EncodeOptions, p Protocol) ([]byte, *Error) {
			return appendGeminiRequest(dst, req, &opts, p == Vertex)
		},
		decodeResponse:   decodeGeminiResponse,
		appendResponse:   func(dst []byte, resp *Response, _ *Request) ([]byte, *Error) { return appendGeminiResponse(dst, resp) },
		newStreamDecoder: func(p Protocol) StreamDecoder { return newGeminiStreamDecoder(p) },
		newStreamEncoder: func(req *Request) StreamEncoder { return newGeminiStreamEncoder(req) },
		decodeError:      decodeGoogleError,
		appendError:      appendGoogleError,
		decodeModelList:  decodeGeminiModelList,
		appendModelList:  appendGeminiModelList,
	}, Gemini, Vertex)
}
