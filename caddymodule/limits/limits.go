package limits

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/llmbridge/llmbridge/caddymodule/state"
)

// Set is a site's compiled limits and the store their counters live in.
type Set struct {
	rules []rule
	store state.Store

	mu   sync.RWMutex
	keys map[counterName]*windowKey
}

// rule is one compiled Limit.
type rule struct {
	keys    map[string]bool // nil: every named key
	models  []string
	scope   string
	id      string
	rates   []rate
	streams int64
}

// rate is one compiled Rate; max is in the quantity's unit (spend in
// millionths of a dollar).
type rate struct {
	of  Quantity
	per Period
	max int64
}

// counterName names one counter of a key apart from its window.
type counterName struct {
	rule, rate int
	key        string
}

// windowKey is a counter's store key in its latest window, made once per
// window: a request under limits builds no string.
type windowKey struct {
	start int64
	key   string
}

// maxCounts bounds the counters one request checks.
const maxCounts = 16

// New compiles limits over store.
func New(limits []Limit, store state.Store) (*Set, error) {
	s := &Set{store: store, keys: map[counterName]*windowKey{}}
	n := 0
	for i := range limits {
		l := &limits[i]
		r := rule{models: l.Models, scope: l.Scope, id: ruleID(l), streams: l.Streams}
		if len(l.Keys) > 0 && !(len(l.Keys) == 1 && l.Keys[0] == "*") {
			r.keys = map[string]bool{}
			for _, k := range l.Keys {
				r.keys[k] = true
			}
		}
		for _, m := range l.Models {
			if strings.Contains(m, "**") {
				return nil, fmt.Errorf("limit %d: model glob %q has two adjacent '*'", i, m)
			}
		}
		if l.Streams < 0 {
			return nil, fmt.Errorf("limit %d: streams %d is negative", i, l.Streams)
		}
		for _, rt := range l.Rates {
			q, err := ParseQuantity(rt.Of)
			if err != nil {
				return nil, fmt.Errorf("limit %d: %v", i, err)
			}
			p, err := ParsePeriod(rt.Per)
			if err != nil {
				return nil, fmt.Errorf("limit %d: %v", i, err)
			}
			if rt.Max < 0 || math.IsNaN(rt.Max) || math.IsInf(rt.Max, 0) {
				return nil, fmt.Errorf("limit %d: %s cap %v is not a number of at least 0", i, rt.Of, rt.Max)
			}
			max := int64(rt.Max)
			if q == Spend {
				max = int64(math.Round(rt.Max * microsPerDollar))
			}
			r.rates = append(r.rates, rate{of: q, per: p, max: max})
		}
		if len(r.rates) == 0 && r.streams == 0 {
			return nil, fmt.Errorf("limit %d caps nothing: give it a rate (requests 60/minute) or streams", i)
		}
		n += len(r.rates)
		if r.streams > 0 {
			n++
		}
		s.rules = append(s.rules, r)
	}
	if n > maxCounts {
		return nil, fmt.Errorf("the limits of one site check %d counters per request, at most %d", n, maxCounts)
	}
	return s, nil
}

// Estimate is what a request is expected to use, reserved before its
// upstream call.
type Estimate struct {
	// Input and Output are the tokens: the request's input by a generous
	// count, and its output limit (max_tokens) where a cap needs it.
	Input, Output int64
	// Spend is their cost in US dollars, or 0 without a price.
	Spend float64
}

// Usage is what a request used, as the upstream reported it.
type Usage struct {
	// Known reports that the upstream reported usage; without it the
	// tokens and spend reserved are given back (a refused or failed
	// request used none).
	Known bool
	// Input and Output are the tokens used.
	Input, Output int64
	// Spend is their cost in US dollars; SpendKnown reports a price.
	Spend      float64
	SpendKnown bool
}

// Ticket is what Admit reserved for one request, for Settle and for the
// headers that show what remains. The zero Ticket reserved nothing.
type Ticket struct {
	set    *Set
	n      int
	counts [maxCounts]state.Count
	values [maxCounts]int64
	what   [maxCounts]counted
	est    Estimate
}

// counted says what a ticket's counter counts.
type counted struct {
	of      Quantity
	per     Period
	streams bool
}

// Active reports whether the ticket reserved anything.
func (t *Ticket) Active() bool { return t.set != nil }

// Refusal is the cap that refused a request.
type Refusal struct {
	// Of and Per name the rate; Streams is set for the concurrent
	// streams cap instead.
	Of      Quantity
	Per     Period
	Streams bool
	// Max is the cap and Used what its window has counted, in the
	// quantity's unit (dollars for spend).
	Max, Used float64
	// Reset is when the window ends (for streams, a second from now: a
	// stream may end any moment).
	Reset time.Time
}

// ErrStore wraps the store's error when it could not count.
var ErrStore = errors.New("limits: the store could not count")

