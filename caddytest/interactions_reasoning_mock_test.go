package caddytest

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/tidwall/gjson"
)

// interactionsReasoningCallAnswer is an Interactions upstream's answer
// with reasoning before a call of c: a thought step with its summary and
// signature (which must come back unchanged), then the function_call
// step, status requires_action; streamed, the thought's summary and
// signature come as deltas and the call's arguments as arguments_delta
// fragments.
func interactionsReasoningCallAnswer(model string, stream bool, c mockCall) scenario {
	usageJSON := `{"total_input_tokens":54,"total_output_tokens":14,"total_thought_tokens":64,"total_tokens":132}`
	if !stream {
		return scenario{Status: 200, Body: `{"id":"v1_irz01","object":"interaction","model":` + jsonString(model) + `,"status":"requires_action","steps":[` +
			`{"type":"thought","signature":"` + rzThSig + `","summary":[{"type":"text","text":` + jsonString(rzThought) + `}]},` +
			`{"type":"function_call","id":"` + c.ID + `","name":"` + c.Name + `","arguments":` + c.Args + `}],"usage":` + usageJSON + `}`}
	}
	var b strings.Builder
	n := 0
	event := func(typ, rest string) {
		n++
		fmt.Fprintf(&b, "event: %s\ndata: {\"event_type\":%q,\"event_id\":\"ev_irz%d\",%s}\n\n", typ, typ, n, rest)
	}
	event("interaction.created", `"interaction":{"id":"v1_irz01","model":`+jsonString(model)+`,"status":"in_progress"}`)
	event("step.start", `"index":0,"step":{"type":"thought"}`)
	event("step.delta", `"index":0,"delta":{"type":"thought_summary","content":{"type":"text","text":`+jsonString(rzThought)+`}}`)
	event("step.delta", `"index":0,"delta":{"type":"thought_signature","signature":"`+rzThSig+`"}`)
	event("step.stop", `"index":0`)
	event("step.start", `"index":1,"step":{"type":"function_call","id":"`+c.ID+`","name":"`+c.Name+`","arguments":{}}`)
	frags := c.Fragments
	if len(frags) == 0 {
		frags = []string{c.Args}
	}
	for _, f := range frags {
		event("step.delta", `"index":1,"delta":{"type":"arguments_delta","arguments":`+jsonString(f)+`}`)
	}
	event("step.stop", `"index":1`)
	event("interaction.completed", `"interaction":{"id":"v1_irz01","model":`+jsonString(model)+`,"status":"requires_action","usage":`+usageJSON+`}`)
	b.WriteString("data: [DONE]\n\n")
	return scenario{Status: 200, Header: http.Header{"Content-Type": {"text/event-stream"}}, Body: b.String()}
}

// interactionsOpaqueSlots lists the signatures of the thought steps (and
// of function_call steps, where Google may put them) of an Interactions
// request's input.
func interactionsOpaqueSlots(root gjson.Result) []string {
	var got []string
	for _, s := range root.Get("input").Array() {
		if sig := s.Get("signature"); sig.Exists() && (s.Get("type").Str == "thought" || s.Get("type").Str == "function_call") {
			got = append(got, "signature:"+sig.Str)
		}
	}
	return got
}
