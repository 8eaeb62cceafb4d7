package responses

import (
	"errors"
	"strings"
	"testing"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/codectest"
	"github.com/llmbridge/llmbridge/mapping"
	"github.com/tidwall/gjson"
)

// rsEnvelope returns the continuation token of c, as a string.
func rsEnvelope(c mapping.Continuation) string { return string(mapping.AppendEnvelope(nil, c)) }

func TestResponsesReasoningDecodeRequest(t *testing.T) {
	anthropic := rsEnvelope(mapping.Continuation{Origin: mapping.FamilyAnthropic, Signature: "EqQBCkYIBxgCKkA="})
	redacted := rsEnvelope(mapping.Continuation{Origin: mapping.FamilyAnthropic, Redacted: true, Signature: "EmwKAhgBEgy3va"})
	openai := rsEnvelope(mapping.Continuation{Origin: mapping.FamilyOpenAI, ItemID: "rs_up", Signature: "gAAAAB=="})
	gemini := rsEnvelope(mapping.Continuation{Origin: mapping.FamilyGemini, Signature: "CiQB0e2Kb"})
	user := func(parts ...codec.Part) codec.Message { return codec.Message{Role: codec.RoleUser, Parts: parts} }
	assistant := func(parts ...codec.Part) codec.Message { return codec.Message{Role: codec.RoleAssistant, Parts: parts} }
	hi := []codec.Message{user(responsesText("hi"))}
	call := codec.Part{Type: codec.PartToolCall, ToolCallID: "call_1", ToolName: "f", Arguments: `{"a":1}`}
	result := codec.Part{Type: codec.PartToolResult, ToolCallID: "call_1", Content: []codec.Part{responsesText("ok")}}

	tests := []struct {
		name string
		body string
		want codec.Request
	}{
		{
			// Codex replays reasoning items before the call they led to;
			// they join the assistant turn in order.
			name: "native encrypted reasoning before a call and a message",
			body: `{"model":"m","input":[{"role":"user","content":"hi"},` +
				`{"type":"reasoning","id":"rs_1","summary":[{"type":"summary_text","text":"**Plan**"},{"type":"summary_text","text":"Call f."}],"encrypted_content":"gAAAAA1"},` +
				`{"type":"function_call","call_id":"call_1","name":"f","arguments":"{\"a\":1}"},` +
				`{"type":"function_call_output","call_id":"call_1","output":"ok"},` +
				`{"type":"reasoning","id":"rs_2","summary":[],"encrypted_content":"gAAAAA2","status":"completed"},` +
				`{"type":"message","role":"assistant","content":[{"type":"output_text","text":"done"}]},` +
				`{"role":"user","content":"thanks"}]}`,
			want: codec.Request{Model: "m", Messages: []codec.Message{user(responsesText("hi")),
				assistant(codec.Part{Type: codec.PartReasoning, Text: "**Plan**\n\nCall f.", Signature: "gAAAAA1", Origin: mapping.FamilyOpenAI, ItemID: "rs_1"}, call),
				user(result),
				assistant(codec.Part{Type: codec.PartReasoning, Signature: "gAAAAA2", Origin: mapping.FamilyOpenAI, ItemID: "rs_2"}, responsesText("done")),
				user(responsesText("thanks"))}},
		},
		{
			// Envelopes from llmbridge are unwrapped: the family and item
			// id they name win over the id llmbridge made up.
			name: "envelopes of every family",
			body: `{"model":"m","input":[{"role":"user","content":"hi"},` +
				`{"type":"reasoning","id":"rs_resp_1_0","summary":[{"type":"summary_text","text":"thinking"}],"encrypted_content":"` + anthropic + `"},` +
				`{"type":"reasoning","id":"rs_resp_1_1","summary":[],"encrypted_content":"` + redacted + `"},` +
				`{"type":"reasoning","id":"rs_up","summary":[],"encrypted_content":"` + openai + `"},` +
				`{"type":"reasoning","id":"rs_resp_1_3","summary":[],"encrypted_content":"` + gemini + `"},` +
				`{"type":"message","role":"assistant","content":"answer"}]}`,
			want: codec.Request{Model: "m", Messages: []codec.Message{user(responsesText("hi")), assistant(
				codec.Part{Type: codec.PartReasoning, Text: "thinking", Signature: "EqQBCkYIBxgCKkA=", Origin: mapping.FamilyAnthropic},
				codec.Part{Type: codec.PartReasoning, Signature: "EmwKAhgBEgy3va", Origin: mapping.FamilyAnthropic, Redacted: true},
				codec.Part{Type: codec.PartReasoning, Signature: "gAAAAB==", Origin: mapping.FamilyOpenAI, ItemID: "rs_up"},
				codec.Part{Type: codec.PartReasoning, Signature: "CiQB0e2Kb", Origin: mapping.FamilyGemini},
				responsesText("answer"))}},
		},
		{
			// Reasoning content (open-weight models) stands in for a
			// missing summary; unsigned reasoning has no origin.
			name: "reasoning text without summary or signature",
			body: `{"model":"m","input":[{"role":"user","content":"hi"},{"type":"reasoning","id":"rs_1","summary":null,` +
				`"content":[{"type":"reasoning_text","text":"a"},{"type":"reasoning_text","text":"b"}],"encrypted_content":null},` +
				`{"role":"assistant","content":"x"}]}`,
			want: codec.Request{Model: "m", Messages: []codec.Message{user(responsesText("hi")),
				assistant(codec.Part{Type: codec.PartReasoning, Text: "a\n\nb", ItemID: "rs_1"}, responsesText("x"))}},
		},
		{
			name: "summary wins over content",
			body: `{"model":"m","input":[{"type":"reasoning","summary":[{"type":"summary_text","text":"s"}],"content":[{"type":"reasoning_text","text":"c"}]},` +
				`{"type":"message","role":"assistant","content":"x"},{"type":"reasoning","summary":[{"text":"t"}]},{"role":"user","content":"y"}]}`,
			want: codec.Request{Model: "m", Messages: []codec.Message{
				assistant(codec.Part{Type: codec.PartReasoning, Text: "s"}, responsesText("x"), codec.Part{Type: codec.PartReasoning, Text: "t"}),
				user(responsesText("y"))}},
		},
		{
			name: "reasoning settings, include, prompt cache key",
			body: `{"model":"m","input":"hi","reasoning":{"effort":"high","summary":"detailed","context":null,"mode":null},` +
				`"include":["reasoning.encrypted_content"],"prompt_cache_key":"codex-1"}`,
			want: codec.Request{Model: "m", Messages: hi, Reasoning: codec.Reasoning{Effort: mapping.EffortHigh, Summary: "detailed"},
				Include: []string{"reasoning.encrypted_content"}, Cache: codec.Cache{Key: "codex-1"}},
		},
		{
			name: "explicit effort none",
			body: `{"model":"m","input":"hi","reasoning":{"effort":"none"}}`,
			want: codec.Request{Model: "m", Messages: hi, Reasoning: codec.Reasoning{Effort: mapping.EffortNone}},
		},
		{
			name: "xhigh effort and the deprecated generate_summary",
			body: `{"model":"m","input":"hi","reasoning":{"effort":"xhigh","generate_summary":"auto"}}`,
			want: codec.Request{Model: "m", Messages: hi, Reasoning: codec.Reasoning{Effort: mapping.EffortXHigh, Summary: "auto"}},
		},
		{
			name: "null and empty reasoning inject nothing",
			body: `{"model":"m","input":"hi","reasoning":{"effort":null,"summary":null}}`,
			want: codec.Request{Model: "m", Messages: hi},
		},
		{
			name: "json object and verbosity",
			body: `{"model":"m","input":"hi","text":{"format":{"type":"json_object"},"verbosity":"low"}}`,
			want: codec.Request{Model: "m", Messages: hi, Format: codec.OutputFormat{Kind: codec.FormatJSONObject}, Verbosity: "low"},
		},
		{
			name: "json schema",
			body: `{"model":"m","input":"hi","text":{"verbosity":null,"format":{"type":"json_schema","name":"person","description":"A person.",` +
				`"schema":{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]},"strict":true}}}`,
			want: codec.Request{Model: "m", Messages: hi, Format: codec.OutputFormat{Kind: codec.FormatJSONSchema, Name: "person", Description: "A person.",
				Schema: `{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`, Strict: codec.OptBool{Value: true, Set: true}}},
		},
		{
			name: "json schema with null options",
			body: `{"model":"m","input":"hi","text":{"format":{"type":"json_schema","name":"p","schema":{},"strict":null,"description":null}}}`,
			want: codec.Request{Model: "m", Messages: hi, Format: codec.OutputFormat{Kind: codec.FormatJSONSchema, Name: "p", Schema: `{}`}},
		},
		{
			name: "text format normalised",
			body: `{"model":"m","input":"hi","text":{"format":{"type":"text"},"verbosity":"high"}}`,
			want: codec.Request{Model: "m", Messages: hi, Verbosity: "high"},
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

// TestResponsesReasoningReplayRecording decodes the request of a recorded
// follow-up that replays a reasoning item: the part keeps the recorded
// encrypted_content byte for byte, and goes back to OpenAI unchanged.
func TestResponsesReasoningReplayRecording(t *testing.T) {
	rec := codectest.ReadRecording(t, "openai-responses/gpt-5-reasoning-replay-followup-cached.json")
	item := rec.Get("request.body.input.1")
	var req codec.Request
	if err := codec.DecodeRequest(codec.OpenAIResponses, []byte(rec.Get("request.body").Raw), &req); err != nil {
		t.Fatal(err)
	}
	if len(req.Messages) != 3 {
		t.Fatalf("messages %+v", req.Messages)
	}
	parts := req.Messages[1].Parts
	if req.Messages[1].Role != codec.RoleAssistant || len(parts) != 2 || parts[0].Type != codec.PartReasoning || parts[1].Type != codec.PartToolCall {
		t.Fatalf("assistant turn %+v", req.Messages[1])
	}
	p := parts[0]
	var texts []string
	for _, s := range item.Get("summary").Array() {
		texts = append(texts, s.Get("text").Str)
	}
	if p.Signature != item.Get("encrypted_content").Str || p.Origin != mapping.FamilyOpenAI || p.ItemID != item.Get("id").Str ||
		p.Text != strings.Join(texts, "\n\n") || len(texts) < 2 {
		t.Errorf("reasoning part %+v", p)
	}
	if req.Reasoning.Effort != mapping.EffortLow || req.Reasoning.Summary != "detailed" || !codectest.EqualDecoded(req.Include, []string{"reasoning.encrypted_content"}) {
		t.Errorf("reasoning %+v include %q", req.Reasoning, req.Include)
	}
	out, err := codec.AppendRequest(nil, codec.OpenAIResponses, &req, codec.EncodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sent := gjson.GetBytes(out, `input.#(type=="reasoning")`)
	if sent.Get("type").Str != "reasoning" || sent.Get("id").Str != item.Get("id").Str ||
		sent.Get("encrypted_content").Str != item.Get("encrypted_content").Str || sent.Get("summary.0.text").Str != p.Text {
		t.Errorf("replayed item %s", sent.Raw)
	}
	if gjson.GetBytes(out, "include").Raw != `["reasoning.encrypted_content"]` || gjson.GetBytes(out, "reasoning").Raw != `{"effort":"low","summary":"detailed"}` {
		t.Errorf("reasoning settings in %s", out)
	}
}

func TestResponsesReasoningAppendRequest(t *testing.T) {
	hi := []codec.Message{{Role: codec.RoleUser, Parts: []codec.Part{responsesText("hi")}}}
	tests := []struct {
		name      string
		req       codec.Request
		opts      codec.EncodeOptions
		reasoning string // the reasoning member, "" for none
		include   string // the include member, "" for none
		text      string // the text member, "" for none
	}{
		{name: "nothing asked", req: codec.Request{Model: "m", Messages: hi}},
		{name: "effort none", req: codec.Request{Model: "m", Messages: hi, Reasoning: codec.Reasoning{Effort: mapping.EffortNone}},
			reasoning: `{"effort":"none"}`},
		{name: "effort low", req: codec.Request{Model: "m", Messages: hi, Reasoning: codec.Reasoning{Effort: mapping.EffortLow}},
			reasoning: `{"effort":"low","summary":"auto"}`, include: `["reasoning.encrypted_content"]`},
		{name: "effort max is xhigh", req: codec.Request{Model: "m", Messages: hi, Reasoning: codec.Reasoning{Effort: mapping.EffortMax, Summary: "concise"}},
			reasoning: `{"effort":"xhigh","summary":"concise"}`, include: `["reasoning.encrypted_content"]`},
		{name: "budget", req: codec.Request{Model: "m", Messages: hi, Reasoning: codec.Reasoning{Budget: codec.OptInt{Value: 3000, Set: true}}},
			reasoning: `{"effort":"medium","summary":"auto"}`, include: `["reasoning.encrypted_content"]`},
		{name: "configured budgets", req: codec.Request{Model: "m", Messages: hi, Reasoning: codec.Reasoning{Budget: codec.OptInt{Value: 3000, Set: true}}},
			opts:      codec.EncodeOptions{EffortBudgets: mapping.EffortBudgets{Low: 4000}},
			reasoning: `{"effort":"low","summary":"auto"}`, include: `["reasoning.encrypted_content"]`},
		{name: "budget zero", req: codec.Request{Model: "m", Messages: hi, Reasoning: codec.Reasoning{Budget: codec.OptInt{Value: 0, Set: true}}},
			reasoning: `{"effort":"none"}`},
		{name: "dynamic budget", req: codec.Request{Model: "m", Messages: hi, Reasoning: codec.Reasoning{Budget: codec.OptInt{Value: -1, Set: true}}}},
		{name: "adaptive", req: codec.Request{Model: "m", Messages: hi, Reasoning: codec.Reasoning{Adaptive: true, Budget: codec.OptInt{Value: -1, Set: true}}},
			reasoning: `{"summary":"auto"}`, include: `["reasoning.encrypted_content"]`},
		{name: "summary only", req: codec.Request{Model: "m", Messages: hi, Reasoning: codec.Reasoning{Summary: "detailed"}},
			reasoning: `{"summary":"detailed"}`},
		{name: "thoughts hidden", req: codec.Request{Model: "m", Messages: hi, Reasoning: codec.Reasoning{Budget: codec.OptInt{Value: 1024, Set: true}, IncludeThoughts: codec.OptBool{Value: false, Set: true}}},
			reasoning: `{"effort":"minimal"}`, include: `["reasoning.encrypted_content"]`},
		{name: "display omitted", req: codec.Request{Model: "m", Messages: hi, Reasoning: codec.Reasoning{Budget: codec.OptInt{Value: 30000, Set: true}, Display: "omitted"}},
			reasoning: `{"effort":"xhigh"}`, include: `["reasoning.encrypted_content"]`},
		{name: "include asked by the client", req: codec.Request{Model: "m", Messages: hi, Include: []string{"web_search_call.results", "reasoning.encrypted_content"}},
			include: `["reasoning.encrypted_content"]`},
		{name: "json object", req: codec.Request{Model: "m", Messages: hi, Format: codec.OutputFormat{Kind: codec.FormatJSONObject}},
			text: `{"format":{"type":"json_object"}}`},
		{name: "json schema", req: codec.Request{Model: "m", Messages: hi, Verbosity: "low", Format: codec.OutputFormat{Kind: codec.FormatJSONSchema,
			Name: "p", Description: "A person.", Schema: `{"type":"object"}`, Strict: codec.OptBool{Value: true, Set: true}}},
			text: `{"format":{"type":"json_schema","name":"p","description":"A person.","schema":{"type":"object"},"strict":true},"verbosity":"low"}`},
		{name: "json schema without name", req: codec.Request{Model: "m", Messages: hi, Format: codec.OutputFormat{Kind: codec.FormatJSONSchema,
			Schema: `{"type":"object"}`, Strict: codec.OptBool{Value: false, Set: true}}},
			text: `{"format":{"type":"json_schema","name":"response","schema":{"type":"object"},"strict":false}}`},
		{name: "verbosity", req: codec.Request{Model: "m", Messages: hi, Verbosity: "high"}, text: `{"verbosity":"high"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := codec.AppendRequest(nil, codec.OpenAIResponses, &tt.req, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			root := gjson.ParseBytes(out)
			if !root.IsObject() {
				t.Fatalf("invalid JSON %s", out)
			}
			for _, f := range []struct{ key, want string }{{"reasoning", tt.reasoning}, {"include", tt.include}, {"text", tt.text}} {
				if got := root.Get(f.key).Raw; got != f.want {
					t.Errorf("%s = %s, want %s", f.key, got, f.want)
				}
			}
			if len(tt.req.Dropped) != 0 {
				t.Errorf("dropped %q", tt.req.Dropped)
			}
		})
	}
}

// TestResponsesReasoningAppendRequestHistory checks which reasoning of the
// history reaches a Responses upstream: OpenAI's own encrypted reasoning,
// as a reasoning item before the rest of its turn; everything else is left
// out and listed.
func TestResponsesReasoningAppendRequestHistory(t *testing.T) {
	req := codec.Request{Model: "m", Messages: []codec.Message{
		{Role: codec.RoleUser, Parts: []codec.Part{responsesText("hi")}},
		{Role: codec.RoleAssistant, Parts: []codec.Part{
			{Type: codec.PartReasoning, Text: "Plan.", Signature: "gAAAA1", Origin: mapping.FamilyOpenAI, ItemID: "rs_1"},
			{Type: codec.PartToolCall, ToolCallID: "call_1", ToolName: "f", Arguments: `{}`},
		}},
		{Role: codec.RoleUser, Parts: []codec.Part{{Type: codec.PartToolResult, ToolCallID: "call_1", Content: []codec.Part{responsesText("ok")}}}},
		{Role: codec.RoleAssistant, Parts: []codec.Part{
			{Type: codec.PartReasoning, Text: "claude thought", Signature: "EqQB", Origin: mapping.FamilyAnthropic},
			{Type: codec.PartReasoning, Text: "unsigned"},
			{Type: codec.PartReasoning, Signature: "gAAAA2", Origin: mapping.FamilyOpenAI},
			responsesText("Done."),
		}},
		{Role: codec.RoleUser, Parts: []codec.Part{responsesText("thanks"), {Type: codec.PartReasoning, Signature: "gAAAA3", Origin: mapping.FamilyOpenAI}}},
	}}
	out, err := codec.AppendRequest(nil, codec.OpenAIResponses, &req, codec.EncodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	codectest.CheckGolden(t, "openai-responses/request_reasoning_history.json", out)
	want := []string{"messages[3].content[0] (reasoning)", "messages[3].content[1] (reasoning)", "messages[4].content[1] (reasoning)"}
	if !codectest.EqualDecoded(req.Dropped, want) {
		t.Errorf("dropped %q, want %q", req.Dropped, want)
	}
	// The encoded history decodes to the reasoning that was sent.
	var back codec.Request
	if err := codec.DecodeRequest(codec.OpenAIResponses, out, &back); err != nil {
		t.Fatal(err)
	}
	if got := back.Messages[1].Parts[0]; !codectest.EqualDecoded(got, req.Messages[1].Parts[0]) {
		t.Errorf("round trip %+v", got)
	}
	if got := back.Messages[3].Parts[0]; !codectest.EqualDecoded(got, codec.Part{Type: codec.PartReasoning, Signature: "gAAAA2", Origin: mapping.FamilyOpenAI}) {
		t.Errorf("round trip %+v", got)
	}
	// Reasoning in the system prompt cannot be sent either.
	sys := codec.Request{Model: "m", System: []codec.Part{{Type: codec.PartReasoning, Signature: "x", Origin: mapping.FamilyOpenAI}}, Messages: req.Messages[:1]}
	if _, err := codec.AppendRequest(nil, codec.OpenAIResponses, &sys, codec.EncodeOptions{}); err != nil || !codectest.EqualDecoded(sys.Dropped, []string{"system.content[0] (reasoning)"}) {
		t.Errorf("system reasoning: %v, dropped %q", err, sys.Dropped)
	}
}

func TestResponsesReasoningAppendRequestErrors(t *testing.T) {
	req := codec.Request{Model: "m", Messages: []codec.Message{{Role: codec.RoleUser, Parts: []codec.Part{responsesText("hi")}}},
		Format: codec.OutputFormat{Kind: codec.FormatJSONSchema, Name: "x"}}
	_, err := codec.AppendRequest(nil, codec.OpenAIResponses, &req, codec.EncodeOptions{})
	var e *codec.Error
	if !errors.As(err, &e) || e.Status != 400 || e.Param != "text.format.schema" {
		t.Errorf("got %v, want a 400 about text.format.schema", err)
	}
}

func TestResponsesReasoningDecodeResponse(t *testing.T) {
	const head = `{"id":"resp_1","object":"response","created_at":1700000000,"model":"gpt-5","status":"completed",`
	text := `{"type":"message","id":"msg_1","role":"assistant","content":[{"type":"output_text","text":"Hi."}]}`
	tests := []struct {
		name string
		body string
		want []codec.Part
	}{
		{"summary parts and encrypted content", head + `"output":[{"type":"reasoning","id":"rs_1","summary":[{"type":"summary_text","text":"A"},` +
			`{"type":"summary_text","text":""},{"type":"summary_text","text":"B"}],"encrypted_content":"gAAA"},` + text + `]}`,
			[]codec.Part{{Type: codec.PartReasoning, Text: "A\n\nB", Signature: "gAAA", Origin: mapping.FamilyOpenAI, ItemID: "rs_1"}, responsesText("Hi.")}},
		{"reasoning text content", head + `"output":[{"type":"reasoning","id":"rs_1","summary":[],"content":[{"type":"reasoning_text","text":"think"}]},` + text + `]}`,
			[]codec.Part{{Type: codec.PartReasoning, Text: "think", ItemID: "rs_1"}, responsesText("Hi.")}},
		{"encrypted content only", head + `"output":[{"type":"reasoning","id":"rs_1","summary":[],"encrypted_content":"gAAA"},` + text + `]}`,
			[]codec.Part{{Type: codec.PartReasoning, Signature: "gAAA", Origin: mapping.FamilyOpenAI, ItemID: "rs_1"}, responsesText("Hi.")}},
		// Without summary and include there is nothing to show or replay.
		{"empty reasoning item", head + `"output":[{"type":"reasoning","id":"rs_1","summary":[],"encrypted_content":null},` + text + `]}`,
			[]codec.Part{responsesText("Hi.")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var resp codec.Response
			if err := codec.DecodeResponse(codec.OpenAIResponses, []byte(tt.body), &resp); err != nil {
				t.Fatal(err)
			}
			if !codectest.EqualDecoded(resp.Content, tt.want) || resp.StopReason != mapping.StopEnd {
				t.Errorf("got %+v stop %v\nwant %+v", resp.Content, resp.StopReason, tt.want)
			}
		})
	}
	for _, tt := range []struct{ name, output, msg string }{
		{"id", `{"type":"reasoning","id":1}`, "output[0].id is not a string"},
		{"encrypted content", `{"type":"reasoning","encrypted_content":{}}`, "output[0].encrypted_content is not a string"},
		{"summary", `{"type":"reasoning","summary":"x"}`, "output[0].summary is not an array"},
		{"summary text", `{"type":"reasoning","summary":[{"type":"summary_text","text":1}]}`, "output[0].summary[0].text is not a string"},
		{"content", `{"type":"reasoning","summary":[],"content":{}}`, "output[0].content is not an array"},
	} {
		t.Run("bad "+tt.name, func(t *testing.T) {
			var resp codec.Response
			err := codec.DecodeResponse(codec.OpenAIResponses, []byte(head+`"output":[`+tt.output+`]}`), &resp)
			var e *codec.Error
			if !errors.As(err, &e) || e.Status != 502 || !strings.Contains(e.Message, tt.msg) {
				t.Errorf("got %v, want a 502 saying %q", err, tt.msg)
			}
		})
	}
}

// TestResponsesReasoningRecordings decodes the recorded reasoning responses
// and streams: each reasoning item becomes one part whose signature is the
// final encrypted_content byte for byte (in streams the one of
// output_item.done, which differs from output_item.added's), whose text is
// the summary, and whose item id is kept.
func TestResponsesReasoningRecordings(t *testing.T) {
	codectest.SkipWithoutRecordings(t)
	for _, file := range []string{"gpt-5-reasoning-tool-call.json", "gpt-5-reasoning-summary-followup-stream.json",
		"gpt-5-reasoning-summary-tool-call-stream.json", "reasoning-encrypted-content-stream-reframed.json", "gpt-5-parallel-tools-stream.json"} {
		t.Run(file, func(t *testing.T) {
			rec := codectest.ReadRecording(t, "openai-responses/"+file)
			body := rec.Get("response.body").Str
			var items []gjson.Result // the final reasoning items
			var got []codec.Part
			if !rec.Get("stream").Bool() {
				items = gjson.Get(body, `output.#(type=="reasoning")#`).Array()
				var resp codec.Response
				if err := codec.DecodeResponse(codec.OpenAIResponses, []byte(body), &resp); err != nil {
					t.Fatal(err)
				}
				for _, p := range resp.Content {
					if p.Type == codec.PartReasoning {
						got = append(got, p)
					}
				}
			} else {
				var added []string
				for _, ev := range splitEvents(body) {
					_, data, _ := strings.Cut(ev, "data: ")
					d := gjson.Parse(data)
					if d.Get("item.type").Str != "reasoning" {
						continue
					}
					switch d.Get("type").Str {
					case "response.output_item.added":
						added = append(added, d.Get("item.encrypted_content").Str)
					case "response.output_item.done":
						items = append(items, d.Get("item"))
					}
				}
				got = rsReasoningParts(rsDecodeStream(t, body, nil))
				for i, enc := range added {
					if enc != "" && enc == items[i].Get("encrypted_content").Str {
						t.Errorf("item %d: the added and done encrypted contents are the same; the test proves nothing", i)
					}
				}
				if len(items) > 0 && len(added) == 0 {
					t.Fatal("no output_item.added")
				}
			}
			var want []codec.Part
			for _, it := range items {
				var texts []string
				for _, s := range it.Get("summary").Array() {
					texts = append(texts, s.Get("text").Str)
				}
				p := codec.Part{Type: codec.PartReasoning, Text: strings.Join(texts, "\n\n"), ItemID: it.Get("id").Str, Signature: it.Get("encrypted_content").Str}
				if p.Signature != "" {
					p.Origin = mapping.FamilyOpenAI
				}
				if p.Text == "" && p.Signature == "" {
					continue // nothing to carry
				}
				want = append(want, p)
			}
			if len(items) == 0 || !codectest.EqualDecoded(got, want) {
				t.Errorf("reasoning parts\n got %+v\nwant %+v", got, want)
			}
		})
	}
}

