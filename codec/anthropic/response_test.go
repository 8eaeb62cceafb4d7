package anthropic

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/codectest"
	"github.com/llmbridge/llmbridge/mapping"
	"github.com/tidwall/gjson"
)

// TestAnthropicDecodeRecordedResponses decodes recorded Anthropic
// responses.
func TestAnthropicDecodeRecordedResponses(t *testing.T) {
	codectest.SkipWithoutRecordings(t)
	tests := []struct {
		file      string
		id, model string
		text      string // the whole text, or its start when it ends in "..."
		stop      codec.StopReason
		stopSeq   string
		usage     codec.Usage
	}{
		{
			file: "anthropic-messages/claude-sonnet-4-text.json",
			id:   "msg_01KrnBffuzxt8ttHq7iiZe7n", model: "claude-sonnet-4-20250514",
			text:  "Olá! \n\n(That's \"hello\" in Portuguese. You could also say \"Oi!\" for a more casual \"hi!\")",
			stop:  mapping.StopEnd,
			usage: codec.Usage{Known: true, InputTokens: 16, OutputTokens: 34},
		},
		{
			file: "anthropic-messages/claude-sonnet-4-5-cache-read.json",
			id:   "msg_01KPaKTJSqAKoZri7Ujrny58", model: "claude-sonnet-4-5-20250929",
			text:  "Python is a beginner-friendly, versatile programming language...",
			stop:  mapping.StopEnd,
			usage: codec.Usage{Known: true, InputTokens: 3 + 418 + 1111, CacheWriteTokens: 418, CacheReadTokens: 1111, OutputTokens: 33},
		},
		{
			file: "anthropic-messages/claude-sonnet-4-5-cache-write.json",
			id:   "msg_01UUPT9QdZnZSRzcQJkjG25U", model: "claude-sonnet-4-5-20250929",
			text:  "# What is Python?\n\nPython is a high-level...",
			stop:  mapping.StopEnd,
			usage: codec.Usage{Known: true, InputTokens: 3 + 1111, CacheReadTokens: 1111, OutputTokens: 406},
		},
		{
			file: "anthropic-messages/claude-sonnet-4-5-stop-sequence.json",
			id:   "msg_01376yZQxHcw9pER2Ab2SvQb", model: "claude-sonnet-4-5-20250929",
			text:    "The beautiful city of ",
			stop:    mapping.StopSequence,
			stopSeq: "Paris",
			usage:   codec.Usage{Known: true, InputTokens: 32, OutputTokens: 5},
		},
		{
			file: "anthropic-messages/claude-sonnet-4-image.json",
			id:   "msg_01NusK7N3cvXsHRya8jx1NDU", model: "claude-sonnet-4-20250514",
			text:  "This image shows a simple, minimalist design...",
			stop:  mapping.StopEnd,
			usage: codec.Usage{Known: true, InputTokens: 27, OutputTokens: 65},
		},
		{
			file: "anthropic-messages/claude-sonnet-4-tool-followup.json",
			id:   "msg_01Eo6XiNE3nm8rTR4yBWaEAg", model: "claude-sonnet-4-20250514",
			text:  "The current weather in Florence, Italy is 40°C (104°F)...",
			stop:  mapping.StopEnd,
			usage: codec.Usage{Known: true, InputTokens: 475, OutputTokens: 50},
		},
		{
			file: "vertex-anthropic/claude-3-7-sonnet-text.json",
			id:   "msg_vrtx_011eLZnjY8pFUmGNwLPxrGHH", model: "claude-3-7-sonnet-20250219",
			text:  "Olá! Como posso ajudar você hoje?",
			stop:  mapping.StopEnd,
			usage: codec.Usage{Known: true, InputTokens: 16, OutputTokens: 16},
		},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			rec := codectest.ReadRecording(t, tt.file)
			p := codec.Protocol(rec.Get("protocol").Str)
			var resp codec.Response
			if err := codec.DecodeResponse(p, []byte(rec.Get("response.body").Str), &resp); err != nil {
				t.Fatalf("DecodeResponse: %v", err)
			}
			if resp.ID != tt.id || resp.Model != tt.model || resp.Created != 0 {
				t.Errorf("id %q model %q created %d, want %q %q 0", resp.ID, resp.Model, resp.Created, tt.id, tt.model)
			}
			if len(resp.Content) != 1 || resp.Content[0].Type != codec.PartText {
				t.Fatalf("content %+v, want one text part", resp.Content)
			}
			got := resp.Content[0].Text
			if start, ok := strings.CutSuffix(tt.text, "..."); ok {
				if !strings.HasPrefix(got, start) {
					t.Errorf("text %q does not start with %q", got, start)
				}
			} else if got != tt.text {
				t.Errorf("text %q, want %q", got, tt.text)
			}
			if resp.StopReason != tt.stop || resp.StopSequence != tt.stopSeq {
				t.Errorf("stop %v %q, want %v %q", resp.StopReason, resp.StopSequence, tt.stop, tt.stopSeq)
			}
			if resp.Usage != tt.usage {
				t.Errorf("usage %+v, want %+v", resp.Usage, tt.usage)
			}
		})
	}
}

