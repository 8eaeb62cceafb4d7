package codectest

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/sse"
)

// DecodeStream runs an upstream SSE body of protocol p through p's stream
// decoder, as the Caddy response writer does, and returns detached copies of
// the canonical events. cause is passed to Close (nil for a clean end of
// body).
func DecodeStream(t *testing.T, p codec.Protocol, body string, cause error) []codec.Event {
	t.Helper()
	dec := StreamDecoder(p)
	r := sse.NewReader(strings.NewReader(body), 0)
	var out []codec.Event
	var buf []codec.Event
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
		out = AppendDetached(out, buf)
	}
	buf = dec.Close(buf[:0], cause)
	return AppendDetached(out, buf)
}

// AppendDetached appends copies of evs whose strings no longer alias the
// decoder's input.
func AppendDetached(out, evs []codec.Event) []codec.Event {
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
			srcs := make([]codec.Source, len(ev.Sources))
			for k, s := range ev.Sources {
				srcs[k] = codec.Source{URL: strings.Clone(s.URL), Title: strings.Clone(s.Title), PageAge: strings.Clone(s.PageAge)}
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

// CheckWellFormed fails unless evs follows the grammar documented on
// EventType.
func CheckWellFormed(t *testing.T, evs []codec.Event) {
	t.Helper()
	if err := WellFormed(evs); err != nil {
		t.Fatal(err)
	}
}

// EncodeStream encodes canonical events for a client of protocol p.
func EncodeStream(p codec.Protocol, req *codec.Request, evs []codec.Event) string {
	enc := StreamEncoder(p, req)
	var dst []byte
	for i := range evs {
		dst = enc.Encode(dst, &evs[i])
	}
	return string(dst)
}

// ErrTestBroken is the transport error of a stream cut off mid-way.
var ErrTestBroken = errors.New("connection reset by peer")

// WellFormed returns an error describing the first place where evs breaks
// the grammar documented on EventType, or nil. Fuzz targets use it to
// report rather than stop at the first bad stream.
func WellFormed(evs []codec.Event) error {
	if len(evs) == 0 {
		return errors.New("no events")
	}
	last := evs[len(evs)-1].Type
	if last != codec.EventEnd && last != codec.EventError {
		return fmt.Errorf("stream does not end with end or error: %v", last)
	}
	open, next, started, stopped := -1, 0, false, false
	for i, ev := range evs {
		bad := func(why string) error { return fmt.Errorf("event %d (%v): %s; events %+v", i, ev.Type, why, evs) }
		if i < len(evs)-1 && (ev.Type == codec.EventEnd || ev.Type == codec.EventError) {
			return bad("terminal event before the end")
		}
		if !started && ev.Type != codec.EventStart && ev.Type != codec.EventError {
			return bad("first event is not start")
		}
		switch ev.Type {
		case codec.EventStart:
			if started {
				return bad("second start")
			}
			started = true
		case codec.EventPartStart:
			if open >= 0 || ev.Index != next || stopped {
				return bad("part start out of order")
			}
			open = ev.Index
			next++
		case codec.EventPartDelta:
			if ev.Index != open || ev.Text == "" {
				return bad("delta for a part that is not open, or empty")
			}
		case codec.EventCitation:
			if ev.Index != open {
				return bad("citation for a part that is not open")
			}
		case codec.EventDropped:
			if ev.Text == "" {
				return bad("dropped output without a kind")
			}
		case codec.EventPartStop:
			if ev.Index != open {
				return bad("stop for a part that is not open")
			}
			open = -1
		case codec.EventStop:
			if open >= 0 || stopped {
				return bad("stop with a part open, or twice")
			}
			stopped = true
		case codec.EventEnd:
			if open >= 0 {
				return bad("end with a part open")
			}
		case codec.EventError:
			if ev.Err == nil {
				return bad("error without Err")
			}
		}
	}
	return nil
}

// StreamDecoder is NewStreamDecoder for the tests' known protocols.
func StreamDecoder(p codec.Protocol) codec.StreamDecoder {
	d, err := codec.NewStreamDecoder(p)
	if err != nil {
		panic(err)
	}
	return d
}

// StreamEncoder is NewStreamEncoder for the tests' known protocols.
func StreamEncoder(p codec.Protocol, req *codec.Request) codec.StreamEncoder {
	e, err := codec.NewStreamEncoder(p, req)
	if err != nil {
		panic(err)
	}
	return e
}

// StreamSummary is what a client ends up with after a stream.
type StreamSummary struct {
	Text     string
	Refusal  string
	Tools    string // "id name arguments;" for each tool call, in order
	Stop     codec.StopReason
	StopSeq  string
	Usage    codec.Usage
	ID       string
	Model    string
	Err      *codec.Error
	Complete bool
	// Searches are the queries of hosted search calls ("query;" each),
	// Results the pages of their results, Cites the citations.
	Searches string
	Results  int
	Cites    int
}

// Summarize folds canonical events into what a client would assemble.
func Summarize(evs []codec.Event) StreamSummary {
	var s StreamSummary
	kinds := map[int]codec.PartType{}
	var tools []string // "id name arguments" per tool call part
	for _, ev := range evs {
		switch ev.Type {
		case codec.EventStart:
			s.ID, s.Model = ev.ID, ev.Model
			if ev.Usage.Known {
				s.Usage = ev.Usage
			}
		case codec.EventPartStart:
			kinds[ev.Index] = ev.Part
			if ev.Part == codec.PartToolCall {
				tools = append(tools, ev.ToolCallID+" "+ev.ToolName+" ")
			}
			s.Results += len(ev.Sources)
		case codec.EventCitation:
			s.Cites++
		case codec.EventPartStop:
			if kinds[ev.Index] == codec.PartServerToolCall {
				s.Searches += ";"
			}
		case codec.EventPartDelta:
			if kinds[ev.Index] == codec.PartServerToolCall {
				s.Searches += ev.Text
			} else if kinds[ev.Index] == codec.PartToolCall {
				tools[len(tools)-1] += ev.Text
			} else if kinds[ev.Index] == codec.PartRefusal {
				s.Refusal += ev.Text
			} else {
				s.Text += ev.Text
			}
		case codec.EventUsage:
			s.Usage = ev.Usage
		case codec.EventStop:
			s.Stop, s.StopSeq = ev.StopReason, ev.StopSequence
		case codec.EventEnd:
			s.Complete = true
		case codec.EventError:
			s.Err = ev.Err
		}
	}
	for _, tc := range tools {
		s.Tools += tc + ";"
	}
	return s
}
