package anthropic

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/codectest"
	"github.com/llmbridge/llmbridge/codec/internal/jsonx"
	"github.com/llmbridge/llmbridge/codec/internal/wire"
	"github.com/llmbridge/llmbridge/mapping"
)

func TestAnthropicDecodeRequest(t *testing.T) {
	tests := []struct {
		name   string
		vertex bool
		model  string // set by the caller for vertex
		body   string
		want   codec.Request
	}{
		{
			name: "minimal string content",
			body: `{"model":"claude-sonnet-4-5","max_tokens":1024,"messages":[{"role":"user","content":"Hello"}]}`,
			want: codec.Request{
				Model:     "claude-sonnet-4-5",
				MaxTokens: codec.OptInt{Value: 1024, Set: true},
				Messages:  []codec.Message{text(codec.RoleUser, "Hello")},
			},
		},
		{
			name: "every mapped field",
			body: `{
				"model": "claude-sonnet-4-5",
				"max_tokens": 2048,
				"system": "Be brief.\nAnswer in \"English\".",
				"messages": [
					{"role": "user", "content": [{"type": "text", "text": "Hi"}, {"type": "text", "text": "there"}]},
					{"role": "assistant", "content": "Hello!"},
					{"content": "How are you?", "role": "user"}
				],
				"temperature": 0.7,
				"top_p": 0.9,
				"top_k": 40,
				"stop_sequences": ["END", "STOP"],
				"stream": true,
				"metadata": {"user_id": "user-42"}
			}`,
			want: codec.Request{
				Model:       "claude-sonnet-4-5",
				Stream:      true,
				StreamUsage: true,
				System:      []codec.Part{{Type: codec.PartText, Text: "Be brief.\nAnswer in \"English\"."}},
				SystemRole:  codec.RoleSystem,
				Messages: []codec.Message{
					text(codec.RoleUser, "Hi", "there"),
					text(codec.RoleAssistant, "Hello!"),
					text(codec.RoleUser, "How are you?"),
				},
				MaxTokens:     codec.OptInt{Value: 2048, Set: true},
				Temperature:   codec.OptFloat{Value: 0.7, Set: true},
				TopP:          codec.OptFloat{Value: 0.9, Set: true},
				TopK:          codec.OptInt{Value: 40, Set: true},
				StopSequences: []string{"END", "STOP"},
				User:          "user-42",
			},
		},
		{
			name: "system blocks and cache_control breakpoints",
			body: `{"model":"m","system":[
					{"type":"text","text":"You are helpful.","cache_control":{"type":"ephemeral"}},
					{"type":"text","text":"Be brief.","citations":null}
				],"messages":[
					{"role":"user","content":[{"type":"text","text":"a","citations":[]},{"type":"text","text":"b","cache_control":{"type":"ephemeral","ttl":"1h"}}]},
					{"role":"assistant","content":[{"type":"text","text":"c","cache_control":null}]}
				]}`,
			want: codec.Request{
				Model: "m",
				System: []codec.Part{
					{Type: codec.PartText, Text: "You are helpful.", Cache: codec.CacheDefault},
					{Type: codec.PartText, Text: "Be brief."},
				},
				SystemRole: codec.RoleSystem,
				Messages: []codec.Message{
					{Role: codec.RoleUser, Parts: []codec.Part{{Type: codec.PartText, Text: "a"}, {Type: codec.PartText, Text: "b", Cache: codec.Cache1h}}},
					text(codec.RoleAssistant, "c"),
				},
			},
		},
		{
			name: "top-level hints",
			body: `{"model":"m","messages":[{"role":"user","content":"x"}],
				"service_tier":"auto","context_management":{"edits":[]},"cache_control":{"type":"ephemeral"},
				"inference_geo":"us","speed":"fast","diagnostics":{"previous_message_id":"msg_1"}}`,
			want: codec.Request{
				Model:    "m",
				Messages: []codec.Message{text(codec.RoleUser, "x")},
				Cache:    codec.Cache{Auto: codec.CacheDefault},
				Dropped:  []string{"service_tier", "context_management", "inference_geo", "speed", "diagnostics"},
			},
		},
		{
			name: "harmless defaults and nulls",
			body: `{"model":"m","messages":[{"role":"user","content":"x"}],
				"tools":[],"mcp_servers":[],"thinking":{"type":"disabled"},
				"tool_choice":null,"container":null,"output_format":null,"output_config":null,
				"temperature":null,"top_p":null,"top_k":null,"max_tokens":null,"stop_sequences":null,
				"stream":null,"metadata":null,"system":null,"service_tier":null,"cache_control":null,
				"tools":null,"thinking":null,"mcp_servers":null}`,
			want: codec.Request{
				Model:    "m",
				Messages: []codec.Message{text(codec.RoleUser, "x")},
			},
		},
		{
			name: "metadata without user",
			body: `{"model":"m","messages":[{"role":"user","content":"x"}],"metadata":{"user_id":null}}`,
			want: codec.Request{Model: "m", Messages: []codec.Message{text(codec.RoleUser, "x")}},
		},
		{
			name: "empty content and empty system array",
			body: `{"model":"m","system":[],"messages":[{"role":"user","content":[]},{"role":"assistant","content":""}]}`,
			want: codec.Request{
				Model:      "m",
				SystemRole: codec.RoleSystem,
				Messages: []codec.Message{
					{Role: codec.RoleUser},
					text(codec.RoleAssistant, ""),
				},
			},
		},
		{
			name: "stream false",
			body: `{"model":"m","messages":[{"role":"user","content":"x"}],"stream":false}`,
			want: codec.Request{Model: "m", Messages: []codec.Message{text(codec.RoleUser, "x")}},
		},
		{
			name: "tools, forced tool choice and tool history",
			body: `{"model":"m","tools":[
					{"name":"get_weather","description":"Weather of a city","input_schema":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]},"cache_control":{"type":"ephemeral"}},
					{"type":"custom","name":"now","input_schema":{"type":"object"},"strict":false,"eager_input_streaming":true,"description":null},
					{"name":"exact","input_schema":{"type":"object"},"strict":true,"defer_loading":null}
				],
				"tool_choice":{"type":"tool","name":"get_weather","disable_parallel_tool_use":true},
				"messages":[
					{"role":"user","content":"Weather in Paris and the time?"},
					{"role":"assistant","content":[
						{"type":"text","text":"Checking."},
						{"type":"tool_use","id":"toolu_1","name":"get_weather","input":{"city": "Paris"},"caller":{"type":"direct"},"cache_control":null},
						{"type":"tool_use","id":"toolu_2","name":"now","input":{},"caller":null}
					]},
					{"content":[
						{"type":"tool_result","tool_use_id":"toolu_1","content":"18 C","cache_control":{"type":"ephemeral"}},
						{"type":"tool_result","tool_use_id":"toolu_2","content":[{"type":"text","text":"clock"},{"type":"text","text":"broken"}],"is_error":true},
						{"type":"tool_result","tool_use_id":"toolu_9","content":"","is_error":false},
						{"type":"tool_result","tool_use_id":"toolu_1","content":[],"is_error":null},
						{"type":"text","text":"Thanks"}
					],"role":"user"}
				]}`,
			want: codec.Request{
				Model: "m",
				Messages: []codec.Message{
					text(codec.RoleUser, "Weather in Paris and the time?"),
					{Role: codec.RoleAssistant, Parts: []codec.Part{
						{Type: codec.PartText, Text: "Checking."},
						{Type: codec.PartToolCall, ToolCallID: "toolu_1", ToolName: "get_weather", Arguments: `{"city": "Paris"}`},
						{Type: codec.PartToolCall, ToolCallID: "toolu_2", ToolName: "now", Arguments: `{}`},
					}},
					{Role: codec.RoleUser, Parts: []codec.Part{
						{Type: codec.PartToolResult, ToolCallID: "toolu_1", ToolName: "get_weather", Content: []codec.Part{{Type: codec.PartText, Text: "18 C"}}, Cache: codec.CacheDefault},
						{Type: codec.PartToolResult, ToolCallID: "toolu_2", ToolName: "now", IsError: true, Content: []codec.Part{{Type: codec.PartText, Text: "clock"}, {Type: codec.PartText, Text: "broken"}}},
						{Type: codec.PartToolResult, ToolCallID: "toolu_9"},
						{Type: codec.PartToolResult, ToolCallID: "toolu_1", ToolName: "get_weather"},
						{Type: codec.PartText, Text: "Thanks"},
					}},
				},
				Tools: []codec.Tool{
					{Name: "get_weather", Description: "Weather of a city", Parameters: `{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`, Cache: codec.CacheDefault},
					{Name: "now", Parameters: `{"type":"object"}`, Strict: codec.OptBool{Set: true}},
					{Name: "exact", Parameters: `{"type":"object"}`, Strict: codec.OptBool{Value: true, Set: true}},
				},
				ToolChoice:        codec.ToolChoice{Mode: codec.ToolChoiceNamed, Name: "get_weather"},
				ParallelToolCalls: codec.OptBool{Value: false, Set: true},
				Dropped:           []string{"tools[1].eager_input_streaming"},
			},
		},
		{
			name: "images and documents",
			body: `{"model":"m","messages":[{"role":"user","content":[
					{"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBORw0KGgo="},"cache_control":{"type":"ephemeral"}},
					{"type":"image","source":{"type":"url","url":"https://example.com/cat.jpg"}},
					{"type":"document","source":{"type":"base64","media_type":"application/pdf","data":"JVBERi0x"},"title":"Report","citations":{"enabled":false},"context":null},
					{"type":"document","source":{"type":"url","url":"https://example.com/a.pdf"},"citations":null,"title":null},
					{"type":"text","text":"Compare them."}
				]},
				{"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"snap","input":{}}]},
				{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":[
					{"type":"text","text":"photo:"},
					{"type":"image","source":{"type":"base64","media_type":"image/jpeg","data":"/9j/4AAQ"}}
				]}]}
			]}`,
			want: codec.Request{
				Model: "m",
				Messages: []codec.Message{
					{Role: codec.RoleUser, Parts: []codec.Part{
						{Type: codec.PartImage, MediaType: "image/png", Data: "iVBORw0KGgo=", Cache: codec.CacheDefault},
						{Type: codec.PartImage, URL: "https://example.com/cat.jpg"},
						{Type: codec.PartDocument, MediaType: "application/pdf", Data: "JVBERi0x", Text: "Report"},
						{Type: codec.PartDocument, URL: "https://example.com/a.pdf"},
						{Type: codec.PartText, Text: "Compare them."},
					}},
					{Role: codec.RoleAssistant, Parts: []codec.Part{{Type: codec.PartToolCall, ToolCallID: "toolu_1", ToolName: "snap", Arguments: "{}"}}},
					{Role: codec.RoleUser, Parts: []codec.Part{{Type: codec.PartToolResult, ToolCallID: "toolu_1", ToolName: "snap", Content: []codec.Part{
						{Type: codec.PartText, Text: "photo:"},
						{Type: codec.PartImage, MediaType: "image/jpeg", Data: "/9j/4AAQ"},
					}}}},
				},
			},
		},
		{
			name: "tool choice auto allowing parallel calls",
			body: `{"model":"m","messages":[{"role":"user","content":"x"}],"tools":[{"name":"f","input_schema":{}}],"tool_choice":{"type":"auto","disable_parallel_tool_use":false}}`,
			want: codec.Request{Model: "m", Messages: []codec.Message{text(codec.RoleUser, "x")},
				Tools:      []codec.Tool{{Name: "f", Parameters: `{}`}},
				ToolChoice: codec.ToolChoice{Mode: codec.ToolChoiceAuto}, ParallelToolCalls: codec.OptBool{Value: true, Set: true}},
		},
		{
			name: "tool choice any, parallel switch null",
			body: `{"model":"m","messages":[{"role":"user","content":"x"}],"tool_choice":{"type":"any","disable_parallel_tool_use":null,"name":null}}`,
			want: codec.Request{Model: "m", Messages: []codec.Message{text(codec.RoleUser, "x")}, ToolChoice: codec.ToolChoice{Mode: codec.ToolChoiceRequired}},
		},
		{
			name: "tool choice none",
			body: `{"model":"m","messages":[{"role":"user","content":"x"}],"tool_choice":{"type":"none"}}`,
			want: codec.Request{Model: "m", Messages: []codec.Message{text(codec.RoleUser, "x")}, ToolChoice: codec.ToolChoice{Mode: codec.ToolChoiceNone}},
		},
		{
			name:   "vertex",
			vertex: true,
			model:  "claude-3-7-sonnet@20250219",
			body:   `{"anthropic_version":"vertex-2023-10-16","max_tokens":4000,"messages":[{"role":"user","content":"x"}]}`,
			want: codec.Request{
				Model:     "claude-3-7-sonnet@20250219",
				MaxTokens: codec.OptInt{Value: 4000, Set: true},
				Messages:  []codec.Message{text(codec.RoleUser, "x")},
				Dropped:   []string{"anthropic_version"},
			},
		},
		{
			name:   "vertex null model",
			vertex: true,
			model:  "claude-sonnet-4-5@20250929",
			body:   `{"model":null,"messages":[{"role":"user","content":"x"}]}`,
			want: codec.Request{
				Model:    "claude-sonnet-4-5@20250929",
				Messages: []codec.Message{text(codec.RoleUser, "x")},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := codec.Request{Model: tt.model}
			if err := codec.DecodeRequest(protocolFor(tt.vertex), []byte(tt.body), &req); err != nil {
				t.Fatalf("DecodeRequest: %v", err)
			}
			if !codectest.EqualDecoded(req, tt.want) {
				t.Errorf("got  %+v\nwant %+v", req, tt.want)
			}
		})
	}
}

