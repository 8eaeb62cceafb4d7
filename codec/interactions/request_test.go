package interactions

import (
	"strings"
	"testing"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/mapping"
)

// decode decodes body as a gemini-interactions request.
func decode(t *testing.T, body string) (*codec.Request, error) {
	t.Helper()
	req := new(codec.Request)
	err := codec.DecodeRequest(Gemini, []byte(body), req)
	return req, err
}

// TestDecodeRequest checks what each form of input and setting decodes
// to.
func TestDecodeRequest(t *testing.T) {
	for _, tt := range []struct {
		name, body string
		check      func(t *testing.T, r *codec.Request)
	}{
		{"input string", `{"model":"m","input":"Hi"}`, func(t *testing.T, r *codec.Request) {
			if len(r.Messages) != 1 || r.Messages[0].Role != codec.RoleUser || r.Messages[0].Parts[0].Text != "Hi" || r.Model != "m" {
				t.Errorf("%+v", r.Messages)
			}
		}},
		{"input content", `{"model":"m","input":{"type":"text","text":"Hi"}}`, func(t *testing.T, r *codec.Request) {
			if len(r.Messages) != 1 || r.Messages[0].Parts[0].Text != "Hi" {
				t.Errorf("%+v", r.Messages)
			}
		}},
		{"content list is one user turn", `{"model":"m","input":[{"type":"text","text":"a"},{"type":"image","mime_type":"image/png","data":"iVBORw0KGgo="}]}`,
			func(t *testing.T, r *codec.Request) {
				if len(r.Messages) != 1 || len(r.Messages[0].Parts) != 2 || r.Messages[0].Parts[1].Type != codec.PartImage {
					t.Errorf("%+v", r.Messages)
				}
			}},
		{"steps with a signed thought and a call", `{"model":"m","input":[{"type":"user_input","content":"Weather?"},` +
			`{"type":"thought","signature":"c2ln","summary":[{"type":"text","text":"Let me "},{"type":"text","text":"look."}]},` +
			`{"type":"function_call","id":"c1","name":"w","arguments":{"city":"Paris"}},` +
			`{"type":"function_result","call_id":"c1","result":"sunny"}]}`, func(t *testing.T, r *codec.Request) {
			if len(r.Messages) != 3 {
				t.Fatalf("%+v", r.Messages)
			}
			th, call, res := r.Messages[1].Parts[0], r.Messages[1].Parts[1], r.Messages[2].Parts[0]
			if th.Type != codec.PartReasoning || th.Signature != "c2ln" || th.Origin != mapping.FamilyGemini || th.Text != "Let me look." {
				t.Errorf("thought %+v", th)
			}
			if call.ToolCallID != "c1" || call.ToolName != "w" || call.Arguments != `{"city":"Paris"}` {
				t.Errorf("call %+v", call)
			}
			if res.Type != codec.PartToolResult || res.ToolName != "w" || res.Content[0].Text != "sunny" {
				t.Errorf("result %+v", res)
			}
		}},
		{"settings", `{"model":"m","input":"Hi","system_instruction":"Be brief","generation_config":{"temperature":0.2,"top_p":0.5,` +
			`"seed":3,"stop_sequences":["X"],"max_output_tokens":9,"thinking_level":"medium","thinking_summaries":"auto","tool_choice":"any"},` +
			`"tools":[{"type":"function","name":"f","parameters":{"type":"object"}}],"stream":true,"store":true}`, func(t *testing.T, r *codec.Request) {
			if r.System[0].Text != "Be brief" || r.Temperature.Value != 0.2 || r.TopP.Value != 0.5 || r.Seed.Value != 3 ||
				r.StopSequences[0] != "X" || r.MaxTokens.Value != 9 || r.Reasoning.Effort != mapping.EffortMedium ||
				!r.Reasoning.IncludeThoughts.Value || r.ToolChoice.Mode != codec.ToolChoiceRequired || !r.Stream ||
				len(r.Tools) != 1 || r.Tools[0].Parameters != `{"type":"object"}` {
				t.Errorf("%+v", r)
			}
			if strings.Join(r.Dropped, ",") != "store" {
				t.Errorf("dropped %v", r.Dropped)
			}
		}},
		{"structured output", `{"model":"m","input":"Hi","response_format":{"type":"text","mime_type":"application/json","schema":{"type":"object"}}}`,
			func(t *testing.T, r *codec.Request) {
				if r.Format.Kind != codec.FormatJSONSchema || r.Format.Schema != `{"type":"object"}` {
					t.Errorf("%+v", r.Format)
				}
			}},
		{"a schema by itself", `{"model":"m","input":"Hi","response_format":{"type":"object"}}`, func(t *testing.T, r *codec.Request) {
			if r.Format.Kind != codec.FormatJSONSchema {
				t.Errorf("%+v", r.Format)
			}
		}},
		{"a named tool choice", `{"model":"m","input":"Hi","tools":[{"type":"function","name":"f"}],` +
			`"generation_config":{"tool_choice":{"allowed_tools":{"mode":"any","tools":["f"]}}}}`, func(t *testing.T, r *codec.Request) {
			if r.ToolChoice.Mode != codec.ToolChoiceNamed || r.ToolChoice.Name != "f" {
				t.Errorf("%+v", r.ToolChoice)
			}
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r, err := decode(t, tt.body)
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, r)
		})
	}
}

