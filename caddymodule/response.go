package caddymodule

import (
	"errors"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"github.com/tidwall/gjson"
	"go.uber.org/zap"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/mapping"
	"github.com/llmbridge/llmbridge/sse"
)

// translatingWriter collects the upstream's non-streamed response and, once
// the next handler returns, writes its translation in the client protocol.
//
// It deliberately has no Unwrap method: http.ResponseController must not
// reach past it and flush the client connection before the translated
// header is written (caddy#6144: an upstream 429 reached clients as 200).
type translatingWriter struct {
	http.ResponseWriter
	h      *Handler
	client codec.Protocol
	req    *codec.Request
	x      *exchange
	// model, when set, replaces the model the upstream names in its
	// response: the model the client asked for, after a model rule
	// rewrote it.
	model string

	status   int
	body     *[]byte
	overflow bool
	stream   *streamTranslator // set when the upstream answered a stream
}

// WriteHeader records the upstream status; informational statuses pass
// through at once.
func (tw *translatingWriter) WriteHeader(status int) {
	if status >= 100 && status < 200 {
		if status != http.StatusSwitchingProtocols {
			tw.ResponseWriter.WriteHeader(status)
		}
		return
	}
	if tw.status != 0 {
		return
	}
	tw.status = status
	tw.x.responseStarted()
	if status >= 200 && status < 300 && tw.req.Stream && isEventStream(tw.Header().Get("Content-Type")) && !hasEncoding(tw.Header()) {
		tw.stream = newStreamTranslator(tw.ResponseWriter, tw.h, tw.client, tw.req)
		tw.stream.model = tw.model
		tw.stream.x = tw.x
		startHeaders(tw.ResponseWriter, status)
		tw.x.status = status
		// The client sees the stream open before the first event.
		_ = tw.stream.rc.Flush()
	}
}

// Write translates a stream event by event, or buffers a JSON body up to
// maxResponseBody.
func (tw *translatingWriter) Write(p []byte) (int, error) {
	if tw.status == 0 {
		tw.WriteHeader(http.StatusOK)
	}
	if tw.stream != nil {
		return tw.stream.write(p)
	}
	if tw.body == nil {
		tw.body = getBuffer()
	}
	if len(*tw.body)+len(p) > maxResponseBody {
		tw.overflow = true
		return 0, errors.New("llmbridge: upstream response too large to translate")
	}
	*tw.body = append(*tw.body, p...)
	return len(p), nil
}

// FlushError does nothing: a stream translation flushes after every event
// it writes, and a JSON translation is written when the upstream response
// is complete.
func (tw *translatingWriter) FlushError() error { return nil }

// ReadFrom copies through Write, so that nothing bypasses the translation.
func (tw *translatingWriter) ReadFrom(r io.Reader) (int64, error) {
	return io.Copy(writerOnly{tw}, r)
}

// writerOnly hides every method but Write, so io.Copy cannot recurse into
// ReadFrom.
type writerOnly struct{ io.Writer }

