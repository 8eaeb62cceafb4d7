package streams

import (
	"errors"
	"io"
	"net/http"
	"strconv"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/llmbridge/llmbridge/caddymodule/failover"
	"github.com/llmbridge/llmbridge/caddymodule/internal/pool"
	"github.com/llmbridge/llmbridge/caddymodule/observe"
	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/mapping"
	"github.com/llmbridge/llmbridge/sse"
)

// Translator translates an upstream's event stream into the client's
// protocol as it arrives: every upstream event is decoded, encoded and
// flushed before the next one is read. It holds the SSE reader's buffer,
// the codec state and one output buffer, and starts no goroutine.
type Translator struct {
	w       http.ResponseWriter
	rc      *http.ResponseController
	logger  *zap.Logger
	metrics *observe.Metrics

	rd *sse.Reader
	// framing reads an upstream's framed stream into the SSE text rd
	// reads, and writes the encoded SSE text as a framed client's stream.
	framing Framing
	dec     codec.StreamDecoder
	enc     codec.StreamEncoder
	events  []codec.Event
	// eventsBuf is the pool entry of events while it holds one.
	eventsBuf *[]codec.Event
	// inLen is the length of the input being translated.
	inLen int
	// out is the translated output not yet sent, in outBuf: a pooled
	// buffer taken when there is output and given back once it is sent,
	// so an idle stream holds none and bursts leave no garbage.
	out    []byte
	outBuf *[]byte

	// Model, when set, replaces the model the upstream names in its
	// start event: the model the client asked for, after a model rule
	// rewrote it.
	Model string
	// Exchange is the request's record, which observes every event;
	// nil in tests that drive the translator alone.
	Exchange *observe.Exchange
	// Cutoff stops the reading of the upstream body after a complete
	// stream (nil in tests that drive the translator alone).
	Cutoff *Cutoff

	// keys is the site's credential pool, nil without one.
	keys     *failover.Pool
	upstream codec.Protocol
	maxEvent int
	done     bool // the client's stream has ended (terminal event written)
	failed   bool // it ended with an error event
	// keyWatched is set once the stream of a pooled key showed content
	// or failed: its events no longer concern the key.
	keyWatched bool
	writeErr   error
}

// Config is what the translators of a site's streams share.
type Config struct {
	// Logger tells of streams that broke off or ended in an error.
	Logger *zap.Logger
	// Metrics counts the output a client's protocol cannot carry.
	Metrics *observe.Metrics
	// Keys is the site's pool of upstream credentials, whose member a
	// rate limit before the stream's content cools; nil without one.
	Keys *failover.Pool
	// MaxEventSize bounds an upstream's event, and MaxFrameSize a
	// message framed for a client that does not read SSE.
	MaxEventSize, MaxFrameSize int
}

// NewTranslator returns the translator of an upstream stream of protocol
// upstream, answering req, into w for a client of protocol client.
func NewTranslator(w http.ResponseWriter, cfg *Config, client, upstream codec.Protocol, req *codec.Request) (*Translator, error) {
	dec, err := codec.NewStreamDecoder(upstream)
	if err != nil {
		return nil, err
	}
	enc, err := codec.NewStreamEncoder(client, req)
	if err != nil {
		return nil, err
	}
	return &Translator{
		w:        w,
		rc:       http.NewResponseController(w),
		logger:   cfg.Logger,
		rd:       sse.NewPushReader(cfg.MaxEventSize),
		framing:  NewFraming(upstream, client, cfg.MaxEventSize, cfg.MaxFrameSize),
		dec:      dec,
		enc:      enc,
		upstream: upstream,
		maxEvent: cfg.MaxEventSize,
		metrics:  cfg.Metrics,
		keys:     cfg.Keys,
	}, nil
}

// StartHeaders sets the headers of a translated event stream for a client
// of protocol client and sends them with status, so the client sees the
// stream open at once.
func StartHeaders(w http.ResponseWriter, client codec.Protocol, status int) {
	hdr := w.Header()
	hdr.Del("Content-Length")
	hdr.Del("Content-Encoding")
	hdr.Set("Content-Type", ContentType(client))
	hdr.Set("Cache-Control", "no-cache")
	w.WriteHeader(status)
}

