package failover

import (
	"errors"
	"io"
	"maps"
	"net/http"
	"sync"
	"time"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"go.uber.org/zap"

	"github.com/llmbridge/llmbridge/caddymodule/internal/pool"
	"github.com/llmbridge/llmbridge/caddymodule/observe"
	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/mapping"
)

// maxHold bounds what a Writer holds of a stream before its first
// content event: the events before it (a start, a ping) are small, and a
// stream that sends more without content is passed on as it is.
const maxHold = 1 << 20

// Writer is the response writer a failover site hands each
// attempt. While targets remain after the attempt's, it holds the answer
// until it is known to be the one the client gets:
//
//   - a failover status (429, 5xx, configured ones) is held and dropped
//     when the request moves on;
//   - any other status is the answer: written at once;
//   - a 2xx stream is held, header included, until its first content
//     event, then written; an error event before any content makes it a
//     failure like a failover status.
//
// The target's llmbridge finds the writer as its response writer and
// tells it what it cannot see in the bytes: the upstream's own status
// (NoteUpstream), that the answer is a stream (HoldStream), and its
// events (observe) until the first content.
//
// The last available target's attempt (holding nothing) passes
// everything through, adding the failover headers and, when it fails,
// Retry-After from the soonest moment a target can be tried again: so
// the client gets the last failure in its own format. Like the handler's translating writer, it has no Unwrap:
// nothing may flush the client's connection past it while it holds.
type Writer struct {
	w    http.ResponseWriter
	site *Site

	// body is the client's request body, read again by every attempt
	// through reader.
	body   []byte
	reader bodyReader

	// The attempt.
	target   *Target
	attempt  int
	last     bool        // no target after this one: nothing is held
	hdr      http.Header // the client's response header, which the attempt writes
	snap     http.Header // hdr before the attempt, put back when it is dropped
	held     *[]byte     // what the attempt wrote while held
	status   int         // the status the attempt wrote
	upstream int         // the upstream's own status, or 0
	stream   bool        // the attempt's 2xx answer is a stream
	holding  bool        // a stream is held until its first content
	content  bool        // a content event (or a final answer) was seen
	// committed is whether the attempt's answer goes to the client.
	committed bool
	// failed is whether the attempt failed in a way that moves a request
	// on; failStatus is the status that says so (an in-stream error's
	// too), failKind its kind.
	failed     bool
	failStatus int
	failKind   mapping.ErrorKind
	// keyCooled is set by the target when the failure put only its
	// upstream key in cooldown, its pool having others.
	keyCooled bool
	// keyRefused is set by the target when the upstream refused its key
	// (401, 403) and its pool has others: the request moves on.
	keyRefused bool

	// saved is the client's request as the site received it.
	saved savedRequest
	// keyName names the client key the site accepted (client_keys), or
	// is "": each attempt's exchange records it.
	keyName string
	// answer is the exchange of the attempt whose answer the client got,
	// for the site's limits to settle with.
	answer   *observe.Exchange
	answerBy Member
}

var writers = sync.Pool{New: func() any { return new(Writer) }}

// getWriter returns a writer for a request of fs answered on w.
func getWriter(w http.ResponseWriter, fs *Site) *Writer {
	fw := writers.Get().(*Writer)
	fw.w, fw.site = w, fs
	return fw
}

// putWriter releases fw's buffers and returns it to the pool. Its
// header maps stay with it, emptied: a pooled writer's maps have the size
// its requests need.
func putWriter(fw *Writer) {
	pool.Put(fw.held)
	fw.reader.Reset(nil)
	snap, saved := fw.snap, fw.saved.header
	clear(saved)
	*fw = Writer{snap: snap}
	fw.saved.header = saved
	writers.Put(fw)
}

