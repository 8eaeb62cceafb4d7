package caddymodule

import (
	"net/http"
	"strings"
	"time"

	"github.com/llmbridge/llmbridge/caddymodule/failover"
	"github.com/llmbridge/llmbridge/caddymodule/limits"
	"github.com/llmbridge/llmbridge/caddymodule/observe"
	"github.com/llmbridge/llmbridge/codec"
)

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
			est.Input = codec.EstimateInputTokens(req)
		} else {
			est.Input = int64(len(body) / 3)
		}
		putRequest(req)
		est.Output = codec.DefaultMaxTokens
		if head.MaxTokens.Set {
			est.Output = head.MaxTokens.Value
		}
	}
	if !h.admitLimits(w, r, x, est) {
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
	h.settleLimits(x, cost)
}
