package websocket

import (
	"context"
	"net/http"
	"strconv"
	"strings"

	ws "github.com/coder/websocket"
	"github.com/tidwall/gjson"

	"github.com/llmbridge/llmbridge/caddymodule/internal/pool"
	"github.com/llmbridge/llmbridge/caddymodule/sessions"
	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/mapping"
	"github.com/llmbridge/llmbridge/sse"
)

// turnWriter is the response writer of a turn: the answer's SSE events go
// to the client as text frames as they come; a JSON answer (an error) is
// sent as an error event when the turn ends.
type turnWriter struct {
	s      *socket
	ctx    context.Context
	hdr    http.Header
	status int
	events *sse.Reader // a streamed answer's events
	body   []byte      // a JSON answer, up to Config.MaxAnswerSize
	result sessions.Answer
	found  bool
	// failed reports that the answer could not be sent or read, or that
	// the turn panicked.
	failed bool
}

// newTurnWriter returns a writer for a turn of s.
//
// Its frames are written without a deadline or cancellation: the library
// would arm a timer per frame, and a write blocked by a client that stopped
// reading ends when the connection closes (the client going, the age
// limit, a reload), which the reader and the runner see to.
func newTurnWriter(s *socket, ctx context.Context) *turnWriter {
	return &turnWriter{s: s, ctx: context.WithoutCancel(ctx), hdr: http.Header{}}
}

// Header returns the turn's response header.
func (tw *turnWriter) Header() http.Header { return tw.hdr }

// WriteHeader notes the status and how the answer is framed.
func (tw *turnWriter) WriteHeader(status int) {
	if tw.status != 0 || status < 200 {
		return
	}
	tw.status = status
	if status < 300 && strings.HasPrefix(tw.hdr.Get("Content-Type"), "text/event-stream") {
		tw.events = sse.NewPushReader(tw.s.srv.MaxEventSize)
	}
}

// Write sends the events of p (or keeps a JSON answer).
func (tw *turnWriter) Write(p []byte) (n int, err error) {
	if tw.status == 0 {
		tw.WriteHeader(http.StatusOK)
	}
	if tw.failed {
		return 0, http.ErrAbortHandler
	}
	if tw.events == nil {
		if len(tw.body)+len(p) <= tw.s.srv.MaxAnswerSize {
			tw.body = append(tw.body, p...)
		}
		return len(p), nil
	}
	tw.events.Push(p)
	// The events of one upstream read go out in one write.
	tw.s.batch.begin()
	defer func() {
		if endErr := tw.s.batch.end(); endErr != nil && err == nil {
			tw.failed, n, err = true, 0, endErr
		}
	}()
	for {
		ev, err := tw.events.Next()
		if err == sse.ErrNeedInput {
			return len(p), nil
		}
		if err != nil {
			tw.failed = true
			return 0, err
		}
		if len(ev.Data) == 0 || ev.IsDone() {
			continue
		}
		if err := tw.s.conn.Write(tw.ctx, ws.MessageText, ev.Data); err != nil {
			tw.failed = true
			return 0, err
		}
		if sessions.TerminalEvent(ev.Name) || len(ev.Name) == 0 && sessions.TerminalEvent([]byte(gjson.GetBytes(ev.Data, "type").Str)) {
			tw.result, tw.found = sessions.ReadAnswer(gjson.GetBytes(ev.Data, "response"))
		}
	}
}

// FlushError does nothing: every event is sent as it completes.
func (tw *turnWriter) FlushError() error { return nil }

// finish sends what a turn answered without a stream: its error, as an
// error event.
func (tw *turnWriter) finish() {
	if tw.failed || tw.events != nil && tw.status < 300 {
		return
	}
	if tw.status >= 200 && tw.status < 300 {
		// A response not streamed (a handler that ignored stream):
		// sent as the event that ends a stream with it.
		resp := gjson.GetBytes(tw.body, "@this")
		if answer, ok := sessions.ReadAnswer(resp); ok {
			tw.result, tw.found = sessions.Answer{ID: strings.Clone(answer.ID), Output: strings.Clone(answer.Output)}, true
			buf := pool.Get(len(tw.body) + 64)
			defer pool.Put(buf)
			b := append((*buf)[:0], `{"type":"response.completed","response":`...)
			b = append(b, tw.body...)
			*buf = append(b, '}')
			_ = tw.s.conn.Write(tw.ctx, ws.MessageText, *buf)
			return
		}
	}
	e := &codec.Error{Status: tw.status, Kind: mapping.KindForStatus(tw.status), Message: "the turn failed with status " + strconv.Itoa(tw.status)}
	if tw.status == 0 {
		e.Status, e.Kind, e.Message = http.StatusBadGateway, mapping.ErrAPI, "the turn got no answer"
	}
	if obj := gjson.GetBytes(tw.body, "error"); obj.IsObject() {
		buf := pool.Get(pool.MinPooled)
		defer pool.Put(buf)
		b := append((*buf)[:0], `{"type":"error","status":`...)
		b = strconv.AppendInt(b, int64(tw.status), 10)
		b = append(b, `,"error":`...)
		b = append(b, obj.Raw...)
		*buf = append(b, '}')
		_ = tw.s.conn.Write(tw.ctx, ws.MessageText, *buf)
		return
	}
	tw.s.sendError(tw.ctx, e)
}

// Interface guards
var _ http.ResponseWriter = (*turnWriter)(nil)
