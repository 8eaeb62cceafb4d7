package caddymodule

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"slices"
	"strings"
	"time"

	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"
	"golang.org/x/oauth2/google"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/rules"
)

// googleScope is the OAuth scope of Vertex AI calls.
const googleScope = "https://www.googleapis.com/auth/cloud-platform"

// googleADC is the google_credentials value that selects Application
// Default Credentials.
const googleADC = "adc"

// checkConfig reports the first problem in the configuration as written:
// unknown protocols, missing or malformed Vertex settings, options that
// conflict, and values out of range. It reads only the configured fields,
// so that `caddy adapt` (through UnmarshalCaddyfile) and `caddy validate`
// (through Provision) give the same message. Messages have no "llmbridge:"
// prefix; the callers add their own context.
func (h *Handler) checkConfig() error {
	if h.APIKey != "" && len(h.APIKeys) > 0 {
		return errors.New("api_key and api_keys are exclusive: several keys are one pool")
	}
	if h.Upstream == "" {
		return errors.New("upstream protocol is required (upstream <protocol>; " + protocolList + ")")
	}
	upstream, err := codec.ParseProtocol(h.Upstream)
	if err != nil {
		return fmt.Errorf("upstream: %v", err)
	}
	if h.Client != "" {
		client, err := codec.ParseProtocol(h.Client)
		if err != nil {
			return fmt.Errorf("client: %v", err)
		}
		if !slices.Contains(codec.ClientProtocols(), client) {
			return fmt.Errorf("client: %s is an upstream protocol only; its clients speak %s on its paths, which are recognised without this setting", client, client.Family())
		}
	}
	vertex := upstream.Descriptor().Located
	if vertex {
		var missing []string
		if h.VertexProject == "" {
			missing = append(missing, "vertex_project")
		}
		if h.VertexLocation == "" {
			missing = append(missing, "vertex_location")
		}
		if len(missing) > 0 {
			return fmt.Errorf("upstream %s requires vertex_project and vertex_location (missing: %s): they are written into every upstream path", upstream, strings.Join(missing, ", "))
		}
	}
	for _, f := range [...]struct{ name, value string }{{"vertex_project", h.VertexProject}, {"vertex_location", h.VertexLocation}} {
		if strings.ContainsAny(f.value, "/?#%\\ \t") {
			return fmt.Errorf("%s: %q is not a Google Cloud %s (it must not contain '/', '?', '#', '%%', '\\' or spaces)", f.name, f.value, strings.TrimPrefix(f.name, "vertex_"))
		}
	}
	google := ""
	switch {
	case h.GoogleCredentials != "" && h.GoogleToken != "":
		return errors.New("google_credentials and google_token are exclusive: configure one upstream credential")
	case h.GoogleCredentials != "":
		google = "google_credentials"
	case h.GoogleToken != "":
		google = "google_token"
	}
	if google != "" {
		if !vertex {
			return fmt.Errorf("%s is only for the vertex and vertex-anthropic upstreams, not %s (use api_key for its credential)", google, upstream)
		}
		if h.APIKey != "" || len(h.APIKeys) > 0 {
			return fmt.Errorf("api_key and %s are exclusive: both would set the upstream's Authorization header", google)
		}
	}
	azure := upstream.Descriptor().Cloud == "azure"
	if (h.AzureAPIVersion != "" || h.AzureCredentials != nil) && !azure {
		return fmt.Errorf("azure_api_version and azure_credentials are only for the azure-openai upstreams, not %s", upstream)
	}
	if strings.ContainsAny(h.AzureAPIVersion, "/?#&% \t") {
		return fmt.Errorf("azure_api_version: %q is not an API version (such as 2024-10-21)", h.AzureAPIVersion)
	}
	if c := h.AzureCredentials; c != nil {
		if c.TenantID == "" || c.ClientID == "" || c.ClientSecret == "" {
			return errors.New("azure_credentials needs a tenant id, a client id and a client secret")
		}
		if h.APIKey != "" || len(h.APIKeys) > 0 {
			return errors.New("api_key and azure_credentials are exclusive: configure one upstream credential")
		}
	}
	aws := upstream.Descriptor().Cloud == "aws"
	if (h.AWSRegion != "" || h.AWSProfile != "" || h.AWSHost != "") && !aws {
		return fmt.Errorf("aws_region, aws_profile and aws_host are only for the bedrock and bedrock-anthropic upstreams, not %s", upstream)
	}
	if strings.ContainsAny(h.AWSHost, "/?#%@\\ \t") {
		return fmt.Errorf("aws_host: %q is not a host name (such as bedrock-runtime-fips.us-east-1.amazonaws.com)", h.AWSHost)
	}
	if aws && h.AWSRegion == "" {
		return fmt.Errorf("upstream %s requires aws_region: requests are signed for and sent to the region's Bedrock Runtime endpoint", upstream)
	}
	if strings.ContainsAny(h.AWSRegion, "/?#%@:\\ \t") {
		return fmt.Errorf("aws_region: %q is not an AWS region (such as us-east-1)", h.AWSRegion)
	}
	if h.Dialect != "" {
		if !upstream.Descriptor().Dialects {
			return fmt.Errorf("dialect is only for the openai-chat and openai-responses upstreams, not %s", upstream)
		}
		if _, err := rules.Builtin().Dialect(h.Dialect); err != nil {
			return fmt.Errorf("dialect: %v", err)
		}
	}
	if len(h.ModelRules) > 0 {
		if _, err := rules.Builtin().With(modelRuleRows(h.ModelRules, rules.ProviderFor(upstream, h.Dialect))); err != nil {
			return err
		}
	}
	switch h.ResponseModel {
	case "", "client", "upstream":
	default:
		return fmt.Errorf("response_model must be client or upstream, got %q", h.ResponseModel)
	}
	if h.DefaultMaxTokens < 0 {
		return fmt.Errorf("default_max_tokens must be positive, got %d", h.DefaultMaxTokens)
	}
	switch h.Cache {
	case "", "auto", "off":
	default:
		return fmt.Errorf("cache must be auto or off, got %q", h.Cache)
	}
	if _, ok := cacheTTLs[h.CacheTTL]; !ok {
		return fmt.Errorf("cache_ttl must be 5m or 1h, got %q", h.CacheTTL)
	}
	if h.MaxRequestBody < 0 {
		return fmt.Errorf("max_request_body must be positive, got %d", h.MaxRequestBody)
	}
	if h.MaxEventSize < 0 || h.MaxEventSize > 1<<30 {
		return fmt.Errorf("max_event_size must be between 1 byte and 1GiB, got %d", h.MaxEventSize)
	}
	if h.ItemCacheSize < -1 {
		return fmt.Errorf("item_cache_size must be a size in bytes, or -1 for none, got %d", h.ItemCacheSize)
	}
	if h.ItemCacheTTL < 0 {
		return fmt.Errorf("item_cache_ttl must be positive, got %v", time.Duration(h.ItemCacheTTL))
	}
	for i, r := range h.Models {
		if _, err := compileModelRoute(r); err != nil {
			return fmt.Errorf("models[%d] (model %s %s): %v", i, r.Match, r.Upstream, err)
		}
	}
	return nil
}

