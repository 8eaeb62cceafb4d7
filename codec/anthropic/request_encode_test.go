package anthropic

import (
	"strings"
	"testing"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/codectest"
	"github.com/tidwall/gjson"
)

func TestAnthropicAppendRequest(t *testing.T) {
	tests := []struct {
		name   string
		vertex bool
		opts   codec.EncodeOptions
		req    codec.Request
	}{
		{
			name: "minimal",
			req: codec.Request{
				Model:    "claude-sonnet-4-5",
				Messages: []codec.Message{text(codec.RoleUser, "Hello")},
			},
		},
		{
			name: "full",
			req: codec.Request{
				Model:       "claude-sonnet-4-5",
				Stream:      true,
				StreamUsage: true,
				System:      []codec.Part{{Type: codec.PartText, Text: "You are a helpful assistant."}},
				SystemRole:  codec.RoleSystem,
				Messages: []codec.Message{
					text(codec.RoleUser, "What is the capital of France?"),
					text(codec.RoleAssistant, "Paris."),
					text(codec.RoleUser, "And of \"Italy\"?\nOne word."),
				},
				MaxTokens:     codec.OptInt{Value: 1024, Set: true},
				Temperature:   codec.OptFloat{Value: 0.5, Set: true},
				TopP:          codec.OptFloat{Value: 0.95, Set: true},
				TopK:          codec.OptInt{Value: 40, Set: true},
				StopSequences: []string{"END", "\n\nHuman:"},
				User:          "user-42",
			},
		},
		{
			name: "system hoisted",
			req: codec.Request{
				Model: "claude-sonnet-4-5",
				System: []codec.Part{
					{Type: codec.PartText, Text: "Rule one."},
					{Type: codec.PartText, Text: ""},
					{Type: codec.PartText, Text: "Rule two."},
				},
				SystemRole: codec.RoleDeveloper,
				Messages: []codec.Message{
					text(codec.RoleUser, "Hi"),
					text(codec.RoleSystem, "Rule three."),
					text(codec.RoleAssistant, "Hello"),
					text(codec.RoleDeveloper, "Rule four."),
					text(codec.RoleUser, "Bye"),
				},
			},
		},
		{
			name: "single hoisted system message",
			req: codec.Request{
				Model: "claude-sonnet-4-5",
				System: []codec.Part{
					{Type: codec.PartText, Text: ""},
				},
				Messages: []codec.Message{
					text(codec.RoleDeveloper, "", "Only rule."),
					text(codec.RoleUser, "Hi"),
				},
			},
		},
		{
			name: "merged turns",
			req: codec.Request{
				Model: "claude-sonnet-4-5",
				Messages: []codec.Message{
					text(codec.RoleUser, "first", ""),
					text(codec.RoleUser, "second"),
					{Role: codec.RoleAssistant, Parts: []codec.Part{
						{Type: codec.PartRefusal, Text: "I can't help with that."},
						{Type: codec.PartText, Text: "Anything else?"},
					}},
					text(codec.RoleUser, "ok"),
					text(codec.RoleAssistant, ""), // dropped: nothing to say
					{Role: codec.RoleAssistant},   // dropped: no parts
					text(codec.RoleUser, "still there?"),
					text(codec.RoleAssistant, "Yes."),
					text(codec.RoleAssistant, "Here."),
				},
			},
		},
		{
			name:   "vertex",
			vertex: true,
			opts:   codec.EncodeOptions{Model: "claude-sonnet-4-5@20250929", DefaultMaxTokens: 8192},
			req: codec.Request{
				Model:    "claude-sonnet-4-5",
				System:   []codec.Part{{Type: codec.PartText, Text: "You are a helpful assistant"}},
				Messages: []codec.Message{text(codec.RoleUser, "Say hi in Portuguese")},
			},
		},
		{
			// Chat style: a forced tool without parallel calls, a tool
			// without parameters, calls and results (one an error, one
			// with text before it in the same turn: results come first).
			name: "tools",
			req: codec.Request{
				Model: "claude-sonnet-4-5",
				Tools: []codec.Tool{
					{Name: "get_weather", Description: "Weather of a city", Parameters: `{"type":"object","properties":{"city":{"type":"string"}}}`, Strict: codec.OptBool{Set: true}},
					{Name: "now"},
					{Name: "empty", Parameters: " { } "},
				},
				ToolChoice:        codec.ToolChoice{Mode: codec.ToolChoiceNamed, Name: "get_weather"},
				ParallelToolCalls: codec.OptBool{Value: false, Set: true},
				Messages: []codec.Message{
					text(codec.RoleUser, "Weather in Paris?"),
					{Role: codec.RoleAssistant, Parts: []codec.Part{
						{Type: codec.PartText, Text: ""},
						{Type: codec.PartToolCall, ToolCallID: "call_1", ToolName: "get_weather", Arguments: `{"city":"Paris"}`},
						{Type: codec.PartToolCall, ToolCallID: "call_2", ToolName: "now"},
						{Type: codec.PartToolCall, ToolCallID: "call_3", ToolName: "empty"},
					}},
					text(codec.RoleUser, "Here you are:"),
					{Role: codec.RoleUser, Parts: []codec.Part{
						{Type: codec.PartToolResult, ToolCallID: "call_1", ToolName: "get_weather", Content: []codec.Part{{Type: codec.PartText, Text: "18 C"}}},
						{Type: codec.PartToolResult, ToolCallID: "call_2", IsError: true, Content: []codec.Part{{Type: codec.PartText, Text: "clock"}, {Type: codec.PartText}, {Type: codec.PartRefusal, Text: "broken"}}},
						{Type: codec.PartToolResult, ToolCallID: "call_3", Content: []codec.Part{{Type: codec.PartText}}},
					}},
					text(codec.RoleSystem, "Be brief."),
					text(codec.RoleUser, "Thanks"),
				},
			},
		},
		{
			name: "images and documents",
			req: codec.Request{
				Model: "claude-sonnet-4-5",
				Messages: []codec.Message{
					{Role: codec.RoleUser, Parts: []codec.Part{
						{Type: codec.PartText, Text: "Compare:"},
						{Type: codec.PartImage, MediaType: "image/png", Data: "iVBORw0KGgo="},
						{Type: codec.PartImage, URL: "https://example.com/cat.jpg"},
						{Type: codec.PartDocument, MediaType: "application/pdf", Data: "JVBERi0x", Text: "Report"},
						{Type: codec.PartDocument, URL: "https://example.com/a.pdf"},
					}},
					{Role: codec.RoleAssistant, Parts: []codec.Part{{Type: codec.PartToolCall, ToolCallID: "call_1", ToolName: "snap", Arguments: "{}"}}},
					{Role: codec.RoleUser, Parts: []codec.Part{{Type: codec.PartToolResult, ToolCallID: "call_1", Content: []codec.Part{
						{Type: codec.PartImage, MediaType: "image/jpeg", Data: "/9j/4AAQ"},
					}}}},
				},
			},
		},
		{
			name: "model override and seed",
			opts: codec.EncodeOptions{Model: "claude-opus-4-1"},
			req: codec.Request{
				Model:    "gpt-4o",
				Messages: []codec.Message{text(codec.RoleUser, "Hello")},
				Seed:     codec.OptInt{Value: 7, Set: true},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			prefix := []byte("prefix")
			out, err := codec.AppendRequest(prefix, protocolFor(tt.vertex), &tt.req, tt.opts)
			if err != nil {
				t.Fatalf("AppendRequest: %v", err)
			}
			if string(out[:len(prefix)]) != "prefix" {
				t.Fatalf("dst prefix overwritten: %s", out)
			}
			name := "request_" + strings.ReplaceAll(tt.name, " ", "_") + ".json"
			dir := "anthropic-messages/"
			if tt.vertex {
				dir = "vertex-anthropic/"
			}
			codectest.CheckGolden(t, dir+name, out[len(prefix):])
		})
	}
}

