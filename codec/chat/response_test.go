package chat

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/codectest"
	"github.com/llmbridge/llmbridge/mapping"
	"github.com/tidwall/gjson"
)

// TestChatDecodeResponseRecordings decodes every non-streaming success body
// recorded from OpenAI: text-only ones must match here, tool calls are
// checked by TestChatDecodeResponseToolRecordings.
func TestChatDecodeResponseRecordings(t *testing.T) {
	type expectation struct {
		id, model, text string
		created         int64
		stop            codec.StopReason
		usage           codec.Usage
	}
	want := map[string]expectation{
		"gpt-4o-text.json": {
			id: "chatcmpl-DuLdCrhIZ5WekmJNOuiNyelYjQqZk", model: "gpt-4o-2024-08-06", created: 1782321890,
			text: "Oi!", stop: mapping.StopEnd,
			usage: codec.Usage{Known: true, InputTokens: 20, OutputTokens: 2},
		},
		"o3-mini-stop-sequence.json": {
			id: "chatcmpl-BfUgyreG4fpnDXvHKXtRkevWb6i3p", model: "o3-mini-2025-01-31", created: 1749229128,
			text: "The capital of France is ", stop: mapping.StopEnd,
			usage: codec.Usage{Known: true, InputTokens: 31, OutputTokens: 467, ReasoningTokens: 448},
		},
		"gpt-4o-tool-followup.json": {
			id: "chatcmpl-DuLdHv2zvb8aazm4Y6RlHu7gNpQs9", model: "gpt-4o-2024-08-06", created: 1782321895,
			text: "The weather in Florence, Italy is currently 40°C.", stop: mapping.StopEnd,
			usage: codec.Usage{Known: true, InputTokens: 86, OutputTokens: 13},
		},
		"gpt-5-image.json": {
			id: "chatcmpl-DIekbWt9VqYjHeIhwFtwNR0XOrx7l", model: "gpt-5-2025-08-07", created: 1773338921,
			text:  "A cute pastel star with a tiny face streaks across a purple background, leaving a pink-blue-green rainbow trail with sparkles.",
			stop:  mapping.StopEnd,
			usage: codec.Usage{Known: true, InputTokens: 232, OutputTokens: 163, ReasoningTokens: 128},
		},
	}
	codectest.SkipWithoutRecordings(t)
	files, err := filepath.Glob(filepath.Join(recordings, "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	for _, file := range files {
		name := filepath.Base(file)
		rec := recording(t, name)
		if rec.Get("stream").Bool() || rec.Get("response.status").Int() != 200 {
			continue
		}
		t.Run(name, func(t *testing.T) {
			var resp codec.Response
			err := codec.DecodeResponse(codec.OpenAIChat, []byte(rec.Get("response.body").Str), &resp)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(rec.Get("features").Raw, `"tool_call"`) {
				return
			}
			w, ok := want[name]
			if !ok {
				t.Fatalf("no expectation for %s", name)
			}
			seen++
			if resp.ID != w.id || resp.Model != w.model || resp.Created != w.created {
				t.Errorf("id/model/created = %q %q %d, want %q %q %d", resp.ID, resp.Model, resp.Created, w.id, w.model, w.created)
			}
			if len(resp.Content) != 1 || !codectest.EqualDecoded(resp.Content[0], text(w.text)) {
				t.Errorf("content = %+v, want one text part %q", resp.Content, w.text)
			}
			if resp.StopReason != w.stop {
				t.Errorf("stop = %v, want %v", resp.StopReason, w.stop)
			}
			if resp.Usage != w.usage {
				t.Errorf("usage = %+v, want %+v", resp.Usage, w.usage)
			}
		})
	}
	if seen != len(want) {
		t.Errorf("checked %d text recordings, want %d", seen, len(want))
	}
}

func TestChatDecodeResponse(t *testing.T) {
	wrap := func(message, finish, usage string) string {
		s := `{"id":"chatcmpl-1","object":"chat.completion","created":1700000000,"model":"gpt-4o",` +
			`"choices":[{"index":0,"message":` + message + `,"logprobs":null,"finish_reason":` + finish + `}]`
		if usage != "" {
			s += `,"usage":` + usage
		}
		return s + `}`
	}
	tests := []struct {
		name    string
		body    string
		content []codec.Part
		stop    codec.StopReason
		usage   codec.Usage
	}{
		{
			name:    "refusal with null content",
			body:    wrap(`{"role":"assistant","content":null,"refusal":"I can't help with that."}`, `"stop"`, ""),
			content: []codec.Part{chatRefusal("I can't help with that.")},
			stop:    mapping.StopRefusal,
		},
		{
			name:    "refusal with empty content",
			body:    wrap(`{"role":"assistant","content":"","refusal":"No."}`, `"stop"`, "null"),
			content: []codec.Part{chatRefusal("No.")},
			stop:    mapping.StopRefusal,
		},
		{
			name:    "refusal cut by the limit stays a limit",
			body:    wrap(`{"role":"assistant","content":null,"refusal":"I can"}`, `"length"`, ""),
			content: []codec.Part{chatRefusal("I can")},
			stop:    mapping.StopMaxTokens,
		},
		{
			name: "reasoning_content (DeepSeek) comes before the text, unsigned, with reasoning tokens",
			body: wrap(`{"role":"assistant","content":"4","reasoning_content":"2+2 is 4."}`, `"stop"`,
				`{"prompt_tokens":10,"completion_tokens":20,"total_tokens":30,"prompt_tokens_details":{"cached_tokens":8},"completion_tokens_details":{"reasoning_tokens":15}}`),
			content: []codec.Part{{Type: codec.PartReasoning, Text: "2+2 is 4."}, text("4")},
			stop:    mapping.StopEnd,
			usage:   codec.Usage{Known: true, InputTokens: 10, CacheReadTokens: 8, OutputTokens: 20, ReasoningTokens: 15},
		},
		{
			name: "DeepSeek's cache hits are cached tokens",
			body: wrap(`{"role":"assistant","content":"4"}`, `"stop"`,
				`{"prompt_tokens":100,"completion_tokens":20,"total_tokens":120,"prompt_cache_hit_tokens":64,"prompt_cache_miss_tokens":36,"completion_tokens_details":{"reasoning_tokens":15}}`),
			content: []codec.Part{text("4")},
			stop:    mapping.StopEnd,
			usage:   codec.Usage{Known: true, InputTokens: 100, CacheReadTokens: 64, OutputTokens: 20, ReasoningTokens: 15},
		},
		{
			name:    "reasoning (vLLM, OpenRouter) is the same",
			body:    wrap(`{"role":"assistant","content":"4","reasoning":"2+2 is 4.","reasoning_details":[{"type":"reasoning.text"}]}`, `"stop"`, ""),
			content: []codec.Part{{Type: codec.PartReasoning, Text: "2+2 is 4."}, text("4")},
			stop:    mapping.StopEnd,
		},
		{
			name:    "reasoning beside reasoning_content is not repeated",
			body:    wrap(`{"role":"assistant","content":"4","reasoning":"same","reasoning_content":"same"}`, `"stop"`, ""),
			content: []codec.Part{{Type: codec.PartReasoning, Text: "same"}, text("4")},
			stop:    mapping.StopEnd,
		},
		{
			name:    "empty and null reasoning are nothing",
			body:    wrap(`{"role":"assistant","content":"4","reasoning":null,"reasoning_content":""}`, `"stop"`, ""),
			content: []codec.Part{text("4")},
			stop:    mapping.StopEnd,
		},
		{
			name:    "reasoning before tool calls",
			body:    wrap(`{"role":"assistant","content":null,"reasoning_content":"call f","tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]}`, `"tool_calls"`, ""),
			content: []codec.Part{{Type: codec.PartReasoning, Text: "call f"}, call("c1", "f", "{}")},
			stop:    mapping.StopToolUse,
		},
		{
			name:    "empty answer cut by the limit",
			body:    wrap(`{"role":"assistant","content":""}`, `"length"`, `{"prompt_tokens":5,"completion_tokens":0,"total_tokens":5,"prompt_tokens_details":null}`),
			content: []codec.Part{text("")},
			stop:    mapping.StopMaxTokens,
			usage:   codec.Usage{Known: true, InputTokens: 5},
		},
		{
			name: "content filter with cached tokens",
			body: wrap(`{"role":"assistant","content":"Par","tool_calls":[],"function_call":null,"audio":null}`, `"content_filter"`,
				`{"prompt_tokens":1200,"completion_tokens":3,"total_tokens":1203,"prompt_tokens_details":{"cached_tokens":1024,"audio_tokens":0},"completion_tokens_details":{"reasoning_tokens":0}}`),
			content: []codec.Part{text("Par")},
			stop:    mapping.StopContentFilter,
			usage:   codec.Usage{Known: true, InputTokens: 1200, CacheReadTokens: 1024, OutputTokens: 3},
		},
		{
			name:    "null counters",
			body:    wrap(`{"role":"assistant","content":"x"}`, `"stop"`, `{"prompt_tokens":null,"completion_tokens":2,"completion_tokens_details":null}`),
			content: []codec.Part{text("x")},
			stop:    mapping.StopEnd,
			usage:   codec.Usage{Known: true, OutputTokens: 2},
		},
		{
			name:    "no finish reason",
			body:    wrap(`{"role":"assistant","content":"x"}`, `null`, ""),
			content: []codec.Part{text("x")},
			stop:    mapping.StopNone,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var resp codec.Response
			if err := codec.DecodeResponse(codec.OpenAIChat, []byte(tt.body), &resp); err != nil {
				t.Fatal(err)
			}
			if resp.ID != "chatcmpl-1" || resp.Model != "gpt-4o" || resp.Created != 1700000000 {
				t.Errorf("id/model/created = %q %q %d", resp.ID, resp.Model, resp.Created)
			}
			if !codectest.EqualDecoded(resp.Content, tt.content) || resp.StopReason != tt.stop || resp.Usage != tt.usage {
				t.Errorf("got %+v %v %+v, want %+v %v %+v", resp.Content, resp.StopReason, resp.Usage, tt.content, tt.stop, tt.usage)
			}
		})
	}
}

