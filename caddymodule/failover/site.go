package failover

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

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"github.com/prometheus/client_golang/prometheus"
	"go.uber.org/zap"

	"github.com/llmbridge/llmbridge/caddymodule/observe"
	"github.com/llmbridge/llmbridge/mapping"
)

// A failover site's llmbridge reads the client's request once and invokes
// its targets in turn, each the compiled handler chain of a named route:
// the target's own llmbridge, which decodes the client's protocol, fits
// and encodes the request for its upstream and translates the answer
// back, and its reverse_proxy. Each attempt gets the client's original
// request again (body, path, query, headers) and writes into a
// Writer, which holds what the target answers until it is known
// to be the answer: a failure that moves the request on is held and
// dropped, never written, so the client sees one response, of the target
// that answered, in its own protocol.

// Site is the runtime of a failover site.
type Site struct {
	cfg         *Config
	retry       [200]bool // retry[s-400]: status s moves a request on
	cooldown    time.Duration
	maxCooldown time.Duration
	breaker     Breaker
	// Logger is where the site logs its attempts and targets.
	Logger *zap.Logger
	// Share, when set, tells the instance's fleet a target's cooldown
	// (open false) or opened circuit (open true), ending at the Unix
	// nanosecond until.
	Share func(open bool, target string, until int64)

	// resolved is set once targets and err are: at the first request.
	resolved atomic.Bool
	mu       sync.Mutex
	targets  []*Target
	err      error
}

// Target is one target of a failover site, resolved at the first request
// from the server's named routes.
type Target struct {
	name  string
	chain caddyhttp.Handler
	state *TargetState
	// header is the Llmbridge-Upstream value, shared by every response
	// (a slice of length and capacity one: appending to it copies).
	header []string
	// member is the target's llmbridge.
	member Member
	// ok counts the target's successful attempts.
	ok prometheus.Counter
	// index is the target's position in the site's list.
	index int
}

// Failover headers of the response: the target that answered and how
// many targets were tried.
const (
	UpstreamHeader = "Llmbridge-Upstream"
	AttemptsHeader = "Llmbridge-Attempts"
)

// attemptValues are the Llmbridge-Attempts values, shared by every
// response.
var attemptValues = func() [MaxTargets * 2][]string {
	var v [MaxTargets * 2][]string
	for i := range v {
		v[i] = []string{strconv.Itoa(i + 1)}
	}
	return v
}()

// retryable reports whether an answer of status moves a request on.
func (fs *Site) retryable(status int) bool {
	return status >= 400 && status < 600 && fs.retry[status-400]
}

// resolve returns the site's targets, found at the first request among
// the named routes of the request's server.
func (fs *Site) resolve(r *http.Request) ([]*Target, error) {
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
		fs.Logger.Error("failover targets cannot be used", zap.Error(fs.err))
	}
	fs.resolved.Store(true)
	return fs.targets, fs.err
}

