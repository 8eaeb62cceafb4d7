package chat

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/codectest"
	"github.com/llmbridge/llmbridge/mapping"
)

// streamChunk builds one upstream chunk event with the given delta and
// finish_reason (raw JSON), as OpenAI writes them.
func streamChunk(delta, finish string) string {
	return `data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1700000000,"model":"gpt-4o",` +
		`"choices":[{"index":0,"delta":` + delta + `,"logprobs":null,"finish_reason":` + finish + `}]}` + "\n\n"
}

// streamUsageChunk is the include_usage chunk.
const streamUsageChunk = `data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1700000000,"model":"gpt-4o",` +
	`"choices":[],"usage":{"prompt_tokens":10,"completion_tokens":5,"total_tokens":15,` +
	`"prompt_tokens_details":{"cached_tokens":4,"audio_tokens":0},"completion_tokens_details":{"reasoning_tokens":2}}}` + "\n\n"

var streamUsage = codec.Usage{Known: true, InputTokens: 10, OutputTokens: 5, CacheReadTokens: 4, ReasoningTokens: 2}

const streamDone = "data: [DONE]\n\n"

// Canonical event shorthands.
func evStart() codec.Event {
	return codec.Event{Type: codec.EventStart, ID: "chatcmpl-1", Model: "gpt-4o", Created: 1700000000}
}

func evPart(i int, kind codec.PartType) codec.Event {
	return codec.Event{Type: codec.EventPartStart, Index: i, Part: kind}
}

func evDelta(i int, text string) codec.Event {
	return codec.Event{Type: codec.EventPartDelta, Index: i, Text: text}
}

func evPartStop(i int) codec.Event { return codec.Event{Type: codec.EventPartStop, Index: i} }

func evStop(r codec.StopReason) codec.Event {
	return codec.Event{Type: codec.EventStop, StopReason: r}
}

func evUsage(u codec.Usage) codec.Event { return codec.Event{Type: codec.EventUsage, Usage: u} }

func evEnd() codec.Event { return codec.Event{Type: codec.EventEnd} }

// evErr is an expected error: Status and Kind must match, Message must
// be contained in the actual message, Code and Param must match when set.
func evErr(status int, kind mapping.ErrorKind, msg string) codec.Event {
	return codec.Event{Type: codec.EventError, Err: &codec.Error{Status: status, Kind: kind, Message: msg}}
}

// streamBad is the expected error for an upstream chunk that is not
// valid Chat.
func streamBad(msg string) codec.Event { return evErr(502, mapping.ErrBadGateway, msg) }

// streamCompare fails unless got equals want, comparing errors as
// evErr describes.
func streamCompare(t *testing.T, got, want []codec.Event) {
	t.Helper()
	if len(got) == len(want) {
		same := true
		for i := range got {
			g, w := got[i], want[i]
			if w.Type == codec.EventError && g.Type == codec.EventError && g.Err != nil {
				we, ge := w.Err, g.Err
				if ge.Status != we.Status || ge.Kind != we.Kind || !strings.Contains(ge.Message, we.Message) ||
					(we.Code != "" && ge.Code != we.Code) || (we.Param != "" && ge.Param != we.Param) {
					same = false
				}
				continue
			}
			if !codectest.EqualDecoded(g, w) {
				same = false
			}
		}
		if same {
			return
		}
	}
	t.Errorf("events differ\n got: %s\nwant: %s", streamFormat(got), streamFormat(want))
}

// streamFormat prints events one per line for failure messages.
func streamFormat(evs []codec.Event) string {
	var b strings.Builder
	for _, ev := range evs {
		b.WriteString("\n  ")
		b.WriteString(ev.Type.String())
		switch ev.Type {
		case codec.EventStart:
			b.WriteString(" " + ev.ID + " " + ev.Model)
		case codec.EventPartStart, codec.EventPartDelta, codec.EventPartStop:
			b.WriteString(" " + strconv.Itoa(ev.Index))
			if ev.Type == codec.EventPartStart && ev.Part == codec.PartRefusal {
				b.WriteString(" refusal")
			}
			if ev.Text != "" {
				b.WriteString(" " + ev.Text)
			}
		case codec.EventStop:
			b.WriteString(" " + ev.StopReason.String())
		case codec.EventError:
			if ev.Err != nil {
				b.WriteString(" " + ev.Err.Error())
			}
		}
	}
	return b.String()
}

