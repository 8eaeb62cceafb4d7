package mapping

import (
	"net/http"
	"strings"
)

// ErrorKind is the canonical class of an API error, independent of how a
// protocol spells it.
type ErrorKind uint8

// Canonical error kinds.
const (
	// ErrAPI is a server-side failure with no more specific kind.
	ErrAPI ErrorKind = iota
	// ErrInvalidRequest is a malformed or unacceptable request.
	ErrInvalidRequest
	// ErrAuthentication is a missing or invalid credential.
	ErrAuthentication
	// ErrPermission is a valid credential without access to the resource.
	ErrPermission
	// ErrNotFound is an unknown model, path or resource.
	ErrNotFound
	// ErrRequestTooLarge is a request body over a size limit.
	ErrRequestTooLarge
	// ErrRateLimit is a rate limit or exhausted quota.
	ErrRateLimit
	// ErrBilling is a billing problem (Anthropic billing_error).
	ErrBilling
	// ErrOverloaded is a provider that is temporarily over capacity
	// (Anthropic 529 overloaded_error, Google 503 UNAVAILABLE).
	ErrOverloaded
	// ErrTimeout is a deadline exceeded upstream.
	ErrTimeout
	// ErrMethodNotAllowed is a wrong HTTP method on a known path.
	ErrMethodNotAllowed
	// ErrBadGateway is an upstream that could not be reached or answered
	// something that is not its protocol.
	ErrBadGateway
)

// StatusOverloaded is Anthropic's non-standard HTTP status for overload.
const StatusOverloaded = 529

// KindForStatus returns the error kind implied by an HTTP status alone.
func KindForStatus(status int) ErrorKind {
	switch status {
	case http.StatusBadRequest, http.StatusUnprocessableEntity:
		return ErrInvalidRequest
	case http.StatusUnauthorized:
		return ErrAuthentication
	case http.StatusPaymentRequired:
		return ErrBilling
	case http.StatusForbidden:
		return ErrPermission
	case http.StatusNotFound:
		return ErrNotFound
	case http.StatusMethodNotAllowed:
		return ErrMethodNotAllowed
	case http.StatusRequestEntityTooLarge:
		return ErrRequestTooLarge
	case http.StatusTooManyRequests:
		return ErrRateLimit
	case http.StatusBadGateway:
		return ErrBadGateway
	case http.StatusServiceUnavailable, StatusOverloaded:
		return ErrOverloaded
	case http.StatusGatewayTimeout, http.StatusRequestTimeout:
		return ErrTimeout
	}
	if status >= 400 && status < 500 {
		return ErrInvalidRequest
	}
	return ErrAPI
}

// StatusForKind returns the HTTP status llmbridge uses for an error it
// raises itself (not one relayed from an upstream, which keeps its status).
func StatusForKind(k ErrorKind) int {
	switch k {
	case ErrInvalidRequest:
		return http.StatusBadRequest
	case ErrAuthentication:
		return http.StatusUnauthorized
	case ErrBilling:
		return http.StatusPaymentRequired
	case ErrPermission:
		return http.StatusForbidden
	case ErrNotFound:
		return http.StatusNotFound
	case ErrMethodNotAllowed:
		return http.StatusMethodNotAllowed
	case ErrRequestTooLarge:
		return http.StatusRequestEntityTooLarge
	case ErrRateLimit:
		return http.StatusTooManyRequests
	case ErrOverloaded:
		return http.StatusServiceUnavailable
	case ErrTimeout:
		return http.StatusGatewayTimeout
	case ErrBadGateway:
		return http.StatusBadGateway
	}
	return http.StatusInternalServerError
}

// ClientStatus returns the status an upstream error is relayed with to a
// client whose protocol is Anthropic (anthropic is true) or not.
//
// The status is kept, except Anthropic's non-standard 529: OpenAI and Google
// clients and their SDKs know 503 as "overloaded, retry later".
func ClientStatus(upstreamStatus int, anthropic bool) int {
	if upstreamStatus == StatusOverloaded && !anthropic {
		return http.StatusServiceUnavailable
	}
	return upstreamStatus
}

