package caddytest

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"
)

// This file teaches the suite's generic mock upstream (mock_test.go,
// streaming_mock_test.go) the Interactions API, so that the matrix tests
// run every client against it as against any other upstream: the
// requests it accepts, its answers, its streams and its errors, as the
// API reference and google.golang.org/genai's generated models describe
// them.

// interactionsFields are the top-level members of a create-interaction
// request (CreateModelInteraction and CreateAgentInteraction); Google
// answers 400 to any other.
var interactionsFields = []string{"model", "agent", "agent_config", "input", "system_instruction", "tools",
	"generation_config", "response_format", "response_mime_type", "response_modalities", "stream", "store",
	"background", "previous_interaction_id", "continuation_token", "safety_settings", "labels", "service_tier",
	"cached_content", "environment", "webhook_config"}

// interactionsStepTypes are the step types an input may carry.
var interactionsStepTypes = map[string]bool{"user_input": true, "model_output": true, "thought": true,
	"function_call": true, "function_result": true, "google_search_call": true, "google_search_result": true,
	"code_execution_call": true, "code_execution_result": true, "url_context_call": true, "url_context_result": true}

// validateInteractionsBody returns every way root is not a valid
// create-interaction request: a model, an input that is a string,
// content or typed steps, steps of known types, function results that
// answer a call of the same input (by call_id, when the call is in it),
// and booleans where the API has them.
func validateInteractionsBody(root gjson.Result) []string {
	var problems []string
	bad := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	if m := root.Get("model"); m.Type != gjson.String || m.Str == "" {
		bad("model is required")
	}
	input := root.Get("input")
	switch {
	case !input.Exists() && !root.Get("previous_interaction_id").Exists():
		bad("input is required")
	case input.Exists() && input.Type != gjson.String && !input.IsArray() && !input.IsObject():
		bad("input must be a string, content or a list of steps, got %s", input.Raw)
	}
	calls := map[string]bool{}
	for i, s := range input.Array() {
		if !input.IsArray() {
			break
		}
		typ := s.Get("type").Str
		if !interactionsStepTypes[typ] && typ != "text" && typ != "image" {
			bad("input[%d].type %q is not a step type", i, s.Get("type").Raw)
		}
		switch typ {
		case "function_call":
			if s.Get("id").Str == "" || s.Get("name").Str == "" || !s.Get("arguments").IsObject() {
				bad("input[%d]: a function_call needs an id, a name and arguments (an object): %s", i, s.Raw)
			}
			calls[s.Get("id").Str] = true
		case "function_result":
			id := s.Get("call_id").Str
			if id == "" || !s.Get("result").Exists() {
				bad("input[%d]: a function_result needs a call_id and a result: %s", i, s.Raw)
			} else if len(calls) > 0 && !calls[id] {
				bad("input[%d]: function_result.call_id %q answers no function_call of the input", i, id)
			}
		case "user_input", "model_output":
			if c := s.Get("content"); c.Exists() && !c.IsArray() && c.Type != gjson.String {
				bad("input[%d].content must be a list of content", i)
			}
		}
	}
	for _, k := range []string{"stream", "store", "background"} {
		if v := root.Get(k); v.Exists() && v.Type != gjson.True && v.Type != gjson.False {
			bad("%s must be a boolean, got %s", k, v.Raw)
		}
	}
	return problems
}

// interactionsMessage is a message as an Interactions step: a user_input
// or model_output step whose content is a list (raw JSON; a string content
// is its one text).
func interactionsMessage(role, content string) string {
	typ := "user_input"
	if role == "assistant" {
		typ = "model_output"
	}
	if strings.HasPrefix(content, `"`) {
		content = `[{"type":"text","text":` + content + `}]`
	}
	return `{"type":"` + typ + `","content":` + content + `}`
}

// interactionsStatus is the interaction status of the canonical stop r.Stop.
func interactionsStatus(stop string) string {
	if stop == "max_tokens" {
		return "incomplete"
	}
	return "completed"
}

// interactionsUsageJSON is u as an interaction's usage: total_output_tokens
// counts the answer without its thoughts (total_thought_tokens).
func interactionsUsageJSON(u usage) string {
	n := func(v int64) string { return strconv.FormatInt(v, 10) }
	return `{"total_input_tokens":` + n(u.Input) + `,"total_cached_tokens":` + n(u.CacheRead) + `,"total_output_tokens":` + n(u.Output-u.Reasoning) +
		`,"total_thought_tokens":` + n(u.Reasoning) + `,"total_tokens":` + n(u.Input+u.Output) + `}`
}