func TestAnthropicDecodeRequestErrors(t *testing.T) {
	const msgs = `"messages":[{"role":"user","content":"x"}]`
	// body wraps fields into a first-party request with a valid model and
	// messages.
	body := func(fields string) string { return `{"model":"m",` + msgs + `,` + fields + `}` }
	// content wraps content blocks into the second message of a request.
	content := func(blocks string) string {
		return `{"model":"m","messages":[{"role":"user","content":"x"},{"role":"user","content":[` + blocks + `]}]}`
	}
	// asst wraps content blocks into an assistant message after a user one.
	asst := func(blocks string) string {
		return `{"model":"m","messages":[{"role":"user","content":"x"},{"role":"assistant","content":[` + blocks + `]}]}`
	}
	tests := []struct {
		name    string
		vertex  bool
		body    string
		param   string
		message string // a substring of the message, when it matters
	}{
		{"model wrong type", false, `{"model":5,` + msgs + `}`, "model", "expected string, got number"},
		{"model in vertex body", true, `{"model":"m",` + msgs + `}`, "model", "URL path"},
		{"messages missing", false, `{"model":"m"}`, "messages", "is required"},
		{"messages null", false, `{"model":"m","messages":null}`, "messages", "is required"},
		{"messages wrong type", false, `{"model":"m","messages":{}}`, "messages", "expected array, got object"},
		{"messages empty", false, `{"model":"m","messages":[]}`, "messages", "at least one"},
		{"message wrong type", false, `{"model":"m","messages":["hi"]}`, "messages[0]", "expected object, got string"},
		{"role missing", false, `{"model":"m","messages":[{"content":"x"}]}`, "messages[0].role", "is required"},
		{"role system", false, `{"model":"m","messages":[{"role":"system","content":"x"}]}`, "messages[0].role", `"user" or "assistant"`},
		{"role wrong type", false, `{"model":"m","messages":[{"role":1,"content":"x"}]}`, "messages[0].role", "expected string"},
		{"content missing", false, `{"model":"m","messages":[{"role":"user"}]}`, "messages[0].content", "is required"},
		{"content null", false, `{"model":"m","messages":[{"role":"user","content":null}]}`, "messages[0].content", "is required"},
		{"content wrong type", false, `{"model":"m","messages":[{"role":"user","content":5}]}`, "messages[0].content", "expected string or array, got number"},
		{"message unknown field", false, `{"model":"m","messages":[{"role":"user","content":"x","name":"bob"}]}`, "messages[0].name", "unknown field"},
		{"later message", false, `{"model":"m","messages":[{"role":"user","content":"x"},{"role":"assistant","content":"y"},{"role":"tool","content":"z"}]}`, "messages[2].role", ""},
		{"block wrong type", false, content(`"x"`), "messages[1].content[0]", "expected object, got string"},
		{"block type missing", false, content(`{"text":"x"}`), "messages[1].content[0].type", "is required"},
		{"block type wrong type", false, content(`{"type":1,"text":"x"}`), "messages[1].content[0].type", "expected string"},
		{"image source missing", false, content(`{"type":"text","text":"a"},{"type":"image"}`), "messages[1].content[1].source", "is required"},
		{"image source wrong type", false, content(`{"type":"image","source":"https://x/a.png"}`), "messages[1].content[0].source", "expected object"},
		{"image source type missing", false, content(`{"type":"image","source":{}}`), "messages[1].content[0].source.type", "is required"},
		{"image source type unknown", false, content(`{"type":"image","source":{"type":"s3"}}`), "messages[1].content[0].source.type", `source type "s3" is not supported yet`},
		{"image file source", false, content(`{"type":"image","source":{"type":"file","file_id":"file_1"}}`), "messages[1].content[0].source", "server-side state"},
		{"image base64 without media_type", false, content(`{"type":"image","source":{"type":"base64","data":"AA=="}}`), "messages[1].content[0].source.media_type", "is required"},
		{"image base64 without data", false, content(`{"type":"image","source":{"type":"base64","media_type":"image/png","data":""}}`), "messages[1].content[0].source.data", "is required"},
		{"image base64 with url", false, content(`{"type":"image","source":{"type":"base64","media_type":"image/png","data":"AA==","url":"https://x"}}`), "messages[1].content[0].source.url", "unknown field"},
		{"image base64 unknown member", false, content(`{"type":"image","source":{"type":"base64","media_type":"image/png","data":"AA==","x":1}}`), "messages[1].content[0].source.x", "unknown field"},
		{"image url without url", false, content(`{"type":"image","source":{"type":"url","url":7}}`), "messages[1].content[0].source.url", "expected string"},
		{"image url with media_type", false, content(`{"type":"image","source":{"type":"url","url":"https://x","media_type":"image/png"}}`), "messages[1].content[0].source.media_type", "unknown field"},
		{"image url with data", false, content(`{"type":"image","source":{"type":"url","url":"https://x","data":"AA=="}}`), "messages[1].content[0].source.data", "unknown field"},
		{"image url unknown member", false, content(`{"type":"image","source":{"type":"url","url":"https://x","y":1}}`), "messages[1].content[0].source.y", "unknown field"},
		{"image block title", false, content(`{"type":"image","source":{"type":"url","url":"https://x"},"title":"t"}`), "messages[1].content[0].title", "unknown field"},
		{"document text source", false, content(`{"type":"document","source":{"type":"text","media_type":"text/plain","data":"hi"}}`), "messages[1].content[0].source.type", `source type "text" is not supported yet`},
		{"document title wrong type", false, content(`{"type":"document","source":{"type":"url","url":"https://x/a.pdf"},"title":1}`), "messages[1].content[0].title", "expected string"},
		{"document context", false, content(`{"type":"document","source":{"type":"url","url":"https://x/a.pdf"},"context":"c"}`), "messages[1].content[0].context", "document context"},
		{"document citations wrong type", false, content(`{"type":"document","source":{"type":"url","url":"https://x/a.pdf"},"citations":true}`), "messages[1].content[0].citations", "expected object"},
		{"document citations enabled", false, content(`{"type":"document","source":{"type":"url","url":"https://x/a.pdf"},"citations":{"enabled":true}}`), "messages[1].content[0].citations", "document citations"},
		{"document in a tool result", false, content(`{"type":"tool_result","tool_use_id":"t","content":[{"type":"document","source":{"type":"url","url":"https://x/a.pdf"}}]}`), "messages[1].content[0].content[0]", "documents in tool results"},
		{"document in the system prompt", false, body(`"system":[{"type":"document","source":{"type":"url","url":"https://x/a.pdf"}}]`), "system[0]", `"document" is not allowed in the system prompt`},
		{"tool_use block in a user message", false, content(`{"type":"tool_use","id":"toolu_1","name":"f","input":{}}`), "messages[1].content[0]", "tool_use blocks belong in assistant messages"},
		{"tool_result block in an assistant message", false, `{"model":"m","messages":[{"content":[{"type":"text","text":"a"},{"type":"tool_result","tool_use_id":"toolu_1"}],"role":"assistant"}]}`, "messages[0].content[1]", "tool_result blocks belong in user messages"},
		{"tool_use id missing", false, asst(`{"type":"tool_use","name":"f","input":{}}`), "messages[1].content[0].id", "is required"},
		{"tool_use id empty", false, asst(`{"type":"tool_use","id":"","name":"f","input":{}}`), "messages[1].content[0].id", "is required"},
		{"tool_use id wrong type", false, asst(`{"type":"tool_use","id":1,"name":"f","input":{}}`), "messages[1].content[0].id", "expected string, got number"},
		{"tool_use name missing", false, asst(`{"type":"tool_use","id":"toolu_1","input":{}}`), "messages[1].content[0].name", "is required"},
		{"tool_use input missing", false, asst(`{"type":"tool_use","id":"toolu_1","name":"f"}`), "messages[1].content[0].input", "is required"},
		{"tool_use input wrong type", false, asst(`{"type":"tool_use","id":"toolu_1","name":"f","input":"{}"}`), "messages[1].content[0].input", "expected object, got string"},
		{"tool_use caller wrong type", false, asst(`{"type":"tool_use","id":"toolu_1","name":"f","input":{},"caller":"direct"}`), "messages[1].content[0].caller", "expected object"},
		{"tool_use caller type missing", false, asst(`{"type":"tool_use","id":"toolu_1","name":"f","input":{},"caller":{}}`), "messages[1].content[0].caller.type", "is required"},
		{"tool_use programmatic caller", false, asst(`{"type":"tool_use","id":"toolu_1","name":"f","input":{},"caller":{"type":"code_execution_20250825","tool_id":"srvtoolu_1"}}`), "messages[1].content[0].caller", `tool caller type "code_execution_20250825" is not supported yet`},
		{"tool_use member of another block type", false, asst(`{"type":"tool_use","id":"toolu_1","name":"f","input":{},"text":"x"}`), "messages[1].content[0].text", "unknown field"},
		{"tool_use unknown member", false, asst(`{"type":"tool_use","id":"toolu_1","name":"f","input":{},"extra":1}`), "messages[1].content[0].extra", "unknown field"},
		{"tool_use cache_control wrong type", false, asst(`{"type":"tool_use","id":"toolu_1","name":"f","input":{},"cache_control":1}`), "messages[1].content[0].cache_control", "expected object"},
		{"tool_result tool_use_id missing", false, content(`{"type":"tool_result","content":"ok"}`), "messages[1].content[0].tool_use_id", "is required"},
		{"tool_result is_error wrong type", false, content(`{"type":"tool_result","tool_use_id":"toolu_1","is_error":"yes"}`), "messages[1].content[0].is_error", "expected boolean"},
		{"tool_result content wrong type", false, content(`{"type":"tool_result","tool_use_id":"toolu_1","content":5}`), "messages[1].content[0].content", "expected string or array, got number"},
		{"tool_result content block wrong type", false, content(`{"type":"tool_result","tool_use_id":"toolu_1","content":[{"type":"text","text":"a"},"b"]}`), "messages[1].content[0].content[1]", "expected object"},
		{"tool_result nested tool_use", false, content(`{"type":"tool_result","tool_use_id":"toolu_1","content":[{"type":"tool_use","id":"x","name":"f","input":{}}]}`), "messages[1].content[0].content[0]", `"tool_use" is not allowed in a tool result`},
		{"tool_result nested text unknown member", false, content(`{"type":"tool_result","tool_use_id":"toolu_1","content":[{"type":"text","text":"a","x":1}]}`), "messages[1].content[0].content[0].x", "unknown field"},
		{"tool_result nested search_result", false, content(`{"type":"tool_result","tool_use_id":"toolu_1","content":[{"type":"search_result","source":"s","title":"t","content":[]}]}`), "messages[1].content[0].content[0]", `"search_result" is not supported yet`},
		{"tool_result member of another block type", false, content(`{"type":"tool_result","tool_use_id":"toolu_1","input":{}}`), "messages[1].content[0].input", "unknown field"},
		{"search_result block", false, content(`{"type":"search_result","source":"s","title":"t","content":[]}`), "messages[1].content[0]", `"search_result"`},
		{"text block unknown field", false, content(`{"type":"text","text":"x","foo":1}`), "messages[1].content[0].foo", "unknown field"},
		{"text missing", false, content(`{"type":"text"}`), "messages[1].content[0].text", "is required"},
		{"text wrong type", false, content(`{"type":"text","text":["x"]}`), "messages[1].content[0].text", "expected string, got array"},
		{"text null", false, content(`{"type":"text","text":null}`), "messages[1].content[0].text", "expected string, got null"},
		{"citations not an array", false, content(`{"type":"text","text":"x","citations":{}}`), "messages[1].content[0].citations", "array"},
		{"citations wrong type", false, content(`{"type":"text","text":"x","citations":"x"}`), "messages[1].content[0].citations", "expected array"},
		{"cache_control wrong type", false, content(`{"type":"text","text":"x","cache_control":"ephemeral"}`), "messages[1].content[0].cache_control", "expected object"},
		{"system wrong type", false, body(`"system":5`), "system", "expected string or array, got number"},
		{"system block wrong type", false, body(`"system":[{"type":"text","text":"a"},"b"]`), "system[1]", "expected object"},
		{"system image block", false, body(`"system":[{"type":"image","source":{}}]`), "system[0]", `"image" is not allowed in the system prompt`},
		{"system tool_use block", false, body(`"system":[{"type":"tool_use","id":"toolu_1","name":"f","input":{}}]`), "system[0]", `content part type "tool_use" is not allowed in the system prompt`},
		{"system cache_control wrong type", false, body(`"system":[{"type":"text","text":"a","cache_control":true}]`), "system[0].cache_control", "expected object, got boolean"},
		{"max_tokens fraction", false, body(`"max_tokens":1.5`), "max_tokens", "expected integer"},
		{"max_tokens string", false, body(`"max_tokens":"100"`), "max_tokens", "expected integer, got string"},
		{"temperature string", false, body(`"temperature":"hot"`), "temperature", "expected number"},
		{"top_p bool", false, body(`"top_p":true`), "top_p", "expected number"},
		{"top_k fraction", false, body(`"top_k":0.5`), "top_k", "expected integer"},
		{"stop_sequences string", false, body(`"stop_sequences":"END"`), "stop_sequences", "expected array of strings"},
		{"stop_sequences element", false, body(`"stop_sequences":["a",1]`), "stop_sequences[1]", "expected string"},
		{"stream string", false, body(`"stream":"yes"`), "stream", "expected boolean"},
		{"metadata wrong type", false, body(`"metadata":[]`), "metadata", "expected object"},
		{"metadata user_id wrong type", false, body(`"metadata":{"user_id":42}`), "metadata.user_id", "expected string"},
		{"metadata unknown key", false, body(`"metadata":{"session":"s"}`), "metadata.session", "unknown field"},
		{"anthropic_version first-party", false, body(`"anthropic_version":"2023-06-01"`), "anthropic_version", "unknown field"},
		{"anthropic_version wrong type", true, `{` + msgs + `,"anthropic_version":2023}`, "anthropic_version", "expected string"},
		{"service_tier wrong type", false, body(`"service_tier":1`), "service_tier", "expected string"},
		{"context_management wrong type", false, body(`"context_management":"auto"`), "context_management", "expected object"},
		{"hosted bash tool", false, body(`"tools":[{"name":"f","input_schema":{"type":"object"}},{"type":"bash_20250124","name":"bash"}]`), "tools[1].type", `hosted tool "bash_20250124" cannot be translated`},
		{"web search tool name", false, body(`"tools":[{"type":"web_search_20250305","name":"search"}]`), "tools[0].name", `"web_search"`},
		{"web search max_uses", false, body(`"tools":[{"type":"web_search_20250305","name":"web_search","max_uses":0}]`), "tools[0].max_uses", `at least 1`},
		{"web search domains", false, body(`"tools":[{"type":"web_search_20250305","name":"web_search","allowed_domains":["a"],"blocked_domains":["b"]}]`), "tools[0]", `both`},
		{"web search location", false, body(`"tools":[{"type":"web_search_20250305","name":"web_search","user_location":{"type":"exact"}}]`), "tools[0].user_location.type", `approximate`},
		{"web search unknown", false, body(`"tools":[{"type":"web_search_20250305","name":"web_search","x":1}]`), "tools[0].x", `unknown`},
		{"hosted bash tool", false, body(`"tools":[{"type":"bash_20250124","name":"bash"}]`), "tools[0].type", `hosted tool "bash_20250124"`},
		{"tools wrong type", false, body(`"tools":{}`), "tools", "expected array"},
		{"tool wrong type", false, body(`"tools":["f"]`), "tools[0]", "expected object, got string"},
		{"tool type wrong type", false, body(`"tools":[{"type":1,"name":"f","input_schema":{}}]`), "tools[0].type", "expected string"},
		{"tool unknown member", false, body(`"tools":[{"name":"f","input_schema":{},"parameters":{}}]`), "tools[0].parameters", "unknown field"},
		{"tool defer_loading of the wrong type", false, body(`"tools":[{"name":"f","input_schema":{},"defer_loading":"yes"}]`), "tools[0].defer_loading", "expected boolean"},
		{"tool input_examples", false, body(`"tools":[{"name":"f","input_schema":{},"input_examples":[{}]}]`), "tools[0].input_examples", "not supported"},
		{"tool allowed_callers", false, body(`"tools":[{"name":"f","input_schema":{},"allowed_callers":["code_execution_20250825"]}]`), "tools[0].allowed_callers", "not supported"},
		{"tool name missing", false, body(`"tools":[{"input_schema":{}}]`), "tools[0].name", "is required"},
		{"tool name wrong type", false, body(`"tools":[{"name":1,"input_schema":{}}]`), "tools[0].name", "expected string"},
		{"tool description wrong type", false, body(`"tools":[{"name":"f","description":1,"input_schema":{}}]`), "tools[0].description", "expected string"},
		{"tool input_schema missing", false, body(`"tools":[{"name":"f"}]`), "tools[0].input_schema", "is required"},
		{"tool input_schema wrong type", false, body(`"tools":[{"name":"f","input_schema":"{}"}]`), "tools[0].input_schema", "expected object, got string"},
		{"tool strict wrong type", false, body(`"tools":[{"name":"f","input_schema":{},"strict":"yes"}]`), "tools[0].strict", "expected boolean"},
		{"tool cache_control wrong type", false, body(`"tools":[{"name":"f","input_schema":{},"cache_control":true}]`), "tools[0].cache_control", "expected object"},
		{"tool eager_input_streaming wrong type", false, body(`"tools":[{"name":"f","input_schema":{},"eager_input_streaming":1}]`), "tools[0].eager_input_streaming", "expected boolean"},
		{"tool_choice wrong type", false, body(`"tool_choice":"auto"`), "tool_choice", "expected object, got string"},
		{"tool_choice type missing", false, body(`"tool_choice":{}`), "tool_choice.type", "is required"},
		{"tool_choice type wrong type", false, body(`"tool_choice":{"type":1}`), "tool_choice.type", "expected string"},
		{"tool_choice type unknown", false, body(`"tool_choice":{"type":"required"}`), "tool_choice.type", `"auto", "any", "tool" or "none"`},
		{"tool_choice tool without name", false, body(`"tool_choice":{"type":"tool"}`), "tool_choice.name", "is required"},
		{"tool_choice name without tool", false, body(`"tool_choice":{"type":"auto","name":"f"}`), "tool_choice.name", "unknown field"},
		{"tool_choice none with parallel switch", false, body(`"tool_choice":{"type":"none","disable_parallel_tool_use":true}`), "tool_choice.disable_parallel_tool_use", "unknown field"},
		{"tool_choice parallel wrong type", false, body(`"tool_choice":{"type":"any","disable_parallel_tool_use":"no"}`), "tool_choice.disable_parallel_tool_use", "expected boolean"},
		{"tool_choice unknown member", false, body(`"tool_choice":{"type":"auto","strict":true}`), "tool_choice.strict", "unknown field"},
		{"mcp_servers", false, body(`"mcp_servers":[{"type":"url","url":"https://x","name":"x"}]`), "mcp_servers", "not supported"},
		{"container", false, body(`"container":"container_1"`), "container", "not supported"},
		{"output_format", false, body(`"output_format":{"type":"json_schema","schema":{}}`), "output_format", "output_config.format"},
		{"thinking wrong type", false, body(`"thinking":true`), "thinking", "expected object"},
		{"thinking type missing", false, body(`"thinking":{}`), "thinking.type", "is required"},
		{"thinking type wrong type", false, body(`"thinking":{"type":0}`), "thinking.type", "expected string"},
		{"thinking disabled extra", false, body(`"thinking":{"type":"disabled","budget_tokens":0}`), "thinking.budget_tokens", "unknown field"},
		{"unknown field", false, body(`"frequency_penalty":0.5`), "frequency_penalty", "unknown field"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var req codec.Request
			err := codec.DecodeRequest(protocolFor(tt.vertex), []byte(tt.body), &req)
			if err == nil {
				t.Fatalf("DecodeRequest succeeded: %+v", req)
			}
			e := asError(t, err)
			if e.Status != 400 || e.Kind != mapping.ErrInvalidRequest {
				t.Errorf("status %d kind %v, want 400 invalid request", e.Status, e.Kind)
			}
			if e.Param != tt.param {
				t.Errorf("param %q, want %q (%v)", e.Param, tt.param, e)
			}
			if !strings.Contains(e.Message, tt.message) {
				t.Errorf("message %q does not contain %q", e.Message, tt.message)
			}
		})
	}
}

