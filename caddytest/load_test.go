package caddytest

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tidwall/gjson"
	"go.uber.org/goleak"
)

// The defaults are a short run that every `go test ./...` makes; .ci/run
// runs the full load (-load.clients 500 -load.duration 30s).
var (
	loadClients  = flag.Int("load.clients", 50, "concurrent clients of the load test")
	loadDuration = flag.Duration("load.duration", 5*time.Second, "how long the load test runs")
	// loadCancelLimit is how soon after a client cancels mid-stream the
	// upstream's request context must be cancelled. The target is 100 ms;
	// on a busy 2-core machine with 500 streams even plain net/http
	// without Caddy took 125-200 ms (measured), and -race slows the short
	// run, so the bound asserted is looser and the measured figures are
	// logged.
	loadCancelLimit = flag.Duration("load.cancel-limit", time.Second, "the longest a client cancel may take to reach the upstream")
)

const (
	// loadCancelEvery is how often one client cancels its stream mid-way.
	loadCancelEvery = time.Second
	// loadTextPieces makes the mocks' streams about 20 events long.
	loadTextPieces = 16
	// loadCancelMarker, followed by a number, marks a request the client
	// will cancel; the mocks hold those before their closing events.
	loadCancelMarker = "load-cancel-"
	// loadGoroutineSlack is how many goroutines above the baseline are
	// tolerated after the run. None: goleak decides, against the
	// goroutines that existed before it.
	loadGoroutineSlack = 0
)

// loadPair is one translated pair the load test rotates through.
type loadPair struct {
	client, upstream proto
	// bare: the pair goes through plain reverse_proxy, without llmbridge
	// (client and upstream speak one protocol), the baseline of the
	// cancellation delay.
	bare   bool
	url    string
	header http.Header
	body   []byte
	want   string
}

