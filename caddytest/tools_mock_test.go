package caddytest

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"
)

// This file gives the mock upstreams their tool-use side: answers with tool
// calls in each protocol's form (streamed arguments in several fragments),
// and a view of a request's tools, tool calls, tool results and images in
// each protocol's form, with the checks the tool tests set on the mocks.

// mockCall is a tool call a mock answers with.
type mockCall struct {
	// ID is the call id the upstream gives; empty for the Gemini API.
	ID, Name string
	// Args is the arguments' JSON; "" means a call without arguments, in
	// the form the protocol uses for it (see toolCallAnswer).
	Args string
	// Fragments is how Args is split when streamed (Chat, Responses,
	// Anthropic); Gemini streams whole calls.
	Fragments []string
}

// toolUsage is the usage tool-call answers report.
var toolUsage = usage{Input: 120, Output: 30}

// toolCallAnswer is protocol p's answer with calls, streamed or not. A call
// without arguments is sent as upstreams send it: Chat "{}" (streamed: one
// "{}" argument delta after the header), Responses "{}" (streamed: no delta, only the
// arguments.done event), Anthropic input {} (streamed: one empty
// input_json_delta, as the real API does), Gemini a functionCall without
// args.
func toolCallAnswer(p proto, model string, calls []mockCall, stream bool) scenario {
	return textCallAnswer(p, model, "", calls, stream)
}

