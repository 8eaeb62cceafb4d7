package anthropic

import (
	"strings"
	"testing"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/codectest"
	"github.com/llmbridge/llmbridge/mapping"
	"github.com/tidwall/gjson"
)

// gjsonInt returns the integer at path in the JSON text s.
func gjsonInt(s, path string) int64 { return gjson.Get(s, path).Int() }

// reasoningBody is a minimal Messages request with extra top-level
// members.
func reasoningBody(extra string) string {
	if extra != "" {
		extra = "," + extra
	}
	return `{"model":"claude-x","max_tokens":4096,"messages":[{"role":"user","content":"hi"}]` + extra + `}`
}

// historyBody is a request whose second message, of role, has the
// given content blocks.
func historyBody(role, blocks string) string {
	return `{"model":"claude-x","max_tokens":4096,"messages":[{"role":"user","content":"hi"},{"role":"` + role +
		`","content":[` + blocks + `]},{"role":"user","content":"go on"}]}`
}

func TestAnthropicDecodeReasoningConfig(t *testing.T) {
	tests := []struct {
		name    string
		extra   string
		want    codec.Reasoning
		format  codec.OutputFormat
		dropped []string
	}{
		{name: "absent injects nothing"},
		{name: "null thinking and output_config", extra: `"thinking":null,"output_config":null`},
		{name: "empty output_config", extra: `"output_config":{}`},
		{name: "null members", extra: `"output_config":{"effort":null,"format":null},"thinking":{"type":"adaptive","display":null}`,
			want: codec.Reasoning{Adaptive: true}},
		{name: "enabled", extra: `"thinking":{"type":"enabled","budget_tokens":2048}`,
			want: codec.Reasoning{Budget: codec.OptInt{Value: 2048, Set: true}}},
		{name: "enabled with display", extra: `"thinking":{"budget_tokens":1024,"display":"omitted","type":"enabled"}`,
			want: codec.Reasoning{Budget: codec.OptInt{Value: 1024, Set: true}, Display: "omitted"}},
		{name: "adaptive", extra: `"thinking":{"type":"adaptive"}`, want: codec.Reasoning{Adaptive: true}},
		{name: "adaptive summarized with effort", extra: `"thinking":{"type":"adaptive","display":"summarized"},"output_config":{"effort":"max"}`,
			want: codec.Reasoning{Adaptive: true, Display: "summarized", Effort: mapping.EffortMax}},
		{name: "disabled is effort none", extra: `"thinking":{"type":"disabled"}`, want: codec.Reasoning{Effort: mapping.EffortNone}},
		{name: "effort alone", extra: `"output_config":{"effort":"low"}`, want: codec.Reasoning{Effort: mapping.EffortLow}},
		{name: "effort xhigh", extra: `"output_config":{"effort":"xhigh"}`, want: codec.Reasoning{Effort: mapping.EffortXHigh}},
		{name: "effort medium before enabled", extra: `"output_config":{"effort":"medium"},"thinking":{"type":"enabled","budget_tokens":5000}`,
			want: codec.Reasoning{Effort: mapping.EffortMedium, Budget: codec.OptInt{Value: 5000, Set: true}}},
		{name: "disabled wins over an effort, which is dropped", extra: `"output_config":{"effort":"high"},"thinking":{"type":"disabled"}`,
			want: codec.Reasoning{Effort: mapping.EffortNone}, dropped: []string{"output_config.effort"}},
		{name: "repeated thinking replaces", extra: `"thinking":{"type":"disabled"},"thinking":{"type":"enabled","budget_tokens":3000}`,
			want: codec.Reasoning{Budget: codec.OptInt{Value: 3000, Set: true}}},
		{name: "json schema format", extra: `"output_config":{"format":{"type":"json_schema","schema":{"type":"object","properties":{"a":{"type":"string"}}}}}`,
			format: codec.OutputFormat{Kind: codec.FormatJSONSchema, Schema: `{"type":"object","properties":{"a":{"type":"string"}}}`}},
		{name: "format and effort", extra: `"output_config":{"effort":"high","format":{"schema":{},"type":"json_schema"}}`,
			want: codec.Reasoning{Effort: mapping.EffortHigh}, format: codec.OutputFormat{Kind: codec.FormatJSONSchema, Schema: `{}`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, p := range []codec.Protocol{codec.AnthropicMessages, codec.VertexAnthropic} {
				body := reasoningBody(tt.extra)
				if p == codec.VertexAnthropic {
					body = strings.Replace(body, `"model":"claude-x",`, "", 1)
				}
				var req codec.Request
				if err := codec.DecodeRequest(p, []byte(body), &req); err != nil {
					t.Fatalf("%s: %v", p, err)
				}
				if req.Reasoning != tt.want {
					t.Errorf("%s: reasoning %+v, want %+v", p, req.Reasoning, tt.want)
				}
				if req.Format != tt.format {
					t.Errorf("%s: format %+v, want %+v", p, req.Format, tt.format)
				}
				if !codectest.EqualDecoded(req.Dropped, tt.dropped) {
					t.Errorf("%s: dropped %q, want %q", p, req.Dropped, tt.dropped)
				}
			}
		})
	}
}

