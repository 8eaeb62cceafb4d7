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

// StreamExceptionPrefix starts the name of the SSE event that stands for
// an exception message of an AWS event stream: "exception:" followed by
// the exception's type (the framing layer, package sse/eventstream, names
// them so).
const StreamExceptionPrefix = "exception:"

// DecodeStreamException returns the error that an AWS event stream
// exception carries: an event named StreamExceptionPrefix and the
// exception's type (throttlingException, ...), with {"message": …} data,
// in a stream of protocol p. It returns nil for any other event.
func DecodeStreamException(p Protocol, name, data string) *Error {
	t, ok := strings.CutPrefix(name, StreamExceptionPrefix)
	if !ok {
		return nil
	}
	kind, _ := mapping.FromAWSErrorType(t)
	e := &Error{Status: mapping.StatusForKind(kind), Kind: kind, Code: t, Protocol: p, Message: gjson.Get(data, "message").String()}
	if e.Message == "" {
		e.Message = "upstream stream ended with " + t
	}
	return e
}

// AppendStreamException appends the SSE event that stands for e as an
// exception message of an AWS event stream (see DecodeStreamException).
// The type is the lower-camel-case name of e's kind of exception among
// those an InvokeModelWithResponseStream or ConverseStream reader knows.
func AppendStreamException(dst []byte, e *Error) []byte {
	t := "internalServerException"
	switch e.Kind {
	case mapping.ErrInvalidRequest, mapping.ErrRequestTooLarge:
		t = "validationException"
	case mapping.ErrRateLimit:
		t = "throttlingException"
	case mapping.ErrOverloaded:
		t = "serviceUnavailableException"
	case mapping.ErrTimeout:
		t = "modelTimeoutException"
	}
	dst = append(dst, "event: "+StreamExceptionPrefix...)
	dst = append(dst, t...)
	dst = append(dst, "\ndata: {\"message\":"...)
	dst = jsonx.AppendString(dst, e.Message)
	return append(dst, "}\n\n"...)
}
