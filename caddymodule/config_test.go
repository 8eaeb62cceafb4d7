package caddymodule

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/caddyconfig/httpcaddyfile"
	"github.com/tidwall/gjson"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/llmbridge/llmbridge/caddymodule/clouds"
	awscloud "github.com/llmbridge/llmbridge/caddymodule/clouds/aws"
	"github.com/llmbridge/llmbridge/caddymodule/clouds/azure"
	"github.com/llmbridge/llmbridge/caddymodule/clouds/google"
)

// TestCheckConfig covers every message of checkConfig through Provision,
// as `caddy validate` and `caddy run` see them.
func TestCheckConfig(t *testing.T) {
	// vertex is a vertex upstream's project and location with g's
	// credential.
	vertex := func(g google.Cloud) json.RawMessage {
		g.Project, g.Location = "proj", "us-east5"
		return clouds.Raw(&g)
	}
	tests := []struct {
		name    string
		h       Handler
		wantErr string
	}{
		{"no upstream", Handler{}, "upstream protocol is required (upstream <protocol>; " + protocolList + ")"},
		{"unknown upstream", Handler{Upstream: "openai"}, `upstream: unknown protocol "openai" (want ` + protocolList + `)`},
		{"unknown client", Handler{Upstream: "gemini", Client: "claude"}, `client: unknown protocol "claude"`},
		{"vertex without project", Handler{Upstream: "vertex", CloudRaw: clouds.Raw(&google.Cloud{Location: "l"})}, "upstream vertex requires vertex_project and vertex_location (missing: vertex_project)"},
		{"vertex-anthropic without both", Handler{Upstream: "vertex-anthropic"}, "(missing: vertex_project, vertex_location)"},
		{"project with a slash", Handler{Upstream: "vertex", CloudRaw: vertexCloud("a/b", "l")}, `vertex_project: "a/b" is not a Google Cloud project`},
		{"location with a space", Handler{Upstream: "vertex", CloudRaw: vertexCloud("p", "us east")}, `vertex_location: "us east" is not a Google Cloud location`},
		{"google credentials for gemini", Handler{Upstream: "gemini", CloudRaw: clouds.Raw(&google.Cloud{Credentials: "adc"})}, "google_credentials is only for the vertex and vertex-anthropic upstreams, not gemini (use api_key for its credential)"},
		{"google token for openai", Handler{Upstream: "openai-chat", CloudRaw: clouds.Raw(&google.Cloud{Token: "t"})}, "google_token is only for the vertex and vertex-anthropic upstreams, not openai-chat"},
		{"both google options", Handler{Upstream: "vertex", CloudRaw: vertex(google.Cloud{Credentials: "adc", Token: "t"})}, "google_credentials and google_token are exclusive"},
		{"api_key and google_token", Handler{Upstream: "vertex", APIKey: "k", CloudRaw: vertex(google.Cloud{Token: "t"})}, "api_key and google_token are exclusive"},
		{"api_key and google_credentials", Handler{Upstream: "vertex-anthropic", APIKey: "k", CloudRaw: vertex(google.Cloud{Credentials: "adc"})}, "api_key and google_credentials are exclusive"},
		{"response_model", Handler{Upstream: "gemini", ResponseModel: "both"}, `response_model must be client or upstream, got "both"`},
		{"max_event_size", Handler{Upstream: "gemini", MaxEventSize: 2 << 30}, "max_event_size must be between 1 byte and 1GiB"},
		{"bad glob", Handler{Upstream: "gemini", Models: []ModelRoute{{Match: "a**", Upstream: "b"}}}, "models[0] (model a** b)"},
		{"missing credentials file", Handler{Upstream: "vertex", CloudRaw: vertex(google.Cloud{Credentials: "/nonexistent/sa.json"})}, "google_credentials: open /nonexistent/sa.json: no such file or directory"},
		{"empty google token", Handler{Upstream: "vertex", CloudRaw: vertex(google.Cloud{Token: "{env.LLMBRIDGE_UNSET_TOKEN}"})}, "google_token is empty after placeholder expansion"},
		{"bedrock without a region", Handler{Upstream: "bedrock-anthropic"}, "upstream bedrock-anthropic requires aws_region"},
		{"converse without a region", Handler{Upstream: "bedrock", APIKey: "k"}, "upstream bedrock requires aws_region"},
		{"aws region for anthropic", Handler{Upstream: "anthropic-messages", CloudRaw: awsCloud("us-east-1")}, "aws_region, aws_profile and aws_host are only for the bedrock and bedrock-anthropic upstreams, not anthropic-messages"},
		{"aws profile for gemini", Handler{Upstream: "gemini", CloudRaw: clouds.Raw(&awscloud.Cloud{Profiles: []string{"dev"}})}, "aws_region, aws_profile and aws_host are only for the bedrock and bedrock-anthropic upstreams, not gemini"},
		{"aws host for openai", Handler{Upstream: "openai-chat", CloudRaw: clouds.Raw(&awscloud.Cloud{Host: "x"})}, "aws_region, aws_profile and aws_host are only for the bedrock and bedrock-anthropic upstreams, not openai-chat"},
		{"aws host with a path", Handler{Upstream: "bedrock", CloudRaw: clouds.Raw(&awscloud.Cloud{Region: "us-east-1", Host: "h/x"})}, `aws_host: "h/x" is not a host name`},
		{"aws region with a slash", Handler{Upstream: "bedrock", CloudRaw: awsCloud("us-east-1/x")}, `aws_region: "us-east-1/x" is not an AWS region`},
		{"azure client", Handler{Upstream: "gemini", Client: "azure-openai"}, "client: azure-openai is an upstream protocol only; its clients speak openai-chat on its paths"},
		{"azure version for openai", Handler{Upstream: "openai-chat", CloudRaw: clouds.Raw(&azure.Cloud{APIVersion: "2024-10-21"})}, "azure_api_version and azure_credentials are only for the azure-openai upstreams, not openai-chat"},
		{"azure version with a slash", Handler{Upstream: "azure-openai", CloudRaw: clouds.Raw(&azure.Cloud{APIVersion: "2024/10"})}, `azure_api_version: "2024/10" is not an API version`},
		{"azure credentials incomplete", Handler{Upstream: "azure-openai", CloudRaw: clouds.Raw(&azure.Cloud{Credentials: []azure.Application{{TenantID: "t"}}})}, "azure_credentials needs a tenant id, a client id and a client secret"},
		{"api_key and azure credentials", Handler{Upstream: "azure-openai-responses", APIKey: "k", CloudRaw: clouds.Raw(&azure.Cloud{Credentials: []azure.Application{{TenantID: "t", ClientID: "c", ClientSecret: "s"}}})}, "api_key and azure_credentials are exclusive"},
		{"empty azure secret", Handler{Upstream: "azure-openai", CloudRaw: clouds.Raw(&azure.Cloud{Credentials: []azure.Application{{TenantID: "t", ClientID: "c", ClientSecret: "{env.LLMBRIDGE_UNSET_SECRET}"}}})}, "azure_credentials: a tenant id, client id or client secret is empty after placeholder expansion"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := tc.h
			err := h.Provision(testContext(t))
			if err == nil {
				err = h.Validate()
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !strings.HasPrefix(err.Error(), "llmbridge: ") {
				t.Errorf("err = %v, want %q", err, tc.wantErr)
			}
		})
	}
}

