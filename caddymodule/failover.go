package caddymodule

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"github.com/prometheus/client_golang/prometheus"
	"go.uber.org/zap"

	"github.com/llmbridge/llmbridge/caddymodule/failover"
	"github.com/llmbridge/llmbridge/caddymodule/internal/pool"
	"github.com/llmbridge/llmbridge/caddymodule/observe"
	"github.com/llmbridge/llmbridge/caddymodule/state"
	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/mapping"
)

// A failover site's llmbridge reads the client's request once and invokes
// its targets in turn, each the compiled handler chain of a named route:
// the target's own llmbridge, which decodes the client's protocol, fits
// and encodes the request for its upstream and translates the answer
// back, and its reverse_proxy. Each attempt gets the client's original
// request again (body, path, query, headers) and writes into a
// failoverWriter, which holds what the target answers until it is known
// to be the answer: a failure that moves the request on is held and
// dropped, never written, so the client sees one response, of the target
// that answered, in its own protocol.

// failoverSite is the runtime of a failover site.
type failoverSite struct {
	cfg         *failover.Config
	retry       [200]bool // retry[s-400]: status s moves a request on
	cooldown    time.Duration
	maxCooldown time.Duration
	breaker     failover.Breaker
	logger      *zap.Logger
	metrics     *observe.Metrics
	// store is the instance's state store, where cooldowns and opened
	// circuits are published to the fleet (shared.go).
	store state.Store

	// resolved is set once targets and err are: at the first request.
	resolved atomic.Bool
	mu       sync.Mutex
	targets  []*target
	err      error
}

// target is one target of a failover site, resolved at the first request
// from the server's named routes.
type target struct {
	name  string
	chain caddyhttp.Handler
	state *failover.TargetState
	// header is the Llmbridge-Upstream value, shared by every response
	// (a slice of length and capacity one: appending to it copies).
	header []string
	// handler is the target's llmbridge.
	handler *Handler
	// ok counts the target's successful attempts.
	ok prometheus.Counter
	// index is the target's position in the site's list.
	index int
}

// Failover headers of the response.
const (
	upstreamHeader = "Llmbridge-Upstream"
	attemptsHeader = "Llmbridge-Attempts"
)

// attemptValues are the Llmbridge-Attempts values, shared by every
// response.
var attemptValues = func() [failover.MaxTargets * 2][]string {
	var v [failover.MaxTargets * 2][]string
	for i := range v {
		v[i] = []string{strconv.Itoa(i + 1)}
	}
	return v
}()

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
	f := h.Failover
	fs := &failoverSite{cfg: f, cooldown: failover.DefaultCooldown, maxCooldown: failover.DefaultMaxCooldown, logger: h.logger, metrics: h.metrics,
		breaker: failover.Breaker{Failures: failover.DefaultBreakerFailures, Window: failover.DefaultBreakerWindow, Period: failover.DefaultBreakerPeriod}}
	for _, s := range []int{429, 500, 502, 503, 504, mapping.StatusOverloaded} {
		fs.retry[s-400] = true
	}
	for _, s := range f.RetryOn {
		fs.retry[s-400] = true
	}
	if f.Cooldown > 0 {
		fs.cooldown = time.Duration(f.Cooldown)
	}
	if f.MaxCooldown > 0 {
		fs.maxCooldown = time.Duration(f.MaxCooldown)
	}
	if b := f.Breaker; b != nil {
		if b.Failures > 0 {
			fs.breaker.Failures = b.Failures
		}
		if b.Window > 0 {
			fs.breaker.Window = time.Duration(b.Window)
		}
		if b.Period > 0 {
			fs.breaker.Period = time.Duration(b.Period)
		}
	}
	if err := provisionFailoverMetrics(ctx.GetMetricsRegistry()); err != nil {
		return fmt.Errorf("llmbridge: registering metrics: %v", err)
	}
	fs.store = h.store
	h.failover = fs
	return nil
}

// retryable reports whether an answer of status moves a request on.
func (fs *failoverSite) retryable(status int) bool {
	return status >= 400 && status < 600 && fs.retry[status-400]
}

// resolve returns the site's targets, found at the first request among
// the named routes of the request's server.
func (fs *failoverSite) resolve(r *http.Request) ([]*target, error) {
	if fs.resolved.Load() {
		return fs.targets, fs.err
	}
	fs.mu.Lock()
	defer fs.mu.Unlock()
	if fs.resolved.Load() {
		return fs.targets, fs.err
	}
	srv, _ := r.Context().Value(caddyhttp.ServerCtxKey).(*caddyhttp.Server)
	if srv == nil {
		fs.err = errors.New("failover: the request has no server to find its targets in")
	} else {
		fs.targets, fs.err = resolveTargets(srv.NamedRoutes, fs.cfg.Targets)
	}
	if fs.err != nil {
		fs.logger.Error("failover targets cannot be used", zap.Error(fs.err))
	}
	fs.resolved.Store(true)
	return fs.targets, fs.err
}

