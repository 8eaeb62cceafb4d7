package caddymodule

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/coder/websocket"
	"github.com/tidwall/gjson"
	"go.uber.org/zap"

	"github.com/llmbridge/llmbridge/caddymodule/internal/pool"
	"github.com/llmbridge/llmbridge/caddymodule/sessions"
	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/mapping"
	"github.com/llmbridge/llmbridge/sse"
)

// upgradeHeaders are the handshake's headers a turn request leaves out:
// a request with them would be proxied as a WebSocket upgrade by
// reverse_proxy. Accept-Encoding goes too: the turn's answer is read here,
// not by a client that could decode it.
var upgradeHeaders = []string{"Upgrade", "Connection", "Sec-Websocket-Key", "Sec-Websocket-Version",
	"Sec-Websocket-Extensions", "Sec-Websocket-Protocol", "Accept-Encoding"}

// runTurn serves one frame: a response.create event is run as an HTTP
// request through the site and its answer sent back as events; anything
// else is answered with an error event, and the connection stays open.
func (s *socket) runTurn(ctx context.Context, frame []byte) {
	s.turns++
	root := gjson.Parse(bytesString(frame))
	if !root.IsObject() {
		s.sendError(ctx, codec.NewError(mapping.ErrInvalidRequest, "a frame must be a JSON object: a response.create event"))
		return
	}
	if t := root.Get("type"); t.Str != "response.create" {
		s.sendError(ctx, &codec.Error{Status: 400, Kind: mapping.ErrInvalidRequest, Param: "type",
			Message: "unsupported event type " + strconv.Quote(t.String()) + ": llmbridge accepts response.create events"})
		return
	}
	if root.Get("background").Type == gjson.True {
		s.sendError(ctx, &codec.Error{Status: 400, Kind: mapping.ErrInvalidRequest, Param: "background",
			Message: "background responses are not supported in WebSocket mode"})
		return
	}
	if v := root.Get("stream_id"); v.Exists() && v.Type != gjson.Null {
		s.sendError(ctx, &codec.Error{Status: 400, Kind: mapping.ErrInvalidRequest, Param: "stream_id",
			Message: "stream_id multiplexing is not supported: responses run one at a time, in order; open a connection per stream"})
		return
	}
	// A turn naming the connection's last response continues it here;
	// any other id goes on in the request, to the conversations of the
	// site (or to a Responses upstream's own store).
	var conversation []byte
	prev := root.Get("previous_response_id")
	expand := prev.Type == gjson.String && s.last.id != "" && prev.Str == s.last.id
	if expand {
		conversation = s.last.conversation
	}
	body := pool.Get(len(frame) + len(conversation) + 32)
	defer pool.Put(body)
	*body = appendTurnBody((*body)[:0], root, conversation, expand)
	if root.Get("generate").Type == gjson.False {
		s.prewarm(ctx, root, *body)
		return
	}
	tw := newTurnWriter(s, ctx)
	s.serveTurn(tw, s.turnRequest(ctx, *body))
	tw.finish()
	if tw.found {
		s.remember(tw.result.ID, *body, tw.result.Output)
	}
}

// appendTurnBody appends the HTTP create body of a response.create event:
// its members but type and the transport fields (stream is implied,
// generate is the socket's), stream true, and, when expand, input
// continued from conversation without previous_response_id.
func appendTurnBody(dst []byte, event gjson.Result, conversation []byte, expand bool) []byte {
	dst = append(dst, `{"stream":true`...)
	var input gjson.Result
	event.ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "type", "stream", "generate", "background":
			return true
		case "previous_response_id", "input":
			if expand {
				if k.Str == "input" {
					input = v
				}
				return true
			}
		}
		dst = append(dst, ',')
		dst = append(dst, k.Raw...)
		dst = append(dst, ':')
		dst = append(dst, v.Raw...)
		return true
	})
	if expand {
		dst = append(dst, `,"input":`...)
		dst = sessions.AppendItems(dst, conversation, input)
	}
	return append(dst, '}')
}

// remember keeps an answered turn's conversation as the connection's last
// response, within the frame limit (a conversation larger than a request
// may be could not be sent on anyway) and within what the site's
// connections may hold together (socketMemory); otherwise the connection
// keeps none, and a turn continuing it is answered
// previous_response_not_found, as a client must be ready for.
func (s *socket) remember(id string, body []byte, output string) {
	held := int64(cap(s.last.conversation))
	conv := sessions.AppendConversation(s.last.conversation[:0], body, output)
	// The counter holds this connection's old buffer; it now holds conv.
	if total := s.h.sockets.held.Add(int64(cap(conv)) - held); int64(len(conv)) > s.frameLimit || total > s.h.sockets.budget() {
		s.h.sockets.held.Add(-int64(cap(conv)))
		s.last = lastResponse{}
		return
	}
	s.last = lastResponse{id: strings.Clone(id), conversation: conv}
}

