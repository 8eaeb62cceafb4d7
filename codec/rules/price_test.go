package rules

import (
	"math"
	"strings"
	"testing"
)

// TestPriceCheck holds a configured price to a source, a date and finite,
// non-negative figures, and a row with like to keep its own price.
func TestPriceCheck(t *testing.T) {
	ok := Price{Input: 3, Output: 15, CacheRead: 0.3, CacheWrite: 3.75, Source: "https://example.com/pricing", Date: "2026-11-30"}
	for _, c := range []struct {
		name string
		edit func(*Price)
		want string
	}{
		{"complete", func(*Price) {}, ""},
		{"no source", func(p *Price) { p.Source = "" }, "source"},
		{"no date", func(p *Price) { p.Date = "" }, "date"},
		{"bad date", func(p *Price) { p.Date = "30.11.2026" }, "date"},
		{"negative", func(p *Price) { p.Output = -1 }, "not a price"},
		{"NaN", func(p *Price) { p.CacheRead = math.NaN() }, "not a price"},
	} {
		p := ok
		c.edit(&p)
		_, err := Builtin().With([]Rule{{Provider: "openai", Models: []string{"my-model"}, Price: &p}})
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: error %v, want one about %s", c.name, err, c.want)
		}
	}
	tab, err := Builtin().With([]Rule{{Provider: "openai", Models: []string{"my-gpt"}, Like: "gpt-5", Price: &ok}})
	if err != nil {
		t.Fatal(err)
	}
	r := tab.Lookup("openai", "my-gpt")
	if r == nil || r.Price == nil || *r.Price != ok || r.Reasoning == "" {
		t.Fatalf("a row with like and a price: %+v", r)
	}
}
