package caddytest

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/tidwall/gjson"
)

// The end-to-end benchmark is off by default, so that go test ./... stays
// fast; perfCommand turns it on.
var (
	perfEnabled  = flag.Bool("perf", false, "run the end-to-end benchmark TestPerf (llmbridge next to plain reverse_proxy)")
	perfRounds   = flag.Int("perf.rounds", 5, "interleaved rounds of the end-to-end benchmark")
	perfN        = flag.Int("perf.n", 200, "non-streamed requests per side and round, for the latency at concurrency 1")
	perfStreams  = flag.Int("perf.streams", 40, "streams per side and round, for the time to first event")
	perfDuration = flag.Duration("perf.duration", 500*time.Millisecond, "how long each side runs per round, for the throughput")
	perfConc     = flag.Int("perf.c", 32, "concurrency of the throughput measurement")
	perfOpen     = flag.Int("perf.open", 1000, "concurrent open streams of the memory measurement")
	perfStrict   = flag.Bool("perf.strict", false, "fail TestPerf when a target is missed (by default it only reports)")
	perfOut      = flag.String("perf.out", "", "also write TestPerf's markdown table to this file")
)

// perfCommand is how TestPerf is run.
const perfCommand = "go test ./caddytest -run '^TestPerf$' -count=1 -v -perf -perf.rounds 5"

// Targets on a 2-core machine.
const (
	perfTargetAddedP50   = 50 * time.Microsecond  // 5 KB non-streamed, concurrency 1
	perfTargetThroughput = 0.90                   // of plain reverse_proxy, concurrency 32
	perfTargetAddedTTFE  = 100 * time.Microsecond // time to first event
	perfTargetMemory     = 16 << 20               // 1,000 open streams, Go memory over plain reverse_proxy
	perfTargetRSS        = 10_000_000             // 1,000 open streams, peak RSS over plain reverse_proxy

	perfTargetStreamThroughput = 0.95 // streams at concurrency 32, of plain's
	perfTargetStreamCPU        = 1.25 // process CPU per stream, at most this times plain's
)

// perfTargetCPU is, by body size, the most process CPU per request (the
// clients, Caddy and the mock) the bridge side may use, as a multiple of
// plain's.
var perfTargetCPU = map[string]float64{"5KB": 1.15, "90KB": 1.3, "1MB": 1.3}

// perfWarmup is how many requests of each kind each side makes before the
// first round, so that connections, pools and caches are warm.
const perfWarmup = 50

// perfStreamEventCounts are the streamed scenarios' text-delta counts.
var perfStreamEventCounts = []int{50, 500}

