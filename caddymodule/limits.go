package caddymodule

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/prometheus/client_golang/prometheus"
	"go.uber.org/zap"

	"github.com/llmbridge/llmbridge/caddymodule/internal/pool"
	"github.com/llmbridge/llmbridge/caddymodule/limits"
	"github.com/llmbridge/llmbridge/caddymodule/observe"
	"github.com/llmbridge/llmbridge/caddymodule/state"
	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/mapping"
)

// Limits: a site's limit blocks cap what each named client key uses
// (caddymodule/limits). A request is admitted before its upstream call
// with an estimate of its input (codec.EstimateInputTokens), its output
// limit and their price, and settled when the exchange is recorded, with
// the usage the upstream reported (a stream cut short settles what its
// events counted; a failed request gives its tokens back). A refusal is
// the client protocol's own rate-limit answer: 429 in its error format,
// Retry-After, and the rate-limit headers its SDKs read.

// limitsHeader is the header, placeholder and access log field that show
// what remains of a request's limits.
const limitsHeader = "Llmbridge-Limits"

// limitTickets pools the tickets of admitted requests.
var limitTickets = sync.Pool{New: func() any { return new(limits.Ticket) }}

// provisionLimits takes the instance's state store from the llmbridge app
// and compiles the site's limits over it.
func (h *Handler) provisionLimits(ctx caddy.Context) error {
	app, err := state.AppOf(ctx)
	if err != nil {
		return fmt.Errorf("llmbridge: state store: %v", err)
	}
	h.store, h.denyOnStoreError, h.limits = app.Store(), app.DenyOnStoreError(), nil
	listenEvents(app)
	if h.keys != nil {
		store := h.store
		h.keys.Share = func(id string, i int, until int64) {
			if until == 0 {
				publishEvent(store, eventKeyOut, id, strconv.Itoa(i))
			} else {
				publishEvent(store, eventKeyCool, id, strconv.Itoa(i), unixNano(until))
			}
		}
	}
	if len(h.Limits) == 0 {
		return nil
	}
	if len(h.clientKeys) == 0 {
		return fmt.Errorf("llmbridge: limits count per client key: the site needs client_keys")
	}
	for i, l := range h.Limits {
		for _, k := range l.Keys {
			if k != "*" && !containsString(h.clientKeyNames, k) {
				return fmt.Errorf("llmbridge: limit %d names the client key %q, which client_keys does not", i, k)
			}
		}
	}
	if err := registerLimitMetrics(ctx.GetMetricsRegistry()); err != nil {
		return fmt.Errorf("llmbridge: registering metrics: %v", err)
	}
	set, err := limits.New(h.Limits, h.store)
	if err != nil {
		return fmt.Errorf("llmbridge: %v", err)
	}
	h.limits = set
	h.capGauges = makeCapGauges(set, h.clientKeyNames)
	limits.Publish(set, h.clientKeyNames)
	return nil
}

// containsString reports whether list holds s.
func containsString(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// limitEstimate estimates what req will use for the limits: its input by
// a generous count, its output limit (the handler's default when it gives
// none), and their price at the upstream model's.
func (h *Handler) limitEstimate(req *codec.Request, x *observe.Exchange) limits.Estimate {
	e := limits.Estimate{Input: codec.EstimateInputTokens(req), Output: h.DefaultMaxTokens}
	if req.MaxTokens.Set {
		e.Output = req.MaxTokens.Value
	}
	if len(h.prices) > 0 {
		if p := h.prices.For(x.UpstreamModel); p != nil {
			e.Spend = observe.Cost(p, &codec.Usage{Known: true, InputTokens: e.Input, OutputTokens: e.Output})
		}
	}
	return e
}

// admitLimits checks x's request against the site's limits before its
// upstream call and reserves its estimate, and reports whether the
// request may go on; when it may not, the client has been answered.
func (h *Handler) admitLimits(w http.ResponseWriter, r *http.Request, x *observe.Exchange, est limits.Estimate) bool {
	if h.limits == nil || x.KeyName == "" {
		return true
	}
	t := limitTickets.Get().(*limits.Ticket)
	now := time.Now()
	refusal, err := h.limits.Admit(r.Context(), t, x.KeyName, x.Model, x.Stream, est, now)
	switch {
	case err != nil:
		limitTickets.Put(t)
		if !h.denyOnStoreError {
			// The store's outage is logged once by the store; the
			// request goes on uncounted.
			return true
		}
		w.Header().Set("Retry-After", "1")
		fail(w, x, x.Client, &codec.Error{Status: http.StatusServiceUnavailable, Kind: mapping.ErrOverloaded,
			Message: "the gateway cannot count this key's limits right now; retry shortly"})
		x.ErrReason = "limits_unavailable"
		return false
	case refusal != nil:
		limitTickets.Put(t)
		h.refuseLimit(w, x, refusal, now)
		return false
	case !t.Active():
		limitTickets.Put(t)
		return true
	}
	x.Limit = t
	x.Limits = limitsValue(t, now)
	w.Header()[limitsHeader] = []string{x.Limits}
	if g := h.capGauges[x.KeyName]; g != nil {
		for i := range t.Rates() {
			of, per, streams, _, remaining, _ := t.Rate(i)
			if gauge := g[capIndex(of, per, streams)]; gauge != nil {
				gauge.Set(remaining)
			}
		}
	}
	return true
}

// settleLimits settles x's reservation with its usage, if it made one.
// It runs when the exchange is recorded, after the client's answer: the
// settlement is bounded by the store's timeout and does not wait for a
// client that went away.
func (h *Handler) settleLimits(x *observe.Exchange, cost float64) {
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
		h.logger.Debug("limits could not be settled", zap.String("client_key", x.KeyName), zap.Error(err))
	}
	*t = limits.Ticket{}
	limitTickets.Put(t)
}