// applies reports whether r counts a request of key for model.
func (r *rule) applies(key, model string) bool {
	if key == "" || r.keys != nil && !r.keys[key] {
		return false
	}
	if len(r.models) == 0 {
		return true
	}
	for _, g := range r.models {
		if matchGlob(g, model) {
			return true
		}
	}
	return false
}

// Admit checks and reserves a request of the client key named key for
// model: t is filled with the counters it reserved. A refusal says which
// cap refused, with nothing reserved; an error wrapping ErrStore says the
// store could not count (the caller's policy decides).
func (s *Set) Admit(ctx context.Context, t *Ticket, key, model string, stream bool, est Estimate, now time.Time) (*Refusal, error) {
	*t = Ticket{}
	if s == nil || key == "" {
		return nil, nil
	}
	for ri := range s.rules {
		r := &s.rules[ri]
		if !r.applies(key, model) {
			continue
		}
		for qi, rt := range r.rates {
			start, end := rt.per.window(now)
			c := &t.counts[t.n]
			c.Key, c.Amount, c.Limit, c.Ends = s.counterKey(ri, qi, key, start), amount(rt.of, &est), rt.max, end
			t.what[t.n] = counted{of: rt.of, per: rt.per}
			t.n++
		}
		if r.streams > 0 && stream {
			c := &t.counts[t.n]
			// A gateway that dies with streams open leaves them
			// counted until the counter's hour ends.
			c.Key, c.Amount, c.Limit, c.Ends = s.counterKey(ri, -1, key, time.Time{}), 1, r.streams, now.Add(time.Hour)
			t.what[t.n] = counted{streams: true}
			t.n++
		}
	}
	if t.n == 0 {
		return nil, nil
	}
	ok, err := s.store.Take(ctx, t.counts[:t.n], t.values[:t.n])
	if err != nil {
		t.n = 0
		return nil, fmt.Errorf("%w: %v", ErrStore, err)
	}
	if !ok {
		for i := 0; i < t.n; i++ {
			if c := &t.counts[i]; t.values[i] >= c.Limit {
				r := &Refusal{Of: t.what[i].of, Per: t.what[i].per, Streams: t.what[i].streams,
					Max: unit(t.what[i].of, c.Limit), Used: unit(t.what[i].of, t.values[i]), Reset: c.Ends}
				if r.Streams {
					r.Reset = now.Add(time.Second)
				}
				t.n = 0
				return r, nil
			}
		}
		t.n = 0
		return &Refusal{Reset: now.Add(time.Second)}, nil
	}
	t.set, t.est = s, est
	return nil, nil
}

// amount is what a request reserves of q.
func amount(q Quantity, e *Estimate) int64 {
	switch q {
	case Requests:
		return 1
	case InputTokens:
		return e.Input
	case OutputTokens:
		return e.Output
	case TotalTokens:
		return e.Input + e.Output
	}
	return int64(math.Ceil(e.Spend * microsPerDollar))
}

// unit converts a counter's value of q to the quantity's unit.
func unit(q Quantity, v int64) float64 {
	if q == Spend {
		return float64(v) / microsPerDollar
	}
	return float64(v)
}

// counterKey returns the store key of rule ri's rate qi (-1: its streams)
// for key in the window starting at start. The key's name is the hash tag
// ({...}): in a Valkey cluster, every counter one request checks lives in
// one slot, as its script needs.
func (s *Set) counterKey(ri, qi int, key string, start time.Time) string {
	name := counterName{rule: ri, rate: qi, key: key}
	unix := start.Unix()
	s.mu.RLock()
	w := s.keys[name]
	s.mu.RUnlock()
	if w != nil && w.start == unix {
		return w.key
	}
	r := &s.rules[ri]
	var k string
	if qi < 0 {
		k = "limit:{" + key + "}:" + r.id + ":streams"
	} else {
		rt := r.rates[qi]
		k = "limit:{" + key + "}:" + r.id + ":" + rt.of.String() + ":" + rt.per.String() + ":" + strconv.FormatInt(unix, 10)
	}
	s.mu.Lock()
	s.keys[name] = &windowKey{start: unix, key: k}
	s.mu.Unlock()
	return k
}

