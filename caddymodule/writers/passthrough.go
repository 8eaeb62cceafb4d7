package writers

import (
	"io"
	"net/http"
	"strconv"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"github.com/llmbridge/llmbridge/caddymodule/failover"
	"github.com/llmbridge/llmbridge/caddymodule/internal/pool"
	"github.com/llmbridge/llmbridge/caddymodule/observe"
	"github.com/llmbridge/llmbridge/caddymodule/streams"
	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/mapping"
	"github.com/llmbridge/llmbridge/sse"
	"go.uber.org/zap"
)

// MaxHeldBody bounds the non-streamed passthrough body held back until it
// is complete and checked. A larger one is passed on as it arrives,
// unchecked, as plain reverse_proxy would pass it: answers of that size
// are rare, and holding them would cost the memory the bound protects.
const MaxHeldBody = 8 << 20

// passMode is how a Passthrough forwards the upstream's response.
type passMode uint8

const (
	// passUnset: the upstream's header has not arrived.
	passUnset passMode = iota
	// passRaw: bytes pass on as they arrive (an informational or
	// redirect status, an encoded body, a body over MaxHeldBody).
	passRaw
	// passHeld: a non-streamed body is held back until it is complete,
	// then passed on byte for byte if it is the protocol's, or replaced
	// by an error in the client's format if it is not.
	passHeld
	// passStream: an event stream is passed on event by event, byte for
	// byte; an event that is not the protocol's, or a stream that ends
	// without its terminal event, ends with the client's in-stream error.
	passStream
)

// Passthrough forwards the response of an upstream that speaks the
// client's wire format. While the upstream keeps to its protocol the client
// gets its bytes unchanged; when it does not (a cut or non-JSON body, a load
// balancer's HTML error page, a garbage event, a stream that stops short),
// the client gets an error in its own protocol instead of something its SDK
// cannot parse or, worse, takes for a complete answer.
//
// When a model rule rewrote the model, restore holds the client's model as
// a JSON string, and the writer puts it back where the upstream names its
// model: in a held body once it is complete, and in a stream by re-framing
// each event with the edit applied.
type Passthrough struct {
	*caddyhttp.ResponseWriterWrapper
	// Restore is the client's model as a JSON string, put back where the
	// upstream names its model; nil to leave the upstream's.
	Restore []byte
	// Cutoff stops the reading of the upstream body after a complete
	// stream (nil in tests that drive the writer directly).
	Cutoff *streams.Cutoff
	// Sent is the body sent upstream, and ClientBody the pooled buffer
	// holding the client's body, which the body sent may be: a stream
	// gives the buffer back once the upstream has read the body (nil
	// Sent: not to release).
	Sent       *Sent
	ClientBody Held
	// OnStream is told when a stream begins: nothing retries a stream,
	// so what a retry would need goes back then (nil for none).
	OnStream StreamOpener

	site   *Site
	x      *observe.Exchange
	client codec.Protocol // errors the writer adds are in this protocol
	model  string         // the client's model, named by in-stream errors
	stream bool           // the client asked for a stream

	mode   passMode
	status int     // the upstream's status, held back with its body
	held   *[]byte // the held body (passHeld)

	rd *sse.Reader
	// framing converts an upstream's and a client's stream framing from
	// and to SSE text; pending and the checks work on SSE text.
	framing streams.Framing
	watcher *codec.StreamWatcher
	usage   *codec.UsageObserver // reads a stream's usage and stop reason
	// content decodes every event instead of usage when otel_content
	// records the completion; nil otherwise.
	content codec.StreamDecoder
	// probe decodes the events of a failover site's stream until its
	// first content event; nil otherwise.
	probe   codec.StreamDecoder
	evs     []codec.Event
	reframe bool // events are re-framed to restore the model or add metrics
	metrics bool // message_stop gets Bedrock's invocation metrics
	// keyWatched is set once the stream of a pooled key showed content
	// or failed: its events no longer concern the key.
	keyWatched bool
	// pending is the raw stream from input offset sent on, not yet passed
	// on; good is the input offset up to which it holds complete,
	// checked events.
	pending    []byte
	pendingBuf *[]byte // the pooled buffer pending was taken from
	sent, good int64
	out        []byte  // re-framed events not yet passed on
	tail       [4]byte // the last bytes passed on, to tell whether an event was cut
	tailLen    int
	ended      bool  // the client's stream has ended with an error llmbridge wrote
	writeErr   error // the client connection failed
}

