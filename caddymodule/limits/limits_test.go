package limits

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/valkey-io/valkey-go"

	"github.com/llmbridge/llmbridge/caddymodule/state"
	"github.com/llmbridge/llmbridge/internal/valkeytest"
)

// at is a fixed moment in the middle of a minute, hour and day.
var at = time.Date(2026, 12, 7, 12, 30, 30, 0, time.UTC)

func TestParseRate(t *testing.T) {
	for _, tc := range []struct {
		of, in string
		want   Rate
		bad    bool
	}{
		{"requests", "60/minute", Rate{Of: "requests", Max: 60, Per: "minute"}, false},
		{"input_tokens", "2M/d", Rate{Of: "input_tokens", Max: 2e6, Per: "day"}, false},
		{"total_tokens", "100k/h", Rate{Of: "total_tokens", Max: 1e5, Per: "hour"}, false},
		{"spend", "25.50/month", Rate{Of: "spend", Max: 25.5, Per: "month"}, false},
		{"spend", "$3/mo", Rate{Of: "spend", Max: 3, Per: "month"}, false},
		{"requests", "60", Rate{}, true},
		{"requests", "x/minute", Rate{}, true},
		{"requests", "60/fortnight", Rate{}, true},
		{"bogus", "1/minute", Rate{}, true},
	} {
		got, err := ParseRate(tc.of, tc.in)
		if (err != nil) != tc.bad || !tc.bad && got != tc.want {
			t.Errorf("ParseRate(%q, %q) = %+v, %v; want %+v (error %v)", tc.of, tc.in, got, err, tc.want, tc.bad)
		}
	}
}

func TestWindows(t *testing.T) {
	for _, tc := range []struct {
		p          Period
		start, end time.Time
	}{
		{Second, at, at.Add(time.Second)},
		{Minute, at.Add(-30 * time.Second), at.Add(30 * time.Second)},
		{Hour, time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC), time.Date(2026, 12, 7, 13, 0, 0, 0, time.UTC)},
		{Day, time.Date(2026, 12, 7, 0, 0, 0, 0, time.UTC), time.Date(2026, 12, 8, 0, 0, 0, 0, time.UTC)},
		{Month, time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC), time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)},
	} {
		s, e := tc.p.window(at)
		if !s.Equal(tc.start) || !e.Equal(tc.end) {
			t.Errorf("%s window of %v: %v-%v, want %v-%v", tc.p, at, s, e, tc.start, tc.end)
		}
	}
}

// TestAdmit checks admission, refusal and settlement on a memory store:
// a requests cap admits exactly its number, a token budget admits while
// below its cap and is settled with the usage reported, a refused
// request reserves nothing, and other keys and models are counted apart.
func TestAdmit(t *testing.T) {
	ctx := context.Background()
	// The memory store forgets a counter by its own clock: the test's
	// windows are the real ones.
	at := time.Now()
	_, dayEnd := Day.window(at)
	set, err := New([]Limit{
		{Keys: []string{"alice"}, Rates: []Rate{{Of: "requests", Max: 3, Per: "day"}}},
		{Models: []string{"claude-*"}, Rates: []Rate{{Of: "total_tokens", Max: 1000, Per: "day"}, {Of: "spend", Max: 0.01, Per: "day"}}},
	}, state.NewMemory(0))
	if err != nil {
		t.Fatal(err)
	}
	var tk Ticket
	for i := range 3 {
		if r, err := set.Admit(ctx, &tk, "alice", "gpt-5", false, Estimate{}, at); r != nil || err != nil || !tk.Active() {
			t.Fatalf("request %d refused: %+v %v", i, r, err)
		}
		if err := tk.Settle(ctx, Usage{}); err != nil {
			t.Fatal(err)
		}
	}
	r, _ := set.Admit(ctx, &tk, "alice", "gpt-5", false, Estimate{}, at)
	if r == nil || r.Of != Requests || r.Per != Day || r.Max != 3 || r.Used != 3 || !r.Reset.Equal(dayEnd) {
		t.Fatalf("fourth request: %+v, want a refusal by requests/day 3 of 3, reset at the day's end", r)
	}
	if r, _ := set.Admit(ctx, &tk, "alice", "gpt-5", false, Estimate{}, dayEnd.Add(time.Second)); r != nil {
		t.Errorf("the next day's request was refused: %+v", r)
	}
	if r, _ := set.Admit(ctx, &tk, "bob", "gpt-5", false, Estimate{}, at); r != nil || tk.Active() {
		t.Errorf("bob is under no requests cap and no model cap for gpt-5: %+v active %v", r, tk.Active())
	}
	// bob's claude budget: 1,000 tokens a day, settled with the usage.
	if r, _ := set.Admit(ctx, &tk, "bob", "claude-sonnet-4-5", false, Estimate{Input: 300, Output: 600, Spend: 0.001}, at); r != nil {
		t.Fatalf("first claude request refused: %+v", r)
	}
	if err := tk.Settle(ctx, Usage{Known: true, Input: 200, Output: 100, Spend: 0.002, SpendKnown: true}); err != nil {
		t.Fatal(err)
	}
	reports, err := set.Report(ctx, []string{"bob"}, at)
	if err != nil {
		t.Fatal(err)
	}
	used := map[string]float64{}
	for _, rep := range reports {
		used[rep.Limit] = rep.Used
	}
	if used["total_tokens/day"] != 300 || used["spend/day"] != 0.002 {
		t.Errorf("after settlement: %v, want 300 tokens and $0.002", used)
	}
	// Admitted while below: the estimate may pass the cap once.
	if r, _ := set.Admit(ctx, &tk, "bob", "claude-sonnet-4-5", false, Estimate{Input: 2000, Output: 0}, at); r != nil {
		t.Fatalf("a request below the cap was refused: %+v", r)
	}
	r, _ = set.Admit(ctx, &tk, "bob", "claude-x", false, Estimate{Input: 1}, at)
	if r == nil || r.Of != TotalTokens {
		t.Fatalf("a request over the budget: %+v, want a total_tokens refusal", r)
	}
	// A failed request gives its reservation back.
	var big Ticket
	set2, _ := New([]Limit{{Rates: []Rate{{Of: "input_tokens", Max: 100, Per: "day"}}}}, state.NewMemory(0))
	if r, _ := set2.Admit(ctx, &big, "carol", "m", false, Estimate{Input: 150}, at); r != nil {
		t.Fatal("refused below the cap")
	}
	if r, _ := set2.Admit(ctx, &tk, "carol", "m", false, Estimate{Input: 1}, at); r == nil {
		t.Fatal("admitted over the cap before settlement")
	}
	if err := big.Settle(ctx, Usage{}); err != nil {
		t.Fatal(err)
	}
	if r, _ := set2.Admit(ctx, &tk, "carol", "m", false, Estimate{Input: 1}, at); r != nil {
		t.Errorf("refused after a failed request gave its reservation back: %+v", r)
	}
}

