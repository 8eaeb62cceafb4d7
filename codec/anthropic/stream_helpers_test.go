package anthropic

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/codectest"
	"github.com/llmbridge/llmbridge/mapping"
	"github.com/llmbridge/llmbridge/sse"
	"github.com/tidwall/gjson"
)

// ev frames one Anthropic SSE event.
func ev(name, data string) string {
	return "event: " + name + "\ndata: " + data + "\n\n"
}

// Building blocks of hand-written upstream streams.
var (
	msgStart = ev("message_start", `{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-x","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":10,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":1}}}`)
	ping     = ev("ping", `{"type": "ping"}`)
	msgStop  = ev("message_stop", `{"type":"message_stop"}`)
	endTurn  = ev("message_delta", `{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":7}}`)
)

func textStart(i int) string {
	return ev("content_block_start", fmt.Sprintf(`{"type":"content_block_start","index":%d,"content_block":{"type":"text","text":""}}`, i))
}

func textDelta(i int, text string) string {
	return ev("content_block_delta", fmt.Sprintf(`{"type":"content_block_delta","index":%d,"delta":{"type":"text_delta","text":%s}}`, i, text))
}

func blockStop(i int) string {
	return ev("content_block_stop", fmt.Sprintf(`{"type":"content_block_stop","index":%d}`, i))
}

func blockStart(i int, block string) string {
	return ev("content_block_start", fmt.Sprintf(`{"type":"content_block_start","index":%d,"content_block":%s}`, i, block))
}

func delta(i int, delta string) string {
	return ev("content_block_delta", fmt.Sprintf(`{"type":"content_block_delta","index":%d,"delta":%s}`, i, delta))
}

// usageString formats usage compactly: in/cacheRead/cacheWrite/out/reasoning.
func usageString(u codec.Usage) string {
	if !u.Known {
		return "-"
	}
	return fmt.Sprintf("%d/%d/%d/%d/%d", u.InputTokens, u.CacheReadTokens, u.CacheWriteTokens, u.OutputTokens, u.ReasoningTokens)
}

// format formats canonical events compactly for comparisons.
func format(evs []codec.Event) string {
	var b strings.Builder
	for i, ev := range evs {
		if i > 0 {
			b.WriteByte(' ')
		}
		switch ev.Type {
		case codec.EventStart:
			fmt.Fprintf(&b, "start(%s,%s,%s)", ev.ID, ev.Model, usageString(ev.Usage))
		case codec.EventPartStart:
			switch {
			case ev.Part == codec.PartToolCall:
				fmt.Fprintf(&b, "tool_start(%d,%s,%s)", ev.Index, ev.ToolCallID, ev.ToolName)
			case ev.Part == codec.PartReasoning && ev.Redacted:
				fmt.Fprintf(&b, "redacted_start(%d)", ev.Index)
			case ev.Part == codec.PartReasoning:
				fmt.Fprintf(&b, "reasoning_start(%d)", ev.Index)
			default:
				fmt.Fprintf(&b, "part_start(%d,%d)", ev.Index, ev.Part)
			}
		case codec.EventPartDelta:
			fmt.Fprintf(&b, "delta(%d,%q)", ev.Index, ev.Text)
		case codec.EventPartStop:
			if ev.Signature != "" || ev.Origin != mapping.FamilyNone {
				fmt.Fprintf(&b, "part_stop(%d,%s:%s)", ev.Index, ev.Origin, ev.Signature)
			} else {
				fmt.Fprintf(&b, "part_stop(%d)", ev.Index)
			}
		case codec.EventUsage:
			fmt.Fprintf(&b, "usage(%s)", usageString(ev.Usage))
		case codec.EventStop:
			if ev.StopDetails != (codec.StopDetails{}) {
				fmt.Fprintf(&b, "stop(%v,%q,%q,%q)", ev.StopReason, ev.StopSequence, ev.StopDetails.Category, ev.StopDetails.Explanation)
			} else {
				fmt.Fprintf(&b, "stop(%v,%q)", ev.StopReason, ev.StopSequence)
			}
		case codec.EventEnd:
			b.WriteString("end")
		case codec.EventError:
			fmt.Fprintf(&b, "error(%d)", ev.Err.Status)
		}
	}
	return b.String()
}

// decode is decodeStream with tool call ids and names detached as
// well: they alias the decoder's input like the other strings.
func decode(t *testing.T, p codec.Protocol, body string, cause error) []codec.Event {
	t.Helper()
	dec := codectest.StreamDecoder(p)
	r := sse.NewReader(strings.NewReader(body), 0)
	var out, buf []codec.Event
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
		out = detach(out, buf)
	}
	return detach(out, dec.Close(buf[:0], cause))
}

// detach is appendDetached for events that may start tool calls
// or carry signatures and stop details.
func detach(out, evs []codec.Event) []codec.Event {
	n := len(out)
	out = codectest.AppendDetached(out, evs)
	for i := n; i < len(out); i++ {
		ev := &out[i]
		ev.ToolCallID = strings.Clone(ev.ToolCallID)
		ev.ToolName = strings.Clone(ev.ToolName)
		ev.Signature = strings.Clone(ev.Signature)
		ev.ItemID = strings.Clone(ev.ItemID)
		ev.StopDetails.Category = strings.Clone(ev.StopDetails.Category)
		ev.StopDetails.Explanation = strings.Clone(ev.StopDetails.Explanation)
	}
	return out
}

