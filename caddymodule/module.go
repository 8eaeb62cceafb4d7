// Package caddymodule is the Caddy glue of llmbridge: the http.handlers.llmbridge
// handler, its Caddyfile directive, and the response writer that translates
// upstream responses in flight. The protocol knowledge itself lives in the
// codec and mapping packages; this package only moves bytes between Caddy and
// them.
package caddymodule

import (
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"go.uber.org/zap"

	"github.com/llmbridge/llmbridge/caddymodule/clouds"
	"github.com/llmbridge/llmbridge/caddymodule/conversations"
	"github.com/llmbridge/llmbridge/caddymodule/failover"
	"github.com/llmbridge/llmbridge/caddymodule/fit"
	"github.com/llmbridge/llmbridge/caddymodule/fleet"
	"github.com/llmbridge/llmbridge/caddymodule/limits"
	"github.com/llmbridge/llmbridge/caddymodule/limits/admission"
	"github.com/llmbridge/llmbridge/caddymodule/observe"
	"github.com/llmbridge/llmbridge/caddymodule/policy"
	"github.com/llmbridge/llmbridge/caddymodule/sessions"
	"github.com/llmbridge/llmbridge/caddymodule/state"
	"github.com/llmbridge/llmbridge/caddymodule/streams"
	"github.com/llmbridge/llmbridge/caddymodule/websocket"
	"github.com/llmbridge/llmbridge/caddymodule/writers"
	"github.com/llmbridge/llmbridge/codec"

	// The module speaks every protocol family.
	_ "github.com/llmbridge/llmbridge/codec/all"
	"github.com/llmbridge/llmbridge/codec/rules"
)

func init() {
	caddy.RegisterModule(Handler{})
}

// DefaultMaxRequestBody is the request body limit when max_request_body is
// not configured: large enough for agent requests with long histories and
// inline images, small enough to bound memory per request.
const DefaultMaxRequestBody = 32 << 20

// DefaultMaxEventSize is the bound on one upstream SSE event when
// max_event_size is not configured.
const DefaultMaxEventSize = 8 << 20

