package responses

import (
	"errors"
	"strings"
	"testing"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/codectest"
	"github.com/llmbridge/llmbridge/codec/internal/jsonx"
	"github.com/llmbridge/llmbridge/codec/internal/wire"
	"github.com/tidwall/gjson"
)

func TestResponsesDecodeRequestTools(t *testing.T) {
	const weather = `{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`
	call := func(id, name, args string) codec.Part {
		return codec.Part{Type: codec.PartToolCall, ToolCallID: id, ToolName: name, Arguments: args}
	}
	result := func(id string, content ...codec.Part) codec.Part {
		return codec.Part{Type: codec.PartToolResult, ToolCallID: id, Content: content}
	}
	tests := []struct {
		name string
		body string
		want codec.Request
	}{
		{
			// strict false is a plain tool with its schema
			// unchanged; parallel_tool_calls is kept with tools.
			name: "tools, choice and parallel switch",
			body: `{"model":"m","input":"hi","parallel_tool_calls":false,"tool_choice":"required","tools":[` +
				`{"type":"function","name":"get_weather","description":"Weather.","parameters":` + weather + `,"strict":false},` +
				`{"type":"function","name":"now","strict":true,"parameters":null,"description":null,"defer_loading":false},{"type":"function","name":"n","strict":null}]}`,
			want: codec.Request{Model: "m", Messages: []codec.Message{{Role: codec.RoleUser, Parts: []codec.Part{responsesText("hi")}}},
				Tools: []codec.Tool{{Name: "get_weather", Description: "Weather.", Parameters: weather, Strict: codec.OptBool{Value: false, Set: true}},
					{Name: "now", Strict: codec.OptBool{Value: true, Set: true}}, {Name: "n"}},
				ToolChoice: codec.ToolChoice{Mode: codec.ToolChoiceRequired}, ParallelToolCalls: codec.OptBool{Value: false, Set: true}},
		},
		{
			name: "named choice",
			body: `{"model":"m","input":"hi","tool_choice":{"type":"function","name":"f"},"tools":[{"type":"function","name":"f"}]}`,
			want: codec.Request{Model: "m", Messages: []codec.Message{{Role: codec.RoleUser, Parts: []codec.Part{responsesText("hi")}}},
				Tools: []codec.Tool{{Name: "f"}}, ToolChoice: codec.ToolChoice{Mode: codec.ToolChoiceNamed, Name: "f"}},
		},
		{
			name: "auto and none with tools",
			body: `{"model":"m","input":"hi","tool_choice":"none","tools":[{"type":"function","name":"f"}],"parallel_tool_calls":true}`,
			want: codec.Request{Model: "m", Messages: []codec.Message{{Role: codec.RoleUser, Parts: []codec.Part{responsesText("hi")}}},
				Tools: []codec.Tool{{Name: "f"}}, ToolChoice: codec.ToolChoice{Mode: codec.ToolChoiceNone}, ParallelToolCalls: codec.OptBool{Value: true, Set: true}},
		},
		{
			// A Codex-style turn: text, then parallel calls, their
			// outputs, then the user's next message joins the results.
			name: "calls and outputs in history",
			body: `{"model":"m","tools":[{"type":"function","name":"f"}],"tool_choice":"auto","input":[` +
				`{"role":"user","content":"weather?"},` +
				`{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Checking."}]},` +
				`{"type":"function_call","id":"fc_1","call_id":"call_1","name":"f","arguments":"{\"city\":\"Paris\"}","status":"completed"},` +
				`{"type":"function_call","call_id":"call_2","name":"f","arguments":"","namespace":null},` +
				`{"type":"function_call_output","call_id":"call_1","output":"sunny","id":"fco_1","status":"completed"},` +
				`{"type":"function_call_output","call_id":"call_2","name":"f","output":[{"type":"input_text","text":"rain"},` +
				`{"type":"input_image","image_url":"data:image/png;base64,iVBO","detail":"auto"}]},` +
				`{"role":"user","content":"thanks"},` +
				`{"type":"function_call","call_id":"call_3","name":"f","arguments":"{}"},` +
				`{"type":"function_call_output","call_id":"call_3","output":"done"}]}`,
			want: codec.Request{Model: "m", Tools: []codec.Tool{{Name: "f"}}, ToolChoice: codec.ToolChoice{Mode: codec.ToolChoiceAuto}, Messages: []codec.Message{
				{Role: codec.RoleUser, Parts: []codec.Part{responsesText("weather?")}},
				{Role: codec.RoleAssistant, Parts: []codec.Part{responsesText("Checking."), call("call_1", "f", `{"city":"Paris"}`), call("call_2", "f", "")}},
				{Role: codec.RoleUser, Parts: []codec.Part{result("call_1", responsesText("sunny")),
					{Type: codec.PartToolResult, ToolCallID: "call_2", ToolName: "f", Content: []codec.Part{responsesText("rain"), {Type: codec.PartImage, MediaType: "image/png", Data: "iVBO"}}},
					responsesText("thanks")}},
				{Role: codec.RoleAssistant, Parts: []codec.Part{call("call_3", "f", "{}")}},
				{Role: codec.RoleUser, Parts: []codec.Part{result("call_3", responsesText("done"))}},
			}},
		},
		{
			name: "images and documents",
			body: `{"model":"m","input":[{"role":"user","content":[{"type":"input_text","text":"look"},` +
				`{"type":"input_image","image_url":"https://example.com/cat.png","detail":"high"},` +
				`{"type":"input_image","image_url":"data:image/jpeg;base64,/9j/4AAQ","file_id":null,"detail":null,"prompt_cache_breakpoint":{}},` +
				`{"type":"input_file","file_data":"data:application/pdf;base64,JVBERi0x","filename":"report.pdf"},` +
				`{"type":"input_file","file_url":"https://example.com/a.pdf","file_data":null,"filename":null},` +
				`{"type":"input_file","file_data":"JVBERi0y","filename":"raw.PDF","detail":"auto"}]}]}`,
			want: codec.Request{Model: "m", Messages: []codec.Message{{Role: codec.RoleUser, Parts: []codec.Part{responsesText("look"),
				{Type: codec.PartImage, URL: "https://example.com/cat.png"},
				{Type: codec.PartImage, MediaType: "image/jpeg", Data: "/9j/4AAQ", Cache: codec.CacheDefault},
				{Type: codec.PartDocument, MediaType: "application/pdf", Data: "JVBERi0x", Text: "report.pdf"},
				{Type: codec.PartDocument, URL: "https://example.com/a.pdf"},
				{Type: codec.PartDocument, MediaType: "application/pdf", Data: "JVBERi0y", Text: "raw.PDF"}}}},
				Cache:   codec.Cache{Auto: codec.CacheDefault},
				Dropped: []string{"input[0].content[1].detail"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got codec.Request
			if err := codec.DecodeRequest(codec.OpenAIResponses, []byte(tt.body), &got); err != nil {
				t.Fatal(err)
			}
			if !codectest.EqualDecoded(got, tt.want) {
				t.Errorf("got  %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestResponsesDecodeRequestToolErrors(t *testing.T) {
	const f = `"tools":[{"type":"function","name":"f"}]`
	item := func(items string) string { return `{"model":"m","input":[` + items + `]}` }
	part := func(p string) string { return item(`{"role":"user","content":[` + p + `]}`) }
	tests := []struct {
		name, body, param, msg string
	}{
		{"tools element", `{"model":"m","input":"hi","tools":[1]}`, "tools[0]", "expected object"},
		{"tool without type", `{"model":"m","input":"hi","tools":[{"name":"f"}]}`, "tools[0].type", "is required"},
		{"tool type type", `{"model":"m","input":"hi","tools":[{"type":1}]}`, "tools[0].type", "expected string"},
		{"custom tool parameters", `{"model":"m","input":"hi","tools":[{"type":"custom","name":"f","parameters":{}}]}`, "tools[0].parameters", "unknown field"},
		{"namespace in namespace", `{"model":"m","input":"hi","tools":[{"type":"namespace","name":"ns","tools":[{"type":"namespace","name":"n2","tools":[]}]}]}`, "tools[0].tools[0].type", "another namespace"},
		{"file search", `{"model":"m","input":"hi","tools":[{"type":"file_search"}]}`, "tools[0]", `hosted tool "file_search" cannot be translated`},
		{"tool search", `{"model":"m","input":"hi","tools":[{"type":"tool_search"}]}`, "tools[0]", `remove the tool or ask the operator to drop it (field tools[0])`},
		{"tool without name", `{"model":"m","input":"hi","tools":[{"type":"function"}]}`, "tools[0].name", "is required"},
		{"tool name type", `{"model":"m","input":"hi","tools":[{"type":"function","name":1}]}`, "tools[0].name", "expected string"},
		{"tool description type", `{"model":"m","input":"hi","tools":[{"type":"function","name":"f","description":1}]}`, "tools[0].description", "expected string"},
		{"tool parameters type", `{"model":"m","input":"hi","tools":[{"type":"function","name":"f","parameters":"{}"}]}`, "tools[0].parameters", "expected object"},
		{"tool strict type", `{"model":"m","input":"hi","tools":[{"type":"function","name":"f","strict":"yes"}]}`, "tools[0].strict", "expected boolean"},
		{"tool defer loading", `{"model":"m","input":"hi","tools":[{"type":"function","name":"f","defer_loading":true}]}`, "tools[0].defer_loading", "tool search"},
		{"tool unknown key", `{"model":"m","input":"hi","tools":[{"type":"function","name":"f","output_schema":{}}]}`, "tools[0].output_schema", "unknown field"},
		{"parallel type", `{"model":"m","input":"hi","parallel_tool_calls":"no"}`, "parallel_tool_calls", "expected boolean"},
		{"choice type", `{"model":"m","input":"hi",` + f + `,"tool_choice":{"type":2}}`, "tool_choice.type", "expected string"},
		{"choice without type", `{"model":"m","input":"hi",` + f + `,"tool_choice":{"name":"f"}}`, "tool_choice.type", "is required"},
		{"choice allowed tools", `{"model":"m","input":"hi",` + f + `,"tool_choice":{"type":"allowed_tools","mode":"auto","tools":[]}}`, "tool_choice", "allowed_tools"},
		{"choice hosted", `{"model":"m","input":"hi",` + f + `,"tool_choice":{"type":"web_search"}}`, "tool_choice", "web_search"},
		{"choice hosted", `{"model":"m","input":"hi",` + f + `,"tool_choice":{"type":"web_search_preview"}}`, "tool_choice", `hosted tool "web_search_preview"`},
		{"choice without name", `{"model":"m","input":"hi",` + f + `,"tool_choice":{"type":"function"}}`, "tool_choice.name", "is required"},
		{"choice name type", `{"model":"m","input":"hi",` + f + `,"tool_choice":{"type":"function","name":1}}`, "tool_choice.name", "expected string"},
		{"choice unknown key", `{"model":"m","input":"hi",` + f + `,"tool_choice":{"type":"function","name":"f","x":1}}`, "tool_choice.x", "unknown field"},

		{"call without call_id", item(`{"type":"function_call","name":"f","arguments":"{}"}`), "input[0].call_id", "is required"},
		{"call without name", item(`{"type":"function_call","call_id":"c","arguments":"{}"}`), "input[0].name", "is required"},
		{"call without arguments", item(`{"type":"function_call","call_id":"c","name":"f"}`), "input[0].arguments", "is required"},
		{"call arguments not JSON", item(`{"type":"function_call","call_id":"c","name":"f","arguments":"{"}`), "input[0].arguments", "JSON object"},
		{"call arguments an array", item(`{"type":"function_call","call_id":"c","name":"f","arguments":"[]"}`), "input[0].arguments", "JSON object"},
		{"call arguments type", item(`{"type":"function_call","call_id":"c","name":"f","arguments":{}}`), "input[0].arguments", "expected string"},
		{"call id type", item(`{"type":"function_call","id":1,"call_id":"c","name":"f","arguments":""}`), "input[0].id", "expected string"},
		{"call status type", item(`{"type":"function_call","status":1,"call_id":"c","name":"f","arguments":""}`), "input[0].status", "expected string"},
		{"call namespace", item(`{"type":"function_call","namespace":1,"call_id":"c","name":"f","arguments":""}`), "input[0].namespace", "string"},
		{"call unknown key", item(`{"type":"function_call","call_id":"c","name":"f","arguments":"","caller":{}}`), "input[0].caller", "unknown field"},
		{"output without call_id", item(`{"type":"function_call_output","output":"x"}`), "input[0].call_id", "is required"},
		{"output without output", item(`{"type":"function_call_output","call_id":"c"}`), "input[0].output", "is required"},
		{"output type", item(`{"type":"function_call_output","call_id":"c","output":1}`), "input[0].output", "expected string or array"},
		{"output name type", item(`{"type":"function_call_output","call_id":"c","name":1,"output":""}`), "input[0].name", "expected string"},
		{"output id type", item(`{"type":"function_call_output","call_id":"c","id":1,"output":""}`), "input[0].id", "expected string"},
		{"output status type", item(`{"type":"function_call_output","call_id":"c","status":1,"output":""}`), "input[0].status", "expected string"},
		{"output namespace", item(`{"type":"function_call_output","call_id":"c","namespace":1,"output":""}`), "input[0].namespace", "string"},
		{"output unknown key", item(`{"type":"function_call_output","call_id":"c","output":"","x":1}`), "input[0].x", "unknown field"},
		{"output file", item(`{"type":"function_call_output","call_id":"c","output":[{"type":"input_file","file_url":"https://x/a.pdf"}]}`), "input[0].output[0]", "files in a function_call_output"},
		{"output output_text", item(`{"type":"function_call_output","call_id":"c","output":[{"type":"output_text","text":"x"}]}`), "input[0].output[0].type", "input_text, input_image or input_file"},
		{"output part error", item(`{"type":"function_call_output","call_id":"c","output":[{"type":"input_text"}]}`), "input[0].output[0].text", "is required"},

		{"image without url", part(`{"type":"input_image","detail":"auto"}`), "input[0].content[0].image_url", "is required"},
		{"image url type", part(`{"type":"input_image","image_url":1}`), "input[0].content[0].image_url", "expected string"},
		{"image file id", part(`{"type":"input_image","file_id":"file_1"}`), "input[0].content[0].file_id", "stored on OpenAI"},
		{"image ftp url", part(`{"type":"input_image","image_url":"ftp://x/y.png"}`), "input[0].content[0].image_url", "data: URL or an http(s) URL"},
		{"image bad data url", part(`{"type":"input_image","image_url":"data:image/png,abc"}`), "input[0].content[0].image_url", "base64 data: URL"},
		{"image detail value", part(`{"type":"input_image","image_url":"https://x/y.png","detail":"max"}`), "input[0].content[0].detail", "must be"},
		{"image detail type", part(`{"type":"input_image","image_url":"https://x/y.png","detail":1}`), "input[0].content[0].detail", "expected string"},
		{"image unknown key", part(`{"type":"input_image","image_url":"https://x/y.png","filename":"y.png"}`), "input[0].content[0].filename", "unknown field"},
		{"image in assistant message", item(`{"role":"assistant","content":[{"type":"input_image","image_url":"https://x/y.png"}]}`), "input[0].content[0].type", "only valid in user"},
		{"image in later system message", item(`{"role":"user","content":"x"},{"role":"system","content":[{"type":"input_image","image_url":"https://x/y.png"}]}`), "input[1].content[0]", "system or developer"},
		{"file without source", part(`{"type":"input_file","filename":"a.pdf"}`), "input[0].content[0]", "file_data or file_url is required"},
		{"file with both sources", part(`{"type":"input_file","file_data":"data:application/pdf;base64,QQ","file_url":"https://x/a.pdf"}`), "input[0].content[0]", "one of"},
		{"file data as URL", part(`{"type":"input_file","file_data":"https://x/a.pdf"}`), "input[0].content[0].file_data", "put URLs in file_url"},
		{"file raw data without pdf name", part(`{"type":"input_file","file_data":"QUJD","filename":"a.txt"}`), "input[0].content[0].file_data", "data: URL"},
		{"file url not http", part(`{"type":"input_file","file_url":"gs://b/a.pdf"}`), "input[0].content[0].file_url", "http(s) URL"},
		{"filename type", part(`{"type":"input_file","file_url":"https://x/a.pdf","filename":1}`), "input[0].content[0].filename", "expected string"},
		{"file data type", part(`{"type":"input_file","file_data":1}`), "input[0].content[0].file_data", "expected string"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var req codec.Request
			err := codec.DecodeRequest(codec.OpenAIResponses, []byte(tt.body), &req)
			var e *codec.Error
			if !errors.As(err, &e) {
				t.Fatalf("got error %v, want *Error", err)
			}
			if e.Status != 400 || e.Param != tt.param || !strings.Contains(e.Message, tt.msg) {
				t.Errorf("got %d %q %q, want 400 %q containing %q", e.Status, e.Param, e.Message, tt.param, tt.msg)
			}
		})
	}
}

// toolRequest is a canonical request with tools, calls, results,
// images and documents, as other protocols' decoders produce them.
func toolRequest() codec.Request {
	return codec.Request{Model: "claude-sonnet-4-5",
		System: []codec.Part{responsesText("Use tools.")}, SystemRole: codec.RoleSystem,
		Tools: []codec.Tool{
			{Name: "get_weather", Description: "Weather of a city.", Parameters: `{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`},
			{Name: "now", Strict: codec.OptBool{Value: true, Set: true}},
			{Name: "lax", Strict: codec.OptBool{Value: false, Set: true}, Parameters: `{"type":"object"}`},
		},
		ToolChoice: codec.ToolChoice{Mode: codec.ToolChoiceNamed, Name: "get_weather"}, ParallelToolCalls: codec.OptBool{Value: false, Set: true},
		Messages: []codec.Message{
			{Role: codec.RoleUser, Parts: []codec.Part{responsesText("Weather here?"), {Type: codec.PartImage, MediaType: "image/png", Data: "iVBORw0K"},
				{Type: codec.PartImage, URL: "https://example.com/street.jpg"},
				{Type: codec.PartDocument, MediaType: "application/pdf", Data: "JVBERi0x", Text: "notes.pdf"},
				{Type: codec.PartDocument, MediaType: "application/pdf", Data: "JVBERi0y"},
				{Type: codec.PartDocument, URL: "https://example.com/a.txt", MediaType: "text/plain"}}},
			{Role: codec.RoleAssistant, Parts: []codec.Part{responsesText("Let me look."),
				{Type: codec.PartToolCall, ToolCallID: "toolu_1", ToolName: "get_weather", Arguments: `{"city":"Paris"}`},
				{Type: codec.PartToolCall, ToolCallID: "toolu_2", ToolName: "now"}}},
			{Role: codec.RoleUser, Parts: []codec.Part{
				{Type: codec.PartToolResult, ToolCallID: "toolu_1", Content: []codec.Part{responsesText("18°C, \"sunny\"")}},
				{Type: codec.PartToolResult, ToolCallID: "toolu_2", IsError: true, Content: []codec.Part{responsesText("clock broken")}},
				responsesText("And tomorrow?")}},
			{Role: codec.RoleAssistant, Parts: []codec.Part{{Type: codec.PartToolCall, ToolCallID: "toolu_3", ToolName: "get_weather", Arguments: `{"city":"Paris","day":1}`},
				{Type: codec.PartToolCall, ToolCallID: "toolu_4", ToolName: "now", Arguments: `{}`},
				{Type: codec.PartToolCall, ToolCallID: "toolu_5", ToolName: "now", Arguments: `{}`},
				{Type: codec.PartToolCall, ToolCallID: "toolu_6", ToolName: "lax", Arguments: `{}`}}},
			{Role: codec.RoleUser, Parts: []codec.Part{
				{Type: codec.PartToolResult, ToolCallID: "toolu_3", Content: []codec.Part{responsesText("rain"), {Type: codec.PartImage, URL: "https://example.com/map.png"}}},
				{Type: codec.PartToolResult, ToolCallID: "toolu_4", IsError: true, Content: []codec.Part{{Type: codec.PartImage, MediaType: "image/gif", Data: "R0lG"}}},
				{Type: codec.PartToolResult, ToolCallID: "toolu_5", IsError: true},
				{Type: codec.PartToolResult, ToolCallID: "toolu_6"}}},
		}}
}

func TestResponsesAppendRequestTools(t *testing.T) {
	req := toolRequest()
	out, err := codec.AppendRequest(nil, codec.OpenAIResponses, &req, codec.EncodeOptions{Model: "gpt-5"})
	if err != nil {
		t.Fatal(err)
	}
	codectest.CheckGolden(t, "openai-responses/request_tools.json", out)
	for _, choice := range []struct {
		c    codec.ToolChoice
		want string
	}{
		{codec.ToolChoice{Mode: codec.ToolChoiceAuto}, `"tool_choice":"auto"`},
		{codec.ToolChoice{Mode: codec.ToolChoiceNone}, `"tool_choice":"none"`},
		{codec.ToolChoice{Mode: codec.ToolChoiceRequired}, `"tool_choice":"required"`},
		{codec.ToolChoice{}, `"strict":false}]`},
	} {
		r := codec.Request{Model: "m", Tools: []codec.Tool{{Name: "f"}}, ToolChoice: choice.c, ParallelToolCalls: codec.OptBool{Value: true, Set: true},
			Messages: []codec.Message{{Role: codec.RoleUser}}}
		out, err := codec.AppendRequest(nil, codec.OpenAIResponses, &r, codec.EncodeOptions{})
		if err != nil || !strings.Contains(string(out), choice.want) || !strings.Contains(string(out), `"parallel_tool_calls":true`) ||
			!strings.Contains(string(out), `"parameters":{"type":"object","properties":{}}`) || !strings.Contains(string(out), `"content":[]`) {
			t.Errorf("choice %+v: %s %v", choice.c, out, err)
		}
	}
}

func TestResponsesAppendRequestToolErrors(t *testing.T) {
	user := func(parts ...codec.Part) []codec.Message {
		return []codec.Message{{Role: codec.RoleUser, Parts: parts}}
	}
	tests := []struct {
		name  string
		req   codec.Request
		param string
	}{
		{"call in a user message", codec.Request{Messages: user(responsesText("x"), codec.Part{Type: codec.PartToolCall, ToolCallID: "c", ToolName: "f"})}, "messages[0].parts[1]"},
		{"result in an assistant message", codec.Request{Messages: []codec.Message{{Role: codec.RoleAssistant, Parts: []codec.Part{{Type: codec.PartToolResult, ToolCallID: "c"}}}}}, "messages[0].parts[0]"},
		{"audio", codec.Request{Messages: user(codec.Part{Type: codec.PartAudio, MediaType: "audio/wav", Data: "UklG"})}, "messages[0].parts[0]"},
		{"image in an assistant message", codec.Request{Messages: []codec.Message{{Role: codec.RoleAssistant, Parts: []codec.Part{responsesText("x"), {Type: codec.PartImage, URL: "https://x/y.png"}}}}}, "messages[0].parts[1]"},
		{"image in the system prompt", codec.Request{System: []codec.Part{{Type: codec.PartImage, URL: "https://x/y.png"}}, Messages: user(responsesText("x"))}, "system.parts[0]"},
		{"unknown part", codec.Request{Messages: user(codec.Part{Type: codec.PartType(99)})}, "messages[0].parts[0]"},
		{"document in a result", codec.Request{Messages: user(codec.Part{Type: codec.PartToolResult, ToolCallID: "c", Content: []codec.Part{responsesText("a"), {Type: codec.PartDocument, URL: "https://x/a.pdf"}}})}, "messages[0].parts[0].content[1]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := codec.AppendRequest(nil, codec.OpenAIResponses, &tt.req, codec.EncodeOptions{})
			var e *codec.Error
			if !errors.As(err, &e) || e.Status != 400 || e.Param != tt.param || !strings.Contains(e.Message, "cannot be expressed in the openai-responses protocol") {
				t.Errorf("got %v, want a 400 about %s", err, tt.param)
			}
		})
	}
}

// TestResponsesToolRequestRoundTrip encodes the canonical tool request and
// decodes it again: all survives except the error flags, which Responses
// carries as an "Error: " prefix, images of error results without text,
// which get an "Error:" text, and the empty results' texts.
func TestResponsesToolRequestRoundTrip(t *testing.T) {
	req := toolRequest()
	out, err := codec.AppendRequest(nil, codec.OpenAIResponses, &req, codec.EncodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var got codec.Request
	if err := codec.DecodeRequest(codec.OpenAIResponses, out, &got); err != nil {
		t.Fatal(err)
	}
	want := toolRequest()
	want.Dropped = []string{"store"}
	// Unset strict is written as false, and empty parameters as an
	// empty object schema; documents get a filename.
	want.Tools[0].Strict = codec.OptBool{Value: false, Set: true}
	want.Tools[1].Parameters = `{"type":"object","properties":{}}`
	want.Messages[0].Parts[4].Text = "document.pdf"
	want.Messages[0].Parts[5] = codec.Part{Type: codec.PartDocument, URL: "https://example.com/a.txt", Text: "document.txt"}
	want.Messages[1].Parts[2].Arguments = "{}"
	results := want.Messages[2].Parts
	results[1] = codec.Part{Type: codec.PartToolResult, ToolCallID: "toolu_2", Content: []codec.Part{responsesText("Error: clock broken")}}
	results = want.Messages[4].Parts
	results[1] = codec.Part{Type: codec.PartToolResult, ToolCallID: "toolu_4", Content: []codec.Part{responsesText("Error:"), {Type: codec.PartImage, MediaType: "image/gif", Data: "R0lG"}}}
	results[2] = codec.Part{Type: codec.PartToolResult, ToolCallID: "toolu_5", Content: []codec.Part{responsesText("Error:")}}
	results[3] = codec.Part{Type: codec.PartToolResult, ToolCallID: "toolu_6", Content: []codec.Part{responsesText("")}}
	if !codectest.EqualDecoded(got, want) {
		t.Errorf("round trip:\n got %+v\nwant %+v", got, want)
	}
}

// TestResponsesPlainTextParts checks which content parts the plain text
// fast path takes, and that it gives their text as the decoder should.
// The general path is what the decoder did before the fast path existed;
// TestResponsesDecodeRequest and its neighbours hold its results.
func TestResponsesPlainTextParts(t *testing.T) {
	for _, c := range []struct {
		part   string
		output bool // inside a function_call_output
		fast   bool
	}{
		{`{"type":"input_text","text":"a \"b\"\n"}`, false, true},
		{`{"text":"x","type":"output_text"}`, false, true},
		{`{"type":"input_text","text":"in a tool output"}`, true, true},
		{`{"type":"output_text","text":"not in a tool output"}`, true, false},
		{`{"type":"output_text","text":"a","annotations":[]}`, false, false},
		{`{"type":"input_text"}`, false, false},
		{`{"type":"input_text","text":null}`, false, false},
		{`{"type":"refusal","refusal":"no"}`, false, false},
		{`{"type":"input_image","image_url":"https://x/y.png"}`, false, false},
	} {
		body := []byte(`{"input":[` + c.part + `]}`)
		root, index, err := wire.ParseIndexed(body)
		if err != nil {
			t.Fatalf("%s: %v", c.part, err)
		}
		req := &request{Request: &codec.Request{}, Text: jsonx.IndexedArena(index)}
		part := root.Get("input.0")
		types := []string{`"input_text"`, `"output_text"`}
		if c.output {
			types = types[:1]
		}
		text, fast := wire.PlainText(&req.Text, part.Raw, types...)
		if fast != c.fast {
			t.Errorf("%s: fast path %v, want %v", c.part, fast, c.fast)
		}
		// What the general path makes of a plain text part: its text.
		want := gjson.Get(c.part, "text").Str
		full, ferr := appendContent(nil, part, codec.RoleUser, func() string { return "input[0]" }, c.output, req)
		if fast && (text.TextValue() != want || ferr != nil || len(full) != 1 || full[0].Type != codec.PartText || full[0].TextValue() != want ||
			!sameLiteral(&full[0], &text)) {
			t.Errorf("%s: fast path gives %+v, the decoder %+v, %v; want %q", c.part, text, full, ferr, want)
		}
		index.Release()
	}
}

// sameLiteral reports whether a and b keep the same literal of their text.
func sameLiteral(a, b *codec.Part) bool {
	la, oka := a.JSONText()
	lb, okb := b.JSONText()
	return la == lb && oka == okb
}