// TestLoadStreams runs -load.clients clients for -load.duration, each
// looping over streamed requests through Caddy (raw net/http, rotating
// over translated pairs) and checking every stream is complete with the
// expected text. Every loadCancelEvery one client cancels mid-stream; the
// mock must see its request context cancelled within loadCancelLimit.
// Cancellations alternate between pairs through llmbridge and pairs
// through plain reverse_proxy (env.bare), so that the delay llmbridge adds
// is measured against the machine's own under the same load, and both
// are logged. Afterwards the goroutines must be back to the baseline.
func TestLoadStreams(t *testing.T) {
	env := setup(t)
	pairs := []loadPair{
		{client: anthropicMsgs, upstream: openaiChat},
		{client: openaiChat, upstream: gemini},
		{client: openaiResponses, upstream: anthropicMsgs},
		{client: gemini, upstream: openaiResponses},
		{client: openaiChat, upstream: openaiChat, bare: true},
		{client: anthropicMsgs, upstream: anthropicMsgs, bare: true},
	}
	var holds sync.Map // marker number -> *streamHold
	holdFor := func(body []byte) *streamHold {
		i := bytes.Index(body, []byte(loadCancelMarker))
		if i < 0 {
			return nil
		}
		rest := body[i+len(loadCancelMarker):]
		j := 0
		for j < len(rest) && rest[j] >= '0' && rest[j] <= '9' {
			j++
		}
		h, ok := holds.Load(string(rest[:j]))
		if !ok {
			return nil
		}
		return h.(*streamHold)
	}
	for i := range pairs {
		pr := &pairs[i]
		rep := reply{Text: fmt.Sprintf("Load answer from the %s upstream: sixteen little pieces of text, streamed fast ✓", pr.upstream), Stop: "end", Usage: defaultUsage}
		pr.want = rep.Text
		env.mocks[pr.upstream].setReply(rep)
		env.mocks[pr.upstream].setStreamPlan(streamPlan{holdFor: holdFor, pieces: loadTextPieces})
		base := env.plain[pr.upstream]
		if pr.bare {
			base = env.bare[pr.upstream]
		}
		req := newClientStreamRequest(t, base, pr.client)
		pr.url, pr.header = req.URL.String(), req.Header
		b, err := io.ReadAll(req.Body)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(b, []byte(`"Hi"`)) {
			t.Fatalf("%s request body has no \"Hi\" to mark: %s", pr.client, b)
		}
		pr.body = b
	}

	tr := &http.Transport{DisableCompression: true, MaxIdleConns: 0, MaxIdleConnsPerHost: *loadClients + 16, IdleConnTimeout: time.Minute}
	client := &http.Client{Transport: tr}
	defer tr.CloseIdleConnections()

	closeIdleConnections(env)
	baseline, before := goleak.IgnoreCurrent(), runtime.NumGoroutine()

	// Peak heap, sampled in this process (which hosts Caddy and the mocks).
	var peakHeap uint64
	stopSampler := make(chan struct{})
	var samplerDone sync.WaitGroup
	samplerDone.Add(1)
	go func() {
		defer samplerDone.Done()
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			peakHeap = max(peakHeap, ms.HeapInuse)
			select {
			case <-stopSampler:
				return
			case <-tick.C:
			}
		}
	}()

	// Scheduling lag in this process: how late a 5 ms sleep wakes up. A
	// cancellation has to cross several goroutines (client transport,
	// Caddy's connection reader, the proxy's transport, the mock's
	// connection reader), each waiting for a CPU like this sleeper.
	var worstLag, sumLag time.Duration
	var lagSamples int64
	samplerDone.Add(1)
	go func() {
		defer samplerDone.Done()
		for {
			select {
			case <-stopSampler:
				return
			default:
			}
			t0 := time.Now()
			time.Sleep(5 * time.Millisecond)
			lag := time.Since(t0) - 5*time.Millisecond
			worstLag = max(worstLag, lag)
			sumLag += lag
			lagSamples++
		}
	}()

	var (
		total, cancels, seq atomic.Int64
		cancelWanted        atomic.Bool
		mu                  sync.Mutex
		errs                []string
		nErrs               int
		delays, bareDelays  []time.Duration
		cancelTurn          atomic.Int64
	)
	fail := func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		nErrs++
		if len(errs) < 20 {
			errs = append(errs, fmt.Sprintf(format, args...))
		}
	}

	start := time.Now()
	end := start.Add(*loadDuration)
	stopTicker := make(chan struct{})
	var tickerDone sync.WaitGroup
	tickerDone.Add(1)
	go func() {
		defer tickerDone.Done()
		tick := time.NewTicker(loadCancelEvery)
		defer tick.Stop()
		for {
			select {
			case <-stopTicker:
				return
			case <-tick.C:
				cancelWanted.Store(true)
			}
		}
	}()

	var wg sync.WaitGroup
	for c := range *loadClients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := c; time.Now().Before(end); i++ {
				pr := &pairs[i%len(pairs)]
				if time.Until(end) > time.Second && cancelWanted.CompareAndSwap(true, false) {
					cancels.Add(1)
					// Cancellations alternate between the pairs through
					// llmbridge and the bare ones, measured in the same
					// run under the same load.
					turn := cancelTurn.Add(1)
					wantBare := turn%2 == 0
					for k := int(turn); ; k++ {
						if pr = &pairs[k%len(pairs)]; pr.bare == wantBare {
							break
						}
					}
					d, err := loadCancelOne(client, pr, &holds, strconv.FormatInt(seq.Add(1), 10))
					if err != nil {
						fail("%s -> %s cancelled stream: %v", pr.client, pr.upstream, err)
					} else {
						mu.Lock()
						if pr.bare {
							bareDelays = append(bareDelays, d)
						} else {
							delays = append(delays, d)
						}
						mu.Unlock()
					}
					continue
				}
				total.Add(1)
				if err := loadOne(client, pr); err != nil {
					fail("%s -> %s: %v", pr.client, pr.upstream, err)
				}
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	close(stopTicker)
	tickerDone.Wait()

	var worst, median, bareMedian, bareWorst time.Duration
	slow := 0
	for _, d := range delays {
		worst = max(worst, d)
		if d > *loadCancelLimit {
			slow++
		}
	}
	if len(delays) > 0 {
		slices.Sort(delays)
		median = delays[len(delays)/2]
	}
	if len(bareDelays) > 0 {
		slices.Sort(bareDelays)
		bareMedian, bareWorst = bareDelays[len(bareDelays)/2], bareDelays[len(bareDelays)-1]
	}

	// Back to the baseline: close idle connections on both sides and let
	// their goroutines end.
	tr.CloseIdleConnections()
	closeIdleConnections(env)
	close(stopSampler)
	samplerDone.Wait()
	leak := awaitBaseline(baseline, before+loadGoroutineSlack, func() {
		tr.CloseIdleConnections()
		closeIdleConnections(env)
	})
	after := runtime.NumGoroutine()

	n := total.Load()
	t.Logf("load: %d clients for %v: %d requests (%.0f/s), %d errors, %d cancelled mid-stream (upstream cancellation delay: median %v, worst %v, %d over %v)",
		*loadClients, elapsed.Round(time.Millisecond), n, float64(n)/elapsed.Seconds(), nErrs, cancels.Load(), median, worst, slow, *loadCancelLimit)
	t.Logf("load: cancellation delay through llmbridge: median %v, worst %v (%d); through plain reverse_proxy at the same load: median %v, worst %v (%d); llmbridge adds %v at the median",
		median.Round(time.Millisecond), worst.Round(time.Millisecond), len(delays), bareMedian.Round(time.Millisecond), bareWorst.Round(time.Millisecond),
		len(bareDelays), (median - bareMedian).Round(time.Millisecond))
	t.Logf("load: peak heap in use %.1f MiB; goroutines %d before, %d after", float64(peakHeap)/(1<<20), before, after)
	if lagSamples > 0 {
		t.Logf("load: scheduling lag of a 5ms sleep during the run: mean %v, worst %v", (sumLag / time.Duration(lagSamples)).Round(time.Microsecond), worstLag.Round(time.Microsecond))
	}
	if nErrs > 0 {
		t.Errorf("%d of %d requests failed; the first ones:\n  %s", nErrs, n+cancels.Load(), strings.Join(errs, "\n  "))
	}
	if cancels.Load() == 0 && *loadDuration > loadCancelEvery+time.Second {
		t.Errorf("no client cancelled a stream")
	}
	if slow > 0 {
		t.Errorf("%d of %d cancellations reached the upstream later than %v (worst %v)", slow, len(delays), *loadCancelLimit, worst)
	}
	if leak != nil {
		t.Errorf("goroutines left behind after the load (%d before, %d after): %v", before, after, leak)
	}
}