// TestAnthropicDecodeRecordedRequests decodes the request bodies of the
// real recordings: those in scope (text, tools, images, thinking, output
// effort) are accepted, the one using a server tool is rejected naming it.
func TestAnthropicDecodeRecordedRequests(t *testing.T) {
	codectest.SkipWithoutRecordings(t)
	tests := []struct {
		file  string
		param string // "" when the request is in scope
	}{
		{"anthropic-messages/claude-sonnet-4-text.json", ""},
		{"anthropic-messages/claude-sonnet-4-text-stream.json", ""},
		{"anthropic-messages/claude-sonnet-4-5-stop-sequence.json", ""},
		{"anthropic-messages/claude-sonnet-4-5-cache-read.json", ""},
		{"anthropic-messages/claude-sonnet-4-5-cache-write.json", ""},
		{"anthropic-messages/claude-sonnet-4-image.json", ""},
		{"anthropic-messages/claude-sonnet-4-tool-followup.json", ""},
		{"anthropic-messages/claude-sonnet-4-tool-call.json", ""},
		{"anthropic-messages/claude-haiku-4-5-parallel-tools.json", ""},
		{"anthropic-messages/claude-sonnet-4-parallel-tools-followup-stream.json", ""},
		{"anthropic-messages/claude-sonnet-4-thinking-tool-call-stream.json", ""},
		{"anthropic-messages/claude-sonnet-4-thinking-followup-stream.json", ""},
		{"anthropic-messages/claude-sonnet-4-5-pause-turn-web-search-stream.json", ""},
		{"vertex-anthropic/claude-3-7-sonnet-forced-tool-complex.json", ""},
		{"vertex-anthropic/claude-3-7-sonnet-forced-tool-complex-stream.json", ""},
		{"vertex-anthropic/claude-3-7-sonnet-tool-call-stream.json", ""},
		{"vertex-anthropic/claude-3-7-sonnet-tool-followup-stream.json", ""},
		{"anthropic-messages/claude-sonnet-4-5-redacted-thinking-stream.json", ""},
		{"anthropic-messages/claude-opus-4-6-error-400.json", ""},
		{"vertex-anthropic/claude-3-7-sonnet-text.json", ""},
		{"vertex-anthropic/claude-3-7-sonnet-forced-tool-simple.json", ""},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			rec := codectest.ReadRecording(t, tt.file)
			body := rec.Get("request.body")
			vertex := rec.Get("protocol").Str == string(codec.VertexAnthropic)
			var req codec.Request
			if vertex {
				req.Model = "claude-3-7-sonnet@20250219"
			}
			err := codec.DecodeRequest(protocolFor(vertex), []byte(body.Raw), &req)
			if tt.param == "" {
				if err != nil {
					t.Fatalf("DecodeRequest: %v", err)
				}
				if len(req.Messages) == 0 || req.Model == "" {
					t.Errorf("decoded request lacks model or messages: %+v", req)
				}
				return
			}
			if err == nil {
				t.Fatalf("DecodeRequest succeeded, want an error about %s", tt.param)
			}
			if e := asError(t, err); e.Param != tt.param || e.Status != 400 {
				t.Errorf("got %d %q (%v), want 400 %q", e.Status, e.Param, e, tt.param)
			}
		})
	}
}

