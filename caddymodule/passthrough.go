package caddymodule

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
	"go.uber.org/zap"

	"github.com/llmbridge/llmbridge/caddymodule/observe"
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

	if h.limits != nil && !h.admitLimits(w, r, x, h.passthroughEstimate(&dec, &head, x)) {
		return nil
	}

	var adjusted []rules.Adjustment
	// A body is fitted when routing sent it to another model than the one
	// it was made for, when its model's refusals taught rules (learn.go),
	// or when it asks for an hour of prompt cache its model does not have
	// on this upstream (Claude before 4.5 on Bedrock refuses "1h").
	if routed && upModel != model || h.learned.lookup(upModel) != nil || h.cacheHourRefused(x.Upstream, upModel, body) {
		var cerr *codec.Error
		if body, adjusted, cerr = h.fitPassthrough(body, client, x.Upstream, upModel); cerr != nil {
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
	h.reportDropped(w, x.Dropped)
	h.reportAdjusted(w, upModel, adjusted)
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

	upReq, cutoff := withCutoff(r, stream)
	defer cutoff.release()
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
		// reading the writer stopped (cutoff.go), makes reverse_proxy
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
	// framing from and to SSE text (framing.go), nil for SSE; pending
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
	cutoff *upstreamCutoff
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
	case pw.stream && status < 300 && isStreamOf(pw.x.Upstream, hdr.Get("Content-Type")):
		pw.mode = passStream
		pw.rd = sse.NewPushReader(int(pw.h.MaxEventSize))
		pw.unframe = newUnframer(pw.x.Upstream, int(pw.h.MaxEventSize))
		pw.frame = newFramer(pw.client, maxResponseBody)
		if pw.frame != nil || pw.unframe != nil {
			// Framed again, the bytes are not the upstream's: a Bedrock
			// chunk loses its padding member, say.
			hdr.Del("Content-Length")
			hdr.Set("Content-Type", streamContentType(pw.client))
		}
		pw.watcher = codec.NewStreamWatcher(pw.x.Upstream)
		if fw := failoverOf(pw.ResponseWriterWrapper.ResponseWriter); fw != nil {
			// A failover site holds the stream until its first content
			// event: the events are decoded until then to find it.
			fw.holdStream()
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
		size := responseBufferSize(hdr)
		if size > pw.holdLimit() {
			size = streamBufferSize
		}
		pw.held = getBuffer(size)
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
	defer putBuffer(held)
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
	putBuffer(pw.pendingBuf)
	pw.pendingBuf, pw.pending = nil, nil
}

// finishHeld forwards a held body byte for byte if it is the protocol's,
// and answers an error in the client's format if it is not.
func (pw *passthroughWriter) finishHeld(nextErr error) {
	held := pw.held
	pw.held = nil
	defer putBuffer(held)
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
			out := getBuffer(len(body) + minPooledBuffer)
			defer putBuffer(out)
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

// writeStream takes a chunk of the upstream stream and passes on the
// complete events in it. Once the client's stream has ended, the rest of
// the upstream's is not read (cutoff.go): writeStream fails after an
// error, and a complete stream starts the cutoff's grace.
func (pw *passthroughWriter) writeStream(p []byte) (int, error) {
	n := len(p)
	if !pw.ended {
		pw.passStream(p)
	}
	switch {
	case pw.writeErr != nil:
		return 0, pw.writeErr
	case pw.ended:
		return n, errClientStreamEnded
	case pw.watcher.Complete():
		pw.cutoff.completed()
	}
	return n, nil
}

// passStream checks a chunk of the upstream stream and passes on its
// complete events. An upstream framing error (a broken event stream
// message) ends the stream after the events completed before it, which
// the client gets first, whether they came in the same read as the
// broken message or before it.
func (pw *passthroughWriter) passStream(p []byte) {
	var unframeErr error
	if pw.x.UpstreamBody.IsZero() {
		pw.x.UpstreamBody = time.Now()
	}
	if pw.unframe != nil {
		pw.unframed, unframeErr = pw.unframe.Push(pw.unframed[:0], p)
		p = pw.unframed
	}
	if !pw.reframe {
		if pw.pendingBuf == nil {
			// Taken per input and given back once everything is passed
			// on (below): an open stream waiting for its upstream holds
			// no buffer, and a burst of events gets one of its size.
			pw.pendingBuf = getBuffer(max(streamBufferSize, len(p)))
			pw.pending = *pw.pendingBuf
		}
		pw.pending = append(pw.pending, p...)
	}
	pw.rd.Push(p)
	if err := pw.drain(); err != nil && err != sse.ErrNeedInput {
		pw.endStream(pw.streamFailure(err, nil), nil)
	}
	pw.releasePending()
	if unframeErr != nil && !pw.ended {
		pw.endStream("upstream "+string(pw.x.Upstream)+" stream is not a valid event stream: "+unframeErr.Error(), nil)
	}
}

// drain checks every complete event pushed so far and passes on those
// before the first that is not the protocol's. It returns the reader's
// error: sse.ErrNeedInput when the input holds no further complete event.
func (pw *passthroughWriter) drain() error {
	defer pw.send()
	for !pw.ended {
		ev, err := pw.rd.Next()
		if err != nil {
			return err
		}
		if !pw.watcher.Observe(ev.Name, ev.Data, ev.Bare) {
			pw.send()
			pw.endStream("upstream "+string(pw.x.Upstream)+" stream sent an event that is not valid in its protocol", nil)
			return nil
		}
		if pw.probe != nil && pw.watchFailover(ev.Name, ev.Data, ev.Bare) {
			// The stream failed before any content: the failover site
			// drops it and moves on, so the rest is not read.
			pw.good = pw.rd.Offset()
			pw.send()
			pw.ended = true
			return nil
		}
		if pw.content != nil {
			pw.evs = pw.content.Decode(pw.evs[:0], ev.Name, ev.Data, ev.Bare)
		} else {
			pw.evs = pw.usage.Observe(pw.evs[:0], ev.Name, ev.Data, ev.Bare)
		}
		for i := range pw.evs {
			pw.x.Observe(&pw.evs[i])
		}
		if e := pw.exception(ev.Name, ev.Data); e != nil {
			// An AWS event stream's exception ends the stream: the
			// client gets it as its own protocol's in-stream error (a
			// client of the same protocol, the same exception).
			pw.send()
			pw.endStreamWith(e)
			return nil
		}
		if !pw.reframe {
			pw.good = pw.rd.Offset()
			continue
		}
		if ev.Bare {
			pw.out = append(pw.out, ev.Data...)
			pw.out = append(pw.out, "\n\n"...)
			continue
		}
		start := len(pw.out)
		if pw.restore != nil {
			pw.out = restoreModel(pw.out, ev.Data, pw.x.Upstream, pw.restore)
		} else {
			pw.out = append(pw.out, ev.Data...)
		}
		if pw.metrics && string(ev.Name) == "message_stop" && len(pw.out) > start && pw.out[len(pw.out)-1] == '}' {
			lat := pw.x.Latency()
			pw.out = append(codec.AppendStreamMetrics(pw.out[:len(pw.out)-1], pw.client, &pw.x.Usage, &lat), '}')
		}
		data := pw.out[start:]
		// The data is re-appended as an event after the edited copy, then
		// moved down over it.
		pw.out = sse.AppendEvent(pw.out, string(ev.Name), data)
		n := copy(pw.out[start:], pw.out[start+len(data):])
		pw.out = pw.out[:start+n]
	}
	return nil
}

// watchFailover tells the failover writer (if any) and the key pool (for
// a request made with a pooled key) the events of one upstream event
// until the first content, and reports whether the stream failed before
// it for a failover site (the writer drops the attempt).
func (pw *passthroughWriter) watchFailover(name, data []byte, bare bool) bool {
	w := pw.ResponseWriterWrapper.ResponseWriter
	fw, x := failoverOf(w), pw.x
	pw.evs = pw.probe.Decode(pw.evs[:0], name, data, bare)
	for i := range pw.evs {
		if x.Key > 0 && !pw.keyWatched {
			pw.keyWatched = pw.h.keys.watchStream(w, x, &pw.evs[i])
		}
		if fw != nil && fw.watching() {
			fw.observe(&pw.evs[i])
		}
	}
	failed := fw != nil && fw.discarded()
	if failed || (fw == nil || !fw.watching()) && (x.Key == 0 || pw.keyWatched) {
		pw.probe = nil
	}
	return failed
}

// exception returns the error of an upstream event that is an AWS event
// stream's exception or error message, or nil. Only a framed upstream has
// them; the event is read in place (codec.DecodeFramingError copies what
// it keeps), so an SSE stream's events cost nothing here.
func (pw *passthroughWriter) exception(name, data []byte) *codec.Error {
	if pw.unframe == nil {
		return nil
	}
	return codec.DecodeFramingError(pw.x.Upstream, bytesString(name), bytesString(data))
}

// send passes on the checked events: the raw bytes up to the last one, or
// the re-framed events.
func (pw *passthroughWriter) send() {
	var b []byte
	if pw.reframe {
		b = pw.out
		pw.out = pw.out[:0]
	} else if n := int(pw.good - pw.sent); n > 0 {
		b = pw.pending[:n]
		pw.sent = pw.good
		defer func() { pw.pending = pw.pending[:copy(pw.pending, pw.pending[n:])] }()
	}
	pw.write(b)
}

// write passes b on to the client and flushes it.
func (pw *passthroughWriter) write(b []byte) {
	if len(b) == 0 || pw.writeErr != nil {
		return
	}
	out := b
	if pw.frame != nil {
		var err error
		if pw.framed, err = pw.frame.Push(pw.framed[:0], b); err != nil {
			pw.writeErr, pw.ended = err, true
			return
		}
		out = pw.framed
	}
	if _, err := pw.ResponseWriterWrapper.Write(out); err != nil {
		pw.writeErr, pw.ended = err, true
		pw.x.ClientGone()
		return
	}
	pw.x.Wrote(pw.status)
	t := b[max(0, len(b)-len(pw.tail)):]
	if len(t) < len(pw.tail) {
		// Keep the older bytes that still fit before t.
		keep := min(pw.tailLen, len(pw.tail)-len(t))
		copy(pw.tail[:keep], pw.tail[pw.tailLen-keep:pw.tailLen])
		pw.tailLen = keep
	} else {
		pw.tailLen = 0
	}
	pw.tailLen += copy(pw.tail[pw.tailLen:], t)
	if err := pw.FlushError(); err != nil && !errors.Is(err, http.ErrNotSupported) {
		pw.writeErr, pw.ended = err, true
	}
}

// finishStream ends the stream once the upstream's body has ended (cause
// nil) or broken off: what is complete goes on, and a stream without its
// terminal event ends with the client protocol's in-stream error.
func (pw *passthroughWriter) finishStream(cause error) {
	if pw.ended {
		return
	}
	pw.rd.CloseInput()
	err := pw.drain()
	if pw.ended {
		return
	}
	if err == io.EOF && !pw.reframe {
		// The stream ended at a line end: what follows the last event
		// (comments, blank lines) goes on too.
		pw.good = pw.sent + int64(len(pw.pending))
		pw.send()
	}
	if pw.watcher.Complete() {
		pw.observeEnd()
		return
	}
	pw.endStream(pw.streamFailure(err, cause), cause)
}

// observeEnd takes the stop reason a complete stream gives only at its end
// (Gemini's has no terminal event).
func (pw *passthroughWriter) observeEnd() {
	if pw.x.Stop != mapping.StopNone {
		return
	}
	if pw.content != nil {
		pw.evs = pw.content.Close(pw.evs[:0], nil)
	} else {
		pw.evs = pw.usage.Close(pw.evs[:0])
	}
	for i := range pw.evs {
		if pw.evs[i].Type == codec.EventStop {
			pw.x.Stop = pw.evs[i].StopReason
		}
	}
}

// streamFailure says why a stream could not go on, from the reader's error
// readErr and the upstream's failure cause.
func (pw *passthroughWriter) streamFailure(readErr, cause error) string {
	up := "upstream " + string(pw.x.Upstream) + " stream"
	switch {
	case errors.Is(readErr, sse.ErrEventTooLarge):
		return up + " sent an event larger than " + strconv.Itoa(int(pw.h.MaxEventSize)) + " bytes"
	case cause != nil:
		return up + " broke off before it was complete"
	}
	return up + " ended before it was complete"
}

// endStream ends the client's stream with an in-stream error saying msg;
// cause, if any, is the upstream's failure, for the log.
func (pw *passthroughWriter) endStream(msg string, cause error) {
	pw.h.logger.Warn("invalid upstream stream", zap.String("error", msg), zap.Error(cause))
	pw.endStreamWith(&codec.Error{Status: http.StatusBadGateway, Kind: mapping.ErrBadGateway, Message: msg})
	pw.x.ErrReason = "invalid_upstream_response"
}

// endStreamWith ends the client's stream with e as an in-stream error of
// the client's protocol.
func (pw *passthroughWriter) endStreamWith(e *codec.Error) {
	if pw.x.Key > 0 && !pw.keyWatched {
		pw.keyWatched = true
		pw.h.keys.streamFailed(pw.ResponseWriterWrapper.ResponseWriter, pw.x, e)
	}
	if fw := failoverOf(pw.ResponseWriterWrapper.ResponseWriter); fw != nil && fw.watching() {
		fw.streamFailed(e)
	}
	pw.x.StreamErr = observe.KindName(e.Kind)
	// A blank line first ends whatever partial event was passed on; an
	// extra one after a complete event would be an empty event to some
	// clients.
	var out []byte
	if !endsEvent(pw.tail[:pw.tailLen]) {
		out = append(out, "\n\n"...)
	}
	out = codec.AppendStreamError(out, pw.client, &codec.Request{Model: pw.model, Stream: true}, e)
	pw.write(out)
	pw.ended = true
}

// restoreModel appends data to dst with the model it names (at the first
// of the protocol's Descriptor.ResponseModel paths that holds a string)
// replaced by model, a JSON string. Data naming no model is appended
// unchanged.
func restoreModel(dst, data []byte, p codec.Protocol, model []byte) []byte {
	for _, path := range p.Descriptor().ResponseModel {
		v := gjson.GetBytes(data, path)
		if v.Type != gjson.String || v.Index <= 0 || v.Index+len(v.Raw) > len(data) {
			continue
		}
		dst = append(dst, data[:v.Index]...)
		dst = append(dst, model...)
		return append(dst, data[v.Index+len(v.Raw):]...)
	}
	return append(dst, data...)
}

// Interface guards
var (
	_ http.ResponseWriter = (*passthroughWriter)(nil)
	_ io.ReaderFrom       = (*passthroughWriter)(nil)
)
