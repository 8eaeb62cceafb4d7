package anthropic

import (
	"testing"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/codectest"
	"github.com/llmbridge/llmbridge/mapping"
	"github.com/tidwall/gjson"
)

func TestAnthropicDecodeReasoningResponse(t *testing.T) {
	tests := []struct {
		name    string
		body    string
		content []codec.Part
		stop    codec.StopReason
		details codec.StopDetails
	}{
		{
			name: "thinking, redacted thinking, text",
			body: `{"type":"message","id":"msg_1","role":"assistant","model":"claude-x","content":[` +
				`{"type":"thinking","thinking":"Let me see.","signature":"EqQB+/="},{"type":"redacted_thinking","data":"EmwKAhgB"},` +
				`{"type":"text","text":"Answer."}],"stop_reason":"end_turn","stop_sequence":null,"stop_details":null,"usage":{"input_tokens":1,"output_tokens":2}}`,
			content: []codec.Part{{Type: codec.PartReasoning, Text: "Let me see.", Signature: "EqQB+/=", Origin: mapping.FamilyAnthropic},
				{Type: codec.PartReasoning, Redacted: true, Signature: "EmwKAhgB", Origin: mapping.FamilyAnthropic}, {Type: codec.PartText, Text: "Answer."}},
			stop: mapping.StopEnd,
		},
		{
			name:    "omitted display: a signature without text; null members",
			body:    `{"type":"message","content":[{"type":"thinking","thinking":"","signature":"Sig"},{"type":"thinking","thinking":null,"signature":null}],"stop_reason":"tool_use"}`,
			content: []codec.Part{{Type: codec.PartReasoning, Signature: "Sig", Origin: mapping.FamilyAnthropic}, {Type: codec.PartReasoning}},
			stop:    mapping.StopToolUse,
		},
		{
			name:    "native refusal: empty content with stop details",
			body:    `{"type":"message","content":[],"stop_reason":"refusal","stop_details":{"type":"refusal","category":"bio","explanation":"Not this."}}`,
			content: nil, stop: mapping.StopRefusal, details: codec.StopDetails{Category: "bio", Explanation: "Not this."},
		},
		{
			name:    "refusal with text, null category and future members",
			body:    `{"type":"message","content":[{"type":"text","text":"I can't."}],"stop_reason":"refusal","stop_details":{"type":"refusal","category":null,"explanation":"E","future":{"x":1}}}`,
			content: []codec.Part{{Type: codec.PartText, Text: "I can't."}}, stop: mapping.StopRefusal, details: codec.StopDetails{Explanation: "E"},
		},
		{
			name:    "pause_turn",
			body:    `{"type":"message","content":[{"type":"thinking","thinking":"t","signature":"S"}],"stop_reason":"pause_turn"}`,
			content: []codec.Part{{Type: codec.PartReasoning, Text: "t", Signature: "S", Origin: mapping.FamilyAnthropic}}, stop: mapping.StopPauseTurn,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, p := range []codec.Protocol{codec.AnthropicMessages, codec.VertexAnthropic} {
				var resp codec.Response
				if err := codec.DecodeResponse(p, []byte(tt.body), &resp); err != nil {
					t.Fatalf("%s: %v", p, err)
				}
				if !codectest.EqualDecoded(resp.Content, tt.content) || resp.StopReason != tt.stop || resp.StopDetails != tt.details {
					t.Errorf("%s: content %+v stop %v details %+v", p, resp.Content, resp.StopReason, resp.StopDetails)
				}
			}
		})
	}
}

// reasoningResponse is a response with reasoning from every family
// and the ways reasoning can be signed.
func reasoningResponse() *codec.Response {
	return &codec.Response{ID: "msg_r", Model: "m", StopReason: mapping.StopToolUse,
		Content: []codec.Part{
			{Type: codec.PartReasoning, Text: "Anthropic thought.", Signature: "EqQB+/=", Origin: mapping.FamilyAnthropic},
			{Type: codec.PartReasoning, Redacted: true, Signature: "EmwK", Origin: mapping.FamilyAnthropic},
			{Type: codec.PartReasoning, Text: "Summary.", Signature: "gAAAA==", Origin: mapping.FamilyOpenAI, ItemID: "rs_123"},
			{Type: codec.PartReasoning, Signature: "CiQB/gem", Origin: mapping.FamilyGemini},
			{Type: codec.PartReasoning, Text: "Chat reasoning, unsigned."},
			{Type: codec.PartText, Text: "Calling."},
			{Type: codec.PartToolCall, ToolCallID: "toolu_1", ToolName: "f", Arguments: `{}`},
		},
		Usage: codec.Usage{Known: true, InputTokens: 100, CacheReadTokens: 60, CacheWriteTokens: 10, OutputTokens: 40, ReasoningTokens: 25}}
}