// TestAnthropicAppendToolChoice checks the tool choice rules: the parallel
// switch is the inverse of disable_parallel_tool_use, keeps a forced or
// named choice, becomes an auto choice when only the switch is given, and is
// not written without tools or with choice none; a choice without tools is
// not written unless it forces a call.
func TestAnthropicAppendToolChoice(t *testing.T) {
	tools := []codec.Tool{{Name: "f", Parameters: `{"type":"object"}`}}
	no, yes := codec.OptBool{Set: true}, codec.OptBool{Value: true, Set: true}
	tests := []struct {
		name     string
		tools    []codec.Tool
		choice   codec.ToolChoice
		parallel codec.OptBool
		want     string // tool_choice, or "" when absent
	}{
		{"unset", tools, codec.ToolChoice{}, codec.OptBool{}, ""},
		{"parallel false only", tools, codec.ToolChoice{}, no, `{"type":"auto","disable_parallel_tool_use":true}`},
		{"parallel true only", tools, codec.ToolChoice{}, yes, `{"type":"auto","disable_parallel_tool_use":false}`},
		{"auto", tools, codec.ToolChoice{Mode: codec.ToolChoiceAuto}, codec.OptBool{}, `{"type":"auto"}`},
		{"required, no parallel", tools, codec.ToolChoice{Mode: codec.ToolChoiceRequired}, no, `{"type":"any","disable_parallel_tool_use":true}`},
		{"named, parallel", tools, codec.ToolChoice{Mode: codec.ToolChoiceNamed, Name: "f"}, yes, `{"type":"tool","name":"f","disable_parallel_tool_use":false}`},
		{"none: no parallel switch", tools, codec.ToolChoice{Mode: codec.ToolChoiceNone}, no, `{"type":"none"}`},
		{"no tools: no parallel switch", nil, codec.ToolChoice{}, no, ""},
		{"no tools: auto", nil, codec.ToolChoice{Mode: codec.ToolChoiceAuto}, no, ""},
		{"no tools: none", nil, codec.ToolChoice{Mode: codec.ToolChoiceNone}, codec.OptBool{}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := codec.Request{Model: "m", Messages: []codec.Message{text(codec.RoleUser, "x")}, Tools: tt.tools, ToolChoice: tt.choice, ParallelToolCalls: tt.parallel}
			out, err := codec.AppendRequest(nil, codec.AnthropicMessages, &req, codec.EncodeOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if got := gjson.GetBytes(out, "tool_choice").Raw; got != tt.want {
				t.Errorf("tool_choice %s, want %s", got, tt.want)
			}
			if gjson.GetBytes(out, "tools").Exists() != (len(tt.tools) > 0) {
				t.Errorf("tools written wrongly: %s", out)
			}
			var back codec.Request
			if err := codec.DecodeRequest(codec.AnthropicMessages, out, &back); err != nil {
				t.Fatal(err)
			}
			if tt.want != "" && (back.ToolChoice.Mode != max(tt.choice.Mode, codec.ToolChoiceAuto) || back.ParallelToolCalls != tt.parallel && tt.choice.Mode != codec.ToolChoiceNone) {
				t.Errorf("decoded back as %+v %+v", back.ToolChoice, back.ParallelToolCalls)
			}
		})
	}
}

