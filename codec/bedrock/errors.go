package bedrock

import (
	"strings"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/jsonx"
	"github.com/llmbridge/llmbridge/mapping"
	"github.com/tidwall/gjson"
)

// decodeAWSError reads the type of an AWS JSON error object: __type, or
// code as some AWS services write it. The type is kept as the error's code
// without the namespace that may precede it (aws.protocols#...) or the
// URI that may follow it (ValidationException:http://...), so that a
// Bedrock client gets the type its SDK knows.
func decodeAWSError(obj gjson.Result, e *codec.Error) {
	typ := obj.Get("__type").Str
	if typ == "" {
		typ = obj.Get("code").Str
	}
	typ = awsTypeName(typ)
	if typ == "" {
		return
	}
	if k, ok := mapping.FromAWSErrorType(typ); ok {
		e.Kind = k
	}
	e.Code = typ
}

// awsTypeName returns the bare name of an AWS error type.
func awsTypeName(t string) string {
	if i := strings.IndexByte(t, ':'); i >= 0 {
		t = t[:i]
	}
	if i := strings.LastIndexByte(t, '#'); i >= 0 {
		t = t[i+1:]
	}
	return t
}

// awsErrorType returns the AWS error type for e: its own code when it came
// from a Bedrock upstream, else the type of its kind.
func awsErrorType(e *codec.Error) string {
	if e.Protocol.Family() == codec.Bedrock && e.Code != "" {
		return e.Code
	}
	return mapping.AWSErrorType(e.Kind)
}

// appendAWSError appends e as an AWS JSON error body. The type is in
// __type, which the AWS SDKs read when the X-Amzn-Errortype header is
// absent.
func appendAWSError(dst []byte, e *codec.Error) []byte {
	dst = append(dst, `{"message":`...)
	dst = jsonx.AppendString(dst, e.Message)
	dst = append(dst, `,"__type":`...)
	dst = jsonx.AppendString(dst, awsErrorType(e))
	return append(dst, '}')
}
