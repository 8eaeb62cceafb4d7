package caddytest

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"testing"
)

// unknownPaths are, per client protocol, a POST the client's API has but
// llmbridge does not serve, and the error format the answer must use.
var unknownPaths = map[proto]struct {
	path   string
	format proto
}{
	openaiChat:      {"/v1/embeddings", openaiChat},
	openaiResponses: {"/v1/responses/resp_123/cancel", openaiChat},
	anthropicMsgs:   {"/v1/complete", anthropicMsgs},
	gemini:          {"/v1beta/models/gemini-2.5-flash:embedContent", gemini},
	vertex:          {"/v1/projects/" + clientProject + "/locations/" + vertexLocation + "/publishers/google/models/gemini-2.5-flash:predict", vertex},
	vertexAnthropic: {"/v1/projects/" + clientProject + "/locations/" + vertexLocation + "/publishers/anthropic/models/claude-sonnet-4-5:predict", vertexAnthropic},
}

// TestHostileRequests checks that malformed JSON (400), a GET (405) and an
// unknown path (404) are answered in the client's own error format, for
// every client protocol on every upstream's site, without any upstream call.
func TestHostileRequests(t *testing.T) {
	env := setup(t)
	for _, cp := range allProtocols {
		for _, up := range allProtocols {
			t.Run(pairName(cp, up), func(t *testing.T) {
				env.mocks.resetAll(t)
				base, model := env.plain[up], cp.defaultModel()

				name := pairName(cp, up) + " malformed JSON"
				valid := minimalBody(cp, model)
				broken := valid[:len(valid)-7]
				resp := do(t, newClientRequest(t, http.MethodPost, base, cp, model, broken))
				assertErrorFormat(t, name, cp, http.StatusBadRequest, resp)

				name = pairName(cp, up) + " GET"
				resp = do(t, newClientRequest(t, http.MethodGet, base, cp, model, nil))
				assertErrorFormat(t, name, cp, http.StatusMethodNotAllowed, resp)
				if allow := resp.Header.Get("Allow"); allow != http.MethodPost {
					t.Errorf("%s: Allow header = %q, want POST", name, allow)
				}

				name = pairName(cp, up) + " unknown path"
				u := unknownPaths[cp]
				req := newClientRequest(t, http.MethodPost, base, cp, model, valid)
				req.URL.Path = u.path
				resp = do(t, req)
				assertErrorFormat(t, name, u.format, http.StatusNotFound, resp)

				env.mocks.assertNoUpstreamCall(t, pairName(cp, up)+" hostile requests")
			})
		}
	}
}

// TestRequestBodyLimit checks that a body over max_request_body is answered
// 413 in the client's format without any upstream call, whether it declares
// its length or arrives chunked, and that a body under the limit passes.
func TestRequestBodyLimit(t *testing.T) {
	env := setup(t)
	for _, cp := range allProtocols {
		t.Run(pairName(cp, openaiChat), func(t *testing.T) {
			env.mocks.resetAll(t)
			model := cp.defaultModel()
			big := oversizedBody(cp, model, smallBodyLimit+1)

			name := pairName(cp, openaiChat) + " body over the limit"
			resp := do(t, newClientRequest(t, http.MethodPost, env.small, cp, model, big))
			assertErrorFormat(t, name, cp, http.StatusRequestEntityTooLarge, resp)

			name = pairName(cp, openaiChat) + " chunked body over the limit"
			req := newClientRequest(t, http.MethodPost, env.small, cp, model, nil)
			req.Header.Set("Content-Type", "application/json")
			req.Body = io.NopCloser(io.MultiReader(bytes.NewReader(big[:100]), bytes.NewReader(big[100:])))
			req.ContentLength = -1
			resp = do(t, req)
			assertErrorFormat(t, name, cp, http.StatusRequestEntityTooLarge, resp)

			env.mocks.assertNoUpstreamCall(t, pairName(cp, openaiChat)+" oversized requests")

			name = pairName(cp, openaiChat) + " body under the limit"
			fits := oversizedBody(cp, model, smallBodyLimit-len(minimalBody(cp, model))-8)
			if len(fits) > smallBodyLimit {
				t.Fatalf("%s: test body is %d bytes, over the limit", name, len(fits))
			}
			if resp := do(t, newClientRequest(t, http.MethodPost, env.small, cp, model, fits)); resp.Status != http.StatusOK {
				t.Errorf("%s: client status %d, want 200; body %s", name, resp.Status, resp.Body)
			}
		})
	}
}

// oversizedBody is a valid request of protocol p whose user text makes it
// at least size bytes long.
func oversizedBody(p proto, model string, size int) []byte {
	b := minimalBody(p, model)
	pad := strings.Repeat("x", size)
	return bytes.Replace(b, []byte(`"Hi"`), []byte(`"Hi `+pad+`"`), 1)
}