// Settle corrects the reservation with what the request used: the
// tokens and spend estimated are replaced by those reported (all given
// back when none were), and an open stream's place is freed.
func (t *Ticket) Settle(ctx context.Context, u Usage) error {
	if t.set == nil {
		return nil
	}
	// The ticket's own counters carry the corrections: it is done after.
	n := 0
	for i := 0; i < t.n; i++ {
		w, c := t.what[i], t.counts[i]
		var delta int64
		switch {
		case w.streams:
			delta = -1
		case w.of == Requests:
		case w.of == Spend:
			if u.Known && u.SpendKnown {
				delta = int64(math.Ceil(u.Spend*microsPerDollar)) - c.Amount
			} else if !u.Known {
				delta = -c.Amount
			}
		default:
			used := int64(0)
			if u.Known {
				used = amount(w.of, &Estimate{Input: u.Input, Output: u.Output})
			}
			delta = used - c.Amount
		}
		if delta != 0 {
			t.counts[n] = state.Count{Key: c.Key, Amount: delta, Ends: c.Ends}
			n++
		}
	}
	store := t.set.store
	t.set, t.n = nil, 0
	if n == 0 {
		return nil
	}
	if err := store.Add(ctx, t.counts[:n]); err != nil {
		return fmt.Errorf("%w: %v", ErrStore, err)
	}
	return nil
}

// Rates is how many counters the ticket reserved; Rate returns the i-th:
// its rate's quantity and period (streams reports the streams cap), the
// cap, what remains after the request's reservation, and when its window
// resets.
func (t *Ticket) Rates() int { return t.n }

// Rate returns the i-th counter the ticket reserved (see Rates).
func (t *Ticket) Rate(i int) (of Quantity, per Period, streams bool, max, remaining float64, reset time.Time) {
	w, c := t.what[i], &t.counts[i]
	return w.of, w.per, w.streams, unit(w.of, c.Limit), unit(w.of, c.Limit-min(c.Limit, t.values[i])), c.Ends
}

// matchGlob reports whether s matches the glob g, whose '*' matches any
// run of characters.
func matchGlob(g, s string) bool {
	star := strings.IndexByte(g, '*')
	if star < 0 {
		return g == s
	}
	if !strings.HasPrefix(s, g[:star]) {
		return false
	}
	s, g = s[star:], g[star+1:]
	for {
		next := strings.IndexByte(g, '*')
		if next < 0 {
			return strings.HasSuffix(s, g)
		}
		i := strings.Index(s, g[:next])
		if i < 0 {
			return false
		}
		s, g = s[i+next:], g[next+1:]
	}
}

// CountsTokens reports whether a limit of the set counts tokens or spend,
// which need an estimate of the request's input.
func (s *Set) CountsTokens() bool {
	for i := range s.rules {
		for _, rt := range s.rules[i].rates {
			if rt.of != Requests {
				return true
			}
		}
	}
	return false
}

// Report is the use of one cap by one client key in its current window.
type Report struct {
	// Key is the client key's name.
	Key string `json:"key"`
	// Limit is the cap: "requests/minute", "spend/day", "streams".
	Limit string `json:"limit"`
	// Models and Scope are the limit's, when it has them.
	Models []string `json:"models,omitempty"`
	Scope  string   `json:"scope,omitempty"`
	// Max is the cap, Used what the window counted (dollars for spend,
	// open streams for streams).
	Max  float64 `json:"max"`
	Used float64 `json:"used"`
	// Reset is when the window ends (absent for streams).
	Reset *time.Time `json:"reset,omitempty"`
}

// Report reads the current use of every cap of the set by each of names
// (the site's client key names) that the cap applies to.
func (s *Set) Report(ctx context.Context, names []string, now time.Time) ([]Report, error) {
	var counts []state.Count
	var out []Report
	for ri := range s.rules {
		r := &s.rules[ri]
		for _, name := range names {
			if r.keys != nil && !r.keys[name] {
				continue
			}
			for qi, rt := range r.rates {
				start, end := rt.per.window(now)
				counts = append(counts, state.Count{Key: s.counterKey(ri, qi, name, start)})
				out = append(out, Report{Key: name, Limit: rt.of.String() + "/" + rt.per.String(), Models: r.models, Scope: r.scopeName(),
					Max: unit(rt.of, rt.max), Reset: &end})
			}
			if r.streams > 0 {
				counts = append(counts, state.Count{Key: s.counterKey(ri, -1, name, time.Time{})})
				out = append(out, Report{Key: name, Limit: "streams", Models: r.models, Scope: r.scopeName(), Max: float64(r.streams)})
			}
		}
	}
	values := make([]int64, len(counts))
	if err := s.store.Read(ctx, counts, values); err != nil {
		return nil, err
	}
	for i := range out {
		q := Requests
		if strings.HasPrefix(out[i].Limit, "spend/") {
			q = Spend
		}
		out[i].Used = unit(q, values[i])
	}
	return out, nil
}

// scopeName is the rule's scope.
func (r *rule) scopeName() string { return r.scope }

// Caps calls fn with each cap of the set that counts the client key
// named key (for any model).
func (s *Set) Caps(key string, fn func(of Quantity, per Period, streams bool)) {
	for i := range s.rules {
		r := &s.rules[i]
		if r.keys != nil && !r.keys[key] {
			continue
		}
		for _, rt := range r.rates {
			fn(rt.of, rt.per, false)
		}
		if r.streams > 0 {
			fn(0, 0, true)
		}
	}
}
