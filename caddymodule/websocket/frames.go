package websocket

import (
	"context"
	"io"
	"net/http"
	"strconv"

	ws "github.com/coder/websocket"

	"github.com/llmbridge/llmbridge/caddymodule/internal/pool"
	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/mapping"
)

// A connection's frames: what the reading goroutine does with each, the
// queue of turns and its runner, the age limit, the idle pings, and the
// error events.

// readFrames reads the client's frames and queues them for the turn
// runner until the connection ends.
func (s *socket) readFrames(ctx context.Context) {
	for {
		typ, rd, err := s.conn.Reader(ctx)
		if err != nil {
			return
		}
		if typ != ws.MessageText {
			s.sendError(ctx, codec.NewError(mapping.ErrInvalidRequest, "binary frames are not accepted: send each response.create event as a text frame"))
			_ = s.conn.Close(ws.StatusUnsupportedData, "binary frames are not accepted")
			return
		}
		buf, tooLarge, err := readFrame(rd, s.frameLimit)
		if tooLarge {
			pool.Put(buf)
			s.sendError(ctx, codec.NewError(mapping.ErrRequestTooLarge, "frame exceeds the limit of "+strconv.FormatInt(s.frameLimit, 10)+" bytes"))
			_ = s.conn.Close(ws.StatusMessageTooBig, "frame too large")
			return
		}
		if err != nil {
			pool.Put(buf)
			return
		}
		if !s.enqueue(buf) {
			pool.Put(buf)
			s.sendError(ctx, &codec.Error{Status: http.StatusTooManyRequests, Kind: mapping.ErrRateLimit,
				Message: "too many response.create events queued on this connection: at most " + strconv.Itoa(maxQueuedTurns) + ", of " +
					strconv.FormatInt(s.frameLimit, 10) + " bytes together, wait behind the response in progress"})
		}
	}
}

// enqueue queues a frame and starts the turn runner when none runs; it
// reports false when the queue is full: maxQueuedTurns frames, or frames
// of more bytes together than one frame may have, so that a connection
// holds no more waiting input than a request may carry.
func (s *socket) enqueue(f *[]byte) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.queue) >= maxQueuedTurns || len(s.queue) > 0 && s.queued+int64(len(*f)) > s.frameLimit {
		return false
	}
	s.queue = append(s.queue, f)
	s.queued += int64(len(*f))
	if !s.busy {
		s.busy = true
		s.running.Add(1)
		go s.runTurns()
	}
	return true
}

// readFrame reads a frame into a pooled buffer, up to limit bytes; it
// reports a frame over the limit.
func readFrame(rd io.Reader, limit int64) (*[]byte, bool, error) {
	buf := pool.Get(pool.StreamSize)
	lr := io.LimitReader(rd, limit+1)
	for {
		if len(*buf) == cap(*buf) {
			// Double, from the pools: append grows a large slice by a
			// quarter, which for a megabyte frame was twenty copies and
			// five times the frame in garbage.
			grown := pool.Get(2 * cap(*buf))
			*grown = append((*grown)[:0], *buf...)
			pool.Put(buf)
			buf = grown
		}
		n, err := lr.Read((*buf)[len(*buf):cap(*buf)])
		*buf = (*buf)[:len(*buf)+n]
		if int64(len(*buf)) > limit {
			return buf, true, nil
		}
		if err == io.EOF {
			return buf, false, nil
		}
		if err != nil {
			return buf, false, err
		}
	}
}

// runTurns runs the queued turns one at a time, in order, and returns
// once the queue is empty, the connection ends, or it reached its age
// limit (then the client is told, after the turn running).
func (s *socket) runTurns() {
	defer s.running.Done()
	for {
		s.mu.Lock()
		switch {
		case s.closing || s.ctx.Err() != nil:
			s.busy = false
			s.mu.Unlock()
			return
		case s.expired:
			// busy stays set: no runner starts again on a connection
			// that is closing. The frames waiting are dropped with it.
			s.mu.Unlock()
			s.closeAtAgeLimit()
			return
		case len(s.queue) == 0:
			s.busy = false
			s.mu.Unlock()
			return
		}
		f := s.queue[0]
		s.queue[0] = nil
		s.queue = s.queue[1:]
		s.queued -= int64(len(*f))
		s.mu.Unlock()
		s.runTurn(s.ctx, *f)
		pool.Put(f)
	}
}

// ageLimitReached closes the connection at its age limit, or has the turn
// runner do so once the turn running ends.
func (s *socket) ageLimitReached() {
	s.mu.Lock()
	s.expired = true
	busy := s.busy || s.closing
	if !busy {
		// No turn may start meanwhile: the runner sees expired.
		s.busy = true
	}
	s.mu.Unlock()
	if !busy {
		s.closeAtAgeLimit()
	}
}

// pingIdle pings the connection when no turn runs (a turn's frames show
// the client is there) and closes it when no pong comes in time.
func (s *socket) pingIdle() {
	s.mu.Lock()
	busy, closing := s.busy, s.closing
	s.mu.Unlock()
	if closing {
		return
	}
	if !busy {
		ctx, cancel := context.WithTimeout(s.ctx, s.timings.pingTimeout)
		err := s.conn.Ping(ctx)
		cancel()
		if err != nil {
			_ = s.conn.CloseNow()
			return
		}
	}
	s.ping.Reset(s.timings.pingInterval)
}

// closeAtAgeLimit tells the client its connection reached the age limit
// and closes it.
func (s *socket) closeAtAgeLimit() {
	s.sendError(s.ctx, &codec.Error{Status: http.StatusBadRequest, Kind: mapping.ErrInvalidRequest, Code: "websocket_connection_limit_reached", Protocol: codec.OpenAIResponses,
		Message: "Responses WebSocket connection limit reached (" + s.timings.maxAge.String() + "). Open a new connection to continue."})
	_ = s.conn.Close(ws.StatusNormalClosure, "connection age limit reached")
}

// sendError sends e as an error event.
func (s *socket) sendError(ctx context.Context, e *codec.Error) {
	buf := pool.Get(pool.MinPooled)
	defer pool.Put(buf)
	*buf = appendErrorEvent((*buf)[:0], e)
	_ = s.conn.Write(ctx, ws.MessageText, *buf)
}

// appendErrorEvent appends e as the error event of Responses WebSocket
// mode: {"type":"error","status":..,"error":{OpenAI's error object}}.
func appendErrorEvent(dst []byte, e *codec.Error) []byte {
	dst = append(dst, `{"type":"error","status":`...)
	dst = strconv.AppendInt(dst, int64(codec.ClientStatus(codec.OpenAIResponses, e)), 10)
	dst = append(dst, ',')
	body := codec.AppendError(nil, codec.OpenAIResponses, e)
	return append(dst, body[1:]...)
}