// TestStreams caps concurrent streams: a settled stream frees its place.
func TestStreams(t *testing.T) {
	ctx := context.Background()
	at := time.Now()
	set, err := New([]Limit{{Streams: 2}}, state.NewMemory(0))
	if err != nil {
		t.Fatal(err)
	}
	var a, b, c Ticket
	for _, tk := range []*Ticket{&a, &b} {
		if r, _ := set.Admit(ctx, tk, "k", "m", true, Estimate{}, at); r != nil {
			t.Fatalf("refused: %+v", r)
		}
	}
	if r, _ := set.Admit(ctx, &c, "k", "m", false, Estimate{}, at); r != nil {
		t.Errorf("a request that does not stream counts no stream: %+v", r)
	}
	if r, _ := set.Admit(ctx, &c, "k", "m", true, Estimate{}, at); r == nil || !r.Streams {
		t.Fatalf("third stream: %+v, want a streams refusal", r)
	}
	_ = a.Settle(ctx, Usage{Known: true})
	if r, _ := set.Admit(ctx, &c, "k", "m", true, Estimate{}, at); r != nil {
		t.Errorf("refused after a stream ended: %+v", r)
	}
}

func TestNewRejects(t *testing.T) {
	for _, l := range []Limit{
		{},
		{Streams: -1},
		{Rates: []Rate{{Of: "requests", Max: -1, Per: "minute"}}},
		{Rates: []Rate{{Of: "requests", Max: 1, Per: "week"}}},
		{Models: []string{"a**"}, Rates: []Rate{{Of: "requests", Max: 1, Per: "minute"}}},
	} {
		if _, err := New([]Limit{l}, state.NewMemory(0)); err == nil {
			t.Errorf("New(%+v) accepted", l)
		}
	}
}

func TestMatchGlob(t *testing.T) {
	for _, tc := range []struct {
		g, s string
		want bool
	}{
		{"claude-*", "claude-sonnet-4-5", true}, {"claude-*", "gpt-5", false}, {"*-mini", "gpt-5-mini", true},
		{"gpt-*-mini", "gpt-5.4-mini", true}, {"gpt-*-mini", "gpt-5", false}, {"exact", "exact", true}, {"*", "", true},
	} {
		if got := matchGlob(tc.g, tc.s); got != tc.want {
			t.Errorf("matchGlob(%q, %q) = %v", tc.g, tc.s, got)
		}
	}
}

