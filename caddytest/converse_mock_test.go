package caddytest

import (
	"encoding/base64"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"
)

// This file gives the mocks their Converse side (Amazon Bedrock's Converse
// API, the protocol bedrock; its request rules are in
// converse_validate_test.go): its answers (plain, streamed as event stream
// messages named by their event, with tool calls, reasoning and filter
// stops), and views of a Converse request's tools, history and opaque
// reasoning values. The streams are
// written as SSE text, one event per message, which awsStreamFramer turns
// into Bedrock's event stream.

// converseUsage is the usage object of a Converse answer reporting u:
// inputTokens without the cache reads and writes, which have their own
// members, and totalTokens counting them all. Converse reports no
// reasoning tokens; outputTokens includes them.
func converseUsage(u usage) string {
	n := func(v int64) string { return strconv.FormatInt(v, 10) }
	s := `{"inputTokens":` + n(u.Input-u.CacheRead-u.CacheWrite) + `,"outputTokens":` + n(u.Output) + `,"totalTokens":` + n(u.Input+u.Output)
	if u.CacheRead > 0 || u.CacheWrite > 0 {
		s += `,"cacheReadInputTokens":` + n(u.CacheRead) + `,"cacheWriteInputTokens":` + n(u.CacheWrite)
	}
	return s + `}`
}

// converseStop is the Converse stopReason of a canonical stop of reply.
func converseStop(stop string) string {
	return map[string]string{"end": "end_turn", "max_tokens": "max_tokens", "stop_sequence": "stop_sequence"}[stop]
}

// converseStopFields is the end of a Converse answer after its stop
// reason: Claude reports the sequence that matched in
// additionalModelResponseFields.
func converseStopFields(r reply) string {
	if r.Stop != "stop_sequence" {
		return ""
	}
	return `,"additionalModelResponseFields":{"stop_sequence":` + jsonString(r.StopSequence) + `}`
}

// converseAnswer is a non-streamed Converse answer with content blocks,
// a stop reason and usage; it names neither an id nor a model.
func converseAnswer(blocks []string, stop string, u usage, extra string) string {
	return `{"output":{"message":{"role":"assistant","content":[` + strings.Join(blocks, ",") + `]}},"stopReason":"` + stop + `"` + extra +
		`,"usage":` + converseUsage(u) + `,"metrics":{"latencyMs":1134}}`
}

// converseSuccessBody is the default Converse answer for r.
func converseSuccessBody(r reply) string {
	return converseAnswer([]string{`{"text":` + jsonString(r.Text) + `}`}, converseStop(r.Stop), r.Usage, converseStopFields(r))
}

// converseEvent is one event of a Converse stream as SSE text, which
// awsStreamFramer sends as the event stream message of that name.
func converseEvent(name, data string) string {
	return "event: " + name + "\ndata: " + data + "\n\n"
}

// conversePadding is the "p" member Bedrock pads its stream events with,
// which readers ignore.
const conversePadding = `,"p":"abcdefghijklmnopqrstuvwxyzABCDEFGHIJ"`

// converseStreamPieces is the streamed Converse answer for r, with the
// text in the given pieces: messageStart, a contentBlockDelta per piece
// (Bedrock sends no contentBlockStart for text), contentBlockStop,
// messageStop with the stop reason, and metadata with the usage last,
// which is the stream's terminal event. The in-stream error is Bedrock's
// exception.
func converseStreamPieces(p proto, r reply, pieces []string) mockStream {
	var s mockStream
	s.head = append(s.head, converseEvent("messageStart", `{"role":"assistant"`+conversePadding+`}`))
	for _, piece := range pieces {
		s.head = append(s.head, converseEvent("contentBlockDelta", `{"contentBlockIndex":0,"delta":{"text":`+jsonString(piece)+`}`+conversePadding+`}`))
	}
	s.tail = []string{
		converseEvent("contentBlockStop", `{"contentBlockIndex":0`+conversePadding+`}`),
		converseEvent("messageStop", `{"stopReason":"`+converseStop(r.Stop)+`"`+converseStopFields(r)+conversePadding+`}`),
		converseEvent("metadata", `{"usage":`+converseUsage(r.Usage)+`,"metrics":{"latencyMs":1321}`+conversePadding+`}`),
	}
	s.errorTail = []string{converseEvent("exception:modelStreamErrorException",
		`{"message":`+jsonString(midStreamMessage(p))+`,"originalStatusCode":529,"originalMessage":"Overloaded"}`)}
	return s
}

