// Package admission applies a site's limits to its requests, on the HTTP
// side of the limit engine (caddymodule/limits): the Caddyfile's limit
// block (ParseLimit), the estimate a request is admitted with (Estimate,
// Undecoded), its admission before the upstream call and its settlement
// when the exchange is recorded (Gate), the refusal in the client
// protocol's own terms (429, Retry-After, the rate-limit headers its SDKs
// read), the Llmbridge-Limits header, and the limits' metrics
// (limit_refusals_total, limit_remaining).
//
// It is a package of its own, not part of caddymodule/limits, because it
// works on the request's record, an observe.Exchange, and
// caddymodule/observe imports caddymodule/limits (an Exchange holds its
// Ticket): the engine stays free of HTTP, Prometheus and protocols, as
// the admin API (caddymodule/limits/admin) needs it, and this package
// sits above both. It imports caddymodule/limits, caddymodule/observe,
// caddymodule/state, caddymodule/internal/pool, the codec and mapping,
// never the handler package: the handler gives it the function that
// writes an error in the client's protocol (Fail) and calls Admit and
// Settle at the points of its request path.
package admission

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.uber.org/zap"

	"github.com/llmbridge/llmbridge/caddymodule/limits"
	"github.com/llmbridge/llmbridge/caddymodule/observe"
	"github.com/llmbridge/llmbridge/caddymodule/state"
	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/mapping"
)

// Header is the response header, placeholder and access log field that
// show what remains of a request's limits.
const Header = "Llmbridge-Limits"

// Fail writes e to w in protocol p's error format and notes it in x: the
// handler's own error writer, so that a refusal reads like every other
// error the client gets from the site.
type Fail func(w http.ResponseWriter, x *observe.Exchange, p codec.Protocol, e *codec.Error)

// Config is what a site's Gate is made of.
type Config struct {
	// Limits are the site's limit blocks.
	Limits []limits.Limit
	// Store holds the counters: the llmbridge app's state store.
	Store state.Store
	// DenyOnStoreError refuses a request the store cannot count, with
	// a 503; without it the request goes on uncounted.
	DenyOnStoreError bool
	// Keys are the names of the site's client keys, by key: the limits
	// count per named key, so a site with limits needs client keys.
	Keys []string
	// Registry is where the limits' metrics are registered; nil for
	// none.
	Registry *prometheus.Registry
	// Fail writes the site's errors in the client's protocol.
	Fail Fail
	// Logger logs refusals and settlements that failed, at debug level.
	Logger *zap.Logger
}

// Gate is a site's limits as its handler applies them: the compiled Set,
// the policy for a store that cannot count, and each key's
// limit_remaining gauges.
type Gate struct {
	set    *limits.Set
	deny   bool
	gauges map[string]*capGauges
	fail   Fail
	logger *zap.Logger
}

// tickets pools the tickets of admitted requests: a request admitted
// holds one until it is settled.
var tickets = sync.Pool{New: func() any { return new(limits.Ticket) }}

// New checks c's limits against the site's client keys, registers the
// limits' metrics, compiles the limits over the store and publishes them
// for the admin API (limits.Publish; limits.Withdraw ends that).
func New(c Config) (*Gate, error) {
	if len(c.Keys) == 0 {
		return nil, fmt.Errorf("limits count per client key: the site needs client_keys")
	}
	for i, l := range c.Limits {
		for _, k := range l.Keys {
			if k != "*" && !slices.Contains(c.Keys, k) {
				return nil, fmt.Errorf("limit %d names the client key %q, which client_keys does not", i, k)
			}
		}
	}
	if err := registerMetrics(c.Registry); err != nil {
		return nil, fmt.Errorf("registering metrics: %v", err)
	}
	set, err := limits.New(c.Limits, c.Store)
	if err != nil {
		return nil, err
	}
	logger := c.Logger
	if logger == nil {
		logger = zap.NewNop()
	}
	g := &Gate{set: set, deny: c.DenyOnStoreError, gauges: makeCapGauges(set, c.Keys), fail: c.Fail, logger: logger}
	limits.Publish(set, c.Keys)
	return g, nil
}

// Set returns the gate's compiled limits, for their reports and their
// withdrawal; nil for a nil Gate, the handler's when it has no limits.
func (g *Gate) Set() *limits.Set {
	if g == nil {
		return nil
	}
	return g.set
}

// CountsTokens reports whether any limit counts tokens or spend: only
// then is a request worth decoding for its estimate.
func (g *Gate) CountsTokens() bool { return g.set.CountsTokens() }