// finish writes the translated response once next has returned nextErr.
func (tw *translatingWriter) finish(nextErr error) error {
	if tw.stream != nil {
		tw.stream.finish(nextErr)
		return nil
	}
	defer putBuffer(tw.body)
	if tw.status == 0 {
		if nextErr == nil {
			nextErr = errors.New("upstream handler wrote no response")
		}
		tw.h.writeUpstreamFailure(tw.ResponseWriter, tw.client, nextErr, tw.x)
		return nil
	}
	var body []byte
	if tw.body != nil {
		body = *tw.body
	}
	upstream := tw.h.upstream
	hdr := tw.Header()
	switch {
	case tw.overflow:
		tw.fail(codec.NewError(mapping.ErrBadGateway, "upstream response exceeds "+strconv.Itoa(maxResponseBody)+" bytes"))
	case nextErr != nil:
		// The upstream answered but the body broke off (reset, timeout).
		tw.h.logger.Warn("upstream response incomplete", zap.Error(nextErr))
		tw.fail(codec.NewError(mapping.ErrBadGateway, "upstream response was interrupted"))
	case hasEncoding(hdr):
		tw.fail(codec.NewError(mapping.ErrBadGateway, "upstream response has an unsupported Content-Encoding "+strconv.Quote(hdr.Get("Content-Encoding"))))
	case tw.status >= 400:
		tw.writeError(codec.DecodeError(upstream, tw.status, body))
	case tw.status >= 200 && tw.status < 300:
		if !isJSON(hdr.Get("Content-Type")) {
			tw.fail(codec.NewError(mapping.ErrBadGateway, "upstream answered Content-Type "+strconv.Quote(hdr.Get("Content-Type"))+" where JSON was expected"))
			break
		}
		var resp codec.Response
		if err := codec.DecodeResponse(upstream, body, &resp); err != nil {
			tw.fail(asCodecError(err))
			break
		}
		tw.x.observeResponse(&resp)
		if tw.model != "" {
			resp.Model = tw.model
		} else if resp.Model == "" {
			resp.Model = tw.req.Model
		}
		if tw.req.Stream {
			// The stream's events count the carried state.
			tw.reportDroppedOutput(resp.Dropped)
			tw.streamResponse(&resp)
			break
		}
		out := getBuffer()
		defer putBuffer(out)
		// The client's request says which calls were of custom or
		// namespaced tools, which a Responses client gets back as such.
		b, err := codec.AppendResponseFor(*out, tw.client, &resp, tw.req)
		*out = b
		if err != nil {
			tw.fail(asCodecError(err))
			break
		}
		tw.reportOutput(&resp)
		tw.write(tw.status, b)
	default:
		tw.fail(codec.NewError(mapping.ErrBadGateway, "upstream answered unexpected HTTP status "+strconv.Itoa(tw.status)))
	}
	return nil
}

// droppedOutputHeader lists the upstream output a translated response left
// out because the client's protocol cannot express or carry it.
const droppedOutputHeader = "Llmbridge-Dropped-Output"

// reportOutput reports the upstream output of resp that the client's
// protocol cannot express, before the response header is written: what
// was left out (reportDroppedOutput), and the state kept whole to travel
// in a continuation in opaque_carried_total.
func (tw *translatingWriter) reportOutput(resp *codec.Response) {
	for i := range resp.Content {
		if p := &resp.Content[i]; p.Type == codec.PartReasoning && p.Redacted {
			if kind := codec.OpaqueKind(p.Signature); kind != "" {
				tw.h.metrics.recordOpaqueCarried(kind)
			}
		}
	}
	tw.reportDroppedOutput(resp.Dropped)
}

// reportDroppedOutput reports the output a response left out (the
// entries of Response.Dropped), before the response header is written:
// the Llmbridge-Dropped-Output header, a debug log and
// dropped_output_total.
func (tw *translatingWriter) reportDroppedOutput(dropped []string) {
	if len(dropped) == 0 {
		return
	}
	tw.Header().Set(droppedOutputHeader, droppedHeader(dropped))
	tw.h.logger.Debug("response content the client protocol cannot carry", zap.Strings("dropped", dropped))
	for _, d := range dropped {
		tw.h.metrics.recordDroppedOutput(droppedOutputKind(d))
	}
}

// streamResponse answers a client that asked for a stream, when the
// upstream answered one JSON body, with the stream of that body.
func (tw *translatingWriter) streamResponse(resp *codec.Response) {
	tw.stream = newStreamTranslator(tw.ResponseWriter, tw.h, tw.client, tw.req)
	tw.stream.model = tw.model
	tw.stream.x = tw.x
	hdr := tw.Header()
	hdr.Del("Content-Length")
	startHeaders(tw.ResponseWriter, tw.status)
	tw.x.status = tw.status
	tw.stream.events = codec.AppendResponseEvents(tw.stream.events[:0], resp)
	tw.stream.emit()
	tw.stream.send()
}