// resolveTargets builds the handler chain of each named route in names.
// A target must hold an llmbridge handler of its own (with an upstream,
// not a failover list) and something after it to carry its requests.
func resolveTargets(routes map[string]*caddyhttp.Route, names []string) ([]*target, error) {
	targets := make([]*target, 0, len(names))
	for _, name := range names {
		route := routes[name]
		if route == nil {
			return nil, fmt.Errorf("failover target %q is not a named route of this server (define it as &(%s) { ... })", name, name)
		}
		t := &target{name: name, index: len(targets), state: failover.StateOf(name), header: []string{name}, ok: failoverAttempts.WithLabelValues(name, "ok")}
		if len(route.MatcherSets) > 0 || route.Group != "" {
			// A route with conditions of its own runs as Caddy runs it.
			t.chain = route.Compile(emptyNext)
		}
		handlers := flattenHandlers(route.Handlers)
		for i, mh := range handlers {
			lb, ok := mh.(*Handler)
			if !ok {
				continue
			}
			if lb.Failover != nil {
				return nil, fmt.Errorf("failover target %q is itself a failover site: a target has an upstream", name)
			}
			if i == len(handlers)-1 {
				return nil, fmt.Errorf("failover target %q has no handler after its llmbridge to carry its requests (a reverse_proxy); "+
					"note that Caddy keeps only the first handler of a named route whose directives have no matcher: write them inside route { ... }", name)
			}
			t.handler = lb
			if lb.keys != nil {
				lb.keys.SetTarget(t.name)
			}
			break
		}
		if t.handler == nil {
			return nil, fmt.Errorf("failover target %q has no llmbridge handler: a target says which upstream protocol it speaks", name)
		}
		if t.chain == nil {
			t.chain = chainOf(handlers)
		}
		targets = append(targets, t)
	}
	return targets, nil
}

// flattenHandlers lists the handlers a named route runs in order,
// opening subroutes whose routes have no matcher, group or error routes
// (what a Caddyfile's route { ... } block compiles to), so that the chain
// is built once rather than per request.
func flattenHandlers(hs []caddyhttp.MiddlewareHandler) []caddyhttp.MiddlewareHandler {
	var out []caddyhttp.MiddlewareHandler
	for _, mh := range hs {
		sr, ok := mh.(*caddyhttp.Subroute)
		if !ok || !plainSubroute(sr) {
			out = append(out, mh)
			continue
		}
		for _, rt := range sr.Routes {
			out = append(out, flattenHandlers(rt.Handlers)...)
		}
	}
	return out
}

// plainSubroute reports whether sr runs all its routes' handlers in order,
// whatever the request.
func plainSubroute(sr *caddyhttp.Subroute) bool {
	if sr.Errors != nil {
		return false
	}
	for _, rt := range sr.Routes {
		if len(rt.MatcherSets) > 0 || rt.Group != "" || rt.Terminal {
			return false
		}
	}
	return true
}

// chainOf chains handlers, each calling the next, the last an empty
// handler.
func chainOf(handlers []caddyhttp.MiddlewareHandler) caddyhttp.Handler {
	next := caddyhttp.Handler(emptyNext)
	for i := len(handlers) - 1; i >= 0; i-- {
		mh, nxt := handlers[i], next
		next = caddyhttp.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
			return mh.ServeHTTP(w, r, nxt)
		})
	}
	return next
}

// emptyNext ends a target's chain.
var emptyNext = caddyhttp.HandlerFunc(func(http.ResponseWriter, *http.Request) error { return nil })

// savedRequest is the client's request as the site received it, put back
// before each attempt after the first: a target's llmbridge rewrites the
// path, query, headers and body for its upstream.
type savedRequest struct {
	url        url.URL
	host       string
	requestURI string
	header     http.Header
}

// save notes r.
func (s *savedRequest) save(r *http.Request) {
	s.url, s.host, s.requestURI = *r.URL, r.Host, r.RequestURI
	if s.header == nil {
		s.header = make(http.Header, len(r.Header))
	}
	// Values are shared: a handler sets a header by replacing its slice.
	maps.Copy(s.header, r.Header)
}

// restoreTarget puts r's URL and host back as they were saved.
func (s *savedRequest) restoreTarget(r *http.Request) {
	*r.URL = s.url
	r.Host, r.RequestURI = s.host, s.requestURI
}

// restore puts r back as it was saved.
func (s *savedRequest) restore(r *http.Request) {
	*r.URL = s.url
	r.Host, r.RequestURI = s.host, s.requestURI
	clear(r.Header)
	maps.Copy(r.Header, s.header)
}