func TestAnthropicAppendReasoningResponse(t *testing.T) {
	resp := reasoningResponse()
	out, err := codec.AppendResponse(nil, codec.AnthropicMessages, resp)
	if err != nil {
		t.Fatal(err)
	}
	codectest.CheckGolden(t, "anthropic-messages/response_reasoning.json", out)
	// Every opaque value is a continuation token that says who issued it.
	blocks := gjson.GetBytes(out, "content").Array()
	for i, want := range resp.Content[:5] {
		value := blocks[i].Get("signature").Str
		if want.Redacted {
			value = blocks[i].Get("data").Str
			if blocks[i].Get("type").Str != "redacted_thinking" {
				t.Errorf("block %d: %s", i, blocks[i].Raw)
			}
		}
		if want.Signature == "" {
			if value != "" || !blocks[i].Get("signature").Exists() {
				t.Errorf("block %d: unsigned reasoning written as %s", i, blocks[i].Raw)
			}
			continue
		}
		c, err := mapping.ParseContinuation(value)
		if err != nil || c != (mapping.Continuation{Origin: want.Origin, Redacted: want.Redacted, ItemID: want.ItemID, Signature: want.Signature}) {
			t.Errorf("block %d: continuation %+v, %v", i, c, err)
		}
	}
	if got := gjson.GetBytes(out, "usage").Raw; got != `{"input_tokens":30,"cache_creation_input_tokens":10,"cache_read_input_tokens":60,"output_tokens":40,"output_tokens_details":{"thinking_tokens":25}}` {
		t.Errorf("usage %s", got)
	}
	// A redacted part without data cannot be written.
	bad := &codec.Response{Content: []codec.Part{{Type: codec.PartReasoning, Redacted: true}}}
	if _, err := codec.AppendResponse(nil, codec.AnthropicMessages, bad); err == nil {
		t.Error("redacted reasoning without data was written")
	}
}

func TestAnthropicAppendStopDetails(t *testing.T) {
	tests := []struct {
		name    string
		stop    codec.StopReason
		details codec.StopDetails
		want    string // the stop_details member, or "" for none
	}{
		{"refusal with both", mapping.StopRefusal, codec.StopDetails{Category: "cyber", Explanation: "No \"malware\"."},
			`{"type":"refusal","category":"cyber","explanation":"No \"malware\"."}`},
		{"refusal with an explanation only", mapping.StopRefusal, codec.StopDetails{Explanation: "Policy."}, `{"type":"refusal","explanation":"Policy."}`},
		{"filter stop with a Gemini category", mapping.StopContentFilter, codec.StopDetails{Category: "SAFETY"}, `{"type":"refusal","category":"SAFETY"}`},
		{"refusal without details invents none", mapping.StopRefusal, codec.StopDetails{}, ""},
		{"details of another stop are not written", mapping.StopEnd, codec.StopDetails{Explanation: "x"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := &codec.Response{ID: "msg_1", Model: "m", Content: []codec.Part{}, StopReason: tt.stop, StopDetails: tt.details}
			out, err := codec.AppendResponse(nil, codec.VertexAnthropic, resp)
			if err != nil {
				t.Fatal(err)
			}
			if got := gjson.GetBytes(out, "stop_details"); got.Raw != tt.want {
				t.Errorf("stop_details %s, want %s", got.Raw, tt.want)
			}
			var back codec.Response
			if err := codec.DecodeResponse(codec.AnthropicMessages, out, &back); err != nil {
				t.Fatal(err)
			}
			if want := tt.details; tt.want != "" && back.StopDetails != want {
				t.Errorf("decoded details %+v", back.StopDetails)
			}
			// The stream carries the same details in message_delta.
			evs := []codec.Event{{Type: codec.EventStart, ID: "msg_1"}, {Type: codec.EventStop, StopReason: tt.stop, StopDetails: tt.details}, {Type: codec.EventEnd}}
			body := codectest.EncodeStream(codec.AnthropicMessages, &codec.Request{Model: "m"}, evs)
			var delta string
			for _, e := range readEvents(t, body) {
				if e.name == "message_delta" {
					delta = gjson.Get(e.data, "delta.stop_details").Raw
				}
			}
			if delta != tt.want {
				t.Errorf("stream stop_details %s, want %s", delta, tt.want)
			}
		})
	}
	resp := &codec.Response{ID: "msg_1", Model: "m", Content: []codec.Part{}, StopReason: mapping.StopRefusal,
		StopDetails: codec.StopDetails{Category: "bio", Explanation: "Not this."}}
	out, _ := codec.AppendResponse(nil, codec.AnthropicMessages, resp)
	codectest.CheckGolden(t, "anthropic-messages/response_refusal_details.json", out)
}

// TestAnthropicDecodeRecordedCacheUsage decodes the recorded responses with
// prompt-cache usage: cache reads and writes are added to the input tokens
// and kept in their own counters, on the way in and on the way back out.
func TestAnthropicDecodeRecordedCacheUsage(t *testing.T) {
	for _, file := range []string{"anthropic-messages/claude-sonnet-4-5-cache-read.json", "anthropic-messages/claude-sonnet-4-5-cache-write.json"} {
		rec := codectest.ReadRecording(t, file)
		body := rec.Get("response.body").Str
		u := gjson.Get(body, "usage")
		var resp codec.Response
		if err := codec.DecodeResponse(codec.AnthropicMessages, []byte(body), &resp); err != nil {
			t.Fatal(err)
		}
		in, cw, cr := u.Get("input_tokens").Int(), u.Get("cache_creation_input_tokens").Int(), u.Get("cache_read_input_tokens").Int()
		if cw+cr == 0 {
			t.Fatalf("%s has no cache usage", file)
		}
		want := codec.Usage{Known: true, InputTokens: in + cw + cr, CacheReadTokens: cr, CacheWriteTokens: cw, OutputTokens: u.Get("output_tokens").Int()}
		if resp.Usage != want {
			t.Errorf("%s: usage %+v, want %+v", file, resp.Usage, want)
		}
		out, err := codec.AppendResponse(nil, codec.AnthropicMessages, &resp)
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range []string{"input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens", "output_tokens"} {
			if gjson.GetBytes(out, "usage."+k).Int() != u.Get(k).Int() {
				t.Errorf("%s: usage.%s %d, recorded %d", file, k, gjson.GetBytes(out, "usage."+k).Int(), u.Get(k).Int())
			}
		}
	}
}
