package codec

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/llmbridge/llmbridge/codec/internal/jsonx"
	"github.com/llmbridge/llmbridge/mapping"
	"github.com/llmbridge/llmbridge/sse"
	"github.com/tidwall/gjson"
)

// anthropicEv frames one Anthropic SSE event.
func anthropicEv(name, data string) string {
	return "event: " + name + "\ndata: " + data + "\n\n"
}

// Building blocks of hand-written upstream streams.
var (
	anthropicMsgStart = anthropicEv("message_start", `{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-x","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":10,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":1}}}`)
	anthropicPing     = anthropicEv("ping", `{"type": "ping"}`)
	anthropicMsgStop  = anthropicEv("message_stop", `{"type":"message_stop"}`)
	anthropicEndTurn  = anthropicEv("message_delta", `{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":7}}`)
)

func anthropicTextStart(i int) string {
	return anthropicEv("content_block_start", fmt.Sprintf(`{"type":"content_block_start","index":%d,"content_block":{"type":"text","text":""}}`, i))
}

func anthropicTextDelta(i int, text string) string {
	return anthropicEv("content_block_delta", fmt.Sprintf(`{"type":"content_block_delta","index":%d,"delta":{"type":"text_delta","text":%s}}`, i, text))
}

func anthropicBlockStop(i int) string {
	return anthropicEv("content_block_stop", fmt.Sprintf(`{"type":"content_block_stop","index":%d}`, i))
}

func anthropicBlockStart(i int, block string) string {
	return anthropicEv("content_block_start", fmt.Sprintf(`{"type":"content_block_start","index":%d,"content_block":%s}`, i, block))
}

func anthropicDelta(i int, delta string) string {
	return anthropicEv("content_block_delta", fmt.Sprintf(`{"type":"content_block_delta","index":%d,"delta":%s}`, i, delta))
}

// anthropicUsageString formats usage compactly: in/cacheRead/cacheWrite/out/reasoning.
func anthropicUsageString(u Usage) string {
	if !u.Known {
		return "-"
	}
	return fmt.Sprintf("%d/%d/%d/%d/%d", u.InputTokens, u.CacheReadTokens, u.CacheWriteTokens, u.OutputTokens, u.ReasoningTokens)
}

// anthropicFormat formats canonical events compactly for comparisons.
func anthropicFormat(evs []Event) string {
	var b strings.Builder
	for i, ev := range evs {
		if i > 0 {
			b.WriteByte(' ')
		}
		switch ev.Type {
		case EventStart:
			fmt.Fprintf(&b, "start(%s,%s,%s)", ev.ID, ev.Model, anthropicUsageString(ev.Usage))
		case EventPartStart:
			switch {
			case ev.Part == PartToolCall:
				fmt.Fprintf(&b, "tool_start(%d,%s,%s)", ev.Index, ev.ToolCallID, ev.ToolName)
			case ev.Part == PartReasoning && ev.Redacted:
				fmt.Fprintf(&b, "redacted_start(%d)", ev.Index)
			case ev.Part == PartReasoning:
				fmt.Fprintf(&b, "reasoning_start(%d)", ev.Index)
			default:
				fmt.Fprintf(&b, "part_start(%d,%d)", ev.Index, ev.Part)
			}
		case EventPartDelta:
			fmt.Fprintf(&b, "delta(%d,%q)", ev.Index, ev.Text)
		case EventPartStop:
			if ev.Signature != "" || ev.Origin != mapping.FamilyNone {
				fmt.Fprintf(&b, "part_stop(%d,%s:%s)", ev.Index, ev.Origin, ev.Signature)
			} else {
				fmt.Fprintf(&b, "part_stop(%d)", ev.Index)
			}
		case EventUsage:
			fmt.Fprintf(&b, "usage(%s)", anthropicUsageString(ev.Usage))
		case EventStop:
			if ev.StopDetails != (StopDetails{}) {
				fmt.Fprintf(&b, "stop(%v,%q,%q,%q)", ev.StopReason, ev.StopSequence, ev.StopDetails.Category, ev.StopDetails.Explanation)
			} else {
				fmt.Fprintf(&b, "stop(%v,%q)", ev.StopReason, ev.StopSequence)
			}
		case EventEnd:
			b.WriteString("end")
		case EventError:
			fmt.Fprintf(&b, "error(%d)", ev.Err.Status)
		}
	}
	return b.String()
}

// anthropicDecode is decodeStream with tool call ids and names detached as
// well: they alias the decoder's input like the other strings.
func anthropicDecode(t *testing.T, p Protocol, body string, cause error) []Event {
	t.Helper()
	dec := streamDecoder(p)
	r := sse.NewReader(strings.NewReader(body), 0)
	var out, buf []Event
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
		out = anthropicDetach(out, buf)
	}
	return anthropicDetach(out, dec.Close(buf[:0], cause))
}