// Write consumes a chunk of the upstream body. Once the client's stream
// has ended, the rest of the upstream's is not read (Cutoff): Write fails
// after an error, and a complete stream starts the cutoff's grace.
func (s *Translator) Write(p []byte) (int, error) {
	if !s.done {
		s.translate(p)
	}
	switch {
	case s.writeErr != nil:
		return len(p), s.writeErr
	case s.failed:
		return len(p), ErrClientStreamEnded
	case s.done:
		s.Cutoff.Completed()
	}
	return len(p), nil
}

// translate translates a chunk of the upstream body. An upstream framing
// error (a broken event stream message) ends the stream after the events
// completed before it, which the client gets first: they are good events
// of the answer, whether they came in the same read as the broken
// message or before it.
func (s *Translator) translate(p []byte) {
	var unframeErr error
	if s.Exchange != nil && s.Exchange.UpstreamBody.IsZero() {
		s.Exchange.UpstreamBody = time.Now()
	}
	p, unframeErr = s.framing.Unframe(p)
	s.rd.Push(p)
	s.inLen = len(p)
	if err := s.pump(); err != nil {
		s.end(err)
	}
	if unframeErr != nil && !s.done {
		s.fail("upstream " + string(s.upstream) + " stream is not a valid event stream: " + unframeErr.Error())
	}
}

// pump translates every complete upstream event pushed so far and sends
// the result. It returns the reader's error once the input cannot go on
// (io.EOF after CloseInput, io.ErrUnexpectedEOF, sse.ErrEventTooLarge).
//
// All the events of one upstream read go out in one write and one flush:
// the client sees each of them as soon as it would with a flush per event
// (nothing waits for more input), at a fraction of the system calls when
// an upstream sends events faster than they are read.
func (s *Translator) pump() error {
	defer s.send()
	for !s.done {
		ev, err := s.rd.Next()
		if err == sse.ErrNeedInput {
			return nil
		}
		if err != nil {
			return err
		}
		s.events = s.dec.Decode(s.eventSlice(), ev.Name, ev.Data, ev.Bare)
		s.emit()
	}
	// The stream has ended: nothing is read after its last event.
	s.rd.Release()
	return nil
}

// end closes the stream after the upstream body ended (cause nil), broke
// off, or sent something the reader rejects.
func (s *Translator) end(cause error) {
	if s.done {
		return
	}
	if errors.Is(cause, sse.ErrEventTooLarge) {
		s.fail("upstream " + string(s.upstream) + " stream sent an event larger than " + strconv.Itoa(s.maxEvent) + " bytes")
		return
	}
	s.events = s.dec.Close(s.eventSlice(), cause)
	s.emit()
	s.send()
}

// fail ends the stream with an error of llmbridge's own saying msg: the
// upstream's stream cannot be read on.
func (s *Translator) fail(msg string) {
	s.events = append(s.eventSlice(), codec.Event{Type: codec.EventError, Err: &codec.Error{
		Status: http.StatusBadGateway, Kind: mapping.ErrBadGateway, Message: msg}})
	s.emit()
	s.send()
}

// Finish ends the stream once the upstream handler has returned nextErr.
func (s *Translator) Finish(nextErr error) {
	if s.done {
		return
	}
	s.rd.CloseInput()
	err := s.pump()
	if s.done {
		return
	}
	// The upstream's own failure explains the end better than what the
	// reader saw of it (a reset between two events reads as a clean EOF).
	cause := nextErr
	if cause != nil {
		s.logger.Warn("upstream stream broke off", zap.Error(cause))
	} else if err != io.EOF {
		cause = err
	}
	s.end(cause)
}

