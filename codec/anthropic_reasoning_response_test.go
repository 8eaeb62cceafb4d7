package codec

import (
	"testing"

	"github.com/llmbridge/llmbridge/mapping"
	"github.com/tidwall/gjson"
)

// Reasoning tests of non-streamed Anthropic Messages responses: thinking
// blocks, stop details and cache usage.

func TestAnthropicDecodeReasoningResponse(t *testing.T) {
	tests := []struct {
		name    string
		body    string
		content []Part
		stop    StopReason
		details StopDetails
	}{
		{
			name: "thinking, redacted thinking, text",
			body: `{"type":"message","id":"msg_1","role":"assistant","model":"claude-x","content":[` +
				`{"type":"thinking","thinking":"Let me see.","signature":"EqQB+/="},{"type":"redacted_thinking","data":"EmwKAhgB"},` +
				`{"type":"text","text":"Answer."}],"stop_reason":"end_turn","stop_sequence":null,"stop_details":null,"usage":{"input_tokens":1,"output_tokens":2}}`,
			content: []Part{{Type: PartReasoning, Text: "Let me see.", Signature: "EqQB+/=", Origin: mapping.FamilyAnthropic},
				{Type: PartReasoning, Redacted: true, Signature: "EmwKAhgB", Origin: mapping.FamilyAnthropic}, {Type: PartText, Text: "Answer."}},
			stop: mapping.StopEnd,
		},
		{
			name:    "omitted display: a signature without text; null members",
			body:    `{"type":"message","content":[{"type":"thinking","thinking":"","signature":"Sig"},{"type":"thinking","thinking":null,"signature":null}],"stop_reason":"tool_use"}`,
			content: []Part{{Type: PartReasoning, Signature: "Sig", Origin: mapping.FamilyAnthropic}, {Type: PartReasoning}},
			stop:    mapping.StopToolUse,
		},
		{
			name:    "native refusal: empty content with stop details",
			body:    `{"type":"message","content":[],"stop_reason":"refusal","stop_details":{"type":"refusal","category":"bio","explanation":"Not this."}}`,
			content: nil, stop: mapping.StopRefusal, details: StopDetails{Category: "bio", Explanation: "Not this."},
		},
		{
			name:    "refusal with text, null category and future members",
			body:    `{"type":"message","content":[{"type":"text","text":"I can't."}],"stop_reason":"refusal","stop_details":{"type":"refusal","category":null,"explanation":"E","future":{"x":1}}}`,
			content: []Part{{Type: PartText, Text: "I can't."}}, stop: mapping.StopRefusal, details: StopDetails{Explanation: "E"},
		},
		{
			name:    "pause_turn",
			body:    `{"type":"message","content":[{"type":"thinking","thinking":"t","signature":"S"}],"stop_reason":"pause_turn"}`,
			content: []Part{{Type: PartReasoning, Text: "t", Signature: "S", Origin: mapping.FamilyAnthropic}}, stop: mapping.StopPauseTurn,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, p := range []Protocol{AnthropicMessages, VertexAnthropic} {
				var resp Response
				if err := DecodeResponse(p, []byte(tt.body), &resp); err != nil {
					t.Fatalf("%s: %v", p, err)
				}
				if !equalDecoded(resp.Content, tt.content) || resp.StopReason != tt.stop || resp.StopDetails != tt.details {
					t.Errorf("%s: content %+v stop %v details %+v", p, resp.Content, resp.StopReason, resp.StopDetails)
				}
			}
		})
	}
}

// anthropicReasoningResponse is a response with reasoning from every family
// and the ways reasoning can be signed.
func anthropicReasoningResponse() *Response {
	return &Response{ID: "msg_r", Model: "m", StopReason: mapping.StopToolUse,
		Content: []Part{
			{Type: PartReasoning, Text: "Anthropic thought.", Signature: "EqQB+/=", Origin: mapping.FamilyAnthropic},
			{Type: PartReasoning, Redacted: true, Signature: "EmwK", Origin: mapping.FamilyAnthropic},
			{Type: PartReasoning, Text: "Summary.", Signature: "gAAAA==", Origin: mapping.FamilyOpenAI, ItemID: "rs_123"},
			{Type: PartReasoning, Signature: "CiQB/gem", Origin: mapping.FamilyGemini},
			{Type: PartReasoning, Text: "Chat reasoning, unsigned."},
			{Type: PartText, Text: "Calling."},
			{Type: PartToolCall, ToolCallID: "toolu_1", ToolName: "f", Arguments: `{}`},
		},
		Usage: Usage{Known: true, InputTokens: 100, CacheReadTokens: 60, CacheWriteTokens: 10, OutputTokens: 40, ReasoningTokens: 25}}
}

