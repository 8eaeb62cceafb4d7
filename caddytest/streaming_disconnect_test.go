package caddytest

import (
	"context"
	"errors"
	"net/http"
	"runtime"
	"slices"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// cancelPropagationLimit is how soon after a client cancels its stream the
// upstream request's context must be cancelled.
const cancelPropagationLimit = 2 * time.Second

// TestStreamingClientDisconnect has every client SDK cancel its context in
// the middle of a stream, on every upstream (translated and passthrough
// pairs), while the upstream holds back the rest of its answer: the
// upstream request's context must be cancelled within
// cancelPropagationLimit (the delays are logged), and no goroutine may be
// left behind, checked with goleak against the goroutines that existed
// before the call.
func TestStreamingClientDisconnect(t *testing.T) {
	env := setup(t)
	clients := streamingClients()
	var delays []time.Duration
	for _, cp := range allProtocols {
		for _, up := range allProtocols {
			t.Run(pairName(cp, up), func(t *testing.T) {
				env.mocks.resetAll(t)
				if d, ok := runDisconnect(t, env, clients[cp], up); ok {
					delays = append(delays, d)
				}
			})
		}
	}
	if len(delays) > 0 {
		slices.Sort(delays)
		t.Logf("client cancel -> upstream request context cancelled, over %d pairs: min %v, median %v, max %v",
			len(delays), delays[0], delays[len(delays)/2], delays[len(delays)-1])
	}
}

// leakIgnores are the goroutines that may legitimately outlive one
// streaming call. Everything process-wide (the in-process Caddy with its
// admin API, servers and reverse_proxy transport, the mock upstreams'
// servers, keep-alive connections earlier tests left idle) is already
// running when goleak.IgnoreCurrent is taken before the call, and the
// call's own connections are closed by the cancellation or, for the client
// side, by closing the call's transport. The one exception is Caddy's file
// log writer (timberjack), which starts its rotation worker on a file
// log's first write and keeps it for the log's life: the test sites with
// access logs to files start it whenever a call first writes to them. Any
// other goroutine that starts during the call and is still running
// afterwards is a leak.
var leakIgnores = []goleak.Option{goleak.IgnoreTopFunction("github.com/DeRuina/timberjack.(*Logger).millRun")}

// closeIdleConnections closes every keep-alive connection the suite holds
// idle: the SDKs' default client (http.DefaultTransport), the streaming
// and raw transports and, from the mocks' side, Caddy's reverse_proxy
// connections to the upstreams (which closes Caddy's end of them and, in
// turn, Caddy's server side of the client connections). It then waits for
// the goroutines of those connections to end.
func closeIdleConnections(env *testEnv) {
	http.DefaultTransport.(*http.Transport).CloseIdleConnections()
	sdkTransport.CloseIdleConnections()
	rawHTTP.CloseIdleConnections()
	for _, m := range env.mocks {
		m.srv.CloseClientConnections()
	}
	for prev, end := -1, time.Now().Add(2*time.Second); time.Now().Before(end); {
		n := runtime.NumGoroutine()
		if n == prev {
			return
		}
		prev = n
		time.Sleep(10 * time.Millisecond)
	}
}

// settle waits up to d for the number of goroutines to fall back to n:
// the connections a cancelled stream closes take a few tens of
// milliseconds to wind down (net/http lingers on a closed connection),
// which goleak would otherwise spend backing off. goleak still decides.
func settle(n int, d time.Duration) {
	for end := time.Now().Add(d); runtime.NumGoroutine() > n && time.Now().Before(end); {
		time.Sleep(2 * time.Millisecond)
	}
}

// runDisconnect makes one streaming call that the client cancels at its
// first text delta, and returns how long the upstream took to see its
// request cancelled.
func runDisconnect(t *testing.T, env *testEnv, c streamingClient, up proto) (time.Duration, bool) {
	cp := c.protocol()
	name := pairName(cp, up) + " client cancels mid-stream"
	m := env.mocks[up]
	m.setReply(streamingReply(up, "end"))

	// A transport of the call's own, closed afterwards, so that none of
	// its keep-alive goroutines outlive the call; everything already
	// running is not this call's doing.
	tr := newSDKTransport()
	defer tr.CloseIdleConnections()
	// Every idle keep-alive connection is closed first, so that the
	// baseline holds only the process-wide goroutines and none of the
	// per-connection ones that could be reused or replaced during the call.
	closeIdleConnections(env)
	baseline, running := goleak.IgnoreCurrent(), runtime.NumGoroutine()

	// The upstream holds back its closing events until its request is
	// cancelled; holdTimeout ends it otherwise, which the test reports.
	hold := newStreamHold(holdTimeout)
	m.setStreamPlan(streamPlan{hold: hold})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var cancelledAt time.Time
	deadline := time.AfterFunc(callTimeout, cancel) // a hung call must still end
	res, err := c.stream(ctx, env.plain[up], sharedConversation(cp.defaultModel()), streamOptions{
		transport: tr,
		onText: func(string) {
			if cancelledAt.IsZero() {
				cancelledAt = time.Now()
				cancel()
			}
		},
	})
	deadline.Stop()
	if cancelledAt.IsZero() {
		t.Fatalf("%s: no text delta arrived (err %v, text %q); the client never got to cancel", name, err, res.Text)
	}
	if err == nil {
		t.Errorf("%s: the SDK reported a complete stream (text %q) after its context was cancelled", name, res.Text)
	} else if !errors.Is(err, context.Canceled) {
		t.Logf("%s: the SDK's error after cancelling: %s", name, describeStreamErr(err))
	}

	outcome, endedAt, ok := hold.result(cancelPropagationLimit + time.Second)
	var delay time.Duration
	switch {
	case !ok:
		t.Errorf("%s: the upstream's request was still running %v after the client cancelled", name, cancelPropagationLimit+time.Second)
	case outcome != holdCancelled:
		t.Errorf("%s: the upstream's hold ended with %q, want its request context cancelled", name, outcome)
	default:
		delay = endedAt.Sub(cancelledAt)
		if delay > cancelPropagationLimit {
			t.Errorf("%s: the upstream's request context was cancelled %v after the client cancelled; want under %v", name, delay, cancelPropagationLimit)
		}
	}

	tr.CloseIdleConnections()
	settle(running, time.Second)
	if err := goleak.Find(append([]goleak.Option{baseline}, leakIgnores...)...); err != nil {
		t.Errorf("%s: goroutines left behind after the cancelled stream: %v", name, err)
	}
	return delay, ok && outcome == holdCancelled
}