// Handler translates LLM API requests from the client's protocol into the
// upstream's protocol, hands them to the next handler (normally
// reverse_proxy), and translates the response back.
type Handler struct {
	// Upstream is the protocol the upstream speaks: one of openai-chat,
	// openai-responses, anthropic-messages, gemini, vertex,
	// vertex-anthropic. Required.
	Upstream string `json:"upstream,omitempty"`

	// Client is the protocol clients speak. When empty it is detected from
	// each request's path; when set, requests for another protocol's path
	// are answered 404.
	Client string `json:"client,omitempty"`

	// APIKey is the upstream credential. When set, every client credential
	// header is removed and this key is sent in the upstream protocol's own
	// header. When empty, the client's credential is moved into the
	// upstream protocol's header. Placeholders such as {env.OPENAI_API_KEY}
	// are expanded at provision time.
	APIKey string `json:"api_key,omitempty"`

	// APIKeys is a pool of upstream credentials used in turn instead of
	// APIKey (see failover.Pool): each key has its own cooldown when the
	// upstream answers it with a rate limit, and a key the upstream
	// refuses (401, 403) is left out until the configuration is loaded
	// again. Exclusive with APIKey.
	APIKeys []string `json:"api_keys,omitempty"`

	// CloudRaw is the settings of the cloud the upstream lives in (Vertex
	// AI on Google Cloud, Azure OpenAI, Amazon Bedrock): a module of the
	// http.handlers.llmbridge.clouds namespace named by the upstream
	// protocol's cloud (google, azure, aws; see the packages under
	// caddymodule/clouds), which parses, checks and provisions its own
	// settings. In a Caddyfile its settings are the vertex_*, google_*,
	// azure_* and aws_* subdirectives. Required for the upstreams whose
	// cloud requires settings (vertex_project, aws_region).
	CloudRaw json.RawMessage `json:"cloud,omitempty" caddy:"namespace=http.handlers.llmbridge.clouds inline_key=name"`

	// Failover makes this a failover site: its requests go to the named
	// routes it lists, in turn (see Failover). A failover site has no
	// upstream of its own.
	Failover *failover.Config `json:"failover,omitempty"`

	// ClientKeys are the keys clients must present. When set, every
	// request must carry one of them in its own protocol's credential
	// header (Authorization: Bearer for OpenAI and Vertex clients,
	// x-api-key or Authorization: Bearer for Anthropic, x-goog-api-key or
	// ?key= for Gemini); others are answered 401 in their protocol's error
	// format without an upstream call. A client key is never forwarded
	// upstream: the upstream credential is api_key, or none. Placeholders
	// such as {env.TEAM_KEY} are expanded at provision time. Each entry
	// is a key, or an object with the key and the name that the access
	// log and spans give the requests made with it (the key itself is
	// never logged).
	ClientKeys []ClientKey `json:"client_keys,omitempty"`

	// OTelContent records prompts and completions on the request's
	// OpenTelemetry span (gen_ai.system_instructions,
	// gen_ai.input.messages, gen_ai.output.messages) when Caddy's tracing
	// is on. Off by default: content is the users' data.
	OTelContent bool `json:"otel_content,omitempty"`

	// Limits cap what each named client key may use: requests, tokens
	// and spend per period, and concurrent streams (limits.Limit). They
	// need client_keys with names; their counters live in the llmbridge
	// app's state store, shared by a fleet when it is Valkey.
	Limits []limits.Limit `json:"limits,omitempty"`

	// OTelContentMax bounds the text OTelContent records per request, in
	// bytes; longer content is cut and marked llmbridge.content.truncated.
	// Default: 16 KiB.
	OTelContentMax int64 `json:"otel_content_max,omitempty"`

	// Cache is how llmbridge asks for prompt caching for clients whose
	// protocols place no cache breakpoints (OpenAI's and Google's):
	// "auto" (the default) places breakpoints toward Anthropic's and
	// Bedrock's protocols where Claude Code places its own and sends
	// OpenAI's upstreams a prompt_cache_key derived from the conversation;
	// "off" asks for nothing the client did not. Clients of Anthropic's and
	// Bedrock's protocols place their own breakpoints, which are carried
	// either way.
	Cache string `json:"cache,omitempty"`
	// CacheTTL is the lifetime of the breakpoints llmbridge places, "5m" or
	// "1h" (which Anthropic bills higher for the write); empty is the
	// provider's default (five minutes).
	CacheTTL string `json:"cache_ttl,omitempty"`

	// DefaultMaxTokens is the max_tokens sent to upstreams that require one
	// (Anthropic) when the client gave none. Default: 4096.
	DefaultMaxTokens int64 `json:"default_max_tokens,omitempty"`

	// MaxRequestBody is the largest request body accepted, in bytes; larger
	// requests are answered 413 without being read further. Default: 32 MiB.
	MaxRequestBody int64 `json:"max_request_body,omitempty"`

	// MaxEventSize bounds one upstream Server-Sent Event, in bytes. An
	// upstream event larger than this ends the client's stream with an
	// error, so memory per stream stays bounded. Default: 8 MiB, room for
	// an inline image in a Gemini or Responses event.
	MaxEventSize int64 `json:"max_event_size,omitempty"`

	// ItemCacheSize bounds the memory, in bytes, of the Responses output
	// items the handler keeps so that an openai-responses client's
	// item_reference to one (the Vercel AI SDK's default, store on) can be
	// restored toward an upstream of another family: every item of a
	// stream, and items that do not fit in their id. Items are evicted
	// oldest first past the bound. Default: 64 MiB; -1 keeps none, and
	// then only short assistant texts, which travel in their ids, can be
	// referred to.
	ItemCacheSize int64 `json:"item_cache_size,omitempty"`

	// ItemCacheTTL is how long a kept item can be referred to. Default:
	// one hour.
	ItemCacheTTL caddy.Duration `json:"item_cache_ttl,omitempty"`

	// WebSocket is how a Responses WebSocket (OpenAI's WebSocket mode) is
	// served: "translate" (the default) serves the socket here and runs
	// each turn as an HTTP request through the site, translated, limited,
	// logged and traced per turn, toward any upstream; "passthrough",
	// for an openai-responses upstream only, hands the socket to the
	// upstream's own WebSocket mode through reverse_proxy, with the
	// upstream's credential, so that the provider keeps the connection's
	// state; the connection is then logged once and its turns are
	// neither limited nor traced one by one.
	WebSocket string `json:"websocket,omitempty"`

	// ConversationsSize bounds the memory, in bytes, of the conversations
	// the handler keeps so that an openai-responses client can continue
	// a translated answer by its id (previous_response_id), as the
	// Responses API stores responses unless a request says store: false.
	// The least recently used are evicted past the bound. Default:
	// 256 MiB; -1 keeps none, and then previous_response_id is refused
	// toward upstreams of other protocols.
	ConversationsSize int64 `json:"conversations_size,omitempty"`

	// ConversationsTTL is how long a kept conversation can be continued.
	// Default: one hour.
	ConversationsTTL caddy.Duration `json:"conversations_ttl,omitempty"`

	// Models rewrites the model a client asks for into the model sent
	// upstream. Rules are tried in order and the first whose pattern
	// matches wins; a model no rule matches is sent unchanged.
	Models []ModelRoute `json:"models,omitempty"`

	// ResponseModel says which model name responses show when a rule of
	// Models rewrote the model: "client" (the default) shows the model the
	// client asked for, "upstream" the one the upstream reports.
	ResponseModel string `json:"response_model,omitempty"`

	// OnUnsupported is the capability policy: "safe" (the default) drops
	// hint fields and rejects capability and unknown fields a translation
	// cannot carry; "strict" also rejects a request that would lose a
	// hint; "lenient" also drops capability fields where it can. Unknown
	// fields and invalid values are rejected under every policy.
	OnUnsupported string `json:"on_unsupported,omitempty"`

	// Drop lists request body paths removed before translation (and from
	// passed-through bodies), under any policy: object keys joined by dots,
	// with [*] for any array index or [n] for one
	// ("tools[*].cache_control", "metadata"). Removed paths are listed in
	// Llmbridge-Dropped; a path that matches nothing is fine.
	Drop []string `json:"drop,omitempty"`

	// Dialect is the OpenAI-compatible server an openai-chat or
	// openai-responses upstream is: openai (the default), deepseek,
	// mistral, groq, xai, openrouter, ollama or vllm. It selects the
	// server's declared departures from OpenAI (roles, the output-limit
	// field, reasoning fields, stream options, tool-call ids) and its
	// model rules.
	Dialect string `json:"dialect,omitempty"`

	// ModelRules add to and override the built-in model rules (what each
	// upstream model accepts; see package rules). They are tried before
	// the built-in rows, first match wins; a rule without a provider
	// applies to the upstream's.
	ModelRules []rules.Rule `json:"model_rules,omitempty"`

	upstream codec.Protocol
	client   codec.Protocol // empty: detect from the path
	// failover is the runtime of a failover site; nil otherwise.
	failover *failover.Site
	// cloud is the loaded CloudRaw (or the settings the Caddyfile gave);
	// nil without cloud settings.
	cloud clouds.Cloud
	// location is the cloud's part of the upstream paths.
	location codec.Location
	// cred is the upstream credential when there is one (api_key, a
	// Google or Entra ID token source, a SigV4 signer), or none; keys
	// the pool of several (api_key values, azure_credentials,
	// aws_profile names), nil without one.
	cred clouds.Credential
	keys *failover.Pool
	// signedHost is the host SigV4 signs for and requests carry, when
	// the credentials sign; "" otherwise.
	signedHost string
	// provider is whose model rules govern the upstream (rules.ProviderFor).
	provider string
	// fitter fits requests to the upstream's models under the policy;
	// its lessons, learned from upstream refusals, are kept per provider
	// across configuration reloads (learn.go).
	fitter fit.Fitter
	// writers is what the site's response writers share.
	writers writers.Site
	logger  *zap.Logger
	routes  []modelRoute
	metrics *observe.Metrics
	// clientKeys are ClientKeys expanded; nil when the site is open.
	clientKeys [][]byte
	// clientKeyNames name clientKeys in logs and spans: the configured
	// name, else "client_keys[i]".
	clientKeyNames []string
	// tracing is what the spans need of the handler.
	tracing observe.Tracing
	// cachePolicy is the prompt caching Cache and CacheTTL ask for.
	cachePolicy codec.CachePolicy
	// prices are the configured model prices, first match wins.
	prices observe.Prices
	// upstreamModelInResponse is ResponseModel "upstream".
	upstreamModelInResponse bool
	// items keeps Responses output items for item_reference inputs: an
	// itemCache in memory, or storeItems in a shared store; nil when
	// ItemCacheSize is -1.
	items codec.ItemStore
	// store is the instance's state store (the llmbridge app's), and
	// limits the Limits applied over it; nil without limits.
	store  state.Store
	limits *admission.Gate
	// conversations keeps translated Responses conversations for
	// previous_response_id; its Store is nil when ConversationsSize is
	// -1. interactions keeps the Interactions API's, in store.
	conversations conversations.Responses
	interactions  conversations.Interactions
	// sockets serves the handler's Responses WebSocket connections.
	sockets *websocket.Server
}

