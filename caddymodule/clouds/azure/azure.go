package azure

import (
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/caddyserver/caddy/v2"
	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"

	"github.com/llmbridge/llmbridge/caddymodule/clouds"
	"github.com/llmbridge/llmbridge/codec"
)

func init() {
	caddy.RegisterModule(Cloud{})
}

// azureScope is the scope of Entra ID tokens for Azure OpenAI.
const azureScope = "https://cognitiveservices.azure.com/.default"

// Cloud is the Azure settings of the azure-openai and
// azure-openai-responses upstreams: the api-version of their paths and
// the Entra ID applications whose tokens their requests carry. In a
// Caddyfile they are the azure_* subdirectives of llmbridge; in JSON the
// handler's "cloud" object with "name": "azure".
type Cloud struct {
	// APIVersion is the api-version of the deployment paths
	// (/openai/deployments/{model}/chat/completions, /openai/responses),
	// for example 2024-10-21 (azure_api_version). Empty (the default)
	// uses Azure's versionless v1 paths (/openai/v1/chat/completions,
	// /openai/v1/responses).
	APIVersion string `json:"api_version,omitempty"`

	// Credentials are Entra ID applications (service principals) whose
	// tokens authenticate to the upstream (azure_credentials, one line
	// each), sent as Authorization: Bearer and refreshed before they
	// expire. Several are a pool used in turn, each with its own
	// cooldown and taken out when the upstream refuses it (see failover.Pool).
	// Exclusive with the handler's api_key (Azure's api-key).
	Credentials []Application `json:"credentials,omitempty"`
}

// Application is an Entra ID application's client credentials.
// Placeholders such as {env.AZURE_CLIENT_SECRET} are expanded at
// provision time.
type Application struct {
	// TenantID is the directory (tenant) of the application.
	TenantID string `json:"tenant_id"`
	// ClientID is the application (client) id.
	ClientID string `json:"client_id"`
	// ClientSecret is the application's client secret.
	ClientSecret string `json:"client_secret"`
	// AuthorityHost is the Entra ID endpoint tokens are requested from;
	// default https://login.microsoftonline.com (sovereign clouds have
	// their own).
	AuthorityHost string `json:"authority_host,omitempty"`
}

// CaddyModule returns the Caddy module information.
func (Cloud) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  clouds.Namespace + ".azure",
		New: func() caddy.Module { return new(Cloud) },
	}
}

// Prefixes returns the prefixes of the subdirectives the cloud owns.
func (*Cloud) Prefixes() []string { return []string{"azure_"} }

// Set takes one of the cloud's Caddyfile subdirectives.
func (a *Cloud) Set(name string, args []string) error {
	switch name {
	case "azure_api_version":
		if len(args) != 1 {
			return fmt.Errorf("%s takes one argument", name)
		}
		a.APIVersion = args[0]
	case "azure_credentials":
		// One application a line; several lines are a pool.
		if len(args) < 3 || len(args) > 4 {
			return errors.New("azure_credentials takes <tenant_id> <client_id> <client_secret> [<authority_host>]")
		}
		c := Application{TenantID: args[0], ClientID: args[1], ClientSecret: args[2]}
		if len(args) == 4 {
			c.AuthorityHost = args[3]
		}
		a.Credentials = append(a.Credentials, c)
	default:
		return fmt.Errorf("unknown subdirective %q", name)
	}
	return nil
}

// Settings names the subdirectives that are set.
func (a *Cloud) Settings() []string {
	return clouds.SetNames(
		clouds.Setting{Name: "azure_api_version", Set: a.APIVersion != ""},
		clouds.Setting{Name: "azure_credentials", Set: len(a.Credentials) > 0},
	)
}

// Check reports the first problem of the settings for an upstream of
// protocol p, keyed when api_key is configured.
func (a *Cloud) Check(p codec.Protocol, keyed bool) error {
	if p.Descriptor().Cloud != "azure" {
		return fmt.Errorf("azure_api_version and azure_credentials are only for the azure-openai upstreams, not %s", p)
	}
	if strings.ContainsAny(a.APIVersion, "/?#&% \t") {
		return fmt.Errorf("azure_api_version: %q is not an API version (such as 2024-10-21)", a.APIVersion)
	}
	for _, c := range a.Credentials {
		if c.TenantID == "" || c.ClientID == "" || c.ClientSecret == "" {
			return errors.New("azure_credentials needs a tenant id, a client id and a client secret")
		}
	}
	if len(a.Credentials) > 0 && keyed {
		return errors.New("api_key and azure_credentials are exclusive: configure one upstream credential")
	}
	if len(a.Credentials) > clouds.MaxPoolMembers {
		return fmt.Errorf("a credential pool holds at most %d members, got %d azure_credentials", clouds.MaxPoolMembers, len(a.Credentials))
	}
	return nil
}

// Locate writes the cloud's part of the upstream paths into at.
func (a *Cloud) Locate(at *codec.Location) { at.APIVersion = a.APIVersion }

// Authorize returns a token source per application: the OAuth client
// credentials grant against Entra ID, tokens cached and refreshed shortly
// before they expire.
func (a *Cloud) Authorize(ctx caddy.Context, expand func(string) string) (string, []clouds.Credential, error) {
	creds := make([]clouds.Credential, 0, len(a.Credentials))
	for i, c := range a.Credentials {
		tenant, id, secret := expand(c.TenantID), expand(c.ClientID), expand(c.ClientSecret)
		if tenant == "" || id == "" || secret == "" {
			name := "azure_credentials"
			if len(a.Credentials) > 1 {
				name = clouds.MemberName(name, i)
			}
			return "", nil, fmt.Errorf("%s: a tenant id, client id or client secret is empty after placeholder expansion", name)
		}
		authority := strings.TrimSuffix(expand(c.AuthorityHost), "/")
		if authority == "" {
			authority = "https://login.microsoftonline.com"
		}
		cfg := clientcredentials.Config{
			ClientID:     id,
			ClientSecret: secret,
			TokenURL:     authority + "/" + url.PathEscape(tenant) + "/oauth2/v2.0/token",
			Scopes:       []string{azureScope},
			AuthStyle:    oauth2.AuthStyleInParams,
		}
		creds = append(creds, clouds.Credential{Tokens: oauth2.ReuseTokenSource(nil, cfg.TokenSource(ctx)), Name: "azure_credentials " + tenant + " " + id})
	}
	return "azure_credentials", creds, nil
}

// Interface guards
var _ clouds.Cloud = (*Cloud)(nil)
