package gemini

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/codectest"
	"github.com/llmbridge/llmbridge/mapping"
	"github.com/tidwall/gjson"
)

// TestGeminiDecodeRequestTools covers tools, the legacy Schema conversion,
// toolConfig, and calls and results in the history.
func TestGeminiDecodeRequestTools(t *testing.T) {
	const ok = `"contents":[{"parts":[{"text":"q"}]}]`
	decl := func(d string) string { return `{` + ok + `,"tools":[{"functionDeclarations":[` + d + `]}]}` }
	tests := []struct {
		name    string
		body    string
		tools   []codec.Tool
		choice  codec.ToolChoice
		dropped []string
	}{
		{name: "no parameters", body: decl(`{"name":"now","description":"The time","behavior":"BLOCKING"}`),
			tools: []codec.Tool{{Name: "now", Description: "The time"}}},
		{name: "null schemas and empty tool", body: `{` + ok + `,"tools":[{},{"functionDeclarations":null,"googleSearch":null},{"function_declarations":[{"name":"f","parameters":null,"parametersJsonSchema":null,"response":null}]}]}`,
			tools: []codec.Tool{{Name: "f"}}},
		{name: "json schema copied", body: decl(`{"name":"f","parametersJsonSchema":{"type":"object","properties":{"x":{"type":"string","minLength":1}},"additionalProperties":false,"$schema":"https://json-schema.org/draft/2020-12/schema"}}`),
			tools: []codec.Tool{{Name: "f", Parameters: `{"type":"object","properties":{"x":{"type":"string","minLength":1}},"additionalProperties":false,"$schema":"https://json-schema.org/draft/2020-12/schema"}`}}},
		{name: "legacy schema converted",
			body: decl(`{"name":"f","parameters":{"type":"OBJECT","title":"T","nullable":false,"properties":{` +
				`"s":{"type":"STRING","format":"date-time","nullable":true,"pattern":"^a","minLength":"1","max_length":9,"example":"2024"},` +
				`"e":{"type":"string","enum":["a","b"],"default":"a"},` +
				`"n":{"type":"NUMBER","minimum":0,"maximum":1.5},` +
				`"i":{"type":"TYPE_UNSPECIFIED","anyOf":[{"type":"INTEGER"},{"type":"NULL"}]},` +
				`"a":{"type":"ARRAY","items":{"type":"BOOLEAN"},"minItems":1,"max_items":"3"},` +
				`"o":{"type":"OBJECT","additionalProperties":{"type":"STRING"},"min_properties":0,"maxProperties":4,"propertyOrdering":["x"]},` +
				`"b":{"type":"OBJECT","additional_properties":false,"any_of":[{"type":"NULL","nullable":true}]}},` +
				`"required":["s"],"property_ordering":["s","e"],"description":null}}`),
			tools: []codec.Tool{{Name: "f", Parameters: `{"type":"object","title":"T","properties":{` +
				`"s":{"type":["string","null"],"format":"date-time","pattern":"^a","minLength":1,"maxLength":9,"examples":["2024"]},` +
				`"e":{"type":"string","enum":["a","b"],"default":"a"},` +
				`"n":{"type":"number","minimum":0,"maximum":1.5},` +
				`"i":{"anyOf":[{"type":"integer"},{"type":"null"}]},` +
				`"a":{"type":"array","items":{"type":"boolean"},"minItems":1,"maxItems":3},` +
				`"o":{"type":"object","additionalProperties":{"type":"string"},"minProperties":0,"maxProperties":4},` +
				`"b":{"type":"object","additionalProperties":false,"anyOf":[{"type":"null"}]}},` +
				`"required":["s"]}`}},
			dropped: []string{
				"tools[0].functionDeclarations[0].parameters.properties.o.propertyOrdering",
				"tools[0].functionDeclarations[0].parameters.property_ordering"}},
		{name: "auto", body: `{` + ok + `,"toolConfig":{"functionCallingConfig":{"mode":"AUTO"}}}`, choice: codec.ToolChoice{Mode: codec.ToolChoiceAuto}},
		{name: "none", body: `{` + ok + `,"tool_config":{"function_calling_config":{"mode":"NONE"}}}`, choice: codec.ToolChoice{Mode: codec.ToolChoiceNone}},
		{name: "any", body: `{` + ok + `,"toolConfig":{"functionCallingConfig":{"mode":"ANY","streamFunctionCallArguments":false}}}`, choice: codec.ToolChoice{Mode: codec.ToolChoiceRequired}},
		{name: "unspecified", body: `{` + ok + `,"toolConfig":{"functionCallingConfig":{"mode":"MODE_UNSPECIFIED"},"retrievalConfig":null}}`},
		{name: "null configs", body: `{` + ok + `,"toolConfig":null,"tools":null}`},
		{name: "null calling config", body: `{` + ok + `,"toolConfig":{"functionCallingConfig":null}}`},
		{name: "named", body: `{` + ok + `,"tools":[{"functionDeclarations":[{"name":"f"},{"name":"g"}]}],"toolConfig":{"functionCallingConfig":{"mode":"ANY","allowedFunctionNames":["g"]}}}`,
			tools: []codec.Tool{{Name: "f"}, {Name: "g"}}, choice: codec.ToolChoice{Mode: codec.ToolChoiceNamed, Name: "g"}},
		{name: "every name is any", body: `{` + ok + `,"toolConfig":{"functionCallingConfig":{"allowedFunctionNames":["g","f"],"mode":"ANY"}},"tools":[{"functionDeclarations":[{"name":"f"},{"name":"g"}]}]}`,
			tools: []codec.Tool{{Name: "f"}, {Name: "g"}}, choice: codec.ToolChoice{Mode: codec.ToolChoiceRequired}},
		{name: "streamed arguments dropped", body: `{` + ok + `,"toolConfig":{"functionCallingConfig":{"mode":"AUTO","stream_function_call_arguments":true}}}`,
			choice: codec.ToolChoice{Mode: codec.ToolChoiceAuto}, dropped: []string{"toolConfig.functionCallingConfig.stream_function_call_arguments"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, err := decode(t, codec.Gemini, tt.body)
			if err != nil {
				t.Fatal(err)
			}
			if len(req.Tools) == 0 {
				req.Tools = nil
			}
			if !codectest.EqualDecoded(req.Tools, tt.tools) || req.ToolChoice != tt.choice || !codectest.EqualDecoded(req.Dropped, tt.dropped) {
				t.Errorf("tools %+v choice %+v dropped %q\nwant %+v %+v %q", req.Tools, req.ToolChoice, req.Dropped, tt.tools, tt.choice, tt.dropped)
			}
			for _, tool := range req.Tools {
				if tool.Parameters != "" && !json.Valid([]byte(tool.Parameters)) {
					t.Errorf("parameters of %s are not JSON: %s", tool.Name, tool.Parameters)
				}
			}
		})
	}
}

