package caddytest

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"
)

// textCallAnswer is protocol p's answer of an assistant turn that says text
// and then calls c, streamed or not, as the provider writes it: the first
// step of an application's tool loop.
func textCallAnswer(p proto, model, text string, c mockCall, stream bool) scenario {
	u := toolUsage
	n := func(v int64) string { return strconv.FormatInt(v, 10) }
	pieces := splitText(text, 3)
	sse := http.Header{"Content-Type": {"text/event-stream; charset=utf-8"}}
	switch p {
	case openaiChat:
		usageJSON := `{"prompt_tokens":` + n(u.Input) + `,"completion_tokens":` + n(u.Output) + `,"total_tokens":` + n(u.Input+u.Output) + `}`
		if !stream {
			return scenario{Status: 200, Body: `{"id":"chatcmpl-isdk01","object":"chat.completion","created":1782321890,"model":` + jsonString(model) +
				`,"choices":[{"index":0,"message":{"role":"assistant","content":` + jsonString(text) + `,"tool_calls":[{"id":"` + c.ID +
				`","type":"function","function":{"name":"` + c.Name + `","arguments":` + jsonString(c.Args) + `}}],"refusal":null,"annotations":[]},` +
				`"logprobs":null,"finish_reason":"tool_calls"}],"usage":` + usageJSON + `,"service_tier":"default","system_fingerprint":"fp_isdk01"}`}
		}
		var b strings.Builder
		chunk := func(delta, finish, usage string) {
			choices := `[{"index":0,"delta":` + delta + `,"logprobs":null,"finish_reason":` + finish + `}]`
			if delta == "" {
				choices = `[]`
			}
			b.WriteString(`data: {"id":"chatcmpl-isdk02","object":"chat.completion.chunk","created":1782321890,"model":` + jsonString(model) +
				`,"service_tier":"default","system_fingerprint":"fp_isdk01","choices":` + choices + `,"usage":` + usage + "}\n\n")
		}
		chunk(`{"role":"assistant","content":"","refusal":null}`, "null", "null")
		for _, piece := range pieces {
			chunk(`{"content":`+jsonString(piece)+`}`, "null", "null")
		}
		chunk(`{"tool_calls":[{"index":0,"id":"`+c.ID+`","type":"function","function":{"name":"`+c.Name+`","arguments":""}}]}`, "null", "null")
		for _, f := range c.Fragments {
			chunk(`{"tool_calls":[{"index":0,"function":{"arguments":`+jsonString(f)+`}}]}`, "null", "null")
		}
		chunk(`{}`, `"tool_calls"`, "null")
		chunk("", "", usageJSON)
		b.WriteString("data: [DONE]\n\n")
		return scenario{Status: 200, Header: sse, Body: b.String()}

	case openaiResponses:
		usageJSON := `{"input_tokens":` + n(u.Input) + `,"input_tokens_details":{"cached_tokens":0},"output_tokens":` + n(u.Output) +
			`,"output_tokens_details":{"reasoning_tokens":0},"total_tokens":` + n(u.Input+u.Output) + `}`
		msg := func(status, text string, parts bool) string {
			content := ""
			if parts {
				content = `{"type":"output_text","annotations":[],"logprobs":[],"text":` + jsonString(text) + `}`
			}
			return `{"id":"` + sdkMessageID + `","type":"message","status":"` + status + `","content":[` + content + `],"role":"assistant"}`
		}
		call := func(status, args string) string {
			return `{"id":"` + sdkCallItemID + `","type":"function_call","status":"` + status + `","arguments":` + jsonString(args) +
				`,"call_id":"` + c.ID + `","name":"` + c.Name + `"}`
		}
		output := msg("completed", text, true) + "," + call("completed", c.Args)
		const respID = "resp_isdk01"
		if !stream {
			return scenario{Status: 200, Body: responsesObject(respID, model, "completed", "null", output, usageJSON, "null")}
		}
		seq := 0
		var b strings.Builder
		event := func(typ, fields string) {
			b.WriteString("event: " + typ + "\ndata: {\"type\":\"" + typ + "\"," + fields + `,"sequence_number":` + strconv.Itoa(seq) + "}\n\n")
			seq++
		}
		event("response.created", `"response":`+responsesObject(respID, model, "in_progress", "null", "", "null", "null"))
		event("response.in_progress", `"response":`+responsesObject(respID, model, "in_progress", "null", "", "null", "null"))
		ref := `"item_id":"` + sdkMessageID + `","output_index":0`
		event("response.output_item.added", `"item":`+msg("in_progress", "", false)+`,"output_index":0`)
		event("response.content_part.added", `"content_index":0,`+ref+`,"part":{"type":"output_text","annotations":[],"logprobs":[],"text":""}`)
		for _, piece := range pieces {
			event("response.output_text.delta", `"content_index":0,"delta":`+jsonString(piece)+`,`+ref+`,"logprobs":[],"obfuscation":"Qx1"`)
		}
		event("response.output_text.done", `"content_index":0,`+ref+`,"logprobs":[],"text":`+jsonString(text))
		event("response.content_part.done", `"content_index":0,`+ref+`,"part":{"type":"output_text","annotations":[],"logprobs":[],"text":`+jsonString(text)+`}`)
		event("response.output_item.done", `"item":`+msg("completed", text, true)+`,"output_index":0`)
		event("response.output_item.added", `"item":`+call("in_progress", "")+`,"output_index":1`)
		for _, f := range c.Fragments {
			event("response.function_call_arguments.delta", `"delta":`+jsonString(f)+`,"item_id":"`+sdkCallItemID+`","obfuscation":"Qx1","output_index":1`)
		}
		event("response.function_call_arguments.done", `"arguments":`+jsonString(c.Args)+`,"item_id":"`+sdkCallItemID+`","output_index":1`)
		event("response.output_item.done", `"item":`+call("completed", c.Args)+`,"output_index":1`)
		event("response.completed", `"response":`+responsesObject(respID, model, "completed", "null", output, usageJSON, "null"))
		return scenario{Status: 200, Header: sse, Body: b.String()}

	case anthropicMsgs, vertexAnthropic, bedrockAnthropic:
		id := "msg_01IsdkIsdkIsdkIsdkIsdk01"
		switch p {
		case vertexAnthropic:
			id = "msg_vrtx_01IsdkIsdkIsdkIsdk01"
			model = strings.Replace(model, "@", "-", 1)
		case bedrockAnthropic:
			id = "msg_bdrk_01IsdkIsdkIsdkIsdk01"
			model = bedrockVendorModel(model)
		}
		usageJSON := `{"input_tokens":` + n(u.Input) + `,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":` + n(u.Output) + `}`
		if !stream {
			return scenario{Status: 200, Body: `{"model":` + jsonString(model) + `,"id":"` + id + `","type":"message","role":"assistant","content":[` +
				`{"type":"text","text":` + jsonString(text) + `},{"type":"tool_use","id":"` + c.ID + `","name":"` + c.Name + `","input":` + c.Args + `}],` +
				`"stop_reason":"tool_use","stop_sequence":null,"usage":` + usageJSON + `}`}
		}
		var b strings.Builder
		event := func(name, data string) { b.WriteString("event: " + name + "\ndata: " + data + "\n\n") }
		event("message_start", `{"type":"message_start","message":{"model":`+jsonString(model)+`,"id":"`+id+`","type":"message","role":"assistant","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":`+n(u.Input)+`,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":1}}}`)
		event("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`)
		for _, piece := range pieces {
			event("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":`+jsonString(piece)+`}}`)
		}
		event("content_block_stop", `{"type":"content_block_stop","index":0}`)
		event("content_block_start", `{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"`+c.ID+`","name":"`+c.Name+`","input":{}}}`)
		for _, f := range c.Fragments {
			event("content_block_delta", `{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":`+jsonString(f)+`}}`)
		}
		event("content_block_stop", `{"type":"content_block_stop","index":1}`)
		event("message_delta", `{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":`+usageJSON+`}`)
		event("message_stop", `{"type":"message_stop"}`)
		return scenario{Status: 200, Header: sse, Body: b.String()}

	case bedrockConverse:
		textBlock := `{"text":` + jsonString(text) + `}`
		if !stream {
			return scenario{Status: 200, Body: converseAnswer([]string{textBlock, `{"toolUse":{"toolUseId":"` + c.ID + `","name":` + jsonString(c.Name) + `,"input":` + c.Args + `}}`}, "tool_use", toolUsage, "")}
		}
		var b strings.Builder
		b.WriteString(converseEvent("messageStart", `{"role":"assistant"}`))
		for _, piece := range pieces {
			b.WriteString(converseEvent("contentBlockDelta", `{"contentBlockIndex":0,"delta":{"text":`+jsonString(piece)+`}`+conversePadding+`}`))
		}
		b.WriteString(converseEvent("contentBlockStop", `{"contentBlockIndex":0}`))
		b.WriteString(converseToolUseEvents(1, c))
		b.WriteString(converseEvent("messageStop", `{"stopReason":"tool_use"}`))
		b.WriteString(converseEvent("metadata", `{"usage":`+converseUsage(toolUsage)+`,"metrics":{"latencyMs":732}}`))
		return scenario{Status: 200, Header: sseHeader, Body: b.String()}

	case gemini, vertex:
		fc := `"name":"` + c.Name + `","args":` + c.Args
		if c.ID != "" {
			fc = `"id":"` + c.ID + `",` + fc
		}
		usageJSON := `{"promptTokenCount":` + n(u.Input) + `,"candidatesTokenCount":` + n(u.Output) + `,"totalTokenCount":` + n(u.Input+u.Output) + `}`
		resp := func(parts string, final bool) string {
			finish := ""
			if final {
				finish = `,"finishReason":"STOP"`
			}
			return `{"candidates":[{"content":{"role":"model","parts":[` + parts + `]}` + finish + `,"index":0}],"usageMetadata":` + usageJSON +
				`,"modelVersion":` + jsonString(model) + `,"responseId":"isdk01"}`
		}
		call := `{"functionCall":{` + fc + `}}`
		if !stream {
			return scenario{Status: 200, Body: resp(`{"text":`+jsonString(text)+`},`+call, true)}
		}
		var b strings.Builder
		for _, piece := range pieces {
			b.WriteString("data: " + resp(`{"text":`+jsonString(piece)+`}`, false) + "\r\n\r\n")
		}
		b.WriteString("data: " + resp(call, true) + "\r\n\r\n")
		return scenario{Status: 200, Header: http.Header{"Content-Type": {"text/event-stream"}}, Body: b.String()}
	}
	panic("unknown protocol " + string(p))
}