// TestPerf is the end-to-end benchmark: the same conversations through a
// plain reverse_proxy site (an openai-chat client) and an llmbridge site
// (an anthropic-messages client, translated to openai-chat) of the one
// in-process Caddy, both to the same fast mock upstream. Sides alternate
// within every round (plain, bridge; then bridge, plain), so that the
// machine's noise falls on both. It prints a markdown table of added
// latency, throughput ratio, time to first event and memory against the
// targets of docs/performance.md; it fails on a missed target only with
// -perf.strict.
func TestPerf(t *testing.T) {
	if !*perfEnabled {
		t.Skip("the end-to-end benchmark is off; run it with: " + perfCommand)
	}
	if *perfRounds < 1 || *perfN < 1 || *perfStreams < 1 || *perfConc < 1 || *perfOpen < 1 {
		t.Fatal("-perf.rounds, -perf.n, -perf.streams, -perf.c and -perf.open must be positive")
	}
	env := perfSetup(t)
	sides := [2]perfSide{sidePlain, sideBridge}

	// The scenarios, each a request per side.
	type scenario struct {
		name string
		req  [2]perfRequest
	}
	var sized, streams []scenario
	for _, s := range perfSizes() {
		sized = append(sized, scenario{s.name, [2]perfRequest{
			env.request(sidePlain, s.conv, false, perfModeJSON), env.request(sideBridge, s.conv, false, perfModeJSON)}})
	}
	streamConv := perfMediumConversation()
	for _, n := range perfStreamEventCounts {
		mode := perfStreamMode(n)
		streams = append(streams, scenario{strconv.Itoa(n) + " events", [2]perfRequest{
			env.request(sidePlain, streamConv, true, mode), env.request(sideBridge, streamConv, true, mode)}})
	}
	holdConv := perfMediumConversation()
	hold := [3]perfRequest{
		sidePlain:  env.request(sidePlain, holdConv, true, perfModeHold),
		sideBridge: env.request(sideBridge, holdConv, true, perfModeHold),
		sideDirect: env.request(sideDirect, holdConv, true, perfModeHold),
	}

	// Every request once, checked end to end, then the warm-up.
	for _, s := range sized {
		perfCheck(t, env, s.name, &s.req[0], &s.req[1], 0)
	}
	for i, s := range streams {
		perfCheck(t, env, s.name, &s.req[0], &s.req[1], perfStreamEventCounts[i])
	}
	if t.Failed() {
		t.FailNow()
	}
	var buf []byte
	for _, s := range append(slices.Clone(sized), streams...) {
		for i := range s.req {
			for range perfWarmup {
				var err error
				if _, buf, err = env.do(&s.req[i], buf); err != nil {
					t.Fatalf("warm-up %s %s: %v", s.name, s.req[i].side, err)
				}
			}
		}
	}

	var (
		latency    = make([][2][]time.Duration, len(sized))
		tput       = make([][2]perfThroughput, len(sized))
		streamPut  = make([][2]perfThroughput, len(streams))
		ttfe, full = make([][2][]time.Duration, len(streams)), make([][2][]time.Duration, len(streams))
		memory     [3][]perfMemory
	)
	start := time.Now()
	for round := range *perfRounds {
		order := sides
		if round%2 == 1 {
			order = [2]perfSide{sideBridge, sidePlain}
		}
		for i, s := range sized {
			for _, side := range order {
				for range *perfN {
					tm, b, err := env.do(&s.req[side], buf)
					buf = b
					if err != nil {
						t.Fatalf("round %d, %s %s: %v", round, s.name, side, err)
					}
					latency[i][side] = append(latency[i][side], tm.total)
				}
			}
		}
		for i, s := range streams {
			for _, side := range order {
				for range *perfStreams {
					tm, b, err := env.do(&s.req[side], buf)
					buf = b
					if err != nil {
						t.Fatalf("round %d, stream of %s %s: %v", round, s.name, side, err)
					}
					ttfe[i][side] = append(ttfe[i][side], tm.first)
					full[i][side] = append(full[i][side], tm.total)
				}
			}
		}
		for i, s := range sized {
			for _, side := range order {
				r, err := env.throughput(&s.req[side], *perfConc, *perfDuration)
				if err != nil {
					t.Fatalf("round %d, throughput %s %s: %v", round, s.name, side, err)
				}
				tput[i][side].add(r)
			}
		}
		for i, s := range streams {
			for _, side := range order {
				r, err := env.throughput(&s.req[side], *perfConc, *perfDuration)
				if err != nil {
					t.Fatalf("round %d, throughput of streams of %s %s: %v", round, s.name, side, err)
				}
				streamPut[i][side].add(r)
			}
		}
		for _, side := range []perfSide{sideDirect, order[0], order[1]} {
			m, err := env.openStreams(&hold[side], *perfOpen)
			if err != nil {
				t.Fatalf("round %d, %d open streams %s: %v", round, *perfOpen, side, err)
			}
			memory[side] = append(memory[side], m)
		}
		t.Logf("round %d of %d done after %v", round+1, *perfRounds, time.Since(start).Round(time.Millisecond))
	}

	// The table.
	var rows []perfRow
	for i, s := range sized {
		for _, q := range []float64{0.50, 0.99} {
			p, b := percentile(latency[i][sidePlain], q), percentile(latency[i][sideBridge], q)
			row := perfRow{
				scenario: fmt.Sprintf("%s non-streamed, c=1, p%.0f latency", s.name, q*100),
				plain:    fmtMicros(p), bridge: fmtMicros(b), delta: signed(fmtMicros(b - p)),
			}
			if s.name == "5KB" && q == 0.50 {
				row.target = "added <= " + fmtMicros(perfTargetAddedP50)
				row.setPass(b-p <= perfTargetAddedP50)
			}
			rows = append(rows, row)
		}
	}
	for i, s := range sized {
		p, b := tput[i][sidePlain].perSecond(), tput[i][sideBridge].perSecond()
		ratio := b / p
		row := perfRow{
			scenario: fmt.Sprintf("%s non-streamed, c=%d, throughput", s.name, *perfConc),
			plain:    fmt.Sprintf("%.0f req/s", p), bridge: fmt.Sprintf("%.0f req/s", b), delta: fmt.Sprintf("%.1f%%", ratio*100),
			target: fmt.Sprintf(">= %.0f%% of plain", perfTargetThroughput*100),
		}
		row.setPass(ratio >= perfTargetThroughput)
		rows = append(rows, row)
	}
	for i, s := range sized {
		p, b := tput[i][sidePlain].cpuPerRequest(), tput[i][sideBridge].cpuPerRequest()
		row := perfRow{
			scenario: fmt.Sprintf("%s non-streamed, c=%d, process CPU per request", s.name, *perfConc),
			plain:    fmtMicros(p), bridge: fmtMicros(b), delta: fmt.Sprintf("x%.2f", float64(b)/float64(p)),
		}
		if target, ok := perfTargetCPU[s.name]; ok {
			row.target = fmt.Sprintf("<= x%.2f of plain", target)
			row.setPass(float64(b) <= target*float64(p))
		}
		rows = append(rows, row)
	}
	for i, s := range streams {
		p, b := streamPut[i][sidePlain], streamPut[i][sideBridge]
		ratio := b.perSecond() / p.perSecond()
		row := perfRow{
			scenario: fmt.Sprintf("streams of %s, c=%d, throughput", s.name, *perfConc),
			plain:    fmt.Sprintf("%.0f streams/s", p.perSecond()), bridge: fmt.Sprintf("%.0f streams/s", b.perSecond()),
			delta: fmt.Sprintf("%.1f%%", ratio*100), target: fmt.Sprintf(">= %.0f%% of plain", perfTargetStreamThroughput*100),
		}
		row.setPass(ratio >= perfTargetStreamThroughput)
		rows = append(rows, row)
		cpu := float64(b.cpuPerRequest()) / float64(p.cpuPerRequest())
		row = perfRow{
			scenario: fmt.Sprintf("streams of %s, c=%d, process CPU per stream", s.name, *perfConc),
			plain:    fmtMicros(p.cpuPerRequest()), bridge: fmtMicros(b.cpuPerRequest()), delta: fmt.Sprintf("x%.2f", cpu),
			target: fmt.Sprintf("<= x%.2f of plain", perfTargetStreamCPU),
		}
		row.setPass(cpu <= perfTargetStreamCPU)
		rows = append(rows, row)
	}
	for i, s := range streams {
		p, b := percentile(ttfe[i][sidePlain], 0.5), percentile(ttfe[i][sideBridge], 0.5)
		row := perfRow{
			scenario: fmt.Sprintf("stream of %s, c=1, p50 time to first event", s.name),
			plain:    fmtMicros(p), bridge: fmtMicros(b), delta: signed(fmtMicros(b - p)),
			target: "added <= " + fmtMicros(perfTargetAddedTTFE),
		}
		row.setPass(b-p <= perfTargetAddedTTFE)
		rows = append(rows, row)
		p, b = percentile(full[i][sidePlain], 0.5), percentile(full[i][sideBridge], 0.5)
		rows = append(rows, perfRow{
			scenario: fmt.Sprintf("stream of %s, c=1, p50 whole stream", s.name),
			plain:    fmtMicros(p), bridge: fmtMicros(b), delta: signed(fmtMicros(b - p)),
		})
	}
	// Memory: each side's cost over what the clients and the mock cost on
	// their own (the direct run), i.e. what Caddy holds for the streams.
	direct := medianMemory(memory[sideDirect])
	plain, bridge := medianMemory(memory[sidePlain]), medianMemory(memory[sideBridge])
	rssName := "peak RSS"
	if !direct.peak {
		rssName = "RSS (current; the peak could not be reset)"
	}
	for _, m := range []struct {
		name   string
		direct int64
		p, b   int64
		target int64
		label  string
	}{
		{"Go heap + stacks in use", direct.inUse, plain.inUse, bridge.inUse, perfTargetMemory, fmt.Sprintf("added <= %d MiB", perfTargetMemory>>20)},
		{rssName, direct.rss, plain.rss, bridge.rss, perfTargetRSS, fmt.Sprintf("added <= %d MB", perfTargetRSS/1_000_000)},
	} {
		row := perfRow{
			scenario: fmt.Sprintf("%d open streams, %s over baseline", *perfOpen, m.name),
			plain:    fmtMiB(m.p - m.direct), bridge: fmtMiB(m.b - m.direct), delta: signed(fmtMiB(m.b - m.p)),
			target: m.label,
		}
		// The baseline is plain reverse_proxy holding the same streams, as
		// for every other target: Caddy's own connections, goroutines and
		// buffers (about 110 MiB for 1,000 streams here) are there with or
		// without llmbridge, and no plugin can give them back.
		row.setPass(m.b-m.p <= m.target)
		rows = append(rows, row)
	}

	var out strings.Builder
	fmt.Fprintf(&out, "\nllmbridge end-to-end benchmark: %s, GOMAXPROCS %d, %d CPUs; %d rounds in %v\n",
		runtime.Version(), runtime.GOMAXPROCS(0), runtime.NumCPU(), *perfRounds, time.Since(start).Round(time.Millisecond))
	fmt.Fprintf(&out, "bodies (plain Chat / bridge Anthropic bytes):")
	for _, s := range sized {
		fmt.Fprintf(&out, " %s %d/%d;", s.name, len(s.req[sidePlain].body), len(s.req[sideBridge].body))
	}
	fmt.Fprintf(&out, " streams %d/%d\n", len(streams[0].req[sidePlain].body), len(streams[0].req[sideBridge].body))
	fmt.Fprintf(&out, "per side and round: %d requests at c=1, %d streams, %v at c=%d, %d open streams\n", *perfN, *perfStreams, *perfDuration, *perfConc, *perfOpen)
	fmt.Fprintf(&out, "open streams over baseline (median of rounds; Go memory = heap + stacks, after a GC):\n")
	for _, side := range []perfSide{sideDirect, sidePlain, sideBridge} {
		m := medianMemory(memory[side])
		fmt.Fprintf(&out, "  %-6s Go %s (stacks %s), RSS %s, goroutines %+d\n", side, fmtMiB(m.inUse), fmtMiB(m.stacks), fmtMiB(m.rss), m.goroutines)
	}
	fmt.Fprintf(&out, "  (direct: the clients and the mock alone; the table subtracts it, leaving what Caddy holds)\n\n")
	writePerfTable(&out, rows)
	fmt.Fprint(os.Stdout, out.String())
	if *perfOut != "" {
		if err := os.WriteFile(*perfOut, []byte(out.String()), 0o644); err != nil {
			t.Errorf("writing -perf.out: %v", err)
		}
	}
	var missed []string
	for _, r := range rows {
		if r.pass != nil && !*r.pass {
			missed = append(missed, r.scenario)
		}
	}
	switch {
	case len(missed) == 0:
		t.Log("every target met")
	case *perfStrict:
		t.Errorf("targets missed: %s", strings.Join(missed, "; "))
	default:
		t.Logf("targets missed (reported only; -perf.strict fails on them): %s", strings.Join(missed, "; "))
	}
}