// compact compacts a JSON text, failing the test when it is not
// JSON.
func compact(t *testing.T, s string) string {
	t.Helper()
	var b bytes.Buffer
	if err := json.Compact(&b, []byte(s)); err != nil {
		t.Fatalf("%q: %v", s, err)
	}
	return b.String()
}

// TestAnthropicDecodeRecordedToolRequests checks the tool definitions,
// choice, calls and results of recorded requests exactly (JSON texts
// compacted: the recordings are pretty-printed).
func TestAnthropicDecodeRecordedToolRequests(t *testing.T) {
	codectest.SkipWithoutRecordings(t)
	weather := codec.Tool{Name: "weather", Description: "Get weather information for a location",
		Parameters: `{"properties":{"location":{"description":"the city","type":"string"}},"required":["location"],"type":"object"}`}
	tests := []struct {
		file     string
		tools    []codec.Tool
		choice   codec.ToolChoice
		parallel codec.OptBool
		msgs     []codec.Message
	}{
		{
			file: "anthropic-messages/claude-sonnet-4-tool-followup.json", tools: []codec.Tool{weather},
			choice: codec.ToolChoice{Mode: codec.ToolChoiceAuto}, parallel: codec.OptBool{Value: true, Set: true},
			msgs: []codec.Message{
				text(codec.RoleUser, "What's the weather in Florence,Italy?"),
				{Role: codec.RoleAssistant, Parts: []codec.Part{
					{Type: codec.PartText, Text: "I'll check the weather in Florence, Italy for you."},
					{Type: codec.PartToolCall, ToolCallID: "toolu_01XLb9pzgfLa2EMyqWot6Ezt", ToolName: "weather", Arguments: `{"location":"Florence,Italy"}`},
				}},
				{Role: codec.RoleUser, Parts: []codec.Part{{Type: codec.PartToolResult, ToolCallID: "toolu_01XLb9pzgfLa2EMyqWot6Ezt", ToolName: "weather",
					Content: []codec.Part{{Type: codec.PartText, Text: "40 C"}}}}},
			},
		},
		{
			file: "vertex-anthropic/claude-3-7-sonnet-forced-tool-simple.json",
			tools: []codec.Tool{{Name: "Person", Description: "A person with name, age, and city",
				Parameters: `{"properties":{"age":{"description":"The person's age","type":"integer"},"city":{"description":"The city where the person lives","type":"string"},"name":{"description":"The person's name","type":"string"}},"required":["name","age","city"],"type":"object"}`}},
			choice: codec.ToolChoice{Mode: codec.ToolChoiceNamed, Name: "Person"}, parallel: codec.OptBool{Value: true, Set: true},
			msgs: []codec.Message{text(codec.RoleUser, "Generate information about a person named Alice who is 30 years old and lives in Paris.")},
		},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			rec := codectest.ReadRecording(t, tt.file)
			p := codec.Protocol(rec.Get("protocol").Str)
			req := codec.Request{Model: "from-path"}
			if err := codec.DecodeRequest(p, []byte(rec.Get("request.body").Raw), &req); err != nil {
				t.Fatal(err)
			}
			for i := range req.Tools {
				req.Tools[i].Parameters = compact(t, req.Tools[i].Parameters)
			}
			for _, m := range req.Messages {
				for j := range m.Parts {
					if m.Parts[j].Type == codec.PartToolCall {
						m.Parts[j].Arguments = compact(t, m.Parts[j].Arguments)
					}
				}
			}
			if !codectest.EqualDecoded(req.Tools, tt.tools) || req.ToolChoice != tt.choice || req.ParallelToolCalls != tt.parallel {
				t.Errorf("tools %+v choice %+v parallel %+v", req.Tools, req.ToolChoice, req.ParallelToolCalls)
			}
			if !codectest.EqualDecoded(req.Messages, tt.msgs) {
				t.Errorf("messages\n got %+v\nwant %+v", req.Messages, tt.msgs)
			}
		})
	}
}

