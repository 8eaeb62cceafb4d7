package failover

import (
	"errors"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// The failover metrics, per target: attempts by outcome ("ok" or the
// failure's reason), circuits opened, the cooldowns and open circuits in
// force and the keys out of a target's pool.
var (
	attemptsTotal = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: "caddy", Subsystem: "llmbridge", Name: "failover_attempts_total",
		Help: "Attempts of failover sites at their targets, by target and outcome (ok, or the reason of the failure that moved the request on).",
	}, []string{"target", "outcome"})
	circuitsTotal = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: "caddy", Subsystem: "llmbridge", Name: "failover_circuit_opened_total",
		Help: "Times a failover target's circuit opened after repeated failures, by target.",
	}, []string{"target"})
	failoverCoolingDesc = prometheus.NewDesc("caddy_llmbridge_failover_unavailable_seconds",
		"Seconds until a failover target can be tried again (a provider's limit or an open circuit), by target; 0 when it can be now.",
		[]string{"target"}, nil)
	keysOutDesc = prometheus.NewDesc("caddy_llmbridge_keys_out",
		"Upstream credentials of a pool (api_key values, azure_credentials applications, aws_profile profiles) that the upstream refused (401, 403) and that are out of it until the configuration is loaded again, by target.",
		[]string{"target"}, nil)
)

// stateCollector reports the state of every target and key pool of the
// instance at each scrape.
type stateCollector struct{}

// Describe sends the descriptors of the state metrics.
func (stateCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- failoverCoolingDesc
	ch <- keysOutDesc
}

// Collect sends the state of every target and pool.
func (stateCollector) Collect(ch chan<- prometheus.Metric) {
	now := time.Now().UnixNano()
	EachState(func(s *TargetState) bool {
		secs := 0.0
		if u := s.Until(now); u > 0 {
			secs = float64(u-now) / float64(time.Second)
		}
		ch <- prometheus.MustNewConstMetric(failoverCoolingDesc, prometheus.GaugeValue, secs, s.Name())
		return true
	})
	EachPool(func(p *Pool) bool {
		ch <- prometheus.MustNewConstMetric(keysOutDesc, prometheus.GaugeValue, float64(p.OutCount()), p.Name())
		return true
	})
}

// RegisterMetrics registers the failover metrics in the
// configuration's registry.
func RegisterMetrics(reg *prometheus.Registry) error {
	if reg == nil {
		return nil
	}
	for _, c := range []prometheus.Collector{attemptsTotal, circuitsTotal, stateCollector{}} {
		if err := reg.Register(c); err != nil {
			var are prometheus.AlreadyRegisteredError
			if !errors.As(err, &are) {
				return err
			}
		}
	}
	return nil
}
