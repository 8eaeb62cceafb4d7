package admission

import (
	"math"
	"net/http"
	"strconv"
	"time"

	"github.com/llmbridge/llmbridge/caddymodule/internal/pool"
	"github.com/llmbridge/llmbridge/caddymodule/limits"
	"github.com/llmbridge/llmbridge/codec"
)

// refusalName names the cap that refused: "requests/minute",
// "spend/day", "streams".
func refusalName(r *limits.Refusal) string {
	if r.Streams {
		return "streams"
	}
	return r.Of.String() + "/" + r.Per.String()
}

// value is the Llmbridge-Limits value of an admitted request: each rate
// it counts, with what remains of its cap and the seconds until its
// window resets ("requests/minute=59/60;reset=12"). It is written in a
// pooled buffer: the string is its one allocation.
func value(t *limits.Ticket, now time.Time) string {
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
