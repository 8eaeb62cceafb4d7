// Package limits caps what a client key may use: requests, input, output
// and total tokens and spend in US dollars per second, minute, hour, day
// or month, and concurrent streams. A request is checked before its
// upstream call with an estimate (Admit) and settled after with the usage
// the upstream reported (Ticket.Settle), the counters living in a
// state.Store: the process's memory, or a Valkey server a fleet shares,
// where each check and addition is one atomic step.
//
// A limit admits a request while every counter it checks is below its
// cap, and then adds the request's estimate: across any number of
// gateways sharing a store, a window's use passes its cap by at most one
// request's estimate (plus what the settlements of requests in flight
// add). Windows are fixed and aligned to UTC (the minute, the hour, the
// day, the calendar month), so that every instance counts into the same
// one and a refusal can say when the window resets.
//
// This package knows the state store and nothing of HTTP, Caddy's
// handlers or LLM protocols: the handler package asks it and answers in
// the client's protocol.
package limits

import (
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"
	"time"
)

// Limit is one limit of a site: what the named client keys may use of the
// models its globs match.
type Limit struct {
	// Keys are the names of the client keys (client_keys) the limit
	// applies to, each counted on its own; empty applies it to every
	// named key.
	Keys []string `json:"keys,omitempty"`
	// Models are globs ('*' matches any run of characters) of the
	// client's model names the limit counts; empty counts every model.
	Models []string `json:"models,omitempty"`
	// Scope names the limit's counters. Limits of the same keys, models,
	// quantity and period share their counters wherever they are
	// configured (several sites, several instances); a scope keeps a
	// limit's counters its own.
	Scope string `json:"scope,omitempty"`
	// Rates are the caps per period.
	Rates []Rate `json:"rates,omitempty"`
	// Streams caps the key's concurrent streamed requests; 0: no cap.
	Streams int64 `json:"streams,omitempty"`
}

// Rate is one cap: at most Max of a quantity per period.
type Rate struct {
	// Of is the quantity: requests, input_tokens, output_tokens,
	// total_tokens or spend (US dollars).
	Of string `json:"of"`
	// Max is the cap per period (dollars for spend).
	Max float64 `json:"max"`
	// Per is the period: second, minute, hour, day or month.
	Per string `json:"per"`
}

// Quantity is what a rate counts.
type Quantity uint8

// Quantities.
const (
	Requests Quantity = iota
	InputTokens
	OutputTokens
	TotalTokens
	Spend
)

var quantityNames = [...]string{"requests", "input_tokens", "output_tokens", "total_tokens", "spend"}

// String returns the quantity's configuration name.
func (q Quantity) String() string { return quantityNames[q] }

// Period is a rate's window.
type Period uint8

// Periods.
const (
	Second Period = iota
	Minute
	Hour
	Day
	Month
)

var periodNames = [...]string{"second", "minute", "hour", "day", "month"}

// String returns the period's configuration name.
func (p Period) String() string { return periodNames[p] }

// window returns the start and the end of the window of p holding t.
func (p Period) window(t time.Time) (time.Time, time.Time) {
	t = t.UTC()
	switch p {
	case Second:
		s := t.Truncate(time.Second)
		return s, s.Add(time.Second)
	case Minute:
		s := t.Truncate(time.Minute)
		return s, s.Add(time.Minute)
	case Hour:
		s := t.Truncate(time.Hour)
		return s, s.Add(time.Hour)
	case Day:
		s := time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
		return s, s.AddDate(0, 0, 1)
	}
	s := time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, time.UTC)
	return s, s.AddDate(0, 1, 0)
}

// microsPerDollar is the unit spend is counted in: a millionth of a
// dollar, so that counters stay integers.
const microsPerDollar = 1e6

// ParseQuantity returns the quantity named s.
func ParseQuantity(s string) (Quantity, error) {
	for i, n := range quantityNames {
		if n == s {
			return Quantity(i), nil
		}
	}
	return 0, fmt.Errorf("unknown quantity %q (requests, input_tokens, output_tokens, total_tokens, spend)", s)
}

// ParsePeriod returns the period named s (or its short name: s, m, h, d,
// mo).
func ParsePeriod(s string) (Period, error) {
	switch s {
	case "s", "sec":
		return Second, nil
	case "m", "min":
		return Minute, nil
	case "h":
		return Hour, nil
	case "d":
		return Day, nil
	case "mo":
		return Month, nil
	}
	for i, n := range periodNames {
		if n == s {
			return Period(i), nil
		}
	}
	return 0, fmt.Errorf("unknown period %q (second, minute, hour, day, month)", s)
}

// ParseRate parses a Caddyfile rate of quantity of: "60/minute", "2M/day"
// (k, M and G multiply by a thousand, a million and a billion),
// "25.50/month" for spend.
func ParseRate(of, s string) (Rate, error) {
	if _, err := ParseQuantity(of); err != nil {
		return Rate{}, err
	}
	num, per, ok := strings.Cut(s, "/")
	if !ok {
		return Rate{}, fmt.Errorf("%s %q: want <number>/<period>, such as 60/minute", of, s)
	}
	p, err := ParsePeriod(per)
	if err != nil {
		return Rate{}, err
	}
	mult := 1.0
	switch {
	case strings.HasSuffix(num, "k"), strings.HasSuffix(num, "K"):
		mult, num = 1e3, num[:len(num)-1]
	case strings.HasSuffix(num, "M"):
		mult, num = 1e6, num[:len(num)-1]
	case strings.HasSuffix(num, "G"):
		mult, num = 1e9, num[:len(num)-1]
	}
	n, err := strconv.ParseFloat(strings.TrimPrefix(num, "$"), 64)
	if err != nil || n < 0 {
		return Rate{}, fmt.Errorf("%s %q: %q is not a number", of, s, num)
	}
	return Rate{Of: of, Max: n * mult, Per: p.String()}, nil
}

// ruleID names a limit's counters: its scope and its model globs, so
// that limits that count different things never share a counter, and
// the same limit configured on several instances always does.
func ruleID(l *Limit) string {
	h := fnv.New64a()
	h.Write([]byte(l.Scope))
	for _, m := range l.Models {
		h.Write([]byte{0})
		h.Write([]byte(m))
	}
	return strconv.FormatUint(h.Sum64(), 36)
}
