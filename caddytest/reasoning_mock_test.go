package caddytest

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"
)

// This file gives the mock upstreams their reasoning, refusal and usage
// side: native answers that carry reasoning with each family's
// opaque values (Anthropic thinking signatures and redacted_thinking data,
// Responses reasoning items with encrypted_content, Gemini thought parts
// and thoughtSignatures) before a tool call, every upstream's forms of a
// refusal or a filter stop, streamed and not, and a reader that lists the
// opaque values a request carries in its protocol's native slots.

// Native opaque values and reasoning texts, as each family issues them. The
// Gemini thought signature is real traffic's (standard base64, which genai
// decodes into bytes and encodes back unchanged); the others have the shape
// of real values.
const (
	rzThinking = "The user wants Lisbon's weather, so I call get_weather. \"Quoted\" — ✓\nSecond line."
	rzSig      = "EqQBCkgIARABGAIiQL2N0jN7kq2dGm+f3Kx1YqZ9sWmE3b4aU8yY0Qx9kcqV0t3vNfq5zT8oP1r2s3t4u5v6w7x8y9z0AbCdEfGhIjKlMnOpQrStUvWxYz=="
	rzRedacted = "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpPkNRj2YfWXGmKDxH4mPnZ5sQ7vB8="
	rzItemID   = "rs_065915db01d8635a016a3c1256d2dc81a3a6206cbb8ad411b6"
	rzEnc      = "gAAAAABqPBJWnVbUj1Pc-lYHtqrXzHke4s_WmAOdIHTHWd7BaV6fwhTNd6aWTrOnHGPDEA5fbUzoCDIwoxBtGl5nBu8JXW2TzeknYlENMJHbJ8YQs__BSX6Fv-am1b-ZZwIvfE2nWJzDuaVwVFymjHg6ibiKtUgUks44fXFk5D2g0jsiRplEGSkx7pmCZ_EtK_V7nO6vNU9YFw=="
	rzSummary  = "**Looking up the weather**\n\nI should call get_weather for Lisbon."
	rzThought  = "**Mapping the request**\n\nLisbon's weather needs a get_weather call."
	rzThSig    = "CiIBvj72+9zt1F5hZ22f1eeW7Px6AYZtmGWkRn98itxeN1glCmcBvj72+7MEN/axOHSjBzj3ketZPeDZru98pfgPDRSPRire30CemwwkjWoP6Ejv0DwglpMfSVw6C7oT2xm+otusdJ8QznRot3m3zOup17INxBbQkFPAvf9kXN5U7uLCkLPNgeOfCpbJCoYBAb4+9vu+PT2opK2A1Ko4kOZ1ONsRdpEf9pvK8PCiCjiQQjIz/w5NxwrwByC/4dJtsCXdQ3lPKA4fgJjfai0O6+SP6iU4x+outZLLTY0Jxc3awfwSv9HKLN/poOW0njQMZUiMuW49hYgIMNyLfvqhHQwn4+8Xs8yoEN5yBHfJoVeHFqz5z3oKcAG+Pvb7afI/08/QqVFDQHAt7cDrXu14mBkRMbe4hqYevsbRiIOtJeK3RZVsNQHcs0WgA1zKEytXe2Pg5cEjMyRl98DeLSilEVN4ZEAkjx5jcyx3FuuUY73PQ8BYJdoU2QKr9koDZMAnZCPv21/iJpQ="
)

var sseHeader = http.Header{"Content-Type": {"text/event-stream; charset=utf-8"}}

// rzCall is the tool call every reasoning answer of upstream up ends with.
func rzCall(up proto) mockCall {
	return newMockCall(up, 1, "get_weather", `{"city":"Lisbon, PT"}`, 3)
}

// issuedOpaque lists the opaque values upstream up issues in its reasoning
// answer, in the form opaqueSlots reads them back: Anthropic thinking text
// with its signature and the redacted data, the Responses item id with its
// encrypted content, the Gemini thought signature.
func issuedOpaque(up proto) []string {
	switch up.family() {
	case anthropicMsgs, bedrockConverse:
		// Converse carries Claude's values in its own blocks.
		return []string{"thinking:" + rzThinking + "|" + rzSig, "redacted:" + rzRedacted}
	case openaiResponses:
		return []string{"reasoning:" + rzItemID + "|" + rzEnc}
	case gemini, geminiInteractions:
		return []string{"signature:" + rzThSig}
	}
	return nil
}

