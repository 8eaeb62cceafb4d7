package codec_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/mapping"
)

// TestErrorSides holds the errors about malformed bodies to the side that
// sent them: a client's request that does not parse is the request's
// fault (400, "request body ..."), an upstream's answer that does not
// parse is the upstream's (502, naming its response), for every protocol
// and every way a body can fail to be a JSON object.
func TestErrorSides(t *testing.T) {
	bodies := []struct{ name, body string }{
		{"not JSON", `<html>502 Bad Gateway</html>`},
		{"cut JSON", `{"id":"x","content":[`},
		{"array", `[{"id":"x"}]`},
		{"empty", ``},
	}
	for _, p := range codec.Protocols() {
		for _, b := range bodies {
			var req codec.Request
			reqErr := asError(t, codec.DecodeRequest(p, []byte(b.body), &req))
			if reqErr.Status != 400 || reqErr.Kind != mapping.ErrInvalidRequest || !strings.Contains(reqErr.Message, "request body") || strings.Contains(reqErr.Message, "response") {
				t.Errorf("%s request, %s: %d %v %q; want 400 invalid_request naming the request body", p, b.name, reqErr.Status, reqErr.Kind, reqErr.Message)
			}
			var resp codec.Response
			respErr := asError(t, codec.DecodeResponse(p, []byte(b.body), &resp))
			if respErr.Status != 502 || respErr.Kind != mapping.ErrBadGateway || !strings.Contains(respErr.Message, "upstream "+string(p)+" response") || strings.Contains(respErr.Message, "request") {
				t.Errorf("%s response, %s: %d %v %q; want 502 naming the upstream's response, not a request", p, b.name, respErr.Status, respErr.Kind, respErr.Message)
			}
		}
	}
}

// asError returns err as a *codec.Error, failing t when it is not one.
func asError(t *testing.T, err error) *codec.Error {
	t.Helper()
	var e *codec.Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v (%T) is not a *codec.Error", err, err)
	}
	return e
}
