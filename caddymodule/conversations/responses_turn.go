package conversations

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strings"
	"sync"

	"github.com/tidwall/gjson"

	"github.com/llmbridge/llmbridge/caddymodule/internal/pool"
	"github.com/llmbridge/llmbridge/caddymodule/sessions"
	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/sse"
)

// Turn is one request of a kept Responses conversation on its way through
// the handler (Responses.Serve): the writer the handler answers through,
// which reads the answered response from the answer, and what the handler
// tells it once it has read the request. A handler that decodes the
// request continues the conversation the request names (Continue) and
// says whether its answer is kept (SetStore); one that does not (a
// failover site, whose targets decode it) resolves both from the body's
// top level (Resolve). A turn never told to keep its answer passes the
// answer on untouched and reads nothing of it.
type Turn struct {
	http.ResponseWriter
	maxEvent  int
	maxAnswer int
	status    int
	events    *sse.Reader // a streamed answer's events
	body      *[]byte     // a JSON answer, up to maxAnswer; pooled
	result    sessions.Answer
	found     bool
	// keeps says that the answer is read and its conversation kept.
	keeps bool

	// conversations is what the turn continues from and keeps into.
	conversations *Responses
	// scope is the client's scope in the store (AppendScope), in
	// scopeBuf.
	scope    []byte
	scopeBuf [128]byte
	// asked is the request's body as the client sent it, or continued:
	// the conversation its answer is kept with.
	asked []byte
	// expanded holds a continued request's body; pooled.
	expanded *[]byte
	// request is the request body handed on, which the handler reads.
	request memoryBody
}

// memoryBody is a request body in memory.
type memoryBody struct{ bytes.Reader }

// Close does nothing: the body is in memory.
func (*memoryBody) Close() error { return nil }

// turns recycles turns: one serves every Responses request a translating
// site keeps.
var turns = sync.Pool{New: func() any { return new(Turn) }}

// getTurn returns a turn passing an answer on to w, which reads events up
// to maxEvent bytes and keeps a JSON answer, or the terminal event of a
// stream, up to maxAnswer, once it is told to keep it.
func getTurn(w http.ResponseWriter, maxEvent, maxAnswer int) *Turn {
	t := turns.Get().(*Turn)
	t.ResponseWriter, t.maxEvent, t.maxAnswer = w, maxEvent, maxAnswer
	return t
}

// putTurn gives a turn back once its answer, which aliases its buffer,
// and its request are no longer used.
func putTurn(t *Turn) {
	if t.body != nil {
		pool.Put(t.body)
	}
	if t.expanded != nil {
		pool.Put(t.expanded)
	}
	*t = Turn{}
	turns.Put(t)
}

// TurnOf returns the turn w is, when w is the writer of a kept Responses
// conversation's request, and nil otherwise (a failover target's writer
// wraps its site's turn, and leaves the conversation to the site).
func TurnOf(w http.ResponseWriter) *Turn {
	t, _ := w.(*Turn)
	return t
}

// Continue returns body, a request that continues the conversation kept
// under id (its previous_response_id), expanded with that conversation:
// previous_response_id removed, the conversation's items before the
// body's own input. The expanded body belongs to the turn, which keeps
// the answer's conversation with it. An id the client's scope does not
// hold is refused with previous_response_not_found, a store that cannot
// be read with a 503.
func (t *Turn) Continue(ctx context.Context, id string, body []byte) ([]byte, *codec.Error) {
	c := t.conversations
	conversation, err := c.Store.Conversation(ctx, pool.String(append(t.scope, id...)))
	if err != nil {
		return nil, c.continuationError(id, err)
	}
	if t.expanded == nil {
		t.expanded = pool.Get(len(body) + len(conversation) + 64)
	}
	*t.expanded = sessions.ExpandBody((*t.expanded)[:0], body, conversation)
	t.asked = *t.expanded
	return t.asked, nil
}

// SetStore says whether the answer is kept: store is the request's own
// setting (true when it says nothing).
func (t *Turn) SetStore(store bool) { t.keeps = store }

// Resolve is Continue and SetStore for a handler that does not decode the
// request: it reads previous_response_id and store from body's top level,
// and returns body continued when it names a conversation.
func (t *Turn) Resolve(ctx context.Context, body []byte) ([]byte, *codec.Error) {
	ask := sessions.ReadAsk(body)
	t.SetStore(ask.Store)
	if ask.Previous == "" {
		return body, nil
	}
	return t.Continue(ctx, ask.Previous, body)
}

// WriteHeader notes the status and how the answer is framed.
func (t *Turn) WriteHeader(status int) {
	if t.status == 0 && status >= 200 {
		t.status = status
		if t.keeps && status < 300 && strings.HasPrefix(t.Header().Get("Content-Type"), "text/event-stream") {
			t.events = sse.NewPushReader(max(t.maxEvent, t.maxAnswer))
		}
	}
	t.ResponseWriter.WriteHeader(status)
}

// Write passes p on and reads the answer from it.
func (t *Turn) Write(p []byte) (int, error) {
	if t.status == 0 {
		t.WriteHeader(http.StatusOK)
	}
	n, err := t.ResponseWriter.Write(p)
	switch {
	case !t.keeps || t.status >= 300 || t.found:
	case t.events != nil:
		t.events.Push(p[:n])
		for {
			ev, err := t.events.Next()
			if err == sse.ErrNeedInput {
				break
			}
			if err != nil {
				// An event past the bound: keep nothing.
				t.status = http.StatusInsufficientStorage
				break
			}
			if sessions.TerminalEvent(ev.Name) {
				t.result, t.found = sessions.ReadAnswer(gjson.GetBytes(ev.Data, "response"))
			}
		}
	case t.body == nil || len(*t.body)+n <= t.maxAnswer:
		if t.body == nil {
			t.body = pool.Get(n)
		}
		*t.body = append(*t.body, p[:n]...)
	default:
		t.status = http.StatusInsufficientStorage // too large to keep: keep nothing
	}
	return n, err
}

// FlushError flushes the client's writer.
func (t *Turn) FlushError() error {
	return http.NewResponseController(t.ResponseWriter).Flush()
}

// ReadFrom copies through Write, so that the answer is read.
func (t *Turn) ReadFrom(r io.Reader) (int64, error) {
	// Without ReadFrom, so that io.Copy writes through Write.
	return io.Copy(struct{ io.Writer }{t}, r)
}

// Unwrap returns the client's writer.
func (t *Turn) Unwrap() http.ResponseWriter { return t.ResponseWriter }

// answer returns the answered response, when the answer was a complete
// one.
func (t *Turn) answer() (sessions.Answer, bool) {
	if !t.keeps {
		return sessions.Answer{}, false
	}
	if t.found || t.status < 200 || t.status >= 300 || t.events != nil {
		return t.result, t.found
	}
	if t.body == nil {
		return sessions.Answer{}, false
	}
	return sessions.ReadAnswer(gjson.Parse(pool.String(*t.body)))
}

// Interface guards
var (
	_ http.ResponseWriter = (*Turn)(nil)
	_ io.ReaderFrom       = (*Turn)(nil)
)