// opaqueSlots lists the opaque values a request body of protocol up carries
// in its native slots, in order.
func opaqueSlots(up proto, body []byte) []string {
	var got []string
	root := gjson.ParseBytes(body)
	switch up.family() {
	case anthropicMsgs:
		for _, m := range root.Get("messages").Array() {
			for _, b := range m.Get("content").Array() {
				switch b.Get("type").Str {
				case "thinking":
					got = append(got, "thinking:"+b.Get("thinking").Str+"|"+b.Get("signature").Str)
				case "redacted_thinking":
					got = append(got, "redacted:"+b.Get("data").Str)
				}
			}
		}
	case openaiResponses:
		for _, it := range root.Get("input").Array() {
			if it.Get("type").Str == "reasoning" {
				got = append(got, "reasoning:"+it.Get("id").Str+"|"+it.Get("encrypted_content").Str)
			}
		}
	case gemini:
		for _, c := range root.Get("contents").Array() {
			for _, p := range c.Get("parts").Array() {
				if s := p.Get("thoughtSignature"); s.Exists() {
					got = append(got, "signature:"+s.Str)
				}
			}
		}
	case bedrockConverse:
		got = converseOpaqueSlots(root)
	case geminiInteractions:
		got = interactionsOpaqueSlots(root)
	case openaiChat:
		for _, m := range root.Get("messages").Array() {
			if rc := m.Get("reasoning_content"); rc.Exists() {
				got = append(got, "reasoning_content:"+rc.Str)
			}
		}
	}
	return got
}

// rzModel is the model an Anthropic-on-Vertex answer names (Vertex writes
// the version with a dash).
func rzModel(up proto, model string) string {
	switch up {
	case vertexAnthropic:
		return strings.Replace(model, "@", "-", 1)
	case bedrockAnthropic:
		return bedrockVendorModel(model)
	}
	return model
}

// reasoningAnswer is upstream up's answer with reasoning carrying its
// native opaque values, then a call of get_weather, streamed or not:
// Anthropic a signed thinking block (its text in two deltas and its
// signature in a signature_delta when streamed) and a redacted_thinking
// block; Responses a reasoning item with a summary and encrypted_content;
// Gemini a thought part, then the functionCall part with the
// thoughtSignature, as Gemini 2.5 and 3 send them.
func reasoningAnswer(up proto, model string, stream bool) scenario {
	return reasoningCallAnswer(up, model, stream, rzCall(up))
}

