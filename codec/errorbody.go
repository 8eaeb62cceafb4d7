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
func errorCodec(p Protocol) Translator {
	if d := p.Descriptor(); d != nil {
		return d.codec
	}
	if d := OpenAIChat.Descriptor(); d != nil {
		return d.codec
	}
	return nil
}

// ClientStatus returns the HTTP status with which e is sent to a client of
// protocol p: its own (StatusMapper), else the status mapping.ClientStatus
// relays to a client that is not Anthropic's.
func ClientStatus(p Protocol, e *Error) int {
	if d := p.Descriptor(); d != nil && d.statuses != nil {
		return d.statuses.ClientStatus(p, e)
	}
	return mapping.ClientStatus(e.Status, false)
}

// DecodeFramingError returns the error that an event of an upstream stream
// of protocol p stands for when the stream's framing carries it rather
// than the protocol's own events (an AWS event stream's exception and
// error messages: FramingEventStream, FramingEventChunks), or nil for any
// other event and for a protocol framed as SSE. Its strings are copies:
// name and data may be reused once it returns.
func DecodeFramingError(p Protocol, name, data string) *Error {
	d := p.Descriptor()
	if d == nil || d.Framing == FramingSSE || d.framingErrors == nil {
		return nil
	}
	return d.framingErrors.DecodeFramingError(p, name, data)
}
