package bedrock

import (
	"errors"
	"strings"
	"testing"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/codectest"
	"github.com/llmbridge/llmbridge/mapping"
)

func TestDecodeResponse(t *testing.T) {
	tests := []struct {
		name string
		body string
		want codec.Response
	}{
		{
			name: "text, reasoning, tool use, usage",
			body: `{"output":{"message":{"role":"assistant","content":[{"reasoningContent":{"reasoningText":{"text":"hm","signature":"c2ln"}}},
				{"reasoningContent":{"redactedContent":"c2VjcmV0"}},{"reasoningContent":{"reasoningText":{"text":"plain"}}},{"text":"Calling."},
				{"toolUse":{"toolUseId":"t1","name":"f","input":{"a":1}}}]}},"stopReason":"tool_use",
				"usage":{"inputTokens":10,"outputTokens":5,"totalTokens":45,"cacheReadInputTokens":20,"cacheWriteInputTokens":10},
				"metrics":{"latencyMs":100},"trace":{},"performanceConfig":{"latency":"standard"}}`,
			want: codec.Response{
				Content: []codec.Part{
					{Type: codec.PartReasoning, Text: "hm", Signature: "c2ln", Origin: mapping.FamilyAnthropic},
					{Type: codec.PartReasoning, Redacted: true, Signature: "c2VjcmV0", Origin: mapping.FamilyAnthropic},
					{Type: codec.PartReasoning, Text: "plain"},
					{Type: codec.PartText, Text: "Calling."},
					{Type: codec.PartToolCall, ToolCallID: "t1", ToolName: "f", Arguments: `{"a":1}`},
				},
				StopReason: mapping.StopToolUse,
				Usage:      codec.Usage{Known: true, InputTokens: 40, CacheReadTokens: 20, CacheWriteTokens: 10, OutputTokens: 5},
			},
		},
		{
			name: "end_turn with a tool use is a tool use",
			body: `{"output":{"message":{"role":"assistant","content":[{"toolUse":{"toolUseId":"t1","name":"f","input":{}}}]}},"stopReason":"end_turn"}`,
			want: codec.Response{Content: []codec.Part{{Type: codec.PartToolCall, ToolCallID: "t1", ToolName: "f", Arguments: `{}`}}, StopReason: mapping.StopToolUse},
		},
		{
			name: "a guardrail, citations and a stop sequence",
			body: `{"output":{"message":{"content":[{"citationsContent":{"content":[{"text":"A"},{"x":1}],"citations":[]}}]}},"stopReason":"guardrail_intervened",
				"additionalModelResponseFields":{"stop_sequence":"END"},"usage":null}`,
			want: codec.Response{Content: []codec.Part{{Type: codec.PartText, Text: "A"}}, StopReason: mapping.StopContentFilter,
				StopDetails: codec.StopDetails{Category: "guardrail_intervened"}, StopSequence: "END",
				Dropped: []string{"content[0].citationsContent.citations"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got codec.Response
			if err := codec.DecodeResponse(codec.Bedrock, []byte(tt.body), &got); err != nil {
				t.Fatal(err)
			}
			if !codectest.EqualDecoded(got, tt.want) {
				t.Errorf("got\n%+v\nwant\n%+v", got, tt.want)
			}
		})
	}
}

func TestDecodeResponseErrors(t *testing.T) {
	for _, body := range []string{
		`[]`,
		`{}`,
		`{"output":{"message":{"role":"user","content":[]}}}`,
		`{"output":{"message":{"content":[]}},"stopReason":1}`,
		`{"output":{"message":{"content":{}}}}`,
		`{"output":{"message":{"content":[]}},"usage":1}`,
		`{"output":{"message":{"content":[]}},"usage":{"inputTokens":-1}}`,
		`{"output":{"message":{"content":[1]}}}`,
		`{"output":{"message":{"content":[{"text":1}]}}}`,
		`{"output":{"message":{"content":[{"toolUse":{"name":"f"}}]}}}`,
		`{"output":{"message":{"content":[{"reasoningContent":{"redactedContent":1}}]}}}`,
		`{"output":{"message":{"content":[{"reasoningContent":{}}]}}}`,
		`{"output":{"message":{"content":[{"image":{}}]}}}`,
	} {
		var resp codec.Response
		err := codec.DecodeResponse(codec.Bedrock, []byte(body), &resp)
		var e *codec.Error
		if !errors.As(err, &e) || e.Status != 502 {
			t.Errorf("%s: %v", body, err)
		}
	}
}

func TestEncodeResponse(t *testing.T) {
	resp := codec.Response{
		ID: "ignored", Model: "ignored",
		Content: []codec.Part{
			{Type: codec.PartServerToolCall, ToolName: "web_search", Arguments: `{"query":"q"}`},
			{Type: codec.PartReasoning, Text: "r", Signature: "rs", Origin: mapping.FamilyOpenAI, ItemID: "rs_1"},
			{Type: codec.PartReasoning, Redacted: true, Signature: "e30=", Origin: mapping.FamilyGemini},
			{Type: codec.PartReasoning, Text: "unsigned"},
			{Type: codec.PartText, Text: "See.", Citations: []codec.Citation{{URL: "https://x", End: -1}}},
			{Type: codec.PartRefusal, Text: "No."},
			{Type: codec.PartToolCall, ToolName: "f"},
		},
		StopReason:   mapping.StopSequence,
		StopSequence: "END",
		Latency:      codec.Latency{InvocationMs: 640},
	}
	out, err := codec.AppendResponse(nil, codec.Bedrock, &resp)
	if err != nil {
		t.Fatal(err)
	}
	s := string(out)
	for _, want := range []string{
		`{"reasoningContent":{"reasoningText":{"text":"r","signature":"llmbridge.v1.`,
		`{"reasoningContent":{"reasoningText":{"text":"","signature":"llmbridge.v1.`,
		`{"reasoningContent":{"reasoningText":{"text":"unsigned"}}},{"text":"See."},{"text":"No."},{"toolUse":{"toolUseId":"tooluse_`,
		`"name":"f","input":{}}}]}},"stopReason":"stop_sequence","usage":{"inputTokens":0,"outputTokens":0,"totalTokens":0},"metrics":{"latencyMs":640},` +
			`"additionalModelResponseFields":{"stop_sequence":"END"}}`,
	} {
		if !strings.Contains(s, want) {
			t.Errorf("%s\nlacks %s", s, want)
		}
	}
	if strings.Contains(s, "ignored") || strings.Contains(s, "web_search") {
		t.Errorf("id, model or server tool written: %s", s)
	}
	if d := strings.Join(resp.Dropped, " "); d != "content[0] (server tool call) content[4].citations" {
		t.Errorf("dropped %q", d)
	}
	// The foreign values come back from the client's replay.
	var back codec.Response
	if err := codec.DecodeResponse(codec.Bedrock, out, &back); err != nil {
		t.Fatal(err)
	}
	req := `{"messages":[{"role":"user","content":[{"text":"Hi"}]},{"role":"assistant","content":[` +
		s[strings.Index(s, `{"reasoningContent"`):strings.Index(s, `,{"reasoningContent":{"reasoningText":{"text":"unsigned"`)] + `]}]}`
	got, derr := decode(t, req)
	if derr != nil {
		t.Fatal(derr)
	}
	if p := got.Messages[1].Parts; p[0].Origin != mapping.FamilyOpenAI || p[0].ItemID != "rs_1" || p[0].Signature != "rs" ||
		p[1].Origin != mapping.FamilyGemini || !p[1].Redacted || p[1].Signature != "e30=" {
		t.Errorf("replayed %+v", p)
	}

	for _, bad := range []codec.Part{
		{Type: codec.PartReasoning, Redacted: true},
		{Type: codec.PartToolCall, Arguments: "{}"},
		{Type: codec.PartToolCall, ToolName: "f", Arguments: "[]"},
		{Type: codec.PartImage, Data: "AAAA"},
	} {
		if _, err := codec.AppendResponse(nil, codec.Bedrock, &codec.Response{Content: []codec.Part{bad}}); err == nil {
			t.Errorf("%+v: no error", bad)
		}
	}
}

func TestErrors(t *testing.T) {
	e := codec.DecodeError(codec.Bedrock, 400, []byte(`{"message":"bad input","__type":"com.amazon.coral#ValidationException"}`))
	if e.Kind != mapping.ErrInvalidRequest || e.Code != "ValidationException" || e.Message != "bad input" {
		t.Errorf("%+v", e)
	}
	e = codec.DecodeError(codec.Bedrock, 500, []byte(`{"message":"later"}`))
	codec.DecodeErrorType(codec.Bedrock, "ThrottlingException:http://internal.amazon.com/coral/com.amazon.bedrock/", e)
	if e.Kind != mapping.ErrRateLimit || e.Code != "ThrottlingException" {
		t.Errorf("%+v", e)
	}
	e = codec.DecodeError(codec.Bedrock, 403, []byte(`{"message":"no","code":"AccessDeniedException"}`))
	if e.Kind != mapping.ErrPermission {
		t.Errorf("%+v", e)
	}
	e = codec.DecodeError(codec.Bedrock, 418, []byte(`{"message":"odd","__type":"TeapotException"}`))
	if e.Code != "TeapotException" {
		t.Errorf("%+v", e)
	}
	if got := string(codec.AppendError(nil, codec.Bedrock, e)); got != `{"message":"odd","__type":"TeapotException"}` {
		t.Errorf("own type: %s", got)
	}
	foreign := &codec.Error{Kind: mapping.ErrNotFound, Message: "gone", Code: "not_found_error", Protocol: codec.AnthropicMessages}
	if got := string(codec.AppendError(nil, codec.Bedrock, foreign)); got != `{"message":"gone","__type":"ResourceNotFoundException"}` {
		t.Errorf("foreign type: %s", got)
	}
}
