package caddymodule

import (
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/caddyserver/caddy/v2"
	"go.uber.org/zap"

	"github.com/llmbridge/llmbridge/caddymodule/conversations"
	"github.com/llmbridge/llmbridge/caddymodule/endpoints"
	"github.com/llmbridge/llmbridge/caddymodule/failover"
	"github.com/llmbridge/llmbridge/caddymodule/fleet"
	"github.com/llmbridge/llmbridge/caddymodule/internal/pool"
	"github.com/llmbridge/llmbridge/caddymodule/limits"
	"github.com/llmbridge/llmbridge/caddymodule/observe"
	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/mapping"
)

// A failover site's llmbridge reads the client's request once (its
// client keys, its body, its limits) and hands it to its failover.Site,
// which invokes the targets in turn, each the compiled handler chain of a
// named route: the target's own llmbridge, which decodes the client's
// protocol, fits and encodes the request for its upstream and translates
// the answer back, and its reverse_proxy.

// provisionFailover sets up a failover site. Its targets are resolved at
// the first request: the server provisions its named routes after the
// handlers of its routes.
func (h *Handler) provisionFailover(ctx caddy.Context) error {
	if err := h.checkFailoverSite(); err != nil {
		return fmt.Errorf("llmbridge: %v", err)
	}
	h.client = ""
	if h.Client != "" {
		h.client, _ = codec.ParseProtocol(h.Client)
	}
	h.metrics = observe.GlobalMetrics()
	if err := h.metrics.Register(ctx.GetMetricsRegistry()); err != nil {
		return fmt.Errorf("llmbridge: registering metrics: %v", err)
	}
	if err := h.provisionClientKeys(); err != nil {
		return err
	}
	if err := h.provisionLimits(ctx); err != nil {
		return err
	}
	if h.MaxRequestBody == 0 {
		h.MaxRequestBody = DefaultMaxRequestBody
	}
	if err := failover.RegisterMetrics(ctx.GetMetricsRegistry()); err != nil {
		return fmt.Errorf("llmbridge: registering metrics: %v", err)
	}
	fs := failover.NewSite(h.Failover, h.logger)
	store := h.store
	fs.Share = func(open bool, target string, until int64) { fleet.Cooled(store, open, target, until) }
	h.failover = fs
	return nil
}

// serveFailover serves a request of a failover site. The site's own
// settings (client, client_keys, max_request_body) apply before any target
// runs, as they do on a site with one upstream; the key's name is then
// the targets' to record.
func (h *Handler) serveFailover(w http.ResponseWriter, r *http.Request) error {
	fs := h.failover
	if err := fs.Resolve(r); err != nil {
		h.failoverFail(w, r, "", codec.NewError(mapping.ErrAPI, "the gateway's failover targets are misconfigured"))
		return nil
	}
	// CORS preflights carry no body or credential: they go to the
	// targets, whose llmbridge passes them on as a plain site's does.
	preflight := r.Method == http.MethodOptions
	keyName := ""
	if h.clientKeys != nil && !preflight {
		client := h.failoverClient(r)
		key := h.authorized(client, r)
		if key < 0 {
			h.logger.Debug("request without a valid client key", zap.String("client_protocol", string(client)), zap.String("remote_addr", r.RemoteAddr))
			h.failoverFail(w, r, "", &codec.Error{Status: http.StatusUnauthorized, Kind: mapping.ErrAuthentication, Message: "invalid or missing API key"})
			return nil
		}
		keyName = h.clientKeyNames[key]
		// The client's key is this gateway's, never an upstream's: the
		// targets get the request without it, as a site with client_keys
		// never forwards it.
		dropClientCredentials(r)
	}
	if _, isEndpoint := endpoints.Detect(h.client, r); !isEndpoint && !preflight {
		if rt, ok := detectRoute(r.URL.Path); !ok || (h.client != "" && rt.protocol != h.client) {
			h.failoverFail(w, r, keyName, codec.NewError(mapping.ErrNotFound, "no "+protocolNoun(h.client)+"generation endpoint at "+r.URL.Path))
			return nil
		}
	}
	var body []byte
	if r.Method == http.MethodPost {
		bodyBuf := pool.Get(requestBufferSize(r))
		defer pool.Put(bodyBuf)
		var cerr *codec.Error
		body, cerr = readBody(r, h.MaxRequestBody, *bodyBuf)
		*bodyBuf = body
		if cerr != nil {
			h.failoverFail(w, r, keyName, cerr)
			return nil
		}
		if turn := conversations.TurnOf(w); turn != nil {
			// The targets decode the request: the site reads what it
			// continues from the body's top level.
			if body, cerr = turn.Resolve(r.Context(), body); cerr != nil {
				h.failoverFail(w, r, keyName, cerr)
				return nil
			}
		}
	}
	var ticket *limits.Ticket
	if h.limits != nil && keyName != "" && r.Method == http.MethodPost {
		var ok bool
		if ticket, ok = h.admitFailoverLimits(w, r, body, keyName); !ok {
			return nil
		}
	}
	answer, err := fs.Serve(w, r, body, keyName)
	if ticket != nil {
		h.settleFailoverLimits(keyName, ticket, answer)
	}
	if errors.Is(err, failover.ErrUnavailable) {
		h.failoverFail(w, r, keyName, &codec.Error{Status: http.StatusServiceUnavailable, Kind: mapping.ErrOverloaded, Message: "every upstream is unavailable; retry after the time Retry-After says"})
		return nil
	}
	return err
}