// perfCheck sends a scenario's request once on each side and checks the
// answers and what the mock received: the bridge's translated request must
// carry the same conversation (model, message and tool counts) as the
// plain side's Chat body, and streams must deliver every text delta.
func perfCheck(t *testing.T, env *perfEnv, name string, plain, bridge *perfRequest, events int) {
	t.Helper()
	captured := make(chan []byte, 1)
	env.mock.capture.Store(&captured)
	defer env.mock.capture.Store(nil)
	var upstream [2][]byte
	var answers [2][]byte
	for i, r := range []*perfRequest{plain, bridge} {
		_, b, err := env.do(r, nil)
		if err != nil {
			t.Errorf("%s %s: %v", name, r.side, err)
			return
		}
		answers[i] = b
		select {
		case upstream[i] = <-captured:
		default:
			t.Errorf("%s %s: the mock received no request", name, r.side)
			return
		}
	}
	for _, path := range []string{"model", "messages.#", "tools.#", "stream"} {
		if p, b := gjson.GetBytes(upstream[0], path).Raw, gjson.GetBytes(upstream[1], path).Raw; p != b {
			t.Errorf("%s: the upstream request's %s is %s from the bridge, %s from the plain side", name, path, b, p)
		}
	}
	t.Logf("%s: upstream request %d bytes from the plain side, %d from the bridge (client body %d)", name, len(upstream[0]), len(upstream[1]), len(bridge.body))
	if events == 0 {
		if got := gjson.GetBytes(answers[0], "choices.0.message.content").Str; got != perfAnswer {
			t.Errorf("%s plain: content %q, want %q", name, got, perfAnswer)
		}
		if got := gjson.GetBytes(answers[1], "content.0.text").Str; got != perfAnswer {
			t.Errorf("%s bridge: text %q, want %q", name, got, perfAnswer)
		}
		return
	}
	for i, p := range []proto{openaiChat, anthropicMsgs} {
		n := 0
		last, err := readClientStream(p, bytes.NewReader(answers[i]), func(s string) bool {
			if s == perfDelta {
				n++
			}
			return true
		})
		if err != nil || !isTerminalEvent(p, last) || n != events {
			t.Errorf("%s %s: %d text deltas of %q (want %d), last event %.200s, error %v", name, p, n, perfDelta, events, last, err)
		}
	}
}