// NewPassthrough returns the writer for a passthrough whose client
// speaks client and named model, writing to w; stream says whether the
// client asked for a stream.
func NewPassthrough(w http.ResponseWriter, site *Site, x *observe.Exchange, client codec.Protocol, model string, stream bool) *Passthrough {
	pw := MakePassthrough(w, site, x, client, model, stream)
	return &pw
}

// MakePassthrough is NewPassthrough as a value, for a caller that keeps
// the writer inside a struct of its own (one allocation for both).
func MakePassthrough(w http.ResponseWriter, site *Site, x *observe.Exchange, client codec.Protocol, model string, stream bool) Passthrough {
	return Passthrough{ResponseWriterWrapper: &caddyhttp.ResponseWriterWrapper{ResponseWriter: w},
		site: site, x: x, client: client, model: model, stream: stream}
}

// WriteHeader chooses how the response is forwarded from its status and
// headers. Only a raw or streamed response's header goes out at once; a
// held body's goes out with the body.
func (pw *Passthrough) WriteHeader(status int) {
	if status < 200 {
		pw.ResponseWriterWrapper.WriteHeader(status)
		return
	}
	if pw.mode != passUnset {
		return
	}
	pw.x.ResponseStarted()
	pw.site.Host.NoteUpstream(pw.ResponseWriterWrapper.ResponseWriter, pw.x, status, pw.Header())
	pw.status = status
	hdr := pw.Header()
	switch {
	case HasEncoding(hdr):
		// llmbridge asks for no encoding; a body that has one anyway
		// cannot be checked, only passed on.
		pw.mode = passRaw
	case pw.stream && status < 300 && streams.IsStreamOf(pw.x.Upstream, hdr.Get("Content-Type")):
		pw.mode = passStream
		pw.rd = sse.NewPushReader(pw.site.MaxEventSize)
		pw.framing = streams.NewFraming(pw.x.Upstream, pw.client, pw.site.MaxEventSize, MaxResponseBody)
		// The stream passed on is not always the upstream's bytes: an
		// error event of llmbridge's own ends one that breaks off or
		// stops short, a restored model or Bedrock's metrics re-frame
		// events. An upstream that wrote its whole stream before its
		// first flush sent a Content-Length, which would then be wrong,
		// and a response longer or shorter than it declared is cut with
		// a reset connection: the client never sees the error event.
		hdr.Del("Content-Length")
		if pw.framing.Framed() {
			// Framed again: a Bedrock chunk loses its padding member.
			hdr.Set("Content-Type", streams.ContentType(pw.client))
		}
		pw.watcher = codec.NewStreamWatcher(pw.x.Upstream)
		if fw := failover.Of(pw.ResponseWriterWrapper.ResponseWriter); fw != nil {
			// A failover site holds the stream until its first content
			// event: the events are decoded until then to find it.
			fw.HoldStream()
			pw.probe, _ = codec.NewStreamDecoder(pw.x.Upstream)
		} else if pw.x.Key > 0 {
			// A rate limit before the first content cools the pooled
			// key: the events are decoded until then.
			pw.probe, _ = codec.NewStreamDecoder(pw.x.Upstream)
		}
		pw.usage = codec.NewUsageObserver(pw.x.Upstream)
		if pw.x.Tel.CapturesContent() {
			// Content capture reads every event, not just those with
			// usage: the operator chose that cost.
			pw.content, _ = codec.NewStreamDecoder(pw.x.Upstream)
		}
		// A sibling that measures no invocation metrics (Anthropic
		// toward a Bedrock InvokeModel client) gets them added to its
		// last event, which is re-framed for that.
		pw.metrics = pw.client.Descriptor().MetricsHeaders && !pw.x.Upstream.Descriptor().MetricsHeaders
		pw.reframe = pw.Restore != nil || pw.metrics
		if pw.Sent.ReadToEnd() {
			// Nothing reads the client's body again: an open stream would
			// otherwise hold it for as long as the answer takes.
			pw.ClientBody.Release()
		}
		if pw.OnStream != nil {
			pw.OnStream.StreamOpened()
		}
	case status < 300 || status >= 400:
		pw.mode = passHeld
		// A body of known length is held in one buffer of its size, not
		// grown to it by doubling.
		size := pool.ResponseSize(hdr)
		if size > pw.holdLimit() {
			size = pool.StreamSize
		}
		pw.held = pool.Get(size)
		return
	default:
		pw.mode = passRaw
	}
	pw.x.Status = status
	pw.ResponseWriterWrapper.WriteHeader(status)
}

