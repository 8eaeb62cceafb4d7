package codec

import (
	"strconv"
	"strings"

	"github.com/llmbridge/llmbridge/codec/internal/jsonx"
	"github.com/llmbridge/llmbridge/mapping"
	"github.com/tidwall/gjson"
)

// maxErrorMessage bounds the message taken from an upstream error body that
// is not in the upstream's own format (an HTML page from a CDN, say).
const maxErrorMessage = 512

// DecodeError decodes an upstream error body of protocol p sent with HTTP
// status. The strings of the result may alias body. It never fails: a body in another shape (or none) yields an error
// whose kind comes from the status and whose message quotes the start of the
// body.
func DecodeError(p Protocol, status int, body []byte) *Error {
	e := &Error{Status: status, Kind: mapping.KindForStatus(status), Protocol: p}
	s := jsonx.BytesToString(body)
	if jsonx.Valid(s) {
		root := gjson.Parse(s)
		errObj := root.Get("error")
		if errObj.IsObject() {
			e.Message = errObj.Get("message").String()
			if c := errorCodec(p); c != nil {
				c.DecodeError(p, errObj.Raw, e)
			}
		} else if errObj.Type == gjson.String {
			e.Message = errObj.Str
		} else if m := root.Get("message"); m.Type == gjson.String {
			e.Message = m.Str
			if d := p.Descriptor(); d != nil && d.ErrorAtRoot && root.IsObject() {
				d.codec.DecodeError(p, s, e)
			}
		} else if m := root.Get("Message"); m.Type == gjson.String && root.IsObject() {
			// AWS's authorization layers spell it with a capital M.
			if d := p.Descriptor(); d != nil && d.ErrorAtRoot {
				e.Message = m.Str
				d.codec.DecodeError(p, s, e)
			}
		}
	}
	if e.Message == "" {
		e.Message = fallbackMessage(status, s)
	}
	return e
}

// DecodeErrorType refines e, an upstream error of protocol p, with the
// error type p's upstream sent beside the body, in the header its
// descriptor names (ErrorTypeHeader).
func DecodeErrorType(p Protocol, errType string, e *Error) {
	d := p.Descriptor()
	if d == nil || d.ErrorTypeHeader == "" || errType == "" {
		return
	}
	obj := append([]byte(`{"__type":`), jsonx.AppendString(nil, errType)...)
	d.codec.DecodeError(p, string(append(obj, '}')), e)
}

// fallbackMessage describes an error body that is not in any known format.
func fallbackMessage(status int, body string) string {
	body = strings.TrimSpace(body)
	if len(body) > maxErrorMessage {
		body = body[:maxErrorMessage] + "..."
	}
	msg := "upstream returned HTTP " + strconv.Itoa(status)
	if body != "" {
		msg += ": " + strings.ToValidUTF8(body, "\ufffd")
	}
	return msg
}

// AppendError appends e encoded as protocol p's error body to dst (as
// OpenAI's for an unknown protocol). The status to send is
// ClientStatus(p, e).
func AppendError(dst []byte, p Protocol, e *Error) []byte {
	if c := errorCodec(p); c != nil {
		return c.AppendError(dst, p, e)
	}
	dst = append(dst, `{"error":{"message":`...)
	dst = jsonx.AppendString(dst, e.Message)
	return append(dst, "}}"...)
}

// errorCodec is the codec whose error format protocol p uses: p's own,
// or OpenAI's (the format most clients read) for an unknown protocol.
func errorCodec(p Protocol) Codec {
	if d := p.Descriptor(); d != nil {
		return d.codec
	}
	if d := OpenAIChat.Descriptor(); d != nil {
		return d.codec
	}
	return nil
}

// ClientStatus returns the HTTP status with which e is sent to a client of
// protocol p.
func ClientStatus(p Protocol, e *Error) int {
	d := p.Descriptor()
	return mapping.ClientStatus(e.Status, d != nil && d.Overloaded529)
}

// StreamExceptionPrefix and StreamErrorPrefix start the names of the SSE
// events that stand for an AWS event stream's exception messages
// ("exception:" and the exception's type, with {"message": …} data) and
// error messages ("error:" and the error code, with the message as text);
// the framing layer, package sse/eventstream, names them so.
const (
	StreamExceptionPrefix = "exception:"
	StreamErrorPrefix     = "error:"
)

// IsStreamException reports whether an SSE event name stands for an
// exception or error message of an AWS event stream, which ends it.
func IsStreamException(name string) bool {
	return strings.HasPrefix(name, StreamExceptionPrefix) || strings.HasPrefix(name, StreamErrorPrefix)
}

// DecodeStreamException returns the error that an AWS event stream's
// exception or error message carries (see StreamExceptionPrefix) in a
// stream of protocol p, or nil for any other event. Its code is the type
// as AWS's error bodies spell it (ThrottlingException), so that a Bedrock
// client gets it unchanged; its strings are copies.
func DecodeStreamException(p Protocol, name, data string) *Error {
	var t, msg string
	if rest, ok := strings.CutPrefix(name, StreamExceptionPrefix); ok {
		t, msg = rest, gjson.Get(data, "message").Str
	} else if rest, ok := strings.CutPrefix(name, StreamErrorPrefix); ok {
		t, msg = rest, data
	} else {
		return nil
	}
	if t != "" && t[0] >= 'a' && t[0] <= 'z' {
		t = string(t[0]-'a'+'A') + t[1:]
	}
	kind, _ := mapping.FromAWSErrorType(t)
	e := &Error{Status: mapping.StatusForKind(kind), Kind: kind, Code: strings.Clone(t), Protocol: p, Message: strings.Clone(msg)}
	if e.Message == "" {
		e.Message = "upstream " + string(p) + " stream failed with " + t
	}
	return e
}

// streamExceptions are the exceptions both of Bedrock's streams
// (InvokeModelWithResponseStream and ConverseStream) carry, by the kind of
// error they stand for; an error of another kind is an internal server
// exception there.
var streamExceptions = map[mapping.ErrorKind]string{
	mapping.ErrInvalidRequest:  "validationException",
	mapping.ErrRequestTooLarge: "validationException",
	mapping.ErrRateLimit:       "throttlingException",
	mapping.ErrOverloaded:      "serviceUnavailableException",
}

// AppendStreamException appends the SSE event that stands for e as an
// exception message of an AWS event stream (see DecodeStreamException):
// the upstream's own type when e came from an AWS protocol and both
// streams carry it (modelStreamErrorException, say), else the type of e's
// kind, in the lower camel case of exception messages.
func AppendStreamException(dst []byte, e *Error) []byte {
	if e == nil {
		e = &Error{Status: 502, Kind: mapping.ErrBadGateway, Message: "upstream stream failed"}
	}
	t := ""
	if d := e.Protocol.Descriptor(); d != nil && d.ErrorAtRoot && e.Code != "" {
		t = strings.ToLower(e.Code[:1]) + e.Code[1:]
		switch t {
		case "internalServerException", "modelStreamErrorException", "validationException", "throttlingException", "serviceUnavailableException":
		default:
			t = ""
		}
	}
	if t == "" {
		if t = streamExceptions[e.Kind]; t == "" {
			t = "internalServerException"
		}
	}
	dst = append(dst, "event: "+StreamExceptionPrefix...)
	dst = append(dst, t...)
	dst = append(dst, "\ndata: {\"message\":"...)
	dst = jsonx.AppendString(dst, e.Message)
	return append(dst, "}\n\n"...)
}