// perfThroughput accumulates completed requests over time.
type perfThroughput struct {
	n       int64
	elapsed time.Duration
	// cpu is the CPU time the process used meanwhile: the clients, Caddy
	// and the mock, the same on both sides but for what Caddy does.
	cpu time.Duration
}

// add accumulates another measurement.
func (p *perfThroughput) add(q perfThroughput) { p.n += q.n; p.elapsed += q.elapsed; p.cpu += q.cpu }

// perSecond is the requests completed per second.
func (p perfThroughput) perSecond() float64 { return float64(p.n) / p.elapsed.Seconds() }

// cpuPerRequest is the process's CPU time per request completed.
func (p perfThroughput) cpuPerRequest() time.Duration { return p.cpu / time.Duration(max(p.n, 1)) }

// processCPU is the CPU time (user and system) the process has used.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// throughput runs c clients sending r back to back for d and returns how
// many requests completed in how long.
func (e *perfEnv) throughput(r *perfRequest, c int, d time.Duration) (perfThroughput, error) {
	var (
		n        atomic.Int64
		wg       sync.WaitGroup
		errOnce  sync.Once
		firstErr error
	)
	start, cpu := time.Now(), processCPU()
	end := start.Add(d)
	for range c {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var buf []byte
			for time.Now().Before(end) {
				var err error
				if _, buf, err = e.do(r, buf); err != nil {
					errOnce.Do(func() { firstErr = err })
					return
				}
				n.Add(1)
			}
		}()
	}
	wg.Wait()
	return perfThroughput{n: n.Load(), elapsed: time.Since(start), cpu: processCPU() - cpu}, firstErr
}