// BenchmarkAdmitSettle measures a request under a requests cap and a
// token budget on the memory store: the check before the upstream call
// and the settlement after.
func BenchmarkAdmitSettle(b *testing.B) {
	ctx := context.Background()
	set, err := New([]Limit{{Rates: []Rate{{Of: "requests", Max: 1e12, Per: "minute"}, {Of: "total_tokens", Max: 1e15, Per: "day"}}}}, state.NewMemory(0))
	if err != nil {
		b.Fatal(err)
	}
	var tk Ticket
	now := time.Now()
	b.ReportAllocs()
	for b.Loop() {
		if r, err := set.Admit(ctx, &tk, "alice", "claude-sonnet-4-5", false, Estimate{Input: 1000, Output: 4096}, now); r != nil || err != nil {
			b.Fatal(r, err)
		}
		if err := tk.Settle(ctx, Usage{Known: true, Input: 900, Output: 300}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAdmitSettleValkey is BenchmarkAdmitSettle on a Valkey (or
// Redis) server on loopback: a round trip before the upstream call and
// one after it.
func BenchmarkAdmitSettleValkey(b *testing.B) {
	srv := valkeytest.Start(b)
	v, err := state.NewValkey(state.ValkeyOptions{Client: valkey.ClientOption{InitAddress: []string{srv.Addr}, DisableCache: true},
		Prefix: "bench:", Timeout: time.Second})
	if err != nil {
		b.Fatal(err)
	}
	defer v.Close()
	ctx := context.Background()
	set, err := New([]Limit{{Rates: []Rate{{Of: "requests", Max: 1e12, Per: "minute"}, {Of: "total_tokens", Max: 1e15, Per: "day"}}}}, v)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("serial", func(b *testing.B) {
		var tk Ticket
		b.ReportAllocs()
		for b.Loop() {
			if r, err := set.Admit(ctx, &tk, "alice", "m", false, Estimate{Input: 1000, Output: 4096}, time.Now()); r != nil || err != nil {
				b.Fatal(r, err)
			}
			if err := tk.Settle(ctx, Usage{Known: true, Input: 900, Output: 300}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("parallel", func(b *testing.B) {
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			var tk Ticket
			for pb.Next() {
				if r, err := set.Admit(ctx, &tk, "alice", "m", false, Estimate{Input: 1000, Output: 4096}, time.Now()); r != nil || err != nil {
					b.Fatal(r, err)
				}
				if err := tk.Settle(ctx, Usage{Known: true, Input: 900, Output: 300}); err != nil {
					b.Fatal(err)
				}
			}
		})
	})
}

// TestTicketRates reads what a ticket reserved, the caps of a key, and
// whether a set counts tokens.
func TestTicketRates(t *testing.T) {
	ctx := context.Background()
	now := time.Now()
	set, err := New([]Limit{
		{Keys: []string{"a"}, Rates: []Rate{{Of: "requests", Max: 10, Per: "hour"}, {Of: "spend", Max: 2.5, Per: "day"}}, Streams: 3},
		{Keys: []string{"b"}, Rates: []Rate{{Of: "output_tokens", Max: 100, Per: "m"}}},
	}, state.NewMemory(0))
	if err != nil {
		t.Fatal(err)
	}
	if !set.CountsTokens() {
		t.Error("a spend cap counts tokens")
	}
	var tk Ticket
	if r, _ := set.Admit(ctx, &tk, "a", "m", true, Estimate{Spend: 0.5}, now); r != nil {
		t.Fatal(r)
	}
	if tk.Rates() != 3 {
		t.Fatalf("%d counters reserved, want 3", tk.Rates())
	}
	of, per, streams, max, remaining, _ := tk.Rate(1)
	if of != Spend || per != Day || streams || max != 2.5 || remaining != 2 {
		t.Errorf("spend rate: %v %v %v %v %v", of, per, streams, max, remaining)
	}
	if _, _, streams, _, remaining, _ := tk.Rate(2); !streams || remaining != 2 {
		t.Errorf("streams: %v %v", streams, remaining)
	}
	var caps []string
	set.Caps("a", func(of Quantity, per Period, streams bool) {
		caps = append(caps, of.String()+per.String()+strconv.FormatBool(streams))
	})
	if len(caps) != 3 {
		t.Errorf("caps of a: %v", caps)
	}
	caps = nil
	set.Caps("c", func(Quantity, Period, bool) { caps = append(caps, "x") })
	if len(caps) != 0 {
		t.Errorf("c has no caps: %v", caps)
	}
	// Output tokens settle to the usage; a request spending more than
	// estimated settles up.
	if r, _ := set.Admit(ctx, &tk, "b", "m", false, Estimate{Output: 50}, now); r != nil {
		t.Fatal(r)
	}
	_ = tk.Settle(ctx, Usage{Known: true, Output: 70})
	reps, _ := set.Report(ctx, []string{"b"}, now)
	if len(reps) != 1 || reps[0].Used != 70 {
		t.Errorf("report %+v, want 70 output tokens", reps)
	}
	onlyRequests, _ := New([]Limit{{Rates: []Rate{{Of: "requests", Max: 1, Per: "s"}}}}, state.NewMemory(0))
	if onlyRequests.CountsTokens() {
		t.Error("a requests cap counts no tokens")
	}
	for _, p := range []string{"sec", "min", "h", "d", "mo", "second", "month"} {
		if _, err := ParsePeriod(p); err != nil {
			t.Errorf("ParsePeriod(%q): %v", p, err)
		}
	}
	if matchGlob("a*b*c", "axbyc") != true || matchGlob("a*b*c", "axbyd") || matchGlob("a*b", "xab") {
		t.Error("matchGlob")
	}
}
