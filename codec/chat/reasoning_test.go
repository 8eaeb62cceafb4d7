package chat

import (
	"errors"
	"strings"
	"testing"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/codectest"
	"github.com/llmbridge/llmbridge/codec/internal/jsonx"
	"github.com/llmbridge/llmbridge/mapping"
	"github.com/tidwall/gjson"
)

// reasoningParts are reasoning parts from every family, as a Chat client
// is given them and must be able to replay them: Anthropic thinking with its
// signature, Anthropic redacted_thinking, a Responses reasoning item with
// its id and encrypted_content, a Gemini thought signature without text,
// and unsigned text (from a Chat upstream).
func reasoningParts() []codec.Part {
	return []codec.Part{
		{Type: codec.PartReasoning, Text: "Let me think.\nThe user wants \"x\".", Signature: "EqQBCkgIARABGAIiQL+/sig==", Origin: mapping.FamilyAnthropic},
		{Type: codec.PartReasoning, Signature: "EmwKAhgBEgy3redacted", Origin: mapping.FamilyAnthropic, Redacted: true},
		{Type: codec.PartReasoning, Text: "**Summary**", Signature: "gAAAAABencrypted_content", Origin: mapping.FamilyOpenAI, ItemID: "rs_0123"},
		{Type: codec.PartReasoning, Signature: "CiQB0e2Kb3thought", Origin: mapping.FamilyGemini},
		{Type: codec.PartReasoning, Text: "Unsigned trailing thought."},
	}
}

