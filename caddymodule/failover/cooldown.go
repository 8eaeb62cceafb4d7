package failover

import (
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Cooldowns and circuits live in the memory of the Caddy instance, in
// targetStates, keyed by the target's name: every site of the instance
// that lists a target sees the same state, and a configuration reload
// keeps it (a provider that asked for a minute's pause still wants it).
// With a shared state store, each cooldown and opened circuit is also
// published to the fleet (shared.go), whose instances apply it to their
// own copy.

// TargetState is what the instance knows of one target's availability.
type TargetState struct {
	name string
	// cooldown is when a provider's limit ends (Unix nanoseconds), 0
	// when none is in force.
	cooldown atomic.Int64
	// open is when the circuit closes again (Unix nanoseconds), 0 when
	// it is closed.
	open atomic.Int64

	mu sync.Mutex
	// fails are the times of the failures counted toward the breaker,
	// oldest first.
	fails []int64
	// nfails is len(fails), read without the lock.
	nfails atomic.Int32
}

// targetStates are the states of every target of the instance.
var targetStates sync.Map // string -> *TargetState

// StateOf returns the state of the target named name.
func StateOf(name string) *TargetState {
	if s, ok := targetStates.Load(name); ok {
		return s.(*TargetState)
	}
	s, _ := targetStates.LoadOrStore(name, &TargetState{name: name})
	return s.(*TargetState)
}

// EachState calls f with the state of every target the instance has
// known, until f returns false.
func EachState(f func(*TargetState) bool) {
	targetStates.Range(func(_, v any) bool { return f(v.(*TargetState)) })
}

// Name is the target's name.
func (t *TargetState) Name() string { return t.name }

// CooledUntil is when the target's cooldown ends (Unix nanoseconds), or 0
// when none is in force.
func (t *TargetState) CooledUntil() int64 { return t.cooldown.Load() }

// OpenedUntil is when the target's open circuit closes (Unix nanoseconds),
// or 0 when it is closed.
func (t *TargetState) OpenedUntil() int64 { return t.open.Load() }

// Failures is the number of failures counted toward the breaker.
func (t *TargetState) Failures() int { return int(t.nfails.Load()) }

// Reset forgets the target's cooldown, open circuit and failures, as if
// it had never been tried.
func (t *TargetState) Reset() {
	t.Succeeded()
	t.cooldown.Store(0)
}

// Until returns when the target can be tried again, or 0 when it can
// be now.
func (t *TargetState) Until(now int64) int64 {
	c, o := t.cooldown.Load(), t.open.Load()
	// What has passed is forgotten, so that the target is idle again.
	if c != 0 && c <= now {
		t.cooldown.CompareAndSwap(c, 0)
	}
	if o != 0 && o <= now {
		t.open.CompareAndSwap(o, 0)
	}
	if u := max(c, o); u > now {
		return u
	}
	return 0
}

// Idle reports whether the target has neither a cooldown nor an open
// circuit on record, without reading the clock.
func (t *TargetState) Idle() bool {
	return t.cooldown.Load() == 0 && t.open.Load() == 0
}

// CoolFor puts the target in cooldown for d from now, unless one in force
// ends later, and returns when it ends.
func (t *TargetState) CoolFor(now int64, d time.Duration) int64 {
	until := now + int64(d)
	t.CoolUntil(until)
	return until
}

// CoolUntil puts the target in cooldown until the Unix nanosecond until,
// unless one in force ends later.
func (t *TargetState) CoolUntil(until int64) {
	LaterOf(&t.cooldown, until)
}

// OpenUntil opens the target's circuit until the Unix nanosecond until,
// unless it is open until later: another instance's breaker opened.
func (t *TargetState) OpenUntil(until int64) {
	LaterOf(&t.open, until)
}

// LaterOf sets v to until unless it holds a later time.
func LaterOf(v *atomic.Int64, until int64) {
	for {
		cur := v.Load()
		if cur >= until || v.CompareAndSwap(cur, until) {
			return
		}
	}
}

// Failed counts a failure toward the breaker b and reports whether it
// opened the circuit.
func (t *TargetState) Failed(now int64, b *Breaker) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	cut := now - int64(b.Window)
	i := 0
	for i < len(t.fails) && t.fails[i] < cut {
		i++
	}
	t.fails = append(t.fails[:copy(t.fails, t.fails[i:])], now)
	t.nfails.Store(int32(len(t.fails)))
	if len(t.fails) < b.Failures {
		return false
	}
	t.fails = t.fails[:0]
	t.nfails.Store(0)
	t.open.Store(now + int64(b.Period))
	return true
}

// Succeeded starts the breaker's count again. A healthy target's
// successes cost two atomic loads, not a lock.
func (t *TargetState) Succeeded() {
	if t.nfails.Load() == 0 && t.open.Load() == 0 {
		return
	}
	t.mu.Lock()
	t.fails = t.fails[:0]
	t.nfails.Store(0)
	t.mu.Unlock()
	t.open.Store(0)
}

// Breaker is a CircuitBreaker with its defaults.
type Breaker struct {
	Failures       int
	Window, Period time.Duration
}

// RetryHint returns how long an upstream's answer with header hdr asks to
// wait before the next request, and whether it says: Retry-After (seconds
// or an HTTP date), retry-after-ms (OpenAI's, Azure's), the reset of an
// exhausted Anthropic limit (anthropic-ratelimit-*-reset, RFC 3339) or
// OpenAI limit (x-ratelimit-reset-*, durations such as 1s, 6m0s, 20ms).
// When several say, the longest wins: every one of them must have passed.
func RetryHint(hdr http.Header, now time.Time) (time.Duration, bool) {
	var d time.Duration
	found := false
	take := func(v time.Duration) {
		if v < 0 {
			v = 0
		}
		if !found || v > d {
			d, found = v, true
		}
	}
	if v := hdr.Get("Retry-After-Ms"); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms >= 0 {
			take(time.Duration(ms * float64(time.Millisecond)))
		}
	}
	if v := hdr.Get("Retry-After"); v != "" {
		if s, err := strconv.ParseFloat(v, 64); err == nil && s >= 0 {
			take(time.Duration(s * float64(time.Second)))
		} else if t, err := http.ParseTime(v); err == nil {
			take(t.Sub(now))
		}
	}
	for name, vv := range hdr {
		if len(vv) == 0 {
			continue
		}
		switch {
		case strings.HasPrefix(name, "Anthropic-Ratelimit-") && strings.HasSuffix(name, "-Reset"):
			if !exhausted(hdr, strings.TrimSuffix(name, "-Reset")+"-Remaining") {
				continue
			}
			if t, err := time.Parse(time.RFC3339, vv[0]); err == nil {
				take(t.Sub(now))
			}
		case strings.HasPrefix(name, "X-Ratelimit-Reset-"):
			if !exhausted(hdr, "X-Ratelimit-Remaining-"+strings.TrimPrefix(name, "X-Ratelimit-Reset-")) {
				continue
			}
			if v, err := time.ParseDuration(vv[0]); err == nil {
				take(v)
			}
		}
	}
	return d, found
}

// exhausted reports whether the limit whose remaining count is the header
// name has none left: only an exhausted limit's reset says when to come
// back (the others reset too, but are not what refused the request).
func exhausted(hdr http.Header, name string) bool {
	v := hdr.Get(name)
	return v == "0"
}
