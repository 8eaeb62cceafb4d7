package caddytest

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"
)

// perfHoldSizes are the answer sizes of TestPerfPassthroughHold: a chat
// answer, a long one, and large ones up to the hold bound (8 MiB).
var perfHoldSizes = []int{1 << 10, 64 << 10, 1 << 20, 8<<20 - 4096}

// TestPerfPassthroughHold measures what checking passthrough answers
// costs: a passthrough holds a non-streamed body back until it is complete
// and checks it before passing it on. The same openai-chat request goes
// through plain reverse_proxy and through llmbridge as a passthrough (an
// openai-chat client of an openai-chat upstream), with answers of several
// sizes, sides alternating within every round. It reports the latency at
// concurrency 1 (p50, p99), the throughput at concurrency 8 and the Go
// memory allocated per request (the whole process: clients, Caddy and
// mock, the same on both sides but for what llmbridge adds). Off by
// default, like TestPerf.
func TestPerfPassthroughHold(t *testing.T) {
	if !*perfEnabled {
		t.Skip("the end-to-end benchmark is off; run it with: go test ./caddytest -run '^TestPerfPassthroughHold$' -count=1 -v -perf")
	}
	env := perfSetup(t)
	conv := perfMediumConversation()
	sides := [2]perfSide{sidePlain, sidePassthrough}
	type result struct {
		lat   [2][]time.Duration
		tput  [2]perfThroughput
		alloc [2]uint64
		reqs  [2]uint64
	}
	results := make([]result, len(perfHoldSizes))
	reqs := make([][2]perfRequest, len(perfHoldSizes))
	for i, size := range perfHoldSizes {
		for j, side := range sides {
			reqs[i][j] = env.request(side, conv, false, perfSizedMode(size))
		}
	}
	var buf []byte
	for i := range reqs {
		for j := range reqs[i] {
			for range 10 {
				var err error
				if _, buf, err = env.do(&reqs[i][j], buf); err != nil {
					t.Fatalf("warm-up %d bytes %s: %v", perfHoldSizes[i], sides[j], err)
				}
			}
		}
	}
	n := max(10, *perfN/4)
	start := time.Now()
	for round := range *perfRounds {
		order := [2]int{0, 1}
		if round%2 == 1 {
			order = [2]int{1, 0}
		}
		for i := range reqs {
			for _, j := range order {
				var before, after runtime.MemStats
				runtime.ReadMemStats(&before)
				for range n {
					tm, b, err := env.do(&reqs[i][j], buf)
					buf = b
					if err != nil {
						t.Fatalf("round %d, %d bytes %s: %v", round, perfHoldSizes[i], sides[j], err)
					}
					results[i].lat[j] = append(results[i].lat[j], tm.total)
				}
				runtime.ReadMemStats(&after)
				results[i].alloc[j] += after.TotalAlloc - before.TotalAlloc
				results[i].reqs[j] += uint64(n)
				r, err := env.throughput(&reqs[i][j], 8, *perfDuration)
				if err != nil {
					t.Fatalf("round %d, throughput %d bytes %s: %v", round, perfHoldSizes[i], sides[j], err)
				}
				results[i].tput[j].add(r)
			}
		}
	}
	var out strings.Builder
	fmt.Fprintf(&out, "\npassthrough hold cost: %s, GOMAXPROCS %d; %d rounds of %d requests per side and size in %v\n\n",
		runtime.Version(), runtime.GOMAXPROCS(0), *perfRounds, n, time.Since(start).Round(time.Millisecond))
	fmt.Fprintln(&out, "| answer | plain p50 | passthrough p50 | plain p99 | passthrough p99 | throughput c=8 (passthrough / plain) | allocated per request plain / passthrough |")
	fmt.Fprintln(&out, "|---:|---:|---:|---:|---:|---:|---:|")
	for i, size := range perfHoldSizes {
		r := results[i]
		fmt.Fprintf(&out, "| %s | %s | %s | %s | %s | %.0f / %.0f req/s (%.1f%%) | %s / %s |\n",
			fmtBytes(size),
			fmtMicros(percentile(r.lat[0], 0.5)), fmtMicros(percentile(r.lat[1], 0.5)),
			fmtMicros(percentile(r.lat[0], 0.99)), fmtMicros(percentile(r.lat[1], 0.99)),
			r.tput[1].perSecond(), r.tput[0].perSecond(), 100*r.tput[1].perSecond()/r.tput[0].perSecond(),
			fmtBytes(int(r.alloc[0]/r.reqs[0])), fmtBytes(int(r.alloc[1]/r.reqs[1])))
	}
	fmt.Fprint(os.Stdout, out.String())
}

// fmtBytes formats n bytes in KiB or MiB.
func fmtBytes(n int) string {
	if n >= 1<<20 {
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
}