// converseToolCallAnswer is a Converse answer with text (when not empty)
// and calls, streamed or not:
// toolUse blocks, streamed as a contentBlockStart with the id and name and
// the input in contentBlockDelta fragments (a call without arguments: one
// empty fragment, as Claude's is relayed).
func converseToolCallAnswer(text string, calls []mockCall, stream bool) scenario {
	if !stream {
		var blocks []string
		if text != "" {
			blocks = append(blocks, `{"text":`+jsonString(text)+`}`)
		}
		for _, c := range calls {
			args := c.Args
			if args == "" {
				args = "{}"
			}
			blocks = append(blocks, `{"toolUse":{"toolUseId":"`+c.ID+`","name":`+jsonString(c.Name)+`,"input":`+args+`}}`)
		}
		return scenario{Status: 200, Body: converseAnswer(blocks, "tool_use", toolUsage, "")}
	}
	var b strings.Builder
	b.WriteString(converseEvent("messageStart", `{"role":"assistant"}`))
	first := 0
	if text != "" {
		// Bedrock sends no contentBlockStart for text.
		first = 1
		for _, piece := range splitText(text, 3) {
			b.WriteString(converseEvent("contentBlockDelta", `{"contentBlockIndex":0,"delta":{"text":`+jsonString(piece)+`}`+conversePadding+`}`))
		}
		b.WriteString(converseEvent("contentBlockStop", `{"contentBlockIndex":0}`))
	}
	for i, c := range calls {
		b.WriteString(converseToolUseEvents(first+i, c))
	}
	b.WriteString(converseEvent("messageStop", `{"stopReason":"tool_use"}`))
	b.WriteString(converseEvent("metadata", `{"usage":`+converseUsage(toolUsage)+`,"metrics":{"latencyMs":988}}`))
	return scenario{Status: 200, Header: sseHeader, Body: b.String()}
}

// converseToolUseEvents are the stream events of call c in block i.
func converseToolUseEvents(i int, c mockCall) string {
	idx := strconv.Itoa(i)
	s := converseEvent("contentBlockStart", `{"contentBlockIndex":`+idx+`,"start":{"toolUse":{"toolUseId":"`+c.ID+`","name":`+jsonString(c.Name)+`}}}`)
	frags := c.Fragments
	if c.Args == "" {
		frags = []string{""}
	}
	for _, f := range frags {
		s += converseEvent("contentBlockDelta", `{"contentBlockIndex":`+idx+`,"delta":{"toolUse":{"input":`+jsonString(f)+`}}}`)
	}
	return s + converseEvent("contentBlockStop", `{"contentBlockIndex":`+idx+`}`)
}

// converseReasoningAnswer is a Converse answer with Claude's reasoning,
// then call c: a reasoningText block with its signature (streamed: the
// text in two deltas, then the signature in a delta of its own), a
// redactedContent block, then the toolUse block.
func converseReasoningAnswer(c mockCall, stream bool) scenario {
	u := usage{Input: 120, Output: 90}
	redacted := base64.StdEncoding.EncodeToString([]byte(rzRedactedBytes()))
	if !stream {
		return scenario{Status: 200, Body: converseAnswer([]string{
			`{"reasoningContent":{"reasoningText":{"text":` + jsonString(rzThinking) + `,"signature":` + jsonString(rzSig) + `}}}`,
			`{"reasoningContent":{"redactedContent":"` + redacted + `"}}`,
			`{"toolUse":{"toolUseId":"` + c.ID + `","name":` + jsonString(c.Name) + `,"input":` + c.Args + `}}`,
		}, "tool_use", u, "")}
	}
	var b strings.Builder
	b.WriteString(converseEvent("messageStart", `{"role":"assistant"}`))
	for _, piece := range splitText(rzThinking, 2) {
		b.WriteString(converseEvent("contentBlockDelta", `{"contentBlockIndex":0,"delta":{"reasoningContent":{"text":`+jsonString(piece)+`}}}`))
	}
	b.WriteString(converseEvent("contentBlockDelta", `{"contentBlockIndex":0,"delta":{"reasoningContent":{"signature":`+jsonString(rzSig)+`}}}`))
	b.WriteString(converseEvent("contentBlockStop", `{"contentBlockIndex":0}`))
	b.WriteString(converseEvent("contentBlockDelta", `{"contentBlockIndex":1,"delta":{"reasoningContent":{"redactedContent":"`+redacted+`"}}}`))
	b.WriteString(converseEvent("contentBlockStop", `{"contentBlockIndex":1}`))
	b.WriteString(converseToolUseEvents(2, c))
	b.WriteString(converseEvent("messageStop", `{"stopReason":"tool_use"}`))
	b.WriteString(converseEvent("metadata", `{"usage":`+converseUsage(u)+`,"metrics":{"latencyMs":2045}}`))
	return scenario{Status: 200, Header: sseHeader, Body: b.String()}
}