// TestChatStreamDecode covers every kind of upstream event: what each one
// becomes, what is ignored, and what ends the stream with an error.
func TestChatStreamDecode(t *testing.T) {
	role := streamChunk(`{"role":"assistant","content":"","refusal":null}`, "null")
	content := func(s string) string { return streamChunk(`{"content":`+s+`}`, "null") }
	refusal := func(s string) string { return streamChunk(`{"refusal":`+s+`}`, "null") }
	finish := func(r string) string { return streamChunk(`{}`, `"`+r+`"`) }
	start := evStart()
	tests := []struct {
		name string
		body string
		want []codec.Event
	}{
		{
			name: "text with finish and usage",
			body: role + content(`"Hello"`) + content(`" world\n"`) + finish("stop") + streamUsageChunk + streamDone,
			want: []codec.Event{start, evPart(0, codec.PartText), evDelta(0, "Hello"), evDelta(0, " world\n"),
				evPartStop(0), evStop(mapping.StopEnd), evUsage(streamUsage), evEnd()},
		},
		{
			name: "refusal stream as OpenAI sends it",
			body: streamChunk(`{"role":"assistant","content":null,"refusal":""}`, "null") +
				refusal(`"I'm"`) + refusal(`" sorry."`) + finish("stop") + streamDone,
			want: []codec.Event{start, evPart(0, codec.PartRefusal), evDelta(0, "I'm"), evDelta(0, " sorry."),
				evPartStop(0), evStop(mapping.StopRefusal), evEnd()},
		},
		{
			name: "text then refusal then text are three parts",
			body: role + content(`"a"`) + refusal(`"b"`) + refusal(`"c"`) + content(`"d"`) + finish("stop") + streamDone,
			want: []codec.Event{start, evPart(0, codec.PartText), evDelta(0, "a"), evPartStop(0),
				evPart(1, codec.PartRefusal), evDelta(1, "b"), evDelta(1, "c"), evPartStop(1),
				evPart(2, codec.PartText), evDelta(2, "d"), evPartStop(2), evStop(mapping.StopRefusal), evEnd()},
		},
		{
			name: "reasoning, content and refusal in one delta, in a fixed order whatever the key order",
			body: streamChunk(`{"refusal":"r","content":"c","reasoning_content":"t"}`, "null") + streamDone,
			want: []codec.Event{start, evPart(0, codec.PartReasoning), evDelta(0, "t"), evPartStop(0),
				evPart(1, codec.PartText), evDelta(1, "c"), evPartStop(1),
				evPart(2, codec.PartRefusal), evDelta(2, "r"), evPartStop(2), evEnd()},
		},
		{
			name: "length",
			body: role + content(`"{\""`) + finish("length") + streamDone,
			want: []codec.Event{start, evPart(0, codec.PartText), evDelta(0, `{"`), evPartStop(0),
				evStop(mapping.StopMaxTokens), evEnd()},
		},
		{
			name: "content_filter",
			body: role + finish("content_filter") + streamDone,
			want: []codec.Event{start, evStop(mapping.StopContentFilter), evEnd()},
		},
		{
			name: "unknown finish reason",
			body: role + finish("brand_new") + streamDone,
			want: []codec.Event{start, evStop(mapping.StopOther), evEnd()},
		},
		{
			name: "last text and finish reason in one chunk, usage in the same chunk",
			body: role + `data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1700000000,"model":"gpt-4o",` +
				`"choices":[{"index":0,"delta":{"content":"end"},"finish_reason":"stop"}],` +
				`"usage":{"prompt_tokens":10,"completion_tokens":5,"total_tokens":15,"prompt_tokens_details":{"cached_tokens":4},` +
				`"completion_tokens_details":{"reasoning_tokens":2}}}` + "\n\n" + streamDone,
			want: []codec.Event{start, evPart(0, codec.PartText), evDelta(0, "end"), evPartStop(0),
				evStop(mapping.StopEnd), evUsage(streamUsage), evEnd()},
		},
		{
			name: "usage null on every chunk (2025 include_usage), obfuscation and unknown fields ignored",
			body: `data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1700000000,"model":"gpt-4o","service_tier":"default",` +
				`"system_fingerprint":"fp_1","choices":[{"index":0,"delta":{"role":"assistant","content":"Hi","new_field":1},` +
				`"logprobs":null,"finish_reason":null,"other":{}}],"usage":null,"obfuscation":"a\"b","brand_new":[1]}` + "\n\n" +
				streamDone,
			want: []codec.Event{start, evPart(0, codec.PartText), evDelta(0, "Hi"), evPartStop(0), evEnd()},
		},
		{
			name: "usage repeated unchanged is reported once, a changed one again",
			body: role + streamUsageChunk + streamUsageChunk +
				`data: {"id":"chatcmpl-1","choices":[],"usage":{"prompt_tokens":10,"completion_tokens":6}}` + "\n\n" + streamDone,
			want: []codec.Event{start, evUsage(streamUsage),
				evUsage(codec.Usage{Known: true, InputTokens: 10, OutputTokens: 6}), evEnd()},
		},
		{
			name: "usage-only chunk without choices",
			body: role + `data: {"id":"chatcmpl-1","usage":{"prompt_tokens":1,"completion_tokens":2}}` + "\n\n" + streamDone,
			want: []codec.Event{start, evUsage(codec.Usage{Known: true, InputTokens: 1, OutputTokens: 2}), evEnd()},
		},
		{
			name: "repeated finish reason is reported once; empty finish reason is none",
			body: role + content(`"x"`) + streamChunk(`{}`, `""`) + finish("stop") + finish("length") + streamDone,
			want: []codec.Event{start, evPart(0, codec.PartText), evDelta(0, "x"), evPartStop(0),
				evStop(mapping.StopEnd), evEnd()},
		},
		{
			name: "[DONE] without a finish reason still ends the stream, closing the part",
			body: role + content(`"x"`) + streamDone,
			want: []codec.Event{start, evPart(0, codec.PartText), evDelta(0, "x"), evPartStop(0), evEnd()},
		},
		{
			name: "empty and null content, role-only and empty deltas produce nothing",
			body: streamChunk(`{"role":"assistant"}`, "null") + content(`""`) + content(`null`) + refusal(`""`) +
				refusal(`null`) + streamChunk(`{}`, "null") + streamChunk(`null`, "null") + streamDone,
			want: []codec.Event{start, evEnd()},
		},
		{
			name: "escapes are unescaped",
			body: role + content(`"line\nbreak \"q\" \u00e9 \ud83d\ude00 \\ \/"`) + streamDone,
			want: []codec.Event{start, evPart(0, codec.PartText), evDelta(0, "line\nbreak \"q\" é 😀 \\ /"), evPartStop(0), evEnd()},
		},
		{
			name: "keys with escapes are read",
			body: role + `data: {"id":"chatcmpl-1","\u0063hoices":[{"index":0,"delta":{"cont\u0065nt":"x"},"finish\u005freason":"stop"}]}` + "\n\n" + streamDone,
			want: []codec.Event{start, evPart(0, codec.PartText), evDelta(0, "x"), evPartStop(0), evStop(mapping.StopEnd), evEnd()},
		},
		{
			name: "tool calls as an object",
			body: role + streamChunk(`{"tool_calls":{"index":0}}`, "null"),
			want: []codec.Event{start, streamBad("choices[0].delta.tool_calls is not an array")},
		},
		{
			name: "tool calls as [ ] with spaces are none",
			body: role + streamChunk(`{"tool_calls":[ ],"content":"x"}`, "null") + streamDone,
			want: []codec.Event{start, evPart(0, codec.PartText), evDelta(0, "x"), evPartStop(0), evEnd()},
		},
		{
			name: "reasoning_content (DeepSeek) is a reasoning part before the text",
			body: streamChunk(`{"role":"assistant","content":null,"reasoning_content":""}`, "null") +
				streamChunk(`{"content":null,"reasoning_content":"Let me "}`, "null") +
				streamChunk(`{"content":null,"reasoning_content":"think."}`, "null") +
				streamChunk(`{"content":"Answer","reasoning_content":null}`, "null") + finish("stop") + streamDone,
			want: []codec.Event{start, evPart(0, codec.PartReasoning), evDelta(0, "Let me "), evDelta(0, "think."), evPartStop(0),
				evPart(1, codec.PartText), evDelta(1, "Answer"), evPartStop(1), evStop(mapping.StopEnd), evEnd()},
		},
		{
			name: "reasoning (vLLM, OpenRouter) is the same; sent beside reasoning_content it is not repeated",
			body: role + streamChunk(`{"reasoning":"think"}`, "null") +
				streamChunk(`{"reasoning":" more","reasoning_content":" more"}`, "null") +
				streamChunk(`{"reasoning_content":"","reasoning":" again"}`, "null") +
				streamChunk(`{"reasoning_details":[{"type":"reasoning.text"}]}`, "null") + content(`"answer"`) + finish("stop") + streamDone,
			want: []codec.Event{start, evPart(0, codec.PartReasoning), evDelta(0, "think"), evDelta(0, " more"), evDelta(0, " again"),
				evPartStop(0), evPart(1, codec.PartText), evDelta(1, "answer"), evPartStop(1), evStop(mapping.StopEnd), evEnd()},
		},
		{
			name: "reasoning before tool calls is closed by the first call",
			body: role + streamChunk(`{"reasoning_content":"call it"}`, "null") +
				streamChunk(`{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"f","arguments":"{}"}}]}`, "null") +
				finish("tool_calls") + streamDone,
			want: []codec.Event{start, evPart(0, codec.PartReasoning), evDelta(0, "call it"), evPartStop(0),
				{Type: codec.EventPartStart, Index: 1, Part: codec.PartToolCall, ToolCallID: "call_1", ToolName: "f"}, evDelta(1, "{}"), evPartStop(1),
				evStop(mapping.StopToolUse), evEnd()},
		},
		{
			name: "text then refusal ends as a refusal; a length stop stays one",
			body: role + content(`"a"`) + refusal(`"b"`) + finish("length") + streamDone,
			want: []codec.Event{start, evPart(0, codec.PartText), evDelta(0, "a"), evPartStop(0),
				evPart(1, codec.PartRefusal), evDelta(1, "b"), evPartStop(1), evStop(mapping.StopMaxTokens), evEnd()},
		},
		{
			name: "null and empty tool calls, function_call, audio, annotations and images are nothing",
			body: streamChunk(`{"role":"assistant","content":null,"tool_calls":null,"function_call":null,"audio":null,"annotations":[],"images":null}`, "null") +
				streamChunk(`{"tool_calls":[],"annotations":null,"images":[]}`, "null") + streamDone,
			want: []codec.Event{start, evEnd()},
		},
		{
			name: "comments, unnamed and message events are read; other named events are ignored",
			body: ": keep-alive\n\n" + "event: message\n" + role + "event: ping\ndata: {}\n\n" +
				"event: future\ndata: not json\n\n" + content(`"x"`) + streamDone,
			want: []codec.Event{start, evPart(0, codec.PartText), evDelta(0, "x"), evPartStop(0), evEnd()},
		},
		{
			name: "a chunk split over several data: lines, CRLF framing, padded JSON",
			body: "data: {\"id\":\"chatcmpl-1\",\r\ndata:   \"object\":\"chat.completion.chunk\",\"created\":1700000000,\r\n" +
				"data: \"model\":\"gpt-4o\", \"choices\" : [ { \"index\" : 0 , \"delta\" : { \"content\" : \"x\" } } ] }\r\n\r\n" +
				"data:  [DONE] \r\n\r\n",
			want: []codec.Event{start, evPart(0, codec.PartText), evDelta(0, "x"), evPartStop(0), evEnd()},
		},
		{
			name: "a stream without final blank line still ends at [DONE]",
			body: role + content(`"x"`) + "data: [DONE]\n",
			want: []codec.Event{start, evPart(0, codec.PartText), evDelta(0, "x"), evPartStop(0), evEnd()},
		},
		{
			name: "nothing after [DONE] counts",
			body: role + streamDone + content(`"late"`) + "data: not json\n\n",
			want: []codec.Event{start, evEnd()},
		},
		{
			// Azure's first chunk names nothing; the stream starts with the
			// chunk that names the response.
			name: "start without id, model or created (Azure's first chunk)",
			body: `data: {"choices":[],"created":0,"id":"","model":"","object":"","prompt_filter_results":[]}` + "\n\n" + content(`"x"`) + streamDone,
			want: []codec.Event{start, evPart(0, codec.PartText), evDelta(0, "x"), evPartStop(0), evEnd()},
		},

		// Upstream errors.
		{
			name: "error chunk mid-stream",
			body: role + content(`"x"`) + `data: {"error":{"message":"The server had an error","type":"server_error","param":null,"code":null}}` + "\n\n",
			want: []codec.Event{start, evPart(0, codec.PartText), evDelta(0, "x"),
				{Type: codec.EventError, Err: &codec.Error{Status: 500, Kind: mapping.ErrAPI, Message: "The server had an error", Protocol: codec.OpenAIChat}}},
		},
		{
			name: "error chunk first",
			body: `data: {"error":{"message":"Rate limit reached","type":"requests","param":null,"code":"rate_limit_exceeded"}}` + "\n\n",
			want: []codec.Event{{Type: codec.EventError, Err: &codec.Error{Status: 429, Kind: mapping.ErrRateLimit, Message: "Rate limit reached",
				Code: "rate_limit_exceeded", Protocol: codec.OpenAIChat}}},
		},
		{
			name: "error type alone gives the kind",
			body: `data: {"error":{"message":"bad","type":"invalid_request_error","param":"messages","code":null}}` + "\n\n",
			want: []codec.Event{{Type: codec.EventError, Err: &codec.Error{Status: 400, Kind: mapping.ErrInvalidRequest, Message: "bad",
				Param: "messages", Protocol: codec.OpenAIChat}}},
		},
		{
			name: "HTTP status as code (compatible servers)",
			body: role + `data: {"error":{"message":"overloaded","code":503}}` + "\n\n",
			want: []codec.Event{start, {Type: codec.EventError, Err: &codec.Error{Status: 503, Kind: mapping.ErrOverloaded, Message: "overloaded",
				Code: "503", Protocol: codec.OpenAIChat}}},
		},
		{
			name: "error as a string, error without message",
			body: `data: {"error":"boom"}` + "\n\n",
			want: []codec.Event{{Type: codec.EventError, Err: &codec.Error{Status: 500, Kind: mapping.ErrAPI, Message: "boom", Protocol: codec.OpenAIChat}}},
		},
		{
			name: "error object without message",
			body: `data: {"error":{"code":"server_error"}}` + "\n\n",
			want: []codec.Event{{Type: codec.EventError, Err: &codec.Error{Status: 500, Kind: mapping.ErrAPI, Code: "server_error",
				Message: "upstream openai-chat stream reported an error without a message", Protocol: codec.OpenAIChat}}},
		},
		{
			name: "event named error, wrapped or not",
			body: role + "event: error\ndata: {\"message\":\"gone\",\"type\":\"server_error\"}\n\n",
			want: []codec.Event{start, {Type: codec.EventError, Err: &codec.Error{Status: 500, Kind: mapping.ErrAPI, Message: "gone", Protocol: codec.OpenAIChat}}},
		},
		{
			name: "event named error, wrapped",
			body: "event: error\ndata: {\"error\":{\"message\":\"slow down\",\"code\":\"rate_limit_exceeded\"}}\n\n",
			want: []codec.Event{{Type: codec.EventError, Err: &codec.Error{Status: 429, Kind: mapping.ErrRateLimit, Message: "slow down",
				Code: "rate_limit_exceeded", Protocol: codec.OpenAIChat}}},
		},
		{
			name: "event named error that is not JSON",
			body: "event: error\ndata: oops\n\n",
			want: []codec.Event{streamBad("error event is not valid JSON")},
		},
		{
			name: "bare JSON error block",
			body: role + "{\n  \"error\": {\"message\": \"proxy failed\", \"type\": \"server_error\"}\n}\n\n",
			want: []codec.Event{start, {Type: codec.EventError, Err: &codec.Error{Status: 500, Kind: mapping.ErrAPI, Message: "proxy failed", Protocol: codec.OpenAIChat}}},
		},
		{
			name: "bare block that is no error",
			body: role + "{\"id\":\"x\"}\n\n",
			want: []codec.Event{start, streamBad("block that is not a data: event")},
		},
		{
			name: "error: null beside a chunk is no error",
			body: `data: {"id":"chatcmpl-1","model":"gpt-4o","created":1700000000,"error":null,"choices":[]}` + "\n\n" + streamDone,
			want: []codec.Event{start, evEnd()},
		},

		// Output beyond text and tool calls.
		{
			// A legacy function_call is a tool call whose id stands
			// in for the one it lacks.
			name: "function call",
			body: role + streamChunk(`{"function_call":{"name":"f","arguments":""}}`, "null") +
				streamChunk(`{"function_call":{"arguments":"{\"a\":"}}`, "null") +
				streamChunk(`{"function_call":{"arguments":"1}"}}`, `"function_call"`) + streamDone,
			want: []codec.Event{start, {Type: codec.EventPartStart, Index: 0, Part: codec.PartToolCall, ToolCallID: "call_chatcmpl-1", ToolName: "f"},
				evDelta(0, `{"a":`), evDelta(0, "1}"), evPartStop(0), evStop(mapping.StopToolUse), evEnd()},
		},
		{
			// The transcript is the answer, the id state that comes
			// last, the sound dropped and reported once.
			name: "audio",
			body: role + streamChunk(`{"audio":{"id":"audio_1","transcript":"Hel"}}`, "null") +
				streamChunk(`{"audio":{"transcript":"lo.","data":"UklGR"}}`, "null") +
				streamChunk(`{"audio":{"data":"UklGR"}}`, "null") +
				streamChunk(`{}`, `"stop"`) + streamDone,
			want: []codec.Event{start, evPart(0, codec.PartText), evDelta(0, "Hel"), {Type: codec.EventDropped, Text: "audio"}, evDelta(0, "lo."),
				evPartStop(0), {Type: codec.EventPartStart, Index: 1, Part: codec.PartReasoning, Redacted: true},
				{Type: codec.EventPartStop, Index: 1, Signature: `{"audio":{"id":"audio_1"}}`, Origin: mapping.FamilyOpenAIChat},
				evStop(mapping.StopEnd), evEnd()},
		},
		{
			// Search models cite after the text, counting characters
			// of the whole content; the citations become byte offsets
			// of the text part. Citations without a URL, other
			// annotation kinds and annotations with no text part open
			// are left out.
			name: "annotations",
			body: role + streamChunk(`{"annotations":[{"type":"url_citation","url_citation":{"url":"https://x"}}]}`, "null") +
				content(`"Grüße: "`) + content(`"Go 1.25 is out."`) +
				streamChunk(`{"annotations":[{"type":"url_citation","url_citation":{"start_index":7,"end_index":14,"url":"https://go.dev","title":"Go"}},`+
					`{"type":"url_citation","url_citation":{"start_index":0,"end_index":99,"url":"https://all"}},`+
					`{"type":"file_citation","file_citation":{}},{"type":"url_citation","url_citation":{"start_index":1}}]}`, "null") +
				streamChunk(`{}`, `"stop"`) + streamDone,
			want: []codec.Event{start, evPart(0, codec.PartText), evDelta(0, "Grüße: "), evDelta(0, "Go 1.25 is out."),
				{Type: codec.EventCitation, Index: 0, Citation: codec.Citation{URL: "https://go.dev", Title: "Go", Start: 9, End: 16}},
				{Type: codec.EventCitation, Index: 0, Citation: codec.Citation{URL: "https://all", Start: 0, End: 24}},
				evPartStop(0), evStop(mapping.StopEnd), evEnd()},
		},
		{
			name: "images",
			body: role + content(`"Here it is."`) + streamChunk(`{"images":[{"type":"image_url"}]}`, "null") + streamChunk(`{}`, `"stop"`) + streamDone,
			want: []codec.Event{start, evPart(0, codec.PartText), evDelta(0, "Here it is."), {Type: codec.EventDropped, Text: "images"},
				evPartStop(0), evStop(mapping.StopEnd), evEnd()},
		},
		{
			name: "a second choice (n>1)",
			body: role + `data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1700000000,"model":"gpt-4o",` +
				`"choices":[{"index":1,"delta":{"content":"x"},"finish_reason":null}]}` + "\n\n",
			want: []codec.Event{start, streamBad("only choice 0 can be translated, got index 1")},
		},

		// Invalid upstream data.
		{name: "not JSON", body: "data: {\"id\":\n\n", want: []codec.Event{streamBad("stream event is not valid JSON")}},
		{name: "not JSON mid-stream", body: role + "data: hello\n\n", want: []codec.Event{start, streamBad("not valid JSON")}},
		{name: "JSON array", body: "data: [1,2]\n\n", want: []codec.Event{streamBad("stream event is not a JSON object")}},
		{name: "empty data", body: "data:\n\n", want: []codec.Event{streamBad("not valid JSON")}},
		{
			name: "another protocol's event",
			body: "data: {\"type\":\"response.created\",\"response\":{}}\n\n",
			want: []codec.Event{streamBad("not a chat.completion.chunk")},
		},
		{name: "choices not an array", body: `data: {"choices":{}}` + "\n\n", want: []codec.Event{streamBad("choices is missing or not an array")}},
		{name: "choice not an object", body: `data: {"choices":[1]}` + "\n\n", want: []codec.Event{{Type: codec.EventStart}, streamBad("choices[] is not an object")}},
		{name: "delta not an object", body: `data: {"choices":[{"delta":"x"}]}` + "\n\n", want: []codec.Event{{Type: codec.EventStart}, streamBad("delta is not an object")}},
		{name: "content not a string", body: role + content(`["x"]`), want: []codec.Event{start, streamBad("delta.content is not a string")}},
		{name: "refusal not a string", body: role + refusal(`1`), want: []codec.Event{start, streamBad("delta.refusal is not a string")}},
		{name: "reasoning_content not a string", body: role + streamChunk(`{"reasoning_content":{}}`, "null"), want: []codec.Event{start, streamBad("delta.reasoning_content is not a string")}},
		{name: "reasoning not a string", body: role + streamChunk(`{"reasoning_content":null,"reasoning":true}`, "null"), want: []codec.Event{start, streamBad("delta.reasoning is not a string")}},
		{name: "reasoning after finish_reason", body: role + finish("stop") + streamChunk(`{"reasoning":"late"}`, "null"),
			want: []codec.Event{start, evStop(mapping.StopEnd), streamBad("delta.reasoning after finish_reason")}},
		{name: "finish_reason not a string", body: streamChunk(`{}`, `1`), want: []codec.Event{start, streamBad("finish_reason is not a string")}},
		{name: "index not a number", body: `data: {"choices":[{"index":"0"}]}` + "\n\n", want: []codec.Event{{Type: codec.EventStart}, streamBad(`got index "0"`)}},
		{
			name: "content after the finish reason",
			body: role + finish("stop") + content(`"more"`),
			want: []codec.Event{start, evStop(mapping.StopEnd), streamBad("delta.content after finish_reason")},
		},
		{
			name: "usage not an object",
			body: role + `data: {"choices":[],"usage":3}` + "\n\n",
			want: []codec.Event{start, streamBad("usage is not an object")},
		},
		{name: "id not a string", body: `data: {"id":1,"choices":[]}` + "\n\n", want: []codec.Event{streamBad("id is not a string")}},
		{name: "model not a string", body: `data: {"model":1,"choices":[]}` + "\n\n", want: []codec.Event{streamBad("model is not a string")}},
		{name: "created not a number", body: `data: {"created":"now","choices":[]}` + "\n\n", want: []codec.Event{streamBad("created is not a number")}},
		{name: "[DONE] before any chunk", body: streamDone, want: []codec.Event{streamBad("[DONE] before any chunk")}},

		// Streams that end early.
		{name: "empty body", body: "", want: []codec.Event{streamBad("ended before it was complete")}},
		{name: "only comments", body: ": hi\n\n", want: []codec.Event{streamBad("ended before it was complete")}},
		{
			name: "finish and usage but no [DONE]",
			body: role + content(`"x"`) + finish("stop") + streamUsageChunk,
			want: []codec.Event{start, evPart(0, codec.PartText), evDelta(0, "x"), evPartStop(0), evStop(mapping.StopEnd),
				evUsage(streamUsage), streamBad("ended before it was complete")},
		},
		{
			name: "cut in the middle of a line",
			body: role + content(`"x"`) + `data: {"id":"chatcmpl-1","choi`,
			want: []codec.Event{start, evPart(0, codec.PartText), evDelta(0, "x"), streamBad("broke off before it was complete")},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := codectest.DecodeStream(t, codec.OpenAIChat, tt.body, nil)
			codectest.CheckWellFormed(t, got)
			streamCompare(t, got, tt.want)
		})
	}
}