func TestChatDecodeResponseErrors(t *testing.T) {
	choice := func(message string) string {
		return `{"id":"c","choices":[{"index":0,"message":` + message + `,"finish_reason":"stop"}]}`
	}
	ok := `{"role":"assistant","content":"x"}`
	tests := []struct{ name, body, msg string }{
		{"not JSON", `{"id":`, "not valid JSON"},
		{"no choices", `{"id":"c","object":"chat.completion"}`, "choices is missing"},
		{"choices object", `{"choices":{}}`, "choices is missing"},
		{"choices empty", `{"choices":[]}`, "choices is empty"},
		{"choice not object", `{"choices":[1]}`, "choices[0] is not an object"},
		{"message missing", `{"choices":[{"index":0,"finish_reason":"stop"}]}`, "message is missing"},
		{"message string", choice(`"hi"`), "message is missing"},
		{"content number", choice(`{"role":"assistant","content":1}`), "content is not a string"},
		{"refusal number", choice(`{"role":"assistant","content":null,"refusal":1}`), "refusal is not a string"},
		{"reasoning_content number", choice(`{"role":"assistant","content":"x","reasoning_content":1}`), "reasoning_content is not a string"},
		{"prompt_cache_hit_tokens string", `{"choices":[{"message":` + ok + `}],"usage":{"prompt_cache_hit_tokens":"1"}}`, "usage.prompt_cache_hit_tokens is not a number"},
		{"reasoning object", choice(`{"role":"assistant","content":"x","reasoning":{}}`), "message.reasoning is not a string"},
		{"tool calls object", choice(`{"role":"assistant","content":null,"tool_calls":{}}`), "tool_calls is not an array"},
		{"tool call not object", choice(`{"role":"assistant","content":null,"tool_calls":[1]}`), "tool_calls[0] is not an object"},
		{"tool call id number", choice(`{"role":"assistant","content":null,"tool_calls":[{"id":1}]}`), "tool_calls[0].id is not a string"},
		{"tool call type number", choice(`{"role":"assistant","content":null,"tool_calls":[{"type":1}]}`), "tool_calls[0].type is not a string"},
		{"tool call name number", choice(`{"role":"assistant","content":null,"tool_calls":[{"function":{"name":1}}]}`), "tool_calls[0].function.name is not a string"},
		{"tool call arguments object", choice(`{"role":"assistant","content":null,"tool_calls":[{"function":{"arguments":{}}}]}`), "tool_calls[0].function.arguments is not a string"},
		{"tool call custom", choice(`{"role":"assistant","content":null,"tool_calls":[{"id":"c","type":"custom","custom":{}}]}`), `tool call of type "custom"`},
		{"tool call without id", choice(`{"role":"assistant","content":null,"tool_calls":[{"function":{"name":"f","arguments":"{}"}}]}`), "has no id or no function name"},
		{"tool call bad arguments", choice(`{"role":"assistant","content":null,"tool_calls":[{"id":"c","function":{"name":"f","arguments":"{"}}]}`), "arguments is not the text of a JSON object"},
		{"function call not an object", choice(`{"role":"assistant","content":null,"function_call":"f"}`), "function_call is not an object"},
		{"function call without name", choice(`{"role":"assistant","content":null,"function_call":{"arguments":"{}"}}`), "function_call has no name"},
		{"audio not an object", choice(`{"role":"assistant","content":null,"audio":"a"}`), "audio is not an object"},
		{"custom tool call", choice(`{"role":"assistant","content":null,"tool_calls":[{"id":"c","type":"custom","custom":{"name":"f","input":"x"}}]}`), "the client would have to run"},
		{"id number", `{"id":1,"choices":[{"message":` + ok + `}]}`, "id is not a string"},
		{"model number", `{"model":1,"choices":[{"message":` + ok + `}]}`, "model is not a string"},
		{"created string", `{"created":"now","choices":[{"message":` + ok + `}]}`, "created is not a number"},
		{"finish_reason number", `{"choices":[{"message":` + ok + `,"finish_reason":1}]}`, "finish_reason is not a string"},
		{"usage string", `{"choices":[{"message":` + ok + `}],"usage":"x"}`, "usage is not an object"},
		{"prompt_tokens string", `{"choices":[{"message":` + ok + `}],"usage":{"prompt_tokens":"1"}}`, "usage.prompt_tokens is not a number"},
		{"completion_tokens string", `{"choices":[{"message":` + ok + `}],"usage":{"completion_tokens":"1"}}`, "usage.completion_tokens is not a number"},
		{"details array", `{"choices":[{"message":` + ok + `}],"usage":{"prompt_tokens_details":[]}}`, "usage.prompt_tokens_details is not an object"},
		{"reasoning_tokens string", `{"choices":[{"message":` + ok + `}],"usage":{"completion_tokens_details":{"reasoning_tokens":"1"}}}`, "usage.completion_tokens_details.reasoning_tokens is not a number"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var resp codec.Response
			err := codec.DecodeResponse(codec.OpenAIChat, []byte(tt.body), &resp)
			var e *codec.Error
			if !errors.As(err, &e) {
				t.Fatalf("got %v, want an *Error", err)
			}
			if e.Status != 502 || e.Kind != mapping.ErrBadGateway || !strings.Contains(e.Message, tt.msg) {
				t.Errorf("got %d %v %q, want 502 containing %q", e.Status, e.Kind, e.Message, tt.msg)
			}
		})
	}
}