// TestAnthropicDecodeAllRecordedResponses runs every non-streamed recording
// through the decoder: text and tool call answers decode, thinking and error
// bodies are rejected as bad upstream answers.
func TestAnthropicDecodeAllRecordedResponses(t *testing.T) {
	codectest.SkipWithoutRecordings(t)
	n := 0
	for _, dir := range []string{"anthropic-messages", "vertex-anthropic"} {
		files, err := filepath.Glob(filepath.Join(codectest.RecordingsDir, dir, "*.json"))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			rec := codectest.ReadRecording(t, filepath.Join(dir, filepath.Base(f)))
			if rec.Get("stream").Bool() {
				continue
			}
			n++
			features := rec.Get("features").Raw
			outOfScope := strings.Contains(features, `"thinking"`) || strings.Contains(features, `"error"`)
			var resp codec.Response
			err := codec.DecodeResponse(codec.Protocol(dir), []byte(rec.Get("response.body").Str), &resp)
			switch {
			case outOfScope && err == nil:
				t.Errorf("%s: decoded a response that is out of scope: %+v", f, resp)
			case outOfScope:
				if e := asError(t, err); e.Status != 502 {
					t.Errorf("%s: status %d, want 502", f, e.Status)
				}
			case err != nil:
				t.Errorf("%s: %v", f, err)
			case len(resp.Content) == 0 || !resp.Usage.Known || resp.StopReason == mapping.StopNone:
				t.Errorf("%s: incomplete response %+v", f, resp)
			}
		}
	}
	if n < 7 {
		t.Errorf("only %d non-streamed recordings found", n)
	}
}