// TestGeminiDecodeRequestToolHistory covers id synthesis, matching by id
// and by name and order, and the unwrapping of results.
func TestGeminiDecodeRequestToolHistory(t *testing.T) {
	body := `{"contents":[
		{"parts":[{"text":"q"}]},
		{"role":"model","parts":[{"text":"Let me see."},{"functionCall":{"name":"f","args":{"a":1}}},{"functionCall":{"name":"f"}},{"function_call":{"id":"x","name":"g","args":null}}]},
		{"parts":[{"functionResponse":{"id":"x","name":"g","response":{"output":"done"}}},{"functionResponse":{"name":"f","response":{"error":"boom"}}}]},
		{"parts":[{"function_response":{"name":"f","response":{"output":{"n":1}}}},{"text":"and?"}]},
		{"role":"model","parts":[{"functionCall":{"name":"f","args":{}}}]},
		{"parts":[{"functionResponse":{"name":"f","response":{"a":"b","output":"x"}}}]}
	]}`
	req, err := decode(t, codec.Gemini, body)
	if err != nil {
		t.Fatal(err)
	}
	text := func(s string) []codec.Part { return []codec.Part{{Type: codec.PartText, Text: s}} }
	want := []codec.Message{
		geminiText(codec.RoleUser, "q"),
		{Role: codec.RoleAssistant, Parts: []codec.Part{
			{Type: codec.PartText, Text: "Let me see."},
			{Type: codec.PartToolCall, ToolCallID: "call_1_1", ToolName: "f", Arguments: `{"a":1}`},
			{Type: codec.PartToolCall, ToolCallID: "call_1_2", ToolName: "f"},
			{Type: codec.PartToolCall, ToolCallID: "x", ToolName: "g"},
		}},
		{Role: codec.RoleUser, Parts: []codec.Part{
			{Type: codec.PartToolResult, ToolCallID: "x", ToolName: "g", Content: text("done")},
			{Type: codec.PartToolResult, ToolCallID: "call_1_1", ToolName: "f", Content: text("boom"), IsError: true},
		}},
		{Role: codec.RoleUser, Parts: []codec.Part{
			{Type: codec.PartToolResult, ToolCallID: "call_1_2", ToolName: "f", Content: text(`{"output":{"n":1}}`)},
			{Type: codec.PartText, Text: "and?"},
		}},
		{Role: codec.RoleAssistant, Parts: []codec.Part{{Type: codec.PartToolCall, ToolCallID: "call_4_0", ToolName: "f", Arguments: "{}"}}},
		{Role: codec.RoleUser, Parts: []codec.Part{{Type: codec.PartToolResult, ToolCallID: "call_4_0", ToolName: "f", Content: text(`{"a":"b","output":"x"}`)}}},
	}
	if !codectest.EqualDecoded(req.Messages, want) {
		t.Errorf("messages\n got %+v\nwant %+v", req.Messages, want)
	}
}