// interactionsSuccessBody is an interaction whose one output step is
// r.Text, as Google answers a create request with store false.
func interactionsSuccessBody(model string, r reply) string {
	return `{"id":"v1_itest0001","object":"interaction","model":` + jsonString(model) + `,"status":"` + interactionsStatus(r.Stop) +
		`","created":"2026-12-01T10:00:00Z","updated":"2026-12-01T10:00:01Z","role":"model",` +
		`"steps":[{"type":"model_output","content":[{"type":"text","text":` + jsonString(r.Text) + `}]}],"usage":` + interactionsUsageJSON(r.Usage) + `}`
}

// interactionsCodeFits reports whether code, an Interactions error's
// string code, names HTTP status as Google does: the status name of the
// statuses every API maps alike, and some status name for the others
// (a gateway's 502, a body over its limit).
func interactionsCodeFits(code string, status int) bool {
	if st := googleStatusName(status); st != "UNKNOWN" {
		return code == st
	}
	return code != "" && strings.Trim(code, "ABCDEFGHIJKLMNOPQRSTUVWXYZ_") == ""
}

// interactionsError is an Interactions error body: the status name as
// the string code, as the SDKs' generated Error model has it.
func interactionsError(status int, message string) string {
	return `{"error":{"code":"` + googleStatusName(status) + `","message":` + jsonString(message) + `}}`
}

// googleStatusName is the status name Google's APIs give an HTTP status.
func googleStatusName(status int) string {
	st := map[int]string{400: "INVALID_ARGUMENT", 401: "UNAUTHENTICATED", 403: "PERMISSION_DENIED",
		404: "NOT_FOUND", 429: "RESOURCE_EXHAUSTED", 500: "INTERNAL", 503: "UNAVAILABLE", 504: "DEADLINE_EXCEEDED"}[status]
	if st == "" {
		st = "UNKNOWN"
	}
	return st
}

// interactionsStreamPieces is a streamed interaction whose output step
// carries pieces: interaction.created, step.start and the text deltas in
// head; step.stop, interaction.status_update, interaction.completed and
// data: [DONE] in tail. Its terminal event is interaction.completed: a
// stream without it is cut short whatever follows.
func interactionsStreamPieces(p proto, model string, r reply, pieces []string) mockStream {
	var s mockStream
	s.contentType = "text/event-stream"
	n := 0
	event := func(typ, rest string) string {
		n++
		return fmt.Sprintf("event: %s\ndata: {\"event_type\":%q,\"event_id\":\"ev_itest%d\",%s}\n\n", typ, typ, n, rest)
	}
	const id = "v1_itest0002"
	s.head = append(s.head,
		event("interaction.created", `"interaction":{"id":"`+id+`","object":"interaction","model":`+jsonString(model)+`,"status":"in_progress"}`),
		event("step.start", `"index":0,"step":{"type":"model_output"}`))
	for _, piece := range pieces {
		s.head = append(s.head, event("step.delta", `"index":0,"delta":{"type":"text","text":`+jsonString(piece)+`}`))
	}
	status := interactionsStatus(r.Stop)
	stop := event("step.stop", `"index":0`)
	update := event("interaction.status_update", `"interaction_id":"`+id+`","status":"`+status+`"`)
	s.tail = []string{stop, update,
		event("interaction.completed", `"interaction":{"id":"`+id+`","object":"interaction","model":`+jsonString(model)+`,"status":"`+status+`","usage":`+interactionsUsageJSON(r.Usage)+`}`),
		"data: [DONE]\n\n"}
	s.truncatedTail = []string{stop, update}
	s.errorTail = []string{event("error", `"error":{"code":"UNAVAILABLE","message":`+jsonString(midStreamMessage(p))+`}`)}
	return s
}

