package codec_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/interactions"
	"github.com/llmbridge/llmbridge/codec/internal/codectest"
	"github.com/llmbridge/llmbridge/codec/internal/wire"
	"github.com/llmbridge/llmbridge/sse"
	"github.com/tidwall/gjson"
)

// stopCase is one finished upstream answer: the upstream's wire stop value
// (Anthropic stop_reason, Chat finish_reason, Gemini finishReason, or a
// Responses status with its incomplete_details.reason) and what its output
// holds.
type stopCase struct {
	// value is the stop_reason, finish_reason or finishReason; for
	// Responses, the status.
	value string
	// reason is a Responses incomplete_details.reason ("" for none).
	reason string
	out    OutputKind
}

func (c stopCase) String() string {
	kind := [...]string{"text", "tool call", "refusal"}[c.out]
	if c.reason != "" {
		return c.value + "/" + c.reason + " with " + kind
	}
	return c.value + " with " + kind
}

// stopCases lists, per upstream family, every stop value the family
// defines and one it does not, with the outputs it can carry: a finished
// answer always has a stop value, so the tables' "no reason yet" rows
// (chunks before the last) have no case here. Responses adds the statuses
// without a stop reason: failed, cancelled, queued, in_progress and an
// incomplete reason the API does not define. An Anthropic answer with tool
// calls ends with tool_use, or max_tokens when the call was cut.
func stopCases(family codec.Protocol) []stopCase {
	var cases []stopCase
	each := func(values []string, outs ...OutputKind) {
		for _, v := range values {
			for _, o := range outs {
				cases = append(cases, stopCase{value: v, out: o})
			}
		}
	}
	switch family {
	case interactions.Gemini:
		cases = interactionsStopCases()
	case codec.AnthropicMessages:
		each([]string{"end_turn", "stop_sequence", "tool_use", "pause_turn", "max_tokens", "refusal",
			"model_context_window_exceeded", "brand_new"}, OutputText)
		each([]string{"tool_use", "max_tokens"}, OutputToolCall)
	case codec.Bedrock:
		each([]string{"end_turn", "tool_use", "max_tokens", "stop_sequence", "guardrail_intervened", "content_filtered",
			"model_context_window_exceeded", "malformed_model_output", "malformed_tool_use", "brand_new"}, OutputText, OutputToolCall)
	case codec.OpenAIChat:
		each([]string{"stop", "length", "tool_calls", "function_call", "content_filter", "brand_new"},
			OutputText, OutputToolCall, OutputRefusal)
	case codec.Gemini:
		each([]string{"STOP", "MAX_TOKENS", "SAFETY", "RECITATION", "LANGUAGE", "OTHER", "BLOCKLIST",
			"PROHIBITED_CONTENT", "SPII", "MALFORMED_FUNCTION_CALL", "IMAGE_SAFETY", "UNEXPECTED_TOOL_CALL",
			"TOO_MANY_TOOL_CALLS", "IMAGE_PROHIBITED_CONTENT", "NO_IMAGE", "IMAGE_RECITATION", "IMAGE_OTHER",
			"FINISH_REASON_UNSPECIFIED", "MODEL_ARMOR"}, OutputText, OutputToolCall)
	case codec.OpenAIResponses:
		for _, st := range [][2]string{{"completed", ""}, {"incomplete", "max_output_tokens"},
			{"incomplete", "content_filter"}, {"incomplete", ""}, {"incomplete", "brand_new"},
			{"failed", ""}, {"cancelled", ""}, {"queued", ""}, {"in_progress", ""}} {
			for _, o := range []OutputKind{OutputText, OutputToolCall, OutputRefusal} {
				cases = append(cases, stopCase{value: st[0], reason: st[1], out: o})
			}
		}
	}
	return cases
}