// TestChatStreamDecodeBrokenConnection: a cause makes the end an error
// unless the stream had completed.
func TestChatStreamDecodeBrokenConnection(t *testing.T) {
	body := streamChunk(`{"role":"assistant","content":""}`, "null") + streamChunk(`{"content":"x"}`, "null")
	got := codectest.DecodeStream(t, codec.OpenAIChat, body, codectest.ErrTestBroken)
	codectest.CheckWellFormed(t, got)
	streamCompare(t, got, []codec.Event{evStart(), evPart(0, codec.PartText), evDelta(0, "x"),
		streamBad("upstream openai-chat stream broke off before it was complete")})

	got = codectest.DecodeStream(t, codec.OpenAIChat, body+streamChunk(`{}`, `"stop"`), codectest.ErrTestBroken)
	if s := codectest.Summarize(got); s.Complete || s.Err == nil || s.Stop != mapping.StopEnd {
		t.Errorf("a finish reason without [DONE] is not complete: %+v", s)
	}

	got = codectest.DecodeStream(t, codec.OpenAIChat, body+streamDone, codectest.ErrTestBroken)
	codectest.CheckWellFormed(t, got)
	if s := codectest.Summarize(got); !s.Complete || s.Err != nil {
		t.Errorf("a cause after [DONE] must not matter: %+v", s)
	}

	// Decode and Close append nothing after a terminal event.
	dec := newStreamDecoder()
	out := dec.Decode(nil, nil, []byte("not json"), false)
	if len(out) != 1 || out[0].Type != codec.EventError {
		t.Fatalf("got %+v", out)
	}
	if out = dec.Decode(out[:0], nil, []byte(`{"choices":[]}`), false); len(out) != 0 {
		t.Errorf("Decode after error: %+v", out)
	}
	if out = dec.Close(out[:0], codectest.ErrTestBroken); len(out) != 0 {
		t.Errorf("Close after error: %+v", out)
	}
}

