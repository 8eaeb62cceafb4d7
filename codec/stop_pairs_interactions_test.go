package codec_test

import (
	"strings"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/interactions"
	"github.com/tidwall/gjson"
)

// interactionsStopCases are the statuses an Interactions upstream ends an
// interaction with: requires_action when function calls wait for their
// results, and the statuses without a stop reason (failed and cancelled
// are upstream failures).
func interactionsStopCases() []stopCase {
	var cases []stopCase
	for _, v := range []string{"completed", "incomplete", "budget_exceeded", "failed", "cancelled"} {
		for _, o := range []OutputKind{OutputText, OutputToolCall} {
			cases = append(cases, stopCase{value: v, out: o})
		}
	}
	return append(cases, stopCase{value: "requires_action", out: OutputToolCall})
}

// interactionsAsResponses is the Responses answer that means what an
// Interactions status means: the two APIs share completed and
// incomplete, an interaction waiting for function results is a completed
// response with calls, and a spent budget is a truncation.
func interactionsAsResponses(c stopCase) stopCase {
	switch c.value {
	case "requires_action":
		return stopCase{value: "completed", out: OutputToolCall}
	case "incomplete", "budget_exceeded":
		return stopCase{value: "incomplete", reason: "max_output_tokens", out: c.out}
	}
	return stopCase{value: c.value, out: c.out}
}

// interactionsPairStop is pairStop for a pair with the Interactions
// family. Toward an Interactions client, an answer that ended to call
// tools (what Anthropic's tool_use means) waits for their results
// (requires_action), a truncation or a filter (Responses incomplete) is
// incomplete, and anything else completed; from an Interactions upstream,
// the client gets what the equivalent Responses answer gives it.
func interactionsPairStop(up, client codec.Protocol, c stopCase) (want string, ok, failure bool) {
	if up == interactions.Gemini {
		r := interactionsAsResponses(c)
		failure = c.value == "failed" || c.value == "cancelled"
		if client == codec.OpenAIResponses {
			if r.reason != "" {
				return r.value + "/" + r.reason, true, failure
			}
			return r.value, !failure, failure
		}
		want, ok, _ = pairStop(codec.OpenAIResponses, client, r)
		return want, ok && !failure, failure
	}
	if up == codec.OpenAIResponses {
		switch {
		case c.value == "failed":
			return "", false, true
		case c.value == "completed" && c.out == OutputToolCall:
			return "requires_action", true, false
		case c.value == "completed":
			return "completed", true, false
		case c.value == "incomplete" && c.reason != "brand_new":
			return "incomplete", true, false
		}
		return "", false, false
	}
	claude := c.value
	if up != codec.AnthropicMessages {
		claude, _, _ = pairStop(up, codec.AnthropicMessages, c)
	}
	if claude == "tool_use" {
		return "requires_action", true, false
	}
	if st := responsesStatusOf(up, c); st == "incomplete" {
		return "incomplete", true, false
	}
	return "completed", true, false
}

// responsesStatusOf is the Responses status the pair tables give an
// answer of family up.
func responsesStatusOf(up codec.Protocol, c stopCase) string {
	s, _, _ := pairStop(up, codec.OpenAIResponses, c)
	status, _, _ := strings.Cut(s, "/")
	return status
}

// interactionsStopJSON is a finished interaction for c.
func interactionsStopJSON(c stopCase) []byte {
	step := `{"type":"model_output","content":[{"type":"text","text":"Hello"}]}`
	if c.out == OutputToolCall {
		step = `{"type":"function_call","id":"call_1","name":"get_weather","arguments":{"city":"Paris"}}`
	}
	errs := ""
	if c.value == "failed" {
		errs = `,"errors":[{"code":"INTERNAL","message":"The model failed."}]`
	}
	return []byte(`{"id":"v1_1","model":"m","status":"` + c.value + `","steps":[` + step + `]` + errs +
		`,"usage":{"total_input_tokens":5,"total_output_tokens":3,"total_tokens":8}}`)
}

// interactionsStopStream is a finished interaction for c, streamed.
func interactionsStopStream(c stopCase, event func(name, data string)) {
	event("interaction.created", `{"event_type":"interaction.created","event_id":"e1","interaction":{"id":"v1_1","model":"m","status":"in_progress"}}`)
	if c.out == OutputToolCall {
		event("step.start", `{"event_type":"step.start","event_id":"e2","index":0,"step":{"type":"function_call","id":"call_1","name":"get_weather","arguments":{}}}`)
		event("step.delta", `{"event_type":"step.delta","event_id":"e3","index":0,"delta":{"type":"arguments_delta","arguments":"{\"city\":\"Paris\"}"}}`)
	} else {
		event("step.start", `{"event_type":"step.start","event_id":"e2","index":0,"step":{"type":"model_output"}}`)
		event("step.delta", `{"event_type":"step.delta","event_id":"e3","index":0,"delta":{"type":"text","text":"Hello"}}`)
	}
	event("step.stop", `{"event_type":"step.stop","event_id":"e4","index":0}`)
	errs := ""
	if c.value == "failed" {
		errs = `,"errors":[{"code":"INTERNAL","message":"The model failed."}]`
	}
	event("interaction.completed", `{"event_type":"interaction.completed","event_id":"e5","interaction":{"id":"v1_1","model":"m","status":"`+c.value+`"`+errs+
		`,"usage":{"total_input_tokens":5,"total_output_tokens":3,"total_tokens":8}}}`)
	event("", `[DONE]`)
}

// interactionsClientStop reads the status of an Interactions stream event
// (the last one sent), and whether it is an error.
func interactionsClientStop(data gjson.Result, stop string) (string, bool) {
	switch data.Get("event_type").Str {
	case "interaction.completed":
		return data.Get("interaction.status").Str, false
	case "error":
		return stop, true
	}
	return stop, false
}