// pairStop is what the pair tables (stop_pairs_tables_test.go) give a client of
// family client for case c from upstream family up: the client's stop
// value (for Responses "status" or "status/reason"), whether there is one,
// and whether the answer is an upstream failure (an error to the client).
func pairStop(up, client codec.Protocol, c stopCase) (want string, ok, failure bool) {
	joined := func(status, reason string, _ bool) string {
		if reason != "" {
			return status + "/" + reason
		}
		return status
	}
	if up == interactions.Gemini || client == interactions.Gemini {
		return interactionsPairStop(up, client, c)
	}
	if client == codec.Bedrock {
		switch up {
		case codec.AnthropicMessages:
			v, _ := AnthropicToConverseStopReason(c.value)
			return v, true, false
		case codec.OpenAIChat:
			v, _ := ChatToConverseStopReason(c.value, c.out)
			return v, true, false
		case codec.Gemini:
			v, _ := GeminiToConverseStopReason(c.value, c.out)
			return v, true, false
		case codec.OpenAIResponses:
			want, ok, _ = ResponsesToConverseStopReason(c.value, c.reason, c.out)
			return want, ok, c.value == "failed"
		}
	}
	switch up {
	case codec.Bedrock:
		switch client {
		case codec.AnthropicMessages:
			v, _ := ConverseToAnthropicStopReason(c.value, c.out)
			return v, true, false
		case codec.OpenAIChat:
			v, _ := ConverseToChatFinishReason(c.value, c.out)
			return v, true, false
		case codec.Gemini:
			v, _ := ConverseToGeminiFinishReason(c.value)
			return v, true, false
		case codec.OpenAIResponses:
			return joined(ConverseToResponsesStatus(c.value)), true, false
		}
	case codec.AnthropicMessages:
		switch client {
		case codec.OpenAIResponses:
			return joined(AnthropicToResponsesStatus(c.value)), true, false
		case codec.OpenAIChat:
			v, _ := AnthropicToChatFinishReason(c.value)
			return v, true, false
		case codec.Gemini:
			v, _ := AnthropicToGeminiFinishReason(c.value)
			return v, true, false
		}
	case codec.OpenAIChat:
		switch client {
		case codec.OpenAIResponses:
			return joined(ChatToResponsesStatus(c.value)), true, false
		case codec.AnthropicMessages:
			v, _ := ChatToAnthropicStopReason(c.value, c.out)
			return v, true, false
		case codec.Gemini:
			v, _ := ChatToGeminiFinishReason(c.value, c.out)
			return v, true, false
		}
	case codec.Gemini:
		switch client {
		case codec.OpenAIResponses:
			return joined(GeminiToResponsesStatus(c.value)), true, false
		case codec.AnthropicMessages:
			v, _ := GeminiToAnthropicStopReason(c.value, c.out)
			return v, true, false
		case codec.OpenAIChat:
			v, _ := GeminiToChatFinishReason(c.value, c.out)
			return v, true, false
		}
	case codec.OpenAIResponses:
		// failed is an upstream failure, never a stop reason.
		failure = c.value == "failed"
		switch client {
		case codec.AnthropicMessages:
			want, ok, _ = ResponsesToAnthropicStopReason(c.value, c.reason, c.out)
		case codec.OpenAIChat:
			want, ok, _ = ResponsesToChatFinishReason(c.value, c.reason, c.out)
		case codec.Gemini:
			want, ok, _ = ResponsesToGeminiFinishReason(c.value, c.reason, c.out)
		}
		return want, ok, failure
	}
	panic("no pair table for " + string(up) + " -> " + string(client))
}

// stopDivergence is a case where the codecs give a client a stop value
// although the pair table gives none: the answer did not stop for a
// reason the client protocol can name.
type stopDivergence struct {
	client codec.Protocol
	// got is what the client gets, in a JSON body and in a stream alike,
	// for an answer whose output is out.
	got func(out OutputKind) string
	why string
}

// stopDivergences are the clients whose protocol the codecs never leave
// without a stop value. Every other case must give exactly what the
// tables say; a divergence that no longer happens is an error too.
var stopDivergences = []stopDivergence{
	{client: codec.OpenAIChat,
		got: func(out OutputKind) string {
			if out == OutputToolCall {
				return "tool_calls"
			}
			return "stop"
		},
		why: "a Chat choice always ends with a finish_reason: tool_calls when the message holds tool calls (Chat clients run tools on it), " +
			"stop otherwise (chat.toolStop, chat.streamEncoder.finish, ChatFinishReason)"},
	{client: codec.Bedrock,
		got: func(OutputKind) string { return "end_turn" },
		why: "a Converse message always ends with a stopReason, end_turn when the upstream gave no reason (ConverseStopReason)"},
	{client: interactions.Gemini,
		got: func(OutputKind) string { return "completed" },
		why: "an interaction always has a status, completed when the upstream gave no stop reason (interactions.status)"},
	{client: codec.Gemini,
		got: func(OutputKind) string { return "STOP" },
		why: "a Gemini candidate's last chunk always carries a finishReason, STOP when the upstream gave no reason (GeminiFinishReason)"},
}