// loadRequest builds a streamed request of pr, with marker (if any) in the
// user's text.
func loadRequest(ctx context.Context, pr *loadPair, marker string) (*http.Request, error) {
	body := pr.body
	if marker != "" {
		body = bytes.Replace(body, []byte(`"Hi"`), []byte(`"Hi `+loadCancelMarker+marker+`"`), 1)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, pr.url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header = pr.header.Clone()
	return req, nil
}

// loadOne makes one streamed request of pr and checks the whole stream.
func loadOne(client *http.Client, pr *loadPair) error {
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	req, err := loadRequest(ctx, pr, "")
	if err != nil {
		return err
	}
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return fmt.Errorf("HTTP %d: %s", resp.StatusCode, b)
	}
	var text strings.Builder
	last, err := readClientStream(pr.client, resp.Body, func(s string) bool { text.WriteString(s); return true })
	if err != nil {
		return fmt.Errorf("reading the stream: %w (text so far %q)", err, text.String())
	}
	if !isTerminalEvent(pr.client, last) {
		return fmt.Errorf("the stream does not end with the %s terminal event; last data %.300s", pr.client, last)
	}
	if text.String() != pr.want {
		return fmt.Errorf("text %q, want %q", text.String(), pr.want)
	}
	return nil
}

// loadCancelOne makes a streamed request of pr that the mock holds before
// its closing events, cancels it at its first text delta and returns how
// long the mock took to see its request context cancelled.
func loadCancelOne(client *http.Client, pr *loadPair, holds *sync.Map, marker string) (time.Duration, error) {
	hold := newStreamHold(holdTimeout)
	holds.Store(marker, hold)
	defer holds.Delete(marker)
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	req, err := loadRequest(ctx, pr, marker)
	if err != nil {
		return 0, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return 0, fmt.Errorf("HTTP %d: %s", resp.StatusCode, b)
	}
	var cancelledAt time.Time
	_, err = readClientStream(pr.client, resp.Body, func(string) bool {
		cancelledAt = time.Now()
		cancel()
		return false
	})
	if cancelledAt.IsZero() {
		return 0, fmt.Errorf("no text delta before the stream ended (err %v)", err)
	}
	// The hold ends by itself after holdTimeout: waiting a little longer
	// tells a slow cancellation (timed and reported) from none at all.
	outcome, endedAt, ok := hold.result(holdTimeout + time.Second)
	switch {
	case !ok:
		return 0, fmt.Errorf("the upstream's request was still running %v after the client cancelled", holdTimeout+time.Second)
	case outcome != holdCancelled:
		return 0, fmt.Errorf("the upstream's hold ended with %q, want its request context cancelled", outcome)
	}
	return max(endedAt.Sub(cancelledAt), 0), nil
}