// FromAnthropicErrorType maps an Anthropic error.type; ok is false for a
// type it does not know.
func FromAnthropicErrorType(t string) (k ErrorKind, ok bool) {
	switch t {
	case "invalid_request_error":
		return ErrInvalidRequest, true
	case "authentication_error":
		return ErrAuthentication, true
	case "permission_error":
		return ErrPermission, true
	case "not_found_error":
		return ErrNotFound, true
	case "request_too_large":
		return ErrRequestTooLarge, true
	case "rate_limit_error":
		return ErrRateLimit, true
	case "billing_error":
		return ErrBilling, true
	case "api_error":
		return ErrAPI, true
	case "overloaded_error":
		return ErrOverloaded, true
	case "timeout_error":
		return ErrTimeout, true
	}
	return ErrAPI, false
}

// AnthropicErrorType returns the Anthropic error.type for k.
func AnthropicErrorType(k ErrorKind) string {
	switch k {
	case ErrInvalidRequest, ErrMethodNotAllowed:
		return "invalid_request_error"
	case ErrAuthentication:
		return "authentication_error"
	case ErrPermission:
		return "permission_error"
	case ErrNotFound:
		return "not_found_error"
	case ErrRequestTooLarge:
		return "request_too_large"
	case ErrRateLimit:
		return "rate_limit_error"
	case ErrBilling:
		return "billing_error"
	case ErrOverloaded:
		return "overloaded_error"
	case ErrTimeout:
		return "timeout_error"
	}
	return "api_error"
}

// FromOpenAIErrorType maps an OpenAI error.type or error.code; ok is false
// for a value it does not know.
func FromOpenAIErrorType(t string) (k ErrorKind, ok bool) {
	switch t {
	case "invalid_request_error", "invalid_value", "unsupported_parameter", "invalid_prompt":
		return ErrInvalidRequest, true
	case "authentication_error", "invalid_api_key":
		return ErrAuthentication, true
	case "permission_error", "permission_denied":
		return ErrPermission, true
	case "not_found_error", "model_not_found":
		return ErrNotFound, true
	case "rate_limit_error", "rate_limit_exceeded", "requests", "tokens":
		return ErrRateLimit, true
	case "insufficient_quota":
		return ErrBilling, true
	case "server_error", "api_error":
		return ErrAPI, true
	case "overloaded_error", "service_unavailable", "service_unavailable_error", "server_is_overloaded":
		return ErrOverloaded, true
	case "timeout", "timeout_error":
		return ErrTimeout, true
	}
	return ErrAPI, false
}

// OpenAIErrorType returns the OpenAI error.type for k. OpenAI documents few
// types; these follow its spelling and the SDKs branch on status anyway.
func OpenAIErrorType(k ErrorKind) string {
	switch k {
	case ErrInvalidRequest, ErrMethodNotAllowed, ErrNotFound, ErrRequestTooLarge:
		return "invalid_request_error"
	case ErrAuthentication:
		return "authentication_error"
	case ErrPermission:
		return "permission_error"
	case ErrRateLimit:
		return "rate_limit_error"
	case ErrBilling:
		return "insufficient_quota"
	case ErrOverloaded:
		return "service_unavailable_error"
	case ErrTimeout:
		return "timeout_error"
	}
	return "server_error"
}