func TestAnthropicDeferLoadingIsAHint(t *testing.T) {
	var req codec.Request
	body := `{"model":"m","max_tokens":5,"messages":[{"role":"user","content":"x"}],` +
		`"tools":[{"name":"a","input_schema":{"type":"object"},"defer_loading":true},{"name":"b","input_schema":{"type":"object"},"defer_loading":false}]}`
	if err := codec.DecodeRequest(codec.AnthropicMessages, []byte(body), &req); err != nil {
		t.Fatal(err)
	}
	if len(req.Tools) != 2 || !codectest.EqualDecoded(req.Dropped, []string{"tools[0].defer_loading"}) {
		t.Errorf("tools %+v, dropped %q", req.Tools, req.Dropped)
	}
}

func TestAnthropicRepeatedKeysReplace(t *testing.T) {
	var req codec.Request
	body := `{"model":"m","max_tokens":5,"system":"one","system":"two",` +
		`"messages":[{"role":"user","content":"first"}],"messages":[{"role":"user","content":"second"}]}`
	if err := codec.DecodeRequest(codec.AnthropicMessages, []byte(body), &req); err != nil {
		t.Fatal(err)
	}
	if len(req.Messages) != 1 || req.Messages[0].Parts[0].Text != "second" || len(req.System) != 1 || req.System[0].Text != "two" {
		t.Errorf("messages %+v, system %+v", req.Messages, req.System)
	}
}