// errStopped is what readClientStream returns when onText stopped it.
var errStopped = errors.New("stopped by the caller")

// readClientStream reads an SSE stream of client protocol p, calling
// onText with every text delta (it stops when onText returns false), and
// returns the last data payload.
func readClientStream(p proto, r io.Reader, onText func(string) bool) (string, error) {
	br := bufio.NewReaderSize(r, 16<<10)
	var last string
	for {
		line, err := br.ReadString('\n')
		if data, ok := strings.CutPrefix(strings.TrimRight(line, "\r\n"), "data:"); ok {
			data = strings.TrimSpace(data)
			last = data
			for _, s := range textDeltas(p, data) {
				if !onText(s) {
					return last, errStopped
				}
			}
		}
		if err == io.EOF {
			return last, nil
		}
		if err != nil {
			return last, err
		}
	}
}

// textDeltas returns the text a data payload of client protocol p carries.
func textDeltas(p proto, data string) []string {
	if !gjson.Valid(data) {
		return nil
	}
	root := gjson.Parse(data)
	var out []string
	switch p.family() {
	case openaiChat:
		if c := root.Get("choices.0.delta.content"); c.Type == gjson.String && c.Str != "" {
			out = append(out, c.Str)
		}
	case openaiResponses:
		if root.Get("type").Str == "response.output_text.delta" {
			out = append(out, root.Get("delta").Str)
		}
	case anthropicMsgs:
		if root.Get("type").Str == "content_block_delta" && root.Get("delta.type").Str == "text_delta" {
			out = append(out, root.Get("delta.text").Str)
		}
	case gemini:
		for _, part := range root.Get("candidates.0.content.parts").Array() {
			if s := part.Get("text").Str; s != "" && !part.Get("thought").Bool() {
				out = append(out, s)
			}
		}
	}
	return out
}

// isTerminalEvent reports whether data is the last event of a complete
// stream of client protocol p.
func isTerminalEvent(p proto, data string) bool {
	switch p.family() {
	case openaiChat:
		return data == "[DONE]"
	case openaiResponses:
		return gjson.Get(data, "type").Str == "response.completed"
	case anthropicMsgs:
		return gjson.Get(data, "type").Str == "message_stop"
	case gemini:
		return gjson.Get(data, "candidates.0.finishReason").Str == "STOP"
	}
	return false
}

