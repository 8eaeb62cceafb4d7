package azure

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2"

	"github.com/llmbridge/llmbridge/caddymodule/clouds"
	"github.com/llmbridge/llmbridge/codec"
	_ "github.com/llmbridge/llmbridge/codec/all"
)

func TestSet(t *testing.T) {
	var a Cloud
	for _, tc := range []struct {
		name    string
		args    []string
		wantErr string
	}{
		{"azure_api_version", []string{"2024-10-21"}, ""},
		{"azure_credentials", []string{"t", "c", "s"}, ""},
		{"azure_credentials", []string{"t2", "c2", "s2", "https://login.microsoftonline.us"}, ""},
		{"azure_credentials", []string{"t"}, "azure_credentials takes <tenant_id> <client_id> <client_secret> [<authority_host>]"},
		{"azure_api_version", nil, "azure_api_version takes one argument"},
		{"azure_region", []string{"x"}, `unknown subdirective "azure_region"`},
	} {
		err := a.Set(tc.name, tc.args)
		if (err == nil) != (tc.wantErr == "") || err != nil && err.Error() != tc.wantErr {
			t.Errorf("Set(%s, %v) = %v, want %q", tc.name, tc.args, err, tc.wantErr)
		}
	}
	want := []Application{{TenantID: "t", ClientID: "c", ClientSecret: "s"}, {TenantID: "t2", ClientID: "c2", ClientSecret: "s2", AuthorityHost: "https://login.microsoftonline.us"}}
	if a.APIVersion != "2024-10-21" || !slices.Equal(a.Credentials, want) {
		t.Errorf("settings %+v", a)
	}
	if got := a.Settings(); !slices.Equal(got, []string{"azure_api_version", "azure_credentials"}) {
		t.Errorf("Settings() = %v", got)
	}
	if got := (&Cloud{}).Settings(); got != nil {
		t.Errorf("empty settings name %v", got)
	}
	if !slices.Equal(a.Prefixes(), []string{"azure_"}) {
		t.Errorf("Prefixes() = %v", a.Prefixes())
	}
	var at codec.Location
	a.Locate(&at)
	if at.APIVersion != "2024-10-21" {
		t.Errorf("Locate wrote %+v", at)
	}
	if id := a.CaddyModule().ID; id != "http.handlers.llmbridge.clouds.azure" {
		t.Errorf("module ID %s", id)
	}
}

func TestCheck(t *testing.T) {
	app := Application{TenantID: "t", ClientID: "c", ClientSecret: "s"}
	for _, tc := range []struct {
		name     string
		cloud    Cloud
		upstream codec.Protocol
		keyed    bool
		wantErr  string
	}{
		{"versionless", Cloud{}, codec.AzureOpenAI, false, ""},
		{"an application", Cloud{APIVersion: "2024-10-21", Credentials: []Application{app}}, codec.AzureOpenAI, false, ""},
		{"toward another cloud", Cloud{APIVersion: "2024-10-21"}, codec.OpenAIChat, false, "azure_api_version and azure_credentials are only for the azure-openai upstreams, not openai-chat"},
		{"version with a slash", Cloud{APIVersion: "2024/10"}, codec.AzureOpenAI, false, `azure_api_version: "2024/10" is not an API version`},
		{"incomplete application", Cloud{Credentials: []Application{{TenantID: "t"}}}, codec.AzureOpenAI, false, "azure_credentials needs a tenant id, a client id and a client secret"},
		{"application and a key", Cloud{Credentials: []Application{app}}, codec.AzureOpenAI, true, "api_key and azure_credentials are exclusive"},
		{"pool too large", Cloud{Credentials: slices.Repeat([]Application{app}, clouds.MaxPoolMembers+1)}, codec.AzureOpenAI, false, "a credential pool holds at most 4096 members, got 4097 azure_credentials"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.cloud.Check(tc.upstream, tc.keyed)
			if (err == nil) != (tc.wantErr == "") || err != nil && !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("Check = %v, want %q", err, tc.wantErr)
			}
		})
	}
}

// TestAuthorize obtains each application's tokens by the client
// credentials grant from its authority, for Azure OpenAI's scope.
func TestAuthorize(t *testing.T) {
	entra := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := r.ParseForm(); err != nil || r.PostForm.Get("grant_type") != "client_credentials" ||
			r.PostForm.Get("scope") != "https://cognitiveservices.azure.com/.default" || r.PostForm.Get("client_secret") == "" {
			t.Errorf("token request %s: %v %v", r.URL.Path, err, r.PostForm)
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"access_token":"entra-%s%s","token_type":"Bearer","expires_in":3600}`, strings.Split(r.URL.Path, "/")[1], r.PostForm.Get("client_id"))
	}))
	defer entra.Close()
	ctx, cancel := caddy.NewContext(caddy.Context{Context: t.Context()})
	defer cancel()
	expand := func(s string) string { return strings.ReplaceAll(s, "{env.SECRET}", "s3cret") }
	a := Cloud{Credentials: []Application{
		{TenantID: "t0", ClientID: "c0", ClientSecret: "{env.SECRET}", AuthorityHost: entra.URL + "/"},
		{TenantID: "t1", ClientID: "c1", ClientSecret: "s", AuthorityHost: entra.URL},
	}}
	kind, creds, err := a.Authorize(ctx, expand)
	if err != nil || kind != "azure_credentials" || len(creds) != 2 {
		t.Fatalf("Authorize = %s %+v %v", kind, creds, err)
	}
	for i, c := range creds {
		tok, err := c.Tokens.Token()
		if want := fmt.Sprintf("entra-t%dc%d", i, i); err != nil || tok.AccessToken != want {
			t.Errorf("member %d: token %v %v, want %s", i, tok, err, want)
		}
		if want := fmt.Sprintf("azure_credentials t%d c%d", i, i); c.Identity() != want {
			t.Errorf("member %d: identity %q, want %q", i, c.Identity(), want)
		}
	}
	// An empty secret after expansion names the member of a pool.
	a.Credentials[1].ClientSecret = "{env.UNSET}"
	unset := func(s string) string {
		if s == "{env.UNSET}" {
			return ""
		}
		return expand(s)
	}
	if _, _, err := a.Authorize(ctx, unset); err == nil || err.Error() != "azure_credentials[1]: a tenant id, client id or client secret is empty after placeholder expansion" {
		t.Errorf("empty secret in a pool: %v", err)
	}
	one := Cloud{Credentials: a.Credentials[1:]}
	if _, _, err := one.Authorize(ctx, unset); err == nil || !strings.HasPrefix(err.Error(), "azure_credentials: ") {
		t.Errorf("empty secret: %v", err)
	}
	// The public cloud's authority by default.
	_, creds, err = (&Cloud{Credentials: []Application{{TenantID: "t", ClientID: "c", ClientSecret: "s"}}}).Authorize(ctx, expand)
	if err != nil || len(creds) != 1 {
		t.Errorf("default authority: %+v %v", creds, err)
	}
}
