package bedrock

import (
	"strings"
	"testing"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/codectest"
	"github.com/llmbridge/llmbridge/mapping"
)

func TestDecodeRequest(t *testing.T) {
	tests := []struct {
		name string
		body string
		want codec.Request
	}{
		{
			name: "minimal",
			body: `{` + userHi + `}`,
			want: codec.Request{Messages: []codec.Message{text(codec.RoleUser, "Hi")}},
		},
		{
			name: "system, sampling, hints",
			body: `{"system":[{"text":"Be brief."},{"cachePoint":{"type":"default","ttl":"1h"}},{"text":"Be kind."}],` + userHi + `,
				"inferenceConfig":{"maxTokens":256,"temperature":0.7,"topP":0.9,"stopSequences":["END"]},
				"additionalModelResponseFieldPaths":["/stop_sequence"],"performanceConfig":{"latency":"standard"},
				"requestMetadata":{"k":"v"},"serviceTier":{"type":"default"},"guardrailConfig":{"guardrailIdentifier":"g"},
				"additionalModelRequestFields":{"anthropic_beta":["x"]},"promptVariables":null}`,
			want: codec.Request{
				System:        []codec.Part{{Type: codec.PartText, Text: "Be brief.", Cache: codec.Cache1h}, {Type: codec.PartText, Text: "Be kind."}},
				SystemRole:    codec.RoleSystem,
				Messages:      []codec.Message{text(codec.RoleUser, "Hi")},
				MaxTokens:     codec.OptInt{Value: 256, Set: true},
				Temperature:   codec.OptFloat{Value: 0.7, Set: true},
				TopP:          codec.OptFloat{Value: 0.9, Set: true},
				StopSequences: []string{"END"},
				Dropped: []string{"additionalModelResponseFieldPaths", "performanceConfig", "requestMetadata", "serviceTier",
					"guardrailConfig", "additionalModelRequestFields.anthropic_beta"},
			},
		},
		{
			name: "tools, choice and history",
			body: `{"messages":[{"role":"user","content":[{"text":"Weather?"},{"cachePoint":{"type":"default"}}]},
				{"role":"assistant","content":[{"text":"Checking."},{"toolUse":{"toolUseId":"t1","name":"get_weather","input":{"city":"Paris"}}}]},
				{"role":"user","content":[{"toolResult":{"toolUseId":"t1","status":"success","content":[{"text":"sunny"},{"json":{"c":21}},
					{"image":{"format":"jpeg","source":{"bytes":"AAAA"}}},{"document":{"format":"txt","name":"n","source":{"bytes":"AAAA"}}}]}},
					{"toolResult":{"toolUseId":"t2","status":"error","content":[]}}]}],
				"toolConfig":{"tools":[{"toolSpec":{"name":"get_weather","description":"Weather.","inputSchema":{"json":{"type":"object"}},"strict":true}},
					{"cachePoint":{"type":"default"}}],"toolChoice":{"tool":{"name":"get_weather"}}}}`,
			want: codec.Request{
				Messages: []codec.Message{
					{Role: codec.RoleUser, Parts: []codec.Part{{Type: codec.PartText, Text: "Weather?", Cache: codec.CacheDefault}}},
					{Role: codec.RoleAssistant, Parts: []codec.Part{{Type: codec.PartText, Text: "Checking."},
						{Type: codec.PartToolCall, ToolCallID: "t1", ToolName: "get_weather", Arguments: `{"city":"Paris"}`}}},
					{Role: codec.RoleUser, Parts: []codec.Part{
						{Type: codec.PartToolResult, ToolCallID: "t1", ToolName: "get_weather", Content: []codec.Part{{Type: codec.PartText, Text: "sunny"},
							{Type: codec.PartText, Text: `{"c":21}`}, {Type: codec.PartImage, MediaType: "image/jpeg", Data: "AAAA"},
							{Type: codec.PartDocument, MediaType: "text/plain", Data: "AAAA", Text: "n"}}},
						{Type: codec.PartToolResult, ToolCallID: "t2", IsError: true}}},
				},
				Tools:      []codec.Tool{{Name: "get_weather", Description: "Weather.", Parameters: `{"type":"object"}`, Strict: codec.OptBool{Value: true, Set: true}, Cache: codec.CacheDefault}},
				ToolChoice: codec.ToolChoice{Mode: codec.ToolChoiceNamed, Name: "get_weather"},
			},
		},
		{
			name: "tool choices any and auto",
			body: `{` + userHi + `,"toolConfig":{"toolChoice":{"any":{}},"tools":[{"toolSpec":{"name":"f","inputSchema":{"json":{"type":"object"}}}}]}}`,
			want: codec.Request{Messages: []codec.Message{text(codec.RoleUser, "Hi")},
				Tools: []codec.Tool{{Name: "f", Parameters: `{"type":"object"}`}}, ToolChoice: codec.ToolChoice{Mode: codec.ToolChoiceRequired}},
		},
		{
			name: "reasoning history and thinking",
			body: `{"messages":[{"role":"user","content":[{"text":"Hi"}]},{"role":"assistant","content":[
				{"reasoningContent":{"reasoningText":{"text":"hm","signature":"c2ln"}}},{"reasoningContent":{"redactedContent":"c2VjcmV0"}},
				{"reasoningContent":{"reasoningText":{"text":"plain"}}},{"citationsContent":{"content":[{"text":"Cited."}],"citations":[]}}]}],
				"additionalModelRequestFields":{"thinking":{"type":"enabled","budget_tokens":2048,"display":"summarized"},"top_k":5}}`,
			want: codec.Request{
				Messages: []codec.Message{text(codec.RoleUser, "Hi"), {Role: codec.RoleAssistant, Parts: []codec.Part{
					{Type: codec.PartReasoning, Text: "hm", Signature: "c2ln", Origin: mapping.FamilyAnthropic},
					{Type: codec.PartReasoning, Redacted: true, Signature: "c2VjcmV0", Origin: mapping.FamilyAnthropic},
					{Type: codec.PartReasoning, Text: "plain"},
					{Type: codec.PartText, Text: "Cited."}}}},
				TopK:      codec.OptInt{Value: 5, Set: true},
				Reasoning: codec.Reasoning{Budget: codec.OptInt{Value: 2048, Set: true}, Display: "summarized"},
				Dropped:   []string{"messages[1].content[3].citationsContent.citations"},
			},
		},
		{
			name: "adaptive thinking with effort and structured output",
			body: `{` + userHi + `,"additionalModelRequestFields":{"thinking":{"type":"adaptive"}},
				"outputConfig":{"effort":"high","textFormat":{"type":"json_schema","structure":{"jsonSchema":{"schema":"{\"type\":\"object\"}","name":"r","description":"d"}}}}}`,
			want: codec.Request{Messages: []codec.Message{text(codec.RoleUser, "Hi")},
				Reasoning: codec.Reasoning{Adaptive: true, Effort: mapping.EffortHigh},
				Format:    codec.OutputFormat{Kind: codec.FormatJSONSchema, Schema: `{"type":"object"}`, Name: "r", Description: "d"}},
		},
		{
			name: "thinking disabled is effort none",
			body: `{` + userHi + `,"additionalModelRequestFields":{"thinking":{"type":"disabled"}},"outputConfig":null,"toolConfig":null,"inferenceConfig":null}`,
			want: codec.Request{Messages: []codec.Message{text(codec.RoleUser, "Hi")}, Reasoning: codec.Reasoning{Effort: mapping.EffortNone}},
		},
		{
			name: "a continuation envelope names its family",
			body: `{"messages":[{"role":"user","content":[{"text":"Hi"}]},{"role":"assistant","content":[
				{"reasoningContent":{"reasoningText":{"text":"t","signature":"` + envelope(mapping.FamilyGemini, "Z2Vt") + `"}}}]}]}`,
			want: codec.Request{Messages: []codec.Message{text(codec.RoleUser, "Hi"), {Role: codec.RoleAssistant, Parts: []codec.Part{
				{Type: codec.PartReasoning, Text: "t", Signature: "Z2Vt", Origin: mapping.FamilyGemini}}}}},
		},
		{
			name: "escaped text keeps its literal",
			body: `{"messages":[{"role":"user","content":[{"text":"a\"b"}]}]}`,
			want: codec.Request{Messages: []codec.Message{text(codec.RoleUser, `a"b`)}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := decode(t, tt.body)
			if err != nil {
				t.Fatal(err)
			}
			if !codectest.EqualDecoded(got, tt.want) {
				t.Errorf("got\n%+v\nwant\n%+v", got, tt.want)
			}
		})
	}
}

