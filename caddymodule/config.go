package caddymodule

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/llmbridge/llmbridge/caddymodule/clouds"
	"github.com/llmbridge/llmbridge/caddymodule/policy"
	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/rules"
)

// checkConfig reports the first problem in the configuration as written:
// unknown protocols, cloud settings the upstream's cloud rejects (see
// cloud.check), options that conflict, and values out of range. It reads only the configured fields,
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
	switch h.WebSocket {
	case "", "translate":
	case "passthrough":
		if upstream != codec.OpenAIResponses {
			return fmt.Errorf("websocket passthrough hands sockets to an upstream's own WebSocket mode: it needs upstream openai-responses, not %s", upstream)
		}
	default:
		return fmt.Errorf("websocket: want translate or passthrough, got %q", h.WebSocket)
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
	// The configured cloud settings, and those the upstream's cloud
	// requires when they are another cloud's or none.
	keyed := h.APIKey != "" || len(h.APIKeys) > 0
	if h.cloud != nil {
		if err := h.cloud.Check(upstream, keyed); err != nil {
			return err
		}
	}
	if name := upstream.Descriptor().Cloud; name != "" && (h.cloud == nil || clouds.Name(h.cloud) != name) {
		if c := clouds.New(name); c != nil {
			if err := c.Check(upstream, keyed); err != nil {
				return err
			}
		}
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
		if _, err := rules.Builtin().With(policy.Rows(h.ModelRules, rules.ProviderFor(upstream, h.Dialect))); err != nil {
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
