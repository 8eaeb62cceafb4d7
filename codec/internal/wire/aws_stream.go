package wire

import (
	"strings"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/jsonx"
	"github.com/llmbridge/llmbridge/mapping"
	"github.com/tidwall/gjson"
)

// ExceptionPrefix and ErrorPrefix start the names of the SSE events that
// stand for an AWS event stream's exception messages ("exception:" and
// the exception's type, with {"message": …} data) and error messages
// ("error:" and the error code, with the message as text); the framing
// layer, package sse/eventstream, names them so.
const (
	ExceptionPrefix = "exception:"
	ErrorPrefix     = "error:"
)

// IsStreamException reports whether an SSE event name stands for an
// exception or error message of an AWS event stream, which ends it.
func IsStreamException(name string) bool {
	return strings.HasPrefix(name, ExceptionPrefix) || strings.HasPrefix(name, ErrorPrefix)
}

// DecodeStreamException returns the error that an AWS event stream's
// exception or error message carries (see ExceptionPrefix) in a stream of
// protocol p, or nil for any other event. Its code is the type as AWS's
// error bodies spell it (ThrottlingException), so that a Bedrock client
// gets it unchanged; its strings are copies.
func DecodeStreamException(p codec.Protocol, name, data string) *codec.Error {
	var t, msg string
	if rest, ok := strings.CutPrefix(name, ExceptionPrefix); ok {
		t, msg = rest, gjson.Get(data, "message").Str
	} else if rest, ok := strings.CutPrefix(name, ErrorPrefix); ok {
		t, msg = rest, data
	} else {
		return nil
	}
	if t != "" && t[0] >= 'a' && t[0] <= 'z' {
		t = string(t[0]-'a'+'A') + t[1:]
	}
	kind, _ := mapping.FromAWSErrorType(t)
	e := &codec.Error{Status: mapping.StatusForKind(kind), Kind: kind, Code: strings.Clone(t), Protocol: p, Message: strings.Clone(msg)}
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
func AppendStreamException(dst []byte, e *codec.Error) []byte {
	if e == nil {
		e = &codec.Error{Status: 502, Kind: mapping.ErrBadGateway, Message: "upstream stream failed"}
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
	dst = append(dst, "event: "+ExceptionPrefix...)
	dst = append(dst, t...)
	dst = append(dst, "\ndata: {\"message\":"...)
	dst = jsonx.AppendString(dst, e.Message)
	return append(dst, "}\n\n"...)
}
