package anthropic

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/codectest"
	"github.com/llmbridge/llmbridge/mapping"
)

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
			body: ev("message_start", `{"type":"message_start","message":{"model":"claude-x","id":"msg_1","type":"message","role":"assistant","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":10,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":1,"service_tier":"standard"}}      }`) +
				ping +
				ev("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}            }`) +
				ping +
				ev("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi \"there\"\n"}   }`) +
				ev("future_event", `{"type":"future_event","payload":{"x":1}}`) +
				ev("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"\u00e9\ud83d\ude00"}}`) +
				ev("content_block_stop", `{"type":"content_block_stop","index":0   }`) +
				ping +
				ev("message_delta", `{"type":"message_delta","delta":{"stop_reason":"stop_sequence","stop_sequence":"STOP","stop_details":null},"usage":{"input_tokens":10,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":12}  }`) +
				ev("message_stop", `{"type":"message_stop"       }`),
			want: start + ` part_start(0,0) delta(0,"Hi \"there\"\n") delta(0,"é😀") part_stop(0) stop(stop_sequence,"STOP") usage(10/0/0/12/0) end`,
		},
		{
			name: "initial text in content_block_start, empty deltas dropped",
			body: msgStart + blockStart(0, `{"type":"text","text":"Hel"}`) + textDelta(0, `""`) +
				textDelta(0, `"lo"`) + blockStop(0) + endTurn + msgStop,
			want: start + ` part_start(0,0) delta(0,"Hel") delta(0,"lo") part_stop(0) stop(end,"") usage(10/0/0/7/0) end`,
		},
		{
			name: "thinking and redacted thinking become reasoning parts",
			body: msgStart +
				blockStart(0, `{"type":"thinking","thinking":"","signature":""}`) +
				delta(0, `{"type":"thinking_delta","thinking":"Let me think"}`) +
				delta(0, `{"type":"thinking_delta","thinking":""}`) +
				delta(0, `{"type":"signature_delta","signature":"EqQBCgIYAhIM"}`) +
				blockStop(0) +
				blockStart(1, `{"type":"redacted_thinking","data":"EmwKAhgB"}`) + blockStop(1) +
				textStart(2) + textDelta(2, `"Answer"`) + blockStop(2) +
				ev("message_delta", `{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":50,"output_tokens_details":{"thinking_tokens":30}}}`) +
				msgStop,
			want: start + ` reasoning_start(0) delta(0,"Let me think") part_stop(0,anthropic:EqQBCgIYAhIM)` +
				` redacted_start(1) part_stop(1,anthropic:EmwKAhgB) part_start(2,0) delta(2,"Answer") part_stop(2) stop(end,"") usage(10/0/0/50/30) end`,
		},
		{
			name: "thinking: text and signature in the start, signature split, omitted display, unsigned",
			body: msgStart +
				blockStart(0, `{"type":"thinking","thinking":"whole","signature":"Sig"}`) + blockStop(0) +
				blockStart(1, `{"type":"thinking","thinking":"","signature":""}`) +
				delta(1, `{"type":"signature_delta","signature":"ab"}`) +
				delta(1, `{"type":"signature_delta","signature":"c+/="}`) + blockStop(1) +
				blockStart(2, `{"type":"thinking","thinking":"","signature":""}`) +
				delta(2, `{"type":"thinking_delta","thinking":"no signature"}`) +
				blockStart(3, `{"type":"thinking"}`) + blockStop(3) +
				endTurn + msgStop,
			want: start + ` reasoning_start(0) delta(0,"whole") part_stop(0,anthropic:Sig)` +
				` reasoning_start(1) part_stop(1,anthropic:abc+/=)` +
				` reasoning_start(2) delta(2,"no signature") part_stop(2)` +
				` reasoning_start(3) part_stop(3) stop(end,"") usage(10/0/0/7/0) end`,
		},
		{
			name: "native refusal: empty content, stop details, a complete stream",
			body: msgStart +
				ev("message_delta", `{"type":"message_delta","delta":{"stop_reason":"refusal","stop_sequence":null,"stop_details":{"type":"refusal","category":"cyber","explanation":"This looks like malware \"dev\"."}},"usage":{"output_tokens":3}}`) +
				msgStop,
			want: start + ` stop(refusal,"","cyber","This looks like malware \"dev\".") usage(10/0/0/3/0) end`,
		},
		{
			name: "refusal stop details with null members and unknown ones",
			body: msgStart + textStart(0) + textDelta(0, `"I can't"`) + blockStop(0) +
				ev("message_delta", `{"type":"message_delta","delta":{"stop_reason":"refusal","stop_sequence":null,"stop_details":{"type":"refusal","category":null,"explanation":"Policy.","future":[1]}},"usage":{"output_tokens":3}}`) +
				msgStop,
			want: start + ` part_start(0,0) delta(0,"I can't") part_stop(0) stop(refusal,"","","Policy.") usage(10/0/0/3/0) end`,
		},
		{
			name: "pause_turn after thinking",
			body: msgStart +
				blockStart(0, `{"type":"thinking","thinking":"","signature":""}`) +
				delta(0, `{"type":"thinking_delta","thinking":"hm"}`) +
				delta(0, `{"type":"signature_delta","signature":"S1"}`) + blockStop(0) +
				ev("message_delta", `{"type":"message_delta","delta":{"stop_reason":"pause_turn","stop_sequence":null,"stop_details":null},"usage":{"output_tokens":9}}`) +
				msgStop,
			want: start + ` reasoning_start(0) delta(0,"hm") part_stop(0,anthropic:S1) stop(pause_turn,"") usage(10/0/0/9/0) end`,
		},
		{
			name: "two text blocks",
			body: msgStart + textStart(0) + textDelta(0, `"a"`) + blockStop(0) +
				textStart(1) + textDelta(1, `"b"`) + blockStop(1) + endTurn + msgStop,
			want: start + ` part_start(0,0) delta(0,"a") part_stop(0) part_start(1,0) delta(1,"b") part_stop(1) stop(end,"") usage(10/0/0/7/0) end`,
		},
		{
			name: "repeated content_block_stop ignored",
			body: msgStart + textStart(0) + textDelta(0, `"a"`) + blockStop(0) + blockStop(0) +
				endTurn + msgStop,
			want: start + ` part_start(0,0) delta(0,"a") part_stop(0) stop(end,"") usage(10/0/0/7/0) end`,
		},
		{
			name: "block left open at message_delta is closed first",
			body: msgStart + textStart(0) + textDelta(0, `"a"`) + endTurn + msgStop,
			want: start + ` part_start(0,0) delta(0,"a") part_stop(0) stop(end,"") usage(10/0/0/7/0) end`,
		},
		{
			name: "block left open at message_stop is closed first",
			body: msgStart + textStart(0) + textDelta(0, `"a"`) + msgStop,
			want: start + ` part_start(0,0) delta(0,"a") part_stop(0) end`,
		},
		{
			name: "text block left open when the next starts: its later text is an error",
			body: msgStart + textStart(0) + textStart(1) + textDelta(1, `"b"`) +
				blockStop(0) + textDelta(0, `"a"`),
			want: start + ` part_start(0,0) part_stop(0) part_start(1,0) delta(1,"b") error(502)`,
			msg:  "text_delta for a block that is not an open text block",
		},
		{
			name: "no content, no usage in message_start, message_delta without usage",
			body: ev("message_start", `{"type":"message_start","message":{"id":"msg_2","model":"m"}}`) +
				ev("message_delta", `{"type":"message_delta","delta":{"stop_reason":"max_tokens","stop_sequence":null}}`) + msgStop,
			want: `start(msg_2,m,-) stop(max_tokens,"") end`,
		},
		{
			name: "message_delta usage merged over message_start: caches and input replaced when present",
			body: ev("message_start", `{"type":"message_start","message":{"id":"msg_3","model":"m","usage":{"input_tokens":5,"cache_creation_input_tokens":100,"cache_read_input_tokens":200,"output_tokens":1}}}`) +
				ev("message_delta", `{"type":"message_delta","delta":{"stop_reason":"refusal","stop_sequence":null},"usage":{"output_tokens":9,"cache_read_input_tokens":null}}`) +
				ev("message_delta", `{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"input_tokens":6,"cache_creation_input_tokens":0,"cache_read_input_tokens":300,"output_tokens":10,"server_tool_use":{"web_search_requests":1}}}`) +
				msgStop,
			want: `start(msg_3,m,305/200/100/1/0) stop(refusal,"") usage(305/200/100/9/0) usage(306/300/0/10/0) end`,
		},
		{
			name: "message_delta with null stop_reason and null usage",
			body: msgStart + ev("message_delta", `{"type":"message_delta","delta":{"stop_reason":null},"usage":null}`) + msgStop,
			want: start + " end",
		},
		{
			name: "message_delta without delta",
			body: msgStart + ev("message_delta", `{"type":"message_delta","usage":{"output_tokens":3}}`) + msgStop,
			want: start + " usage(10/0/0/3/0) end",
		},
		{
			name: "unknown stop reason",
			body: msgStart + ev("message_delta", `{"type":"message_delta","delta":{"stop_reason":"brand_new"},"usage":{"output_tokens":3}}`) + msgStop,
			want: start + ` stop(other,"") usage(10/0/0/3/0) end`,
		},
		{
			name: "event without a name is read by its data type; ping without type",
			body: "data: " + `{"type":"message_start","message":{"id":"msg_1","model":"claude-x","usage":{"input_tokens":10,"output_tokens":1}}}` + "\n\n" +
				ev("ping", `{}`) + "data: " + `{"type":"message_stop"}` + "\n\n",
			want: start + " end",
		},
		{
			name: "text then a tool call with fragmented arguments",
			body: msgStart + textStart(0) + textDelta(0, `"I'll call"`) + blockStop(0) +
				blockStart(1, `{"type":"tool_use","id":"toolu_1","name":"get_weather","input":{},"caller":{"type":"direct"}}`) +
				ping +
				delta(1, `{"type":"input_json_delta","partial_json":""}`) +
				delta(1, `{"type":"input_json_delta","partial_json":"{\"city\": \"Par"}`) +
				delta(1, `{"type":"input_json_delta","partial_json":"is\"}"}`) +
				blockStop(1) +
				ev("message_delta", `{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":20}}`) +
				msgStop,
			want: start + ` part_start(0,0) delta(0,"I'll call") part_stop(0) tool_start(1,toolu_1,get_weather) delta(1,"{\"city\": \"Par") delta(1,"is\"}") part_stop(1) stop(tool_use,"") usage(10/0/0/20/0) end`,
		},
		{
			name: "parallel calls, one without arguments, get distinct parts",
			body: msgStart +
				blockStart(0, `{"type":"tool_use","id":"toolu_a","name":"add","input":{}}`) +
				delta(0, `{"type":"input_json_delta","partial_json":"{\"a\":2,\"b\":3}"}`) + blockStop(0) +
				blockStart(1, `{"type":"tool_use","id":"toolu_b","name":"now","input":{}}`) +
				delta(1, `{"type":"input_json_delta","partial_json":""}`) +
				blockStart(2, `{"type":"tool_use","id":"toolu_c","name":"mul","input":{"a":2, "b":3}}`) + blockStop(2) +
				blockStop(1) + msgStop,
			want: start + ` tool_start(0,toolu_a,add) delta(0,"{\"a\":2,\"b\":3}") part_stop(0) tool_start(1,toolu_b,now) part_stop(1) tool_start(2,toolu_c,mul) delta(2,"{\"a\":2, \"b\":3}") part_stop(2) end`,
		},
		{
			name: "tool_use block without id",
			body: msgStart + blockStart(0, `{"type":"tool_use","name":"f","input":{}}`),
			want: start + ` error(502)`,
			msg:  "tool_use block has no id or name",
		},
		{
			name: "tool_use block without name",
			body: msgStart + blockStart(0, `{"type":"tool_use","id":"toolu_1","name":"","input":{}}`),
			want: start + ` error(502)`,
			msg:  "tool_use block has no id or name",
		},
		{
			name: "tool_use block input not an object",
			body: msgStart + blockStart(0, `{"type":"tool_use","id":"toolu_1","name":"f","input":"{}"}`),
			want: start + ` error(502)`,
			msg:  "tool_use block input is not an object",
		},
		{
			name: "input_json_delta without partial_json",
			body: msgStart + blockStart(0, `{"type":"tool_use","id":"toolu_1","name":"f","input":{}}`) +
				delta(0, `{"type":"input_json_delta","partial_json":{}}`),
			want: start + ` tool_start(0,toolu_1,f) error(502)`,
			msg:  "input_json_delta has no partial_json",
		},
		{
			name: "text_delta on a tool_use block",
			body: msgStart + blockStart(0, `{"type":"tool_use","id":"toolu_1","name":"f","input":{}}`) +
				textDelta(0, `"x"`),
			want: start + ` tool_start(0,toolu_1,f) error(502)`,
			msg:  "text_delta for a block that is not an open text block",
		},
		{
			name: "input_json_delta for a closed tool_use block",
			body: msgStart + blockStart(0, `{"type":"tool_use","id":"toolu_1","name":"f","input":{}}`) +
				blockStop(0) + delta(0, `{"type":"input_json_delta","partial_json":"{}"}`),
			want: start + ` tool_start(0,toolu_1,f) part_stop(0) error(502)`,
			msg:  "input_json_delta for a block that is not an open tool_use block",
		},
		{
			// Blocks llmbridge does not translate are kept whole, deltas
			// merged, as opaque reasoning; the answer after them flows.
			name: "server tool block of another tool and its result are kept whole",
			body: msgStart + blockStart(0, `{"type":"server_tool_use","id":"srvtoolu_1","name":"web_fetch","input":{}}`) +
				delta(0, `{"type":"input_json_delta","partial_json":"{\"url\":"}`) +
				delta(0, `{"type":"input_json_delta","partial_json":"\"https://x.example\"}"}`) + blockStop(0) +
				blockStart(1, `{"type":"web_fetch_tool_result","tool_use_id":"srvtoolu_1","content":[]}`) + blockStop(1) +
				textStart(2) + textDelta(2, `"Done"`) + blockStop(2) + endTurn + msgStop,
			want: start + ` redacted_start(0) part_stop(0,anthropic:{"type":"server_tool_use","id":"srvtoolu_1","name":"web_fetch","input":{"url":"https://x.example"}})` +
				` redacted_start(1) part_stop(1,anthropic:{"type":"web_fetch_tool_result","tool_use_id":"srvtoolu_1","content":[]})` +
				` part_start(2,0) delta(2,"Done") part_stop(2) stop(end,"") usage(10/0/0/7/0) end`,
		},
		{
			name: "a compaction block and its deltas are kept whole",
			body: msgStart + blockStart(0, `{"type":"compaction","content":""}`) +
				delta(0, `{"type":"compaction_delta","content":"Summary ","encrypted_content":"Eq"}`) +
				delta(0, `{"type":"compaction_delta","content":"of it.","encrypted_content":"YB"}`) + blockStop(0) +
				textStart(1) + textDelta(1, `"Next"`) + blockStop(1) + endTurn + msgStop,
			want: start + ` redacted_start(0) part_stop(0,anthropic:{"type":"compaction","content":"Summary of it.","encrypted_content":"EqYB"})` +
				` part_start(1,0) delta(1,"Next") part_stop(1) stop(end,"") usage(10/0/0/7/0) end`,
		},
		{
			name: "input_json_delta on a text block",
			body: msgStart + textStart(0) + delta(0, `{"type":"input_json_delta","partial_json":"{"}`),
			want: start + ` part_start(0,0) error(502)`,
			msg:  "input_json_delta for a block that is not an open tool_use block",
		},
		{
			name: "thinking_delta on a text block",
			body: msgStart + textStart(0) + delta(0, `{"type":"thinking_delta","thinking":"x"}`),
			want: start + ` part_start(0,0) error(502)`,
			msg:  "thinking_delta for a block that is not an open thinking block",
		},
		{
			name: "signature_delta for a closed thinking block",
			body: msgStart + blockStart(0, `{"type":"thinking","thinking":"","signature":""}`) + blockStop(0) +
				delta(0, `{"type":"signature_delta","signature":"S"}`),
			want: start + ` reasoning_start(0) part_stop(0) error(502)`,
			msg:  "signature_delta for a block that is not an open thinking block",
		},
		{
			name: "signature_delta without a signature",
			body: msgStart + blockStart(0, `{"type":"thinking","thinking":"","signature":""}`) +
				delta(0, `{"type":"signature_delta","signature":1}`),
			want: start + ` reasoning_start(0) error(502)`,
			msg:  "signature_delta has no signature",
		},
		{
			name: "thinking_delta without thinking",
			body: msgStart + blockStart(0, `{"type":"thinking","thinking":"","signature":""}`) +
				delta(0, `{"type":"thinking_delta","text":"x"}`),
			want: start + ` reasoning_start(0) error(502)`,
			msg:  "thinking_delta has no thinking",
		},
		{
			name: "thinking block with a signature that is not a string",
			body: msgStart + blockStart(0, `{"type":"thinking","thinking":"","signature":{}}`),
			want: start + ` error(502)`,
			msg:  "thinking block thinking or signature is not a string",
		},
		{
			name: "redacted_thinking without data",
			body: msgStart + blockStart(0, `{"type":"redacted_thinking","data":""}`),
			want: start + ` error(502)`,
			msg:  "redacted_thinking block has no data",
		},
		{
			name: "stop_details not an object",
			body: msgStart + ev("message_delta", `{"type":"message_delta","delta":{"stop_reason":"refusal","stop_details":"bad"},"usage":{"output_tokens":1}}`),
			want: start + ` error(502)`,
			msg:  "stop_details is not an object",
		},
		{
			name: "stop_details explanation not a string",
			body: msgStart + ev("message_delta", `{"type":"message_delta","delta":{"stop_reason":"refusal","stop_details":{"type":"refusal","explanation":5}},"usage":{"output_tokens":1}}`),
			want: start + ` error(502)`,
			msg:  "stop_details.explanation is not a string",
		},
		{
			name: "stop_details type not a string",
			body: msgStart + ev("message_delta", `{"type":"message_delta","delta":{"stop_reason":"refusal","stop_details":{"type":true}},"usage":{"output_tokens":1}}`),
			want: start + ` error(502)`,
			msg:  "stop_details.type is not a string",
		},
		{
			name: "events after message_stop are not decoded",
			body: msgStart + msgStop + textStart(0) + "data: not json\n\n",
			want: start + " end",
		},
		// Invalid upstream events.
		{name: "invalid JSON", body: msgStart + ev("content_block_start", `{"type":"content_block_start",`),
			want: start + " error(502)", msg: "event data is not valid JSON"},
		{name: "not JSON at all", body: "data: hello\n\n", want: "error(502)", msg: "event data is not valid JSON"},
		{name: "JSON array", body: "event: message_start\ndata: [1,2]\n\n", want: "error(502)", msg: "not a JSON object"},
		{name: "type not a string", body: ev("message_start", `{"type":1}`), want: "error(502)", msg: "event type is not a string"},
		{name: "no type and no name", body: "data: {\"index\":0}\n\n", want: "error(502)", msg: "event has no type"},
		{name: "content before message_start", body: textStart(0), want: "error(502)", msg: "content_block_start before message_start"},
		{name: "message_stop before message_start", body: msgStop, want: "error(502)", msg: "message_stop before message_start"},
		{name: "second message_start", body: msgStart + msgStart, want: start + " error(502)", msg: "second message_start"},
		{name: "message_start without message", body: ev("message_start", `{"type":"message_start"}`), want: "error(502)", msg: "no message object"},
		{name: "message id not a string", body: ev("message_start", `{"type":"message_start","message":{"id":5}}`), want: "error(502)", msg: "id or model is not a string"},
		{name: "usage not an object", body: ev("message_start", `{"type":"message_start","message":{"id":"m","usage":[]}}`), want: "error(502)", msg: "usage is not an object"},
		{name: "negative token count", body: ev("message_start", `{"type":"message_start","message":{"id":"m","usage":{"input_tokens":-1}}}`), want: "error(502)", msg: "usage.input_tokens is not a token count"},
		{name: "string token count", body: msgStart + ev("message_delta", `{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":"3"}}`),
			want: start + " error(502)", msg: "usage.output_tokens is not a token count"},
		{name: "fractional thinking tokens", body: msgStart + ev("message_delta", `{"type":"message_delta","delta":{},"usage":{"output_tokens_details":{"thinking_tokens":1.5}}}`),
			want: start + " error(502)", msg: "is not a token count"},
		{name: "output_tokens_details not an object", body: msgStart + ev("message_delta", `{"type":"message_delta","delta":{},"usage":{"output_tokens_details":3}}`),
			want: start + " error(502)", msg: "usage.output_tokens_details is not an object"},
		{name: "block index out of order", body: msgStart + textStart(1), want: start + " error(502)", msg: "index out of order"},
		{name: "block index not a number", body: msgStart + ev("content_block_start", `{"type":"content_block_start","index":"0","content_block":{"type":"text"}}`),
			want: start + " error(502)", msg: "index out of order"},
		{name: "block start after message_delta", body: msgStart + endTurn + textStart(0),
			want: start + ` stop(end,"") usage(10/0/0/7/0) error(502)`, msg: "content_block_start after message_delta"},
		{name: "block start without block", body: msgStart + ev("content_block_start", `{"type":"content_block_start","index":0}`),
			want: start + " error(502)", msg: "no content_block object"},
		{name: "block without type", body: msgStart + blockStart(0, `{"text":""}`), want: start + " error(502)", msg: "content block has no type"},
		{name: "text block text not a string", body: msgStart + blockStart(0, `{"type":"text","text":null}`), want: start + " error(502)", msg: "text is not a string"},
		{name: "delta for a block never started", body: msgStart + textDelta(0, `"a"`), want: start + " error(502)", msg: "block that was not started"},
		{name: "delta without delta object", body: msgStart + textStart(0) + ev("content_block_delta", `{"type":"content_block_delta","index":0}`),
			want: start + " part_start(0,0) error(502)", msg: "no delta object"},
		{name: "delta without type", body: msgStart + textStart(0) + delta(0, `{"text":"a"}`),
			want: start + " part_start(0,0) error(502)", msg: "delta has no type"},
		{name: "text_delta without text", body: msgStart + textStart(0) + delta(0, `{"type":"text_delta"}`),
			want: start + " part_start(0,0) error(502)", msg: "text_delta has no text"},
		{name: "delta for a closed block", body: msgStart + textStart(0) + blockStop(0) + textDelta(0, `"late"`),
			want: start + " part_start(0,0) part_stop(0) error(502)", msg: "text_delta for a block that is not an open text block"},
		{name: "stop for a block never started", body: msgStart + blockStop(0), want: start + " error(502)", msg: "content_block_stop for a block that was not started"},
		{name: "message_delta delta not an object", body: msgStart + ev("message_delta", `{"type":"message_delta","delta":"end_turn"}`),
			want: start + " error(502)", msg: "message_delta delta is not an object"},
		{name: "stop_reason not a string", body: msgStart + ev("message_delta", `{"type":"message_delta","delta":{"stop_reason":1}}`),
			want: start + " error(502)", msg: "stop_reason or stop_sequence is not a string"},
		{name: "bare JSON", body: msgStart + "{\"type\":\"message_stop\"}\n\n", want: start + " error(502)", msg: "JSON outside an SSE data field"},
		// Truncation.
		{name: "empty body", body: "", want: "error(502)", msg: "stream ended before it was complete"},
		{name: "only pings", body: ping + ping, want: "error(502)", msg: "stream ended before it was complete"},
		{name: "cut after message_delta", body: msgStart + textStart(0) + textDelta(0, `"a"`) + blockStop(0) + endTurn,
			want: start + ` part_start(0,0) delta(0,"a") part_stop(0) stop(end,"") usage(10/0/0/7/0) error(502)`, msg: "stream ended before it was complete"},
		{name: "cut in the middle of a line", body: msgStart + textStart(0) + `data: {"type":"content_block_delta","ind`,
			want: start + " part_start(0,0) error(502)", msg: "stream broke off before it was complete"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, p := range []codec.Protocol{codec.AnthropicMessages, codec.VertexAnthropic} {
				evs := decode(t, p, tt.body, nil)
				codectest.CheckWellFormed(t, evs)
				if got := format(evs); got != tt.want {
					t.Errorf("%s:\n got %s\nwant %s", p, got, tt.want)
				}
				err := lastError(evs)
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
			ev("error", `{"type":"error","error":{"details":null,"type":"overloaded_error","message":"Overloaded"},"request_id":"req_011"}`),
			529, mapping.ErrOverloaded, "overloaded_error", "Overloaded"},
		{"error data under another event name",
			ev("message", `{"type":"error","error":{"type":"rate_limit_error","message":"Rate \"limited\""}}`),
			429, mapping.ErrRateLimit, "rate_limit_error", `Rate "limited"`},
		{"error data without an event name",
			"data: " + `{"type":"error","error":{"type":"api_error","message":"Internal server error"}}` + "\n\n",
			500, mapping.ErrAPI, "api_error", "Internal server error"},
		{"error event whose data has another type",
			ev("error", `{"type":"something","error":{"type":"invalid_request_error","message":"bad"}}`),
			400, mapping.ErrInvalidRequest, "invalid_request_error", "bad"},
		{"unknown error type is kept",
			ev("error", `{"type":"error","error":{"type":"shiny_new_error","message":"new"}}`),
			500, mapping.ErrAPI, "shiny_new_error", "new"},
		{"error without message",
			ev("error", `{"type":"error","error":{"type":"timeout_error"}}`),
			504, mapping.ErrTimeout, "timeout_error", "stream failed with timeout_error"},
		{"error without type or message",
			ev("error", `{"type":"error","error":{}}`),
			500, mapping.ErrAPI, "", "stream failed"},
		{"bare error object",
			"{\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n",
			529, mapping.ErrOverloaded, "overloaded_error", "Overloaded"},
		{"error event without error object",
			ev("error", `{"type":"error","message":"x"}`),
			502, mapping.ErrBadGateway, "", "error event has no error object"},
		{"error event that is not JSON",
			ev("error", `Internal Server Error`),
			502, mapping.ErrBadGateway, "", `error event data is not JSON: "Internal Server Error"`},
		{"long error event that is not JSON",
			ev("error", strings.Repeat("<html>", 100)),
			502, mapping.ErrBadGateway, "", `error event data is not JSON: "` + strings.Repeat("<html>", 33) + `<h..."`},
	}
	for _, tt := range tests {
		for _, midStream := range []bool{false, true} {
			body := tt.body
			if midStream {
				body = msgStart + textStart(0) + textDelta(0, `"partial"`) + body +
					blockStop(0) + endTurn + msgStop
			}
			for _, p := range []codec.Protocol{codec.AnthropicMessages, codec.VertexAnthropic} {
				evs := decode(t, p, body, nil)
				codectest.CheckWellFormed(t, evs)
				s := codectest.Summarize(evs)
				e := s.Err
				if e == nil || s.Complete {
					t.Fatalf("%s/%s: no error: %s", tt.name, p, format(evs))
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
	evs := decode(t, codec.AnthropicMessages, tests[0].body, nil)
	e := evs[0].Err
	if got := string(codec.AppendError(nil, codec.AnthropicMessages, e)); got != `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}` {
		t.Errorf("AppendError: %s", got)
	}
	if codec.ClientStatus(codec.AnthropicMessages, e) != 529 || codec.ClientStatus(codec.OpenAIChat, e) != 503 {
		t.Errorf("client statuses %d %d", codec.ClientStatus(codec.AnthropicMessages, e), codec.ClientStatus(codec.OpenAIChat, e))
	}
}

func TestAnthropicStreamDecoderAfterTerminal(t *testing.T) {
	for _, body := range []string{msgStart + msgStop, "data: oops\n\n"} {
		dec := codectest.StreamDecoder(codec.AnthropicMessages)
		for _, e := range readEvents(t, body) {
			dec.Decode(nil, []byte(e.name), []byte(e.data), e.bare)
		}
		if out := dec.Decode(nil, []byte("message_start"), []byte(`{"type":"message_start","message":{}}`), false); len(out) != 0 {
			t.Errorf("Decode after the end: %v", out)
		}
		if out := dec.Close(nil, codectest.ErrTestBroken); len(out) != 0 {
			t.Errorf("Close after the end: %v", out)
		}
	}
	// Close twice.
	dec := codectest.StreamDecoder(codec.VertexAnthropic)
	if out := dec.Close(nil, nil); len(out) != 1 || out[0].Type != codec.EventError || !strings.Contains(out[0].Err.Message, "vertex-anthropic") {
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
	dec := newStreamDecoder(codec.AnthropicMessages)
	dec.Decode(nil, nil, []byte(`{"type":"message_start","message":{"id":"msg_\"1\"","model":"m\u00e9"}}`), false)
	dec.Decode(nil, nil, []byte(`{"type":"content_block_start","index":0,"content_block":{"type":"text","text":"x\ty"}}`), false)
	long := strings.Repeat(`\n`, arenaSize) // longer than the arena once unescaped twice
	out := dec.Decode(nil, nil, []byte(`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"`+long+`"}}`), false)
	if len(out) != 1 || out[0].Text != strings.Repeat("\n", arenaSize) {
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

// benchDelta is a realistic upstream text delta, with the space
// padding real servers add.
var benchDelta = []byte(`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":" are:\n- 2 + 3 = "}           }`)

func BenchmarkAnthropicStreamDecodeDelta(b *testing.B) {
	dec := newStreamDecoder(codec.AnthropicMessages)
	name := []byte("content_block_delta")
	out := dec.Decode(nil, []byte("message_start"), []byte(`{"type":"message_start","message":{"id":"msg_1","model":"claude-x","usage":{"input_tokens":10,"output_tokens":1}}}`), false)
	out = dec.Decode(out, []byte("content_block_start"), []byte(`{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`), false)
	// The texts differ from one delta to the next, as a real stream's do;
	// benchDelta comes last.
	var events [][]byte
	for _, text := range []string{` the`, ` quick brown`, `:`, ` \"fox\"`, ` jumps over the lazy dog`} {
		events = append(events, bytes.Replace(benchDelta, []byte(` are:\n- 2 + 3 = `), []byte(text), 1))
	}
	events = append(events, benchDelta)
	b.ReportAllocs()
	b.SetBytes(int64(len(benchDelta)))
	n := 0
	for b.Loop() {
		out = dec.Decode(out[:0], name, events[n%len(events)], false)
		n++
	}
	out = dec.Decode(out[:0], name, benchDelta, false)
	if len(out) != 1 || out[0].Text != " are:\n- 2 + 3 = " {
		b.Fatalf("decoded %+v", out)
	}
}

func BenchmarkAnthropicStreamEncodeDelta(b *testing.B) {
	enc := newStreamEncoder(codec.AnthropicMessages, &codec.Request{Model: "claude-x"})
	dst := enc.Encode(nil, &codec.Event{Type: codec.EventStart, ID: "msg_1"})
	dst = enc.Encode(dst, &codec.Event{Type: codec.EventPartStart})
	ev := codec.Event{Type: codec.EventPartDelta, Text: " are:\n- 2 + 3 = "}
	b.ReportAllocs()
	for b.Loop() {
		dst = enc.Encode(dst[:0], &ev)
	}
}

// TestAnthropicStreamDeltaAllocations guards the hot path: a text delta is
// decoded and encoded without allocating.
func TestAnthropicStreamDeltaAllocations(t *testing.T) {
	dec := newStreamDecoder(codec.AnthropicMessages)
	enc := newStreamEncoder(codec.AnthropicMessages, &codec.Request{Model: "claude-x"})
	var dst []byte
	for _, e := range readEvents(t, msgStart+textStart(0)) {
		for _, ev := range dec.Decode(nil, []byte(e.name), []byte(e.data), false) {
			dst = enc.Encode(dst, &ev)
		}
	}
	name := []byte("content_block_delta")
	out := make([]codec.Event, 0, 4)
	allocs := testing.AllocsPerRun(200, func() {
		out = dec.Decode(out[:0], name, benchDelta, false)
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
		msgStart + textStart(0) +
			textDelta(0, `"plain"`) +
			textDelta(0, `"esc\"aped\n\u00e9\ud83d\ude00"`) +
			textDelta(0, `""`) +
			ev("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"pad"}  }  `) +
			ev("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"inner pad"  }}`) +
			ev("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"x","more":1}}`) +
			ev("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"y"},"more":1}`) +
			ev("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"z"},"type":"content_block_delta"}`) +
			ev("content_block_delta", `{"type":"content_block_delta","index":0e0,"delta":{"type":"text_delta","text":"e"}}`) +
			ev("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"w"}}`+"\n") +
			blockStop(0) + endTurn + msgStop,
		textDelta(0, `"before start"`),
		msgStart + textDelta(0, `"no block"`),
		msgStart + textDelta(1234567890, `"huge index"`),
		msgStart + blockStart(0, `{"type":"thinking","thinking":""}`) + textDelta(0, `"text in thinking"`) + msgStop,
		msgStart + textStart(0) + blockStop(0) + textDelta(0, `"closed"`),
	}
	if _, err := os.Stat(codectest.RecordingsDir); err == nil {
		for _, tt := range recordedStreams {
			_, body := streamRecording(t, tt.file)
			bodies = append(bodies, body)
		}
	}
	for _, body := range bodies {
		fast, general := codectest.StreamDecoder(codec.AnthropicMessages), codectest.StreamDecoder(codec.AnthropicMessages)
		var a, b []codec.Event
		for _, e := range readEvents(t, body) {
			a = detach(a, fast.Decode(nil, []byte(e.name), []byte(e.data), false))
			b = detach(b, general.Decode(nil, []byte(e.name), []byte("{ "+e.data[1:]), false))
		}
		a = detach(a, fast.Close(nil, nil))
		b = detach(b, general.Close(nil, nil))
		codectest.CheckWellFormed(t, a)
		fa, fb := format(a), format(b)
		if fa != fb {
			t.Errorf("fast path:\n%s\ngeneral path:\n%s", fa, fb)
		}
		if ea, eb := lastError(a), lastError(b); ea != nil && eb != nil && ea.Message != eb.Message {
			t.Errorf("fast path error %q, general path error %q", ea.Message, eb.Message)
		}
	}
}