// reasoningCallAnswer is reasoningAnswer with call c (its id and
// fragments as its upstream gives them).
func reasoningCallAnswer(up proto, model string, stream bool, c mockCall) scenario {
	model = rzModel(up, model)
	name := jsonString(c.Name)
	switch up.family() {
	case anthropicMsgs:
		usageJSON := `{"input_tokens":120,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":90}`
		if !stream {
			return scenario{Status: 200, Body: `{"model":` + jsonString(model) + `,"id":"msg_01ReasonReasonReason01","type":"message","role":"assistant","content":[` +
				`{"type":"thinking","thinking":` + jsonString(rzThinking) + `,"signature":` + jsonString(rzSig) + `},` +
				`{"type":"redacted_thinking","data":` + jsonString(rzRedacted) + `},` +
				`{"type":"tool_use","id":"` + c.ID + `","name":` + name + `,"input":` + c.Args + `}],` +
				`"stop_reason":"tool_use","stop_sequence":null,"usage":` + usageJSON + `}`}
		}
		var b strings.Builder
		event := func(name, data string) { b.WriteString("event: " + name + "\ndata: " + data + "\n\n") }
		event("message_start", `{"type":"message_start","message":{"model":`+jsonString(model)+`,"id":"msg_01ReasonReasonReason02","type":"message","role":"assistant","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":120,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":1}}}`)
		event("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}}`)
		for _, piece := range splitText(rzThinking, 2) {
			event("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":`+jsonString(piece)+`}}`)
		}
		event("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":`+jsonString(rzSig)+`}}`)
		event("content_block_stop", `{"type":"content_block_stop","index":0}`)
		event("content_block_start", `{"type":"content_block_start","index":1,"content_block":{"type":"redacted_thinking","data":`+jsonString(rzRedacted)+`}}`)
		event("content_block_stop", `{"type":"content_block_stop","index":1}`)
		event("content_block_start", `{"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"`+c.ID+`","name":`+name+`,"input":{}}}`)
		for _, f := range c.Fragments {
			event("content_block_delta", `{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":`+jsonString(f)+`}}`)
		}
		event("content_block_stop", `{"type":"content_block_stop","index":2}`)
		event("message_delta", `{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":`+usageJSON+`}`)
		event("message_stop", `{"type":"message_stop"}`)
		return scenario{Status: 200, Header: sseHeader, Body: b.String()}

	case openaiResponses:
		const respID = "resp_065915db01d8635a016a3c125658a081a3"
		usageJSON := `{"input_tokens":120,"input_tokens_details":{"cached_tokens":0},"output_tokens":90,"output_tokens_details":{"reasoning_tokens":60},"total_tokens":210}`
		reasoning := func(summary string) string {
			s := `[]`
			if summary != "" {
				s = `[{"type":"summary_text","text":` + jsonString(summary) + `}]`
			}
			return `{"id":"` + rzItemID + `","type":"reasoning","content":[],"encrypted_content":` + jsonString(rzEnc) + `,"summary":` + s + `}`
		}
		call := func(status, args string) string {
			return `{"id":"fc_0a1b2c3d4e5f","type":"function_call","status":"` + status + `","arguments":` + jsonString(args) +
				`,"call_id":"` + c.ID + `","name":` + name + `}`
		}
		output := reasoning(rzSummary) + "," + call("completed", c.Args)
		if !stream {
			return scenario{Status: 200, Body: responsesObject(respID, model, "completed", "null", output, usageJSON, "null")}
		}
		seq := 0
		var b strings.Builder
		event := func(typ, fields string) {
			b.WriteString("event: " + typ + "\ndata: {\"type\":\"" + typ + "\"," + fields + `,"sequence_number":` + strconv.Itoa(seq) + "}\n\n")
			seq++
		}
		rs := `"item_id":"` + rzItemID + `","output_index":0`
		event("response.created", `"response":`+responsesObject(respID, model, "in_progress", "null", "", "null", "null"))
		event("response.in_progress", `"response":`+responsesObject(respID, model, "in_progress", "null", "", "null", "null"))
		event("response.output_item.added", `"item":`+reasoning("")+`,"output_index":0`)
		event("response.reasoning_summary_part.added", rs+`,"part":{"type":"summary_text","text":""},"summary_index":0`)
		for _, piece := range splitText(rzSummary, 3) {
			event("response.reasoning_summary_text.delta", rs+`,"delta":`+jsonString(piece)+`,"obfuscation":"ub","summary_index":0`)
		}
		event("response.reasoning_summary_text.done", rs+`,"text":`+jsonString(rzSummary)+`,"summary_index":0`)
		event("response.reasoning_summary_part.done", rs+`,"part":{"type":"summary_text","text":`+jsonString(rzSummary)+`},"summary_index":0`)
		event("response.output_item.done", `"item":`+reasoning(rzSummary)+`,"output_index":0`)
		fc := `"item_id":"fc_0a1b2c3d4e5f","output_index":1`
		event("response.output_item.added", `"item":`+call("in_progress", "")+`,"output_index":1`)
		for _, f := range c.Fragments {
			event("response.function_call_arguments.delta", fc+`,"delta":`+jsonString(f)+`,"obfuscation":"Qx1"`)
		}
		event("response.function_call_arguments.done", fc+`,"arguments":`+jsonString(c.Args))
		event("response.output_item.done", `"item":`+call("completed", c.Args)+`,"output_index":1`)
		event("response.completed", `"response":`+responsesObject(respID, model, "completed", "null", output, usageJSON, "null"))
		return scenario{Status: 200, Header: sseHeader, Body: b.String()}

	case bedrockConverse:
		return converseReasoningAnswer(c, stream)
	case geminiInteractions:
		return interactionsReasoningCallAnswer(model, stream, c)
	case gemini:
		fc := `"name":` + name + `,"args":` + c.Args
		if c.ID != "" {
			fc = `"id":"` + c.ID + `",` + fc
		}
		thought := `{"text":` + jsonString(rzThought) + `,"thought":true}`
		callPart := `{"functionCall":{` + fc + `},"thoughtSignature":"` + rzThSig + `"}`
		usageJSON := `{"promptTokenCount":54,"candidatesTokenCount":14,"totalTokenCount":132,"promptTokensDetails":[{"modality":"TEXT","tokenCount":54}],"thoughtsTokenCount":64}`
		chunk := func(parts string, final bool) string {
			finish := ""
			if final {
				finish = `,"finishReason":"STOP","finishMessage":"Model generated function call(s)."`
			}
			return `{"candidates":[{"content":{"parts":[` + parts + `],"role":"model"}` + finish + `,"index":0}],"usageMetadata":` + usageJSON +
				`,"modelVersion":` + jsonString(model) + `,"responseId":"2ACzaf-8I9HRz7IPlMmB4Qk"}`
		}
		if !stream {
			return scenario{Status: 200, Body: chunk(thought+","+callPart, true)}
		}
		return scenario{Status: 200, Header: http.Header{"Content-Type": {"text/event-stream"}},
			Body: "data: " + chunk(thought, false) + "\r\n\r\n" + "data: " + chunk(callPart, true) + "\r\n\r\n"}
	}
	panic("no reasoning answer for " + string(up))
}