// perfMemory is what n open streams cost over the baseline before them.
type perfMemory struct {
	// inUse is the Go heap and goroutine stacks in use, after a
	// collection, with every stream open.
	inUse int64
	// rss is the peak resident set size while the streams opened and
	// were held (or the current one where the peak cannot be reset).
	rss int64
	// peak reports that rss is a peak.
	peak bool
	// stacks and goroutines are the goroutine stacks (part of inUse) and
	// the number of goroutines the open streams added.
	stacks     int64
	goroutines int
}

// memorySnapshot reads the Go memory in use and the resident set size.
func memorySnapshot() (inUse, stacks, rss int64) {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	inUse, stacks = int64(ms.HeapInuse+ms.StackInuse), int64(ms.StackInuse)
	if b, err := os.ReadFile("/proc/self/statm"); err == nil {
		if f := strings.Fields(string(b)); len(f) > 1 {
			pages, _ := strconv.ParseInt(f[1], 10, 64)
			rss = pages * int64(os.Getpagesize())
		}
	}
	return inUse, stacks, rss
}

// resetPeakRSS resets the kernel's peak resident set size of this process
// (VmHWM) to the current one, and reports whether it could.
func resetPeakRSS() bool {
	return os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) == nil
}

// peakRSS returns VmHWM, the peak resident set size, or 0.
func peakRSS() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for line := range strings.Lines(string(b)) {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// quiesce closes every idle connection on the client's and the mock's
// side (and so Caddy's ends of them), waits for their goroutines to end,
// collects the garbage and returns free memory to the OS.
func (e *perfEnv) quiesce() {
	e.client.Transport.(*http.Transport).CloseIdleConnections()
	e.mock.closeIdle()
	for prev, end := -1, time.Now().Add(3*time.Second); time.Now().Before(end); {
		n := runtime.NumGoroutine()
		if n == prev {
			break
		}
		prev = n
		time.Sleep(20 * time.Millisecond)
	}
	runtime.GC()
	debug.FreeOSMemory()
}

// openStreams opens n streams of r at once (the mock sends each one event
// and holds it), measures the memory they cost over the baseline before
// them, then releases and reads them to their ends.
func (e *perfEnv) openStreams(r *perfRequest, n int) (perfMemory, error) {
	e.quiesce()
	baseInUse, baseStacks, baseRSS := memorySnapshot()
	baseGoroutines := runtime.NumGoroutine()
	peak := resetPeakRSS()

	resps := make([]*http.Response, n)
	var (
		next     atomic.Int64
		wg       sync.WaitGroup
		errOnce  sync.Once
		firstErr error
	)
	fail := func(err error) { errOnce.Do(func() { firstErr = err }) }
	// Opened by a pool of workers, so that a 2-core machine is not asked
	// to dial a thousand connections in the same instant.
	for range min(64, n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			one := make([]byte, 1)
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				req, err := http.NewRequest(http.MethodPost, e.url[r.side], bytes.NewReader(r.body))
				if err != nil {
					fail(err)
					return
				}
				req.Header = r.header
				resp, err := e.client.Do(req)
				if err != nil {
					fail(err)
					return
				}
				resps[i] = resp
				if resp.StatusCode != http.StatusOK {
					fail(fmt.Errorf("%w: HTTP %d", errPerfAnswer, resp.StatusCode))
					return
				}
				if _, err := io.ReadFull(resp.Body, one); err != nil {
					fail(fmt.Errorf("reading the first event: %w", err))
					return
				}
			}
		}()
	}
	wg.Wait()
	var m perfMemory
	if firstErr == nil {
		for end := time.Now().Add(2 * time.Second); e.mock.held.Load() < int64(n) && time.Now().Before(end); {
			time.Sleep(5 * time.Millisecond)
		}
		if h := e.mock.held.Load(); h != int64(n) {
			fail(fmt.Errorf("the mock holds %d streams, want %d", h, n))
		}
		runtime.GC()
		inUse, stacks, rss := memorySnapshot()
		if peak {
			rss = max(rss, peakRSS())
		}
		m = perfMemory{inUse: inUse - baseInUse, rss: rss - baseRSS, peak: peak,
			stacks: stacks - baseStacks, goroutines: runtime.NumGoroutine() - baseGoroutines}
	}

	e.mock.releaseHeld()
	next.Store(0)
	for range min(64, n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var buf bytes.Buffer
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				resp := resps[i]
				if resp == nil {
					continue
				}
				buf.Reset()
				_, err := io.Copy(&buf, resp.Body)
				resp.Body.Close()
				if err != nil {
					fail(fmt.Errorf("reading a released stream: %w", err))
				} else if !bytes.Contains(buf.Bytes(), r.want) {
					fail(fmt.Errorf("%w: a released stream ends without %q: %.300s", errPerfAnswer, r.want, buf.Bytes()))
				}
			}
		}()
	}
	wg.Wait()
	e.quiesce()
	return m, firstErr
}

