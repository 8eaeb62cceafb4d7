package caddymodule

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig"

	"github.com/llmbridge/llmbridge/codec"
)

// cloudNamespace is the Caddy module namespace of the clouds an upstream
// can live in. A cloud is a guest module of the handler, loaded from its
// "cloud" object the way reverse_proxy loads its transport; its name is
// the Cloud of the protocol descriptors it serves ("google", "azure",
// "aws"), so that the handler finds the cloud of an upstream by the
// descriptor alone and a new cloud is one more module of this namespace.
const cloudNamespace = "http.handlers.llmbridge.clouds"

// cloud is what the handler reads of the cloud an upstream lives in (Vertex
// AI on Google Cloud, Azure OpenAI, Amazon Bedrock): the cloud's own
// Caddyfile subdirectives, their checks against the upstream protocol,
// where its upstream paths place models, and the credentials that
// authorise its requests. Its methods are unexported: the clouds are the
// ones this package ships. A cloud does not provision itself when Caddy
// loads it: its checks and credentials depend on the handler's upstream
// protocol and api_key, so the handler calls them once it has read those.
type cloud interface {
	caddy.Module
	// prefixes are the prefixes of the Caddyfile subdirectives the cloud
	// owns (vertex_ and google_ for Google's).
	prefixes() []string
	// setting takes one of the cloud's Caddyfile subdirectives: its name
	// and arguments. Its message names the subdirective.
	setting(name string, args []string) error
	// check reports the first problem of the settings for an upstream of
	// protocol p, keyed when api_key (or a pool of them) is configured.
	// Messages have no "llmbridge:" prefix.
	check(p codec.Protocol, keyed bool) error
	// settings names the subdirectives that are set.
	settings() []string
	// locate writes the cloud's part of the upstream paths into at.
	locate(at *codec.Location)
	// credentials returns the credentials that authorise requests and
	// the name of their kind in logs (a pool's members are named
	// kind[i]). It is not called when api_key is set: the upstream then
	// takes the key. Placeholders are expanded with expand.
	credentials(ctx caddy.Context, expand func(string) string) (kind string, creds []credential, err error)
}

// newCloud returns the empty settings of the named cloud, or nil when no
// cloud module has that name.
func newCloud(name string) cloud {
	info, err := caddy.GetModule(cloudNamespace + "." + name)
	if err != nil {
		return nil
	}
	c, _ := info.New().(cloud)
	return c
}

// cloudOwning returns the empty settings of the cloud that owns the
// Caddyfile subdirective name, or nil when none does.
func cloudOwning(name string) cloud {
	for _, info := range caddy.GetModules(cloudNamespace) {
		c, ok := info.New().(cloud)
		if ok && slices.ContainsFunc(c.prefixes(), func(p string) bool { return strings.HasPrefix(name, p) }) {
			return c
		}
	}
	return nil
}

// cloudName is the name of c's module in its namespace ("google").
func cloudName(c cloud) string {
	return c.CaddyModule().ID.Name()
}

// cloudSettings are the cloud settings a Caddyfile block gives, one value
// per cloud whose subdirectives it uses, in the order of their first
// setting.
type cloudSettings []cloud

// set takes the Caddyfile subdirective name with args, for the cloud that
// owns it (see cloudOwning), creating that cloud's settings on their first
// use.
func (s *cloudSettings) set(name string, args []string) error {
	c := cloudOwning(name)
	if c == nil {
		return fmt.Errorf("unknown subdirective %q", name)
	}
	for _, have := range *s {
		if cloudName(have) == cloudName(c) {
			return have.setting(name, args)
		}
	}
	*s = append(*s, c)
	return c.setting(name, args)
}

// settle gives h the settings of its upstream's cloud. The settings of
// another cloud are checked against the upstream, which reports the ones
// it cannot take (azure_* toward Vertex, google_credentials toward
// OpenAI); what such a check lets pass is what an upstream outside Google
// Cloud always ignored, vertex_project and vertex_location (Caddyfiles
// that serve several upstreams give them to all), and is left out. A
// failover site, or an upstream not yet known, keeps the first cloud's
// settings for its own checks to report.
func (s cloudSettings) settle(h *Handler) error {
	h.cloud = nil
	up, err := codec.ParseProtocol(h.Upstream)
	if h.Failover != nil || err != nil {
		if len(s) > 0 {
			h.cloud = s[0]
		}
		return nil
	}
	for _, c := range s {
		if cloudName(c) == up.Descriptor().Cloud {
			h.cloud = c
			continue
		}
		if err := c.check(up, h.APIKey != "" || len(h.APIKeys) > 0); err != nil {
			return err
		}
	}
	return nil
}

// setting is one subdirective of a cloud and whether it is set.
type setting struct {
	name string
	set  bool
}

// setNames returns the names of the settings that are set, for
// cloud.settings.
func setNames(settings ...setting) []string {
	var names []string
	for _, f := range settings {
		if f.set {
			names = append(names, f.name)
		}
	}
	return names
}

// cloudRaw is c as the handler's JSON "cloud" object.
func cloudRaw(c cloud) json.RawMessage {
	return caddyconfig.JSONModuleObject(c, "name", cloudName(c), nil)
}

// loadCloud loads the cloud module of the JSON configuration, when it has
// one.
func (h *Handler) loadCloud(ctx caddy.Context) error {
	if h.CloudRaw == nil {
		return nil
	}
	m, err := ctx.LoadModule(h, "CloudRaw")
	if err != nil {
		return fmt.Errorf("loading the cloud settings: %v", err)
	}
	c, ok := m.(cloud)
	if !ok {
		return fmt.Errorf("module %T is not a cloud of llmbridge", m)
	}
	h.cloud = c
	return nil
}