// TestAnthropicPlainTextBlock checks the fast path for plain text blocks
// (plainText) against the full block decoder: whenever it takes a
// block, it must give the part block gives, and it must leave every other
// block to block. TestResponsesPlainTextParts does the same for Responses.
func TestAnthropicPlainTextBlock(t *testing.T) {
	for _, c := range []struct {
		raw  string
		fast bool
	}{
		{`{"type":"text","text":"a \"quoted\"\nline"}`, true},
		{`{"text":"first","type":"text"}`, true},
		{`{ "type" : "text" , "text" : "" }`, true},
		{`{"type":"text","text":"a","text":"b"}`, true},
		{`{"type":"text"}`, false},
		{`{"text":"no type"}`, false},
		{`{"type":"text","text":1}`, false},
		{`{"type":"text","text":"a","cache_control":{"type":"ephemeral"}}`, false},
		{`{"type":"text","text":"a","citations":[]}`, false},
		{`{"type":"text","text":"a","type":"image"}`, false},
		{`{"type":"image","source":{"type":"url","url":"https://x/y.png"}}`, false},
		{`["type","text"]`, false},
	} {
		body := []byte(`{"model":"m","max_tokens":1,"messages":[{"role":"user","content":[` + c.raw + `]}]}`)
		root, index, err := wire.ParseIndexed(body)
		if err != nil {
			t.Fatalf("%s: %v", c.raw, err)
		}
		req := &request{Request: &codec.Request{}, Text: jsonx.IndexedArena(index)}
		d := requestDecoder{req: req}
		b := root.Get("messages.0.content.0")
		text, fast := wire.PlainText(&req.Text, b.Raw, `"text"`)
		if fast != c.fast {
			t.Errorf("%s: fast path %v, want %v", c.raw, fast, c.fast)
		}
		if fast {
			// The same part, down to the literal it keeps.
			p, perr := d.block(b, blockPos{})
			if perr != nil || p.Type != codec.PartText || p.TextValue() != text.TextValue() || !sameLiteral(&p, &text) {
				t.Errorf("%s: fast path gives %+v, block gives %+v, %v", c.raw, text, p, perr)
			}
		}
		index.Release()
	}
}