// anthropicDetach is appendDetached for events that may start tool calls
// or carry signatures and stop details.
func anthropicDetach(out, evs []Event) []Event {
	n := len(out)
	out = appendDetached(out, evs)
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

// anthropicReasoning assembles the reasoning parts of evs as a client
// would: text from the deltas, the opaque value and its origin from the
// part's stop.
func anthropicReasoning(evs []Event) []Part {
	var parts []Part
	at := map[int]int{} // part index -> parts index
	for _, ev := range evs {
		switch ev.Type {
		case EventPartStart:
			if ev.Part == PartReasoning {
				at[ev.Index] = len(parts)
				parts = append(parts, Part{Type: PartReasoning, Redacted: ev.Redacted, ItemID: ev.ItemID})
			}
		case EventPartDelta:
			if k, ok := at[ev.Index]; ok {
				parts[k].Text += ev.Text
			}
		case EventPartStop:
			if k, ok := at[ev.Index]; ok {
				parts[k].Signature, parts[k].Origin = ev.Signature, ev.Origin
			}
		}
	}
	return parts
}

// anthropicCall is a tool call a client assembled from a stream.
type anthropicCall struct{ id, name, args string }

// anthropicCalls returns the tool calls of evs, with their arguments'
// fragments joined and compacted (so that they compare exactly), and the
// text of the text and refusal parts (not of reasoning).
func anthropicCalls(t *testing.T, evs []Event) (calls []anthropicCall, text string) {
	t.Helper()
	call := map[int]int{} // part index -> calls index
	reasoning := map[int]bool{}
	for _, ev := range evs {
		switch ev.Type {
		case EventPartStart:
			if ev.Part == PartToolCall {
				call[ev.Index] = len(calls)
				calls = append(calls, anthropicCall{id: ev.ToolCallID, name: ev.ToolName})
			}
			// Search calls are counted by anthropicSearches.
			reasoning[ev.Index] = ev.Part == PartReasoning || ev.Part == PartServerToolCall
		case EventPartDelta:
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

// anthropicLastError returns the error that ends evs, or nil.
func anthropicLastError(evs []Event) *Error {
	if len(evs) > 0 && evs[len(evs)-1].Type == EventError {
		return evs[len(evs)-1].Err
	}
	return nil
}

func TestAnthropicStreamDecodeEvents(t *testing.T) {
	const start = "start(msg_1,claude-x,10/0/0/1/0)"
	tests := []struct {
		name string
		body string
		want string
		msg  string // substring of the final error's message
	}{
		{
			name: "text with pings, padding and unknown events",
			body: anthropicEv("message_start", `{"type":"message_start","message":{"model":"claude-x","id":"msg_1","type":"message","role":"assistant","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":10,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":1,"service_tier":"standard"}}      }`) +
				anthropicPing +
				anthropicEv("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}            }`) +
				anthropicPing +
				anthropicEv("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi \"there\"\n"}   }`) +
				anthropicEv("future_event", `{"type":"future_event","payload":{"x":1}}`) +
				anthropicEv("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"\u00e9\ud83d\ude00"}}`) +
				anthropicEv("content_block_stop", `{"type":"content_block_stop","index":0   }`) +
				anthropicPing +
				anthropicEv("message_delta", `{"type":"message_delta","delta":{"stop_reason":"stop_sequence","stop_sequence":"STOP","stop_details":null},"usage":{"input_tokens":10,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":12}  }`) +
				anthropicEv("message_stop", `{"type":"message_stop"       }`),
			want: start + ` part_start(0,0) delta(0,"Hi \"there\"\n") delta(0,"é😀") part_stop(0) stop(stop_sequence,"STOP") usage(10/0/0/12/0) end`,
		},
		{
			name: "initial text in content_block_start, empty deltas dropped",
			body: anthropicMsgStart + anthropicBlockStart(0, `{"type":"text","text":"Hel"}`) + anthropicTextDelta(0, `""`) +
				anthropicTextDelta(0, `"lo"`) + anthropicBlockStop(0) + anthropicEndTurn + anthropicMsgStop,
			want: start + ` part_start(0,0) delta(0,"Hel") delta(0,"lo") part_stop(0) stop(end,"") usage(10/0/0/7/0) end`,
		},
		{
			name: "thinking and redacted thinking become reasoning parts",
			body: anthropicMsgStart +
				anthropicBlockStart(0, `{"type":"thinking","thinking":"","signature":""}`) +
				anthropicDelta(0, `{"type":"thinking_delta","thinking":"Let me think"}`) +
				anthropicDelta(0, `{"type":"thinking_delta","thinking":""}`) +
				anthropicDelta(0, `{"type":"signature_delta","signature":"EqQBCgIYAhIM"}`) +
				anthropicBlockStop(0) +
				anthropicBlockStart(1, `{"type":"redacted_thinking","data":"EmwKAhgB"}`) + anthropicBlockStop(1) +
				anthropicTextStart(2) + anthropicTextDelta(2, `"Answer"`) + anthropicBlockStop(2) +
				anthropicEv("message_delta", `{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":50,"output_tokens_details":{"thinking_tokens":30}}}`) +
				anthropicMsgStop,
			want: start + ` reasoning_start(0) delta(0,"Let me think") part_stop(0,anthropic:EqQBCgIYAhIM)` +
				` redacted_start(1) part_stop(1,anthropic:EmwKAhgB) part_start(2,0) delta(2,"Answer") part_stop(2) stop(end,"") usage(10/0/0/50/30) end`,
		},
		{
			name: "thinking: text and signature in the start, signature split, omitted display, unsigned",
			body: anthropicMsgStart +
				anthropicBlockStart(0, `{"type":"thinking","thinking":"whole","signature":"Sig"}`) + anthropicBlockStop(0) +
				anthropicBlockStart(1, `{"type":"thinking","thinking":"","signature":""}`) +
				anthropicDelta(1, `{"type":"signature_delta","signature":"ab"}`) +
				anthropicDelta(1, `{"type":"signature_delta","signature":"c+/="}`) + anthropicBlockStop(1) +
				anthropicBlockStart(2, `{"type":"thinking","thinking":"","signature":""}`) +
				anthropicDelta(2, `{"type":"thinking_delta","thinking":"no signature"}`) +
				anthropicBlockStart(3, `{"type":"thinking"}`) + anthropicBlockStop(3) +
				anthropicEndTurn + anthropicMsgStop,
			want: start + ` reasoning_start(0) delta(0,"whole") part_stop(0,anthropic:Sig)` +
				` reasoning_start(1) part_stop(1,anthropic:abc+/=)` +
				` reasoning_start(2) delta(2,"no signature") part_stop(2)` +
				` reasoning_start(3) part_stop(3) stop(end,"") usage(10/0/0/7/0) end`,
		},
		{
			name: "native refusal: empty content, stop details, a complete stream",
			body: anthropicMsgStart +
				anthropicEv("message_delta", `{"type":"message_delta","delta":{"stop_reason":"refusal","stop_sequence":null,"stop_details":{"type":"refusal","category":"cyber","explanation":"This looks like malware \"dev\"."}},"usage":{"output_tokens":3}}`) +
				anthropicMsgStop,
			want: start + ` stop(refusal,"","cyber","This looks like malware \"dev\".") usage(10/0/0/3/0) end`,
		},
		{
			name: "refusal stop details with null members and unknown ones",
			body: anthropicMsgStart + anthropicTextStart(0) + anthropicTextDelta(0, `"I can't"`) + anthropicBlockStop(0) +
				anthropicEv("message_delta", `{"type":"message_delta","delta":{"stop_reason":"refusal","stop_sequence":null,"stop_details":{"type":"refusal","category":null,"explanation":"Policy.","future":[1]}},"usage":{"output_tokens":3}}`) +
				anthropicMsgStop,
			want: start + ` part_start(0,0) delta(0,"I can't") part_stop(0) stop(refusal,"","","Policy.") usage(10/0/0/3/0) end`,
		},
		{
			name: "pause_turn after thinking",
			body: anthropicMsgStart +
				anthropicBlockStart(0, `{"type":"thinking","thinking":"","signature":""}`) +
				anthropicDelta(0, `{"type":"thinking_delta","thinking":"hm"}`) +
				anthropicDelta(0, `{"type":"signature_delta","signature":"S1"}`) + anthropicBlockStop(0) +
				anthropicEv("message_delta", `{"type":"message_delta","delta":{"stop_reason":"pause_turn","stop_sequence":null,"stop_details":null},"usage":{"output_tokens":9}}`) +
				anthropicMsgStop,
			want: start + ` reasoning_start(0) delta(0,"hm") part_stop(0,anthropic:S1) stop(pause_turn,"") usage(10/0/0/9/0) end`,
		},
		{
			name: "two text blocks",
			body: anthropicMsgStart + anthropicTextStart(0) + anthropicTextDelta(0, `"a"`) + anthropicBlockStop(0) +
				anthropicTextStart(1) + anthropicTextDelta(1, `"b"`) + anthropicBlockStop(1) + anthropicEndTurn + anthropicMsgStop,
			want: start + ` part_start(0,0) delta(0,"a") part_stop(0) part_start(1,0) delta(1,"b") part_stop(1) stop(end,"") usage(10/0/0/7/0) end`,
		},
		{
			name: "repeated content_block_stop ignored",
			body: anthropicMsgStart + anthropicTextStart(0) + anthropicTextDelta(0, `"a"`) + anthropicBlockStop(0) + anthropicBlockStop(0) +
				anthropicEndTurn + anthropicMsgStop,
			want: start + ` part_start(0,0) delta(0,"a") part_stop(0) stop(end,"") usage(10/0/0/7/0) end`,
		},
		{
			name: "block left open at message_delta is closed first",
			body: anthropicMsgStart + anthropicTextStart(0) + anthropicTextDelta(0, `"a"`) + anthropicEndTurn + anthropicMsgStop,
			want: start + ` part_start(0,0) delta(0,"a") part_stop(0) stop(end,"") usage(10/0/0/7/0) end`,
		},
		{
			name: "block left open at message_stop is closed first",
			body: anthropicMsgStart + anthropicTextStart(0) + anthropicTextDelta(0, `"a"`) + anthropicMsgStop,
			want: start + ` part_start(0,0) delta(0,"a") part_stop(0) end`,
		},
		{
			name: "text block left open when the next starts: its later text is an error",
			body: anthropicMsgStart + anthropicTextStart(0) + anthropicTextStart(1) + anthropicTextDelta(1, `"b"`) +
				anthropicBlockStop(0) + anthropicTextDelta(0, `"a"`),
			want: start + ` part_start(0,0) part_stop(0) part_start(1,0) delta(1,"b") error(502)`,
			msg:  "text_delta for a block that is not an open text block",
		},
		{
			name: "no content, no usage in message_start, message_delta without usage",
			body: anthropicEv("message_start", `{"type":"message_start","message":{"id":"msg_2","model":"m"}}`) +
				anthropicEv("message_delta", `{"type":"message_delta","delta":{"stop_reason":"max_tokens","stop_sequence":null}}`) + anthropicMsgStop,
			want: `start(msg_2,m,-) stop(max_tokens,"") end`,
		},
		{
			name: "message_delta usage merged over message_start: caches and input replaced when present",
			body: anthropicEv("message_start", `{"type":"message_start","message":{"id":"msg_3","model":"m","usage":{"input_tokens":5,"cache_creation_input_tokens":100,"cache_read_input_tokens":200,"output_tokens":1}}}`) +
				anthropicEv("message_delta", `{"type":"message_delta","delta":{"stop_reason":"refusal","stop_sequence":null},"usage":{"output_tokens":9,"cache_read_input_tokens":null}}`) +
				anthropicEv("message_delta", `{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"input_tokens":6,"cache_creation_input_tokens":0,"cache_read_input_tokens":300,"output_tokens":10,"server_tool_use":{"web_search_requests":1}}}`) +
				anthropicMsgStop,
			want: `start(msg_3,m,305/200/100/1/0) stop(refusal,"") usage(305/200/100/9/0) usage(306/300/0/10/0) end`,
		},
		{
			name: "message_delta with null stop_reason and null usage",
			body: anthropicMsgStart + anthropicEv("message_delta", `{"type":"message_delta","delta":{"stop_reason":null},"usage":null}`) + anthropicMsgStop,
			want: start + " end",
		},
		{
			name: "message_delta without delta",
			body: anthropicMsgStart + anthropicEv("message_delta", `{"type":"message_delta","usage":{"output_tokens":3}}`) + anthropicMsgStop,
			want: start + " usage(10/0/0/3/0) end",
		},
		{
			name: "unknown stop reason",
			body: anthropicMsgStart + anthropicEv("message_delta", `{"type":"message_delta","delta":{"stop_reason":"brand_new"},"usage":{"output_tokens":3}}`) + anthropicMsgStop,
			want: start + ` stop(other,"") usage(10/0/0/3/0) end`,
		},
		{
			name: "event without a name is read by its data type; ping without type",
			body: "data: " + `{"type":"message_start","message":{"id":"msg_1","model":"claude-x","usage":{"input_tokens":10,"output_tokens":1}}}` + "\n\n" +
				anthropicEv("ping", `{}`) + "data: " + `{"type":"message_stop"}` + "\n\n",
			want: start + " end",
		},
		{
			name: "text then a tool call with fragmented arguments",
			body: anthropicMsgStart + anthropicTextStart(0) + anthropicTextDelta(0, `"I'll call"`) + anthropicBlockStop(0) +
				anthropicBlockStart(1, `{"type":"tool_use","id":"toolu_1","name":"get_weather","input":{},"caller":{"type":"direct"}}`) +
				anthropicPing +
				anthropicDelta(1, `{"type":"input_json_delta","partial_json":""}`) +
				anthropicDelta(1, `{"type":"input_json_delta","partial_json":"{\"city\": \"Par"}`) +
				anthropicDelta(1, `{"type":"input_json_delta","partial_json":"is\"}"}`) +
				anthropicBlockStop(1) +
				anthropicEv("message_delta", `{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":20}}`) +
				anthropicMsgStop,
			want: start + ` part_start(0,0) delta(0,"I'll call") part_stop(0) tool_start(1,toolu_1,get_weather) delta(1,"{\"city\": \"Par") delta(1,"is\"}") part_stop(1) stop(tool_use,"") usage(10/0/0/20/0) end`,
		},
		{
			name: "parallel calls, one without arguments, get distinct parts",
			body: anthropicMsgStart +
				anthropicBlockStart(0, `{"type":"tool_use","id":"toolu_a","name":"add","input":{}}`) +
				anthropicDelta(0, `{"type":"input_json_delta","partial_json":"{\"a\":2,\"b\":3}"}`) + anthropicBlockStop(0) +
				anthropicBlockStart(1, `{"type":"tool_use","id":"toolu_b","name":"now","input":{}}`) +
				anthropicDelta(1, `{"type":"input_json_delta","partial_json":""}`) +
				anthropicBlockStart(2, `{"type":"tool_use","id":"toolu_c","name":"mul","input":{"a":2, "b":3}}`) + anthropicBlockStop(2) +
				anthropicBlockStop(1) + anthropicMsgStop,
			want: start + ` tool_start(0,toolu_a,add) delta(0,"{\"a\":2,\"b\":3}") part_stop(0) tool_start(1,toolu_b,now) part_stop(1) tool_start(2,toolu_c,mul) delta(2,"{\"a\":2, \"b\":3}") part_stop(2) end`,
		},
		{
			name: "tool_use block without id",
			body: anthropicMsgStart + anthropicBlockStart(0, `{"type":"tool_use","name":"f","input":{}}`),
			want: start + ` error(502)`,
			msg:  "tool_use block has no id or name",
		},
		{
			name: "tool_use block without name",
			body: anthropicMsgStart + anthropicBlockStart(0, `{"type":"tool_use","id":"toolu_1","name":"","input":{}}`),
			want: start + ` error(502)`,
			msg:  "tool_use block has no id or name",
		},
		{
			name: "tool_use block input not an object",
			body: anthropicMsgStart + anthropicBlockStart(0, `{"type":"tool_use","id":"toolu_1","name":"f","input":"{}"}`),
			want: start + ` error(502)`,
			msg:  "tool_use block input is not an object",
		},
		{
			name: "input_json_delta without partial_json",
			body: anthropicMsgStart + anthropicBlockStart(0, `{"type":"tool_use","id":"toolu_1","name":"f","input":{}}`) +
				anthropicDelta(0, `{"type":"input_json_delta","partial_json":{}}`),
			want: start + ` tool_start(0,toolu_1,f) error(502)`,
			msg:  "input_json_delta has no partial_json",
		},
		{
			name: "text_delta on a tool_use block",
			body: anthropicMsgStart + anthropicBlockStart(0, `{"type":"tool_use","id":"toolu_1","name":"f","input":{}}`) +
				anthropicTextDelta(0, `"x"`),
			want: start + ` tool_start(0,toolu_1,f) error(502)`,
			msg:  "text_delta for a block that is not an open text block",
		},
		{
			name: "input_json_delta for a closed tool_use block",
			body: anthropicMsgStart + anthropicBlockStart(0, `{"type":"tool_use","id":"toolu_1","name":"f","input":{}}`) +
				anthropicBlockStop(0) + anthropicDelta(0, `{"type":"input_json_delta","partial_json":"{}"}`),
			want: start + ` tool_start(0,toolu_1,f) part_stop(0) error(502)`,
			msg:  "input_json_delta for a block that is not an open tool_use block",
		},
		{
			// Blocks llmbridge does not translate are kept whole, deltas
			// merged, as opaque reasoning; the answer after them flows.
			name: "server tool block of another tool and its result are kept whole",
			body: anthropicMsgStart + anthropicBlockStart(0, `{"type":"server_tool_use","id":"srvtoolu_1","name":"web_fetch","input":{}}`) +
				anthropicDelta(0, `{"type":"input_json_delta","partial_json":"{\"url\":"}`) +
				anthropicDelta(0, `{"type":"input_json_delta","partial_json":"\"https://x.example\"}"}`) + anthropicBlockStop(0) +
				anthropicBlockStart(1, `{"type":"web_fetch_tool_result","tool_use_id":"srvtoolu_1","content":[]}`) + anthropicBlockStop(1) +
				anthropicTextStart(2) + anthropicTextDelta(2, `"Done"`) + anthropicBlockStop(2) + anthropicEndTurn + anthropicMsgStop,
			want: start + ` redacted_start(0) part_stop(0,anthropic:{"type":"server_tool_use","id":"srvtoolu_1","name":"web_fetch","input":{"url":"https://x.example"}})` +
				` redacted_start(1) part_stop(1,anthropic:{"type":"web_fetch_tool_result","tool_use_id":"srvtoolu_1","content":[]})` +
				` part_start(2,0) delta(2,"Done") part_stop(2) stop(end,"") usage(10/0/0/7/0) end`,
		},
		{
			name: "a compaction block and its deltas are kept whole",
			body: anthropicMsgStart + anthropicBlockStart(0, `{"type":"compaction","content":""}`) +
				anthropicDelta(0, `{"type":"compaction_delta","content":"Summary ","encrypted_content":"Eq"}`) +
				anthropicDelta(0, `{"type":"compaction_delta","content":"of it.","encrypted_content":"YB"}`) + anthropicBlockStop(0) +
				anthropicTextStart(1) + anthropicTextDelta(1, `"Next"`) + anthropicBlockStop(1) + anthropicEndTurn + anthropicMsgStop,
			want: start + ` redacted_start(0) part_stop(0,anthropic:{"type":"compaction","content":"Summary of it.","encrypted_content":"EqYB"})` +
				` part_start(1,0) delta(1,"Next") part_stop(1) stop(end,"") usage(10/0/0/7/0) end`,
		},
		{
			name: "input_json_delta on a text block",
			body: anthropicMsgStart + anthropicTextStart(0) + anthropicDelta(0, `{"type":"input_json_delta","partial_json":"{"}`),
			want: start + ` part_start(0,0) error(502)`,
			msg:  "input_json_delta for a block that is not an open tool_use block",
		},
		{
			name: "thinking_delta on a text block",
			body: anthropicMsgStart + anthropicTextStart(0) + anthropicDelta(0, `{"type":"thinking_delta","thinking":"x"}`),
			want: start + ` part_start(0,0) error(502)`,
			msg:  "thinking_delta for a block that is not an open thinking block",
		},
		{
			name: "signature_delta for a closed thinking block",
			body: anthropicMsgStart + anthropicBlockStart(0, `{"type":"thinking","thinking":"","signature":""}`) + anthropicBlockStop(0) +
				anthropicDelta(0, `{"type":"signature_delta","signature":"S"}`),
			want: start + ` reasoning_start(0) part_stop(0) error(502)`,
			msg:  "signature_delta for a block that is not an open thinking block",
		},
		{
			name: "signature_delta without a signature",
			body: anthropicMsgStart + anthropicBlockStart(0, `{"type":"thinking","thinking":"","signature":""}`) +
				anthropicDelta(0, `{"type":"signature_delta","signature":1}`),
			want: start + ` reasoning_start(0) error(502)`,
			msg:  "signature_delta has no signature",
		},
		{
			name: "thinking_delta without thinking",
			body: anthropicMsgStart + anthropicBlockStart(0, `{"type":"thinking","thinking":"","signature":""}`) +
				anthropicDelta(0, `{"type":"thinking_delta","text":"x"}`),
			want: start + ` reasoning_start(0) error(502)`,
			msg:  "thinking_delta has no thinking",
		},
		{
			name: "thinking block with a signature that is not a string",
			body: anthropicMsgStart + anthropicBlockStart(0, `{"type":"thinking","thinking":"","signature":{}}`),
			want: start + ` error(502)`,
			msg:  "thinking block thinking or signature is not a string",
		},
		{
			name: "redacted_thinking without data",
			body: anthropicMsgStart + anthropicBlockStart(0, `{"type":"redacted_thinking","data":""}`),
			want: start + ` error(502)`,
			msg:  "redacted_thinking block has no data",
		},
		{
			name: "stop_details not an object",
			body: anthropicMsgStart + anthropicEv("message_delta", `{"type":"message_delta","delta":{"stop_reason":"refusal","stop_details":"bad"},"usage":{"output_tokens":1}}`),
			want: start + ` error(502)`,
			msg:  "stop_details is not an object",
		},
		{
			name: "stop_details explanation not a string",
			body: anthropicMsgStart + anthropicEv("message_delta", `{"type":"message_delta","delta":{"stop_reason":"refusal","stop_details":{"type":"refusal","explanation":5}},"usage":{"output_tokens":1}}`),
			want: start + ` error(502)`,
			msg:  "stop_details.explanation is not a string",
		},
		{
			name: "stop_details type not a string",
			body: anthropicMsgStart + anthropicEv("message_delta", `{"type":"message_delta","delta":{"stop_reason":"refusal","stop_details":{"type":true}},"usage":{"output_tokens":1}}`),
			want: start + ` error(502)`,
			msg:  "stop_details.type is not a string",
		},
		{
			name: "events after message_stop are not decoded",
			body: anthropicMsgStart + anthropicMsgStop + anthropicTextStart(0) + "data: not json\n\n",
			want: start + " end",
		},
		// Invalid upstream events.
		{name: "invalid JSON", body: anthropicMsgStart + anthropicEv("content_block_start", `{"type":"content_block_start",`),
			want: start + " error(502)", msg: "event data is not valid JSON"},
		{name: "not JSON at all", body: "data: hello\n\n", want: "error(502)", msg: "event data is not valid JSON"},
		{name: "JSON array", body: "event: message_start\ndata: [1,2]\n\n", want: "error(502)", msg: "not a JSON object"},
		{name: "type not a string", body: anthropicEv("message_start", `{"type":1}`), want: "error(502)", msg: "event type is not a string"},
		{name: "no type and no name", body: "data: {\"index\":0}\n\n", want: "error(502)", msg: "event has no type"},
		{name: "content before message_start", body: anthropicTextStart(0), want: "error(502)", msg: "content_block_start before message_start"},
		{name: "message_stop before message_start", body: anthropicMsgStop, want: "error(502)", msg: "message_stop before message_start"},
		{name: "second message_start", body: anthropicMsgStart + anthropicMsgStart, want: start + " error(502)", msg: "second message_start"},
		{name: "message_start without message", body: anthropicEv("message_start", `{"type":"message_start"}`), want: "error(502)", msg: "no message object"},
		{name: "message id not a string", body: anthropicEv("message_start", `{"type":"message_start","message":{"id":5}}`), want: "error(502)", msg: "id or model is not a string"},
		{name: "usage not an object", body: anthropicEv("message_start", `{"type":"message_start","message":{"id":"m","usage":[]}}`), want: "error(502)", msg: "usage is not an object"},
		{name: "negative token count", body: anthropicEv("message_start", `{"type":"message_start","message":{"id":"m","usage":{"input_tokens":-1}}}`), want: "error(502)", msg: "usage.input_tokens is not a token count"},
		{name: "string token count", body: anthropicMsgStart + anthropicEv("message_delta", `{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":"3"}}`),
			want: start + " error(502)", msg: "usage.output_tokens is not a token count"},
		{name: "fractional thinking tokens", body: anthropicMsgStart + anthropicEv("message_delta", `{"type":"message_delta","delta":{},"usage":{"output_tokens_details":{"thinking_tokens":1.5}}}`),
			want: start + " error(502)", msg: "is not a token count"},
		{name: "output_tokens_details not an object", body: anthropicMsgStart + anthropicEv("message_delta", `{"type":"message_delta","delta":{},"usage":{"output_tokens_details":3}}`),
			want: start + " error(502)", msg: "usage.output_tokens_details is not an object"},
		{name: "block index out of order", body: anthropicMsgStart + anthropicTextStart(1), want: start + " error(502)", msg: "index out of order"},
		{name: "block index not a number", body: anthropicMsgStart + anthropicEv("content_block_start", `{"type":"content_block_start","index":"0","content_block":{"type":"text"}}`),
			want: start + " error(502)", msg: "index out of order"},
		{name: "block start after message_delta", body: anthropicMsgStart + anthropicEndTurn + anthropicTextStart(0),
			want: start + ` stop(end,"") usage(10/0/0/7/0) error(502)`, msg: "content_block_start after message_delta"},
		{name: "block start without block", body: anthropicMsgStart + anthropicEv("content_block_start", `{"type":"content_block_start","index":0}`),
			want: start + " error(502)", msg: "no content_block object"},
		{name: "block without type", body: anthropicMsgStart + anthropicBlockStart(0, `{"text":""}`), want: start + " error(502)", msg: "content block has no type"},
		{name: "text block text not a string", body: anthropicMsgStart + anthropicBlockStart(0, `{"type":"text","text":null}`), want: start + " error(502)", msg: "text is not a string"},
		{name: "delta for a block never started", body: anthropicMsgStart + anthropicTextDelta(0, `"a"`), want: start + " error(502)", msg: "block that was not started"},
		{name: "delta without delta object", body: anthropicMsgStart + anthropicTextStart(0) + anthropicEv("content_block_delta", `{"type":"content_block_delta","index":0}`),
			want: start + " part_start(0,0) error(502)", msg: "no delta object"},
		{name: "delta without type", body: anthropicMsgStart + anthropicTextStart(0) + anthropicDelta(0, `{"text":"a"}`),
			want: start + " part_start(0,0) error(502)", msg: "delta has no type"},
		{name: "text_delta without text", body: anthropicMsgStart + anthropicTextStart(0) + anthropicDelta(0, `{"type":"text_delta"}`),
			want: start + " part_start(0,0) error(502)", msg: "text_delta has no text"},
		{name: "delta for a closed block", body: anthropicMsgStart + anthropicTextStart(0) + anthropicBlockStop(0) + anthropicTextDelta(0, `"late"`),
			want: start + " part_start(0,0) part_stop(0) error(502)", msg: "text_delta for a block that is not an open text block"},
		{name: "stop for a block never started", body: anthropicMsgStart + anthropicBlockStop(0), want: start + " error(502)", msg: "content_block_stop for a block that was not started"},
		{name: "message_delta delta not an object", body: anthropicMsgStart + anthropicEv("message_delta", `{"type":"message_delta","delta":"end_turn"}`),
			want: start + " error(502)", msg: "message_delta delta is not an object"},
		{name: "stop_reason not a string", body: anthropicMsgStart + anthropicEv("message_delta", `{"type":"message_delta","delta":{"stop_reason":1}}`),
			want: start + " error(502)", msg: "stop_reason or stop_sequence is not a string"},
		{name: "bare JSON", body: anthropicMsgStart + "{\"type\":\"message_stop\"}\n\n", want: start + " error(502)", msg: "JSON outside an SSE data field"},
		// Truncation.
		{name: "empty body", body: "", want: "error(502)", msg: "stream ended before it was complete"},
		{name: "only pings", body: anthropicPing + anthropicPing, want: "error(502)", msg: "stream ended before it was complete"},
		{name: "cut after message_delta", body: anthropicMsgStart + anthropicTextStart(0) + anthropicTextDelta(0, `"a"`) + anthropicBlockStop(0) + anthropicEndTurn,
			want: start + ` part_start(0,0) delta(0,"a") part_stop(0) stop(end,"") usage(10/0/0/7/0) error(502)`, msg: "stream ended before it was complete"},
		{name: "cut in the middle of a line", body: anthropicMsgStart + anthropicTextStart(0) + `data: {"type":"content_block_delta","ind`,
			want: start + " part_start(0,0) error(502)", msg: "stream broke off before it was complete"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, p := range []Protocol{AnthropicMessages, VertexAnthropic} {
				evs := anthropicDecode(t, p, tt.body, nil)
				checkWellFormed(t, evs)
				if got := anthropicFormat(evs); got != tt.want {
					t.Errorf("%s:\n got %s\nwant %s", p, got, tt.want)
				}
				err := anthropicLastError(evs)
				switch {
				case tt.msg == "" && err != nil:
					t.Errorf("%s: unexpected error %v", p, err)
				case tt.msg != "" && (err == nil || !strings.Contains(err.Message, tt.msg)):
					t.Errorf("%s: error %v, want one containing %q", p, err, tt.msg)
				case err != nil && err.Status == 502 && (err.Kind != mapping.ErrBadGateway || !strings.Contains(err.Message, string(p))):
					t.Errorf("%s: error %+v: want a bad gateway naming the protocol", p, err)
				}
			}
		})
	}
}

func TestAnthropicStreamDecodeErrorEvents(t *testing.T) {
	tests := []struct {
		name, body string
		status     int
		kind       mapping.ErrorKind
		code, msg  string
	}{
		{"overloaded, documented shape",
			anthropicEv("error", `{"type":"error","error":{"details":null,"type":"overloaded_error","message":"Overloaded"},"request_id":"req_011"}`),
			529, mapping.ErrOverloaded, "overloaded_error", "Overloaded"},
		{"error data under another event name",
			anthropicEv("message", `{"type":"error","error":{"type":"rate_limit_error","message":"Rate \"limited\""}}`),
			429, mapping.ErrRateLimit, "rate_limit_error", `Rate "limited"`},
		{"error data without an event name",
			"data: " + `{"type":"error","error":{"type":"api_error","message":"Internal server error"}}` + "\n\n",
			500, mapping.ErrAPI, "api_error", "Internal server error"},
		{"error event whose data has another type",
			anthropicEv("error", `{"type":"something","error":{"type":"invalid_request_error","message":"bad"}}`),
			400, mapping.ErrInvalidRequest, "invalid_request_error", "bad"},
		{"unknown error type is kept",
			anthropicEv("error", `{"type":"error","error":{"type":"shiny_new_error","message":"new"}}`),
			500, mapping.ErrAPI, "shiny_new_error", "new"},
		{"error without message",
			anthropicEv("error", `{"type":"error","error":{"type":"timeout_error"}}`),
			504, mapping.ErrTimeout, "timeout_error", "stream failed with timeout_error"},
		{"error without type or message",
			anthropicEv("error", `{"type":"error","error":{}}`),
			500, mapping.ErrAPI, "", "stream failed"},
		{"bare error object",
			"{\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n",
			529, mapping.ErrOverloaded, "overloaded_error", "Overloaded"},
		{"error event without error object",
			anthropicEv("error", `{"type":"error","message":"x"}`),
			502, mapping.ErrBadGateway, "", "error event has no error object"},
		{"error event that is not JSON",
			anthropicEv("error", `Internal Server Error`),
			502, mapping.ErrBadGateway, "", `error event data is not JSON: "Internal Server Error"`},
		{"long error event that is not JSON",
			anthropicEv("error", strings.Repeat("<html>", 100)),
			502, mapping.ErrBadGateway, "", `error event data is not JSON: "` + strings.Repeat("<html>", 33) + `<h..."`},
	}
	for _, tt := range tests {
		for _, midStream := range []bool{false, true} {
			body := tt.body
			if midStream {
				body = anthropicMsgStart + anthropicTextStart(0) + anthropicTextDelta(0, `"partial"`) + body +
					anthropicBlockStop(0) + anthropicEndTurn + anthropicMsgStop
			}
			for _, p := range []Protocol{AnthropicMessages, VertexAnthropic} {
				evs := anthropicDecode(t, p, body, nil)
				checkWellFormed(t, evs)
				s := summarize(evs)
				e := s.Err
				if e == nil || s.Complete {
					t.Fatalf("%s/%s: no error: %s", tt.name, p, anthropicFormat(evs))
				}
				if e.Status != tt.status || e.Kind != tt.kind || e.Code != tt.code || !strings.Contains(e.Message, tt.msg) {
					t.Errorf("%s/%s: got %+v, want status %d kind %v code %q message containing %q", tt.name, p, e, tt.status, tt.kind, tt.code, tt.msg)
				}
				if tt.code != "" && e.Protocol != p {
					t.Errorf("%s/%s: protocol %q", tt.name, p, e.Protocol)
				}
				if midStream && s.Text != "partial" {
					t.Errorf("%s/%s: text %q", tt.name, p, s.Text)
				}
			}
		}
	}
	// An overloaded error relayed to an Anthropic client keeps its type and
	// 529; other clients get 503.
	evs := anthropicDecode(t, AnthropicMessages, tests[0].body, nil)
	e := evs[0].Err
	if got := string(AppendError(nil, AnthropicMessages, e)); got != `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}` {
		t.Errorf("AppendError: %s", got)
	}
	if ClientStatus(AnthropicMessages, e) != 529 || ClientStatus(OpenAIChat, e) != 503 {
		t.Errorf("client statuses %d %d", ClientStatus(AnthropicMessages, e), ClientStatus(OpenAIChat, e))
	}
}

// anthropicStreamRecording is the upstream protocol and SSE body of a
// streaming recording.
func anthropicStreamRecording(t testing.TB, file string) (Protocol, string) {
	t.Helper()
	skipWithoutRecordings(t)
	b, err := os.ReadFile(filepath.Join(recordingsDir, file))
	if err != nil {
		t.Fatal(err)
	}
	r := gjson.ParseBytes(b)
	if !r.Get("stream").Bool() || r.Get("response.status").Int() != 200 {
		t.Fatalf("%s is not a successful stream", file)
	}
	return Protocol(r.Get("protocol").Str), r.Get("response.body").Str
}

// anthropicRecordedStreams are every streaming recording of the two
// Anthropic protocol directories with what a client must end up with.
// Tool calls are asserted with their ids, names and compacted arguments;
// streams with server tools end in an error after the text that preceded
// them; thinking is a reasoning part, whose text is not counted here
// (TestAnthropicStreamDecodeRecordedReasoning checks it).
var anthropicRecordedStreams = []struct {
	file    string
	id      string
	model   string
	text    string
	stop    StopReason
	usage   Usage // final usage
	calls   []anthropicCall
	errWhat string
	// searches are the queries of the hosted web searches (server tool
	// calls), and results the number of their result parts.
	searches []string
	results  int
}{
	{
		file: "anthropic-messages/claude-sonnet-4-text-stream.json", id: "msg_01R8GdyyLQUhUfyjqSCMbnWg", model: "claude-sonnet-4-20250514",
		text: "Olá! (That's \"hi\" in Portuguese)\n\nYou could also say \"Oi!\" which is a more casual way to say hi in Portuguese.",
		stop: mapping.StopEnd, usage: Usage{Known: true, InputTokens: 16, OutputTokens: 38},
	},
	{
		file: "anthropic-messages/claude-sonnet-4-5-redacted-thinking-stream.json", id: "msg_018XZkwvj9asBiffg3fXt88s", model: "claude-sonnet-4-5-20250929",
		text: "I notice that you've sent what appears to be some kind of test string or command. I don't have any special \"magic string\" triggers or backdoor commands that would expose internal systems or change my behavior.\n\nI'm Claude, an AI assistant created by Anthropic to be helpful, harmless, and honest. How can I assist you today with a legitimate task or question?",
		stop: mapping.StopEnd, usage: Usage{Known: true, InputTokens: 92, OutputTokens: 189},
	},
	{
		file: "anthropic-messages/claude-sonnet-4-parallel-tools-followup-stream.json", id: "msg_015WPQbJC4ysDAi7LuCD43Fp", model: "claude-sonnet-4-20250514",
		text: "The results are:\n- 2 + 3 = 5\n- 2 × 3 = 6",
		stop: mapping.StopEnd, usage: Usage{Known: true, InputTokens: 700, OutputTokens: 31},
	},
	{
		file: "anthropic-messages/claude-sonnet-4-thinking-followup-stream.json", id: "msg_01G4mwZgqcFN38A9H8S9pPAA", model: "claude-sonnet-4-20250514",
		text: "The current weather in Florence, Italy is 40°C (104°F). That's quite hot! If you're planning to visit or are currently there, make sure to stay hydrated and seek shade or air conditioning when possible.",
		stop: mapping.StopEnd, usage: Usage{Known: true, InputTokens: 558, OutputTokens: 51},
	},
	{
		file: "vertex-anthropic/claude-3-7-sonnet-tool-followup-stream.json", id: "msg_vrtx_01YH49AWdpXFqCfoLB7iWx4w", model: "claude-3-7-sonnet-20250219",
		text: "Currently, the weather in Florence, Italy is 40 degrees Celsius (104 degrees Fahrenheit). That's very hot! If you're in Florence or planning to visit soon, make sure to stay hydrated and try to avoid being outdoors during the hottest parts of the day.",
		stop: mapping.StopEnd, usage: Usage{Known: true, InputTokens: 484, OutputTokens: 65}, // message_delta has output_tokens only
	},
	{
		file: "anthropic-messages/claude-sonnet-4-5-tool-no-args-stream-reframed.json", id: "msg_01GE2RKp1VYsPzdFs3sS9z5S", model: "claude-sonnet-4-5-20250929",
		text: "I'll update the issue list for you.", stop: mapping.StopToolUse, usage: Usage{Known: true, InputTokens: 565, OutputTokens: 48},
		calls: []anthropicCall{{"toolu_01QE1WLsSVp5hy5Q3GmGTmjP", "updateIssueList", ""}}, // one empty partial_json: no fragment
	},
	{
		file: "anthropic-messages/claude-sonnet-4-parallel-tools-stream.json", id: "msg_01PSvJdjd5keNSD63VHjYzex", model: "claude-sonnet-4-20250514",
		text: "I'll add and multiply the numbers 2 and 3 for you.", stop: mapping.StopToolUse, usage: Usage{Known: true, InputTokens: 502, OutputTokens: 137},
		calls: []anthropicCall{{"toolu_01UYxUYC2zRPY8wiutnF48eP", "add", `{"a":2,"b":3}`}, {"toolu_01VaRx1jpWCvPhi7L4kywAcd", "multiply", `{"a":2,"b":3}`}},
	},
	{
		file: "anthropic-messages/claude-sonnet-4-thinking-tool-call-stream.json", id: "msg_01KTBB57LAzaSZs8kMNvfnsY", model: "claude-sonnet-4-20250514",
		text: "", stop: mapping.StopToolUse, usage: Usage{Known: true, InputTokens: 424, OutputTokens: 119},
		calls: []anthropicCall{{"toolu_01Js4AMfx5qpTLhwTusnvT68", "weather", `{"location":"Florence, Italy"}`}}, // after the thinking
	},
	{
		file: "anthropic-messages/claude-sonnet-4-5-pause-turn-web-search-stream.json", id: "msg_01SC6GnkBDsmEDqyXQpQ2ipm", model: "claude-sonnet-4-5-20250929",
		text: "I'll run these searches one at a time as requested. Let me start:" +
			"Let me continue with the remaining searches you requested:" + "Now continuing with the remaining searches:",
		stop: mapping.StopPauseTurn, usage: Usage{Known: true, InputTokens: 404500, OutputTokens: 943, ReasoningTokens: 261},
		searches: []string{"San Francisco weather today", "San Francisco sunrise time today", "Golden Gate Bridge traffic today",
			"San Francisco air quality today", "San Francisco events this week", "San Francisco ferry schedule today",
			"prevailing information on quantum computing today", "latest news on the stock market today",
			"latest news on the weather in San Francisco today", "latest news on the traffic in San Francisco today",
			"latest news on the air quality in San Francisco today"},
		results: 10,
	},
	{
		file: "vertex-anthropic/claude-3-7-sonnet-forced-tool-complex-stream.json", id: "msg_vrtx_01CgkZ1g6PHNfBLee3NPfQ1q", model: "claude-3-7-sonnet-20250219",
		text: "", stop: mapping.StopToolUse, usage: Usage{Known: true, InputTokens: 548, OutputTokens: 128},
		calls: []anthropicCall{{"toolu_vrtx_01BqmvunjZwqA9ybjM4QQQDC", "Book", `{"title":"The Lord of the Rings","author":{"name":"J.R.R. Tolkien","nationality":"British"},"genres":["Fantasy","Adventure","Epic"],"published_year":1954}`}},
	},
	{
		file: "vertex-anthropic/claude-3-7-sonnet-tool-call-stream.json", id: "msg_vrtx_015NhGGaKxyd2YQNDWYkNqXk", model: "claude-3-7-sonnet-20250219",
		text: "I'll help you check the weather in Florence, Italy. Let me get that information for you right away.",
		stop: mapping.StopToolUse, usage: Usage{Known: true, InputTokens: 394, OutputTokens: 76},
		calls: []anthropicCall{{"toolu_vrtx_01JhPy9eXqgjLWmUpoCiEkCs", "weather", `{"location":"Florence,Italy"}`}},
	},
}

func TestAnthropicStreamDecodeRecordings(t *testing.T) {
	skipWithoutRecordings(t)
	// Every streaming recording of both directories is in the table.
	var files []string
	for _, dir := range []string{"anthropic-messages", "vertex-anthropic"} {
		m, _ := filepath.Glob(filepath.Join(recordingsDir, dir, "*stream*.json"))
		for _, f := range m {
			files = append(files, dir+"/"+filepath.Base(f))
		}
	}
	if len(files) != len(anthropicRecordedStreams) {
		t.Errorf("%d streaming recordings, %d in the table", len(files), len(anthropicRecordedStreams))
	}
	for _, tt := range anthropicRecordedStreams {
		t.Run(tt.file, func(t *testing.T) {
			p, body := anthropicStreamRecording(t, tt.file)
			if !p.IsAnthropic() {
				t.Fatalf("protocol %q", p)
			}
			evs := anthropicDecode(t, p, body, nil)
			checkWellFormed(t, evs)
			s := summarize(evs)
			calls, text := anthropicCalls(t, evs)
			if !equalDecoded(calls, tt.calls) {
				t.Errorf("tool calls %q, want %q", calls, tt.calls)
			}
			s.Text = text
			if searches, results := anthropicSearches(t, evs); !equalDecoded(searches, tt.searches) || results != tt.results {
				t.Errorf("searches %q and %d results, want %q and %d", searches, results, tt.searches, tt.results)
			}
			if s.ID != tt.id || s.Model != tt.model {
				t.Errorf("id %q model %q", s.ID, s.Model)
			}
			if s.Text != tt.text || s.Refusal != "" {
				t.Errorf("text %q refusal %q, want %q", s.Text, s.Refusal, tt.text)
			}
			if s.Stop != tt.stop || s.StopSeq != "" || s.Usage != tt.usage {
				t.Errorf("stop %v %q usage %+v, want %v %+v", s.Stop, s.StopSeq, s.Usage, tt.stop, tt.usage)
			}
			if tt.errWhat == "" {
				if s.Err != nil || !s.Complete {
					t.Errorf("not complete: %v", s.Err)
				}
				return
			}
			if s.Complete || s.Err == nil || s.Err.Status != 502 || s.Err.Kind != mapping.ErrBadGateway ||
				!strings.Contains(s.Err.Message, tt.errWhat+" cannot be translated yet") {
				t.Errorf("want a not-yet error about %s, got %+v", tt.errWhat, s.Err)
			}
		})
	}
}

// anthropicSearches returns the queries of the server tool calls in evs and
// the number of server tool results, each with an id and sources.
func anthropicSearches(t *testing.T, evs []Event) (queries []string, results int) {
	t.Helper()
	open := -1
	var args string
	for _, ev := range evs {
		switch {
		case ev.Type == EventPartStart && ev.Part == PartServerToolCall:
			open, args = ev.Index, ""
			if ev.ToolName != "web_search" || !strings.HasPrefix(ev.ToolCallID, "srvtoolu_") {
				t.Errorf("search call %+v", ev)
			}
		case ev.Type == EventPartStart && ev.Part == PartServerToolResult:
			results++
			if len(ev.Sources) == 0 || !strings.HasPrefix(ev.ToolCallID, "srvtoolu_") {
				t.Errorf("search result %+v", ev)
			}
		case ev.Type == EventPartDelta && ev.Index == open:
			args += ev.Text
		case ev.Type == EventPartStop && ev.Index == open:
			queries, open = append(queries, searchQuery(args)), -1
		}
	}
	return queries, results
}

// anthropicSSEEvent is a detached SSE event.
type anthropicSSEEvent struct {
	name, data string
	bare       bool
}

// anthropicReadEvents splits an SSE body into detached events.
func anthropicReadEvents(t testing.TB, body string) []anthropicSSEEvent {
	t.Helper()
	r := sse.NewReader(strings.NewReader(body), 0)
	var evs []anthropicSSEEvent
	for {
		ev, err := r.Next()
		if err == io.EOF {
			return evs
		}
		if err != nil {
			t.Fatal(err)
		}
		evs = append(evs, anthropicSSEEvent{string(ev.Name), string(ev.Data), ev.Bare})
	}
}

// TestAnthropicStreamTruncation closes the decoder after every prefix of
// every recording (cleanly and with a broken connection): the result is
// always well formed and ends with EventEnd only when message_stop was seen.
func TestAnthropicStreamTruncation(t *testing.T) {
	skipWithoutRecordings(t)
	for _, tt := range anthropicRecordedStreams {
		p, body := anthropicStreamRecording(t, tt.file)
		sevs := anthropicReadEvents(t, body)
		for n := 0; n <= len(sevs); n++ {
			for _, cause := range []error{nil, errTestBroken} {
				dec := streamDecoder(p)
				var evs []Event
				sawStop := false
				for _, e := range sevs[:n] {
					evs = anthropicDetach(evs, dec.Decode(nil, []byte(e.name), []byte(e.data), e.bare))
					sawStop = sawStop || e.name == "message_stop"
				}
				evs = anthropicDetach(evs, dec.Close(nil, cause))
				checkWellFormed(t, evs)
				s := summarize(evs)
				complete := sawStop && tt.errWhat == ""
				if s.Complete != complete {
					t.Fatalf("%s after %d events (cause %v): complete %v, want %v", tt.file, n, cause, s.Complete, complete)
				}
				if !s.Complete && s.Err == nil {
					t.Fatalf("%s after %d events: neither end nor error", tt.file, n)
				}
				if !sawStop && tt.errWhat == "" {
					want := "ended before"
					if cause != nil {
						want = "broke off"
					}
					if !strings.Contains(s.Err.Message, want) || s.Err.Status != 502 {
						t.Fatalf("%s after %d events: %+v", tt.file, n, s.Err)
					}
				}
			}
		}
	}
	// Byte-level cuts through the SSE reader, as a broken connection gives
	// them, on two complete recordings.
	for _, file := range []string{"anthropic-messages/claude-sonnet-4-text-stream.json", "vertex-anthropic/claude-3-7-sonnet-tool-followup-stream.json"} {
		p, body := anthropicStreamRecording(t, file)
		// The stream is complete once message_stop's data line has its
		// line end.
		end := strings.LastIndex(body, "message_stop")
		end += strings.IndexByte(body[end:], '\n')
		for i := 0; i < len(body); i++ {
			evs := anthropicDecode(t, p, body[:i], nil)
			checkWellFormed(t, evs)
			if s := summarize(evs); s.Complete != (i > end) {
				t.Fatalf("%s cut at %d: complete %v", file, i, s.Complete)
			}
		}
	}
}

// anthropicDecodeReader decodes an SSE body read from r.
func anthropicDecodeReader(t *testing.T, p Protocol, r io.Reader) []Event {
	t.Helper()
	dec := streamDecoder(p)
	sr := sse.NewReader(r, 0)
	var out []Event
	var cause error
	for {
		ev, err := sr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			cause = err
			break
		}
		out = anthropicDetach(out, dec.Decode(nil, ev.Name, ev.Data, ev.Bare))
	}
	return anthropicDetach(out, dec.Close(nil, cause))
}

// TestAnthropicStreamDecodeOddFraming feeds events split in unusual ways:
// the SSE reader does the framing, the decoder must accept what it yields.
func TestAnthropicStreamDecodeOddFraming(t *testing.T) {
	want := `start(msg_1,claude-x,10/0/0/1/0) part_start(0,0) delta(0,"a\nb") delta(0,"c") part_stop(0) stop(end,"") usage(10/0/0/7/0) end`
	plain := anthropicMsgStart + anthropicTextStart(0) + anthropicTextDelta(0, `"a\nb"`) + anthropicTextDelta(0, `"c"`) +
		anthropicBlockStop(0) + anthropicEndTurn + anthropicMsgStop
	bodies := map[string]string{
		"plain": plain,
		"CRLF":  strings.ReplaceAll(plain, "\n", "\r\n"),
		"CR":    strings.ReplaceAll(plain, "\n", "\r"),
		"JSON split over data lines, no space after colons, comments, id and retry fields": anthropicMsgStart +
			": keep-alive\n\n" +
			"event:content_block_start\nid: 7\ndata:{\"type\":\"content_block_start\",\ndata:\"index\":0,\ndata: \"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n" +
			"retry: 1000\nevent: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\ndata:   \"delta\":{\"type\":\"text_delta\",\"text\":\"a\\nb\"}}\n\n" +
			"data: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"c\"}}\nevent: content_block_delta\n\n" +
			anthropicBlockStop(0) + anthropicEndTurn + "event: message_stop\ndata: {\"type\":\"message_stop\"}\n",
		"tabs and newlines inside the JSON": anthropicMsgStart + anthropicTextStart(0) +
			"event: content_block_delta\ndata: {\t\"type\" : \"content_block_delta\" ,\ndata:  \"index\" : 0 , \"delta\" : {\"text\" : \"a\\nb\", \"type\" : \"text_delta\"}\ndata: }\n\n" +
			anthropicTextDelta(0, `"c"`) + anthropicBlockStop(0) + anthropicEndTurn + anthropicMsgStop,
	}
	for name, body := range bodies {
		for _, oneByte := range []bool{false, true} {
			var r io.Reader = strings.NewReader(body)
			if oneByte {
				r = iotest.OneByteReader(r)
			}
			evs := anthropicDecodeReader(t, AnthropicMessages, r)
			checkWellFormed(t, evs)
			if got := anthropicFormat(evs); got != want {
				t.Errorf("%s (one byte reads %v):\n got %s\nwant %s", name, oneByte, got, want)
			}
		}
	}
}

func TestAnthropicStreamDecoderAfterTerminal(t *testing.T) {
	for _, body := range []string{anthropicMsgStart + anthropicMsgStop, "data: oops\n\n"} {
		dec := streamDecoder(AnthropicMessages)
		for _, e := range anthropicReadEvents(t, body) {
			dec.Decode(nil, []byte(e.name), []byte(e.data), e.bare)
		}
		if out := dec.Decode(nil, []byte("message_start"), []byte(`{"type":"message_start","message":{}}`), false); len(out) != 0 {
			t.Errorf("Decode after the end: %v", out)
		}
		if out := dec.Close(nil, errTestBroken); len(out) != 0 {
			t.Errorf("Close after the end: %v", out)
		}
	}
	// Close twice.
	dec := streamDecoder(VertexAnthropic)
	if out := dec.Close(nil, nil); len(out) != 1 || out[0].Type != EventError || !strings.Contains(out[0].Err.Message, "vertex-anthropic") {
		t.Errorf("Close: %+v", out)
	}
	if out := dec.Close(nil, nil); len(out) != 0 {
		t.Errorf("second Close: %+v", out)
	}
}

// TestAnthropicStreamDecoderArena checks that escaped strings of one event
// are not overwritten while the event is in use, and that the arena is
// reused for the next.
func TestAnthropicStreamDecoderArena(t *testing.T) {
	dec := newAnthropicStreamDecoder(AnthropicMessages)
	dec.Decode(nil, nil, []byte(`{"type":"message_start","message":{"id":"msg_\"1\"","model":"m\u00e9"}}`), false)
	dec.Decode(nil, nil, []byte(`{"type":"content_block_start","index":0,"content_block":{"type":"text","text":"x\ty"}}`), false)
	long := strings.Repeat(`\n`, anthropicArenaSize) // longer than the arena once unescaped twice
	out := dec.Decode(nil, nil, []byte(`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"`+long+`"}}`), false)
	if len(out) != 1 || out[0].Text != strings.Repeat("\n", anthropicArenaSize) {
		t.Fatalf("long delta: %d events", len(out))
	}
	data := []byte(`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a\"b"}}`)
	out = dec.Decode(nil, nil, data, false)
	if len(out) != 1 || out[0].Text != `a"b` {
		t.Fatalf("escaped delta: %+v", out)
	}
	allocs := testing.AllocsPerRun(100, func() { out = dec.Decode(out[:0], nil, data, false) })
	if allocs != 0 {
		t.Errorf("%v allocations per escaped delta", allocs)
	}
}

// anthropicCheckSSEGolden compares an SSE stream with the golden file at
// testdata/anthropic-messages/stream_<name>.sse, stored as is; with -update
// it rewrites the file.
func anthropicCheckSSEGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", "anthropic-messages", "stream_"+name+".sse")
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./codec -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from golden file:\n got:\n%s\nwant:\n%s", path, got, want)
	}
}