// TestDecodeRequestRejects checks that malformed steps and what other
// providers cannot do are 400 errors naming the field.
func TestDecodeRequestRejects(t *testing.T) {
	for _, tt := range []struct {
		name, body, param string
		capability        bool
	}{
		{"no input", `{"model":"m"}`, "input", false},
		{"a step that is not an object", `{"model":"m","input":["Hi"]}`, "input[0]", false},
		{"a step without a type", `{"model":"m","input":[{"content":"Hi"}]}`, "input[0].type", false},
		{"an unknown step", `{"model":"m","input":[{"type":"telepathy"}]}`, "input[0].type", false},
		{"a call without an id", `{"model":"m","input":[{"type":"function_call","name":"f","arguments":{}}]}`, "input[0]", false},
		{"arguments that are not an object", `{"model":"m","input":[{"type":"function_call","id":"c","name":"f","arguments":"{}"}]}`, "input[0].arguments", false},
		{"a result of an unknown call", `{"model":"m","input":[{"type":"user_input","content":"Hi"},` +
			`{"type":"function_result","call_id":"nope","result":"x"}]}`, "input[1].call_id", false},
		{"an unknown field", `{"model":"m","input":"Hi","temprature":1}`, "temprature", false},
		{"an unknown thinking level", `{"model":"m","input":"Hi","generation_config":{"thinking_level":"max"}}`, "generation_config.thinking_level", false},
		{"a stored interaction", `{"model":"m","input":"Hi","previous_interaction_id":"v1_x"}`, "previous_interaction_id", true},
		{"a background interaction", `{"model":"m","input":"Hi","background":true}`, "background", true},
		{"an agent", `{"agent":"deep-research-pro-preview","input":"Hi"}`, "agent", true},
		{"a hosted tool", `{"model":"m","input":"Hi","tools":[{"type":"code_execution"}]}`, "tools[0]", true},
		{"a hosted tool step", `{"model":"m","input":[{"type":"code_execution_call","id":"x"}]}`, "input[0]", true},
		{"video", `{"model":"m","input":[{"type":"video","uri":"gs://b/v.mp4"}]}`, "input[0]", true},
		{"media that is not base64", `{"model":"m","input":[{"type":"image","mime_type":"image/png","data":"@@"}]}`, "input[0].data", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := decode(t, tt.body)
			e, ok := err.(*codec.Error)
			if !ok || e.Status != 400 || e.Param != tt.param {
				t.Fatalf("err = %v (%+v), want a 400 about %s", err, e, tt.param)
			}
			if got := e.Class == codec.ClassCapability; got != tt.capability {
				t.Errorf("class %v, capability %v", e.Class, tt.capability)
			}
		})
	}
}

