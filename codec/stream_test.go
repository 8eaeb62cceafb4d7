package codec

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/llmbridge/llmbridge/sse"
)

// decodeStream runs an upstream SSE body of protocol p through p's stream
// decoder, as the Caddy response writer does, and returns detached copies of
// the canonical events. cause is passed to Close (nil for a clean end of
// body).
func decodeStream(t *testing.T, p Protocol, body string, cause error) []Event {
	t.Helper()
	dec := streamDecoder(p)
	r := sse.NewReader(strings.NewReader(body), 0)
	var out []Event
	var buf []Event
	for {
		ev, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			if cause == nil {
				cause = err
			}
			break
		}
		buf = dec.Decode(buf[:0], ev.Name, ev.Data, ev.Bare)
		out = appendDetached(out, buf)
	}
	buf = dec.Close(buf[:0], cause)
	return appendDetached(out, buf)
}

// appendDetached appends copies of evs whose strings no longer alias the
// decoder's input.
func appendDetached(out, evs []Event) []Event {
	for _, ev := range evs {
		ev.Text = strings.Clone(ev.Text)
		ev.ID = strings.Clone(ev.ID)
		ev.Model = strings.Clone(ev.Model)
		ev.StopSequence = strings.Clone(ev.StopSequence)
		ev.ToolCallID = strings.Clone(ev.ToolCallID)
		ev.ToolName = strings.Clone(ev.ToolName)
		ev.ItemID = strings.Clone(ev.ItemID)
		ev.Signature = strings.Clone(ev.Signature)
		ev.StopDetails.Category = strings.Clone(ev.StopDetails.Category)
		ev.StopDetails.Explanation = strings.Clone(ev.StopDetails.Explanation)
		ev.Citation.URL, ev.Citation.Title = strings.Clone(ev.Citation.URL), strings.Clone(ev.Citation.Title)
		ev.Citation.CitedText = strings.Clone(ev.Citation.CitedText)
		if ev.Sources != nil {
			srcs := make([]Source, len(ev.Sources))
			for k, s := range ev.Sources {
				srcs[k] = Source{URL: strings.Clone(s.URL), Title: strings.Clone(s.Title), PageAge: strings.Clone(s.PageAge)}
			}
			ev.Sources = srcs
		}
		if ev.Err != nil {
			e := *ev.Err
			e.Message, e.Code, e.Param = strings.Clone(e.Message), strings.Clone(e.Code), strings.Clone(e.Param)
			ev.Err = &e
		}
		out = append(out, ev)
	}
	return out
}

// checkWellFormed fails unless evs follows the grammar documented on
// EventType.
func checkWellFormed(t *testing.T, evs []Event) {
	t.Helper()
	if err := wellFormed(evs); err != nil {
		t.Fatal(err)
	}
}

// wellFormed returns an error describing the first place where evs breaks
// the grammar documented on EventType, or nil. Fuzz targets use it to
// report rather than stop at the first bad stream.
func wellFormed(evs []Event) error {
	if len(evs) == 0 {
		return errors.New("no events")
	}
	last := evs[len(evs)-1].Type
	if last != EventEnd && last != EventError {
		return fmt.Errorf("stream does not end with end or error: %v", last)
	}
	open, next, started, stopped := -1, 0, false, false
	for i, ev := range evs {
		bad := func(why string) error { return fmt.Errorf("event %d (%v): %s; events %+v", i, ev.Type, why, evs) }
		if i < len(evs)-1 && (ev.Type == EventEnd || ev.Type == EventError) {
			return bad("terminal event before the end")
		}
		if !started && ev.Type != EventStart && ev.Type != EventError {
			return bad("first event is not start")
		}
		switch ev.Type {
		case EventStart:
			if started {
				return bad("second start")
			}
			started = true
		case EventPartStart:
			if open >= 0 || ev.Index != next || stopped {
				return bad("part start out of order")
			}
			open = ev.Index
			next++
		case EventPartDelta:
			if ev.Index != open || ev.Text == "" {
				return bad("delta for a part that is not open, or empty")
			}
		case EventCitation:
			if ev.Index != open {
				return bad("citation for a part that is not open")
			}
		case EventDropped:
			if ev.Text == "" {
				return bad("dropped output without a kind")
			}
		case EventPartStop:
			if ev.Index != open {
				return bad("stop for a part that is not open")
			}
			open = -1
		case EventStop:
			if open >= 0 || stopped {
				return bad("stop with a part open, or twice")
			}
			stopped = true
		case EventEnd:
			if open >= 0 {
				return bad("end with a part open")
			}
		case EventError:
			if ev.Err == nil {
				return bad("error without Err")
			}
		}
	}
	return nil
}