func TestChatAppendResponse(t *testing.T) {
	tests := []struct {
		name string
		resp codec.Response
	}{
		{
			name: "text",
			resp: codec.Response{
				ID: "chatcmpl-abc", Model: "gpt-4o-2024-08-06", Created: 1782321890,
				Content:    []codec.Part{text("Oi! "), text("Tudo bem?")},
				StopReason: mapping.StopEnd,
				Usage: codec.Usage{
					Known: true, InputTokens: 1220, CacheReadTokens: 1024, CacheWriteTokens: 100,
					OutputTokens: 40, ReasoningTokens: 12,
				},
			},
		},
		{
			name: "refusal",
			resp: codec.Response{
				ID: "msg_01", Model: "claude-sonnet-4-5", Created: 1700000000,
				Content:    []codec.Part{chatRefusal("I can't provide instructions for that request.")},
				StopReason: mapping.StopRefusal,
			},
		},
		{
			name: "length",
			resp: codec.Response{
				ID: "chatcmpl-len", Model: "gpt-4o", Created: 1700000001,
				Content:    []codec.Part{text("The list goes:\n1."), chatRefusal(" but not this.")},
				StopReason: mapping.StopMaxTokens,
				Usage:      codec.Usage{Known: true, InputTokens: 10, OutputTokens: 16},
			},
		},
		{
			name: "empty",
			resp: codec.Response{ID: "chatcmpl-empty", Model: "gpt-4o", Created: 1700000002, StopReason: mapping.StopContentFilter},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := codec.AppendResponse(nil, codec.OpenAIChat, &tt.resp)
			if err != nil {
				t.Fatal(err)
			}
			codectest.CheckGolden(t, "openai-chat/response_"+tt.name+".json", out)
		})
	}
}

