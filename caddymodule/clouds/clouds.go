// Package clouds holds what the llmbridge handler reads of the cloud an
// upstream lives in (Vertex AI on Google Cloud, Azure OpenAI, Amazon
// Bedrock): the Cloud interface its guest modules implement, the
// credentials they give, and the Caddyfile settings that choose one. The
// guest modules themselves live in the packages under it (google, azure,
// aws), one each, registered in the Namespace as reverse_proxy's
// transports are in theirs.
//
// It owns no request path and may import only the codec's protocol
// descriptors and mapping; the handler package imports it, never the
// reverse.
package clouds

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig"
	"go.uber.org/zap"
	"golang.org/x/oauth2"

	"github.com/llmbridge/llmbridge/codec"
)

// Namespace is the Caddy module namespace of the clouds an upstream can
// live in. A cloud is a guest module of the handler, loaded from its
// "cloud" object the way reverse_proxy loads its transport; its name is
// the Cloud of the protocol descriptors it serves ("google", "azure",
// "aws"), so that the handler finds the cloud of an upstream by the
// descriptor alone and a new cloud is one more module of this namespace.
const Namespace = "http.handlers.llmbridge.clouds"

// Cloud is what the handler reads of the cloud an upstream lives in: the
// cloud's own Caddyfile subdirectives, their checks against the upstream
// protocol, where its upstream paths place models, and the credentials
// that authorise its requests. A cloud does not provision itself when
// Caddy loads it: its checks and credentials depend on the handler's
// upstream protocol and api_key, so the handler calls them once it has
// read those.
type Cloud interface {
	caddy.Module
	// Prefixes are the prefixes of the Caddyfile subdirectives the cloud
	// owns (vertex_ and google_ for Google's).
	Prefixes() []string
	// Set takes one of the cloud's Caddyfile subdirectives: its name and
	// arguments. Its message names the subdirective.
	Set(name string, args []string) error
	// Check reports the first problem of the settings for an upstream of
	// protocol p, keyed when api_key (or a pool of them) is configured.
	// Messages have no "llmbridge:" prefix.
	Check(p codec.Protocol, keyed bool) error
	// Settings names the subdirectives that are set.
	Settings() []string
	// Locate writes the cloud's part of the upstream paths into at.
	Locate(at *codec.Location)
	// Authorize returns the credentials that authorise requests and
	// the name of their kind in logs (a pool's members are named
	// kind[i], see MemberName). It is not called when api_key is set:
	// the upstream then takes the key. Placeholders are expanded with
	// expand.
	Authorize(ctx caddy.Context, expand func(string) string) (kind string, creds []Credential, err error)
}

// Credential authorises one upstream request: a static key sent in the
// upstream protocol's credential header (api_key), an OAuth token source
// whose tokens are sent as Authorization: Bearer (google_credentials,
// google_token, azure_credentials), or a request signer (SigV4 with the
// AWS chain or an aws_profile). At most one of the three is set; none
// forwards the client's own credential (without client_keys).
type Credential struct {
	// Key is a static key.
	Key string
	// Tokens gives OAuth access tokens.
	Tokens oauth2.TokenSource
	// Signer signs each request.
	Signer Signer
	// Name says which token source or signer it is (an application, a
	// profile), never a secret: with the key, it tells the members of a
	// pool apart across instances (Identity).
	Name string
}

// Identity is what names the credential across instances: its key, or
// the application or profile its tokens or signatures come from.
func (c *Credential) Identity() string {
	if c.Key != "" {
		return c.Key
	}
	return c.Name
}

// Signer signs upstream requests whose credential is a signature over
// the request rather than a header value (SigV4).
type Signer interface {
	// Sign signs r, whose body is body, for the upstream: it sets the
	// Host and the signature's headers. Its error is the client's answer.
	Sign(r *http.Request, body []byte, logger *zap.Logger) *codec.Error
	// Host is the host the signature names, which requests must carry.
	Host() string
}

// MaxPoolMembers bounds a pool of credentials (an exchange notes the
// member's position in 16 bits).
const MaxPoolMembers = 1 << 12

// MemberName names the i-th member of a pool of the setting kind.
func MemberName(kind string, i int) string {
	return kind + "[" + strconv.Itoa(i) + "]"
}

// New returns the empty settings of the named cloud, or nil when no cloud
// module has that name.
func New(name string) Cloud {
	info, err := caddy.GetModule(Namespace + "." + name)
	if err != nil {
		return nil
	}
	c, _ := info.New().(Cloud)
	return c
}

// Owning returns the empty settings of the cloud that owns the Caddyfile
// subdirective name, or nil when none does.
func Owning(name string) Cloud {
	for _, info := range caddy.GetModules(Namespace) {
		c, ok := info.New().(Cloud)
		if ok && slices.ContainsFunc(c.Prefixes(), func(p string) bool { return strings.HasPrefix(name, p) }) {
			return c
		}
	}
	return nil
}

// Name is the name of c's module in its namespace ("google").
func Name(c Cloud) string {
	return c.CaddyModule().ID.Name()
}

// Raw is c as the handler's JSON "cloud" object.
func Raw(c Cloud) json.RawMessage {
	return caddyconfig.JSONModuleObject(c, "name", Name(c), nil)
}

// Blocks are the cloud settings a Caddyfile block gives, one value per
// cloud whose subdirectives it uses, in the order of their first setting.
type Blocks []Cloud

// Set takes the Caddyfile subdirective name with args, for the cloud that
// owns it (see Owning), creating that cloud's settings on their first use.
func (b *Blocks) Set(name string, args []string) error {
	c := Owning(name)
	if c == nil {
		return fmt.Errorf("unknown subdirective %q", name)
	}
	for _, have := range *b {
		if Name(have) == Name(c) {
			return have.Set(name, args)
		}
	}
	*b = append(*b, c)
	return c.Set(name, args)
}

// Settle returns the settings of the cloud of upstream, the handler's
// upstream protocol, keyed when api_key (or a pool of them) is
// configured. The settings of another cloud are checked against the
// upstream, which reports the ones it cannot take (azure_* toward Vertex,
// google_credentials toward OpenAI); what such a check lets pass is what
// an upstream outside Google Cloud always ignored, vertex_project and
// vertex_location (Caddyfiles that serve several upstreams give them to
// all), and is left out. A failover site, or an upstream not yet known
// (upstream empty or unknown), keeps the first cloud's settings for its
// own checks to report.
func (b Blocks) Settle(upstream string, failover, keyed bool) (Cloud, error) {
	up, err := codec.ParseProtocol(upstream)
	if failover || err != nil {
		if len(b) > 0 {
			return b[0], nil
		}
		return nil, nil
	}
	var own Cloud
	for _, c := range b {
		if Name(c) == up.Descriptor().Cloud {
			own = c
			continue
		}
		if err := c.Check(up, keyed); err != nil {
			return nil, err
		}
	}
	return own, nil
}

// Setting is one subdirective of a cloud and whether it is set.
type Setting struct {
	Name string
	Set  bool
}

// SetNames returns the names of the settings that are set, for
// Cloud.Settings.
func SetNames(settings ...Setting) []string {
	var names []string
	for _, f := range settings {
		if f.Set {
			names = append(names, f.Name)
		}
	}
	return names
}