// streamSummary is what a client ends up with after a stream.
type streamSummary struct {
	Text     string
	Refusal  string
	Tools    string // "id name arguments;" for each tool call, in order
	Stop     StopReason
	StopSeq  string
	Usage    Usage
	ID       string
	Model    string
	Err      *Error
	Complete bool
	// Searches are the queries of hosted search calls ("query;" each),
	// Results the pages of their results, Cites the citations.
	Searches string
	Results  int
	Cites    int
}

// summarize folds canonical events into what a client would assemble.
func summarize(evs []Event) streamSummary {
	var s streamSummary
	kinds := map[int]PartType{}
	var tools []string // "id name arguments" per tool call part
	for _, ev := range evs {
		switch ev.Type {
		case EventStart:
			s.ID, s.Model = ev.ID, ev.Model
			if ev.Usage.Known {
				s.Usage = ev.Usage
			}
		case EventPartStart:
			kinds[ev.Index] = ev.Part
			if ev.Part == PartToolCall {
				tools = append(tools, ev.ToolCallID+" "+ev.ToolName+" ")
			}
			s.Results += len(ev.Sources)
		case EventCitation:
			s.Cites++
		case EventPartStop:
			if kinds[ev.Index] == PartServerToolCall {
				s.Searches += ";"
			}
		case EventPartDelta:
			if kinds[ev.Index] == PartServerToolCall {
				s.Searches += ev.Text
			} else if kinds[ev.Index] == PartToolCall {
				tools[len(tools)-1] += ev.Text
			} else if kinds[ev.Index] == PartRefusal {
				s.Refusal += ev.Text
			} else {
				s.Text += ev.Text
			}
		case EventUsage:
			s.Usage = ev.Usage
		case EventStop:
			s.Stop, s.StopSeq = ev.StopReason, ev.StopSequence
		case EventEnd:
			s.Complete = true
		case EventError:
			s.Err = ev.Err
		}
	}
	for _, tc := range tools {
		s.Tools += tc + ";"
	}
	return s
}

// encodeStream encodes canonical events for a client of protocol p.
func encodeStream(p Protocol, req *Request, evs []Event) string {
	enc := streamEncoder(p, req)
	var dst []byte
	for i := range evs {
		dst = enc.Encode(dst, &evs[i])
	}
	return string(dst)
}

var errTestBroken = errors.New("connection reset by peer")

func TestAppendResponseEvents(t *testing.T) {
	resp := &Response{ID: "r", Model: "m", StopReason: 1, Usage: Usage{Known: true, InputTokens: 3, OutputTokens: 4},
		Content: []Part{{Type: PartText, Text: "a"}, {Type: PartRefusal, Text: "no"}, {Type: PartText},
			{Type: PartToolCall, ToolCallID: "call_1", ToolName: "get", Arguments: `{"x":1}`}}}
	evs := AppendResponseEvents(nil, resp)
	checkWellFormed(t, evs)
	if ev := evs[len(evs)-6]; ev.Type != EventPartStart || ev.ToolCallID != "call_1" || ev.ToolName != "get" || evs[len(evs)-5].Text != `{"x":1}` {
		t.Errorf("tool call events %+v %+v", ev, evs[len(evs)-5])
	}
	s := summarize(evs)
	if s.Text != "a" || s.Refusal != "no" || s.Stop != 1 || s.Usage != resp.Usage || !s.Complete || s.ID != "r" || s.Model != "m" {
		t.Errorf("summary %+v", s)
	}
}
