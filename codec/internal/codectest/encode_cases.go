package codectest

import (
	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/wire"
	"github.com/llmbridge/llmbridge/mapping"
)

// EncodeCases are canonical streams for the encoder's golden files
// and round trips.
var EncodeCases = []struct {
	Name string
	Req  codec.Request
	Evs  []codec.Event
}{
	{
		Name: "text",
		Req:  codec.Request{Model: "claude-sonnet-4-5"},
		Evs: []codec.Event{
			{Type: codec.EventStart, ID: "msg_01Test", Model: "claude-sonnet-4-5-20250929", Usage: codec.Usage{Known: true, InputTokens: 60, CacheReadTokens: 40, CacheWriteTokens: 4, OutputTokens: 1}},
			{Type: codec.EventPartStart, Index: 0, Part: codec.PartText},
			{Type: codec.EventPartDelta, Index: 0, Text: "Hello"},
			{Type: codec.EventPartDelta, Index: 0, Text: ", \"world\"!\n\u2028<tab>\t"},
			{Type: codec.EventPartStop, Index: 0},
			{Type: codec.EventPartStart, Index: 1, Part: codec.PartText},
			{Type: codec.EventPartDelta, Index: 1, Text: "Second block."},
			{Type: codec.EventPartStop, Index: 1},
			{Type: codec.EventStop, StopReason: mapping.StopEnd},
			{Type: codec.EventUsage, Usage: codec.Usage{Known: true, InputTokens: 60, CacheReadTokens: 40, CacheWriteTokens: 4, OutputTokens: 12}},
			{Type: codec.EventEnd},
		},
	},
	{
		// Chat style: text, then two parallel calls, the second without
		// argument fragments (its input stays {}).
		Name: "tool_calls",
		Req:  codec.Request{Model: "gpt-4o"},
		Evs: []codec.Event{
			{Type: codec.EventStart, ID: "chatcmpl-tools", Model: "gpt-4o-2024-08-06"},
			{Type: codec.EventPartStart, Index: 0, Part: codec.PartText},
			{Type: codec.EventPartDelta, Index: 0, Text: "Checking."},
			{Type: codec.EventPartStop, Index: 0},
			{Type: codec.EventPartStart, Index: 1, Part: codec.PartToolCall, ToolCallID: "call_abc", ToolName: "get_weather"},
			{Type: codec.EventPartDelta, Index: 1, Text: `{"city":`},
			{Type: codec.EventPartDelta, Index: 1, Text: `"Paris \"FR\""}`},
			{Type: codec.EventPartStop, Index: 1},
			{Type: codec.EventPartStart, Index: 2, Part: codec.PartToolCall, ToolCallID: "call_def", ToolName: "get_time"},
			{Type: codec.EventPartStop, Index: 2},
			{Type: codec.EventStop, StopReason: mapping.StopToolUse},
			{Type: codec.EventUsage, Usage: codec.Usage{Known: true, InputTokens: 80, OutputTokens: 30}},
			{Type: codec.EventEnd},
		},
	},
	{
		Name: "refusal",
		Req:  codec.Request{Model: "gpt-4o"},
		Evs: []codec.Event{
			{Type: codec.EventStart, ID: "resp_1", Model: "gpt-4o-2024-08-06"},
			{Type: codec.EventPartStart, Index: 0, Part: codec.PartRefusal},
			{Type: codec.EventPartDelta, Index: 0, Text: "I'm sorry, I can't help with that."},
			{Type: codec.EventPartStop, Index: 0},
			{Type: codec.EventUsage, Usage: codec.Usage{Known: true, InputTokens: 20, OutputTokens: 9}},
			{Type: codec.EventStop, StopReason: mapping.StopRefusal},
			{Type: codec.EventEnd},
		},
	},
	{
		Name: "max_tokens",
		Req:  codec.Request{Model: "claude-x"},
		Evs: []codec.Event{
			{Type: codec.EventStart, ID: "msg_max", Usage: codec.Usage{Known: true, InputTokens: 10, OutputTokens: 1}},
			{Type: codec.EventPartStart, Index: 0, Part: codec.PartText},
			{Type: codec.EventPartDelta, Index: 0, Text: "Once upon a"},
			{Type: codec.EventPartStop, Index: 0},
			{Type: codec.EventStop, StopReason: mapping.StopMaxTokens},
			{Type: codec.EventUsage, Usage: codec.Usage{Known: true, InputTokens: 10, OutputTokens: 3}},
			{Type: codec.EventEnd},
		},
	},
	{
		Name: "stop_sequence",
		Req:  codec.Request{Model: "claude-x"},
		Evs: []codec.Event{
			{Type: codec.EventStart, ID: "msg_seq", Model: "claude-x-1", Usage: codec.Usage{Known: true, InputTokens: 10, OutputTokens: 1}},
			{Type: codec.EventPartStart, Index: 0, Part: codec.PartText},
			{Type: codec.EventPartDelta, Index: 0, Text: "1, 2, "},
			{Type: codec.EventPartStop, Index: 0},
			{Type: codec.EventStop, StopReason: mapping.StopSequence, StopSequence: "3"},
			{Type: codec.EventUsage, Usage: codec.Usage{Known: true, InputTokens: 10, OutputTokens: 5}},
			{Type: codec.EventEnd},
		},
	},
	{
		// Gemini style: cumulative usage on every chunk, then the stop.
		Name: "usage_before_stop",
		Req:  codec.Request{Model: "gemini-2.5-flash"},
		Evs: []codec.Event{
			{Type: codec.EventStart, ID: "resp-gem", Model: "gemini-2.5-flash"},
			{Type: codec.EventPartStart, Index: 0, Part: codec.PartText},
			{Type: codec.EventPartDelta, Index: 0, Text: "Hi"},
			{Type: codec.EventUsage, Usage: codec.Usage{Known: true, InputTokens: 8, CacheReadTokens: 2, OutputTokens: 1}},
			{Type: codec.EventPartDelta, Index: 0, Text: " there"},
			{Type: codec.EventUsage, Usage: codec.Usage{Known: true, InputTokens: 8, CacheReadTokens: 2, OutputTokens: 30, ReasoningTokens: 27}},
			{Type: codec.EventPartStop, Index: 0},
			{Type: codec.EventStop, StopReason: mapping.StopEnd},
			{Type: codec.EventEnd},
		},
	},
	{
		// Chat style: the finish reason, then the include_usage chunk.
		Name: "usage_after_stop",
		Req:  codec.Request{Model: "gpt-4o"},
		Evs: []codec.Event{
			{Type: codec.EventStart, ID: "chatcmpl-1", Model: "gpt-4o-2024-08-06", Created: 1700000000},
			{Type: codec.EventPartStart, Index: 0, Part: codec.PartText},
			{Type: codec.EventPartDelta, Index: 0, Text: "Hi"},
			{Type: codec.EventPartStop, Index: 0},
			{Type: codec.EventStop, StopReason: mapping.StopEnd},
			{Type: codec.EventUsage, Usage: codec.Usage{Known: true, InputTokens: 1200, CacheReadTokens: 1024, OutputTokens: 2}},
			{Type: codec.EventEnd},
		},
	},
	{
		Name: "error_mid_stream",
		Req:  codec.Request{Model: "claude-x"},
		Evs: []codec.Event{
			{Type: codec.EventStart, ID: "msg_err", Model: "claude-x-1", Usage: codec.Usage{Known: true, InputTokens: 10, OutputTokens: 1}},
			{Type: codec.EventPartStart, Index: 0, Part: codec.PartText},
			{Type: codec.EventPartDelta, Index: 0, Text: "Partial"},
			{Type: codec.EventError, Err: &codec.Error{Status: 529, Kind: mapping.ErrOverloaded, Message: "Overloaded", Code: "overloaded_error", Protocol: codec.AnthropicMessages}},
		},
	},
	{
		Name: "error_before_content",
		Req:  codec.Request{Model: "gpt-4o"},
		Evs: []codec.Event{
			{Type: codec.EventStart, ID: "resp_2", Model: "gpt-4o"},
			{Type: codec.EventError, Err: &codec.Error{Status: 429, Kind: mapping.ErrRateLimit, Message: "Rate limit reached", Code: "rate_limit_exceeded", Protocol: codec.OpenAIResponses}},
		},
	},
	{
		Name: "error_before_start",
		Req:  codec.Request{Model: "gemini-2.5-flash"},
		Evs: []codec.Event{
			{Type: codec.EventError, Err: &codec.Error{Status: 503, Kind: mapping.ErrOverloaded, Message: "The model is overloaded.", Code: "UNAVAILABLE", Protocol: codec.Gemini}},
		},
	},
	{
		Name: "truncated_upstream",
		Req:  codec.Request{Model: "claude-x"},
		Evs: []codec.Event{
			{Type: codec.EventStart, ID: "msg_cut", Model: "claude-x-1", Usage: codec.Usage{Known: true, InputTokens: 10, OutputTokens: 1}},
			{Type: codec.EventPartStart, Index: 0, Part: codec.PartText},
			{Type: codec.EventPartDelta, Index: 0, Text: "Par"},
			{Type: codec.EventError, Err: wire.Truncated(codec.OpenAIChat, ErrTestBroken)},
		},
	},
	{
		Name: "empty",
		Req:  codec.Request{Model: "claude-x"},
		Evs: []codec.Event{
			{Type: codec.EventStart, ID: "msg_empty", Model: "claude-x-1", Usage: codec.Usage{Known: true, InputTokens: 10, OutputTokens: 1}},
			{Type: codec.EventStop, StopReason: mapping.StopEnd},
			{Type: codec.EventUsage, Usage: codec.Usage{Known: true, InputTokens: 10, OutputTokens: 1}},
			{Type: codec.EventEnd},
		},
	},
}
