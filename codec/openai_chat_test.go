package codec

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/llmbridge/llmbridge/mapping"
	"github.com/tidwall/gjson"
)

// chatDecodeRequest decodes body as a Chat request and returns the request
// with empty slices normalised to nil, and the error as an *Error.
func chatDecodeRequest(t *testing.T, body string) (Request, *Error) {
	t.Helper()
	var req Request
	err := DecodeRequest(OpenAIChat, []byte(body), &req)
	if err == nil {
		chatNormalize(&req)
		return req, nil
	}
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v is not an *Error", err)
	}
	return req, e
}

// chatNormalize sets empty slices to nil so that reflect.DeepEqual compares
// content, not allocation.
func chatNormalize(r *Request) {
	if len(r.System) == 0 {
		r.System = nil
	}
	if len(r.Messages) == 0 {
		r.Messages = nil
	}
	if len(r.StopSequences) == 0 {
		r.StopSequences = nil
	}
	if len(r.Dropped) == 0 {
		r.Dropped = nil
	}
	if len(r.Tools) == 0 {
		r.Tools = nil
	}
}

func chatText(s string) Part    { return Part{Type: PartText, Text: s} }
func chatRefusal(s string) Part { return Part{Type: PartRefusal, Text: s} }

func chatUser(s string) Message {
	return Message{Role: RoleUser, Parts: []Part{chatText(s)}}
}