func TestAnthropicDecodeResponse(t *testing.T) {
	tests := []struct {
		name string
		body string
		want codec.Response
	}{
		{
			name: "several blocks and thinking usage",
			body: `{"id":"msg_1","type":"message","role":"assistant","model":"claude-opus-4-6",
				"content":[{"type":"text","text":"a","citations":null},{"type":"text","text":"b","citations":[]}],
				"stop_reason":"max_tokens","stop_sequence":null,"stop_details":null,"container":null,
				"usage":{"input_tokens":10,"cache_creation_input_tokens":null,"cache_read_input_tokens":5,
					"output_tokens":100,"output_tokens_details":{"thinking_tokens":60},"service_tier":"standard"}}`,
			want: codec.Response{
				ID: "msg_1", Model: "claude-opus-4-6",
				Content:    []codec.Part{{Type: codec.PartText, Text: "a"}, {Type: codec.PartText, Text: "b"}},
				StopReason: mapping.StopMaxTokens,
				Usage:      codec.Usage{Known: true, InputTokens: 15, CacheReadTokens: 5, OutputTokens: 100, ReasoningTokens: 60},
			},
		},
		{
			name: "no usage, unknown stop reason, empty content",
			body: `{"type":"message","content":[],"stop_reason":"something_new","output_tokens_details":null}`,
			want: codec.Response{StopReason: mapping.StopOther},
		},
		{
			name: "refusal and null details",
			body: `{"type":"message","id":"msg_2","role":"assistant","content":[{"type":"text","text":"I can't."}],
				"stop_reason":"refusal","usage":{"input_tokens":1,"output_tokens":2,"output_tokens_details":null}}`,
			want: codec.Response{
				ID:         "msg_2",
				Content:    []codec.Part{{Type: codec.PartText, Text: "I can't."}},
				StopReason: mapping.StopRefusal,
				Usage:      codec.Usage{Known: true, InputTokens: 1, OutputTokens: 2},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var resp codec.Response
			if err := codec.DecodeResponse(codec.AnthropicMessages, []byte(tt.body), &resp); err != nil {
				t.Fatalf("DecodeResponse: %v", err)
			}
			if !codectest.EqualDecoded(resp, tt.want) {
				t.Errorf("got  %+v\nwant %+v", resp, tt.want)
			}
		})
	}
}

func TestAnthropicDecodeResponseErrors(t *testing.T) {
	const ok = `"type":"message","content":[{"type":"text","text":"x"}]`
	tests := []struct {
		name    string
		body    string
		message string
	}{
		{"not json", `{"type":`, "not valid JSON"},
		{"error body", `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`, `type is not "message"`},
		{"type missing", `{"content":[]}`, `type is not "message"`},
		{"type wrong type", `{"type":1,"content":[]}`, `type is not "message"`},
		{"role", `{` + ok + `,"role":"user"}`, `role is not "assistant"`},
		{"role wrong type", `{` + ok + `,"role":1}`, `role is not "assistant"`},
		{"id wrong type", `{` + ok + `,"id":1}`, "id is not a string"},
		{"model wrong type", `{` + ok + `,"model":{}}`, "model is not a string"},
		{"stop_reason wrong type", `{` + ok + `,"stop_reason":1}`, "stop_reason is not a string"},
		{"stop_sequence wrong type", `{` + ok + `,"stop_sequence":[]}`, "stop_sequence is not a string"},
		{"content missing", `{"type":"message"}`, "content is not an array"},
		{"content wrong type", `{"type":"message","content":"x"}`, "content is not an array"},
		{"block wrong type", `{"type":"message","content":["x"]}`, "content block is not an object"},
		{"block type missing", `{"type":"message","content":[{"text":"x"}]}`, "content block has no type"},
		{"tool_use without id", `{"type":"message","content":[{"type":"tool_use","name":"f","input":{}}]}`, "tool_use block lacks its id, name or input object"},
		{"tool_use without name", `{"type":"message","content":[{"type":"tool_use","id":"toolu_1","name":"","input":{}}]}`, "tool_use block lacks"},
		{"tool_use input not an object", `{"type":"message","content":[{"type":"tool_use","id":"toolu_1","name":"f","input":[]}]}`, "tool_use block lacks"},
		{"thinking text wrong type", `{"type":"message","content":[{"type":"thinking","thinking":1,"signature":"s"}]}`, "thinking block thinking or signature is not a string"},
		{"thinking signature wrong type", `{"type":"message","content":[{"type":"thinking","thinking":"x","signature":[]}]}`, "thinking block thinking or signature is not a string"},
		{"redacted_thinking without data", `{"type":"message","content":[{"type":"redacted_thinking"}]}`, "redacted_thinking block has no data"},
		{"redacted_thinking data wrong type", `{"type":"message","content":[{"type":"redacted_thinking","data":5}]}`, "redacted_thinking block has no data"},
		{"stop_details wrong type", `{` + ok + `,"stop_reason":"refusal","stop_details":"no"}`, "stop_details is not an object"},
		{"stop_details category wrong type", `{` + ok + `,"stop_reason":"refusal","stop_details":{"type":"refusal","category":1}}`, "stop_details.category is not a string"},
		{"stop_details explanation wrong type", `{` + ok + `,"stop_reason":"refusal","stop_details":{"explanation":{}}}`, "stop_details.explanation is not a string"},
		{"text missing", `{"type":"message","content":[{"type":"text"}]}`, "text block has no text"},
		{"usage wrong type", `{` + ok + `,"usage":[]}`, "usage is not an object"},
		{"usage counter wrong type", `{` + ok + `,"usage":{"input_tokens":"1"}}`, "usage.input_tokens is not a token count"},
		{"usage counter negative", `{` + ok + `,"usage":{"output_tokens":-1}}`, "usage.output_tokens"},
		{"usage counter fraction", `{` + ok + `,"usage":{"cache_read_input_tokens":1.5}}`, "usage.cache_read_input_tokens"},
		{"usage cache write wrong type", `{` + ok + `,"usage":{"cache_creation_input_tokens":true}}`, "usage.cache_creation_input_tokens"},
		{"usage details wrong type", `{` + ok + `,"usage":{"output_tokens_details":1}}`, "usage.output_tokens_details is not an object"},
		{"usage thinking wrong type", `{` + ok + `,"usage":{"output_tokens_details":{"thinking_tokens":"x"}}}`, "thinking_tokens"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var resp codec.Response
			err := codec.DecodeResponse(codec.VertexAnthropic, []byte(tt.body), &resp)
			if err == nil {
				t.Fatalf("DecodeResponse succeeded: %+v", resp)
			}
			e := asError(t, err)
			if e.Status != 502 || e.Kind != mapping.ErrBadGateway {
				t.Errorf("status %d kind %v, want 502 bad gateway", e.Status, e.Kind)
			}
			if !strings.Contains(e.Message, tt.message) {
				t.Errorf("message %q does not contain %q", e.Message, tt.message)
			}
		})
	}
}

