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

// badUpstream is the error for an upstream answer that is not valid in its
// protocol.
func badUpstream(p Protocol, why string) *Error {
	return &Error{Status: 502, Kind: mapping.ErrBadGateway, Message: "upstream " + string(p) + " response is invalid: " + why}
}

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
			if c, err := wireOf(p); err == nil {
				c.decodeError(errObj, e)
			} else {
				decodeOpenAIError(errObj, e)
			}
		} else if errObj.Type == gjson.String {
			e.Message = errObj.Str
		} else if m := root.Get("message"); m.Type == gjson.String {
			e.Message = m.Str
		}
	}
	if e.Message == "" {
		e.Message = fallbackMessage(status, s)
	}
	return e
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
	c, err := wireOf(p)
	if err != nil {
		return appendOpenAIError(dst, p, e)
	}
	return c.appendError(dst, p, e)
}

// decodeAnthropicError reads the type of an Anthropic error object.
func decodeAnthropicError(errObj gjson.Result, e *Error) {
	if k, ok := mapping.FromAnthropicErrorType(errObj.Get("type").Str); ok {
		e.Kind = k
	}
	e.Code = errObj.Get("type").Str
}

// decodeGoogleError reads the status of a Google error object.
func decodeGoogleError(errObj gjson.Result, e *Error) {
	e.Code = errObj.Get("status").Str
	if k, ok := mapping.FromGoogleStatus(e.Code); ok {
		e.Kind = k
	}
}

// decodeOpenAIError reads the code, param and type of an OpenAI error
// object.
func decodeOpenAIError(errObj gjson.Result, e *Error) {
	e.Code = errObj.Get("code").String()
	e.Param = errObj.Get("param").String()
	if k, ok := mapping.FromOpenAIErrorType(e.Code); ok {
		e.Kind = k
	} else if k, ok := mapping.FromOpenAIErrorType(errObj.Get("type").Str); ok {
		e.Kind = k
	}
}

// appendAnthropicError appends e as an Anthropic error body.
func appendAnthropicError(dst []byte, _ Protocol, e *Error) []byte {
	dst = append(dst, `{"type":"error","error":{"type":`...)
	typ := mapping.AnthropicErrorType(e.Kind)
	if e.Protocol.IsAnthropic() && e.Code != "" {
		typ = e.Code
	}
	dst = jsonx.AppendString(dst, typ)
	dst = append(dst, `,"message":`...)
	dst = jsonx.AppendString(dst, e.Message)
	return append(dst, `}}`...)
}

// appendGoogleError appends e as a Google error body for a client of
// protocol p.
func appendGoogleError(dst []byte, p Protocol, e *Error) []byte {
	status := ClientStatus(p, e)
	dst = append(dst, `{"error":{"code":`...)
	dst = jsonx.AppendInt(dst, int64(status))
	dst = append(dst, `,"message":`...)
	dst = jsonx.AppendString(dst, e.Message)
	dst = append(dst, `,"status":`...)
	code := mapping.GoogleStatus(e.Kind, status)
	if e.Protocol.IsGoogle() && e.Code != "" {
		code = e.Code
	}
	dst = jsonx.AppendString(dst, code)
	return append(dst, `}}`...)
}

// appendOpenAIError appends e as an OpenAI error body.
func appendOpenAIError(dst []byte, _ Protocol, e *Error) []byte {
	dst = append(dst, `{"error":{"message":`...)
	dst = jsonx.AppendString(dst, e.Message)
	dst = append(dst, `,"type":`...)
	dst = jsonx.AppendString(dst, mapping.OpenAIErrorType(e.Kind))
	dst = append(dst, `,"param":`...)
	if e.Param != "" {
		dst = jsonx.AppendString(dst, e.Param)
	} else {
		dst = append(dst, "null"...)
	}
	dst = append(dst, `,"code":`...)
	if e.Code != "" && (e.Protocol == OpenAIChat || e.Protocol == OpenAIResponses) {
		dst = jsonx.AppendString(dst, e.Code)
	} else {
		dst = append(dst, "null"...)
	}
	return append(dst, `}}`...)
}

// ClientStatus returns the HTTP status with which e is sent to a client of
// protocol p.
func ClientStatus(p Protocol, e *Error) int {
	return mapping.ClientStatus(e.Status, p.IsAnthropic())
}