func TestAnthropicAppendReasoningResponse(t *testing.T) {
	resp := anthropicReasoningResponse()
	out, err := AppendResponse(nil, AnthropicMessages, resp)
	if err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "anthropic-messages/response_reasoning.json", out)
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
	bad := &Response{Content: []Part{{Type: PartReasoning, Redacted: true}}}
	if _, err := AppendResponse(nil, AnthropicMessages, bad); err == nil {
		t.Error("redacted reasoning without data was written")
	}
}

func TestAnthropicAppendStopDetails(t *testing.T) {
	tests := []struct {
		name    string
		stop    StopReason
		details StopDetails
		want    string // the stop_details member, or "" for none
	}{
		{"refusal with both", mapping.StopRefusal, StopDetails{Category: "cyber", Explanation: "No \"malware\"."},
			`{"type":"refusal","category":"cyber","explanation":"No \"malware\"."}`},
		{"refusal with an explanation only", mapping.StopRefusal, StopDetails{Explanation: "Policy."}, `{"type":"refusal","explanation":"Policy."}`},
		{"filter stop with a Gemini category", mapping.StopContentFilter, StopDetails{Category: "SAFETY"}, `{"type":"refusal","category":"SAFETY"}`},
		{"refusal without details invents none", mapping.StopRefusal, StopDetails{}, ""},
		{"details of another stop are not written", mapping.StopEnd, StopDetails{Explanation: "x"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := &Response{ID: "msg_1", Model: "m", Content: []Part{}, StopReason: tt.stop, StopDetails: tt.details}
			out, err := AppendResponse(nil, VertexAnthropic, resp)
			if err != nil {
				t.Fatal(err)
			}
			if got := gjson.GetBytes(out, "stop_details"); got.Raw != tt.want {
				t.Errorf("stop_details %s, want %s", got.Raw, tt.want)
			}
			var back Response
			if err := DecodeResponse(AnthropicMessages, out, &back); err != nil {
				t.Fatal(err)
			}
			if want := tt.details; tt.want != "" && back.StopDetails != want {
				t.Errorf("decoded details %+v", back.StopDetails)
			}
			// The stream carries the same details in message_delta.
			evs := []Event{{Type: EventStart, ID: "msg_1"}, {Type: EventStop, StopReason: tt.stop, StopDetails: tt.details}, {Type: EventEnd}}
			body := encodeStream(AnthropicMessages, &Request{Model: "m"}, evs)
			var delta string
			for _, e := range anthropicReadEvents(t, body) {
				if e.name == "message_delta" {
					delta = gjson.Get(e.data, "delta.stop_details").Raw
				}
			}
			if delta != tt.want {
				t.Errorf("stream stop_details %s, want %s", delta, tt.want)
			}
		})
	}
	resp := &Response{ID: "msg_1", Model: "m", Content: []Part{}, StopReason: mapping.StopRefusal,
		StopDetails: StopDetails{Category: "bio", Explanation: "Not this."}}
	out, _ := AppendResponse(nil, AnthropicMessages, resp)
	checkGolden(t, "anthropic-messages/response_refusal_details.json", out)
}

// TestAnthropicDecodeRecordedCacheUsage decodes the recorded responses with
// prompt-cache usage: cache reads and writes are added to the input tokens
// and kept in their own counters, on the way in and on the way back out.
func TestAnthropicDecodeRecordedCacheUsage(t *testing.T) {
	for _, file := range []string{"anthropic-messages/claude-sonnet-4-5-cache-read.json", "anthropic-messages/claude-sonnet-4-5-cache-write.json"} {
		rec := readRecording(t, file)
		body := rec.Get("response.body").Str
		u := gjson.Get(body, "usage")
		var resp Response
		if err := DecodeResponse(AnthropicMessages, []byte(body), &resp); err != nil {
			t.Fatal(err)
		}
		in, cw, cr := u.Get("input_tokens").Int(), u.Get("cache_creation_input_tokens").Int(), u.Get("cache_read_input_tokens").Int()
		if cw+cr == 0 {
			t.Fatalf("%s has no cache usage", file)
		}
		want := Usage{Known: true, InputTokens: in + cw + cr, CacheReadTokens: cr, CacheWriteTokens: cw, OutputTokens: u.Get("output_tokens").Int()}
		if resp.Usage != want {
			t.Errorf("%s: usage %+v, want %+v", file, resp.Usage, want)
		}
		out, err := AppendResponse(nil, AnthropicMessages, &resp)
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