// medianMemory returns the median of each figure over the rounds.
func medianMemory(ms []perfMemory) perfMemory {
	med := func(get func(perfMemory) int64) int64 {
		v := make([]int64, 0, len(ms))
		for _, m := range ms {
			v = append(v, get(m))
		}
		slices.Sort(v)
		return v[len(v)/2]
	}
	peak := len(ms) > 0
	for _, m := range ms {
		peak = peak && m.peak
	}
	return perfMemory{
		inUse:      med(func(m perfMemory) int64 { return m.inUse }),
		rss:        med(func(m perfMemory) int64 { return m.rss }),
		stacks:     med(func(m perfMemory) int64 { return m.stacks }),
		goroutines: int(med(func(m perfMemory) int64 { return int64(m.goroutines) })),
		peak:       peak,
	}
}

// percentile returns the q-quantile (nearest rank) of ds.
func percentile(ds []time.Duration, q float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	i := int(q*float64(len(s)) + 0.5)
	return s[min(max(i-1, 0), len(s)-1)]
}

// fmtMicros formats d in microseconds.
func fmtMicros(d time.Duration) string {
	return strconv.FormatFloat(float64(d)/float64(time.Microsecond), 'f', 0, 64) + " µs"
}

// fmtMiB formats n bytes in MiB.
func fmtMiB(n int64) string { return strconv.FormatFloat(float64(n)/(1<<20), 'f', 1, 64) + " MiB" }

// signed puts a plus sign before a formatted difference that has none.
func signed(s string) string {
	if strings.HasPrefix(s, "-") {
		return s
	}
	return "+" + s
}

// perfRow is one line of TestPerf's table.
type perfRow struct {
	scenario, plain, bridge, delta, target string
	// pass is nil for a figure without a target.
	pass *bool
}

// setPass records whether the row meets its target.
func (r *perfRow) setPass(ok bool) { r.pass = &ok }

// writePerfTable writes rows as a markdown table.
func writePerfTable(w io.Writer, rows []perfRow) {
	fmt.Fprintln(w, "| scenario | plain | bridge | added / ratio | target | result |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---|---|")
	for _, r := range rows {
		result, target := "-", r.target
		if target == "" {
			target = "-"
		}
		if r.pass != nil {
			result = "pass"
			if !*r.pass {
				result = "FAIL"
			}
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s |\n", r.scenario, r.plain, r.bridge, r.delta, target, result)
	}
}