// The ids of the items the Responses mock answers the first step with,
// which it keeps, as OpenAI does with store on, for item references.
const (
	sdkMessageID  = "msg_0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f6071"
	sdkCallItemID = "fc_0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f6071"
)

// assistantTexts are the texts of the assistant turns of an upstream
// request of protocol p, each text part on its own (thoughts left out).
func assistantTexts(p proto, body []byte) []string {
	root := gjson.ParseBytes(body)
	var out []string
	add := func(content gjson.Result, textTypes ...string) {
		if content.Type == gjson.String {
			out = append(out, content.Str)
			return
		}
		for _, part := range content.Array() {
			t := part.Get("type").Str
			for _, want := range textTypes {
				if t == want || want == "" && !part.Get("thought").Bool() && part.Get("text").Exists() {
					out = append(out, part.Get("text").Str)
				}
			}
		}
	}
	switch p.family() {
	case openaiChat:
		for _, m := range root.Get("messages").Array() {
			if m.Get("role").Str == "assistant" {
				add(m.Get("content"), "text")
			}
		}
	case openaiResponses:
		for _, it := range root.Get("input").Array() {
			if it.Get("role").Str == "assistant" && (it.Get("type").Str == "" || it.Get("type").Str == "message") {
				add(it.Get("content"), "output_text", "input_text")
			}
		}
	case anthropicMsgs:
		for _, m := range root.Get("messages").Array() {
			if m.Get("role").Str == "assistant" {
				add(m.Get("content"), "text")
			}
		}
	case gemini:
		for _, c := range root.Get("contents").Array() {
			if c.Get("role").Str == "model" {
				add(c.Get("parts"), "")
			}
		}
	case bedrockConverse:
		for _, m := range root.Get("messages").Array() {
			if m.Get("role").Str == "assistant" {
				add(m.Get("content"), "")
			}
		}
	}
	return out
}