// begin starts the attempt of target t, the n-th; last says no target
// remains after it.
func (fw *Writer) begin(t *Target, n int, last bool) {
	fw.target, fw.attempt, fw.last = t, n, last
	fw.status, fw.upstream, fw.stream, fw.holding, fw.content = 0, 0, false, false, false
	fw.committed, fw.failed, fw.failStatus, fw.failKind, fw.keyCooled, fw.keyRefused = false, false, 0, 0, false, false
	if fw.held != nil {
		// The buffer may hold an earlier attempt's failure.
		*fw.held = (*fw.held)[:0]
	}
	fw.hdr = fw.w.Header()
	if last {
		return
	}
	// The header before the attempt (usually empty, or the few a
	// directive before llmbridge set), to put back if it is dropped.
	if fw.snap == nil {
		fw.snap = make(http.Header, 4)
	}
	clear(fw.snap)
	maps.Copy(fw.snap, fw.hdr)
}

// Header returns the attempt's response header.
func (fw *Writer) Header() http.Header { return fw.hdr }

// NoteUpstream records the status the upstream answered, which decides
// whether the request moves on (the client's protocol may answer it with
// another status).
func (fw *Writer) NoteUpstream(status int) {
	if fw.upstream == 0 {
		fw.upstream = status
	}
}

// HoldStream says that the attempt's 2xx answer is a stream.
func (fw *Writer) HoldStream() { fw.stream = true }

// WriteHeader decides, from the attempt's status, whether its answer is
// held or written.
func (fw *Writer) WriteHeader(status int) {
	if status < 200 {
		if fw.last || fw.committed {
			fw.w.WriteHeader(status)
		}
		return
	}
	if fw.status != 0 {
		return
	}
	fw.status = status
	decisive := fw.upstream
	if decisive == 0 {
		decisive = status
	}
	if status >= 400 && (fw.site.retryable(decisive) || fw.keyRefused) {
		fw.fail(decisive, mapping.KindForStatus(decisive))
	} else if status < 300 && !fw.stream {
		fw.content = true
	}
	switch {
	case fw.last:
		fw.commit()
	case fw.failed:
	case status < 300 && fw.stream:
		fw.holding = true
	default:
		fw.commit()
	}
}

// fail marks the attempt as failed with status and kind.
func (fw *Writer) fail(status int, kind mapping.ErrorKind) {
	fw.failed, fw.failStatus, fw.failKind = true, status, kind
}

// Write writes p, or holds it.
func (fw *Writer) Write(p []byte) (int, error) {
	if fw.status == 0 {
		fw.WriteHeader(http.StatusOK)
	}
	if fw.committed {
		return fw.w.Write(p)
	}
	if fw.held == nil {
		fw.held = pool.Get(pool.StreamSize)
	}
	*fw.held = append(*fw.held, p...)
	if fw.holding && len(*fw.held) > maxHold {
		// No content yet after this much: the stream is the answer.
		fw.commit()
	}
	return len(p), nil
}

// WriteString writes s, or holds it, as Write does, without copying it
// into a byte slice first.
func (fw *Writer) WriteString(s string) (int, error) {
	if fw.status == 0 {
		fw.WriteHeader(http.StatusOK)
	}
	if fw.committed {
		return io.WriteString(fw.w, s)
	}
	if fw.held == nil {
		fw.held = pool.Get(pool.StreamSize)
	}
	*fw.held = append(*fw.held, s...)
	if fw.holding && len(*fw.held) > maxHold {
		fw.commit()
	}
	return len(s), nil
}

// FlushError flushes what has been written; nothing while the answer is
// held.
func (fw *Writer) FlushError() error {
	if !fw.committed {
		return nil
	}
	return Flush(fw.w)
}

// Flush flushes w as http.ResponseController would, without allocating
// one.
func Flush(w http.ResponseWriter) error {
	for {
		switch t := w.(type) {
		case interface{ FlushError() error }:
			return t.FlushError()
		case http.Flusher:
			t.Flush()
			return nil
		case interface{ Unwrap() http.ResponseWriter }:
			w = t.Unwrap()
		default:
			return http.ErrNotSupported
		}
	}
}

