package codec

import (
	"strings"
	"testing"

	"github.com/llmbridge/llmbridge/codec/internal/jsonx"
	"github.com/llmbridge/llmbridge/mapping"
	"github.com/tidwall/gjson"
)

// Tests of the Anthropic Messages stream encoder. anthropicEncodeCases is
// also used by usage_observer_test.go.

// anthropicEncodeCases are canonical streams for the encoder's golden files
// and round trips.
var anthropicEncodeCases = []struct {
	name string
	req  Request
	evs  []Event
}{
	{
		name: "text",
		req:  Request{Model: "claude-sonnet-4-5"},
		evs: []Event{
			{Type: EventStart, ID: "msg_01Test", Model: "claude-sonnet-4-5-20250929", Usage: Usage{Known: true, InputTokens: 60, CacheReadTokens: 40, CacheWriteTokens: 4, OutputTokens: 1}},
			{Type: EventPartStart, Index: 0, Part: PartText},
			{Type: EventPartDelta, Index: 0, Text: "Hello"},
			{Type: EventPartDelta, Index: 0, Text: ", \"world\"!\n\u2028<tab>\t"},
			{Type: EventPartStop, Index: 0},
			{Type: EventPartStart, Index: 1, Part: PartText},
			{Type: EventPartDelta, Index: 1, Text: "Second block."},
			{Type: EventPartStop, Index: 1},
			{Type: EventStop, StopReason: mapping.StopEnd},
			{Type: EventUsage, Usage: Usage{Known: true, InputTokens: 60, CacheReadTokens: 40, CacheWriteTokens: 4, OutputTokens: 12}},
			{Type: EventEnd},
		},
	},
	{
		// Chat style: text, then two parallel calls, the second without
		// argument fragments (its input stays {}).
		name: "tool_calls",
		req:  Request{Model: "gpt-4o"},
		evs: []Event{
			{Type: EventStart, ID: "chatcmpl-tools", Model: "gpt-4o-2024-08-06"},
			{Type: EventPartStart, Index: 0, Part: PartText},
			{Type: EventPartDelta, Index: 0, Text: "Checking."},
			{Type: EventPartStop, Index: 0},
			{Type: EventPartStart, Index: 1, Part: PartToolCall, ToolCallID: "call_abc", ToolName: "get_weather"},
			{Type: EventPartDelta, Index: 1, Text: `{"city":`},
			{Type: EventPartDelta, Index: 1, Text: `"Paris \"FR\""}`},
			{Type: EventPartStop, Index: 1},
			{Type: EventPartStart, Index: 2, Part: PartToolCall, ToolCallID: "call_def", ToolName: "get_time"},
			{Type: EventPartStop, Index: 2},
			{Type: EventStop, StopReason: mapping.StopToolUse},
			{Type: EventUsage, Usage: Usage{Known: true, InputTokens: 80, OutputTokens: 30}},
			{Type: EventEnd},
		},
	},
	{
		name: "refusal",
		req:  Request{Model: "gpt-4o"},
		evs: []Event{
			{Type: EventStart, ID: "resp_1", Model: "gpt-4o-2024-08-06"},
			{Type: EventPartStart, Index: 0, Part: PartRefusal},
			{Type: EventPartDelta, Index: 0, Text: "I'm sorry, I can't help with that."},
			{Type: EventPartStop, Index: 0},
			{Type: EventUsage, Usage: Usage{Known: true, InputTokens: 20, OutputTokens: 9}},
			{Type: EventStop, StopReason: mapping.StopRefusal},
			{Type: EventEnd},
		},
	},
	{
		name: "max_tokens",
		req:  Request{Model: "claude-x"},
		evs: []Event{
			{Type: EventStart, ID: "msg_max", Usage: Usage{Known: true, InputTokens: 10, OutputTokens: 1}},
			{Type: EventPartStart, Index: 0, Part: PartText},
			{Type: EventPartDelta, Index: 0, Text: "Once upon a"},
			{Type: EventPartStop, Index: 0},
			{Type: EventStop, StopReason: mapping.StopMaxTokens},
			{Type: EventUsage, Usage: Usage{Known: true, InputTokens: 10, OutputTokens: 3}},
			{Type: EventEnd},
		},
	},
	{
		name: "stop_sequence",
		req:  Request{Model: "claude-x"},
		evs: []Event{
			{Type: EventStart, ID: "msg_seq", Model: "claude-x-1", Usage: Usage{Known: true, InputTokens: 10, OutputTokens: 1}},
			{Type: EventPartStart, Index: 0, Part: PartText},
			{Type: EventPartDelta, Index: 0, Text: "1, 2, "},
			{Type: EventPartStop, Index: 0},
			{Type: EventStop, StopReason: mapping.StopSequence, StopSequence: "3"},
			{Type: EventUsage, Usage: Usage{Known: true, InputTokens: 10, OutputTokens: 5}},
			{Type: EventEnd},
		},
	},
	{
		// Gemini style: cumulative usage on every chunk, then the stop.
		name: "usage_before_stop",
		req:  Request{Model: "gemini-2.5-flash"},
		evs: []Event{
			{Type: EventStart, ID: "resp-gem", Model: "gemini-2.5-flash"},
			{Type: EventPartStart, Index: 0, Part: PartText},
			{Type: EventPartDelta, Index: 0, Text: "Hi"},
			{Type: EventUsage, Usage: Usage{Known: true, InputTokens: 8, CacheReadTokens: 2, OutputTokens: 1}},
			{Type: EventPartDelta, Index: 0, Text: " there"},
			{Type: EventUsage, Usage: Usage{Known: true, InputTokens: 8, CacheReadTokens: 2, OutputTokens: 30, ReasoningTokens: 27}},
			{Type: EventPartStop, Index: 0},
			{Type: EventStop, StopReason: mapping.StopEnd},
			{Type: EventEnd},
		},
	},
	{
		// Chat style: the finish reason, then the include_usage chunk.
		name: "usage_after_stop",
		req:  Request{Model: "gpt-4o"},
		evs: []Event{
			{Type: EventStart, ID: "chatcmpl-1", Model: "gpt-4o-2024-08-06", Created: 1700000000},
			{Type: EventPartStart, Index: 0, Part: PartText},
			{Type: EventPartDelta, Index: 0, Text: "Hi"},
			{Type: EventPartStop, Index: 0},
			{Type: EventStop, StopReason: mapping.StopEnd},
			{Type: EventUsage, Usage: Usage{Known: true, InputTokens: 1200, CacheReadTokens: 1024, OutputTokens: 2}},
			{Type: EventEnd},
		},
	},
	{
		name: "error_mid_stream",
		req:  Request{Model: "claude-x"},
		evs: []Event{
			{Type: EventStart, ID: "msg_err", Model: "claude-x-1", Usage: Usage{Known: true, InputTokens: 10, OutputTokens: 1}},
			{Type: EventPartStart, Index: 0, Part: PartText},
			{Type: EventPartDelta, Index: 0, Text: "Partial"},
			{Type: EventError, Err: &Error{Status: 529, Kind: mapping.ErrOverloaded, Message: "Overloaded", Code: "overloaded_error", Protocol: AnthropicMessages}},
		},
	},
	{
		name: "error_before_content",
		req:  Request{Model: "gpt-4o"},
		evs: []Event{
			{Type: EventStart, ID: "resp_2", Model: "gpt-4o"},
			{Type: EventError, Err: &Error{Status: 429, Kind: mapping.ErrRateLimit, Message: "Rate limit reached", Code: "rate_limit_exceeded", Protocol: OpenAIResponses}},
		},
	},
	{
		name: "error_before_start",
		req:  Request{Model: "gemini-2.5-flash"},
		evs: []Event{
			{Type: EventError, Err: &Error{Status: 503, Kind: mapping.ErrOverloaded, Message: "The model is overloaded.", Code: "UNAVAILABLE", Protocol: Gemini}},
		},
	},
	{
		name: "truncated_upstream",
		req:  Request{Model: "claude-x"},
		evs: []Event{
			{Type: EventStart, ID: "msg_cut", Model: "claude-x-1", Usage: Usage{Known: true, InputTokens: 10, OutputTokens: 1}},
			{Type: EventPartStart, Index: 0, Part: PartText},
			{Type: EventPartDelta, Index: 0, Text: "Par"},
			{Type: EventError, Err: truncated(OpenAIChat, errTestBroken)},
		},
	},
	{
		name: "empty",
		req:  Request{Model: "claude-x"},
		evs: []Event{
			{Type: EventStart, ID: "msg_empty", Model: "claude-x-1", Usage: Usage{Known: true, InputTokens: 10, OutputTokens: 1}},
			{Type: EventStop, StopReason: mapping.StopEnd},
			{Type: EventUsage, Usage: Usage{Known: true, InputTokens: 10, OutputTokens: 1}},
			{Type: EventEnd},
		},
	},
}

