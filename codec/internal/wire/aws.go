package wire

import (
	"strings"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/jsonx"
	"github.com/llmbridge/llmbridge/mapping"
	"github.com/tidwall/gjson"
)

// DecodeAWSError reads the type of an AWS JSON error object (Amazon
// Bedrock's): its __type or code member, which may carry a namespace
// before '#' or a URL after ':'.
func DecodeAWSError(obj gjson.Result, e *codec.Error) {
	t := obj.Get("__type").Str
	if t == "" {
		t = obj.Get("code").Str
	}
	t = awsErrorName(t)
	if t == "" {
		return
	}
	if k, ok := mapping.FromAWSErrorType(t); ok {
		e.Kind = k
	}
	e.Code = t
}

// AppendAWSError appends e as an AWS JSON error body: {"message": …,
// "__type": …}. The AWS SDKs read the type from __type when the
// X-Amzn-Errortype header is absent. An upstream AWS error keeps its own
// type; others get the type of their kind.
func AppendAWSError(dst []byte, e *codec.Error) []byte {
	typ := mapping.AWSErrorType(e.Kind)
	if d := e.Protocol.Descriptor(); d != nil && d.ErrorAtRoot && e.Code != "" {
		typ = e.Code
	}
	dst = append(dst, `{"message":`...)
	dst = jsonx.AppendString(dst, e.Message)
	dst = append(dst, `,"__type":`...)
	dst = jsonx.AppendString(dst, typ)
	return append(dst, '}')
}

// awsErrorName is an AWS error type without its namespace or URL.
func awsErrorName(t string) string {
	if i := strings.IndexByte(t, ':'); i >= 0 {
		t = t[:i]
	}
	if i := strings.LastIndexByte(t, '#'); i >= 0 {
		t = t[i+1:]
	}
	return t
}

// AWSPathSegment escapes s as the AWS SDKs escape a path segment (a
// Bedrock model id's ':' as %3A, an ARN's '/' as %2F): every byte but
// the unreserved ones (RFC 3986) is percent-encoded. A SigV4 signature
// covers the escaped path, so a request must carry exactly this form.
func AWSPathSegment(s string) string {
	const hex = "0123456789ABCDEF"
	n := 0
	for i := 0; i < len(s); i++ {
		if !unreserved(s[i]) {
			n++
		}
	}
	if n == 0 {
		return s
	}
	b := make([]byte, 0, len(s)+2*n)
	for i := 0; i < len(s); i++ {
		if c := s[i]; unreserved(c) {
			b = append(b, c)
		} else {
			b = append(b, '%', hex[c>>4], hex[c&15])
		}
	}
	return string(b)
}

// unreserved reports whether c is an unreserved URI character.
func unreserved(c byte) bool {
	return 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~'
}

// bedrockRegions are the prefixes of Bedrock's cross-region inference
// profiles (us.anthropic.claude-…).
var bedrockRegions = []string{"us.", "eu.", "apac.", "global.", "jp.", "au.", "ca.", "us-gov."}

// BedrockVendorModel returns the vendor's name of a Bedrock model id: the
// id without its cross-region prefix, its vendor and its version suffix
// (us.anthropic.claude-sonnet-4-5-20250929-v1:0 is
// claude-sonnet-4-5-20250929). An ARN, or an id of another shape, is
// returned as it is.
func BedrockVendorModel(id string) string {
	if strings.HasPrefix(id, "arn:") {
		return id
	}
	m := id
	for _, r := range bedrockRegions {
		if strings.HasPrefix(m, r) && strings.Count(m, ".") >= 2 {
			m = m[len(r):]
			break
		}
	}
	dot := strings.IndexByte(m, '.')
	if dot <= 0 {
		return id
	}
	m = m[dot+1:]
	// The version: -v1:0, -v2:0, or -v1.
	if i := strings.LastIndex(m, "-v"); i > 0 {
		v := m[i+2:]
		if c := strings.IndexByte(v, ':'); c >= 0 {
			v = v[:c] + v[c+1:]
		}
		if v != "" && strings.Trim(v, "0123456789") == "" {
			m = m[:i]
		}
	}
	if m == "" {
		return id
	}
	return m
}
