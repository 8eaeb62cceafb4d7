package google

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
	"slices"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2"

	"github.com/llmbridge/llmbridge/codec"
	_ "github.com/llmbridge/llmbridge/codec/all"
)

func TestSet(t *testing.T) {
	var g Cloud
	for _, tc := range []struct {
		name    string
		args    []string
		wantErr string
	}{
		{"vertex_project", []string{"p"}, ""},
		{"vertex_location", []string{"global"}, ""},
		{"google_credentials", []string{"adc"}, ""},
		{"google_token", []string{"t"}, ""},
		{"google_token", []string{"a", "b"}, "google_token takes one argument"},
		{"vertex_region", []string{"x"}, `unknown subdirective "vertex_region"`},
	} {
		err := g.Set(tc.name, tc.args)
		if (err == nil) != (tc.wantErr == "") || err != nil && err.Error() != tc.wantErr {
			t.Errorf("Set(%s, %v) = %v, want %q", tc.name, tc.args, err, tc.wantErr)
		}
	}
	want := Cloud{Project: "p", Location: "global", Credentials: "adc", Token: "t"}
	if g != want {
		t.Errorf("settings %+v, want %+v", g, want)
	}
	if got := g.Settings(); !slices.Equal(got, []string{"vertex_project", "vertex_location", "google_credentials", "google_token"}) {
		t.Errorf("Settings() = %v", got)
	}
	if got := (&Cloud{}).Settings(); got != nil {
		t.Errorf("empty settings name %v", got)
	}
	if !slices.Equal(g.Prefixes(), []string{"vertex_", "google_"}) {
		t.Errorf("Prefixes() = %v", g.Prefixes())
	}
	var at codec.Location
	g.Locate(&at)
	if at.Project != "p" || at.Region != "global" {
		t.Errorf("Locate wrote %+v", at)
	}
	if id := g.CaddyModule().ID; id != "http.handlers.llmbridge.clouds.google" {
		t.Errorf("module ID %s", id)
	}
}

func TestCheck(t *testing.T) {
	for _, tc := range []struct {
		name     string
		cloud    Cloud
		upstream codec.Protocol
		keyed    bool
		wantErr  string
	}{
		{"vertex complete", Cloud{Project: "p", Location: "l", Token: "t"}, codec.Vertex, false, ""},
		{"vertex without location", Cloud{Project: "p"}, codec.Vertex, false, "requires vertex_project and vertex_location (missing: vertex_location)"},
		{"vertex without both", Cloud{}, codec.VertexAnthropic, false, "(missing: vertex_project, vertex_location)"},
		{"project with a slash", Cloud{Project: "p/x", Location: "l"}, codec.Vertex, false, `vertex_project: "p/x" is not a Google Cloud project`},
		{"location with a space", Cloud{Project: "p", Location: "us east"}, codec.Vertex, false, `vertex_location: "us east" is not a Google Cloud location`},
		{"both credentials", Cloud{Project: "p", Location: "l", Token: "t", Credentials: "adc"}, codec.Vertex, false, "google_credentials and google_token are exclusive"},
		{"credentials and a key", Cloud{Project: "p", Location: "l", Credentials: "adc"}, codec.Vertex, true, "api_key and google_credentials are exclusive"},
		{"project toward another cloud", Cloud{Project: "p", Location: "l"}, codec.OpenAIChat, false, ""},
		{"token toward gemini", Cloud{Token: "t"}, codec.Gemini, false, "google_token is only for the vertex and vertex-anthropic upstreams, not gemini"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.cloud.Check(tc.upstream, tc.keyed)
			if (err == nil) != (tc.wantErr == "") || err != nil && !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("Check = %v, want %q", err, tc.wantErr)
			}
		})
	}
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
	sa, _ := json.Marshal(map[string]string{
		"type": "service_account", "project_id": "proj", "private_key_id": "k1",
		"private_key":  string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})),
		"client_email": "llmbridge@proj.iam.gserviceaccount.com", "client_id": "1", "token_uri": tokenURI,
	})
	return writeFile(t, string(sa))
}