// rsReasoningParts folds the reasoning parts of a canonical stream.
func rsReasoningParts(evs []codec.Event) []codec.Part {
	var parts []codec.Part
	open := -1
	for _, ev := range evs {
		switch {
		case ev.Type == codec.EventPartStart && ev.Part == codec.PartReasoning:
			parts = append(parts, codec.Part{Type: codec.PartReasoning, ItemID: ev.ItemID, Redacted: ev.Redacted})
			open = ev.Index
		case ev.Type == codec.EventPartDelta && ev.Index == open:
			parts[len(parts)-1].Text += ev.Text
		case ev.Type == codec.EventPartStop && ev.Index == open:
			parts[len(parts)-1].Signature, parts[len(parts)-1].Origin = ev.Signature, ev.Origin
			open = -1
		}
	}
	return parts
}

func TestResponsesReasoningAppendResponse(t *testing.T) {
	tests := []struct {
		name string
		resp codec.Response
	}{
		{
			// An Anthropic upstream: thinking with its signature, redacted
			// thinking, then the answer; cached and reasoning tokens.
			name: "reasoning",
			resp: codec.Response{ID: "msg_01ABC", Model: "claude-sonnet-4-5", Created: 1700000000, StopReason: mapping.StopEnd,
				Content: []codec.Part{
					{Type: codec.PartReasoning, Text: "Let me think.", Signature: "EqQBCkYIBxgCKkA=", Origin: mapping.FamilyAnthropic},
					{Type: codec.PartReasoning, Signature: "EmwKAhgBEgy3va", Origin: mapping.FamilyAnthropic, Redacted: true},
					responsesText("Paris."),
				},
				Usage: codec.Usage{Known: true, InputTokens: 100, CacheReadTokens: 60, CacheWriteTokens: 20, OutputTokens: 40, ReasoningTokens: 30}},
		},
		{
			// An OpenAI upstream keeps its item ids; a Chat upstream's
			// unsigned reasoning has no encrypted_content.
			name: "reasoning_openai_and_unsigned",
			resp: codec.Response{ID: "resp_xyz", Model: "gpt-5", Created: 1700000000, StopReason: mapping.StopToolUse,
				Content: []codec.Part{
					{Type: codec.PartReasoning, Text: "**Plan**\n\nCall f.", Signature: "gAAAA", Origin: mapping.FamilyOpenAI, ItemID: "rs_up"},
					{Type: codec.PartToolCall, ToolCallID: "call_1", ToolName: "f", Arguments: `{"a":1}`},
					{Type: codec.PartReasoning, Text: "unsigned thoughts"},
				}},
		},
		{
			// An Anthropic refusal with text: the text becomes the refusal.
			name: "refusal_from_text",
			resp: codec.Response{ID: "msg_01R", Model: "claude-sonnet-4-5", Created: 1700000000, StopReason: mapping.StopRefusal,
				Content:     []codec.Part{responsesText("I can't help "), responsesText("with that.")},
				StopDetails: codec.StopDetails{Category: "cyber", Explanation: "Policy."}},
		},
		{
			// An Anthropic refusal without text: the explanation is used.
			name: "refusal_from_explanation",
			resp: codec.Response{ID: "msg_01S", Model: "claude-sonnet-4-5", Created: 1700000000, StopReason: mapping.StopRefusal,
				StopDetails: codec.StopDetails{Category: "cyber", Explanation: "This request asks for harmful instructions."},
				Usage:       codec.Usage{Known: true, InputTokens: 12, OutputTokens: 0}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := codec.AppendResponse(nil, codec.OpenAIResponses, &tt.resp)
			if err != nil {
				t.Fatal(err)
			}
			codectest.CheckGolden(t, "openai-responses/response_"+tt.name+".json", out)
		})
	}
	// Refusals the Responses protocol cannot carry faithfully.
	for _, tt := range []struct {
		name    string
		content []codec.Part
	}{
		{"no text and no explanation", nil},
		{"after a tool call", []codec.Part{{Type: codec.PartToolCall, ToolCallID: "c", ToolName: "f"}}},
	} {
		t.Run("refusal "+tt.name, func(t *testing.T) {
			_, err := codec.AppendResponse(nil, codec.OpenAIResponses, &codec.Response{ID: "r", StopReason: mapping.StopRefusal, Content: tt.content})
			var e *codec.Error
			if !errors.As(err, &e) || e.Status != 502 || !strings.Contains(e.Message, "openai-responses") {
				t.Errorf("got %v, want a 502", err)
			}
		})
	}
}