// rzRedactedBytes are the bytes of Claude's redacted reasoning, which
// Converse carries as base64 bytes: the Anthropic data rzRedacted
// decoded, so that the base64 a Converse upstream sends is rzRedacted.
func rzRedactedBytes() string {
	b, err := base64.StdEncoding.DecodeString(rzRedacted)
	if err != nil {
		panic("rzRedacted is not base64: " + err.Error())
	}
	return string(b)
}

// Converse refusal kinds: the stop reasons Bedrock ends a withheld answer
// with.
const (
	// refusalConverseFiltered is stopReason content_filtered with the
	// visible refusal text.
	refusalConverseFiltered refusalKind = "converse-content-filtered"
	// refusalConverseGuardrail is stopReason guardrail_intervened with the
	// guardrail's blocked message as text.
	refusalConverseGuardrail refusalKind = "converse-guardrail-intervened"
)

// converseRefusalAnswer is a Converse answer of refusal kind k, streamed or
// not: the refusal text and the filter's stop reason.
func converseRefusalAnswer(k refusalKind, stream bool) scenario {
	stop := "content_filtered"
	if k == refusalConverseGuardrail {
		stop = "guardrail_intervened"
	}
	u := usage{Input: 20, Output: 12}
	if !stream {
		return scenario{Status: 200, Body: converseAnswer([]string{`{"text":` + jsonString(refusalText) + `}`}, stop, u, "")}
	}
	var b strings.Builder
	b.WriteString(converseEvent("messageStart", `{"role":"assistant"}`))
	for _, piece := range splitText(refusalText, 3) {
		b.WriteString(converseEvent("contentBlockDelta", `{"contentBlockIndex":0,"delta":{"text":`+jsonString(piece)+`}}`))
	}
	b.WriteString(converseEvent("contentBlockStop", `{"contentBlockIndex":0}`))
	b.WriteString(converseEvent("messageStop", `{"stopReason":"`+stop+`"}`))
	b.WriteString(converseEvent("metadata", `{"usage":`+converseUsage(u)+`,"metrics":{"latencyMs":640}}`))
	return scenario{Status: 200, Header: sseHeader, Body: b.String()}
}

// viewConverse reads a Converse request's tools, calls, results and
// images into v.
func viewConverse(root gjson.Result, v *upView, bad func(string, ...any)) {
	for _, t := range root.Get("toolConfig.tools").Array() {
		if s := t.Get("toolSpec"); s.Exists() {
			v.Tools = append(v.Tools, upTool{s.Get("name").Str, s.Get("description").Str, s.Get("inputSchema.json").Value()})
		}
	}
	for i, m := range root.Get("messages").Array() {
		for _, c := range m.Get("content").Array() {
			switch {
			case c.Get("toolUse").Exists():
				v.Calls = append(v.Calls, upCall{c.Get("toolUse.toolUseId").Str, c.Get("toolUse.name").Str, c.Get("toolUse.input").Value()})
			case c.Get("toolResult").Exists():
				var text strings.Builder
				for _, rc := range c.Get("toolResult.content").Array() {
					switch {
					case rc.Get("text").Exists():
						text.WriteString(rc.Get("text").Str)
					case rc.Get("json").Exists():
						text.WriteString(rc.Get("json").Raw)
					default:
						bad("messages[%d]: a tool result block that is not text or json: %.100s", i, rc.Raw)
					}
				}
				v.Results = append(v.Results, upResult{ID: c.Get("toolResult.toolUseId").Str, Text: text.String()})
			case c.Get("image").Exists():
				data, err := base64.StdEncoding.DecodeString(c.Get("image.source.bytes").Str)
				if err != nil {
					bad("messages[%d]: image bytes do not decode: %v", i, err)
				}
				v.Images = append(v.Images, upImage{MIME: "image/" + c.Get("image.format").Str, Data: data})
			}
		}
	}
}

// converseOpaqueSlots lists the opaque reasoning values of a Converse
// request, in the form issuedOpaque gives Claude's: the reasoning text
// with its signature, and the redacted bytes as base64.
func converseOpaqueSlots(root gjson.Result) []string {
	var got []string
	for _, m := range root.Get("messages").Array() {
		for _, b := range m.Get("content").Array() {
			rc := b.Get("reasoningContent")
			switch {
			case rc.Get("reasoningText").Exists():
				got = append(got, "thinking:"+rc.Get("reasoningText.text").Str+"|"+rc.Get("reasoningText.signature").Str)
			case rc.Get("redactedContent").Exists():
				got = append(got, "redacted:"+rc.Get("redactedContent").Str)
			}
		}
	}
	return got
}