func TestChatDecodeRequest(t *testing.T) {
	user := `{"role":"user","content":"Hi"}`
	tests := []struct {
		name string
		body string
		want Request
	}{
		{
			name: "minimal",
			body: `{"model":"gpt-4o","messages":[` + user + `]}`,
			want: Request{Model: "gpt-4o", Messages: []Message{chatUser("Hi")}},
		},
		{
			name: "leading system prompt",
			body: `{"messages":[{"role":"system","content":"Be brief."},` + user + `],"model":"gpt-4o"}`,
			want: Request{
				Model:      "gpt-4o",
				System:     []Part{chatText("Be brief.")},
				SystemRole: RoleSystem,
				Messages:   []Message{chatUser("Hi")},
			},
		},
		{
			name: "leading developer and system messages keep the first role",
			body: `{"model":"o3","messages":[
				{"role":"developer","content":[{"type":"text","text":"A"},{"type":"text","text":"B"}]},
				{"role":"system","content":"C"},` + user + `]}`,
			want: Request{
				Model:      "o3",
				System:     []Part{chatText("A"), chatText("B"), chatText("C")},
				SystemRole: RoleDeveloper,
				Messages:   []Message{chatUser("Hi")},
			},
		},
		{
			name: "later instructions stay in the conversation",
			body: `{"model":"m","messages":[` + user + `,
				{"role":"assistant","content":"Hello"},
				{"role":"system","content":"Now in French."},
				{"role":"developer","content":"Really."},
				{"role":"user","content":"Salut"}]}`,
			want: Request{Model: "m", Messages: []Message{
				chatUser("Hi"),
				{Role: RoleAssistant, Parts: []Part{chatText("Hello")}},
				{Role: RoleSystem, Parts: []Part{chatText("Now in French.")}},
				{Role: RoleDeveloper, Parts: []Part{chatText("Really.")}},
				chatUser("Salut"),
			}},
		},
		{
			name: "only instructions",
			body: `{"model":"m","messages":[{"role":"system","content":"S"}]}`,
			want: Request{Model: "m", System: []Part{chatText("S")}, SystemRole: RoleSystem},
		},
		{
			name: "text parts, escapes and an empty string",
			body: `{"model":"m","messages":[
				{"role":"user","content":[{"type":"text","text":"line\n\"one\""},{"text":"caf\u00e9","type":"text"}]},
				{"role":"user","content":""}]}`,
			want: Request{Model: "m", Messages: []Message{
				{Role: RoleUser, Parts: []Part{chatText("line\n\"one\""), chatText("café")}},
				chatUser(""),
			}},
		},
		{
			name: "assistant refusals",
			body: `{"model":"m","messages":[` + user + `,
				{"role":"assistant","content":null,"refusal":"No."},
				{"role":"assistant","refusal":"Still no."},
				{"role":"assistant","content":"Partly","refusal":"but no."},
				{"role":"assistant","content":[{"type":"refusal","refusal":"Nope."}]},
				{"role":"assistant","content":[],"refusal":"Empty."}]}`,
			want: Request{Model: "m", Messages: []Message{
				chatUser("Hi"),
				{Role: RoleAssistant, Parts: []Part{chatRefusal("No.")}},
				{Role: RoleAssistant, Parts: []Part{chatRefusal("Still no.")}},
				{Role: RoleAssistant, Parts: []Part{chatText("Partly"), chatRefusal("but no.")}},
				{Role: RoleAssistant, Parts: []Part{chatRefusal("Nope.")}},
				{Role: RoleAssistant, Parts: []Part{chatRefusal("Empty.")}},
			}},
		},
		{
			name: "sampling parameters",
			body: `{"model":"m","messages":[` + user + `],"max_completion_tokens":100,"temperature":0.5,
				"top_p":0.9,"presence_penalty":-0.5,"frequency_penalty":1,"seed":42,"stop":"END",
				"user":"u-1","stream":true,"stream_options":{"include_usage":true}}`,
			want: Request{
				Model: "m", Messages: []Message{chatUser("Hi")},
				MaxTokens:        OptInt{Value: 100, Set: true},
				Temperature:      OptFloat{Value: 0.5, Set: true},
				TopP:             OptFloat{Value: 0.9, Set: true},
				PresencePenalty:  OptFloat{Value: -0.5, Set: true},
				FrequencyPenalty: OptFloat{Value: 1, Set: true},
				Seed:             OptInt{Value: 42, Set: true},
				StopSequences:    []string{"END"},
				User:             "u-1",
				Stream:           true,
				StreamUsage:      true,
			},
		},
		{
			name: "max_tokens and an equal max_completion_tokens, stop array",
			body: `{"model":"m","messages":[` + user + `],"max_tokens":7,"max_completion_tokens":7,"stop":["a","b"]}`,
			want: Request{
				Model: "m", Messages: []Message{chatUser("Hi")},
				MaxTokens:     OptInt{Value: 7, Set: true},
				StopSequences: []string{"a", "b"},
			},
		},
		{
			name: "deprecated max_tokens alone",
			body: `{"model":"m","messages":[` + user + `],"max_tokens":4000}`,
			want: Request{Model: "m", Messages: []Message{chatUser("Hi")}, MaxTokens: OptInt{Value: 4000, Set: true}},
		},
		{
			name: "safety_identifier stands in for user",
			body: `{"model":"m","messages":[` + user + `],"safety_identifier":"hash-1"}`,
			want: Request{Model: "m", Messages: []Message{chatUser("Hi")}, User: "hash-1"},
		},
		{
			name: "user wins over safety_identifier, which is a hint",
			body: `{"model":"m","safety_identifier":"hash-1","messages":[` + user + `],"user":"u-1"}`,
			want: Request{Model: "m", Messages: []Message{chatUser("Hi")}, User: "u-1", Dropped: []string{"safety_identifier"}},
		},
		{
			name: "hints",
			body: `{"model":"m","messages":[
				{"role":"user","content":"Hi","name":"ann"},
				{"role":"assistant","content":"Hello","annotations":[{"type":"url_citation"}]}],
				"parallel_tool_calls":true,"store":false,"metadata":{"k":"v"},"service_tier":"auto",
				"prompt_cache_key":"p","tool_choice":"auto",
				"stream":true,"stream_options":{"include_obfuscation":false}}`,
			want: Request{
				Model: "m", Stream: true,
				Messages: []Message{
					chatUser("Hi"),
					{Role: RoleAssistant, Parts: []Part{chatText("Hello")}},
				},
				Dropped: []string{
					"store", "metadata", "service_tier",
					"prompt_cache_key",
					"stream_options.include_obfuscation", "tool_choice", "parallel_tool_calls",
					"messages[0].name", "messages[1].annotations",
				},
			},
		},
		{
			name: "tool_choice none without tools is a hint",
			body: `{"model":"m","messages":[` + user + `],"tools":[],"tool_choice":"none"}`,
			want: Request{Model: "m", Messages: []Message{chatUser("Hi")}, Dropped: []string{"tool_choice"}},
		},
		{
			name: "harmless defaults",
			body: `{"model":"m","messages":[` + user + `,
				{"role":"assistant","content":"Hello","tool_calls":[],"annotations":[],"audio":null,
				 "function_call":null,"refusal":null,"name":null}],
				"n":1,"logprobs":false,"modalities":["text"],"response_format":{"type":"text"},"tools":[]}`,
			want: Request{Model: "m", Messages: []Message{
				chatUser("Hi"),
				{Role: RoleAssistant, Parts: []Part{chatText("Hello")}},
			}},
		},
		{
			name: "null means absent",
			body: `{"model":"m","messages":[` + user + `],"max_tokens":null,"max_completion_tokens":null,
				"temperature":null,"top_p":null,"presence_penalty":null,"frequency_penalty":null,"seed":null,
				"stop":null,"user":null,"safety_identifier":null,"stream":null,"stream_options":null,
				"n":null,"logprobs":null,"modalities":null,"response_format":null,"tools":null,"tool_choice":null,
				"parallel_tool_calls":null,"store":null,"metadata":null,"service_tier":null,"prompt_cache_key":null,
				"prompt_cache_retention":null,"top_logprobs":null,"logit_bias":null,"audio":null,"functions":null,
				"function_call":null,"reasoning_effort":null,"verbosity":null,"prediction":null,
				"web_search_options":null}`,
			want: Request{Model: "m", Messages: []Message{chatUser("Hi")}},
		},
		{
			name: "stream_options null members",
			body: `{"model":"m","messages":[` + user + `],"stream":false,"stream_options":{"include_usage":null,"include_obfuscation":null}}`,
			want: Request{Model: "m", Messages: []Message{chatUser("Hi")}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := chatDecodeRequest(t, tt.body)
			if err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			if !equalDecoded(got, tt.want) {
				t.Errorf("got  %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestChatDecodeRequestErrors(t *testing.T) {
	const (
		unsupported = "not supported by llmbridge"
		unknown     = "unknown field"
		required    = "is required"
		expected    = "expected "
	)
	msgs := `"messages":[{"role":"user","content":"Hi"}]`
	top := func(fields string) string { return `{"model":"m",` + msgs + `,` + fields + `}` }
	msg := func(m string) string { return `{"model":"m","messages":[` + m + `]}` }
	part := func(p string) string { return msg(`{"role":"user","content":[{"type":"text","text":"a"},` + p + `]}`) }
	call := func(c string) string {
		if strings.Contains(c, `\"a\":`) {
			c = `{"id":"c0","function":{"name":"f","arguments":""}},` + c
		}
		return msg(`{"role":"assistant","content":null,"tool_calls":[` + c + `]}`)
	}
	tests := []struct {
		name, body, param, msg string
	}{
		{"model number", `{"model":4,` + msgs + `}`, "model", "expected string, got number"},
		{"messages missing", `{"model":"m"}`, "messages", required},
		{"messages object", `{"model":"m","messages":{}}`, "messages", "expected array, got object"},
		{"messages empty", `{"model":"m","messages":[]}`, "messages", "must not be empty"},
		{"message not object", msg(`"hi"`), "messages[0]", "expected object, got string"},
		{"role missing", msg(`{"content":"x"}`), "messages[0].role", required},
		{"role number", msg(`{"role":1,"content":"x"}`), "messages[0].role", expected},
		{"role tool without id", msg(`{"role":"tool","content":"x","tool_call_id":null}`), "messages[0].tool_call_id", required},
		{"role tool id number", msg(`{"role":"tool","content":"x","tool_call_id":1}`), "messages[0].tool_call_id", expected},
		{"role tool id empty", msg(`{"role":"tool","content":"x","tool_call_id":""}`), "messages[0].tool_call_id", "must not be empty"},
		{"role tool content missing", msg(`{"role":"tool","tool_call_id":"c"}`), "messages[0].content", required},
		{"role tool content number", msg(`{"role":"tool","tool_call_id":"c","content":1}`), "messages[0].content", expected},
		{"role tool image", msg(`{"role":"tool","tool_call_id":"c","content":[{"type":"image_url","image_url":{"url":"https://x"}}]}`), "messages[0].content[0].type", "only allowed in user messages"},
		{"role tool name number", msg(`{"role":"tool","tool_call_id":"c","content":"x","name":1}`), "messages[0].name", expected},
		{"role tool refusal", msg(`{"role":"tool","tool_call_id":"c","content":"x","refusal":"no"}`), "messages[0].refusal", "only allowed in assistant"},
		{"role tool tool_calls", msg(`{"role":"tool","tool_call_id":"c","content":"x","tool_calls":[{}]}`), "messages[0].tool_calls", "only allowed in assistant"},
		{"role function", msg(`{"role":"function","content":"x"}`), "messages[0].role", `role "function"`},
		{"role unknown", msg(`{"role":"robot","content":"x"}`), "messages[0].role", `unknown role "robot"`},
		{"content missing", msg(`{"role":"user"}`), "messages[0].content", required},
		{"assistant content null", msg(`{"role":"user","content":"a"},{"role":"assistant","content":null}`), "messages[1].content", required},
		{"content empty array", msg(`{"role":"user","content":[]}`), "messages[0].content", "must not be empty"},
		{"content number", msg(`{"role":"user","content":3}`), "messages[0].content", "expected string or array, got number"},
		{"content object", msg(`{"role":"system","content":{}}`), "messages[0].content", expected},
		{"message refusal on user", msg(`{"role":"user","content":"a","refusal":"no"}`), "messages[0].refusal", "only allowed in assistant"},
		{"message refusal number", msg(`{"role":"assistant","content":"a","refusal":1}`), "messages[0].refusal", expected},
		{"name number", msg(`{"role":"user","content":"a","name":1}`), "messages[0].name", expected},
		{"annotations string", msg(`{"role":"assistant","content":"a","annotations":"x"}`), "messages[0].annotations", expected},
		{"tool_calls without function", msg(`{"role":"assistant","content":null,"tool_calls":[{"id":"c"}]}`), "messages[0].tool_calls[0].function", required},
		{"tool_calls object", msg(`{"role":"assistant","content":null,"tool_calls":{}}`), "messages[0].tool_calls", "expected array"},
		{"tool_calls on user", msg(`{"role":"user","content":"a","tool_calls":[{}]}`), "messages[0].tool_calls", "only allowed in assistant"},
		{"tool call not object", call(`1`), "messages[0].tool_calls[0]", "expected object"},
		{"tool call unknown field", call(`{"id":"c","x":1}`), "messages[0].tool_calls[0].x", unknown},
		{"tool call custom", call(`{"id":"c","type":"custom","custom":{"name":"f","input":"x"}}`), "messages[0].tool_calls[0]", unsupported},
		{"tool call type unknown", call(`{"id":"c","type":"magic","function":{}}`), "messages[0].tool_calls[0].type", `unknown tool call type "magic"`},
		{"tool call type number", call(`{"id":"c","type":1,"function":{}}`), "messages[0].tool_calls[0].type", expected},
		{"tool call function string", call(`{"id":"c","function":"f"}`), "messages[0].tool_calls[0].function", expected},
		{"tool call id missing", call(`{"type":"function","function":{"name":"f","arguments":"{}"}}`), "messages[0].tool_calls[0].id", required},
		{"tool call function unknown field", call(`{"id":"c","function":{"name":"f","arguments":"{}","x":1}}`), "messages[0].tool_calls[0].function.x", unknown},
		{"tool call name missing", call(`{"id":"c","function":{"arguments":"{}"}}`), "messages[0].tool_calls[0].function.name", required},
		{"tool call arguments missing", call(`{"id":"c","function":{"name":"f"}}`), "messages[0].tool_calls[0].function.arguments", required},
		{"tool call arguments object", call(`{"id":"c","function":{"name":"f","arguments":{}}}`), "messages[0].tool_calls[0].function.arguments", expected},
		{"tool call arguments array", call(`{"id":"c","function":{"name":"f","arguments":"[1]"}}`), "messages[0].tool_calls[0].function.arguments", "JSON object"},
		{"tool call arguments invalid", call(`{"id":"c","function":{"name":"f","arguments":"{\"a\":"}}`), "messages[0].tool_calls[1].function.arguments", "JSON object"},
		{"function_call on message", msg(`{"role":"assistant","content":null,"function_call":{"name":"f"}}`), "messages[0].function_call", unsupported},
		{"tool_call_id on message", msg(`{"role":"user","content":"a","tool_call_id":"c"}`), "messages[0].tool_call_id", "only allowed in tool messages"},
		{"audio on message", msg(`{"role":"assistant","audio":{"id":"a1"}}`), "messages[0].audio", unsupported},
		{"unknown message field", msg(`{"role":"user","content":"a","cache_control":{}}`), "messages[0].cache_control", unknown},
		{"part not object", part(`"x"`), "messages[0].content[1]", "expected object, got string"},
		{"part type missing", part(`{"text":"x"}`), "messages[0].content[1].type", required},
		{"part type number", part(`{"type":1}`), "messages[0].content[1].type", expected},
		{"image part without image_url", part(`{"type":"image_url"}`), "messages[0].content[1].image_url", required},
		{"image part image_url string", part(`{"type":"image_url","image_url":"https://x"}`), "messages[0].content[1].image_url", expected},
		{"image part unknown field", part(`{"type":"image_url","image_url":{"url":"https://x","size":1}}`), "messages[0].content[1].image_url.size", unknown},
		{"image part without url", part(`{"type":"image_url","image_url":{}}`), "messages[0].content[1].image_url.url", required},
		{"image part ftp url", part(`{"type":"image_url","image_url":{"url":"ftp://x/a.png"}}`), "messages[0].content[1].image_url.url", "http(s) URL or a base64 data: URL"},
		{"image part data url not base64", part(`{"type":"image_url","image_url":{"url":"data:image/png,abc"}}`), "messages[0].content[1].image_url.url", "data:<media type>;base64,<data>"},
		{"image part data url no media type", part(`{"type":"image_url","image_url":{"url":"data:;base64,abc"}}`), "messages[0].content[1].image_url.url", "data:<media type>;base64,<data>"},
		{"image part detail number", part(`{"type":"image_url","image_url":{"url":"https://x","detail":1}}`), "messages[0].content[1].image_url.detail", expected},
		{"image part in assistant", msg(`{"role":"assistant","content":[{"type":"image_url","image_url":{"url":"https://x"}}]}`), "messages[0].content[0].type", "only allowed in user messages"},
		{"image part with text", part(`{"type":"image_url","image_url":{"url":"https://x"},"text":"a"}`), "messages[0].content[1].text", unknown},
		{"audio part empty", part(`{"type":"input_audio","input_audio":{}}`), "messages[0].content[1].input_audio.data", required},
		{"audio part unknown field", part(`{"type":"input_audio","input_audio":{"data":"AA","format":"wav","rate":1}}`), "messages[0].content[1].input_audio.rate", unknown},
		{"audio part without format", part(`{"type":"input_audio","input_audio":{"data":"AA"}}`), "messages[0].content[1].input_audio.format", required},
		{"audio part format unknown", part(`{"type":"input_audio","input_audio":{"data":"AA","format":"ogg"}}`), "messages[0].content[1].input_audio.format", `unknown audio format "ogg"`},
		{"file part empty", part(`{"type":"file","file":{}}`), "messages[0].content[1].file.file_data", required},
		{"file part file_id", part(`{"type":"file","file":{"file_id":"file-1"}}`), "messages[0].content[1].file.file_id", unsupported},
		{"file part url", part(`{"type":"file","file":{"file_data":"https://x/a.pdf"}}`), "messages[0].content[1].file.file_data", "must be a base64 data: URL"},
		{"file part filename number", part(`{"type":"file","file":{"file_data":"data:application/pdf;base64,AA","filename":1}}`), "messages[0].content[1].file.filename", expected},
		{"file part unknown field", part(`{"type":"file","file":{"file_data":"data:application/pdf;base64,AA","x":1}}`), "messages[0].content[1].file.x", unknown},
		{"unknown part type", part(`{"type":"video"}`), "messages[0].content[1].type", `unknown content part type "video"`},
		{"text part without text", part(`{"type":"text"}`), "messages[0].content[1].text", required},
		{"text part text number", part(`{"type":"text","text":1}`), "messages[0].content[1].text", expected},
		{"text part extra field", part(`{"type":"text","text":"x","cache_control":{"type":"ephemeral"}}`), "messages[0].content[1].cache_control", unknown},
		{"text part with refusal", part(`{"type":"text","text":"x","refusal":"y"}`), "messages[0].content[1].refusal", unknown},
		{"refusal part in user message", part(`{"type":"refusal","refusal":"x"}`), "messages[0].content[1].type", "only allowed in assistant"},
		{"refusal part with text", msg(`{"role":"assistant","content":[{"type":"refusal","refusal":"x","text":"y"}]}`), "messages[0].content[0].text", unknown},
		{"refusal part without refusal", msg(`{"role":"assistant","content":[{"type":"refusal"}]}`), "messages[0].content[0].refusal", required},
		{"max_tokens fraction", top(`"max_tokens":1.5`), "max_tokens", "expected integer"},
		{"max_completion_tokens string", top(`"max_completion_tokens":"10"`), "max_completion_tokens", "expected integer"},
		{"max tokens disagree", top(`"max_tokens":10,"max_completion_tokens":20`), "max_completion_tokens", "differs from max_tokens"},
		{"temperature string", top(`"temperature":"hot"`), "temperature", "expected number"},
		{"top_p boolean", top(`"top_p":true`), "top_p", "expected number"},
		{"presence_penalty string", top(`"presence_penalty":"1"`), "presence_penalty", "expected number"},
		{"frequency_penalty array", top(`"frequency_penalty":[]`), "frequency_penalty", "expected number"},
		{"seed fraction", top(`"seed":1.5`), "seed", "expected integer"},
		{"stop number", top(`"stop":5`), "stop", "expected string or array of strings"},
		{"stop element number", top(`"stop":["a",1]`), "stop[1]", "expected string"},
		{"user number", top(`"user":5`), "user", "expected string"},
		{"safety_identifier number", top(`"safety_identifier":5`), "safety_identifier", "expected string"},
		{"stream string", top(`"stream":"yes"`), "stream", "expected boolean"},
		{"stream_options string", top(`"stream_options":"x"`), "stream_options", "expected object"},
		{"include_usage string", top(`"stream_options":{"include_usage":"yes"}`), "stream_options.include_usage", "expected boolean"},
		{"include_obfuscation string", top(`"stream_options":{"include_obfuscation":"no"}`), "stream_options.include_obfuscation", "expected boolean"},
		{"stream_options unknown", top(`"stream_options":{"chunk_size":3}`), "stream_options.chunk_size", unknown},
		{"n 2", top(`"n":2`), "n", unsupported},
		{"n string", top(`"n":"1"`), "n", "expected integer"},
		{"logprobs true", top(`"logprobs":true`), "logprobs", unsupported},
		{"logprobs string", top(`"logprobs":"no"`), "logprobs", "expected boolean"},
		{"top_logprobs", top(`"top_logprobs":3`), "top_logprobs", unsupported},
		{"logit_bias", top(`"logit_bias":{"50256":-100}`), "logit_bias", unsupported},
		{"audio", top(`"audio":{"voice":"alloy","format":"mp3"}`), "audio", unsupported},
		{"functions", top(`"functions":[{"name":"f"}]`), "functions", unsupported},
		{"function_call", top(`"function_call":"auto"`), "function_call", unsupported},
		{"reasoning_effort unknown", top(`"reasoning_effort":"extreme"`), "reasoning_effort", `unknown value "extreme"`},
		{"reasoning_effort empty", top(`"reasoning_effort":""`), "reasoning_effort", `unknown value ""`},
		{"reasoning_effort number", top(`"reasoning_effort":1`), "reasoning_effort", expected},
		{"verbosity unknown", top(`"verbosity":"max"`), "verbosity", `unknown value "max"`},
		{"verbosity number", top(`"verbosity":2`), "verbosity", expected},
		{"prompt_cache_retention", top(`"prompt_cache_retention":"24h"`), "prompt_cache_retention", unsupported},
		{"reasoning_content in a user message", msg(`{"role":"user","content":"x","reasoning_content":"t"}`), "messages[0].reasoning_content", "only allowed in assistant"},
		{"reasoning_content in a system message", msg(`{"role":"system","content":"x","reasoning_content":"t"}`), "messages[0].reasoning_content", "only allowed in assistant"},
		{"reasoning_content in a tool message", msg(`{"role":"tool","tool_call_id":"c","content":"x","reasoning_content":"t"}`), "messages[0].reasoning_content", "only allowed in assistant"},
		{"reasoning_content number", msg(`{"role":"assistant","content":"x","reasoning_content":1}`), "messages[0].reasoning_content", expected},
		{"reasoning_content with a damaged envelope", msg(`{"role":"assistant","content":"x","reasoning_content":"t\n\n[[llmbridge.v1.!!]]\n\n"}`), "messages[0].reasoning_content", "malformed llmbridge continuation envelope"},
		{"reasoning_content with an unclosed envelope", msg(`{"role":"assistant","content":"x","reasoning_content":"t [[llmbridge.v1.AQAAc2ln"}`), "messages[0].reasoning_content", "malformed"},
		{"reasoning_content with an envelope of no family", msg(`{"role":"assistant","content":"x","reasoning_content":"[[llmbridge.v1.AAAAc2ln]]"}`), "messages[0].reasoning_content", "malformed"},
		{"prediction", top(`"prediction":{"type":"content","content":"x"}`), "prediction", unsupported},
		{"web_search_options", top(`"web_search_options":{}`), "web_search_options", unsupported},
		{"modalities string", top(`"modalities":"text"`), "modalities", "expected array of strings"},
		{"modalities element number", top(`"modalities":["text",1]`), "modalities[1]", "expected string"},
		{"modalities audio", top(`"modalities":["text","audio"]`), "modalities", unsupported},
		{"modalities unknown", top(`"modalities":["video"]`), "modalities[0]", `unknown modality "video"`},
		{"response_format string", top(`"response_format":"json"`), "response_format", "expected object"},
		{"response_format without type", top(`"response_format":{}`), "response_format.type", required},
		{"response_format type number", top(`"response_format":{"type":1}`), "response_format.type", expected},
		{"response_format json_object extra", top(`"response_format":{"type":"json_object","schema":{}}`), "response_format.schema", unknown},
		{"response_format json_object with json_schema", top(`"response_format":{"type":"json_object","json_schema":{"name":"x"}}`), "response_format.json_schema", unknown},
		{"response_format json_schema missing", top(`"response_format":{"type":"json_schema"}`), "response_format.json_schema", required},
		{"response_format json_schema string", top(`"response_format":{"type":"json_schema","json_schema":"x"}`), "response_format.json_schema", expected},
		{"response_format json_schema extra", top(`"response_format":{"type":"json_schema","json_schema":{"name":"x"},"strict":true}`), "response_format.strict", unknown},
		{"response_format json_schema name missing", top(`"response_format":{"type":"json_schema","json_schema":{"schema":{}}}`), "response_format.json_schema.name", required},
		{"response_format json_schema name number", top(`"response_format":{"type":"json_schema","json_schema":{"name":1}}`), "response_format.json_schema.name", expected},
		{"response_format json_schema description number", top(`"response_format":{"type":"json_schema","json_schema":{"name":"x","description":1}}`), "response_format.json_schema.description", expected},
		{"response_format json_schema schema string", top(`"response_format":{"type":"json_schema","json_schema":{"name":"x","schema":"{}"}}`), "response_format.json_schema.schema", expected},
		{"response_format json_schema strict string", top(`"response_format":{"type":"json_schema","json_schema":{"name":"x","strict":"yes"}}`), "response_format.json_schema.strict", expected},
		{"response_format json_schema unknown member", top(`"response_format":{"type":"json_schema","json_schema":{"name":"x","format":"y"}}`), "response_format.json_schema.format", unknown},
		{"response_format unknown type", top(`"response_format":{"type":"xml"}`), "response_format.type", `unknown value "xml"`},
		{"response_format text extra", top(`"response_format":{"type":"text","strict":true}`), "response_format.strict", unknown},
		{"tools object", top(`"tools":{}`), "tools", "expected array"},
		{"tool not object", top(`"tools":[1]`), "tools[0]", "expected object"},
		{"tool unknown field", top(`"tools":[{"type":"function","function":{"name":"f"},"x":1}]`), "tools[0].x", unknown},
		{"tool type missing", top(`"tools":[{"function":{"name":"f"}}]`), "tools[0].type", required},
		{"tool type number", top(`"tools":[{"type":1}]`), "tools[0].type", expected},
		{"tool custom", top(`"tools":[{"type":"custom","custom":{"name":"f"}}]`), "tools[0]", "custom (freeform) tools"},
		{"tool type unknown", top(`"tools":[{"type":"web_search"}]`), "tools[0].type", `unknown tool type "web_search"`},
		{"tool function missing", top(`"tools":[{"type":"function"}]`), "tools[0].function", required},
		{"tool function string", top(`"tools":[{"type":"function","function":"f"}]`), "tools[0].function", expected},
		{"tool name missing", top(`"tools":[{"type":"function","function":{}}]`), "tools[0].function.name", required},
		{"tool name number", top(`"tools":[{"type":"function","function":{"name":1}}]`), "tools[0].function.name", expected},
		{"tool name empty", top(`"tools":[{"type":"function","function":{"name":""}}]`), "tools[0].function.name", "must not be empty"},
		{"tool description number", top(`"tools":[{"type":"function","function":{"name":"f","description":1}}]`), "tools[0].function.description", expected},
		{"tool parameters string", top(`"tools":[{"type":"function","function":{"name":"f","parameters":"{}"}}]`), "tools[0].function.parameters", expected},
		{"tool strict string", top(`"tools":[{"type":"function","function":{"name":"f","strict":"yes"}}]`), "tools[0].function.strict", expected},
		{"tool function unknown field", top(`"tools":[{"type":"function","function":{"name":"f","x":1}}]`), "tools[0].function.x", unknown},
		{"tool_choice required without tools", top(`"tool_choice":"required"`), "tool_choice", "no tools are given"},
		{"tool_choice named without tools", top(`"tool_choice":{"type":"function","function":{"name":"f"}}`), "tool_choice", "no tools are given"},
		{"tool_choice unknown field", top(`"tool_choice":{"type":"function","x":1}`), "tool_choice.x", unknown},
		{"tool_choice type missing", top(`"tool_choice":{}`), "tool_choice.type", required},
		{"tool_choice type number", top(`"tool_choice":{"type":1}`), "tool_choice.type", expected},
		{"tool_choice allowed_tools", top(`"tool_choice":{"type":"allowed_tools","allowed_tools":{}}`), "tool_choice", unsupported},
		{"tool_choice type unknown", top(`"tool_choice":{"type":"magic"}`), "tool_choice.type", `unknown value "magic"`},
		{"tool_choice function missing", top(`"tool_choice":{"type":"function"}`), "tool_choice.function", required},
		{"tool_choice function string", top(`"tool_choice":{"type":"function","function":"f"}`), "tool_choice.function", expected},
		{"tool_choice function unknown field", top(`"tool_choice":{"type":"function","function":{"name":"f","x":1}}`), "tool_choice.function.x", unknown},
		{"tool_choice name missing", top(`"tool_choice":{"type":"function","function":{}}`), "tool_choice.function.name", required},
		{"tool_choice unknown", top(`"tool_choice":"maybe"`), "tool_choice", `unknown value "maybe"`},
		{"tool_choice number", top(`"tool_choice":1`), "tool_choice", "expected string or object"},
		{"parallel_tool_calls string", top(`"parallel_tool_calls":"yes"`), "parallel_tool_calls", "expected boolean"},
		{"store number", top(`"store":1`), "store", "expected boolean"},
		{"metadata array", top(`"metadata":[]`), "metadata", "expected object"},
		{"service_tier number", top(`"service_tier":1`), "service_tier", "expected string"},
		{"prompt_cache_key number", top(`"prompt_cache_key":1`), "prompt_cache_key", "expected string"},
		{"unknown top-level field", top(`"temperatur":1`), "temperatur", unknown},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := chatDecodeRequest(t, tt.body)
			if err == nil {
				t.Fatal("expected an error")
			}
			if err.Status != 400 || err.Kind != mapping.ErrInvalidRequest {
				t.Errorf("status %d kind %v, want 400 invalid request", err.Status, err.Kind)
			}
			if err.Param != tt.param {
				t.Errorf("param %q, want %q (%v)", err.Param, tt.param, err)
			}
			if !strings.Contains(err.Message, tt.msg) {
				t.Errorf("message %q does not contain %q", err.Message, tt.msg)
			}
		})
	}
}

// TestChatDecodeRequestRecordings decodes the request bodies of the
// text-only recordings: what real clients send must be accepted.
func TestChatDecodeRequestRecordings(t *testing.T) {
	for name, want := range map[string]Request{
		"gpt-4o-text.json": {
			Model:      "gpt-4o",
			System:     []Part{chatText("You are a helpful assistant")},
			SystemRole: RoleSystem,
			Messages:   []Message{chatUser("Say hi in Portuguese")},
			MaxTokens:  OptInt{Value: 4000, Set: true},
		},
		"o3-mini-stop-sequence.json": {
			Model:         "o3-mini",
			Messages:      []Message{chatUser(`What is the capital of France? Give me an answer that contains the word "Paris", but is not the first word.`)},
			StopSequences: []string{"Paris"},
		},
	} {
		t.Run(name, func(t *testing.T) {
			rec := chatRecording(t, name)
			got, err := chatDecodeRequest(t, rec.Get("request.body").Raw)
			if err != nil {
				t.Fatal(err)
			}
			if !equalDecoded(got, want) {
				t.Errorf("got  %+v\nwant %+v", got, want)
			}
		})
	}
}

func TestChatAppendRequest(t *testing.T) {
	tests := []struct {
		name string
		req  Request
		opts EncodeOptions
	}{
		{
			name: "basic",
			req: Request{
				Model:     "gpt-4o",
				System:    []Part{chatText("You are a helpful assistant")},
				Messages:  []Message{chatUser("Say hi in Portuguese")},
				MaxTokens: OptInt{Value: 4000, Set: true},
			},
		},
		{
			name: "all_params",
			req: Request{
				Model:            "gpt-4o",
				Messages:         []Message{chatUser("Hi")},
				MaxTokens:        OptInt{Value: 256, Set: true},
				Temperature:      OptFloat{Value: 0.7, Set: true},
				TopP:             OptFloat{Value: 1, Set: true},
				PresencePenalty:  OptFloat{Value: -0.25, Set: true},
				FrequencyPenalty: OptFloat{Value: 0.5, Set: true},
				Seed:             OptInt{Value: 7, Set: true},
				StopSequences:    []string{"\n\n", "END"},
				User:             "user-1234",
				Stream:           true,
			},
		},
		{
			name: "developer_multipart",
			req: Request{
				Model:      "o3",
				System:     []Part{chatText("Rule one."), chatText("Rule two.")},
				SystemRole: RoleDeveloper,
				Messages: []Message{
					{Role: RoleUser, Parts: []Part{chatText("Part A. "), chatText("Part B.")}},
					{Role: RoleAssistant, Parts: []Part{chatText("Answer.")}},
					{Role: RoleSystem, Parts: []Part{chatText("Switch to French.")}},
					{Role: RoleDeveloper, Parts: []Part{chatText("Keep it short.")}},
					chatUser("Encore ?"),
				},
			},
		},
		{
			name: "refusals",
			req: Request{
				Model: "gpt-4o",
				Messages: []Message{
					chatUser("Q1"),
					{Role: RoleAssistant, Parts: []Part{chatRefusal("I can't help with that.")}},
					chatUser("Q2"),
					{Role: RoleAssistant, Parts: []Part{chatText("Here is part: "), chatRefusal("the rest "), chatRefusal("I can't.")}},
					{Role: RoleUser, Parts: []Part{chatText("Quoted: "), chatRefusal("a refusal")}},
					{Role: RoleUser, Parts: []Part{chatRefusal("only a refusal")}},
					{Role: RoleAssistant, Parts: []Part{chatText("one"), chatText("two"), chatRefusal("no")}},
				},
			},
		},
		{
			name: "model_override_and_escapes",
			opts: EncodeOptions{Model: "gpt-4.1-mini"},
			req: Request{
				Model:    "client-model",
				Messages: []Message{chatUser("quote \" backslash \\ tab \t nl \n ctl \x01 sep \u2028 é"), {Role: RoleUser}},
				Stream:   true, StreamUsage: true,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := AppendRequest(nil, OpenAIChat, &tt.req, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			if len(tt.req.Dropped) != 0 {
				t.Errorf("Dropped = %v, want none", tt.req.Dropped)
			}
			checkGolden(t, "openai-chat/request_"+tt.name+".json", out)
		})
	}
}

func TestChatAppendRequestErrors(t *testing.T) {
	tests := []struct {
		name, param string
		req         Request
	}{
		{"top_k", "top_k", Request{Model: "m", Messages: []Message{chatUser("Hi")}, TopK: OptInt{Value: 40, Set: true}}},
		{"unknown message part", "messages[1].parts[0]", Request{Model: "m", Messages: []Message{chatUser("Hi"), {Role: RoleUser, Parts: []Part{{Type: 200}}}}}},
		{"unknown system part", "system[1]", Request{Model: "m", System: []Part{chatText("S"), {Type: 200}}, Messages: []Message{chatUser("Hi")}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := AppendRequest(nil, OpenAIChat, &tt.req, EncodeOptions{})
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %v is not an *Error", err)
			}
			if e.Status != 400 || e.Param != tt.param || !strings.Contains(e.Message, "openai-chat") {
				t.Errorf("got %d %q %q, want 400 %q", e.Status, e.Param, e.Message, tt.param)
			}
		})
	}
}

// TestChatRequestRoundTrip decodes a realistic conversation, encodes it and
// decodes the result: nothing may change.
func TestChatRequestRoundTrip(t *testing.T) {
	body := readTestdata(t, "openai-chat/bench_request.json")
	first, err := chatDecodeRequest(t, string(body))
	if err != nil {
		t.Fatal(err)
	}
	if len(first.Messages) != 19 || len(first.System) != 1 {
		t.Fatalf("decoded %d messages and %d system parts", len(first.Messages), len(first.System))
	}
	out, aerr := AppendRequest(nil, OpenAIChat, &first, EncodeOptions{})
	if aerr != nil {
		t.Fatal(aerr)
	}
	second, err := chatDecodeRequest(t, string(out))
	if err != nil {
		t.Fatal(err)
	}
	if !equalDecoded(first, second) {
		t.Errorf("round trip changed the request:\nfirst  %+v\nsecond %+v", first, second)
	}
}

// TestChatDecodeRequestReuse decodes into a Reset request that has more
// capacity than needed.
func TestChatDecodeRequestReuse(t *testing.T) {
	var req Request
	big := readTestdata(t, "openai-chat/bench_request.json")
	if err := DecodeRequest(OpenAIChat, big, &req); err != nil {
		t.Fatal(err)
	}
	req.Reset()
	if err := DecodeRequest(OpenAIChat, []byte(`{"model":"m","messages":[{"role":"user","content":"Hi"}],"stop":"x"}`), &req); err != nil {
		t.Fatal(err)
	}
	chatNormalize(&req)
	want := Request{Model: "m", Messages: []Message{chatUser("Hi")}, StopSequences: []string{"x"}}
	if !equalDecoded(req, want) {
		t.Errorf("got  %+v\nwant %+v", req, want)
	}
}

const chatRecordings = "../../shared/recordings/openai-chat"

// chatRecording returns the recording called name.
// chatRecording returns the openai-chat recording called name.
func chatRecording(t *testing.T, name string) gjson.Result {
	t.Helper()
	return readRecording(t, "openai-chat/"+name)
}

// chatTextOf joins the parts of type typ.
func chatTextOf(parts []Part, typ PartType) string {
	var b strings.Builder
	for _, p := range parts {
		if p.Type == typ {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

// TestChatDecodeResponseRecordings decodes every non-streaming success body
// recorded from OpenAI: text-only ones must match here, tool calls are
// checked by TestChatDecodeResponseToolRecordings.
func TestChatDecodeResponseRecordings(t *testing.T) {
	type expectation struct {
		id, model, text string
		created         int64
		stop            StopReason
		usage           Usage
	}
	want := map[string]expectation{
		"gpt-4o-text.json": {
			id: "chatcmpl-DuLdCrhIZ5WekmJNOuiNyelYjQqZk", model: "gpt-4o-2024-08-06", created: 1782321890,
			text: "Oi!", stop: mapping.StopEnd,
			usage: Usage{Known: true, InputTokens: 20, OutputTokens: 2},
		},
		"o3-mini-stop-sequence.json": {
			id: "chatcmpl-BfUgyreG4fpnDXvHKXtRkevWb6i3p", model: "o3-mini-2025-01-31", created: 1749229128,
			text: "The capital of France is ", stop: mapping.StopEnd,
			usage: Usage{Known: true, InputTokens: 31, OutputTokens: 467, ReasoningTokens: 448},
		},
		"gpt-4o-tool-followup.json": {
			id: "chatcmpl-DuLdHv2zvb8aazm4Y6RlHu7gNpQs9", model: "gpt-4o-2024-08-06", created: 1782321895,
			text: "The weather in Florence, Italy is currently 40°C.", stop: mapping.StopEnd,
			usage: Usage{Known: true, InputTokens: 86, OutputTokens: 13},
		},
		"gpt-5-image.json": {
			id: "chatcmpl-DIekbWt9VqYjHeIhwFtwNR0XOrx7l", model: "gpt-5-2025-08-07", created: 1773338921,
			text:  "A cute pastel star with a tiny face streaks across a purple background, leaving a pink-blue-green rainbow trail with sparkles.",
			stop:  mapping.StopEnd,
			usage: Usage{Known: true, InputTokens: 232, OutputTokens: 163, ReasoningTokens: 128},
		},
	}
	skipWithoutRecordings(t)
	files, err := filepath.Glob(filepath.Join(chatRecordings, "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	for _, file := range files {
		name := filepath.Base(file)
		rec := chatRecording(t, name)
		if rec.Get("stream").Bool() || rec.Get("response.status").Int() != 200 {
			continue
		}
		t.Run(name, func(t *testing.T) {
			var resp Response
			err := DecodeResponse(OpenAIChat, []byte(rec.Get("response.body").Str), &resp)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(rec.Get("features").Raw, `"tool_call"`) {
				return
			}
			w, ok := want[name]
			if !ok {
				t.Fatalf("no expectation for %s", name)
			}
			seen++
			if resp.ID != w.id || resp.Model != w.model || resp.Created != w.created {
				t.Errorf("id/model/created = %q %q %d, want %q %q %d", resp.ID, resp.Model, resp.Created, w.id, w.model, w.created)
			}
			if len(resp.Content) != 1 || !equalDecoded(resp.Content[0], chatText(w.text)) {
				t.Errorf("content = %+v, want one text part %q", resp.Content, w.text)
			}
			if resp.StopReason != w.stop {
				t.Errorf("stop = %v, want %v", resp.StopReason, w.stop)
			}
			if resp.Usage != w.usage {
				t.Errorf("usage = %+v, want %+v", resp.Usage, w.usage)
			}
		})
	}
	if seen != len(want) {
		t.Errorf("checked %d text recordings, want %d", seen, len(want))
	}
}

func TestChatDecodeResponse(t *testing.T) {
	wrap := func(message, finish, usage string) string {
		s := `{"id":"chatcmpl-1","object":"chat.completion","created":1700000000,"model":"gpt-4o",` +
			`"choices":[{"index":0,"message":` + message + `,"logprobs":null,"finish_reason":` + finish + `}]`
		if usage != "" {
			s += `,"usage":` + usage
		}
		return s + `}`
	}
	tests := []struct {
		name    string
		body    string
		content []Part
		stop    StopReason
		usage   Usage
	}{
		{
			name:    "refusal with null content",
			body:    wrap(`{"role":"assistant","content":null,"refusal":"I can't help with that."}`, `"stop"`, ""),
			content: []Part{chatRefusal("I can't help with that.")},
			stop:    mapping.StopRefusal,
		},
		{
			name:    "refusal with empty content",
			body:    wrap(`{"role":"assistant","content":"","refusal":"No."}`, `"stop"`, "null"),
			content: []Part{chatRefusal("No.")},
			stop:    mapping.StopRefusal,
		},
		{
			name:    "refusal cut by the limit stays a limit",
			body:    wrap(`{"role":"assistant","content":null,"refusal":"I can"}`, `"length"`, ""),
			content: []Part{chatRefusal("I can")},
			stop:    mapping.StopMaxTokens,
		},
		{
			name: "reasoning_content (DeepSeek) comes before the text, unsigned, with reasoning tokens",
			body: wrap(`{"role":"assistant","content":"4","reasoning_content":"2+2 is 4."}`, `"stop"`,
				`{"prompt_tokens":10,"completion_tokens":20,"total_tokens":30,"prompt_tokens_details":{"cached_tokens":8},"completion_tokens_details":{"reasoning_tokens":15}}`),
			content: []Part{{Type: PartReasoning, Text: "2+2 is 4."}, chatText("4")},
			stop:    mapping.StopEnd,
			usage:   Usage{Known: true, InputTokens: 10, CacheReadTokens: 8, OutputTokens: 20, ReasoningTokens: 15},
		},
		{
			name: "DeepSeek's cache hits are cached tokens",
			body: wrap(`{"role":"assistant","content":"4"}`, `"stop"`,
				`{"prompt_tokens":100,"completion_tokens":20,"total_tokens":120,"prompt_cache_hit_tokens":64,"prompt_cache_miss_tokens":36,"completion_tokens_details":{"reasoning_tokens":15}}`),
			content: []Part{chatText("4")},
			stop:    mapping.StopEnd,
			usage:   Usage{Known: true, InputTokens: 100, CacheReadTokens: 64, OutputTokens: 20, ReasoningTokens: 15},
		},
		{
			name:    "reasoning (vLLM, OpenRouter) is the same",
			body:    wrap(`{"role":"assistant","content":"4","reasoning":"2+2 is 4.","reasoning_details":[{"type":"reasoning.text"}]}`, `"stop"`, ""),
			content: []Part{{Type: PartReasoning, Text: "2+2 is 4."}, chatText("4")},
			stop:    mapping.StopEnd,
		},
		{
			name:    "reasoning beside reasoning_content is not repeated",
			body:    wrap(`{"role":"assistant","content":"4","reasoning":"same","reasoning_content":"same"}`, `"stop"`, ""),
			content: []Part{{Type: PartReasoning, Text: "same"}, chatText("4")},
			stop:    mapping.StopEnd,
		},
		{
			name:    "empty and null reasoning are nothing",
			body:    wrap(`{"role":"assistant","content":"4","reasoning":null,"reasoning_content":""}`, `"stop"`, ""),
			content: []Part{chatText("4")},
			stop:    mapping.StopEnd,
		},
		{
			name:    "reasoning before tool calls",
			body:    wrap(`{"role":"assistant","content":null,"reasoning_content":"call f","tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]}`, `"tool_calls"`, ""),
			content: []Part{{Type: PartReasoning, Text: "call f"}, chatCall("c1", "f", "{}")},
			stop:    mapping.StopToolUse,
		},
		{
			name:    "empty answer cut by the limit",
			body:    wrap(`{"role":"assistant","content":""}`, `"length"`, `{"prompt_tokens":5,"completion_tokens":0,"total_tokens":5,"prompt_tokens_details":null}`),
			content: []Part{chatText("")},
			stop:    mapping.StopMaxTokens,
			usage:   Usage{Known: true, InputTokens: 5},
		},
		{
			name: "content filter with cached tokens",
			body: wrap(`{"role":"assistant","content":"Par","tool_calls":[],"function_call":null,"audio":null}`, `"content_filter"`,
				`{"prompt_tokens":1200,"completion_tokens":3,"total_tokens":1203,"prompt_tokens_details":{"cached_tokens":1024,"audio_tokens":0},"completion_tokens_details":{"reasoning_tokens":0}}`),
			content: []Part{chatText("Par")},
			stop:    mapping.StopContentFilter,
			usage:   Usage{Known: true, InputTokens: 1200, CacheReadTokens: 1024, OutputTokens: 3},
		},
		{
			name:    "null counters",
			body:    wrap(`{"role":"assistant","content":"x"}`, `"stop"`, `{"prompt_tokens":null,"completion_tokens":2,"completion_tokens_details":null}`),
			content: []Part{chatText("x")},
			stop:    mapping.StopEnd,
			usage:   Usage{Known: true, OutputTokens: 2},
		},
		{
			name:    "no finish reason",
			body:    wrap(`{"role":"assistant","content":"x"}`, `null`, ""),
			content: []Part{chatText("x")},
			stop:    mapping.StopNone,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var resp Response
			if err := DecodeResponse(OpenAIChat, []byte(tt.body), &resp); err != nil {
				t.Fatal(err)
			}
			if resp.ID != "chatcmpl-1" || resp.Model != "gpt-4o" || resp.Created != 1700000000 {
				t.Errorf("id/model/created = %q %q %d", resp.ID, resp.Model, resp.Created)
			}
			if !equalDecoded(resp.Content, tt.content) || resp.StopReason != tt.stop || resp.Usage != tt.usage {
				t.Errorf("got %+v %v %+v, want %+v %v %+v", resp.Content, resp.StopReason, resp.Usage, tt.content, tt.stop, tt.usage)
			}
		})
	}
}

func TestChatDecodeResponseErrors(t *testing.T) {
	choice := func(message string) string {
		return `{"id":"c","choices":[{"index":0,"message":` + message + `,"finish_reason":"stop"}]}`
	}
	ok := `{"role":"assistant","content":"x"}`
	tests := []struct{ name, body, msg string }{
		{"not JSON", `{"id":`, "not valid JSON"},
		{"no choices", `{"id":"c","object":"chat.completion"}`, "choices is missing"},
		{"choices object", `{"choices":{}}`, "choices is missing"},
		{"choices empty", `{"choices":[]}`, "choices is empty"},
		{"choice not object", `{"choices":[1]}`, "choices[0] is not an object"},
		{"message missing", `{"choices":[{"index":0,"finish_reason":"stop"}]}`, "message is missing"},
		{"message string", choice(`"hi"`), "message is missing"},
		{"content number", choice(`{"role":"assistant","content":1}`), "content is not a string"},
		{"refusal number", choice(`{"role":"assistant","content":null,"refusal":1}`), "refusal is not a string"},
		{"reasoning_content number", choice(`{"role":"assistant","content":"x","reasoning_content":1}`), "reasoning_content is not a string"},
		{"prompt_cache_hit_tokens string", `{"choices":[{"message":` + ok + `}],"usage":{"prompt_cache_hit_tokens":"1"}}`, "usage.prompt_cache_hit_tokens is not a number"},
		{"reasoning object", choice(`{"role":"assistant","content":"x","reasoning":{}}`), "message.reasoning is not a string"},
		{"tool calls object", choice(`{"role":"assistant","content":null,"tool_calls":{}}`), "tool_calls is not an array"},
		{"tool call not object", choice(`{"role":"assistant","content":null,"tool_calls":[1]}`), "tool_calls[0] is not an object"},
		{"tool call id number", choice(`{"role":"assistant","content":null,"tool_calls":[{"id":1}]}`), "tool_calls[0].id is not a string"},
		{"tool call type number", choice(`{"role":"assistant","content":null,"tool_calls":[{"type":1}]}`), "tool_calls[0].type is not a string"},
		{"tool call name number", choice(`{"role":"assistant","content":null,"tool_calls":[{"function":{"name":1}}]}`), "tool_calls[0].function.name is not a string"},
		{"tool call arguments object", choice(`{"role":"assistant","content":null,"tool_calls":[{"function":{"arguments":{}}}]}`), "tool_calls[0].function.arguments is not a string"},
		{"tool call custom", choice(`{"role":"assistant","content":null,"tool_calls":[{"id":"c","type":"custom","custom":{}}]}`), `tool call of type "custom"`},
		{"tool call without id", choice(`{"role":"assistant","content":null,"tool_calls":[{"function":{"name":"f","arguments":"{}"}}]}`), "has no id or no function name"},
		{"tool call bad arguments", choice(`{"role":"assistant","content":null,"tool_calls":[{"id":"c","function":{"name":"f","arguments":"{"}}]}`), "arguments is not the text of a JSON object"},
		{"function call not an object", choice(`{"role":"assistant","content":null,"function_call":"f"}`), "function_call is not an object"},
		{"function call without name", choice(`{"role":"assistant","content":null,"function_call":{"arguments":"{}"}}`), "function_call has no name"},
		{"audio not an object", choice(`{"role":"assistant","content":null,"audio":"a"}`), "audio is not an object"},
		{"custom tool call", choice(`{"role":"assistant","content":null,"tool_calls":[{"id":"c","type":"custom","custom":{"name":"f","input":"x"}}]}`), "the client would have to run"},
		{"id number", `{"id":1,"choices":[{"message":` + ok + `}]}`, "id is not a string"},
		{"model number", `{"model":1,"choices":[{"message":` + ok + `}]}`, "model is not a string"},
		{"created string", `{"created":"now","choices":[{"message":` + ok + `}]}`, "created is not a number"},
		{"finish_reason number", `{"choices":[{"message":` + ok + `,"finish_reason":1}]}`, "finish_reason is not a string"},
		{"usage string", `{"choices":[{"message":` + ok + `}],"usage":"x"}`, "usage is not an object"},
		{"prompt_tokens string", `{"choices":[{"message":` + ok + `}],"usage":{"prompt_tokens":"1"}}`, "usage.prompt_tokens is not a number"},
		{"completion_tokens string", `{"choices":[{"message":` + ok + `}],"usage":{"completion_tokens":"1"}}`, "usage.completion_tokens is not a number"},
		{"details array", `{"choices":[{"message":` + ok + `}],"usage":{"prompt_tokens_details":[]}}`, "usage.prompt_tokens_details is not an object"},
		{"reasoning_tokens string", `{"choices":[{"message":` + ok + `}],"usage":{"completion_tokens_details":{"reasoning_tokens":"1"}}}`, "usage.completion_tokens_details.reasoning_tokens is not a number"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var resp Response
			err := DecodeResponse(OpenAIChat, []byte(tt.body), &resp)
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("got %v, want an *Error", err)
			}
			if e.Status != 502 || e.Kind != mapping.ErrBadGateway || !strings.Contains(e.Message, tt.msg) {
				t.Errorf("got %d %v %q, want 502 containing %q", e.Status, e.Kind, e.Message, tt.msg)
			}
		})
	}
}

func TestChatAppendResponse(t *testing.T) {
	tests := []struct {
		name string
		resp Response
	}{
		{
			name: "text",
			resp: Response{
				ID: "chatcmpl-abc", Model: "gpt-4o-2024-08-06", Created: 1782321890,
				Content:    []Part{chatText("Oi! "), chatText("Tudo bem?")},
				StopReason: mapping.StopEnd,
				Usage: Usage{
					Known: true, InputTokens: 1220, CacheReadTokens: 1024, CacheWriteTokens: 100,
					OutputTokens: 40, ReasoningTokens: 12,
				},
			},
		},
		{
			name: "refusal",
			resp: Response{
				ID: "msg_01", Model: "claude-sonnet-4-5", Created: 1700000000,
				Content:    []Part{chatRefusal("I can't provide instructions for that request.")},
				StopReason: mapping.StopRefusal,
			},
		},
		{
			name: "length",
			resp: Response{
				ID: "chatcmpl-len", Model: "gpt-4o", Created: 1700000001,
				Content:    []Part{chatText("The list goes:\n1."), chatRefusal(" but not this.")},
				StopReason: mapping.StopMaxTokens,
				Usage:      Usage{Known: true, InputTokens: 10, OutputTokens: 16},
			},
		},
		{
			name: "empty",
			resp: Response{ID: "chatcmpl-empty", Model: "gpt-4o", Created: 1700000002, StopReason: mapping.StopContentFilter},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := AppendResponse(nil, OpenAIChat, &tt.resp)
			if err != nil {
				t.Fatal(err)
			}
			checkGolden(t, "openai-chat/response_"+tt.name+".json", out)
		})
	}
}

// TestChatAppendResponseDefaults checks the id and timestamp made up for an
// upstream that gave none.
func TestChatAppendResponseDefaults(t *testing.T) {
	before := time.Now().Unix()
	out, err := AppendResponse(nil, OpenAIChat, &Response{Model: "m", Content: []Part{chatText("x")}})
	if err != nil {
		t.Fatal(err)
	}
	root := gjson.ParseBytes(out)
	if id := root.Get("id").Str; !strings.HasPrefix(id, "chatcmpl-") || len(id) != len("chatcmpl-")+24 {
		t.Errorf("id = %q, want chatcmpl- and 24 hex digits", id)
	}
	if c := root.Get("created").Int(); c < before || c > time.Now().Unix() {
		t.Errorf("created = %d, want about %d", c, before)
	}
	if root.Get("usage").Exists() {
		t.Errorf("usage written although unknown: %s", out)
	}
}

func TestChatAppendResponseError(t *testing.T) {
	_, err := AppendResponse(nil, OpenAIChat, &Response{Content: []Part{chatText("x"), {Type: 200}}})
	var e *Error
	if !errors.As(err, &e) || e.Status != 502 || e.Param != "content[1]" {
		t.Errorf("got %v, want a 502 about content[1]", err)
	}
}

// TestChatResponseRoundTrip decodes each text recording, encodes it and
// decodes it again: nothing may change.
func TestChatResponseRoundTrip(t *testing.T) {
	for _, name := range []string{"gpt-4o-text.json", "o3-mini-stop-sequence.json", "gpt-5-image.json"} {
		t.Run(name, func(t *testing.T) {
			rec := chatRecording(t, name)
			var first, second Response
			if err := DecodeResponse(OpenAIChat, []byte(rec.Get("response.body").Str), &first); err != nil {
				t.Fatal(err)
			}
			out, err := AppendResponse(nil, OpenAIChat, &first)
			if err != nil {
				t.Fatal(err)
			}
			if err := DecodeResponse(OpenAIChat, out, &second); err != nil {
				t.Fatal(err)
			}
			if !equalDecoded(first, second) {
				t.Errorf("round trip changed the response:\nfirst  %+v\nsecond %+v", first, second)
			}
		})
	}
	rec := chatRecording(t, "gpt-4o-text.json")
	var resp Response
	if err := DecodeResponse(OpenAIChat, []byte(rec.Get("response.body").Str), &resp); err != nil {
		t.Fatal(err)
	}
	out, _ := AppendResponse(nil, OpenAIChat, &resp)
	checkGolden(t, "openai-chat/response_gpt-4o-text_roundtrip.json", out)
}

func BenchmarkChatDecodeRequest(b *testing.B) {
	body, err := os.ReadFile("testdata/openai-chat/bench_request.json")
	if err != nil {
		b.Fatal(err)
	}
	b.Run("reused", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(body)))
		var req Request
		for b.Loop() {
			req.Reset()
			if err := DecodeRequest(OpenAIChat, body, &req); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("fresh", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(body)))
		for b.Loop() {
			var req Request
			if err := DecodeRequest(OpenAIChat, body, &req); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkChatAppendRequest(b *testing.B) {
	body, err := os.ReadFile("testdata/openai-chat/bench_request.json")
	if err != nil {
		b.Fatal(err)
	}
	var req Request
	if err := DecodeRequest(OpenAIChat, body, &req); err != nil {
		b.Fatal(err)
	}
	b.Run("reused", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(body)))
		var dst []byte
		for b.Loop() {
			dst, err = AppendRequest(dst[:0], OpenAIChat, &req, EncodeOptions{})
			if err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("fresh", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(body)))
		for b.Loop() {
			if _, err := AppendRequest(nil, OpenAIChat, &req, EncodeOptions{}); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkChatTranslateRequest measures what the codec's performance
// target is about: decode and encode of the same conversation, with pooled
// request and buffer.
func BenchmarkChatTranslateRequest(b *testing.B) {
	body, err := os.ReadFile("testdata/openai-chat/bench_request.json")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.SetBytes(int64(len(body)))
	var req Request
	var dst []byte
	for b.Loop() {
		req.Reset()
		if err := DecodeRequest(OpenAIChat, body, &req); err != nil {
			b.Fatal(err)
		}
		if dst, err = AppendRequest(dst[:0], OpenAIChat, &req, EncodeOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkChatAppendResponse(b *testing.B) {
	resp := Response{
		ID: "chatcmpl-DuLdCrhIZ5WekmJNOuiNyelYjQqZk", Model: "gpt-4o-2024-08-06", Created: 1782321890,
		Content: []Part{chatText(strings.Repeat("A reasonably long answer, with \"quotes\" and a newline.\n", 20))},
		Usage:   Usage{Known: true, InputTokens: 1200, CacheReadTokens: 1024, OutputTokens: 300, ReasoningTokens: 64},
	}
	b.ReportAllocs()
	var dst []byte
	var err error
	for b.Loop() {
		if dst, err = AppendResponse(dst[:0], OpenAIChat, &resp); err != nil {
			b.Fatal(err)
		}
	}
	b.SetBytes(int64(len(dst)))
}

func chatCall(id, name, args string) Part {
	return Part{Type: PartToolCall, ToolCallID: id, ToolName: name, Arguments: args}
}

func chatResult(id, name string, content ...Part) Part {
	return Part{Type: PartToolResult, ToolCallID: id, ToolName: name, Content: content}
}

var chatWeatherSchema = `{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`

func TestChatDecodeRequestTools(t *testing.T) {
	user := `{"role":"user","content":"Hi"}`
	tests := []struct {
		name string
		body string
		want Request
	}{
		{
			name: "tool definitions, named choice and parallel switch",
			body: `{"model":"m","messages":[` + user + `],"tools":[
				{"type":"function","function":{"name":"weather","description":"Get the weather","parameters":` + chatWeatherSchema + `,"strict":true}},
				{"type":"function","function":{"name":"now","strict":false,"description":null,"parameters":null}},
				{"type":"function","function":{"name":"ping","strict":null}}],
				"tool_choice":{"type":"function","function":{"name":"weather"}},"parallel_tool_calls":false}`,
			want: Request{
				Model: "m", Messages: []Message{chatUser("Hi")},
				Tools: []Tool{
					{Name: "weather", Description: "Get the weather", Parameters: chatWeatherSchema, Strict: OptBool{Value: true, Set: true}},
					{Name: "now", Strict: OptBool{Set: true}},
					{Name: "ping"},
				},
				ToolChoice:        ToolChoice{Mode: ToolChoiceNamed, Name: "weather"},
				ParallelToolCalls: OptBool{Value: false, Set: true},
			},
		},
		{
			name: "choice required",
			body: `{"model":"m","messages":[` + user + `],"tools":[{"type":"function","function":{"name":"f"}}],"tool_choice":"required","parallel_tool_calls":true}`,
			want: Request{Model: "m", Messages: []Message{chatUser("Hi")}, Tools: []Tool{{Name: "f"}},
				ToolChoice: ToolChoice{Mode: ToolChoiceRequired}, ParallelToolCalls: OptBool{Value: true, Set: true}},
		},
		{
			name: "choice none",
			body: `{"model":"m","messages":[` + user + `],"tools":[{"type":"function","function":{"name":"f"}}],"tool_choice":"none"}`,
			want: Request{Model: "m", Messages: []Message{chatUser("Hi")}, Tools: []Tool{{Name: "f"}}, ToolChoice: ToolChoice{Mode: ToolChoiceNone}},
		},
		{
			name: "choice auto",
			body: `{"model":"m","messages":[` + user + `],"tools":[{"type":"function","function":{"name":"f"}}],"tool_choice":"auto"}`,
			want: Request{Model: "m", Messages: []Message{chatUser("Hi")}, Tools: []Tool{{Name: "f"}}, ToolChoice: ToolChoice{Mode: ToolChoiceAuto}},
		},
		{
			name: "calls and results in history",
			body: `{"model":"m","messages":[{"role":"system","content":"S"},` + user + `,
				{"role":"assistant","content":"Let me look.","tool_calls":[
					{"id":"call_1","type":"function","function":{"name":"weather","arguments":" {\"city\": \"Paris\"} "}},
					{"id":"call_2","function":{"name":"now","arguments":""}}]},
				{"role":"tool","tool_call_id":"call_1","content":"18 C"},
				{"role":"tool","tool_call_id":"call_2","name":"clock","content":[{"type":"text","text":"noon"},{"type":"text","text":" UTC"}]},
				{"role":"user","content":"And tomorrow?"},
				{"role":"user","content":"Thanks"},
				{"role":"assistant","content":null,"tool_calls":[{"id":"call_3","type":"function","function":{"name":"weather","arguments":"{}"}}]},
				{"role":"tool","tool_call_id":"call_3","content":""},
				{"role":"assistant","content":"Done"},
				{"role":"tool","tool_call_id":"call_9","content":"late"}]}`,
			want: Request{
				Model: "m", System: []Part{chatText("S")}, SystemRole: RoleSystem,
				Messages: []Message{
					chatUser("Hi"),
					{Role: RoleAssistant, Parts: []Part{chatText("Let me look."), chatCall("call_1", "weather", `{"city": "Paris"}`), chatCall("call_2", "now", "")}},
					{Role: RoleUser, Parts: []Part{
						chatResult("call_1", "weather", chatText("18 C")),
						chatResult("call_2", "clock", chatText("noon"), chatText(" UTC")),
						chatText("And tomorrow?"),
					}},
					chatUser("Thanks"),
					{Role: RoleAssistant, Parts: []Part{chatCall("call_3", "weather", "{}")}},
					{Role: RoleUser, Parts: []Part{chatResult("call_3", "weather")}},
					{Role: RoleAssistant, Parts: []Part{chatText("Done")}},
					{Role: RoleUser, Parts: []Part{chatResult("call_9", "", chatText("late"))}},
				},
			},
		},
		{
			name: "tool message first ends the system prompt",
			body: `{"model":"m","messages":[{"role":"developer","content":"D"},{"role":"tool","tool_call_id":"c","content":"r"},{"role":"system","content":"later"}]}`,
			want: Request{
				Model: "m", System: []Part{chatText("D")}, SystemRole: RoleDeveloper,
				Messages: []Message{
					{Role: RoleUser, Parts: []Part{chatResult("c", "", chatText("r"))}},
					{Role: RoleSystem, Parts: []Part{chatText("later")}},
				},
			},
		},
		{
			name: "images, audio and files",
			body: `{"model":"m","messages":[{"role":"user","content":[
				{"type":"text","text":"Look"},
				{"type":"image_url","image_url":{"url":"data:image/png;base64,iVBORw0KGgo="}},
				{"type":"image_url","image_url":{"url":"https://example.com/a.jpg","detail":"high"}},
				{"type":"image_url","image_url":{"url":"http://example.com/b.gif","detail":null}},
				{"type":"input_audio","input_audio":{"data":"UklGRg==","format":"wav"}},
				{"type":"input_audio","input_audio":{"data":"SUQz","format":"mp3"}},
				{"type":"file","file":{"filename":"report.pdf","file_data":"data:application/pdf;base64,JVBERi0=","file_id":null}},
				{"type":"file","file":{"file_data":"data:text/plain;base64,aGk="}}]}]}`,
			want: Request{
				Model: "m",
				Messages: []Message{{Role: RoleUser, Parts: []Part{
					chatText("Look"),
					{Type: PartImage, MediaType: "image/png", Data: "iVBORw0KGgo="},
					{Type: PartImage, URL: "https://example.com/a.jpg"},
					{Type: PartImage, URL: "http://example.com/b.gif"},
					{Type: PartAudio, MediaType: "audio/wav", Data: "UklGRg=="},
					{Type: PartAudio, MediaType: "audio/mp3", Data: "SUQz"},
					{Type: PartDocument, MediaType: "application/pdf", Data: "JVBERi0=", Text: "report.pdf"},
					{Type: PartDocument, MediaType: "text/plain", Data: "aGk="},
				}}},
				Dropped: []string{"messages[0].content[2].image_url.detail"},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := chatDecodeRequest(t, tt.body)
			if err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			if !equalDecoded(got, tt.want) {
				t.Errorf("got  %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

// TestChatDecodeRequestToolRecordings decodes the recorded requests with
// tools, tool calls, tool results and images.
func TestChatDecodeRequestToolRecordings(t *testing.T) {
	addMul := func(strict bool) []Tool {
		schema := `{"properties":{"a":{"description":"first number","type":"integer"},"b":{"description":"second number","type":"integer"}},"required":["a","b"],"type":"object"}`
		return []Tool{
			{Name: "add", Description: "Add two numbers", Parameters: schema, Strict: OptBool{Set: true}},
			{Name: "multiply", Description: "Multiply two numbers", Parameters: schema, Strict: OptBool{Set: true}},
		}
	}
	type check func(t *testing.T, r *Request)
	for name, c := range map[string]check{
		"gpt-4o-tool-followup.json": func(t *testing.T, r *Request) {
			want := []Message{
				chatUser("What's the weather in Florence,Italy?"),
				{Role: RoleAssistant, Parts: []Part{chatCall("call_IUonKM9GCNis5eMRHuusMqoy", "weather", `{"location":"Florence, Italy"}`)}},
				{Role: RoleUser, Parts: []Part{chatResult("call_IUonKM9GCNis5eMRHuusMqoy", "weather", chatText("40 C"))}},
			}
			if !equalDecoded(r.Messages, want) {
				t.Errorf("messages = %+v\nwant %+v", r.Messages, want)
			}
			if len(r.Tools) != 1 || r.Tools[0].Name != "weather" || !gjson.Valid(r.Tools[0].Parameters) ||
				gjson.Get(r.Tools[0].Parameters, "properties.location.type").Str != "string" || r.ToolChoice.Mode != ToolChoiceAuto {
				t.Errorf("tools = %+v, choice %+v", r.Tools, r.ToolChoice)
			}
		},
		"gpt-4o-parallel-tools.json": func(t *testing.T, r *Request) {
			chatCompactSchemas(r)
			if !equalDecoded(r.Tools, addMul(false)) || r.ToolChoice.Mode != ToolChoiceAuto {
				t.Errorf("tools = %+v\nwant %+v", r.Tools, addMul(false))
			}
		},
		"gpt-4o-parallel-tools-followup-stream.json": func(t *testing.T, r *Request) {
			want := []Message{
				chatUser("Add and multiply the number 2 and 3"),
				{Role: RoleAssistant, Parts: []Part{
					chatCall("call_ehIWdjL1abZk1h8FWGLQ0Hie", "add", `{"a": 2, "b": 3}`),
					chatCall("call_fBSgA47J5VeONggizTIvl7AH", "multiply", `{"a": 2, "b": 3}`),
				}},
				{Role: RoleUser, Parts: []Part{
					chatResult("call_ehIWdjL1abZk1h8FWGLQ0Hie", "add", chatText("5")),
					chatResult("call_fBSgA47J5VeONggizTIvl7AH", "multiply", chatText("6")),
				}},
			}
			if !equalDecoded(r.Messages, want) || !r.Stream || !r.StreamUsage {
				t.Errorf("messages = %+v\nwant %+v", r.Messages, want)
			}
		},
		"gpt-5-image.json": func(t *testing.T, r *Request) {
			parts := r.Messages[0].Parts
			if len(parts) != 2 || !equalDecoded(parts[0], chatText("Describe the image briefly in English.")) ||
				parts[1].Type != PartImage || parts[1].MediaType != "image/png" || !strings.HasPrefix(parts[1].Data, "iVBORw0KGgo") || parts[1].URL != "" {
				t.Errorf("parts = %.200v", parts)
			}
		},
	} {
		t.Run(name, func(t *testing.T) {
			rec := chatRecording(t, name)
			got, err := chatDecodeRequest(t, rec.Get("request.body").Raw)
			if err != nil {
				t.Fatal(err)
			}
			c(t, &got)
			// What was decoded encodes and decodes to the same.
			out, err1 := AppendRequest(nil, OpenAIChat, &got, EncodeOptions{})
			if err1 != nil {
				t.Fatal(err1)
			}
			again, err2 := chatDecodeRequest(t, string(out))
			if err2 != nil {
				t.Fatal(err2)
			}
			chatCompactSchemas(&got)
			chatCompactSchemas(&again)
			if !equalDecoded(got, again) {
				t.Errorf("round trip changed the request:\nfirst  %.500v\nsecond %.500v", got, again)
			}
		})
	}
}

// chatCompactSchemas compacts the tools' parameter texts, which keep the
// client's spacing.
func chatCompactSchemas(r *Request) {
	for i := range r.Tools {
		var b bytes.Buffer
		if json.Compact(&b, []byte(r.Tools[i].Parameters)) == nil {
			r.Tools[i].Parameters = b.String()
		}
	}
}

// chatToolsRequest is a canonical request with every tool feature Chat
// carries, for the golden file and the round trip.
func chatToolsRequest() Request {
	return Request{
		Model:  "gpt-4o",
		System: []Part{chatText("Use tools.")},
		Messages: []Message{
			chatUser("Weather in Paris and the time?"),
			{Role: RoleAssistant, Parts: []Part{chatText("Checking."), chatCall("call_1", "weather", `{"city":"Paris"}`), chatCall("call_2", "now", "")}},
			{Role: RoleUser, Parts: []Part{
				chatResult("call_1", "weather", chatText("18 C")),
				chatResult("call_2", "now", chatText("noon"), chatText(" UTC")),
				chatText("Thanks!"),
			}},
			{Role: RoleAssistant, Parts: []Part{chatRefusal("No."), chatCall("call_3", "weather", `{"city":"Mars"}`)}},
			{Role: RoleUser, Parts: []Part{{Type: PartToolResult, ToolCallID: "call_3", Content: []Part{chatText("unknown city")}, IsError: true}}},
			{Role: RoleAssistant, Parts: []Part{chatCall("call_4", "now", "{}")}},
			{Role: RoleUser, Parts: []Part{{Type: PartToolResult, ToolCallID: "call_4", IsError: true}}},
		},
		Tools: []Tool{
			{Name: "weather", Description: "Get the weather", Parameters: chatWeatherSchema, Strict: OptBool{Value: true, Set: true}},
			{Name: "now", Strict: OptBool{Set: true}},
		},
		ToolChoice:        ToolChoice{Mode: ToolChoiceNamed, Name: "weather"},
		ParallelToolCalls: OptBool{Value: false, Set: true},
	}
}

// chatMediaRequest is a canonical request with images, audio and files.
func chatMediaRequest() Request {
	return Request{
		Model: "gpt-4o",
		Messages: []Message{
			{Role: RoleUser, Parts: []Part{
				chatText("Look"),
				{Type: PartImage, MediaType: "image/png", Data: "iVBORw0KGgo="},
				{Type: PartImage, URL: "https://example.com/a.jpg"},
				{Type: PartAudio, MediaType: "audio/wav", Data: "UklGRg=="},
				{Type: PartAudio, MediaType: "audio/mpeg", Data: "SUQz"},
				{Type: PartDocument, MediaType: "application/pdf", Data: "JVBERi0=", Text: "report.pdf"},
				{Type: PartDocument, MediaType: "application/pdf", Data: "JVBERi0="},
				chatRefusal("quoted refusal"),
			}},
			{Role: RoleAssistant, Parts: []Part{chatCall("call_1", "snap", "")}},
			{Role: RoleUser, Parts: []Part{
				chatText("Here:"),
				chatResult("call_1", "snap", chatText("a photo"), Part{Type: PartImage, MediaType: "image/jpeg", Data: "/9j/"}),
			}},
		},
	}
}

func TestChatAppendRequestTools(t *testing.T) {
	for name, req := range map[string]Request{"tools": chatToolsRequest(), "media": chatMediaRequest()} {
		t.Run(name, func(t *testing.T) {
			out, err := AppendRequest(nil, OpenAIChat, &req, EncodeOptions{})
			if err != nil {
				t.Fatal(err)
			}
			checkGolden(t, "openai-chat/request_"+name+".json", out)
		})
	}
	// The other tool choices, and no choice or parallel switch without tools.
	for _, tt := range []struct {
		choice ToolChoice
		want   string
	}{
		{ToolChoice{}, ``},
		{ToolChoice{Mode: ToolChoiceAuto}, `"auto"`},
		{ToolChoice{Mode: ToolChoiceNone}, `"none"`},
		{ToolChoice{Mode: ToolChoiceRequired}, `"required"`},
	} {
		req := Request{Model: "m", Messages: []Message{chatUser("Hi")}, Tools: []Tool{{Name: "f"}}, ToolChoice: tt.choice}
		out, err := AppendRequest(nil, OpenAIChat, &req, EncodeOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if got := gjson.GetBytes(out, "tool_choice").Raw; got != tt.want {
			t.Errorf("tool_choice = %s, want %s", got, tt.want)
		}
		if got := gjson.GetBytes(out, "tools").Raw; got != `[{"type":"function","function":{"name":"f"}}]` {
			t.Errorf("tools = %s", got)
		}
		req.Tools = nil
		req.ParallelToolCalls = OptBool{Set: true}
		out, _ = AppendRequest(nil, OpenAIChat, &req, EncodeOptions{})
		if gjson.GetBytes(out, "tool_choice").Exists() || gjson.GetBytes(out, "parallel_tool_calls").Exists() || gjson.GetBytes(out, "tools").Exists() {
			t.Errorf("without tools: %s", out)
		}
	}
}

func TestChatAppendRequestToolErrors(t *testing.T) {
	msgs := func(m ...Message) Request { return Request{Model: "m", Messages: m} }
	user := func(p ...Part) Message { return Message{Role: RoleUser, Parts: p} }
	tests := []struct {
		name, param, msg string
		req              Request
	}{
		{"hosted tool", "tools[1]", `hosted tool "web_search" cannot be translated for the openai-chat upstream`, Request{Model: "m", Messages: []Message{chatUser("a")}, Tools: []Tool{{Name: "f"}, {Kind: ToolWebSearch}}}},
		{"call in user message", "messages[0].parts[1]", "a tool call outside an assistant message", msgs(user(chatText("a"), chatCall("c", "f", "")))},
		{"result in assistant message", "messages[0].parts[0]", "a tool result outside a user message", msgs(Message{Role: RoleAssistant, Parts: []Part{chatResult("c", "f")}})},
		{"result in system prompt", "system[0]", "a tool result outside a user message", Request{Model: "m", System: []Part{chatResult("c", "f")}, Messages: []Message{chatUser("a")}}},
		{"image in assistant message", "messages[0].parts[0]", "a image outside a user message", msgs(Message{Role: RoleAssistant, Parts: []Part{{Type: PartImage, URL: "https://x"}}})},
		{"document by URL", "messages[0].parts[0]", "a document given by URL", msgs(user(Part{Type: PartDocument, URL: "https://x/a.pdf"}))},
		{"audio by URL", "messages[0].parts[0]", "a audio given by URL", msgs(user(Part{Type: PartAudio, URL: "https://x/a.wav"}))},
		{"image without data", "messages[0].parts[0]", "a image without media type and data", msgs(user(Part{Type: PartImage, MediaType: "image/png"}))},
		{"audio of other type", "messages[0].parts[0]", `audio of type "audio/ogg"`, msgs(user(Part{Type: PartAudio, MediaType: "audio/ogg", Data: "AA"}))},
		{"result without id", "messages[0].parts[0].tool_call_id", "a tool result without a call id", msgs(user(chatResult("", "f")))},
		{"document in result", "messages[0].parts[1].content[0]", "a document in a tool result", msgs(user(chatResult("a", "f"), chatResult("c", "f", Part{Type: PartDocument, MediaType: "application/pdf", Data: "AA"})))},
		{"bad part after results", "messages[0].parts[1]", "a tool call outside an assistant message", msgs(user(chatResult("c", "f"), chatCall("c", "f", "")))},
		{"bad image in result", "messages[0].parts[0]", "a image without media type and data", msgs(user(chatResult("c", "f", Part{Type: PartImage})))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := AppendRequest(nil, OpenAIChat, &tt.req, EncodeOptions{})
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("got %v, want an *Error", err)
			}
			if e.Status != 400 || e.Param != tt.param || !strings.Contains(e.Message, tt.msg) {
				t.Errorf("got %d %q %q, want 400 %q containing %q", e.Status, e.Param, e.Message, tt.param, tt.msg)
			}
		})
	}
}

// TestChatRequestToolsRoundTrip encodes canonical requests with tools and
// media and decodes them again: what Chat can carry comes back unchanged,
// and what it cannot (IsError, result images) comes back as documented.
func TestChatRequestToolsRoundTrip(t *testing.T) {
	req := chatToolsRequest()
	out, err := AppendRequest(nil, OpenAIChat, &req, EncodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got, derr := chatDecodeRequest(t, string(out))
	if derr != nil {
		t.Fatal(derr)
	}
	want := chatToolsRequest()
	want.SystemRole = RoleSystem
	// Results get the name of their call; Chat has no error flag, so the
	// text says it.
	want.Messages[4].Parts[0] = chatResult("call_3", "weather", chatText("Error: unknown city"))
	want.Messages[6].Parts[0] = chatResult("call_4", "now", chatText("Error: "))
	want.Messages[1].Parts[2].Arguments = "{}" // Chat always writes an object
	if !equalDecoded(got, want) {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}

	req = chatMediaRequest()
	out, err = AppendRequest(nil, OpenAIChat, &req, EncodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got, derr = chatDecodeRequest(t, string(out))
	if derr != nil {
		t.Fatal(derr)
	}
	want = chatMediaRequest()
	want.Messages[0].Parts[4].MediaType = "audio/mp3"
	want.Messages[0].Parts[7] = chatText("quoted refusal")
	want.Messages[1].Parts[0].Arguments = "{}"
	// The result's image follows the results in the user message, before
	// the user's own content.
	want.Messages[2].Parts = []Part{
		chatResult("call_1", "snap", chatText("a photo")),
		{Type: PartImage, MediaType: "image/jpeg", Data: "/9j/"},
		chatText("Here:"),
	}
	if !equalDecoded(got, want) {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}
}

// TestChatDecodeResponseToolRecordings decodes the recorded responses with
// tool calls: ids, names and arguments exactly.
func TestChatDecodeResponseToolRecordings(t *testing.T) {
	rec := chatRecording(t, "gpt-4o-parallel-tools.json")
	var resp Response
	if err := DecodeResponse(OpenAIChat, []byte(rec.Get("response.body").Str), &resp); err != nil {
		t.Fatal(err)
	}
	want := []Part{
		chatCall("call_fifE5poZ3dg3JDUKGFi48NGq", "add", `{"a": 2, "b": 3}`),
		chatCall(gjson.Get(rec.Get("response.body").Str, "choices.0.message.tool_calls.1.id").Str, "multiply", `{"a": 2, "b": 3}`),
	}
	if !equalDecoded(resp.Content, want) || resp.StopReason != mapping.StopToolUse {
		t.Errorf("content = %+v stop %v\nwant %+v", resp.Content, resp.StopReason, want)
	}
	if !strings.HasPrefix(want[1].ToolCallID, "call_") || want[1].ToolCallID == want[0].ToolCallID {
		t.Errorf("second id = %q", want[1].ToolCallID)
	}
	for i := range resp.Content {
		var args map[string]int
		if err := json.Unmarshal([]byte(resp.Content[i].Arguments), &args); err != nil || args["a"] != 2 || args["b"] != 3 {
			t.Errorf("arguments %d = %q", i, resp.Content[i].Arguments)
		}
	}
}

func TestChatDecodeResponseTools(t *testing.T) {
	wrap := func(message, finish string) string {
		return `{"id":"chatcmpl-1","object":"chat.completion","created":1700000000,"model":"gpt-4o",` +
			`"choices":[{"index":0,"message":` + message + `,"logprobs":null,"finish_reason":` + finish + `}]}`
	}
	tests := []struct {
		name, body string
		content    []Part
		stop       StopReason
	}{
		{
			name: "text and calls",
			body: wrap(`{"role":"assistant","content":"Sure.","refusal":null,"tool_calls":[
				{"id":"call_1","type":"function","function":{"name":"weather","arguments":"{\"city\":\"Paris\"}"}},
				{"id":"call_2","type":"function","function":{"name":"now","arguments":""}}]}`, `"tool_calls"`),
			content: []Part{chatText("Sure."), chatCall("call_1", "weather", `{"city":"Paris"}`), chatCall("call_2", "now", "")},
			stop:    mapping.StopToolUse,
		},
		{
			name:    "calls finished with stop are tool use",
			body:    wrap(`{"role":"assistant","content":null,"tool_calls":[{"id":"c","function":{"name":"f","arguments":"{}"}}]}`, `"stop"`),
			content: []Part{chatCall("c", "f", "{}")},
			stop:    mapping.StopToolUse,
		},
		{
			name:    "calls cut by the token limit stay cut",
			body:    wrap(`{"role":"assistant","content":null,"tool_calls":[{"id":"c","function":{"name":"f","arguments":"{}"}}]}`, `"length"`),
			content: []Part{chatCall("c", "f", "{}")},
			stop:    mapping.StopMaxTokens,
		},
		{
			name:    "null and empty tool calls",
			body:    wrap(`{"role":"assistant","content":"x","tool_calls":null}`, `"stop"`),
			content: []Part{chatText("x")},
			stop:    mapping.StopEnd,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var resp Response
			if err := DecodeResponse(OpenAIChat, []byte(tt.body), &resp); err != nil {
				t.Fatal(err)
			}
			if !equalDecoded(resp.Content, tt.content) || resp.StopReason != tt.stop {
				t.Errorf("content %+v stop %v, want %+v %v", resp.Content, resp.StopReason, tt.content, tt.stop)
			}
		})
	}
}

func TestChatAppendResponseTools(t *testing.T) {
	resp := Response{
		ID: "chatcmpl-tools", Model: "gpt-4o", Created: 1700000003,
		Content:    []Part{chatText("Checking."), chatCall("call_1", "weather", `{"city":"Paris"}`), chatCall("call_2", "now", "")},
		StopReason: mapping.StopEnd, // as Gemini reports a tool call
		Usage:      Usage{Known: true, InputTokens: 30, OutputTokens: 12},
	}
	out, err := AppendResponse(nil, OpenAIChat, &resp)
	if err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "openai-chat/response_tool_calls.json", out)
	var back Response
	if err := DecodeResponse(OpenAIChat, out, &back); err != nil {
		t.Fatal(err)
	}
	want := resp
	want.StopReason = mapping.StopToolUse
	want.Content = slices.Clone(resp.Content)
	want.Content[2].Arguments = "{}"
	if !equalDecoded(back, want) {
		t.Errorf("round trip: got %+v\nwant %+v", back, want)
	}
	// Calls alone: content is null.
	resp = Response{ID: "x", Model: "m", Created: 1, Content: []Part{chatCall("c", "f", "{}")}, StopReason: mapping.StopToolUse}
	out, _ = AppendResponse(nil, OpenAIChat, &resp)
	if m := gjson.GetBytes(out, "choices.0.message"); m.Get("content").Type != gjson.Null || m.Get("tool_calls.#").Int() != 1 {
		t.Errorf("message = %s", m.Raw)
	}
}

// TestChatToolRules checks the tool rules on the Chat side:
// strict false is a plain tool with its schema unchanged and strict true
// is kept toward OpenAI; parallel_tool_calls is kept beside a forced or
// named choice, and without tools it is a hint.
func TestChatToolRules(t *testing.T) {
	body := `{"model":"m","messages":[{"role":"user","content":"Hi"}],"tools":[
		{"type":"function","function":{"name":"a","parameters":{"type":"object","additionalProperties":false},"strict":false}},
		{"type":"function","function":{"name":"b","parameters":{"type":"object"},"strict":true}}],
		"tool_choice":"required","parallel_tool_calls":false}`
	req, err := chatDecodeRequest(t, body)
	if err != nil {
		t.Fatal(err)
	}
	if req.Tools[0].Strict != (OptBool{Set: true}) || req.Tools[0].Parameters != `{"type":"object","additionalProperties":false}` ||
		req.Tools[1].Strict != (OptBool{Value: true, Set: true}) || req.ToolChoice.Mode != ToolChoiceRequired ||
		req.ParallelToolCalls != (OptBool{Set: true}) || len(req.Dropped) != 0 {
		t.Errorf("decoded %+v", req)
	}
	out, eerr := AppendRequest(nil, OpenAIChat, &req, EncodeOptions{})
	if eerr != nil {
		t.Fatal(eerr)
	}
	root := gjson.ParseBytes(out)
	if root.Get("tools.0.function.strict").Raw != "false" || root.Get("tools.1.function.strict").Raw != "true" ||
		root.Get("tools.0.function.parameters").Raw != `{"type":"object","additionalProperties":false}` ||
		root.Get("tool_choice").Str != "required" || root.Get("parallel_tool_calls").Raw != "false" {
		t.Errorf("encoded %s", out)
	}
	req, err = chatDecodeRequest(t, `{"model":"m","messages":[{"role":"user","content":"Hi"}],"parallel_tool_calls":false,"tools":[]}`)
	if err != nil || req.ParallelToolCalls.Set || !equalDecoded(req.Dropped, []string{"parallel_tool_calls"}) {
		t.Errorf("without tools: %+v %v", req, err)
	}
}