// commit writes the attempt's header and what it holds: its answer is the
// client's.
func (fw *Writer) commit() {
	if fw.committed {
		return
	}
	fw.committed, fw.holding = true, false
	real := fw.hdr
	fw.setHeaders(real)
	if fw.failed {
		// The last failure: Retry-After says when the soonest target,
		// this one with the cooldown its failure is about to cause
		// included, can be tried again.
		now := time.Now()
		self := int64(0)
		if d := fw.cooldown(now); d > 0 {
			self = now.UnixNano() + int64(d)
		}
		fw.site.setRetryAfter(real, now.UnixNano(), fw.target, self)
	}
	fw.w.WriteHeader(fw.status)
	if fw.held != nil && len(*fw.held) > 0 {
		_, _ = fw.w.Write(*fw.held)
		*fw.held = (*fw.held)[:0]
		_ = Flush(fw.w)
	}
}

// setHeaders sets the failover headers of the attempt's answer.
func (fw *Writer) setHeaders(hdr http.Header) {
	hdr[UpstreamHeader] = fw.target.header
	if fw.attempt > 0 && fw.attempt <= len(attemptValues) {
		hdr[AttemptsHeader] = attemptValues[fw.attempt-1]
	}
}

// Observe takes a translated stream event before the first content: a
// content event (a delta, a citation, the end of a part, the stream's
// stop or end) makes the held stream the answer; an error event a failure
// when its status moves requests on. The start of a part is not content
// yet: Anthropic opens an empty text block before it is overloaded.
func (fw *Writer) Observe(ev *codec.Event) {
	switch {
	case PreContent(ev.Type):
	case ev.Type == codec.EventError:
		fw.StreamFailed(ev.Err)
	default:
		fw.sawContent()
	}
}

// PreContent reports whether a stream event of type t may come before
// the stream's content without being content: its start, the start of a
// part (Anthropic opens an empty text block before it is overloaded),
// usage, a drop notice. Any other event is content, or an error.
func PreContent(t codec.EventType) bool {
	switch t {
	case codec.EventStart, codec.EventPartStart, codec.EventUsage, codec.EventDropped:
		return true
	}
	return false
}

// sawContent notes the first content event: a held stream is written.
func (fw *Writer) sawContent() {
	fw.content = true
	if fw.holding {
		fw.commit()
	}
}

// StreamFailed notes an error event of the stream before any content.
func (fw *Writer) StreamFailed(e *codec.Error) {
	if fw.content || e == nil {
		return
	}
	status := e.Status
	if status == 0 {
		status = mapping.StatusForKind(e.Kind)
	}
	if !fw.site.retryable(status) && e.Kind != mapping.ErrOverloaded && e.Kind != mapping.ErrRateLimit {
		fw.sawContent()
		return
	}
	fw.fail(status, e.Kind)
	fw.holding = false
}

// Watching reports whether the target must tell the writer its stream
// events: until the first content.
func (fw *Writer) Watching() bool { return !fw.content }

// Discarded reports whether the attempt's answer is dropped: the request
// moves on to another target.
func (fw *Writer) Discarded() bool { return fw.failed && !fw.committed }

// end finishes the attempt once its target returned err, and reports
// whether the request is done (with the error to return).
func (fw *Writer) end(err error) (bool, error) {
	if fw.status == 0 && !fw.committed {
		// The target wrote nothing: an error Caddy would answer.
		status := http.StatusBadGateway
		var he caddyhttp.HandlerError
		if errors.As(err, &he) && he.StatusCode >= 400 {
			status = he.StatusCode
		}
		if fw.last || !fw.site.retryable(status) {
			fw.account()
			return true, err
		}
		fw.fail(status, mapping.KindForStatus(status))
		fw.status = status
	}
	if !fw.committed && !fw.failed {
		// A held stream that ended without a word either way.
		fw.commit()
	}
	fw.account()
	if fw.committed {
		return true, nil
	}
	// The answer is dropped: the client's header is put back as it was
	// before the attempt.
	clear(fw.hdr)
	maps.Copy(fw.hdr, fw.snap)
	return false, nil
}