func TestChatDecodeRequestReasoning(t *testing.T) {
	user := `{"role":"user","content":"Hi"}`
	body := func(fields string) string { return `{"model":"m","messages":[` + user + `],` + fields + `}` }
	env := func(c mapping.Continuation) string {
		return "\n\n[[" + string(mapping.AppendEnvelope(nil, c)) + "]]\n\n"
	}
	anth := mapping.Continuation{Origin: mapping.FamilyAnthropic, Signature: "sig+/="}
	resp := mapping.Continuation{Origin: mapping.FamilyOpenAI, ItemID: "rs_1", Signature: "enc"}
	red := mapping.Continuation{Origin: mapping.FamilyAnthropic, Redacted: true, Signature: "data"}
	assistant := func(reasoning string, rest string) string {
		return `{"model":"m","messages":[` + user + `,{"role":"assistant","reasoning_content":` +
			string(jsonx.AppendString(nil, reasoning)) + rest + `}]}`
	}
	hi := chatUser("Hi")
	tests := []struct {
		name string
		body string
		want codec.Request
	}{
		{"effort none", body(`"reasoning_effort":"none"`), codec.Request{Model: "m", Messages: []codec.Message{hi}, Reasoning: codec.Reasoning{Effort: mapping.EffortNone}}},
		{"effort minimal", body(`"reasoning_effort":"minimal"`), codec.Request{Model: "m", Messages: []codec.Message{hi}, Reasoning: codec.Reasoning{Effort: mapping.EffortMinimal}}},
		{"effort low", body(`"reasoning_effort":"low"`), codec.Request{Model: "m", Messages: []codec.Message{hi}, Reasoning: codec.Reasoning{Effort: mapping.EffortLow}}},
		{"effort medium", body(`"reasoning_effort":"medium"`), codec.Request{Model: "m", Messages: []codec.Message{hi}, Reasoning: codec.Reasoning{Effort: mapping.EffortMedium}}},
		{"effort high", body(`"reasoning_effort":"high"`), codec.Request{Model: "m", Messages: []codec.Message{hi}, Reasoning: codec.Reasoning{Effort: mapping.EffortHigh}}},
		{"effort xhigh", body(`"reasoning_effort":"xhigh"`), codec.Request{Model: "m", Messages: []codec.Message{hi}, Reasoning: codec.Reasoning{Effort: mapping.EffortXHigh}}},
		{"effort max", body(`"reasoning_effort":"max"`), codec.Request{Model: "m", Messages: []codec.Message{hi}, Reasoning: codec.Reasoning{Effort: mapping.EffortMax}}},
		{"effort null is absent", body(`"reasoning_effort":null`), codec.Request{Model: "m", Messages: []codec.Message{hi}}},
		{"verbosity", body(`"verbosity":"low"`), codec.Request{Model: "m", Messages: []codec.Message{hi}, Verbosity: "low"}},
		{"verbosity high", body(`"verbosity":"high"`), codec.Request{Model: "m", Messages: []codec.Message{hi}, Verbosity: "high"}},
		{"verbosity null", body(`"verbosity":null`), codec.Request{Model: "m", Messages: []codec.Message{hi}}},
		{"response_format text", body(`"response_format":{"type":"text"}`), codec.Request{Model: "m", Messages: []codec.Message{hi}}},
		{"response_format json_object", body(`"response_format":{"type":"json_object"}`),
			codec.Request{Model: "m", Messages: []codec.Message{hi}, Format: codec.OutputFormat{Kind: codec.FormatJSONObject}}},
		{"response_format json_schema", body(`"response_format":{"type":"json_schema","json_schema":{"name":"answer","description":"The \"answer\".",` +
			`"schema":{"type":"object","properties":{"a":{"type":"string"}},"required":["a"],"additionalProperties":false},"strict":true}}`),
			codec.Request{Model: "m", Messages: []codec.Message{hi}, Format: codec.OutputFormat{Kind: codec.FormatJSONSchema, Name: "answer", Description: `The "answer".`,
				Schema: `{"type":"object","properties":{"a":{"type":"string"}},"required":["a"],"additionalProperties":false}`, Strict: codec.OptBool{Value: true, Set: true}}}},
		{"response_format json_schema minimal", body(`"response_format":{"type":"json_schema","json_schema":{"name":"r","schema":null,"strict":null,"description":null}}`),
			codec.Request{Model: "m", Messages: []codec.Message{hi}, Format: codec.OutputFormat{Kind: codec.FormatJSONSchema, Name: "r"}}},
		{"prompt_cache_key is kept", body(`"prompt_cache_key":"conv-1","prompt_cache_retention":null`),
			codec.Request{Model: "m", Messages: []codec.Message{hi}, Cache: codec.Cache{Key: "conv-1"}}},
		{
			"plain reasoning_content is one unsigned part before the text",
			assistant("I thought.", `,"content":"Hello"`),
			codec.Request{Model: "m", Messages: []codec.Message{hi, {Role: codec.RoleAssistant, Parts: []codec.Part{{Type: codec.PartReasoning, Text: "I thought."}, text("Hello")}}}},
		},
		{
			"reasoning_content null or empty is nothing",
			`{"model":"m","messages":[` + user + `,{"role":"assistant","content":"A","reasoning_content":null},{"role":"assistant","content":"B","reasoning_content":""}]}`,
			codec.Request{Model: "m", Messages: []codec.Message{hi, {Role: codec.RoleAssistant, Parts: []codec.Part{text("A")}}, {Role: codec.RoleAssistant, Parts: []codec.Part{text("B")}}}},
		},
		{
			"envelopes close signed parts, trailing text is unsigned",
			assistant("Thinking A."+env(anth)+env(red)+"Summary."+env(resp)+"tail", `,"content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]`),
			codec.Request{Model: "m", Messages: []codec.Message{hi, {Role: codec.RoleAssistant, Parts: []codec.Part{
				{Type: codec.PartReasoning, Text: "Thinking A.", Signature: "sig+/=", Origin: mapping.FamilyAnthropic},
				{Type: codec.PartReasoning, Signature: "data", Origin: mapping.FamilyAnthropic, Redacted: true},
				{Type: codec.PartReasoning, Text: "Summary.", Signature: "enc", Origin: mapping.FamilyOpenAI, ItemID: "rs_1"},
				{Type: codec.PartReasoning, Text: "tail"},
				call("c1", "f", "{}"),
			}}}},
		},
		{
			"an envelope whose blank lines the client trimmed",
			assistant("T"+strings.TrimSpace(env(anth)), `,"content":"x"`),
			codec.Request{Model: "m", Messages: []codec.Message{hi, {Role: codec.RoleAssistant, Parts: []codec.Part{
				{Type: codec.PartReasoning, Text: "T", Signature: "sig+/=", Origin: mapping.FamilyAnthropic}, text("x")}}}},
		},
		{
			"reasoning alone is a message",
			assistant("only thought", ``),
			codec.Request{Model: "m", Messages: []codec.Message{hi, {Role: codec.RoleAssistant, Parts: []codec.Part{{Type: codec.PartReasoning, Text: "only thought"}}}}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := decodeRequest(t, tt.body)
			if err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			if !codectest.EqualDecoded(got, tt.want) {
				t.Errorf("got  %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestChatAppendRequestReasoningSettings(t *testing.T) {
	msgs := []codec.Message{chatUser("Hi")}
	tests := []struct {
		name    string
		r       codec.Reasoning
		opts    codec.EncodeOptions
		effort  string // "" for none
		dropped []string
	}{
		{name: "nothing injects nothing"},
		{name: "none", r: codec.Reasoning{Effort: mapping.EffortNone}, effort: "none"},
		{name: "minimal", r: codec.Reasoning{Effort: mapping.EffortMinimal}, effort: "minimal"},
		{name: "high", r: codec.Reasoning{Effort: mapping.EffortHigh}, effort: "high"},
		{name: "xhigh", r: codec.Reasoning{Effort: mapping.EffortXHigh}, effort: "xhigh"},
		{name: "max is xhigh", r: codec.Reasoning{Effort: mapping.EffortMax}, effort: "xhigh"},
		{name: "budget 0 is none", r: codec.Reasoning{Budget: codec.OptInt{Set: true}}, effort: "none"},
		{name: "budget by the default table", r: codec.Reasoning{Budget: codec.OptInt{Value: 5000, Set: true}}, effort: "medium"},
		{name: "budget by a configured table", r: codec.Reasoning{Budget: codec.OptInt{Value: 5000, Set: true}},
			opts: codec.EncodeOptions{EffortBudgets: mapping.EffortBudgets{Low: 6000}}, effort: "low"},
		{name: "budget above every effort", r: codec.Reasoning{Budget: codec.OptInt{Value: 1 << 20, Set: true}}, effort: "xhigh"},
		{name: "dynamic budget leaves it to the model", r: codec.Reasoning{Budget: codec.OptInt{Value: -1, Set: true}}},
		{name: "adaptive leaves it to the model", r: codec.Reasoning{Adaptive: true}},
		{name: "adaptive with a budget", r: codec.Reasoning{Adaptive: true, Budget: codec.OptInt{Value: -1, Set: true}}},
		{name: "effort wins over a budget", r: codec.Reasoning{Effort: mapping.EffortLow, Budget: codec.OptInt{Value: 30000, Set: true}}, effort: "low"},
		{name: "summary alone injects nothing and is listed", r: codec.Reasoning{Summary: "auto"}, dropped: []string{"reasoning.summary"}},
		{name: "display and includeThoughts are listed", r: codec.Reasoning{Effort: mapping.EffortLow, Display: "omitted", IncludeThoughts: codec.OptBool{Set: true}},
			effort: "low", dropped: []string{"thinking.display", "generationConfig.thinkingConfig.includeThoughts"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := codec.Request{Model: "m", Messages: msgs, Reasoning: tt.r}
			out, err := codec.AppendRequest(nil, codec.OpenAIChat, &req, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			if !jsonx.Valid(string(out)) {
				t.Fatalf("invalid JSON: %s", out)
			}
			v := gjson.GetBytes(out, "reasoning_effort")
			if v.Str != tt.effort || v.Exists() != (tt.effort != "") {
				t.Errorf("reasoning_effort = %s, want %q", v.Raw, tt.effort)
			}
			if !codectest.EqualDecoded(req.Dropped, tt.dropped) && (len(req.Dropped) != 0 || len(tt.dropped) != 0) {
				t.Errorf("Dropped = %q, want %q", req.Dropped, tt.dropped)
			}
		})
	}
}

func TestChatAppendRequestFormat(t *testing.T) {
	tests := []struct {
		name   string
		f      codec.OutputFormat
		v      string
		format string // response_format's JSON, "" for none
	}{
		{name: "text is the default"},
		{name: "json_object", f: codec.OutputFormat{Kind: codec.FormatJSONObject}, format: `{"type":"json_object"}`},
		{name: "json_schema without a name", f: codec.OutputFormat{Kind: codec.FormatJSONSchema, Schema: `{"type":"object"}`},
			format: `{"type":"json_schema","json_schema":{"name":"response","schema":{"type":"object"}}}`},
		{name: "json_schema in full", f: codec.OutputFormat{Kind: codec.FormatJSONSchema, Name: "answer", Description: "An \"answer\".", Schema: `{"type":"object"}`, Strict: codec.OptBool{Set: true}},
			format: `{"type":"json_schema","json_schema":{"name":"answer","description":"An \"answer\".","schema":{"type":"object"},"strict":false}}`},
		{name: "json_schema without a schema", f: codec.OutputFormat{Kind: codec.FormatJSONSchema, Name: "n"}, format: `{"type":"json_schema","json_schema":{"name":"n"}}`},
		{name: "verbosity", v: "medium"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := codec.Request{Model: "m", Messages: []codec.Message{chatUser("Hi")}, Format: tt.f, Verbosity: tt.v}
			out, err := codec.AppendRequest(nil, codec.OpenAIChat, &req, codec.EncodeOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if got := gjson.GetBytes(out, "response_format").Raw; got != tt.format {
				t.Errorf("response_format = %s, want %s", got, tt.format)
			}
			if got := gjson.GetBytes(out, "verbosity"); got.Str != tt.v || got.Exists() != (tt.v != "") {
				t.Errorf("verbosity = %s, want %q", got.Raw, tt.v)
			}
			// What was encoded decodes to the same settings.
			back, derr := decodeRequest(t, string(out))
			if derr != nil {
				t.Fatal(derr)
			}
			want := tt.f
			if want.Kind == codec.FormatJSONSchema && want.Name == "" {
				want.Name = "response"
			}
			if back.Format != want || back.Verbosity != tt.v {
				t.Errorf("decoded back %+v %q, want %+v %q", back.Format, back.Verbosity, want, tt.v)
			}
		})
	}
}

// TestChatAppendRequestReasoningParts: unsigned reasoning (from a Chat
// upstream) goes back as reasoning_content; signed reasoning of any family
// cannot reach a Chat upstream and is listed; the golden shows the body.
func TestChatAppendRequestReasoningParts(t *testing.T) {
	parts := append(reasoningParts(), text("Answer."))
	req := codec.Request{
		Model: "deepseek-reasoner",
		Messages: []codec.Message{
			chatUser("Q1"),
			{Role: codec.RoleAssistant, Parts: parts},
			chatUser("Q2"),
			{Role: codec.RoleAssistant, Parts: []codec.Part{{Type: codec.PartReasoning, Text: "first "}, {Type: codec.PartReasoning}, {Type: codec.PartReasoning, Text: "second"},
				call("c1", "f", `{"a":1}`)}},
			{Role: codec.RoleUser, Parts: []codec.Part{result("c1", "f", text("ok"))}},
		},
		Reasoning: codec.Reasoning{Effort: mapping.EffortHigh},
		Format:    codec.OutputFormat{Kind: codec.FormatJSONSchema, Name: "answer", Schema: `{"type":"object"}`, Strict: codec.OptBool{Value: true, Set: true}},
		Verbosity: "low",
	}
	out, err := codec.AppendRequest(nil, codec.OpenAIChat, &req, codec.EncodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	codectest.CheckGolden(t, "openai-chat/request_reasoning.json", out)
	want := []string{"messages[1].content[0] (reasoning)", "messages[1].content[1] (reasoning)",
		"messages[1].content[2] (reasoning)", "messages[1].content[3] (reasoning)"}
	if !codectest.EqualDecoded(req.Dropped, want) {
		t.Errorf("Dropped = %q, want %q", req.Dropped, want)
	}
	if got := gjson.GetBytes(out, "messages.1.reasoning_content").Str; got != "Unsigned trailing thought." {
		t.Errorf("reasoning_content = %q", got)
	}
	if got := gjson.GetBytes(out, "messages.3.reasoning_content").Str; got != "first second" {
		t.Errorf("reasoning_content = %q", got)
	}
	if strings.Contains(string(out), "llmbridge.v1.") || strings.Contains(string(out), "sig==") || strings.Contains(string(out), "redacted") ||
		strings.Contains(string(out), "encrypted_content") || strings.Contains(string(out), "thought\"") {
		t.Errorf("a signature reached the Chat upstream: %s", out)
	}

	// Reasoning can only be an assistant's.
	for _, role := range []codec.Role{codec.RoleUser, codec.RoleSystem} {
		bad := codec.Request{Model: "m", Messages: []codec.Message{chatUser("Hi"), {Role: role, Parts: []codec.Part{{Type: codec.PartReasoning, Text: "t"}}}}}
		_, err := codec.AppendRequest(nil, codec.OpenAIChat, &bad, codec.EncodeOptions{})
		var e *codec.Error
		if !errors.As(err, &e) || e.Status != 400 || e.Param != "messages[1].parts[0]" || !strings.Contains(e.Message, "reasoning outside an assistant message") {
			t.Errorf("%v: err = %v", role, err)
		}
	}
}

// toolLoopResponse is a response with reasoning of every family, text
// and a tool call, whose id carries the signed reasoning to a Chat client.
func toolLoopResponse() *codec.Response {
	content := append(reasoningParts(), text("The answer."),
		codec.Part{Type: codec.PartToolCall, ToolCallID: "call_1", ToolName: "get_weather", Arguments: `{"city":"Paris"}`})
	return &codec.Response{ID: "chatcmpl-r", Model: "claude-sonnet-4-5", Created: 1700000000, Content: content, StopReason: mapping.StopToolUse,
		Usage: codec.Usage{Known: true, InputTokens: 100, CacheReadTokens: 60, CacheWriteTokens: 20, OutputTokens: 50, ReasoningTokens: 30}}
}

// toolLoopReplay builds the request a Chat client sends after
// toolLoopResponse: the assistant message as it got it (with
// reasoning_content only when withReasoning, as Qwen Code keeps it and the
// OpenAI SDK does not) and the tool result, answering the id it got.
func toolLoopReplay(content gjson.Result, reasoning string, withReasoning bool, callID string) string {
	c := content.Raw
	if c == "" {
		c = "null"
	}
	rc := ""
	if withReasoning {
		rc = `,"reasoning_content":` + string(jsonx.AppendString(nil, reasoning))
	}
	id := string(jsonx.AppendString(nil, callID))
	return `{"model":"m","messages":[{"role":"user","content":"Q"},{"role":"assistant","content":` + c + rc +
		`,"tool_calls":[{"id":` + id + `,"type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}}]},` +
		`{"role":"tool","tool_call_id":` + id + `,"content":"Sunny"}]}`
}

// toolLoopHistory is what toolLoopReplay decodes to: Anthropic's
// signed reasoning first (where Anthropic requires thinking), with its
// text; the reasoning_content the client kept as unsigned text; the
// answer; the other families' signed reasoning right before the call it
// came with, and the call with its own id.
func toolLoopHistory(withReasoning bool) []codec.Part {
	r := reasoningParts()
	parts := []codec.Part{r[0], r[1]}
	if withReasoning {
		parts = append(parts, codec.Part{Type: codec.PartReasoning, Text: r[0].Text + "\n\n" + r[2].Text + "\n\n" + r[4].Text})
	}
	openai := r[2]
	openai.Text = ""
	return append(parts, text("The answer."), openai, r[3],
		codec.Part{Type: codec.PartToolCall, ToolCallID: "call_1", ToolName: "get_weather", Arguments: `{"city":"Paris"}`})
}

// checkToolLoopReplay decodes the client's replay with and without
// reasoning_content and compares the assistant message and the result's
// call id.
func checkToolLoopReplay(t *testing.T, content gjson.Result, reasoning, callID string) {
	t.Helper()
	if strings.Contains(reasoning, mapping.EnvelopePrefix) || strings.Contains(content.Raw, mapping.EnvelopePrefix) {
		t.Errorf("an envelope token is in text a person reads: content %s, reasoning %q", content.Raw, reasoning)
	}
	if !strings.HasPrefix(callID, "call_1~"+mapping.EnvelopePrefix) {
		t.Errorf("the call id %q carries no continuation", callID)
	}
	for _, withReasoning := range []bool{true, false} {
		req, err := decodeRequest(t, toolLoopReplay(content, reasoning, withReasoning, callID))
		if err != nil {
			t.Fatal(err)
		}
		if got, want := req.Messages[1].Parts, toolLoopHistory(withReasoning); !codectest.EqualDecoded(got, want) {
			t.Errorf("replayed (reasoning_content kept: %v):\n got %+v\nwant %+v", withReasoning, got, want)
		}
		if got := req.Messages[2].Parts[0].ToolCallID; got != "call_1" {
			t.Errorf("the tool result answers %q, want call_1", got)
		}
	}
}

// TestChatReasoningResponseRoundTrip: reasoning with opaque values from every
// family goes to a Chat client as readable reasoning_content, its opaque
// values in the id of the tool call that follows, non-stream and streamed;
// replayed as the client's history, with or without reasoning_content, it
// decodes to the signed parts, signatures byte for byte.
func TestChatReasoningResponseRoundTrip(t *testing.T) {
	resp := toolLoopResponse()
	t.Run("non-stream", func(t *testing.T) {
		r := *resp
		out, err := codec.AppendResponse(nil, codec.OpenAIChat, &r)
		if err != nil {
			t.Fatal(err)
		}
		codectest.CheckGolden(t, "openai-chat/response_reasoning.json", out)
		msg := gjson.GetBytes(out, "choices.0.message")
		if msg.Get("content").Str != "The answer." || msg.Get("refusal").Type != gjson.Null {
			t.Errorf("message = %s", msg.Raw)
		}
		u := gjson.GetBytes(out, "usage")
		if u.Get("prompt_tokens_details.cached_tokens").Int() != 60 || u.Get("completion_tokens_details.reasoning_tokens").Int() != 30 ||
			u.Get("prompt_tokens").Int() != 100 {
			t.Errorf("usage = %s", u.Raw)
		}
		checkToolLoopReplay(t, msg.Get("content"), msg.Get("reasoning_content").Str, msg.Get("tool_calls.0.id").Str)
	})

	t.Run("stream", func(t *testing.T) {
		sse := codectest.EncodeStream(codec.OpenAIChat, &codec.Request{Model: "m", Stream: true, StreamUsage: true}, reasoningEvents(resp))
		checkStreamGolden(t, "reasoning", sse)
		text, thinking, refusal, ids := clientAccumulate(t, sse)
		if refusal != "" || text != "The answer." {
			t.Errorf("content/refusal = %q %q", text, refusal)
		}
		if len(ids) != 1 {
			t.Fatalf("tool call ids %q, want one", ids)
		}
		checkToolLoopReplay(t, gjson.Parse(string(jsonx.AppendString(nil, text))), thinking, ids[0])
	})

	t.Run("signatures no call follows", func(t *testing.T) {
		r := *resp
		r.Content = r.Content[:len(r.Content)-1]
		r.StopReason = mapping.StopEnd
		out, err := codec.AppendResponse(nil, codec.OpenAIChat, &r)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(out), mapping.EnvelopePrefix) {
			t.Errorf("an envelope went out without a tool call: %s", out)
		}
		want := []string{"content[0].signature", "content[1].signature", "content[2].signature", "content[3].signature"}
		if !codectest.EqualDecoded(r.Dropped, want) {
			t.Errorf("Dropped = %q, want %q", r.Dropped, want)
		}
	})
}

// reasoningEvents returns the canonical stream of resp with its
// reasoning parts' item ids, redaction and signatures where upstream
// decoders put them (AppendResponseEvents does not carry them).
func reasoningEvents(resp *codec.Response) []codec.Event {
	evs := []codec.Event{{Type: codec.EventStart, ID: resp.ID, Model: resp.Model, Created: resp.Created}}
	for i, p := range resp.Content {
		evs = append(evs, codec.Event{Type: codec.EventPartStart, Index: i, Part: p.Type, ItemID: p.ItemID, Redacted: p.Redacted,
			ToolCallID: p.ToolCallID, ToolName: p.ToolName})
		// Split the text in two deltas, as upstreams stream it.
		text := p.Text
		if p.Type == codec.PartToolCall {
			text = p.Arguments
		}
		if h := len(text) / 2; h > 0 {
			evs = append(evs, evDelta(i, text[:h]), evDelta(i, text[h:]))
		}
		evs = append(evs, codec.Event{Type: codec.EventPartStop, Index: i, Signature: p.Signature, Origin: p.Origin})
	}
	return append(evs, evStop(resp.StopReason), evUsage(resp.Usage), evEnd())
}

// clientAccumulate reads a Chat SSE body as a client does: it
// concatenates delta.content, delta.reasoning_content and delta.refusal,
// and collects the tool-call ids.
func clientAccumulate(t *testing.T, sse string) (text, reasoning, refusal string, ids []string) {
	t.Helper()
	for _, line := range strings.Split(sse, "\n") {
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok || data == "[DONE]" {
			continue
		}
		if !jsonx.Valid(data) {
			t.Fatalf("invalid chunk %s", data)
		}
		d := gjson.Get(data, "choices.0.delta")
		text += d.Get("content").Str
		refusal += d.Get("refusal").Str
		reasoning += d.Get("reasoning_content").Str
		for _, c := range d.Get("tool_calls").Array() {
			if id := c.Get("id"); id.Exists() {
				ids = append(ids, id.Str)
			}
		}
	}
	if strings.Contains(reasoning, mapping.EnvelopePrefix) || strings.Contains(text, mapping.EnvelopePrefix) || strings.Contains(refusal, mapping.EnvelopePrefix) {
		t.Errorf("an envelope token is in text a person reads: %q %q %q", text, reasoning, refusal)
	}
	return text, reasoning, refusal, ids
}

// TestChatAppendResponseRefusal covers the refusal rules toward a Chat client
// : the refusal goes to message.refusal with content null,
// never both; an explanation stands in for missing text; reasoning before it
// stays in reasoning_content; nothing to say, or a refusal after tool calls,
// is an error.
func TestChatAppendResponseRefusal(t *testing.T) {
	refusal := func(content []codec.Part, explanation string) *codec.Response {
		return &codec.Response{ID: "msg_1", Model: "claude", Created: 1, Content: content, StopReason: mapping.StopRefusal,
			StopDetails: codec.StopDetails{Category: "cyber", Explanation: explanation}}
	}
	tests := []struct {
		name    string
		resp    *codec.Response
		refusal string // "" when an error is expected
		err     string
	}{
		{name: "visible text becomes the refusal", resp: refusal([]codec.Part{text("I can't "), text("help.")}, "ignored"), refusal: "I can't help."},
		{name: "the explanation stands in for no text", resp: refusal(nil, "The request asks for malware."), refusal: "The request asks for malware."},
		{name: "a refusal part stays as it is", resp: refusal([]codec.Part{chatRefusal("No.")}, ""), refusal: "No."},
		{name: "nothing to say is an error", resp: refusal(nil, ""), err: "without any text or explanation"},
		{name: "after a tool call is an error", resp: refusal([]codec.Part{call("c", "f", "{}")}, "x"), err: "after producing tool call output"},
		{name: "reasoning before it is kept in its own slot", resp: refusal([]codec.Part{{Type: codec.PartReasoning, Text: "hmm"}}, "x"), refusal: "x"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := codec.AppendResponse(nil, codec.OpenAIChat, tt.resp)
			if tt.err != "" {
				var e *codec.Error
				if !errors.As(err, &e) || e.Status != 502 || e.Kind != mapping.ErrBadGateway || !strings.Contains(e.Message, tt.err) {
					t.Fatalf("err = %v, want a 502 about %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			msg := gjson.GetBytes(out, "choices.0.message")
			if msg.Get("refusal").Str != tt.refusal || msg.Get("content").Type != gjson.Null ||
				gjson.GetBytes(out, "choices.0.finish_reason").Str != "stop" {
				t.Errorf("got %s", out)
			}
		})
	}
	out, err := codec.AppendResponse(nil, codec.OpenAIChat, refusal([]codec.Part{text("I can't help with that.")}, "x"))
	if err != nil {
		t.Fatal(err)
	}
	codectest.CheckGolden(t, "openai-chat/response_refusal_from_text.json", out)
}

// TestChatStreamEncodeReasoningRefusal covers the stream encoder's refusal
// rules (common rule 6) and the reasoning chunks, with golden files.
func TestChatStreamEncodeReasoningRefusal(t *testing.T) {
	start := codec.Event{Type: codec.EventStart, ID: "msg_1", Model: "claude-sonnet-4-5", Created: 1727346171}
	stopRefusal := func(explanation string) codec.Event {
		return codec.Event{Type: codec.EventStop, StopReason: mapping.StopRefusal, StopDetails: codec.StopDetails{Category: "cyber", Explanation: explanation}}
	}
	thinking := []codec.Event{evPart(0, codec.PartReasoning), evDelta(0, "Hmm."),
		{Type: codec.EventPartStop, Index: 0, Signature: "sig", Origin: mapping.FamilyAnthropic}}
	tests := []struct {
		name           string
		evs            []codec.Event
		text, refusal  string
		reasoning      string
		err            string // an in-stream error instead of [DONE]
		finish, golden string
	}{
		{name: "explanation becomes the refusal", golden: "refusal_explanation",
			evs:     []codec.Event{start, stopRefusal("The request asks for malware."), evEnd()},
			refusal: "The request asks for malware.", finish: "stop"},
		{name: "an empty text part is no output",
			evs:     []codec.Event{start, evPart(0, codec.PartText), evDelta(0, ""), evPartStop(0), stopRefusal("Explained."), evEnd()},
			refusal: "Explained.", finish: "stop"},
		{name: "after reasoning the explanation is the refusal", golden: "refusal_after_reasoning",
			evs:       append(append([]codec.Event{start}, thinking...), stopRefusal("Explained."), evEnd()),
			reasoning: "Hmm.", refusal: "Explained.", finish: "stop"},
		{name: "text already sent is not repeated",
			evs:  []codec.Event{start, evPart(0, codec.PartText), evDelta(0, "I won't."), evPartStop(0), stopRefusal("Explained."), evEnd()},
			text: "I won't.", finish: "stop"},
		{name: "refusal text already sent is not repeated",
			evs:     []codec.Event{start, evPart(0, codec.PartRefusal), evDelta(0, "No."), evPartStop(0), stopRefusal("Explained."), evEnd()},
			refusal: "No.", finish: "stop"},
		{name: "no text and no explanation is an error", golden: "refusal_unexplained",
			evs: []codec.Event{start, stopRefusal(""), evEnd()}, err: "without any text or explanation"},
		{name: "after tool calls is an error",
			evs: []codec.Event{start, {Type: codec.EventPartStart, Index: 0, Part: codec.PartToolCall, ToolCallID: "c", ToolName: "f"}, evPartStop(0),
				stopRefusal("x"), evEnd()}, err: "after producing tool call output"},
		{name: "reasoning without signature has no envelope",
			evs:       []codec.Event{start, evPart(0, codec.PartReasoning), evDelta(0, "plain"), evPartStop(0), evPart(1, codec.PartText), evDelta(1, "A"), evPartStop(1), evStop(mapping.StopEnd), evEnd()},
			reasoning: "plain", text: "A", finish: "stop"},
		{name: "the stop of a part that is not the last started is nothing",
			evs:  []codec.Event{start, evPart(0, codec.PartText), evDelta(0, "A"), {Type: codec.EventPartStop, Index: 7, Signature: "x"}, evPartStop(0), evStop(mapping.StopEnd), evEnd()},
			text: "A", finish: "stop"},
		{name: "redacted reasoning without a call shows nothing",
			evs: []codec.Event{start, {Type: codec.EventPartStart, Index: 0, Part: codec.PartReasoning, Redacted: true},
				{Type: codec.EventPartStop, Index: 0, Signature: "data", Origin: mapping.FamilyAnthropic}, evStop(mapping.StopEnd), evEnd()},
			finish: "stop"},
		{name: "two reasoning parts are two paragraphs",
			evs: []codec.Event{start, evPart(0, codec.PartReasoning), evDelta(0, "one"), evDelta(0, " more"), evPartStop(0),
				evPart(1, codec.PartReasoning), evDelta(1, "two"), evPartStop(1), evStop(mapping.StopEnd), evEnd()},
			reasoning: "one more\n\ntwo", finish: "stop"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sse := codectest.EncodeStream(codec.OpenAIChat, &codec.Request{Model: "m", Stream: true}, tt.evs)
			if tt.golden != "" {
				checkStreamGolden(t, tt.golden, sse)
			}
			if tt.err != "" {
				if !strings.Contains(sse, `data: {"error":`) || !strings.Contains(sse, tt.err) || strings.Contains(sse, "[DONE]") ||
					strings.Contains(sse, `"finish_reason":"`) {
					t.Errorf("want an in-stream error about %q:\n%s", tt.err, sse)
				}
				return
			}
			text, reasoning, refusal, _ := clientAccumulate(t, sse)
			if text != tt.text || refusal != tt.refusal || reasoning != tt.reasoning {
				t.Errorf("content/refusal/reasoning = %q %q %q, want %q %q %q", text, refusal, reasoning, tt.text, tt.refusal, tt.reasoning)
			}
			if !strings.Contains(sse, `"finish_reason":"`+tt.finish+`"`) || !strings.HasSuffix(sse, "data: [DONE]\n\n") {
				t.Errorf("want finish_reason %q and [DONE]:\n%s", tt.finish, sse)
			}
			if tt.golden == "refusal_explanation" &&
				!strings.Contains(sse, `"delta":{"role":"assistant","content":null,"refusal":""}`) {
				t.Errorf("a refusal starts as OpenAI starts it:\n%s", sse)
			}
		})
	}
}

// TestChatRefusalRecordingToChatClient replays the recorded OpenAI refusal
// stream through the decoder and the Chat encoder: the client gets the
// refusal as refusal deltas, first chunk as OpenAI sends it, finish "stop".
func TestChatRefusalRecordingToChatClient(t *testing.T) {
	body := recording(t, "gpt-4o-2024-08-06-refusal-stream.json").Get("response.body").Str
	evs := codectest.DecodeStream(t, codec.OpenAIChat, body, nil)
	codectest.CheckWellFormed(t, evs)
	for _, ev := range evs {
		if ev.Type == codec.EventPartStart && ev.Part != codec.PartRefusal {
			t.Errorf("part of kind %v in a refusal stream", ev.Part)
		}
	}
	sse := codectest.EncodeStream(codec.OpenAIChat, &codec.Request{Model: "m", Stream: true}, evs)
	text, _, refusal, _ := clientAccumulate(t, sse)
	if text != "" || refusal != "I'm sorry, I can't assist with that request." {
		t.Errorf("content/refusal = %q %q", text, refusal)
	}
	if !strings.Contains(sse, `"delta":{"role":"assistant","content":null,"refusal":""}`) || !strings.Contains(sse, `"finish_reason":"stop"`) {
		t.Errorf("stream:\n%s", sse)
	}
}

// TestChatStreamReasoningAllocations: reasoning deltas, like text deltas,
// are encoded and decoded without allocating.
func TestChatStreamReasoningAllocations(t *testing.T) {
	enc := newStreamEncoder(&codec.Request{Model: "m"})
	dst := make([]byte, 0, 4096)
	enc.Encode(dst, &codec.Event{Type: codec.EventStart, ID: "x", Model: "m"})
	enc.Encode(dst, &codec.Event{Type: codec.EventPartStart, Part: codec.PartReasoning, ItemID: "rs_1"})
	delta := codec.Event{Type: codec.EventPartDelta, Text: "some reasoning text"}
	if n := testing.AllocsPerRun(100, func() { dst = enc.Encode(dst[:0], &delta) }); n != 0 {
		t.Errorf("encoding a reasoning delta allocates %v times", n)
	}
	dec := newStreamDecoder()
	out := make([]codec.Event, 0, 8)
	chunk := []byte(`{"id":"x","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"reasoning_content":"more \"thought\""},"finish_reason":null}]}`)
	out = dec.Decode(out[:0], nil, chunk, false)
	if n := testing.AllocsPerRun(100, func() { out = dec.Decode(out[:0], nil, chunk, false) }); n != 0 {
		t.Errorf("decoding a reasoning delta allocates %v times", n)
	}
	if len(out) != 1 || out[0].Type != codec.EventPartDelta || out[0].Text != `more "thought"` {
		t.Errorf("decoded %+v", out)
	}
}
