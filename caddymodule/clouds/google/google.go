package google

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/caddyserver/caddy/v2"
	"golang.org/x/oauth2"
	"golang.org/x/oauth2/google"

	"github.com/llmbridge/llmbridge/caddymodule/clouds"
	"github.com/llmbridge/llmbridge/codec"
)

func init() {
	caddy.RegisterModule(Cloud{})
}

// googleScope is the OAuth scope of Vertex AI calls.
const googleScope = "https://www.googleapis.com/auth/cloud-platform"

// googleADC is the google_credentials value that selects Application
// Default Credentials.
const googleADC = "adc"

// Cloud is the Google Cloud settings of the vertex and
// vertex-anthropic upstreams (Vertex AI): the project and location their
// paths name, and the OAuth credential their requests carry. In a
// Caddyfile they are the vertex_* and google_* subdirectives of
// llmbridge; in JSON the handler's "cloud" object with "name": "google".
type Cloud struct {
	// Project is the Google Cloud project written into upstream paths
	// (vertex_project). Required.
	Project string `json:"project,omitempty"`

	// Location is the Google Cloud region (for example us-east5 or
	// global) written into upstream paths (vertex_location). Required.
	Location string `json:"location,omitempty"`

	// Credentials is the upstream credential (google_credentials): the
	// path of a Google credentials JSON file (a service-account key, or
	// an authorized-user file as gcloud writes it), or "adc" for
	// Application Default Credentials. llmbridge obtains OAuth access
	// tokens with the cloud-platform scope from it, caches them and
	// refreshes them before they expire, and sends them as
	// Authorization: Bearer. Placeholders are expanded at provision time.
	// Exclusive with Token and the handler's api_key.
	Credentials string `json:"credentials,omitempty"`

	// Token is a static OAuth access token (google_token), for example
	// {env.VERTEX_TOKEN} from `gcloud auth print-access-token`, sent as
	// Authorization: Bearer. It is not refreshed. Exclusive with
	// Credentials and the handler's api_key.
	Token string `json:"token,omitempty"`
}

// CaddyModule returns the Caddy module information.
func (Cloud) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  clouds.Namespace + ".google",
		New: func() caddy.Module { return new(Cloud) },
	}
}

// Prefixes returns the prefixes of the subdirectives the cloud owns.
func (*Cloud) Prefixes() []string { return []string{"vertex_", "google_"} }

// Set takes one of the cloud's Caddyfile subdirectives.
func (g *Cloud) Set(name string, args []string) error {
	var field *string
	switch name {
	case "vertex_project":
		field = &g.Project
	case "vertex_location":
		field = &g.Location
	case "google_credentials":
		field = &g.Credentials
	case "google_token":
		field = &g.Token
	default:
		return fmt.Errorf("unknown subdirective %q", name)
	}
	if len(args) != 1 {
		return fmt.Errorf("%s takes one argument", name)
	}
	*field = args[0]
	return nil
}

// Settings names the subdirectives that are set.
func (g *Cloud) Settings() []string {
	return clouds.SetNames(
		clouds.Setting{Name: "vertex_project", Set: g.Project != ""},
		clouds.Setting{Name: "vertex_location", Set: g.Location != ""},
		clouds.Setting{Name: "google_credentials", Set: g.Credentials != ""},
		clouds.Setting{Name: "google_token", Set: g.Token != ""},
	)
}

// credentialName names the credential setting that is set, or "".
func (g *Cloud) credentialName() string {
	switch {
	case g.Credentials != "":
		return "google_credentials"
	case g.Token != "":
		return "google_token"
	}
	return ""
}