func TestAnthropicAppendRequestDropsSeed(t *testing.T) {
	req := codec.Request{
		Model:    "claude-sonnet-4-5",
		Messages: []codec.Message{text(codec.RoleUser, "Hello")},
		Seed:     codec.OptInt{Value: 7, Set: true},
		Dropped:  []string{"store"},
	}
	out, err := codec.AppendRequest(nil, codec.AnthropicMessages, &req, codec.EncodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !codectest.EqualDecoded(req.Dropped, []string{"store", "seed"}) {
		t.Errorf("Dropped = %q, want [store seed]", req.Dropped)
	}
	if gjson.GetBytes(out, "seed").Exists() {
		t.Errorf("seed written: %s", out)
	}
}

func TestAnthropicAppendRequestErrors(t *testing.T) {
	user := []codec.Message{text(codec.RoleUser, "Hello")}
	bogus := codec.Part{Type: codec.PartType(200), Text: "?"}
	tests := []struct {
		name   string
		vertex bool
		req    codec.Request
		param  string
	}{
		{"presence penalty", false, codec.Request{Model: "m", Messages: user, PresencePenalty: codec.OptFloat{Value: 0.5, Set: true}}, "presence_penalty"},
		{"frequency penalty", true, codec.Request{Messages: user, FrequencyPenalty: codec.OptFloat{Set: true}}, "frequency_penalty"},
		{"no model", false, codec.Request{Messages: user}, "model"},
		{"system part", false, codec.Request{Model: "m", System: []codec.Part{{Text: "a"}, bogus}, Messages: user}, "system[1]"},
		{"system message part", true, codec.Request{Messages: []codec.Message{
			text(codec.RoleUser, "a"),
			{Role: codec.RoleSystem, Parts: []codec.Part{bogus}},
		}}, "messages[1].content[0]"},
		{"strict tool", false, codec.Request{Model: "m", Messages: user, Tools: []codec.Tool{{Name: "a"}, {Name: "f", Strict: codec.OptBool{Value: true, Set: true}}}}, "tools[1].strict"},
		{"web search context size", true, codec.Request{Messages: user, Tools: []codec.Tool{{Kind: codec.ToolWebSearch, Name: "web_search", WebSearch: codec.WebSearchOptions{ContextSize: "high"}}}}, "tools[0]"},
		{"tool without name", false, codec.Request{Model: "m", Messages: user, Tools: []codec.Tool{{Parameters: "{}"}}}, "tools[0].name"},
		{"tool parameters not an object", false, codec.Request{Model: "m", Messages: user, Tools: []codec.Tool{{Name: "f", Parameters: "[]"}}}, "tools[0].parameters"},
		{"forced choice without tools", false, codec.Request{Model: "m", Messages: user, ToolChoice: codec.ToolChoice{Mode: codec.ToolChoiceRequired}}, "tool_choice"},
		{"named choice without name", false, codec.Request{Model: "m", Messages: user, Tools: []codec.Tool{{Name: "f"}}, ToolChoice: codec.ToolChoice{Mode: codec.ToolChoiceNamed}}, "tool_choice.name"},
		{"unknown choice mode", false, codec.Request{Model: "m", Messages: user, Tools: []codec.Tool{{Name: "f"}}, ToolChoice: codec.ToolChoice{Mode: 99}}, "tool_choice"},
		{"tool call in a user message", false, codec.Request{Model: "m", Messages: []codec.Message{
			{Role: codec.RoleUser, Parts: []codec.Part{{Type: codec.PartToolCall, ToolCallID: "c", ToolName: "f"}}},
		}}, "messages[0].content[0]"},
		{"tool call without id", false, codec.Request{Model: "m", Messages: []codec.Message{
			text(codec.RoleUser, "a"),
			{Role: codec.RoleAssistant, Parts: []codec.Part{{Text: "b"}, {Type: codec.PartToolCall, ToolName: "f"}}},
		}}, "messages[1].content[1]"},
		{"tool call without name", false, codec.Request{Model: "m", Messages: []codec.Message{
			{Role: codec.RoleAssistant, Parts: []codec.Part{{Type: codec.PartToolCall, ToolCallID: "c"}}},
		}}, "messages[0].content[0]"},
		{"tool call arguments not an object", false, codec.Request{Model: "m", Messages: []codec.Message{
			{Role: codec.RoleAssistant, Parts: []codec.Part{{Type: codec.PartToolCall, ToolCallID: "c", ToolName: "f", Arguments: `"x"`}}},
		}}, "messages[0].content[0]"},
		{"tool result in an assistant message", false, codec.Request{Model: "m", Messages: []codec.Message{
			{Role: codec.RoleAssistant, Parts: []codec.Part{{Type: codec.PartToolResult, ToolCallID: "c"}}},
		}}, "messages[0].content[0]"},
		{"tool result without id", false, codec.Request{Model: "m", Messages: []codec.Message{
			{Role: codec.RoleUser, Parts: []codec.Part{{Type: codec.PartToolResult}}},
		}}, "messages[0].content[0]"},
		{"tool result content", false, codec.Request{Model: "m", Messages: []codec.Message{
			text(codec.RoleUser, "a"),
			text(codec.RoleAssistant, "b"),
			{Role: codec.RoleUser, Parts: []codec.Part{{Text: "c"}, {Type: codec.PartToolResult, ToolCallID: "c", Content: []codec.Part{{Text: "x"}, {Type: codec.PartAudio}}}}},
		}}, "messages[2].content[1].content[1]"},
		{"image without media type", false, codec.Request{Model: "m", Messages: []codec.Message{
			{Role: codec.RoleUser, Parts: []codec.Part{{Type: codec.PartImage, Data: "AA=="}}},
		}}, "messages[0].content[0]"},
		{"document without data or URL", false, codec.Request{Model: "m", Messages: []codec.Message{
			{Role: codec.RoleUser, Parts: []codec.Part{{Type: codec.PartDocument, MediaType: "application/pdf"}}},
		}}, "messages[0].content[0]"},
		{"image data URL", false, codec.Request{Model: "m", Messages: []codec.Message{
			{Role: codec.RoleUser, Parts: []codec.Part{{Type: codec.PartImage, URL: "data:image/png;base64,AA=="}}},
		}}, "messages[0].content[0]"},
		{"audio", false, codec.Request{Model: "m", Messages: []codec.Message{
			{Role: codec.RoleUser, Parts: []codec.Part{{Type: codec.PartAudio, MediaType: "audio/wav", Data: "AA=="}}},
		}}, "messages[0].content[0]"},
		{"bad image in a tool result", false, codec.Request{Model: "m", Messages: []codec.Message{
			{Role: codec.RoleUser, Parts: []codec.Part{{Type: codec.PartToolResult, ToolCallID: "c", Content: []codec.Part{{Type: codec.PartImage, URL: "gs://b/a.png"}}}}},
		}}, "messages[0].content[0].content[0]"},
		{"later message of the other role", false, codec.Request{Model: "m", Messages: []codec.Message{
			text(codec.RoleUser, "a"),
			{Role: codec.RoleAssistant, Parts: []codec.Part{bogus}},
		}}, "messages[1].content[0]"},
		{"message part", false, codec.Request{Model: "m", Messages: []codec.Message{
			text(codec.RoleUser, "a"),
			text(codec.RoleAssistant, "b"),
			{Role: codec.RoleUser, Parts: []codec.Part{{Text: "c"}, bogus}},
		}}, "messages[2].content[1]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := protocolFor(tt.vertex)
			out, err := codec.AppendRequest([]byte("keep"), p, &tt.req, codec.EncodeOptions{})
			if err == nil {
				t.Fatalf("AppendRequest succeeded: %s", out)
			}
			e := asError(t, err)
			if e.Status != 400 || e.Param != tt.param {
				t.Errorf("got %d %q (%v), want 400 %q", e.Status, e.Param, e, tt.param)
			}
			if tt.param != "model" && !strings.HasPrefix(tt.param, "tool") && !strings.Contains(e.Message, string(p)) {
				t.Errorf("message %q does not name %s", e.Message, p)
			}
			if string(out) != "keep" {
				t.Errorf("dst = %q after an error, want it unchanged", out)
			}
		})
	}
}

