package responses

import (
	"bytes"
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

// rsCanonical builds canonical event sequences for encoder tests.
func rsStartEvent() codec.Event {
	return codec.Event{Type: codec.EventStart, ID: "resp_abc123", Model: "gpt-4o-2024-08-06", Created: 1700000000}
}

var rsTestUsage = codec.Usage{Known: true, InputTokens: 20, CacheReadTokens: 4, OutputTokens: 7, ReasoningTokens: 2}

func rsTextEvents(index int, kind codec.PartType, deltas ...string) []codec.Event {
	evs := []codec.Event{{Type: codec.EventPartStart, Index: index, Part: kind}}
	for _, d := range deltas {
		evs = append(evs, codec.Event{Type: codec.EventPartDelta, Index: index, Text: d})
	}
	return append(evs, codec.Event{Type: codec.EventPartStop, Index: index})
}

func rsCallEvents(index int, id, name string, deltas ...string) []codec.Event {
	evs := []codec.Event{{Type: codec.EventPartStart, Index: index, Part: codec.PartToolCall, ToolCallID: id, ToolName: name}}
	for _, d := range deltas {
		evs = append(evs, codec.Event{Type: codec.EventPartDelta, Index: index, Text: d})
	}
	return append(evs, codec.Event{Type: codec.EventPartStop, Index: index})
}

func rsSeq(parts ...[]codec.Event) []codec.Event {
	var evs []codec.Event
	for _, p := range parts {
		evs = append(evs, p...)
	}
	return evs
}

func rsOne(evs ...codec.Event) []codec.Event { return evs }

// encoderCases are the canonical streams of the golden files.
var encoderCases = []struct {
	name string
	evs  []codec.Event
}{
	{"text", rsSeq(rsOne(rsStartEvent()), rsTextEvents(0, codec.PartText, "Hello", ",\nworld", " \"quoted\" é"),
		rsOne(codec.Event{Type: codec.EventStop, StopReason: mapping.StopEnd}, codec.Event{Type: codec.EventUsage, Usage: rsTestUsage}, codec.Event{Type: codec.EventEnd}))},
	{"refusal", rsSeq(rsOne(rsStartEvent()), rsTextEvents(0, codec.PartRefusal, "I can't", " help with that."),
		rsOne(codec.Event{Type: codec.EventStop, StopReason: mapping.StopRefusal}, codec.Event{Type: codec.EventUsage, Usage: rsTestUsage}, codec.Event{Type: codec.EventEnd}))},
	{"text_and_refusal", rsSeq(rsOne(rsStartEvent()), rsTextEvents(0, codec.PartText, "Here is what I can say."), rsTextEvents(1, codec.PartRefusal, "The rest I refuse."),
		rsOne(codec.Event{Type: codec.EventStop, StopReason: mapping.StopRefusal}, codec.Event{Type: codec.EventEnd}))},
	{"max_tokens", rsSeq(rsOne(rsStartEvent()), rsTextEvents(0, codec.PartText, "Once upon a"),
		rsOne(codec.Event{Type: codec.EventStop, StopReason: mapping.StopMaxTokens}, codec.Event{Type: codec.EventUsage, Usage: rsTestUsage}, codec.Event{Type: codec.EventEnd}))},
	{"content_filter", rsSeq(rsOne(rsStartEvent()), rsTextEvents(0, codec.PartText, "Partial"),
		rsOne(codec.Event{Type: codec.EventStop, StopReason: mapping.StopContentFilter}, codec.Event{Type: codec.EventEnd}))},
	// Usage reported before the stop reason (Anthropic start usage,
	// Gemini usage on every chunk) and after it (Chat include_usage).
	{"usage_before_stop", rsSeq(rsOne(codec.Event{Type: codec.EventStart, ID: "msg_01XYZ", Model: "claude-sonnet-4-5", Created: 1700000002, Usage: codec.Usage{Known: true, InputTokens: 30}}),
		rsTextEvents(0, codec.PartText, "Hi"),
		rsOne(codec.Event{Type: codec.EventUsage, Usage: codec.Usage{Known: true, InputTokens: 30, CacheWriteTokens: 10, OutputTokens: 3}},
			codec.Event{Type: codec.EventStop, StopReason: mapping.StopSequence, StopSequence: "END"}, codec.Event{Type: codec.EventEnd}))},
	{"usage_after_stop", rsSeq(rsOne(codec.Event{Type: codec.EventStart, ID: "chatcmpl-123", Model: "gpt-4o-mini", Created: 1700000001}),
		rsTextEvents(0, codec.PartText, "Hi"),
		rsOne(codec.Event{Type: codec.EventStop, StopReason: mapping.StopEnd}, codec.Event{Type: codec.EventUsage, Usage: codec.Usage{Known: true, InputTokens: 8, OutputTokens: 2}}, codec.Event{Type: codec.EventEnd}))},
	{"no_output", rsOne(rsStartEvent(), codec.Event{Type: codec.EventStop, StopReason: mapping.StopEnd}, codec.Event{Type: codec.EventEnd})},
	// Text, then parallel calls (one with no argument fragments at all:
	// "{}"), as an Anthropic or Gemini upstream streams them.
	{"tool_calls", rsSeq(rsOne(rsStartEvent()), rsTextEvents(0, codec.PartText, "Let me check."),
		rsCallEvents(1, "toolu_01", "get_weather", `{"city":`, `"Paris"}`), rsCallEvents(2, "toolu_02", "now"),
		rsOne(codec.Event{Type: codec.EventStop, StopReason: mapping.StopToolUse}, codec.Event{Type: codec.EventUsage, Usage: rsTestUsage}, codec.Event{Type: codec.EventEnd}))},
	// A call, then text in a new message item; the end closes the call.
	{"text_after_call", rsSeq(rsOne(rsStartEvent()), rsCallEvents(0, "call_1", "f", `{"a":1}`)[:2], rsTextEvents(1, codec.PartText, "Done."),
		rsOne(codec.Event{Type: codec.EventStop, StopReason: mapping.StopEnd}, codec.Event{Type: codec.EventEnd}))},
	{"call_cut_by_max_tokens", rsSeq(rsOne(rsStartEvent()), rsCallEvents(0, "call_1", "f", `{"a":1}`)[:2],
		rsOne(codec.Event{Type: codec.EventStop, StopReason: mapping.StopMaxTokens}, codec.Event{Type: codec.EventEnd}))},
	{"error_in_call", rsSeq(rsOne(rsStartEvent()), rsTextEvents(0, codec.PartText, "x"), rsCallEvents(1, "call_1", "f", `{"a":`)[:2],
		rsOne(codec.Event{Type: codec.EventError, Err: &codec.Error{Status: 429, Kind: mapping.ErrRateLimit, Message: "Slow down."}}))},
	{"error_mid_stream", rsSeq(rsOne(rsStartEvent()), rsOne(codec.Event{Type: codec.EventPartStart, Index: 0, Part: codec.PartText}, codec.Event{Type: codec.EventPartDelta, Index: 0, Text: "Partial answer"}),
		rsOne(codec.Event{Type: codec.EventError, Err: &codec.Error{Status: 529, Kind: mapping.ErrOverloaded, Message: "Overloaded", Code: "overloaded_error", Protocol: codec.AnthropicMessages}}))},
	{"error_before_content", rsOne(rsStartEvent(),
		codec.Event{Type: codec.EventError, Err: &codec.Error{Status: 429, Kind: mapping.ErrBilling, Message: "You exceeded your current quota.", Code: "insufficient_quota", Protocol: codec.OpenAIResponses}})},
}

// goldenSSE compares an encoded stream with
// testdata/openai-responses/stream_<name>.sse, or rewrites it with -update.
func goldenSSE(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join(codectest.Testdata, "openai-responses", "stream_"+name+".sse")
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
		t.Errorf("%s differs from the golden file:\n got: %s\nwant: %s", path, got, want)
	}
}