func TestAnthropicAppendResponse(t *testing.T) {
	tests := []struct {
		name string
		resp codec.Response
	}{
		{
			name: "text",
			resp: codec.Response{
				ID: "msg_01KrnBffuzxt8ttHq7iiZe7n", Model: "claude-sonnet-4-20250514", Created: 1700000000,
				Content: []codec.Part{
					{Type: codec.PartText, Text: "Olá!"},
					{Type: codec.PartText, Text: ""},
					{Type: codec.PartText, Text: "Line \"two\"\n"},
				},
				StopReason: mapping.StopEnd,
				Usage:      codec.Usage{Known: true, InputTokens: 1532, CacheWriteTokens: 418, CacheReadTokens: 1111, OutputTokens: 33, ReasoningTokens: 10},
			},
		},
		{
			name: "stop sequence",
			resp: codec.Response{
				ID: "msg_01376yZQxHcw9pER2Ab2SvQb", Model: "claude-sonnet-4-5-20250929",
				Content:    []codec.Part{{Type: codec.PartText, Text: "The beautiful city of "}},
				StopReason: mapping.StopSequence, StopSequence: "Paris",
				Usage: codec.Usage{Known: true, InputTokens: 32, OutputTokens: 5},
			},
		},
		{
			name: "refusal without usage",
			resp: codec.Response{
				ID: "chatcmpl-1", Model: "gpt-4o",
				Content:    []codec.Part{{Type: codec.PartRefusal, Text: "I'm sorry, I can't help with that."}},
				StopReason: mapping.StopContentFilter,
			},
		},
		{
			name: "empty",
			resp: codec.Response{ID: "msg_empty", Model: "m", StopReason: mapping.StopMaxTokens},
		},
		{
			name: "tool calls",
			resp: codec.Response{
				ID: "chatcmpl-tools", Model: "gpt-4o-2024-08-06",
				Content: []codec.Part{
					{Type: codec.PartText, Text: "Checking."},
					{Type: codec.PartToolCall, ToolCallID: "call_abc", ToolName: "get_weather", Arguments: `{"city":"Paris \"FR\""}`},
					{Type: codec.PartToolCall, ToolCallID: "call_def", ToolName: "get_time"},
				},
				StopReason: mapping.StopToolUse,
				Usage:      codec.Usage{Known: true, InputTokens: 80, OutputTokens: 30},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := codec.AppendResponse([]byte("prefix"), codec.AnthropicMessages, &tt.resp)
			if err != nil {
				t.Fatalf("AppendResponse: %v", err)
			}
			codectest.CheckGolden(t, "anthropic-messages/response_"+strings.ReplaceAll(tt.name, " ", "_")+".json", out[len("prefix"):])
		})
	}
}

