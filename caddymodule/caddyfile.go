package caddymodule

import (
	"strconv"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/caddyconfig/httpcaddyfile"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"github.com/dustin/go-humanize"

	"github.com/llmbridge/llmbridge/caddymodule/clouds"
	"github.com/llmbridge/llmbridge/caddymodule/failover"
	"github.com/llmbridge/llmbridge/caddymodule/limits/admission"
	"github.com/llmbridge/llmbridge/caddymodule/policy"
	"github.com/llmbridge/llmbridge/codec"
)

func init() {
	httpcaddyfile.RegisterHandlerDirective("llmbridge", parseCaddyfile)
	httpcaddyfile.RegisterDirectiveOrder("llmbridge", httpcaddyfile.Before, "reverse_proxy")
}

func parseCaddyfile(h httpcaddyfile.Helper) (caddyhttp.MiddlewareHandler, error) {
	var m Handler
	err := m.UnmarshalCaddyfile(h.Dispenser)
	if err == nil && m.Failover != nil {
		failover.NoteTargets(h, m.Failover.Targets)
	}
	return &m, err
}

// UnmarshalCaddyfile sets up the handler from Caddyfile tokens. Syntax:
//
//	llmbridge [<matcher>] {
//		upstream <protocol>          # required
//		client <protocol>            # optional; default: detected from the request path
//		vertex_project <id>          # required for vertex and vertex-anthropic upstreams
//		vertex_location <region>     # required for vertex and vertex-anthropic upstreams
//		api_key <key>...             # optional upstream credential, {env.VAR} allowed; several (or the line repeated): a key pool used in turn
//		google_credentials <file>|adc  # vertex upstreams: OAuth tokens from a credentials file or ADC
//		google_token <token>         # vertex upstreams: a static OAuth access token
//		azure_api_version <version>  # azure-openai upstreams: deployment paths of this api-version; default: the v1 paths
//		azure_credentials <tenant> <client_id> <secret> [<authority>]  # azure-openai upstreams: Entra ID tokens; repeated: a pool
//		aws_region <region>          # required for bedrock and bedrock-anthropic upstreams
//		aws_profile <name>...        # bedrock upstreams: the shared-config profile that signs; several (or repeated): a pool; default: the standard AWS chain
//		aws_host <host>              # bedrock upstreams: the host signed for; default: bedrock-runtime.<region>.amazonaws.com
//		client_keys <key>...         # optional; repeatable; keys clients must present
//		client_keys {                # or named: the access log and spans name each key's requests
//			<name> <key>
//		}
//		limit [<key name>...] {      # optional, repeatable: caps per named client key (see admission.ParseLimit)
//			models <glob>...
//			requests <n>/<period>     # period: second, minute, hour, day, month
//			input_tokens <n>/<period>
//			output_tokens <n>/<period>
//			total_tokens <n>/<period>
//			spend <usd>/<period>
//			streams <n>
//			scope <name>
//		}
//		otel_content on|off [<size>] # optional: prompts and completions on spans, within <size> (16KiB)
//		cache auto|off               # optional, default auto: prompt caching for clients that place no breakpoints
//		cache_ttl 5m|1h              # optional: the lifetime of the breakpoints llmbridge places
//		default_max_tokens <n>       # optional, default 4096
//		max_request_body <size>      # optional, default 32MiB
//		max_event_size <size>        # optional, default 8MiB
//		item_cache <size>|off [<ttl>]  # optional, default 64MiB 1h: Responses items kept for item_reference
//		websocket translate|passthrough       # openai-responses upstreams: Responses WebSockets served turn by turn (default), or passed to the upstream's own WebSocket mode
//		conversations <size>|off [<ttl>]  # optional, default 256MiB 1h: translated Responses answers kept for previous_response_id
//		model <client-glob> <upstream-model>  # repeatable; first match wins
//		response_model client|upstream        # optional, default client
//		on_unsupported strict|safe|lenient    # optional, default safe
//		drop <field-path>...                  # optional, repeatable; [*] for any index
//		dialect <name>                        # openai-chat/-responses upstreams: openai (default), deepseek, mistral, ...
//		failover <target>... {                # a failover site: named routes (&(name) blocks) tried in turn
//			retry_on <status>...              # statuses that move on besides 429 500 502 503 504 529
//			cooldown <duration>               # default 5s: a rate limit that names no time
//			max_cooldown <duration>           # default 10m: the longest cooldown an answer may ask for
//			circuit_breaker <n> <window> <period>  # default 5 10s 30s
//		}
//		model_rule <glob>... {                # optional, repeatable: what an upstream model accepts
//			like <model>                      # start from a known model's rule
//			max_output <n>
//			reasoning none|effort|budget|budget+adaptive|adaptive|level|always
//			efforts <effort>...
//			budget <min> <max>
//			always_thinks
//			sampling free|exclusive|fixed|fixed-when-reasoning
//			no_prefill
//			signed_calls
//			rejects stop|presence_penalty|frequency_penalty...
//			source <url>...
//			price input <usd> output <usd> [cache_read <usd>] [cache_write <usd>] source <url> date <yyyy-mm-dd>
//		}
//	}
//
// Protocols are openai-chat, openai-responses, anthropic-messages, gemini,
// vertex, vertex-anthropic, bedrock, bedrock-anthropic and, as upstreams
// only, azure-openai and azure-openai-responses (Azure OpenAI's clients
// are openai-chat and openai-responses clients on Azure's paths). The directive is ordered before
// reverse_proxy, which carries the translated request to the upstream.
//
// In a model rule each '*' of the glob matches any run of characters and
// captures it; $1 to $9 in the upstream model insert the captures, for
// example "model claude-* anthropic/claude-$1".
//
// At most one of api_key, google_credentials and google_token may be set,
// and the google_* options only with a vertex or vertex-anthropic upstream;
// at most one of api_key and azure_credentials, and the azure_* options
// only with an azure-openai upstream; the aws_* options only with a
// bedrock or bedrock-anthropic upstream, which signs its requests with
// SigV4 unless api_key (a Bedrock API key) is set. The vertex_*,
// google_*, azure_* and aws_* subdirectives are parsed by the cloud they
// belong to (the packages under caddymodule/clouds), which the JSON holds as
// the handler's "cloud" object; vertex_project and vertex_location are
// ignored by an upstream outside Google Cloud. Several api_key values,
// azure_credentials lines or aws_profile names are a credential pool
// (see failover.Pool), used in turn, each member with its own cooldown and
// taken out when the upstream refuses it.
// Client keys given with names log the name (the access log's
// client_key, the span attribute llmbridge.client_key), never the key;
// keys given without one are named by their place, client_keys[i]. A
// model rule's price is in US dollars per million tokens and needs its
// source and the date it was read; a rule with nothing but a price leaves
// the built-in rule of its models in force, and requests to them log
// their cost. With Caddy's tracing directive on, every request's span
// carries the OpenTelemetry GenAI attributes; otel_content on adds the
// prompts and completions.
// The block is checked as a whole once parsed (see checkConfig), so that
// `caddy adapt` already reports an unknown protocol, a missing
// vertex_project or conflicting options.
func (h *Handler) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	d.Next() // consume the directive name
	if d.NextArg() {
		return d.ArgErr()
	}
	var cloudBlocks clouds.Blocks
	for d.NextBlock(0) {
		name := d.Val()
		if name == "model" {
			var r ModelRoute
			if !d.Args(&r.Match, &r.Upstream) {
				return d.ArgErr()
			}
			if d.NextArg() {
				return d.Errf("model takes two arguments: <client-model-glob> <upstream-model>")
			}
			if _, err := compileModelRoute(r); err != nil {
				return d.Errf("model: %v", err)
			}
			h.Models = append(h.Models, r)
			continue
		}
		if name == "item_cache" {
			args := d.RemainingArgs()
			if len(args) < 1 || len(args) > 2 {
				return d.Errf("item_cache takes a size (or off) and an optional duration")
			}
			if args[0] == "off" {
				if len(args) > 1 {
					return d.Errf("item_cache off takes no duration")
				}
				h.ItemCacheSize = -1
				continue
			}
			n, err := humanize.ParseBytes(args[0])
			if err != nil || n == 0 || n > 1<<40 {
				return d.Errf("item_cache: want a size such as 64MiB, or off, got %q", args[0])
			}
			h.ItemCacheSize = int64(n)
			if len(args) == 2 {
				ttl, err := caddy.ParseDuration(args[1])
				if err != nil || ttl <= 0 {
					return d.Errf("item_cache: want a duration such as 1h, got %q", args[1])
				}
				h.ItemCacheTTL = caddy.Duration(ttl)
			}
			continue
		}
		if name == "conversations" {
			size, ttl, err := parseStoreBounds(d, name, "256MiB")
			if err != nil {
				return err
			}
			h.ConversationsSize, h.ConversationsTTL = size, ttl
			continue
		}
		if name == "drop" {
			paths := d.RemainingArgs()
			if len(paths) == 0 {
				return d.ArgErr()
			}
			for _, p := range paths {
				if _, err := policy.CompileDrop(p); err != nil {
					return d.Errf("%v", err)
				}
			}
			h.Drop = append(h.Drop, paths...)
			continue
		}
		if name == "failover" {
			f, err := failover.Parse(d)
			if err != nil {
				return err
			}
			h.Failover = f
			continue
		}
		if name == "api_key" {
			keys := d.RemainingArgs()
			switch {
			case len(keys) == 0:
				return d.ArgErr()
			case len(keys) == 1 && len(h.APIKeys) == 0 && h.APIKey == "":
				h.APIKey = keys[0]
			default:
				// Several keys, on one line or repeated: a key pool.
				if h.APIKey != "" {
					h.APIKeys, h.APIKey = append(h.APIKeys, h.APIKey), ""
				}
				h.APIKeys = append(h.APIKeys, keys...)
			}
			continue
		}
		if name == "model_rule" {
			r, err := policy.ParseModelRule(d)
			if err != nil {
				return err
			}
			h.ModelRules = append(h.ModelRules, r)
			continue
		}
		if clouds.Owning(name) != nil {
			// A subdirective of the upstream's cloud (vertex_*,
			// google_*, azure_*, aws_*): the cloud parses it.
			if err := cloudBlocks.Set(name, d.RemainingArgs()); err != nil {
				return d.Errf("%v", err)
			}
			continue
		}
		if name == "limit" {
			l, err := admission.ParseLimit(d)
			if err != nil {
				return err
			}
			h.Limits = append(h.Limits, l)
			continue
		}
		if name == "client_keys" {
			keys, err := parseClientKeys(d)
			if err != nil {
				return err
			}
			h.ClientKeys = append(h.ClientKeys, keys...)
			continue
		}
		if name == "otel_content" {
			args := d.RemainingArgs()
			if len(args) == 0 || len(args) > 2 || args[0] != "on" && args[0] != "off" {
				return d.Errf("otel_content takes on or off, and a size bound: otel_content on [<size>]")
			}
			h.OTelContent = args[0] == "on"
			if len(args) == 2 {
				n, err := humanize.ParseBytes(args[1])
				if err != nil || n == 0 || n > 1<<30 {
					return d.Errf("otel_content: want a size such as 16KiB, got %q", args[1])
				}
				h.OTelContentMax = int64(n)
			}
			continue
		}
		var val string
		if !d.Args(&val) {
			return d.ArgErr()
		}
		if d.NextArg() {
			return d.Errf("%s takes one argument", name)
		}
		switch name {
		case "upstream", "client":
			// Checked here too, so that the message points at this line.
			if _, err := codec.ParseProtocol(val); err != nil {
				return d.Errf("%s: %v", name, err)
			}
			if name == "upstream" {
				h.Upstream = val
			} else {
				h.Client = val
			}
		case "dialect":
			h.Dialect = val
		case "websocket":
			if val != "translate" && val != "passthrough" {
				return d.Errf("websocket: want translate or passthrough, got %q", val)
			}
			h.WebSocket = val
		case "response_model":
			if val != "client" && val != "upstream" {
				return d.Errf("response_model: want client or upstream, got %q", val)
			}
			h.ResponseModel = val
		case "on_unsupported":
			if _, err := policy.ParseLevel(val); err != nil {
				return d.Errf("%v", err)
			}
			h.OnUnsupported = val
		case "cache":
			if val != "auto" && val != "off" {
				return d.Errf("cache: want auto or off, got %q", val)
			}
			h.Cache = val
		case "cache_ttl":
			if _, ok := cacheTTLs[val]; !ok || val == "" {
				return d.Errf("cache_ttl: want 5m or 1h, got %q", val)
			}
			h.CacheTTL = val
		case "default_max_tokens":
			n, err := strconv.ParseInt(val, 10, 64)
			if err != nil || n <= 0 {
				return d.Errf("default_max_tokens: want a positive integer, got %q", val)
			}
			h.DefaultMaxTokens = n
		case "max_request_body":
			n, err := humanize.ParseBytes(val)
			if err != nil || n == 0 || n > 1<<40 {
				return d.Errf("max_request_body: want a size such as 32MiB, got %q", val)
			}
			h.MaxRequestBody = int64(n)
		case "max_event_size":
			n, err := humanize.ParseBytes(val)
			if err != nil || n == 0 || n > 1<<30 {
				return d.Errf("max_event_size: want a size such as 8MiB, got %q", val)
			}
			h.MaxEventSize = int64(n)
		default:
			return d.Errf("unknown subdirective %q", name)
		}
	}
	if err := h.settleCloud(cloudBlocks); err != nil {
		return d.Errf("%v", err)
	}
	check := h.checkConfig
	if h.Failover != nil {
		check = h.checkFailoverSite
	}
	if err := check(); err != nil {
		return d.Errf("%v", err)
	}
	if h.cloud != nil {
		h.CloudRaw = clouds.Raw(h.cloud)
	}
	return nil
}

// Interface guards
var _ caddyfile.Unmarshaler = (*Handler)(nil)

// parseClientKeys parses client_keys: keys as arguments, or a block of
// named keys, one "<name> <key>" per line.
func parseClientKeys(d *caddyfile.Dispenser) ([]ClientKey, error) {
	var keys []ClientKey
	for _, k := range d.RemainingArgs() {
		keys = append(keys, ClientKey{Key: k})
	}
	for nesting := d.Nesting(); d.NextBlock(nesting); {
		name := d.Val()
		args := d.RemainingArgs()
		if len(args) != 1 {
			return nil, d.Errf("client_keys: a named key is one line <name> <key>")
		}
		for _, k := range keys {
			if k.Name == name {
				return nil, d.Errf("client_keys: the name %q is given twice", name)
			}
		}
		keys = append(keys, ClientKey{Name: name, Key: args[0]})
	}
	if len(keys) == 0 {
		return nil, d.ArgErr()
	}
	return keys, nil
}
