package conversations

import (
	"bytes"
	"net/http"
	"strings"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/interactions"
	"github.com/llmbridge/llmbridge/sse"
)

// maxRecordedInteraction bounds what is kept of an answer to store it: an
// interaction larger than this is answered but not stored, and continuing
// it is an error saying it was not found.
const maxRecordedInteraction = 8 << 20

// Recorder passes the client's answer through and keeps a copy
// of it, so that the interaction is stored before the client can refer to
// it: a JSON answer is held until keep has stored it (Finish), and a
// stream's last write, the one with data: [DONE], waits for keep too.
// Stored any later, a client that continues the interaction at once would
// be told it does not exist.
type Recorder struct {
	http.ResponseWriter
	// keep stores the interaction the recorder holds; it runs once.
	keep   func(rec *Recorder)
	kept   bool
	status int
	body   []byte
	// held reports that body is a JSON answer not yet passed on.
	held bool
	// over reports that the answer outgrew maxRecordedInteraction.
	over bool
}

// streamEnd is how the last event of an Interactions stream ends.
var streamEnd = []byte("data: [DONE]\n\n")

// WriteHeader records the status.
func (rw *Recorder) WriteHeader(status int) {
	if rw.status == 0 {
		rw.status = status
	}
	rw.ResponseWriter.WriteHeader(status)
}

// Write keeps a copy of p and passes it on: a JSON answer once it is
// stored (Finish), a stream's end after storing it.
func (rw *Recorder) Write(p []byte) (int, error) {
	if rw.status == 0 {
		rw.WriteHeader(http.StatusOK)
	}
	if rw.status != http.StatusOK || rw.over {
		return rw.ResponseWriter.Write(p)
	}
	if len(rw.body)+len(p) > maxRecordedInteraction {
		// Too large to keep: what was held goes out as it is.
		rw.over = true
		if rw.held {
			rw.held = false
			if _, err := rw.ResponseWriter.Write(rw.body); err != nil {
				return 0, err
			}
		}
		rw.body = nil
		return rw.ResponseWriter.Write(p)
	}
	rw.body = append(rw.body, p...)
	if !strings.HasPrefix(rw.Header().Get("Content-Type"), "text/event-stream") {
		rw.held = true
		return len(p), nil
	}
	if bytes.HasSuffix(p, streamEnd) {
		rw.store()
	}
	return rw.ResponseWriter.Write(p)
}

// store runs keep once.
func (rw *Recorder) store() {
	if !rw.kept {
		rw.kept = true
		rw.keep(rw)
	}
}

// Finish stores a complete JSON answer and passes it on; the translation
// that wrote it has returned.
func (rw *Recorder) Finish() {
	if !rw.held {
		return
	}
	rw.held = false
	rw.store()
	_, _ = rw.ResponseWriter.Write(rw.body)
}

// Flush flushes the client's connection: a stream is flushed event by
// event. A held JSON answer stays held.
func (rw *Recorder) Flush() {
	if !rw.held {
		_ = http.NewResponseController(rw.ResponseWriter).Flush()
	}
}

// Unwrap returns the client's writer, for http.ResponseController.
func (rw *Recorder) Unwrap() http.ResponseWriter { return rw.ResponseWriter }

// answer returns the interaction the client was given: its JSON body, or
// the interaction its stream adds up to; nil when the stream did not
// complete.
func (rw *Recorder) answer() []byte {
	if !bytes.HasPrefix(rw.body, []byte("event:")) && !bytes.HasPrefix(rw.body, []byte("data:")) {
		return rw.body
	}
	resp, ok := foldStream(rw.body)
	if !ok {
		return nil
	}
	out, err := codec.AppendResponse(nil, interactions.Gemini, resp)
	if err != nil {
		return nil
	}
	return out
}

// foldStream adds up an Interactions stream into the response it carried,
// and reports whether the stream completed.
func foldStream(body []byte) (*codec.Response, bool) {
	dec, err := codec.NewStreamDecoder(interactions.Gemini)
	if err != nil {
		return nil, false
	}
	resp := new(codec.Response)
	r := sse.NewReader(bytes.NewReader(body), 0)
	var evs []codec.Event
	complete := false
	add := func(evs []codec.Event) {
		for i := range evs {
			complete = foldEvent(resp, &evs[i]) || complete
		}
	}
	for {
		ev, err := r.Next()
		if err != nil {
			break
		}
		evs = dec.Decode(evs[:0], ev.Name, ev.Data, ev.Bare)
		add(evs)
	}
	add(dec.Close(evs[:0], nil))
	return resp, complete
}

// foldEvent adds ev to resp, copying its strings (which alias the event),
// and reports whether it ends the stream cleanly.
func foldEvent(resp *codec.Response, ev *codec.Event) bool {
	switch ev.Type {
	case codec.EventStart:
		resp.ID, resp.Model, resp.Created = strings.Clone(ev.ID), strings.Clone(ev.Model), ev.Created
	case codec.EventPartStart:
		resp.Content = append(resp.Content, codec.Part{Type: ev.Part, ToolCallID: strings.Clone(ev.ToolCallID),
			ToolName: strings.Clone(ev.ToolName), IsError: ev.IsError})
	case codec.EventPartDelta:
		if n := len(resp.Content); n > 0 {
			p := &resp.Content[n-1]
			if p.Type == codec.PartToolCall || p.Type == codec.PartServerToolCall {
				p.Arguments = appendCopy(p.ArgumentsValue(), ev.Text)
			} else {
				p.Text = appendCopy(p.TextValue(), ev.Text)
			}
		}
	case codec.EventPartStop:
		if n := len(resp.Content); n > 0 && ev.Signature != "" {
			resp.Content[n-1].Signature, resp.Content[n-1].Origin = strings.Clone(ev.Signature), ev.Origin
		}
	case codec.EventStop:
		resp.StopReason = ev.StopReason
	case codec.EventUsage:
		resp.Usage = ev.Usage
	case codec.EventEnd:
		return true
	}
	return false
}

// appendCopy returns s followed by t in memory of its own: "" + t would be
// t itself, which aliases the decoder's buffer and changes with the next
// event.
func appendCopy(s, t string) string {
	if s == "" {
		return strings.Clone(t)
	}
	return s + t
}