func TestAnthropicAppendResponseID(t *testing.T) {
	resp := codec.Response{Model: "m", Content: []codec.Part{{Text: "hi"}}}
	out, err := codec.AppendResponse(nil, codec.VertexAnthropic, &resp)
	if err != nil {
		t.Fatal(err)
	}
	id := gjson.GetBytes(out, "id").Str
	if !strings.HasPrefix(id, "msg_") || len(id) != len("msg_")+24 {
		t.Errorf("generated id %q, want msg_ and 24 hex digits", id)
	}
	if u := gjson.GetBytes(out, "usage"); u.Raw != `{"input_tokens":0,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":0}` {
		t.Errorf("usage %s, want zeros", u.Raw)
	}
}

func TestAnthropicAppendResponseError(t *testing.T) {
	for _, part := range []codec.Part{
		{Type: codec.PartType(200)},
		{Type: codec.PartToolCall, ToolCallID: "call_1"},                                            // no name
		{Type: codec.PartToolCall, ToolCallID: "call_1", ToolName: "f", Arguments: "[1]"},           // not an object
		{Type: codec.PartToolResult, ToolCallID: "call_1", Content: []codec.Part{{Text: "result"}}}, // not output
	} {
		resp := codec.Response{Content: []codec.Part{{Text: "a"}, part}}
		out, err := codec.AppendResponse([]byte("keep"), codec.AnthropicMessages, &resp)
		if err == nil {
			t.Fatalf("AppendResponse succeeded: %s", out)
		}
		if e := asError(t, err); e.Status != 502 || e.Kind != mapping.ErrBadGateway || !strings.Contains(e.Message, part.Type.String()) {
			t.Errorf("got %d %v %q, want 502 bad gateway naming %s", e.Status, e.Kind, e.Message, part.Type)
		}
		if string(out) != "keep" {
			t.Errorf("dst = %q after an error, want it unchanged", out)
		}
	}
}

// TestAnthropicAppendResponseToolCallID checks that a tool call without an
// id gets a toolu_ one: Anthropic clients answer calls by id.
func TestAnthropicAppendResponseToolCallID(t *testing.T) {
	resp := codec.Response{Model: "m", Content: []codec.Part{{Type: codec.PartToolCall, ToolName: "f", Arguments: " {} "}}, StopReason: mapping.StopToolUse}
	out, err := codec.AppendResponse(nil, codec.AnthropicMessages, &resp)
	if err != nil {
		t.Fatal(err)
	}
	block := gjson.GetBytes(out, "content.0")
	if id := block.Get("id").Str; !strings.HasPrefix(id, "toolu_") || block.Get("input").Raw != "{}" || block.Get("name").Str != "f" {
		t.Errorf("block %s", block.Raw)
	}
	if resp.Content[0].ToolCallID != "" {
		t.Errorf("the response was modified: %+v", resp.Content[0])
	}
}

