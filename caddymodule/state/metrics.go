package state

import (
	"errors"

	"github.com/prometheus/client_golang/prometheus"
)

// The store's metrics: whether it can be reached, and how often it could
// not be.
var (
	storeUp = prometheus.NewGauge(prometheus.GaugeOpts{
		Namespace: "caddy", Subsystem: "llmbridge", Name: "state_store_up",
		Help: "1 while the shared state store (Valkey) answers, 0 during an outage; absent with the memory store.",
	})
	storeOutages = prometheus.NewCounter(prometheus.CounterOpts{
		Namespace: "caddy", Subsystem: "llmbridge", Name: "state_store_outages_total",
		Help: "Times the shared state store stopped answering.",
	})
)

// storeHealth records a change of the store's reachability.
func storeHealth(up bool) {
	if up {
		storeUp.Set(1)
		return
	}
	storeUp.Set(0)
	storeOutages.Inc()
}

// registerMetrics adds the store's metrics to reg.
func registerMetrics(reg *prometheus.Registry) error {
	if reg == nil {
		return nil
	}
	for _, c := range []prometheus.Collector{storeUp, storeOutages} {
		if err := reg.Register(c); err != nil {
			var are prometheus.AlreadyRegisteredError
			if !errors.As(err, &are) {
				return err
			}
		}
	}
	return nil
}
