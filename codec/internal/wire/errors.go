package wire

import (
	"strconv"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/tidwall/gjson"
)

// Invalid is codec.InvalidRequest, the error of most decoding failures.
func Invalid(path, message string) *codec.Error { return codec.InvalidRequest(path, message) }

// UnsupportedField rejects a field the codec knows it cannot carry.
func UnsupportedField(path, why string) *codec.Error {
	e := Invalid(path, "field is not supported by llmbridge for translation: "+why)
	e.Class = codec.ClassCapability
	return e
}

// RejectUnlessNull rejects a capability field outside what llmbridge
// translates, unless it is null (which means absent).
func RejectUnlessNull(v gjson.Result, path, why string) *codec.Error {
	if v.Type == gjson.Null {
		return nil
	}
	return UnsupportedField(path, why)
}

// UnknownField rejects a field the codec does not know.
func UnknownField(path string) *codec.Error {
	e := Invalid(path, "unknown field; llmbridge does not forward fields it cannot translate")
	e.Class = codec.ClassUnknownField
	return e
}

// CannotEncode rejects a request whose canonical content the target protocol
// cannot express.
func CannotEncode(p codec.Protocol, path, what string) *codec.Error {
	e := Invalid(path, what+" cannot be expressed in the "+string(p)+" protocol")
	e.Class = codec.ClassCapability
	return e
}

// IndexPath returns prefix[i], for error paths only.
func IndexPath(prefix string, i int) string {
	return prefix + "[" + strconv.Itoa(i) + "]"
}
