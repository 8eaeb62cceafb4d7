package responses

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/codectest"
	"github.com/llmbridge/llmbridge/mapping"
)

// responsesText returns a plain text part.
func responsesText(s string) codec.Part { return codec.Part{Type: codec.PartText, Text: s} }

// refusal returns a refusal part.
func refusal(s string) codec.Part { return codec.Part{Type: codec.PartRefusal, Text: s} }

func TestResponsesDecodeRequest(t *testing.T) {
	user := func(parts ...codec.Part) codec.Message { return codec.Message{Role: codec.RoleUser, Parts: parts} }
	assistant := func(parts ...codec.Part) codec.Message { return codec.Message{Role: codec.RoleAssistant, Parts: parts} }
	hi := []codec.Message{user(responsesText("hi"))}

	tests := []struct {
		name string
		body string
		want codec.Request
	}{
		{
			name: "string input",
			body: `{"model":"gpt-4o","input":"hi"}`,
			want: codec.Request{Model: "gpt-4o", Messages: hi},
		},
		{
			name: "string input with instructions",
			body: `{"instructions":"be brief","model":"gpt-4o","input":"hi"}`,
			want: codec.Request{Model: "gpt-4o", System: []codec.Part{responsesText("be brief")}, SystemRole: codec.RoleSystem, Messages: hi},
		},
		{
			name: "empty instructions are no instructions",
			body: `{"model":"gpt-4o","input":[{"role":"user","content":"hi"}],"instructions":""}`,
			want: codec.Request{Model: "gpt-4o", Messages: hi},
		},
		{
			// The request of recordings/openai-responses/gpt-4o-text.json.
			name: "recorded system item without type",
			body: `{"max_output_tokens":4000,"store":false,"input":[{"content":"You are a helpful assistant","role":"system"},` +
				`{"content":[{"text":"Say hi in Portuguese","type":"input_text"}],"role":"user"}],"model":"gpt-4o"}`,
			want: codec.Request{
				Model: "gpt-4o", MaxTokens: codec.OptInt{Value: 4000, Set: true},
				System: []codec.Part{responsesText("You are a helpful assistant")}, SystemRole: codec.RoleSystem,
				Messages: []codec.Message{user(responsesText("Say hi in Portuguese"))},
				Dropped:  []string{"store"},
			},
		},
		{
			name: "leading developer message names the system role",
			body: `{"model":"m","input":[{"type":"message","role":"developer","content":[{"type":"input_text","text":"a"},{"type":"input_text","text":"b"}]},` +
				`{"role":"system","content":"c"},{"role":"user","content":"hi"}]}`,
			want: codec.Request{Model: "m", System: []codec.Part{responsesText("a"), responsesText("b"), responsesText("c")}, SystemRole: codec.RoleDeveloper, Messages: hi},
		},
		{
			name: "instructions come first and name the role",
			body: `{"model":"m","input":[{"role":"developer","content":"d"},{"role":"user","content":"hi"}],"instructions":"i"}`,
			want: codec.Request{Model: "m", System: []codec.Part{responsesText("i"), responsesText("d")}, SystemRole: codec.RoleSystem, Messages: hi},
		},
		{
			name: "later system messages stay in the conversation",
			body: `{"model":"m","input":[{"role":"user","content":"hi"},{"role":"developer","content":"d"},{"role":"system","content":"s"}]}`,
			want: codec.Request{Model: "m", Messages: []codec.Message{user(responsesText("hi")),
				{Role: codec.RoleDeveloper, Parts: []codec.Part{responsesText("d")}}, {Role: codec.RoleSystem, Parts: []codec.Part{responsesText("s")}}}},
		},
		{
			name: "assistant history with ids, statuses, annotations and a refusal",
			body: `{"model":"m","input":[{"role":"user","content":"hi","id":"msg_u"},` +
				`{"type":"message","id":"msg_1","status":"completed","role":"assistant","content":[` +
				`{"type":"output_text","text":"one","annotations":[{"type":"url_citation"}],"logprobs":[]},` +
				`{"type":"refusal","refusal":"no"}]},` +
				`{"role":"assistant","content":[{"type":"input_text","text":"two"}],"id":null,"status":null,"phase":null},` +
				`{"role":"user","content":[]}]}`,
			want: codec.Request{Model: "m", Messages: []codec.Message{user(responsesText("hi")),
				assistant(responsesText("one"), refusal("no")), assistant(responsesText("two")), {Role: codec.RoleUser, Parts: []codec.Part{}}}},
		},
		{
			name: "escaped text",
			body: `{"model":"m","input":[{"role":"user","content":[{"type":"input_text","text":"a\"b\u00e9\n"}]}]}`,
			want: codec.Request{Model: "m", Messages: []codec.Message{user(responsesText("a\"bé\n"))}},
		},
		{
			name: "sampling parameters and stream",
			body: `{"model":"m","input":"hi","max_output_tokens":256,"temperature":0.5,"top_p":0.9,"user":"u-1","stream":true}`,
			want: codec.Request{Model: "m", Messages: hi, MaxTokens: codec.OptInt{Value: 256, Set: true}, Temperature: codec.OptFloat{Value: 0.5, Set: true},
				TopP: codec.OptFloat{Value: 0.9, Set: true}, User: "u-1", Stream: true, StreamUsage: true},
		},
		{
			name: "safety identifier stands in for user",
			body: `{"model":"m","input":"hi","safety_identifier":"hash-1"}`,
			want: codec.Request{Model: "m", Messages: hi, User: "hash-1"},
		},
		{
			name: "safety identifier stands in for an empty user",
			body: `{"model":"m","input":"hi","user":"","safety_identifier":"hash-1"}`,
			want: codec.Request{Model: "m", Messages: hi, User: "hash-1"},
		},
		{
			name: "safety identifier is a hint next to user",
			body: `{"model":"m","safety_identifier":"hash-1","input":"hi","user":"u-1"}`,
			want: codec.Request{Model: "m", Messages: hi, User: "u-1", Dropped: []string{"safety_identifier"}},
		},
		{
			name: "hints",
			body: `{"model":"m","input":"hi","store":true,"metadata":{"k":"v"},"service_tier":"auto","prompt_cache_key":"pk",` +
				`"parallel_tool_calls":false,"client_metadata":{"x":"y"},"truncation":"disabled",` +
				`"include":["reasoning.encrypted_content","web_search_call.action.sources"],"max_tool_calls":3,"tool_choice":"auto",` +
				`"reasoning":{"summary":"auto"},"stream":false,"stream_options":{"include_obfuscation":false}}`,
			// Without tools, tool_choice auto and parallel_tool_calls
			// change nothing: they are dropped after the other hints.
			// The summary alone asks for nothing but is kept; include
			// keeps its values and, for the hosted-tool one, is listed.
			want: codec.Request{Model: "m", Messages: hi, Reasoning: codec.Reasoning{Summary: "auto"},
				Include: []string{"reasoning.encrypted_content", "web_search_call.action.sources"},
				Cache:   codec.Cache{Key: "pk"},
				Dropped: []string{"store", "metadata", "service_tier",
					"client_metadata", "truncation", "include",
					"stream_options.include_obfuscation", "tool_choice", "parallel_tool_calls", "max_tool_calls"}},
		},
		{
			// openai-node's stream helper and parse helpers add parsed
			// to output_text and refusal parts and parsed_arguments to
			// function calls; a client sending response.output back as
			// input sends them too. null is nothing to drop.
			name: "SDK-side fields of a replayed output",
			body: `{"model":"m","input":[{"role":"user","content":"hi"},` +
				`{"type":"message","role":"assistant","content":[{"type":"output_text","text":"{}","annotations":[],"parsed":{}},{"type":"refusal","refusal":"no","parsed":null}]},` +
				`{"type":"function_call","call_id":"c1","name":"f","arguments":"{}","parsed_arguments":{}},` +
				`{"type":"function_call","call_id":"c2","name":"f","arguments":"{}","parsed_arguments":null}]}`,
			want: codec.Request{Model: "m", Messages: []codec.Message{user(responsesText("hi")), assistant(responsesText("{}"), refusal("no"),
				codec.Part{Type: codec.PartToolCall, ToolCallID: "c1", ToolName: "f", Arguments: "{}"},
				codec.Part{Type: codec.PartToolCall, ToolCallID: "c2", ToolName: "f", Arguments: "{}"})},
				Dropped: []string{"input[1].content[0].parsed", "input[2].parsed_arguments"}},
		},
		{
			name: "hints inside the conversation",
			body: `{"model":"m","tool_choice":"none","reasoning":{"generate_summary":"concise","effort":null,"context":null,"mode":null,"summary":null},` +
				`"input":[{"role":"user","content":[{"type":"input_text","text":"hi"}]},` +
				`{"role":"assistant","phase":"final_answer","content":[{"type":"output_text","text":"yo"}]}]}`,
			want: codec.Request{Model: "m", Messages: []codec.Message{user(responsesText("hi")), assistant(responsesText("yo"))},
				Reasoning: codec.Reasoning{Summary: "concise"},
				Dropped:   []string{"tool_choice", "input[1].phase"}},
		},
		{
			name: "prompt cache breakpoints: the implicit one too",
			body: `{"model":"m","prompt_cache_options":{"mode":"implicit","ttl":"12h","comparison_response_id":"resp_1"},` +
				`"input":[{"role":"user","content":[{"type":"input_text","text":"hi","prompt_cache_breakpoint":{"mode":"explicit"}},` +
				`{"type":"input_text","text":"there","prompt_cache_breakpoint":{"mode":"explicit","ttl":"30m"}}]}]}`,
			want: codec.Request{Model: "m", Messages: []codec.Message{user(cached(responsesText("hi"), codec.Cache1h), cached(responsesText("there"), codec.Cache1h))},
				Cache:   codec.Cache{Auto: codec.Cache1h},
				Dropped: []string{"prompt_cache_options.comparison_response_id"}},
		},
		{
			name: "prompt cache breakpoints: explicit only",
			body: `{"model":"m","prompt_cache_options":{"mode":"explicit"},` +
				`"input":[{"role":"user","content":[{"type":"input_text","text":"hi","prompt_cache_breakpoint":{"mode":"explicit","ttl":"12h"}}]}]}`,
			want: codec.Request{Model: "m", Messages: []codec.Message{user(cached(responsesText("hi"), codec.Cache1h))},
				Cache: codec.Cache{Explicit: true}},
		},
		{
			name: "harmless defaults are accepted silently",
			body: `{"model":"m","input":"hi","tools":[],"background":false,"top_logprobs":0,"include":[],"reasoning":{},` +
				`"text":{"format":{"type":"text"},"verbosity":null}}`,
			want: codec.Request{Model: "m", Messages: hi},
		},
		{
			name: "null means absent",
			body: `{"model":"m","input":"hi","instructions":null,"max_output_tokens":null,"temperature":null,"top_p":null,` +
				`"user":null,"safety_identifier":null,"stream":null,"stream_options":null,"store":null,"metadata":null,` +
				`"service_tier":null,"prompt_cache_key":null,"parallel_tool_calls":null,"client_metadata":null,"truncation":null,` +
				`"include":null,"max_tool_calls":null,"tool_choice":null,"tools":null,"text":null,"reasoning":null,"background":null,` +
				`"top_logprobs":null,"previous_response_id":null,"conversation":null,"prompt":null,"prompt_cache_retention":null,` +
				`"prompt_cache_options":null,"context_management":null,"moderation":null,"access_programs":null,"image":null}`,
			want: codec.Request{Model: "m", Messages: hi},
		},
		{
			name: "null text format",
			body: `{"model":"m","input":"hi","text":{"format":null}}`,
			want: codec.Request{Model: "m", Messages: hi},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got codec.Request
			if err := codec.DecodeRequest(codec.OpenAIResponses, []byte(tt.body), &got); err != nil {
				t.Fatal(err)
			}
			if !codectest.EqualDecoded(got, tt.want) {
				t.Errorf("got  %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

// TestResponsesDecodeRequestReuse decodes into a reset request, whose kept
// capacity must not leak the previous conversation.
func TestResponsesDecodeRequestReuse(t *testing.T) {
	var req codec.Request
	first := `{"model":"m","instructions":"s","input":[{"role":"user","content":"a"},{"role":"assistant","content":"b"},{"role":"user","content":"c"}]}`
	if err := codec.DecodeRequest(codec.OpenAIResponses, []byte(first), &req); err != nil {
		t.Fatal(err)
	}
	req.Reset()
	if err := codec.DecodeRequest(codec.OpenAIResponses, []byte(`{"model":"n","input":[{"role":"user","content":"x"}]}`), &req); err != nil {
		t.Fatal(err)
	}
	if req.Model != "n" || len(req.System) != 0 || len(req.Messages) != 1 || req.Messages[0].Parts[0].Text != "x" {
		t.Errorf("reused request: %+v", req)
	}
}

// TestResponsesDecodeConversation decodes the members of a stored
// conversation: previous_response_id is recorded when the caller keeps
// conversations itself (input may then come with the conversation) and
// rejected otherwise, and store is read with it.
func TestResponsesDecodeConversation(t *testing.T) {
	for _, tc := range []struct {
		name          string
		body          string
		conversations bool
		continues     string
		store         codec.OptBool
		param         string // the rejected member, if any
	}{
		{"kept, continued", `{"model":"m","previous_response_id":"resp_1","input":"two"}`, true, "resp_1", codec.OptBool{}, ""},
		{"kept, continued without input", `{"model":"m","previous_response_id":"resp_1"}`, true, "resp_1", codec.OptBool{}, ""},
		{"kept, store false", `{"model":"m","input":"one","store":false}`, true, "", codec.OptBool{Set: true}, ""},
		{"kept, store true", `{"model":"m","input":"one","store":true}`, true, "", codec.OptBool{Set: true, Value: true}, ""},
		{"kept, null id", `{"model":"m","previous_response_id":null,"input":"one"}`, true, "", codec.OptBool{}, ""},
		{"kept, empty id", `{"model":"m","previous_response_id":"","input":"one"}`, true, "", codec.OptBool{}, "previous_response_id"},
		{"kept, an id not a string", `{"model":"m","previous_response_id":7,"input":"one"}`, true, "", codec.OptBool{}, "previous_response_id"},
		{"stateless", `{"model":"m","previous_response_id":"resp_1","input":"two"}`, false, "", codec.OptBool{}, "previous_response_id"},
		{"stateless, store false", `{"model":"m","input":"one","store":false}`, false, "", codec.OptBool{}, ""},
		{"stateless, without input", `{"model":"m","previous_response_id":"resp_1"}`, false, "", codec.OptBool{}, "previous_response_id"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := codec.Request{Conversations: tc.conversations}
			err := codec.DecodeRequest(codec.OpenAIResponses, []byte(tc.body), &req)
			if tc.param != "" {
				var e *codec.Error
				if !errors.As(err, &e) || e.Param != tc.param {
					t.Fatalf("error %v, want one naming %s", err, tc.param)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if req.Continues != tc.continues || req.Store != tc.store {
				t.Errorf("continues %q, store %+v; want %q, %+v", req.Continues, req.Store, tc.continues, tc.store)
			}
			if req.Reset(); req.Conversations != tc.conversations || req.Continues != "" || req.Store.Set {
				t.Errorf("after Reset: conversations %v, continues %q, store %+v", req.Conversations, req.Continues, req.Store)
			}
		})
	}
}

func TestResponsesDecodeRequestErrors(t *testing.T) {
	tests := []struct {
		name  string
		body  string
		param string
		msg   string // a substring of the message
	}{
		{"not an object", `[]`, "", "JSON object"},
		{"model type", `{"model":1,"input":"hi"}`, "model", "expected string, got number"},
		{"missing input", `{"model":"m"}`, "input", "is required"},
		{"null input", `{"model":"m","input":null}`, "input", "is required"},
		{"input type", `{"model":"m","input":{}}`, "input", "expected string or array, got object"},
		{"instructions type", `{"model":"m","input":"hi","instructions":[]}`, "instructions", "expected string, got array"},
		{"max_output_tokens type", `{"model":"m","input":"hi","max_output_tokens":1.5}`, "max_output_tokens", "expected integer"},
		{"temperature type", `{"model":"m","input":"hi","temperature":"1"}`, "temperature", "expected number, got string"},
		{"top_p type", `{"model":"m","input":"hi","top_p":true}`, "top_p", "expected number, got boolean"},
		{"user type", `{"model":"m","input":"hi","user":1}`, "user", "expected string"},
		{"safety_identifier type", `{"model":"m","input":"hi","safety_identifier":{}}`, "safety_identifier", "expected string"},
		{"stream type", `{"model":"m","input":"hi","stream":"yes"}`, "stream", "expected boolean"},
		{"stream_options type", `{"model":"m","input":"hi","stream_options":true}`, "stream_options", "expected object"},
		{"stream_options unknown", `{"model":"m","input":"hi","stream_options":{"include_usage":true}}`, "stream_options.include_usage", "unknown field"},
		{"include_obfuscation type", `{"model":"m","input":"hi","stream_options":{"include_obfuscation":1}}`, "stream_options.include_obfuscation", "expected boolean"},
		{"store type", `{"model":"m","input":"hi","store":"no"}`, "store", "expected boolean"},
		{"metadata type", `{"model":"m","input":"hi","metadata":[]}`, "metadata", "expected object, got array"},
		{"service_tier type", `{"model":"m","input":"hi","service_tier":1}`, "service_tier", "expected string"},
		{"prompt_cache_key type", `{"model":"m","input":"hi","prompt_cache_key":1}`, "prompt_cache_key", "expected string, got number"},
		{"max_tool_calls type", `{"model":"m","input":"hi","max_tool_calls":"3"}`, "max_tool_calls", "expected integer"},
		{"truncation auto", `{"model":"m","input":"hi","truncation":"auto"}`, "truncation", "not supported"},
		{"truncation value", `{"model":"m","input":"hi","truncation":"x"}`, "truncation", `must be "auto" or "disabled"`},
		{"truncation type", `{"model":"m","input":"hi","truncation":false}`, "truncation", "expected string"},
		{"include type", `{"model":"m","input":"hi","include":"x"}`, "include", "expected array of strings"},
		{"include element type", `{"model":"m","input":"hi","include":["reasoning.encrypted_content",1]}`, "include[1]", "expected string"},
		{"include logprobs", `{"model":"m","input":"hi","include":["message.output_text.logprobs"]}`, "include[0]", "log probabilities"},
		{"include unknown", `{"model":"m","input":"hi","include":["x.y"]}`, "include[0]", `unknown include value "x.y"`},
		{"tool_choice required without tools", `{"model":"m","input":"hi","tool_choice":"required"}`, "tool_choice", "has no tools"},
		{"tool_choice named without tools", `{"model":"m","input":"hi","tool_choice":{"type":"function","name":"f"}}`, "tool_choice", "has no tools"},
		{"tool_choice value", `{"model":"m","input":"hi","tool_choice":"any"}`, "tool_choice", "must be"},
		{"tool_choice type", `{"model":"m","input":"hi","tool_choice":1}`, "tool_choice", "expected string or object"},
		{"hosted tool", `{"model":"m","input":"hi","tools":[{"type":"function","name":"f"},{"type":"code_interpreter"}]}`, "tools[1]", `hosted tool "code_interpreter" cannot be translated`},
		{"tools type", `{"model":"m","input":"hi","tools":{}}`, "tools", "expected array"},
		{"text type", `{"model":"m","input":"hi","text":"plain"}`, "text", "expected object"},
		{"text unknown", `{"model":"m","input":"hi","text":{"foo":1}}`, "text.foo", "unknown field"},
		{"text verbosity", `{"model":"m","input":"hi","text":{"verbosity":"loud"}}`, "text.verbosity", "must be"},
		{"text verbosity type", `{"model":"m","input":"hi","text":{"verbosity":1}}`, "text.verbosity", "expected string"},
		{"text format type", `{"model":"m","input":"hi","text":{"format":"text"}}`, "text.format", "expected object"},
		{"text format without type", `{"model":"m","input":"hi","text":{"format":{}}}`, "text.format.type", "is required"},
		{"text format type type", `{"model":"m","input":"hi","text":{"format":{"type":1}}}`, "text.format.type", "expected string"},
		{"json_schema without name", `{"model":"m","input":"hi","text":{"format":{"type":"json_schema","schema":{}}}}`, "text.format.name", "is required"},
		{"json_schema without schema", `{"model":"m","input":"hi","text":{"format":{"type":"json_schema","name":"x"}}}`, "text.format.schema", "is required"},
		{"json_schema schema type", `{"model":"m","input":"hi","text":{"format":{"type":"json_schema","name":"x","schema":"{}"}}}`, "text.format.schema", "expected object"},
		{"json_schema name type", `{"model":"m","input":"hi","text":{"format":{"type":"json_schema","name":1,"schema":{}}}}`, "text.format.name", "expected string"},
		{"json_schema strict type", `{"model":"m","input":"hi","text":{"format":{"type":"json_schema","name":"x","schema":{},"strict":"yes"}}}`, "text.format.strict", "expected boolean"},
		{"json_schema description type", `{"model":"m","input":"hi","text":{"format":{"type":"json_schema","name":"x","schema":{},"description":2}}}`, "text.format.description", "expected string"},
		{"json_schema unknown key", `{"model":"m","input":"hi","text":{"format":{"type":"json_schema","name":"x","schema":{},"example":{}}}}`, "text.format.example", "unknown field"},
		{"json_object key", `{"model":"m","input":"hi","text":{"format":{"type":"json_object","schema":{}}}}`, "text.format.schema", "unknown field"},
		{"unknown format", `{"model":"m","input":"hi","text":{"format":{"type":"xml"}}}`, "text.format.type", `unknown format type "xml"`},
		{"text format unknown key", `{"model":"m","input":"hi","text":{"format":{"type":"text","strict":true}}}`, "text.format.strict", "unknown field"},
		{"reasoning type", `{"model":"m","input":"hi","reasoning":"high"}`, "reasoning", "expected object"},
		{"reasoning effort", `{"model":"m","input":"hi","reasoning":{"effort":"extreme"}}`, "reasoning.effort", "must be"},
		{"reasoning effort max", `{"model":"m","input":"hi","reasoning":{"effort":"max"}}`, "reasoning.effort", "must be"},
		{"reasoning effort type", `{"model":"m","input":"hi","reasoning":{"effort":3}}`, "reasoning.effort", "expected string"},
		{"reasoning context", `{"model":"m","input":"hi","reasoning":{"context":"all_turns"}}`, "reasoning.context", "not supported"},
		{"reasoning context current turn", `{"model":"m","input":"hi","reasoning":{"effort":"low","context":"current_turn"}}`, "reasoning.context", "not supported"},
		{"reasoning mode", `{"model":"m","input":"hi","reasoning":{"mode":"x"}}`, "reasoning.mode", "not supported"},
		{"reasoning summary value", `{"model":"m","input":"hi","reasoning":{"summary":"long"}}`, "reasoning.summary", "must be"},
		{"reasoning summary type", `{"model":"m","input":"hi","reasoning":{"generate_summary":true}}`, "reasoning.generate_summary", "expected string"},
		{"reasoning unknown", `{"model":"m","input":"hi","reasoning":{"budget":10}}`, "reasoning.budget", "unknown field"},
		{"background", `{"model":"m","input":"hi","background":true}`, "background", "stateless"},
		{"background type", `{"model":"m","input":"hi","background":"no"}`, "background", "expected boolean"},
		{"top_logprobs", `{"model":"m","input":"hi","top_logprobs":5}`, "top_logprobs", "log probabilities"},
		{"top_logprobs type", `{"model":"m","input":"hi","top_logprobs":"5"}`, "top_logprobs", "expected integer"},
		{"previous_response_id", `{"model":"m","input":"hi","previous_response_id":"resp_1"}`, "previous_response_id", "state"},
		{"conversation", `{"model":"m","input":"hi","conversation":"conv_1"}`, "conversation", "state"},
		{"prompt", `{"model":"m","input":"hi","prompt":{"id":"pmpt_1"}}`, "prompt", "templates"},
		{"prompt_cache_retention type", `{"model":"m","input":"hi","prompt_cache_retention":24}`, "prompt_cache_retention", "expected string"},
		{"prompt_cache_options mode", `{"model":"m","input":"hi","prompt_cache_options":{"mode":"always"}}`, "prompt_cache_options.mode", "implicit"},
		{"prompt_cache_options prewarm", `{"model":"m","input":"hi","prompt_cache_options":{"prewarm":true}}`, "prompt_cache_options.prewarm", "OpenAI"},
		{"prompt_cache_breakpoint ttl", `{"model":"m","input":[{"role":"user","content":[{"type":"input_text","text":"x","prompt_cache_breakpoint":{"mode":"explicit","ttl":"1h"}}]}]}`, "input[0].content[0].prompt_cache_breakpoint.ttl", "30m"},
		{"context_management", `{"model":"m","input":"hi","context_management":[{"type":"compaction"}]}`, "context_management", "compaction"},
		{"moderation", `{"model":"m","input":"hi","moderation":{"model":"omni-moderation-latest"}}`, "moderation", "moderation"},
		{"access_programs", `{"model":"m","input":"hi","access_programs":{"cyber":"standard"}}`, "access_programs", "OpenAI"},
		{"image", `{"model":"m","input":"hi","image":{"context_compression":"auto"}}`, "image", "image"},
		{"unknown field", `{"model":"m","input":"hi","stop":["x"]}`, "stop", "unknown field"},
		{"unknown penalty", `{"model":"m","input":"hi","frequency_penalty":0}`, "frequency_penalty", "unknown field"},

		{"item type", `{"model":"m","input":[1]}`, "input[0]", "expected object, got number"},
		{"item type field type", `{"model":"m","input":[{"type":1,"role":"user","content":"x"}]}`, "input[0].type", "expected string"},
		{"custom_tool_call item without input", `{"model":"m","input":[{"role":"user","content":"x"},{"type":"custom_tool_call","call_id":"c","name":"f"}]}`,
			"input[1].input", `is required`},
		{"reasoning item unknown key", `{"model":"m","input":[{"type":"reasoning","id":"rs_1","summary":[],"signature":"x"}]}`, "input[0].signature", "unknown field"},
		{"reasoning item id type", `{"model":"m","input":[{"type":"reasoning","id":1,"summary":[]}]}`, "input[0].id", "expected string"},
		{"reasoning item status type", `{"model":"m","input":[{"type":"reasoning","status":1,"summary":[]}]}`, "input[0].status", "expected string"},
		{"reasoning summary type", `{"model":"m","input":[{"type":"reasoning","summary":"x"}]}`, "input[0].summary", "expected array"},
		{"reasoning summary part type", `{"model":"m","input":[{"type":"reasoning","summary":["x"]}]}`, "input[0].summary[0]", "expected object"},
		{"reasoning summary part kind", `{"model":"m","input":[{"type":"reasoning","summary":[{"type":"reasoning_text","text":"x"}]}]}`, "input[0].summary[0].type", `must be "summary_text"`},
		{"reasoning summary part type type", `{"model":"m","input":[{"type":"reasoning","summary":[{"type":1,"text":"x"}]}]}`, "input[0].summary[0].type", "expected string"},
		{"reasoning summary part text", `{"model":"m","input":[{"type":"reasoning","summary":[{"type":"summary_text"}]}]}`, "input[0].summary[0].text", "is required"},
		{"reasoning summary part text type", `{"model":"m","input":[{"type":"reasoning","summary":[{"type":"summary_text","text":1}]}]}`, "input[0].summary[0].text", "expected string"},
		{"reasoning summary part key", `{"model":"m","input":[{"type":"reasoning","summary":[{"type":"summary_text","text":"x","x":1}]}]}`, "input[0].summary[0].x", "unknown field"},
		{"reasoning content part kind", `{"model":"m","input":[{"type":"reasoning","summary":[],"content":[{"type":"summary_text","text":"x"}]}]}`, "input[0].content[0].type", `must be "reasoning_text"`},
		{"reasoning encrypted type", `{"model":"m","input":[{"type":"reasoning","summary":[],"encrypted_content":5}]}`, "input[0].encrypted_content", "expected string"},
		{"reasoning malformed envelope", `{"model":"m","input":[{"type":"reasoning","summary":[],"encrypted_content":"llmbridge.v1.!!"}]}`, "input[0].encrypted_content", "malformed"},
		{"item reference", `{"model":"m","input":[{"id":"msg_1"}]}`, "input[0]", `"item_reference"`},
		{"SDK field on an input part", `{"model":"m","input":[{"role":"user","content":[{"type":"input_text","text":"x","parsed":null}]}]}`, "input[0].content[0].parsed", "unknown field"},
		{"SDK field on a custom call", `{"model":"m","input":[{"type":"custom_tool_call","call_id":"c","name":"f","input":"x","parsed_arguments":null}]}`, "input[0].parsed_arguments", "unknown field"},
		{"other field beside an SDK field", `{"model":"m","input":[{"role":"assistant","content":[{"type":"output_text","text":"x","parsed":null,"parsedx":1}]}]}`, "input[0].content[0].parsedx", "unknown field"},
		{"missing role", `{"model":"m","input":[{"content":"x"}]}`, "input[0].role", "is required"},
		{"null role", `{"model":"m","input":[{"role":null,"content":"x"}]}`, "input[0].role", "is required"},
		{"role type", `{"model":"m","input":[{"role":1,"content":"x"}]}`, "input[0].role", "expected string"},
		{"unknown role", `{"model":"m","input":[{"role":"tool","content":"x"}]}`, "input[0].role", `unknown role "tool"`},
		{"unknown item key", `{"model":"m","input":[{"role":"user","content":"x","name":"bob"}]}`, "input[0].name", "unknown field"},
		{"id type", `{"model":"m","input":[{"role":"user","content":"x","id":1}]}`, "input[0].id", "expected string"},
		{"status type", `{"model":"m","input":[{"role":"user","content":"x","status":1}]}`, "input[0].status", "expected string"},
		{"phase type", `{"model":"m","input":[{"role":"assistant","content":"x","phase":1}]}`, "input[0].phase", "expected string"},
		{"phase value", `{"model":"m","input":[{"role":"assistant","content":"x","phase":"draft"}]}`, "input[0].phase", "must be"},
		{"missing content", `{"model":"m","input":[{"role":"user"}]}`, "input[0].content", "is required"},
		{"null content", `{"model":"m","input":[{"role":"user","content":null}]}`, "input[0].content", "is required"},
		{"content type", `{"model":"m","input":[{"role":"user","content":{}}]}`, "input[0].content", "expected string or array"},
		{"part type", `{"model":"m","input":[{"role":"user","content":["x"]}]}`, "input[0].content[0]", "expected object, got string"},
		{"part without type", `{"model":"m","input":[{"role":"user","content":[{"text":"x"}]}]}`, "input[0].content[0].type", "is required"},
		{"part type type", `{"model":"m","input":[{"role":"user","content":[{"type":2,"text":"x"}]}]}`, "input[0].content[0].type", "expected string"},
		{"input_file id", `{"model":"m","input":[{"role":"user","content":[{"type":"input_file","file_id":"f"}]}]}`, "input[0].content[0].file_id", `file_id`},
		{"input_audio", `{"model":"m","input":[{"role":"user","content":[{"type":"input_audio","input_audio":{}}]}]}`, "input[0].content[0]", `audio input`},
		{"output_audio part", `{"model":"m","input":[{"role":"user","content":[{"type":"output_audio"}]}]}`, "input[0].content[0]", `"output_audio" is not supported yet`},
		{"user refusal", `{"model":"m","input":[{"role":"user","content":[{"type":"refusal","refusal":"no"}]}]}`, "input[0].content[0].type", "only valid in assistant"},
		{"unknown part key", `{"model":"m","input":[{"role":"user","content":[{"type":"input_text","text":"x","cache_control":{}}]}]}`,
			"input[0].content[0].cache_control", "unknown field"},
		{"output_text key on input_text", `{"model":"m","input":[{"role":"user","content":[{"type":"input_text","text":"x","annotations":[]}]}]}`,
			"input[0].content[0].annotations", "unknown field"},
		{"key of another part type", `{"model":"m","input":[{"role":"assistant","content":[{"type":"output_text","text":"x","prompt_cache_breakpoint":{}}]}]}`,
			"input[0].content[0].prompt_cache_breakpoint", "unknown field"},
		{"missing text", `{"model":"m","input":[{"role":"user","content":[{"type":"input_text"}]}]}`, "input[0].content[0].text", "is required"},
		{"text type", `{"model":"m","input":[{"role":"user","content":[{"type":"input_text","text":1}]}]}`, "input[0].content[0].text", "expected string"},
		{"text key in a refusal", `{"model":"m","input":[{"role":"assistant","content":[{"type":"refusal","text":"x"}]}]}`,
			"input[0].content[0].text", "unknown field"},
		{"missing refusal", `{"model":"m","input":[{"role":"assistant","content":[{"type":"refusal"}]}]}`,
			"input[0].content[0].refusal", "is required"},
		{"null refusal", `{"model":"m","input":[{"role":"assistant","content":[{"type":"refusal","refusal":null}]}]}`,
			"input[0].content[0].refusal", "is required"},
		{"error in a later part", `{"model":"m","input":[{"role":"user","content":"a"},{"role":"assistant","content":[{"type":"output_text","text":"b"},{"type":"output_text"}]}]}`,
			"input[1].content[1].text", "is required"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var req codec.Request
			err := codec.DecodeRequest(codec.OpenAIResponses, []byte(tt.body), &req)
			var e *codec.Error
			if !errors.As(err, &e) {
				t.Fatalf("got error %v, want *Error", err)
			}
			if e.Status != 400 || e.Kind != mapping.ErrInvalidRequest {
				t.Errorf("status %d kind %d, want 400 invalid request", e.Status, e.Kind)
			}
			if e.Param != tt.param {
				t.Errorf("param %q, want %q (%v)", e.Param, tt.param, e)
			}
			if !strings.Contains(e.Message, tt.msg) {
				t.Errorf("message %q does not contain %q", e.Message, tt.msg)
			}
		})
	}
}

func TestResponsesAppendRequest(t *testing.T) {
	conversation := []codec.Message{
		{Role: codec.RoleUser, Parts: []codec.Part{responsesText("Say hi in Portuguese"), responsesText("and in \"French\"")}},
		{Role: codec.RoleAssistant, Parts: []codec.Part{responsesText("Olá!"), refusal("I won't do French.")}},
		{Role: codec.RoleDeveloper, Parts: []codec.Part{responsesText("Answer in one word.")}},
		{Role: codec.RoleUser, Parts: []codec.Part{responsesText("Please?"), refusal("projected refusal")}},
		{Role: codec.RoleSystem, Parts: []codec.Part{responsesText("Be kind.")}},
	}
	tests := []struct {
		name    string
		req     codec.Request
		opts    codec.EncodeOptions
		dropped []string
	}{
		{
			name: "full",
			req: codec.Request{Model: "gpt-4o", Stream: true, StreamUsage: true,
				System: []codec.Part{responsesText("You are a helpful assistant."), responsesText("Be brief.")}, SystemRole: codec.RoleSystem,
				Messages: conversation, MaxTokens: codec.OptInt{Value: 1024, Set: true}, Temperature: codec.OptFloat{Value: 0.7, Set: true},
				TopP: codec.OptFloat{Value: 0.95, Set: true}, Seed: codec.OptInt{Value: 42, Set: true}, User: "user-1"},
			dropped: []string{"seed"},
		},
		{
			name: "developer",
			req: codec.Request{Model: "gpt-5", System: []codec.Part{responsesText("Follow the style guide.")}, SystemRole: codec.RoleDeveloper,
				Messages: conversation[:1], Temperature: codec.OptFloat{Value: 0, Set: true}},
		},
		{
			name: "minimal",
			req:  codec.Request{Model: "claude-sonnet-4", Messages: conversation[:1]},
			opts: codec.EncodeOptions{Model: "gpt-4.1"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := codec.AppendRequest(nil, codec.OpenAIResponses, &tt.req, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			codectest.CheckGolden(t, "openai-responses/request_"+tt.name+".json", out)
			if !codectest.EqualDecoded(tt.req.Dropped, tt.dropped) {
				t.Errorf("dropped %q, want %q", tt.req.Dropped, tt.dropped)
			}
		})
	}
}

func TestResponsesAppendRequestErrors(t *testing.T) {
	msgs := []codec.Message{{Role: codec.RoleUser, Parts: []codec.Part{responsesText("hi")}}}
	tests := []struct {
		req   codec.Request
		param string
	}{
		{codec.Request{Model: "m", Messages: msgs, TopK: codec.OptInt{Value: 40, Set: true}}, "top_k"},
		{codec.Request{Model: "m", Messages: msgs, StopSequences: []string{"END"}}, "stop_sequences"},
		{codec.Request{Model: "m", Messages: msgs, PresencePenalty: codec.OptFloat{Value: 0.5, Set: true}}, "presence_penalty"},
		{codec.Request{Model: "m", Messages: msgs, FrequencyPenalty: codec.OptFloat{Value: 0.5, Set: true}}, "frequency_penalty"},
	}
	for _, tt := range tests {
		t.Run(tt.param, func(t *testing.T) {
			_, err := codec.AppendRequest(nil, codec.OpenAIResponses, &tt.req, codec.EncodeOptions{})
			var e *codec.Error
			if !errors.As(err, &e) || e.Status != 400 || e.Param != tt.param ||
				!strings.Contains(e.Message, "cannot be expressed in the openai-responses protocol") {
				t.Errorf("got %v, want a 400 about %s", err, tt.param)
			}
		})
	}
}

// TestResponsesRequestRoundTrip decodes a request, encodes it and decodes
// the result: the canonical form must survive, and the encoding must be
// stable.
func TestResponsesRequestRoundTrip(t *testing.T) {
	body := benchRequest()
	var first, second codec.Request
	if err := codec.DecodeRequest(codec.OpenAIResponses, body, &first); err != nil {
		t.Fatal(err)
	}
	out, err := codec.AppendRequest(nil, codec.OpenAIResponses, &first, codec.EncodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := codec.DecodeRequest(codec.OpenAIResponses, out, &second); err != nil {
		t.Fatal(err)
	}
	// The encoder sends store:false, which decodes as a dropped hint.
	first.Dropped, second.Dropped = nil, nil
	if !codectest.EqualDecoded(first, second) {
		t.Errorf("round trip changed the request:\n got %+v\nwant %+v", second, first)
	}
	again, err := codec.AppendRequest(nil, codec.OpenAIResponses, &second, codec.EncodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if string(again) != string(out) {
		t.Errorf("encoding is not stable:\n%s\n%s", out, again)
	}
}

// benchRequest returns a realistic Responses request of about
// 5 KB: instructions, a developer message and a 20-message conversation in
// the shapes clients send (typed message items, input_text and output_text
// parts, ids on replayed assistant items).
func benchRequest() []byte {
	var b strings.Builder
	b.WriteString(`{"model":"gpt-4o","instructions":"You are a helpful assistant for a travel agency. Answer concisely, cite prices in euros, and ask a clarifying question when the traveller's dates are unclear.",`)
	b.WriteString(`"input":[{"type":"message","role":"developer","content":[{"type":"input_text","text":"Today's date is 2025-06-01. The customer is on the premium plan."}]}`)
	for i := 0; i < 20; i++ {
		n := strconv.Itoa(i)
		if i%2 == 0 {
			b.WriteString(`,{"type":"message","role":"user","content":[{"type":"input_text","text":"Question ` + n +
				`: Lisbon to Kraków in late September with two children: which flights or trains, and at what cost?"}]}`)
		} else {
			b.WriteString(`,{"type":"message","id":"msg_` + n + `","status":"completed","role":"assistant","content":[{"type":"output_text","annotations":[],"logprobs":[],"text":"Answer ` + n +
				`: A direct flight leaves on Tuesdays (about 240 € each). Trains take two days via Paris, about 310 €.\nShall I check dates?"}]}`)
		}
	}
	b.WriteString(`],"max_output_tokens":1024,"temperature":0.7,"top_p":1,"store":false,"stream":true,"parallel_tool_calls":true,"tool_choice":"auto","tools":[]}`)
	return []byte(b.String())
}

func BenchmarkResponsesDecodeRequest(b *testing.B) {
	body := benchRequest()
	var req codec.Request
	b.ReportAllocs()
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		req.Reset()
		if err := codec.DecodeRequest(codec.OpenAIResponses, body, &req); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkResponsesAppendRequest(b *testing.B) {
	body := benchRequest()
	var req codec.Request
	if err := codec.DecodeRequest(codec.OpenAIResponses, body, &req); err != nil {
		b.Fatal(err)
	}
	buf := make([]byte, 0, 2*len(body))
	b.ReportAllocs()
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		var err error
		if buf, err = codec.AppendRequest(buf[:0], codec.OpenAIResponses, &req, codec.EncodeOptions{Model: "gpt-4.1"}); err != nil {
			b.Fatal(err)
		}
	}
}

// cached returns p with a breakpoint of lifetime ttl.
func cached(p codec.Part, ttl codec.CacheTTL) codec.Part {
	p.Cache = ttl
	return p
}