// TestCaddyValidate runs the check `caddy validate` runs (adapt, then
// provision every module) on a Caddyfile whose problem only provisioning
// finds: a credentials file that is not one. The message names the file
// but quotes nothing of its content. (A service-account file with a bad
// key is only found out when the first token is fetched: provisioning does
// not call the token endpoint.)
func TestCaddyValidate(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "sa.json")
	if err := os.WriteFile(bad, []byte(`private_key: SECRET-KEY-MATERIAL`), 0o600); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(dir, "other.json")
	if err := os.WriteFile(other, []byte(`{"type":"gdch_service_account"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		file, wantErr string
	}{
		{bad, "google_credentials: " + bad + " is not a Google credentials JSON file"},
		{other, `credentials of type "gdch_service_account" are not supported`},
	}
	for _, tc := range tests {
		src := fmt.Sprintf(":8080 {\n\tllmbridge {\n\t\tupstream vertex\n\t\tvertex_project p\n\t\tvertex_location l\n\t\tgoogle_credentials %s\n\t}\n}\n", tc.file)
		adapter := caddyfile.Adapter{ServerType: httpcaddyfile.ServerType{}}
		out, _, err := adapter.Adapt([]byte(src), nil)
		if err != nil {
			t.Fatalf("adapt: %v", err)
		}
		var cfg caddy.Config
		if err := json.Unmarshal(out, &cfg); err != nil {
			t.Fatal(err)
		}
		err = caddy.Validate(&cfg)
		if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
			t.Errorf("caddy validate: %v, want %q", err, tc.wantErr)
		}
		if err != nil && strings.Contains(err.Error(), "SECRET") {
			t.Errorf("the message quotes the credentials file: %v", err)
		}
	}
}

// tokenServer is a fake Google OAuth token endpoint. Each token it issues
// is numbered; expiresIn is the lifetime it announces.
type tokenServer struct {
	srv       *httptest.Server
	hits      atomic.Int32
	expiresIn int
	fail      bool
}

func newTokenServer(t *testing.T, expiresIn int) *tokenServer {
	ts := &tokenServer{expiresIn: expiresIn}
	ts.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := ts.hits.Add(1)
		if err := r.ParseForm(); err != nil || r.PostForm.Get("grant_type") != "urn:ietf:params:oauth:grant-type:jwt-bearer" || r.PostForm.Get("assertion") == "" {
			t.Errorf("token request %v: form %v", err, r.PostForm)
		}
		w.Header().Set("Content-Type", "application/json")
		if ts.fail {
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprint(w, `{"error":"invalid_grant","error_description":"Invalid JWT Signature."}`)
			return
		}
		fmt.Fprintf(w, `{"access_token":"ya29.test-%d","token_type":"Bearer","expires_in":%d}`, n, ts.expiresIn)
	}))
	t.Cleanup(ts.srv.Close)
	return ts
}

// writeServiceAccount writes a service-account key file whose token_uri is
// tokenURI, with a freshly generated RSA key.
func writeServiceAccount(t *testing.T, tokenURI string) string {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	pemKey := pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})
	sa, _ := json.Marshal(map[string]string{
		"type": "service_account", "project_id": "proj", "private_key_id": "k1", "private_key": string(pemKey),
		"client_email": "llmbridge@proj.iam.gserviceaccount.com", "client_id": "1", "token_uri": tokenURI,
	})
	path := filepath.Join(t.TempDir(), "sa.json")
	if err := os.WriteFile(path, sa, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// vertexRequest is a Gemini client's generation request with the client's
// own key, which must never reach the upstream.
func vertexRequest() *http.Request {
	r := httptest.NewRequest("POST", "/v1beta/models/gemini-2.5-flash:generateContent", strings.NewReader(`{"contents":[{"role":"user","parts":[{"text":"Hi"}]}]}`))
	r.Header.Set("X-Goog-Api-Key", "client-key")
	return r
}

const vertexAnswer = `{"candidates":[{"content":{"role":"model","parts":[{"text":"Hello"}]},"finishReason":"STOP"}],"usageMetadata":{"promptTokenCount":1,"candidatesTokenCount":1,"totalTokenCount":2}}`

func TestGoogleCredentials(t *testing.T) {
	tests := []struct {
		name       string
		expiresIn  int
		wantTokens []string // the upstream's Authorization per request
		wantHits   int32
	}{
		// A token valid for an hour is fetched once and reused.
		{"reused", 3600, []string{"Bearer ya29.test-1", "Bearer ya29.test-1", "Bearer ya29.test-1"}, 1},
		// A token about to expire (inside oauth2's 10 s margin) is
		// refreshed on each use.
		{"refreshed", 5, []string{"Bearer ya29.test-1", "Bearer ya29.test-2"}, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ts := newTokenServer(t, tc.expiresIn)
			path := writeServiceAccount(t, ts.srv.URL+"/token")
			h := newTestHandler(t, &Handler{Upstream: "vertex", CloudRaw: clouds.Raw(&google.Cloud{Project: "proj", Location: "us-east5", Credentials: path})})
			logs := observeLogs(h)
			defer assertNoSecretLogged(t, logs, "ya29.", "client-key")
			for i, want := range tc.wantTokens {
				w, call := serve(t, h, vertexRequest(), jsonAnswer(200, vertexAnswer))
				if w.Code != 200 {
					t.Fatalf("request %d: status %d: %s", i, w.Code, w.Body)
				}
				if got := call.header.Get("Authorization"); got != want {
					t.Errorf("request %d: Authorization %q, want %q", i, got, want)
				}
				if call.header.Get("X-Goog-Api-Key") != "" || strings.Contains(fmt.Sprint(call.header), "client-key") {
					t.Errorf("request %d: the client's key reached the upstream: %v", i, call.header)
				}
			}
			if got := ts.hits.Load(); got != tc.wantHits {
				t.Errorf("token endpoint called %d times, want %d", got, tc.wantHits)
			}
		})
	}
}

func TestGoogleCredentialsFailure(t *testing.T) {
	ts := newTokenServer(t, 3600)
	ts.fail = true
	path := writeServiceAccount(t, ts.srv.URL+"/token")
	h := newTestHandler(t, &Handler{Upstream: "vertex-anthropic", CloudRaw: clouds.Raw(&google.Cloud{Project: "proj", Location: "us-east5", Credentials: path})})
	logs := observeLogs(h)
	defer assertNoSecretLogged(t, logs, "PRIVATE KEY", "assertion")
	r := httptest.NewRequest("POST", "/v1/chat/completions", strings.NewReader(`{"model":"claude-x","messages":[{"role":"user","content":"Hi"}]}`))
	w, call := serve(t, h, r, jsonAnswer(200, "{}"))
	if call.called {
		t.Error("the upstream was called without a token")
	}
	if w.Code != 502 || gjson.Get(w.Body.String(), "error.message").Str != "the gateway could not obtain an access token for its upstream" {
		t.Errorf("status %d: %s", w.Code, w.Body)
	}
	if logs.FilterMessage("obtaining an OAuth access token for the upstream failed").Len() != 1 {
		t.Errorf("the failure was not logged once: %v", logs.All())
	}
}

// observeLogs points h's logger at an in-memory log, at debug level.
func observeLogs(h *Handler) *observer.ObservedLogs {
	core, logs := observer.New(zap.DebugLevel)
	h.setLogger(zap.New(core))
	return logs
}

// assertNoSecretLogged fails t if any entry's message or fields contain
// one of secrets.
func assertNoSecretLogged(t *testing.T, logs *observer.ObservedLogs, secrets ...string) {
	t.Helper()
	for _, e := range logs.All() {
		line := e.Message + fmt.Sprint(e.ContextMap())
		for _, s := range secrets {
			if strings.Contains(line, s) {
				t.Errorf("log entry contains %q: %s", s, line)
			}
		}
	}
}

func TestGoogleToken(t *testing.T) {
	t.Setenv("LLMBRIDGE_TEST_VERTEX_TOKEN", "ya29.static")
	h := newTestHandler(t, &Handler{Upstream: "vertex", CloudRaw: clouds.Raw(&google.Cloud{Project: "proj", Location: "us-east5", Token: "{env.LLMBRIDGE_TEST_VERTEX_TOKEN}"})})
	for _, r := range []*http.Request{vertexRequest(), httptest.NewRequest("POST", "/v1beta/models/gemini-2.5-flash:countTokens", strings.NewReader(`{"contents":[{"role":"user","parts":[{"text":"Hi"}]}]}`))} {
		answer := vertexAnswer
		if strings.HasSuffix(r.URL.Path, ":countTokens") {
			answer = `{"totalTokens":1}`
		}
		w, call := serve(t, h, r, jsonAnswer(200, answer))
		if w.Code != 200 || call.header.Get("Authorization") != "Bearer ya29.static" {
			t.Errorf("%s: status %d, Authorization %q", r.URL.Path, w.Code, call.header.Get("Authorization"))
		}
	}
}