// TestStopPairs decodes, for every pair of protocols of different
// families (a same-family pair is a passthrough), a finished upstream
// answer carrying each stop value of the upstream protocol, as one JSON body
// with DecodeResponse and as a stream with the upstream's stream decoder;
// encodes it for the client with AppendResponseFor and the client's stream
// encoder; and compares the stop value the client reads (finish_reason,
// status and incomplete_details.reason, stop_reason, finishReason) with
// the pair tables of stop_pairs_tables_test.go. An upstream failure (Responses
// failed) must reach the client as an error with no stop value; a status
// without a stop reason (cancelled, queued, in_progress, an unknown
// incomplete reason) must give none (Anthropic stop_reason null), except
// where stopDivergences says the client protocol always has one.
func TestStopPairs(t *testing.T) {
	used := map[codec.Protocol]bool{}
	for _, up := range codec.Protocols() {
		for _, client := range codec.Protocols() {
			if up.Family() == client.Family() {
				continue
			}
			for _, c := range stopCases(up.Family()) {
				want, ok, failure := pairStop(up.Family(), client.Family(), c)
				if !ok && !failure {
					for _, d := range stopDivergences {
						if d.client == client.Family() {
							want = d.got(c.out)
							used[d.client] = true
						}
					}
				}
				name := fmt.Sprintf("%s->%s %s", up, client, c)

				var resp codec.Response
				err := codec.DecodeResponse(up, upstreamStopJSON(up.Family(), c), &resp)
				switch {
				case failure:
					if e, isErr := err.(*codec.Error); !isErr || e.Status < 500 {
						t.Errorf("%s JSON: decoding gives %v, want an upstream failure (5xx error)", name, err)
					}
				case err != nil:
					t.Errorf("%s JSON: %v", name, err)
				default:
					body, err := codec.AppendResponseFor(nil, client, &resp, nil)
					if err != nil {
						t.Errorf("%s JSON: encoding: %v", name, err)
						break
					}
					if got := clientStopJSON(client.Family(), body); got != want {
						t.Errorf("%s JSON: client stop %q, want %q\n%s", name, got, want, body)
					}
				}

				evs := codectest.DecodeStream(t, up, upstreamStopStream(up.Family(), c), nil)
				if err := codectest.WellFormed(evs); err != nil {
					t.Errorf("%s stream: %v", name, err)
					continue
				}
				out := codectest.EncodeStream(client, &codec.Request{Model: "m", Stream: true, StreamUsage: true}, evs)
				got, errored := clientStopStream(client.Family(), out)
				switch {
				case failure:
					if !errored || got != "" {
						t.Errorf("%s stream: client stop %q, error %v; want an error and no stop value\n%s", name, got, errored, out)
					}
				case errored:
					t.Errorf("%s stream: the client's stream ends in an error\n%s", name, out)
				case got != want:
					t.Errorf("%s stream: client stop %q, want %q\n%s", name, got, want, out)
				}
			}
		}
	}
	for _, d := range stopDivergences {
		if !used[d.client] {
			t.Errorf("stopDivergences lists %s, which no case reaches; remove it", d.client)
		}
	}
}

