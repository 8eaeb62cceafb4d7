package failover

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"go.uber.org/zap"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/mapping"
)

// TestFailoverWriterEdges drives the writer directly through what the
// targets rarely do: write nothing, send informational statuses, hold a
// stream past maxHold, end a stream with an error that moves nothing on.
func TestFailoverWriterEdges(t *testing.T) {
	fs := &Site{Logger: zap.NewNop(), breaker: Breaker{Failures: 1 << 30, Window: time.Second, Period: time.Second}}
	fs.retry[502-400] = true
	tg := &Target{name: "edge", state: StateOf("edge-" + t.Name()), header: []string{"edge"}, ok: attemptsTotal.WithLabelValues("edge", "ok")}
	fs.targets = []*Target{tg}
	begin := func(last bool) (*Writer, *httptest.ResponseRecorder) {
		rec := httptest.NewRecorder()
		fw := getWriter(rec, fs)
		fw.begin(tg, 1, last)
		return fw, rec
	}

	// Nothing written, an error that moves on, then one that does not.
	fw, _ := begin(false)
	if done, _ := fw.end(caddyhttp.Error(http.StatusBadGateway, io.EOF)); done || !fw.failed {
		t.Errorf("a 502 error with nothing written did not move on")
	}
	fw.begin(tg, 2, false)
	if done, err := fw.end(caddyhttp.Error(http.StatusNotFound, io.EOF)); !done || err == nil {
		t.Errorf("a 404 error with nothing written: done %v, err %v", done, err)
	}
	putWriter(fw)

	// Informational statuses are held back while the answer is.
	fw, rec := begin(false)
	fw.WriteHeader(http.StatusEarlyHints)
	if rec.Code != 200 || rec.Flushed {
		t.Errorf("a 103 reached the client while the answer was held")
	}
	// A stream without content past maxHold is passed on.
	fw.HoldStream()
	fw.WriteHeader(200)
	_, _ = fw.Write(make([]byte, maxHold+1))
	if !fw.committed || rec.Body.Len() != maxHold+1 {
		t.Errorf("a stream held past maxHold was not passed on (%d bytes)", rec.Body.Len())
	}
	if err := fw.FlushError(); err != nil {
		t.Errorf("flush: %v", err)
	}
	putWriter(fw)

	// An in-stream error that moves nothing on (a refusal) commits.
	fw, rec = begin(false)
	fw.HoldStream()
	fw.WriteHeader(200)
	_, _ = fw.WriteString("event: start\n\n")
	fw.Observe(&codec.Event{Type: codec.EventError, Err: &codec.Error{Status: 400, Kind: mapping.ErrInvalidRequest, Message: "no"}})
	if !fw.committed || fw.failed || !strings.Contains(rec.Body.String(), "event: start") {
		t.Errorf("a 400 in-stream error: committed %v, failed %v", fw.committed, fw.failed)
	}
	putWriter(fw)

	// The last target passes 1xx on.
	fw, rec = begin(true)
	fw.WriteHeader(http.StatusContinue)
	fw.WriteHeader(200)
	if rec.Header().Get(UpstreamHeader) != "edge" {
		t.Errorf("last: %d %v", rec.Code, rec.Header())
	}
	putWriter(fw)
	if err := Flush(struct{ http.ResponseWriter }{rec}); err != http.ErrNotSupported {
		t.Errorf("flush of a writer that cannot: %v", err)
	}
}

// TestRetryAfterSoonest: the last target's failure, when every other
// target cools, says when to come back: the soonest end, its own coming
// cooldown included.
func TestRetryAfterSoonest(t *testing.T) {
	names := []string{"soonest-a-" + t.Name(), "soonest-b-" + t.Name()}
	fs := NewSite(&Config{Targets: names, Cooldown: caddy.Duration(time.Minute), MaxCooldown: caddy.Duration(time.Hour)}, zap.NewNop())
	for i, name := range names {
		fs.targets = append(fs.targets, &Target{name: name, index: i, state: StateOf(name), header: []string{name}, ok: attemptsTotal.WithLabelValues(name, "ok")})
	}
	fs.targets[0].state.Reset()
	fs.targets[1].state.Reset()
	fs.targets[0].state.CoolUntil(time.Now().Add(7 * time.Second).UnixNano())
	fs.targets[1].state.OpenUntil(time.Now().Add(3 * time.Second).UnixNano())
	fw := getWriter(httptest.NewRecorder(), fs)
	fw.begin(fs.targets[1], 1, true)
	fw.WriteHeader(529)
	// The failing target's own cooldown (the site's minute, for a 529
	// that names no time) outlasts its open circuit: the other's 7 s is
	// the soonest.
	if got := fw.w.Header().Get("Retry-After"); got != "7" {
		t.Errorf("Retry-After %q, want the soonest end, 7", got)
	}
	if n, err := fw.WriteString("held"); n != 4 || err != nil {
		t.Errorf("WriteString = %d, %v", n, err)
	}
	putWriter(fw)
}