// ModelRoute is one model rewriting rule.
type ModelRoute struct {
	// Match is the pattern of client model names the rule applies to. Each
	// '*' matches any run of characters, possibly empty, and captures it;
	// the rest must match exactly. Two adjacent '*' are not allowed, nor
	// more than nine.
	Match string `json:"match"`

	// Upstream is the model sent upstream. $1 to $9 insert what the
	// pattern's first to ninth '*' matched; a '$' not followed by such a
	// digit is literal.
	Upstream string `json:"upstream"`
}

// CaddyModule returns the Caddy module information.
func (Handler) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  "http.handlers.llmbridge",
		New: func() caddy.Module { return new(Handler) },
	}
}

// Provision loads the cloud settings, checks the configuration (see
// checkConfig), parses the protocol names, sets up the upstream
// credentials (expanding their placeholders) and applies defaults.
func (h *Handler) Provision(ctx caddy.Context) error {
	h.logger = ctx.Logger()
	if err := h.loadCloud(ctx); err != nil {
		return fmt.Errorf("llmbridge: %v", err)
	}
	// Before the failover branch: a failover site keeps the
	// conversations of every target's answers, and serves the sockets
	// whose turns go to its targets.
	if err := h.provisionConversations(ctx); err != nil {
		return fmt.Errorf("llmbridge: %v", err)
	}
	if h.Failover != nil {
		if err := h.provisionFailover(ctx); err != nil {
			return err
		}
		return h.provisionSockets(ctx)
	}
	if err := h.checkConfig(); err != nil {
		return fmt.Errorf("llmbridge: %v", err)
	}
	// checkConfig has parsed both names already.
	h.upstream, _ = codec.ParseProtocol(h.Upstream)
	h.client = ""
	if h.Client != "" {
		h.client, _ = codec.ParseProtocol(h.Client)
	}
	repl := caddy.NewReplacer()
	h.metrics = observe.GlobalMetrics()
	if err := h.metrics.Register(ctx.GetMetricsRegistry()); err != nil {
		return fmt.Errorf("llmbridge: registering metrics: %v", err)
	}
	h.location = codec.Location{}
	if h.cloud != nil {
		h.cloud.Locate(&h.location)
	}
	if err := h.provisionCredentials(ctx, func(s string) string { return repl.ReplaceAll(s, "") }); err != nil {
		return fmt.Errorf("llmbridge: %v", err)
	}
	if h.keys != nil {
		if err := failover.RegisterMetrics(ctx.GetMetricsRegistry()); err != nil {
			return fmt.Errorf("llmbridge: registering metrics: %v", err)
		}
	}
	if err := h.provisionClientKeys(); err != nil {
		return err
	}
	if err := h.provisionLimits(ctx); err != nil {
		return err
	}
	h.interactions = conversations.Interactions{Store: h.store, Logger: h.logger}
	h.tracing.Dialect, h.tracing.Content, h.tracing.ContentMax = h.Dialect, h.OTelContent, observe.DefaultOTelContentMax
	if h.OTelContentMax > 0 {
		h.tracing.ContentMax = int(h.OTelContentMax)
	}
	if h.DefaultMaxTokens == 0 {
		h.DefaultMaxTokens = codec.DefaultMaxTokens
	}
	on := h.Cache != "off"
	h.cachePolicy = codec.CachePolicy{Breakpoints: on, Key: on, TTL: cacheTTLs[h.CacheTTL]}
	if h.MaxRequestBody == 0 {
		h.MaxRequestBody = DefaultMaxRequestBody
	}
	if h.MaxEventSize == 0 {
		h.MaxEventSize = DefaultMaxEventSize
	}
	h.writers = writers.Site{Config: streams.Config{Logger: h.logger, Metrics: h.metrics, Keys: h.keys, MaxEventSize: int(h.MaxEventSize),
		MaxFrameSize: writers.MaxResponseBody}, Host: (*writerHost)(h), Recycle: recycleScratch}
	// After the limits' defaults: a frame is bounded as a request.
	if err := h.provisionSockets(ctx); err != nil {
		return err
	}
	h.items = nil
	if h.ItemCacheSize >= 0 {
		size, ttl := h.ItemCacheSize, time.Duration(h.ItemCacheTTL)
		if size == 0 {
			size = sessions.DefaultItemCacheSize
		}
		if ttl == 0 {
			ttl = sessions.DefaultItemCacheTTL
		}
		if h.store != nil && h.store.Shared() {
			// A fleet shares its items: the store bounds them.
			h.items = sessions.NewSharedItems(h.store, ttl)
		} else {
			h.items = sessions.NewMemoryItems(size, ttl)
		}
	}
	h.routes = h.routes[:0]
	for _, r := range h.Models {
		// checkConfig has compiled every rule once already.
		mr, _ := compileModelRoute(r)
		h.routes = append(h.routes, mr)
	}
	h.provider = rules.ProviderFor(h.upstream, h.Dialect)
	h.prices = observe.CompilePrices(h.ModelRules, h.provider)
	if err := provisionLearning(ctx); err != nil {
		return err
	}
	h.fitter = fit.Fitter{Upstream: h.upstream, Provider: h.provider, Lessons: policy.LessonsFor(h.provider),
		DefaultMaxTokens: h.DefaultMaxTokens, Region: h.location.Region, Logger: h.logger, Metrics: h.metrics}
	fleet.Teach(h.provider, (*sharedLearner)(h))
	if err := h.fitter.Provision(h.ModelRules, h.Dialect); err != nil {
		return fmt.Errorf("llmbridge: %v", err)
	}
	h.upstreamModelInResponse = h.ResponseModel == "upstream"
	var err error
	if h.fitter.Policy, err = policy.ParseLevel(h.OnUnsupported); err != nil {
		return fmt.Errorf("llmbridge: %v", err)
	}
	for i, p := range h.Drop {
		dp, err := policy.CompileDrop(p)
		if err != nil {
			return fmt.Errorf("llmbridge: drop[%d]: %v", i, err)
		}
		h.fitter.Drops = append(h.fitter.Drops, dp)
	}
	return nil
}