// textCallAnswer is toolCallAnswer with the assistant's text before the
// calls, when text is not empty: the first step of an application's tool
// loop ("Let me look that up." and a call), streamed in three deltas.
func textCallAnswer(p proto, model, text string, calls []mockCall, stream bool) scenario {
	sse := http.Header{"Content-Type": {"text/event-stream; charset=utf-8"}}
	pieces := splitText(text, 3)
	u := toolUsage
	n := func(v int64) string { return strconv.FormatInt(v, 10) }
	argsOr := func(c mockCall) string {
		if c.Args == "" {
			return "{}"
		}
		return c.Args
	}
	switch p {
	case openaiChat:
		usageJSON := `{"prompt_tokens":` + n(u.Input) + `,"completion_tokens":` + n(u.Output) + `,"total_tokens":` + n(u.Input+u.Output) + `}`
		if !stream {
			var tcs []string
			for _, c := range calls {
				tcs = append(tcs, `{"id":"`+c.ID+`","type":"function","function":{"name":"`+c.Name+`","arguments":`+jsonString(argsOr(c))+`}}`)
			}
			content := "null"
			if text != "" {
				content = jsonString(text)
			}
			return scenario{Status: 200, Body: `{"id":"chatcmpl-itool01","object":"chat.completion","created":1782321890,"model":` + jsonString(model) +
				`,"choices":[{"index":0,"message":{"role":"assistant","content":` + content + `,"tool_calls":[` + strings.Join(tcs, ",") + `],"refusal":null,"annotations":[]},` +
				`"logprobs":null,"finish_reason":"tool_calls"}],"usage":` + usageJSON + `,"service_tier":"default","system_fingerprint":"fp_itest01"}`}
		}
		chunk := func(choices, usage string) string {
			return `data: {"id":"chatcmpl-itool02","object":"chat.completion.chunk","created":1782321890,"model":` + jsonString(model) +
				`,"service_tier":"default","system_fingerprint":"fp_itest01","choices":` + choices + `,"usage":` + usage + "}\n\n"
		}
		delta := func(d, finish string) string {
			return `[{"index":0,"delta":` + d + `,"logprobs":null,"finish_reason":` + finish + `}]`
		}
		var b strings.Builder
		b.WriteString(chunk(delta(`{"role":"assistant","content":null,"refusal":null}`, "null"), "null"))
		for _, piece := range pieces {
			b.WriteString(chunk(delta(`{"content":`+jsonString(piece)+`}`, "null"), "null"))
		}
		for i, c := range calls {
			b.WriteString(chunk(delta(`{"tool_calls":[{"index":`+strconv.Itoa(i)+`,"id":"`+c.ID+`","type":"function","function":{"name":"`+c.Name+`","arguments":""}}]}`, "null"), "null"))
			frags := c.Fragments
			if c.Args == "" {
				frags = []string{"{}"}
			}
			for _, f := range frags {
				b.WriteString(chunk(delta(`{"tool_calls":[{"index":`+strconv.Itoa(i)+`,"function":{"arguments":`+jsonString(f)+`}}]}`, "null"), "null"))
			}
		}
		b.WriteString(chunk(delta(`{}`, `"tool_calls"`), "null"))
		b.WriteString(chunk(`[]`, usageJSON))
		b.WriteString("data: [DONE]\n\n")
		return scenario{Status: 200, Header: sse, Body: b.String()}

	case openaiResponses:
		usageJSON := `{"input_tokens":` + n(u.Input) + `,"input_tokens_details":{"cached_tokens":0},"output_tokens":` + n(u.Output) +
			`,"output_tokens_details":{"reasoning_tokens":0},"total_tokens":` + n(u.Input+u.Output) + `}`
		item := func(i int, c mockCall, status, args string) string {
			return `{"id":"fc_itest000` + strconv.Itoa(i) + `","type":"function_call","status":"` + status + `","arguments":` + jsonString(args) +
				`,"call_id":"` + c.ID + `","name":"` + c.Name + `"}`
		}
		// The assistant's text is a message item before the calls.
		msg := func(status string, parts bool) string {
			content := ""
			if parts {
				content = `{"type":"output_text","annotations":[],"logprobs":[],"text":` + jsonString(text) + `}`
			}
			return `{"id":"` + toolMessageID + `","type":"message","status":"` + status + `","content":[` + content + `],"role":"assistant"}`
		}
		first := 0
		var done []string
		if text != "" {
			first = 1
			done = append(done, msg("completed", true))
		}
		for i, c := range calls {
			done = append(done, item(i, c, "completed", argsOr(c)))
		}
		const respID = "resp_itool01"
		if !stream {
			return scenario{Status: 200, Body: responsesObject(respID, model, "completed", "null", strings.Join(done, ","), usageJSON, "null")}
		}
		seq := 0
		var b strings.Builder
		event := func(typ, fields string) {
			b.WriteString("event: " + typ + "\ndata: {\"type\":\"" + typ + "\"," + fields + `,"sequence_number":` + strconv.Itoa(seq) + "}\n\n")
			seq++
		}
		event("response.created", `"response":`+responsesObject(respID, model, "in_progress", "null", "", "null", "null"))
		event("response.in_progress", `"response":`+responsesObject(respID, model, "in_progress", "null", "", "null", "null"))
		if text != "" {
			ref := `"item_id":"` + toolMessageID + `","output_index":0`
			event("response.output_item.added", `"item":`+msg("in_progress", false)+`,"output_index":0`)
			event("response.content_part.added", `"content_index":0,`+ref+`,"part":{"type":"output_text","annotations":[],"logprobs":[],"text":""}`)
			for _, piece := range pieces {
				event("response.output_text.delta", `"content_index":0,"delta":`+jsonString(piece)+`,`+ref+`,"logprobs":[],"obfuscation":"Qx1"`)
			}
			event("response.output_text.done", `"content_index":0,`+ref+`,"logprobs":[],"text":`+jsonString(text))
			event("response.content_part.done", `"content_index":0,`+ref+`,"part":{"type":"output_text","annotations":[],"logprobs":[],"text":`+jsonString(text)+`}`)
			event("response.output_item.done", `"item":`+done[0]+`,"output_index":0`)
		}
		for i, c := range calls {
			oi := `,"output_index":` + strconv.Itoa(first+i)
			itemID := `"item_id":"fc_itest000` + strconv.Itoa(i) + `"`
			event("response.output_item.added", `"item":`+item(i, c, "in_progress", "")+oi)
			for _, f := range c.Fragments {
				event("response.function_call_arguments.delta", `"delta":`+jsonString(f)+`,`+itemID+`,"obfuscation":"Qx1"`+oi)
			}
			event("response.function_call_arguments.done", `"arguments":`+jsonString(argsOr(c))+`,`+itemID+oi)
			event("response.output_item.done", `"item":`+done[first+i]+oi)
		}
		event("response.completed", `"response":`+responsesObject(respID, model, "completed", "null", strings.Join(done, ","), usageJSON, "null"))
		return scenario{Status: 200, Header: sse, Body: b.String()}

	case anthropicMsgs, vertexAnthropic, bedrockAnthropic:
		id := "msg_01ItoolItoolItoolItool01"
		switch p {
		case vertexAnthropic:
			id = "msg_vrtx_01ItoolItoolItoolIt01"
			model = strings.Replace(model, "@", "-", 1)
		case bedrockAnthropic:
			id = "msg_bdrk_01ItoolItoolItoolIt01"
			model = bedrockVendorModel(model)
		}
		usageJSON := `{"input_tokens":` + n(u.Input) + `,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":` + n(u.Output) + `}`
		if !stream {
			var blocks []string
			if text != "" {
				blocks = append(blocks, `{"type":"text","text":`+jsonString(text)+`}`)
			}
			for _, c := range calls {
				blocks = append(blocks, `{"type":"tool_use","id":"`+c.ID+`","name":"`+c.Name+`","input":`+argsOr(c)+`}`)
			}
			return scenario{Status: 200, Body: `{"model":` + jsonString(model) + `,"id":"` + id + `","type":"message","role":"assistant","content":[` +
				strings.Join(blocks, ",") + `],"stop_reason":"tool_use","stop_sequence":null,"usage":` + usageJSON + `}`}
		}
		var b strings.Builder
		event := func(name, data string) { b.WriteString("event: " + name + "\ndata: " + data + "\n\n") }
		event("message_start", `{"type":"message_start","message":{"model":`+jsonString(model)+`,"id":"`+id+`","type":"message","role":"assistant","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":`+n(u.Input)+`,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":1}}}`)
		event("ping", `{"type": "ping"}`)
		first := 0
		if text != "" {
			first = 1
			event("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`)
			for _, piece := range pieces {
				event("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":`+jsonString(piece)+`}}`)
			}
			event("content_block_stop", `{"type":"content_block_stop","index":0}`)
		}
		for i, c := range calls {
			idx := strconv.Itoa(first + i)
			event("content_block_start", `{"type":"content_block_start","index":`+idx+`,"content_block":{"type":"tool_use","id":"`+c.ID+`","name":"`+c.Name+`","input":{}}}`)
			frags := c.Fragments
			if c.Args == "" {
				frags = []string{""}
			}
			for _, f := range frags {
				event("content_block_delta", `{"type":"content_block_delta","index":`+idx+`,"delta":{"type":"input_json_delta","partial_json":`+jsonString(f)+`}}`)
			}
			event("content_block_stop", `{"type":"content_block_stop","index":`+idx+`}`)
		}
		event("message_delta", `{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":`+usageJSON+`}`)
		event("message_stop", `{"type":"message_stop"}`)
		return scenario{Status: 200, Header: sse, Body: b.String()}

	case bedrockConverse:
		return converseToolCallAnswer(text, calls, stream)
	case geminiInteractions, vertexInteractions:
		return interactionsCallAnswer(model, text, pieces, calls, stream)
	case gemini, vertex:
		part := func(c mockCall) string {
			fc := `"name":"` + c.Name + `"`
			if c.ID != "" {
				fc = `"id":"` + c.ID + `",` + fc
			}
			if c.Args != "" {
				fc += `,"args":` + c.Args
			}
			return `{"functionCall":{` + fc + `}}`
		}
		usageJSON := `{"promptTokenCount":` + n(u.Input) + `,"candidatesTokenCount":` + n(u.Output) + `,"totalTokenCount":` + n(u.Input+u.Output) + `}`
		resp := func(parts []string, final bool) string {
			finish := ""
			if final {
				finish = `,"finishReason":"STOP"`
			}
			return `{"candidates":[{"content":{"role":"model","parts":[` + strings.Join(parts, ",") + `]}` + finish + `,"index":0}],"usageMetadata":` + usageJSON +
				`,"modelVersion":` + jsonString(model) + `,"responseId":"itool01"}`
		}
		var parts []string
		for _, c := range calls {
			parts = append(parts, part(c))
		}
		if !stream {
			if text != "" {
				parts = append([]string{`{"text":` + jsonString(text) + `}`}, parts...)
			}
			return scenario{Status: 200, Body: resp(parts, true)}
		}
		// The text comes in chunks of its own before the calls. The
		// Gemini API streams one call per chunk (each at part index 0);
		// Vertex sends them together in one chunk.
		var b strings.Builder
		for _, piece := range pieces {
			b.WriteString("data: " + resp([]string{`{"text":` + jsonString(piece) + `}`}, false) + "\r\n\r\n")
		}
		if p == gemini {
			for i, pt := range parts {
				b.WriteString("data: " + resp([]string{pt}, i == len(parts)-1) + "\r\n\r\n")
			}
		} else {
			b.WriteString("data: " + resp(parts, true) + "\r\n\r\n")
		}
		return scenario{Status: 200, Header: http.Header{"Content-Type": {"text/event-stream"}}, Body: b.String()}
	}
	panic("unknown protocol " + string(p))
}

// toolMessageID is the id of the message item of a Responses answer with
// text before its calls.
const toolMessageID = "msg_0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f6071"

// upTool, upCall, upResult and upImage are what an upstream request carries.
type upTool struct {
	Name, Description string
	Schema            any
}

type upCall struct {
	ID, Name string
	Args     any
}

type upResult struct {
	ID, Name, Text string
}

type upImage struct {
	MIME string
	Data []byte
}

// upView is an upstream request's tools, the tool calls of its assistant
// turns, its tool results and its images.
type upView struct {
	Tools    []upTool
	Calls    []upCall
	Results  []upResult
	Images   []upImage
	Problems []string
}

func parseJSONValue(s string) (any, error) {
	var v any
	err := json.Unmarshal([]byte(s), &v)
	return v, err
}

// textOf is the text of a content that is a string or an array of text
// parts.
func textOf(r gjson.Result) string {
	if r.Type == gjson.String {
		return r.Str
	}
	var b strings.Builder
	for _, p := range r.Array() {
		b.WriteString(p.Get("text").Str)
	}
	return b.String()
}

// viewTools reads body as an upstream request of protocol p.
func viewTools(p proto, body []byte) upView {
	var v upView
	bad := func(format string, args ...any) { v.Problems = append(v.Problems, fmt.Sprintf(format, args...)) }
	root := gjson.ParseBytes(body)
	dataURLImage := func(where, u string) {
		rest, ok := strings.CutPrefix(u, "data:")
		mime, b64, ok2 := strings.Cut(rest, ";base64,")
		if !ok || !ok2 {
			bad("%s: image URL %.60q is not a base64 data URL", where, u)
			return
		}
		data, err := base64.StdEncoding.DecodeString(b64)
		if err != nil {
			bad("%s: image data does not decode: %v", where, err)
		}
		v.Images = append(v.Images, upImage{MIME: mime, Data: data})
	}
	b64Image := func(where, mime, b64 string) {
		data, err := base64.StdEncoding.DecodeString(b64)
		if err != nil {
			bad("%s: image data does not decode: %v", where, err)
		}
		v.Images = append(v.Images, upImage{MIME: mime, Data: data})
	}
	switch p.family() {
	case openaiChat:
		for i, t := range root.Get("tools").Array() {
			if t.Get("type").Str != "function" {
				bad("tools[%d].type %q, want function", i, t.Get("type").Str)
			}
			v.Tools = append(v.Tools, upTool{t.Get("function.name").Str, t.Get("function.description").Str, t.Get("function.parameters").Value()})
		}
		for i, m := range root.Get("messages").Array() {
			switch m.Get("role").Str {
			case "assistant":
				for j, tc := range m.Get("tool_calls").Array() {
					a := tc.Get("function.arguments")
					if a.Type != gjson.String {
						bad("messages[%d].tool_calls[%d].function.arguments is not a string: %s", i, j, a.Raw)
					}
					args, err := parseJSONValue(a.Str)
					if err != nil {
						bad("messages[%d].tool_calls[%d].function.arguments %q is not JSON", i, j, a.Str)
					}
					if tc.Get("type").Str != "function" {
						bad("messages[%d].tool_calls[%d].type %q, want function", i, j, tc.Get("type").Str)
					}
					v.Calls = append(v.Calls, upCall{tc.Get("id").Str, tc.Get("function.name").Str, args})
				}
			case "tool":
				v.Results = append(v.Results, upResult{ID: m.Get("tool_call_id").Str, Text: textOf(m.Get("content"))})
			case "user":
				for _, c := range m.Get("content").Array() {
					if c.Get("type").Str == "image_url" {
						dataURLImage(fmt.Sprintf("messages[%d]", i), c.Get("image_url.url").Str)
					}
				}
			}
		}
	case openaiResponses:
		for i, t := range root.Get("tools").Array() {
			if t.Get("type").Str != "function" {
				bad("tools[%d].type %q, want function", i, t.Get("type").Str)
			}
			v.Tools = append(v.Tools, upTool{t.Get("name").Str, t.Get("description").Str, t.Get("parameters").Value()})
		}
		for i, it := range root.Get("input").Array() {
			switch it.Get("type").Str {
			case "function_call":
				a := it.Get("arguments")
				args, err := parseJSONValue(a.Str)
				if a.Type != gjson.String || err != nil {
					bad("input[%d].arguments %s is not a JSON string of JSON", i, a.Raw)
				}
				v.Calls = append(v.Calls, upCall{it.Get("call_id").Str, it.Get("name").Str, args})
			case "function_call_output":
				v.Results = append(v.Results, upResult{ID: it.Get("call_id").Str, Text: textOf(it.Get("output"))})
			case "message", "":
				for _, c := range it.Get("content").Array() {
					if c.Get("type").Str == "input_image" {
						dataURLImage(fmt.Sprintf("input[%d]", i), c.Get("image_url").Str)
					}
				}
			}
		}
	case anthropicMsgs:
		for _, t := range root.Get("tools").Array() {
			v.Tools = append(v.Tools, upTool{t.Get("name").Str, t.Get("description").Str, t.Get("input_schema").Value()})
		}
		for i, m := range root.Get("messages").Array() {
			for _, c := range m.Get("content").Array() {
				switch c.Get("type").Str {
				case "tool_use":
					if m.Get("role").Str != "assistant" {
						bad("messages[%d]: tool_use in a %s message", i, m.Get("role").Str)
					}
					v.Calls = append(v.Calls, upCall{c.Get("id").Str, c.Get("name").Str, c.Get("input").Value()})
				case "tool_result":
					v.Results = append(v.Results, upResult{ID: c.Get("tool_use_id").Str, Text: textOf(c.Get("content"))})
				case "image":
					if c.Get("source.type").Str != "base64" {
						bad("messages[%d]: image source type %q, want base64", i, c.Get("source.type").Str)
					}
					b64Image(fmt.Sprintf("messages[%d]", i), c.Get("source.media_type").Str, c.Get("source.data").Str)
				}
			}
		}
	case bedrockConverse:
		viewConverse(root, &v, bad)
	case geminiInteractions:
		viewInteractionsTools(root, &v, bad)
	case gemini:
		for i, t := range root.Get("tools").Array() {
			for j, d := range t.Get("functionDeclarations").Array() {
				if !d.Get("parametersJsonSchema").Exists() {
					bad("tools[%d].functionDeclarations[%d] has no parametersJsonSchema: %s", i, j, d.Raw)
				}
				v.Tools = append(v.Tools, upTool{d.Get("name").Str, d.Get("description").Str, d.Get("parametersJsonSchema").Value()})
			}
		}
		for i, c := range root.Get("contents").Array() {
			for _, part := range c.Get("parts").Array() {
				if fc := part.Get("functionCall"); fc.Exists() {
					if c.Get("role").Str != "model" {
						bad("contents[%d]: functionCall in a %s turn", i, c.Get("role").Str)
					}
					args := fc.Get("args").Value()
					if args == nil {
						args = map[string]any{}
					}
					v.Calls = append(v.Calls, upCall{fc.Get("id").Str, fc.Get("name").Str, args})
				}
				if fr := part.Get("functionResponse"); fr.Exists() {
					text := fr.Get("response.output")
					if text.Type != gjson.String {
						bad("contents[%d]: functionResponse.response %s has no output string", i, fr.Get("response").Raw)
					}
					v.Results = append(v.Results, upResult{ID: fr.Get("id").Str, Name: fr.Get("name").Str, Text: text.Str})
				}
				if d := part.Get("inlineData"); d.Exists() {
					b64Image(fmt.Sprintf("contents[%d]", i), d.Get("mimeType").Str, d.Get("data").Str)
				}
			}
		}
	}
	return v
}

// normJSON makes v comparable with a value json.Unmarshal produced.
func normJSON(v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("unmarshalable %T", v)
	}
	var out any
	_ = json.Unmarshal(b, &out)
	return out
}

// checkToolDefs returns how v's tools differ from want.
func checkToolDefs(v upView, want []toolDef) []string {
	var problems []string
	if len(v.Tools) != len(want) {
		return []string{fmt.Sprintf("%d tools arrived, want %d: %+v", len(v.Tools), len(want), v.Tools)}
	}
	for i, d := range want {
		got := v.Tools[i]
		if got.Name != d.Name || got.Description != d.Description {
			problems = append(problems, fmt.Sprintf("tool %d is %q (%q), want %q (%q)", i, got.Name, got.Description, d.Name, d.Description))
		}
		if !reflect.DeepEqual(normJSON(got.Schema), normJSON(d.Schema)) {
			g, _ := json.Marshal(got.Schema)
			w, _ := json.Marshal(d.Schema)
			problems = append(problems, fmt.Sprintf("tool %q schema arrived as %s, want %s", d.Name, g, w))
		}
	}
	return problems
}

// checkHistory returns how v's assistant tool calls and tool results differ
// from the calls the upstream made (sent) and the results the client gave
// (results, by call name). Upstream p's calls must come back with the ids
// it gave them; the results attach by id, or for the Gemini API and Vertex
// (which give none) by name.
func checkHistory(p proto, v upView, sent []mockCall, results map[string]string) []string {
	var problems []string
	if len(v.Calls) != len(sent) {
		return []string{fmt.Sprintf("the history carries %d tool calls, want %d: %+v", len(v.Calls), len(sent), v.Calls)}
	}
	for i, c := range sent {
		got := v.Calls[i]
		want := any(map[string]any{})
		if c.Args != "" {
			want, _ = parseJSONValue(c.Args)
		}
		if got.Name != c.Name || !reflect.DeepEqual(normJSON(got.Args), want) {
			problems = append(problems, fmt.Sprintf("history call %d is %s(%v), want %s(%s)", i, got.Name, normJSON(got.Args), c.Name, c.Args))
		}
		if c.ID != "" && got.ID != c.ID {
			problems = append(problems, fmt.Sprintf("history call %d has id %q, want the upstream's %q", i, got.ID, c.ID))
		}
	}
	if len(v.Results) != len(sent) {
		return append(problems, fmt.Sprintf("%d tool results arrived, want %d: %+v", len(v.Results), len(sent), v.Results))
	}
	for _, c := range sent {
		var found *upResult
		for i := range v.Results {
			r := &v.Results[i]
			if (p.family() == gemini && r.Name == c.Name) || (p.family() != gemini && r.ID == c.ID) {
				found = r
				break
			}
		}
		if found == nil {
			problems = append(problems, fmt.Sprintf("no tool result attached to call %s (id %q): %+v", c.Name, c.ID, v.Results))
			continue
		}
		if found.Text != results[c.Name] {
			problems = append(problems, fmt.Sprintf("the result of %s arrived as %q, want %q", c.Name, found.Text, results[c.Name]))
		}
	}
	return problems
}

// setCheck makes the mock validate every request body with check.
func (m *mockUpstream) setCheck(check func(body []byte) []string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.check = check
}
