package state

import (
	"context"
	"sync"
	"time"
)

// DefaultMemoryMax bounds the bytes of values a Memory store holds.
const DefaultMemoryMax = 256 << 20

// memoryOverhead is what a value costs a Memory store beyond its bytes:
// its key in the map and in the queue, the entry and the slice header.
const memoryOverhead = 160

// Memory is a Store in the process's memory: nothing to run, no network,
// and state that no other instance sees. Values are bounded in bytes
// (the oldest evicted first) and expire; counters are forgotten when their
// window ends.
type Memory struct {
	max int64
	now func() time.Time

	mu       sync.Mutex
	values   map[string]memoryValue
	queue    []memoryKey // keys in the order stored
	head     int
	seq      uint64 // counts Set calls, naming each queued key's store
	size     int64
	counters map[string]*memoryCounter
	// sweep is when counters were last swept of ended windows.
	sweep time.Time

	subMu sync.RWMutex
	subs  map[string][]*subscriber
}

// memoryValue is a value and when it expires (zero: never).
type memoryValue struct {
	value   []byte
	expires time.Time
	stored  uint64
}

// memoryKey is a key in the eviction queue, with the store operation that
// queued it: a key stored again later keeps its newer value.
type memoryKey struct {
	key    string
	stored uint64
}

// memoryCounter is a counter and when its window ends.
type memoryCounter struct {
	value int64
	ends  time.Time
}

// subscriber is one Subscribe call's function.
type subscriber struct{ fn func([]byte) }

// NewMemory returns a Memory store of at most max bytes of values
// (DefaultMemoryMax when max <= 0).
func NewMemory(max int64) *Memory {
	if max <= 0 {
		max = DefaultMemoryMax
	}
	return &Memory{max: max, now: time.Now, values: map[string]memoryValue{}, counters: map[string]*memoryCounter{}, subs: map[string][]*subscriber{}}
}

// local is the process's Memory store.
var local = NewMemory(0)

// Local returns the process's Memory store: the state of an instance
// without a shared store, which survives configuration reloads (a
// provider's cooldown, a budget's use in the current day).
func Local() *Memory { return local }

// Get returns the value of key.
func (m *Memory) Get(_ context.Context, key string) ([]byte, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	v, ok := m.values[key]
	if !ok {
		return nil, false, nil
	}
	if !v.expires.IsZero() && !m.now().Before(v.expires) {
		m.drop(key)
		return nil, false, nil
	}
	return v.value, true, nil
}

// Set stores value under key for ttl; the store keeps the slice, which
// the caller must not change afterwards.
func (m *Memory) Set(_ context.Context, key string, value []byte, ttl time.Duration) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.drop(key)
	var expires time.Time
	if ttl > 0 {
		expires = m.now().Add(ttl)
	}
	m.seq++
	stored := m.seq
	m.values[key] = memoryValue{value: value, expires: expires, stored: stored}
	m.queue = append(m.queue, memoryKey{key: key, stored: stored})
	m.size += int64(len(key) + len(value) + memoryOverhead)
	for m.size > m.max && m.head < len(m.queue) {
		q := m.queue[m.head]
		m.head++
		if v, ok := m.values[q.key]; ok && v.stored == q.stored {
			m.drop(q.key)
		}
	}
	if m.head > len(m.queue)/2 {
		m.queue = append(m.queue[:0], m.queue[m.head:]...)
		m.head = 0
	}
	return nil
}

// drop removes key's value; the caller holds m.mu.
func (m *Memory) drop(key string) {
	if v, ok := m.values[key]; ok {
		m.size -= int64(len(key) + len(v.value) + memoryOverhead)
		delete(m.values, key)
	}
}

// Delete removes key.
func (m *Memory) Delete(_ context.Context, key string) error {
	m.mu.Lock()
	m.drop(key)
	m.mu.Unlock()
	return nil
}

// Take adds the counts if every counter is below its limit.
func (m *Memory) Take(_ context.Context, counts []Count, values []int64) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	m.sweepCounters(now)
	var found [16]*memoryCounter
	ok := true
	for i := range counts {
		c := &counts[i]
		mc := m.counter(c, now)
		if i < len(found) {
			found[i] = mc
		}
		values[i] = mc.value
		if c.Limit >= 0 && mc.value >= c.Limit {
			ok = false
		}
	}
	if !ok {
		return false, nil
	}
	for i := range counts {
		mc := (*memoryCounter)(nil)
		if i < len(found) {
			mc = found[i]
		} else {
			mc = m.counter(&counts[i], now)
		}
		mc.value += counts[i].Amount
		values[i] = mc.value
	}
	return true, nil
}

// Add adds the counts without a limit.
func (m *Memory) Add(_ context.Context, counts []Count) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	for i := range counts {
		m.counter(&counts[i], now).value += counts[i].Amount
	}
	return nil
}

// Read reads the counters.
func (m *Memory) Read(_ context.Context, counts []Count, values []int64) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	for i := range counts {
		values[i] = 0
		if mc, ok := m.counters[counts[i].Key]; ok && now.Before(mc.ends) {
			values[i] = mc.value
		}
	}
	return nil
}

// counter returns c's counter in its current window, made (at 0) when
// there is none or its window ended; the caller holds m.mu.
func (m *Memory) counter(c *Count, now time.Time) *memoryCounter {
	mc, ok := m.counters[c.Key]
	if !ok {
		mc = &memoryCounter{ends: c.Ends}
		m.counters[c.Key] = mc
	} else if !now.Before(mc.ends) {
		mc.value, mc.ends = 0, c.Ends
	}
	if c.Ends.After(mc.ends) {
		mc.ends = c.Ends
	}
	return mc
}

// counterSweepEvery is how often ended windows are swept away.
const counterSweepEvery = time.Minute

// sweepCounters forgets counters whose window ended, at most once a
// minute; the caller holds m.mu.
func (m *Memory) sweepCounters(now time.Time) {
	if now.Sub(m.sweep) < counterSweepEvery {
		return
	}
	m.sweep = now
	for k, c := range m.counters {
		if !now.Before(c.ends) {
			delete(m.counters, k)
		}
	}
}

// Publish calls the channel's subscribers of this process.
func (m *Memory) Publish(_ context.Context, channel string, msg []byte) error {
	m.subMu.RLock()
	subs := m.subs[channel]
	m.subMu.RUnlock()
	for _, s := range subs {
		s.fn(msg)
	}
	return nil
}

// Subscribe calls fn with the messages published on channel.
func (m *Memory) Subscribe(channel string, fn func(msg []byte)) (stop func()) {
	s := &subscriber{fn: fn}
	m.subMu.Lock()
	m.subs[channel] = append(m.subs[channel], s)
	m.subMu.Unlock()
	return func() {
		m.subMu.Lock()
		defer m.subMu.Unlock()
		list := m.subs[channel]
		for i, x := range list {
			if x == s {
				m.subs[channel] = append(list[:i:i], list[i+1:]...)
				break
			}
		}
	}
}

// Shared reports false: no other instance sees the process's memory.
func (*Memory) Shared() bool { return false }

// Interface guards
var _ Store = (*Memory)(nil)