// upstreamStopJSON is a finished upstream answer of family p for c, as one
// JSON body.
func upstreamStopJSON(p codec.Protocol, c stopCase) []byte {
	q := func(s string) string {
		if s == "" {
			return "null"
		}
		return fmt.Sprintf("%q", s)
	}
	switch p {
	case interactions.Gemini:
		return interactionsStopJSON(c)
	case codec.AnthropicMessages:
		block := `{"type":"text","text":"Hello"}`
		if c.out == OutputToolCall {
			block = `{"type":"tool_use","id":"toolu_1","name":"get_weather","input":{"city":"Paris"}}`
		}
		seq := "null"
		if c.value == "stop_sequence" {
			seq = `"END"`
		}
		return []byte(`{"id":"msg_1","type":"message","role":"assistant","model":"m","content":[` + block +
			`],"stop_reason":` + q(c.value) + `,"stop_sequence":` + seq + `,"usage":{"input_tokens":5,"output_tokens":3}}`)
	case codec.OpenAIChat:
		message := `{"role":"assistant","content":"Hello","refusal":null}`
		switch c.out {
		case OutputToolCall:
			message = `{"role":"assistant","content":null,"refusal":null,"tool_calls":[{"id":"call_1","type":"function",` +
				`"function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}}]}`
		case OutputRefusal:
			message = `{"role":"assistant","content":null,"refusal":"I cannot help with that."}`
		}
		return []byte(`{"id":"chatcmpl-1","object":"chat.completion","created":1767225600,"model":"m","choices":[{"index":0,"message":` +
			message + `,"logprobs":null,"finish_reason":` + q(c.value) + `}],"usage":{"prompt_tokens":5,"completion_tokens":3,"total_tokens":8}}`)
	case codec.Gemini:
		part := `{"text":"Hello"}`
		if c.out == OutputToolCall {
			part = `{"functionCall":{"name":"get_weather","args":{"city":"Paris"}}}`
		}
		return []byte(`{"candidates":[{"content":{"role":"model","parts":[` + part + `]},"finishReason":` + q(c.value) +
			`,"index":0}],"usageMetadata":{"promptTokenCount":5,"candidatesTokenCount":3,"totalTokenCount":8},"modelVersion":"m","responseId":"r1"}`)
	case codec.OpenAIResponses:
		return []byte(`{"id":"resp_1","object":"response","created_at":1767225600,"status":` + q(c.value) + `,"model":"m",` +
			responsesStopTail(c, responsesStopItem(c, "completed")) + `}`)
	case codec.Bedrock:
		block := `{"text":"Hello"}`
		if c.out == OutputToolCall {
			block = `{"toolUse":{"toolUseId":"tooluse_1","name":"get_weather","input":{"city":"Paris"}}}`
		}
		return []byte(`{"output":{"message":{"role":"assistant","content":[` + block + `]}},"stopReason":` + q(c.value) +
			`,"usage":{"inputTokens":5,"outputTokens":3,"totalTokens":8},"metrics":{"latencyMs":10}}`)
	}
	panic("no upstream " + string(p))
}

// responsesStopItem is the output item of a Responses answer for c.
func responsesStopItem(c stopCase, status string) string {
	switch c.out {
	case OutputToolCall:
		return `{"type":"function_call","id":"fc_1","call_id":"call_1","name":"get_weather","arguments":"{\"city\":\"Paris\"}","status":"` + status + `"}`
	case OutputRefusal:
		return `{"type":"message","id":"msg_1","status":"` + status + `","role":"assistant","content":[{"type":"refusal","refusal":"I cannot help with that."}]}`
	}
	return `{"type":"message","id":"msg_1","status":"` + status + `","role":"assistant","content":[{"type":"output_text","text":"Hello","annotations":[]}]}`
}

// responsesStopTail is the error, incomplete_details, output and usage
// members of a Responses answer for c.
func responsesStopTail(c stopCase, output string) string {
	failure, details := "null", "null"
	if c.value == "failed" {
		failure = `{"code":"server_error","message":"The model failed."}`
	}
	if c.reason != "" {
		details = `{"reason":"` + c.reason + `"}`
	}
	return `"error":` + failure + `,"incomplete_details":` + details + `,"output":[` + output +
		`],"usage":{"input_tokens":5,"output_tokens":3,"total_tokens":8}`
}