func TestAnthropicDecodeReasoningConfigErrors(t *testing.T) {
	tests := []struct {
		name, extra, param, message string
	}{
		{"thinking between_tools", `"thinking":{"type":"between_tools"}`, "thinking.type", `"between_tools" has no equivalent`},
		{"thinking unknown type", `"thinking":{"type":"auto"}`, "thinking.type", `must be "enabled", "adaptive", "disabled"`},
		{"thinking enabled without budget", `"thinking":{"type":"enabled"}`, "thinking.budget_tokens", "is required"},
		{"thinking budget wrong type", `"thinking":{"type":"enabled","budget_tokens":"2048"}`, "thinking.budget_tokens", "expected integer"},
		{"thinking budget too small", `"thinking":{"type":"enabled","budget_tokens":1023}`, "thinking.budget_tokens", "at least 1024"},
		{"thinking adaptive with budget", `"thinking":{"type":"adaptive","budget_tokens":2048}`, "thinking.budget_tokens", "unknown field"},
		{"thinking disabled with display", `"thinking":{"type":"disabled","display":"omitted"}`, "thinking.display", "unknown field"},
		{"thinking display invalid", `"thinking":{"type":"adaptive","display":"full"}`, "thinking.display", `"summarized" or "omitted"`},
		{"thinking display wrong type", `"thinking":{"type":"adaptive","display":1}`, "thinking.display", "expected string"},
		{"thinking unknown member", `"thinking":{"type":"enabled","budget_tokens":2048,"interleaved":true}`, "thinking.interleaved", "unknown field"},
		{"output_config wrong type", `"output_config":[]`, "output_config", "expected object"},
		{"output_config unknown member", `"output_config":{"verbosity":"low"}`, "output_config.verbosity", "unknown field"},
		{"effort invalid", `"output_config":{"effort":"minimal"}`, "output_config.effort", `must be "low"`},
		{"effort none invalid", `"output_config":{"effort":"none"}`, "output_config.effort", `must be "low"`},
		{"effort wrong type", `"output_config":{"effort":3}`, "output_config.effort", "expected string"},
		{"format wrong type", `"output_config":{"format":"json"}`, "output_config.format", "expected object"},
		{"format type missing", `"output_config":{"format":{"schema":{}}}`, "output_config.format.type", "is required"},
		{"format type json_object", `"output_config":{"format":{"type":"json_object"}}`, "output_config.format.type", `must be "json_schema"`},
		{"format schema missing", `"output_config":{"format":{"type":"json_schema"}}`, "output_config.format.schema", "is required"},
		{"format schema wrong type", `"output_config":{"format":{"type":"json_schema","schema":"{}"}}`, "output_config.format.schema", "expected object"},
		{"format unknown member", `"output_config":{"format":{"type":"json_schema","schema":{},"name":"x"}}`, "output_config.format.name", "unknown field"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var req codec.Request
			err := codec.DecodeRequest(codec.AnthropicMessages, []byte(reasoningBody(tt.extra)), &req)
			if err == nil {
				t.Fatalf("DecodeRequest succeeded: %+v", req.Reasoning)
			}
			e := asError(t, err)
			if e.Status != 400 || e.Param != tt.param || !strings.Contains(e.Message, tt.message) {
				t.Errorf("got %d %q %q, want 400 %q containing %q", e.Status, e.Param, e.Message, tt.param, tt.message)
			}
		})
	}
}