// writeError encodes an error in the client protocol and writes it.
func (tw *translatingWriter) writeError(e *codec.Error) {
	out := getBuffer()
	defer putBuffer(out)
	*out = codec.AppendError(*out, tw.client, e)
	tw.write(codec.ClientStatus(tw.client, e), *out)
}

// fail reports a response llmbridge could not translate.
func (tw *translatingWriter) fail(e *codec.Error) {
	tw.h.logger.Warn("untranslatable upstream response", zap.Int("upstream_status", tw.status), zap.String("error", e.Message))
	tw.writeError(e)
	tw.x.errReason = "untranslatable_response"
}

// write sends a translated body with headers fixed for it.
func (tw *translatingWriter) write(status int, b []byte) {
	hdr := tw.Header()
	hdr.Del("Content-Encoding")
	hdr.Set("Content-Type", "application/json")
	hdr.Set("Content-Length", strconv.Itoa(len(b)))
	tw.ResponseWriter.WriteHeader(status)
	_, _ = tw.ResponseWriter.Write(b)
	tw.x.wrote(status)
}

// endsEvent reports whether an event stream whose last bytes are tail ends
// at an event boundary (a blank line, in any of the SSE line ends).
func endsEvent(tail []byte) bool {
	s := string(tail)
	return len(s) == 0 || strings.HasSuffix(s, "\n\n") || strings.HasSuffix(s, "\r\r") || strings.HasSuffix(s, "\r\n\r\n")
}

func hasEncoding(h http.Header) bool {
	ce := h.Get("Content-Encoding")
	return ce != "" && ce != "identity"
}

func isEventStream(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	return err == nil && mt == "text/event-stream"
}

func isJSON(contentType string) bool {
	if contentType == "" {
		return true
	}
	mt, _, err := mime.ParseMediaType(contentType)
	return err == nil && (mt == "application/json" || len(mt) > 5 && mt[len(mt)-5:] == "+json")
}

// passthroughWriter passes the upstream response through untouched. It
// records whether the response has begun, so that an upstream that could
// not be reached is reported in the client's format, and it watches a
// streamed response so that one that breaks off before its terminal event
// ends with an in-stream error rather than looking complete.
//
// When a model rule rewrote the model, restore holds the client's model as
// a JSON string, and the writer puts it back where the upstream names its
// model: a successful JSON body is buffered and edited once complete, and
// a stream is re-framed event by event with the edit applied.
type passthroughWriter struct {
	*caddyhttp.ResponseWriterWrapper
	wroteHeader bool
	stream      bool // the client asked for a stream

	rd      *sse.Reader
	watcher *codec.StreamWatcher
	tail    []byte // the last bytes passed on, to tell whether an event was cut

	h       *Handler
	x       *exchange
	usage   *codec.UsageObserver // reads a stream's usage and stop reason
	evs     []codec.Event
	tee     *[]byte        // a copy of a JSON body, decoded for its usage
	family  codec.Protocol // the wire format of both sides
	restore []byte         // the client's model as a JSON string, or nil
	reframe bool           // the stream is re-framed to restore the model
	status  int            // the status held back while buffering
	buf     *[]byte        // the JSON body held back to restore the model
	out     []byte         // re-framed events
}

// WriteHeader notes that the response has begun, and starts watching an
// event stream.
func (pw *passthroughWriter) WriteHeader(status int) {
	if status >= 200 && !pw.wroteHeader {
		pw.wroteHeader = true
		pw.x.responseStarted()
		hdr := pw.Header()
		if pw.stream && status < 300 && isEventStream(hdr.Get("Content-Type")) {
			pw.rd = sse.NewPushReader(0)
			pw.reframe = pw.restore != nil && !hasEncoding(hdr)
			if !hasEncoding(hdr) {
				pw.usage = codec.NewUsageObserver(pw.h.upstream)
			}
		} else if status < 300 && isJSON(hdr.Get("Content-Type")) && !hasEncoding(hdr) {
			if pw.restore != nil {
				// Held back until the whole body is known.
				pw.status = status
				pw.buf = getBuffer()
				return
			}
			pw.tee = getBuffer()
		}
		pw.x.status = status
	}
	pw.ResponseWriterWrapper.WriteHeader(status)
}