// FromGoogleStatus maps a Google RPC status name (error.status); ok is false
// for a value it does not know.
func FromGoogleStatus(s string) (k ErrorKind, ok bool) {
	switch s {
	case "INVALID_ARGUMENT", "FAILED_PRECONDITION", "OUT_OF_RANGE":
		return ErrInvalidRequest, true
	case "UNAUTHENTICATED":
		return ErrAuthentication, true
	case "PERMISSION_DENIED":
		return ErrPermission, true
	case "NOT_FOUND":
		return ErrNotFound, true
	case "RESOURCE_EXHAUSTED":
		return ErrRateLimit, true
	case "INTERNAL", "UNKNOWN", "DATA_LOSS", "CANCELLED", "ABORTED":
		return ErrAPI, true
	case "UNAVAILABLE":
		return ErrOverloaded, true
	case "DEADLINE_EXCEEDED":
		return ErrTimeout, true
	}
	return ErrAPI, false
}

// GoogleStatus returns the Google RPC status name for an error of kind k
// sent with HTTP status.
func GoogleStatus(k ErrorKind, status int) string {
	switch k {
	case ErrInvalidRequest:
		return "INVALID_ARGUMENT"
	case ErrAuthentication:
		return "UNAUTHENTICATED"
	case ErrPermission, ErrBilling:
		return "PERMISSION_DENIED"
	case ErrNotFound, ErrMethodNotAllowed:
		return "NOT_FOUND"
	case ErrRequestTooLarge:
		return "INVALID_ARGUMENT"
	case ErrRateLimit:
		return "RESOURCE_EXHAUSTED"
	case ErrOverloaded:
		return "UNAVAILABLE"
	case ErrTimeout:
		return "DEADLINE_EXCEEDED"
	}
	if status == 499 {
		return "CANCELLED"
	}
	return "INTERNAL"
}

// FromAWSErrorType maps the error type of an AWS service (Amazon Bedrock
// Runtime): the X-Amzn-Errortype header or a body's __type or code, which
// may carry a namespace before "#" or a URL after ":", or an exception
// message's :exception-type inside an event stream, spelled in lower
// camel case there. ok is false for a type it does not know.
func FromAWSErrorType(t string) (k ErrorKind, ok bool) {
	if i := strings.IndexByte(t, ':'); i >= 0 {
		t = t[:i]
	}
	if i := strings.LastIndexByte(t, '#'); i >= 0 {
		t = t[i+1:]
	}
	if t != "" && t[0] >= 'a' && t[0] <= 'z' {
		t = string(t[0]-'a'+'A') + t[1:]
	}
	switch t {
	case "ValidationException", "ConflictException", "ModelErrorException", "SerializationException":
		return ErrInvalidRequest, true
	case "UnrecognizedClientException", "InvalidSignatureException", "IncompleteSignatureException",
		"MissingAuthenticationTokenException", "ExpiredTokenException", "InvalidClientTokenId":
		return ErrAuthentication, true
	case "AccessDeniedException":
		return ErrPermission, true
	case "ResourceNotFoundException":
		return ErrNotFound, true
	case "ThrottlingException", "ServiceQuotaExceededException", "ModelNotReadyException", "TooManyRequestsException":
		return ErrRateLimit, true
	case "ServiceUnavailableException":
		return ErrOverloaded, true
	case "ModelTimeoutException":
		return ErrTimeout, true
	case "InternalServerException", "ModelStreamErrorException", "InternalFailure":
		return ErrAPI, true
	}
	return ErrAPI, false
}

// AWSErrorType returns the AWS error type (Amazon Bedrock Runtime's
// exception names) for an error of kind k.
func AWSErrorType(k ErrorKind) string {
	switch k {
	case ErrInvalidRequest, ErrRequestTooLarge, ErrMethodNotAllowed:
		return "ValidationException"
	case ErrAuthentication:
		return "UnrecognizedClientException"
	case ErrPermission, ErrBilling:
		return "AccessDeniedException"
	case ErrNotFound:
		return "ResourceNotFoundException"
	case ErrRateLimit:
		return "ThrottlingException"
	case ErrOverloaded:
		return "ServiceUnavailableException"
	case ErrTimeout:
		return "ModelTimeoutException"
	}
	return "InternalServerException"
}
