package caddytest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
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
			request>headers>Api-Key delete
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
// upstream call. Finally, no credential (client key or upstream api_key)
// appears in any field of the access log (written with the documented
// filter) or of llmbridge's debug log entries, and no client key in
// reverse_proxy's.
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
		checkLogsFree(t, env)
	})
}

// logSecrets are every credential the test Caddy is configured with or
// is sent: the upstream api_key, the gated sites' client keys and the
// wrong key tried on them, the SDK clients' key, and the decoys of
// TestForeignCredentialHeaders.
var logSecrets = []string{upstreamKey, clientKey, gateKey, gateEnvKey, wrongKey, decoyKey}

// gateSecrets are the credentials that never leave llmbridge: the gated
// sites' client keys and the wrong key.
var gateSecrets = []string{gateKey, gateEnvKey, wrongKey}

// isLlmbridgeEntry reports whether a debug log entry is llmbridge's own.
func isLlmbridgeEntry(entry map[string]any) bool {
	logger, _ := entry["logger"].(string)
	return strings.HasPrefix(logger, "http.handlers.llmbridge")
}

// checkLogsFree fails t if an entry of the access log of the gated sites
// (written with the documented filter) holds any credential, if one of
// llmbridge's debug entries does, or if one of reverse_proxy's debug
// entries holds a client key of the gated sites (it does show the
// upstream's key, as docs/configuration.md says). An access log without entries fails
// too: a filter that broke the log would hide every key.
func checkLogsFree(t *testing.T, env *testEnv) {
	t.Helper()
	// Access log entries are written after the response; give the last
	// one a moment.
	time.Sleep(100 * time.Millisecond)
	if n := checkLogEntries(t, env.accessLog, func(map[string]any) []string { return logSecrets }); n == 0 {
		t.Errorf("%s has no entries", env.accessLog)
	}
	own := 0
	checkLogEntries(t, env.debugLog, func(entry map[string]any) []string {
		if isLlmbridgeEntry(entry) {
			own++
			return logSecrets
		}
		return gateSecrets
	})
	if own == 0 {
		t.Errorf("%s has no llmbridge entries", env.debugLog)
	}
}

// checkLlmbridgeLogFree fails t if one of llmbridge's debug log entries
// holds any credential.
func checkLlmbridgeLogFree(t *testing.T, env *testEnv) {
	t.Helper()
	checkLogEntries(t, env.debugLog, func(entry map[string]any) []string {
		if isLlmbridgeEntry(entry) {
			return logSecrets
		}
		return nil
	})
}

// logReporter is the part of *testing.T that checkLogEntries reports to.
type logReporter interface {
	Helper()
	Errorf(format string, args ...any)
	Fatalf(format string, args ...any)
}

// checkLogEntries reads the JSON log at path and fails t for every entry
// that holds one of the secrets forbidden(entry) returns, in any field, of
// any type, at any depth, or in a field name: each entry is decoded and
// serialised again, so that no escape in the file (\u002d, say) hides a
// key, and its whole text is searched, as is the line itself. A line that
// is not a JSON object fails t too. It returns the number of entries.
func checkLogEntries(t logReporter, path string, forbidden func(entry map[string]any) []string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("reading %s: %v", path, err)
	}
	n := 0
	for i, line := range strings.Split(string(b), "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		n++
		var entry map[string]any
		if err := json.Unmarshal([]byte(line), &entry); err != nil {
			t.Errorf("%s line %d is not a JSON object (%v): %s", path, i+1, err, line)
			continue
		}
		var text bytes.Buffer
		enc := json.NewEncoder(&text)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(entry); err != nil {
			t.Fatalf("%s line %d: %v", path, i+1, err)
		}
		for _, secret := range forbidden(entry) {
			if strings.Contains(text.String(), secret) || strings.Contains(line, secret) {
				t.Errorf("%s line %d holds the credential %q: %s", path, i+1, secret, text.String())
			}
		}
	}
	return n
}

// reportRecorder is a logReporter that keeps what it is told.
type reportRecorder struct{ errors []string }

func (r *reportRecorder) Helper() {}
func (r *reportRecorder) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}
func (r *reportRecorder) Fatalf(format string, args ...any) { r.Errorf(format, args...) }

// TestCheckLogEntries checks that the log check finds a credential
// wherever an entry holds it: a top-level or nested string, an array
// element, a field name, a string escaped in the file, and that an entry
// without one, or a line that is not JSON, is reported as such.
func TestCheckLogEntries(t *testing.T) {
	cases := []struct {
		name  string
		line  string
		fails bool
	}{
		{"clean entry", `{"level":"debug","logger":"http.handlers.llmbridge","msg":"upstream","status":200,"ok":true}`, false},
		{"top-level string", `{"msg":"key upstream-key"}`, true},
		{"nested object", `{"request":{"headers":{"X-Api-Key":["upstream-key"]}}}`, true},
		{"array element", `{"keys":[1,{"k":["x","gate-client-key-env"]}]}`, true},
		{"field name", `{"fields":{"gate-client-key-1":1}}`, true},
		{"escaped in the file", `{"msg":"upstream\u002dkey"}`, true},
		{"not JSON", `upstream request sent`, true},
	}
	dir := t.TempDir()
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(dir, fmt.Sprintf("log%d", i))
			if err := os.WriteFile(path, []byte(c.line+"\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			var r reportRecorder
			n := checkLogEntries(&r, path, func(map[string]any) []string { return logSecrets })
			if n != 1 {
				t.Errorf("%d entries, want 1", n)
			}
			if got := len(r.errors) > 0; got != c.fails {
				t.Errorf("reported %q, want a report: %v", r.errors, c.fails)
			}
		})
	}
}
