package admission

import (
	"fmt"
	"strconv"

	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"

	"github.com/llmbridge/llmbridge/caddymodule/limits"
)

// ParseLimit parses a limit block, the dispenser at its "limit" token:
//
//	limit [<key name>...] {
//		models <glob>...
//		scope <name>
//		requests <n>/<period>
//		input_tokens <n>/<period>
//		output_tokens <n>/<period>
//		total_tokens <n>/<period>
//		spend <usd>/<period>
//		streams <n>
//	}
//
// A period is second, minute, hour, day or month; a number may end in k
// or M. Without key names the limit applies to every named client key,
// each counted on its own. It lives here, not in caddymodule/limits, so
// that the engine knows nothing of Caddy.
func ParseLimit(d *caddyfile.Dispenser) (limits.Limit, error) {
	l := limits.Limit{Keys: d.RemainingArgs()}
	for d.NextBlock(1) {
		name := d.Val()
		args := d.RemainingArgs()
		switch name {
		case "models":
			if len(args) == 0 {
				return l, d.ArgErr()
			}
			l.Models = append(l.Models, args...)
		case "scope":
			if len(args) != 1 {
				return l, d.ArgErr()
			}
			l.Scope = args[0]
		case "streams":
			if len(args) != 1 {
				return l, d.ArgErr()
			}
			n, err := parsePositive(args[0])
			if err != nil {
				return l, d.Errf("streams: %v", err)
			}
			l.Streams = n
		case "requests", "input_tokens", "output_tokens", "total_tokens", "spend":
			if len(args) != 1 {
				return l, d.Errf("%s takes one rate, such as %s 60/minute", name, name)
			}
			r, err := limits.ParseRate(name, args[0])
			if err != nil {
				return l, d.Errf("%v", err)
			}
			l.Rates = append(l.Rates, r)
		default:
			return l, d.Errf("unknown limit setting %q (models, scope, requests, input_tokens, output_tokens, total_tokens, spend, streams)", name)
		}
	}
	if len(l.Rates) == 0 && l.Streams == 0 {
		return l, d.Err("limit caps nothing: give it a rate (requests 60/minute) or streams")
	}
	return l, nil
}

// parsePositive parses a positive whole number.
func parsePositive(s string) (int64, error) {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("want a positive whole number, got %q", s)
	}
	return n, nil
}
