package gemini

import (
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/codectest"
	"github.com/llmbridge/llmbridge/mapping"
	"github.com/llmbridge/llmbridge/sse"
)

// eventString renders an event compactly, for comparing decoded
// streams with what a test expects.
func eventString(ev codec.Event) string {
	switch ev.Type {
	case codec.EventStart:
		s := fmt.Sprintf("start id=%q model=%q", ev.ID, ev.Model)
		if ev.Created != 0 {
			s += fmt.Sprintf(" created=%d", ev.Created)
		}
		return s
	case codec.EventPartStart:
		if ev.Part == codec.PartToolCall {
			return fmt.Sprintf("part_start %d call id=%q name=%q", ev.Index, ev.ToolCallID, ev.ToolName)
		}
		s := fmt.Sprintf("part_start %d type=%d", ev.Index, ev.Part)
		if ev.Redacted {
			s += " redacted"
		}
		if ev.ItemID != "" {
			s += fmt.Sprintf(" item=%q", ev.ItemID)
		}
		return s
	case codec.EventPartDelta:
		return fmt.Sprintf("delta %d %q", ev.Index, ev.Text)
	case codec.EventPartStop:
		if ev.Signature != "" || ev.Origin != mapping.FamilyNone {
			return fmt.Sprintf("part_stop %d sig=%q origin=%v", ev.Index, ev.Signature, ev.Origin)
		}
		return fmt.Sprintf("part_stop %d", ev.Index)
	case codec.EventUsage:
		u := ev.Usage
		return fmt.Sprintf("usage in=%d cache_read=%d out=%d reasoning=%d", u.InputTokens, u.CacheReadTokens, u.OutputTokens, u.ReasoningTokens)
	case codec.EventStop:
		if d := ev.StopDetails; d != (codec.StopDetails{}) {
			return fmt.Sprintf("stop %v category=%q explanation=%q", ev.StopReason, d.Category, d.Explanation)
		}
		return "stop " + ev.StopReason.String()
	case codec.EventEnd:
		return "end"
	case codec.EventError:
		return fmt.Sprintf("error %d kind=%d code=%q: %s", ev.Err.Status, ev.Err.Kind, ev.Err.Code, ev.Err.Message)
	case codec.EventDropped:
		return "dropped " + ev.Text
	}
	return "unknown"
}

// eventStrings renders a decoded stream.
func eventStrings(evs []codec.Event) []string {
	out := make([]string, len(evs))
	for i, ev := range evs {
		out[i] = eventString(ev)
	}
	return out
}

// geminiSSE frames JSON chunks as Google does: data: lines separated by
// "\r\n\r\n".
func geminiSSE(chunks ...string) string {
	var b strings.Builder
	for _, c := range chunks {
		if strings.HasPrefix(c, "{") {
			b.WriteString("data: ")
		}
		b.WriteString(c)
		b.WriteString("\r\n\r\n")
	}
	return b.String()
}

// streamBody returns the response body of a streaming recording,
// skipping the test when recordings are absent.
func streamBody(t *testing.T, name string) string {
	t.Helper()
	return codectest.ReadRecording(t, name).Get("response.body").String()
}

// decodeStream is decodeStream with the tool call ids and names of
// the events detached from the decoder's buffers too, which appendDetached
// does not copy.
func decodeStream(t *testing.T, p codec.Protocol, body string, cause error) []codec.Event {
	t.Helper()
	dec := codectest.StreamDecoder(p)
	r := sse.NewReader(strings.NewReader(body), 0)
	var out, buf []codec.Event
	for {
		ev, err := r.Next()
		if err != nil {
			if err != io.EOF && cause == nil {
				cause = err
			}
			break
		}
		buf = dec.Decode(buf[:0], ev.Name, ev.Data, ev.Bare)
		out = detach(out, buf)
	}
	return detach(out, dec.Close(buf[:0], cause))
}

// detach appends copies of evs whose strings no longer alias the
// decoder's input.
func detach(out, evs []codec.Event) []codec.Event {
	n := len(out)
	out = codectest.AppendDetached(out, evs)
	for i := n; i < len(out); i++ {
		out[i].ToolCallID = strings.Clone(out[i].ToolCallID)
		out[i].ToolName = strings.Clone(out[i].ToolName)
		out[i].Signature = strings.Clone(out[i].Signature)
		out[i].ItemID = strings.Clone(out[i].ItemID)
	}
	return out
}

// streamContent returns the text of the text parts of a decoded
// stream and its tool calls, with the arguments joined from their deltas;
// it checks that id and name come with the start only.
func streamContent(t *testing.T, evs []codec.Event) (string, []codec.Part) {
	t.Helper()
	var text strings.Builder
	var calls []codec.Part
	kinds := map[int]codec.PartType{}
	at := map[int]int{}
	for _, ev := range evs {
		switch ev.Type {
		case codec.EventPartStart:
			kinds[ev.Index] = ev.Part
			if ev.Part == codec.PartToolCall {
				at[ev.Index] = len(calls)
				calls = append(calls, codec.Part{Type: codec.PartToolCall, ToolCallID: ev.ToolCallID, ToolName: ev.ToolName})
			}
		case codec.EventPartDelta:
			if ev.ToolCallID != "" || ev.ToolName != "" {
				t.Errorf("delta %d repeats the call's id or name", ev.Index)
			}
			if kinds[ev.Index] == codec.PartToolCall {
				if ev.Text == "" {
					t.Errorf("empty argument delta for part %d", ev.Index)
				}
				calls[at[ev.Index]].Arguments += ev.Text
			} else if kinds[ev.Index] == codec.PartText {
				text.WriteString(ev.Text)
			}
		}
	}
	return text.String(), calls
}

// recordingProtocol returns the protocol of a recording file name.
func recordingProtocol(file string) codec.Protocol {
	if strings.HasPrefix(file, "vertex/") {
		return codec.Vertex
	}
	return codec.Gemini
}
