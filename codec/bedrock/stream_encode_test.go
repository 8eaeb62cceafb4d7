package bedrock

import (
	"strings"
	"testing"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/codectest"
	"github.com/llmbridge/llmbridge/mapping"
)

func TestStreamEncode(t *testing.T) {
	tests := []struct {
		name string
		evs  []codec.Event
		want string
	}{
		{
			name: "text, refusal, a skipped search, an empty part, usage after the stop",
			evs: []codec.Event{
				{Type: codec.EventStart, ID: "x", Model: "m"},
				{Type: codec.EventPartStart, Index: 0, Part: codec.PartServerToolCall},
				{Type: codec.EventPartDelta, Index: 0, Text: `{"query":"q"}`},
				{Type: codec.EventPartStop, Index: 0},
				{Type: codec.EventPartStart, Index: 1, Part: codec.PartText},
				{Type: codec.EventPartDelta, Index: 1, Text: "Hi"},
				{Type: codec.EventCitation, Index: 1},
				{Type: codec.EventDropped, Text: "image"},
				{Type: codec.EventPartDelta, Index: 1, Text: ""},
				{Type: codec.EventPartStop, Index: 1},
				{Type: codec.EventPartStart, Index: 2, Part: codec.PartText},
				{Type: codec.EventPartStop, Index: 2},
				{Type: codec.EventPartStart, Index: 3, Part: codec.PartRefusal},
				{Type: codec.EventPartDelta, Index: 3, Text: "No."},
				{Type: codec.EventPartStop, Index: 3},
				{Type: codec.EventStop, StopReason: mapping.StopRefusal, StopSequence: "S"},
				{Type: codec.EventUsage, Usage: codec.Usage{Known: true, InputTokens: 9, CacheWriteTokens: 4, OutputTokens: 2}},
				{Type: codec.EventEnd, Latency: codec.Latency{InvocationMs: 812, FirstByteMs: 300}},
				{Type: codec.EventPartStart, Index: 4, Part: codec.PartText},
			},
			want: sseOf("messageStart", `{"role":"assistant"}`,
				"contentBlockDelta", `{"contentBlockIndex":0,"delta":{"text":"Hi"}}`,
				"contentBlockStop", `{"contentBlockIndex":0}`,
				"contentBlockDelta", `{"contentBlockIndex":1,"delta":{"text":"No."}}`,
				"contentBlockStop", `{"contentBlockIndex":1}`,
				"messageStop", `{"stopReason":"content_filtered","additionalModelResponseFields":{"stop_sequence":"S"}}`,
				"metadata", `{"usage":{"inputTokens":5,"outputTokens":2,"totalTokens":11,"cacheWriteInputTokens":4},"metrics":{"latencyMs":812}}`),
		},
		{
			name: "reasoning of three families and a tool call without an id",
			evs: []codec.Event{
				{Type: codec.EventPartStart, Index: 0, Part: codec.PartReasoning, ItemID: "rs_1"},
				{Type: codec.EventPartDelta, Index: 0, Text: "r"},
				{Type: codec.EventPartStop, Index: 0, Signature: "enc", Origin: mapping.FamilyOpenAI},
				{Type: codec.EventPartStart, Index: 1, Part: codec.PartReasoning, Redacted: true},
				{Type: codec.EventPartDelta, Index: 1, Text: "hidden"},
				{Type: codec.EventPartStop, Index: 1, Signature: "c2VjcmV0", Origin: mapping.FamilyAnthropic},
				{Type: codec.EventPartStart, Index: 2, Part: codec.PartReasoning},
				{Type: codec.EventPartStop, Index: 2},
				{Type: codec.EventPartStart, Index: 3, Part: codec.PartToolCall, ToolName: "f"},
				{Type: codec.EventPartStop, Index: 3},
				{Type: codec.EventPartStart, Index: 4, Part: codec.PartImage},
				{Type: codec.EventPartDelta, Index: 4, Text: "x"},
				{Type: codec.EventStop, StopReason: mapping.StopEnd},
				{Type: codec.EventEnd},
			},
			want: "ID",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := codectest.EncodeStream(codec.Bedrock, &codec.Request{Stream: true}, tt.evs)
			if tt.want == "ID" {
				for _, want := range []string{
					"event: messageStart\n",
					`{"contentBlockIndex":0,"delta":{"reasoningContent":{"text":"r"}}}`,
					`{"contentBlockIndex":0,"delta":{"reasoningContent":{"signature":"llmbridge.v1.`,
					`{"contentBlockIndex":1,"delta":{"reasoningContent":{"redactedContent":"c2VjcmV0"}}}` + "\n\nevent: contentBlockStop\ndata: {\"contentBlockIndex\":1}",
					`{"contentBlockIndex":2,"start":{"toolUse":{"toolUseId":"tooluse_`,
					"event: contentBlockStop\ndata: {\"contentBlockIndex\":2}\n\n",
					`{"stopReason":"tool_use"}`,
				} {
					if !strings.Contains(got, want) {
						t.Errorf("%s\nlacks %s", got, want)
					}
				}
				if strings.Contains(got, "hidden") || strings.Contains(got, `"contentBlockIndex":3`) {
					t.Errorf("redacted text or an image block written:\n%s", got)
				}
				return
			}
			if got != tt.want {
				t.Errorf("got\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}

func TestStreamEncodeErrors(t *testing.T) {
	for _, tt := range []struct {
		err  *codec.Error
		want string
	}{
		{codec.NewError(mapping.ErrRateLimit, "slow"), "exception:throttlingException"},
		{codec.NewError(mapping.ErrInvalidRequest, "bad"), "exception:validationException"},
		{codec.NewError(mapping.ErrOverloaded, "busy"), "exception:serviceUnavailableException"},
		{codec.NewError(mapping.ErrPermission, "no"), "exception:internalServerException"},
		{&codec.Error{Kind: mapping.ErrAPI, Message: "m", Code: "ModelStreamErrorException", Protocol: codec.Bedrock}, "exception:modelStreamErrorException"},
		{&codec.Error{Kind: mapping.ErrPermission, Message: "m", Code: "AccessDeniedException", Protocol: codec.Bedrock}, "exception:internalServerException"},
	} {
		got := codectest.EncodeStream(codec.Bedrock, nil, []codec.Event{
			{Type: codec.EventStart},
			{Type: codec.EventPartStart, Part: codec.PartText},
			{Type: codec.EventPartDelta, Text: "partial"},
			{Type: codec.EventError, Err: tt.err},
			{Type: codec.EventEnd},
		})
		want := "event: " + tt.want + "\ndata: {\"message\":\"" + tt.err.Message + "\"}\n\n"
		if !strings.HasSuffix(got, want) || strings.Count(got, "event: ") != 3 {
			t.Errorf("got\n%s\nwant the end\n%s", got, want)
		}
	}
	// An end without any event still writes a whole message.
	if got := codectest.EncodeStream(codec.Bedrock, nil, []codec.Event{{Type: codec.EventEnd}}); !strings.HasPrefix(got, "event: messageStart") ||
		!strings.Contains(got, `{"stopReason":"end_turn"}`) {
		t.Errorf("bare end: %s", got)
	}
}

// TestStreamRoundTrip encodes canonical streams and decodes the result:
// what a Converse client assembles is what the upstream sent.
func TestStreamRoundTrip(t *testing.T) {
	resp := codec.Response{
		Content: []codec.Part{
			{Type: codec.PartReasoning, Text: "hm", Signature: "c2ln", Origin: mapping.FamilyAnthropic},
			{Type: codec.PartReasoning, Redacted: true, Signature: "c2VjcmV0", Origin: mapping.FamilyAnthropic},
			{Type: codec.PartReasoning, Text: "g", Signature: "Z2Vt", Origin: mapping.FamilyGemini},
			{Type: codec.PartText, Text: "Hello \"you\" é😀"},
			{Type: codec.PartToolCall, ToolCallID: "t1", ToolName: "f", Arguments: `{"a":[1,2]}`},
		},
		StopReason: mapping.StopToolUse,
		Usage:      codec.Usage{Known: true, InputTokens: 50, CacheReadTokens: 20, CacheWriteTokens: 5, OutputTokens: 9},
	}
	evs := codec.AppendResponseEvents(nil, &resp)
	sse := codectest.EncodeStream(codec.Bedrock, &codec.Request{Stream: true}, evs)
	got := codectest.DecodeStream(t, codec.Bedrock, sse, nil)
	codectest.CheckWellFormed(t, got)
	// The Gemini signature travels as an envelope, which the client's
	// replay turns back into the Gemini signature; the stream itself
	// carries it as Converse's own.
	want := "start\npart_start 0 reasoning\npart_delta 0 \"hm\"\npart_stop 0 c2ln@anthropic\npart_start 1 reasoning redacted\npart_stop 1 c2VjcmV0@anthropic\n" +
		"part_start 2 reasoning\npart_delta 2 \"g\"\npart_stop 2 " + envelope(mapping.FamilyGemini, "Z2Vt") + "@anthropic\n" +
		"part_start 3 text\npart_delta 3 \"Hello \\\"you\\\" é😀\"\npart_stop 3\npart_start 4 tool call t1 f\npart_delta 4 \"{\\\"a\\\":[1,2]}\"\npart_stop 4\n" +
		"stop tool_use\nusage 50/20/9\nend\n"
	if r := render(got); r != want {
		t.Errorf("got\n%s\nwant\n%s\n%s", r, want, sse)
	}

	// The non-streamed form round-trips too.
	body, err := codec.AppendResponse(nil, codec.Bedrock, &resp)
	if err != nil {
		t.Fatal(err)
	}
	var back codec.Response
	if err := codec.DecodeResponse(codec.Bedrock, body, &back); err != nil {
		t.Fatal(err)
	}
	resp.Content[2].Signature, resp.Content[2].Origin = envelope(mapping.FamilyGemini, "Z2Vt"), mapping.FamilyAnthropic
	if !codectest.EqualDecoded(back, resp) {
		t.Errorf("got\n%+v\nwant\n%+v", back, resp)
	}
}

func TestUpstreamPath(t *testing.T) {
	c := converseCodec{}
	for _, tt := range []struct {
		model  string
		stream bool
		want   string
	}{
		{"amazon.nova-pro-v1:0", false, "/model/amazon.nova-pro-v1%3A0/converse"},
		{"anthropic.claude-x", true, "/model/anthropic.claude-x/converse-stream"},
		{"arn:aws:bedrock:us-east-1:1:inference-profile/us.x", false, "/model/arn%3Aaws%3Abedrock%3Aus-east-1%3A1%3Ainference-profile%2Fus.x/converse"},
	} {
		if got, q := c.UpstreamPath(codec.Bedrock, codec.Location{}, tt.model, tt.stream); got != tt.want || q != "" {
			t.Errorf("%s: %s?%s", tt.model, got, q)
		}
	}
	if p, model, stream, ok := codec.MatchRoute("/model/us.anthropic.claude-x:0/converse-stream"); p != codec.Bedrock || model != "us.anthropic.claude-x:0" || !stream || !ok {
		t.Errorf("route %s %s %v %v", p, model, stream, ok)
	}
}

// TestStreamEncodeCases encodes the shared canonical streams, compares
// them with testdata/bedrock/stream_<name>.sse, decodes them back, and has
// the AWS SDK read them: a complete stream without an error, a failed one
// with the exception that ends it.
func TestStreamEncodeCases(t *testing.T) {
	for _, tt := range codectest.EncodeCases {
		t.Run(tt.Name, func(t *testing.T) {
			got := codectest.EncodeStream(codec.Bedrock, &tt.Req, tt.Evs)
			checkTextGolden(t, "bedrock/stream_"+tt.Name+".sse", got)
			back := codectest.Summarize(codectest.DecodeStream(t, codec.Bedrock, got, nil))
			want := codectest.Summarize(tt.Evs)
			// Converse names neither the response nor the model, has no
			// refusal part and no pause, and reports usage and a stop
			// reason always.
			want.ID, want.Model, want.Text, want.Refusal = "", "", want.Text+want.Refusal, ""
			if want.Complete {
				want.Stop = mapping.FromConverseStopReason(mapping.ConverseStopReason(want.Stop))
				if want.Stop == mapping.StopEnd && want.Tools != "" {
					want.Stop = mapping.StopToolUse
				}
				want.Usage.Known, want.Usage.ReasoningTokens = true, 0
			} else {
				// Usage goes in metadata, the last event, which a failed
				// stream never reaches.
				want.Usage = codec.Usage{}
			}
			if (back.Err == nil) != (want.Err == nil) || back.Err != nil && back.Err.Message != want.Err.Message {
				t.Errorf("error %v, want %v", back.Err, want.Err)
			}
			back.Err, want.Err = nil, nil
			if back != want {
				t.Errorf("round trip:\n got %+v\nwant %+v", back, want)
			}
			events, err := sdkStream(t, tt.Evs)
			if (err != nil) == want.Complete || want.Complete && len(events) == 0 {
				t.Errorf("the SDK read %d events and error %v", len(events), err)
			}
		})
	}
}