func TestAnthropicDecodeThinkingHistory(t *testing.T) {
	gemini := mapping.AppendEnvelope(nil, mapping.Continuation{Origin: mapping.FamilyGemini, Signature: "gem/sig=="})
	openai := mapping.AppendEnvelope(nil, mapping.Continuation{Origin: mapping.FamilyOpenAI, ItemID: "rs_1", Signature: "gAAAA"})
	redacted := mapping.AppendEnvelope(nil, mapping.Continuation{Origin: mapping.FamilyAnthropic, Redacted: true, Signature: "EmwK"})
	tests := []struct {
		name   string
		blocks string
		want   []codec.Part
	}{
		{"native thinking", `{"type":"thinking","thinking":"Let me see.","signature":"EqQB+/="}`,
			[]codec.Part{{Type: codec.PartReasoning, Text: "Let me see.", Signature: "EqQB+/=", Origin: mapping.FamilyAnthropic}}},
		{"native redacted thinking", `{"type":"redacted_thinking","data":"EmwKAhgB"}`,
			[]codec.Part{{Type: codec.PartReasoning, Redacted: true, Signature: "EmwKAhgB", Origin: mapping.FamilyAnthropic}}},
		{"unsigned thinking", `{"type":"thinking","thinking":"plain","signature":""}`,
			[]codec.Part{{Type: codec.PartReasoning, Text: "plain"}}},
		{"envelope from Gemini", `{"type":"thinking","thinking":"","signature":"` + string(gemini) + `"}`,
			[]codec.Part{{Type: codec.PartReasoning, Signature: "gem/sig==", Origin: mapping.FamilyGemini}}},
		{"envelope from OpenAI with item id", `{"type":"thinking","thinking":"summary","signature":"` + string(openai) + `"}`,
			[]codec.Part{{Type: codec.PartReasoning, Text: "summary", Signature: "gAAAA", Origin: mapping.FamilyOpenAI, ItemID: "rs_1"}}},
		{"redacted envelope in data", `{"type":"redacted_thinking","data":"` + string(redacted) + `"}`,
			[]codec.Part{{Type: codec.PartReasoning, Redacted: true, Signature: "EmwK", Origin: mapping.FamilyAnthropic}}},
		{"redacted envelope in a thinking signature", `{"type":"thinking","thinking":"","signature":"` + string(redacted) + `"}`,
			[]codec.Part{{Type: codec.PartReasoning, Redacted: true, Signature: "EmwK", Origin: mapping.FamilyAnthropic}}},
		{"interleaved with text and tool use", `{"type":"thinking","thinking":"a","signature":"S1"},{"type":"text","text":"Calling."},` +
			`{"type":"tool_use","id":"toolu_1","name":"f","input":{}},{"type":"redacted_thinking","data":"R"}`,
			[]codec.Part{{Type: codec.PartReasoning, Text: "a", Signature: "S1", Origin: mapping.FamilyAnthropic}, {Type: codec.PartText, Text: "Calling."},
				{Type: codec.PartToolCall, ToolCallID: "toolu_1", ToolName: "f", Arguments: "{}"},
				{Type: codec.PartReasoning, Redacted: true, Signature: "R", Origin: mapping.FamilyAnthropic}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var req codec.Request
			if err := codec.DecodeRequest(codec.AnthropicMessages, []byte(historyBody("assistant", tt.blocks)), &req); err != nil {
				t.Fatal(err)
			}
			if got := req.Messages[1].Parts; !codectest.EqualDecoded(got, tt.want) {
				t.Errorf("parts %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestAnthropicDecodeThinkingHistoryErrors(t *testing.T) {
	tests := []struct {
		name, role, blocks, param, message string
	}{
		{"thinking in a user message", "user", `{"type":"thinking","thinking":"a","signature":"S"}`, "messages[1].content[0]", "belong in assistant messages"},
		{"redacted thinking in a user message", "user", `{"type":"text","text":"x"},{"type":"redacted_thinking","data":"R"}`, "messages[1].content[1]", "belong in assistant messages"},
		{"thinking without thinking", "assistant", `{"type":"thinking","signature":"S"}`, "messages[1].content[0].thinking", "is required"},
		{"thinking text wrong type", "assistant", `{"type":"thinking","thinking":1,"signature":"S"}`, "messages[1].content[0].thinking", "expected string"},
		{"thinking without signature", "assistant", `{"type":"thinking","thinking":"a"}`, "messages[1].content[0].signature", "is required"},
		{"thinking signature wrong type", "assistant", `{"type":"thinking","thinking":"a","signature":null}`, "messages[1].content[0].signature", "expected string"},
		{"thinking with cache_control", "assistant", `{"type":"thinking","thinking":"a","signature":"S","cache_control":{"type":"ephemeral"}}`, "messages[1].content[0].cache_control", "unknown field"},
		{"thinking with a text member", "assistant", `{"type":"thinking","thinking":"a","signature":"S","text":"x"}`, "messages[1].content[0].text", "unknown field"},
		{"redacted thinking without data", "assistant", `{"type":"redacted_thinking"}`, "messages[1].content[0].data", "is required"},
		{"redacted thinking empty data", "assistant", `{"type":"redacted_thinking","data":""}`, "messages[1].content[0].data", "is required"},
		{"redacted thinking with thinking", "assistant", `{"type":"redacted_thinking","data":"R","thinking":"x"}`, "messages[1].content[0].thinking", "unknown field"},
		{"malformed envelope in signature", "assistant", `{"type":"thinking","thinking":"a","signature":"llmbridge.v1.!!"}`, "messages[1].content[0].signature", "malformed"},
		{"malformed envelope in data", "assistant", `{"type":"redacted_thinking","data":"llmbridge.v1.AAAA"}`, "messages[1].content[0].data", "malformed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var req codec.Request
			err := codec.DecodeRequest(codec.AnthropicMessages, []byte(historyBody(tt.role, tt.blocks)), &req)
			if err == nil {
				t.Fatalf("DecodeRequest succeeded: %+v", req.Messages)
			}
			e := asError(t, err)
			if e.Status != 400 || e.Param != tt.param || !strings.Contains(e.Message, tt.message) {
				t.Errorf("got %d %q %q, want 400 %q containing %q", e.Status, e.Param, e.Message, tt.param, tt.message)
			}
		})
	}
	// Thinking is no system or tool result content.
	for body, want := range map[string]string{
		`{"model":"m","max_tokens":1,"system":[{"type":"thinking","thinking":"a","signature":"S"}],"messages":[{"role":"user","content":"x"}]}`: "system[0]",
		historyBody("user", `{"type":"tool_result","tool_use_id":"t","content":[{"type":"redacted_thinking","data":"R"}]}`):                     "messages[1].content[0].content[0]",
	} {
		var req codec.Request
		err := codec.DecodeRequest(codec.AnthropicMessages, []byte(body), &req)
		if e := asError(t, err); e.Param != want || !strings.Contains(e.Message, "is not allowed in") {
			t.Errorf("%s: %v, want an error about %s", body, e, want)
		}
	}
}

// encodeRequest encodes req toward p, returning the body and the
// error.
func encodeRequest(t *testing.T, p codec.Protocol, req *codec.Request, opts codec.EncodeOptions) (string, *codec.Error) {
	t.Helper()
	out, err := codec.AppendRequest(nil, p, req, opts)
	if err != nil {
		return "", asError(t, err)
	}
	return string(out), nil
}

// baseRequest is a one-turn canonical request.
func baseRequest() codec.Request {
	return codec.Request{Model: "claude-x", Messages: []codec.Message{text(codec.RoleUser, "hi")}}
}

func TestAnthropicAppendReasoningConfig(t *testing.T) {
	budgets := mapping.EffortBudgets{Low: 3000}
	tests := []struct {
		name      string
		reasoning codec.Reasoning
		maxTokens codec.OptInt
		opts      codec.EncodeOptions
		want      string // the members after "messages", as written
		dropped   []string
	}{
		{name: "nothing asked injects nothing", want: ``},
		{name: "summary alone injects nothing", reasoning: codec.Reasoning{Summary: "auto"}, want: ``, dropped: []string{"reasoning.summary"}},
		{name: "effort none disables", reasoning: codec.Reasoning{Effort: mapping.EffortNone}, want: `,"thinking":{"type":"disabled"}`},
		{name: "zero budget disables", reasoning: codec.Reasoning{Budget: codec.OptInt{Set: true}}, want: `,"thinking":{"type":"disabled"}`},
		{name: "disabled drops display", reasoning: codec.Reasoning{Effort: mapping.EffortNone, Display: "omitted"},
			want: `,"thinking":{"type":"disabled"}`, dropped: []string{"thinking.display"}},
		{name: "effort low is a budget", reasoning: codec.Reasoning{Effort: mapping.EffortLow},
			want: `,"thinking":{"type":"enabled","budget_tokens":2048}`},
		{name: "effort with configured budgets", reasoning: codec.Reasoning{Effort: mapping.EffortLow}, opts: codec.EncodeOptions{EffortBudgets: budgets},
			want: `,"thinking":{"type":"enabled","budget_tokens":3000}`},
		{name: "effort max", reasoning: codec.Reasoning{Effort: mapping.EffortMax}, maxTokens: codec.OptInt{Value: 128000, Set: true},
			want: `,"thinking":{"type":"enabled","budget_tokens":63999}`},
		{name: "budget", reasoning: codec.Reasoning{Budget: codec.OptInt{Value: 5000, Set: true}}, want: `,"thinking":{"type":"enabled","budget_tokens":5000}`},
		{name: "budget with display and effort", reasoning: codec.Reasoning{Budget: codec.OptInt{Value: 5000, Set: true}, Display: "summarized", Effort: mapping.EffortHigh},
			want: `,"thinking":{"type":"enabled","budget_tokens":5000,"display":"summarized"},"output_config":{"effort":"high"}`},
		{name: "adaptive", reasoning: codec.Reasoning{Adaptive: true}, want: `,"thinking":{"type":"adaptive"}`},
		{name: "dynamic Gemini budget is adaptive", reasoning: codec.Reasoning{Budget: codec.OptInt{Value: -1, Set: true}}, want: `,"thinking":{"type":"adaptive"}`},
		{name: "adaptive with effort xhigh", reasoning: codec.Reasoning{Adaptive: true, Effort: mapping.EffortXHigh},
			want: `,"thinking":{"type":"adaptive"},"output_config":{"effort":"xhigh"}`},
		{name: "includeThoughts false is display omitted", reasoning: codec.Reasoning{Budget: codec.OptInt{Value: 2000, Set: true}, IncludeThoughts: codec.OptBool{Set: true}},
			want: `,"thinking":{"type":"enabled","budget_tokens":2000,"display":"omitted"}`},
		{name: "includeThoughts true leaves the default", reasoning: codec.Reasoning{Adaptive: true, IncludeThoughts: codec.OptBool{Value: true, Set: true}},
			want: `,"thinking":{"type":"adaptive"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, p := range []codec.Protocol{codec.AnthropicMessages, codec.VertexAnthropic} {
				req := baseRequest()
				req.Reasoning, req.MaxTokens = tt.reasoning, tt.maxTokens
				out, err := encodeRequest(t, p, &req, tt.opts)
				if err != nil {
					t.Fatalf("%s: %v", p, err)
				}
				i := strings.Index(out, `"text":"hi"}]}]`)
				if i < 0 {
					t.Fatalf("%s: %s", p, out)
				}
				if got := strings.TrimSuffix(out[i+len(`"text":"hi"}]}]`):], "}"); got != tt.want {
					t.Errorf("%s: got %s\nwant %s", p, got, tt.want)
				}
				if !codectest.EqualDecoded(req.Dropped, tt.dropped) {
					t.Errorf("%s: dropped %q, want %q", p, req.Dropped, tt.dropped)
				}
			}
		})
	}
}

// TestAnthropicAppendThinkingMaxTokens checks that budget_tokens stays below
// max_tokens: the default output allowance is added to the budget when the
// client set no limit, a client limit at or under the budget lowers the
// budget, and a limit that leaves no valid budget is a 400.
func TestAnthropicAppendThinkingMaxTokens(t *testing.T) {
	tests := []struct {
		name       string
		budget     int64
		maxTokens  codec.OptInt
		defaultMax int64
		want       string
		param      string
	}{
		{name: "unset: budget plus the default", budget: 8192, want: `"max_tokens":12288,`},
		{name: "unset: budget plus the configured default", budget: 8192, defaultMax: 1000, want: `"max_tokens":9192,`},
		{name: "client limit above the budget", budget: 8192, maxTokens: codec.OptInt{Value: 8193, Set: true}, want: `"max_tokens":8193,`},
		{name: "client limit equal to the budget lowers it", budget: 8192, maxTokens: codec.OptInt{Value: 8192, Set: true},
			want: `"max_tokens":8192,`},
		{name: "client limit under the budget lowers it", budget: 24576, maxTokens: codec.OptInt{Value: 2000, Set: true}, want: `"max_tokens":2000,`},
		{name: "smallest workable limit", budget: 2048, maxTokens: codec.OptInt{Value: 1025, Set: true}, want: `"max_tokens":1025,`},
		{name: "limit too small", budget: 2048, maxTokens: codec.OptInt{Value: 1024, Set: true}, param: "max_tokens"},
		{name: "budget below Anthropic's minimum", budget: 512, param: "thinking.budget_tokens"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := baseRequest()
			req.Reasoning.Budget = codec.OptInt{Value: tt.budget, Set: true}
			req.MaxTokens = tt.maxTokens
			out, err := encodeRequest(t, codec.AnthropicMessages, &req, codec.EncodeOptions{DefaultMaxTokens: tt.defaultMax})
			if tt.param != "" {
				if err == nil || err.Status != 400 || err.Param != tt.param || !strings.Contains(err.Message, "cannot be expressed") {
					t.Fatalf("got %v (%s), want a 400 about %s", err, out, tt.param)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(out, tt.want) {
				t.Errorf("%s lacks %s", out, tt.want)
			}
			budget := gjsonInt(out, "thinking.budget_tokens")
			if max := gjsonInt(out, "max_tokens"); budget >= max || budget < 1024 {
				t.Errorf("budget %d, max_tokens %d", budget, max)
			}
		})
	}
}

func TestAnthropicAppendReasoningConfigErrors(t *testing.T) {
	tests := []struct {
		name   string
		modify func(*codec.Request)
		param  string
	}{
		{"minimal effort beside adaptive", func(r *codec.Request) { r.Reasoning = codec.Reasoning{Adaptive: true, Effort: mapping.EffortMinimal} }, "output_config.effort"},
		{"verbosity", func(r *codec.Request) { r.Verbosity = "low" }, "verbosity"},
		{"json object format", func(r *codec.Request) { r.Format = codec.OutputFormat{Kind: codec.FormatJSONObject} }, "output_config.format"},
		{"unknown format kind", func(r *codec.Request) { r.Format = codec.OutputFormat{Kind: 9} }, "output_config.format"},
		{"schema not an object", func(r *codec.Request) { r.Format = codec.OutputFormat{Kind: codec.FormatJSONSchema, Schema: `[]`} }, "output_config.format.schema"},
		{"schema missing", func(r *codec.Request) { r.Format = codec.OutputFormat{Kind: codec.FormatJSONSchema} }, "output_config.format.schema"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, p := range []codec.Protocol{codec.AnthropicMessages, codec.VertexAnthropic} {
				req := baseRequest()
				tt.modify(&req)
				out, err := encodeRequest(t, p, &req, codec.EncodeOptions{})
				if err == nil || err.Status != 400 || err.Param != tt.param {
					t.Errorf("%s: got %v (%s), want a 400 about %s", p, err, out, tt.param)
				}
			}
		})
	}
}

func TestAnthropicAppendOutputFormat(t *testing.T) {
	req := baseRequest()
	req.Format = codec.OutputFormat{Kind: codec.FormatJSONSchema, Name: "answer", Description: "The answer.", Strict: codec.OptBool{Value: true, Set: true},
		Schema: `{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"],"additionalProperties":false}`}
	out, err := encodeRequest(t, codec.VertexAnthropic, &req, codec.EncodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := `,"output_config":{"format":{"type":"json_schema","schema":` + req.Format.Schema + `}}}`
	if !strings.HasSuffix(out, want) {
		t.Errorf("%s\nlacks %s", out, want)
	}
	if !codectest.EqualDecoded(req.Dropped, []string{"format.description"}) {
		t.Errorf("dropped %q", req.Dropped)
	}
	// The Anthropic client's own structured output comes back unchanged.
	var back codec.Request
	if err := codec.DecodeRequest(codec.VertexAnthropic, []byte(out), &back); err != nil {
		t.Fatal(err)
	}
	if back.Format != (codec.OutputFormat{Kind: codec.FormatJSONSchema, Schema: req.Format.Schema}) {
		t.Errorf("decoded format %+v", back.Format)
	}
}

func TestAnthropicAppendReasoningHistory(t *testing.T) {
	sig := codec.Part{Type: codec.PartReasoning, Text: "Think.", Signature: "EqQB+/=", Origin: mapping.FamilyAnthropic}
	redacted := codec.Part{Type: codec.PartReasoning, Redacted: true, Signature: "EmwK", Origin: mapping.FamilyAnthropic}
	gemini := codec.Part{Type: codec.PartReasoning, Text: "G", Signature: "gsig", Origin: mapping.FamilyGemini}
	openai := codec.Part{Type: codec.PartReasoning, Text: "O", Signature: "enc", Origin: mapping.FamilyOpenAI, ItemID: "rs_1"}
	unsigned := codec.Part{Type: codec.PartReasoning, Text: "from chat"}
	call := codec.Part{Type: codec.PartToolCall, ToolCallID: "toolu_1", ToolName: "f", Arguments: `{"a":1}`}
	req := codec.Request{Model: "claude-x", Messages: []codec.Message{
		text(codec.RoleUser, "q1"),
		{Role: codec.RoleAssistant, Parts: []codec.Part{sig, {Type: codec.PartText, Text: "A1"}, redacted, call}},
		{Role: codec.RoleUser, Parts: []codec.Part{{Type: codec.PartToolResult, ToolCallID: "toolu_1", Content: []codec.Part{{Type: codec.PartText, Text: "r"}}}}},
		{Role: codec.RoleAssistant, Parts: []codec.Part{gemini, openai, unsigned, {Type: codec.PartText, Text: "A2"}}},
		text(codec.RoleUser, "q2"),
		{Role: codec.RoleAssistant, Parts: []codec.Part{unsigned}}, // only reasoning that cannot go: the message disappears
		{Role: codec.RoleUser, Parts: []codec.Part{sig, {Type: codec.PartText, Text: "q3"}}},
	}}
	for _, p := range []codec.Protocol{codec.AnthropicMessages, codec.VertexAnthropic} {
		r := req
		r.Dropped = nil
		out, err := encodeRequest(t, p, &r, codec.EncodeOptions{})
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		want := `"messages":[{"role":"user","content":[{"type":"text","text":"q1"}]},` +
			`{"role":"assistant","content":[{"type":"thinking","thinking":"Think.","signature":"EqQB+/="},{"type":"text","text":"A1"},` +
			`{"type":"redacted_thinking","data":"EmwK"},{"type":"tool_use","id":"toolu_1","name":"f","input":{"a":1}}]},` +
			`{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"r"}]},` +
			`{"role":"assistant","content":[{"type":"text","text":"A2"}]},` +
			`{"role":"user","content":[{"type":"text","text":"q2"},{"type":"text","text":"q3"}]}]`
		if !strings.Contains(out, want) {
			t.Errorf("%s: %s\nlacks %s", p, out, want)
		}
		wantDropped := []string{"messages[3].content[0] (reasoning)", "messages[3].content[1] (reasoning)",
			"messages[3].content[2] (reasoning)", "messages[5].content[0] (reasoning)", "messages[6].content[0] (reasoning)"}
		if !codectest.EqualDecoded(r.Dropped, wantDropped) {
			t.Errorf("%s: dropped %q", p, r.Dropped)
		}
		codectest.CheckGolden(t, string(p)+"/request_thinking_history.json", []byte(out))
	}
	// Reasoning in a system message or a tool result cannot be carried.
	for _, bad := range []codec.Request{
		{Model: "m", Messages: []codec.Message{{Role: codec.RoleSystem, Parts: []codec.Part{sig}}, text(codec.RoleUser, "x")}},
		{Model: "m", System: []codec.Part{unsigned}, Messages: []codec.Message{text(codec.RoleUser, "x")}},
		{Model: "m", Messages: []codec.Message{{Role: codec.RoleUser, Parts: []codec.Part{{Type: codec.PartToolResult, ToolCallID: "t", Content: []codec.Part{sig}}}}}},
	} {
		if out, err := encodeRequest(t, codec.AnthropicMessages, &bad, codec.EncodeOptions{}); err == nil || err.Status != 400 {
			t.Errorf("%+v: got %v (%s), want a 400", bad, err, out)
		}
	}
}

// TestAnthropicRecordedThinkingReplay follows a real exchange: the thinking
// block streamed in one recording is replayed by the client in the next
// one. The decoded stream, the decoded replay and the replay encoded toward
// Anthropic again all carry the signature byte for byte.
func TestAnthropicRecordedThinkingReplay(t *testing.T) {
	p, body := streamRecording(t, "anthropic-messages/claude-sonnet-4-thinking-tool-call-stream.json")
	streamed := reasoning(decode(t, p, body, nil))
	if len(streamed) != 1 || streamed[0].Origin != mapping.FamilyAnthropic || streamed[0].Signature == "" || streamed[0].Text == "" {
		t.Fatalf("streamed reasoning %+v", streamed)
	}
	rec := codectest.ReadRecording(t, "anthropic-messages/claude-sonnet-4-thinking-followup-stream.json")
	replayed := rec.Get("request.body.messages.1.content.0")
	if replayed.Get("type").Str != "thinking" {
		t.Fatalf("the follow-up does not replay thinking first: %s", replayed.Raw)
	}
	if streamed[0].Signature != replayed.Get("signature").Str || streamed[0].Text != replayed.Get("thinking").Str {
		t.Errorf("streamed signature or text differs from the replayed one")
	}
	var req codec.Request
	if err := codec.DecodeRequest(codec.AnthropicMessages, []byte(rec.Get("request.body").Raw), &req); err != nil {
		t.Fatal(err)
	}
	if got := req.Messages[1].Parts[0]; !codectest.EqualDecoded(got, streamed[0]) {
		t.Errorf("decoded replay %+v\nwant %+v", got, streamed[0])
	}
	if req.Reasoning != (codec.Reasoning{Budget: codec.OptInt{Value: 4000, Set: true}}) {
		t.Errorf("reasoning %+v", req.Reasoning)
	}
	for _, to := range []codec.Protocol{codec.AnthropicMessages, codec.VertexAnthropic} {
		r := req
		r.Dropped = nil
		out, err := encodeRequest(t, to, &r, codec.EncodeOptions{})
		if err != nil {
			t.Fatalf("%s: %v", to, err)
		}
		block := gjson.Get(out, "messages.1.content.0")
		if block.Get("signature").Str != streamed[0].Signature || block.Get("thinking").Str != streamed[0].Text || len(r.Dropped) != 0 {
			t.Errorf("%s: replayed block %.200s, dropped %q", to, block.Raw, r.Dropped)
		}
		if gjson.Get(out, "thinking").Raw != `{"type":"enabled","budget_tokens":4000}` {
			t.Errorf("%s: thinking %s", to, gjson.Get(out, "thinking").Raw)
		}
	}
}

// TestAnthropicAppendEffortAndFormat checks that output_config carries the
// effort and the format together, and that a turn left empty by dropped
// reasoning disappears.
func TestAnthropicAppendEffortAndFormat(t *testing.T) {
	req := codec.Request{Model: "claude-x", Messages: []codec.Message{
		{Role: codec.RoleAssistant, Parts: []codec.Part{{Type: codec.PartReasoning, Text: "unsigned"}}},
		text(codec.RoleUser, "hi"),
	}}
	req.Reasoning = codec.Reasoning{Adaptive: true, Effort: mapping.EffortMedium}
	req.Format = codec.OutputFormat{Kind: codec.FormatJSONSchema, Schema: `{"type":"object"}`}
	out, err := encodeRequest(t, codec.AnthropicMessages, &req, codec.EncodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"model":"claude-x","max_tokens":4096,"messages":[{"role":"user","content":[{"type":"text","text":"hi"}]}],` +
		`"thinking":{"type":"adaptive"},"output_config":{"effort":"medium","format":{"type":"json_schema","schema":{"type":"object"}}}}`
	if out != want || !codectest.EqualDecoded(req.Dropped, []string{"messages[0].content[0] (reasoning)"}) {
		t.Errorf("got  %s\nwant %s\ndropped %q", out, want, req.Dropped)
	}
	var back codec.Request
	if err := codec.DecodeRequest(codec.AnthropicMessages, []byte(out), &back); err != nil {
		t.Fatal(err)
	}
	if back.Reasoning != req.Reasoning || back.Format != req.Format {
		t.Errorf("decoded %+v %+v", back.Reasoning, back.Format)
	}
}