// refusalKind is one way an upstream refuses or is stopped by its filters.
type refusalKind string

// Refusal kinds, by upstream family.
const (
	// refusalAnthropicText is Anthropic stop_reason refusal with visible
	// text and stop_details (category and explanation).
	refusalAnthropicText refusalKind = "anthropic-text"
	// refusalAnthropicExplained is Anthropic stop_reason refusal with empty
	// content and stop_details.explanation.
	refusalAnthropicExplained refusalKind = "anthropic-explanation-only"
	// refusalAnthropicBlank is Anthropic stop_reason refusal with empty
	// content and no stop_details: nothing to show a client.
	refusalAnthropicBlank refusalKind = "anthropic-blank"
	// refusalChat is a Chat message.refusal (delta.refusal when streamed).
	refusalChat refusalKind = "chat-refusal"
	// refusalResponses is a Responses refusal content part.
	refusalResponses refusalKind = "responses-refusal-part"
	// refusalGeminiSafety is a Gemini candidate with finishReason SAFETY
	// and no content.
	refusalGeminiSafety refusalKind = "gemini-safety"
	// refusalGeminiBlocked is a Gemini promptFeedback.blockReason without
	// candidates.
	refusalGeminiBlocked refusalKind = "gemini-prompt-blocked"
)

// The texts of the refusal scenarios.
const (
	refusalText        = "I can't help with that request — \"sorry\"."
	refusalExplanation = "The request asks for instructions that could cause serious harm."
)

// refusalKinds lists the refusal kinds an upstream of protocol up can
// produce.
func refusalKinds(up proto) []refusalKind {
	switch up.family() {
	case geminiInteractions:
		// Google documents no refusal or filter form of an
		// interaction (no finish reason, no prompt feedback).
		return nil
	case anthropicMsgs:
		return []refusalKind{refusalAnthropicText, refusalAnthropicExplained, refusalAnthropicBlank}
	case openaiChat:
		return []refusalKind{refusalChat}
	case openaiResponses:
		return []refusalKind{refusalResponses}
	case bedrockConverse:
		// Converse has no refusal: a withheld answer ends with the
		// filter's stop reason.
		return []refusalKind{refusalConverseFiltered, refusalConverseGuardrail}
	}
	return []refusalKind{refusalGeminiSafety, refusalGeminiBlocked}
}