// TestChatStreamDecodeErrorOwnsStrings: the error outlives the event data
// it was decoded from, so its strings must not alias it.
func TestChatStreamDecodeErrorOwnsStrings(t *testing.T) {
	data := []byte(`{"error":{"message":"boom","type":"server_error","param":"p","code":"c"}}`)
	out := newStreamDecoder().Decode(nil, nil, data, false)
	for i := range data {
		data[i] = 'X'
	}
	if e := out[0].Err; e.Message != "boom" || e.Param != "p" || e.Code != "c" {
		t.Errorf("error changed with its data: %+v", e)
	}
}

// streamRecordings lists the streamed recordings, skipping the test
// when they are absent.
func streamRecordings(t *testing.T) []string {
	t.Helper()
	codectest.SkipWithoutRecordings(t)
	files, err := filepath.Glob(filepath.Join(recordings, "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range files {
		name := filepath.Base(f)
		if recording(t, name).Get("stream").Bool() {
			names = append(names, name)
		}
	}
	return names
}

// streamOracle folds a recorded Chat stream with encoding/json, as an
// independent check of the decoder's text.
func streamOracle(t *testing.T, body string) (text, refusal string) {
	t.Helper()
	for _, line := range strings.Split(body, "\n") {
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok || data == "[DONE]" {
			continue
		}
		var chunk struct {
			Choices []struct {
				Delta struct {
					Content *string `json:"content"`
					Refusal *string `json:"refusal"`
				} `json:"delta"`
			} `json:"choices"`
		}
		if err := json.Unmarshal([]byte(data), &chunk); err != nil {
			t.Fatal(err)
		}
		for _, c := range chunk.Choices {
			if c.Delta.Content != nil {
				text += *c.Delta.Content
			}
			if c.Delta.Refusal != nil {
				refusal += *c.Delta.Refusal
			}
		}
	}
	return text, refusal
}

// TestChatStreamRecordings replays every streamed Chat recording.
func TestChatStreamRecordings(t *testing.T) {
	type expectation struct {
		id, text, refusal string
		stop              codec.StopReason
		usage             codec.Usage
		err               string // the recording uses a feature not translated yet
	}
	const model = "gpt-4o-2024-08-06"
	want := map[string]expectation{
		"gpt-4.1-nano-text-stream-reframed.json": {
			id: "chatcmpl-D8Z5oo6uDh67AD85p73ksdT1KxhE0", stop: mapping.StopEnd,
			usage: codec.Usage{Known: true, InputTokens: 16, OutputTokens: 300},
		},
		"gpt-4o-2024-08-06-length-stream.json": {
			id: "chatcmpl-ABfw3Oqj8RD0z6aJiiX37oTjV2HFh", text: `{"`, stop: mapping.StopMaxTokens,
			usage: codec.Usage{Known: true, InputTokens: 79, OutputTokens: 1},
		},
		"gpt-4o-2024-08-06-refusal-stream.json": {
			id: "chatcmpl-ABfw4IfQfCCrcuybFm41wJyxjbkz7", refusal: "I'm sorry, I can't assist with that request.",
			stop: mapping.StopRefusal, usage: codec.Usage{Known: true, InputTokens: 79, OutputTokens: 11},
		},
		"gpt-4o-parallel-tools-followup-stream.json": {
			id: "chatcmpl-DuLdNvsdmTNPbya2tqjr8GbYubTqm", text: "The sum of 2 and 3 is 5, and the product is 6.",
			stop: mapping.StopEnd, usage: codec.Usage{Known: true, InputTokens: 172, OutputTokens: 20},
		},
		"gpt-4o-text-stream.json": {
			id: "chatcmpl-DuLdCoxuLDs8HRMlOuz0Bi4wgi4XJ", text: "Olá!", stop: mapping.StopEnd,
			usage: codec.Usage{Known: true, InputTokens: 20, OutputTokens: 2},
		},
		"gpt-4o-2024-08-06-parallel-tools-stream.json": {id: "chatcmpl-ABfwAwrNePHUgBBezonVC6MX3zd63", stop: mapping.StopToolUse},
		"gpt-4o-parallel-tools-stream.json":            {id: "chatcmpl-DuLdMEdkw5VsZSxKY3i9G934hT7LM", stop: mapping.StopToolUse},
		"gpt-4o-tool-call-stream.json":                 {id: "chatcmpl-DuLdInI48CUMPbcraGuxW2KFhK3CM", stop: mapping.StopToolUse},
	}
	names := streamRecordings(t)
	if len(names) != len(want) {
		t.Errorf("found %d streamed recordings %v, want %d", len(names), names, len(want))
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			w, ok := want[name]
			if !ok {
				t.Fatalf("no expectation for %s", name)
			}
			rec := recording(t, name)
			body := rec.Get("response.body").Str
			evs := codectest.DecodeStream(t, codec.OpenAIChat, body, nil)
			codectest.CheckWellFormed(t, evs)
			s := codectest.Summarize(evs)
			wantModel := model
			if strings.HasPrefix(name, "gpt-4.1-nano") {
				wantModel = "gpt-4.1-nano-2025-04-14"
			}
			if s.ID != w.id || s.Model != wantModel {
				t.Errorf("id/model = %q %q, want %q %q", s.ID, s.Model, w.id, wantModel)
			}
			if w.err != "" {
				if s.Err == nil || s.Err.Status != 502 || s.Err.Kind != mapping.ErrBadGateway ||
					!strings.Contains(s.Err.Message, w.err+", which cannot be translated yet") || s.Complete {
					t.Errorf("got %+v, want a 502 about %s", s, w.err)
				}
				return
			}
			if s.Err != nil || !s.Complete {
				t.Fatalf("stream failed: %v", s.Err)
			}
			if s.Stop == mapping.StopToolUse {
				return // TestChatStreamToolRecordings checks the calls
			}
			oracleText, oracleRefusal := streamOracle(t, body)
			if s.Text != oracleText || s.Refusal != oracleRefusal {
				t.Errorf("text/refusal differ from encoding/json's reading:\n got %q %q\nwant %q %q", s.Text, s.Refusal, oracleText, oracleRefusal)
			}
			if name == "gpt-4.1-nano-text-stream-reframed.json" {
				if utf8.RuneCountInString(s.Text) != 1724 || !strings.HasPrefix(s.Text, "**Holiday Name:** Harmony Day\n\n**Date:**") ||
					!strings.HasSuffix(s.Text, " respect.") {
					t.Errorf("text = %q", s.Text)
				}
			} else if s.Text != w.text {
				t.Errorf("text = %q, want %q", s.Text, w.text)
			}
			if s.Refusal != w.refusal || s.Stop != w.stop || s.Usage != w.usage {
				t.Errorf("refusal/stop/usage = %q %v %+v, want %q %v %+v", s.Refusal, s.Stop, s.Usage, w.refusal, w.stop, w.usage)
			}
		})
	}
}

