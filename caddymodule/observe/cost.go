package observe

import (
	"github.com/llmbridge/llmbridge/caddymodule/internal/glob"
	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/rules"
)

// Cost: a model rule may carry the operator's price for the model
// (rules.Price, US dollars per million tokens, with its source and date).
// A request whose upstream reported usage then logs its cost, computed
// from the usage in its one canonical meaning (mapping.Usage): input
// tokens include cache reads and writes, output tokens include reasoning.

// ModelPrice is one configured price and the models it applies to.
type ModelPrice struct {
	globs []glob.Pattern
	price *rules.Price
}

// Prices are a handler's configured model prices, first match wins.
type Prices []ModelPrice

// CompilePrices collects the prices of the configured model rules of
// provider (the upstream's), in order. The rules have been checked, so
// their globs compile; a glob with more wildcards than a model route takes
// matches through its first pieces only, and is skipped.
func CompilePrices(configured []rules.Rule, provider string) Prices {
	var out Prices
	for i := range configured {
		r := &configured[i]
		if r.Price == nil || r.Provider != "" && r.Provider != provider {
			continue
		}
		mp := ModelPrice{price: r.Price}
		for _, m := range r.Models {
			if g, err := glob.Compile(m); err == nil {
				mp.globs = append(mp.globs, g)
			}
		}
		out = append(out, mp)
	}
	return out
}

// For returns the price of model, or nil.
func (ps Prices) For(model string) *rules.Price {
	var caps [glob.MaxCaptures]string
	for i := range ps {
		for j := range ps[i].globs {
			if ps[i].globs[j].Match(model, &caps) {
				return ps[i].price
			}
		}
	}
	return nil
}

// Cost returns what usage u costs at price p, in US dollars.
func Cost(p *rules.Price, u *codec.Usage) float64 {
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

// Cost returns the cost of x, or -1 when no price applies or the
// upstream reported no usage.
func (ps Prices) Cost(x *Exchange) float64 {
	if len(ps) == 0 || !x.Usage.Known {
		return -1
	}
	p := ps.For(x.UpstreamModel)
	if p == nil {
		return -1
	}
	return Cost(p, &x.Usage)
}

// PriceOnly reports whether r says nothing but a price: such a rule is not
// a row of the fitting table, where it would hide the built-in rule of its
// models.
func PriceOnly(r *rules.Rule) bool {
	return r.Price != nil && r.Like == "" && r.MaxOutput == 0 && r.Reasoning == "" && r.Efforts == nil &&
		r.BudgetMin == 0 && r.BudgetMax == 0 && !r.AlwaysThinks && r.Sampling == "" && !r.NoPrefill &&
		!r.SignedCalls && r.Rejects == nil && r.Note == ""
}