// reasoning assembles the reasoning parts of evs as a client
// would: text from the deltas, the opaque value and its origin from the
// part's stop.
func reasoning(evs []codec.Event) []codec.Part {
	var parts []codec.Part
	at := map[int]int{} // part index -> parts index
	for _, ev := range evs {
		switch ev.Type {
		case codec.EventPartStart:
			if ev.Part == codec.PartReasoning {
				at[ev.Index] = len(parts)
				parts = append(parts, codec.Part{Type: codec.PartReasoning, Redacted: ev.Redacted, ItemID: ev.ItemID})
			}
		case codec.EventPartDelta:
			if k, ok := at[ev.Index]; ok {
				parts[k].Text += ev.Text
			}
		case codec.EventPartStop:
			if k, ok := at[ev.Index]; ok {
				parts[k].Signature, parts[k].Origin = ev.Signature, ev.Origin
			}
		}
	}
	return parts
}

// anthropicCall is a tool call a client assembled from a stream.
type anthropicCall struct{ id, name, args string }

// calls returns the tool calls of evs, with their arguments'
// fragments joined and compacted (so that they compare exactly), and the
// text of the text and refusal parts (not of reasoning).
func calls(t *testing.T, evs []codec.Event) (calls []anthropicCall, text string) {
	t.Helper()
	call := map[int]int{} // part index -> calls index
	reasoning := map[int]bool{}
	for _, ev := range evs {
		switch ev.Type {
		case codec.EventPartStart:
			if ev.Part == codec.PartToolCall {
				call[ev.Index] = len(calls)
				calls = append(calls, anthropicCall{id: ev.ToolCallID, name: ev.ToolName})
			}
			// Search calls are counted by searches.
			reasoning[ev.Index] = ev.Part == codec.PartReasoning || ev.Part == codec.PartServerToolCall
		case codec.EventPartDelta:
			if k, ok := call[ev.Index]; ok {
				calls[k].args += ev.Text
			} else if !reasoning[ev.Index] {
				text += ev.Text
			}
		}
	}
	for k := range calls {
		if calls[k].args == "" {
			continue
		}
		var b bytes.Buffer
		if err := json.Compact(&b, []byte(calls[k].args)); err != nil {
			t.Fatalf("call %d arguments %q: %v", k, calls[k].args, err)
		}
		calls[k].args = b.String()
	}
	return calls, text
}

// lastError returns the error that ends evs, or nil.
func lastError(evs []codec.Event) *codec.Error {
	if len(evs) > 0 && evs[len(evs)-1].Type == codec.EventError {
		return evs[len(evs)-1].Err
	}
	return nil
}

// sseEvent is a detached SSE event.
type sseEvent struct {
	name, data string
	bare       bool
}

// readEvents splits an SSE body into detached events.
func readEvents(t testing.TB, body string) []sseEvent {
	t.Helper()
	r := sse.NewReader(strings.NewReader(body), 0)
	var evs []sseEvent
	for {
		ev, err := r.Next()
		if err == io.EOF {
			return evs
		}
		if err != nil {
			t.Fatal(err)
		}
		evs = append(evs, sseEvent{string(ev.Name), string(ev.Data), ev.Bare})
	}
}

// checkSSEGolden compares an SSE stream with the golden file at
// testdata/anthropic-messages/stream_<name>.sse, stored as is; with -update
// it rewrites the file.
func checkSSEGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join(codectest.Testdata, "anthropic-messages", "stream_"+name+".sse")
	if *codectest.Update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -update in this package writes it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from golden file:\n got:\n%s\nwant:\n%s", path, got, want)
	}
}

// checkSSE checks the client-side shape of an encoded stream: every
// event is named, its data is one line of JSON whose type is the event name,
// and the sequence is the one Anthropic sends.
func checkSSE(t *testing.T, body string) {
	t.Helper()
	if !strings.HasSuffix(body, "\n\n") {
		t.Fatalf("stream does not end with a blank line: %q", body)
	}
	var names []string
	for _, e := range readEvents(t, body) {
		if e.bare || e.name == "" || strings.Contains(e.data, "\n") || !gjson.Valid(e.data) || gjson.Get(e.data, "type").Str != e.name {
			t.Fatalf("bad event %+v", e)
		}
		names = append(names, e.name)
	}
	seq := strings.Join(names, " ")
	seq = strings.ReplaceAll(seq, "content_block_delta ", "")
	seq = strings.ReplaceAll(seq, "content_block_start content_block_stop ", "")
	seq = strings.ReplaceAll(seq, "content_block_start ", "")
	seq = strings.ReplaceAll(seq, "content_block_stop ", "")
	switch seq {
	case "message_start message_delta message_stop", "message_start error", "error":
	default:
		t.Fatalf("event sequence %s", strings.Join(names, " "))
	}
}