// account updates the target's state with the attempt's outcome: a
// cooldown from the provider's limits, the breaker's count; and logs it.
func (fw *Writer) account() {
	t, fs := fw.target, fw.site
	if !fw.failed {
		t.state.Succeeded()
		if ce := fs.Logger.Check(zap.DebugLevel, "failover attempt answered"); ce != nil {
			// Checked first: the fields would cost an allocation per
			// request with the debug level off.
			ce.Write(zap.String("target", t.name), zap.Int("attempt", fw.attempt), zap.Int("status", fw.status))
		}
		t.ok.Inc()
		return
	}
	now := time.Now()
	reason := observe.KindName(fw.failKind)
	attemptsTotal.WithLabelValues(t.name, reason).Inc()
	cool := fw.cooldown(now)
	if cool > 0 {
		until := t.state.CoolFor(now.UnixNano(), cool)
		if fs.Share != nil {
			fs.Share(false, t.name, until)
		}
	}
	opened := t.state.Failed(now.UnixNano(), &fs.breaker)
	if opened {
		if fs.Share != nil {
			fs.Share(true, t.name, t.state.OpenedUntil())
		}
		fs.Logger.Warn("failover target's circuit opened", zap.String("target", t.name),
			zap.Int("failures", fs.breaker.Failures), zap.Duration("window", fs.breaker.Window), zap.Duration("period", fs.breaker.Period))
		circuitsTotal.WithLabelValues(t.name).Inc()
	}
	fs.Logger.Debug("failover attempt failed", zap.String("target", t.name), zap.Int("attempt", fw.attempt),
		zap.Int("status", fw.failStatus), zap.String("reason", reason), zap.Duration("cooldown", cool), zap.Bool("last", fw.last))
}

// cooldown is how long the attempt's failure puts its target in
// cooldown: as long as the answer asks, or the site's cooldown for a limit
// or overload that names no time, at most max_cooldown; none when only
// the key cooled.
func (fw *Writer) cooldown(now time.Time) time.Duration {
	if fw.keyCooled {
		return 0
	}
	d, ok := RetryHint(fw.hdr, now)
	if !ok && throttled(fw.failStatus, fw.failKind) {
		d = fw.site.cooldown
	}
	return min(d, fw.site.maxCooldown)
}

// throttled reports whether a failure is a provider's limit or overload,
// which puts the target in cooldown even when the answer says for how
// long nothing.
func throttled(status int, kind mapping.ErrorKind) bool {
	return status == http.StatusTooManyRequests || status == http.StatusServiceUnavailable || status == mapping.StatusOverloaded ||
		kind == mapping.ErrRateLimit || kind == mapping.ErrOverloaded
}

// NoteExchange tells the exchange of the attempt's target which target
// and attempt it is, whether its answer was dropped, and the name of the
// client key the site accepted.
func (fw *Writer) NoteExchange(x *observe.Exchange) {
	x.Target, x.Attempts, x.Discarded = fw.site.cfg.Targets[fw.target.index], uint8(fw.attempt), fw.Discarded()
	if x.KeyName == "" {
		x.KeyName = fw.keyName
	}
	if !x.Discarded {
		fw.answer, fw.answerBy = x, fw.target.member
	}
}

// Of returns the failover writer a target's llmbridge answers
// into, or nil outside a failover site.
func Of(w http.ResponseWriter) *Writer {
	fw, _ := w.(*Writer)
	return fw
}

// Interface guards
var (
	_ http.ResponseWriter = (*Writer)(nil)
	_ io.StringWriter     = (*Writer)(nil)
)

// NoteKey takes the upstream's answer status to the attempt's pooled key
// when another key of the pool may do better: a rate limit cools only
// that key, not the target; a refusal (401, 403) moves the request on.
func (fw *Writer) NoteKey(status int) {
	fw.keyCooled = status == http.StatusTooManyRequests
	fw.keyRefused = status == http.StatusUnauthorized || status == http.StatusForbidden
}
