package writers

import (
	"errors"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/tidwall/gjson"
	"go.uber.org/zap"

	"github.com/llmbridge/llmbridge/caddymodule/failover"
	"github.com/llmbridge/llmbridge/caddymodule/internal/pool"
	"github.com/llmbridge/llmbridge/caddymodule/observe"
	"github.com/llmbridge/llmbridge/caddymodule/streams"
	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/mapping"
	"github.com/llmbridge/llmbridge/sse"
)

// A passthrough stream is passed on event by event: each upstream read is
// checked (framing, errors that end it, the first content for failover and
// key pools, the usage for limits and spans) and passed on whole.

// writeStream takes a chunk of the upstream stream and passes on the
// complete events in it. Once the client's stream has ended, the rest of
// the upstream's is not read (streams.Cutoff): writeStream fails after an
// error, and a complete stream starts the cutoff's grace.
func (pw *Passthrough) writeStream(p []byte) (int, error) {
	n := len(p)
	if !pw.ended {
		pw.passStream(p)
	}
	switch {
	case pw.writeErr != nil:
		return 0, pw.writeErr
	case pw.ended:
		return n, streams.ErrClientStreamEnded
	case pw.watcher.Complete():
		pw.Cutoff.Completed()
	}
	return n, nil
}

// passStream checks a chunk of the upstream stream and passes on its
// complete events. An upstream framing error (a broken event stream
// message) ends the stream after the events completed before it, which
// the client gets first, whether they came in the same read as the
// broken message or before it.
func (pw *Passthrough) passStream(p []byte) {
	var unframeErr error
	if pw.x.UpstreamBody.IsZero() {
		pw.x.UpstreamBody = time.Now()
	}
	p, unframeErr = pw.framing.Unframe(p)
	if !pw.reframe {
		if pw.pendingBuf == nil {
			// Taken per input and given back once everything is passed
			// on (below): an open stream waiting for its upstream holds
			// no buffer, and a burst of events gets one of its size.
			pw.pendingBuf = pool.Get(max(pool.StreamSize, len(p)))
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
func (pw *Passthrough) drain() error {
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
		if pw.Restore != nil {
			pw.out = restoreModel(pw.out, ev.Data, pw.x.Upstream, pw.Restore)
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
func (pw *Passthrough) watchFailover(name, data []byte, bare bool) bool {
	w := pw.ResponseWriterWrapper.ResponseWriter
	fw, x := failover.Of(w), pw.x
	pw.evs = pw.probe.Decode(pw.evs[:0], name, data, bare)
	for i := range pw.evs {
		if x.Key > 0 && !pw.keyWatched {
			pw.keyWatched = streams.WatchKey(pw.site.Keys, w, x, &pw.evs[i])
		}
		if fw != nil && fw.Watching() {
			fw.Observe(&pw.evs[i])
		}
	}
	failed := fw != nil && fw.Discarded()
	if failed || (fw == nil || !fw.Watching()) && (x.Key == 0 || pw.keyWatched) {
		pw.probe = nil
	}
	return failed
}

// exception returns the error of an upstream event that is an AWS event
// stream's exception or error message, or nil. Only a framed upstream has
// them; the event is read in place (codec.DecodeFramingError copies what
// it keeps), so an SSE stream's events cost nothing here.
func (pw *Passthrough) exception(name, data []byte) *codec.Error {
	if !pw.framing.UpstreamFramed() {
		return nil
	}
	return codec.DecodeFramingError(pw.x.Upstream, pool.String(name), pool.String(data))
}

// send passes on the checked events: the raw bytes up to the last one, or
// the re-framed events.
func (pw *Passthrough) send() {
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
func (pw *Passthrough) write(b []byte) {
	if len(b) == 0 || pw.writeErr != nil {
		return
	}
	out, err := pw.framing.Frame(b)
	if err != nil {
		pw.writeErr, pw.ended = err, true
		return
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
func (pw *Passthrough) finishStream(cause error) {
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
func (pw *Passthrough) observeEnd() {
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
func (pw *Passthrough) streamFailure(readErr, cause error) string {
	up := "upstream " + string(pw.x.Upstream) + " stream"
	switch {
	case errors.Is(readErr, sse.ErrEventTooLarge):
		return up + " sent an event larger than " + strconv.Itoa(pw.site.MaxEventSize) + " bytes"
	case cause != nil:
		return up + " broke off before it was complete"
	}
	return up + " ended before it was complete"
}

// endStream ends the client's stream with an in-stream error saying msg;
// cause, if any, is the upstream's failure, for the log.
func (pw *Passthrough) endStream(msg string, cause error) {
	pw.site.Logger.Warn("invalid upstream stream", zap.String("error", msg), zap.Error(cause))
	pw.endStreamWith(&codec.Error{Status: http.StatusBadGateway, Kind: mapping.ErrBadGateway, Message: msg})
	pw.x.ErrReason = "invalid_upstream_response"
}

// endStreamWith ends the client's stream with e as an in-stream error of
// the client's protocol.
func (pw *Passthrough) endStreamWith(e *codec.Error) {
	if pw.x.Key > 0 && !pw.keyWatched {
		pw.keyWatched = true
		streams.KeyStreamFailed(pw.site.Keys, pw.ResponseWriterWrapper.ResponseWriter, pw.x, e)
	}
	if fw := failover.Of(pw.ResponseWriterWrapper.ResponseWriter); fw != nil && fw.Watching() {
		fw.StreamFailed(e)
	}
	pw.x.StreamErr = observe.KindName(e.Kind)
	// A blank line first ends whatever partial event was passed on; an
	// extra one after a complete event would be an empty event to some
	// clients.
	var out []byte
	if !EndsEvent(pw.tail[:pw.tailLen]) {
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
	_ http.ResponseWriter = (*Passthrough)(nil)
	_ io.ReaderFrom       = (*Passthrough)(nil)
)
