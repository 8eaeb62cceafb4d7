package caddymodule

import (
	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/rules"
)

// Cost: a model rule may carry the operator's price for the model
// (rules.Price, US dollars per million tokens, with its source and date).
// A request whose upstream reported usage then logs its cost, computed
// from the usage in its one canonical meaning (mapping.Usage): input
// tokens include cache reads and writes, output tokens include reasoning.

// modelPrice is one configured price and the models it applies to.
type modelPrice struct {
	globs []glob
	price *rules.Price
}

// compilePrices collects the prices of the configured model rules of
// provider (the upstream's), in order. The rules have been checked, so
// their globs compile; a glob with more wildcards than a model route takes
// matches through its first pieces only, and is skipped.
func compilePrices(configured []rules.Rule, provider string) []modelPrice {
	var out []modelPrice
	for i := range configured {
		r := &configured[i]
		if r.Price == nil || r.Provider != "" && r.Provider != provider {
			continue
		}
		mp := modelPrice{price: r.Price}
		for _, m := range r.Models {
			if g, err := compileGlob(m); err == nil {
				mp.globs = append(mp.globs, g)
			}
		}
		out = append(out, mp)
	}
	return out
}

// priceFor returns the price of model, or nil.
func (h *Handler) priceFor(model string) *rules.Price {
	var caps [maxCaptures]string
	for i := range h.prices {
		for j := range h.prices[i].globs {
			if h.prices[i].globs[j].match(model, &caps) {
				return h.prices[i].price
			}
		}
	}
	return nil
}

// cost returns what usage u cost at price p, in US dollars.
func cost(p *rules.Price, u *codec.Usage) float64 {
	cacheRead, cacheWrite := p.CacheRead, p.CacheWrite
	if cacheRead == 0 {
		cacheRead = p.Input
	}
	if cacheWrite == 0 {
		cacheWrite = p.Input
	}
	plain := max(u.InputTokens-u.CacheReadTokens-u.CacheWriteTokens, 0)
	return (float64(plain)*p.Input + float64(u.CacheReadTokens)*cacheRead +
		float64(u.CacheWriteTokens)*cacheWrite + float64(u.OutputTokens)*p.Output) / 1e6
}

// exchangeCost returns the cost of x, or -1 when no price applies or the
// upstream reported no usage.
func (h *Handler) exchangeCost(x *Exchange) float64 {
	if len(h.prices) == 0 || !x.Usage.Known {
		return -1
	}
	p := h.priceFor(x.UpstreamModel)
	if p == nil {
		return -1
	}
	return cost(p, &x.Usage)
}

// priceOnly reports whether r says nothing but a price: such a rule is not
// a row of the fitting table, where it would hide the built-in rule of its
// models.
func priceOnly(r *rules.Rule) bool {
	return r.Price != nil && r.Like == "" && r.MaxOutput == 0 && r.Reasoning == "" && r.Efforts == nil &&
		r.BudgetMin == 0 && r.BudgetMax == 0 && !r.AlwaysThinks && r.Sampling == "" && !r.NoPrefill &&
		!r.SignedCalls && r.Rejects == nil && r.Note == ""
}
