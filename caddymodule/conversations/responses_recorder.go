package conversations

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

// recorder passes an answer to the client and reads the
// answered response from it: the terminal event of a stream, or the body
// of a JSON answer.
type recorder struct {
	http.ResponseWriter
	maxEvent  int
	maxAnswer int
	status    int
	events    *sse.Reader // a streamed answer's events
	body      *[]byte     // a JSON answer, up to maxAnswer; pooled
	result    sessions.Answer
	found     bool
	// request is the request body handed on, which serve reads.
	request memoryBody
}

// memoryBody is a request body in memory.
type memoryBody struct{ bytes.Reader }

// Close does nothing: the body is in memory.
func (*memoryBody) Close() error { return nil }

// recorders recycles recorders: one serves every Responses
// request a translating site keeps.
var recorders = sync.Pool{New: func() any { return new(recorder) }}

// getRecorder returns a recorder passing an answer on to w, which reads
// events up to maxEvent bytes and keeps a JSON answer, or the terminal
// event of a stream, up to maxAnswer.
func getRecorder(w http.ResponseWriter, maxEvent, maxAnswer int) *recorder {
	cr := recorders.Get().(*recorder)
	cr.ResponseWriter, cr.maxEvent, cr.maxAnswer = w, maxEvent, maxAnswer
	return cr
}

// putRecorder gives a recorder back once its answer, which
// aliases its buffer, is no longer used.
func putRecorder(cr *recorder) {
	if cr.body != nil {
		pool.Put(cr.body)
	}
	*cr = recorder{}
	recorders.Put(cr)
}

// WriteHeader notes the status and how the answer is framed.
func (cr *recorder) WriteHeader(status int) {
	if cr.status == 0 && status >= 200 {
		cr.status = status
		if status < 300 && strings.HasPrefix(cr.Header().Get("Content-Type"), "text/event-stream") {
			cr.events = sse.NewPushReader(max(cr.maxEvent, cr.maxAnswer))
		}
	}
	cr.ResponseWriter.WriteHeader(status)
}

// Write passes p on and reads the answer from it.
func (cr *recorder) Write(p []byte) (int, error) {
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
	case cr.body == nil || len(*cr.body)+n <= cr.maxAnswer:
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
func (cr *recorder) FlushError() error {
	return http.NewResponseController(cr.ResponseWriter).Flush()
}

// ReadFrom copies through Write, so that the answer is read.
func (cr *recorder) ReadFrom(r io.Reader) (int64, error) {
	// Without ReadFrom, so that io.Copy writes through Write.
	return io.Copy(struct{ io.Writer }{cr}, r)
}

// Unwrap returns the client's writer.
func (cr *recorder) Unwrap() http.ResponseWriter { return cr.ResponseWriter }

// answer returns the answered response, when the answer was a complete
// one.
func (cr *recorder) answer() (sessions.Answer, bool) {
	if cr.found || cr.status < 200 || cr.status >= 300 || cr.events != nil {
		return cr.result, cr.found
	}
	if cr.body == nil {
		return sessions.Answer{}, false
	}
	return sessions.ReadAnswer(gjson.Parse(pool.String(*cr.body)))
}

// Interface guards
var (
	_ http.ResponseWriter = (*recorder)(nil)
	_ io.ReaderFrom       = (*recorder)(nil)
)
