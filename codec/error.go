package codec

import (
	"strconv"

	"github.com/tidwall/gjson"

	"github.com/llmbridge/llmbridge/mapping"
)

// Error is an API error in canonical form: one llmbridge raises itself (a
// request it rejects) or one an upstream returned. Encoded with AppendError,
// it becomes the client protocol's error body.
type Error struct {
	// Status is the HTTP status.
	Status int
	// Kind is the canonical error class.
	Kind mapping.ErrorKind
	// Message is the human-readable message.
	Message string
	// Param is the request field the error is about, as a path such as
	// "messages[2].content", when known.
	Param string
	// Code is the provider's machine-readable code (OpenAI error.code,
	// Google error.status), kept for clients of the same protocol family.
	Code string
	// Protocol is the protocol that produced Code, when it came from an
	// upstream.
	Protocol Protocol
	// Class says why a codec rejected a request (see ErrorClass); the
	// capability policy (on_unsupported) acts on it. Errors that are not
	// about a request field are ClassInvalid.
	Class ErrorClass
}

// Error returns the message, prefixed with the field path when known.
func (e *Error) Error() string {
	if e.Param != "" {
		return e.Param + ": " + e.Message
	}
	return e.Message
}

// NewError returns an error of kind k with the status llmbridge uses for it.
func NewError(k mapping.ErrorKind, message string) *Error {
	return &Error{Status: mapping.StatusForKind(k), Kind: k, Message: message}
}

// invalid returns a 400 invalid-request error about the field at path.
func invalid(path, message string) *Error {
	return &Error{Status: 400, Kind: mapping.ErrInvalidRequest, Param: path, Message: message}
}

// unsupportedField rejects a field the codec knows it cannot carry.
func unsupportedField(path, why string) *Error {
	e := invalid(path, "field is not supported by llmbridge for translation: "+why)
	e.Class = ClassCapability
	return e
}

// rejectUnlessNull rejects a capability field outside what llmbridge
// translates, unless it is null (which means absent).
func rejectUnlessNull(v gjson.Result, path, why string) *Error {
	if v.Type == gjson.Null {
		return nil
	}
	return unsupportedField(path, why)
}

// unknownField rejects a field the codec does not know.
func unknownField(path string) *Error {
	e := invalid(path, "unknown field; llmbridge does not forward fields it cannot translate")
	e.Class = ClassUnknownField
	return e
}

// cannotEncode rejects a request whose canonical content the target protocol
// cannot express.
func cannotEncode(p Protocol, path, what string) *Error {
	e := invalid(path, what+" cannot be expressed in the "+string(p)+" protocol")
	e.Class = ClassCapability
	return e
}

// indexPath returns prefix[i], for error paths only.
func indexPath(prefix string, i int) string {
	return prefix + "[" + strconv.Itoa(i) + "]"
}
