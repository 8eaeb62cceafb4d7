package caddymodule

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"github.com/tidwall/sjson"
	"go.uber.org/zap"

	"github.com/llmbridge/llmbridge/caddymodule/failover"
	"github.com/llmbridge/llmbridge/caddymodule/internal/pool"
	"github.com/llmbridge/llmbridge/caddymodule/observe"
	"github.com/llmbridge/llmbridge/caddymodule/streams"
	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/rules"
	"github.com/llmbridge/llmbridge/mapping"
	"github.com/llmbridge/llmbridge/sse"
	"github.com/llmbridge/llmbridge/sse/eventstream"
)

// maxHeldBody bounds the non-streamed passthrough body held back until it
// is complete and checked. A larger one is passed on as it arrives,
// unchecked, as plain reverse_proxy would pass it: answers of that size
// are rare, and holding them would cost the memory the bound protects.
const maxHeldBody = 8 << 20

// passMode is how a passthroughWriter forwards the upstream's response.
type passMode uint8

const (
	// passUnset: the upstream's header has not arrived.
	passUnset passMode = iota
	// passRaw: bytes pass on as they arrive (an informational or
	// redirect status, an encoded body, a body over maxHeldBody).
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

// passthrough handles a request whose client and upstream protocols share a
// wire format. The body passes byte for byte, except for the edits the
// dialects need (Anthropic on Vertex has no model and an anthropic_version).
// held is the pooled buffer holding body, which an open stream gives back
// early.
func (h *Handler) passthrough(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler, rt route, body []byte, held *heldBuffer, x *observe.Exchange) error {
	client := rt.protocol
	head, err := codec.ReadRequestHead(body)
	if err != nil {
		fail(w, x, client, codec.NewError(mapping.ErrInvalidRequest, "request body is not a valid JSON object"))
		return nil
	}
	if key := head.Repeated; key != "" {
		// llmbridge reads these keys to route and edit the body; a second
		// copy would make the path and the body name different things.
		fail(w, x, client, &codec.Error{Status: 400, Kind: mapping.ErrInvalidRequest, Param: key, Message: "key " + strconv.Quote(key) + " appears more than once"})
		return nil
	}
	model, stream := rt.model, rt.stream
	pathModel := false
	if !client.ModelInPath() {
		if !head.HasModel && rt.model == "" && x.Upstream.ModelInPath() {
			fail(w, x, client, &codec.Error{Status: 400, Kind: mapping.ErrInvalidRequest, Param: "model", Message: "model is required and must be a string"})
			return nil
		}
		model = head.Model
		stream = head.Stream
		if !head.HasModel && rt.model != "" {
			// An Azure OpenAI deployment path names the model the body
			// leaves out; the upstream's body needs it.
			model, pathModel = rt.model, true
		}
	}
	model = strings.TrimPrefix(model, "models/")
	x.Stream = stream
	// The body decoded, once, for what reads it beside the passthrough
	// (a limit's estimate, a prompt cache key, the span's content).
	dec := passthroughDecode{client: client, body: body}
	defer dec.release()
	if x.Tel.CapturesContent() {
		req, _ := dec.request()
		x.Tel.NoteHead(&head, req)
	} else {
		x.Tel.NoteHead(&head, nil)
	}
	upModel, routed := h.routeModel(client, model)
	x.SetModels(model, upModel)
	if x.Upstream.ModelInPath() {
		upModel = strings.TrimPrefix(upModel, "models/")
		x.SetModels(model, upModel)
		if err := checkPathModel(upModel, x.Upstream); err != nil {
			fail(w, x, client, err)
			return nil
		}
	}
	if (routed || pathModel) && !client.ModelInPath() && !x.Upstream.ModelInPath() {
		// Both sides carry the model in the body: rewrite it there.
		var err error
		if body, err = sjson.SetBytes(body, "model", upModel); err != nil {
			fail(w, x, client, codec.NewError(mapping.ErrInvalidRequest, "request body could not be adapted: "+err.Error()))
			return nil
		}
	}

	if h.limits != nil && !h.limits.Admit(w, r, x, h.passthroughEstimate(&dec, &head, x)) {
		return nil
	}

	var adjusted []rules.Adjustment
	// A body is fitted when routing sent it to another model than the one
	// it was made for, when its model's refusals taught rules (learn.go),
	// or when it asks for an hour of prompt cache its model does not have
	// on this upstream (Claude before 4.5 on Bedrock refuses "1h").
	if routed && upModel != model || h.fitter.Lessons.Lookup(upModel) != nil || h.fitter.CacheHourRefused(x.Upstream, upModel, body) {
		var cerr *codec.Error
		if body, adjusted, cerr = h.fitter.FitPassthrough(body, client, x.Upstream, upModel); cerr != nil {
			fail(w, x, client, cerr)
			return nil
		}
	}
	body = h.withPromptCacheKey(body, &dec, x.Upstream)
	if client != x.Upstream {
		betasToHeader(r, body, client)
	}
	edited, cerr := adaptSibling(body, client, x.Upstream, upModel, stream)
	if cerr != nil {
		fail(w, x, client, cerr)
		return nil
	}
	if edited, err = bodyOnlyBetas(r, edited, x.Upstream); err != nil {
		fail(w, x, client, codec.NewError(mapping.ErrInvalidRequest, "request body could not be adapted: "+err.Error()))
		return nil
	}
	x.Dropped = append(x.Dropped, h.filterBetas(r, x.Upstream)...)
	if client != x.Upstream {
		if edited, err = betasToBody(r, edited, x.Upstream); err != nil {
			fail(w, x, client, codec.NewError(mapping.ErrInvalidRequest, "request body could not be adapted: "+err.Error()))
			return nil
		}
	}
	sent := setBody(r, edited)
	h.fitter.ReportDropped(w, x.Dropped)
	h.fitter.ReportAdjusted(w, upModel, adjusted)
	x.Tel.NoteEdits(adjusted, x.Dropped)
	if cerr := h.rewriteHeaders(r, client, x.Upstream, stream, h.credentialOf(x)); cerr != nil {
		fail(w, x, client, cerr)
		return nil
	}
	path, query := h.upstreamPath(x.Upstream, upModel, stream)
	setPath(r, path, query)
	if cerr := h.signUpstream(r, x, edited); cerr != nil {
		fail(w, x, client, cerr)
		return nil
	}

	upReq, cutoff := streams.WithCutoff(r, stream)
	defer cutoff.Release()
	// The exchange's copy of the model: model points into the body,
	// which an open stream gives back.
	pw := newPassthroughWriter(w, h, x, client, x.Model, stream)
	pw.cutoff = cutoff
	// The writer takes the client's body over from ServeHTTP.
	pw.sentBody, pw.clientBody = sent, *held
	held.buf = nil
	defer pw.clientBody.release()
	if routed && !h.upstreamModelInResponse && upModel != model {
		pw.restore, _ = json.Marshal(model)
	}
	defer func() {
		// As in translate: an upstream body that breaks off, or one whose
		// reading the writer stopped (streams.Cutoff), makes reverse_proxy
		// abort; end the client's response properly instead, unless it
		// is already on its way raw.
		if v := recover(); v != nil {
			if v != http.ErrAbortHandler || r.Context().Err() != nil || pw.mode == passRaw || pw.mode == passUnset {
				panic(v)
			}
			pw.finish(errUpstreamAborted)
		}
	}()
	// The teaching lives in the first writer, as in translate.
	first := pw
	first.teach = h.startTeaching(w, upModel, codec.Target{}, adjusted, edited, 0)
	teach := &first.teach
	defer teach.release()
	nextErr := h.callUpstream(x, next, pw, upReq)
	if retry := h.learnRetryPassthrough(upReq, pw, nextErr, teach); retry != nil {
		// The refusal taught a fix: send the request once more (learn.go).
		pw = retry
		nextErr = h.callUpstream(x, next, pw, upReq)
		h.learnedOutcome(pw.status, teach)
	}
	if pw.mode == passUnset {
		if nextErr == nil {
			nextErr = errors.New("upstream handler wrote no response")
		}
		h.writeUpstreamFailure(w, client, nextErr, x)
		return nil
	}
	// reverse_proxy has logged any error; the response ends properly.
	pw.finish(nextErr)
	return nil
}

// passthroughWriter forwards the response of an upstream that speaks the
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
type passthroughWriter struct {
	*caddyhttp.ResponseWriterWrapper
	h       *Handler
	x       *observe.Exchange
	client  codec.Protocol // errors the writer adds are in this protocol
	model   string         // the client's model, named by in-stream errors
	stream  bool           // the client asked for a stream
	restore []byte         // the client's model as a JSON string, or nil

	mode   passMode
	status int     // the upstream's status, held back with its body
	held   *[]byte // the held body (passHeld)

	rd *sse.Reader
	// unframe and frame convert an upstream's and a client's stream
	// framing from and to SSE text (streams.NewUnframer, NewFramer), nil for SSE; pending
	// and the checks work on SSE text.
	unframe  *eventstream.Reader
	unframed []byte
	frame    *eventstream.Writer
	framed   []byte
	watcher  *codec.StreamWatcher
	usage    *codec.UsageObserver // reads a stream's usage and stop reason
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
	// cutoff stops the reading of the upstream body after a complete
	// stream (nil in tests that drive the writer directly).
	cutoff *streams.Cutoff
	// sentBody is the body sent upstream, and clientBody the pooled
	// buffer holding the client's body, which the body sent may be: a
	// stream gives the buffer back once the upstream has read the body
	// (nil sentBody: not to release).
	sentBody   *sentBody
	clientBody heldBuffer
	// teach is the first writer's teaching (learn.go): nothing retries
	// a stream once it has begun, so its header copy goes back then.
	teach teaching
}

// newPassthroughWriter returns the writer for a passthrough whose client
// speaks client and named model.
func newPassthroughWriter(w http.ResponseWriter, h *Handler, x *observe.Exchange, client codec.Protocol, model string, stream bool) *passthroughWriter {
	return &passthroughWriter{ResponseWriterWrapper: &caddyhttp.ResponseWriterWrapper{ResponseWriter: w},
		h: h, x: x, client: client, model: model, stream: stream}
}

// WriteHeader chooses how the response is forwarded from its status and
// headers. Only a raw or streamed response's header goes out at once; a
// held body's goes out with the body.
func (pw *passthroughWriter) WriteHeader(status int) {
	if status < 200 {
		pw.ResponseWriterWrapper.WriteHeader(status)
		return
	}
	if pw.mode != passUnset {
		return
	}
	pw.x.ResponseStarted()
	pw.h.noteUpstream(pw.ResponseWriterWrapper.ResponseWriter, pw.x, status, pw.Header())
	pw.status = status
	hdr := pw.Header()
	switch {
	case hasEncoding(hdr):
		// llmbridge asks for no encoding; a body that has one anyway
		// cannot be checked, only passed on.
		pw.mode = passRaw
	case pw.stream && status < 300 && streams.IsStreamOf(pw.x.Upstream, hdr.Get("Content-Type")):
		pw.mode = passStream
		pw.rd = sse.NewPushReader(int(pw.h.MaxEventSize))
		pw.unframe = streams.NewUnframer(pw.x.Upstream, int(pw.h.MaxEventSize))
		pw.frame = streams.NewFramer(pw.client, maxResponseBody)
		// The stream passed on is not always the upstream's bytes: an
		// error event of llmbridge's own ends one that breaks off or
		// stops short, a restored model or Bedrock's metrics re-frame
		// events. An upstream that wrote its whole stream before its
		// first flush sent a Content-Length, which would then be wrong,
		// and a response longer or shorter than it declared is cut with
		// a reset connection: the client never sees the error event.
		hdr.Del("Content-Length")
		if pw.frame != nil || pw.unframe != nil {
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
		pw.reframe = pw.restore != nil || pw.metrics
		if pw.sentBody.readToEnd() {
			// Nothing reads the client's body again: an open stream would
			// otherwise hold it for as long as the answer takes.
			pw.clientBody.release()
		}
		pw.teach.release()
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
func (pw *passthroughWriter) Write(p []byte) (int, error) {
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

// holdLimit is the largest body held back: maxHeldBody, or
// maxResponseBody when the model must be restored in it.
func (pw *passthroughWriter) holdLimit() int {
	if pw.restore != nil {
		return maxResponseBody
	}
	return maxHeldBody
}

// FlushError flushes what has been passed on. Before the header is final
// (none yet, or a held body) a flush would send a 200 header of its own,
// so it does nothing then.
func (pw *passthroughWriter) FlushError() error {
	if pw.mode == passUnset || pw.mode == passHeld {
		return nil
	}
	return http.NewResponseController(pw.ResponseWriterWrapper.ResponseWriter).Flush()
}

// ReadFrom copies through Write unless the bytes pass on raw.
func (pw *passthroughWriter) ReadFrom(r io.Reader) (int64, error) {
	if pw.mode == passRaw {
		return pw.ResponseWriterWrapper.ReadFrom(r)
	}
	return io.Copy(writerOnly{pw}, r)
}

// release gives up holding a body that outgrew the bound: what was held
// and p go on, and the rest passes on raw.
func (pw *passthroughWriter) release(p []byte) (int, error) {
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

// finish completes the response once next has returned nextErr (or
// aborted, errUpstreamAborted).
func (pw *passthroughWriter) finish(nextErr error) {
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
func (pw *passthroughWriter) releasePending() {
	if pw.pendingBuf == nil || len(pw.pending) > 0 {
		return
	}
	*pw.pendingBuf = pw.pending[:0]
	pool.Put(pw.pendingBuf)
	pw.pendingBuf, pw.pending = nil, nil
}

// finishHeld forwards a held body byte for byte if it is the protocol's,
// and answers an error in the client's format if it is not.
func (pw *passthroughWriter) finishHeld(nextErr error) {
	held := pw.held
	pw.held = nil
	defer pool.Put(held)
	body, status, upstream := *held, pw.status, pw.x.Upstream
	switch {
	case nextErr != nil:
		// The upstream answered but the body broke off (reset, timeout).
		pw.h.logger.Warn("upstream response incomplete", zap.Error(nextErr))
		pw.fail(codec.NewError(mapping.ErrBadGateway, "upstream "+string(upstream)+" response was interrupted"))
	case status >= 400 && pw.client.Descriptor().ErrorAtRoot != upstream.Descriptor().ErrorAtRoot:
		// Siblings whose error bodies differ (Anthropic on Bedrock
		// answers AWS errors): the error in the client's format.
		pw.x.Status = writeError(pw.ResponseWriterWrapper.ResponseWriter, pw.client, decodeUpstreamError(upstream, status, pw.Header(), body))
	case status < 300 && pw.observeJSON(body), codec.IsProtocolBody(upstream, status, body):
		// A success body that decodes is the protocol's (the decoder
		// validates it); one that is the protocol's but does not decode
		// (content llmbridge cannot translate) passes uncounted.
		if status < 300 && pw.client.Descriptor().MetricsHeaders && !upstream.Descriptor().MetricsHeaders {
			lat := pw.x.Latency()
			setMetricsHeaders(pw.Header(), &pw.x.Usage, &lat)
		}
		if pw.restore != nil && status < 300 {
			out := pool.Get(len(body) + pool.MinPooled)
			defer pool.Put(out)
			*out = restoreModel((*out)[:0], body, upstream, pw.restore)
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
		e := decodeUpstreamError(upstream, status, pw.Header(), body)
		pw.h.logger.Debug("upstream error body is not in its protocol's format", zap.Int("status", status), zap.String("content_type", pw.Header().Get("Content-Type")))
		pw.x.Status = writeError(pw.ResponseWriterWrapper.ResponseWriter, pw.client, e)
	default:
		what := "a body that is not a JSON object"
		switch ct := pw.Header().Get("Content-Type"); {
		case len(body) == 0:
			what = "an empty body"
		case !isJSON(ct):
			what = "Content-Type " + strconv.Quote(ct) + " where JSON was expected"
		}
		pw.fail(codec.NewError(mapping.ErrBadGateway, "upstream "+string(upstream)+" answered "+what))
	}
}

// fail answers an error of llmbridge's own in place of an upstream
// response that broke its protocol.
func (pw *passthroughWriter) fail(e *codec.Error) {
	pw.h.logger.Warn("invalid upstream response", zap.Int("upstream_status", pw.status), zap.String("error", e.Message))
	pw.x.Status = writeError(pw.ResponseWriterWrapper.ResponseWriter, pw.client, e)
	pw.x.ErrReason = "invalid_upstream_response"
}

// observeJSON takes the usage and stop reason from a passed-through JSON
// response body, and reports whether it decoded.
func (pw *passthroughWriter) observeJSON(body []byte) bool {
	var resp codec.Response
	if codec.DecodeResponse(pw.x.Upstream, body, &resp) != nil {
		return false
	}
	pw.x.ObserveResponse(&resp)
	return true
}
