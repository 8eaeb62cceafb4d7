package codec

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/llmbridge/llmbridge/mapping"
	"github.com/tidwall/gjson"
)

// Tests of tools, toolConfig and function calls in Gemini requests and
// responses.

// TestGeminiDecodeRequestTools covers tools, the legacy Schema conversion,
// toolConfig, and calls and results in the history.
func TestGeminiDecodeRequestTools(t *testing.T) {
	const ok = `"contents":[{"parts":[{"text":"q"}]}]`
	decl := func(d string) string { return `{` + ok + `,"tools":[{"functionDeclarations":[` + d + `]}]}` }
	tests := []struct {
		name    string
		body    string
		tools   []Tool
		choice  ToolChoice
		dropped []string
	}{
		{name: "no parameters", body: decl(`{"name":"now","description":"The time","behavior":"BLOCKING"}`),
			tools: []Tool{{Name: "now", Description: "The time"}}},
		{name: "null schemas and empty tool", body: `{` + ok + `,"tools":[{},{"functionDeclarations":null,"googleSearch":null},{"function_declarations":[{"name":"f","parameters":null,"parametersJsonSchema":null,"response":null}]}]}`,
			tools: []Tool{{Name: "f"}}},
		{name: "json schema copied", body: decl(`{"name":"f","parametersJsonSchema":{"type":"object","properties":{"x":{"type":"string","minLength":1}},"additionalProperties":false,"$schema":"https://json-schema.org/draft/2020-12/schema"}}`),
			tools: []Tool{{Name: "f", Parameters: `{"type":"object","properties":{"x":{"type":"string","minLength":1}},"additionalProperties":false,"$schema":"https://json-schema.org/draft/2020-12/schema"}`}}},
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
			tools: []Tool{{Name: "f", Parameters: `{"type":"object","title":"T","properties":{` +
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
		{name: "auto", body: `{` + ok + `,"toolConfig":{"functionCallingConfig":{"mode":"AUTO"}}}`, choice: ToolChoice{Mode: ToolChoiceAuto}},
		{name: "none", body: `{` + ok + `,"tool_config":{"function_calling_config":{"mode":"NONE"}}}`, choice: ToolChoice{Mode: ToolChoiceNone}},
		{name: "any", body: `{` + ok + `,"toolConfig":{"functionCallingConfig":{"mode":"ANY","streamFunctionCallArguments":false}}}`, choice: ToolChoice{Mode: ToolChoiceRequired}},
		{name: "unspecified", body: `{` + ok + `,"toolConfig":{"functionCallingConfig":{"mode":"MODE_UNSPECIFIED"},"retrievalConfig":null}}`},
		{name: "null configs", body: `{` + ok + `,"toolConfig":null,"tools":null}`},
		{name: "null calling config", body: `{` + ok + `,"toolConfig":{"functionCallingConfig":null}}`},
		{name: "named", body: `{` + ok + `,"tools":[{"functionDeclarations":[{"name":"f"},{"name":"g"}]}],"toolConfig":{"functionCallingConfig":{"mode":"ANY","allowedFunctionNames":["g"]}}}`,
			tools: []Tool{{Name: "f"}, {Name: "g"}}, choice: ToolChoice{Mode: ToolChoiceNamed, Name: "g"}},
		{name: "every name is any", body: `{` + ok + `,"toolConfig":{"functionCallingConfig":{"allowedFunctionNames":["g","f"],"mode":"ANY"}},"tools":[{"functionDeclarations":[{"name":"f"},{"name":"g"}]}]}`,
			tools: []Tool{{Name: "f"}, {Name: "g"}}, choice: ToolChoice{Mode: ToolChoiceRequired}},
		{name: "streamed arguments dropped", body: `{` + ok + `,"toolConfig":{"functionCallingConfig":{"mode":"AUTO","stream_function_call_arguments":true}}}`,
			choice: ToolChoice{Mode: ToolChoiceAuto}, dropped: []string{"toolConfig.functionCallingConfig.stream_function_call_arguments"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, err := geminiDecode(t, Gemini, tt.body)
			if err != nil {
				t.Fatal(err)
			}
			if len(req.Tools) == 0 {
				req.Tools = nil
			}
			if !equalDecoded(req.Tools, tt.tools) || req.ToolChoice != tt.choice || !equalDecoded(req.Dropped, tt.dropped) {
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
	req, err := geminiDecode(t, Gemini, body)
	if err != nil {
		t.Fatal(err)
	}
	text := func(s string) []Part { return []Part{{Type: PartText, Text: s}} }
	want := []Message{
		geminiText(RoleUser, "q"),
		{Role: RoleAssistant, Parts: []Part{
			{Type: PartText, Text: "Let me see."},
			{Type: PartToolCall, ToolCallID: "call_1_1", ToolName: "f", Arguments: `{"a":1}`},
			{Type: PartToolCall, ToolCallID: "call_1_2", ToolName: "f"},
			{Type: PartToolCall, ToolCallID: "x", ToolName: "g"},
		}},
		{Role: RoleUser, Parts: []Part{
			{Type: PartToolResult, ToolCallID: "x", ToolName: "g", Content: text("done")},
			{Type: PartToolResult, ToolCallID: "call_1_1", ToolName: "f", Content: text("boom"), IsError: true},
		}},
		{Role: RoleUser, Parts: []Part{
			{Type: PartToolResult, ToolCallID: "call_1_2", ToolName: "f", Content: text(`{"output":{"n":1}}`)},
			{Type: PartText, Text: "and?"},
		}},
		{Role: RoleAssistant, Parts: []Part{{Type: PartToolCall, ToolCallID: "call_4_0", ToolName: "f", Arguments: "{}"}}},
		{Role: RoleUser, Parts: []Part{{Type: PartToolResult, ToolCallID: "call_4_0", ToolName: "f", Content: text(`{"a":"b","output":"x"}`)}}},
	}
	if !equalDecoded(req.Messages, want) {
		t.Errorf("messages\n got %+v\nwant %+v", req.Messages, want)
	}
}

func TestGeminiAppendRequestTools(t *testing.T) {
	req := Request{
		Model: "gemini-2.5-flash",
		Tools: []Tool{
			{Name: "weather", Description: "Weather of a city", Parameters: `{"type":"object","properties":{"city":{"type":"string"}},"required":["city"],"additionalProperties":false}`, Strict: OptBool{Set: true}},
			{Name: "now"},
		},
		ToolChoice:        ToolChoice{Mode: ToolChoiceNamed, Name: "weather"},
		ParallelToolCalls: OptBool{Value: false, Set: true},
		Messages: []Message{
			geminiText(RoleUser, "Weather in Paris and the time?"),
			{Role: RoleAssistant, Parts: []Part{
				{Type: PartText, Text: "Checking."},
				{Type: PartToolCall, ToolCallID: "call_1", ToolName: "weather", Arguments: `{"city":"Paris"}`},
				{Type: PartToolCall, ToolCallID: "call_2", ToolName: "now"},
			}},
			// Chat-style results: no name, found from the call's id.
			{Role: RoleUser, Parts: []Part{
				{Type: PartToolResult, ToolCallID: "call_1", Content: []Part{{Type: PartText, Text: "18 C"}}},
				{Type: PartToolResult, ToolCallID: "call_2", ToolName: "now", IsError: true, Content: []Part{{Type: PartText, Text: "no clock"}, {Type: PartText, Text: "try later"}}},
			}},
			geminiText(RoleUser, "Thanks"),
		},
	}
	out, err := AppendRequest(nil, Gemini, &req, EncodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "gemini/request_tools.json", out)
	if !equalDecoded(req.Dropped, []string{"parallel_tool_calls"}) {
		t.Errorf("Dropped %q", req.Dropped)
	}
	// Decoding the body gives the request back (the id of the result
	// without a name is matched, the dropped hint stays dropped).
	again, derr := geminiDecode(t, Gemini, string(out))
	if derr != nil {
		t.Fatal(derr)
	}
	want := req
	want.Model, want.Dropped, want.ParallelToolCalls = "", nil, OptBool{}
	want.Tools = []Tool{want.Tools[0], want.Tools[1]}
	want.Tools[0].Strict = OptBool{}
	want.Messages = []Message{req.Messages[0], req.Messages[1], {Role: RoleUser, Parts: []Part{
		{Type: PartToolResult, ToolCallID: "call_1", ToolName: "weather", Content: []Part{{Type: PartText, Text: "18 C"}}},
		{Type: PartToolResult, ToolCallID: "call_2", ToolName: "now", IsError: true, Content: []Part{{Type: PartText, Text: "no clock\ntry later"}}},
		{Type: PartText, Text: "Thanks"},
	}}}
	again.Messages[1].Parts[2].Arguments = "" // {} was written for no arguments
	if !equalDecoded(again, want) {
		t.Errorf("round trip\n got %+v\nwant %+v", again, want)
	}

	for mode, wantMode := range map[ToolChoiceMode]string{ToolChoiceAuto: `"AUTO"`, ToolChoiceNone: `"NONE"`, ToolChoiceRequired: `"ANY"`} {
		r := Request{Messages: []Message{geminiText(RoleUser, "q")}, Tools: []Tool{{Name: "f"}}, ToolChoice: ToolChoice{Mode: mode}}
		out, err := AppendRequest(nil, Vertex, &r, EncodeOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if got := gjson.GetBytes(out, "toolConfig.functionCallingConfig.mode").Raw; got != wantMode {
			t.Errorf("mode %v: %s", mode, out)
		}
	}
	// No tools: no tools and no toolConfig.
	r := Request{Messages: []Message{geminiText(RoleUser, "q")}, ToolChoice: ToolChoice{Mode: ToolChoiceNone}}
	if out, _ := AppendRequest(nil, Gemini, &r, EncodeOptions{}); strings.Contains(string(out), "tool") {
		t.Errorf("body %s", out)
	}
}

func TestGeminiAppendRequestToolErrors(t *testing.T) {
	user := geminiText(RoleUser, "q")
	call := Part{Type: PartToolCall, ToolCallID: "c", ToolName: "f"}
	tests := []struct {
		name  string
		req   Request
		param string
		msg   string
	}{
		{"strict", Request{Messages: []Message{user}, Tools: []Tool{{Name: "f"}, {Name: "g", Strict: OptBool{Value: true, Set: true}}}}, "tools[1].strict", "strict: true"},
		{"hosted", Request{Messages: []Message{user}, Tools: []Tool{{Kind: ToolWebSearch, WebSearch: WebSearchOptions{MaxUses: OptInt{Value: 3, Set: true}}}}}, "tools[0]", "hosted tool"},
		{"parameters not object", Request{Messages: []Message{user}, Tools: []Tool{{Name: "f", Parameters: `"x"`}}}, "tools[0].parameters", "JSON object"},
		{"call in user message", Request{Messages: []Message{{Role: RoleUser, Parts: []Part{call}}}}, "messages[0].content[0]", "tool call outside an assistant message"},
		{"result in assistant message", Request{Messages: []Message{user, {Role: RoleAssistant, Parts: []Part{{Type: PartToolResult, ToolCallID: "c", ToolName: "f"}}}}}, "messages[1].content[0]", "tool result outside a user message"},
		{"arguments not object", Request{Messages: []Message{user, {Role: RoleAssistant, Parts: []Part{{Type: PartToolCall, ToolName: "f", Arguments: "[]"}}}}}, "messages[1].content[0].arguments", "JSON object"},
		{"unknown call id", Request{Messages: []Message{user, {Role: RoleAssistant, Parts: []Part{call}}, {Role: RoleUser, Parts: []Part{{Type: PartToolResult, ToolCallID: "d"}}}}}, "messages[2].content[0]", `tool result for unknown call id "d"`},
		{"result without id or name", Request{Messages: []Message{{Role: RoleUser, Parts: []Part{{Type: PartToolResult}}}}}, "messages[0].content[0]", "unknown call id"},
		{"result image", Request{Messages: []Message{user, {Role: RoleAssistant, Parts: []Part{call}}, {Role: RoleUser, Parts: []Part{{Type: PartToolResult, ToolCallID: "c", Content: []Part{{Type: PartText, Text: "a"}, {Type: PartImage, URL: "https://x"}}}}}}}, "messages[2].content[0].content[1]", "tool result content type"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := AppendRequest([]byte("x"), Gemini, &tt.req, EncodeOptions{})
			var e *Error
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
	resp := Response{ID: "r1", Model: "gpt-4o", StopReason: mapping.StopToolUse, Content: []Part{
		{Type: PartText, Text: "Checking."},
		{Type: PartToolCall, ToolCallID: "call_1", ToolName: "weather", Arguments: `{"city":"Paris"}`},
		{Type: PartToolCall, ToolCallID: "call_2", ToolName: "now"},
	}}
	out, err := AppendResponse(nil, Gemini, &resp)
	if err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "gemini/response_tool_calls.json", out)
	var again Response
	if err := DecodeResponse(Gemini, out, &again); err != nil {
		t.Fatal(err)
	}
	want := resp
	want.Content = []Part{resp.Content[0], resp.Content[1], {Type: PartToolCall, ToolCallID: "call_2", ToolName: "now", Arguments: "{}"}}
	if !equalDecoded(again, want) {
		t.Errorf("round trip\n got %+v\nwant %+v", again, want)
	}
	// Ids are synthesised without a response id too; a call with any
	// other stop reason keeps it.
	var r Response
	if err := DecodeResponse(Gemini, []byte(`{"candidates":[{"content":{"parts":[{"functionCall":{"name":"f","willContinue":false}}]},"finishReason":"MAX_TOKENS"}]}`), &r); err != nil {
		t.Fatal(err)
	}
	if len(r.Content) != 1 || r.Content[0].ToolCallID != "call_0" || r.Content[0].Arguments != "" || r.StopReason != mapping.StopMaxTokens {
		t.Errorf("got %+v", r)
	}
	if id := geminiCallID("a.b/c", 3); id != "call_abc_3" {
		t.Errorf("geminiCallID = %q", id)
	}
	bad := Response{Content: []Part{{Type: PartToolCall, ToolName: "f", Arguments: "nope"}}}
	if _, err := AppendResponse(nil, Gemini, &bad); err == nil {
		t.Error("no error for arguments that are not an object")
	}
}
