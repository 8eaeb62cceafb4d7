package admission

import (
	"reflect"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"

	"github.com/llmbridge/llmbridge/caddymodule/limits"
)

// TestParseLimit reads every setting of a limit block and refuses what
// the block cannot mean.
func TestParseLimit(t *testing.T) {
	d := dispenser(`limit alice bob {
		models claude-* gpt-5*
		scope team
		requests 60/minute
		input_tokens 1M/day
		output_tokens 10k/hour
		total_tokens 2M/month
		spend 2.5/day
		streams 4
	}`)
	l, err := ParseLimit(d)
	if err != nil {
		t.Fatal(err)
	}
	want := limits.Limit{Keys: []string{"alice", "bob"}, Models: []string{"claude-*", "gpt-5*"}, Scope: "team", Streams: 4,
		Rates: []limits.Rate{{Of: "requests", Max: 60, Per: "minute"}, {Of: "input_tokens", Max: 1e6, Per: "day"},
			{Of: "output_tokens", Max: 1e4, Per: "hour"}, {Of: "total_tokens", Max: 2e6, Per: "month"}, {Of: "spend", Max: 2.5, Per: "day"}}}
	if !reflect.DeepEqual(l, want) {
		t.Errorf("parsed %+v\nwant   %+v", l, want)
	}
	for _, c := range []struct{ block, want string }{
		{"limit {\n models\n requests 1/day\n}", "wrong argument count"},
		{"limit {\n scope a b\n requests 1/day\n}", "wrong argument count"},
		{"limit {\n streams\n}", "wrong argument count"},
		{"limit {\n streams 0\n}", `streams: want a positive whole number, got "0"`},
		{"limit {\n requests\n}", "requests takes one rate, such as requests 60/minute"},
		{"limit {\n requests 1/fortnight\n}", "fortnight"},
		{"limit {\n tokens 1/day\n}", `unknown limit setting "tokens"`},
		{"limit {\n scope a\n}", "limit caps nothing"},
	} {
		if _, err := ParseLimit(dispenser(c.block)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.block, err, c.want)
		}
	}
}

// dispenser reads block as the llmbridge directive's subdirective, the
// dispenser at its first token as the handler's Caddyfile parsing gives
// it.
func dispenser(block string) *caddyfile.Dispenser {
	d := caddyfile.NewTestDispenser("llmbridge {\n" + block + "\n}")
	d.Next()
	d.NextBlock(0)
	return d
}