// Admit checks x's request against the limits before its upstream call
// and reserves its estimate, and reports whether the request may go on;
// when it may not, the client has been answered (a refusal, or a 503 when
// the store cannot count and the site denies then). An admitted request
// keeps its reservation in x.Limit, shows what remains in x.Limits and
// the Llmbridge-Limits header, and sets the key's limit_remaining gauges.
// A request without a key name is not counted.
func (g *Gate) Admit(w http.ResponseWriter, r *http.Request, x *observe.Exchange, est limits.Estimate) bool {
	if x.KeyName == "" {
		return true
	}
	t := tickets.Get().(*limits.Ticket)
	now := time.Now()
	refusal, err := g.set.Admit(r.Context(), t, x.KeyName, x.Model, x.Stream, est, now)
	switch {
	case err != nil:
		tickets.Put(t)
		if !g.deny {
			// The store's outage is logged once by the store; the
			// request goes on uncounted.
			return true
		}
		w.Header().Set("Retry-After", "1")
		g.fail(w, x, x.Client, &codec.Error{Status: http.StatusServiceUnavailable, Kind: mapping.ErrOverloaded,
			Message: "the gateway cannot count this key's limits right now; retry shortly"})
		x.ErrReason = "limits_unavailable"
		return false
	case refusal != nil:
		tickets.Put(t)
		g.refuse(w, x, refusal, now)
		return false
	case !t.Active():
		tickets.Put(t)
		return true
	}
	x.Limit = t
	x.Limits = value(t, now)
	w.Header()[Header] = []string{x.Limits}
	if gs := g.gauges[x.KeyName]; gs != nil {
		for i := range t.Rates() {
			of, per, streams, _, remaining, _ := t.Rate(i)
			if gauge := gs[capIndex(of, per, streams)]; gauge != nil {
				gauge.Set(remaining)
			}
		}
	}
	return true
}

// Settle settles x's reservation with its usage, if it made one, and
// cost (negative when unknown). It runs when the exchange is recorded,
// after the client's answer: the settlement is bounded by the store's
// timeout and does not wait for a client that went away. The handler
// settles every exchange it records: a nil Gate, a site without limits,
// has made no reservation and settles nothing.
func (g *Gate) Settle(x *observe.Exchange, cost float64) {
	t := x.Limit
	if t == nil {
		return
	}
	x.Limit = nil
	// Without usage (an error answer) the estimate is given back; a
	// stream cut short settles what its events counted.
	u := limits.Usage{}
	if x.Usage.Known {
		u = limits.Usage{Known: true, Input: x.Usage.InputTokens, Output: x.Usage.OutputTokens, Spend: max(cost, 0), SpendKnown: cost >= 0}
	}
	// Not the request's context: a client that went away must not
	// cancel the settlement (the store's timeout bounds it).
	if err := t.Settle(context.Background(), u); err != nil {
		g.logger.Debug("limits could not be settled", zap.String("client_key", x.KeyName), zap.Error(err))
	}
	*t = limits.Ticket{}
	tickets.Put(t)
}

// refuse answers a request a limit refused: 429 in the client's error
// format with Retry-After and the client protocol's rate-limit headers.
func (g *Gate) refuse(w http.ResponseWriter, x *observe.Exchange, r *limits.Refusal, now time.Time) {
	wait := max(1, int64(math.Ceil(r.Reset.Sub(now).Seconds())))
	hdr := w.Header()
	hdr.Set("Retry-After", strconv.FormatInt(wait, 10))
	what := refusalName(r)
	setRateLimitHeaders(hdr, x.Client, r, now)
	x.Limits = what + "=" + limits.FormatAmount(max(0, r.Max-r.Used)) + "/" + limits.FormatAmount(r.Max) + ";reset=" + strconv.FormatInt(wait, 10)
	hdr.Set(Header, x.Limits)
	msg := "rate limit of this key reached: " + what + " (" + limits.FormatAmount(r.Used) + " of " + limits.FormatAmount(r.Max) + " used); retry after " + strconv.FormatInt(wait, 10) + "s"
	g.fail(w, x, x.Client, &codec.Error{Status: http.StatusTooManyRequests, Kind: mapping.ErrRateLimit, Message: msg})
	x.ErrReason = "limit_" + strings.ReplaceAll(what, "/", "_")
	refusals.WithLabelValues(x.KeyName, what).Inc()
	g.logger.Debug("request refused by a limit", zap.String("client_key", x.KeyName), zap.String("limit", what),
		zap.Float64("used", r.Used), zap.Float64("max", r.Max))
}
