package responses

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/codectest"
	"github.com/llmbridge/llmbridge/mapping"
	"github.com/llmbridge/llmbridge/sse"
	"github.com/tidwall/gjson"
)

// eventString renders a canonical event compactly for comparisons.
func eventString(ev codec.Event) string {
	switch ev.Type {
	case codec.EventStart:
		return fmt.Sprintf("start %s %s %d", ev.ID, ev.Model, ev.Created)
	case codec.EventPartStart:
		switch ev.Part {
		case codec.PartRefusal:
			return fmt.Sprintf("part_start %d refusal", ev.Index)
		case codec.PartToolCall:
			return fmt.Sprintf("part_start %d call %s %s", ev.Index, ev.ToolCallID, ev.ToolName)
		case codec.PartReasoning:
			return fmt.Sprintf("part_start %d reasoning %s", ev.Index, ev.ItemID)
		case codec.PartServerToolCall:
			return fmt.Sprintf("part_start %d search %s", ev.Index, ev.ToolCallID)
		case codec.PartServerToolResult:
			return fmt.Sprintf("part_start %d results %s %v %v", ev.Index, ev.ToolCallID, ev.Sources, ev.IsError)
		}
		return fmt.Sprintf("part_start %d text", ev.Index)
	case codec.EventPartDelta:
		return fmt.Sprintf("delta %d %q", ev.Index, ev.Text)
	case codec.EventPartStop:
		if ev.Signature != "" || ev.Origin != mapping.FamilyNone {
			return fmt.Sprintf("part_stop %d %s %s", ev.Index, ev.Origin, ev.Signature)
		}
		return fmt.Sprintf("part_stop %d", ev.Index)
	case codec.EventUsage:
		u := ev.Usage
		return fmt.Sprintf("usage %d/%d/%d/%d/%d", u.InputTokens, u.CacheReadTokens, u.CacheWriteTokens, u.OutputTokens, u.ReasoningTokens)
	case codec.EventStop:
		return "stop " + ev.StopReason.String()
	case codec.EventEnd:
		return "end"
	case codec.EventCitation:
		c := ev.Citation
		return fmt.Sprintf("citation %d %s %q %d-%d", ev.Index, c.URL, c.Title, c.Start, c.End)
	case codec.EventError:
		return fmt.Sprintf("error %d %d %q", ev.Err.Status, ev.Err.Kind, ev.Err.Message)
	case codec.EventDropped:
		return "dropped " + ev.Text
	}
	return "unknown"
}

// rsDecodeStream is decodeStream for Responses, detaching the tool call ids
// and names of the events too.
func rsDecodeStream(t *testing.T, body string, cause error) []codec.Event {
	t.Helper()
	dec := codectest.StreamDecoder(codec.OpenAIResponses)
	r := sse.NewReader(strings.NewReader(body), 0)
	var out, buf []codec.Event
	detach := func(evs []codec.Event) {
		for _, ev := range codectest.AppendDetached(nil, evs) {
			ev.ToolCallID, ev.ToolName = strings.Clone(ev.ToolCallID), strings.Clone(ev.ToolName)
			ev.ItemID, ev.Signature = strings.Clone(ev.ItemID), strings.Clone(ev.Signature)
			out = append(out, ev)
		}
	}
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
		detach(buf)
	}
	detach(dec.Close(buf[:0], cause))
	return out
}

// rsCalls returns the tool calls of a canonical stream as "id name
// arguments", and the text of its other parts.
func rsCalls(evs []codec.Event) (calls []string, text string) {
	kinds := map[int]codec.PartType{}
	at := map[int]int{}
	for _, ev := range evs {
		switch ev.Type {
		case codec.EventPartStart:
			kinds[ev.Index] = ev.Part
			if ev.Part == codec.PartToolCall {
				at[ev.Index] = len(calls)
				calls = append(calls, ev.ToolCallID+" "+ev.ToolName+" ")
			}
		case codec.EventPartDelta:
			switch kinds[ev.Index] {
			case codec.PartToolCall:
				calls[at[ev.Index]] += ev.Text
			case codec.PartReasoning:
			default:
				text += ev.Text
			}
		}
	}
	return calls, text
}

func eventStrings(evs []codec.Event) []string {
	out := make([]string, len(evs))
	for i, ev := range evs {
		out[i] = eventString(ev)
	}
	return out
}

// rsEv builds one upstream Responses SSE event; fields continue the data
// object after its type.
func rsEv(typ, fields string) string {
	return "event: " + typ + "\ndata: {\"type\":\"" + typ + "\"" + fields + "}\n\n"
}

