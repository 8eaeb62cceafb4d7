package caddytest

import (
	"net/http"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"
)

// Client keys of the gated sites: gateKey is written in the Caddyfile,
// gateEnvKey comes from the environment variable gateKeyEnv.
const (
	gateKey    = "gate-client-key-1"
	gateEnvKey = "gate-client-key-env"
	gateKeyEnv = "LLMBRIDGE_CADDYTEST_GATE_KEY"
	// gateSecret is what every gate key contains, for searching logs.
	gateSecret = "gate-client-key"
	wrongKey   = "gate-wrong-key"
)

// credentialLogFilter is the access log format of docs/configuration.md: it removes
// the credential headers Caddy does not redact itself, and Gemini's ?key=.
const credentialLogFilter = `		format filter {
			request>headers>X-Api-Key delete
			request>headers>X-Goog-Api-Key delete
			request>uri query {
				delete key
			}
		}
`

// TestClientKeysGate checks, for every pair, that a gated site accepts a
// client key in the client protocol's own scheme (and the alternatives:
// Anthropic's Bearer, Gemini's ?key=), that the upstream then receives only
// api_key, and that a wrong key, a missing key or a key in another
// protocol's scheme is answered 401 in the client's format with no
// upstream call. Finally, no gate key appears in the access log (written
// with that filter) or in llmbridge's and reverse_proxy's debug
// logs.
func TestClientKeysGate(t *testing.T) {
	env := setup(t)
	type keyCase struct {
		name string
		set  func(req *http.Request, cp proto)
		ok   bool
	}
	noCred := func(req *http.Request) {
		req.Header.Del("Authorization")
		req.Header.Del("X-Api-Key")
		req.Header.Del("X-Goog-Api-Key")
	}
	cases := []keyCase{
		{"own scheme", func(req *http.Request, cp proto) { setClientCredential(req, cp, gateKey) }, true},
		{"own scheme, key from the environment", func(req *http.Request, cp proto) { setClientCredential(req, cp, gateEnvKey) }, true},
		{"alternative scheme", func(req *http.Request, cp proto) {
			noCred(req)
			switch cp {
			case anthropicMsgs:
				req.Header.Set("Authorization", "Bearer "+gateKey)
			case gemini:
				req.URL.RawQuery = url.Values{"key": {gateKey}}.Encode()
			default:
				setClientCredential(req, cp, gateKey)
			}
		}, true},
		{"wrong key", func(req *http.Request, cp proto) { setClientCredential(req, cp, wrongKey) }, false},
		{"missing key", func(req *http.Request, cp proto) { noCred(req) }, false},
		{"another protocol's scheme", func(req *http.Request, cp proto) {
			noCred(req)
			if cp.credentialScheme() == "bearer" {
				req.Header.Set("X-Api-Key", gateKey)
			} else {
				req.Header.Set("Authorization", "Basic "+gateKey)
			}
		}, false},
	}
	for _, cp := range allProtocols {
		for _, up := range allProtocols {
			for _, c := range cases {
				t.Run(pairName(cp, up)+"/"+c.name, func(t *testing.T) {
					env.mocks.resetAll(t)
					model := cp.defaultModel()
					req := newClientRequest(t, http.MethodPost, env.gated[up], cp, model, minimalBody(cp, model))
					c.set(req, cp)
					resp := do(t, req)
					if strings.Contains(string(resp.Body), gateSecret) {
						t.Errorf("the response names a client key: %s", resp.Body)
					}
					if !c.ok {
						assertErrorFormat(t, c.name, cp, http.StatusUnauthorized, resp)
						env.mocks.assertNoUpstreamCall(t, c.name)
						return
					}
					if resp.Status != http.StatusOK {
						t.Fatalf("status %d, want 200; body %s", resp.Status, resp.Body)
					}
					rec, _ := env.mocks[up].lastRequest()
					assertCredential(t, c.name, up, rec, upstreamKey, gateSecret)
				})
			}
		}
	}
	t.Run("logs", func(t *testing.T) {
		checkLogsFree(t, env, gateSecret)
	})
}

// checkLogsFree fails t if the access or debug log of the test Caddy
// contains secret, or if the access log has no entry at all (a filter that
// broke the log would hide every key).
func checkLogsFree(t *testing.T, env *testEnv, secret string) {
	t.Helper()
	// Access log entries are written after the response; give the last
	// one a moment.
	time.Sleep(100 * time.Millisecond)
	for _, path := range []string{env.accessLog, env.debugLog} {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("reading %s: %v", path, err)
		}
		if len(b) == 0 {
			t.Errorf("%s is empty", path)
		}
		for i, line := range strings.Split(string(b), "\n") {
			if strings.Contains(line, secret) {
				t.Errorf("%s line %d contains a client key: %s", path, i+1, line)
			}
		}
	}
}