// refuseLimit answers a request a limit refused: 429 in the client's
// error format with Retry-After and the client protocol's rate-limit
// headers.
func (h *Handler) refuseLimit(w http.ResponseWriter, x *observe.Exchange, r *limits.Refusal, now time.Time) {
	wait := max(1, int64(math.Ceil(r.Reset.Sub(now).Seconds())))
	hdr := w.Header()
	hdr.Set("Retry-After", strconv.FormatInt(wait, 10))
	what := refusalName(r)
	setRateLimitHeaders(hdr, x.Client, r, now)
	x.Limits = what + "=" + limits.FormatAmount(max(0, r.Max-r.Used)) + "/" + limits.FormatAmount(r.Max) + ";reset=" + strconv.FormatInt(wait, 10)
	hdr.Set(limitsHeader, x.Limits)
	msg := "rate limit of this key reached: " + what + " (" + limits.FormatAmount(r.Used) + " of " + limits.FormatAmount(r.Max) + " used); retry after " + strconv.FormatInt(wait, 10) + "s"
	fail(w, x, x.Client, &codec.Error{Status: http.StatusTooManyRequests, Kind: mapping.ErrRateLimit, Message: msg})
	x.ErrReason = "limit_" + strings.ReplaceAll(what, "/", "_")
	limitRefusals.WithLabelValues(x.KeyName, what).Inc()
	h.logger.Debug("request refused by a limit", zap.String("client_key", x.KeyName), zap.String("limit", what),
		zap.Float64("used", r.Used), zap.Float64("max", r.Max))
}

// refusalName names the cap that refused: "requests/minute",
// "spend/day", "streams".
func refusalName(r *limits.Refusal) string {
	if r.Streams {
		return "streams"
	}
	return r.Of.String() + "/" + r.Per.String()
}

// limitsValue is the Llmbridge-Limits value of an admitted request: each
// rate it counts, with what remains of its cap and the seconds until its
// window resets ("requests/minute=59/60;reset=12"). It is written in a
// pooled buffer: the string is its one allocation.
func limitsValue(t *limits.Ticket, now time.Time) string {
	buf := pool.Get(pool.MinPooled)
	defer pool.Put(buf)
	b := (*buf)[:0]
	for i := range t.Rates() {
		of, per, streams, max, remaining, reset := t.Rate(i)
		if streams {
			continue
		}
		if len(b) > 0 {
			b = append(b, ", "...)
		}
		b = append(b, of.String()...)
		b = append(b, '/')
		b = append(b, per.String()...)
		b = append(b, '=')
		b = limits.AppendAmount(b, remaining)
		b = append(b, '/')
		b = limits.AppendAmount(b, max)
		b = append(b, ";reset="...)
		b = strconv.AppendInt(b, int64(math.Ceil(reset.Sub(now).Seconds())), 10)
	}
	*buf = b
	return string(b)
}