// Check reports the first problem of the settings for an upstream of
// protocol p, keyed when api_key is configured.
func (g *Cloud) Check(p codec.Protocol, keyed bool) error {
	d := p.Descriptor()
	if d.Cloud != "google" {
		if c := g.credentialName(); c != "" {
			return fmt.Errorf("%s is only for the vertex and vertex-anthropic upstreams, not %s (use api_key for its credential)", c, p)
		}
		// An upstream outside Google Cloud ignores the project and
		// location (see cloudSettings.settle).
		return nil
	}
	if d.Located {
		var missing []string
		if g.Project == "" {
			missing = append(missing, "vertex_project")
		}
		if g.Location == "" {
			missing = append(missing, "vertex_location")
		}
		if len(missing) > 0 {
			return fmt.Errorf("upstream %s requires vertex_project and vertex_location (missing: %s): they are written into every upstream path", p, strings.Join(missing, ", "))
		}
	}
	for _, f := range [...]struct{ name, value string }{{"vertex_project", g.Project}, {"vertex_location", g.Location}} {
		if strings.ContainsAny(f.value, "/?#%\\ \t") {
			return fmt.Errorf("%s: %q is not a Google Cloud %s (it must not contain '/', '?', '#', '%%', '\\' or spaces)", f.name, f.value, strings.TrimPrefix(f.name, "vertex_"))
		}
	}
	if g.Credentials != "" && g.Token != "" {
		return errors.New("google_credentials and google_token are exclusive: configure one upstream credential")
	}
	if c := g.credentialName(); c != "" && keyed {
		return fmt.Errorf("api_key and %s are exclusive: both would set the upstream's Authorization header", c)
	}
	return nil
}

// Locate writes the cloud's part of the upstream paths into at.
func (g *Cloud) Locate(at *codec.Location) {
	at.Project, at.Region = g.Project, g.Location
}

// Authorize returns the token source of Credentials or Token.
func (g *Cloud) Authorize(ctx caddy.Context, expand func(string) string) (string, []clouds.Credential, error) {
	switch {
	case g.Token != "":
		tok := expand(g.Token)
		if tok == "" {
			return "", nil, errors.New("google_token is empty after placeholder expansion (is its environment variable set?)")
		}
		return "google_token", []clouds.Credential{{Tokens: oauth2.StaticTokenSource(&oauth2.Token{AccessToken: tok, TokenType: "Bearer"})}}, nil
	case g.Credentials != "":
		spec := expand(g.Credentials)
		if spec == "" {
			return "", nil, errors.New("google_credentials is empty after placeholder expansion")
		}
		ts, err := googleTokenSource(ctx, spec)
		if err != nil {
			return "", nil, fmt.Errorf("google_credentials: %v", err)
		}
		return "google_credentials", []clouds.Credential{{Tokens: ts}}, nil
	}
	return "", nil, nil
}

// googleTokenSource returns the token source for google_credentials: a
// service-account or authorized-user JSON file, or Application Default
// Credentials for "adc". Tokens are cached and refreshed shortly before
// they expire. Error messages name the file but never quote its content.
func googleTokenSource(ctx context.Context, spec string) (oauth2.TokenSource, error) {
	var creds *google.Credentials
	if spec == googleADC {
		c, err := google.FindDefaultCredentials(ctx, googleScope)
		if err != nil {
			return nil, fmt.Errorf("application default credentials: %v", err)
		}
		creds = c
	} else {
		data, err := os.ReadFile(spec)
		if err != nil {
			return nil, err
		}
		var f struct {
			Type string `json:"type"`
		}
		if json.Unmarshal(data, &f) != nil {
			return nil, fmt.Errorf("%s is not a Google credentials JSON file", spec)
		}
		switch t := google.CredentialsType(f.Type); t {
		case google.ServiceAccount, google.AuthorizedUser, google.ImpersonatedServiceAccount, google.ExternalAccount:
			c, err := google.CredentialsFromJSONWithType(ctx, data, t, googleScope)
			if err != nil {
				return nil, fmt.Errorf("%s: %v", spec, err)
			}
			creds = c
		default:
			return nil, fmt.Errorf("%s: credentials of type %q are not supported (want service_account, authorized_user, impersonated_service_account or external_account)", spec, f.Type)
		}
	}
	return oauth2.ReuseTokenSource(nil, creds.TokenSource), nil
}

// Interface guards
var _ clouds.Cloud = (*Cloud)(nil)
