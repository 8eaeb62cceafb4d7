package caddytest

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// decoyKey is the credential TestForeignCredentialHeaders sends in the
// schemes of the other protocols.
const decoyKey = "decoy-key"

// assertCredential checks that rec carries want in upstream protocol up's
// scheme (the mock has already checked that no other scheme came along)
// and, when forbidden is not empty, that forbidden appears nowhere in the
// request: no header, no query parameter, not in the body.
func assertCredential(t *testing.T, name string, up proto, rec *recordedRequest, want, forbidden string) {
	t.Helper()
	if rec == nil {
		t.Errorf("%s: the upstream received no request", name)
		return
	}
	if got := credential(up, rec); got != want {
		t.Errorf("%s: upstream credential (%s) = %q, want %q", name, up.credentialScheme(), got, want)
	}
	if forbidden == "" {
		return
	}
	for k, vs := range rec.Header {
		for _, v := range vs {
			if strings.Contains(v, forbidden) {
				t.Errorf("%s: the upstream received %q in header %s: %q", name, forbidden, k, v)
			}
		}
	}
	if strings.Contains(rec.RawQuery, forbidden) || strings.Contains(rec.Path, forbidden) {
		t.Errorf("%s: the upstream received %q in the URL %s?%s", name, forbidden, rec.Path, rec.RawQuery)
	}
	if strings.Contains(string(rec.Body), forbidden) {
		t.Errorf("%s: the upstream received %q in the body", name, forbidden)
	}
}

// TestCredentials checks, for every pair with the SDK clients, that a site
// with api_key sends only upstream-key in the upstream's scheme and never
// the client's key, and that a site without it moves the client's key into
// the upstream's scheme. Finally, none of llmbridge's debug log entries
// holds a credential.
func TestCredentials(t *testing.T) {
	env := setup(t)
	clients := sdkClients()
	for _, cp := range allProtocols {
		for _, up := range allProtocols {
			t.Run(pairName(cp, up), func(t *testing.T) {
				env.mocks.resetAll(t)
				for _, keyed := range []bool{true, false} {
					base, want, forbidden, what := env.plain[up], plainCredential(up), "", " without api_key"
					if keyed {
						base, want, forbidden, what = env.keyed[up], upstreamKey, clientKey, " with api_key"
					}
					name := pairName(cp, up) + what
					env.mocks[up].clearRequests()
					ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
					_, err := clients[cp].generate(ctx, base, sharedConversation(cp.defaultModel()))
					cancel()
					if err != nil {
						t.Errorf("%s: the client call failed: %s", name, describeErr(err))
						continue
					}
					rec, _ := env.mocks[up].lastRequest()
					assertCredential(t, name, up, rec, want, forbidden)
				}
			})
		}
	}
	t.Run("logs", func(t *testing.T) {
		checkLlmbridgeLogFree(t, env)
	})
}

// TestGeminiQueryKey checks that a Gemini client authenticating with
// ?key= has the key moved into the upstream's own scheme, and that the
// query parameter does not reach the upstream URL.
func TestGeminiQueryKey(t *testing.T) {
	env := setup(t)
	model := gemini.defaultModel()
	for _, up := range allProtocols {
		for _, keyed := range []bool{false, true} {
			base, want, what := env.plain[up], plainCredential(up), ""
			if keyed {
				base, want, what = env.keyed[up], upstreamKey, "/api_key"
			}
			t.Run(pairName(gemini, up)+what, func(t *testing.T) {
				env.mocks.resetAll(t)
				name := pairName(gemini, up) + " with ?key=" + what
				req := newClientRequest(t, http.MethodPost, base, gemini, model, minimalBody(gemini, model))
				req.Header.Del("X-Goog-Api-Key")
				req.URL.RawQuery = url.Values{"key": {clientKey}}.Encode()
				resp := do(t, req)
				if resp.Status != 200 {
					t.Fatalf("%s: client status %d, want 200; body %s", name, resp.Status, resp.Body)
				}
				rec, _ := env.mocks[up].lastRequest()
				forbidden := ""
				if keyed {
					forbidden = clientKey
				}
				assertCredential(t, name, up, rec, want, forbidden)
				if rec != nil && rec.RawQuery != "" {
					t.Errorf("%s: upstream query = %q, want none (the key must leave the URL)", name, rec.RawQuery)
				}
			})
		}
	}
	t.Run("logs", func(t *testing.T) {
		checkLlmbridgeLogFree(t, env)
	})
}

// TestForeignCredentialHeaders sends, from every client protocol, the
// client's key in its own scheme plus decoy credentials in the other two
// schemes: the upstream must receive exactly the client's own key in its
// scheme, and no decoy (the mocks reject credential headers of another
// scheme).
func TestForeignCredentialHeaders(t *testing.T) {
	env := setup(t)
	for _, cp := range allProtocols {
		for _, up := range allProtocols {
			t.Run(pairName(cp, up), func(t *testing.T) {
				env.mocks.resetAll(t)
				name := pairName(cp, up) + " with decoy credentials"
				model := cp.defaultModel()
				req := newClientRequest(t, http.MethodPost, env.plain[up], cp, model, minimalBody(cp, model))
				for _, other := range []proto{openaiChat, anthropicMsgs, gemini} {
					// One route serves the Interactions clients of the
					// Gemini API (a key) and of Vertex AI (a token), so
					// neither scheme is foreign to them.
					ownToo := cp.isInteractions() && (other == gemini || other == openaiChat)
					if other.credentialScheme() != cp.credentialScheme() && !ownToo {
						setClientCredential(req, other, decoyKey)
					}
				}
				setClientCredential(req, cp, clientKey)
				resp := do(t, req)
				if resp.Status != 200 {
					t.Fatalf("%s: client status %d, want 200; body %s", name, resp.Status, resp.Body)
				}
				rec, _ := env.mocks[up].lastRequest()
				assertCredential(t, name, up, rec, plainCredential(up), decoyKey)
			})
		}
	}
	t.Run("logs", func(t *testing.T) {
		checkLlmbridgeLogFree(t, env)
	})
}