// forget lets go of the connection's last conversation when it closes.
func (s *socket) forget() {
	s.h.sockets.held.Add(-int64(cap(s.last.conversation)))
	s.last = lastResponse{}
}

// prewarm answers a response.create with generate false, which OpenAI
// uses to load a conversation without generating: a completed response
// with no output, whose id later turns continue from.
func (s *socket) prewarm(ctx context.Context, event gjson.Result, body []byte) {
	id := "resp_" + randomHex(12)
	head := pool.Get(pool.MinPooled)
	defer pool.Put(head)
	for i, status := range [...]string{"in_progress", "completed"} {
		name := "response.created"
		if i == 1 {
			name = "response.completed"
		}
		b := append((*head)[:0], `{"type":"`...)
		b = append(b, name...)
		b = append(b, `","sequence_number":`...)
		b = strconv.AppendInt(b, int64(i), 10)
		b = append(b, `,"response":{"id":"`...)
		b = append(b, id...)
		b = append(b, `","object":"response","created_at":`...)
		b = strconv.AppendInt(b, time.Now().Unix(), 10)
		b = append(b, `,"status":"`...)
		b = append(b, status...)
		b = append(b, `","model":`...)
		if m := event.Get("model"); m.Type == gjson.String {
			b = append(b, m.Raw...)
		} else {
			b = append(b, `""`...)
		}
		b = append(b, `,"output":[]}}`...)
		*head = b
		if s.conn.Write(ctx, websocket.MessageText, b) != nil {
			return
		}
	}
	s.remember(id, body, "[]")
}

// turnRequest returns the HTTP request of a turn: the handshake's request
// as a POST of body, without the upgrade's headers.
func (s *socket) turnRequest(ctx context.Context, body []byte) *http.Request {
	r := s.upgrade.Clone(ctx)
	r.Method = http.MethodPost
	for _, name := range upgradeHeaders {
		r.Header.Del(name)
	}
	dropSocketBeta(r.Header)
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Accept", "text/event-stream")
	setBody(r, body)
	return r
}

// dropSocketBeta removes the OpenAI-Beta value that asks for WebSocket
// mode (responses_websockets=...): the turn goes on as an HTTP request.
func dropSocketBeta(hdr http.Header) {
	values := hdr.Values("OpenAI-Beta")
	if len(values) == 0 {
		return
	}
	var kept []string
	for _, v := range values {
		for part := range strings.SplitSeq(v, ",") {
			if p := strings.TrimSpace(part); p != "" && !strings.HasPrefix(p, "responses_websockets=") {
				kept = append(kept, p)
			}
		}
	}
	hdr.Del("OpenAI-Beta")
	if len(kept) > 0 {
		hdr.Set("OpenAI-Beta", strings.Join(kept, ","))
	}
}

// serveTurn runs a turn request through the site's handlers (or, outside
// a Caddy server, this handler and next). A handler's panic ends the turn
// and is logged, as Go's HTTP server does for a request: reverse_proxy
// aborts with http.ErrAbortHandler when the client went away mid-answer.
func (s *socket) serveTurn(tw *turnWriter, r *http.Request) {
	defer func() {
		if v := recover(); v != nil {
			if v != http.ErrAbortHandler {
				s.h.logger.Error("WebSocket turn panicked", zap.Any("panic", v), zap.Stack("stack"))
			}
			tw.failed = true
		}
	}()
	if s.server != nil {
		s.server.ServeHTTP(tw, r)
		return
	}
	if err := s.h.ServeHTTP(tw, r, s.next); err != nil {
		s.h.logger.Debug("WebSocket turn failed", zap.Error(err))
	}
}

// turnWriter is the response writer of a turn: the answer's SSE events go
// to the client as text frames as they come; a JSON answer (an error) is
// sent as an error event when the turn ends.
type turnWriter struct {
	s      *socket
	ctx    context.Context
	hdr    http.Header
	status int
	events *sse.Reader // a streamed answer's events
	body   []byte      // a JSON answer, up to maxErrorEventBody
	result sessions.Answer
	found  bool
	// failed reports that the answer could not be sent or read, or that
	// the turn panicked.
	failed bool
}

// maxErrorEventBody bounds the JSON answer of a turn that is kept to be
// sent as an event.
const maxErrorEventBody = maxResponseBody

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
		tw.events = sse.NewPushReader(max(int(tw.s.h.MaxEventSize), maxResponseBody))
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
		if len(tw.body)+len(p) <= maxErrorEventBody {
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
		if err := tw.s.conn.Write(tw.ctx, websocket.MessageText, ev.Data); err != nil {
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
			_ = tw.s.conn.Write(tw.ctx, websocket.MessageText, *buf)
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
		_ = tw.s.conn.Write(tw.ctx, websocket.MessageText, *buf)
		return
	}
	tw.s.sendError(tw.ctx, e)
}

// Interface guards
var _ http.ResponseWriter = (*turnWriter)(nil)