func TestAnthropicStreamEncodeGolden(t *testing.T) {
	for _, tt := range anthropicEncodeCases {
		t.Run(tt.name, func(t *testing.T) {
			checkWellFormed(t, tt.evs)
			got := encodeStream(AnthropicMessages, &tt.req, tt.evs)
			anthropicCheckSSE(t, got)
			anthropicCheckSSEGolden(t, tt.name, []byte(got))
			// vertex-anthropic clients get the same stream.
			if v := encodeStream(VertexAnthropic, &tt.req, tt.evs); v != got {
				t.Errorf("vertex-anthropic stream differs:\n%s", v)
			}
		})
	}
}

// anthropicExpectRoundTrip is what an Anthropic client is expected to end
// up with for a canonical stream: refusals are text, stop reasons are
// normalised by the Anthropic mapping, usage is always known once the
// stream completes, and errors keep their Anthropic type's status.
func anthropicExpectRoundTrip(evs []Event) streamSummary {
	s := summarize(evs)
	s.Text += s.Refusal
	s.Refusal = ""
	if s.Complete {
		s.Stop = mapping.FromAnthropicStopReason(mapping.AnthropicStopReason(s.Stop))
		s.Usage.Known = true
	}
	return s
}

func TestAnthropicStreamRoundTrip(t *testing.T) {
	for _, tt := range anthropicEncodeCases {
		t.Run(tt.name, func(t *testing.T) {
			body := encodeStream(AnthropicMessages, &tt.req, tt.evs)
			evs := anthropicDecode(t, AnthropicMessages, body, nil)
			checkWellFormed(t, evs)
			got, want := summarize(evs), anthropicExpectRoundTrip(tt.evs)
			if tt.evs[0].Type == EventStart {
				if want.ID == "" {
					want.ID = got.ID
				}
				if want.Model == "" {
					want.Model = tt.req.Model
				}
				if !want.Usage.Known {
					want.Usage = Usage{Known: true} // message_start always carries usage
				}
			}
			if want.Err != nil {
				if got.Err == nil || got.Err.Kind != want.Err.Kind && want.Err.Kind != mapping.ErrBadGateway ||
					got.Err.Message != want.Err.Message || got.Err.Code != mapping.AnthropicErrorType(want.Err.Kind) && got.Err.Code != want.Err.Code {
					t.Errorf("error %+v, want %+v", got.Err, want.Err)
				}
				got.Err, want.Err = nil, nil
			}
			if got != want {
				t.Errorf("round trip:\n got %+v\nwant %+v", got, want)
			}
		})
	}
}

