package caddymodule

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"sync"

	"github.com/tidwall/gjson"

	"github.com/llmbridge/llmbridge/caddymodule/internal/pool"
	"github.com/llmbridge/llmbridge/caddymodule/sessions"
	"github.com/llmbridge/llmbridge/sse"
)

// conversationRecorder passes an answer to the client and reads the
// answered response from it: the terminal event of a stream, or the body
// of a JSON answer.
type conversationRecorder struct {
	http.ResponseWriter
	maxEvent int
	status   int
	events   *sse.Reader // a streamed answer's events
	body     *[]byte     // a JSON answer, up to maxResponseBody; pooled
	result   sessions.Answer
	found    bool
	// request is the request body handed on, which serve reads.
	request memoryBody
}

// memoryBody is a request body in memory.
type memoryBody struct{ bytes.Reader }

// Close does nothing: the body is in memory.
func (*memoryBody) Close() error { return nil }

// conversationRecorders recycles recorders: one serves every Responses
// request a translating site keeps.
var conversationRecorders = sync.Pool{New: func() any { return new(conversationRecorder) }}

// getConversationRecorder returns a recorder passing an answer on to w.
func getConversationRecorder(w http.ResponseWriter, maxEvent int) *conversationRecorder {
	cr := conversationRecorders.Get().(*conversationRecorder)
	cr.ResponseWriter, cr.maxEvent = w, maxEvent
	return cr
}

// putConversationRecorder gives a recorder back once its answer, which
// aliases its buffer, is no longer used.
func putConversationRecorder(cr *conversationRecorder) {
	if cr.body != nil {
		pool.Put(cr.body)
	}
	*cr = conversationRecorder{}
	conversationRecorders.Put(cr)
}

// WriteHeader notes the status and how the answer is framed.
func (cr *conversationRecorder) WriteHeader(status int) {
	if cr.status == 0 && status >= 200 {
		cr.status = status
		if status < 300 && strings.HasPrefix(cr.Header().Get("Content-Type"), "text/event-stream") {
			cr.events = sse.NewPushReader(max(cr.maxEvent, maxResponseBody))
		}
	}
	cr.ResponseWriter.WriteHeader(status)
}

// Write passes p on and reads the answer from it.
func (cr *conversationRecorder) Write(p []byte) (int, error) {
	if cr.status == 0 {
		cr.WriteHeader(http.StatusOK)
	}
	n, err := cr.ResponseWriter.Write(p)
	switch {
	case cr.status >= 300 || cr.found:
	case cr.events != nil:
		cr.events.Push(p[:n])
		for {
			ev, err := cr.events.Next()
			if err == sse.ErrNeedInput {
				break
			}
			if err != nil {
				// An event past the bound: keep nothing.
				cr.status = http.StatusInsufficientStorage
				break
			}
			if sessions.TerminalEvent(ev.Name) {
				cr.result, cr.found = sessions.ReadAnswer(gjson.GetBytes(ev.Data, "response"))
			}
		}
	case cr.body == nil || len(*cr.body)+n <= maxResponseBody:
		if cr.body == nil {
			cr.body = pool.Get(n)
		}
		*cr.body = append(*cr.body, p[:n]...)
	default:
		cr.status = http.StatusInsufficientStorage // too large to keep: keep nothing
	}
	return n, err
}

// FlushError flushes the client's writer.
func (cr *conversationRecorder) FlushError() error {
	return http.NewResponseController(cr.ResponseWriter).Flush()
}

// ReadFrom copies through Write, so that the answer is read.
func (cr *conversationRecorder) ReadFrom(r io.Reader) (int64, error) {
	return io.Copy(writerOnly{cr}, r)
}

// Unwrap returns the client's writer.
func (cr *conversationRecorder) Unwrap() http.ResponseWriter { return cr.ResponseWriter }

// answer returns the answered response, when the answer was a complete
// one.
func (cr *conversationRecorder) answer() (sessions.Answer, bool) {
	if cr.found || cr.status < 200 || cr.status >= 300 || cr.events != nil {
		return cr.result, cr.found
	}
	if cr.body == nil {
		return sessions.Answer{}, false
	}
	return sessions.ReadAnswer(gjson.Parse(bytesString(*cr.body)))
}

// Interface guards
var (
	_ http.ResponseWriter = (*conversationRecorder)(nil)
	_ io.ReaderFrom       = (*conversationRecorder)(nil)
)
