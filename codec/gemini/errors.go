package gemini

import (
	"strings"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/jsonx"
	"github.com/llmbridge/llmbridge/mapping"
	"github.com/tidwall/gjson"
)

// decodeGoogleError reads the status of a Google error object.
func decodeGoogleError(errObj gjson.Result, e *codec.Error) {
	e.Code = errObj.Get("status").Str
	if k, ok := mapping.FromGoogleStatus(e.Code); ok {
		e.Kind = k
	}
}

// appendGoogleError appends e as a Google error body for a client of
// protocol p.
func appendGoogleError(dst []byte, p codec.Protocol, e *codec.Error) []byte {
	status := codec.ClientStatus(p, e)
	dst = append(dst, `{"error":{"code":`...)
	dst = jsonx.AppendInt(dst, int64(status))
	dst = append(dst, `,"message":`...)
	dst = jsonx.AppendString(dst, e.Message)
	dst = append(dst, `,"status":`...)
	code := mapping.GoogleStatus(e.Kind, status)
	if e.Protocol.Family() == codec.Gemini && e.Code != "" {
		code = e.Code
	}
	dst = jsonx.AppendString(dst, code)
	return append(dst, `}}`...)
}

// IsErrorBody accepts a JSON array whose first element is an error
// object, as Google sends for some failed requests.
func (geminiCodec) IsErrorBody(_ codec.Protocol, body string) bool {
	t := strings.TrimLeft(body, " \t\r\n")
	return len(t) > 0 && t[0] == '[' && jsonx.Valid(t) && gjson.Get(t, "0.error.message").Type == gjson.String
}