// setRateLimitHeaders sets the rate-limit headers the client's protocol
// uses for the refusing cap, so that its SDK backs off as it does against
// the provider: OpenAI's x-ratelimit-{limit,remaining,reset}-{requests,
// tokens}, Anthropic's anthropic-ratelimit-{requests,input-tokens,
// output-tokens,tokens}-{limit,remaining,reset}. Google's and AWS's
// protocols have none: Retry-After says it.
func setRateLimitHeaders(hdr http.Header, client codec.Protocol, r *limits.Refusal, now time.Time) {
	if r.Streams || r.Of == limits.Spend {
		return
	}
	remaining := limits.FormatAmount(max(0, r.Max-r.Used))
	switch client.Family() {
	case codec.OpenAIChat.Family(), codec.OpenAIResponses.Family():
		kind := "tokens"
		if r.Of == limits.Requests {
			kind = "requests"
		}
		hdr.Set("X-Ratelimit-Limit-"+kind, limits.FormatAmount(r.Max))
		hdr.Set("X-Ratelimit-Remaining-"+kind, remaining)
		hdr.Set("X-Ratelimit-Reset-"+kind, (r.Reset.Sub(now).Round(time.Second)).String())
	case codec.AnthropicMessages.Family():
		kind := map[limits.Quantity]string{limits.Requests: "requests", limits.InputTokens: "input-tokens",
			limits.OutputTokens: "output-tokens", limits.TotalTokens: "tokens"}[r.Of]
		hdr.Set("Anthropic-Ratelimit-"+kind+"-Limit", limits.FormatAmount(r.Max))
		hdr.Set("Anthropic-Ratelimit-"+kind+"-Remaining", remaining)
		hdr.Set("Anthropic-Ratelimit-"+kind+"-Reset", r.Reset.UTC().Format(time.RFC3339))
	}
}

// limitRefusals counts the requests limits refused.
var limitRefusals = prometheus.NewCounterVec(prometheus.CounterOpts{
	Namespace: "caddy", Subsystem: "llmbridge", Name: "limit_refusals_total",
	Help: "Requests refused by a limit, by client key name and limit (requests/minute, spend/day, streams, ...).",
}, []string{"client_key", "limit"})

// limitRemaining is what remains of each cap of each key after the
// latest request it admitted.
var limitRemaining = prometheus.NewGaugeVec(prometheus.GaugeOpts{
	Namespace: "caddy", Subsystem: "llmbridge", Name: "limit_remaining",
	Help: "What remains of a limit's cap in its current window after the key's latest admitted request (dollars for spend), by client key name and limit.",
}, []string{"client_key", "limit"})

// capGauges are one client key's limit_remaining gauges, by cap (capIndex),
// made when the configuration is provisioned: labelling a gauge per
// request would allocate.
type capGauges [limitCaps]prometheus.Gauge

// limitCaps is how many caps a key can have: each quantity per each
// period, and streams.
const limitCaps = 5*5 + 1

// capIndex is a cap's place in capGauges.
func capIndex(of limits.Quantity, per limits.Period, streams bool) int {
	if streams {
		return limitCaps - 1
	}
	return int(of)*5 + int(per)
}

// makeCapGauges makes the gauges of each key's caps.
func makeCapGauges(set *limits.Set, names []string) map[string]*capGauges {
	out := map[string]*capGauges{}
	for _, name := range names {
		g := &capGauges{}
		set.Caps(name, func(of limits.Quantity, per limits.Period, streams bool) {
			label := "streams"
			if !streams {
				label = of.String() + "/" + per.String()
			}
			g[capIndex(of, per, streams)] = limitRemaining.WithLabelValues(name, label)
		})
		out[name] = g
	}
	return out
}

// registerLimitMetrics adds the limits' metrics to reg.
func registerLimitMetrics(reg *prometheus.Registry) error {
	if reg == nil {
		return nil
	}
	for _, c := range []prometheus.Collector{limitRefusals, limitRemaining} {
		if err := reg.Register(c); err != nil {
			var are prometheus.AlreadyRegisteredError
			if !errors.As(err, &are) {
				return err
			}
		}
	}
	return nil
}

// passthroughEstimate estimates a request passed through untranslated:
// its body is decoded for the count when the limits count tokens or
// spend (a cost only such limits pay), else nothing is estimated.
func (h *Handler) passthroughEstimate(dec *passthroughDecode, head *codec.RequestHead, x *observe.Exchange) limits.Estimate {
	if !h.limits.CountsTokens() {
		return limits.Estimate{}
	}
	req, ok := dec.request()
	if !ok {
		// The upstream will refuse what does not decode: a generous
		// count of the bytes stands in.
		return limits.Estimate{Input: int64(len(dec.body) / 3), Output: h.DefaultMaxTokens}
	}
	// The output limit as the head read it; the decoded request is
	// shared with the passthrough's other readers and is given back as
	// it was.
	kept := req.MaxTokens
	req.MaxTokens = head.MaxTokens
	e := h.limitEstimate(req, x)
	req.MaxTokens = kept
	return e
}