// TestResponsesRefusalAfterReasoning checks that reasoning before a refusal
// keeps its own output item, followed by the refusal part.
func TestResponsesRefusalAfterReasoning(t *testing.T) {
	out, err := codec.AppendResponse(nil, codec.OpenAIResponses, &codec.Response{ID: "r", StopReason: mapping.StopRefusal,
		Content: []codec.Part{{Type: codec.PartReasoning, Text: "x"}, responsesText("no")}})
	if err != nil {
		t.Fatal(err)
	}
	root := gjson.ParseBytes(out)
	if root.Get("output.0.type").Str != "reasoning" || root.Get("output.1.content.0.type").Str != "refusal" ||
		root.Get("output.1.content.0.refusal").Str != "no" || root.Get("status").Str != "completed" {
		t.Errorf("got %s", out)
	}
}

// TestResponsesReasoningResponseRoundTrip puts the reasoning items of an
// encoded response, as a Responses client replays them, into the input of
// the next request: each decodes to the part it was made from, signature,
// family, redaction and provider item id included.
func TestResponsesReasoningResponseRoundTrip(t *testing.T) {
	parts := []codec.Part{
		{Type: codec.PartReasoning, Text: "Let me think.\n\nMore.", Signature: "EqQBCkYIBxgCKkA=", Origin: mapping.FamilyAnthropic},
		{Type: codec.PartReasoning, Signature: "EmwKAhgBEgy3va", Origin: mapping.FamilyAnthropic, Redacted: true},
		{Type: codec.PartReasoning, Text: "gemini thought", Signature: "CiQB0e2Kb", Origin: mapping.FamilyGemini},
		{Type: codec.PartReasoning, Text: "**Plan**", Signature: "gAAAA", Origin: mapping.FamilyOpenAI, ItemID: "rs_up"},
		responsesText("Answer."),
	}
	resp := codec.Response{ID: "msg_01", Model: "m", Created: 1, StopReason: mapping.StopEnd, Content: parts}
	out, err := codec.AppendResponse(nil, codec.OpenAIResponses, &resp)
	if err != nil {
		t.Fatal(err)
	}
	var events []codec.Event
	events = append(events, codec.Event{Type: codec.EventStart, ID: "msg_01", Model: "m", Created: 1})
	for i, p := range parts {
		events = append(events, codec.Event{Type: codec.EventPartStart, Index: i, Part: p.Type, ItemID: p.ItemID, Redacted: p.Redacted})
		if p.Text != "" {
			events = append(events, codec.Event{Type: codec.EventPartDelta, Index: i, Text: p.Text})
		}
		events = append(events, codec.Event{Type: codec.EventPartStop, Index: i, Signature: p.Signature, Origin: p.Origin})
	}
	events = append(events, codec.Event{Type: codec.EventStop, StopReason: mapping.StopEnd}, codec.Event{Type: codec.EventEnd})
	stream := codectest.EncodeStream(codec.OpenAIResponses, &codec.Request{Model: "m", Stream: true}, events)
	checkSSE(t, []byte(stream))
	var streamed []string
	for _, ev := range splitEvents(stream) {
		_, data, _ := strings.Cut(ev, "data: ")
		if d := gjson.Parse(data); d.Get("type").Str == "response.output_item.done" {
			streamed = append(streamed, d.Get("item").Raw)
		}
	}
	for name, output := range map[string][]string{"json": rsRaws(gjson.GetBytes(out, "output").Array()), "stream": streamed} {
		t.Run(name, func(t *testing.T) {
			input := `{"model":"m","input":[{"role":"user","content":"hi"},` + strings.Join(output, ",") + `,{"role":"user","content":"more"}]}`
			var req codec.Request
			if err := codec.DecodeRequest(codec.OpenAIResponses, []byte(input), &req); err != nil {
				t.Fatal(err)
			}
			if len(req.Messages) != 3 || !codectest.EqualDecoded(req.Messages[1].Parts, parts) {
				t.Errorf("decoded %+v\nwant %+v", req.Messages, parts)
			}
			// Toward each upstream only its own family's reasoning
			// goes back, unwrapped.
			body, err := codec.AppendRequest(nil, codec.OpenAIResponses, &req, codec.EncodeOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if got := gjson.GetBytes(body, `input.#(type=="reasoning")#.encrypted_content`).Raw; got != `["gAAAA"]` {
				t.Errorf("sent encrypted contents %s", got)
			}
		})
	}
}

// rsRaws returns the raw JSON of values.
func rsRaws(vs []gjson.Result) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = v.Raw
	}
	return out
}
