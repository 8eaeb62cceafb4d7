package gemini

import (
	"strings"
	"testing"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/codectest"
	"github.com/llmbridge/llmbridge/mapping"
)

// TestGeminiStreamDecode covers every kind of chunk and failure by hand.
func TestGeminiStreamDecode(t *testing.T) {
	const (
		head  = `"modelVersion":"gemini-2.5-flash","responseId":"r1"`
		start = `start id="r1" model="gemini-2.5-flash"`
	)
	text := func(s string) string {
		return `{"candidates":[{"content":{"parts":[{"text":` + s + `}],"role":"model"},"index":0}],` + head + `}`
	}
	finish := func(reason string) string {
		return `{"candidates":[{"content":{"parts":[{"text":""}],"role":"model"},"finishReason":"` + reason + `","index":0}],` + head + `}`
	}
	tests := []struct {
		name  string
		p     codec.Protocol
		body  string
		cause error
		want  []string
	}{
		{
			name: "text with cumulative usage",
			body: geminiSSE(
				`{"candidates":[{"content":{"parts":[{"text":"Hel"}],"role":"model"},"index":0}],"usageMetadata":{"promptTokenCount":5,"candidatesTokenCount":1,"totalTokenCount":6},`+head+`}`,
				`{"candidates":[{"content":{"parts":[{"text":"lo\n"}],"role":"model"},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":5,"candidatesTokenCount":3,"totalTokenCount":8},`+head+`}`),
			want: []string{start, "part_start 0 type=0", `delta 0 "Hel"`, "usage in=5 cache_read=0 out=1 reasoning=0",
				`delta 0 "lo\n"`, "usage in=5 cache_read=0 out=3 reasoning=0", "part_stop 0", "stop end", "end"},
		},
		{
			name: "usage reported only when it changes, with every counter",
			body: geminiSSE(
				`{"candidates":[{"content":{"parts":[{"text":"a"}]}}],"usageMetadata":{"promptTokenCount":50,"toolUsePromptTokenCount":5,"cachedContentTokenCount":20,"candidatesTokenCount":7,"thoughtsTokenCount":3,"totalTokenCount":65,"promptTokensDetails":[{"modality":"TEXT","tokenCount":50}]},`+head+`}`,
				`{"candidates":[{"content":{"parts":[{"text":""}]},"finishReason":"STOP"}],"usageMetadata":{"promptTokenCount":50,"toolUsePromptTokenCount":5,"cachedContentTokenCount":20,"candidatesTokenCount":7,"thoughtsTokenCount":3,"totalTokenCount":65},`+head+`}`),
			want: []string{start, "part_start 0 type=0", `delta 0 "a"`, "usage in=55 cache_read=20 out=10 reasoning=3",
				"part_stop 0", "stop end", "end"},
		},
		{
			name: "counts that are not plain integers",
			body: geminiSSE(`{"candidates":[{"finishReason":"STOP"}],"usageMetadata":{"promptTokenCount":1e1,"candidatesTokenCount":2.0,"thoughtsTokenCount":9007199254740992,"cachedContentTokenCount":999999999999999}}`),
			want: []string{`start id="" model=""`, "usage in=10 cache_read=999999999999999 out=9007199254740994 reasoning=9007199254740992", "stop end", "end"},
		},
		{
			name: "Vertex usage without counts is no usage; createTime",
			p:    codec.Vertex,
			body: geminiSSE(
				`{"candidates":[{"content":{"role":"model","parts":[{"text":"Hi"}]}}],"usageMetadata":{"trafficType":"ON_DEMAND","promptTokenCount":null},"modelVersion":"gemini-2.5-flash","createTime":"2026-03-12T18:05:56.457623Z","responseId":"v1"}`,
				`{"candidates":[{"content":{"role":"model","parts":[{"text":"!"}]},"finishReason":"STOP"}],"usageMetadata":{"promptTokenCount":9,"candidatesTokenCount":2,"totalTokenCount":11,"trafficType":"ON_DEMAND"},"modelVersion":"gemini-2.5-flash","createTime":"2026-03-12T18:05:56.457623Z","responseId":"v1"}`),
			want: []string{`start id="v1" model="gemini-2.5-flash" created=1773338756`, "part_start 0 type=0", `delta 0 "Hi"`,
				`delta 0 "!"`, "usage in=9 cache_read=0 out=2 reasoning=0", "part_stop 0", "stop end", "end"},
		},
		{
			name: "escapes are unescaped",
			body: geminiSSE(text(`"line\n\"q\" \u00e9 \ud83d\ude00 \\ \/ \t"`), finish("STOP")),
			want: []string{start, "part_start 0 type=0", `delta 0 "line\n\"q\" é 😀 \\ / \t"`, "part_stop 0", "stop end", "end"},
		},
		{
			name: "thoughts are reasoning parts, closed by the signature after them",
			body: geminiSSE(
				`{"candidates":[{"content":{"parts":[{"text":"**Plan**\n","thought":true}],"role":"model"}}],`+head+`}`,
				`{"candidates":[{"content":{"parts":[{"text":"more","thought":true}],"role":"model"}}],`+head+`}`,
				`{"candidates":[{"content":{"parts":[{"text":"Answer","thoughtSignature":"c2ln","thought":false},{"text":"more thinking","thought":true},{"text":"","thoughtSignature":"c2lnMg=="},{"text":".","partMetadata":{}}],"role":"model"}}],`+head+`}`,
				finish("STOP")),
			want: []string{start, "part_start 0 type=7", `delta 0 "**Plan**\n"`, `delta 0 "more"`, `part_stop 0 sig="c2ln" origin=gemini`,
				"part_start 1 type=0", `delta 1 "Answer"`, "part_stop 1",
				"part_start 2 type=7", `delta 2 "more thinking"`, `part_stop 2 sig="c2lnMg==" origin=gemini`,
				"part_start 3 type=0", `delta 3 "."`, "part_stop 3", "stop end", "end"},
		},
		{
			name: "a signature after text, on a call, on a thought, and unsigned thoughts",
			body: geminiSSE(
				text(`"Hi"`),
				`{"candidates":[{"content":{"parts":[{"text":"","thoughtSignature":"YQ=="}],"role":"model"}}],`+head+`}`,
				`{"candidates":[{"content":{"parts":[{"functionCall":{"name":"f","args":{}},"thoughtSignature":"Yg=="}],"role":"model"}}],`+head+`}`,
				`{"candidates":[{"content":{"parts":[{"text":"t","thought":true,"thoughtSignature":"Yw=="},{"text":"u","thought":true},{"text":"","thought":true},{"text":"v"}],"role":"model"}}],`+head+`}`,
				`{"candidates":[{"content":{"parts":[{"text":"w","thought":true}],"role":"model"}}],`+head+`}`,
				`{"candidates":[{"content":{"parts":[{"thoughtSignature":"ZA=="}],"role":"model"}}],`+head+`}`,
				`{"candidates":[{"content":{"parts":[{"text":"x","thought":true}],"role":"model"}}],`+head+`}`,
				finish("STOP")),
			want: []string{start, "part_start 0 type=0", `delta 0 "Hi"`, "part_stop 0",
				"part_start 1 type=7", `part_stop 1 sig="YQ==" origin=gemini`,
				"part_start 2 type=7", `part_stop 2 sig="Yg==" origin=gemini`,
				`part_start 3 call id="call_r1_0" name="f"`, `delta 3 "{}"`, "part_stop 3",
				"part_start 4 type=7", `delta 4 "t"`, `part_stop 4 sig="Yw==" origin=gemini`,
				"part_start 5 type=7", `delta 5 "u"`, "part_stop 5",
				"part_start 6 type=0", `delta 6 "v"`, "part_stop 6",
				"part_start 7 type=7", `delta 7 "w"`, `part_stop 7 sig="ZA==" origin=gemini`,
				"part_start 8 type=7", `delta 8 "x"`, "part_stop 8",
				"stop tool_use", "end"},
		},
		{
			name: "finishReason on every chunk keeps one part; the last reason wins",
			body: geminiSSE(
				`{"candidates":[{"content":{"parts":[{"text":"First "}]},"finishReason":"STOP","index":0}]}`,
				`{"candidates":[{"content":{"parts":[{"text":"Second"}]},"finishReason":"MAX_TOKENS","index":0}]}`),
			want: []string{`start id="" model=""`, "part_start 0 type=0", `delta 0 "First "`, `delta 0 "Second"`,
				"part_stop 0", "stop max_tokens", "end"},
		},
		{
			name: "max tokens",
			body: geminiSSE(text(`"cut"`), finish("MAX_TOKENS")),
			want: []string{start, "part_start 0 type=0", `delta 0 "cut"`, "part_stop 0", "stop max_tokens", "end"},
		},
		{
			name: "safety with empty content",
			body: geminiSSE(text(`"Some"`), `{"candidates":[{"content":{},"finishReason":"SAFETY","index":0,"safetyRatings":[{"category":"HARM_CATEGORY_HARASSMENT","probability":"HIGH","blocked":true}]}],`+head+`}`),
			want: []string{start, "part_start 0 type=0", `delta 0 "Some"`, "part_stop 0", `stop content_filter category="SAFETY" explanation=""`, "end"},
		},
		{
			name: "model armor without content nor parts",
			p:    codec.Vertex,
			body: geminiSSE(`{"candidates":[{"finishReason":"MODEL_ARMOR","finishMessage":"blocked"}],"usageMetadata":{"promptTokenCount":4,"totalTokenCount":4},` + head + `}`),
			want: []string{start, "usage in=4 cache_read=0 out=0 reasoning=0", `stop content_filter category="MODEL_ARMOR" explanation="blocked"`, "end"},
		},
		{
			name: "unknown finish reason",
			body: geminiSSE(text(`"x"`), finish("SOMETHING_NEW")),
			want: []string{start, "part_start 0 type=0", `delta 0 "x"`, "part_stop 0", "stop other", "end"},
		},
		{
			name: "null fields are absent",
			body: geminiSSE(
				`{"candidates":null,"usageMetadata":null,"promptFeedback":null,"error":null,"modelVersion":null,"responseId":null,"createTime":null}`,
				`{"candidates":[{"content":null,"finishReason":null,"index":null}]}`,
				`{"candidates":[{"content":{"parts":null}}]}`,
				`{"candidates":[{"content":{"parts":[{"text":null}]}}]}`,
				`{"candidates":[],"promptFeedback":{"blockReason":null}}`,
				`{"candidates":[{"finishReason":"STOP"}]}`),
			want: []string{`start id="" model=""`, "stop end", "end"},
		},
		{
			name: "prompt blocked",
			body: geminiSSE(`{"promptFeedback":{"blockReason":"PROHIBITED_CONTENT","safetyRatings":[]},"usageMetadata":{"promptTokenCount":7,"totalTokenCount":7},` + head + `}`),
			want: []string{start, "usage in=7 cache_read=0 out=0 reasoning=0", `stop content_filter category="PROHIBITED_CONTENT" explanation=""`, "end"},
		},
		{
			name: "prompt blocked with a message",
			p:    codec.Vertex,
			body: geminiSSE(`{"promptFeedback":{"blockReason":"JAILBREAK","blockReasonMessage":"no"},` + head + `}`),
			want: []string{start, `stop content_filter category="JAILBREAK" explanation="no"`, "end"},
		},
		{
			name: "a filter stop after a STOP chunk; a STOP after a filter clears its details",
			body: geminiSSE(
				`{"candidates":[{"content":{"parts":[{"text":"a"}]},"finishReason":"SAFETY","finishMessage":"m","index":0}]}`,
				`{"candidates":[{"content":{"parts":[{"text":"b"}]},"finishReason":"STOP","finishMessage":"ignored","index":0}]}`),
			want: []string{`start id="" model=""`, "part_start 0 type=0", `delta 0 "a"`, `delta 0 "b"`, "part_stop 0", "stop end", "end"},
		},
		{
			name: "promptFeedback without blockReason finishes nothing",
			body: geminiSSE(`{"promptFeedback":{"safetyRatings":[]},` + head + `}`),
			want: []string{start, "error 502 kind=11 code=\"\": upstream gemini stream ended before it was complete"},
		},
		{
			name: "blockReason beside a candidate is ignored",
			body: geminiSSE(`{"candidates":[{"content":{"parts":[{"text":"ok"}]}}],"promptFeedback":{"blockReason":"SAFETY"},` + head + `}`),
			want: []string{start, "part_start 0 type=0", `delta 0 "ok"`, "error 502 kind=11 code=\"\": upstream gemini stream ended before it was complete"},
		},
		{
			name: "named events, comments, unknown fields ignored; LF framing; split data lines",
			body: ": keep-alive\n\nevent: ping\ndata: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"ignored\"}]}}]}\n\n" +
				"event: message\ndata: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"a\"}]},\"avgLogprobs\":-0.1,\"citationMetadata\":{}}],\"modelStatus\":{},\"sdkHttpResponse\":{}," + head + "}\n\n" +
				"data: {\"candidates\":[{\"content\":\ndata: {\"parts\":[{\"text\":\"b\"}]},\ndata: \"finishReason\":\"STOP\"}]}\n\n",
			want: []string{start, "part_start 0 type=0", `delta 0 "a"`, `delta 0 "b"`, "part_stop 0", "stop end", "end"},
		},
		{
			name: "pretty-printed chunk over several data lines; escaped keys",
			body: "data: {\ndata:   \"candidates\" :\t[ { \"content\" : { \"parts\" : [ { \"t\\u0065xt\" : \"a\" } , {\"text\":\"b\"} ] } ,\n" +
				"data: \"finishReason\" : \"STOP\" , \"index\" : 0 } ] ,\r\ndata: \"usageMetadata\" : { \"promptTokenCount\" : 3 , \"totalTokenCount\" : 3 } ,\n" +
				"data: \"responseId\" : \"r\\u0031\"\ndata: }\n\n",
			want: []string{`start id="r1" model=""`, "part_start 0 type=0", `delta 0 "a"`, `delta 0 "b"`, "usage in=3 cache_read=0 out=0 reasoning=0",
				"part_stop 0", "stop end", "end"},
		},
		{
			name: "data error chunk before anything",
			body: geminiSSE(`{"error":{"code":429,"message":"Resource has been exhausted (e.g. check quota).","status":"RESOURCE_EXHAUSTED"}}`),
			want: []string{`error 429 kind=6 code="RESOURCE_EXHAUSTED": Resource has been exhausted (e.g. check quota).`},
		},
		{
			name: "bare pretty-printed error mid-stream",
			body: geminiSSE(text(`"Par"`)) + "{\n  \"error\": {\n    \"code\": 503,\n    \"message\": \"The model is overloaded.\",\n    \"status\": \"UNAVAILABLE\"\n  }\n}\n\n" +
				geminiSSE(finish("STOP")),
			want: []string{start, "part_start 0 type=0", `delta 0 "Par"`, `error 503 kind=8 code="UNAVAILABLE": The model is overloaded.`},
		},
		{
			name: "bare error after the finishing chunk",
			body: geminiSSE(text(`"Done"`), finish("STOP")) + `{"error":{"code":500,"message":"Internal error encountered.","status":"INTERNAL"}}` + "\n",
			want: []string{start, "part_start 0 type=0", `delta 0 "Done"`, `error 500 kind=0 code="INTERNAL": Internal error encountered.`},
		},
		{
			name: "error without code takes the status of its status",
			body: geminiSSE(`{"error":{"message":"slow down","status":"DEADLINE_EXCEEDED"}}`),
			want: []string{`error 504 kind=9 code="DEADLINE_EXCEEDED": slow down`},
		},
		{
			name: "error without code nor known status is a 500",
			body: geminiSSE(`{"error":{"code":"x","message":"odd","status":"WHATEVER"}}`),
			want: []string{`error 500 kind=0 code="WHATEVER": odd`},
		},
		{
			name: "error as a string",
			body: geminiSSE(`{"error":"something broke"}`),
			want: []string{`error 500 kind=0 code="": something broke`},
		},
		{
			name: "bare JSON that is not an error",
			body: geminiSSE(text(`"a"`)) + "{\"candidates\": []}\n",
			want: []string{start, "part_start 0 type=0", `delta 0 "a"`, "error 502 kind=11 code=\"\": upstream gemini response is invalid: stream holds a block that is neither a data: event nor an error"},
		},
		{
			name: "bare block that is not JSON",
			body: "{ this is not json\n\n",
			want: []string{"error 502 kind=11 code=\"\": upstream gemini response is invalid: stream holds a block that is neither a data: event nor an error"},
		},
		{
			name: "invalid JSON data",
			body: geminiSSE(text(`"a"`)) + "data: {\"candidates\":[\r\n\r\n",
			want: []string{start, "part_start 0 type=0", `delta 0 "a"`, "error 502 kind=11 code=\"\": upstream gemini response is invalid: stream event is not valid JSON"},
		},
		{
			name: "[DONE] is not Gemini",
			body: "data: [DONE]\r\n\r\n",
			want: []string{"error 502 kind=11 code=\"\": upstream gemini response is invalid: stream event is not valid JSON"},
		},
		{
			name: "JSON that is not an object",
			body: "data: [1,2]\r\n\r\n",
			want: []string{"error 502 kind=11 code=\"\": upstream gemini response is invalid: stream event is not a JSON object"},
		},
		{
			name: "object that is not a GenerateContentResponse",
			body: geminiSSE(`{"type":"message_start","message":{}}`),
			want: []string{"error 502 kind=11 code=\"\": upstream gemini response is invalid: stream event is not a GenerateContentResponse"},
		},
		{
			name: "Vertex errors name vertex",
			p:    codec.Vertex,
			body: geminiSSE(`{"candidates":{}}`),
			want: []string{"error 502 kind=11 code=\"\": upstream vertex response is invalid: candidates is not an array"},
		},
		{
			name: "function call after text",
			body: geminiSSE(text(`"Let me check."`), `{"candidates":[{"content":{"parts":[{"functionCall":{"name":"weather","args":{}}}],"role":"model"}}],`+head+`}`),
			want: []string{start, "part_start 0 type=0", `delta 0 "Let me check."`, "part_stop 0",
				`part_start 1 call id="call_r1_0" name="weather"`, `delta 1 "{}"`, "part_stop 1",
				"error 502 kind=11 code=\"\": upstream gemini stream ended before it was complete"},
		},
		{
			name: "a failing chunk contributes nothing but the error",
			body: geminiSSE(`{"candidates":[{"content":{"parts":[{"text":"dropped"},{"text":1}]}}],` + head + `}`),
			want: []string{`error 502 kind=11 code="": upstream gemini response is invalid: part text is not a string`},
		},
		{
			name: "two candidates",
			body: geminiSSE(`{"candidates":[{"content":{"parts":[{"text":"a"}]}},{"content":{"parts":[{"text":"b"}]},"index":1}]}`),
			want: []string{"error 502 kind=11 code=\"\": upstream gemini response is invalid: stream chunk has more than one candidate"},
		},
		{
			name: "candidate index 1",
			body: geminiSSE(`{"candidates":[{"content":{"parts":[{"text":"b"}]},"index":1}]}`),
			want: []string{"error 502 kind=11 code=\"\": upstream gemini response is invalid: candidate index is not 0, but only one candidate was asked for"},
		},
		{
			name:  "broken connection before the finish",
			body:  geminiSSE(text(`"a"`)),
			cause: codectest.ErrTestBroken,
			want: []string{start, "part_start 0 type=0", `delta 0 "a"`,
				"error 502 kind=11 code=\"\": upstream gemini stream broke off before it was complete"},
		},
		{
			name:  "broken connection after the finish",
			body:  geminiSSE(text(`"a"`), finish("STOP")),
			cause: codectest.ErrTestBroken,
			want:  []string{start, "part_start 0 type=0", `delta 0 "a"`, "part_stop 0", "stop end", "end"},
		},
		{
			name: "cut in the middle of a line",
			body: geminiSSE(text(`"a"`)) + `data: {"candidates":[{"finishReason":"ST`,
			want: []string{start, "part_start 0 type=0", `delta 0 "a"`,
				"error 502 kind=11 code=\"\": upstream gemini stream broke off before it was complete"},
		},
		{
			name: "empty body",
			body: "",
			want: []string{"error 502 kind=11 code=\"\": upstream gemini stream ended before it was complete"},
		},
		{
			name: "empty vertex body",
			p:    codec.Vertex,
			body: "\r\n",
			want: []string{"error 502 kind=11 code=\"\": upstream vertex stream ended before it was complete"},
		},
	}
	// Wrongly typed fields: each fails the stream with a 502 naming the
	// field.
	for _, bad := range []struct{ chunk, why string }{
		{`{"candidates":[1]}`, "candidates[0] is not an object"},
		{`{"candidates":[{"content":[]}]}`, "candidates[0].content is not an object"},
		{`{"candidates":[{"content":{"parts":{}}}]}`, "candidates[0].content.parts is not an array"},
		{`{"candidates":[{"content":{"parts":["a"]}}]}`, "candidates[0].content.parts has an element that is not an object"},
		{`{"candidates":[{"content":{"parts":[{"text":1}]}}]}`, "part text is not a string"},
		{`{"candidates":[{"finishReason":1}]}`, "finishReason is not a string"},
		{`{"usageMetadata":[]}`, "usageMetadata is not an object"},
		{`{"usageMetadata":{"promptTokenCount":"9"}}`, "a usageMetadata token count is not a non-negative integer"},
		{`{"usageMetadata":{"promptTokenCount":-1}}`, "a usageMetadata token count is not a non-negative integer"},
		{`{"usageMetadata":{"candidatesTokenCount":1.5}}`, "a usageMetadata token count is not a non-negative integer"},
		{`{"usageMetadata":{"thoughtsTokenCount":1e300}}`, "a usageMetadata token count is not a non-negative integer"},
		{`{"promptFeedback":"SAFETY"}`, "promptFeedback is not an object"},
		{`{"promptFeedback":{"blockReason":true}}`, "promptFeedback.blockReason is not a string"},
		{`{"promptFeedback":{"blockReason":"SAFETY","blockReasonMessage":1}}`, "promptFeedback.blockReasonMessage is not a string"},
		{`{"candidates":[{"finishReason":"SAFETY","finishMessage":1}]}`, "finishMessage is not a string"},
		{`{"candidates":[{"content":{"parts":[{"text":"a","thoughtSignature":1}]}}]}`, "part thoughtSignature is not a string"},
		{`{"responseId":1}`, "responseId is not a string"},
		{`{"modelVersion":{}}`, "modelVersion is not a string"},
		{`{"createTime":0}`, "createTime is not a string"},
		{`{"createTime":"yesterday"}`, "createTime is not an RFC 3339 timestamp"},
	} {
		tests = append(tests, struct {
			name  string
			p     codec.Protocol
			body  string
			cause error
			want  []string
		}{name: "wrong type: " + bad.why, body: geminiSSE(bad.chunk),
			want: []string{"error 502 kind=11 code=\"\": upstream gemini response is invalid: " + bad.why}})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := tt.p
			if p == "" {
				p = codec.Gemini
			}
			evs := decodeStream(t, p, tt.body, tt.cause)
			codectest.CheckWellFormed(t, evs)
			got := eventStrings(evs)
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("events:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

// TestGeminiStreamDecoderTerminal checks that nothing follows a terminal
// event, whether it came from Decode or Close, and that the error of an
// event outlives the event's buffer.
func TestGeminiStreamDecoderTerminal(t *testing.T) {
	chunk := []byte(`{"candidates":[{"content":{"parts":[{"text":"a"}]},"finishReason":"STOP"}]}`)

	d := newStreamDecoder(codec.Gemini)
	out := d.Decode(nil, nil, chunk, false)
	out = d.Close(out, nil)
	if n := len(out); n != 6 || out[n-1].Type != codec.EventEnd {
		t.Fatalf("events %v", eventStrings(out))
	}
	if again := d.Decode(nil, nil, chunk, false); len(again) != 0 {
		t.Errorf("Decode after the end appended %v", eventStrings(again))
	}
	if again := d.Close(nil, codectest.ErrTestBroken); len(again) != 0 {
		t.Errorf("Close after the end appended %v", eventStrings(again))
	}

	d = newStreamDecoder(codec.Vertex)
	buf := []byte(`{"error":{"code":400,"message":"bad \"thing\"","status":"INVALID_ARGUMENT"}}`)
	out = d.Decode(nil, nil, buf, true)
	for i := range buf {
		buf[i] = 'x' // the reader reuses its buffer
	}
	if len(out) != 1 || out[0].Type != codec.EventError {
		t.Fatalf("events %v", eventStrings(out))
	}
	if e := out[0].Err; e.Message != `bad "thing"` || e.Code != "INVALID_ARGUMENT" || e.Status != 400 ||
		e.Kind != mapping.ErrInvalidRequest || e.Protocol != codec.Vertex {
		t.Errorf("error %+v", e)
	}
	if again := d.Decode(nil, nil, chunk, false); len(again) != 0 {
		t.Errorf("Decode after an error appended %v", eventStrings(again))
	}
	if again := d.Close(nil, nil); len(again) != 0 {
		t.Errorf("Close after an error appended %v", eventStrings(again))
	}
}

// TestGeminiStreamFunctionCalls covers the function call paths of the
// decoder: several calls in one chunk, ids given or synthesised, streamed
// arguments of every value kind, and the malformed variants.
func TestGeminiStreamFunctionCalls(t *testing.T) {
	parts := func(p ...string) string {
		return `{"candidates":[{"content":{"role":"model","parts":[` + strings.Join(p, ",") + `]}}],"responseId":"r.1"}`
	}
	fin := `{"candidates":[{"content":{"parts":[{"text":""}]},"finishReason":"STOP"}]}`
	start := `start id="r.1" model=""`
	partial := func(path, value string, more bool) string {
		c := ""
		if more {
			c = `,"willContinue":true`
		}
		return `{"functionCall":{"partialArgs":[{"jsonPath":"` + path + `",` + value + c + `}],"willContinue":true}}`
	}
	tests := []struct {
		name   string
		chunks []string
		want   []string
	}{
		{"two calls in one chunk, one with id",
			[]string{parts(`{"functionCall":{"name":"a","args":{"x":1}}}`, `{"functionCall":{"id":"given","name":"b"}}`), fin},
			[]string{start, `part_start 0 call id="call_r1_0" name="a"`, `delta 0 "{\"x\":1}"`, "part_stop 0",
				`part_start 1 call id="given" name="b"`, "part_stop 1", "stop tool_use", "end"}},
		{"streamed arguments of every kind",
			[]string{
				parts(`{"functionCall":{"name":"f","willContinue":true}}`),
				parts(partial("$.s", `"stringValue":"a\"b"`, true)),
				parts(partial("$.s", `"stringValue":"c"`, false)),
				parts(`{"functionCall":{"partialArgs":[{"jsonPath":"$.n","numberValue":1.5},{"jsonPath":"$.t","boolValue":true},{"jsonPath":"$.f","boolValue":false},{"jsonPath":"$.z","nullValue":null}],"willContinue":true}}`),
				parts(partial("$['odd key'].list[1]", `"numberValue":2`, false)),
				parts(partial(`$[\"q\"][0][0]`, `"stringValue":"x"`, false)),
				parts(partial("$.s", `"stringValue":"new"`, false)),
				parts(`{"functionCall":{"willContinue":true}}`),
				`{"candidates":[{"content":{"parts":[{"functionCall":{}}]},"finishReason":"STOP"}]}`,
			},
			[]string{start, `part_start 0 call id="call_r1_0" name="f"`,
				`delta 0 "{\"s\":\"new\",\"n\":1.5,\"t\":true,\"f\":false,\"z\":null,\"odd key\":{\"list\":[null,2]},\"q\":[[\"x\"]]}"`,
				"part_stop 0", "stop tool_use", "end"}},
		{"streamed call without arguments",
			[]string{parts(`{"functionCall":{"name":"f","willContinue":true}}`), parts(`{"functionCall":{"willContinue":false}}`), fin},
			[]string{start, `part_start 0 call id="call_r1_0" name="f"`, "part_stop 0", "stop tool_use", "end"}},
		{"stream ends inside streamed arguments",
			[]string{parts(`{"functionCall":{"name":"f","willContinue":true}}`), fin},
			[]string{start, `part_start 0 call id="call_r1_0" name="f"`,
				`error 502 kind=11 code="": upstream gemini response is invalid: stream ended inside a function call whose arguments were still streaming`}},
	}
	for _, bad := range []struct{ part, why string }{
		{`{"functionCall":1}`, "functionCall is not an object"},
		{`{"functionCall":{"name":1}}`, "functionCall.name is not a string"},
		{`{"functionCall":{"name":"f","id":1}}`, "functionCall.id is not a string"},
		{`{"functionCall":{"name":"f","args":[]}}`, "functionCall.args is not an object"},
		{`{"functionCall":{"name":"f","partialArgs":{}}}`, "functionCall.partialArgs is not an array"},
		{`{"functionCall":{"args":{}}}`, "functionCall has no name"},
		{`{"functionCall":{"name":"f","args":{},"willContinue":true}}`, "functionCall has both args and willContinue"},
		{`{"functionCall":{"name":"f","partialArgs":[1]}}`, "functionCall.partialArgs has an element that is not an object"},
		{`{"functionCall":{"name":"f","partialArgs":[{"jsonPath":"x","stringValue":"a"}]}}`, "a partialArgs jsonPath is not a JSON path"},
		{`{"functionCall":{"name":"f","partialArgs":[{"jsonPath":"$x","stringValue":"a"}]}}`, "a partialArgs jsonPath is not a JSON path"},
		{`{"functionCall":{"name":"f","partialArgs":[{"jsonPath":"$.","stringValue":"a"}]}}`, "a partialArgs jsonPath is not a JSON path"},
		{`{"functionCall":{"name":"f","partialArgs":[{"jsonPath":"$['a","stringValue":"a"}]}}`, "a partialArgs jsonPath is not a JSON path"},
		{`{"functionCall":{"name":"f","partialArgs":[{"jsonPath":"$[x]","stringValue":"a"}]}}`, "a partialArgs jsonPath is not a JSON path"},
		{`{"functionCall":{"name":"f","partialArgs":[{"jsonPath":"$.a","stringValue":1}]}}`, "a partialArgs stringValue is not a string"},
		{`{"functionCall":{"name":"f","partialArgs":[{"jsonPath":"$.a","numberValue":"1"}]}}`, "a partialArgs numberValue is not a number"},
		{`{"functionCall":{"name":"f","partialArgs":[{"jsonPath":"$.a","boolValue":1}]}}`, "a partialArgs boolValue is not a boolean"},
		{`{"functionCall":{"name":"f","partialArgs":[{"jsonPath":"$.a"}]}}`, "a partialArgs element has no value"},
	} {
		tests = append(tests, struct {
			name   string
			chunks []string
			want   []string
		}{"bad: " + bad.why, []string{parts(bad.part)}, []string{"error 502 kind=11 code=\"\": upstream gemini response is invalid: " + bad.why}})
	}
	tests = append(tests, struct {
		name   string
		chunks []string
		want   []string
	}{"text inside streamed arguments", []string{parts(`{"functionCall":{"name":"f","willContinue":true}}`), parts(`{"text":"hi"}`)},
		[]string{start, `part_start 0 call id="call_r1_0" name="f"`,
			"error 502 kind=11 code=\"\": upstream gemini response is invalid: stream holds text inside a function call whose arguments are still streaming"}},
		struct {
			name   string
			chunks []string
			want   []string
		}{"new call inside streamed arguments", []string{parts(`{"functionCall":{"name":"f","willContinue":true}}`), parts(`{"functionCall":{"name":"g"}}`)},
			[]string{start, `part_start 0 call id="call_r1_0" name="f"`,
				"error 502 kind=11 code=\"\": upstream gemini response is invalid: functionCall starts before the previous call's streamed arguments ended"}},
		struct {
			name   string
			chunks []string
			want   []string
		}{"signature inside streamed arguments", []string{parts(`{"functionCall":{"name":"f","willContinue":true},"thoughtSignature":"c2ln"}`), parts(`{"functionCall":{},"thoughtSignature":"c2ln"}`)},
			[]string{start, "part_start 0 type=7", `part_stop 0 sig="c2ln" origin=gemini`, `part_start 1 call id="call_r1_0" name="f"`,
				"error 502 kind=11 code=\"\": upstream gemini response is invalid: stream holds a thoughtSignature inside a function call whose arguments are still streaming"}})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			evs := decodeStream(t, codec.Gemini, geminiSSE(tt.chunks...), nil)
			codectest.CheckWellFormed(t, evs)
			got := strings.Join(eventStrings(evs), "\n")
			if want := strings.Join(tt.want, "\n"); got != want {
				t.Errorf("events:\n%s\nwant:\n%s", got, want)
			}
		})
	}
}
