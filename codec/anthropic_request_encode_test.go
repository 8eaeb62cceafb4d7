package codec

import (
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

func TestAnthropicAppendRequest(t *testing.T) {
	tests := []struct {
		name   string
		vertex bool
		opts   EncodeOptions
		req    Request
	}{
		{
			name: "minimal",
			req: Request{
				Model:    "claude-sonnet-4-5",
				Messages: []Message{anthropicText(RoleUser, "Hello")},
			},
		},
		{
			name: "full",
			req: Request{
				Model:       "claude-sonnet-4-5",
				Stream:      true,
				StreamUsage: true,
				System:      []Part{{Type: PartText, Text: "You are a helpful assistant."}},
				SystemRole:  RoleSystem,
				Messages: []Message{
					anthropicText(RoleUser, "What is the capital of France?"),
					anthropicText(RoleAssistant, "Paris."),
					anthropicText(RoleUser, "And of \"Italy\"?\nOne word."),
				},
				MaxTokens:     OptInt{Value: 1024, Set: true},
				Temperature:   OptFloat{Value: 0.5, Set: true},
				TopP:          OptFloat{Value: 0.95, Set: true},
				TopK:          OptInt{Value: 40, Set: true},
				StopSequences: []string{"END", "\n\nHuman:"},
				User:          "user-42",
			},
		},
		{
			name: "system hoisted",
			req: Request{
				Model: "claude-sonnet-4-5",
				System: []Part{
					{Type: PartText, Text: "Rule one."},
					{Type: PartText, Text: ""},
					{Type: PartText, Text: "Rule two."},
				},
				SystemRole: RoleDeveloper,
				Messages: []Message{
					anthropicText(RoleUser, "Hi"),
					anthropicText(RoleSystem, "Rule three."),
					anthropicText(RoleAssistant, "Hello"),
					anthropicText(RoleDeveloper, "Rule four."),
					anthropicText(RoleUser, "Bye"),
				},
			},
		},
		{
			name: "single hoisted system message",
			req: Request{
				Model: "claude-sonnet-4-5",
				System: []Part{
					{Type: PartText, Text: ""},
				},
				Messages: []Message{
					anthropicText(RoleDeveloper, "", "Only rule."),
					anthropicText(RoleUser, "Hi"),
				},
			},
		},
		{
			name: "merged turns",
			req: Request{
				Model: "claude-sonnet-4-5",
				Messages: []Message{
					anthropicText(RoleUser, "first", ""),
					anthropicText(RoleUser, "second"),
					{Role: RoleAssistant, Parts: []Part{
						{Type: PartRefusal, Text: "I can't help with that."},
						{Type: PartText, Text: "Anything else?"},
					}},
					anthropicText(RoleUser, "ok"),
					anthropicText(RoleAssistant, ""), // dropped: nothing to say
					{Role: RoleAssistant},            // dropped: no parts
					anthropicText(RoleUser, "still there?"),
					anthropicText(RoleAssistant, "Yes."),
					anthropicText(RoleAssistant, "Here."),
				},
			},
		},
		{
			name:   "vertex",
			vertex: true,
			opts:   EncodeOptions{Model: "claude-sonnet-4-5@20250929", DefaultMaxTokens: 8192},
			req: Request{
				Model:    "claude-sonnet-4-5",
				System:   []Part{{Type: PartText, Text: "You are a helpful assistant"}},
				Messages: []Message{anthropicText(RoleUser, "Say hi in Portuguese")},
			},
		},
		{
			// Chat style: a forced tool without parallel calls, a tool
			// without parameters, calls and results (one an error, one
			// with text before it in the same turn: results come first).
			name: "tools",
			req: Request{
				Model: "claude-sonnet-4-5",
				Tools: []Tool{
					{Name: "get_weather", Description: "Weather of a city", Parameters: `{"type":"object","properties":{"city":{"type":"string"}}}`, Strict: OptBool{Set: true}},
					{Name: "now"},
					{Name: "empty", Parameters: " { } "},
				},
				ToolChoice:        ToolChoice{Mode: ToolChoiceNamed, Name: "get_weather"},
				ParallelToolCalls: OptBool{Value: false, Set: true},
				Messages: []Message{
					anthropicText(RoleUser, "Weather in Paris?"),
					{Role: RoleAssistant, Parts: []Part{
						{Type: PartText, Text: ""},
						{Type: PartToolCall, ToolCallID: "call_1", ToolName: "get_weather", Arguments: `{"city":"Paris"}`},
						{Type: PartToolCall, ToolCallID: "call_2", ToolName: "now"},
						{Type: PartToolCall, ToolCallID: "call_3", ToolName: "empty"},
					}},
					anthropicText(RoleUser, "Here you are:"),
					{Role: RoleUser, Parts: []Part{
						{Type: PartToolResult, ToolCallID: "call_1", ToolName: "get_weather", Content: []Part{{Type: PartText, Text: "18 C"}}},
						{Type: PartToolResult, ToolCallID: "call_2", IsError: true, Content: []Part{{Type: PartText, Text: "clock"}, {Type: PartText}, {Type: PartRefusal, Text: "broken"}}},
						{Type: PartToolResult, ToolCallID: "call_3", Content: []Part{{Type: PartText}}},
					}},
					anthropicText(RoleSystem, "Be brief."),
					anthropicText(RoleUser, "Thanks"),
				},
			},
		},
		{
			name: "images and documents",
			req: Request{
				Model: "claude-sonnet-4-5",
				Messages: []Message{
					{Role: RoleUser, Parts: []Part{
						{Type: PartText, Text: "Compare:"},
						{Type: PartImage, MediaType: "image/png", Data: "iVBORw0KGgo="},
						{Type: PartImage, URL: "https://example.com/cat.jpg"},
						{Type: PartDocument, MediaType: "application/pdf", Data: "JVBERi0x", Text: "Report"},
						{Type: PartDocument, URL: "https://example.com/a.pdf"},
					}},
					{Role: RoleAssistant, Parts: []Part{{Type: PartToolCall, ToolCallID: "call_1", ToolName: "snap", Arguments: "{}"}}},
					{Role: RoleUser, Parts: []Part{{Type: PartToolResult, ToolCallID: "call_1", Content: []Part{
						{Type: PartImage, MediaType: "image/jpeg", Data: "/9j/4AAQ"},
					}}}},
				},
			},
		},
		{
			name: "model override and seed",
			opts: EncodeOptions{Model: "claude-opus-4-1"},
			req: Request{
				Model:    "gpt-4o",
				Messages: []Message{anthropicText(RoleUser, "Hello")},
				Seed:     OptInt{Value: 7, Set: true},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			prefix := []byte("prefix")
			out, err := AppendRequest(prefix, anthropicProtocolFor(tt.vertex), &tt.req, tt.opts)
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
			checkGolden(t, dir+name, out[len(prefix):])
		})
	}
}

// TestAnthropicAppendToolChoice checks the tool choice rules: the parallel
// switch is the inverse of disable_parallel_tool_use, keeps a forced or
// named choice, becomes an auto choice when only the switch is given, and is
// not written without tools or with choice none; a choice without tools is
// not written unless it forces a call.
func TestAnthropicAppendToolChoice(t *testing.T) {
	tools := []Tool{{Name: "f", Parameters: `{"type":"object"}`}}
	no, yes := OptBool{Set: true}, OptBool{Value: true, Set: true}
	tests := []struct {
		name     string
		tools    []Tool
		choice   ToolChoice
		parallel OptBool
		want     string // tool_choice, or "" when absent
	}{
		{"unset", tools, ToolChoice{}, OptBool{}, ""},
		{"parallel false only", tools, ToolChoice{}, no, `{"type":"auto","disable_parallel_tool_use":true}`},
		{"parallel true only", tools, ToolChoice{}, yes, `{"type":"auto","disable_parallel_tool_use":false}`},
		{"auto", tools, ToolChoice{Mode: ToolChoiceAuto}, OptBool{}, `{"type":"auto"}`},
		{"required, no parallel", tools, ToolChoice{Mode: ToolChoiceRequired}, no, `{"type":"any","disable_parallel_tool_use":true}`},
		{"named, parallel", tools, ToolChoice{Mode: ToolChoiceNamed, Name: "f"}, yes, `{"type":"tool","name":"f","disable_parallel_tool_use":false}`},
		{"none: no parallel switch", tools, ToolChoice{Mode: ToolChoiceNone}, no, `{"type":"none"}`},
		{"no tools: no parallel switch", nil, ToolChoice{}, no, ""},
		{"no tools: auto", nil, ToolChoice{Mode: ToolChoiceAuto}, no, ""},
		{"no tools: none", nil, ToolChoice{Mode: ToolChoiceNone}, OptBool{}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := Request{Model: "m", Messages: []Message{anthropicText(RoleUser, "x")}, Tools: tt.tools, ToolChoice: tt.choice, ParallelToolCalls: tt.parallel}
			out, err := AppendRequest(nil, AnthropicMessages, &req, EncodeOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if got := gjson.GetBytes(out, "tool_choice").Raw; got != tt.want {
				t.Errorf("tool_choice %s, want %s", got, tt.want)
			}
			if gjson.GetBytes(out, "tools").Exists() != (len(tt.tools) > 0) {
				t.Errorf("tools written wrongly: %s", out)
			}
			var back Request
			if err := DecodeRequest(AnthropicMessages, out, &back); err != nil {
				t.Fatal(err)
			}
			if tt.want != "" && (back.ToolChoice.Mode != max(tt.choice.Mode, ToolChoiceAuto) || back.ParallelToolCalls != tt.parallel && tt.choice.Mode != ToolChoiceNone) {
				t.Errorf("decoded back as %+v %+v", back.ToolChoice, back.ParallelToolCalls)
			}
		})
	}
}

func TestAnthropicAppendRequestDropsSeed(t *testing.T) {
	req := Request{
		Model:    "claude-sonnet-4-5",
		Messages: []Message{anthropicText(RoleUser, "Hello")},
		Seed:     OptInt{Value: 7, Set: true},
		Dropped:  []string{"store"},
	}
	out, err := AppendRequest(nil, AnthropicMessages, &req, EncodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !equalDecoded(req.Dropped, []string{"store", "seed"}) {
		t.Errorf("Dropped = %q, want [store seed]", req.Dropped)
	}
	if gjson.GetBytes(out, "seed").Exists() {
		t.Errorf("seed written: %s", out)
	}
}

func TestAnthropicAppendRequestErrors(t *testing.T) {
	user := []Message{anthropicText(RoleUser, "Hello")}
	bogus := Part{Type: PartType(200), Text: "?"}
	tests := []struct {
		name   string
		vertex bool
		req    Request
		param  string
	}{
		{"presence penalty", false, Request{Model: "m", Messages: user, PresencePenalty: OptFloat{Value: 0.5, Set: true}}, "presence_penalty"},
		{"frequency penalty", true, Request{Messages: user, FrequencyPenalty: OptFloat{Set: true}}, "frequency_penalty"},
		{"no model", false, Request{Messages: user}, "model"},
		{"system part", false, Request{Model: "m", System: []Part{{Text: "a"}, bogus}, Messages: user}, "system[1]"},
		{"system message part", true, Request{Messages: []Message{
			anthropicText(RoleUser, "a"),
			{Role: RoleSystem, Parts: []Part{bogus}},
		}}, "messages[1].content[0]"},
		{"strict tool", false, Request{Model: "m", Messages: user, Tools: []Tool{{Name: "a"}, {Name: "f", Strict: OptBool{Value: true, Set: true}}}}, "tools[1].strict"},
		{"web search context size", true, Request{Messages: user, Tools: []Tool{{Kind: ToolWebSearch, Name: "web_search", WebSearch: WebSearchOptions{ContextSize: "high"}}}}, "tools[0]"},
		{"tool without name", false, Request{Model: "m", Messages: user, Tools: []Tool{{Parameters: "{}"}}}, "tools[0].name"},
		{"tool parameters not an object", false, Request{Model: "m", Messages: user, Tools: []Tool{{Name: "f", Parameters: "[]"}}}, "tools[0].parameters"},
		{"forced choice without tools", false, Request{Model: "m", Messages: user, ToolChoice: ToolChoice{Mode: ToolChoiceRequired}}, "tool_choice"},
		{"named choice without name", false, Request{Model: "m", Messages: user, Tools: []Tool{{Name: "f"}}, ToolChoice: ToolChoice{Mode: ToolChoiceNamed}}, "tool_choice.name"},
		{"unknown choice mode", false, Request{Model: "m", Messages: user, Tools: []Tool{{Name: "f"}}, ToolChoice: ToolChoice{Mode: 99}}, "tool_choice"},
		{"tool call in a user message", false, Request{Model: "m", Messages: []Message{
			{Role: RoleUser, Parts: []Part{{Type: PartToolCall, ToolCallID: "c", ToolName: "f"}}},
		}}, "messages[0].content[0]"},
		{"tool call without id", false, Request{Model: "m", Messages: []Message{
			anthropicText(RoleUser, "a"),
			{Role: RoleAssistant, Parts: []Part{{Text: "b"}, {Type: PartToolCall, ToolName: "f"}}},
		}}, "messages[1].content[1]"},
		{"tool call without name", false, Request{Model: "m", Messages: []Message{
			{Role: RoleAssistant, Parts: []Part{{Type: PartToolCall, ToolCallID: "c"}}},
		}}, "messages[0].content[0]"},
		{"tool call arguments not an object", false, Request{Model: "m", Messages: []Message{
			{Role: RoleAssistant, Parts: []Part{{Type: PartToolCall, ToolCallID: "c", ToolName: "f", Arguments: `"x"`}}},
		}}, "messages[0].content[0]"},
		{"tool result in an assistant message", false, Request{Model: "m", Messages: []Message{
			{Role: RoleAssistant, Parts: []Part{{Type: PartToolResult, ToolCallID: "c"}}},
		}}, "messages[0].content[0]"},
		{"tool result without id", false, Request{Model: "m", Messages: []Message{
			{Role: RoleUser, Parts: []Part{{Type: PartToolResult}}},
		}}, "messages[0].content[0]"},
		{"tool result content", false, Request{Model: "m", Messages: []Message{
			anthropicText(RoleUser, "a"),
			anthropicText(RoleAssistant, "b"),
			{Role: RoleUser, Parts: []Part{{Text: "c"}, {Type: PartToolResult, ToolCallID: "c", Content: []Part{{Text: "x"}, {Type: PartAudio}}}}},
		}}, "messages[2].content[1].content[1]"},
		{"image without media type", false, Request{Model: "m", Messages: []Message{
			{Role: RoleUser, Parts: []Part{{Type: PartImage, Data: "AA=="}}},
		}}, "messages[0].content[0]"},
		{"document without data or URL", false, Request{Model: "m", Messages: []Message{
			{Role: RoleUser, Parts: []Part{{Type: PartDocument, MediaType: "application/pdf"}}},
		}}, "messages[0].content[0]"},
		{"image data URL", false, Request{Model: "m", Messages: []Message{
			{Role: RoleUser, Parts: []Part{{Type: PartImage, URL: "data:image/png;base64,AA=="}}},
		}}, "messages[0].content[0]"},
		{"audio", false, Request{Model: "m", Messages: []Message{
			{Role: RoleUser, Parts: []Part{{Type: PartAudio, MediaType: "audio/wav", Data: "AA=="}}},
		}}, "messages[0].content[0]"},
		{"bad image in a tool result", false, Request{Model: "m", Messages: []Message{
			{Role: RoleUser, Parts: []Part{{Type: PartToolResult, ToolCallID: "c", Content: []Part{{Type: PartImage, URL: "gs://b/a.png"}}}}},
		}}, "messages[0].content[0].content[0]"},
		{"later message of the other role", false, Request{Model: "m", Messages: []Message{
			anthropicText(RoleUser, "a"),
			{Role: RoleAssistant, Parts: []Part{bogus}},
		}}, "messages[1].content[0]"},
		{"message part", false, Request{Model: "m", Messages: []Message{
			anthropicText(RoleUser, "a"),
			anthropicText(RoleAssistant, "b"),
			{Role: RoleUser, Parts: []Part{{Text: "c"}, bogus}},
		}}, "messages[2].content[1]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := anthropicProtocolFor(tt.vertex)
			out, err := AppendRequest([]byte("keep"), p, &tt.req, EncodeOptions{})
			if err == nil {
				t.Fatalf("AppendRequest succeeded: %s", out)
			}
			e := anthropicAsError(t, err)
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
		p := anthropicProtocolFor(vertex)
		body := anthropicBenchRequest(vertex)
		var req Request
		if vertex {
			req.Model = "claude-sonnet-4-5@20250929"
		}
		if err := DecodeRequest(p, body, &req); err != nil {
			t.Fatalf("%s: DecodeRequest: %v", p, err)
		}
		req.Dropped = nil
		out, err := AppendRequest(nil, p, &req, EncodeOptions{})
		if err != nil {
			t.Fatalf("%s: AppendRequest: %v", p, err)
		}
		again := Request{Model: req.Model}
		if err := DecodeRequest(p, out, &again); err != nil {
			t.Fatalf("%s: DecodeRequest of encoded request: %v\n%s", p, err, out)
		}
		again.Dropped = nil
		if !equalDecoded(again, req) {
			t.Errorf("%s: round trip changed the request:\n got %+v\nwant %+v", p, again, req)
		}
	}
}

// TestAnthropicToolRequestRoundTrip encodes a canonical request with tools,
// tool calls and results, and decodes it back: nothing may change.
func TestAnthropicToolRequestRoundTrip(t *testing.T) {
	want := Request{
		Model:             "claude-sonnet-4-5",
		MaxTokens:         OptInt{Value: 1000, Set: true},
		Tools:             []Tool{{Name: "get_weather", Description: "Weather", Parameters: `{"type":"object","properties":{"city":{"type":"string"}}}`}},
		ToolChoice:        ToolChoice{Mode: ToolChoiceRequired},
		ParallelToolCalls: OptBool{Value: true, Set: true},
		Messages: []Message{
			anthropicText(RoleUser, "Weather in Paris and Rome?"),
			{Role: RoleAssistant, Parts: []Part{
				{Type: PartText, Text: "Checking."},
				{Type: PartToolCall, ToolCallID: "toolu_1", ToolName: "get_weather", Arguments: `{"city":"Paris"}`},
				{Type: PartToolCall, ToolCallID: "toolu_2", ToolName: "get_weather", Arguments: `{"city":"Rome"}`},
			}},
			{Role: RoleUser, Parts: []Part{
				{Type: PartToolResult, ToolCallID: "toolu_1", ToolName: "get_weather", Content: []Part{{Type: PartText, Text: "18 C"}}},
				{Type: PartToolResult, ToolCallID: "toolu_2", ToolName: "get_weather", IsError: true, Content: []Part{{Type: PartText, Text: "no data"}, {Type: PartText, Text: "retry"}}},
				{Type: PartText, Text: "And tomorrow?"},
				{Type: PartImage, MediaType: "image/png", Data: "iVBORw0KGgo="},
				{Type: PartImage, URL: "https://example.com/map.png"},
				{Type: PartDocument, MediaType: "application/pdf", Data: "JVBERi0x", Text: "Forecast"},
				{Type: PartDocument, URL: "https://example.com/a.pdf"},
			}},
			{Role: RoleAssistant, Parts: []Part{{Type: PartToolCall, ToolCallID: "toolu_3", ToolName: "get_weather", Arguments: `{"city":"Oslo"}`}}},
			{Role: RoleUser, Parts: []Part{{Type: PartToolResult, ToolCallID: "toolu_3", ToolName: "get_weather", Content: []Part{
				{Type: PartImage, MediaType: "image/jpeg", Data: "/9j/4AAQ"},
			}}}},
		},
	}
	for _, p := range []Protocol{AnthropicMessages, VertexAnthropic} {
		in := want
		out, err := AppendRequest(nil, p, &in, EncodeOptions{})
		if err != nil {
			t.Fatal(err)
		}
		got := Request{Model: want.Model}
		if err := DecodeRequest(p, out, &got); err != nil {
			t.Fatalf("%s: %v\n%s", p, err, out)
		}
		got.Dropped = nil
		if !equalDecoded(got, want) {
			t.Errorf("%s: round trip changed the request:\n got %+v\nwant %+v", p, got, want)
		}
	}
}
