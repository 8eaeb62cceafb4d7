package anthropic

import (
	"strings"
	"testing"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/codectest"
	"github.com/llmbridge/llmbridge/codec/internal/jsonx"
	"github.com/llmbridge/llmbridge/mapping"
	"github.com/tidwall/gjson"
)

func TestAnthropicStreamEncodeGolden(t *testing.T) {
	for _, tt := range codectest.EncodeCases {
		t.Run(tt.Name, func(t *testing.T) {
			codectest.CheckWellFormed(t, tt.Evs)
			got := codectest.EncodeStream(codec.AnthropicMessages, &tt.Req, tt.Evs)
			checkSSE(t, got)
			checkSSEGolden(t, tt.Name, []byte(got))
			// vertex-anthropic clients get the same stream.
			if v := codectest.EncodeStream(codec.VertexAnthropic, &tt.Req, tt.Evs); v != got {
				t.Errorf("vertex-anthropic stream differs:\n%s", v)
			}
		})
	}
}

// expectRoundTrip is what an Anthropic client is expected to end
// up with for a canonical stream: refusals are text, stop reasons are
// normalised by the Anthropic mapping, usage is always known once the
// stream completes, and errors keep their Anthropic type's status.
func expectRoundTrip(evs []codec.Event) codectest.StreamSummary {
	s := codectest.Summarize(evs)
	s.Text += s.Refusal
	s.Refusal = ""
	if s.Complete {
		s.Stop = mapping.FromAnthropicStopReason(mapping.AnthropicStopReason(s.Stop))
		s.Usage.Known = true
	}
	return s
}