// serveFailover serves a request of a failover site. The site's own
// settings (client, client_keys, max_request_body) apply before any target
// runs, as they do on a site with one upstream; the key's name is then
// the targets' to record.
func (h *Handler) serveFailover(w http.ResponseWriter, r *http.Request) error {
	fs := h.failover
	targets, err := fs.resolve(r)
	if err != nil {
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
	if _, isEndpoint := detectEndpoint(h.client, r); !isEndpoint && !preflight {
		if rt, ok := detectRoute(r.URL.Path); !ok || (h.client != "" && rt.protocol != h.client) {
			h.failoverFail(w, r, keyName, codec.NewError(mapping.ErrNotFound, "no "+protocolNoun(h.client)+"generation endpoint at "+r.URL.Path))
			return nil
		}
	}
	fw := getFailoverWriter(w, fs)
	defer putFailoverWriter(fw)
	fw.keyName = keyName
	if r.Method == http.MethodPost {
		bodyBuf := pool.Get(requestBufferSize(r))
		defer pool.Put(bodyBuf)
		body, cerr := readBody(r, h.MaxRequestBody, *bodyBuf)
		*bodyBuf = body
		if cerr != nil {
			h.failoverFail(w, r, keyName, cerr)
			return nil
		}
		fw.body = body
	}
	if h.limits != nil && keyName != "" && r.Method == http.MethodPost {
		ticket, ok := h.admitFailoverLimits(w, r, fw.body, keyName)
		if !ok {
			return nil
		}
		if ticket != nil {
			defer h.settleFailoverLimits(fw, ticket)
		}
	}
	fw.saved.save(r)
	// The access log finds its logger by the request's host, which a
	// target rewrote for its upstream (Bedrock's): the client's request
	// is put back.
	defer fw.saved.restoreTarget(r)

	// The clock is read only when a target has a cooldown or an open
	// circuit on record: a healthy site's requests do not read it.
	var now int64
	var avail [failover.MaxTargets]bool
	lastAvail := -1
	for i, t := range targets {
		if t.state.Idle() {
			avail[i], lastAvail = true, i
			continue
		}
		if now == 0 {
			now = time.Now().UnixNano()
		}
		if t.state.Until(now) == 0 {
			avail[i], lastAvail = true, i
		}
	}
	if lastAvail < 0 {
		fs.setRetryAfter(w.Header(), now, nil, 0) // now was read: every target has a cooldown on record
		fs.logger.Debug("every failover target is cooling down", zap.Strings("targets", fs.cfg.Targets))
		h.failoverFail(w, r, keyName, &codec.Error{Status: http.StatusServiceUnavailable, Kind: mapping.ErrOverloaded, Message: "every upstream is unavailable; retry after the time Retry-After says"})
		return nil
	}
	attempts := 0
	for i, t := range targets {
		if !avail[i] {
			continue
		}
		if attempts > 0 {
			fw.saved.restore(r)
			if i != lastAvail && t.state.Until(time.Now().UnixNano()) != 0 {
				// Cooling since the loop began (another request's answer).
				continue
			}
		}
		attempts++
		fw.begin(t, attempts, i == lastAvail)
		if fw.body != nil {
			fw.reader.Reset(fw.body)
			r.Body, r.ContentLength = &fw.reader, int64(len(fw.body))
		}
		attempt := r
		if attempts > 1 {
			attempt = r.WithContext(withOwnVars(r.Context()))
		}
		err := t.chain.ServeHTTP(fw, attempt)
		if !fw.committed && r.Context().Err() != nil {
			// The client went away: there is no one to answer, and the
			// target's failure is not its own.
			return nil
		}
		if done, rerr := fw.end(err); done {
			return rerr
		}
	}
	// The last available target is always attempted, and answers: this
	// is not reached.
	return nil
}

// withOwnVars returns ctx with a copy of its request variables. An
// attempt after the first gets its own: the transport of an earlier
// attempt may still be dialling in the background with its request's
// context, reading its variables (reverse_proxy's dial info), while this
// attempt's reverse_proxy sets them. The first attempt, the usual case,
// uses the request's own and costs nothing.
func withOwnVars(ctx context.Context) context.Context {
	vars, ok := ctx.Value(caddyhttp.VarsCtxKey).(map[string]any)
	if !ok || vars == nil {
		return ctx
	}
	return context.WithValue(ctx, caddyhttp.VarsCtxKey, maps.Clone(vars))
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
	if ep, ok := detectEndpoint(h.client, r); ok {
		return ep.protocol
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

// setRetryAfter sets Retry-After from the soonest moment a target of the
// site can be tried again, when every one is cooling down or open; it
// leaves the header as it is otherwise. self, when not nil, is a target
// whose failure will cool it until selfUntil (0: not at all), which its
// state does not say yet.
func (fs *failoverSite) setRetryAfter(hdr http.Header, now int64, self *target, selfUntil int64) {
	soonest := int64(0)
	for _, t := range fs.targets {
		u := t.state.Until(now)
		if t == self && selfUntil > now {
			u = max(u, selfUntil)
		}
		if u == 0 {
			return
		}
		if soonest == 0 || u < soonest {
			soonest = u
		}
	}
	secs := (soonest - now + int64(time.Second) - 1) / int64(time.Second)
	hdr.Set("Retry-After", strconv.FormatInt(max(1, secs), 10))
}

// bodyReader is a request body over bytes the site holds, read again by
// each attempt.
type bodyReader struct{ bytes.Reader }

// Close does nothing: the bytes are the site's.
func (*bodyReader) Close() error { return nil }

// Interface guards
var _ io.ReadCloser = (*bodyReader)(nil)

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