// Write passes p on and, for a watched stream, looks at its events.
func (pw *passthroughWriter) Write(p []byte) (int, error) {
	if !pw.wroteHeader {
		pw.WriteHeader(http.StatusOK)
	}
	if pw.buf != nil {
		if len(*pw.buf)+len(p) > maxResponseBody {
			return 0, errors.New("llmbridge: upstream response too large to edit")
		}
		*pw.buf = append(*pw.buf, p...)
		return len(p), nil
	}
	if pw.reframe {
		pw.rd.Push(p)
		if err := pw.drain(); err != nil {
			return 0, err
		}
		return len(p), nil
	}
	n, err := pw.ResponseWriterWrapper.Write(p)
	if n > 0 {
		pw.x.wrote(http.StatusOK)
	}
	if pw.tee != nil {
		if len(*pw.tee)+n > maxResponseBody {
			putBuffer(pw.tee)
			pw.tee = nil
		} else {
			*pw.tee = append(*pw.tee, p[:n]...)
		}
	}
	if pw.rd != nil && n > 0 {
		pw.rd.Push(p[:n])
		_ = pw.drain()
		pw.tail = append(pw.tail, p[max(0, n-4):n]...)
		pw.tail = pw.tail[max(0, len(pw.tail)-4):]
	}
	return n, err
}

// FlushError flushes what has been written, except while a JSON body is
// held back: flushing then would send a header before it is final.
func (pw *passthroughWriter) FlushError() error {
	if pw.buf != nil {
		return nil
	}
	return http.NewResponseController(pw.ResponseWriterWrapper.ResponseWriter).Flush()
}

// ReadFrom copies through Write, so that a watched stream is seen.
func (pw *passthroughWriter) ReadFrom(r io.Reader) (int64, error) {
	if pw.rd != nil || pw.buf != nil {
		return io.Copy(writerOnly{pw}, r)
	}
	return pw.ResponseWriterWrapper.ReadFrom(r)
}

// drain feeds the complete events pushed so far to the watcher and, when
// re-framing, writes each with the client's model restored.
func (pw *passthroughWriter) drain() error {
	pw.out = pw.out[:0]
	for {
		ev, err := pw.rd.Next()
		if err != nil {
			break
		}
		pw.watcher.Observe(ev.Name, ev.Data, ev.Bare)
		if pw.usage != nil {
			pw.evs = pw.usage.Observe(pw.evs[:0], ev.Name, ev.Data, ev.Bare)
			for i := range pw.evs {
				pw.x.observe(&pw.evs[i])
			}
		}
		if !pw.reframe {
			continue
		}
		if ev.Bare {
			pw.out = append(pw.out, ev.Data...)
			pw.out = append(pw.out, "\n\n"...)
			continue
		}
		start := len(pw.out)
		pw.out = restoreModel(pw.out, ev.Data, pw.family, pw.restore)
		data := pw.out[start:]
		// The data is re-appended as an event after the edited copy, then
		// moved down over it.
		pw.out = sse.AppendEvent(pw.out, string(ev.Name), data)
		n := copy(pw.out[start:], pw.out[start+len(data):])
		pw.out = pw.out[:start+n]
	}
	if len(pw.out) == 0 {
		return nil
	}
	_, err := pw.ResponseWriterWrapper.Write(pw.out)
	pw.x.wrote(http.StatusOK)
	return err
}