// Write forwards p as the mode says.
func (pw *Passthrough) Write(p []byte) (int, error) {
	if pw.mode == passUnset {
		pw.WriteHeader(http.StatusOK)
	}
	switch pw.mode {
	case passHeld:
		if len(*pw.held)+len(p) <= pw.holdLimit() {
			*pw.held = append(*pw.held, p...)
			return len(p), nil
		}
		return pw.release(p)
	case passStream:
		return pw.writeStream(p)
	}
	n, err := pw.ResponseWriterWrapper.Write(p)
	if n > 0 {
		pw.x.Wrote(pw.status)
	}
	return n, err
}

// holdLimit is the largest body held back: MaxHeldBody, or
// MaxResponseBody when the model must be restored in it.
func (pw *Passthrough) holdLimit() int {
	if pw.Restore != nil {
		return MaxResponseBody
	}
	return MaxHeldBody
}

// FlushError flushes what has been passed on. Before the header is final
// (none yet, or a held body) a flush would send a 200 header of its own,
// so it does nothing then.
func (pw *Passthrough) FlushError() error {
	if pw.mode == passUnset || pw.mode == passHeld {
		return nil
	}
	return http.NewResponseController(pw.ResponseWriterWrapper.ResponseWriter).Flush()
}

// ReadFrom copies through Write unless the bytes pass on raw.
func (pw *Passthrough) ReadFrom(r io.Reader) (int64, error) {
	if pw.mode == passRaw {
		return pw.ResponseWriterWrapper.ReadFrom(r)
	}
	return io.Copy(writerOnly{pw}, r)
}

// release gives up holding a body that outgrew the bound: what was held
// and p go on, and the rest passes on raw.
func (pw *Passthrough) release(p []byte) (int, error) {
	held := pw.held
	pw.held = nil
	defer pool.Put(held)
	pw.mode = passRaw
	pw.x.Status = pw.status
	pw.ResponseWriterWrapper.WriteHeader(pw.status)
	if _, err := pw.ResponseWriterWrapper.Write(*held); err != nil {
		return 0, err
	}
	pw.x.Wrote(pw.status)
	return pw.ResponseWriterWrapper.Write(p)
}

// Finish completes the response once next has returned nextErr (or
// aborted, errUpstreamAborted).
func (pw *Passthrough) Finish(nextErr error) {
	switch pw.mode {
	case passHeld:
		pw.finishHeld(nextErr)
	case passStream:
		pw.finishStream(nextErr)
		pw.pending = pw.pending[:0]
		pw.releasePending()
	}
}

// releasePending gives the buffer of the stream's pending bytes back to
// the pool once they are all passed on.
func (pw *Passthrough) releasePending() {
	if pw.pendingBuf == nil || len(pw.pending) > 0 {
		return
	}
	*pw.pendingBuf = pw.pending[:0]
	pool.Put(pw.pendingBuf)
	pw.pendingBuf, pw.pending = nil, nil
}