// refusalAnswer is upstream up's answer of kind k, streamed or not.
func refusalAnswer(up proto, k refusalKind, model string, stream bool) scenario {
	model = rzModel(up, model)
	switch k {
	case refusalAnthropicText, refusalAnthropicExplained, refusalAnthropicBlank:
		details, content := `null`, ``
		switch k {
		case refusalAnthropicText:
			details = `{"type":"refusal","category":"cyber","explanation":` + jsonString(refusalExplanation) + `}`
			content = `{"type":"text","text":` + jsonString(refusalText) + `}`
		case refusalAnthropicExplained:
			details = `{"type":"refusal","category":null,"explanation":` + jsonString(refusalExplanation) + `}`
		}
		usageJSON := `{"input_tokens":20,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":12}`
		if !stream {
			return scenario{Status: 200, Body: `{"model":` + jsonString(model) + `,"id":"msg_01RefuseRefuseRefuse01","type":"message","role":"assistant","content":[` + content +
				`],"stop_reason":"refusal","stop_sequence":null,"stop_details":` + details + `,"usage":` + usageJSON + `}`}
		}
		var b strings.Builder
		event := func(name, data string) { b.WriteString("event: " + name + "\ndata: " + data + "\n\n") }
		event("message_start", `{"type":"message_start","message":{"model":`+jsonString(model)+`,"id":"msg_01RefuseRefuseRefuse02","type":"message","role":"assistant","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":20,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":1}}}`)
		if content != "" {
			event("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`)
			for _, piece := range splitText(refusalText, 3) {
				event("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":`+jsonString(piece)+`}}`)
			}
			event("content_block_stop", `{"type":"content_block_stop","index":0}`)
		}
		event("message_delta", `{"type":"message_delta","delta":{"stop_reason":"refusal","stop_sequence":null,"stop_details":`+details+`},"usage":`+usageJSON+`}`)
		event("message_stop", `{"type":"message_stop"}`)
		return scenario{Status: 200, Header: sseHeader, Body: b.String()}

	case refusalChat:
		usageJSON := `{"prompt_tokens":20,"completion_tokens":12,"total_tokens":32}`
		if !stream {
			return scenario{Status: 200, Body: `{"id":"chatcmpl-irefuse01","object":"chat.completion","created":1782321890,"model":` + jsonString(model) +
				`,"choices":[{"index":0,"message":{"role":"assistant","content":null,"refusal":` + jsonString(refusalText) + `,"annotations":[]},"logprobs":null,"finish_reason":"stop"}],` +
				`"usage":` + usageJSON + `,"service_tier":"default","system_fingerprint":"fp_itest01"}`}
		}
		chunk := func(delta, finish, usage string) string {
			choices := `[]`
			if delta != "" {
				choices = `[{"index":0,"delta":` + delta + `,"logprobs":null,"finish_reason":` + finish + `}]`
			}
			return `data: {"id":"chatcmpl-irefuse02","object":"chat.completion.chunk","created":1782321890,"model":` + jsonString(model) +
				`,"service_tier":"default","system_fingerprint":"fp_itest01","choices":` + choices + `,"usage":` + usage + "}\n\n"
		}
		var b strings.Builder
		b.WriteString(chunk(`{"role":"assistant","content":null,"refusal":""}`, "null", "null"))
		for _, piece := range splitText(refusalText, 3) {
			b.WriteString(chunk(`{"refusal":`+jsonString(piece)+`}`, "null", "null"))
		}
		b.WriteString(chunk(`{}`, `"stop"`, "null"))
		b.WriteString(chunk("", "", usageJSON))
		b.WriteString("data: [DONE]\n\n")
		return scenario{Status: 200, Header: sseHeader, Body: b.String()}

	case refusalResponses:
		const respID = "resp_irefuse0001"
		usageJSON := `{"input_tokens":20,"input_tokens_details":{"cached_tokens":0},"output_tokens":12,"output_tokens_details":{"reasoning_tokens":0},"total_tokens":32}`
		msg := func(status, part string) string {
			content := ""
			if part != "" {
				content = part
			}
			return `{"id":"msg_irefuse0001","type":"message","status":"` + status + `","content":[` + content + `],"role":"assistant"}`
		}
		part := `{"type":"refusal","refusal":` + jsonString(refusalText) + `}`
		if !stream {
			return scenario{Status: 200, Body: responsesObject(respID, model, "completed", "null", msg("completed", part), usageJSON, "null")}
		}
		seq := 0
		var b strings.Builder
		event := func(typ, fields string) {
			b.WriteString("event: " + typ + "\ndata: {\"type\":\"" + typ + "\"," + fields + `,"sequence_number":` + strconv.Itoa(seq) + "}\n\n")
			seq++
		}
		at := `"item_id":"msg_irefuse0001","output_index":0,"content_index":0`
		event("response.created", `"response":`+responsesObject(respID, model, "in_progress", "null", "", "null", "null"))
		event("response.in_progress", `"response":`+responsesObject(respID, model, "in_progress", "null", "", "null", "null"))
		event("response.output_item.added", `"item":`+msg("in_progress", "")+`,"output_index":0`)
		event("response.content_part.added", at+`,"part":{"type":"refusal","refusal":""}`)
		for _, piece := range splitText(refusalText, 3) {
			event("response.refusal.delta", at+`,"delta":`+jsonString(piece))
		}
		event("response.refusal.done", at+`,"refusal":`+jsonString(refusalText))
		event("response.content_part.done", at+`,"part":`+part)
		event("response.output_item.done", `"item":`+msg("completed", part)+`,"output_index":0`)
		event("response.completed", `"response":`+responsesObject(respID, model, "completed", "null", msg("completed", part), usageJSON, "null"))
		return scenario{Status: 200, Header: sseHeader, Body: b.String()}

	case refusalConverseFiltered, refusalConverseGuardrail:
		return converseRefusalAnswer(k, stream)
	case refusalGeminiSafety, refusalGeminiBlocked:
		usageJSON := `{"promptTokenCount":20,"totalTokenCount":20,"promptTokensDetails":[{"modality":"TEXT","tokenCount":20}]}`
		var body string
		if k == refusalGeminiSafety {
			body = `{"candidates":[{"finishReason":"SAFETY","index":0,"safetyRatings":[{"category":"HARM_CATEGORY_DANGEROUS_CONTENT","probability":"HIGH","blocked":true}]}],` +
				`"usageMetadata":` + usageJSON + `,"modelVersion":` + jsonString(model) + `,"responseId":"irefuse01"}`
		} else {
			body = `{"promptFeedback":{"blockReason":"SAFETY","safetyRatings":[{"category":"HARM_CATEGORY_DANGEROUS_CONTENT","probability":"HIGH","blocked":true}]},` +
				`"usageMetadata":` + usageJSON + `,"modelVersion":` + jsonString(model) + `,"responseId":"irefuse02"}`
		}
		if !stream {
			return scenario{Status: 200, Body: body}
		}
		return scenario{Status: 200, Header: http.Header{"Content-Type": {"text/event-stream"}}, Body: "data: " + body + "\r\n\r\n"}
	}
	panic("unknown refusal kind " + string(k))
}

// anthropicUsageAnswer is an Anthropic answer reporting u in Anthropic's
// meaning, thinking tokens included (output_tokens_details, which the
// default mock answer leaves out): input_tokens without the cache reads,
// cache_read_input_tokens, output_tokens with the thinking tokens.
func anthropicUsageAnswer(up proto, model, text string, u usage, stream bool) scenario {
	model = rzModel(up, model)
	usageJSON := `{"input_tokens":` + strconv.FormatInt(u.Input-u.CacheRead, 10) + `,"cache_creation_input_tokens":0,"cache_read_input_tokens":` +
		strconv.FormatInt(u.CacheRead, 10) + `,"output_tokens":` + strconv.FormatInt(u.Output, 10) +
		`,"output_tokens_details":{"thinking_tokens":` + strconv.FormatInt(u.Reasoning, 10) + `}}`
	if !stream {
		return scenario{Status: 200, Body: `{"model":` + jsonString(model) + `,"id":"msg_01UsageUsageUsage01","type":"message","role":"assistant",` +
			`"content":[{"type":"text","text":` + jsonString(text) + `}],"stop_reason":"end_turn","stop_sequence":null,"usage":` + usageJSON + `}`}
	}
	var b strings.Builder
	event := func(name, data string) { b.WriteString("event: " + name + "\ndata: " + data + "\n\n") }
	event("message_start", `{"type":"message_start","message":{"model":`+jsonString(model)+`,"id":"msg_01UsageUsageUsage02","type":"message","role":"assistant","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":`+
		strconv.FormatInt(u.Input-u.CacheRead, 10)+`,"cache_creation_input_tokens":0,"cache_read_input_tokens":`+strconv.FormatInt(u.CacheRead, 10)+`,"output_tokens":1}}}`)
	event("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`)
	event("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":`+jsonString(text)+`}}`)
	event("content_block_stop", `{"type":"content_block_stop","index":0}`)
	event("message_delta", `{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":`+usageJSON+`}`)
	event("message_stop", `{"type":"message_stop"}`)
	return scenario{Status: 200, Header: sseHeader, Body: b.String()}
}
