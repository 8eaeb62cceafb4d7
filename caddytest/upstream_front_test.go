package caddytest

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"
)

// frontReadTimeout is reverse_proxy's transport read_timeout on the sites
// whose upstream is a front (testEnv.fronted): the longest reverse_proxy
// waits for the next bytes from the upstream.
const frontReadTimeout = 400 * time.Millisecond

// frontStallLimit bounds how long a front keeps a stalled request open when
// nobody closes it, so that a broken test cannot hang the suite.
const frontStallLimit = 30 * time.Second

// earlyHintsLink is the Link header a front sends with 103 Early Hints.
const earlyHintsLink = "</itest.css>; rel=preload; as=style"

// frontPlan is how a front answers, instead of simply passing the request
// to its mock.
type frontPlan struct {
	// interim are informational statuses (100, 103) sent before the
	// mock's answer; 103 carries earlyHintsLink.
	interim []int
	// stallBeforeHeaders reads the request and then sends nothing, keeping
	// the connection open.
	stallBeforeHeaders bool
	// stallJSONBody lets the mock answer, but sends only the first half of
	// a JSON body (with the whole body's Content-Length), then nothing
	// more, keeping the connection open.
	stallJSONBody bool
}

// frontUpstream sits in front of one protocol's mock upstream and changes
// how the mock's answer reaches reverse_proxy: informational responses
// first, or a connection that stops sending. A stalled streamed answer
// needs no front: the mock's stream hold (streamPlan.hold) never released
// is one. Requests reach the mock's own handler, which validates and
// records them as usual.
type frontUpstream struct {
	mock *mockUpstream
	srv  *httptest.Server

	mu      sync.Mutex
	plan    frontPlan
	release chan struct{} // closed by reset: every stalled answer ends
}

func newFrontUpstream(m *mockUpstream) *frontUpstream {
	f := &frontUpstream{mock: m, release: make(chan struct{})}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serveHTTP))
	return f
}

// addr is the front's host:port, for reverse_proxy.
func (f *frontUpstream) addr() string { return strings.TrimPrefix(f.srv.URL, "http://") }

// setPlan makes the front answer every request with p.
func (f *frontUpstream) setPlan(p frontPlan) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.plan = p
}

// reset restores plain passing on and ends every stalled answer.
func (f *frontUpstream) reset() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.plan = frontPlan{}
	close(f.release)
	f.release = make(chan struct{})
}

func (f *frontUpstream) serveHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	plan, release := f.plan, f.release
	f.mu.Unlock()
	// The mock compresses what the request accepts; the fronts cut
	// bodies by bytes, so they ask for none.
	r.Header.Del("Accept-Encoding")
	for _, code := range plan.interim {
		if code == http.StatusEarlyHints {
			w.Header().Set("Link", earlyHintsLink)
		}
		w.WriteHeader(code)
		w.Header().Del("Link")
	}
	if plan.stallBeforeHeaders {
		stall(r, release)
		return
	}
	if plan.stallJSONBody {
		w = &stallingWriter{ResponseWriter: w, r: r, release: release}
	}
	f.mock.serveHTTP(w, r)
}

// stall waits until the request's connection is closed, the front is
// reset, or frontStallLimit has passed.
func stall(r *http.Request, release <-chan struct{}) {
	timer := time.NewTimer(frontStallLimit)
	defer timer.Stop()
	select {
	case <-r.Context().Done():
	case <-release:
	case <-timer.C:
	}
}

// stallingWriter passes on the first half of a JSON body, flushes it, and
// then stalls: the rest never comes.
type stallingWriter struct {
	http.ResponseWriter
	r       *http.Request
	release <-chan struct{}
	stalled bool
}

// Write sends half of the first write of a JSON body and stalls; an event
// stream passes untouched.
func (sw *stallingWriter) Write(p []byte) (int, error) {
	if sw.stalled || isEventStreamHeader(sw.Header()) {
		return sw.ResponseWriter.Write(p)
	}
	sw.stalled = true
	n, err := sw.ResponseWriter.Write(p[:len(p)/2])
	if err == nil {
		err = http.NewResponseController(sw.ResponseWriter).Flush()
	}
	stall(sw.r, sw.release)
	if err == nil {
		err = http.ErrAbortHandler
	}
	return n, err
}