// TestChatAppendResponseDefaults checks the id and timestamp made up for an
// upstream that gave none.
func TestChatAppendResponseDefaults(t *testing.T) {
	before := time.Now().Unix()
	out, err := codec.AppendResponse(nil, codec.OpenAIChat, &codec.Response{Model: "m", Content: []codec.Part{text("x")}})
	if err != nil {
		t.Fatal(err)
	}
	root := gjson.ParseBytes(out)
	if id := root.Get("id").Str; !strings.HasPrefix(id, "chatcmpl-") || len(id) != len("chatcmpl-")+24 {
		t.Errorf("id = %q, want chatcmpl- and 24 hex digits", id)
	}
	if c := root.Get("created").Int(); c < before || c > time.Now().Unix() {
		t.Errorf("created = %d, want about %d", c, before)
	}
	if root.Get("usage").Exists() {
		t.Errorf("usage written although unknown: %s", out)
	}
}

func TestChatAppendResponseError(t *testing.T) {
	_, err := codec.AppendResponse(nil, codec.OpenAIChat, &codec.Response{Content: []codec.Part{text("x"), {Type: 200}}})
	var e *codec.Error
	if !errors.As(err, &e) || e.Status != 502 || e.Param != "content[1]" {
		t.Errorf("got %v, want a 502 about content[1]", err)
	}
}