// finishJSON writes a held-back JSON body with the client's model
// restored, and takes the usage from a successful JSON body.
func (pw *passthroughWriter) finishJSON() {
	if pw.tee != nil {
		pw.observeJSON(*pw.tee)
		putBuffer(pw.tee)
		pw.tee = nil
	}
	if pw.buf == nil {
		return
	}
	buf := pw.buf
	pw.buf = nil
	defer putBuffer(buf)
	pw.observeJSON(*buf)
	out := getBuffer()
	defer putBuffer(out)
	*out = restoreModel((*out)[:0], *buf, pw.family, pw.restore)
	hdr := pw.Header()
	hdr.Set("Content-Length", strconv.Itoa(len(*out)))
	pw.ResponseWriterWrapper.WriteHeader(pw.status)
	_, _ = pw.ResponseWriterWrapper.Write(*out)
	pw.x.status = pw.status
	pw.x.wrote(pw.status)
}

// observeJSON takes the usage and stop reason from a passed-through JSON
// response body; a body that does not decode is simply not counted.
func (pw *passthroughWriter) observeJSON(body []byte) {
	var resp codec.Response
	if codec.DecodeResponse(pw.h.upstream, body, &resp) == nil {
		pw.x.observeResponse(&resp)
	}
}

// modelPaths are where each wire format names the model in a response
// body or stream event; the first that holds a string is edited.
var modelPaths = map[codec.Protocol][]string{
	codec.OpenAIChat:        {"model"},
	codec.OpenAIResponses:   {"model", "response.model"},
	codec.AnthropicMessages: {"model", "message.model"},
	codec.Gemini:            {"modelVersion"},
}

// restoreModel appends data to dst with the model it names (in wire format
// family) replaced by model, a JSON string. Data naming no model is
// appended unchanged.
func restoreModel(dst, data []byte, family codec.Protocol, model []byte) []byte {
	for _, path := range modelPaths[family] {
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

// finishStream ends a watched stream that broke off with the client
// protocol's in-stream error.
func (pw *passthroughWriter) finishStream(h *Handler, client codec.Protocol, model string, cause error) {
	if pw.rd == nil {
		return
	}
	pw.rd.CloseInput()
	_ = pw.drain()
	if pw.watcher.Complete() {
		return
	}
	msg := "upstream " + string(h.upstream) + " stream ended before it was complete"
	if cause != nil {
		msg = "upstream " + string(h.upstream) + " stream broke off before it was complete"
		h.logger.Warn("upstream stream broke off", zap.Error(cause))
	}
	e := &codec.Error{Status: http.StatusBadGateway, Kind: mapping.ErrBadGateway, Message: msg}
	// A blank line first ends whatever partial event the upstream left; an
	// extra one after a complete event would be an empty event to some
	// clients.
	var out []byte
	if !pw.reframe && !endsEvent(pw.tail) {
		out = append(out, "\n\n"...)
	}
	out = codec.AppendStreamError(out, client, &codec.Request{Model: model, Stream: true}, e)
	if _, err := pw.ResponseWriterWrapper.Write(out); err == nil {
		_ = http.NewResponseController(pw.ResponseWriterWrapper.ResponseWriter).Flush()
	}
}

// writeUpstreamFailure answers a request whose upstream never responded
// (connection refused, DNS failure, timeout before headers). The message
// names no address: errors must not leak the internal topology.
func (h *Handler) writeUpstreamFailure(w http.ResponseWriter, client codec.Protocol, err error, x *exchange) {
	status := http.StatusBadGateway
	var he caddyhttp.HandlerError
	if errors.As(err, &he) && he.StatusCode >= 400 {
		status = he.StatusCode
	}
	h.logger.Warn("upstream request failed", zap.Int("status", status), zap.Error(err))
	e := &codec.Error{Status: status, Kind: mapping.KindForStatus(status), Message: "upstream request failed: " + http.StatusText(status)}
	x.status = writeError(w, client, e)
	x.errReason = "upstream_unreachable"
}

// Interface guards
var (
	_ http.ResponseWriter = (*translatingWriter)(nil)
	_ io.ReaderFrom       = (*translatingWriter)(nil)
	_ http.ResponseWriter = (*passthroughWriter)(nil)
)