// TestLoadFailover runs -load.clients clients for -load.duration through a
// failover site whose first target fails loadFailoverShare of its requests
// (half 529 overloaded, half a connection reset before the header): every
// stream must reach the client complete from one target or the other,
// with no error and no text twice, and the goroutines must be back to the
// baseline afterwards.
func TestLoadFailover(t *testing.T) {
	env, fe := setupFailover(t)
	env.mocks.resetAll(t)
	const text = "Load answer: sixteen little pieces of text, streamed fast, from whichever target ✓"
	for _, p := range failoverChains["anthropic"] {
		env.mocks[p].setReply(reply{Text: text, Stop: "end", Usage: defaultUsage})
		env.mocks[p].setStreamPlan(streamPlan{pieces: loadTextPieces})
	}
	first, second := fe.faulty[anthropicMsgs], fe.faulty[bedrockAnthropic]
	first.set(&targetFault{status: 529, header: errorHeader(anthropicMsgs, 529), body: nativeError(anthropicMsgs, 529, "Overloaded"),
		share: loadFailoverShare, mixReset: true})
	var pairs []loadPair
	for _, cp := range []proto{anthropicMsgs, openaiChat, openaiResponses, gemini} {
		req := newClientStreamRequest(t, fe.sites["anthropic"], cp)
		b, err := io.ReadAll(req.Body)
		if err != nil {
			t.Fatal(err)
		}
		pairs = append(pairs, loadPair{client: cp, upstream: anthropicMsgs, url: req.URL.String(), header: req.Header, body: b, want: text})
	}

	tr := &http.Transport{DisableCompression: true, MaxIdleConns: 0, MaxIdleConnsPerHost: *loadClients + 16, IdleConnTimeout: time.Minute}
	client := &http.Client{Transport: tr}
	defer tr.CloseIdleConnections()
	closeIdleConnections(env)
	baseline, before := goleak.IgnoreCurrent(), runtime.NumGoroutine()

	var (
		total atomic.Int64
		mu    sync.Mutex
		errs  []string
		nErrs int
	)
	start := time.Now()
	end := start.Add(*loadDuration)
	var wg sync.WaitGroup
	for c := range *loadClients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := c; time.Now().Before(end); i++ {
				pr := &pairs[i%len(pairs)]
				total.Add(1)
				if err := loadOne(client, pr); err != nil {
					mu.Lock()
					nErrs++
					if len(errs) < 20 {
						errs = append(errs, fmt.Sprintf("%s: %v", pr.client, err))
					}
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)

	closeAll := func() {
		tr.CloseIdleConnections()
		closeIdleConnections(env)
		for _, f := range fe.faulty {
			f.srv.CloseClientConnections()
		}
	}
	closeAll()
	leak := awaitBaseline(baseline, before, closeAll)
	n := total.Load()
	firstHits, _ := first.seen()
	secondHits, _ := second.seen()
	t.Logf("load failover: %d clients for %v: %d streams (%.0f/s), %d errors; the first target was tried %d times, the second answered %d (%.0f%% moved on); goroutines %d before, %d after",
		*loadClients, elapsed.Round(time.Millisecond), n, float64(n)/elapsed.Seconds(), nErrs, firstHits, secondHits,
		100*float64(secondHits)/float64(max(1, firstHits)), before, runtime.NumGoroutine())
	if nErrs > 0 {
		t.Errorf("%d of %d streams failed; the first ones:\n  %s", nErrs, n, strings.Join(errs, "\n  "))
	}
	if secondHits == 0 {
		t.Errorf("no request moved on to the second target")
	}
	if leak != nil {
		t.Errorf("goroutines left behind after the load: %v", leak)
	}
}

// awaitBaseline waits for the goroutines to be back to the baseline (n of
// them, and none that goleak finds beyond baseline), closing idle
// connections with closeAll while it waits; it returns what goleak still
// finds after 5 s.
func awaitBaseline(baseline goleak.Option, n int, closeAll func()) error {
	settle(n, 5*time.Second)
	for deadline := time.Now().Add(5 * time.Second); ; {
		leak := goleak.Find(append([]goleak.Option{baseline}, leakIgnores...)...)
		if leak == nil || time.Now().After(deadline) {
			return leak
		}
		closeAll()
	}
}

// loadFailoverShare is the share of requests the first target of
// TestLoadFailover fails.
const loadFailoverShare = 0.3
