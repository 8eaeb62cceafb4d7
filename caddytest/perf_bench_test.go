package caddytest

import (
	"runtime"
	"strconv"
	"testing"
	"time"
)

// perfBenchSides are the sides every end-to-end benchmark compares, run as
// sub-benchmarks named plain, bridge and passthrough (an openai-chat client
// on the llmbridge site: no translation): compare them with benchstat.
var perfBenchSides = []perfSide{sidePlain, sideBridge, sidePassthrough}

// BenchmarkE2E measures one non-streamed request at concurrency 1, client
// to mock upstream through Caddy: plain reverse_proxy (openai-chat client)
// against llmbridge + reverse_proxy (anthropic-messages client translated
// to openai-chat), for the ~1 KB, ~5 KB and ~90 KB bodies.
func BenchmarkE2E(b *testing.B) {
	env := perfSetup(b)
	for _, s := range perfSizes() {
		for _, side := range perfBenchSides {
			r := env.request(side, s.conv, false, perfModeJSON)
			b.Run(s.name+"/"+side.String(), func(b *testing.B) {
				var buf []byte
				b.SetBytes(int64(len(r.body)))
				b.ReportAllocs()
				for b.Loop() {
					var err error
					if _, buf, err = env.do(&r, buf); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkE2EParallel measures the same requests as BenchmarkE2E from 32
// concurrent clients (with GOMAXPROCS 2; b.RunParallel's goroutines are a
// multiple of GOMAXPROCS, so it is the first multiple at or above 32).
func BenchmarkE2EParallel(b *testing.B) {
	env := perfSetup(b)
	for _, s := range perfSizes() {
		for _, side := range perfBenchSides {
			r := env.request(side, s.conv, false, perfModeJSON)
			b.Run(s.name+"/"+side.String(), func(b *testing.B) {
				b.SetParallelism(perfParallelism(32))
				b.SetBytes(int64(len(r.body)))
				b.ReportAllocs()
				b.RunParallel(func(pb *testing.PB) {
					var buf []byte
					for pb.Next() {
						var err error
						if _, buf, err = env.do(&r, buf); err != nil {
							b.Error(err)
							return
						}
					}
				})
			})
		}
	}
}

// BenchmarkE2EStream measures one streamed request of 50 or 500 text
// deltas (the 5 KB conversation) at concurrency 1: ns/op is the whole
// stream, and the ttfe-ns metric the mean time to the first byte of its
// first event (the mock sends the rest once the client has read it).
func BenchmarkE2EStream(b *testing.B) {
	env := perfSetup(b)
	conv := perfMediumConversation()
	for _, n := range perfStreamEventCounts {
		for _, side := range perfBenchSides {
			r := env.request(side, conv, true, perfStreamMode(n))
			b.Run(strconv.Itoa(n)+"events/"+side.String(), func(b *testing.B) {
				var buf []byte
				var first time.Duration
				b.ReportAllocs()
				for b.Loop() {
					t, out, err := env.do(&r, buf)
					if err != nil {
						b.Fatal(err)
					}
					buf = out
					first += t.first
				}
				b.ReportMetric(float64(first.Nanoseconds())/float64(b.N), "ttfe-ns")
			})
		}
	}
}

// perfParallelism is the b.SetParallelism factor that gives at least c
// goroutines.
func perfParallelism(c int) int {
	p := runtime.GOMAXPROCS(0)
	return (c + p - 1) / p
}
