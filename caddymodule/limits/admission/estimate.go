package admission

import (
	"github.com/llmbridge/llmbridge/caddymodule/limits"
	"github.com/llmbridge/llmbridge/caddymodule/observe"
	"github.com/llmbridge/llmbridge/codec"
)

// Estimate estimates what a decoded request will use for the limits: its
// input by a generous count (codec.EstimateInputTokens), its output limit
// maxTokens (defaultOutput when the client gave none), and their price at
// model's in prices. The output limit is a parameter, not req.MaxTokens,
// because a passed-through request's limit is the one its head read:
// its decoded form is shared with the passthrough's other readers.
func Estimate(req *codec.Request, maxTokens codec.OptInt, defaultOutput int64, prices observe.Prices, model string) limits.Estimate {
	e := limits.Estimate{Input: codec.EstimateInputTokens(req), Output: defaultOutput}
	if maxTokens.Set {
		e.Output = maxTokens.Value
	}
	if len(prices) > 0 {
		if p := prices.For(model); p != nil {
			e.Spend = observe.Cost(p, &codec.Usage{Known: true, InputTokens: e.Input, OutputTokens: e.Output})
		}
	}
	return e
}

// Undecoded estimates a request whose body does not decode: the upstream
// will refuse it and its reservation be given back, so a generous count
// of its bytes stands in for its input, with its output limit maxTokens
// (defaultOutput when unset).
func Undecoded(body []byte, maxTokens codec.OptInt, defaultOutput int64) limits.Estimate {
	e := limits.Estimate{Input: int64(len(body) / 3), Output: defaultOutput}
	if maxTokens.Set {
		e.Output = maxTokens.Value
	}
	return e
}