func TestAnthropicStreamRoundTrip(t *testing.T) {
	for _, tt := range codectest.EncodeCases {
		t.Run(tt.Name, func(t *testing.T) {
			body := codectest.EncodeStream(codec.AnthropicMessages, &tt.Req, tt.Evs)
			evs := decode(t, codec.AnthropicMessages, body, nil)
			codectest.CheckWellFormed(t, evs)
			got, want := codectest.Summarize(evs), expectRoundTrip(tt.Evs)
			if tt.Evs[0].Type == codec.EventStart {
				if want.ID == "" {
					want.ID = got.ID
				}
				if want.Model == "" {
					want.Model = tt.Req.Model
				}
				if !want.Usage.Known {
					want.Usage = codec.Usage{Known: true} // message_start always carries usage
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
	t.Run("Bedrock invocation metrics in message_stop", func(t *testing.T) {
		evs := []codec.Event{
			{Type: codec.EventStart, Usage: codec.Usage{Known: true, InputTokens: 30, CacheReadTokens: 10}},
			{Type: codec.EventPartStart, Part: codec.PartText},
			{Type: codec.EventPartDelta, Text: "x"},
			{Type: codec.EventPartStop},
			{Type: codec.EventUsage, Usage: codec.Usage{Known: true, InputTokens: 30, CacheReadTokens: 10, OutputTokens: 7}},
			{Type: codec.EventEnd, Latency: codec.Latency{InvocationMs: 1307, FirstByteMs: 1100}},
		}
		for _, tc := range []struct {
			p    codec.Protocol
			want string
		}{
			// inputTokenCount is Anthropic's input_tokens: the
			// uncached part, as Bedrock reports it.
			{codec.BedrockAnthropic, `{"type":"message_stop","amazon-bedrock-invocationMetrics":{"inputTokenCount":20,"outputTokenCount":7,"invocationLatency":1307,"firstByteLatency":1100}}`},
			{codec.AnthropicMessages, `{"type":"message_stop"}`},
			{codec.VertexAnthropic, `{"type":"message_stop"}`},
		} {
			out := codectest.EncodeStream(tc.p, nil, evs)
			ev := readEvents(t, out)
			if last := ev[len(ev)-1]; last.data != tc.want {
				t.Errorf("%s: message_stop %s, want %s", tc.p, last.data, tc.want)
			}
		}
	})
	t.Run("generated id, model from the request, unknown usage", func(t *testing.T) {
		out := codectest.EncodeStream(codec.AnthropicMessages, &codec.Request{Model: "req-model"}, []codec.Event{
			{Type: codec.EventStart},
			{Type: codec.EventPartStart, Part: codec.PartText},
			{Type: codec.EventPartDelta, Text: "x"},
			{Type: codec.EventPartStop},
			{Type: codec.EventEnd},
		})
		checkSSE(t, out)
		start := readEvents(t, out)[0].data
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
		out := codectest.EncodeStream(codec.VertexAnthropic, nil, []codec.Event{
			{Type: codec.EventUsage, Usage: codec.Usage{Known: true, InputTokens: 3}},
			{Type: codec.EventPartDelta, Text: "a"},
			{Type: codec.EventPartDelta, Text: ""},
			{Type: codec.EventStart, ID: "ignored"},
			{Type: codec.EventPartStart, Index: 1, Part: codec.PartRefusal},
			{Type: codec.EventPartDelta, Index: 1, Text: "b"},
			{Type: codec.EventStop, StopReason: mapping.StopContentFilter},
			{Type: codec.EventType(200)}, // unknown event types encode nothing
			{Type: codec.EventEnd},
			{Type: codec.EventPartDelta, Text: "after the end"},
			{Type: codec.EventError, Err: &codec.Error{Message: "after the end"}},
		})
		checkSSE(t, out)
		evs := decode(t, codec.VertexAnthropic, out, nil)
		want := `part_start(0,0) delta(0,"a") part_stop(0) part_start(1,0) delta(1,"b") part_stop(1) stop(refusal,"") usage(3/0/0/0/0) end`
		if got := format(evs[1:]); got != want {
			t.Errorf("got %s\nwant %s", got, want)
		}
		if evs[0].ID == "ignored" || evs[0].Model != "" {
			t.Errorf("start %+v", evs[0])
		}
	})
	t.Run("end without start", func(t *testing.T) {
		out := codectest.EncodeStream(codec.AnthropicMessages, &codec.Request{Model: "m"}, []codec.Event{{Type: codec.EventEnd}})
		checkSSE(t, out)
		if s := codectest.Summarize(decode(t, codec.AnthropicMessages, out, nil)); !s.Complete || s.Text != "" || s.Model != "m" {
			t.Errorf("%+v", s)
		}
	})
	t.Run("error without Err, nothing after it", func(t *testing.T) {
		out := codectest.EncodeStream(codec.AnthropicMessages, &codec.Request{}, []codec.Event{
			{Type: codec.EventStart, ID: "msg_x"},
			{Type: codec.EventPartStart},
			{Type: codec.EventError},
			{Type: codec.EventEnd},
		})
		checkSSE(t, out)
		if !strings.HasSuffix(out, "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n"+
			"event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"api_error\",\"message\":\"upstream stream failed\"}}\n\n") {
			t.Errorf("got\n%s", out)
		}
	})
	t.Run("stop sequence is copied", func(t *testing.T) {
		seq := []byte("STOP")
		enc := codectest.StreamEncoder(codec.AnthropicMessages, &codec.Request{})
		var dst []byte
		dst = enc.Encode(dst, &codec.Event{Type: codec.EventStart, ID: "msg_s"})
		dst = enc.Encode(dst, &codec.Event{Type: codec.EventStop, StopReason: mapping.StopSequence, StopSequence: jsonx.BytesToString(seq)})
		copy(seq, "XXXX") // the decoder's buffer is reused
		dst = enc.Encode(dst, &codec.Event{Type: codec.EventEnd})
		if !strings.Contains(string(dst), `"stop_sequence":"STOP"`) {
			t.Errorf("got\n%s", dst)
		}
	})
}

// TestAnthropicStreamEncodeToolEdges checks that a tool call without an id
// gets a toolu_ one and that a part Anthropic cannot stream (an image, a
// tool call without a name) ends the stream with an error event.
func TestAnthropicStreamEncodeToolEdges(t *testing.T) {
	out := codectest.EncodeStream(codec.AnthropicMessages, &codec.Request{Model: "m"}, []codec.Event{
		{Type: codec.EventStart, ID: "msg_1"},
		{Type: codec.EventPartStart, Part: codec.PartToolCall, ToolName: "f"},
		{Type: codec.EventPartStop},
		{Type: codec.EventEnd},
	})
	checkSSE(t, out)
	block := gjson.Get(readEvents(t, out)[1].data, "content_block")
	if !strings.HasPrefix(block.Get("id").Str, "toolu_") || block.Get("name").Str != "f" || block.Get("input").Raw != "{}" {
		t.Errorf("content_block %s", block.Raw)
	}
	for _, ev := range []codec.Event{
		{Type: codec.EventPartStart, Part: codec.PartImage},
		{Type: codec.EventPartStart, Part: codec.PartToolCall, ToolCallID: "call_1"},
	} {
		out := codectest.EncodeStream(codec.AnthropicMessages, &codec.Request{Model: "m"}, []codec.Event{{Type: codec.EventStart, ID: "msg_1"}, ev, {Type: codec.EventPartStop}, {Type: codec.EventEnd}})
		checkSSE(t, out)
		evs := readEvents(t, out)
		if last := evs[len(evs)-1]; last.name != "error" || !strings.Contains(last.data, "cannot be expressed") {
			t.Errorf("stream %s", out)
		}
	}
}