// TestChatStreamTruncation cuts the recordings (and a hand-written stream)
// after every event, and the short ones at every byte: the result is always
// well formed, and complete only when [DONE] was read.
func TestChatStreamTruncation(t *testing.T) {
	bodies := map[string]string{
		"hand-written": streamChunk(`{"role":"assistant","content":null,"refusal":""}`, "null") +
			streamChunk(`{"refusal":"no"}`, "null") + streamChunk(`{"content":"yes"}`, "null") +
			streamChunk(`{}`, `"stop"`) + streamUsageChunk + streamDone,
	}
	if _, err := os.Stat(recordings); err == nil {
		for _, name := range streamRecordings(t) {
			bodies[name] = recording(t, name).Get("response.body").Str
		}
	}
	for name, body := range bodies {
		t.Run(name, func(t *testing.T) {
			// A stream that fails whole (tool calls) never completes.
			canComplete := codectest.Summarize(codectest.DecodeStream(t, codec.OpenAIChat, body, nil)).Complete
			var cuts []int
			if len(body) < 2000 {
				for i := 0; i <= len(body); i++ {
					cuts = append(cuts, i)
				}
			} else {
				// After a line, just before its end and in its middle, for
				// every line of the short streams and about 100 lines of
				// the long one (each cut decodes the whole prefix).
				stride := 1 + strings.Count(body, "\n")/100
				cuts = append(cuts, 0, len(body)-1)
				lineStart, line := 0, 0
				for i := 0; i < len(body); i++ {
					if body[i] == '\n' {
						if line%stride == 0 {
							cuts = append(cuts, i+1, i, (lineStart+i)/2)
						}
						lineStart = i + 1
						line++
					}
				}
			}
			for _, cut := range cuts {
				prefix := body[:cut]
				for _, cause := range []error{nil, codectest.ErrTestBroken} {
					evs := codectest.DecodeStream(t, codec.OpenAIChat, prefix, cause)
					codectest.CheckWellFormed(t, evs)
					s := codectest.Summarize(evs)
					done := canComplete && strings.Contains(prefix, "data: [DONE]\n")
					if s.Complete != done {
						t.Fatalf("cut at %d (cause %v): complete = %v, want %v; %+v", cut, cause, s.Complete, done, s.Err)
					}
					if !done && s.Err == nil {
						t.Fatalf("cut at %d: no error", cut)
					}
				}
			}
		})
	}
}
