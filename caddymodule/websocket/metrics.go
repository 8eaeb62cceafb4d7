package websocket

import (
	"errors"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// socketMetrics are the WebSocket connections' own metrics; each turn is
// counted with the HTTP requests, as the request it is run as.
type socketMetrics struct {
	open     prometheus.Gauge
	duration prometheus.Histogram
	turns    prometheus.Histogram
}

var (
	socketMetricsOnce sync.Once
	theSocketMetrics  *socketMetrics
)

// globalSocketMetrics creates the collectors once.
func globalSocketMetrics() *socketMetrics {
	socketMetricsOnce.Do(func() {
		const ns, sub = "caddy", "llmbridge"
		theSocketMetrics = &socketMetrics{
			open: prometheus.NewGauge(prometheus.GaugeOpts{Namespace: ns, Subsystem: sub, Name: "websocket_connections",
				Help: "Responses WebSocket connections open."}),
			duration: prometheus.NewHistogram(prometheus.HistogramOpts{Namespace: ns, Subsystem: sub, Name: "websocket_connection_duration_seconds",
				Help:    "How long Responses WebSocket connections stayed open.",
				Buckets: []float64{1, 10, 60, 300, 900, 1800, 3600}}),
			turns: prometheus.NewHistogram(prometheus.HistogramOpts{Namespace: ns, Subsystem: sub, Name: "websocket_connection_turns",
				Help:    "How many response.create events a Responses WebSocket connection served.",
				Buckets: []float64{1, 2, 5, 10, 20, 50, 100, 200}}),
		}
	})
	return theSocketMetrics
}

// RegisterMetrics registers the connections' collectors with reg (a
// handler's Caddy metrics registry), once per registry: every handler of
// the instance counts its connections in the same collectors.
func RegisterMetrics(reg *prometheus.Registry) error {
	if reg == nil {
		return nil
	}
	m := globalSocketMetrics()
	for _, c := range []prometheus.Collector{m.open, m.duration, m.turns} {
		if err := reg.Register(c); err != nil {
			var are prometheus.AlreadyRegisteredError
			if !errors.As(err, &are) {
				return err
			}
		}
	}
	return nil
}

// opened counts a connection that opened.
func (m *socketMetrics) opened() { m.open.Inc() }

// closed counts a connection that closed after turns turns.
func (m *socketMetrics) closed(opened time.Time, turns int) {
	m.open.Dec()
	m.duration.Observe(time.Since(opened).Seconds())
	m.turns.Observe(float64(turns))
}
