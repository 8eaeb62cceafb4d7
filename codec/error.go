package codec

import (
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
	// Capability identifies what an error of ClassCapability names, for
	// the policy that removes it (Capability).
	Capability Capability
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

// AsError returns err as an *Error: itself when it is one (every error a
// codec returns is), else a generic API error with its message.
func AsError(err error) *Error {
	if e, ok := err.(*Error); ok {
		return e
	}
	return NewError(mapping.ErrAPI, err.Error())
}

// InvalidRequest returns the 400 invalid-request error about the field at
// param ("" for the body as a whole).
func InvalidRequest(param, message string) *Error {
	return &Error{Status: 400, Kind: mapping.ErrInvalidRequest, Param: param, Message: message}
}

// BadUpstream returns the 502 error for an answer of an upstream of
// protocol p that is not valid in p.
func BadUpstream(p Protocol, why string) *Error {
	return &Error{Status: 502, Kind: mapping.ErrBadGateway, Message: "upstream " + string(p) + " response is invalid: " + why}
}