func TestAnthropicStreamEncoder(t *testing.T) {
	t.Run("generated id, model from the request, unknown usage", func(t *testing.T) {
		out := encodeStream(AnthropicMessages, &Request{Model: "req-model"}, []Event{
			{Type: EventStart},
			{Type: EventPartStart, Part: PartText},
			{Type: EventPartDelta, Text: "x"},
			{Type: EventPartStop},
			{Type: EventEnd},
		})
		anthropicCheckSSE(t, out)
		start := anthropicReadEvents(t, out)[0].data
		id := gjson.Get(start, "message.id").Str
		if !strings.HasPrefix(id, "msg_") || len(id) != 28 || gjson.Get(start, "message.model").Str != "req-model" {
			t.Errorf("message_start %s", start)
		}
		if u := gjson.Get(start, "message.usage").Raw; u != `{"input_tokens":0,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":0}` {
			t.Errorf("usage at start %s", u)
		}
		// No stop reason from the upstream: null, never an invented one.
		if !strings.Contains(out, `"delta":{"stop_reason":null,"stop_sequence":null},"usage":{"output_tokens":0}}`) {
			t.Errorf("message_delta without usage or stop reason:\n%s", out)
		}
	})
	t.Run("events before EventStart, delta without part start, duplicate start", func(t *testing.T) {
		out := encodeStream(VertexAnthropic, nil, []Event{
			{Type: EventUsage, Usage: Usage{Known: true, InputTokens: 3}},
			{Type: EventPartDelta, Text: "a"},
			{Type: EventPartDelta, Text: ""},
			{Type: EventStart, ID: "ignored"},
			{Type: EventPartStart, Index: 1, Part: PartRefusal},
			{Type: EventPartDelta, Index: 1, Text: "b"},
			{Type: EventStop, StopReason: mapping.StopContentFilter},
			{Type: EventType(200)}, // unknown event types encode nothing
			{Type: EventEnd},
			{Type: EventPartDelta, Text: "after the end"},
			{Type: EventError, Err: &Error{Message: "after the end"}},
		})
		anthropicCheckSSE(t, out)
		evs := anthropicDecode(t, VertexAnthropic, out, nil)
		want := `part_start(0,0) delta(0,"a") part_stop(0) part_start(1,0) delta(1,"b") part_stop(1) stop(refusal,"") usage(3/0/0/0/0) end`
		if got := anthropicFormat(evs[1:]); got != want {
			t.Errorf("got %s\nwant %s", got, want)
		}
		if evs[0].ID == "ignored" || evs[0].Model != "" {
			t.Errorf("start %+v", evs[0])
		}
	})
	t.Run("end without start", func(t *testing.T) {
		out := encodeStream(AnthropicMessages, &Request{Model: "m"}, []Event{{Type: EventEnd}})
		anthropicCheckSSE(t, out)
		if s := summarize(anthropicDecode(t, AnthropicMessages, out, nil)); !s.Complete || s.Text != "" || s.Model != "m" {
			t.Errorf("%+v", s)
		}
	})
	t.Run("error without Err, nothing after it", func(t *testing.T) {
		out := encodeStream(AnthropicMessages, &Request{}, []Event{
			{Type: EventStart, ID: "msg_x"},
			{Type: EventPartStart},
			{Type: EventError},
			{Type: EventEnd},
		})
		anthropicCheckSSE(t, out)
		if !strings.HasSuffix(out, "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n"+
			"event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"api_error\",\"message\":\"upstream stream failed\"}}\n\n") {
			t.Errorf("got\n%s", out)
		}
	})
	t.Run("stop sequence is copied", func(t *testing.T) {
		seq := []byte("STOP")
		enc := streamEncoder(AnthropicMessages, &Request{})
		var dst []byte
		dst = enc.Encode(dst, &Event{Type: EventStart, ID: "msg_s"})
		dst = enc.Encode(dst, &Event{Type: EventStop, StopReason: mapping.StopSequence, StopSequence: jsonx.BytesToString(seq)})
		copy(seq, "XXXX") // the decoder's buffer is reused
		dst = enc.Encode(dst, &Event{Type: EventEnd})
		if !strings.Contains(string(dst), `"stop_sequence":"STOP"`) {
			t.Errorf("got\n%s", dst)
		}
	})
}

