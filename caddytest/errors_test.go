package caddytest

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// rateLimitHeader is the rate-limit header each upstream sends with a 429.
func rateLimitHeader(p proto) string {
	if p.isAnthropic() {
		return "Anthropic-Ratelimit-Requests-Remaining"
	}
	return "X-Ratelimit-Remaining-Requests"
}

// errorCase is one upstream error answer.
type errorCase struct {
	name   string
	status int
	// logged sends the request to the site with access logging, where
	// Caddy wraps the response writer once more (caddy#6144).
	logged bool
}

// upstreamErrorCases returns the error answers tested for upstream up:
// 400, 401, 429 (plain and on a logged site), 500, and overload: 529 from
// Anthropic upstreams, 503 from the others.
func upstreamErrorCases(up proto) []errorCase {
	overload := http.StatusServiceUnavailable
	if up.reads529() {
		// Anthropic's own servers and Vertex send 529; Bedrock sends
		// 503 ServiceUnavailableException.
		overload = 529
	}
	return []errorCase{
		{"400", 400, false},
		{"401", 401, false},
		{"429", 429, false},
		{"429-logged-site", 429, true},
		{"500", 500, false},
		{itoa(overload), overload, false},
	}
}

// TestUpstreamErrors checks that upstream errors reach every client as its
// SDK's error with the right status (529 becomes 503 for clients that are
// not Anthropic's), the upstream's message, the client's error format, and
// Retry-After and rate-limit headers intact.
func TestUpstreamErrors(t *testing.T) {
	env := setup(t)
	clients := sdkClients()
	for _, cp := range allProtocols {
		for _, up := range allProtocols {
			for _, ec := range upstreamErrorCases(up) {
				t.Run(pairName(cp, up)+"/"+ec.name, func(t *testing.T) {
					env.mocks.resetAll(t)
					runUpstreamError(t, env, clients[cp], up, ec)
				})
			}
		}
	}
}

func runUpstreamError(t *testing.T, env *testEnv, c sdkClient, up proto, ec errorCase) {
	cp := c.protocol()
	name := pairName(cp, up) + " upstream " + ec.name
	base := env.plain[up]
	if ec.logged {
		base = env.keyed[up]
	}
	message := fmt.Sprintf("itest: %s upstream failed with %d", up, ec.status)
	hdr := http.Header{}
	if ec.status == 429 || ec.status == 503 || ec.status == 529 {
		hdr.Set("Retry-After", "7")
	}
	if ec.status == 429 {
		hdr.Set(rateLimitHeader(up), "0")
	}
	env.mocks[up].setScenario(scenario{Status: ec.status, Header: withNativeErrorHeader(up, ec.status, hdr), Body: nativeError(up, ec.status, message)})

	want := ec.status
	if want == 529 && !cp.reads529() {
		want = http.StatusServiceUnavailable
	}

	// The SDK's view.
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	_, err := c.generate(ctx, base, sharedConversation(cp.defaultModel()))
	if err == nil {
		t.Fatalf("%s: the client call succeeded; want an error with status %d", name, want)
	}
	if _, hits := env.mocks[up].lastRequest(); hits != 1 {
		t.Fatalf("%s: the upstream received %d requests, want 1 (no retries); the client got %s", name, hits, describeErr(err))
	}
	if status, ok := sdkErrorStatus(err); !ok || status != want {
		// Everything below depends on the upstream having been reached.
		t.Fatalf("%s: client error = %s, want HTTP %d", name, describeErr(err), want)
	}
	if msg := sdkErrorMessage(err); !strings.Contains(msg, message) {
		t.Errorf("%s: client error message = %q, want it to contain the upstream's %q", name, msg, message)
	}
	if h, ok := sdkErrorHeader(err); ok {
		checkErrorHeaders(t, name+" (SDK error response)", up, hdr, h)
	}

	// The wire: the client's error format and the headers, with a raw
	// request for SDKs that do not expose them.
	model := cp.defaultModel()
	resp := do(t, newClientRequest(t, http.MethodPost, base, cp, model, minimalBody(cp, model)))
	assertErrorFormat(t, name+" (raw request)", cp, want, resp)
	checkErrorHeaders(t, name+" (raw request)", up, hdr, resp.Header)
}

// checkErrorHeaders checks that the headers the upstream sent with its
// error reached the client.
func checkErrorHeaders(t *testing.T, name string, up proto, sent, got http.Header) {
	t.Helper()
	for k := range sent {
		if g, w := got.Get(k), sent.Get(k); g != w {
			t.Errorf("%s: header %s = %q, want %q as the upstream sent it", name, k, g, w)
		}
	}
}

// TestUpstreamUnreachable checks that a client whose upstream cannot be
// reached gets a 502 in its own error format.
func TestUpstreamUnreachable(t *testing.T) {
	env := setup(t)
	clients := sdkClients()
	for _, cp := range allProtocols {
		for _, up := range allProtocols {
			t.Run(pairName(cp, up), func(t *testing.T) {
				env.mocks.resetAll(t)
				name := pairName(cp, up) + " with no upstream listening"
				ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
				defer cancel()
				_, err := clients[cp].generate(ctx, env.dead[up], sharedConversation(cp.defaultModel()))
				if err == nil {
					t.Fatalf("%s: the client call succeeded; want a 502", name)
				}
				if status, ok := sdkErrorStatus(err); !ok || status != http.StatusBadGateway {
					t.Errorf("%s: client error = %s, want HTTP 502", name, describeErr(err))
				}
				model := cp.defaultModel()
				resp := do(t, newClientRequest(t, http.MethodPost, env.dead[up], cp, model, minimalBody(cp, model)))
				assertErrorFormat(t, name+" (raw request)", cp, http.StatusBadGateway, resp)
				if strings.Contains(string(resp.Body), "127.0.0.1") {
					t.Errorf("%s: the error leaks the upstream address: %s", name, resp.Body)
				}
			})
		}
	}
}
