package caddymodule

import (
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/caddyserver/caddy/v2"

	"github.com/llmbridge/llmbridge/caddymodule/failover"
	"github.com/llmbridge/llmbridge/caddymodule/fleet"
	"github.com/llmbridge/llmbridge/caddymodule/limits"
	"github.com/llmbridge/llmbridge/caddymodule/limits/admission"
	"github.com/llmbridge/llmbridge/caddymodule/observe"
	"github.com/llmbridge/llmbridge/caddymodule/state"
	"github.com/llmbridge/llmbridge/codec"
)

// Limits: a site's limit blocks cap what each named client key uses
// (caddymodule/limits, applied by caddymodule/limits/admission). A
// request is admitted before its upstream call with an estimate of its
// input, its output limit and their price, and settled when the exchange
// is recorded, with the usage the upstream reported. What stays here is
// what only the handler knows: its store and fleet, its client keys and
// prices, the body as each path reads it, and its error writer.

// provisionLimits takes the instance's state store from the llmbridge app
// and compiles the site's limits over it.
func (h *Handler) provisionLimits(ctx caddy.Context) error {
	app, err := state.AppOf(ctx)
	if err != nil {
		return fmt.Errorf("llmbridge: state store: %v", err)
	}
	h.store, h.limits = app.Store(), nil
	fleet.Listen(app)
	if h.keys != nil {
		store := h.store
		h.keys.Share = func(id string, i int, until int64) { fleet.KeyCooled(store, id, i, until) }
	}
	if len(h.Limits) == 0 {
		return nil
	}
	g, err := admission.New(admission.Config{Limits: h.Limits, Store: h.store, DenyOnStoreError: app.DenyOnStoreError(),
		Keys: h.clientKeyNames, Registry: ctx.GetMetricsRegistry(), Fail: fail, Logger: h.logger})
	if err != nil {
		return fmt.Errorf("llmbridge: %v", err)
	}
	h.limits = g
	return nil
}

// limitEstimate estimates a translated request for the limits, priced at
// the upstream model's.
func (h *Handler) limitEstimate(req *codec.Request, x *observe.Exchange) limits.Estimate {
	return admission.Estimate(req, req.MaxTokens, h.DefaultMaxTokens, h.prices, x.UpstreamModel)
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
		// The handler's default output limit: what the body asks is
		// not read from a body that does not decode.
		return admission.Undecoded(dec.body, codec.OptInt{}, h.DefaultMaxTokens)
	}
	// The output limit as the head read it: the decoded request is
	// shared with the passthrough's other readers.
	return admission.Estimate(req, head.MaxTokens, h.DefaultMaxTokens, h.prices, x.UpstreamModel)
}

// admitFailoverLimits checks a failover site's request against the site's
// limits before any target runs, and returns the reservation to settle
// with the answering attempt's usage; false when the site answered (a
// refusal, recorded as the site's own). The site has no prices (they
// belong to its targets): spend is admitted while the key's window has
// room and settled with the answering target's cost.
func (h *Handler) admitFailoverLimits(w http.ResponseWriter, r *http.Request, body []byte, keyName string) (*limits.Ticket, bool) {
	client := h.failoverClient(r)
	x := &observe.Exchange{Client: client, KeyName: keyName, Start: time.Now()}
	rt, _ := detectRoute(r.URL.Path)
	head, err := codec.ReadRequestHead(body)
	if err != nil {
		// The targets answer a malformed body in the client's format.
		return nil, true
	}
	x.Model, x.Stream = head.Model, head.Stream
	if client.ModelInPath() {
		x.Model, x.Stream = strings.TrimPrefix(rt.model, "models/"), rt.stream
	}
	x.UpstreamModel = x.Model
	est := limits.Estimate{}
	if h.limits.CountsTokens() {
		req := getRequest()
		if codec.DecodeRequest(client, body, req) == nil {
			est = admission.Estimate(req, head.MaxTokens, codec.DefaultMaxTokens, nil, "")
		} else {
			est = admission.Undecoded(body, head.MaxTokens, codec.DefaultMaxTokens)
		}
		putRequest(req)
	}
	if !h.limits.Admit(w, r, x, est) {
		h.record(r, x)
		return nil, false
	}
	t := x.Limit
	x.Limit = nil
	return t, true
}

// settleFailoverLimits settles a failover site's reservation t, for the
// client key keyName, with the usage and cost of the attempt whose answer
// the client got.
func (h *Handler) settleFailoverLimits(keyName string, t *limits.Ticket, answer failover.Answer) {
	x := &observe.Exchange{KeyName: keyName, Limit: t}
	cost := -1.0
	if a := answer.Exchange; a != nil {
		x.Usage, x.Status = a.Usage, a.Status
		if answer.By != nil {
			cost = answer.By.Cost(a)
		}
	}
	h.limits.Settle(x, cost)
}
