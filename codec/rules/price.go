package rules

import (
	"errors"
	"fmt"
	"math"
	"time"
)

// Price is what a model's tokens cost, in US dollars per million tokens,
// as a provider's price list stated it on Date.
type Price struct {
	// Input is the price of prompt tokens neither read from nor written
	// to a cache.
	Input float64 `json:"input"`
	// Output is the price of generated tokens, reasoning included.
	Output float64 `json:"output"`
	// CacheRead is the price of prompt tokens read from a cache; zero
	// takes Input.
	CacheRead float64 `json:"cache_read,omitempty"`
	// CacheWrite is the price of prompt tokens written to a cache; zero
	// takes Input.
	CacheWrite float64 `json:"cache_write,omitempty"`
	// Source is the price list the figures come from (a URL).
	Source string `json:"source"`
	// Date is the day the figures were read from Source, as YYYY-MM-DD.
	Date string `json:"date"`
}

// check reports a price without its source or date, or with a negative
// or non-finite figure.
func (p *Price) check() error {
	for _, v := range [...]float64{p.Input, p.Output, p.CacheRead, p.CacheWrite} {
		if v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("price: %v is not a price per million tokens", v)
		}
	}
	if p.Source == "" {
		return errors.New("price: a source (the price list's URL) is required")
	}
	if _, err := time.Parse(time.DateOnly, p.Date); err != nil {
		return fmt.Errorf("price: date %q is not a day such as 2026-11-30", p.Date)
	}
	return nil
}