func TestResponsesStreamEncodeGolden(t *testing.T) {
	for _, tc := range encoderCases {
		t.Run(tc.name, func(t *testing.T) {
			out := codectest.EncodeStream(codec.OpenAIResponses, &codec.Request{Model: "client-model"}, tc.evs)
			checkSSE(t, []byte(out))
			goldenSSE(t, tc.name, []byte(out))
		})
	}
}

// checkSSE checks an encoded stream against the Responses event
// grammar a strict client (Codex) relies on: every event's type repeats its
// name, sequence numbers count from 0, the stream starts with
// response.created and response.in_progress, output items are added at
// increasing output indexes, one at a time, before any of their content,
// every part is opened, filled and closed in order with matching texts,
// function call arguments are sent once (id, call id and name only in the
// added item) with a .done that repeats the deltas, and it ends with exactly
// one terminal event whose output repeats the items.
func checkSSE(t *testing.T, body []byte) {
	t.Helper()
	r := sse.NewReader(bytes.NewReader(body), 0)
	var names []string
	var seq int64
	terminal := ""
	items := 0        // items added
	itemOpen := false // the last item is not done
	itemType, itemID := "", ""
	part, text := -1, ""
	parts := 0 // parts of the open message item
	var texts []string
	var doneItems []string // each done item as JSON
	for {
		ev, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		name := string(ev.Name)
		bad := func(why string) { t.Fatalf("event %d %s: %s\n%s", len(names), name, why, body) }
		if !gjson.ValidBytes(ev.Data) {
			bad("data is not JSON")
		}
		data := gjson.ParseBytes(ev.Data)
		if data.Get("type").Str != name {
			bad("type does not repeat the event name")
		}
		if data.Get("sequence_number").Int() != seq || !data.Get("sequence_number").Exists() {
			bad(fmt.Sprintf("sequence number %s, want %d", data.Get("sequence_number").Raw, seq))
		}
		seq++
		if terminal != "" && !(terminal == "error" && name == "response.failed") {
			bad("event after the terminal event " + terminal)
		}
		switch len(names) {
		case 0:
			if name != "response.created" && name != "error" {
				bad("stream does not start with response.created")
			}
		case 1:
			if names[0] == "response.created" && name != "response.in_progress" {
				bad("response.in_progress does not follow response.created")
			}
		}
		names = append(names, name)
		inItem := func(wantType string) {
			if !itemOpen || itemType != wantType || data.Get("item_id").Str != itemID || data.Get("output_index").Int() != int64(items-1) {
				bad("event outside its " + wantType + " item")
			}
		}
		switch name {
		case "response.created", "response.in_progress":
			if len(names) > 2 || data.Get("response.status").Str != "in_progress" || len(data.Get("response.output").Array()) != 0 {
				bad("bad start")
			}
		case "response.output_item.added":
			if itemOpen || data.Get("output_index").Int() != int64(items) {
				bad("item added while another is open, or out of order")
			}
			items++
			itemOpen = true
			itemType, itemID = data.Get("item.type").Str, data.Get("item.id").Str
			parts, texts, text = 0, nil, ""
			switch itemType {
			case "message":
				if len(data.Get("item.content").Array()) != 0 {
					bad("message added with content")
				}
			case "function_call":
				if !strings.HasPrefix(itemID, "fc_") || data.Get("item.call_id").Str == "" || data.Get("item.name").Str == "" ||
					data.Get("item.arguments").Str != "" || data.Get("item.status").Str != "in_progress" {
					bad("function call added without its identity, or with arguments")
				}
			case "reasoning":
				if itemID == "" || data.Get("item.summary").Raw != "[]" || data.Get("item.encrypted_content").Exists() {
					bad("reasoning added without an id, or with a summary or encrypted content")
				}
			default:
				bad("unexpected item type")
			}
		case "response.content_part.added":
			inItem("message")
			if part >= 0 || data.Get("content_index").Int() != int64(parts) {
				bad("part added out of order")
			}
			part, text = parts, ""
			parts++
		case "response.output_text.delta", "response.refusal.delta":
			inItem("message")
			if part < 0 || data.Get("content_index").Int() != int64(part) || data.Get("delta").Str == "" {
				bad("delta outside its part")
			}
			text += data.Get("delta").Str
		case "response.output_text.done", "response.refusal.done":
			inItem("message")
			full := data.Get("text").Str
			if name == "response.refusal.done" {
				full = data.Get("refusal").Str
			}
			if part < 0 || full != text {
				bad("done text " + full + " differs from the deltas " + text)
			}
		case "response.content_part.done":
			inItem("message")
			if part < 0 || data.Get("content_index").Int() != int64(part) {
				bad("part done out of order")
			}
			texts = append(texts, text)
			part = -1
		case "response.reasoning_summary_part.added":
			inItem("reasoning")
			if part >= 0 || parts > 0 || data.Get("summary_index").Int() != 0 || data.Get("part").Raw != `{"type":"summary_text","text":""}` {
				bad("summary part added out of order")
			}
			part, text = 0, ""
			parts++
		case "response.reasoning_summary_text.delta":
			inItem("reasoning")
			if part != 0 || data.Get("summary_index").Int() != 0 || data.Get("delta").Str == "" {
				bad("summary delta outside its part")
			}
			text += data.Get("delta").Str
		case "response.reasoning_summary_text.done":
			inItem("reasoning")
			if part != 0 || data.Get("text").Str != text {
				bad("summary done text differs from the deltas")
			}
		case "response.reasoning_summary_part.done":
			inItem("reasoning")
			if part != 0 || data.Get("part.text").Str != text || data.Get("part.type").Str != "summary_text" {
				bad("summary part done differs from the deltas")
			}
			texts = append(texts, text)
			part = -1
		case "response.function_call_arguments.delta":
			inItem("function_call")
			if data.Get("delta").Str == "" || data.Get("name").Exists() || data.Get("call_id").Exists() {
				bad("empty arguments delta, or identity repeated")
			}
			text += data.Get("delta").Str
		case "response.function_call_arguments.done":
			inItem("function_call")
			if data.Get("arguments").Str != text || !gjson.Valid(text) || !gjson.Parse(text).IsObject() {
				bad("arguments " + data.Get("arguments").Str + " differ from the deltas " + text + " or are no object")
			}
			texts = append(texts, text)
		case "response.output_item.done":
			if !itemOpen || part >= 0 || data.Get("output_index").Int() != int64(items-1) || data.Get("item.id").Str != itemID {
				bad("item done out of order")
			}
			itemOpen = false
			var got []string
			switch itemType {
			case "message":
				for _, c := range data.Get("item.content").Array() {
					got = append(got, c.Get("text").Str+c.Get("refusal").Str)
				}
			case "reasoning":
				for _, c := range data.Get("item.summary").Array() {
					got = append(got, c.Get("text").Str)
				}
				if enc := data.Get("item.encrypted_content"); enc.Exists() {
					if _, err := mapping.ParseContinuation(enc.Str); err != nil {
						bad("encrypted_content is not an envelope: " + err.Error())
					}
				}
			default:
				got = append(got, data.Get("item.arguments").Str)
			}
			if strings.Join(got, "|") != strings.Join(texts, "|") {
				bad("item content differs from the parts")
			}
			doneItems = append(doneItems, data.Get("item").Raw)
		case "response.completed", "response.incomplete":
			if part >= 0 || itemOpen || data.Get("response.status").Str != strings.TrimPrefix(name, "response.") {
				bad("completed with something open")
			}
			out := data.Get("response.output").Array()
			if len(out) != len(doneItems) {
				bad("final output differs from the items")
			}
			for i, it := range out {
				if it.Get("id").Str != gjson.Get(doneItems[i], "id").Str || it.Get("type").Str != gjson.Get(doneItems[i], "type").Str ||
					it.Get("arguments").Str != gjson.Get(doneItems[i], "arguments").Str || it.Get("content").Raw != gjson.Get(doneItems[i], "content").Raw ||
					it.Get("summary").Raw != gjson.Get(doneItems[i], "summary").Raw || it.Get("encrypted_content").Raw != gjson.Get(doneItems[i], "encrypted_content").Raw {
					bad("final output item differs from its done event")
				}
			}
			terminal = name
		case "error":
			if !data.Get("message").Exists() || !data.Get("code").Exists() || !data.Get("param").Exists() {
				bad("error event is not in the flat shape")
			}
			terminal = name
		case "response.failed":
			if terminal != "error" || data.Get("response.status").Str != "failed" || data.Get("response.error.message").Str == "" {
				bad("response.failed without the error event")
			}
			terminal = name
		default:
			bad("unexpected event")
		}
	}
	if terminal != "response.completed" && terminal != "response.incomplete" && terminal != "response.failed" {
		t.Fatalf("stream ends without a terminal event: %v", names)
	}
}