// dropClientCredentials removes every credential the client sent, in a
// header or a query parameter.
func dropClientCredentials(r *http.Request) {
	for _, name := range credentialHeaders() {
		r.Header.Del(name)
	}
	if r.URL.RawQuery == "" {
		return
	}
	q := r.URL.Query()
	changed := false
	for _, name := range credentialQueries() {
		if q.Has(name) {
			q.Del(name)
			changed = true
		}
	}
	if changed {
		r.URL.RawQuery = q.Encode()
		r.RequestURI = r.URL.RequestURI()
	}
}

// failoverClient returns the protocol of a failover site's client, for
// the answers the site gives itself.
func (h *Handler) failoverClient(r *http.Request) codec.Protocol {
	if ep, ok := endpoints.Detect(h.client, r); ok {
		return ep.Protocol
	}
	if rt, ok := detectRoute(r.URL.Path); ok && (h.client == "" || rt.protocol == h.client) {
		return rt.protocol
	}
	return guessProtocol(h.client, r)
}

// failoverFail answers e, an error of the failover site's own, in the
// client's protocol, and records it: placeholders, access log fields,
// metrics and the request span's attributes, with the name of the
// client's key when it presented a valid one.
func (h *Handler) failoverFail(w http.ResponseWriter, r *http.Request, keyName string, e *codec.Error) {
	client := h.failoverClient(r)
	x := &observe.Exchange{Client: client, Start: time.Now(), KeyName: keyName}
	h.tracing.Begin(r, x)
	fail(w, x, client, e)
	if e.Kind == mapping.ErrOverloaded {
		x.ErrReason = "unavailable"
	}
	h.record(r, x)
}

// checkFailoverSite reports a setting a failover site cannot have: how
// requests are translated and where they go belongs to each target.
func (h *Handler) checkFailoverSite() error {
	if err := h.Failover.Check(); err != nil {
		return err
	}
	set := func(name string, v bool) error {
		if v {
			return fmt.Errorf("%s is a setting of each failover target, not of the site that lists them (failover %v)", name, h.Failover.Targets)
		}
		return nil
	}
	errs := []error{set("upstream", h.Upstream != ""), set("api_key", h.APIKey != "" || len(h.APIKeys) > 0)}
	if h.cloud != nil {
		for _, name := range h.cloud.Settings() {
			errs = append(errs, set(name, true))
		}
	}
	return errors.Join(append(errs,
		set("model", len(h.Models) > 0), set("model_rule", len(h.ModelRules) > 0), set("dialect", h.Dialect != ""),
		set("drop", len(h.Drop) > 0), set("on_unsupported", h.OnUnsupported != ""), set("response_model", h.ResponseModel != ""),
		set("cache", h.Cache != "" || h.CacheTTL != ""), set("default_max_tokens", h.DefaultMaxTokens != 0),
		set("max_event_size", h.MaxEventSize != 0), set("item_cache", h.ItemCacheSize != 0 || h.ItemCacheTTL != 0),
		set("otel_content", h.OTelContent),
	)...)
}

// JoinSite tells h it serves the failover target named target: its key
// pool's cooldowns and refusals are reported under that name. A failover
// site cannot be a target.
func (h *Handler) JoinSite(target string) bool {
	if h.Failover != nil {
		return false
	}
	if h.keys != nil {
		h.keys.SetTarget(target)
	}
	return true
}

// Cost is what x, an exchange h answered, cost at h's prices, or -1.
func (h *Handler) Cost(x *observe.Exchange) float64 { return h.prices.Cost(x) }

// Interface guards
var _ failover.Member = (*Handler)(nil)
