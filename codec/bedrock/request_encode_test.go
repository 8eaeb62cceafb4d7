package bedrock

import (
	"strings"
	"testing"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/mapping"
)

// claude is a cross-region Claude model id.
const claude = "us.anthropic.claude-sonnet-4-5-20250929-v1:0"

func TestEncodeRequest(t *testing.T) {
	call := codec.Part{Type: codec.PartToolCall, ToolCallID: "t1", ToolName: "get_weather", Arguments: `{"city":"Paris"}`}
	result := codec.Part{Type: codec.PartToolResult, ToolCallID: "t1", ToolName: "get_weather", IsError: true,
		Content: []codec.Part{{Type: codec.PartText, Text: "no"}, {Type: codec.PartText}, {Type: codec.PartImage, MediaType: "image/jpg", Data: "AAAA"}}}
	tests := []struct {
		name  string
		model string
		req   codec.Request
		want  string
		drops string
	}{
		{
			name: "system messages are hoisted, same roles merge, results come first",
			req: codec.Request{
				System: []codec.Part{{Type: codec.PartText, Text: "Be brief."}, {Type: codec.PartText}},
				Messages: []codec.Message{
					text(codec.RoleUser, "Hi"),
					{Role: codec.RoleDeveloper, Parts: []codec.Part{{Type: codec.PartText, Text: "Be kind."}}},
					text(codec.RoleUser, "there"),
					{Role: codec.RoleAssistant, Parts: []codec.Part{{Type: codec.PartText}}},
					{Role: codec.RoleAssistant, Parts: []codec.Part{{Type: codec.PartRefusal, Text: "No."}, call}},
					{Role: codec.RoleUser, Parts: []codec.Part{{Type: codec.PartText, Text: "Here:"}, result}},
				},
				Seed: codec.OptInt{Value: 1, Set: true}, User: "u", ParallelToolCalls: codec.OptBool{Set: true},
			},
			want: `{"messages":[{"role":"user","content":[{"text":"Hi"},{"text":"there"}]},` +
				`{"role":"assistant","content":[{"text":"No."},{"toolUse":{"toolUseId":"t1","name":"get_weather","input":{"city":"Paris"}}}]},` +
				`{"role":"user","content":[{"toolResult":{"toolUseId":"t1","content":[{"text":"no"},{"image":{"format":"jpeg","source":{"bytes":"AAAA"}}}],"status":"error"}},{"text":"Here:"}]}],` +
				`"system":[{"text":"Be brief."},{"text":"Be kind."}],` +
				`"toolConfig":{"tools":[{"toolSpec":{"name":"get_weather","inputSchema":{"json":{"type":"object"}}}}]}}`,
			drops: "seed user parallel_tool_calls",
		},
		{
			name:  "Claude: thinking budget, top_k, effort beside it, structured output",
			model: claude,
			req: codec.Request{
				Messages:    []codec.Message{text(codec.RoleUser, "Hi")},
				Temperature: codec.OptFloat{Value: 1, Set: true}, TopP: codec.OptFloat{Value: 0.5, Set: true}, TopK: codec.OptInt{Value: 5, Set: true},
				StopSequences: []string{"END"},
				Reasoning:     codec.Reasoning{Budget: codec.OptInt{Value: 2048, Set: true}, Effort: mapping.EffortHigh, Summary: "auto", IncludeThoughts: codec.OptBool{Set: true}},
				Format:        codec.OutputFormat{Kind: codec.FormatJSONSchema, Schema: `{"type":"object"}`, Name: "r", Description: "d"},
			},
			want: `{"messages":[{"role":"user","content":[{"text":"Hi"}]}],"inferenceConfig":{"maxTokens":6144,"temperature":1,"topP":0.5,"stopSequences":["END"]},` +
				`"outputConfig":{"textFormat":{"type":"json_schema","structure":{"jsonSchema":{"schema":"{\"type\":\"object\"}","name":"r","description":"d"}}},"effort":"high"},` +
				`"additionalModelRequestFields":{"thinking":{"type":"enabled","budget_tokens":2048,"display":"omitted"},"top_k":5}}`,
			drops: "reasoning.summary",
		},
		{
			name:  "Claude: an effort alone is a budget, lowered under max tokens",
			model: "arn:aws:bedrock:us-east-1::foundation-model/anthropic.claude-3-7-sonnet-20250219-v1:0",
			req:   codec.Request{Messages: []codec.Message{text(codec.RoleUser, "Hi")}, MaxTokens: codec.OptInt{Value: 2000, Set: true}, Reasoning: codec.Reasoning{Effort: mapping.EffortLow}},
			want: `{"messages":[{"role":"user","content":[{"text":"Hi"}]}],"inferenceConfig":{"maxTokens":2000},` +
				`"additionalModelRequestFields":{"thinking":{"type":"enabled","budget_tokens":1999}}}`,
		},
		{
			name:  "Claude: adaptive and disabled thinking",
			model: "anthropic.claude-opus-4-6-v1",
			req:   codec.Request{Messages: []codec.Message{text(codec.RoleUser, "Hi")}, Reasoning: codec.Reasoning{Adaptive: true, Display: "summarized"}},
			want:  `{"messages":[{"role":"user","content":[{"text":"Hi"}]}],"additionalModelRequestFields":{"thinking":{"type":"adaptive","display":"summarized"}}}`,
		},
		{
			name:  "Claude: thinking disabled",
			model: claude,
			req:   codec.Request{Messages: []codec.Message{text(codec.RoleUser, "Hi")}, Reasoning: codec.Reasoning{Effort: mapping.EffortNone}},
			want:  `{"messages":[{"role":"user","content":[{"text":"Hi"}]}],"additionalModelRequestFields":{"thinking":{"type":"disabled"}}}`,
		},
		{
			name:  "another model: no reasoning asked is dropped",
			model: "amazon.nova-pro-v1:0",
			req:   codec.Request{Messages: []codec.Message{text(codec.RoleUser, "Hi")}, Reasoning: codec.Reasoning{Effort: mapping.EffortNone}},
			want:  `{"messages":[{"role":"user","content":[{"text":"Hi"}]}]}`,
			drops: "reasoning",
		},
		{
			name: "tools: declared, strict, custom, synthesized for history, forced",
			req: codec.Request{
				Messages: []codec.Message{text(codec.RoleUser, "Hi"), {Role: codec.RoleAssistant, Parts: []codec.Part{call,
					{Type: codec.PartToolCall, ToolCallID: "t2", ToolName: "lookup", Arguments: ""}}},
					{Role: codec.RoleUser, Parts: []codec.Part{result, {Type: codec.PartToolResult, ToolCallID: "t2", ToolName: "lookup"}}}},
				Tools: []codec.Tool{{Name: "f", Description: "F.", Strict: codec.OptBool{Value: true, Set: true}},
					{Name: "g", Parameters: `{"type":"object","properties":{"a":{}}}`, Strict: codec.OptBool{Set: true}},
					{Name: "c", Kind: codec.ToolCustom}},
				ToolChoice: codec.ToolChoice{Mode: codec.ToolChoiceNamed, Name: "f"},
			},
			want: `{"messages":[{"role":"user","content":[{"text":"Hi"}]},{"role":"assistant","content":[{"toolUse":{"toolUseId":"t1","name":"get_weather","input":{"city":"Paris"}}},` +
				`{"toolUse":{"toolUseId":"t2","name":"lookup","input":{}}}]},{"role":"user","content":[{"toolResult":{"toolUseId":"t1","content":[{"text":"no"},` +
				`{"image":{"format":"jpeg","source":{"bytes":"AAAA"}}}],"status":"error"}},{"toolResult":{"toolUseId":"t2","content":[]}}]}],` +
				`"toolConfig":{"tools":[{"toolSpec":{"name":"f","description":"F.","inputSchema":{"json":{"type":"object","properties":{}}},"strict":true}},` +
				`{"toolSpec":{"name":"g","inputSchema":{"json":{"type":"object","properties":{"a":{}}}},"strict":false}},` +
				`{"toolSpec":{"name":"c","inputSchema":{"json":` + codec.CustomToolParameters + `}}},` +
				`{"toolSpec":{"name":"get_weather","inputSchema":{"json":{"type":"object"}}}},{"toolSpec":{"name":"lookup","inputSchema":{"json":{"type":"object"}}}}],` +
				`"toolChoice":{"tool":{"name":"f"}}}}`,
		},
		{
			name: "tool choices auto and required",
			req: codec.Request{Messages: []codec.Message{text(codec.RoleUser, "Hi")}, Tools: []codec.Tool{{Name: "f", Parameters: `{"type":"object"}`}},
				ToolChoice: codec.ToolChoice{Mode: codec.ToolChoiceRequired}},
			want: `{"messages":[{"role":"user","content":[{"text":"Hi"}]}],"toolConfig":{"tools":[{"toolSpec":{"name":"f","inputSchema":{"json":{"type":"object"}}}}],"toolChoice":{"any":{}}}}`,
		},
		{
			name: "tool choice none without tool history sends no tools",
			req: codec.Request{Messages: []codec.Message{text(codec.RoleUser, "Hi")}, Tools: []codec.Tool{{Name: "f"}},
				ToolChoice: codec.ToolChoice{Mode: codec.ToolChoiceNone}},
			want:  `{"messages":[{"role":"user","content":[{"text":"Hi"}]}]}`,
			drops: "tools (tool choice none)",
		},
		{
			name: "media and reasoning: Claude's go back, others are dropped",
			req: codec.Request{Messages: []codec.Message{
				{Role: codec.RoleUser, Parts: []codec.Part{{Type: codec.PartImage, MediaType: "image/webp", Data: "AAAA"},
					{Type: codec.PartDocument, MediaType: "text/markdown", Data: "AAAA", Text: "Notes  (v2)"},
					{Type: codec.PartDocument, MediaType: "application/pdf", Data: "AAAA", Text: "Q3 [final] (v2)"}}},
				{Role: codec.RoleAssistant, Parts: []codec.Part{
					{Type: codec.PartReasoning, Text: "hm", Signature: "c2ln", Origin: mapping.FamilyAnthropic},
					{Type: codec.PartReasoning, Redacted: true, Signature: "c2VjcmV0", Origin: mapping.FamilyAnthropic},
					{Type: codec.PartReasoning, Redacted: true, Signature: `{"type":"compaction"}`, Origin: mapping.FamilyAnthropic},
					{Type: codec.PartReasoning, Text: "g", Signature: "Z2Vt", Origin: mapping.FamilyGemini},
					{Type: codec.PartReasoning, Text: "unsigned"},
					{Type: codec.PartText, Text: "A"}}},
			}},
			want: `{"messages":[{"role":"user","content":[{"image":{"format":"webp","source":{"bytes":"AAAA"}}},` +
				`{"document":{"format":"md","name":"document","source":{"bytes":"AAAA"}}},{"document":{"format":"pdf","name":"Q3 [final] (v2)","source":{"bytes":"AAAA"}}}]},` +
				`{"role":"assistant","content":[{"reasoningContent":{"reasoningText":{"text":"hm","signature":"c2ln"}}},{"reasoningContent":{"redactedContent":"c2VjcmV0"}},{"text":"A"}]}]}`,
			drops: "messages[1].content[2] (reasoning) messages[1].content[3] (reasoning) messages[1].content[4] (reasoning)",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := encode(t, &tt.req, tt.model)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("got\n%s\nwant\n%s", got, tt.want)
			}
			if d := strings.Join(tt.req.Dropped, " "); d != tt.drops {
				t.Errorf("dropped %q, want %q", d, tt.drops)
			}
		})
	}
}