// TestAnthropicDecodeRecordedToolResponses checks the tool calls of the
// recorded responses exactly.
func TestAnthropicDecodeRecordedToolResponses(t *testing.T) {
	codectest.SkipWithoutRecordings(t)
	call := func(id, name, args string) codec.Part {
		return codec.Part{Type: codec.PartToolCall, ToolCallID: id, ToolName: name, Arguments: args}
	}
	tests := []struct {
		file    string
		content []codec.Part
	}{
		{"anthropic-messages/claude-sonnet-4-tool-call.json", []codec.Part{
			{Type: codec.PartText, Text: "I'll check the weather in Florence, Italy for you."},
			call("toolu_01XLb9pzgfLa2EMyqWot6Ezt", "weather", `{"location":"Florence,Italy"}`),
		}},
		{"anthropic-messages/claude-haiku-4-5-parallel-tools.json", []codec.Part{
			{Type: codec.PartText, Text: "I'll help you find out who is the youngest by retrieving information about each family member. I'll retrieve their entity information to compare their ages."},
			call("toolu_0167cfEnoQaPviGdVXA95zcu", "retrieve_entity_info", `{"name":"Alice"}`),
			call("toolu_01EEe2V5HD1Ac4rKiUR4HD2T", "retrieve_entity_info", `{"name":"Bob"}`),
			call("toolu_01XFyAjstT3966qvRynZyVPo", "retrieve_entity_info", `{"name":"Charlie"}`),
			call("toolu_013mnQZbgtK2oe3Mo3XKJsx3", "retrieve_entity_info", `{"name":"Daisy"}`),
		}},
		{"vertex-anthropic/claude-3-7-sonnet-forced-tool-simple.json", []codec.Part{
			call("toolu_vrtx_01HXsVRoRan74amQY6F2y8iC", "Person", `{"name":"Alice","age":30,"city":"Paris"}`),
		}},
		{"vertex-anthropic/claude-3-7-sonnet-forced-tool-complex.json", []codec.Part{
			call("toolu_vrtx_01X2tYiztpv1AS2L4tpgEbEn", "Book", `{"title":"The Lord of the Rings","author":{"name":"J.R.R. Tolkien","nationality":"British"},"genres":["Fantasy","Adventure","Epic"],"published_year":1954}`),
		}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			rec := codectest.ReadRecording(t, tt.file)
			var resp codec.Response
			if err := codec.DecodeResponse(codec.Protocol(rec.Get("protocol").Str), []byte(rec.Get("response.body").Str), &resp); err != nil {
				t.Fatal(err)
			}
			if !codectest.EqualDecoded(resp.Content, tt.content) || resp.StopReason != mapping.StopToolUse {
				t.Errorf("content %+v stop %v\nwant %+v", resp.Content, resp.StopReason, tt.content)
			}
		})
	}
}

// TestAnthropicResponseRoundTrip decodes each recorded text answer, encodes
// it and decodes the result again: nothing may change.
func TestAnthropicResponseRoundTrip(t *testing.T) {
	codectest.SkipWithoutRecordings(t)
	for _, file := range []string{
		"anthropic-messages/claude-sonnet-4-text.json",
		"anthropic-messages/claude-sonnet-4-5-cache-read.json",
		"anthropic-messages/claude-sonnet-4-5-stop-sequence.json",
		"vertex-anthropic/claude-3-7-sonnet-text.json",
		"anthropic-messages/claude-sonnet-4-tool-call.json",
		"anthropic-messages/claude-haiku-4-5-parallel-tools.json",
		"vertex-anthropic/claude-3-7-sonnet-forced-tool-complex.json",
	} {
		rec := codectest.ReadRecording(t, file)
		p := codec.Protocol(rec.Get("protocol").Str)
		var first, second codec.Response
		if err := codec.DecodeResponse(p, []byte(rec.Get("response.body").Str), &first); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		out, err := codec.AppendResponse(nil, p, &first)
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		if err := codec.DecodeResponse(p, out, &second); err != nil {
			t.Fatalf("%s: decoding %s: %v", file, out, err)
		}
		if !codectest.EqualDecoded(first, second) {
			t.Errorf("%s: round trip changed the response:\n got %+v\nwant %+v", file, second, first)
		}
	}
}