// TestAnthropicContextManagement: edits that clear thinking (what Claude
// Code sends) are a hint toward other families, dropped and listed; edits
// that clear tool uses or compact are a capability, refused naming the
// field and the edit.
func TestAnthropicContextManagement(t *testing.T) {
	tests := []struct {
		name, cm string
		wantErr  string // "" for a dropped hint
	}{
		{"Claude Code's", `{"edits":[{"type":"clear_thinking_20251015","keep":"all"}]}`, ""},
		{"no edits", `{"edits":[]}`, ""},
		{"clearing thinking by turns", `{"edits":[{"type":"clear_thinking_20251015","keep":{"type":"thinking_turns","value":2}}]}`, ""},
		{"clearing tool uses", `{"edits":[{"type":"clear_thinking_20251015","keep":"all"},{"type":"clear_tool_uses_20250919"}]}`, `edits[1] is "clear_tool_uses_20250919"`},
		{"compaction", `{"edits":[{"type":"compact_20260112"}]}`, `edits[0] is "compact_20260112"`},
		{"an edit without a type", `{"edits":[{}]}`, `edits[0] is ""`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := `{"model":"m","max_tokens":8,"context_management":` + tt.cm + `,"messages":[{"role":"user","content":"Hi"}]}`
			var req codec.Request
			err := codec.DecodeRequest(codec.AnthropicMessages, []byte(body), &req)
			if tt.wantErr == "" {
				if err != nil || !slices.Contains(req.Dropped, "context_management") {
					t.Fatalf("err %v, dropped %q", err, req.Dropped)
				}
				return
			}
			var e *codec.Error
			if !errors.As(err, &e) || e.Class != codec.ClassCapability || e.Param != "context_management" || !strings.Contains(e.Message, tt.wantErr) {
				t.Fatalf("err %#v, want a capability error saying %q", err, tt.wantErr)
			}
		})
	}
}

// sameLiteral reports whether a and b keep the same literal of their text.
func sameLiteral(a, b *codec.Part) bool {
	la, oka := a.JSONText()
	lb, okb := b.JSONText()
	return la == lb && oka == okb
}
