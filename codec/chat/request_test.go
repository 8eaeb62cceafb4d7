package chat

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/codectest"
	"github.com/llmbridge/llmbridge/mapping"
	"github.com/tidwall/gjson"
)

// decodeRequest decodes body as a Chat request and returns the request
// with empty slices normalised to nil, and the error as an *Error.
func decodeRequest(t *testing.T, body string) (codec.Request, *codec.Error) {
	t.Helper()
	var req codec.Request
	err := codec.DecodeRequest(codec.OpenAIChat, []byte(body), &req)
	if err == nil {
		normalize(&req)
		return req, nil
	}
	var e *codec.Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v is not an *Error", err)
	}
	return req, e
}

// normalize sets empty slices to nil so that reflect.DeepEqual compares
// content, not allocation.
func normalize(r *codec.Request) {
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

func text(s string) codec.Part { return codec.Part{Type: codec.PartText, Text: s} }

func chatRefusal(s string) codec.Part { return codec.Part{Type: codec.PartRefusal, Text: s} }

func chatUser(s string) codec.Message {
	return codec.Message{Role: codec.RoleUser, Parts: []codec.Part{text(s)}}
}

func TestChatDecodeRequest(t *testing.T) {
	user := `{"role":"user","content":"Hi"}`
	tests := []struct {
		name string
		body string
		want codec.Request
	}{
		{
			name: "minimal",
			body: `{"model":"gpt-4o","messages":[` + user + `]}`,
			want: codec.Request{Model: "gpt-4o", Messages: []codec.Message{chatUser("Hi")}},
		},
		{
			name: "leading system prompt",
			body: `{"messages":[{"role":"system","content":"Be brief."},` + user + `],"model":"gpt-4o"}`,
			want: codec.Request{
				Model:      "gpt-4o",
				System:     []codec.Part{text("Be brief.")},
				SystemRole: codec.RoleSystem,
				Messages:   []codec.Message{chatUser("Hi")},
			},
		},
		{
			name: "leading developer and system messages keep the first role",
			body: `{"model":"o3","messages":[
				{"role":"developer","content":[{"type":"text","text":"A"},{"type":"text","text":"B"}]},
				{"role":"system","content":"C"},` + user + `]}`,
			want: codec.Request{
				Model:      "o3",
				System:     []codec.Part{text("A"), text("B"), text("C")},
				SystemRole: codec.RoleDeveloper,
				Messages:   []codec.Message{chatUser("Hi")},
			},
		},
		{
			name: "later instructions stay in the conversation",
			body: `{"model":"m","messages":[` + user + `,
				{"role":"assistant","content":"Hello"},
				{"role":"system","content":"Now in French."},
				{"role":"developer","content":"Really."},
				{"role":"user","content":"Salut"}]}`,
			want: codec.Request{Model: "m", Messages: []codec.Message{
				chatUser("Hi"),
				{Role: codec.RoleAssistant, Parts: []codec.Part{text("Hello")}},
				{Role: codec.RoleSystem, Parts: []codec.Part{text("Now in French.")}},
				{Role: codec.RoleDeveloper, Parts: []codec.Part{text("Really.")}},
				chatUser("Salut"),
			}},
		},
		{
			name: "only instructions",
			body: `{"model":"m","messages":[{"role":"system","content":"S"}]}`,
			want: codec.Request{Model: "m", System: []codec.Part{text("S")}, SystemRole: codec.RoleSystem},
		},
		{
			name: "text parts, escapes and an empty string",
			body: `{"model":"m","messages":[
				{"role":"user","content":[{"type":"text","text":"line\n\"one\""},{"text":"caf\u00e9","type":"text"}]},
				{"role":"user","content":""}]}`,
			want: codec.Request{Model: "m", Messages: []codec.Message{
				{Role: codec.RoleUser, Parts: []codec.Part{text("line\n\"one\""), text("café")}},
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
			want: codec.Request{Model: "m", Messages: []codec.Message{
				chatUser("Hi"),
				{Role: codec.RoleAssistant, Parts: []codec.Part{chatRefusal("No.")}},
				{Role: codec.RoleAssistant, Parts: []codec.Part{chatRefusal("Still no.")}},
				{Role: codec.RoleAssistant, Parts: []codec.Part{text("Partly"), chatRefusal("but no.")}},
				{Role: codec.RoleAssistant, Parts: []codec.Part{chatRefusal("Nope.")}},
				{Role: codec.RoleAssistant, Parts: []codec.Part{chatRefusal("Empty.")}},
			}},
		},
		{
			name: "sampling parameters",
			body: `{"model":"m","messages":[` + user + `],"max_completion_tokens":100,"temperature":0.5,
				"top_p":0.9,"presence_penalty":-0.5,"frequency_penalty":1,"seed":42,"stop":"END",
				"user":"u-1","stream":true,"stream_options":{"include_usage":true}}`,
			want: codec.Request{
				Model: "m", Messages: []codec.Message{chatUser("Hi")},
				MaxTokens:        codec.OptInt{Value: 100, Set: true},
				Temperature:      codec.OptFloat{Value: 0.5, Set: true},
				TopP:             codec.OptFloat{Value: 0.9, Set: true},
				PresencePenalty:  codec.OptFloat{Value: -0.5, Set: true},
				FrequencyPenalty: codec.OptFloat{Value: 1, Set: true},
				Seed:             codec.OptInt{Value: 42, Set: true},
				StopSequences:    []string{"END"},
				User:             "u-1",
				Stream:           true,
				StreamUsage:      true,
			},
		},
		{
			name: "max_tokens and an equal max_completion_tokens, stop array",
			body: `{"model":"m","messages":[` + user + `],"max_tokens":7,"max_completion_tokens":7,"stop":["a","b"]}`,
			want: codec.Request{
				Model: "m", Messages: []codec.Message{chatUser("Hi")},
				MaxTokens:     codec.OptInt{Value: 7, Set: true},
				StopSequences: []string{"a", "b"},
			},
		},
		{
			name: "deprecated max_tokens alone",
			body: `{"model":"m","messages":[` + user + `],"max_tokens":4000}`,
			want: codec.Request{Model: "m", Messages: []codec.Message{chatUser("Hi")}, MaxTokens: codec.OptInt{Value: 4000, Set: true}},
		},
		{
			name: "safety_identifier stands in for user",
			body: `{"model":"m","messages":[` + user + `],"safety_identifier":"hash-1"}`,
			want: codec.Request{Model: "m", Messages: []codec.Message{chatUser("Hi")}, User: "hash-1"},
		},
		{
			name: "user wins over safety_identifier, which is a hint",
			body: `{"model":"m","safety_identifier":"hash-1","messages":[` + user + `],"user":"u-1"}`,
			want: codec.Request{Model: "m", Messages: []codec.Message{chatUser("Hi")}, User: "u-1", Dropped: []string{"safety_identifier"}},
		},
		{
			name: "hints",
			body: `{"model":"m","messages":[
				{"role":"user","content":"Hi","name":"ann"},
				{"role":"assistant","content":"Hello","annotations":[{"type":"url_citation"}]}],
				"parallel_tool_calls":true,"store":false,"metadata":{"k":"v"},"service_tier":"auto",
				"prompt_cache_key":"p","prompt_cache_retention":"24h","tool_choice":"auto",
				"stream":true,"stream_options":{"include_obfuscation":false}}`,
			want: codec.Request{
				Model: "m", Stream: true,
				Messages: []codec.Message{
					chatUser("Hi"),
					{Role: codec.RoleAssistant, Parts: []codec.Part{text("Hello")}},
				},
				Cache: codec.Cache{Key: "p", Retention: "24h"},
				Dropped: []string{
					"store", "metadata", "service_tier",
					"stream_options.include_obfuscation", "tool_choice", "parallel_tool_calls",
					"messages[0].name", "messages[1].annotations",
				},
			},
		},
		{
			name: "tool_choice none without tools is a hint",
			body: `{"model":"m","messages":[` + user + `],"tools":[],"tool_choice":"none"}`,
			want: codec.Request{Model: "m", Messages: []codec.Message{chatUser("Hi")}, Dropped: []string{"tool_choice"}},
		},
		{
			name: "harmless defaults",
			body: `{"model":"m","messages":[` + user + `,
				{"role":"assistant","content":"Hello","tool_calls":[],"annotations":[],"audio":null,
				 "function_call":null,"refusal":null,"name":null}],
				"n":1,"logprobs":false,"modalities":["text"],"response_format":{"type":"text"},"tools":[]}`,
			want: codec.Request{Model: "m", Messages: []codec.Message{
				chatUser("Hi"),
				{Role: codec.RoleAssistant, Parts: []codec.Part{text("Hello")}},
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
			want: codec.Request{Model: "m", Messages: []codec.Message{chatUser("Hi")}},
		},
		{
			// The openai SDKs' parse helpers add parsed to the message
			// and parsed_arguments to each call's function; a client
			// replaying the message object sends them back.
			name: "SDK-side fields of a replayed message",
			body: `{"model":"m","messages":[` + user + `,
				{"role":"assistant","content":"{}","parsed":{},"tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}","parsed_arguments":{}}}]},
				{"role":"tool","tool_call_id":"c1","content":"ok"},
				{"role":"assistant","content":"A","parsed":null}]}`,
			want: codec.Request{Model: "m", Messages: []codec.Message{
				chatUser("Hi"),
				{Role: codec.RoleAssistant, Parts: []codec.Part{text("{}"), {Type: codec.PartToolCall, ToolCallID: "c1", ToolName: "f", Arguments: "{}"}}},
				{Role: codec.RoleUser, Parts: []codec.Part{{Type: codec.PartToolResult, ToolCallID: "c1", ToolName: "f", Content: []codec.Part{text("ok")}}}},
				{Role: codec.RoleAssistant, Parts: []codec.Part{text("A")}},
			}, Dropped: []string{"messages[1].parsed", "messages[1].tool_calls[0].function.parsed_arguments"}},
		},
		{
			name: "stream_options null members",
			body: `{"model":"m","messages":[` + user + `],"stream":false,"stream_options":{"include_usage":null,"include_obfuscation":null}}`,
			want: codec.Request{Model: "m", Messages: []codec.Message{chatUser("Hi")}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := decodeRequest(t, tt.body)
			if err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			if !codectest.EqualDecoded(got, tt.want) {
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
		{"prompt_cache_retention number", top(`"prompt_cache_retention":24`), "prompt_cache_retention", "expected string"},
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
			_, err := decodeRequest(t, tt.body)
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
	for name, want := range map[string]codec.Request{
		"gpt-4o-text.json": {
			Model:      "gpt-4o",
			System:     []codec.Part{text("You are a helpful assistant")},
			SystemRole: codec.RoleSystem,
			Messages:   []codec.Message{chatUser("Say hi in Portuguese")},
			MaxTokens:  codec.OptInt{Value: 4000, Set: true},
		},
		"o3-mini-stop-sequence.json": {
			Model:         "o3-mini",
			Messages:      []codec.Message{chatUser(`What is the capital of France? Give me an answer that contains the word "Paris", but is not the first word.`)},
			StopSequences: []string{"Paris"},
		},
	} {
		t.Run(name, func(t *testing.T) {
			rec := recording(t, name)
			got, err := decodeRequest(t, rec.Get("request.body").Raw)
			if err != nil {
				t.Fatal(err)
			}
			if !codectest.EqualDecoded(got, want) {
				t.Errorf("got  %+v\nwant %+v", got, want)
			}
		})
	}
}

func TestChatAppendRequest(t *testing.T) {
	tests := []struct {
		name string
		req  codec.Request
		opts codec.EncodeOptions
	}{
		{
			name: "basic",
			req: codec.Request{
				Model:     "gpt-4o",
				System:    []codec.Part{text("You are a helpful assistant")},
				Messages:  []codec.Message{chatUser("Say hi in Portuguese")},
				MaxTokens: codec.OptInt{Value: 4000, Set: true},
			},
		},
		{
			name: "all_params",
			req: codec.Request{
				Model:            "gpt-4o",
				Messages:         []codec.Message{chatUser("Hi")},
				MaxTokens:        codec.OptInt{Value: 256, Set: true},
				Temperature:      codec.OptFloat{Value: 0.7, Set: true},
				TopP:             codec.OptFloat{Value: 1, Set: true},
				PresencePenalty:  codec.OptFloat{Value: -0.25, Set: true},
				FrequencyPenalty: codec.OptFloat{Value: 0.5, Set: true},
				Seed:             codec.OptInt{Value: 7, Set: true},
				StopSequences:    []string{"\n\n", "END"},
				User:             "user-1234",
				Stream:           true,
			},
		},
		{
			name: "developer_multipart",
			req: codec.Request{
				Model:      "o3",
				System:     []codec.Part{text("Rule one."), text("Rule two.")},
				SystemRole: codec.RoleDeveloper,
				Messages: []codec.Message{
					{Role: codec.RoleUser, Parts: []codec.Part{text("Part A. "), text("Part B.")}},
					{Role: codec.RoleAssistant, Parts: []codec.Part{text("Answer.")}},
					{Role: codec.RoleSystem, Parts: []codec.Part{text("Switch to French.")}},
					{Role: codec.RoleDeveloper, Parts: []codec.Part{text("Keep it short.")}},
					chatUser("Encore ?"),
				},
			},
		},
		{
			name: "refusals",
			req: codec.Request{
				Model: "gpt-4o",
				Messages: []codec.Message{
					chatUser("Q1"),
					{Role: codec.RoleAssistant, Parts: []codec.Part{chatRefusal("I can't help with that.")}},
					chatUser("Q2"),
					{Role: codec.RoleAssistant, Parts: []codec.Part{text("Here is part: "), chatRefusal("the rest "), chatRefusal("I can't.")}},
					{Role: codec.RoleUser, Parts: []codec.Part{text("Quoted: "), chatRefusal("a refusal")}},
					{Role: codec.RoleUser, Parts: []codec.Part{chatRefusal("only a refusal")}},
					{Role: codec.RoleAssistant, Parts: []codec.Part{text("one"), text("two"), chatRefusal("no")}},
				},
			},
		},
		{
			name: "model_override_and_escapes",
			opts: codec.EncodeOptions{Model: "gpt-4.1-mini"},
			req: codec.Request{
				Model:    "client-model",
				Messages: []codec.Message{chatUser("quote \" backslash \\ tab \t nl \n ctl \x01 sep \u2028 é"), {Role: codec.RoleUser}},
				Stream:   true, StreamUsage: true,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := codec.AppendRequest(nil, codec.OpenAIChat, &tt.req, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			if len(tt.req.Dropped) != 0 {
				t.Errorf("Dropped = %v, want none", tt.req.Dropped)
			}
			codectest.CheckGolden(t, "openai-chat/request_"+tt.name+".json", out)
		})
	}
}

func TestChatAppendRequestErrors(t *testing.T) {
	tests := []struct {
		name, param string
		req         codec.Request
	}{
		{"top_k", "top_k", codec.Request{Model: "m", Messages: []codec.Message{chatUser("Hi")}, TopK: codec.OptInt{Value: 40, Set: true}}},
		{"unknown message part", "messages[1].parts[0]", codec.Request{Model: "m", Messages: []codec.Message{chatUser("Hi"), {Role: codec.RoleUser, Parts: []codec.Part{{Type: 200}}}}}},
		{"unknown system part", "system[1]", codec.Request{Model: "m", System: []codec.Part{text("S"), {Type: 200}}, Messages: []codec.Message{chatUser("Hi")}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := codec.AppendRequest(nil, codec.OpenAIChat, &tt.req, codec.EncodeOptions{})
			var e *codec.Error
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
	body := codectest.ReadTestdata(t, "openai-chat/bench_request.json")
	first, err := decodeRequest(t, string(body))
	if err != nil {
		t.Fatal(err)
	}
	if len(first.Messages) != 19 || len(first.System) != 1 {
		t.Fatalf("decoded %d messages and %d system parts", len(first.Messages), len(first.System))
	}
	out, aerr := codec.AppendRequest(nil, codec.OpenAIChat, &first, codec.EncodeOptions{})
	if aerr != nil {
		t.Fatal(aerr)
	}
	second, err := decodeRequest(t, string(out))
	if err != nil {
		t.Fatal(err)
	}
	if !codectest.EqualDecoded(first, second) {
		t.Errorf("round trip changed the request:\nfirst  %+v\nsecond %+v", first, second)
	}
}

// TestChatDecodeRequestReuse decodes into a Reset request that has more
// capacity than needed.
func TestChatDecodeRequestReuse(t *testing.T) {
	var req codec.Request
	big := codectest.ReadTestdata(t, "openai-chat/bench_request.json")
	if err := codec.DecodeRequest(codec.OpenAIChat, big, &req); err != nil {
		t.Fatal(err)
	}
	req.Reset()
	if err := codec.DecodeRequest(codec.OpenAIChat, []byte(`{"model":"m","messages":[{"role":"user","content":"Hi"}],"stop":"x"}`), &req); err != nil {
		t.Fatal(err)
	}
	normalize(&req)
	want := codec.Request{Model: "m", Messages: []codec.Message{chatUser("Hi")}, StopSequences: []string{"x"}}
	if !codectest.EqualDecoded(req, want) {
		t.Errorf("got  %+v\nwant %+v", req, want)
	}
}

var recordings = filepath.Join(codectest.RecordingsDir, "openai-chat")

// recording returns the recording called name.
// recording returns the openai-chat recording called name.
func recording(t *testing.T, name string) gjson.Result {
	t.Helper()
	return codectest.ReadRecording(t, "openai-chat/"+name)
}

func BenchmarkChatDecodeRequest(b *testing.B) {
	body := codectest.ReadTestdata(b, "openai-chat/bench_request.json")
	b.Run("reused", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(body)))
		var req codec.Request
		for b.Loop() {
			req.Reset()
			if err := codec.DecodeRequest(codec.OpenAIChat, body, &req); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("fresh", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(body)))
		for b.Loop() {
			var req codec.Request
			if err := codec.DecodeRequest(codec.OpenAIChat, body, &req); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkChatAppendRequest(b *testing.B) {
	body := codectest.ReadTestdata(b, "openai-chat/bench_request.json")
	var req codec.Request
	if err := codec.DecodeRequest(codec.OpenAIChat, body, &req); err != nil {
		b.Fatal(err)
	}
	b.Run("reused", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(body)))
		var dst []byte
		var err error
		for b.Loop() {
			dst, err = codec.AppendRequest(dst[:0], codec.OpenAIChat, &req, codec.EncodeOptions{})
			if err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("fresh", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(body)))
		for b.Loop() {
			if _, err := codec.AppendRequest(nil, codec.OpenAIChat, &req, codec.EncodeOptions{}); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkChatTranslateRequest measures what the codec's performance
// target is about: decode and encode of the same conversation, with pooled
// request and buffer.
func BenchmarkChatTranslateRequest(b *testing.B) {
	body := codectest.ReadTestdata(b, "openai-chat/bench_request.json")
	b.ReportAllocs()
	b.SetBytes(int64(len(body)))
	var req codec.Request
	var dst []byte
	for b.Loop() {
		req.Reset()
		if err := codec.DecodeRequest(codec.OpenAIChat, body, &req); err != nil {
			b.Fatal(err)
		}
		var err error
		if dst, err = codec.AppendRequest(dst[:0], codec.OpenAIChat, &req, codec.EncodeOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}