func TestEncodeRequestErrors(t *testing.T) {
	hi := []codec.Message{text(codec.RoleUser, "Hi")}
	call := []codec.Message{text(codec.RoleUser, "Hi"), {Role: codec.RoleAssistant, Parts: []codec.Part{{Type: codec.PartToolCall, ToolCallID: "t", ToolName: "f"}}}}
	tests := []struct {
		name  string
		model string
		req   codec.Request
		param string
		class codec.ErrorClass
		kind  codec.CapabilityKind
	}{
		{"presence penalty", "", codec.Request{Messages: hi, PresencePenalty: codec.OptFloat{Set: true}}, "presence_penalty", codec.ClassCapability, codec.CapPresencePenalty},
		{"frequency penalty", "", codec.Request{Messages: hi, FrequencyPenalty: codec.OptFloat{Set: true}}, "frequency_penalty", codec.ClassCapability, codec.CapFrequencyPenalty},
		{"verbosity", "", codec.Request{Messages: hi, Verbosity: "low"}, "verbosity", codec.ClassCapability, codec.CapVerbosity},
		{"json object", "", codec.Request{Messages: hi, Format: codec.OutputFormat{Kind: codec.FormatJSONObject}}, "outputConfig.textFormat", codec.ClassCapability, codec.CapFormat},
		{"bad schema", "", codec.Request{Messages: hi, Format: codec.OutputFormat{Kind: codec.FormatJSONSchema, Schema: "[]"}},
			"outputConfig.textFormat.structure.jsonSchema.schema", codec.ClassInvalid, codec.CapNone},
		{"top_k toward another model", "meta.llama3-70b-instruct-v1:0", codec.Request{Messages: hi, TopK: codec.OptInt{Set: true}}, "top_k", codec.ClassCapability, codec.CapTopK},
		{"reasoning toward another model", "", codec.Request{Messages: hi, Reasoning: codec.Reasoning{Effort: mapping.EffortHigh}}, "reasoning", codec.ClassCapability, codec.CapNone},
		{"minimal effort beside a budget", claude, codec.Request{Messages: hi, Reasoning: codec.Reasoning{Effort: mapping.EffortMinimal, Adaptive: true}},
			"outputConfig.effort", codec.ClassCapability, codec.CapEffort},
		{"budget too small", claude, codec.Request{Messages: hi, Reasoning: codec.Reasoning{Budget: codec.OptInt{Value: 100, Set: true}}},
			"additionalModelRequestFields.thinking.budget_tokens", codec.ClassCapability, codec.CapNone},
		{"max tokens under the budget", claude, codec.Request{Messages: hi, MaxTokens: codec.OptInt{Value: 1000, Set: true},
			Reasoning: codec.Reasoning{Budget: codec.OptInt{Value: 2048, Set: true}}}, "inferenceConfig.maxTokens", codec.ClassCapability, codec.CapNone},
		{"no messages", "", codec.Request{}, "messages", codec.ClassInvalid, codec.CapNone},
		{"assistant first", "", codec.Request{Messages: []codec.Message{text(codec.RoleAssistant, "Hi")}}, "messages[0]", codec.ClassInvalid, codec.CapNone},
		{"image URL", "", codec.Request{Messages: []codec.Message{{Parts: []codec.Part{{Type: codec.PartImage, URL: "https://x/a.png"}}}}},
			"messages[0].content[0]", codec.ClassCapability, codec.CapPart},
		{"unknown media type", "", codec.Request{Messages: []codec.Message{{Parts: []codec.Part{{Type: codec.PartDocument, MediaType: "application/zip", Data: "AAAA"}}}}},
			"messages[0].content[0]", codec.ClassCapability, codec.CapPart},
		{"audio", "", codec.Request{Messages: []codec.Message{{Parts: []codec.Part{{Type: codec.PartAudio, MediaType: "audio/wav", Data: "AAAA"}}}}},
			"messages[0].content[0]", codec.ClassCapability, codec.CapPart},
		{"image in the system prompt", "", codec.Request{Messages: hi, System: []codec.Part{{Type: codec.PartImage}}}, "system[0]", codec.ClassCapability, codec.CapPart},
		{"image in a system message", "", codec.Request{Messages: []codec.Message{{Role: codec.RoleSystem, Parts: []codec.Part{{Type: codec.PartImage}}}}},
			"messages[0].content[0]", codec.ClassCapability, codec.CapPart},
		{"tool call from the user", "", codec.Request{Messages: []codec.Message{{Parts: []codec.Part{{Type: codec.PartToolCall, ToolCallID: "t", ToolName: "f"}}}}},
			"messages[0].content[0]", codec.ClassCapability, codec.CapPart},
		{"tool call without an id", "", codec.Request{Messages: []codec.Message{text(codec.RoleUser, "Hi"), {Role: codec.RoleAssistant, Parts: []codec.Part{{Type: codec.PartToolCall, ToolName: "f"}}}}},
			"messages[1].content[0]", codec.ClassCapability, codec.CapPart},
		{"tool call without a name", "", codec.Request{Messages: []codec.Message{text(codec.RoleUser, "Hi"), {Role: codec.RoleAssistant, Parts: []codec.Part{{Type: codec.PartToolCall, ToolCallID: "t"}}}}},
			"messages[1].content[0]", codec.ClassCapability, codec.CapPart},
		{"tool call arguments not an object", "", codec.Request{Messages: []codec.Message{text(codec.RoleUser, "Hi"), {Role: codec.RoleAssistant,
			Parts: []codec.Part{{Type: codec.PartToolCall, ToolCallID: "t", ToolName: "f", Arguments: "[]"}}}}}, "messages[1].content[0]", codec.ClassCapability, codec.CapPart},
		{"tool result from the assistant", "", codec.Request{Messages: []codec.Message{text(codec.RoleUser, "Hi"), {Role: codec.RoleAssistant,
			Parts: []codec.Part{{Type: codec.PartToolResult, ToolCallID: "t"}}}}}, "messages[1].content[0]", codec.ClassCapability, codec.CapPart},
		{"tool result without an id", "", codec.Request{Messages: []codec.Message{{Parts: []codec.Part{{Type: codec.PartToolResult}}}}},
			"messages[0].content[0]", codec.ClassCapability, codec.CapPart},
		{"tool result with audio", "", codec.Request{Messages: []codec.Message{{Parts: []codec.Part{{Type: codec.PartToolResult, ToolCallID: "t",
			Content: []codec.Part{{Type: codec.PartAudio}}}}}}}, "messages[0].content[0].content[0]", codec.ClassCapability, codec.CapResultContent},
		{"tool result with an image URL", "", codec.Request{Messages: []codec.Message{{Parts: []codec.Part{{Type: codec.PartToolResult, ToolCallID: "t",
			Content: []codec.Part{{Type: codec.PartImage, URL: "https://x"}}}}}}}, "messages[0].content[0].content[0]", codec.ClassCapability, codec.CapResultContent},
		{"web search", "", codec.Request{Messages: hi, Tools: []codec.Tool{{Kind: codec.ToolWebSearch}}}, "tools[0]", codec.ClassCapability, codec.CapTool},
		{"custom grammar", "", codec.Request{Messages: hi, Tools: []codec.Tool{{Kind: codec.ToolCustom, Name: "c", Grammar: "{}"}}}, "tools[0].format", codec.ClassCapability, codec.CapToolGrammar},
		{"unnamed tool", "", codec.Request{Messages: hi, Tools: []codec.Tool{{}}}, "tools[0].name", codec.ClassInvalid, codec.CapNone},
		{"tool parameters not an object", "", codec.Request{Messages: hi, Tools: []codec.Tool{{Name: "f", Parameters: "[]"}}}, "tools[0].parameters", codec.ClassInvalid, codec.CapNone},
		{"unknown tool kind", "", codec.Request{Messages: hi, Tools: []codec.Tool{{Name: "f", Kind: 9}}}, "tools[0]", codec.ClassCapability, codec.CapTool},
		{"flat names collide", "", codec.Request{Messages: hi, Tools: []codec.Tool{{Name: "a__b"}, {Namespace: "a", Name: "b"}}}, "tools[1]", codec.ClassInvalid, codec.CapNone},
		{"choice none with tool history", "", codec.Request{Messages: call, ToolChoice: codec.ToolChoice{Mode: codec.ToolChoiceNone}}, "tool_choice", codec.ClassCapability, codec.CapToolChoice},
		{"forced choice without tools", "", codec.Request{Messages: hi, ToolChoice: codec.ToolChoice{Mode: codec.ToolChoiceRequired}}, "tool_choice", codec.ClassInvalid, codec.CapNone},
		{"named choice without a name", "", codec.Request{Messages: hi, Tools: []codec.Tool{{Name: "f"}}, ToolChoice: codec.ToolChoice{Mode: codec.ToolChoiceNamed}},
			"tool_choice.name", codec.ClassInvalid, codec.CapNone},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := encode(t, &tt.req, tt.model)
			switch {
			case err == nil:
				t.Fatal("no error")
			case err.Param != tt.param || err.Class != tt.class || err.Capability.Kind != tt.kind:
				t.Errorf("error %q at %q (%v, %v), want %q (%v, %v)", err.Message, err.Param, err.Class, err.Capability.Kind, tt.param, tt.class, tt.kind)
			}
		})
	}
}