// TestRequestRoundTrip encodes decoded requests back: what Google signed
// goes back as it came, and nothing foreign is sent to it.
func TestRequestRoundTrip(t *testing.T) {
	body := `{"model":"m","input":[{"type":"user_input","content":[{"type":"text","text":"Weather?"}]},` +
		`{"type":"thought","signature":"c2ln","summary":[{"type":"text","text":"hm"}]},` +
		`{"type":"function_call","id":"c1","name":"w","arguments":{"city":"Paris"}},` +
		`{"type":"function_result","call_id":"c1","name":"w","result":"sunny"}],` +
		`"system_instruction":"Be brief","tools":[{"type":"function","name":"w","parameters":{"type":"object"}}],` +
		`"generation_config":{"temperature":0.5,"max_output_tokens":100,"thinking_level":"high","thinking_summaries":"auto"},"stream":true,"store":false}`
	r, err := decode(t, body)
	if err != nil {
		t.Fatal(err)
	}
	out, err := codec.AppendRequest(nil, Gemini, r, codec.EncodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != body {
		t.Errorf("round trip\n got %s\nwant %s", out, body)
	}
}

// TestEncodeReasoning checks the canonical reasoning settings as
// thinking_level and thinking_summaries.
func TestEncodeReasoning(t *testing.T) {
	for _, tt := range []struct {
		name string
		r    codec.Reasoning
		want string
	}{
		{"nothing", codec.Reasoning{}, ``},
		{"an effort", codec.Reasoning{Effort: mapping.EffortLow}, `"thinking_level":"low","thinking_summaries":"auto"`},
		{"xhigh is high", codec.Reasoning{Effort: mapping.EffortXHigh}, `"thinking_level":"high","thinking_summaries":"auto"`},
		{"a budget is its effort", codec.Reasoning{Budget: codec.OptInt{Value: 8192, Set: true}}, `"thinking_level":"medium","thinking_summaries":"auto"`},
		{"off", codec.Reasoning{Effort: mapping.EffortNone}, `"thinking_summaries":"none"`},
		{"adaptive leaves the model's default", codec.Reasoning{Adaptive: true}, `"thinking_summaries":"auto"`},
		{"display omitted", codec.Reasoning{Effort: mapping.EffortHigh, Display: "omitted"}, `"thinking_level":"high","thinking_summaries":"none"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			req := codec.Request{Model: "m", Reasoning: tt.r, Messages: []codec.Message{{Parts: []codec.Part{{Type: codec.PartText, Text: "Hi"}}}}}
			out, err := codec.AppendRequest(nil, Gemini, &req, codec.EncodeOptions{})
			if err != nil {
				t.Fatal(err)
			}
			got := ""
			if i := strings.Index(string(out), `"generation_config":{`); i >= 0 {
				got = strings.TrimSuffix(string(out[i+len(`"generation_config":{`):]), `},"store":false}`)
			}
			if got != tt.want {
				t.Errorf("generation_config {%s}, want {%s}", got, tt.want)
			}
		})
	}
}

// TestEncodeForeignReasoning checks that reasoning Google did not sign
// is left out and reported.
func TestEncodeForeignReasoning(t *testing.T) {
	req := codec.Request{Model: "m", Messages: []codec.Message{
		{Role: codec.RoleUser, Parts: []codec.Part{{Type: codec.PartText, Text: "Hi"}}},
		{Role: codec.RoleAssistant, Parts: []codec.Part{{Type: codec.PartReasoning, Text: "t", Signature: "s", Origin: mapping.FamilyAnthropic},
			{Type: codec.PartText, Text: "A"}}},
	}}
	out, err := codec.AppendRequest(nil, Gemini, &req, codec.EncodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(out), "thought") || strings.Join(req.Dropped, ",") != "messages[1].parts[0] (reasoning)" {
		t.Errorf("%s, dropped %v", out, req.Dropped)
	}
}
