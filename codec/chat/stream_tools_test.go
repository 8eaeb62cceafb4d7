package chat

import (
	"encoding/json"
	"io"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/codectest"
	"github.com/llmbridge/llmbridge/codec/internal/wire"
	"github.com/llmbridge/llmbridge/mapping"
	"github.com/llmbridge/llmbridge/sse"
	"github.com/tidwall/gjson"
)

// decodeToolStream is decodeStream with the tool call ids and names
// detached too: like all event strings, they are valid only until the
// decoder's next call.
func decodeToolStream(t *testing.T, body string, cause error) []codec.Event {
	t.Helper()
	dec := newStreamDecoder()
	r := sse.NewReader(strings.NewReader(body), 0)
	var out, buf []codec.Event
	detach := func(evs []codec.Event) {
		for _, ev := range evs {
			ev.Text, ev.ID, ev.Model = strings.Clone(ev.Text), strings.Clone(ev.ID), strings.Clone(ev.Model)
			ev.ToolCallID, ev.ToolName = strings.Clone(ev.ToolCallID), strings.Clone(ev.ToolName)
			out = append(out, ev)
		}
	}
	for {
		ev, err := r.Next()
		if err != nil {
			if err != io.EOF && cause == nil {
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

// streamCall is a tool call assembled from a canonical stream.
type streamCall struct{ id, name, args string }

// streamCalls assembles the tool call parts of evs, in part order,
// checking that id and name come only at the part start.
func streamCalls(t *testing.T, evs []codec.Event) []streamCall {
	t.Helper()
	var calls []streamCall
	at := map[int]int{}
	for _, ev := range evs {
		switch ev.Type {
		case codec.EventPartStart:
			if ev.Part == codec.PartToolCall {
				at[ev.Index] = len(calls)
				calls = append(calls, streamCall{id: ev.ToolCallID, name: ev.ToolName})
			}
		case codec.EventPartDelta:
			if ev.ToolCallID != "" || ev.ToolName != "" {
				t.Errorf("delta carries id or name: %+v", ev)
			}
			if k, ok := at[ev.Index]; ok {
				if ev.Text == "" {
					t.Errorf("empty argument delta for part %d", ev.Index)
				}
				calls[k].args += ev.Text
			}
		}
	}
	return calls
}

func evCall(i int, id, name string) codec.Event {
	return codec.Event{Type: codec.EventPartStart, Index: i, Part: codec.PartToolCall, ToolCallID: id, ToolName: name}
}

// TestChatStreamToolRecordings decodes the recorded tool call streams:
// ids, names and the parsed arguments exactly, each call its own part.
func TestChatStreamToolRecordings(t *testing.T) {
	for name, want := range map[string][]streamCall{
		"gpt-4o-tool-call-stream.json": {{"call_7kE4IjtnwXcGbX6hDM7xFu8T", "weather", `{"location":"Florence, Italy"}`}},
		"gpt-4o-parallel-tools-stream.json": {
			{"call_ehIWdjL1abZk1h8FWGLQ0Hie", "add", `{"a": 2, "b": 3}`},
			{"call_fBSgA47J5VeONggizTIvl7AH", "multiply", `{"a": 2, "b": 3}`},
		},
		"gpt-4o-2024-08-06-parallel-tools-stream.json": {
			{"call_JMW1whyEaYG438VE1OIflxA2", "GetWeatherArgs", `{"city": "Edinburgh", "country": "GB", "units": "c"}`},
			{"call_DNYTawLBoN8fj3KN6qU9N1Ou", "get_stock_price", `{"ticker": "AAPL", "exchange": "NASDAQ"}`},
		},
	} {
		t.Run(name, func(t *testing.T) {
			body := recording(t, name).Get("response.body").Str
			evs := decodeToolStream(t, body, nil)
			codectest.CheckWellFormed(t, evs)
			s := codectest.Summarize(evs)
			if s.Err != nil || !s.Complete || s.Stop != mapping.StopToolUse {
				t.Fatalf("summary = %+v", s)
			}
			got := streamCalls(t, evs)
			if !codectest.EqualDecoded(got, want) {
				t.Errorf("calls = %+v\nwant %+v", got, want)
			}
			for _, c := range got {
				var v map[string]any
				if err := json.Unmarshal([]byte(c.args), &v); err != nil {
					t.Errorf("arguments %q: %v", c.args, err)
				}
			}
			// Re-encoded for a Chat client, the calls come back the same.
			sse := codectest.EncodeStream(codec.OpenAIChat, &codec.Request{Model: "m", StreamUsage: true}, evs)
			again := decodeToolStream(t, sse, nil)
			codectest.CheckWellFormed(t, again)
			if g := streamCalls(t, again); !codectest.EqualDecoded(g, want) {
				t.Errorf("re-encoded calls = %+v", g)
			}
		})
	}
}

func TestChatStreamDecodeTools(t *testing.T) {
	role := streamChunk(`{"role":"assistant","content":null}`, "null")
	call := func(c string) string { return streamChunk(`{"tool_calls":[`+c+`]}`, "null") }
	first := func(i int, id, name string) string {
		return call(`{"index":` + strconv.Itoa(i) + `,"id":"` + id + `","type":"function","function":{"name":"` + name + `","arguments":""}}`)
	}
	args := func(i int, s string) string {
		return call(`{"index":` + strconv.Itoa(i) + `,"function":{"arguments":` + strconv.Quote(s) + `}}`)
	}
	finish := func(r string) string { return streamChunk(`{}`, `"`+r+`"`) }
	start := evStart()
	tests := []struct {
		name string
		body string
		want []codec.Event
	}{
		{
			name: "parallel calls as OpenAI sends them",
			body: role + first(0, "call_a", "add") + args(0, `{"a"`) + args(0, `: 2}`) + first(1, "call_b", "mul") + args(1, `{}`) +
				finish("tool_calls") + streamDone,
			want: []codec.Event{start, evCall(0, "call_a", "add"), evDelta(0, `{"a"`), evDelta(0, `: 2}`), evPartStop(0),
				evCall(1, "call_b", "mul"), evDelta(1, `{}`), evPartStop(1), evStop(mapping.StopToolUse), evEnd()},
		},
		{
			name: "text, then a call without arguments, finished with stop",
			body: streamChunk(`{"role":"assistant","content":"Let me"}`, "null") + streamChunk(`{"content":" check."}`, "null") +
				first(0, "call_a", "now") + finish("stop") + streamDone,
			want: []codec.Event{start, evPart(0, codec.PartText), evDelta(0, "Let me"), evDelta(0, " check."), evPartStop(0),
				evCall(1, "call_a", "now"), evPartStop(1), evStop(mapping.StopToolUse), evEnd()},
		},
		{
			name: "whole calls at index 0 with new ids are separate calls; a repeated id and name continue",
			body: role + call(`{"index":0,"id":"c1","type":"function","function":{"name":"f","arguments":"{\"x\":1}"}}`) +
				call(`{"index":0,"id":"c1","type":"function","function":{"name":"f","arguments":""}}`) +
				call(`{"index":0,"id":"c2","type":"function","function":{"name":"g","arguments":"{}"}}`) + finish("tool_calls") + streamDone,
			want: []codec.Event{start, evCall(0, "c1", "f"), evDelta(0, `{"x":1}`), evPartStop(0),
				evCall(1, "c2", "g"), evDelta(1, `{}`), evPartStop(1), evStop(mapping.StopToolUse), evEnd()},
		},
		{
			name: "a call without id gets a stable one; text after a call is a new part",
			body: role + call(`{"index":0,"function":{"name":"f","arguments":null}}`) + args(0, `{}`) +
				streamChunk(`{"content":"done","tool_calls":null}`, "null") + finish("length") + streamDone,
			want: []codec.Event{start, evCall(0, "call_0", "f"), evDelta(0, `{}`), evPartStop(0),
				evPart(1, codec.PartText), evDelta(1, "done"), evPartStop(1), evStop(mapping.StopMaxTokens), evEnd()},
		},
		{
			name: "calls and finish in one chunk",
			body: role + streamChunk(`{"tool_calls":[{"index":0,"id":"c1","function":{"name":"f","arguments":"{}"}},{"index":1,"id":"c2","function":{"name":"g"}}]}`, `"tool_calls"`) + streamDone,
			want: []codec.Event{start, evCall(0, "c1", "f"), evDelta(0, `{}`), evPartStop(0),
				evCall(1, "c2", "g"), evPartStop(1), evStop(mapping.StopToolUse), evEnd()},
		},
		{
			name: "escaped arguments are unescaped",
			body: role + first(0, "c", "f") + args(0, "{\"q\":\"a\\\"b\\nc\"}") + streamDone,
			want: []codec.Event{start, evCall(0, "c", "f"), evDelta(0, "{\"q\":\"a\\\"b\\nc\"}"), evPartStop(0), evEnd()},
		},
		{
			name: "fragment not an object",
			body: role + call(`1`),
			want: []codec.Event{start, streamBad("choices[0].delta.tool_calls[0] is not an object")},
		},
		{
			name: "index missing",
			body: role + call(`{"id":"c","function":{"name":"f"}}`),
			want: []codec.Event{start, streamBad("tool_calls[0].index is missing or not a number")},
		},
		{
			name: "id number",
			body: role + call(`{"index":0,"id":1}`),
			want: []codec.Event{start, streamBad("tool_calls[0].id is not a string")},
		},
		{
			name: "type custom",
			body: role + call(`{"index":0,"id":"c","type":"custom","custom":{"name":"f"}}`),
			want: []codec.Event{start, streamBad(`tool_calls[0] is a tool call of type "custom", which the client would have to run`)},
		},
		{
			name: "name number",
			body: role + call(`{"index":0,"id":"c","function":{"name":1}}`),
			want: []codec.Event{start, streamBad("tool_calls[0].function.name is not a string")},
		},
		{
			name: "arguments object",
			body: role + first(0, "c", "f") + call(`{"index":0,"function":{"arguments":{}}}`),
			want: []codec.Event{start, evCall(0, "c", "f"), streamBad("tool_calls[0].function.arguments is not a string")},
		},
		{
			name: "first fragment without name",
			body: role + call(`{"index":0,"id":"c","function":{"arguments":"{}"}}`),
			want: []codec.Event{start, streamBad("tool_calls[0] starts a tool call without a function name")},
		},
		{
			name: "interleaved fragments of an ended call",
			body: role + first(0, "a", "f") + first(1, "b", "g") + args(0, `{}`),
			want: []codec.Event{start, evCall(0, "a", "f"), evPartStop(0), evCall(1, "b", "g"),
				streamBad("starts a tool call without a function name, or continues one that has ended")},
		},
		{
			name: "call after finish_reason",
			body: role + finish("stop") + first(0, "c", "f"),
			want: []codec.Event{start, evStop(mapping.StopEnd), streamBad("tool_calls[0] after finish_reason")},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := decodeToolStream(t, tt.body, nil)
			codectest.CheckWellFormed(t, got)
			streamCompare(t, got, tt.want)
		})
	}
}

// streamToolEvents is a canonical stream with text, a call with
// argument fragments and a call without any, as another protocol's
// decoder produces it (a Gemini-style natural stop).
func streamToolEvents() []codec.Event {
	return []codec.Event{
		{Type: codec.EventStart, ID: "chatcmpl-tools", Model: "gpt-4o", Created: 1727346171},
		evPart(0, codec.PartText), evDelta(0, "Checking."), evPartStop(0),
		evCall(1, "call_1", "weather"), evDelta(1, `{"city":`), evDelta(1, ""), evDelta(1, `"Paris"}`), evPartStop(1),
		evCall(2, "call_2", "now"), evPartStop(2),
		evStop(mapping.StopEnd), evUsage(codec.Usage{Known: true, InputTokens: 30, OutputTokens: 12}), evEnd(),
	}
}

func TestChatStreamEncodeTools(t *testing.T) {
	req := &codec.Request{Model: "requested-model", Stream: true, StreamUsage: true}
	sse := codectest.EncodeStream(codec.OpenAIChat, req, streamToolEvents())
	checkStreamGolden(t, "tool_calls", sse)
	evs := decodeToolStream(t, sse, nil)
	codectest.CheckWellFormed(t, evs)
	want := []streamCall{{"call_1", "weather", `{"city":"Paris"}`}, {"call_2", "now", "{}"}}
	if got := streamCalls(t, evs); !codectest.EqualDecoded(got, want) {
		t.Errorf("calls = %+v, want %+v", got, want)
	}
	if s := codectest.Summarize(evs); s.Stop != mapping.StopToolUse || !s.Complete {
		t.Errorf("summary = %+v", s)
	}

	t.Run("a call first starts with content null; ids are made up when missing", func(t *testing.T) {
		out := codectest.EncodeStream(codec.OpenAIChat, nil, []codec.Event{evStart(), evCall(0, "", "f"), evDelta(0, "{}"), evPartStop(0),
			evStop(mapping.StopToolUse), evEnd()})
		if !strings.Contains(out, `"delta":{"role":"assistant","content":null,"refusal":null}`) {
			t.Errorf("role chunk:\n%s", out)
		}
		evs := decodeToolStream(t, out, nil)
		calls := streamCalls(t, evs)
		if len(calls) != 1 || !strings.HasPrefix(calls[0].id, "call_") || len(calls[0].id) != len("call_")+24 || calls[0].args != "{}" {
			t.Errorf("calls = %+v", calls)
		}
		if strings.Count(out, `"type":"function"`) != 1 || strings.Count(out, `"name":"f"`) != 1 {
			t.Errorf("id, type and name must be sent once:\n%s", out)
		}
	})
	t.Run("a max_tokens stop of calls stays length", func(t *testing.T) {
		out := codectest.EncodeStream(codec.OpenAIChat, nil, []codec.Event{evStart(), evCall(0, "c", "f"), evDelta(0, `{"a`),
			evStop(mapping.StopMaxTokens), evEnd()})
		if !strings.Contains(out, `"finish_reason":"length"`) {
			t.Errorf("got\n%s", out)
		}
	})
}

// TestChatAnnotationsRoundTrip checks that citations reach a Chat client
// as url_citation annotations with character indexes of the whole message
// content, streamed and not, and come back from a Chat upstream as the same
// byte offsets of the text (a whole-part citation, End -1, as its length).
func TestChatAnnotationsRoundTrip(t *testing.T) {
	text := "Grüße: Go 1.25 is out."
	resp := codec.Response{ID: "chatcmpl-1", Model: "m", StopReason: mapping.StopEnd, Content: []codec.Part{{Type: codec.PartText, Text: text,
		Citations: []codec.Citation{{URL: "https://go.dev", Title: "Go", Start: 9, End: 16}, {URL: "https://all", Start: 0, End: -1}}}}}
	want := []codec.Citation{{URL: "https://go.dev", Title: "Go", Start: 9, End: 16}, {URL: "https://all", Start: 0, End: len(text)}}

	body, err := codec.AppendResponse(nil, codec.OpenAIChat, &resp)
	if err != nil {
		t.Fatal(err)
	}
	if got := gjson.GetBytes(body, "choices.0.message.annotations.0.url_citation").Raw; got != `{"start_index":7,"end_index":14,"url":"https://go.dev","title":"Go"}` {
		t.Errorf("annotation: %s", got)
	}
	var back codec.Response
	if err := codec.DecodeResponse(codec.OpenAIChat, body, &back); err != nil {
		t.Fatal(err)
	}
	if got := back.Content[0].Citations; !codectest.EqualDecoded(got, want) {
		t.Errorf("decoded citations %+v, want %+v", got, want)
	}

	stream := codectest.EncodeStream(codec.OpenAIChat, &codec.Request{Model: "m", Stream: true}, codec.AppendResponseEvents(nil, &resp))
	if !strings.Contains(stream, `"delta":{"annotations":[{"type":"url_citation","url_citation":{"start_index":7,"end_index":14,"url":"https://go.dev","title":"Go"}},`+
		`{"type":"url_citation","url_citation":{"start_index":0,"end_index":22,"url":"https://all","title":""}}]}`) {
		t.Errorf("stream:\n%s", stream)
	}
	var cites []codec.Citation
	for _, ev := range codectest.DecodeStream(t, codec.OpenAIChat, stream, nil) {
		if ev.Type == codec.EventCitation {
			cites = append(cites, ev.Citation)
		}
	}
	if !codectest.EqualDecoded(cites, want) {
		t.Errorf("streamed citations %+v, want %+v", cites, want)
	}
}

// TestTextOffsets checks the conversions between byte offsets and
// character indexes of a streamed text against the text itself.
func TestTextOffsets(t *testing.T) {
	for _, deltas := range [][]string{{"plain ascii"}, {"ab", "cé", "ß€x", "", "yz"}, {"€"}, {}} {
		var o wire.TextOffsets
		text := strings.Join(deltas, "")
		for _, d := range deltas {
			o.Add(d)
		}
		if o.N != len(text) {
			t.Fatalf("%q: n = %d", text, o.N)
		}
		for n := -1; n <= utf8.RuneCountInString(text)+2; n++ {
			if got, want := o.ByteOffset(n), wire.ByteIndex(text, n); got != want {
				t.Errorf("%q: byteOffset(%d) = %d, want %d", text, n, got, want)
			}
		}
		for off := 0; off <= len(text); off++ {
			if off < len(text) && !utf8.RuneStart(text[off]) {
				continue // offsets inside a character are moved by citationSpan first
			}
			if got, want := o.CharIndex(off), wire.RuneIndex(text, off); got != want {
				t.Errorf("%q: charIndex(%d) = %d, want %d", text, off, got, want)
			}
		}
	}
}