func TestValidDocumentName(t *testing.T) {
	for name, want := range map[string]bool{
		"Report (2025) [v2]":     true,
		"a-b c":                  true,
		"":                       false,
		"two  spaces":            false,
		"dots.pdf":               false,
		strings.Repeat("a", 200): true,
		strings.Repeat("a", 201): false,
	} {
		if got := validDocumentName(name); got != want {
			t.Errorf("validDocumentName(%q) = %v", name, got)
		}
	}
}

func TestIsClaudeModel(t *testing.T) {
	for model, want := range map[string]bool{
		"anthropic.claude-3-haiku-20240307-v1:0":                           true,
		"us.anthropic.claude-sonnet-4-5-20250929-v1:0":                     true,
		"global.anthropic.claude-opus-4-5-20251101-v1:0":                   true,
		"us-gov.anthropic.claude-3-5-sonnet-20240620-v1:0":                 true,
		"arn:aws:bedrock:eu-west-1::foundation-model/anthropic.claude-v2":  true,
		"arn:aws:bedrock:us-east-1:1:application-inference-profile/abc123": false,
		"amazon.nova-pro-v1:0":                                             false,
		"meta.llama3-70b-instruct-v1:0":                                    false,
		"verylongprefix.anthropic.claude-x":                                false,
		"":                                                                 false,
	} {
		if got := isClaudeModel(model); got != want {
			t.Errorf("isClaudeModel(%q) = %v", model, got)
		}
	}
}