// TestAnthropicStreamEncodeToolEdges checks that a tool call without an id
// gets a toolu_ one and that a part Anthropic cannot stream (an image, a
// tool call without a name) ends the stream with an error event.
func TestAnthropicStreamEncodeToolEdges(t *testing.T) {
	out := encodeStream(AnthropicMessages, &Request{Model: "m"}, []Event{
		{Type: EventStart, ID: "msg_1"},
		{Type: EventPartStart, Part: PartToolCall, ToolName: "f"},
		{Type: EventPartStop},
		{Type: EventEnd},
	})
	anthropicCheckSSE(t, out)
	block := gjson.Get(anthropicReadEvents(t, out)[1].data, "content_block")
	if !strings.HasPrefix(block.Get("id").Str, "toolu_") || block.Get("name").Str != "f" || block.Get("input").Raw != "{}" {
		t.Errorf("content_block %s", block.Raw)
	}
	for _, ev := range []Event{
		{Type: EventPartStart, Part: PartImage},
		{Type: EventPartStart, Part: PartToolCall, ToolCallID: "call_1"},
	} {
		out := encodeStream(AnthropicMessages, &Request{Model: "m"}, []Event{{Type: EventStart, ID: "msg_1"}, ev, {Type: EventPartStop}, {Type: EventEnd}})
		anthropicCheckSSE(t, out)
		evs := anthropicReadEvents(t, out)
		if last := evs[len(evs)-1]; last.name != "error" || !strings.Contains(last.data, "cannot be expressed") {
			t.Errorf("stream %s", out)
		}
	}
}