// TestResponsesStreamRoundTrip encodes canonical streams and decodes them
// again: a client of this encoder sees what the canonical events say.
func TestResponsesStreamRoundTrip(t *testing.T) {
	for _, tc := range encoderCases {
		t.Run(tc.name, func(t *testing.T) {
			out := codectest.EncodeStream(codec.OpenAIResponses, &codec.Request{Model: "client-model"}, tc.evs)
			evs := rsDecodeStream(t, out, nil)
			codectest.CheckWellFormed(t, evs)
			gotCalls, _ := rsCalls(evs)
			wantCalls, _ := rsCalls(tc.evs)
			for i, c := range wantCalls {
				if strings.HasSuffix(c, " ") {
					wantCalls[i] += "{}" // a call without fragments gets "{}"
				}
			}
			if strings.Join(gotCalls, "\n") != strings.Join(wantCalls, "\n") {
				t.Errorf("calls:\n%s\nwant:\n%s", strings.Join(gotCalls, "\n"), strings.Join(wantCalls, "\n"))
			}
			got, want := codectest.Summarize(evs), codectest.Summarize(tc.evs)
			_, got.Text = rsCalls(evs)
			_, want.Text = rsCalls(tc.evs)
			// The calls are compared above (a call without fragments
			// comes back as "{}").
			got.Tools, want.Tools = "", ""
			// Responses cannot tell a stop sequence from a natural end
			//, nor carry the sequence itself.
			if want.Stop == mapping.StopSequence {
				want.Stop, want.StopSeq = mapping.StopEnd, ""
			}
			// A completed response with a function call is a tool use.
			if want.Stop == mapping.StopEnd && len(wantCalls) > 0 {
				want.Stop = mapping.StopToolUse
			}
			if want.Err != nil {
				if got.Err == nil || got.Err.Message != want.Err.Message || got.Err.Kind != want.Err.Kind {
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

// TestResponsesStreamTranslateRecordings decodes each recording, encodes it
// for a Responses client, checks the grammar and decodes it again.
func TestResponsesStreamTranslateRecordings(t *testing.T) {
	for _, file := range recordingFiles(t) {
		t.Run(file, func(t *testing.T) {
			evs := rsDecodeStream(t, string(readRecording(t, "openai-responses/"+file)), nil)
			out := codectest.EncodeStream(codec.OpenAIResponses, &codec.Request{Model: "m"}, evs)
			checkSSE(t, []byte(out))
			again := rsDecodeStream(t, out, nil)
			got, want := codectest.Summarize(again), codectest.Summarize(evs)
			if (got.Err == nil) != (want.Err == nil) || (got.Err != nil && got.Err.Message != want.Err.Message) {
				t.Errorf("error %+v, want %+v", got.Err, want.Err)
			}
			got.Err, want.Err = nil, nil
			if got != want {
				t.Errorf("translation:\n got %+v\nwant %+v", got, want)
			}
		})
	}
}

// TestResponsesStreamEncodeEdges covers canonical streams that a decoder
// never produces but a caller might send.
func TestResponsesStreamEncodeEdges(t *testing.T) {
	t.Run("no start, no ids", func(t *testing.T) {
		out := codectest.EncodeStream(codec.OpenAIResponses, &codec.Request{Model: "asked"}, rsOne(
			codec.Event{Type: codec.EventPartDelta, Text: "orphan delta"}, codec.Event{Type: codec.EventPartStart, Part: codec.PartRefusal},
			codec.Event{Type: codec.EventPartDelta, Text: ""}, codec.Event{Type: codec.EventPartDelta, Text: "no"}, codec.Event{Type: codec.EventEnd},
			codec.Event{Type: codec.EventPartDelta, Text: "after the end"}, codec.Event{Type: codec.EventStart, ID: "x"}))
		checkSSE(t, []byte(out))
		s := codectest.Summarize(rsDecodeStream(t, out, nil))
		if s.Text != "orphan delta" || s.Refusal != "no" || s.Model != "asked" || !strings.HasPrefix(s.ID, "resp_") || len(s.ID) != 29 || !s.Complete {
			t.Errorf("got %+v", s)
		}
		if !strings.Contains(out, `"id":"msg_`+strings.TrimPrefix(s.ID, "resp_")+`"`) {
			t.Errorf("message id not derived from the response id: %s", out)
		}
		if strings.Contains(out, "after the end") || strings.Count(out, "event: response.created") != 1 {
			t.Errorf("events after the end were encoded: %s", out)
		}
	})
	t.Run("second start ignored", func(t *testing.T) {
		out := codectest.EncodeStream(codec.OpenAIResponses, nil, rsOne(rsStartEvent(), codec.Event{Type: codec.EventStart, ID: "other"}, codec.Event{Type: codec.EventPartStop}, codec.Event{Type: codec.EventEnd}))
		checkSSE(t, []byte(out))
		if strings.Contains(out, "other") || !strings.Contains(out, `"status":"completed"`) || strings.Contains(out, "output_item") {
			t.Errorf("got %s", out)
		}
	})
	t.Run("end with a part open", func(t *testing.T) {
		out := codectest.EncodeStream(codec.OpenAIResponses, nil, rsOne(rsStartEvent(), codec.Event{Type: codec.EventPartStart}, codec.Event{Type: codec.EventPartDelta, Text: "a"}, codec.Event{Type: codec.EventEnd}))
		checkSSE(t, []byte(out))
	})
	t.Run("error first", func(t *testing.T) {
		out := codectest.EncodeStream(codec.OpenAIResponses, &codec.Request{Model: "asked"}, rsOne(
			codec.Event{Type: codec.EventError, Err: &codec.Error{Status: 400, Kind: mapping.ErrInvalidRequest, Message: "bad", Param: "input"}}, codec.Event{Type: codec.EventEnd}))
		checkSSE(t, []byte(out))
		if !strings.HasPrefix(out, "event: error\ndata: {\"type\":\"error\",\"code\":\"invalid_request_error\",\"message\":\"bad\",\"param\":\"input\",\"sequence_number\":0}") ||
			!strings.Contains(out, `"model":"asked"`) || strings.Contains(out, "completed") {
			t.Errorf("got %s", out)
		}
	})
	t.Run("error without details", func(t *testing.T) {
		out := codectest.EncodeStream(codec.OpenAIResponses, nil, rsOne(rsStartEvent(), codec.Event{Type: codec.EventError}))
		checkSSE(t, []byte(out))
		if !strings.Contains(out, `"code":"server_error","message":"the upstream stream failed"`) {
			t.Errorf("got %s", out)
		}
	})
	t.Run("error codes", func(t *testing.T) {
		for _, tc := range []struct {
			err  codec.Error
			code string
		}{
			{codec.Error{Kind: mapping.ErrRateLimit, Code: "rate_limit_error", Protocol: codec.AnthropicMessages}, "rate_limit_exceeded"},
			{codec.Error{Kind: mapping.ErrRateLimit, Code: "tokens", Protocol: codec.OpenAIChat}, "tokens"},
			{codec.Error{Kind: mapping.ErrBilling}, "insufficient_quota"},
			{codec.Error{Kind: mapping.ErrAPI, Code: "INTERNAL", Protocol: codec.Gemini}, "server_error"},
			{codec.Error{Kind: mapping.ErrTimeout}, "timeout_error"},
			{codec.Error{Kind: mapping.ErrOverloaded, Code: "overloaded_error", Protocol: codec.VertexAnthropic}, "server_is_overloaded"},
		} {
			if got := errorCode(&tc.err); got != tc.code {
				t.Errorf("code of %+v: %q, want %q", tc.err, got, tc.code)
			}
		}
	})
}

// TestResponsesStreamDeltaAllocs guards the hot path: decoding and encoding
// a text delta allocate nothing once the stream is under way.
func TestResponsesStreamDeltaAllocs(t *testing.T) {
	dec, name, data := benchDecoder()
	enc, _ := benchEncoder()
	var buf []codec.Event
	var dst []byte
	allocs := testing.AllocsPerRun(200, func() {
		buf = dec.Decode(buf[:0], name, data, false)
		for i := range buf {
			dst = enc.Encode(dst[:0], &buf[i])
		}
		enc.text = enc.text[:0]
		enc.parts[len(enc.parts)-1].start, enc.parts[len(enc.parts)-1].end = 0, 0
	})
	if allocs != 0 || len(buf) != 1 || !strings.Contains(string(dst), `"delta":"Hello,\nworld`) {
		t.Errorf("%v allocations per delta, events %v, output %s", allocs, buf, dst)
	}
}

// benchDelta is a realistic text delta event, as gpt-4o sends it.
const benchDelta = `{"type":"response.output_text.delta","content_index":0,"delta":"Hello,\nworld! Here is the \"answer\" you asked for","item_id":"msg_099d6c816b4d9f35016a3c11fb338081a289266547cae6ff41","logprobs":[],"obfuscation":"MWsYL9iUMgwoT","output_index":0,"sequence_number":4}`

// benchDecoder returns a decoder with a text part open, and the
// name and data of a delta event.
func benchDecoder() (*streamDecoder, []byte, []byte) {
	dec := newStreamDecoder()
	for _, ev := range splitEvents(rsStart + rsItem + rsPartAdded(0, "output_text")) {
		data := strings.SplitN(ev, "data: ", 2)[1]
		dec.Decode(nil, nil, []byte(strings.TrimSpace(data)), false)
	}
	return dec, []byte("response.output_text.delta"), []byte(benchDelta)
}

// benchEncoder returns an encoder with a text part open, and a
// delta event.
func benchEncoder() (*streamEncoder, *codec.Event) {
	enc := newStreamEncoder(&codec.Request{Model: "gpt-4o"})
	start := rsStartEvent()
	enc.Encode(nil, &start)
	enc.Encode(nil, &codec.Event{Type: codec.EventPartStart, Part: codec.PartText})
	return enc, &codec.Event{Type: codec.EventPartDelta, Text: "Hello,\nworld! Here is the \"answer\" you asked for"}
}

func BenchmarkResponsesStreamDecodeDelta(b *testing.B) {
	dec, name, data := benchDecoder()
	var buf []codec.Event
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		buf = dec.Decode(buf[:0], name, data, false)
	}
	if len(buf) != 1 || buf[0].Type != codec.EventPartDelta {
		b.Fatal(buf)
	}
}

func BenchmarkResponsesStreamEncodeDelta(b *testing.B) {
	enc, ev := benchEncoder()
	var dst []byte
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		dst = enc.Encode(dst[:0], ev)
		if i++; i%4096 == 0 {
			// Keep the part's accumulated text bounded.
			enc.text = enc.text[:0]
			enc.parts[0].start, enc.parts[0].end = 0, 0
		}
	}
	b.SetBytes(int64(len(dst)))
}
