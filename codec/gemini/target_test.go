package gemini

import (
	"strings"
	"testing"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/mapping"
	"github.com/tidwall/gjson"
)

func TestGeminiThinkingLevelEncode(t *testing.T) {
	budget := func(n int64) codec.OptInt { return codec.OptInt{Value: n, Set: true} }
	tests := []struct {
		name    string
		r       codec.Reasoning
		budgets mapping.EffortBudgets
		want    string // the thinkingConfig, or "" for none
	}{
		{name: "nothing asked, nothing sent"},
		{name: "a summary alone", r: codec.Reasoning{Summary: "auto"}},
		{name: "a display alone", r: codec.Reasoning{Display: "summarized"}},
		{name: "effort minimal", r: codec.Reasoning{Effort: mapping.EffortMinimal}, want: `{"thinkingLevel":"minimal","includeThoughts":true}`},
		{name: "effort low", r: codec.Reasoning{Effort: mapping.EffortLow}, want: `{"thinkingLevel":"low","includeThoughts":true}`},
		{name: "effort medium", r: codec.Reasoning{Effort: mapping.EffortMedium}, want: `{"thinkingLevel":"medium","includeThoughts":true}`},
		{name: "effort high", r: codec.Reasoning{Effort: mapping.EffortHigh}, want: `{"thinkingLevel":"high","includeThoughts":true}`},
		{name: "effort xhigh is written as it is (fitted only toward a model that takes it)", r: codec.Reasoning{Effort: mapping.EffortXHigh}, want: `{"thinkingLevel":"xhigh","includeThoughts":true}`},
		{name: "effort max is high", r: codec.Reasoning{Effort: mapping.EffortMax}, want: `{"thinkingLevel":"high","includeThoughts":true}`},
		{name: "a budget is the effort it stands for", r: codec.Reasoning{Budget: budget(5000)}, want: `{"thinkingLevel":"medium","includeThoughts":true}`},
		{name: "the smallest budget is minimal", r: codec.Reasoning{Budget: budget(1024)}, want: `{"thinkingLevel":"minimal","includeThoughts":true}`},
		{name: "a budget of xhigh is high", r: codec.Reasoning{Budget: budget(31999)}, want: `{"thinkingLevel":"high","includeThoughts":true}`},
		{name: "a budget above every effort is high", r: codec.Reasoning{Budget: budget(100000)}, want: `{"thinkingLevel":"high","includeThoughts":true}`},
		{name: "a budget with configured budgets", r: codec.Reasoning{Budget: budget(3000)}, budgets: mapping.EffortBudgets{Low: 4096},
			want: `{"thinkingLevel":"low","includeThoughts":true}`},
		{name: "an effort beside a budget wins", r: codec.Reasoning{Effort: mapping.EffortLow, Budget: budget(30000)}, want: `{"thinkingLevel":"low","includeThoughts":true}`},
		{name: "adaptive is the model's default level", r: codec.Reasoning{Adaptive: true}, want: `{"includeThoughts":true}`},
		{name: "a dynamic budget is the model's default level", r: codec.Reasoning{Budget: budget(-1)}, want: `{"includeThoughts":true}`},
		{name: "adaptive with an effort", r: codec.Reasoning{Adaptive: true, Effort: mapping.EffortMedium}, want: `{"thinkingLevel":"medium","includeThoughts":true}`},
		{name: "adaptive, display omitted", r: codec.Reasoning{Adaptive: true, Display: "omitted"}, want: `{"includeThoughts":false}`},
		{name: "a level, display omitted", r: codec.Reasoning{Effort: mapping.EffortHigh, Display: "omitted"}, want: `{"thinkingLevel":"high","includeThoughts":false}`},
		{name: "effort none writes no level and asks for no thoughts", r: codec.Reasoning{Effort: mapping.EffortNone}, want: `{"includeThoughts":false}`},
		{name: "effort none wins over a budget", r: codec.Reasoning{Effort: mapping.EffortNone, Budget: budget(3000)}, want: `{"includeThoughts":false}`},
		{name: "budget zero is effort none", r: codec.Reasoning{Budget: budget(0)}, want: `{"includeThoughts":false}`},
		{name: "thinking off, but thoughts asked for", r: codec.Reasoning{Budget: budget(0), IncludeThoughts: codec.OptBool{Value: true, Set: true}}, want: `{"includeThoughts":true}`},
		{name: "includeThoughts false wins", r: codec.Reasoning{Effort: mapping.EffortHigh, IncludeThoughts: codec.OptBool{Set: true}}, want: `{"thinkingLevel":"high","includeThoughts":false}`},
		{name: "includeThoughts alone", r: codec.Reasoning{IncludeThoughts: codec.OptBool{Value: true, Set: true}}, want: `{"includeThoughts":true}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, p := range []codec.Protocol{codec.Gemini, codec.Vertex} {
				req := codec.Request{Messages: []codec.Message{geminiText(codec.RoleUser, "q")}, Reasoning: tt.r}
				out, err := codec.AppendRequest(nil, p, &req, codec.EncodeOptions{EffortBudgets: tt.budgets, Target: codec.Target{ThinkingLevel: true}})
				if err != nil {
					t.Fatal(err)
				}
				if got := gjson.GetBytes(out, "generationConfig.thinkingConfig").Raw; got != tt.want {
					t.Errorf("%s: thinkingConfig %s, want %s (body %s)", p, got, tt.want, out)
				}
				if strings.Contains(string(out), "thinkingBudget") {
					t.Errorf("%s: a thinkingBudget toward a level model: %s", p, out)
				}
			}
		})
	}
}

// Pieces of the bodies TestGeminiTargetRequests expects.
const (
	skip = `"thoughtSignature":"skip_thought_signature_validator"`

	// An Anthropic tool loop: two parallel calls after signed thinking,
	// then a text and one more call.
	targetAnthropicBody = `{"model":"claude-x","max_tokens":40000,"thinking":{"type":"enabled","budget_tokens":31999},
		"tools":[{"name":"get_weather","input_schema":{"type":"object","properties":{"city":{"type":"string"}}}}],
		"messages":[
			{"role":"user","content":"Weather in Paris and Rome?"},
			{"role":"assistant","content":[{"type":"thinking","thinking":"Two cities.","signature":"EqQBsig"},
				{"type":"tool_use","id":"toolu_1","name":"get_weather","input":{"city":"Paris"}},
				{"type":"tool_use","id":"toolu_2","name":"get_weather","input":{"city":"Rome"}}]},
			{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"sunny"},{"type":"tool_result","tool_use_id":"toolu_2","content":"rain"}]},
			{"role":"assistant","content":[{"type":"text","text":"Oslo too."},{"type":"tool_use","id":"toolu_3","name":"get_weather","input":{"city":"Oslo"}}]},
			{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_3","content":"snow"}]}]}`

	// A Chat tool loop with reasoning_effort high.
	targetChatBody = `{"model":"gpt-x","reasoning_effort":"high","messages":[
		{"role":"user","content":"List the files."},
		{"role":"assistant","content":null,"tool_calls":[{"id":"call_a","type":"function","function":{"name":"ls","arguments":"{\"dir\":\".\"}"}}]},
		{"role":"tool","tool_call_id":"call_a","content":"a.go"}]}`

	// A Gemini CLI history: an earlier step with a call no Gemini model
	// signed, then parallel calls of Gemini 3, whose first is signed.
	targetBody = `{"contents":[
		{"role":"user","parts":[{"text":"Read go.mod, then a.go and b.go."}]},
		{"role":"model","parts":[{"functionCall":{"id":"r0","name":"read","args":{"path":"go.mod"}}}]},
		{"role":"user","parts":[{"functionResponse":{"id":"r0","name":"read","response":{"output":"module m"}}}]},
		{"role":"model","parts":[{"functionCall":{"id":"r1","name":"read","args":{"path":"a.go"}},"thoughtSignature":"CiIBsig"},
			{"functionCall":{"id":"r2","name":"read","args":{"path":"b.go"}}}]},
		{"role":"user","parts":[{"functionResponse":{"id":"r1","name":"read","response":{"output":"package a"}}},
			{"functionResponse":{"id":"r2","name":"read","response":{"output":"package b"}}}]}],
		"generationConfig":{"thinkingConfig":{"thinkingBudget":8192,"includeThoughts":true}}}`
)

// TestGeminiTargetRequests encodes requests of other protocols toward
// Gemini and Vertex with and without the Target flags, and compares the
// contents and generationConfig written.
func TestGeminiTargetRequests(t *testing.T) {
	level := codec.Target{ThinkingLevel: true}
	signed := codec.Target{SignedFunctionCalls: true}
	gemini3 := codec.Target{ThinkingLevel: true, SignedFunctionCalls: true}

	anthropicContents := func(ids bool, sig string) string {
		id := func(s string) string {
			if ids {
				return `"id":"` + s + `",`
			}
			return ""
		}
		return `[{"role":"user","parts":[{"text":"Weather in Paris and Rome?"}]},` +
			`{"role":"model","parts":[{"functionCall":{` + id("toolu_1") + `"name":"get_weather","args":{"city":"Paris"}}` + sig + `},` +
			`{"functionCall":{` + id("toolu_2") + `"name":"get_weather","args":{"city":"Rome"}}}]},` +
			`{"role":"user","parts":[{"functionResponse":{` + id("toolu_1") + `"name":"get_weather","response":{"output":"sunny"}}},` +
			`{"functionResponse":{` + id("toolu_2") + `"name":"get_weather","response":{"output":"rain"}}}]},` +
			`{"role":"model","parts":[{"text":"Oslo too."},{"functionCall":{` + id("toolu_3") + `"name":"get_weather","args":{"city":"Oslo"}}` + sig + `}]},` +
			`{"role":"user","parts":[{"functionResponse":{` + id("toolu_3") + `"name":"get_weather","response":{"output":"snow"}}}]}]`
	}
	chatContents := func(sig string) string {
		return `[{"role":"user","parts":[{"text":"List the files."}]},` +
			`{"role":"model","parts":[{"functionCall":{"id":"call_a","name":"ls","args":{"dir":"."}}` + sig + `}]},` +
			`{"role":"user","parts":[{"functionResponse":{"id":"call_a","name":"ls","response":{"output":"a.go"}}}]}]`
	}
	contents := func(ids bool, sig string) string {
		id := func(s string) string {
			if ids {
				return `"id":"` + s + `",`
			}
			return ""
		}
		return `[{"role":"user","parts":[{"text":"Read go.mod, then a.go and b.go."}]},` +
			`{"role":"model","parts":[{"functionCall":{` + id("r0") + `"name":"read","args":{"path":"go.mod"}}` + sig + `}]},` +
			`{"role":"user","parts":[{"functionResponse":{` + id("r0") + `"name":"read","response":{"output":"module m"}}}]},` +
			`{"role":"model","parts":[{"functionCall":{` + id("r1") + `"name":"read","args":{"path":"a.go"}},"thoughtSignature":"CiIBsig"},` +
			`{"functionCall":{` + id("r2") + `"name":"read","args":{"path":"b.go"}}}]},` +
			`{"role":"user","parts":[{"functionResponse":{` + id("r1") + `"name":"read","response":{"output":"package a"}}},` +
			`{"functionResponse":{` + id("r2") + `"name":"read","response":{"output":"package b"}}}]}]`
	}

	tests := []struct {
		name     string
		from     codec.Protocol
		body     string
		to       codec.Protocol
		target   codec.Target
		contents string
		config   string // generationConfig
	}{
		{name: "anthropic budget, no flags", from: codec.AnthropicMessages, body: targetAnthropicBody, to: codec.Gemini,
			contents: anthropicContents(true, ""),
			config:   `{"maxOutputTokens":40000,"thinkingConfig":{"thinkingBudget":31999,"includeThoughts":true}}`},
		{name: "anthropic budget as a level", from: codec.AnthropicMessages, body: targetAnthropicBody, to: codec.Gemini, target: level,
			contents: anthropicContents(true, ""),
			config:   `{"maxOutputTokens":40000,"thinkingConfig":{"thinkingLevel":"high","includeThoughts":true}}`},
		{name: "anthropic calls signed: the first call of each step", from: codec.AnthropicMessages, body: targetAnthropicBody, to: codec.Gemini, target: signed,
			contents: anthropicContents(true, ","+skip),
			config:   `{"maxOutputTokens":40000,"thinkingConfig":{"thinkingBudget":31999,"includeThoughts":true}}`},
		{name: "anthropic toward gemini 3", from: codec.AnthropicMessages, body: targetAnthropicBody, to: codec.Gemini, target: gemini3,
			contents: anthropicContents(true, ","+skip),
			config:   `{"maxOutputTokens":40000,"thinkingConfig":{"thinkingLevel":"high","includeThoughts":true}}`},
		{name: "anthropic toward vertex: no ids", from: codec.AnthropicMessages, body: targetAnthropicBody, to: codec.Vertex,
			contents: anthropicContents(false, ""),
			config:   `{"maxOutputTokens":40000,"thinkingConfig":{"thinkingBudget":31999,"includeThoughts":true}}`},
		{name: "anthropic toward gemini 3 on vertex", from: codec.AnthropicMessages, body: targetAnthropicBody, to: codec.Vertex, target: gemini3,
			contents: anthropicContents(false, ","+skip),
			config:   `{"maxOutputTokens":40000,"thinkingConfig":{"thinkingLevel":"high","includeThoughts":true}}`},
		{name: "chat effort, no flags", from: codec.OpenAIChat, body: targetChatBody, to: codec.Gemini,
			contents: chatContents(""),
			config:   `{"thinkingConfig":{"thinkingBudget":24576,"includeThoughts":true}}`},
		{name: "chat effort toward gemini 3", from: codec.OpenAIChat, body: targetChatBody, to: codec.Gemini, target: gemini3,
			contents: chatContents("," + skip),
			config:   `{"thinkingConfig":{"thinkingLevel":"high","includeThoughts":true}}`},
		{name: "gemini history, no flags", from: codec.Gemini, body: targetBody, to: codec.Gemini,
			contents: contents(true, ""),
			config:   `{"thinkingConfig":{"thinkingBudget":8192,"includeThoughts":true}}`},
		{name: "gemini history toward gemini 3: a signed step keeps its signature", from: codec.Gemini, body: targetBody, to: codec.Gemini, target: gemini3,
			contents: contents(true, ","+skip),
			config:   `{"thinkingConfig":{"thinkingLevel":"medium","includeThoughts":true}}`},
		{name: "gemini history toward gemini 3 on vertex", from: codec.Gemini, body: targetBody, to: codec.Vertex, target: gemini3,
			contents: contents(false, ","+skip),
			config:   `{"thinkingConfig":{"thinkingLevel":"medium","includeThoughts":true}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var req codec.Request
			if err := codec.DecodeRequest(tt.from, []byte(tt.body), &req); err != nil {
				t.Fatal(err)
			}
			out, err := codec.AppendRequest(nil, tt.to, &req, codec.EncodeOptions{Target: tt.target})
			if err != nil {
				t.Fatal(err)
			}
			if got := gjson.GetBytes(out, "contents").Raw; got != tt.contents {
				t.Errorf("contents\n%s\nwant\n%s", got, tt.contents)
			}
			if got := gjson.GetBytes(out, "generationConfig").Raw; got != tt.config {
				t.Errorf("generationConfig\n%s\nwant\n%s", got, tt.config)
			}
		})
	}
}

func TestGeminiSignedFunctionCalls(t *testing.T) {
	call := func(id string) codec.Part {
		return codec.Part{Type: codec.PartToolCall, ToolCallID: id, ToolName: "f", Arguments: `{}`}
	}
	result := func(id string) codec.Part {
		return codec.Part{Type: codec.PartToolResult, ToolCallID: id, Content: []codec.Part{{Type: codec.PartText, Text: "ok"}}}
	}
	text := codec.Part{Type: codec.PartText, Text: "t"}
	signed := codec.Part{Type: codec.PartReasoning, Signature: "R2VtaW5p", Origin: mapping.FamilyGemini}
	tests := []struct {
		name     string
		messages []codec.Message // after the first user message
		want     string          // the contents after the first
	}{
		{
			name:     "a text before the call: the call is signed, not the text",
			messages: []codec.Message{{Role: codec.RoleAssistant, Parts: []codec.Part{text, call("c1")}}, {Role: codec.RoleUser, Parts: []codec.Part{result("c1")}}},
			want: `{"role":"model","parts":[{"text":"t"},{"functionCall":{"id":"c1","name":"f","args":{}},` + skip + `}]},` +
				`{"role":"user","parts":[{"functionResponse":{"id":"c1","name":"f","response":{"output":"ok"}}}]}`,
		},
		{
			name:     "a Gemini signature on the first call is kept",
			messages: []codec.Message{{Role: codec.RoleAssistant, Parts: []codec.Part{signed, call("c1"), call("c2")}}},
			want:     `{"role":"model","parts":[{"functionCall":{"id":"c1","name":"f","args":{}},"thoughtSignature":"R2VtaW5p"},{"functionCall":{"id":"c2","name":"f","args":{}}}]}`,
		},
		{
			// The signature sits on the text, where Gemini put it; the
			// step's first call still needs one of its own.
			name:     "a Gemini signature on a text before the call",
			messages: []codec.Message{{Role: codec.RoleAssistant, Parts: []codec.Part{signed, text, call("c1")}}},
			want:     `{"role":"model","parts":[{"text":"t","thoughtSignature":"R2VtaW5p"},{"functionCall":{"id":"c1","name":"f","args":{}},` + skip + `}]}`,
		},
		{
			name:     "a Gemini signature on a later call leaves the first to be signed",
			messages: []codec.Message{{Role: codec.RoleAssistant, Parts: []codec.Part{call("c1"), signed, call("c2")}}},
			want: `{"role":"model","parts":[{"functionCall":{"id":"c1","name":"f","args":{}},` + skip + `},` +
				`{"functionCall":{"id":"c2","name":"f","args":{}},"thoughtSignature":"R2VtaW5p"}]}`,
		},
		{
			name:     "foreign reasoning is dropped and the call signed",
			messages: []codec.Message{{Role: codec.RoleAssistant, Parts: []codec.Part{anthropicThinking, call("c1")}}},
			want:     `{"role":"model","parts":[{"functionCall":{"id":"c1","name":"f","args":{}},` + skip + `}]}`,
		},
		{
			name:     "assistant messages merged into one Content are one step",
			messages: []codec.Message{{Role: codec.RoleAssistant, Parts: []codec.Part{call("c1")}}, {Role: codec.RoleAssistant, Parts: []codec.Part{call("c2")}}},
			want: `{"role":"model","parts":[{"functionCall":{"id":"c1","name":"f","args":{}},` + skip + `},` +
				`{"functionCall":{"id":"c2","name":"f","args":{}}}]}`,
		},
		{
			name:     "a model turn without calls is left alone",
			messages: []codec.Message{{Role: codec.RoleAssistant, Parts: []codec.Part{text}}},
			want:     `{"role":"model","parts":[{"text":"t"}]}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			msgs := append([]codec.Message{geminiText(codec.RoleUser, "q")}, tt.messages...)
			req := codec.Request{Messages: msgs}
			out, err := codec.AppendRequest(nil, codec.Gemini, &req, codec.EncodeOptions{Target: codec.Target{SignedFunctionCalls: true}})
			if err != nil {
				t.Fatal(err)
			}
			want := `[{"role":"user","parts":[{"text":"q"}]},` + tt.want + `]`
			if got := gjson.GetBytes(out, "contents").Raw; got != want {
				t.Errorf("contents\n%s\nwant\n%s", got, want)
			}
			// Without the flag, no part is signed that was not before.
			req = codec.Request{Messages: msgs}
			plain, err := codec.AppendRequest(nil, codec.Gemini, &req, codec.EncodeOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.ReplaceAll(string(out), ","+skip, ""); got != string(plain) {
				t.Errorf("without the flag\n%s\nwant\n%s", plain, got)
			}
		})
	}
}

// TestVertexToolLoopWithoutIDs follows a tool loop through a Vertex
// upstream, which neither sends nor takes call ids: the decoder gives the
// calls ids, the client answers them by id, and the next request matches
// the results to the calls by name and order again.
func TestVertexToolLoopWithoutIDs(t *testing.T) {
	upstream := `{"responseId":"rX1","candidates":[{"content":{"role":"model","parts":[` +
		`{"functionCall":{"name":"get_weather","args":{"city":"Paris"}},"thoughtSignature":"CiIBsig"},` +
		`{"functionCall":{"name":"get_time","args":{"city":"Paris"}}}]},"finishReason":"STOP"}]}`
	var resp codec.Response
	if err := codec.DecodeResponse(codec.Vertex, []byte(upstream), &resp); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, p := range resp.Content {
		if p.Type == codec.PartToolCall {
			ids = append(ids, p.ToolCallID)
		}
	}
	if len(ids) != 2 || ids[0] == "" || ids[0] == ids[1] {
		t.Fatalf("call ids %q, want two distinct ids", ids)
	}
	// An Anthropic client replays the calls (without the thinking block
	// that carried the signature, so the first call gets the skip value)
	// and answers them by id, the results in the other order: their names
	// still tell them apart.
	body := `{"model":"m","max_tokens":100,"messages":[{"role":"user","content":"Paris?"},` +
		`{"role":"assistant","content":[{"type":"tool_use","id":"` + ids[0] + `","name":"get_weather","input":{"city":"Paris"}},` +
		`{"type":"tool_use","id":"` + ids[1] + `","name":"get_time","input":{"city":"Paris"}}]},` +
		`{"role":"user","content":[{"type":"tool_result","tool_use_id":"` + ids[1] + `","content":"noon"},` +
		`{"type":"tool_result","tool_use_id":"` + ids[0] + `","content":"sunny"}]}]}`
	var req codec.Request
	if err := codec.DecodeRequest(codec.AnthropicMessages, []byte(body), &req); err != nil {
		t.Fatal(err)
	}
	out, err := codec.AppendRequest(nil, codec.Vertex, &req, codec.EncodeOptions{Target: codec.Target{SignedFunctionCalls: true}})
	if err != nil {
		t.Fatal(err)
	}
	want := `[{"role":"user","parts":[{"text":"Paris?"}]},` +
		`{"role":"model","parts":[{"functionCall":{"name":"get_weather","args":{"city":"Paris"}},` + skip + `},` +
		`{"functionCall":{"name":"get_time","args":{"city":"Paris"}}}]},` +
		`{"role":"user","parts":[{"functionResponse":{"name":"get_time","response":{"output":"noon"}}},` +
		`{"functionResponse":{"name":"get_weather","response":{"output":"sunny"}}}]}]`
	if got := gjson.GetBytes(out, "contents").Raw; got != want {
		t.Errorf("contents\n%s\nwant\n%s", got, want)
	}
}