func TestGeminiAppendRequestTools(t *testing.T) {
	req := codec.Request{
		Model: "gemini-2.5-flash",
		Tools: []codec.Tool{
			{Name: "weather", Description: "Weather of a city", Parameters: `{"type":"object","properties":{"city":{"type":"string"}},"required":["city"],"additionalProperties":false}`, Strict: codec.OptBool{Set: true}},
			{Name: "now"},
		},
		ToolChoice:        codec.ToolChoice{Mode: codec.ToolChoiceNamed, Name: "weather"},
		ParallelToolCalls: codec.OptBool{Value: false, Set: true},
		Messages: []codec.Message{
			geminiText(codec.RoleUser, "Weather in Paris and the time?"),
			{Role: codec.RoleAssistant, Parts: []codec.Part{
				{Type: codec.PartText, Text: "Checking."},
				{Type: codec.PartToolCall, ToolCallID: "call_1", ToolName: "weather", Arguments: `{"city":"Paris"}`},
				{Type: codec.PartToolCall, ToolCallID: "call_2", ToolName: "now"},
			}},
			// Chat-style results: no name, found from the call's id.
			{Role: codec.RoleUser, Parts: []codec.Part{
				{Type: codec.PartToolResult, ToolCallID: "call_1", Content: []codec.Part{{Type: codec.PartText, Text: "18 C"}}},
				{Type: codec.PartToolResult, ToolCallID: "call_2", ToolName: "now", IsError: true, Content: []codec.Part{{Type: codec.PartText, Text: "no clock"}, {Type: codec.PartText, Text: "try later"}}},
			}},
			geminiText(codec.RoleUser, "Thanks"),
		},
	}
	out, err := codec.AppendRequest(nil, codec.Gemini, &req, codec.EncodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	codectest.CheckGolden(t, "gemini/request_tools.json", out)
	if !codectest.EqualDecoded(req.Dropped, []string{"parallel_tool_calls"}) {
		t.Errorf("Dropped %q", req.Dropped)
	}
	// Decoding the body gives the request back (the id of the result
	// without a name is matched, the dropped hint stays dropped).
	again, derr := decode(t, codec.Gemini, string(out))
	if derr != nil {
		t.Fatal(derr)
	}
	want := req
	want.Model, want.Dropped, want.ParallelToolCalls = "", nil, codec.OptBool{}
	want.Tools = []codec.Tool{want.Tools[0], want.Tools[1]}
	want.Tools[0].Strict = codec.OptBool{}
	want.Messages = []codec.Message{req.Messages[0], req.Messages[1], {Role: codec.RoleUser, Parts: []codec.Part{
		{Type: codec.PartToolResult, ToolCallID: "call_1", ToolName: "weather", Content: []codec.Part{{Type: codec.PartText, Text: "18 C"}}},
		{Type: codec.PartToolResult, ToolCallID: "call_2", ToolName: "now", IsError: true, Content: []codec.Part{{Type: codec.PartText, Text: "no clock\ntry later"}}},
		{Type: codec.PartText, Text: "Thanks"},
	}}}
	again.Messages[1].Parts[2].Arguments = "" // {} was written for no arguments
	if !codectest.EqualDecoded(again, want) {
		t.Errorf("round trip\n got %+v\nwant %+v", again, want)
	}

	for mode, wantMode := range map[codec.ToolChoiceMode]string{codec.ToolChoiceAuto: `"AUTO"`, codec.ToolChoiceNone: `"NONE"`, codec.ToolChoiceRequired: `"ANY"`} {
		r := codec.Request{Messages: []codec.Message{geminiText(codec.RoleUser, "q")}, Tools: []codec.Tool{{Name: "f"}}, ToolChoice: codec.ToolChoice{Mode: mode}}
		out, err := codec.AppendRequest(nil, codec.Vertex, &r, codec.EncodeOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if got := gjson.GetBytes(out, "toolConfig.functionCallingConfig.mode").Raw; got != wantMode {
			t.Errorf("mode %v: %s", mode, out)
		}
	}
	// No tools: no tools and no toolConfig.
	r := codec.Request{Messages: []codec.Message{geminiText(codec.RoleUser, "q")}, ToolChoice: codec.ToolChoice{Mode: codec.ToolChoiceNone}}
	if out, _ := codec.AppendRequest(nil, codec.Gemini, &r, codec.EncodeOptions{}); strings.Contains(string(out), "tool") {
		t.Errorf("body %s", out)
	}
}

func TestGeminiAppendRequestToolErrors(t *testing.T) {
	user := geminiText(codec.RoleUser, "q")
	call := codec.Part{Type: codec.PartToolCall, ToolCallID: "c", ToolName: "f"}
	tests := []struct {
		name  string
		req   codec.Request
		param string
		msg   string
	}{
		{"strict", codec.Request{Messages: []codec.Message{user}, Tools: []codec.Tool{{Name: "f"}, {Name: "g", Strict: codec.OptBool{Value: true, Set: true}}}}, "tools[1].strict", "strict: true"},
		{"hosted", codec.Request{Messages: []codec.Message{user}, Tools: []codec.Tool{{Kind: codec.ToolWebSearch, WebSearch: codec.WebSearchOptions{MaxUses: codec.OptInt{Value: 3, Set: true}}}}}, "tools[0]", "hosted tool"},
		{"parameters not object", codec.Request{Messages: []codec.Message{user}, Tools: []codec.Tool{{Name: "f", Parameters: `"x"`}}}, "tools[0].parameters", "JSON object"},
		{"call in user message", codec.Request{Messages: []codec.Message{{Role: codec.RoleUser, Parts: []codec.Part{call}}}}, "messages[0].content[0]", "tool call outside an assistant message"},
		{"result in assistant message", codec.Request{Messages: []codec.Message{user, {Role: codec.RoleAssistant, Parts: []codec.Part{{Type: codec.PartToolResult, ToolCallID: "c", ToolName: "f"}}}}}, "messages[1].content[0]", "tool result outside a user message"},
		{"arguments not object", codec.Request{Messages: []codec.Message{user, {Role: codec.RoleAssistant, Parts: []codec.Part{{Type: codec.PartToolCall, ToolName: "f", Arguments: "[]"}}}}}, "messages[1].content[0].arguments", "JSON object"},
		{"unknown call id", codec.Request{Messages: []codec.Message{user, {Role: codec.RoleAssistant, Parts: []codec.Part{call}}, {Role: codec.RoleUser, Parts: []codec.Part{{Type: codec.PartToolResult, ToolCallID: "d"}}}}}, "messages[2].content[0]", `tool result for unknown call id "d"`},
		{"result without id or name", codec.Request{Messages: []codec.Message{{Role: codec.RoleUser, Parts: []codec.Part{{Type: codec.PartToolResult}}}}}, "messages[0].content[0]", "unknown call id"},
		{"result image", codec.Request{Messages: []codec.Message{user, {Role: codec.RoleAssistant, Parts: []codec.Part{call}}, {Role: codec.RoleUser, Parts: []codec.Part{{Type: codec.PartToolResult, ToolCallID: "c", Content: []codec.Part{{Type: codec.PartText, Text: "a"}, {Type: codec.PartImage, URL: "https://x"}}}}}}}, "messages[2].content[0].content[1]", "tool result content type"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := codec.AppendRequest([]byte("x"), codec.Gemini, &tt.req, codec.EncodeOptions{})
			var e *codec.Error
			if !errors.As(err, &e) || e.Status != 400 || e.Param != tt.param || !strings.Contains(e.Message, tt.msg) {
				t.Fatalf("error %v, want 400 at %s containing %q", err, tt.param, tt.msg)
			}
			if string(out) != "x" {
				t.Errorf("dst %q, want it unchanged", out)
			}
		})
	}
}

func TestGeminiResponseToolCalls(t *testing.T) {
	resp := codec.Response{ID: "r1", Model: "gpt-4o", StopReason: mapping.StopToolUse, Content: []codec.Part{
		{Type: codec.PartText, Text: "Checking."},
		{Type: codec.PartToolCall, ToolCallID: "call_1", ToolName: "weather", Arguments: `{"city":"Paris"}`},
		{Type: codec.PartToolCall, ToolCallID: "call_2", ToolName: "now"},
	}}
	out, err := codec.AppendResponse(nil, codec.Gemini, &resp)
	if err != nil {
		t.Fatal(err)
	}
	codectest.CheckGolden(t, "gemini/response_tool_calls.json", out)
	var again codec.Response
	if err := codec.DecodeResponse(codec.Gemini, out, &again); err != nil {
		t.Fatal(err)
	}
	want := resp
	want.Content = []codec.Part{resp.Content[0], resp.Content[1], {Type: codec.PartToolCall, ToolCallID: "call_2", ToolName: "now", Arguments: "{}"}}
	if !codectest.EqualDecoded(again, want) {
		t.Errorf("round trip\n got %+v\nwant %+v", again, want)
	}
	// Ids are synthesised without a response id too; a call with any
	// other stop reason keeps it.
	var r codec.Response
	if err := codec.DecodeResponse(codec.Gemini, []byte(`{"candidates":[{"content":{"parts":[{"functionCall":{"name":"f","willContinue":false}}]},"finishReason":"MAX_TOKENS"}]}`), &r); err != nil {
		t.Fatal(err)
	}
	if len(r.Content) != 1 || r.Content[0].ToolCallID != "call_0" || r.Content[0].Arguments != "" || r.StopReason != mapping.StopMaxTokens {
		t.Errorf("got %+v", r)
	}
	if id := geminiCallID("a.b/c", 3); id != "call_abc_3" {
		t.Errorf("geminiCallID = %q", id)
	}
	bad := codec.Response{Content: []codec.Part{{Type: codec.PartToolCall, ToolName: "f", Arguments: "nope"}}}
	if _, err := codec.AppendResponse(nil, codec.Gemini, &bad); err == nil {
		t.Error("no error for arguments that are not an object")
	}
}