// protocolList names the protocols for configuration messages.
var protocolList = "one of " + strings.Join(func() []string {
	var names []string
	for _, p := range codec.Protocols() {
		names = append(names, string(p))
	}
	return names
}(), ", ")

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

// azureScope is the scope of Entra ID tokens for Azure OpenAI.
const azureScope = "https://cognitiveservices.azure.com/.default"

// provisionAzure sets up the upstream token source of azure_credentials:
// the OAuth client credentials grant against Entra ID, tokens cached and
// refreshed shortly before they expire.
func (h *Handler) provisionAzure(ctx context.Context, expand func(string) string) error {
	c := h.AzureCredentials
	if c == nil {
		return nil
	}
	tenant, id, secret := expand(c.TenantID), expand(c.ClientID), expand(c.ClientSecret)
	if tenant == "" || id == "" || secret == "" {
		return errors.New("azure_credentials: a tenant id, client id or client secret is empty after placeholder expansion")
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
	h.tokenSource = oauth2.ReuseTokenSource(nil, cfg.TokenSource(ctx))
	return nil
}

// provisionGoogle sets up the upstream token source of google_credentials
// or google_token.
func (h *Handler) provisionGoogle(ctx context.Context, expand func(string) string) error {
	h.tokenSource = nil
	switch {
	case h.GoogleToken != "":
		tok := expand(h.GoogleToken)
		if tok == "" {
			return errors.New("google_token is empty after placeholder expansion (is its environment variable set?)")
		}
		h.tokenSource = oauth2.StaticTokenSource(&oauth2.Token{AccessToken: tok, TokenType: "Bearer"})
	case h.GoogleCredentials != "":
		spec := expand(h.GoogleCredentials)
		if spec == "" {
			return errors.New("google_credentials is empty after placeholder expansion")
		}
		ts, err := googleTokenSource(ctx, spec)
		if err != nil {
			return fmt.Errorf("google_credentials: %v", err)
		}
		h.tokenSource = ts
	}
	return nil
}

// cacheTTLs are the values of cache_ttl.
var cacheTTLs = map[string]codec.CacheTTL{"": codec.CacheNone, "5m": codec.Cache5m, "1h": codec.Cache1h}

// cachePolicyFor is the prompt caching asked for on behalf of a client of
// protocol client: no breakpoints for one whose protocol places its own.
func (h *Handler) cachePolicyFor(client codec.Protocol) codec.CachePolicy {
	p := h.cachePolicy
	if d := client.Descriptor(); d != nil && d.CacheBreakpoints {
		p.Breakpoints = false
	}
	return p
}
