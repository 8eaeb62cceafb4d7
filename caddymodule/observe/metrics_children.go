package observe

import (
	"sync"

	"github.com/prometheus/client_golang/prometheus"
)

// children caches the collectors of a metric vector by the key its label
// values derive from. Resolving a child from label values hashes them and
// takes the vector's lock on every request; a cached child costs one
// read-locked map lookup. Keys are bounded: their label values are (models
// are folded by boundedLabels, protocols and statuses are fixed sets).
type children[K comparable, V any] struct {
	mu sync.RWMutex
	m  map[K]V
}

// get returns the child of key k, resolving it with resolve the first
// time.
func (c *children[K, V]) get(k K, resolve func() V) V {
	c.mu.RLock()
	v, ok := c.m[k]
	c.mu.RUnlock()
	if ok {
		return v
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if v, ok := c.m[k]; ok {
		return v
	}
	if c.m == nil {
		c.m = make(map[K]V)
	}
	v = resolve()
	c.m[k] = v
	return v
}

// requestKey is what requests_total's labels derive from.
type requestKey struct {
	client, upstream string
	status           int
}

// tokenCounters are tokens_total's counters of one model.
type tokenCounters struct {
	input, output, cached, reasoning prometheus.Counter
}

// genAIKey is what the GenAI histograms' labels derive from.
type genAIKey struct {
	op, provider, model, client, errType string
}

// genAIObservers are the GenAI histograms' children of one key (the token
// usage's two token types, the duration, the first chunk).
type genAIObservers struct {
	input, output, duration, firstChunk prometheus.Observer
}