// TestAnthropicRequestRoundTrip checks that decoding an encoded request
// gives the request back.
func TestAnthropicRequestRoundTrip(t *testing.T) {
	for _, vertex := range []bool{false, true} {
		p := protocolFor(vertex)
		body := benchRequest(vertex)
		var req codec.Request
		if vertex {
			req.Model = "claude-sonnet-4-5@20250929"
		}
		if err := codec.DecodeRequest(p, body, &req); err != nil {
			t.Fatalf("%s: DecodeRequest: %v", p, err)
		}
		req.Dropped = nil
		out, err := codec.AppendRequest(nil, p, &req, codec.EncodeOptions{})
		if err != nil {
			t.Fatalf("%s: AppendRequest: %v", p, err)
		}
		again := codec.Request{Model: req.Model}
		if err := codec.DecodeRequest(p, out, &again); err != nil {
			t.Fatalf("%s: DecodeRequest of encoded request: %v\n%s", p, err, out)
		}
		again.Dropped = nil
		if !codectest.EqualDecoded(again, req) {
			t.Errorf("%s: round trip changed the request:\n got %+v\nwant %+v", p, again, req)
		}
	}
}

// TestAnthropicToolRequestRoundTrip encodes a canonical request with tools,
// tool calls and results, and decodes it back: nothing may change.
func TestAnthropicToolRequestRoundTrip(t *testing.T) {
	want := codec.Request{
		Model:             "claude-sonnet-4-5",
		MaxTokens:         codec.OptInt{Value: 1000, Set: true},
		Tools:             []codec.Tool{{Name: "get_weather", Description: "Weather", Parameters: `{"type":"object","properties":{"city":{"type":"string"}}}`}},
		ToolChoice:        codec.ToolChoice{Mode: codec.ToolChoiceRequired},
		ParallelToolCalls: codec.OptBool{Value: true, Set: true},
		Messages: []codec.Message{
			text(codec.RoleUser, "Weather in Paris and Rome?"),
			{Role: codec.RoleAssistant, Parts: []codec.Part{
				{Type: codec.PartText, Text: "Checking."},
				{Type: codec.PartToolCall, ToolCallID: "toolu_1", ToolName: "get_weather", Arguments: `{"city":"Paris"}`},
				{Type: codec.PartToolCall, ToolCallID: "toolu_2", ToolName: "get_weather", Arguments: `{"city":"Rome"}`},
			}},
			{Role: codec.RoleUser, Parts: []codec.Part{
				{Type: codec.PartToolResult, ToolCallID: "toolu_1", ToolName: "get_weather", Content: []codec.Part{{Type: codec.PartText, Text: "18 C"}}},
				{Type: codec.PartToolResult, ToolCallID: "toolu_2", ToolName: "get_weather", IsError: true, Content: []codec.Part{{Type: codec.PartText, Text: "no data"}, {Type: codec.PartText, Text: "retry"}}},
				{Type: codec.PartText, Text: "And tomorrow?"},
				{Type: codec.PartImage, MediaType: "image/png", Data: "iVBORw0KGgo="},
				{Type: codec.PartImage, URL: "https://example.com/map.png"},
				{Type: codec.PartDocument, MediaType: "application/pdf", Data: "JVBERi0x", Text: "Forecast"},
				{Type: codec.PartDocument, URL: "https://example.com/a.pdf"},
			}},
			{Role: codec.RoleAssistant, Parts: []codec.Part{{Type: codec.PartToolCall, ToolCallID: "toolu_3", ToolName: "get_weather", Arguments: `{"city":"Oslo"}`}}},
			{Role: codec.RoleUser, Parts: []codec.Part{{Type: codec.PartToolResult, ToolCallID: "toolu_3", ToolName: "get_weather", Content: []codec.Part{
				{Type: codec.PartImage, MediaType: "image/jpeg", Data: "/9j/4AAQ"},
			}}}},
		},
	}
	for _, p := range []codec.Protocol{codec.AnthropicMessages, codec.VertexAnthropic} {
		in := want
		out, err := codec.AppendRequest(nil, p, &in, codec.EncodeOptions{})
		if err != nil {
			t.Fatal(err)
		}
		got := codec.Request{Model: want.Model}
		if err := codec.DecodeRequest(p, out, &got); err != nil {
			t.Fatalf("%s: %v\n%s", p, err, out)
		}
		got.Dropped = nil
		if !codectest.EqualDecoded(got, want) {
			t.Errorf("%s: round trip changed the request:\n got %+v\nwant %+v", p, got, want)
		}
	}
}
