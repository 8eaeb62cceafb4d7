package caddymodule

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

// interactionRecorder passes the client's answer through and keeps a copy
// of it, so that the interaction can be stored once it is complete.
type interactionRecorder struct {
	http.ResponseWriter
	status int
	body   []byte
	// over reports that the answer outgrew maxRecordedInteraction.
	over bool
}

// WriteHeader records the status.
func (rw *interactionRecorder) WriteHeader(status int) {
	if rw.status == 0 {
		rw.status = status
	}
	rw.ResponseWriter.WriteHeader(status)
}

// Write passes p on and keeps a copy.
func (rw *interactionRecorder) Write(p []byte) (int, error) {
	if rw.status == 0 {
		rw.status = http.StatusOK
	}
	if !rw.over {
		if len(rw.body)+len(p) > maxRecordedInteraction {
			rw.over, rw.body = true, nil
		} else {
			rw.body = append(rw.body, p...)
		}
	}
	return rw.ResponseWriter.Write(p)
}

// Flush flushes the client's connection: a stream is flushed event by
// event.
func (rw *interactionRecorder) Flush() {
	_ = http.NewResponseController(rw.ResponseWriter).Flush()
}

// Unwrap returns the client's writer, for http.ResponseController.
func (rw *interactionRecorder) Unwrap() http.ResponseWriter { return rw.ResponseWriter }

// answer returns the interaction the client was given: its JSON body, or
// the interaction its stream adds up to; nil when the stream did not
// complete.
func (rw *interactionRecorder) answer() []byte {
	if !bytes.HasPrefix(rw.body, []byte("event:")) && !bytes.HasPrefix(rw.body, []byte("data:")) {
		return rw.body
	}
	resp, ok := foldStream(rw.body)
	if !ok {
		return nil
	}
	out, err := codec.AppendResponse(nil, interactions.GeminiInteractions, resp)
	if err != nil {
		return nil
	}
	return out
}

// foldStream adds up an Interactions stream into the response it carried,
// and reports whether the stream completed.
func foldStream(body []byte) (*codec.Response, bool) {
	dec, err := codec.NewStreamDecoder(interactions.GeminiInteractions)
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
				p.Arguments += ev.Text
			} else {
				p.Text += ev.Text
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