// TestChatResponseRoundTrip decodes each text recording, encodes it and
// decodes it again: nothing may change.
func TestChatResponseRoundTrip(t *testing.T) {
	for _, name := range []string{"gpt-4o-text.json", "o3-mini-stop-sequence.json", "gpt-5-image.json"} {
		t.Run(name, func(t *testing.T) {
			rec := recording(t, name)
			var first, second codec.Response
			if err := codec.DecodeResponse(codec.OpenAIChat, []byte(rec.Get("response.body").Str), &first); err != nil {
				t.Fatal(err)
			}
			out, err := codec.AppendResponse(nil, codec.OpenAIChat, &first)
			if err != nil {
				t.Fatal(err)
			}
			if err := codec.DecodeResponse(codec.OpenAIChat, out, &second); err != nil {
				t.Fatal(err)
			}
			if !codectest.EqualDecoded(first, second) {
				t.Errorf("round trip changed the response:\nfirst  %+v\nsecond %+v", first, second)
			}
		})
	}
	rec := recording(t, "gpt-4o-text.json")
	var resp codec.Response
	if err := codec.DecodeResponse(codec.OpenAIChat, []byte(rec.Get("response.body").Str), &resp); err != nil {
		t.Fatal(err)
	}
	out, _ := codec.AppendResponse(nil, codec.OpenAIChat, &resp)
	codectest.CheckGolden(t, "openai-chat/response_gpt-4o-text_roundtrip.json", out)
}

func BenchmarkChatAppendResponse(b *testing.B) {
	resp := codec.Response{
		ID: "chatcmpl-DuLdCrhIZ5WekmJNOuiNyelYjQqZk", Model: "gpt-4o-2024-08-06", Created: 1782321890,
		Content: []codec.Part{text(strings.Repeat("A reasonably long answer, with \"quotes\" and a newline.\n", 20))},
		Usage:   codec.Usage{Known: true, InputTokens: 1200, CacheReadTokens: 1024, OutputTokens: 300, ReasoningTokens: 64},
	}
	b.ReportAllocs()
	var dst []byte
	var err error
	for b.Loop() {
		if dst, err = codec.AppendResponse(dst[:0], codec.OpenAIChat, &resp); err != nil {
			b.Fatal(err)
		}
	}
	b.SetBytes(int64(len(dst)))
}