// upstreamStopStream is a finished upstream answer of family p for c, as an
// SSE stream.
func upstreamStopStream(p codec.Protocol, c stopCase) string {
	var b strings.Builder
	event := func(name, data string) {
		if name != "" {
			b.WriteString("event: " + name + "\n")
		}
		b.WriteString("data: " + data + "\n\n")
	}
	switch p {
	case interactions.Gemini:
		interactionsStopStream(c, event)
	case codec.Bedrock:
		event("messageStart", `{"role":"assistant"}`)
		if c.out == OutputToolCall {
			event("contentBlockStart", `{"contentBlockIndex":0,"start":{"toolUse":{"toolUseId":"tooluse_1","name":"get_weather"}}}`)
			event("contentBlockDelta", `{"contentBlockIndex":0,"delta":{"toolUse":{"input":"{\"city\":\"Paris\"}"}}}`)
		} else {
			event("contentBlockDelta", `{"contentBlockIndex":0,"delta":{"text":"Hello"}}`)
		}
		event("contentBlockStop", `{"contentBlockIndex":0}`)
		event("messageStop", `{"stopReason":"`+c.value+`"}`)
		event("metadata", `{"usage":{"inputTokens":5,"outputTokens":3,"totalTokens":8},"metrics":{"latencyMs":10}}`)
	case codec.AnthropicMessages:
		event("message_start", `{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"m",`+
			`"content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":5,"output_tokens":1}}}`)
		if c.out == OutputToolCall {
			event("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_1","name":"get_weather","input":{}}}`)
			event("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"city\":\"Paris\"}"}}`)
		} else {
			event("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`)
			event("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hello"}}`)
		}
		event("content_block_stop", `{"type":"content_block_stop","index":0}`)
		seq := "null"
		if c.value == "stop_sequence" {
			seq = `"END"`
		}
		event("message_delta", `{"type":"message_delta","delta":{"stop_reason":"`+c.value+`","stop_sequence":`+seq+`},"usage":{"output_tokens":3}}`)
		event("message_stop", `{"type":"message_stop"}`)
	case codec.OpenAIChat:
		chunk := func(delta, finish string) {
			event("", `{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1767225600,"model":"m","choices":[{"index":0,"delta":`+
				delta+`,"logprobs":null,"finish_reason":`+finish+`}]}`)
		}
		chunk(`{"role":"assistant","content":""}`, "null")
		switch c.out {
		case OutputToolCall:
			chunk(`{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"get_weather","arguments":""}}]}`, "null")
			chunk(`{"tool_calls":[{"index":0,"function":{"arguments":"{\"city\":\"Paris\"}"}}]}`, "null")
		case OutputRefusal:
			chunk(`{"refusal":"I cannot help with that."}`, "null")
		default:
			chunk(`{"content":"Hello"}`, "null")
		}
		chunk(`{}`, `"`+c.value+`"`)
		event("", `[DONE]`)
	case codec.Gemini:
		part := `{"text":"Hello"}`
		if c.out == OutputToolCall {
			part = `{"functionCall":{"name":"get_weather","args":{"city":"Paris"}}}`
		}
		event("", `{"candidates":[{"content":{"role":"model","parts":[`+part+`]},"index":0}],"modelVersion":"m","responseId":"r1"}`)
		event("", `{"candidates":[{"content":{"role":"model","parts":[{"text":""}]},"finishReason":"`+c.value+
			`","index":0}],"usageMetadata":{"promptTokenCount":5,"candidatesTokenCount":3,"totalTokenCount":8},"modelVersion":"m","responseId":"r1"}`)
	case codec.OpenAIResponses:
		seq := 0
		ev := func(typ, rest string) {
			event(typ, fmt.Sprintf(`{"type":%q,"sequence_number":%d,%s}`, typ, seq, rest))
			seq++
		}
		head := `"id":"resp_1","object":"response","created_at":1767225600,"model":"m"`
		ev("response.created", `"response":{`+head+`,"status":"in_progress","error":null,"incomplete_details":null,"output":[]}`)
		switch c.out {
		case OutputToolCall:
			ev("response.output_item.added", `"output_index":0,"item":{"type":"function_call","id":"fc_1","call_id":"call_1","name":"get_weather","arguments":"","status":"in_progress"}`)
			ev("response.function_call_arguments.delta", `"item_id":"fc_1","output_index":0,"delta":"{\"city\":\"Paris\"}"`)
			ev("response.function_call_arguments.done", `"item_id":"fc_1","output_index":0,"arguments":"{\"city\":\"Paris\"}"`)
		case OutputRefusal:
			ev("response.output_item.added", `"output_index":0,"item":{"type":"message","id":"msg_1","status":"in_progress","role":"assistant","content":[]}`)
			ev("response.content_part.added", `"item_id":"msg_1","output_index":0,"content_index":0,"part":{"type":"refusal","refusal":""}`)
			ev("response.refusal.delta", `"item_id":"msg_1","output_index":0,"content_index":0,"delta":"I cannot help with that."`)
			ev("response.refusal.done", `"item_id":"msg_1","output_index":0,"content_index":0,"refusal":"I cannot help with that."`)
			ev("response.content_part.done", `"item_id":"msg_1","output_index":0,"content_index":0,"part":{"type":"refusal","refusal":"I cannot help with that."}`)
		default:
			ev("response.output_item.added", `"output_index":0,"item":{"type":"message","id":"msg_1","status":"in_progress","role":"assistant","content":[]}`)
			ev("response.content_part.added", `"item_id":"msg_1","output_index":0,"content_index":0,"part":{"type":"output_text","text":"","annotations":[]}`)
			ev("response.output_text.delta", `"item_id":"msg_1","output_index":0,"content_index":0,"delta":"Hello"`)
			ev("response.output_text.done", `"item_id":"msg_1","output_index":0,"content_index":0,"text":"Hello"`)
			ev("response.content_part.done", `"item_id":"msg_1","output_index":0,"content_index":0,"part":{"type":"output_text","text":"Hello","annotations":[]}`)
		}
		item := responsesStopItem(c, "completed")
		ev("response.output_item.done", `"output_index":0,"item":`+item)
		// completed, incomplete and failed have events of their own;
		// a status without one (cancelled, queued, in_progress) comes
		// in the terminal response.incomplete event's response.
		terminal := "response.incomplete"
		switch c.value {
		case "completed", "failed":
			terminal = "response." + c.value
		}
		ev(terminal, `"response":{`+head+`,"status":"`+c.value+`",`+responsesStopTail(c, item)+`}`)
	}
	return b.String()
}