// interactionsCallAnswer is an interaction that asks for calls after text
// (status requires_action): a function_call step per call, its arguments
// an object; streamed, each call's arguments come as arguments_delta
// fragments after its step.start.
func interactionsCallAnswer(model, text string, pieces []string, calls []mockCall, stream bool) scenario {
	u := toolUsage
	argsOr := func(c mockCall) string {
		if c.Args == "" {
			return "{}"
		}
		return c.Args
	}
	usageJSON := interactionsUsageJSON(usage{Input: u.Input, Output: u.Output})
	if !stream {
		var steps []string
		if text != "" {
			steps = append(steps, `{"type":"model_output","content":[{"type":"text","text":`+jsonString(text)+`}]}`)
		}
		for _, c := range calls {
			steps = append(steps, `{"type":"function_call","id":"`+c.ID+`","name":"`+c.Name+`","arguments":`+argsOr(c)+`}`)
		}
		return scenario{Status: 200, Body: `{"id":"v1_itool01","object":"interaction","model":` + jsonString(model) +
			`,"status":"requires_action","steps":[` + strings.Join(steps, ",") + `],"usage":` + usageJSON + `}`}
	}
	var b strings.Builder
	n := 0
	event := func(typ, rest string) {
		n++
		fmt.Fprintf(&b, "event: %s\ndata: {\"event_type\":%q,\"event_id\":\"ev_itool%d\",%s}\n\n", typ, typ, n, rest)
	}
	event("interaction.created", `"interaction":{"id":"v1_itool01","model":`+jsonString(model)+`,"status":"in_progress"}`)
	index := 0
	if text != "" {
		event("step.start", `"index":0,"step":{"type":"model_output"}`)
		for _, piece := range pieces {
			event("step.delta", `"index":0,"delta":{"type":"text","text":`+jsonString(piece)+`}`)
		}
		event("step.stop", `"index":0`)
		index++
	}
	for _, c := range calls {
		i := strconv.Itoa(index)
		event("step.start", `"index":`+i+`,"step":{"type":"function_call","id":"`+c.ID+`","name":"`+c.Name+`","arguments":{}}`)
		frags := c.Fragments
		if len(frags) == 0 && c.Args != "" {
			frags = []string{c.Args}
		}
		for _, f := range frags {
			event("step.delta", `"index":`+i+`,"delta":{"type":"arguments_delta","arguments":`+jsonString(f)+`}`)
		}
		event("step.stop", `"index":`+i)
		index++
	}
	event("interaction.completed", `"interaction":{"id":"v1_itool01","model":`+jsonString(model)+`,"status":"requires_action","usage":`+usageJSON+`}`)
	b.WriteString("data: [DONE]\n\n")
	return scenario{Status: 200, Header: http.Header{"Content-Type": {"text/event-stream"}}, Body: b.String()}
}

// interactionsHostedTools are the tool types Google runs itself, which
// the API takes beside function tools.
var interactionsHostedTools = map[string]bool{"google_search": true, "code_execution": true, "url_context": true,
	"file_search": true, "google_maps": true, "computer_use": true, "mcp_server": true}

// viewInteractionsTools reads an Interactions request's function tools
// (hosted tools are Google's and not listed), the function_call steps of
// its input and its function_result steps.
func viewInteractionsTools(root gjson.Result, v *upView, bad func(string, ...any)) {
	for i, t := range root.Get("tools").Array() {
		switch typ := t.Get("type").Str; {
		case interactionsHostedTools[typ]:
			continue
		case typ != "function":
			bad("tools[%d].type %q is not a tool type of the Interactions API", i, typ)
		}
		v.Tools = append(v.Tools, upTool{t.Get("name").Str, t.Get("description").Str, t.Get("parameters").Value()})
	}
	for i, s := range root.Get("input").Array() {
		switch s.Get("type").Str {
		case "function_call":
			args := s.Get("arguments")
			if !args.IsObject() {
				bad("input[%d].arguments is not an object: %s", i, args.Raw)
			}
			v.Calls = append(v.Calls, upCall{s.Get("id").Str, s.Get("name").Str, args.Value()})
		case "function_result":
			r := s.Get("result")
			text := r.Str
			if r.Type != gjson.String {
				text = textOf(r)
			}
			v.Results = append(v.Results, upResult{ID: s.Get("call_id").Str, Name: s.Get("name").Str, Text: text})
		case "user_input":
			for _, c := range s.Get("content").Array() {
				if c.Get("type").Str == "image" {
					data, err := base64.StdEncoding.DecodeString(c.Get("data").Str)
					if err != nil {
						bad("input[%d]: image data does not decode: %v", i, err)
					}
					v.Images = append(v.Images, upImage{MIME: c.Get("mime_type").Str, Data: data})
				}
			}
		}
	}
}