// resolveTargets builds the handler chain of each named route in names.
// A target must hold an llmbridge handler of its own (with an upstream,
// not a failover list) and something after it to carry its requests.
func resolveTargets(routes map[string]*caddyhttp.Route, names []string) ([]*Target, error) {
	targets := make([]*Target, 0, len(names))
	for _, name := range names {
		route := routes[name]
		if route == nil {
			return nil, fmt.Errorf("failover target %q is not a named route of this server (define it as &(%s) { ... })", name, name)
		}
		t := &Target{name: name, index: len(targets), state: StateOf(name), header: []string{name}, ok: attemptsTotal.WithLabelValues(name, "ok")}
		if len(route.MatcherSets) > 0 || route.Group != "" {
			// A route with conditions of its own runs as Caddy runs it.
			t.chain = route.Compile(emptyNext)
		}
		handlers := flattenHandlers(route.Handlers)
		for i, mh := range handlers {
			lb, ok := mh.(Member)
			if !ok {
				continue
			}
			if !lb.JoinSite(name) {
				return nil, fmt.Errorf("failover target %q is itself a failover site: a target has an upstream", name)
			}
			if i == len(handlers)-1 {
				return nil, fmt.Errorf("failover target %q has no handler after its llmbridge to carry its requests (a reverse_proxy); "+
					"note that Caddy keeps only the first handler of a named route whose directives have no matcher: write them inside route { ... }", name)
			}
			t.member = lb
			break
		}
		if t.member == nil {
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

// setRetryAfter sets Retry-After from the soonest moment a target of the
// site can be tried again, when every one is cooling down or open; it
// leaves the header as it is otherwise. self, when not nil, is a target
// whose failure will cool it until selfUntil (0: not at all), which its
// state does not say yet.
func (fs *Site) setRetryAfter(hdr http.Header, now int64, self *Target, selfUntil int64) {
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

// Member is the llmbridge handler of a failover target, as the site finds
// it in the target's named route: the handler package's Handler.
type Member interface {
	caddyhttp.MiddlewareHandler
	// JoinSite tells the handler it serves the site's target named
	// target; it reports false when it cannot be a target (it is itself a
	// failover site).
	JoinSite(target string) bool
	// Cost is what x, an exchange the handler answered, cost in US
	// dollars at its prices, or -1.
	Cost(x *observe.Exchange) float64
}

// NewSite returns the runtime of a failover site configured by cfg (which
// has been checked), logging with logger. Its targets are resolved at the
// first request (Resolve): the server provisions its named routes after
// the handlers of its routes.
func NewSite(cfg *Config, logger *zap.Logger) *Site {
	s := &Site{cfg: cfg, cooldown: DefaultCooldown, maxCooldown: DefaultMaxCooldown, Logger: logger,
		breaker: Breaker{Failures: DefaultBreakerFailures, Window: DefaultBreakerWindow, Period: DefaultBreakerPeriod}}
	for _, status := range []int{429, 500, 502, 503, 504, mapping.StatusOverloaded} {
		s.retry[status-400] = true
	}
	for _, status := range cfg.RetryOn {
		s.retry[status-400] = true
	}
	if cfg.Cooldown > 0 {
		s.cooldown = time.Duration(cfg.Cooldown)
	}
	if cfg.MaxCooldown > 0 {
		s.maxCooldown = time.Duration(cfg.MaxCooldown)
	}
	if b := cfg.Breaker; b != nil {
		if b.Failures > 0 {
			s.breaker.Failures = b.Failures
		}
		if b.Window > 0 {
			s.breaker.Window = time.Duration(b.Window)
		}
		if b.Period > 0 {
			s.breaker.Period = time.Duration(b.Period)
		}
	}
	return s
}

// Resolve finds the site's targets among the named routes of r's server,
// once; its error says why they cannot be used.
func (s *Site) Resolve(r *http.Request) error {
	_, err := s.resolve(r)
	return err
}

// ErrUnavailable is Serve's error when every target is cooling down or
// its circuit is open: nothing was written but Retry-After, and the
// site's handler answers the client in its protocol.
var ErrUnavailable = errors.New("every failover target is unavailable")

// Answer is the attempt whose answer the client got: its exchange and the
// member that answered it, for the site's limits to settle with; zero when
// no attempt answered.
type Answer struct {
	Exchange *observe.Exchange
	By       Member
}

// Serve runs r through the site's targets in turn (Resolve succeeded),
// each reading body, the client's body read once (nil for a request
// without one), and recording keyName, the client key the site accepted
// (client_keys) or "": a target that fails before the client has been
// sent any content hands the request to the next one, with the client's
// original request put back; the last available target answers whatever
// happens. Targets cooling down or whose circuit is open are skipped; when
// every one is, Serve sets Retry-After and returns ErrUnavailable.
func (s *Site) Serve(w http.ResponseWriter, r *http.Request, body []byte, keyName string) (answer Answer, err error) {
	targets := s.targets
	fw := getWriter(w, s)
	defer putWriter(fw)
	fw.keyName, fw.body = keyName, body
	defer func() { answer = Answer{fw.answer, fw.answerBy} }()
	fw.saved.save(r)
	// The access log finds its logger by the request's host, which a
	// target rewrote for its upstream (Bedrock's): the client's request
	// is put back.
	defer fw.saved.restoreTarget(r)

	// The clock is read only when a target has a cooldown or an open
	// circuit on record: a healthy site's requests do not read it.
	var now int64
	var avail [MaxTargets]bool
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
		s.setRetryAfter(w.Header(), now, nil, 0) // now was read: every target has a cooldown on record
		s.Logger.Debug("every failover target is cooling down", zap.Strings("targets", s.cfg.Targets))
		return Answer{}, ErrUnavailable
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
		serr := t.chain.ServeHTTP(fw, attempt)
		if !fw.committed && r.Context().Err() != nil {
			// The client went away: there is no one to answer, and the
			// target's failure is not its own.
			return Answer{}, nil
		}
		if done, rerr := fw.end(serr); done {
			return Answer{}, rerr
		}
	}
	// The last available target is always attempted, and answers: this
	// is not reached.
	return Answer{}, nil
}