// emit encodes the decoded events into the pending output.
func (s *Translator) emit() {
	if len(s.events) > 0 && s.outBuf == nil {
		// The input's translation is about its size, or twice it for a
		// client whose events are wordier: a buffer of that size, from the
		// pool, rather than one grown by doubling when an upstream sends
		// many events at once.
		s.outBuf = pool.Get(max(pool.StreamSize, 2*s.inLen))
		s.out = *s.outBuf
	}
	for i := range s.events {
		if s.Exchange != nil {
			// Before the model is rewritten: the exchange records the
			// model the upstream says answered.
			s.Exchange.Observe(&s.events[i])
			if s.Exchange.Key > 0 && !s.keyWatched {
				// A rate limit before content cools the pooled key.
				s.keyWatched = WatchKey(s.keys, s.w, s.Exchange, &s.events[i])
			}
			if fw := failover.Of(s.w); fw != nil && fw.Watching() {
				// A failover site holds the stream until its first
				// content event, or drops it at an error before.
				fw.Observe(&s.events[i])
			}
		}
		switch ev := &s.events[i]; ev.Type {
		case codec.EventStart:
			switch {
			case s.Model != "":
				ev.Model = s.Model
			case ev.Model == "" && s.Exchange != nil:
				// An upstream that names no model answered for the
				// model it was sent.
				ev.Model = s.Exchange.UpstreamModel
			}
		case codec.EventDropped:
			s.dropped(ev.Text)
			continue
		case codec.EventEnd:
			if s.Exchange != nil {
				// Bedrock's clients read the latencies in the
				// stream's last event.
				ev.Latency = s.Exchange.Latency()
			}
		case codec.EventPartStop:
			if ev.Signature != "" && ev.Signature[0] == '{' {
				s.carried(ev.Signature)
			}
		}
		s.out = s.enc.Encode(s.out, &s.events[i])
		if t := s.events[i].Type; t == codec.EventEnd || t == codec.EventError {
			s.done = true
			if t == codec.EventError {
				s.failed = true
				s.logger.Debug("stream ended with an error", zap.String("error", s.events[i].Err.Message))
			}
		}
	}
}

// dropped reports upstream output of kind that the stream decoder left
// out (codec.EventDropped): a debug log and dropped_output_total. The
// header has been sent; a stream has no other place to tell the client.
func (s *Translator) dropped(kind string) {
	s.logger.Debug("response content the client protocol cannot carry", zap.String("dropped", kind))
	s.metrics.RecordDroppedOutput(kind)
}

// carried counts the upstream output an opaque value keeps whole to travel
// in a continuation, in opaque_carried_total.
func (s *Translator) carried(signature string) {
	if kind := codec.OpaqueKind(signature); kind != "" {
		s.metrics.RecordOpaqueCarried(kind)
	}
}

// eventSlice returns the empty slice the events of one input are decoded
// into, taken from the pool for as long as the input takes: a stream
// waiting for its upstream holds none.
func (s *Translator) eventSlice() []codec.Event {
	if s.eventsBuf == nil {
		s.eventsBuf = eventSlices.Get().(*[]codec.Event)
		s.events = *s.eventsBuf
	}
	return s.events[:0]
}

// eventSlices are the streams' slices of decoded events (see eventSlice).
var eventSlices = sync.Pool{New: func() any { e := make([]codec.Event, 0, 8); return &e }}

// releaseEvents gives the events' slice back to the pool.
func (s *Translator) releaseEvents() {
	if s.eventsBuf == nil {
		return
	}
	// Only the last input's events: clearing the whole slice would cost
	// more per event than translating it, and what stays is overwritten
	// by the next stream's events.
	clear(s.events)
	*s.eventsBuf = s.events[:0]
	eventSlices.Put(s.eventsBuf)
	s.eventsBuf, s.events = nil, nil
}

// Respond streams resp, an answer the upstream gave as one JSON body, to
// a client that asked for a stream.
func (s *Translator) Respond(resp *codec.Response) {
	s.events = codec.AppendResponseEvents(s.eventSlice(), resp)
	s.emit()
	s.send()
}

// Flush flushes the client's connection: the client sees the stream open
// before its first event.
func (s *Translator) Flush() error { return s.rc.Flush() }

// send writes the pending output and flushes it to the client.
func (s *Translator) send() {
	defer s.releaseEvents()
	out := s.out
	if s.outBuf != nil {
		defer func() {
			*s.outBuf = out[:0]
			pool.Put(s.outBuf)
			s.outBuf, s.out = nil, nil
		}()
	}
	if len(out) == 0 || s.writeErr != nil {
		return
	}
	b, err := s.framing.Frame(out)
	if err != nil {
		// The encoders' own events are bounded by MaxFrameSize.
		s.writeErr, s.done = err, true
		return
	}
	if _, err := s.w.Write(b); err != nil {
		s.writeErr = err
		s.done = true
		if s.Exchange != nil {
			s.Exchange.ClientGone()
		}
		return
	}
	if s.Exchange != nil {
		s.Exchange.Wrote(http.StatusOK)
	}
	if err := s.rc.Flush(); err != nil && !errors.Is(err, http.ErrNotSupported) {
		s.writeErr = err
		s.done = true
	}
}
