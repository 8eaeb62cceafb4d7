package interactions

import (
	"bytes"
	"strings"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/jsonx"
	"github.com/llmbridge/llmbridge/mapping"
	"github.com/tidwall/gjson"
)

// decodeGoogleError reads what an Interactions error object says beyond
// its message: its code, a Google status name such as RESOURCE_EXHAUSTED
// (a string, as the Interactions API writes it), or the HTTP status with
// the status name in "status" (Google's older format, which the API also
// answers with).
func decodeGoogleError(errObj gjson.Result, e *codec.Error) {
	status := errObj.Get("status").Str
	if code := errObj.Get("code"); code.Type == gjson.String {
		status = code.Str
	}
	e.Code = status
	if k, ok := mapping.FromGoogleStatus(status); ok {
		e.Kind = k
	}
}

// appendGoogleError appends e as an Interactions error body for a client
// of protocol p: {"error":{"code":"<STATUS>","message":...}}, the code a
// Google status name. The Interactions SDKs read code as a string; the
// status a Google upstream gave is kept.
func appendGoogleError(dst []byte, p codec.Protocol, e *codec.Error) []byte {
	status := codec.ClientStatus(p, e)
	code := mapping.GoogleStatus(e.Kind, status)
	if d := e.Protocol.Descriptor(); d != nil && d.Rules.Provider == rules.Provider && isStatusName(e.Code) {
		code = e.Code
	}
	dst = append(dst, `{"error":{"code":`...)
	dst = jsonx.AppendString(dst, code)
	dst = append(dst, `,"message":`...)
	if e.Protocol == "" && e.Param != "" && !strings.Contains(e.Message, e.Param) {
		// Google's format has no member for the field at fault: a
		// request llmbridge refuses names it in the message. An
		// upstream's field is its own request's, and stays out.
		dst = jsonx.AppendString(dst, e.Param+": "+e.Message)
	} else {
		dst = jsonx.AppendString(dst, e.Message)
	}
	return append(dst, `}}`...)
}

// isStatusName reports whether s looks like a Google status name: upper
// case letters and underscores.
func isStatusName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < 'A' || c > 'Z') && c != '_' {
			return false
		}
	}
	return true
}

// errorEvent is the error that an in-stream error event's error object
// stands for: status from its code (a status name or an HTTP status),
// message and kind read as from an error body. The event is copied:
// errors outlive the event they came in.
func errorEvent(p codec.Protocol, errObj gjson.Result) *codec.Error {
	status := 500
	code := errObj.Get("code")
	switch {
	case code.Type == gjson.Number && code.Num >= 400 && code.Num <= 599:
		status = int(code.Num)
	case code.Type == gjson.String:
		if k, ok := mapping.FromGoogleStatus(code.Str); ok {
			status = mapping.StatusForKind(k)
		}
	}
	var body bytes.Buffer
	body.WriteString(`{"error":`)
	body.WriteString(errObj.Raw)
	body.WriteByte('}')
	return codec.DecodeError(p, status, body.Bytes())
}