// clientStopJSON is the stop value a client of family p reads in its JSON
// body: finish_reason, status (with "/" and incomplete_details.reason when
// there is one), stop_reason or finishReason; "" for null or absent.
func clientStopJSON(p codec.Protocol, body []byte) string {
	root := gjson.ParseBytes(body)
	switch p {
	case interactions.Gemini:
		return root.Get("status").Str
	case codec.OpenAIChat:
		return root.Get("choices.0.finish_reason").Str
	case codec.OpenAIResponses:
		if r := root.Get("incomplete_details.reason").Str; r != "" {
			return root.Get("status").Str + "/" + r
		}
		return root.Get("status").Str
	case codec.AnthropicMessages:
		return root.Get("stop_reason").Str
	case codec.Gemini:
		return root.Get("candidates.0.finishReason").Str
	case codec.Bedrock:
		return root.Get("stopReason").Str
	}
	panic("no client " + string(p))
}

// clientStopStream is the stop value a client of family p reads in its
// stream (the last one sent), and whether the stream carries the
// protocol's error.
func clientStopStream(p codec.Protocol, out string) (stop string, errored bool) {
	r := sse.NewReader(strings.NewReader(out), 0)
	for {
		ev, err := r.Next()
		if err != nil {
			return stop, errored
		}
		data := gjson.ParseBytes(ev.Data)
		if strings.HasPrefix(string(ev.Name), wire.ExceptionPrefix) {
			// An AWS event stream's exception (Bedrock's clients).
			errored = true
			continue
		}
		switch p {
		case interactions.Gemini:
			var e bool
			stop, e = interactionsClientStop(data, stop)
			errored = errored || e
		case codec.OpenAIChat:
			if f := data.Get("choices.0.finish_reason"); f.Type == gjson.String {
				stop = f.Str
			}
			errored = errored || data.Get("error").Exists()
		case codec.OpenAIResponses:
			switch string(ev.Name) {
			case "response.completed", "response.incomplete":
				stop = clientStopJSON(codec.OpenAIResponses, []byte(data.Get("response").Raw))
			case "response.failed", "error":
				errored = true
			}
		case codec.AnthropicMessages:
			switch string(ev.Name) {
			case "message_delta":
				stop = data.Get("delta.stop_reason").Str
			case "error":
				errored = true
			}
		case codec.Gemini:
			if f := data.Get("candidates.0.finishReason"); f.Exists() {
				stop = f.Str
			}
			errored = errored || data.Get("error").Exists()
		case codec.Bedrock:
			switch name := string(ev.Name); {
			case name == "messageStop":
				stop = data.Get("stopReason").Str
			case strings.HasPrefix(name, "exception:"):
				errored = true
			}
		}
	}
}