// anthropicCheckSSE checks the client-side shape of an encoded stream: every
// event is named, its data is one line of JSON whose type is the event name,
// and the sequence is the one Anthropic sends.
func anthropicCheckSSE(t *testing.T, body string) {
	t.Helper()
	if !strings.HasSuffix(body, "\n\n") {
		t.Fatalf("stream does not end with a blank line: %q", body)
	}
	var names []string
	for _, e := range anthropicReadEvents(t, body) {
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

// anthropicEncodeCases are canonical streams for the encoder's golden files
// and round trips.
var anthropicEncodeCases = []struct {
	name string
	req  Request
	evs  []Event
}{
	{
		name: "text",
		req:  Request{Model: "claude-sonnet-4-5"},
		evs: []Event{
			{Type: EventStart, ID: "msg_01Test", Model: "claude-sonnet-4-5-20250929", Usage: Usage{Known: true, InputTokens: 60, CacheReadTokens: 40, CacheWriteTokens: 4, OutputTokens: 1}},
			{Type: EventPartStart, Index: 0, Part: PartText},
			{Type: EventPartDelta, Index: 0, Text: "Hello"},
			{Type: EventPartDelta, Index: 0, Text: ", \"world\"!\n\u2028<tab>\t"},
			{Type: EventPartStop, Index: 0},
			{Type: EventPartStart, Index: 1, Part: PartText},
			{Type: EventPartDelta, Index: 1, Text: "Second block."},
			{Type: EventPartStop, Index: 1},
			{Type: EventStop, StopReason: mapping.StopEnd},
			{Type: EventUsage, Usage: Usage{Known: true, InputTokens: 60, CacheReadTokens: 40, CacheWriteTokens: 4, OutputTokens: 12}},
			{Type: EventEnd},
		},
	},
	{
		// Chat style: text, then two parallel calls, the second without
		// argument fragments (its input stays {}).
		name: "tool_calls",
		req:  Request{Model: "gpt-4o"},
		evs: []Event{
			{Type: EventStart, ID: "chatcmpl-tools", Model: "gpt-4o-2024-08-06"},
			{Type: EventPartStart, Index: 0, Part: PartText},
			{Type: EventPartDelta, Index: 0, Text: "Checking."},
			{Type: EventPartStop, Index: 0},
			{Type: EventPartStart, Index: 1, Part: PartToolCall, ToolCallID: "call_abc", ToolName: "get_weather"},
			{Type: EventPartDelta, Index: 1, Text: `{"city":`},
			{Type: EventPartDelta, Index: 1, Text: `"Paris \"FR\""}`},
			{Type: EventPartStop, Index: 1},
			{Type: EventPartStart, Index: 2, Part: PartToolCall, ToolCallID: "call_def", ToolName: "get_time"},
			{Type: EventPartStop, Index: 2},
			{Type: EventStop, StopReason: mapping.StopToolUse},
			{Type: EventUsage, Usage: Usage{Known: true, InputTokens: 80, OutputTokens: 30}},
			{Type: EventEnd},
		},
	},
	{
		name: "refusal",
		req:  Request{Model: "gpt-4o"},
		evs: []Event{
			{Type: EventStart, ID: "resp_1", Model: "gpt-4o-2024-08-06"},
			{Type: EventPartStart, Index: 0, Part: PartRefusal},
			{Type: EventPartDelta, Index: 0, Text: "I'm sorry, I can't help with that."},
			{Type: EventPartStop, Index: 0},
			{Type: EventUsage, Usage: Usage{Known: true, InputTokens: 20, OutputTokens: 9}},
			{Type: EventStop, StopReason: mapping.StopRefusal},
			{Type: EventEnd},
		},
	},
	{
		name: "max_tokens",
		req:  Request{Model: "claude-x"},
		evs: []Event{
			{Type: EventStart, ID: "msg_max", Usage: Usage{Known: true, InputTokens: 10, OutputTokens: 1}},
			{Type: EventPartStart, Index: 0, Part: PartText},
			{Type: EventPartDelta, Index: 0, Text: "Once upon a"},
			{Type: EventPartStop, Index: 0},
			{Type: EventStop, StopReason: mapping.StopMaxTokens},
			{Type: EventUsage, Usage: Usage{Known: true, InputTokens: 10, OutputTokens: 3}},
			{Type: EventEnd},
		},
	},
	{
		name: "stop_sequence",
		req:  Request{Model: "claude-x"},
		evs: []Event{
			{Type: EventStart, ID: "msg_seq", Model: "claude-x-1", Usage: Usage{Known: true, InputTokens: 10, OutputTokens: 1}},
			{Type: EventPartStart, Index: 0, Part: PartText},
			{Type: EventPartDelta, Index: 0, Text: "1, 2, "},
			{Type: EventPartStop, Index: 0},
			{Type: EventStop, StopReason: mapping.StopSequence, StopSequence: "3"},
			{Type: EventUsage, Usage: Usage{Known: true, InputTokens: 10, OutputTokens: 5}},
			{Type: EventEnd},
		},
	},
	{
		// Gemini style: cumulative usage on every chunk, then the stop.
		name: "usage_before_stop",
		req:  Request{Model: "gemini-2.5-flash"},
		evs: []Event{
			{Type: EventStart, ID: "resp-gem", Model: "gemini-2.5-flash"},
			{Type: EventPartStart, Index: 0, Part: PartText},
			{Type: EventPartDelta, Index: 0, Text: "Hi"},
			{Type: EventUsage, Usage: Usage{Known: true, InputTokens: 8, CacheReadTokens: 2, OutputTokens: 1}},
			{Type: EventPartDelta, Index: 0, Text: " there"},
			{Type: EventUsage, Usage: Usage{Known: true, InputTokens: 8, CacheReadTokens: 2, OutputTokens: 30, ReasoningTokens: 27}},
			{Type: EventPartStop, Index: 0},
			{Type: EventStop, StopReason: mapping.StopEnd},
			{Type: EventEnd},
		},
	},
	{
		// Chat style: the finish reason, then the include_usage chunk.
		name: "usage_after_stop",
		req:  Request{Model: "gpt-4o"},
		evs: []Event{
			{Type: EventStart, ID: "chatcmpl-1", Model: "gpt-4o-2024-08-06", Created: 1700000000},
			{Type: EventPartStart, Index: 0, Part: PartText},
			{Type: EventPartDelta, Index: 0, Text: "Hi"},
			{Type: EventPartStop, Index: 0},
			{Type: EventStop, StopReason: mapping.StopEnd},
			{Type: EventUsage, Usage: Usage{Known: true, InputTokens: 1200, CacheReadTokens: 1024, OutputTokens: 2}},
			{Type: EventEnd},
		},
	},
	{
		name: "error_mid_stream",
		req:  Request{Model: "claude-x"},
		evs: []Event{
			{Type: EventStart, ID: "msg_err", Model: "claude-x-1", Usage: Usage{Known: true, InputTokens: 10, OutputTokens: 1}},
			{Type: EventPartStart, Index: 0, Part: PartText},
			{Type: EventPartDelta, Index: 0, Text: "Partial"},
			{Type: EventError, Err: &Error{Status: 529, Kind: mapping.ErrOverloaded, Message: "Overloaded", Code: "overloaded_error", Protocol: AnthropicMessages}},
		},
	},
	{
		name: "error_before_content",
		req:  Request{Model: "gpt-4o"},
		evs: []Event{
			{Type: EventStart, ID: "resp_2", Model: "gpt-4o"},
			{Type: EventError, Err: &Error{Status: 429, Kind: mapping.ErrRateLimit, Message: "Rate limit reached", Code: "rate_limit_exceeded", Protocol: OpenAIResponses}},
		},
	},
	{
		name: "error_before_start",
		req:  Request{Model: "gemini-2.5-flash"},
		evs: []Event{
			{Type: EventError, Err: &Error{Status: 503, Kind: mapping.ErrOverloaded, Message: "The model is overloaded.", Code: "UNAVAILABLE", Protocol: Gemini}},
		},
	},
	{
		name: "truncated_upstream",
		req:  Request{Model: "claude-x"},
		evs: []Event{
			{Type: EventStart, ID: "msg_cut", Model: "claude-x-1", Usage: Usage{Known: true, InputTokens: 10, OutputTokens: 1}},
			{Type: EventPartStart, Index: 0, Part: PartText},
			{Type: EventPartDelta, Index: 0, Text: "Par"},
			{Type: EventError, Err: truncated(OpenAIChat, errTestBroken)},
		},
	},
	{
		name: "empty",
		req:  Request{Model: "claude-x"},
		evs: []Event{
			{Type: EventStart, ID: "msg_empty", Model: "claude-x-1", Usage: Usage{Known: true, InputTokens: 10, OutputTokens: 1}},
			{Type: EventStop, StopReason: mapping.StopEnd},
			{Type: EventUsage, Usage: Usage{Known: true, InputTokens: 10, OutputTokens: 1}},
			{Type: EventEnd},
		},
	},
}

func TestAnthropicStreamEncodeGolden(t *testing.T) {
	for _, tt := range anthropicEncodeCases {
		t.Run(tt.name, func(t *testing.T) {
			checkWellFormed(t, tt.evs)
			got := encodeStream(AnthropicMessages, &tt.req, tt.evs)
			anthropicCheckSSE(t, got)
			anthropicCheckSSEGolden(t, tt.name, []byte(got))
			// vertex-anthropic clients get the same stream.
			if v := encodeStream(VertexAnthropic, &tt.req, tt.evs); v != got {
				t.Errorf("vertex-anthropic stream differs:\n%s", v)
			}
		})
	}
}

// anthropicExpectRoundTrip is what an Anthropic client is expected to end
// up with for a canonical stream: refusals are text, stop reasons are
// normalised by the Anthropic mapping, usage is always known once the
// stream completes, and errors keep their Anthropic type's status.
func anthropicExpectRoundTrip(evs []Event) streamSummary {
	s := summarize(evs)
	s.Text += s.Refusal
	s.Refusal = ""
	if s.Complete {
		s.Stop = mapping.FromAnthropicStopReason(mapping.AnthropicStopReason(s.Stop))
		s.Usage.Known = true
	}
	return s
}

func TestAnthropicStreamRoundTrip(t *testing.T) {
	for _, tt := range anthropicEncodeCases {
		t.Run(tt.name, func(t *testing.T) {
			body := encodeStream(AnthropicMessages, &tt.req, tt.evs)
			evs := anthropicDecode(t, AnthropicMessages, body, nil)
			checkWellFormed(t, evs)
			got, want := summarize(evs), anthropicExpectRoundTrip(tt.evs)
			if tt.evs[0].Type == EventStart {
				if want.ID == "" {
					want.ID = got.ID
				}
				if want.Model == "" {
					want.Model = tt.req.Model
				}
				if !want.Usage.Known {
					want.Usage = Usage{Known: true} // message_start always carries usage
				}
			}
			if want.Err != nil {
				if got.Err == nil || got.Err.Kind != want.Err.Kind && want.Err.Kind != mapping.ErrBadGateway ||
					got.Err.Message != want.Err.Message || got.Err.Code != mapping.AnthropicErrorType(want.Err.Kind) && got.Err.Code != want.Err.Code {
					t.Errorf("error %+v, want %+v", got.Err, want.Err)
				}
				got.Err, want.Err = nil, nil
			}
			if got != want {
				t.Errorf("round trip:\n got %+v\nwant %+v", got, want)
			}
		})
	}
}

// TestAnthropicStreamRecordingRoundTrip re-encodes every recorded upstream
// stream for an Anthropic client and decodes it again: the client sees what
// the upstream said.
func TestAnthropicStreamRecordingRoundTrip(t *testing.T) {
	skipWithoutRecordings(t)
	for _, tt := range anthropicRecordedStreams {
		p, body := anthropicStreamRecording(t, tt.file)
		evs := anthropicDecode(t, p, body, nil)
		out := encodeStream(p, &Request{}, evs)
		anthropicCheckSSE(t, out)
		again := anthropicDecode(t, AnthropicMessages, out, nil)
		checkWellFormed(t, again)
		got, want := summarize(again), summarize(evs)
		if want.Err != nil {
			if got.Err == nil || got.Err.Message != want.Err.Message {
				t.Errorf("%s: error %+v, want %+v", tt.file, got.Err, want.Err)
			}
			got.Err, want.Err = nil, nil
		}
		if got != want {
			t.Errorf("%s:\n got %+v\nwant %+v", tt.file, got, want)
		}
		gotCalls, _ := anthropicCalls(t, again)
		wantCalls, _ := anthropicCalls(t, evs)
		if !equalDecoded(gotCalls, wantCalls) || len(wantCalls) != len(tt.calls) {
			t.Errorf("%s: tool calls %q, want %q", tt.file, gotCalls, wantCalls)
		}
	}
}

func TestAnthropicStreamEncoder(t *testing.T) {
	t.Run("generated id, model from the request, unknown usage", func(t *testing.T) {
		out := encodeStream(AnthropicMessages, &Request{Model: "req-model"}, []Event{
			{Type: EventStart},
			{Type: EventPartStart, Part: PartText},
			{Type: EventPartDelta, Text: "x"},
			{Type: EventPartStop},
			{Type: EventEnd},
		})
		anthropicCheckSSE(t, out)
		start := anthropicReadEvents(t, out)[0].data
		id := gjson.Get(start, "message.id").Str
		if !strings.HasPrefix(id, "msg_") || len(id) != 28 || gjson.Get(start, "message.model").Str != "req-model" {
			t.Errorf("message_start %s", start)
		}
		if u := gjson.Get(start, "message.usage").Raw; u != `{"input_tokens":0,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":0}` {
			t.Errorf("usage at start %s", u)
		}
		// No stop reason from the upstream: null, never an invented one.
		if !strings.Contains(out, `"delta":{"stop_reason":null,"stop_sequence":null},"usage":{"output_tokens":0}}`) {
			t.Errorf("message_delta without usage or stop reason:\n%s", out)
		}
	})
	t.Run("events before EventStart, delta without part start, duplicate start", func(t *testing.T) {
		out := encodeStream(VertexAnthropic, nil, []Event{
			{Type: EventUsage, Usage: Usage{Known: true, InputTokens: 3}},
			{Type: EventPartDelta, Text: "a"},
			{Type: EventPartDelta, Text: ""},
			{Type: EventStart, ID: "ignored"},
			{Type: EventPartStart, Index: 1, Part: PartRefusal},
			{Type: EventPartDelta, Index: 1, Text: "b"},
			{Type: EventStop, StopReason: mapping.StopContentFilter},
			{Type: EventType(200)}, // unknown event types encode nothing
			{Type: EventEnd},
			{Type: EventPartDelta, Text: "after the end"},
			{Type: EventError, Err: &Error{Message: "after the end"}},
		})
		anthropicCheckSSE(t, out)
		evs := anthropicDecode(t, VertexAnthropic, out, nil)
		want := `part_start(0,0) delta(0,"a") part_stop(0) part_start(1,0) delta(1,"b") part_stop(1) stop(refusal,"") usage(3/0/0/0/0) end`
		if got := anthropicFormat(evs[1:]); got != want {
			t.Errorf("got %s\nwant %s", got, want)
		}
		if evs[0].ID == "ignored" || evs[0].Model != "" {
			t.Errorf("start %+v", evs[0])
		}
	})
	t.Run("end without start", func(t *testing.T) {
		out := encodeStream(AnthropicMessages, &Request{Model: "m"}, []Event{{Type: EventEnd}})
		anthropicCheckSSE(t, out)
		if s := summarize(anthropicDecode(t, AnthropicMessages, out, nil)); !s.Complete || s.Text != "" || s.Model != "m" {
			t.Errorf("%+v", s)
		}
	})
	t.Run("error without Err, nothing after it", func(t *testing.T) {
		out := encodeStream(AnthropicMessages, &Request{}, []Event{
			{Type: EventStart, ID: "msg_x"},
			{Type: EventPartStart},
			{Type: EventError},
			{Type: EventEnd},
		})
		anthropicCheckSSE(t, out)
		if !strings.HasSuffix(out, "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n"+
			"event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"api_error\",\"message\":\"upstream stream failed\"}}\n\n") {
			t.Errorf("got\n%s", out)
		}
	})
	t.Run("stop sequence is copied", func(t *testing.T) {
		seq := []byte("STOP")
		enc := streamEncoder(AnthropicMessages, &Request{})
		var dst []byte
		dst = enc.Encode(dst, &Event{Type: EventStart, ID: "msg_s"})
		dst = enc.Encode(dst, &Event{Type: EventStop, StopReason: mapping.StopSequence, StopSequence: jsonx.BytesToString(seq)})
		copy(seq, "XXXX") // the decoder's buffer is reused
		dst = enc.Encode(dst, &Event{Type: EventEnd})
		if !strings.Contains(string(dst), `"stop_sequence":"STOP"`) {
			t.Errorf("got\n%s", dst)
		}
	})
}

// anthropicBenchDelta is a realistic upstream text delta, with the space
// padding real servers add.
var anthropicBenchDelta = []byte(`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":" are:\n- 2 + 3 = "}           }`)

func BenchmarkAnthropicStreamDecodeDelta(b *testing.B) {
	dec := newAnthropicStreamDecoder(AnthropicMessages)
	name := []byte("content_block_delta")
	out := dec.Decode(nil, []byte("message_start"), []byte(`{"type":"message_start","message":{"id":"msg_1","model":"claude-x","usage":{"input_tokens":10,"output_tokens":1}}}`), false)
	out = dec.Decode(out, []byte("content_block_start"), []byte(`{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`), false)
	b.ReportAllocs()
	b.SetBytes(int64(len(anthropicBenchDelta)))
	for b.Loop() {
		out = dec.Decode(out[:0], name, anthropicBenchDelta, false)
	}
	if len(out) != 1 || out[0].Text != " are:\n- 2 + 3 = " {
		b.Fatalf("decoded %+v", out)
	}
}

func BenchmarkAnthropicStreamEncodeDelta(b *testing.B) {
	enc := newAnthropicStreamEncoder(&Request{Model: "claude-x"})
	dst := enc.Encode(nil, &Event{Type: EventStart, ID: "msg_1"})
	dst = enc.Encode(dst, &Event{Type: EventPartStart})
	ev := Event{Type: EventPartDelta, Text: " are:\n- 2 + 3 = "}
	b.ReportAllocs()
	for b.Loop() {
		dst = enc.Encode(dst[:0], &ev)
	}
}

// TestAnthropicStreamDeltaAllocations guards the hot path: a text delta is
// decoded and encoded without allocating.
func TestAnthropicStreamDeltaAllocations(t *testing.T) {
	dec := newAnthropicStreamDecoder(AnthropicMessages)
	enc := newAnthropicStreamEncoder(&Request{Model: "claude-x"})
	var dst []byte
	for _, e := range anthropicReadEvents(t, anthropicMsgStart+anthropicTextStart(0)) {
		for _, ev := range dec.Decode(nil, []byte(e.name), []byte(e.data), false) {
			dst = enc.Encode(dst, &ev)
		}
	}
	name := []byte("content_block_delta")
	out := make([]Event, 0, 4)
	allocs := testing.AllocsPerRun(200, func() {
		out = dec.Decode(out[:0], name, anthropicBenchDelta, false)
		dst = enc.Encode(dst[:0], &out[0])
	})
	if allocs > 0 {
		t.Errorf("%v allocations per text delta (decode+encode)", allocs)
	}
	if !strings.Contains(string(dst), `"text":" are:\n- 2 + 3 = "`) {
		t.Errorf("encoded %s", dst)
	}
}

// TestAnthropicStreamFastPath checks that the text delta fast path agrees
// with the general path, which the same events take once their layout
// differs (a space after the opening brace), on every recorded stream and
// on deltas that only look like the fast layout.
func TestAnthropicStreamFastPath(t *testing.T) {
	bodies := []string{
		anthropicMsgStart + anthropicTextStart(0) +
			anthropicTextDelta(0, `"plain"`) +
			anthropicTextDelta(0, `"esc\"aped\n\u00e9\ud83d\ude00"`) +
			anthropicTextDelta(0, `""`) +
			anthropicEv("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"pad"}  }  `) +
			anthropicEv("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"inner pad"  }}`) +
			anthropicEv("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"x","more":1}}`) +
			anthropicEv("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"y"},"more":1}`) +
			anthropicEv("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"z"},"type":"content_block_delta"}`) +
			anthropicEv("content_block_delta", `{"type":"content_block_delta","index":0e0,"delta":{"type":"text_delta","text":"e"}}`) +
			anthropicEv("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"w"}}`+"\n") +
			anthropicBlockStop(0) + anthropicEndTurn + anthropicMsgStop,
		anthropicTextDelta(0, `"before start"`),
		anthropicMsgStart + anthropicTextDelta(0, `"no block"`),
		anthropicMsgStart + anthropicTextDelta(1234567890, `"huge index"`),
		anthropicMsgStart + anthropicBlockStart(0, `{"type":"thinking","thinking":""}`) + anthropicTextDelta(0, `"text in thinking"`) + anthropicMsgStop,
		anthropicMsgStart + anthropicTextStart(0) + anthropicBlockStop(0) + anthropicTextDelta(0, `"closed"`),
	}
	if _, err := os.Stat(recordingsDir); err == nil {
		for _, tt := range anthropicRecordedStreams {
			_, body := anthropicStreamRecording(t, tt.file)
			bodies = append(bodies, body)
		}
	}
	for _, body := range bodies {
		fast, general := streamDecoder(AnthropicMessages), streamDecoder(AnthropicMessages)
		var a, b []Event
		for _, e := range anthropicReadEvents(t, body) {
			a = anthropicDetach(a, fast.Decode(nil, []byte(e.name), []byte(e.data), false))
			b = anthropicDetach(b, general.Decode(nil, []byte(e.name), []byte("{ "+e.data[1:]), false))
		}
		a = anthropicDetach(a, fast.Close(nil, nil))
		b = anthropicDetach(b, general.Close(nil, nil))
		checkWellFormed(t, a)
		fa, fb := anthropicFormat(a), anthropicFormat(b)
		if fa != fb {
			t.Errorf("fast path:\n%s\ngeneral path:\n%s", fa, fb)
		}
		if ea, eb := anthropicLastError(a), anthropicLastError(b); ea != nil && eb != nil && ea.Message != eb.Message {
			t.Errorf("fast path error %q, general path error %q", ea.Message, eb.Message)
		}
	}
}

// TestAnthropicStreamEncodeToolEdges checks that a tool call without an id
// gets a toolu_ one and that a part Anthropic cannot stream (an image, a
// tool call without a name) ends the stream with an error event.
func TestAnthropicStreamEncodeToolEdges(t *testing.T) {
	out := encodeStream(AnthropicMessages, &Request{Model: "m"}, []Event{
		{Type: EventStart, ID: "msg_1"},
		{Type: EventPartStart, Part: PartToolCall, ToolName: "f"},
		{Type: EventPartStop},
		{Type: EventEnd},
	})
	anthropicCheckSSE(t, out)
	block := gjson.Get(anthropicReadEvents(t, out)[1].data, "content_block")
	if !strings.HasPrefix(block.Get("id").Str, "toolu_") || block.Get("name").Str != "f" || block.Get("input").Raw != "{}" {
		t.Errorf("content_block %s", block.Raw)
	}
	for _, ev := range []Event{
		{Type: EventPartStart, Part: PartImage},
		{Type: EventPartStart, Part: PartToolCall, ToolCallID: "call_1"},
	} {
		out := encodeStream(AnthropicMessages, &Request{Model: "m"}, []Event{{Type: EventStart, ID: "msg_1"}, ev, {Type: EventPartStop}, {Type: EventEnd}})
		anthropicCheckSSE(t, out)
		evs := anthropicReadEvents(t, out)
		if last := evs[len(evs)-1]; last.name != "error" || !strings.Contains(last.data, "cannot be expressed") {
			t.Errorf("stream %s", out)
		}
	}
}