func rsJSON(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

const rsResponse = `,"response":{"id":"resp_1","object":"response","created_at":1700000000,"status":"in_progress","model":"gpt-4o","output":[],"usage":null}`

var (
	rsStart    = rsEv("response.created", rsResponse+`,"sequence_number":0`) + rsEv("response.in_progress", rsResponse+`,"sequence_number":1`)
	rsItem     = rsEv("response.output_item.added", `,"output_index":0,"item":{"type":"message","id":"msg_1","status":"in_progress","role":"assistant","content":[]}`)
	rsItemDone = rsEv("response.output_item.done", `,"output_index":0,"item":{"type":"message","id":"msg_1","status":"completed","role":"assistant","content":[]}`)
	rsUsage    = `"usage":{"input_tokens":10,"input_tokens_details":{"cached_tokens":4},"output_tokens":5,"output_tokens_details":{"reasoning_tokens":2},"total_tokens":15}`
	rsDoneOK   = rsEv("response.completed", `,"response":{"id":"resp_1","status":"completed",`+rsUsage+`}`)
)

func rsCallAdded(out int, id, callID, name string) string {
	return rsEv("response.output_item.added", fmt.Sprintf(`,"output_index":%d,"item":{"type":"function_call","id":%q,"call_id":%q,"name":%q,"arguments":"","status":"in_progress"}`, out, id, callID, name))
}

func rsCallDelta(id, delta string) string {
	return rsEv("response.function_call_arguments.delta", fmt.Sprintf(`,"item_id":%q,"output_index":0,"delta":%s`, id, rsJSON(delta)))
}

// rsCallArgsDone is function_call_arguments.done as real traffic sends it,
// without the name.
func rsCallArgsDone(id, args string) string {
	return rsEv("response.function_call_arguments.done", fmt.Sprintf(`,"item_id":%q,"output_index":0,"arguments":%s`, id, rsJSON(args)))
}

func rsCallDone(out int, id, callID, name, args string) string {
	return rsEv("response.output_item.done", fmt.Sprintf(`,"output_index":%d,"item":{"type":"function_call","id":%q,"call_id":%q,"name":%q,"arguments":%s,"status":"completed"}`,
		out, id, callID, name, rsJSON(args)))
}

func rsPartAdded(i int, kind string) string {
	field := "text"
	if kind == "refusal" {
		field = "refusal"
	}
	return rsEv("response.content_part.added", fmt.Sprintf(`,"item_id":"msg_1","output_index":0,"content_index":%d,"part":{"type":%q,%q:""}`, i, kind, field))
}

func rsDelta(i int, s string) string {
	return rsEv("response.output_text.delta", fmt.Sprintf(`,"item_id":"msg_1","output_index":0,"content_index":%d,"delta":%s,"logprobs":[]`, i, rsJSON(s)))
}

func rsRefusalDelta(i int, s string) string {
	return rsEv("response.refusal.delta", fmt.Sprintf(`,"item_id":"msg_1","output_index":0,"content_index":%d,"delta":%s`, i, rsJSON(s)))
}

func rsTextDone(i int, s string) string {
	return rsEv("response.output_text.done", fmt.Sprintf(`,"item_id":"msg_1","output_index":0,"content_index":%d,"text":%s`, i, rsJSON(s)))
}

func rsRefusalDone(i int, s string) string {
	return rsEv("response.refusal.done", fmt.Sprintf(`,"item_id":"msg_1","output_index":0,"content_index":%d,"refusal":%s`, i, rsJSON(s)))
}

func rsPartDone(i int, kind, s string) string {
	field := "text"
	if kind == "refusal" {
		field = "refusal"
	}
	return rsEv("response.content_part.done", fmt.Sprintf(`,"item_id":"msg_1","output_index":0,"content_index":%d,"part":{"type":%q,%q:%s}`, i, kind, field, rsJSON(s)))
}

// rsText is a complete text part with the given deltas.
func rsText(i int, deltas ...string) string {
	s := rsPartAdded(i, "output_text")
	for _, d := range deltas {
		s += rsDelta(i, d)
	}
	full := strings.Join(deltas, "")
	return s + rsTextDone(i, full) + rsPartDone(i, "output_text", full)
}

const (
	rsWantStart = "start resp_1 gpt-4o 1700000000"
	rsWantUsage = "usage 10/4/0/5/2"
)

func TestResponsesStreamDecodeEvents(t *testing.T) {
	refusal := rsPartAdded(1, "refusal") + rsRefusalDelta(1, "I can't") + rsRefusalDelta(1, " help.") +
		rsRefusalDone(1, "I can't help.") + rsPartDone(1, "refusal", "I can't help.")
	tests := []struct {
		name string
		body string
		want []string
	}{
		{"text", rsStart + rsItem + rsText(0, "Hel", "lo\n", "") + rsItemDone + rsDoneOK,
			[]string{rsWantStart, "part_start 0 text", `delta 0 "Hel"`, `delta 0 "lo\n"`, "part_stop 0", rsWantUsage, "stop end", "end"}},
		{"text and refusal parts",
			rsStart + rsItem + rsText(0, "Well.") + refusal + rsItemDone + rsDoneOK,
			[]string{rsWantStart, "part_start 0 text", `delta 0 "Well."`, "part_stop 0",
				"part_start 1 refusal", `delta 1 "I can't"`, `delta 1 " help."`, "part_stop 1", rsWantUsage, "stop refusal", "end"}},
		{"two message items",
			rsStart + rsItem + rsText(0, "a") + rsItemDone + rsItem + rsText(0, "b") + rsItemDone + rsDoneOK,
			[]string{rsWantStart, "part_start 0 text", `delta 0 "a"`, "part_stop 0", "part_start 1 text", `delta 1 "b"`, "part_stop 1", rsWantUsage, "stop end", "end"}},
		{"done text without deltas",
			rsStart + rsItem + rsPartAdded(0, "output_text") + rsTextDone(0, "all at once") + rsPartDone(0, "output_text", "all at once") + rsDoneOK,
			[]string{rsWantStart, "part_start 0 text", `delta 0 "all at once"`, "part_stop 0", rsWantUsage, "stop end", "end"}},
		{"part done text only",
			rsStart + rsItem + rsPartAdded(0, "output_text") + rsPartDone(0, "output_text", "late") + rsDoneOK,
			[]string{rsWantStart, "part_start 0 text", `delta 0 "late"`, "part_stop 0", rsWantUsage, "stop end", "end"}},
		{"refusal done without deltas",
			rsStart + rsItem + rsPartAdded(0, "refusal") + rsRefusalDone(0, "No.") + rsPartDone(0, "refusal", "No.") + rsDoneOK,
			[]string{rsWantStart, "part_start 0 refusal", `delta 0 "No."`, "part_stop 0", rsWantUsage, "stop refusal", "end"}},
		{"empty part",
			rsStart + rsItem + rsPartAdded(0, "output_text") + rsTextDone(0, "") + rsPartDone(0, "output_text", "") + rsDoneOK,
			[]string{rsWantStart, "part_start 0 text", "part_stop 0", rsWantUsage, "stop end", "end"}},
		{"initial part text",
			rsStart + rsItem + rsEv("response.content_part.added", `,"content_index":0,"part":{"type":"output_text","text":"pre"}`) +
				rsDelta(0, "fix") + rsTextDone(0, "prefix") + rsPartDone(0, "output_text", "prefix") + rsDoneOK,
			[]string{rsWantStart, "part_start 0 text", `delta 0 "pre"`, `delta 0 "fix"`, "part_stop 0", rsWantUsage, "stop end", "end"}},
		{"deltas without part events",
			rsStart + rsDelta(0, "a") + rsRefusalDelta(1, "b") + rsDelta(2, "c") + rsDoneOK,
			[]string{rsWantStart, "part_start 0 text", `delta 0 "a"`, "part_stop 0", "part_start 1 refusal", `delta 1 "b"`, "part_stop 1",
				"part_start 2 text", `delta 2 "c"`, "part_stop 2", rsWantUsage, "stop refusal", "end"}},
		{"done texts without part events",
			rsStart + rsTextDone(0, "t") + rsRefusalDone(1, "r") + rsPartDone(2, "output_text", "p") + rsDoneOK,
			[]string{rsWantStart, "part_start 0 text", `delta 0 "t"`, "part_stop 0", "part_start 1 refusal", `delta 1 "r"`, "part_stop 1",
				"part_start 2 text", `delta 2 "p"`, "part_stop 2", rsWantUsage, "stop refusal", "end"}},
		{"empty part done without a part", rsStart + rsPartDone(0, "output_text", "") + rsDoneOK,
			[]string{rsWantStart, rsWantUsage, "stop end", "end"}},
		{"item done closes an open part",
			rsStart + rsItem + rsPartAdded(0, "output_text") + rsDelta(0, "x") + rsItemDone + rsDoneOK,
			[]string{rsWantStart, "part_start 0 text", `delta 0 "x"`, "part_stop 0", rsWantUsage, "stop end", "end"}},
		{"completed closes an open part",
			rsStart + rsItem + rsPartAdded(0, "output_text") + rsDelta(0, "x") + rsDoneOK,
			[]string{rsWantStart, "part_start 0 text", `delta 0 "x"`, "part_stop 0", rsWantUsage, "stop end", "end"}},
		{"part added closes an open part",
			rsStart + rsItem + rsPartAdded(0, "output_text") + rsDelta(0, "x") + rsPartAdded(1, "output_text") + rsDelta(1, "y") + rsDoneOK,
			[]string{rsWantStart, "part_start 0 text", `delta 0 "x"`, "part_stop 0", "part_start 1 text", `delta 1 "y"`, "part_stop 1", rsWantUsage, "stop end", "end"}},
		{"empty and null deltas", rsStart + rsItem + rsPartAdded(0, "output_text") + rsDelta(0, "") +
			rsEv("response.output_text.delta", `,"delta":null`) + rsEv("response.output_text.delta", "") + rsDoneOK,
			[]string{rsWantStart, "part_start 0 text", "part_stop 0", rsWantUsage, "stop end", "end"}},
		{"no output", rsStart + rsDoneOK, []string{rsWantStart, rsWantUsage, "stop end", "end"}},
		{"no usage", rsStart + rsEv("response.completed", `,"response":{"status":"completed","usage":null}`),
			[]string{rsWantStart, "stop end", "end"}},
		{"status from the event type", rsStart + rsEv("response.completed", `,"response":{}`),
			[]string{rsWantStart, "stop end", "end"}},
		{"completed without a response", rsStart + rsEv("response.completed", ""), []string{rsWantStart, "stop end", "end"}},
		{"usage with cache writes", rsStart + rsEv("response.completed", `,"response":{"status":"completed","usage":{"input_tokens":10,"input_tokens_details":{"cached_tokens":2,"cache_write_tokens":3},"output_tokens":1}}`),
			[]string{rsWantStart, "usage 10/2/3/1/0", "stop end", "end"}},
		{"incomplete max output tokens", rsStart + rsItem + rsText(0, "cut") +
			rsEv("response.incomplete", `,"response":{"status":"incomplete","incomplete_details":{"reason":"max_output_tokens"},`+rsUsage+`}`),
			[]string{rsWantStart, "part_start 0 text", `delta 0 "cut"`, "part_stop 0", rsWantUsage, "stop max_tokens", "end"}},
		{"incomplete content filter", rsStart + rsEv("response.incomplete", `,"response":{"status":"incomplete","incomplete_details":{"reason":"content_filter"}}`),
			[]string{rsWantStart, "stop content_filter", "end"}},
		{"incomplete without details", rsStart + rsEv("response.incomplete", `,"response":{"status":"incomplete","incomplete_details":null}`),
			[]string{rsWantStart, "stop max_tokens", "end"}},
		{"incomplete unknown reason", rsStart + rsEv("response.incomplete", `,"response":{"status":"incomplete","incomplete_details":{"reason":"new_reason"}}`),
			[]string{rsWantStart, "end"}},
		{"refusal with a content filter stop", rsStart + rsItem + rsPartAdded(0, "refusal") + rsRefusalDelta(0, "No") +
			rsEv("response.incomplete", `,"response":{"status":"incomplete","incomplete_details":{"reason":"content_filter"}}`),
			[]string{rsWantStart, "part_start 0 refusal", `delta 0 "No"`, "part_stop 0", "stop content_filter", "end"}},
		{"unknown events, comments and keepalives ignored",
			": keepalive\n\n" + rsStart + rsEv("keepalive", "") + rsItem + rsEv("response.output_text.brand_new", `,"x":1`) +
				rsText(0, "ok") + "event: ping\ndata: {}\n\n" + rsDoneOK,
			[]string{rsWantStart, "part_start 0 text", `delta 0 "ok"`, "part_stop 0", rsWantUsage, "stop end", "end"}},
		{"queued and in progress before created start the stream",
			rsEv("response.queued", `,"response":{"id":"resp_q","model":"m","created_at":5,"status":"queued"}`) + rsStart + rsDoneOK,
			[]string{"start resp_q m 5", rsWantUsage, "stop end", "end"}},
		{"content before any lifecycle event", rsDelta(0, "x") + rsDoneOK,
			[]string{"start   0", "part_start 0 text", `delta 0 "x"`, "part_stop 0", rsWantUsage, "stop end", "end"}},
		{"completed as the only event", rsDoneOK, []string{"start resp_1  0", rsWantUsage, "stop end", "end"}},
		{"escaped keys and spaces", rsStart + "data: { \"\\u0074ype\" : \"response.output_text.delta\" , \"delta\" : \"a\\u00e9\" }\n\n" + rsDoneOK,
			[]string{rsWantStart, "part_start 0 text", `delta 0 "aé"`, "part_stop 0", rsWantUsage, "stop end", "end"}},
		{"type from the event name", "event: response.output_text.delta\ndata: {\"delta\":\"n\"}\n\n" + rsDoneOK,
			[]string{"start   0", "part_start 0 text", `delta 0 "n"`, "part_stop 0", rsWantUsage, "stop end", "end"}},
		{"reasoning summary and reasoning text",
			rsStart +
				rsEv("response.output_item.added", `,"output_index":0,"item":{"type":"reasoning","id":"rs_1","summary":[]}`) +
				rsEv("response.reasoning_summary_part.added", `,"item_id":"rs_1","summary_index":0,"part":{"type":"summary_text","text":""}`) +
				rsEv("response.reasoning_summary_text.delta", `,"item_id":"rs_1","summary_index":0,"delta":"thinking"`) +
				rsEv("response.reasoning_summary_text.done", `,"item_id":"rs_1","summary_index":0,"text":"thinking"`) +
				rsEv("response.reasoning_summary_part.done", `,"item_id":"rs_1","summary_index":0,"part":{"type":"summary_text","text":"thinking"}`) +
				rsEv("response.content_part.added", `,"item_id":"rs_1","content_index":0,"part":{"type":"reasoning_text","text":""}`) +
				rsEv("response.reasoning_text.delta", `,"item_id":"rs_1","content_index":0,"delta":"hmm"`) +
				rsEv("response.reasoning_text.done", `,"item_id":"rs_1","content_index":0,"text":"hmm"`) +
				rsEv("response.content_part.done", `,"item_id":"rs_1","content_index":0,"part":{"type":"reasoning_text","text":"hmm"}`) +
				rsEv("response.output_item.done", `,"output_index":0,"item":{"type":"reasoning","id":"rs_1","summary":[]}`) +
				rsItem + rsText(0, "answer") + rsItemDone + rsDoneOK,
			[]string{rsWantStart, "part_start 0 reasoning rs_1", `delta 0 "thinking"`, `delta 0 "\n\n"`, `delta 0 "hmm"`, "part_stop 0",
				"part_start 1 text", `delta 1 "answer"`, "part_stop 1", rsWantUsage, "stop end", "end"}},
		{"events after the end ignored", rsStart + rsDoneOK + rsStart + rsDelta(0, "late") + "data: [DONE]\n\n",
			[]string{rsWantStart, rsWantUsage, "stop end", "end"}},

		// Hosted searches and citations.
		{"web search call", rsStart + rsEv("response.output_item.added", `,"output_index":0,"item":{"type":"web_search_call","id":"ws_1","status":"in_progress"}`) +
			rsEv("response.web_search_call.in_progress", `,"output_index":0,"item_id":"ws_1"`) +
			rsEv("response.output_item.done", `,"output_index":0,"item":{"type":"web_search_call","id":"ws_1","status":"completed","action":{"type":"search","query":"go","sources":[{"type":"url","url":"https://go.dev"}]}}`) +
			rsItem + rsText(1, "answer") + rsItemDone + rsDoneOK,
			[]string{rsWantStart, "part_start 0 search ws_1", `delta 0 "{\"query\":\"go\"}"`, "part_stop 0",
				"part_start 1 results ws_1 [{https://go.dev  }] false", "part_stop 1",
				"part_start 2 text", `delta 2 "answer"`, "part_stop 2", rsWantUsage, "stop end", "end"}},
		{"web search call after text", rsStart + rsItem + rsPartAdded(0, "output_text") + rsDelta(0, "x") +
			rsEv("response.output_item.added", `,"output_index":1,"item":{"type":"web_search_call","id":"ws_1","status":"in_progress"}`) +
			rsEv("response.output_item.done", `,"output_index":1,"item":{"type":"web_search_call","id":"ws_1","status":"failed","action":{"type":"open_page","url":"https://a"}}`),
			[]string{rsWantStart, "part_start 0 text", `delta 0 "x"`, "part_stop 0", "part_start 1 search ws_1", `delta 1 "{\"query\":\"\"}"`, "part_stop 1",
				"part_start 2 results ws_1 [] true", "part_stop 2", `error 502 11 "upstream openai-responses stream ended before it was complete"`}},
		{"annotation", rsStart + rsItem + rsPartAdded(0, "output_text") + rsDelta(0, "héllo go") +
			rsEv("response.output_text.annotation.added", `,"annotation":{"type":"url_citation","start_index":6,"end_index":8,"url":"https://go.dev","title":"Go"}`) +
			rsEv("response.output_text.annotation.added", `,"annotation":{"type":"file_citation","index":1}`) +
			rsEv("response.output_text.done", `,"content_index":0,"text":"héllo go"`) + rsItemDone + rsDoneOK,
			[]string{rsWantStart, "part_start 0 text", `delta 0 "héllo go"`, `citation 0 https://go.dev "Go" 7-9`, "part_stop 0", rsWantUsage, "stop end", "end"}},
		{"annotation without done", rsStart + rsItem + rsPartAdded(0, "output_text") + rsDelta(0, "go") +
			rsEv("response.output_text.annotation.added", `,"annotation":{"type":"url_citation","start_index":0,"end_index":2,"url":"https://go.dev","title":"Go"}`) +
			rsItemDone + rsDoneOK,
			[]string{rsWantStart, "part_start 0 text", `delta 0 "go"`, `citation 0 https://go.dev "Go" 0-2`, "part_stop 0", rsWantUsage, "stop end", "end"}},
		// A content part of a type llmbridge does not translate is
		// display: reported dropped once, and the answer goes on.
		{"unknown content part", rsStart + rsItem + rsEv("response.content_part.added", `,"part":{"type":"output_audio"}`) +
			rsEv("response.content_part.done", `,"part":{"type":"output_audio"}`) + rsPartAdded(1, "output_text") + rsDelta(1, "hi") + rsItemDone + rsDoneOK,
			[]string{rsWantStart, "dropped output_audio", "part_start 0 text", `delta 0 "hi"`, "part_stop 0", rsWantUsage, "stop end", "end"}},
		// Even before the response itself: the stream starts first.
		{"unknown content part first", rsEv("response.content_part.added", `,"part":{"type":"output_audio"}`) + rsDoneOK,
			[]string{"start   0", "dropped output_audio", rsWantUsage, "stop end", "end"}},

		// Function calls.
		{"function call", rsStart + rsCallAdded(0, "fc_1", "call_1", "get_weather") + rsCallDelta("fc_1", `{"city":`) + rsCallDelta("fc_1", `"Paris"}`) +
			rsCallArgsDone("fc_1", `{"city":"Paris"}`) + rsCallDone(0, "fc_1", "call_1", "get_weather", `{"city":"Paris"}`) + rsDoneOK,
			[]string{rsWantStart, "part_start 0 call call_1 get_weather", `delta 0 "{\"city\":"`, `delta 0 "\"Paris\"}"`, "part_stop 0", rsWantUsage, "stop tool_use", "end"}},
		{"text then parallel calls", rsStart + rsItem + rsText(0, "Let me check.") + rsItemDone +
			rsCallAdded(1, "fc_1", "call_1", "a") + rsCallDelta("fc_1", `{"x":1}`) + rsCallDone(1, "fc_1", "call_1", "a", `{"x":1}`) +
			rsCallAdded(2, "fc_2", "call_2", "b") + rsCallDelta("fc_2", `{"y":2}`) + rsCallDone(2, "fc_2", "call_2", "b", `{"y":2}`) + rsDoneOK,
			[]string{rsWantStart, "part_start 0 text", `delta 0 "Let me check."`, "part_stop 0",
				"part_start 1 call call_1 a", `delta 1 "{\"x\":1}"`, "part_stop 1",
				"part_start 2 call call_2 b", `delta 2 "{\"y\":2}"`, "part_stop 2", rsWantUsage, "stop tool_use", "end"}},
		{"arguments only in .done", rsStart + rsCallAdded(0, "fc_1", "call_1", "f") + rsCallArgsDone("fc_1", `{"a":1}`) +
			rsCallDone(0, "fc_1", "call_1", "f", `{"a":1}`) + rsDoneOK,
			[]string{rsWantStart, "part_start 0 call call_1 f", `delta 0 "{\"a\":1}"`, "part_stop 0", rsWantUsage, "stop tool_use", "end"}},
		{"arguments only in output_item.done", rsStart + rsCallAdded(0, "fc_1", "call_1", "f") + rsCallDone(0, "fc_1", "call_1", "f", `{"a":1}`) + rsDoneOK,
			[]string{rsWantStart, "part_start 0 call call_1 f", `delta 0 "{\"a\":1}"`, "part_stop 0", rsWantUsage, "stop tool_use", "end"}},
		{"call without arguments", rsStart + rsCallAdded(0, "fc_1", "call_1", "f") + rsCallArgsDone("fc_1", "") + rsCallDone(0, "fc_1", "call_1", "f", "") + rsDoneOK,
			[]string{rsWantStart, "part_start 0 call call_1 f", "part_stop 0", rsWantUsage, "stop tool_use", "end"}},
		{"call only in output_item.done", rsStart + rsCallDone(0, "fc_1", "call_1", "f", `{}`) + rsDoneOK,
			[]string{rsWantStart, "part_start 0 call call_1 f", `delta 0 "{}"`, "part_stop 0", rsWantUsage, "stop tool_use", "end"}},
		{"arguments in the added item", rsStart + rsEv("response.output_item.added", `,"output_index":0,"item":{"type":"function_call","id":"fc_1","call_id":"c","name":"f","arguments":"{}"}`) +
			rsCallDone(0, "fc_1", "c", "f", `{}`) + rsDoneOK,
			[]string{rsWantStart, "part_start 0 call c f", `delta 0 "{}"`, "part_stop 0", rsWantUsage, "stop tool_use", "end"}},
		{"deltas without item ids", rsStart + rsCallAdded(0, "fc_1", "call_1", "f") + rsEv("response.function_call_arguments.delta", `,"delta":"{}"`) +
			rsEv("response.function_call_arguments.delta", `,"delta":""`) + rsDoneOK,
			[]string{rsWantStart, "part_start 0 call call_1 f", `delta 0 "{}"`, "part_stop 0", rsWantUsage, "stop tool_use", "end"}},
		{"call cut by max tokens", rsStart + rsCallAdded(0, "fc_1", "call_1", "f") + rsCallDelta("fc_1", `{"a":`) +
			rsEv("response.incomplete", `,"response":{"status":"incomplete","incomplete_details":{"reason":"max_output_tokens"}}`),
			[]string{rsWantStart, "part_start 0 call call_1 f", `delta 0 "{\"a\":"`, "part_stop 0", "stop max_tokens", "end"}},
		{"arguments for another item", rsStart + rsCallAdded(0, "fc_1", "call_1", "f") + rsCallDelta("fc_2", "{}"),
			[]string{rsWantStart, "part_start 0 call call_1 f", `error 502 11 "upstream openai-responses response is invalid: function call arguments for an item that is not open"`}},
		{"arguments without a call", rsStart + rsItem + rsText(0, "x") + rsCallArgsDone("fc_1", "{}"),
			[]string{rsWantStart, "part_start 0 text", `delta 0 "x"`, "part_stop 0", `error 502 11 "upstream openai-responses response is invalid: function call arguments for an item that is not open"`}},
		{"arguments not a string", rsStart + rsCallAdded(0, "fc_1", "call_1", "f") + rsEv("response.function_call_arguments.delta", `,"item_id":"fc_1","delta":{}`),
			[]string{rsWantStart, "part_start 0 call call_1 f", `error 502 11 "upstream openai-responses response is invalid: function call arguments are not a string"`}},
		{"call without a name", rsStart + rsEv("response.output_item.added", `,"item":{"type":"function_call","id":"fc_1","call_id":"c"}`),
			[]string{rsWantStart, `error 502 11 "upstream openai-responses response is invalid: function_call item has no call_id or name"`}},
		{"call id not a string", rsStart + rsEv("response.output_item.added", `,"item":{"type":"function_call","id":"fc_1","call_id":1,"name":"f"}`),
			[]string{rsWantStart, `error 502 11 "upstream openai-responses response is invalid: item.call_id is not a string"`}},
		{"bad call only in output_item.done", rsStart + rsEv("response.output_item.done", `,"item":{"type":"function_call","id":"fc_1","name":"f"}`),
			[]string{rsWantStart, `error 502 11 "upstream openai-responses response is invalid: function_call item has no call_id or name"`}},
		{"custom tool call", rsStart + rsEv("response.output_item.added", `,"item":{"type":"custom_tool_call","id":"ctc_1","call_id":"c","name":"f","input":""}`),
			[]string{rsWantStart, `error 502 11 "upstream openai-responses stream: output item type \"custom_tool_call\" cannot be translated yet"`}},

		// Errors from the upstream.
		{"error event nested (real traffic)", rsStart +
			rsEv("error", `,"sequence_number":2,"error":{"type":"insufficient_quota","code":"insufficient_quota","message":"You exceeded your current quota.","param":null}`) +
			rsEv("response.failed", `,"response":{"id":"resp_1","status":"failed","error":{"code":"server_error","message":"ignored"}}`),
			[]string{rsWantStart, `error 429 7 "You exceeded your current quota."`}},
		{"error event flat (spec)", rsStart + rsItem + rsPartAdded(0, "output_text") + rsDelta(0, "x") +
			rsEv("error", `,"code":"rate_limit_exceeded","message":"Slow down.","param":null,"sequence_number":5`),
			[]string{rsWantStart, "part_start 0 text", `delta 0 "x"`, `error 429 6 "Slow down."`}},
		{"error event with a type only", rsEv("error", `,"error":{"type":"invalid_request_error","message":"Bad."}`),
			[]string{`error 400 1 "Bad."`}},
		{"error event without details", rsEv("error", ""),
			[]string{`error 500 0 "upstream openai-responses stream failed without an error message"`}},
		{"failed", rsStart + rsEv("response.failed", `,"response":{"id":"resp_1","status":"failed","error":{"code":"server_error","message":"The server had an error."},`+rsUsage+`}`),
			[]string{rsWantStart, rsWantUsage, `error 500 0 "The server had an error."`}},
		{"failed overloaded", rsStart + rsEv("response.failed", `,"response":{"status":"failed","error":{"code":"server_is_overloaded","message":"Busy."}}`),
			[]string{rsWantStart, `error 503 8 "Busy."`}},
		{"failed without an error", rsEv("response.failed", `,"response":{"status":"failed","error":null,`+rsUsage+`}`),
			[]string{`error 500 0 "upstream openai-responses stream failed without an error message"`}},
		{"chat-style error", rsStart + "data: {\"error\":{\"message\":\"Oops.\",\"type\":\"server_error\",\"code\":null}}\n\n",
			[]string{rsWantStart, `error 500 0 "Oops."`}},
		{"bare error block", rsStart + "{\"error\": {\n  \"code\": \"rate_limit_exceeded\",\n  \"message\": \"Later.\"\n}}\n\n",
			[]string{rsWantStart, `error 429 6 "Later."`}},

		// Data that is not a Responses event.
		{"invalid JSON", rsStart + "event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\n\n",
			[]string{rsWantStart, `error 502 11 "upstream openai-responses response is invalid: stream event data is not valid JSON"`}},
		{"DONE before the end", rsStart + "data: [DONE]\n\n",
			[]string{rsWantStart, `error 502 11 "upstream openai-responses response is invalid: stream event data is not valid JSON"`}},
		{"not an object", "data: [1,2]\n\n",
			[]string{`error 502 11 "upstream openai-responses response is invalid: stream event data is not a JSON object"`}},
		{"type not a string", rsStart + "data: {\"type\":7}\n\n",
			[]string{rsWantStart, `error 502 11 "upstream openai-responses response is invalid: stream event type is not a string"`}},
		{"no type", rsStart + "data: {\"delta\":\"x\"}\n\n",
			[]string{rsWantStart, `error 502 11 "upstream openai-responses response is invalid: stream event has no type"`}},
		{"bare non-error block", rsStart + "{\"type\":\"response.output_text.delta\",\"delta\":\"x\"}\n\n",
			[]string{rsWantStart, `error 502 11 "upstream openai-responses response is invalid: stream holds JSON outside a data: field"`}},
		{"delta not a string", rsStart + rsEv("response.output_text.delta", `,"delta":5`),
			[]string{rsWantStart, `error 502 11 "upstream openai-responses response is invalid: delta is not a string"`}},
		{"done text not a string", rsStart + rsEv("response.output_text.done", `,"text":{}`),
			[]string{rsWantStart, `error 502 11 "upstream openai-responses response is invalid: done text is not a string"`}},
		{"part not an object", rsStart + rsEv("response.content_part.added", `,"part":"output_text"`),
			[]string{rsWantStart, `error 502 11 "upstream openai-responses response is invalid: content part event has no part object"`}},
		{"item not an object", rsStart + rsEv("response.output_item.added", `,"item":null`),
			[]string{rsWantStart, `error 502 11 "upstream openai-responses response is invalid: output item event has no item object"`}},
		{"response not an object", rsEv("response.created", `,"response":[]`),
			[]string{`error 502 11 "upstream openai-responses response is invalid: response is not an object"`}},
		{"id not a string", rsEv("response.created", `,"response":{"id":1}`),
			[]string{`error 502 11 "upstream openai-responses response is invalid: response.id is not a string"`}},
		{"created_at not a number", rsEv("response.created", `,"response":{"created_at":"now"}`),
			[]string{`error 502 11 "upstream openai-responses response is invalid: response.created_at is not a number"`}},
		{"incomplete reason not a string", rsStart + rsEv("response.incomplete", `,"response":{"incomplete_details":{"reason":1}}`),
			[]string{rsWantStart, `error 502 11 "upstream openai-responses response is invalid: response.incomplete_details.reason is not a string"`}},
		{"usage not numbers", rsStart + rsEv("response.completed", `,"response":{"usage":{"input_tokens":"many"}}`),
			[]string{rsWantStart, `error 502 11 "upstream openai-responses response is invalid: usage.input_tokens is not a number"`}},
		{"failed response not an object", rsStart + rsEv("response.failed", `,"response":7`),
			[]string{rsWantStart, `error 502 11 "upstream openai-responses response is invalid: response is not an object"`}},
		{"failed usage not numbers", rsStart + rsEv("response.failed", `,"response":{"usage":{"output_tokens":true}}`),
			[]string{rsWantStart, `error 502 11 "upstream openai-responses response is invalid: usage.output_tokens is not a number"`}},

		// Streams that end early.
		{"empty body", "", []string{`error 502 11 "upstream openai-responses stream ended before it was complete"`}},
		{"no terminal event", rsStart + rsItem + rsPartAdded(0, "output_text") + rsDelta(0, "x"),
			[]string{rsWantStart, "part_start 0 text", `delta 0 "x"`, `error 502 11 "upstream openai-responses stream ended before it was complete"`}},
		{"cut in the middle of a line", rsStart + "event: response.completed\ndata: {\"type\":\"resp",
			[]string{rsWantStart, `error 502 11 "upstream openai-responses stream broke off before it was complete"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			evs := rsDecodeStream(t, tt.body, nil)
			codectest.CheckWellFormed(t, evs)
			got := eventStrings(evs)
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("events:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

// TestResponsesStreamDecodeErrorFields checks the fields of upstream errors
// that the event strings leave out.
func TestResponsesStreamDecodeErrorFields(t *testing.T) {
	body := rsStart + rsEv("error", `,"code":"invalid_prompt","message":"Flagged.","param":"input","sequence_number":2`)
	evs := rsDecodeStream(t, body, nil)
	e := evs[len(evs)-1].Err
	want := codec.Error{Status: 400, Kind: mapping.ErrInvalidRequest, Message: "Flagged.", Param: "input", Code: "invalid_prompt", Protocol: codec.OpenAIResponses}
	if e == nil || *e != want {
		t.Errorf("error %+v, want %+v", e, want)
	}
}

// TestResponsesStreamDecodeAliasing checks that an error's strings survive
// the reuse of the event data and of the decoder's arena.
func TestResponsesStreamDecodeAliasing(t *testing.T) {
	d := newStreamDecoder()
	data := []byte(`{"type":"error","code":"server_error","message":"line\none","param":"p"}`)
	evs := d.Decode(nil, nil, data, false)
	for i := range data {
		data[i] = 'x'
	}
	d.text.Reset()
	d.text.Unescape(`zzzzzzzzzzzzzzzzzzzzz`)
	e := evs[0].Err
	if e.Message != "line\none" || e.Code != "server_error" || e.Param != "p" {
		t.Errorf("error strings changed: %+v", e)
	}
	if got := d.Decode(nil, nil, []byte(`{}`), false); len(got) != 0 {
		t.Errorf("events after the end: %v", got)
	}
	if got := d.Close(nil, nil); len(got) != 0 {
		t.Errorf("events from Close after the end: %v", got)
	}
}

// recordingFiles returns the streamed recordings that got an event
// stream (HTTP 200), by file name.
func recordingFiles(t *testing.T) []string {
	t.Helper()
	dir := filepath.Join(codectest.RecordingsDir, "openai-responses")
	codectest.SkipWithoutRecordings(t)
	files, err := filepath.Glob(filepath.Join(dir, "*-stream*.json"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if gjson.GetBytes(b, "response.status").Int() == 200 {
			names = append(names, filepath.Base(f))
		}
	}
	return names
}

// recordingWant is what a client assembles from one recording.
type recordingWant struct {
	id, model, text string
	stop            codec.StopReason
	usage           codec.Usage
	err             string // substring of the error message; "" for a complete stream
	status          int
	calls           []string // "call_id name arguments"
}

var recordingWants = map[string]recordingWant{
	"gpt-4o-text-stream.json": {id: "resp_099d6c816b4d9f35016a3c11f9593481a2a77e9b90b888ae50", model: "gpt-4o-2024-08-06",
		text: "Olá!", stop: mapping.StopEnd, usage: codec.Usage{Known: true, InputTokens: 20, OutputTokens: 3}},
	"gpt-4o-followup-stream-no-sequence-number.json": {id: "resp_67e554a21aa88191b65876ac5e5bbe0406c52f0e511c76ed", model: "gpt-4o-2024-08-06",
		text: "The capital of France is Paris.", stop: mapping.StopEnd, usage: codec.Usage{Known: true, InputTokens: 278, OutputTokens: 9}},
	"gpt-4o-tool-followup-stream.json": {id: "resp_05bf401c6a96e8f8016a3c12019e648191b854b80349a9aa8b", model: "gpt-4o-2024-08-06",
		text: "The current temperature in Florence, Italy is 40°C.", stop: mapping.StopEnd, usage: codec.Usage{Known: true, InputTokens: 81, OutputTokens: 14}},
	// Reasoning summaries are skipped; the answer stays.
	"gpt-5-reasoning-summary-followup-stream.json": {id: "resp_065915db01d8635a016a3c125658a081a38159e7d307d23d65", model: "gpt-5-2025-08-07",
		text:  "Right now in Florence, Italy, it’s about 40°C (104°F). Would you like a forecast or details like wind and humidity?",
		stop:  mapping.StopEnd,
		usage: codec.Usage{Known: true, InputTokens: 92, OutputTokens: 456, ReasoningTokens: 384}},
	// Tool calls: ids, names and arguments exactly; reasoning is skipped.
	"gpt-4o-tool-call-stream.json": {id: "resp_08e0d5fe24768fbd016a3c11fec04081928b7c5c05d975fc26", model: "gpt-4o-2024-08-06",
		stop: mapping.StopToolUse, usage: codec.Usage{Known: true, InputTokens: 58, OutputTokens: 17},
		calls: []string{`call_PRiJm2RVAvt7IoRvjxIXxFVF weather {"location":"Florence, Italy"}`}},
	"gpt-4o-tool-call-stream-no-sequence-number.json": {id: "resp_67e554a155508191900ee113293c4c830794405d35281ae2", model: "gpt-4o-2024-08-06",
		stop: mapping.StopToolUse, usage: codec.Usage{Known: true, InputTokens: 255, OutputTokens: 16},
		calls: []string{`call_kL0PCQV7M2WMoVX8V8OtYSAL get_capital {"country":"France"}`}},
	"gpt-5-parallel-tools-stream.json": {id: "resp_0a7836d50cf181dd016a3c122cf3b881a1947fb8d49897cfca", model: "gpt-5-2025-08-07",
		stop: mapping.StopToolUse, usage: codec.Usage{Known: true, InputTokens: 109, OutputTokens: 223, ReasoningTokens: 128},
		calls: []string{`call_inViAUr9eV0GDtyOywkCxp59 add {"a":2,"b":3}`, `call_Op66UUnzuOoKmgGeFJQJFTUY multiply {"a":2,"b":3}`}},
	"gpt-5-reasoning-summary-tool-call-stream.json": {id: "resp_017e85da2ae23b69016a3c12518cc0819da56cbbdd33f128f3", model: "gpt-5-2025-08-07",
		stop: mapping.StopToolUse, usage: codec.Usage{Known: true, InputTokens: 63, OutputTokens: 121, ReasoningTokens: 64},
		calls: []string{`call_zgUaIBRPTwxxOusyyKw5NVMH weather {"location":"Florence, Italy"}`}},
	// Several responses back to back: the first one ends the stream.
	"reasoning-encrypted-content-stream-reframed.json": {id: "resp_01830d662ab3856501693c321345c88190b0de00f3b9975691", model: "gpt-5.1-codex-max",
		stop: mapping.StopToolUse, usage: codec.Usage{Known: true, InputTokens: 134, OutputTokens: 28},
		calls: []string{`call_AB6AaRZ1FYZB2RwS6A5vbdqn calculator {"a":12,"b":7,"op":"add"}`}},
	// A mid-stream error in the real nested shape, then response.failed.
	"insufficient-quota-error-event-stream-reframed.json": {id: "resp_05500b38c2cd9bfc00691c7c9d222481a3b595421266dab424", model: "gpt-5-nano-2025-08-07",
		err: "You exceeded your current quota, please check your plan and billing details.", status: 429},
}

func TestResponsesStreamDecodeRecordings(t *testing.T) {
	files := recordingFiles(t)
	if len(files) != len(recordingWants) {
		t.Errorf("found %d streamed recordings, the table has %d: %v", len(files), len(recordingWants), files)
	}
	for _, file := range files {
		t.Run(file, func(t *testing.T) {
			want, ok := recordingWants[file]
			if !ok {
				t.Fatal("recording missing from the table")
			}
			evs := rsDecodeStream(t, string(readRecording(t, "openai-responses/"+file)), nil)
			codectest.CheckWellFormed(t, evs)
			s := codectest.Summarize(evs)
			if s.ID != want.id || s.Model != want.model {
				t.Errorf("id %q model %q, want %q %q", s.ID, s.Model, want.id, want.model)
			}
			if want.err != "" {
				if s.Err == nil || !strings.Contains(s.Err.Message, want.err) || s.Err.Status != want.status || s.Complete {
					t.Fatalf("got %+v (error %+v), want error %d %q", s, s.Err, want.status, want.err)
				}
				return
			}
			if s.Err != nil || !s.Complete {
				t.Fatalf("stream not complete: %+v", s.Err)
			}
			calls, text := rsCalls(evs)
			if text != want.text || s.Refusal != "" || s.Stop != want.stop || s.Usage != want.usage {
				t.Errorf("got text %q refusal %q stop %v usage %+v\nwant text %q stop %v usage %+v",
					text, s.Refusal, s.Stop, s.Usage, want.text, want.stop, want.usage)
			}
			if strings.Join(calls, "\n") != strings.Join(want.calls, "\n") {
				t.Errorf("calls:\n%s\nwant:\n%s", strings.Join(calls, "\n"), strings.Join(want.calls, "\n"))
			}
		})
	}
}

// splitEvents splits an SSE body into its events (at blank lines).
func splitEvents(body string) []string {
	body = strings.ReplaceAll(body, "\r\n", "\n")
	var evs []string
	for _, ev := range strings.SplitAfter(body, "\n\n") {
		if strings.TrimSpace(ev) != "" {
			evs = append(evs, ev)
		}
	}
	return evs
}

// TestResponsesStreamDecodeTruncated closes every recording after each
// prefix of its events, cleanly and with a broken connection: the stream is
// complete only when its terminal event was seen (and nothing failed
// before it).
func TestResponsesStreamDecodeTruncated(t *testing.T) {
	for _, file := range recordingFiles(t) {
		t.Run(file, func(t *testing.T) {
			body := string(readRecording(t, "openai-responses/"+file))
			canComplete := codectest.Summarize(rsDecodeStream(t, body, nil)).Complete
			events := splitEvents(body)
			terminal := false
			for n := 0; n <= len(events); n++ {
				if n > 0 {
					typ := gjson.Get(strings.SplitN(events[n-1], "data: ", 2)[1], "type").Str
					terminal = terminal || typ == "response.completed" || typ == "response.incomplete"
				}
				for _, cause := range []error{nil, codectest.ErrTestBroken} {
					evs := rsDecodeStream(t, strings.Join(events[:n], ""), cause)
					codectest.CheckWellFormed(t, evs)
					s := codectest.Summarize(evs)
					if s.Complete != (terminal && canComplete) {
						t.Fatalf("prefix of %d events (cause %v): complete %v, terminal event seen %v", n, cause, s.Complete, terminal)
					}
					if !s.Complete && s.Err == nil {
						t.Fatalf("prefix of %d events: incomplete without an error", n)
					}
				}
			}
		})
	}
}

// TestResponsesStreamDecodeTruncatedBytes cuts a recording after every byte.
func TestResponsesStreamDecodeTruncatedBytes(t *testing.T) {
	body := string(readRecording(t, "openai-responses/gpt-4o-text-stream.json"))
	end := strings.LastIndex(body, "event: response.completed")
	for n := 0; n < len(body); n++ {
		evs := rsDecodeStream(t, body[:n], nil)
		codectest.CheckWellFormed(t, evs)
		s := codectest.Summarize(evs)
		// The completed event is complete once its data line has ended.
		complete := n > strings.Index(body[end:], "}\n")+end+1
		if s.Complete != complete {
			t.Fatalf("cut at %d/%d: complete %v, want %v (%+v)", n, len(body), s.Complete, complete, s.Err)
		}
	}
}

// TestResponsesStreamDecodeSplit feeds events split in odd ways: one byte
// per read, CRLF line ends, data split over several data: lines, and a
// text-only response through every chunking: the result does not change.
func TestResponsesStreamDecodeSplit(t *testing.T) {
	body := rsStart + rsItem + rsText(0, "Hé", "llo\n", "\"w\"") + rsItemDone + rsDoneOK
	want := eventStrings(rsDecodeStream(t, body, nil))
	variants := map[string]string{
		"crlf":      strings.ReplaceAll(body, "\n", "\r\n"),
		"cr":        strings.ReplaceAll(body, "\n", "\r"),
		"multiline": strings.ReplaceAll(body, `,"`, ",\ndata: \""),
		"comments":  strings.ReplaceAll(body, "\n\n", "\n: c\n\n"),
		"no space":  strings.ReplaceAll(body, "data: ", "data:"),
	}
	for name, v := range variants {
		t.Run(name, func(t *testing.T) {
			got := eventStrings(rsDecodeStream(t, v, nil))
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("events:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
		})
	}
	t.Run("one byte reads", func(t *testing.T) {
		dec := codectest.StreamDecoder(codec.OpenAIResponses)
		r := sse.NewReader(iotest.OneByteReader(strings.NewReader(body)), 0)
		var out []codec.Event
		for {
			ev, err := r.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			out = codectest.AppendDetached(out, dec.Decode(nil, ev.Name, ev.Data, ev.Bare))
		}
		out = codectest.AppendDetached(out, dec.Close(nil, nil))
		if got := eventStrings(out); strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("events:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	})
}
