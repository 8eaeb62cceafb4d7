package websocket

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	ws "github.com/coder/websocket"
	"github.com/tidwall/gjson"
	"go.uber.org/zap"

	"github.com/llmbridge/llmbridge/caddymodule/internal/pool"
	"github.com/llmbridge/llmbridge/caddymodule/sessions"
	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/mapping"
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
	// The members a turn reads, in one skim of the frame (a megabyte
	// frame of an agent's turn was walked by gjson once per member).
	var m [len(turnKeys)]gjson.Result
	if !codec.ReadTopMembers(frame, turnKeys[:], m[:]) {
		s.sendError(ctx, codec.NewError(mapping.ErrInvalidRequest, "a frame must be a JSON object: a response.create event"))
		return
	}
	if t := m[turnType]; t.Str != "response.create" {
		s.sendError(ctx, &codec.Error{Status: 400, Kind: mapping.ErrInvalidRequest, Param: "type",
			Message: "unsupported event type " + strconv.Quote(t.String()) + ": llmbridge accepts response.create events"})
		return
	}
	if m[turnBackground].Type == gjson.True {
		s.sendError(ctx, &codec.Error{Status: 400, Kind: mapping.ErrInvalidRequest, Param: "background",
			Message: "background responses are not supported in WebSocket mode"})
		return
	}
	if v := m[turnStreamID]; v.Exists() && v.Type != gjson.Null {
		s.sendError(ctx, &codec.Error{Status: 400, Kind: mapping.ErrInvalidRequest, Param: "stream_id",
			Message: "stream_id multiplexing is not supported: responses run one at a time, in order; open a connection per stream"})
		return
	}
	// A turn naming the connection's last response continues it here;
	// any other id goes on in the request, to the conversations of the
	// site (or to a Responses upstream's own store).
	var conversation []byte
	prev := m[turnPrevious]
	expand := prev.Type == gjson.String && s.last.id != "" && prev.Str == s.last.id
	if expand {
		conversation = s.last.conversation
	}
	body := pool.Get(len(frame) + len(conversation) + 32)
	defer pool.Put(body)
	*body = appendTurnBody((*body)[:0], frame, conversation, expand)
	if m[turnGenerate].Type == gjson.False {
		s.prewarm(ctx, frame, *body)
		return
	}
	tw := newTurnWriter(s, ctx)
	s.serveTurn(tw, s.turnRequest(ctx, *body))
	tw.finish()
	if tw.found {
		s.remember(tw.result.ID, *body, tw.result.Output)
	}
}

// turnKeys are the members of a response.create event that runTurn reads,
// at the indexes turnType and on.
var turnKeys = [...]string{"type", "background", "stream_id", "previous_response_id", "generate"}

const (
	turnType = iota
	turnBackground
	turnStreamID
	turnPrevious
	turnGenerate
)

// appendTurnBody appends the HTTP create body of a response.create event:
// its members but type and the transport fields (stream is implied,
// generate is the socket's), stream true, and, when expand, input
// continued from conversation without previous_response_id. The members
// are copied from one skim of the event (codec.SkimTopMembers); an event
// whose top level is malformed is copied as gjson reads it, so that the
// codec answers it as it answers such a body.
func appendTurnBody(dst []byte, frame, conversation []byte, expand bool) []byte {
	start := len(dst)
	dst = append(dst, `{"stream":true`...)
	var input gjson.Result
	_, whole := codec.SkimTopMembers(frame, func(key, literal, raw string) bool {
		switch key {
		case "type", "stream", "generate", "background":
			return true
		case "previous_response_id", "input":
			if expand {
				if key == "input" {
					input = gjson.Parse(raw)
				}
				return true
			}
		}
		dst = append(dst, `,"`...)
		dst = append(dst, literal...)
		dst = append(dst, `":`...)
		dst = append(dst, raw...)
		return true
	})
	if !whole {
		return appendTurnBodyLenient(dst[:start], gjson.ParseBytes(frame), conversation, expand)
	}
	if expand {
		dst = append(dst, `,"input":`...)
		dst = sessions.AppendItems(dst, conversation, input)
	}
	return append(dst, '}')
}

// appendTurnBodyLenient is appendTurnBody for an event whose top level is
// malformed, read by gjson as before the skim.
func appendTurnBodyLenient(dst []byte, event gjson.Result, conversation []byte, expand bool) []byte {
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
// connections may hold together (Config.MaxMemory); otherwise the connection
// keeps none, and a turn continuing it is answered
// previous_response_not_found, as a client must be ready for.
func (s *socket) remember(id string, body []byte, output string) {
	held := int64(cap(s.last.conversation))
	conv := sessions.AppendConversation(s.last.conversation[:0], body, output)
	// The counter holds this connection's old buffer; it now holds conv.
	if total := s.srv.held.Add(int64(cap(conv)) - held); int64(len(conv)) > s.frameLimit || total > s.srv.MaxMemory {
		s.srv.held.Add(-int64(cap(conv)))
		s.last = lastResponse{}
		return
	}
	s.last = lastResponse{id: strings.Clone(id), conversation: conv}
}

// forget lets go of the connection's last conversation when it closes.
func (s *socket) forget() {
	s.srv.held.Add(-int64(cap(s.last.conversation)))
	s.last = lastResponse{}
}

// prewarm answers a response.create with generate false, which OpenAI
// uses to load a conversation without generating: a completed response
// with no output, whose id later turns continue from. frame is the
// event, body the HTTP body made of it.
func (s *socket) prewarm(ctx context.Context, frame, body []byte) {
	id := "resp_" + randomHex(12)
	model := gjson.GetBytes(frame, "model")
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
		if model.Type == gjson.String {
			b = append(b, model.Raw...)
		} else {
			b = append(b, `""`...)
		}
		b = append(b, `,"output":[]}}`...)
		*head = b
		if s.conn.Write(ctx, ws.MessageText, b) != nil {
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
	setTurnBody(r, body)
	return r
}

// turnBody is a turn request's body, the frame's HTTP body in memory.
type turnBody struct{ bytes.Reader }

// Close does nothing: the body is in memory.
func (*turnBody) Close() error { return nil }

// setTurnBody makes b the body of the turn request r, as a client's HTTP
// request with a known length would carry it. b stays unmodified until
// the turn ends: the handlers read it while the turn runs.
func setTurnBody(r *http.Request, b []byte) {
	tb := &turnBody{}
	tb.Reset(b)
	r.Body = tb
	r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(b)), nil }
	r.ContentLength = int64(len(b))
	r.Header.Set("Content-Length", strconv.Itoa(len(b)))
	r.TransferEncoding = nil
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
// a Caddy server, the host and next). A handler's panic ends the turn
// and is logged, as Go's HTTP server does for a request: reverse_proxy
// aborts with http.ErrAbortHandler when the client went away mid-answer.
func (s *socket) serveTurn(tw *turnWriter, r *http.Request) {
	defer func() {
		if v := recover(); v != nil {
			if v != http.ErrAbortHandler {
				s.srv.Logger.Error("WebSocket turn panicked", zap.Any("panic", v), zap.Stack("stack"))
			}
			tw.failed = true
		}
	}()
	if s.server != nil {
		s.server.ServeHTTP(tw, r)
		return
	}
	if err := s.srv.host.ServeHTTP(tw, r, s.next); err != nil {
		s.srv.Logger.Debug("WebSocket turn failed", zap.Error(err))
	}
}
