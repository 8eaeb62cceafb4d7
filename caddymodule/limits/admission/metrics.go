package admission

import (
	"errors"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/llmbridge/llmbridge/caddymodule/limits"
)

// refusals counts the requests limits refused.
var refusals = prometheus.NewCounterVec(prometheus.CounterOpts{
	Namespace: "caddy", Subsystem: "llmbridge", Name: "limit_refusals_total",
	Help: "Requests refused by a limit, by client key name and limit (requests/minute, spend/day, streams, ...).",
}, []string{"client_key", "limit"})

// remaining is what remains of each cap of each key after the latest
// request it admitted.
var remaining = prometheus.NewGaugeVec(prometheus.GaugeOpts{
	Namespace: "caddy", Subsystem: "llmbridge", Name: "limit_remaining",
	Help: "What remains of a limit's cap in its current window after the key's latest admitted request (dollars for spend), by client key name and limit.",
}, []string{"client_key", "limit"})

// capGauges are one client key's limit_remaining gauges, by cap
// (capIndex), made when the configuration is provisioned: labelling a
// gauge per request would allocate.
type capGauges [caps]prometheus.Gauge

// caps is how many caps a key can have: each quantity per each period,
// and streams.
const caps = 5*5 + 1

// capIndex is a cap's place in capGauges.
func capIndex(of limits.Quantity, per limits.Period, streams bool) int {
	if streams {
		return caps - 1
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
			g[capIndex(of, per, streams)] = remaining.WithLabelValues(name, label)
		})
		out[name] = g
	}
	return out
}

// registerMetrics adds the limits' metrics to reg; registering them
// again, for another site or a reloaded configuration, is no error.
func registerMetrics(reg *prometheus.Registry) error {
	if reg == nil {
		return nil
	}
	for _, c := range []prometheus.Collector{refusals, remaining} {
		if err := reg.Register(c); err != nil {
			var are prometheus.AlreadyRegisteredError
			if !errors.As(err, &are) {
				return err
			}
		}
	}
	return nil
}