// envelope returns the continuation token of a signature of family f.
func envelope(f mapping.Family, sig string) string {
	return string(mapping.AppendEnvelope(nil, mapping.Continuation{Origin: f, Signature: sig}))
}

func TestDecodeRequestErrors(t *testing.T) {
	tests := []struct {
		body, param string
		class       codec.ErrorClass
	}{
		{`[]`, "", codec.ClassInvalid},
		{`{}`, "messages", codec.ClassInvalid},
		{`{"messages":[]}`, "messages", codec.ClassInvalid},
		{`{"messages":{}}`, "messages", codec.ClassInvalid},
		{`{"messages":null}`, "messages", codec.ClassInvalid},
		{`{"model":"m",` + userHi + `}`, "model", codec.ClassUnknownField},
		{`{"messages":[1]}`, "messages[0]", codec.ClassInvalid},
		{`{"messages":[{"content":[]}]}`, "messages[0].role", codec.ClassInvalid},
		{`{"messages":[{"role":"user"}]}`, "messages[0].content", codec.ClassInvalid},
		{`{"messages":[{"role":"system","content":[]}]}`, "messages[0].role", codec.ClassInvalid},
		{`{"messages":[{"role":1,"content":[]}]}`, "messages[0].role", codec.ClassInvalid},
		{`{"messages":[{"role":"user","content":"Hi"}]}`, "messages[0].content", codec.ClassInvalid},
		{`{"messages":[{"role":"user","content":[],"x":1}]}`, "messages[0].x", codec.ClassUnknownField},
		{`{"messages":[{"role":"user","content":[{"text":1}]}]}`, "messages[0].content[0].text", codec.ClassInvalid},
		{`{"messages":[{"role":"user","content":[{"text":"a","image":{}}]}]}`, "messages[0].content[0]", codec.ClassInvalid},
		{`{"messages":[{"role":"user","content":[3]}]}`, "messages[0].content[0]", codec.ClassInvalid},
		{`{"messages":[{"role":"user","content":[{"what":{}}]}]}`, "messages[0].content[0].what", codec.ClassUnknownField},
		{`{"messages":[{"role":"user","content":[{"video":{}}]}]}`, "messages[0].content[0]", codec.ClassCapability},
		{`{"messages":[{"role":"user","content":[{"image":1}]}]}`, "messages[0].content[0].image", codec.ClassInvalid},
		{`{"messages":[{"role":"user","content":[{"image":{"source":{"bytes":"AAAA"}}}]}]}`, "messages[0].content[0].image.format", codec.ClassInvalid},
		{`{"messages":[{"role":"user","content":[{"image":{"format":1,"source":{"bytes":"AAAA"}}}]}]}`, "messages[0].content[0].image.format", codec.ClassInvalid},
		{`{"messages":[{"role":"user","content":[{"image":{"format":"bmp","source":{"bytes":"AAAA"}}}]}]}`, "messages[0].content[0].image.format", codec.ClassInvalid},
		{`{"messages":[{"role":"user","content":[{"image":{"format":"png"}}]}]}`, "messages[0].content[0].image.source", codec.ClassInvalid},
		{`{"messages":[{"role":"user","content":[{"image":{"format":"png","source":{}}}]}]}`, "messages[0].content[0].image.source", codec.ClassInvalid},
		{`{"messages":[{"role":"user","content":[{"image":{"format":"png","source":{"bytes":1}}}]}]}`, "messages[0].content[0].image.source.bytes", codec.ClassInvalid},
		{`{"messages":[{"role":"user","content":[{"image":{"format":"png","source":{"bytes":"!!"}}}]}]}`, "messages[0].content[0].image.source.bytes", codec.ClassInvalid},
		{`{"messages":[{"role":"user","content":[{"image":{"format":"png","source":{"s3Location":{}}}}]}]}`, "messages[0].content[0].image.source", codec.ClassCapability},
		{`{"messages":[{"role":"user","content":[{"image":{"format":"png","source":{"url":"x"}}}]}]}`, "messages[0].content[0].image.source.url", codec.ClassUnknownField},
		{`{"messages":[{"role":"user","content":[{"image":{"format":"png","name":"x","source":{"bytes":"AAAA"}}}]}]}`, "messages[0].content[0].image.name", codec.ClassUnknownField},
		{`{"messages":[{"role":"user","content":[{"image":{"format":"png","context":"x","source":{"bytes":"AAAA"}}}]}]}`, "messages[0].content[0].image.context", codec.ClassUnknownField},
		{`{"messages":[{"role":"user","content":[{"image":{"format":"png","x":1}}]}]}`, "messages[0].content[0].image.x", codec.ClassUnknownField},
		{`{"messages":[{"role":"user","content":[{"document":{"format":"pdf","name":1}}]}]}`, "messages[0].content[0].document.name", codec.ClassInvalid},
		{`{"messages":[{"role":"user","content":[{"document":{"format":"pdf","context":"c"}}]}]}`, "messages[0].content[0].document.context", codec.ClassCapability},
		{`{"messages":[{"role":"user","content":[{"toolUse":{}}]}]}`, "messages[0].content[0]", codec.ClassInvalid},
		{`{"messages":[{"role":"assistant","content":[{"toolUse":1}]}]}`, "messages[0].content[0].toolUse", codec.ClassInvalid},
		{`{"messages":[{"role":"assistant","content":[{"toolUse":{"name":"f","input":{}}}]}]}`, "messages[0].content[0].toolUse.toolUseId", codec.ClassInvalid},
		{`{"messages":[{"role":"assistant","content":[{"toolUse":{"toolUseId":"t","input":{}}}]}]}`, "messages[0].content[0].toolUse.name", codec.ClassInvalid},
		{`{"messages":[{"role":"assistant","content":[{"toolUse":{"toolUseId":"t","name":"f","input":[]}}]}]}`, "messages[0].content[0].toolUse.input", codec.ClassInvalid},
		{`{"messages":[{"role":"assistant","content":[{"toolUse":{"toolUseId":1}}]}]}`, "messages[0].content[0].toolUse.toolUseId", codec.ClassInvalid},
		{`{"messages":[{"role":"assistant","content":[{"toolUse":{"type":"server_tool_use"}}]}]}`, "messages[0].content[0].toolUse.type", codec.ClassCapability},
		{`{"messages":[{"role":"assistant","content":[{"toolUse":{"x":1}}]}]}`, "messages[0].content[0].toolUse.x", codec.ClassUnknownField},
		{`{"messages":[{"role":"assistant","content":[{"toolResult":{}}]}]}`, "messages[0].content[0]", codec.ClassInvalid},
		{`{"messages":[{"role":"user","content":[{"toolResult":1}]}]}`, "messages[0].content[0].toolResult", codec.ClassInvalid},
		{`{"messages":[{"role":"user","content":[{"toolResult":{"content":[]}}]}]}`, "messages[0].content[0].toolResult.toolUseId", codec.ClassInvalid},
		{`{"messages":[{"role":"user","content":[{"toolResult":{"toolUseId":"t"}}]}]}`, "messages[0].content[0].toolResult.content", codec.ClassInvalid},
		{`{"messages":[{"role":"user","content":[{"toolResult":{"toolUseId":"t","content":{}}}]}]}`, "messages[0].content[0].toolResult.content", codec.ClassInvalid},
		{`{"messages":[{"role":"user","content":[{"toolResult":{"toolUseId":"t","status":"maybe","content":[]}}]}]}`, "messages[0].content[0].toolResult.status", codec.ClassInvalid},
		{`{"messages":[{"role":"user","content":[{"toolResult":{"toolUseId":"t","x":1}}]}]}`, "messages[0].content[0].toolResult.x", codec.ClassUnknownField},
		{`{"messages":[{"role":"user","content":[{"toolResult":{"toolUseId":"t","content":[1]}}]}]}`, "messages[0].content[0].toolResult.content[0]", codec.ClassInvalid},
		{`{"messages":[{"role":"user","content":[{"toolResult":{"toolUseId":"t","content":[{"text":1}]}}]}]}`, "messages[0].content[0].toolResult.content[0].text", codec.ClassInvalid},
		{`{"messages":[{"role":"user","content":[{"toolResult":{"toolUseId":"t","content":[{"video":{}}]}}]}]}`, "messages[0].content[0].toolResult.content[0]", codec.ClassCapability},
		{`{"messages":[{"role":"user","content":[{"toolResult":{"toolUseId":"t","content":[{"x":{}}]}}]}]}`, "messages[0].content[0].toolResult.content[0].x", codec.ClassUnknownField},
		{`{"messages":[{"role":"user","content":[{"toolResult":{"toolUseId":"t","content":[{"image":{}}]}}]}]}`, "messages[0].content[0].toolResult.content[0].image.format", codec.ClassInvalid},
		{`{"messages":[{"role":"user","content":[{"reasoningContent":{}}]}]}`, "messages[0].content[0]", codec.ClassInvalid},
		{`{"messages":[{"role":"assistant","content":[{"reasoningContent":{}}]}]}`, "messages[0].content[0].reasoningContent", codec.ClassInvalid},
		{`{"messages":[{"role":"assistant","content":[{"reasoningContent":{"redactedContent":1}}]}]}`, "messages[0].content[0].reasoningContent.redactedContent", codec.ClassInvalid},
		{`{"messages":[{"role":"assistant","content":[{"reasoningContent":{"redactedContent":"!"}}]}]}`, "messages[0].content[0].reasoningContent.redactedContent", codec.ClassInvalid},
		{`{"messages":[{"role":"assistant","content":[{"reasoningContent":{"x":1}}]}]}`, "messages[0].content[0].reasoningContent.x", codec.ClassUnknownField},
		{`{"messages":[{"role":"assistant","content":[{"reasoningContent":{"reasoningText":1}}]}]}`, "messages[0].content[0].reasoningContent.reasoningText", codec.ClassInvalid},
		{`{"messages":[{"role":"assistant","content":[{"reasoningContent":{"reasoningText":{"text":1}}}]}]}`, "messages[0].content[0].reasoningContent.reasoningText.text", codec.ClassInvalid},
		{`{"messages":[{"role":"assistant","content":[{"reasoningContent":{"reasoningText":{"x":1}}}]}]}`, "messages[0].content[0].reasoningContent.reasoningText.x", codec.ClassUnknownField},
		{`{"messages":[{"role":"assistant","content":[{"reasoningContent":{"reasoningText":{"signature":"llmbridge.v1.!"}}}]}]}`, "messages[0].content[0].reasoningContent.reasoningText.signature", codec.ClassInvalid},
		{`{"messages":[{"role":"assistant","content":[{"citationsContent":1}]}]}`, "messages[0].content[0].citationsContent", codec.ClassInvalid},
		{`{"messages":[{"role":"assistant","content":[{"citationsContent":{"content":1}}]}]}`, "messages[0].content[0].citationsContent.content", codec.ClassInvalid},
		{`{"messages":[{"role":"assistant","content":[{"citationsContent":{"content":[{"text":1}]}}]}]}`, "messages[0].content[0].citationsContent.content[0].text", codec.ClassInvalid},
		{`{"messages":[{"role":"assistant","content":[{"citationsContent":{"x":1}}]}]}`, "messages[0].content[0].citationsContent.x", codec.ClassUnknownField},
		{`{"system":{},` + userHi + `}`, "system", codec.ClassInvalid},
		{`{"system":[1],` + userHi + `}`, "system[0]", codec.ClassInvalid},
		{`{"system":[{"text":1}],` + userHi + `}`, "system[0].text", codec.ClassInvalid},
		{`{"system":[{"guardContent":{}}],` + userHi + `}`, "system[0]", codec.ClassCapability},
		{`{"system":[{"x":{}}],` + userHi + `}`, "system[0].x", codec.ClassUnknownField},
		{`{"inferenceConfig":1,` + userHi + `}`, "inferenceConfig", codec.ClassInvalid},
		{`{"inferenceConfig":{"maxTokens":1.5},` + userHi + `}`, "inferenceConfig.maxTokens", codec.ClassInvalid},
		{`{"inferenceConfig":{"topK":1},` + userHi + `}`, "inferenceConfig.topK", codec.ClassUnknownField},
		{`{"toolConfig":1,` + userHi + `}`, "toolConfig", codec.ClassInvalid},
		{`{"toolConfig":{"x":1},` + userHi + `}`, "toolConfig.x", codec.ClassUnknownField},
		{`{"toolConfig":{"tools":{}},` + userHi + `}`, "toolConfig.tools", codec.ClassInvalid},
		{`{"toolConfig":{"tools":[1]},` + userHi + `}`, "toolConfig.tools[0]", codec.ClassInvalid},
		{`{"toolConfig":{"tools":[{"systemTool":{}}]},` + userHi + `}`, "toolConfig.tools[0]", codec.ClassCapability},
		{`{"toolConfig":{"tools":[{"x":{}}]},` + userHi + `}`, "toolConfig.tools[0].x", codec.ClassUnknownField},
		{`{"toolConfig":{"tools":[{"toolSpec":1}]},` + userHi + `}`, "toolConfig.tools[0].toolSpec", codec.ClassInvalid},
		{`{"toolConfig":{"tools":[{"toolSpec":{}}]},` + userHi + `}`, "toolConfig.tools[0].toolSpec.name", codec.ClassInvalid},
		{`{"toolConfig":{"tools":[{"toolSpec":{"name":"f","x":1}}]},` + userHi + `}`, "toolConfig.tools[0].toolSpec.x", codec.ClassUnknownField},
		{`{"toolConfig":{"tools":[{"toolSpec":{"name":"f","inputSchema":{}}}]},` + userHi + `}`, "toolConfig.tools[0].toolSpec.inputSchema", codec.ClassInvalid},
		{`{"toolConfig":{"tools":[{"toolSpec":{"name":"f","inputSchema":{"x":{}}}}]},` + userHi + `}`, "toolConfig.tools[0].toolSpec.inputSchema.x", codec.ClassUnknownField},
		{`{"toolConfig":{"tools":[{"toolSpec":{"name":"f","inputSchema":{"json":1}}}]},` + userHi + `}`, "toolConfig.tools[0].toolSpec.inputSchema.json", codec.ClassInvalid},
		{`{"toolConfig":{"toolChoice":{}},` + userHi + `}`, "toolConfig.toolChoice", codec.ClassInvalid},
		{`{"toolConfig":{"toolChoice":{"none":{}}},` + userHi + `}`, "toolConfig.toolChoice.none", codec.ClassUnknownField},
		{`{"toolConfig":{"toolChoice":{"auto":1}},` + userHi + `}`, "toolConfig.toolChoice.auto", codec.ClassInvalid},
		{`{"toolConfig":{"toolChoice":{"tool":{}}},` + userHi + `}`, "toolConfig.toolChoice.tool.name", codec.ClassInvalid},
		{`{"outputConfig":1,` + userHi + `}`, "outputConfig", codec.ClassInvalid},
		{`{"outputConfig":{"x":1},` + userHi + `}`, "outputConfig.x", codec.ClassUnknownField},
		{`{"outputConfig":{"effort":1},` + userHi + `}`, "outputConfig.effort", codec.ClassInvalid},
		{`{"outputConfig":{"effort":"none"},` + userHi + `}`, "outputConfig.effort", codec.ClassInvalid},
		{`{"outputConfig":{"textFormat":1},` + userHi + `}`, "outputConfig.textFormat", codec.ClassInvalid},
		{`{"outputConfig":{"textFormat":{"type":"text"}},` + userHi + `}`, "outputConfig.textFormat.type", codec.ClassInvalid},
		{`{"outputConfig":{"textFormat":{"type":"json_schema"}},` + userHi + `}`, "outputConfig.textFormat.structure.jsonSchema", codec.ClassInvalid},
		{`{"outputConfig":{"textFormat":{"type":"json_schema","structure":{"jsonSchema":{}}}},` + userHi + `}`, "outputConfig.textFormat.structure.jsonSchema.schema", codec.ClassInvalid},
		{`{"outputConfig":{"textFormat":{"type":"json_schema","structure":{"jsonSchema":{"schema":"[]"}}}},` + userHi + `}`, "outputConfig.textFormat.structure.jsonSchema.schema", codec.ClassInvalid},
		{`{"outputConfig":{"textFormat":{"type":"json_schema","structure":{"jsonSchema":{"x":1}}}},` + userHi + `}`, "outputConfig.textFormat.structure.jsonSchema.x", codec.ClassUnknownField},
		{`{"additionalModelRequestFields":1,` + userHi + `}`, "additionalModelRequestFields", codec.ClassInvalid},
		{`{"additionalModelRequestFields":{"reasoning_config":{}},` + userHi + `}`, "additionalModelRequestFields.reasoning_config", codec.ClassCapability},
		{`{"additionalModelRequestFields":{"thinking":1},` + userHi + `}`, "additionalModelRequestFields.thinking", codec.ClassInvalid},
		{`{"additionalModelRequestFields":{"thinking":{}},` + userHi + `}`, "additionalModelRequestFields.thinking.type", codec.ClassInvalid},
		{`{"additionalModelRequestFields":{"thinking":{"type":"x"}},` + userHi + `}`, "additionalModelRequestFields.thinking.type", codec.ClassInvalid},
		{`{"additionalModelRequestFields":{"thinking":{"type":"enabled"}},` + userHi + `}`, "additionalModelRequestFields.thinking.budget_tokens", codec.ClassInvalid},
		{`{"additionalModelRequestFields":{"thinking":{"type":"enabled","budget_tokens":"a"}},` + userHi + `}`, "additionalModelRequestFields.thinking.budget_tokens", codec.ClassInvalid},
		{`{"additionalModelRequestFields":{"thinking":{"type":"adaptive","display":"x"}},` + userHi + `}`, "additionalModelRequestFields.thinking.display", codec.ClassInvalid},
		{`{"additionalModelRequestFields":{"thinking":{"type":"adaptive","x":1}},` + userHi + `}`, "additionalModelRequestFields.thinking.x", codec.ClassUnknownField},
		{`{"additionalModelRequestFields":{"anthropic_beta":"x"},` + userHi + `}`, "additionalModelRequestFields.anthropic_beta", codec.ClassInvalid},
		{`{"promptVariables":{"a":{}},` + userHi + `}`, "promptVariables", codec.ClassCapability},
		{`{"requestMetadata":"x",` + userHi + `}`, "requestMetadata", codec.ClassInvalid},
		{`{"requestMetadata":null,` + userHi + `}`, "", 255},
	}
	for _, tt := range tests {
		_, err := decode(t, tt.body)
		if tt.class == 255 {
			if err != nil {
				t.Errorf("%s: %v", tt.body, err)
			}
			continue
		}
		switch {
		case err == nil:
			t.Errorf("%s: no error", tt.body)
		case err.Param != tt.param || err.Class != tt.class:
			t.Errorf("%s: error %q at %q (%v), want %q (%v)", tt.body, err.Message, err.Param, err.Class, tt.param, tt.class)
		case err.Status != 400 || strings.TrimSpace(err.Message) == "":
			t.Errorf("%s: %+v", tt.body, err)
		}
	}
}
