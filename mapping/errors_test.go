package mapping

import "testing"

func TestKindForStatusAndBack(t *testing.T) {
	tests := []struct {
		status int
		kind   ErrorKind
		back   int
	}{
		{400, ErrInvalidRequest, 400},
		{401, ErrAuthentication, 401},
		{402, ErrBilling, 402},
		{403, ErrPermission, 403},
		{404, ErrNotFound, 404},
		{405, ErrMethodNotAllowed, 405},
		{408, ErrTimeout, 504},
		{413, ErrRequestTooLarge, 413},
		{422, ErrInvalidRequest, 400},
		{429, ErrRateLimit, 429},
		{418, ErrInvalidRequest, 400},
		{500, ErrAPI, 500},
		{502, ErrBadGateway, 502},
		{503, ErrOverloaded, 503},
		{504, ErrTimeout, 504},
		{529, ErrOverloaded, 503},
	}
	for _, tt := range tests {
		k := KindForStatus(tt.status)
		if k != tt.kind {
			t.Errorf("KindForStatus(%d) = %v, want %v", tt.status, k, tt.kind)
		}
		if got := StatusForKind(k); got != tt.back {
			t.Errorf("StatusForKind(%v) = %d, want %d", k, got, tt.back)
		}
	}
}

func TestClientStatus(t *testing.T) {
	if ClientStatus(529, false) != 503 || ClientStatus(529, true) != 529 || ClientStatus(429, false) != 429 {
		t.Error("529 must become 503 for non-Anthropic clients only")
	}
}

func TestErrorTypeTables(t *testing.T) {
	kinds := []ErrorKind{ErrAPI, ErrInvalidRequest, ErrAuthentication, ErrPermission, ErrNotFound, ErrRequestTooLarge,
		ErrRateLimit, ErrBilling, ErrOverloaded, ErrTimeout, ErrMethodNotAllowed, ErrBadGateway}
	for _, k := range kinds {
		// Anthropic spells every kind; its own types round-trip.
		at := AnthropicErrorType(k)
		back, ok := FromAnthropicErrorType(at)
		if !ok {
			t.Errorf("FromAnthropicErrorType(%q) unknown", at)
		}
		if k != ErrMethodNotAllowed && k != ErrBadGateway && back != k {
			t.Errorf("anthropic %v -> %q -> %v", k, at, back)
		}
		if ot := OpenAIErrorType(k); ot == "" {
			t.Errorf("OpenAIErrorType(%v) empty", k)
		}
		if gs := GoogleStatus(k, StatusForKind(k)); gs == "" {
			t.Errorf("GoogleStatus(%v) empty", k)
		}
	}
	anth := map[string]ErrorKind{"overloaded_error": ErrOverloaded, "rate_limit_error": ErrRateLimit, "billing_error": ErrBilling,
		"request_too_large": ErrRequestTooLarge, "timeout_error": ErrTimeout, "api_error": ErrAPI, "not_found_error": ErrNotFound,
		"permission_error": ErrPermission, "authentication_error": ErrAuthentication, "invalid_request_error": ErrInvalidRequest}
	for typ, want := range anth {
		if got, ok := FromAnthropicErrorType(typ); !ok || got != want {
			t.Errorf("FromAnthropicErrorType(%q) = %v, %v", typ, got, ok)
		}
	}
	if _, ok := FromAnthropicErrorType("new_error"); ok {
		t.Error("unknown anthropic type accepted")
	}
	openai := map[string]ErrorKind{"insufficient_quota": ErrBilling, "rate_limit_exceeded": ErrRateLimit, "invalid_api_key": ErrAuthentication,
		"model_not_found": ErrNotFound, "server_error": ErrAPI, "invalid_request_error": ErrInvalidRequest, "unsupported_parameter": ErrInvalidRequest,
		"permission_denied": ErrPermission, "service_unavailable": ErrOverloaded, "timeout": ErrTimeout}
	for typ, want := range openai {
		if got, ok := FromOpenAIErrorType(typ); !ok || got != want {
			t.Errorf("FromOpenAIErrorType(%q) = %v, %v", typ, got, ok)
		}
	}
	if _, ok := FromOpenAIErrorType("whatever"); ok {
		t.Error("unknown openai type accepted")
	}
	google := map[string]ErrorKind{"INVALID_ARGUMENT": ErrInvalidRequest, "FAILED_PRECONDITION": ErrInvalidRequest, "UNAUTHENTICATED": ErrAuthentication,
		"PERMISSION_DENIED": ErrPermission, "NOT_FOUND": ErrNotFound, "RESOURCE_EXHAUSTED": ErrRateLimit, "INTERNAL": ErrAPI,
		"UNAVAILABLE": ErrOverloaded, "DEADLINE_EXCEEDED": ErrTimeout, "CANCELLED": ErrAPI}
	for st, want := range google {
		if got, ok := FromGoogleStatus(st); !ok || got != want {
			t.Errorf("FromGoogleStatus(%q) = %v, %v", st, got, ok)
		}
		if back := GoogleStatus(want, StatusForKind(want)); want != ErrInvalidRequest && st != "CANCELLED" && back != st {
			t.Errorf("GoogleStatus(%v) = %q, want %q", want, back, st)
		}
	}
	if _, ok := FromGoogleStatus("NEW"); ok {
		t.Error("unknown google status accepted")
	}
	if GoogleStatus(ErrAPI, 499) != "CANCELLED" || GoogleStatus(ErrAPI, 500) != "INTERNAL" {
		t.Error("GoogleStatus fallbacks")
	}
}

func TestAWSErrorTypes(t *testing.T) {
	cases := []struct {
		typ  string
		want ErrorKind
	}{
		{"ValidationException", ErrInvalidRequest},
		{"ValidationException:http://internal.amazon.com/coral/com.amazon.bedrock/", ErrInvalidRequest},
		{"com.amazon.coral.service#UnrecognizedClientException", ErrAuthentication},
		{"AccessDeniedException", ErrPermission},
		{"ResourceNotFoundException", ErrNotFound},
		{"ThrottlingException", ErrRateLimit},
		{"throttlingException", ErrRateLimit},
		{"ServiceQuotaExceededException", ErrRateLimit},
		{"ModelNotReadyException", ErrRateLimit},
		{"serviceUnavailableException", ErrOverloaded},
		{"ModelTimeoutException", ErrTimeout},
		{"modelStreamErrorException", ErrAPI},
		{"InternalServerException", ErrAPI},
	}
	for _, c := range cases {
		if got, ok := FromAWSErrorType(c.typ); !ok || got != c.want {
			t.Errorf("FromAWSErrorType(%q) = %v, %v; want %v", c.typ, got, ok, c.want)
		}
	}
	for _, typ := range []string{"", "NewException", "x"} {
		if _, ok := FromAWSErrorType(typ); ok {
			t.Errorf("FromAWSErrorType(%q) accepted", typ)
		}
	}
	// Every kind has a type that maps back to a kind of the same status
	// class.
	for k := ErrAPI; k <= ErrBadGateway; k++ {
		typ := AWSErrorType(k)
		back, ok := FromAWSErrorType(typ)
		if !ok {
			t.Errorf("AWSErrorType(%v) = %q, unknown to FromAWSErrorType", k, typ)
		}
		if StatusForKind(back)/100 != StatusForKind(k)/100 {
			t.Errorf("%v -> %q -> %v changes the status class", k, typ, back)
		}
	}
}