// provisionClientKeys expands the placeholders of ClientKeys and names
// each key.
func (h *Handler) provisionClientKeys() error {
	repl := caddy.NewReplacer()
	h.clientKeys, h.clientKeyNames = nil, nil
	for i, k := range h.ClientKeys {
		v := repl.ReplaceAll(k.Key, "")
		name := k.Name
		if name == "" {
			name = "client_keys[" + strconv.Itoa(i) + "]"
		}
		if v == "" {
			// The message names the entry, never its value.
			return fmt.Errorf("llmbridge: client key %s is empty after placeholder expansion (is its environment variable set?)", name)
		}
		h.clientKeys = append(h.clientKeys, []byte(v))
		h.clientKeyNames = append(h.clientKeyNames, name)
	}
	return nil
}

// Validate checks that the configuration is complete and consistent; see
// checkConfig for what it checks.
func (h *Handler) Validate() error {
	if h.Failover != nil {
		if err := h.checkFailoverSite(); err != nil {
			return fmt.Errorf("llmbridge: %v", err)
		}
		return nil
	}
	if err := h.checkConfig(); err != nil {
		return fmt.Errorf("llmbridge: %v", err)
	}
	return nil
}

// Interface guards
var (
	_ caddy.Provisioner           = (*Handler)(nil)
	_ caddy.Validator             = (*Handler)(nil)
	_ caddyhttp.MiddlewareHandler = (*Handler)(nil)
)

// ClientKey is one key of ClientKeys. In JSON it is the key as a string,
// or an object with the key and its name.
type ClientKey struct {
	// Name names the key in the access log and on spans; the key itself
	// is never logged. Empty names it by its place, client_keys[i].
	Name string `json:"name,omitempty"`
	// Key is the key clients present; placeholders such as
	// {env.TEAM_KEY} are expanded at provision time.
	Key string `json:"key"`
}

// UnmarshalJSON reads a key given as a string or as an object.
func (k *ClientKey) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		k.Name = ""
		return json.Unmarshal(b, &k.Key)
	}
	type plain ClientKey
	return json.Unmarshal(b, (*plain)(k))
}

// MarshalJSON writes an unnamed key as a string, as client_keys always
// took them.
func (k ClientKey) MarshalJSON() ([]byte, error) {
	if k.Name == "" {
		return json.Marshal(k.Key)
	}
	type plain ClientKey
	return json.Marshal(plain(k))
}

// Interface guards
var (
	_ json.Unmarshaler = (*ClientKey)(nil)
	_ json.Marshaler   = ClientKey{}
)
