package chat

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/codectest"
	"github.com/llmbridge/llmbridge/mapping"
	"github.com/tidwall/gjson"
)

func call(id, name, args string) codec.Part {
	return codec.Part{Type: codec.PartToolCall, ToolCallID: id, ToolName: name, Arguments: args}
}

func result(id, name string, content ...codec.Part) codec.Part {
	return codec.Part{Type: codec.PartToolResult, ToolCallID: id, ToolName: name, Content: content}
}

var weatherSchema = `{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`

func TestChatDecodeRequestTools(t *testing.T) {
	user := `{"role":"user","content":"Hi"}`
	tests := []struct {
		name string
		body string
		want codec.Request
	}{
		{
			name: "tool definitions, named choice and parallel switch",
			body: `{"model":"m","messages":[` + user + `],"tools":[
				{"type":"function","function":{"name":"weather","description":"Get the weather","parameters":` + weatherSchema + `,"strict":true}},
				{"type":"function","function":{"name":"now","strict":false,"description":null,"parameters":null}},
				{"type":"function","function":{"name":"ping","strict":null}}],
				"tool_choice":{"type":"function","function":{"name":"weather"}},"parallel_tool_calls":false}`,
			want: codec.Request{
				Model: "m", Messages: []codec.Message{chatUser("Hi")},
				Tools: []codec.Tool{
					{Name: "weather", Description: "Get the weather", Parameters: weatherSchema, Strict: codec.OptBool{Value: true, Set: true}},
					{Name: "now", Strict: codec.OptBool{Set: true}},
					{Name: "ping"},
				},
				ToolChoice:        codec.ToolChoice{Mode: codec.ToolChoiceNamed, Name: "weather"},
				ParallelToolCalls: codec.OptBool{Value: false, Set: true},
			},
		},
		{
			name: "choice required",
			body: `{"model":"m","messages":[` + user + `],"tools":[{"type":"function","function":{"name":"f"}}],"tool_choice":"required","parallel_tool_calls":true}`,
			want: codec.Request{Model: "m", Messages: []codec.Message{chatUser("Hi")}, Tools: []codec.Tool{{Name: "f"}},
				ToolChoice: codec.ToolChoice{Mode: codec.ToolChoiceRequired}, ParallelToolCalls: codec.OptBool{Value: true, Set: true}},
		},
		{
			name: "choice none",
			body: `{"model":"m","messages":[` + user + `],"tools":[{"type":"function","function":{"name":"f"}}],"tool_choice":"none"}`,
			want: codec.Request{Model: "m", Messages: []codec.Message{chatUser("Hi")}, Tools: []codec.Tool{{Name: "f"}}, ToolChoice: codec.ToolChoice{Mode: codec.ToolChoiceNone}},
		},
		{
			name: "choice auto",
			body: `{"model":"m","messages":[` + user + `],"tools":[{"type":"function","function":{"name":"f"}}],"tool_choice":"auto"}`,
			want: codec.Request{Model: "m", Messages: []codec.Message{chatUser("Hi")}, Tools: []codec.Tool{{Name: "f"}}, ToolChoice: codec.ToolChoice{Mode: codec.ToolChoiceAuto}},
		},
		{
			name: "calls and results in history",
			body: `{"model":"m","messages":[{"role":"system","content":"S"},` + user + `,
				{"role":"assistant","content":"Let me look.","tool_calls":[
					{"id":"call_1","type":"function","function":{"name":"weather","arguments":" {\"city\": \"Paris\"} "}},
					{"id":"call_2","function":{"name":"now","arguments":""}}]},
				{"role":"tool","tool_call_id":"call_1","content":"18 C"},
				{"role":"tool","tool_call_id":"call_2","name":"clock","content":[{"type":"text","text":"noon"},{"type":"text","text":" UTC"}]},
				{"role":"user","content":"And tomorrow?"},
				{"role":"user","content":"Thanks"},
				{"role":"assistant","content":null,"tool_calls":[{"id":"call_3","type":"function","function":{"name":"weather","arguments":"{}"}}]},
				{"role":"tool","tool_call_id":"call_3","content":""},
				{"role":"assistant","content":"Done"},
				{"role":"tool","tool_call_id":"call_9","content":"late"}]}`,
			want: codec.Request{
				Model: "m", System: []codec.Part{text("S")}, SystemRole: codec.RoleSystem,
				Messages: []codec.Message{
					chatUser("Hi"),
					{Role: codec.RoleAssistant, Parts: []codec.Part{text("Let me look."), call("call_1", "weather", `{"city": "Paris"}`), call("call_2", "now", "")}},
					{Role: codec.RoleUser, Parts: []codec.Part{
						result("call_1", "weather", text("18 C")),
						result("call_2", "clock", text("noon"), text(" UTC")),
						text("And tomorrow?"),
					}},
					chatUser("Thanks"),
					{Role: codec.RoleAssistant, Parts: []codec.Part{call("call_3", "weather", "{}")}},
					{Role: codec.RoleUser, Parts: []codec.Part{result("call_3", "weather")}},
					{Role: codec.RoleAssistant, Parts: []codec.Part{text("Done")}},
					{Role: codec.RoleUser, Parts: []codec.Part{result("call_9", "", text("late"))}},
				},
			},
		},
		{
			name: "tool message first ends the system prompt",
			body: `{"model":"m","messages":[{"role":"developer","content":"D"},{"role":"tool","tool_call_id":"c","content":"r"},{"role":"system","content":"later"}]}`,
			want: codec.Request{
				Model: "m", System: []codec.Part{text("D")}, SystemRole: codec.RoleDeveloper,
				Messages: []codec.Message{
					{Role: codec.RoleUser, Parts: []codec.Part{result("c", "", text("r"))}},
					{Role: codec.RoleSystem, Parts: []codec.Part{text("later")}},
				},
			},
		},
		{
			name: "images, audio and files",
			body: `{"model":"m","messages":[{"role":"user","content":[
				{"type":"text","text":"Look"},
				{"type":"image_url","image_url":{"url":"data:image/png;base64,iVBORw0KGgo="}},
				{"type":"image_url","image_url":{"url":"https://example.com/a.jpg","detail":"high"}},
				{"type":"image_url","image_url":{"url":"http://example.com/b.gif","detail":null}},
				{"type":"input_audio","input_audio":{"data":"UklGRg==","format":"wav"}},
				{"type":"input_audio","input_audio":{"data":"SUQz","format":"mp3"}},
				{"type":"file","file":{"filename":"report.pdf","file_data":"data:application/pdf;base64,JVBERi0=","file_id":null}},
				{"type":"file","file":{"file_data":"data:text/plain;base64,aGk="}}]}]}`,
			want: codec.Request{
				Model: "m",
				Messages: []codec.Message{{Role: codec.RoleUser, Parts: []codec.Part{
					text("Look"),
					{Type: codec.PartImage, MediaType: "image/png", Data: "iVBORw0KGgo="},
					{Type: codec.PartImage, URL: "https://example.com/a.jpg"},
					{Type: codec.PartImage, URL: "http://example.com/b.gif"},
					{Type: codec.PartAudio, MediaType: "audio/wav", Data: "UklGRg=="},
					{Type: codec.PartAudio, MediaType: "audio/mp3", Data: "SUQz"},
					{Type: codec.PartDocument, MediaType: "application/pdf", Data: "JVBERi0=", Text: "report.pdf"},
					{Type: codec.PartDocument, MediaType: "text/plain", Data: "aGk="},
				}}},
				Dropped: []string{"messages[0].content[2].image_url.detail"},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := decodeRequest(t, tt.body)
			if err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			if !codectest.EqualDecoded(got, tt.want) {
				t.Errorf("got  %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

// TestChatDecodeRequestToolRecordings decodes the recorded requests with
// tools, tool calls, tool results and images.
func TestChatDecodeRequestToolRecordings(t *testing.T) {
	addMul := func(strict bool) []codec.Tool {
		schema := `{"properties":{"a":{"description":"first number","type":"integer"},"b":{"description":"second number","type":"integer"}},"required":["a","b"],"type":"object"}`
		return []codec.Tool{
			{Name: "add", Description: "Add two numbers", Parameters: schema, Strict: codec.OptBool{Set: true}},
			{Name: "multiply", Description: "Multiply two numbers", Parameters: schema, Strict: codec.OptBool{Set: true}},
		}
	}
	type check func(t *testing.T, r *codec.Request)
	for name, c := range map[string]check{
		"gpt-4o-tool-followup.json": func(t *testing.T, r *codec.Request) {
			want := []codec.Message{
				chatUser("What's the weather in Florence,Italy?"),
				{Role: codec.RoleAssistant, Parts: []codec.Part{call("call_IUonKM9GCNis5eMRHuusMqoy", "weather", `{"location":"Florence, Italy"}`)}},
				{Role: codec.RoleUser, Parts: []codec.Part{result("call_IUonKM9GCNis5eMRHuusMqoy", "weather", text("40 C"))}},
			}
			if !codectest.EqualDecoded(r.Messages, want) {
				t.Errorf("messages = %+v\nwant %+v", r.Messages, want)
			}
			if len(r.Tools) != 1 || r.Tools[0].Name != "weather" || !gjson.Valid(r.Tools[0].Parameters) ||
				gjson.Get(r.Tools[0].Parameters, "properties.location.type").Str != "string" || r.ToolChoice.Mode != codec.ToolChoiceAuto {
				t.Errorf("tools = %+v, choice %+v", r.Tools, r.ToolChoice)
			}
		},
		"gpt-4o-parallel-tools.json": func(t *testing.T, r *codec.Request) {
			compactSchemas(r)
			if !codectest.EqualDecoded(r.Tools, addMul(false)) || r.ToolChoice.Mode != codec.ToolChoiceAuto {
				t.Errorf("tools = %+v\nwant %+v", r.Tools, addMul(false))
			}
		},
		"gpt-4o-parallel-tools-followup-stream.json": func(t *testing.T, r *codec.Request) {
			want := []codec.Message{
				chatUser("Add and multiply the number 2 and 3"),
				{Role: codec.RoleAssistant, Parts: []codec.Part{
					call("call_ehIWdjL1abZk1h8FWGLQ0Hie", "add", `{"a": 2, "b": 3}`),
					call("call_fBSgA47J5VeONggizTIvl7AH", "multiply", `{"a": 2, "b": 3}`),
				}},
				{Role: codec.RoleUser, Parts: []codec.Part{
					result("call_ehIWdjL1abZk1h8FWGLQ0Hie", "add", text("5")),
					result("call_fBSgA47J5VeONggizTIvl7AH", "multiply", text("6")),
				}},
			}
			if !codectest.EqualDecoded(r.Messages, want) || !r.Stream || !r.StreamUsage {
				t.Errorf("messages = %+v\nwant %+v", r.Messages, want)
			}
		},
		"gpt-5-image.json": func(t *testing.T, r *codec.Request) {
			parts := r.Messages[0].Parts
			if len(parts) != 2 || !codectest.EqualDecoded(parts[0], text("Describe the image briefly in English.")) ||
				parts[1].Type != codec.PartImage || parts[1].MediaType != "image/png" || !strings.HasPrefix(parts[1].Data, "iVBORw0KGgo") || parts[1].URL != "" {
				t.Errorf("parts = %.200v", parts)
			}
		},
	} {
		t.Run(name, func(t *testing.T) {
			rec := recording(t, name)
			got, err := decodeRequest(t, rec.Get("request.body").Raw)
			if err != nil {
				t.Fatal(err)
			}
			c(t, &got)
			// What was decoded encodes and decodes to the same.
			out, err1 := codec.AppendRequest(nil, codec.OpenAIChat, &got, codec.EncodeOptions{})
			if err1 != nil {
				t.Fatal(err1)
			}
			again, err2 := decodeRequest(t, string(out))
			if err2 != nil {
				t.Fatal(err2)
			}
			compactSchemas(&got)
			compactSchemas(&again)
			if !codectest.EqualDecoded(got, again) {
				t.Errorf("round trip changed the request:\nfirst  %.500v\nsecond %.500v", got, again)
			}
		})
	}
}

// compactSchemas compacts the tools' parameter texts, which keep the
// client's spacing.
func compactSchemas(r *codec.Request) {
	for i := range r.Tools {
		var b bytes.Buffer
		if json.Compact(&b, []byte(r.Tools[i].Parameters)) == nil {
			r.Tools[i].Parameters = b.String()
		}
	}
}

// toolsRequest is a canonical request with every tool feature Chat
// carries, for the golden file and the round trip.
func toolsRequest() codec.Request {
	return codec.Request{
		Model:  "gpt-4o",
		System: []codec.Part{text("Use tools.")},
		Messages: []codec.Message{
			chatUser("Weather in Paris and the time?"),
			{Role: codec.RoleAssistant, Parts: []codec.Part{text("Checking."), call("call_1", "weather", `{"city":"Paris"}`), call("call_2", "now", "")}},
			{Role: codec.RoleUser, Parts: []codec.Part{
				result("call_1", "weather", text("18 C")),
				result("call_2", "now", text("noon"), text(" UTC")),
				text("Thanks!"),
			}},
			{Role: codec.RoleAssistant, Parts: []codec.Part{chatRefusal("No."), call("call_3", "weather", `{"city":"Mars"}`)}},
			{Role: codec.RoleUser, Parts: []codec.Part{{Type: codec.PartToolResult, ToolCallID: "call_3", Content: []codec.Part{text("unknown city")}, IsError: true}}},
			{Role: codec.RoleAssistant, Parts: []codec.Part{call("call_4", "now", "{}")}},
			{Role: codec.RoleUser, Parts: []codec.Part{{Type: codec.PartToolResult, ToolCallID: "call_4", IsError: true}}},
		},
		Tools: []codec.Tool{
			{Name: "weather", Description: "Get the weather", Parameters: weatherSchema, Strict: codec.OptBool{Value: true, Set: true}},
			{Name: "now", Strict: codec.OptBool{Set: true}},
		},
		ToolChoice:        codec.ToolChoice{Mode: codec.ToolChoiceNamed, Name: "weather"},
		ParallelToolCalls: codec.OptBool{Value: false, Set: true},
	}
}

// mediaRequest is a canonical request with images, audio and files.
func mediaRequest() codec.Request {
	return codec.Request{
		Model: "gpt-4o",
		Messages: []codec.Message{
			{Role: codec.RoleUser, Parts: []codec.Part{
				text("Look"),
				{Type: codec.PartImage, MediaType: "image/png", Data: "iVBORw0KGgo="},
				{Type: codec.PartImage, URL: "https://example.com/a.jpg"},
				{Type: codec.PartAudio, MediaType: "audio/wav", Data: "UklGRg=="},
				{Type: codec.PartAudio, MediaType: "audio/mpeg", Data: "SUQz"},
				{Type: codec.PartDocument, MediaType: "application/pdf", Data: "JVBERi0=", Text: "report.pdf"},
				{Type: codec.PartDocument, MediaType: "application/pdf", Data: "JVBERi0="},
				chatRefusal("quoted refusal"),
			}},
			{Role: codec.RoleAssistant, Parts: []codec.Part{call("call_1", "snap", "")}},
			{Role: codec.RoleUser, Parts: []codec.Part{
				text("Here:"),
				result("call_1", "snap", text("a photo"), codec.Part{Type: codec.PartImage, MediaType: "image/jpeg", Data: "/9j/"}),
			}},
		},
	}
}

func TestChatAppendRequestTools(t *testing.T) {
	for name, req := range map[string]codec.Request{"tools": toolsRequest(), "media": mediaRequest()} {
		t.Run(name, func(t *testing.T) {
			out, err := codec.AppendRequest(nil, codec.OpenAIChat, &req, codec.EncodeOptions{})
			if err != nil {
				t.Fatal(err)
			}
			codectest.CheckGolden(t, "openai-chat/request_"+name+".json", out)
		})
	}
	// The other tool choices, and no choice or parallel switch without tools.
	for _, tt := range []struct {
		choice codec.ToolChoice
		want   string
	}{
		{codec.ToolChoice{}, ``},
		{codec.ToolChoice{Mode: codec.ToolChoiceAuto}, `"auto"`},
		{codec.ToolChoice{Mode: codec.ToolChoiceNone}, `"none"`},
		{codec.ToolChoice{Mode: codec.ToolChoiceRequired}, `"required"`},
	} {
		req := codec.Request{Model: "m", Messages: []codec.Message{chatUser("Hi")}, Tools: []codec.Tool{{Name: "f"}}, ToolChoice: tt.choice}
		out, err := codec.AppendRequest(nil, codec.OpenAIChat, &req, codec.EncodeOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if got := gjson.GetBytes(out, "tool_choice").Raw; got != tt.want {
			t.Errorf("tool_choice = %s, want %s", got, tt.want)
		}
		if got := gjson.GetBytes(out, "tools").Raw; got != `[{"type":"function","function":{"name":"f"}}]` {
			t.Errorf("tools = %s", got)
		}
		req.Tools = nil
		req.ParallelToolCalls = codec.OptBool{Set: true}
		out, _ = codec.AppendRequest(nil, codec.OpenAIChat, &req, codec.EncodeOptions{})
		if gjson.GetBytes(out, "tool_choice").Exists() || gjson.GetBytes(out, "parallel_tool_calls").Exists() || gjson.GetBytes(out, "tools").Exists() {
			t.Errorf("without tools: %s", out)
		}
	}
}

func TestChatAppendRequestToolErrors(t *testing.T) {
	msgs := func(m ...codec.Message) codec.Request { return codec.Request{Model: "m", Messages: m} }
	user := func(p ...codec.Part) codec.Message { return codec.Message{Role: codec.RoleUser, Parts: p} }
	tests := []struct {
		name, param, msg string
		req              codec.Request
	}{
		{"hosted tool", "tools[1]", `hosted tool "web_search" cannot be translated for the openai-chat upstream`, codec.Request{Model: "m", Messages: []codec.Message{chatUser("a")}, Tools: []codec.Tool{{Name: "f"}, {Kind: codec.ToolWebSearch}}}},
		{"call in user message", "messages[0].parts[1]", "a tool call outside an assistant message", msgs(user(text("a"), call("c", "f", "")))},
		{"result in assistant message", "messages[0].parts[0]", "a tool result outside a user message", msgs(codec.Message{Role: codec.RoleAssistant, Parts: []codec.Part{result("c", "f")}})},
		{"result in system prompt", "system[0]", "a tool result outside a user message", codec.Request{Model: "m", System: []codec.Part{result("c", "f")}, Messages: []codec.Message{chatUser("a")}}},
		{"image in assistant message", "messages[0].parts[0]", "a image outside a user message", msgs(codec.Message{Role: codec.RoleAssistant, Parts: []codec.Part{{Type: codec.PartImage, URL: "https://x"}}})},
		{"document by URL", "messages[0].parts[0]", "a document given by URL", msgs(user(codec.Part{Type: codec.PartDocument, URL: "https://x/a.pdf"}))},
		{"audio by URL", "messages[0].parts[0]", "a audio given by URL", msgs(user(codec.Part{Type: codec.PartAudio, URL: "https://x/a.wav"}))},
		{"image without data", "messages[0].parts[0]", "a image without media type and data", msgs(user(codec.Part{Type: codec.PartImage, MediaType: "image/png"}))},
		{"audio of other type", "messages[0].parts[0]", `audio of type "audio/ogg"`, msgs(user(codec.Part{Type: codec.PartAudio, MediaType: "audio/ogg", Data: "AA"}))},
		{"result without id", "messages[0].parts[0].tool_call_id", "a tool result without a call id", msgs(user(result("", "f")))},
		{"document in result", "messages[0].parts[1].content[0]", "a document in a tool result", msgs(user(result("a", "f"), result("c", "f", codec.Part{Type: codec.PartDocument, MediaType: "application/pdf", Data: "AA"})))},
		{"bad part after results", "messages[0].parts[1]", "a tool call outside an assistant message", msgs(user(result("c", "f"), call("c", "f", "")))},
		{"bad image in result", "messages[0].parts[0]", "a image without media type and data", msgs(user(result("c", "f", codec.Part{Type: codec.PartImage})))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := codec.AppendRequest(nil, codec.OpenAIChat, &tt.req, codec.EncodeOptions{})
			var e *codec.Error
			if !errors.As(err, &e) {
				t.Fatalf("got %v, want an *Error", err)
			}
			if e.Status != 400 || e.Param != tt.param || !strings.Contains(e.Message, tt.msg) {
				t.Errorf("got %d %q %q, want 400 %q containing %q", e.Status, e.Param, e.Message, tt.param, tt.msg)
			}
		})
	}
}

// TestChatRequestToolsRoundTrip encodes canonical requests with tools and
// media and decodes them again: what Chat can carry comes back unchanged,
// and what it cannot (IsError, result images) comes back as documented.
func TestChatRequestToolsRoundTrip(t *testing.T) {
	req := toolsRequest()
	out, err := codec.AppendRequest(nil, codec.OpenAIChat, &req, codec.EncodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got, derr := decodeRequest(t, string(out))
	if derr != nil {
		t.Fatal(derr)
	}
	want := toolsRequest()
	want.SystemRole = codec.RoleSystem
	// Results get the name of their call; Chat has no error flag, so the
	// text says it.
	want.Messages[4].Parts[0] = result("call_3", "weather", text("Error: unknown city"))
	want.Messages[6].Parts[0] = result("call_4", "now", text("Error: "))
	want.Messages[1].Parts[2].Arguments = "{}" // Chat always writes an object
	if !codectest.EqualDecoded(got, want) {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}

	req = mediaRequest()
	out, err = codec.AppendRequest(nil, codec.OpenAIChat, &req, codec.EncodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got, derr = decodeRequest(t, string(out))
	if derr != nil {
		t.Fatal(derr)
	}
	want = mediaRequest()
	want.Messages[0].Parts[4].MediaType = "audio/mp3"
	want.Messages[0].Parts[7] = text("quoted refusal")
	want.Messages[1].Parts[0].Arguments = "{}"
	// The result's image follows the results in the user message, before
	// the user's own content.
	want.Messages[2].Parts = []codec.Part{
		result("call_1", "snap", text("a photo")),
		{Type: codec.PartImage, MediaType: "image/jpeg", Data: "/9j/"},
		text("Here:"),
	}
	if !codectest.EqualDecoded(got, want) {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}
}

// TestChatDecodeResponseToolRecordings decodes the recorded responses with
// tool calls: ids, names and arguments exactly.
func TestChatDecodeResponseToolRecordings(t *testing.T) {
	rec := recording(t, "gpt-4o-parallel-tools.json")
	var resp codec.Response
	if err := codec.DecodeResponse(codec.OpenAIChat, []byte(rec.Get("response.body").Str), &resp); err != nil {
		t.Fatal(err)
	}
	want := []codec.Part{
		call("call_fifE5poZ3dg3JDUKGFi48NGq", "add", `{"a": 2, "b": 3}`),
		call(gjson.Get(rec.Get("response.body").Str, "choices.0.message.tool_calls.1.id").Str, "multiply", `{"a": 2, "b": 3}`),
	}
	if !codectest.EqualDecoded(resp.Content, want) || resp.StopReason != mapping.StopToolUse {
		t.Errorf("content = %+v stop %v\nwant %+v", resp.Content, resp.StopReason, want)
	}
	if !strings.HasPrefix(want[1].ToolCallID, "call_") || want[1].ToolCallID == want[0].ToolCallID {
		t.Errorf("second id = %q", want[1].ToolCallID)
	}
	for i := range resp.Content {
		var args map[string]int
		if err := json.Unmarshal([]byte(resp.Content[i].Arguments), &args); err != nil || args["a"] != 2 || args["b"] != 3 {
			t.Errorf("arguments %d = %q", i, resp.Content[i].Arguments)
		}
	}
}

func TestChatDecodeResponseTools(t *testing.T) {
	wrap := func(message, finish string) string {
		return `{"id":"chatcmpl-1","object":"chat.completion","created":1700000000,"model":"gpt-4o",` +
			`"choices":[{"index":0,"message":` + message + `,"logprobs":null,"finish_reason":` + finish + `}]}`
	}
	tests := []struct {
		name, body string
		content    []codec.Part
		stop       codec.StopReason
	}{
		{
			name: "text and calls",
			body: wrap(`{"role":"assistant","content":"Sure.","refusal":null,"tool_calls":[
				{"id":"call_1","type":"function","function":{"name":"weather","arguments":"{\"city\":\"Paris\"}"}},
				{"id":"call_2","type":"function","function":{"name":"now","arguments":""}}]}`, `"tool_calls"`),
			content: []codec.Part{text("Sure."), call("call_1", "weather", `{"city":"Paris"}`), call("call_2", "now", "")},
			stop:    mapping.StopToolUse,
		},
		{
			name:    "calls finished with stop are tool use",
			body:    wrap(`{"role":"assistant","content":null,"tool_calls":[{"id":"c","function":{"name":"f","arguments":"{}"}}]}`, `"stop"`),
			content: []codec.Part{call("c", "f", "{}")},
			stop:    mapping.StopToolUse,
		},
		{
			name:    "calls cut by the token limit stay cut",
			body:    wrap(`{"role":"assistant","content":null,"tool_calls":[{"id":"c","function":{"name":"f","arguments":"{}"}}]}`, `"length"`),
			content: []codec.Part{call("c", "f", "{}")},
			stop:    mapping.StopMaxTokens,
		},
		{
			name:    "null and empty tool calls",
			body:    wrap(`{"role":"assistant","content":"x","tool_calls":null}`, `"stop"`),
			content: []codec.Part{text("x")},
			stop:    mapping.StopEnd,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var resp codec.Response
			if err := codec.DecodeResponse(codec.OpenAIChat, []byte(tt.body), &resp); err != nil {
				t.Fatal(err)
			}
			if !codectest.EqualDecoded(resp.Content, tt.content) || resp.StopReason != tt.stop {
				t.Errorf("content %+v stop %v, want %+v %v", resp.Content, resp.StopReason, tt.content, tt.stop)
			}
		})
	}
}

func TestChatAppendResponseTools(t *testing.T) {
	resp := codec.Response{
		ID: "chatcmpl-tools", Model: "gpt-4o", Created: 1700000003,
		Content:    []codec.Part{text("Checking."), call("call_1", "weather", `{"city":"Paris"}`), call("call_2", "now", "")},
		StopReason: mapping.StopEnd, // as Gemini reports a tool call
		Usage:      codec.Usage{Known: true, InputTokens: 30, OutputTokens: 12},
	}
	out, err := codec.AppendResponse(nil, codec.OpenAIChat, &resp)
	if err != nil {
		t.Fatal(err)
	}
	codectest.CheckGolden(t, "openai-chat/response_tool_calls.json", out)
	var back codec.Response
	if err := codec.DecodeResponse(codec.OpenAIChat, out, &back); err != nil {
		t.Fatal(err)
	}
	want := resp
	want.StopReason = mapping.StopToolUse
	want.Content = slices.Clone(resp.Content)
	want.Content[2].Arguments = "{}"
	if !codectest.EqualDecoded(back, want) {
		t.Errorf("round trip: got %+v\nwant %+v", back, want)
	}
	// Calls alone: content is null.
	resp = codec.Response{ID: "x", Model: "m", Created: 1, Content: []codec.Part{call("c", "f", "{}")}, StopReason: mapping.StopToolUse}
	out, _ = codec.AppendResponse(nil, codec.OpenAIChat, &resp)
	if m := gjson.GetBytes(out, "choices.0.message"); m.Get("content").Type != gjson.Null || m.Get("tool_calls.#").Int() != 1 {
		t.Errorf("message = %s", m.Raw)
	}
}

// TestChatToolRules checks the tool rules on the Chat side:
// strict false is a plain tool with its schema unchanged and strict true
// is kept toward OpenAI; parallel_tool_calls is kept beside a forced or
// named choice, and without tools it is a hint.
func TestChatToolRules(t *testing.T) {
	body := `{"model":"m","messages":[{"role":"user","content":"Hi"}],"tools":[
		{"type":"function","function":{"name":"a","parameters":{"type":"object","additionalProperties":false},"strict":false}},
		{"type":"function","function":{"name":"b","parameters":{"type":"object"},"strict":true}}],
		"tool_choice":"required","parallel_tool_calls":false}`
	req, err := decodeRequest(t, body)
	if err != nil {
		t.Fatal(err)
	}
	if req.Tools[0].Strict != (codec.OptBool{Set: true}) || req.Tools[0].Parameters != `{"type":"object","additionalProperties":false}` ||
		req.Tools[1].Strict != (codec.OptBool{Value: true, Set: true}) || req.ToolChoice.Mode != codec.ToolChoiceRequired ||
		req.ParallelToolCalls != (codec.OptBool{Set: true}) || len(req.Dropped) != 0 {
		t.Errorf("decoded %+v", req)
	}
	out, eerr := codec.AppendRequest(nil, codec.OpenAIChat, &req, codec.EncodeOptions{})
	if eerr != nil {
		t.Fatal(eerr)
	}
	root := gjson.ParseBytes(out)
	if root.Get("tools.0.function.strict").Raw != "false" || root.Get("tools.1.function.strict").Raw != "true" ||
		root.Get("tools.0.function.parameters").Raw != `{"type":"object","additionalProperties":false}` ||
		root.Get("tool_choice").Str != "required" || root.Get("parallel_tool_calls").Raw != "false" {
		t.Errorf("encoded %s", out)
	}
	req, err = decodeRequest(t, `{"model":"m","messages":[{"role":"user","content":"Hi"}],"parallel_tool_calls":false,"tools":[]}`)
	if err != nil || req.ParallelToolCalls.Set || !codectest.EqualDecoded(req.Dropped, []string{"parallel_tool_calls"}) {
		t.Errorf("without tools: %+v %v", req, err)
	}
}