// finishHeld forwards a held body byte for byte if it is the protocol's,
// and answers an error in the client's format if it is not.
func (pw *Passthrough) finishHeld(nextErr error) {
	held := pw.held
	pw.held = nil
	defer pool.Put(held)
	body, status, upstream := *held, pw.status, pw.x.Upstream
	switch {
	case nextErr != nil:
		// The upstream answered but the body broke off (reset, timeout).
		pw.site.Logger.Warn("upstream response incomplete", zap.Error(nextErr))
		pw.fail(codec.NewError(mapping.ErrBadGateway, "upstream "+string(upstream)+" response was interrupted"))
	case status >= 400 && pw.client.Descriptor().ErrorAtRoot != upstream.Descriptor().ErrorAtRoot:
		// Siblings whose error bodies differ (Anthropic on Bedrock
		// answers AWS errors): the error in the client's format.
		pw.x.Status = WriteError(pw.ResponseWriterWrapper.ResponseWriter, pw.client, DecodeUpstreamError(upstream, status, pw.Header(), body))
	case status < 300 && pw.observeJSON(body), codec.IsProtocolBody(upstream, status, body):
		// A success body that decodes is the protocol's (the decoder
		// validates it); one that is the protocol's but does not decode
		// (content llmbridge cannot translate) passes uncounted.
		if status < 300 && pw.client.Descriptor().MetricsHeaders && !upstream.Descriptor().MetricsHeaders {
			lat := pw.x.Latency()
			SetMetricsHeaders(pw.Header(), &pw.x.Usage, &lat)
		}
		if pw.Restore != nil && status < 300 {
			out := pool.Get(len(body) + pool.MinPooled)
			defer pool.Put(out)
			*out = restoreModel((*out)[:0], body, upstream, pw.Restore)
			body = *out
		}
		pw.Header().Set("Content-Length", strconv.Itoa(len(body)))
		pw.ResponseWriterWrapper.WriteHeader(status)
		_, _ = pw.ResponseWriterWrapper.Write(body)
		pw.x.Status = status
		pw.x.Wrote(status)
	case status >= 400:
		// An error page that is not the protocol's (a load balancer's
		// HTML, a proxy's plain text): the same error, with the same
		// status, in the client's format.
		e := DecodeUpstreamError(upstream, status, pw.Header(), body)
		pw.site.Logger.Debug("upstream error body is not in its protocol's format", zap.Int("status", status), zap.String("content_type", pw.Header().Get("Content-Type")))
		pw.x.Status = WriteError(pw.ResponseWriterWrapper.ResponseWriter, pw.client, e)
	default:
		what := "a body that is not a JSON object"
		switch ct := pw.Header().Get("Content-Type"); {
		case len(body) == 0:
			what = "an empty body"
		case !IsJSON(ct):
			what = "Content-Type " + strconv.Quote(ct) + " where JSON was expected"
		}
		pw.fail(codec.NewError(mapping.ErrBadGateway, "upstream "+string(upstream)+" answered "+what))
	}
}

// fail answers an error of llmbridge's own in place of an upstream
// response that broke its protocol.
func (pw *Passthrough) fail(e *codec.Error) {
	pw.site.Logger.Warn("invalid upstream response", zap.Int("upstream_status", pw.status), zap.String("error", e.Message))
	pw.x.Status = WriteError(pw.ResponseWriterWrapper.ResponseWriter, pw.client, e)
	pw.x.ErrReason = "invalid_upstream_response"
}

// observeJSON takes the usage and stop reason from a passed-through JSON
// response body, and reports whether it decoded.
func (pw *Passthrough) observeJSON(body []byte) bool {
	var resp codec.Response
	if codec.DecodeResponse(pw.x.Upstream, body, &resp) != nil {
		return false
	}
	pw.x.ObserveResponse(&resp)
	return true
}

// Answered reports whether the upstream's header has arrived.
func (pw *Passthrough) Answered() bool { return pw.mode != passUnset }

// Recoverable reports whether the client's response can still be ended
// properly after reverse_proxy aborted: the header went out held back or
// as a stream llmbridge checks, not raw.
func (pw *Passthrough) Recoverable() bool { return pw.mode != passRaw && pw.mode != passUnset }

// Status is the upstream's status, 0 before its header.
func (pw *Passthrough) Status() int { return pw.status }

// Held returns the non-streamed answer held back, for a retry that may
// replace it: its status, header and body (which the caller may rewrite
// in place, in the upstream's protocol); false when the upstream call
// failed (nextErr) or nothing is held.
func (pw *Passthrough) Held(nextErr error) (int, http.Header, *[]byte, bool) {
	if nextErr != nil || pw.mode != passHeld || pw.held == nil {
		return 0, nil, nil, false
	}
	return pw.status, pw.Header(), pw.held, true
}

// Retry gives the held answer back and returns the writer of the request
// sent again, writing to w: the same client, model, restore and cutoff.
func (pw *Passthrough) Retry(w http.ResponseWriter) *Passthrough {
	pool.Put(pw.held)
	pw.held = nil
	retry := NewPassthrough(w, pw.site, pw.x, pw.client, pw.model, pw.stream)
	retry.Restore, retry.Cutoff = pw.Restore, pw.Cutoff
	return retry
}