func writeFile(t *testing.T, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "credentials.json")
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestAuthorize(t *testing.T) {
	tokens := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"access_token":"ya29.sa","token_type":"Bearer","expires_in":3600}`)
	}))
	defer tokens.Close()
	ctx, cancel := caddy.NewContext(caddy.Context{Context: t.Context()})
	defer cancel()
	expand := func(s string) string { return strings.ReplaceAll(s, "{env.TOKEN}", "ya29.env") }
	for _, tc := range []struct {
		name      string
		cloud     Cloud
		wantKind  string
		wantToken string
		wantErr   string
	}{
		{"static token", Cloud{Token: "{env.TOKEN}"}, "google_token", "ya29.env", ""},
		{"empty token", Cloud{Token: "{env.UNSET}"}, "", "", "google_token is empty after placeholder expansion"},
		{"service account", Cloud{Credentials: writeServiceAccount(t, tokens.URL)}, "google_credentials", "ya29.sa", ""},
		{"empty credentials", Cloud{Credentials: "{env.UNSET}"}, "", "", "google_credentials is empty after placeholder expansion"},
		{"missing file", Cloud{Credentials: filepath.Join(t.TempDir(), "none.json")}, "", "", "no such file"},
		{"not JSON", Cloud{Credentials: writeFile(t, "SECRET")}, "", "", "is not a Google credentials JSON file"},
		{"unsupported type", Cloud{Credentials: writeFile(t, `{"type":"gdch_service_account"}`)}, "", "", `credentials of type "gdch_service_account" are not supported`},
		{"none", Cloud{Project: "p"}, "", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			kind, creds, err := tc.cloud.Authorize(ctx, func(s string) string {
				if strings.HasPrefix(s, "{env.UNSET}") {
					return ""
				}
				return expand(s)
			})
			if (err == nil) != (tc.wantErr == "") || err != nil && !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("Authorize = %v, want %q", err, tc.wantErr)
			}
			if err != nil && strings.Contains(err.Error(), "SECRET") {
				t.Errorf("the message quotes the file: %v", err)
			}
			if kind != tc.wantKind {
				t.Errorf("kind %q, want %q", kind, tc.wantKind)
			}
			if tc.wantToken == "" {
				if len(creds) != 0 {
					t.Errorf("credentials %v, want none", creds)
				}
				return
			}
			if len(creds) != 1 || creds[0].Tokens == nil {
				t.Fatalf("credentials %+v, want one token source", creds)
			}
			tok, err := creds[0].Tokens.Token()
			if err != nil || tok.AccessToken != tc.wantToken {
				t.Errorf("token %v, %v, want %s", tok, err, tc.wantToken)
			}
		})
	}
}

// TestApplicationDefaultCredentials reads the file GOOGLE_APPLICATION_CREDENTIALS
// names for google_credentials adc, and says so when there is none.
func TestApplicationDefaultCredentials(t *testing.T) {
	ctx, cancel := caddy.NewContext(caddy.Context{Context: t.Context()})
	defer cancel()
	t.Setenv("GOOGLE_APPLICATION_CREDENTIALS", filepath.Join(t.TempDir(), "none.json"))
	_, _, err := (&Cloud{Credentials: "adc"}).Authorize(ctx, func(s string) string { return s })
	if err == nil || !strings.Contains(err.Error(), "application default credentials") {
		t.Errorf("Authorize = %v, want an error about application default credentials", err)
	}
	t.Setenv("GOOGLE_APPLICATION_CREDENTIALS", writeServiceAccount(t, "http://127.0.0.1:1/token"))
	kind, creds, err := (&Cloud{Credentials: "adc"}).Authorize(ctx, func(s string) string { return s })
	if err != nil || kind != "google_credentials" || len(creds) != 1 {
		t.Errorf("Authorize = %s %v %v", kind, creds, err)
	}
}
