package codec_test

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/codectest"
	"github.com/llmbridge/llmbridge/codec/internal/wire"
	"github.com/llmbridge/llmbridge/mapping"
	"github.com/openai/openai-go/v3/responses"
	"github.com/tidwall/gjson"
)

// codexToolsRequest is a Codex-shaped Responses request with every tool
// kind of tool beyond functions: a function, a custom (freeform) tool, a
// namespace group, the hosted web search with options, and a history with
// a namespaced call, a custom call and its output, and a web search call.
const codexToolsRequest = `{"model":"gpt-5","stream":true,"max_tool_calls":4,
"tools":[
 {"type":"function","name":"exec_command","description":"Run","parameters":{"type":"object","properties":{"cmd":{"type":"string"}}},"strict":false},
 {"type":"custom","name":"apply_patch","description":"Patch files","format":{"type":"text"}},
 {"type":"namespace","name":"multi_agent_v1","description":"Agents","tools":[
   {"type":"function","name":"spawn","description":"Spawn one","parameters":{"type":"object","properties":{}}},
   {"type":"function","name":"wait","parameters":{"type":"object","properties":{}}}]},
 {"type":"web_search","filters":{"allowed_domains":["go.dev"]},"user_location":{"type":"approximate","country":"DE","city":"Berlin"},"search_context_size":"medium"}],
"input":[
 {"type":"message","role":"user","content":[{"type":"input_text","text":"go"}]},
 {"type":"web_search_call","id":"ws_1","status":"completed","action":{"type":"search","query":"go"}},
 {"type":"function_call","call_id":"c1","name":"spawn","namespace":"multi_agent_v1","arguments":"{}"},
 {"type":"custom_tool_call","call_id":"c2","name":"apply_patch","input":"*** Begin Patch\n*** End Patch"},
 {"type":"function_call_output","call_id":"c1","output":"spawned"},
 {"type":"custom_tool_call_output","call_id":"c2","output":"patched"}]}`

func TestHostedToolsRequestTranslation(t *testing.T) {
	var req codec.Request
	if err := codec.DecodeRequest(codec.OpenAIResponses, []byte(codexToolsRequest), &req); err != nil {
		t.Fatal(err)
	}
	if len(req.Tools) != 5 {
		t.Fatalf("tools: %+v", req.Tools)
	}
	if ws := req.Tools[4]; ws.Kind != codec.ToolWebSearch || !ws.WebSearch.MaxUses.Set || ws.WebSearch.MaxUses.Value != 4 || ws.Source != "tools[3]" {
		t.Errorf("web search: %+v", ws)
	}
	if ns := req.Tools[2]; ns.Namespace != "multi_agent_v1" || ns.Name != "spawn" || ns.NamespaceDescription != "Agents" {
		t.Errorf("namespace tool: %+v", ns)
	}
	if got := strings.Join(req.Dropped, ","); got != "input[1] (web_search_call)" {
		t.Errorf("dropped: %s", got)
	}
	calls := req.Messages[1].Parts
	if calls[0].Namespace != "multi_agent_v1" || calls[1].ToolKind != codec.ToolCustom || calls[1].Arguments != `{"input":"*** Begin Patch\n*** End Patch"}` {
		t.Errorf("calls: %+v", calls)
	}

	// Toward Anthropic: the search with its options, flattened and
	// function-shaped tools and calls.
	out, err := codec.AppendRequest(nil, codec.AnthropicMessages, cloneRequest(&req), codec.EncodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	codectest.CheckGolden(t, "tools/responses-codex--anthropic-messages.json", out)

	// Back to Responses (a canonical request with these kinds, as a
	// Responses encoder writes it).
	out, err = codec.AppendRequest(nil, codec.OpenAIResponses, cloneRequest(&req), codec.EncodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	codectest.CheckGolden(t, "tools/responses-codex--openai-responses.json", out)

	// Without the search, toward Chat and Gemini.
	noSearch := cloneRequest(&req)
	noSearch.Tools = noSearch.Tools[:4]
	for _, p := range []codec.Protocol{codec.OpenAIChat, codec.Gemini} {
		out, err := codec.AppendRequest(nil, p, cloneRequest(noSearch), codec.EncodeOptions{})
		if err != nil {
			t.Fatal(p, err)
		}
		codectest.CheckGolden(t, "tools/responses-codex-nosearch--"+string(p)+".json", out)
	}
}

// cloneRequest copies the slices of req that encoders append to.
func cloneRequest(req *codec.Request) *codec.Request {
	c := *req
	c.Dropped = append([]string(nil), req.Dropped...)
	c.Tools = append([]codec.Tool(nil), req.Tools...)
	return &c
}

func TestHostedToolsRejections(t *testing.T) {
	decode := func(p codec.Protocol, body string) *codec.Request {
		t.Helper()
		var req codec.Request
		if p.ModelInPath() {
			req.Model = "m"
		}
		if err := codec.DecodeRequest(p, []byte(body), &req); err != nil {
			t.Fatal(err)
		}
		return &req
	}
	const anthropicSearch = `{"model":"m","max_tokens":10,"messages":[{"role":"user","content":"x"}],"tools":[{"type":"web_search_20250305","name":"web_search","max_uses":5}]}`
	const responsesSearch = `{"model":"m","input":"x","tools":[{"type":"function","name":"f"},{"type":"web_search_preview","search_context_size":"high"}]}`
	const grammar = `{"model":"m","input":"x","tools":[{"type":"custom","name":"sql","format":{"type":"grammar","syntax":"lark","definition":"start: x"}}]}`
	tests := []struct {
		name   string
		from   codec.Protocol
		body   string
		to     codec.Protocol
		param  string
		substr string
	}{
		{"search toward chat", codec.AnthropicMessages, anthropicSearch, codec.OpenAIChat, "tools[0]",
			`hosted tool "web_search" cannot be translated for the openai-chat upstream: Chat Completions has no hosted web search tool; remove the tool from the request or ask the operator to drop it (field tools[0])`},
		{"search toward claude on bedrock", codec.AnthropicMessages, anthropicSearch, codec.BedrockAnthropic, "tools[0]",
			`hosted tool "web_search" cannot be translated for the bedrock-anthropic upstream: Claude on Bedrock has no web search server tool`},
		{"search toward converse", codec.OpenAIResponses, responsesSearch, codec.Bedrock, "tools[1]", "Converse has no hosted web search"},
		{"max_uses toward gemini", codec.AnthropicMessages, anthropicSearch, codec.Gemini, "tools[0]", "option max_uses"},
		{"context size toward anthropic", codec.OpenAIResponses, responsesSearch, codec.AnthropicMessages, "tools[1]", "option search_context_size"},
		{"grammar toward anthropic", codec.OpenAIResponses, grammar, codec.AnthropicMessages, "tools[0].format", "grammar format"},
		{"grammar toward gemini", codec.OpenAIResponses, grammar, codec.Gemini, "tools[0].format", "grammar format"},
		{"grammar toward chat", codec.OpenAIResponses, grammar, codec.OpenAIChat, "tools[0].format", "grammar format"},
		{"location toward gemini", codec.OpenAIResponses, `{"model":"m","input":"x","tools":[{"type":"web_search","user_location":{"type":"approximate","city":"Paris"}}]}`, codec.Gemini, "tools[0]", "option user_location"},
		{"domains toward gemini", codec.OpenAIResponses, `{"model":"m","input":"x","tools":[{"type":"web_search","filters":{"allowed_domains":["a.b"]}}]}`, codec.Gemini, "tools[0]", "option allowed_domains"},
		{"blocked toward responses", codec.Vertex, `{"contents":[{"role":"user","parts":[{"text":"x"}]}],"tools":[{"googleSearch":{"excludeDomains":["a.b"]}}]}`, codec.OpenAIResponses, "tools[0]", "option blocked_domains cannot be translated for the openai-responses upstream: the upstream's search cannot exclude domains; remove the tool from the request or ask the operator to drop it (field tools[0].googleSearch)"},
		{"allowed toward preview", codec.AnthropicMessages, `{"model":"m","max_tokens":10,"messages":[{"role":"user","content":"x"}],"tools":[{"type":"web_search_20250305","name":"web_search","allowed_domains":["a.b"]}]}`, codec.Gemini, "tools[0]", "option allowed_domains"},
		{"flat name collision", codec.OpenAIResponses, `{"model":"m","input":"x","tools":[{"type":"function","name":"ns__f"},{"type":"namespace","name":"ns","description":"","tools":[{"type":"function","name":"f"}]}]}`, codec.AnthropicMessages, "tools[1]", `tool name "ns__f"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := decode(tt.from, tt.body)
			_, err := codec.AppendRequest(nil, tt.to, req, codec.EncodeOptions{})
			var e *codec.Error
			if !errors.As(err, &e) || e.Status != 400 || e.Param != tt.param || !strings.Contains(e.Message, tt.substr) {
				t.Fatalf("got %v, want a 400 at %s containing %q", err, tt.param, tt.substr)
			}
			if tt.name == "flat name collision" {
				return
			}
			// A capability the lenient policy can drop: after
			// Request.Drop of the error's path the request encodes.
			if e.Class != codec.ClassCapability || !req.Drop(e.Capability) {
				t.Fatalf("class %v, or Drop(%q) did nothing", e.Class, e.Param)
			}
			if _, err := codec.AppendRequest(nil, tt.to, req, codec.EncodeOptions{}); err != nil {
				t.Errorf("after Drop(%q): %v", e.Param, err)
			}
		})
	}
}

func TestHostedSearchRequestMappings(t *testing.T) {
	tests := []struct {
		name string
		from codec.Protocol
		body string
		to   codec.Protocol
		want string // a substring of the encoded body
	}{
		{"anthropic to responses", codec.AnthropicMessages,
			`{"model":"m","max_tokens":10,"messages":[{"role":"user","content":"x"}],"tools":[{"type":"web_search_20250305","name":"web_search","max_uses":5,"allowed_domains":["go.dev"],"user_location":{"type":"approximate","timezone":"Europe/Berlin"},"cache_control":{"type":"ephemeral"}}]}`,
			codec.OpenAIResponses, `"tools":[{"type":"web_search","filters":{"allowed_domains":["go.dev"]},"user_location":{"type":"approximate","timezone":"Europe/Berlin"}}],"max_tool_calls":5`},
		{"gemini to anthropic", codec.Gemini, `{"contents":[{"role":"user","parts":[{"text":"x"}]}],"tools":[{"googleSearch":{}},{"functionDeclarations":[{"name":"f"}]}]}`,
			codec.AnthropicMessages, `"tools":[{"type":"web_search_20250305","name":"web_search"},{"name":"f","input_schema":{"type":"object","properties":{}}}]`},
		{"gemini to responses", codec.Gemini, `{"contents":[{"role":"user","parts":[{"text":"x"}]}],"tools":[{"google_search":{}}]}`,
			codec.OpenAIResponses, `"tools":[{"type":"web_search"}]`},
		{"responses to gemini", codec.OpenAIResponses, `{"model":"m","input":"x","tools":[{"type":"web_search_preview","search_context_size":"medium"}],"tool_choice":"auto"}`,
			codec.Gemini, `"tools":[{"googleSearch":{}}]}`},
		{"responses preview to responses", codec.OpenAIResponses, `{"model":"m","input":"x","tools":[{"type":"web_search_preview_2025_03_11","user_location":{"type":"approximate","region":"CA","city":null}}]}`,
			codec.OpenAIResponses, `"tools":[{"type":"web_search_preview","user_location":{"type":"approximate","region":"CA"}}]`},
		{"vertex blocked to anthropic", codec.Vertex, `{"contents":[{"role":"user","parts":[{"text":"x"}]}],"tools":[{"googleSearch":{"excludeDomains":["a.b"]}}]}`,
			codec.AnthropicMessages, `"tools":[{"type":"web_search_20250305","name":"web_search","blocked_domains":["a.b"]}]`},
		{"custom choice", codec.OpenAIResponses, `{"model":"m","input":"x","tools":[{"type":"custom","name":"p"}],"tool_choice":{"type":"custom","name":"p"}}`,
			codec.AnthropicMessages, `"tools":[{"name":"p","input_schema":{"type":"object","properties":{"input":{"type":"string"}},"required":["input"]}}],"tool_choice":{"type":"tool","name":"p"}`},
		{"custom choice to responses", codec.OpenAIResponses, `{"model":"m","input":"x","tools":[{"type":"custom","name":"p","description":"d","format":{"type":"grammar","syntax":"regex","definition":"a+"}}],"tool_choice":{"type":"custom","name":"p"}}`,
			codec.OpenAIResponses, `"tools":[{"type":"custom","name":"p","description":"d","format":{"type":"grammar","syntax":"regex","definition":"a+"}}],"tool_choice":{"type":"custom","name":"p"}`},
		{"max_tool_calls without search", codec.OpenAIResponses, `{"model":"m","input":"x","max_tool_calls":2,"tools":[{"type":"function","name":"f"}]}`,
			codec.AnthropicMessages, `"tools":[{"name":"f","input_schema":{"type":"object","properties":{}}}]`},
		{"anthropic history with search blocks", codec.AnthropicMessages,
			`{"model":"m","max_tokens":10,"messages":[{"role":"user","content":"x"},{"role":"assistant","content":[{"type":"server_tool_use","id":"srvtoolu_1","name":"web_search","input":{"query":"q"}},{"type":"web_search_tool_result","tool_use_id":"srvtoolu_1","content":[]},{"type":"text","text":"y","citations":[{"type":"web_search_result_location","url":"https://a","title":"A","cited_text":"c","encrypted_index":"e"}]}]},{"role":"user","content":"z"}]}`,
			codec.OpenAIChat, `"messages":[{"role":"user","content":"x"},{"role":"assistant","content":"y"},{"role":"user","content":"z"}]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var req codec.Request
			if tt.from.ModelInPath() {
				req.Model = "m"
			}
			if err := codec.DecodeRequest(tt.from, []byte(tt.body), &req); err != nil {
				t.Fatal(err)
			}
			out, err := codec.AppendRequest(nil, tt.to, &req, codec.EncodeOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(out), tt.want) {
				t.Errorf("got  %s\nwant it to contain %s", out, tt.want)
			}
		})
	}
}

func TestResponsesToolDecodeErrors(t *testing.T) {
	tests := []struct{ name, body, param, substr string }{
		{"preview filters", `"tools":[{"type":"web_search_preview","filters":{}}]`, "tools[0].filters", "unknown"},
		{"filters type", `"tools":[{"type":"web_search","filters":[]}]`, "tools[0].filters", "object"},
		{"filters key", `"tools":[{"type":"web_search","filters":{"blocked_domains":[]}}]`, "tools[0].filters.blocked_domains", "unknown"},
		{"domains type", `"tools":[{"type":"web_search","filters":{"allowed_domains":"a"}}]`, "tools[0].filters.allowed_domains", "array"},
		{"domain type", `"tools":[{"type":"web_search","filters":{"allowed_domains":[1]}}]`, "tools[0].filters.allowed_domains[0]", "string"},
		{"location type", `"tools":[{"type":"web_search","user_location":1}]`, "tools[0].user_location", "object"},
		{"location key", `"tools":[{"type":"web_search","user_location":{"zip":"1"}}]`, "tools[0].user_location.zip", "unknown"},
		{"location city", `"tools":[{"type":"web_search","user_location":{"city":1}}]`, "tools[0].user_location.city", "string"},
		{"context size", `"tools":[{"type":"web_search","search_context_size":"huge"}]`, "tools[0].search_context_size", "must be"},
		{"cached only", `"tools":[{"type":"web_search","external_web_access":false}]`, "tools[0].external_web_access", "cached"},
		{"content types", `"tools":[{"type":"web_search_preview","search_content_types":["image"]}]`, "tools[0].search_content_types", "content types"},
		{"search key", `"tools":[{"type":"web_search","x":1}]`, "tools[0].x", "unknown"},
		{"search in namespace", `"tools":[{"type":"namespace","name":"n","tools":[{"type":"web_search"}]}]`, "tools[0].tools[0].type", "function and custom"},
		{"namespace name", `"tools":[{"type":"namespace","tools":[]}]`, "tools[0].name", "required"},
		{"namespace tools", `"tools":[{"type":"namespace","name":"n"}]`, "tools[0].tools", "required"},
		{"namespace tools type", `"tools":[{"type":"namespace","name":"n","tools":{}}]`, "tools[0].tools", "array"},
		{"namespace key", `"tools":[{"type":"namespace","name":"n","tools":[],"x":1}]`, "tools[0].x", "unknown"},
		{"custom strict", `"tools":[{"type":"custom","name":"c","strict":true}]`, "tools[0].strict", "unknown"},
		{"function format", `"tools":[{"type":"function","name":"c","format":{}}]`, "tools[0].format", "unknown"},
		{"custom format type", `"tools":[{"type":"custom","name":"c","format":[]}]`, "tools[0].format", "object"},
		{"custom format kind", `"tools":[{"type":"custom","name":"c","format":{"type":"regex"}}]`, "tools[0].format.type", "must be"},
		{"custom text key", `"tools":[{"type":"custom","name":"c","format":{"type":"text","x":1}}]`, "tools[0].format.x", "unknown"},
		{"max_tool_calls", `"max_tool_calls":1.5`, "max_tool_calls", "integer"},
		{"custom call input", `"input":[{"type":"custom_tool_call","call_id":"c","name":"f","input":1}]`, "input[0].input", "string"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := `{"model":"m",` + tt.body
			if !strings.Contains(tt.body, `"input":`) {
				body += `,"input":"x"`
			}
			var req codec.Request
			err := codec.DecodeRequest(codec.OpenAIResponses, []byte(body+"}"), &req)
			var e *codec.Error
			if !errors.As(err, &e) || e.Status != 400 || e.Param != tt.param || !strings.Contains(e.Message, tt.substr) {
				t.Fatalf("got %v, want a 400 at %s containing %q", err, tt.param, tt.substr)
			}
		})
	}
}

func TestFlatToolName(t *testing.T) {
	long := strings.Repeat("n", 40)
	tests := []struct{ ns, name, want string }{
		{"", "f", "f"},
		{"multi_agent_v1", "spawn", "multi_agent_v1__spawn"},
		{"mcp.server", "read file", "mcp_server__read_file"},
	}
	for _, tt := range tests {
		if got := codec.FlatToolName(tt.ns, tt.name); got != tt.want {
			t.Errorf("codec.FlatToolName(%q, %q) = %q, want %q", tt.ns, tt.name, got, tt.want)
		}
	}
	a, b := codec.FlatToolName(long, long+"a"), codec.FlatToolName(long, long+"b")
	if len(a) != 64 || len(b) != 64 || a == b || a[:55] != b[:55] {
		t.Errorf("long names %q %q", a, b)
	}
}

func TestCustomInput(t *testing.T) {
	for args, want := range map[string]string{
		"":                        "",
		`{"input":"a\nb"}`:        "a\nb",
		`{"patch":"x"}`:           `{"patch":"x"}`,
		wire.CustomArguments("q"): "q",
	} {
		if got := wire.CustomInput(args); got != want {
			t.Errorf("customInput(%q) = %q, want %q", args, got, want)
		}
	}
}

// Upstream responses with a hosted web search, its results and citations,
// one per upstream protocol.
var searchResponses = map[codec.Protocol]string{
	codec.AnthropicMessages: `{"id":"msg_1","type":"message","role":"assistant","model":"claude","content":[
 {"type":"server_tool_use","id":"srvtoolu_1","name":"web_search","input":{"query":"go release"}},
 {"type":"web_search_tool_result","tool_use_id":"srvtoolu_1","content":[{"type":"web_search_result","url":"https://go.dev/doc","title":"Go docs","encrypted_content":"E1","page_age":"2 days"},{"type":"other"}]},
 {"type":"text","text":"Go 1.25 is out. ","citations":[{"type":"web_search_result_location","url":"https://go.dev/doc","title":"Go docs","cited_text":"Go 1.25","encrypted_index":"X"},{"type":"char_location"}]},
 {"type":"text","text":"Enjoy.","citations":null}],
 "stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":10,"output_tokens":5,"server_tool_use":{"web_search_requests":1}}}`,
	codec.OpenAIResponses: `{"id":"resp_1","object":"response","status":"completed","model":"gpt-5","output":[
 {"type":"web_search_call","id":"ws_1","status":"completed","action":{"type":"search","query":"go release","sources":[{"type":"url","url":"https://go.dev/doc"}]}},
 {"type":"message","id":"msg_1","status":"completed","role":"assistant","content":[{"type":"output_text","text":"Héllo Go 1.25 is out.","annotations":[{"type":"url_citation","start_index":6,"end_index":13,"url":"https://go.dev/doc","title":"Go docs"},{"type":"file_citation","index":0}]}]}],
 "usage":{"input_tokens":10,"output_tokens":5}}`,
	codec.Gemini: `{"candidates":[{"content":{"role":"model","parts":[{"text":"Go 1.25 is out. "},{"text":"Enjoy."}]},"finishReason":"STOP","index":0,
 "groundingMetadata":{"webSearchQueries":["go release","go 1.25"],"groundingChunks":[{"web":{"uri":"https://go.dev/doc","title":"go.dev"}},{"web":{}}],
 "groundingSupports":[{"segment":{"partIndex":0,"startIndex":0,"endIndex":7,"text":"Go 1.25"},"groundingChunkIndices":[0,1,7]},{"segment":{"partIndex":5,"startIndex":0,"endIndex":1}}]}}],
 "usageMetadata":{"promptTokenCount":10,"candidatesTokenCount":5,"totalTokenCount":15},"modelVersion":"gemini-2.5-flash","responseId":"r1"}`,
}

func TestHostedSearchResponses(t *testing.T) {
	for _, from := range []codec.Protocol{codec.AnthropicMessages, codec.OpenAIResponses, codec.Gemini} {
		var resp codec.Response
		if err := codec.DecodeResponse(from, []byte(searchResponses[from]), &resp); err != nil {
			t.Fatal(from, err)
		}
		codectest.CheckGolden(t, "tools/search-"+string(from)+"--canonical.json", canonicalJSON(t, &resp))
		for _, to := range []codec.Protocol{codec.OpenAIChat, codec.OpenAIResponses, codec.AnthropicMessages, codec.Gemini} {
			if to == from {
				continue
			}
			r := resp
			r.Dropped, r.Created = nil, 1
			out, err := codec.AppendResponse(nil, to, &r)
			if err != nil {
				t.Fatal(from, to, err)
			}
			codectest.CheckGolden(t, "tools/search-"+string(from)+"--"+string(to)+".json", out)
			if to == codec.OpenAIChat && len(r.Dropped) == 0 {
				t.Errorf("%s to chat: nothing listed as dropped", from)
			}
			// The client's protocol decodes what it was given.
			var back codec.Response
			if err := codec.DecodeResponse(to, out, &back); err != nil {
				t.Errorf("%s to %s: the result does not decode: %v", from, to, err)
			}
		}
	}
}

// canonicalJSON renders a response's content for goldens.
func canonicalJSON(t *testing.T, resp *codec.Response) []byte {
	t.Helper()
	b, err := json.Marshal(resp.Content)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestAppendResponseForRestoresTools(t *testing.T) {
	var req codec.Request
	if err := codec.DecodeRequest(codec.OpenAIResponses, []byte(codexToolsRequest), &req); err != nil {
		t.Fatal(err)
	}
	resp := codec.Response{ID: "resp_1", Model: "m", Created: 1, StopReason: mapping.StopToolUse, Content: []codec.Part{
		{Type: codec.PartToolCall, ToolCallID: "c1", ToolName: "multi_agent_v1__wait", Arguments: `{}`},
		{Type: codec.PartToolCall, ToolCallID: "c2", ToolName: "apply_patch", Arguments: `{"input":"*** Begin Patch"}`},
		{Type: codec.PartToolCall, ToolCallID: "c3", ToolName: "exec_command", Arguments: `{"cmd":"ls"}`},
	}}
	out, err := codec.AppendResponseFor(nil, codec.OpenAIResponses, &resp, &req)
	if err != nil {
		t.Fatal(err)
	}
	codectest.CheckGolden(t, "tools/restore--openai-responses.json", out)
	// Without the request, the calls are plain function calls.
	out, err = codec.AppendResponse(nil, codec.OpenAIResponses, &resp)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(out), "custom_tool_call") || strings.Contains(string(out), "namespace") {
		t.Errorf("without the request: %s", out)
	}
	// Other clients get what the upstream said.
	out, err = codec.AppendResponseFor(nil, codec.AnthropicMessages, &resp, &req)
	if err != nil || !strings.Contains(string(out), `"name":"multi_agent_v1__wait"`) {
		t.Errorf("anthropic: %s %v", out, err)
	}
}

// TestHostedSearchStreams streams each upstream's search response to every
// client protocol and decodes what the client gets: the answer always
// arrives; the searches and their pages reach the protocols that can carry
// them in a stream (Responses and Anthropic), the citations those and Chat
// (annotations).
func TestHostedSearchStreams(t *testing.T) {
	for _, from := range []codec.Protocol{codec.AnthropicMessages, codec.OpenAIResponses, codec.Gemini} {
		var resp codec.Response
		if err := codec.DecodeResponse(from, []byte(searchResponses[from]), &resp); err != nil {
			t.Fatal(err)
		}
		evs := codec.AppendResponseEvents(nil, &resp)
		codectest.CheckWellFormed(t, evs)
		want := codectest.Summarize(evs)
		if want.Searches == "" || want.Results == 0 || want.Cites == 0 {
			t.Fatalf("%s: canonical stream %+v", from, want)
		}
		for _, to := range codec.Protocols() {
			body := codectest.EncodeStream(to, &codec.Request{Model: "m", Stream: true}, evs)
			got := codectest.DecodeStream(t, to, body, nil)
			codectest.CheckWellFormed(t, got)
			s := codectest.Summarize(got)
			if !s.Complete || s.Text != want.Text {
				t.Errorf("%s to %s: %+v\n%s", from, to, s, body)
				continue
			}
			switch to {
			case codec.OpenAIResponses, codec.AzureOpenAIResponses, codec.AnthropicMessages, codec.VertexAnthropic, codec.BedrockAnthropic:
				if s.Searches != want.Searches || s.Results == 0 || s.Cites != want.Cites {
					t.Errorf("%s to %s: searches %q results %d cites %d, want %q %d %d", from, to, s.Searches, s.Results, s.Cites,
						want.Searches, want.Results, want.Cites)
				}
			case codec.OpenAIChat, codec.AzureOpenAI:
				if s.Searches != "" || s.Cites != want.Cites {
					t.Errorf("%s to %s: searches %q cites %d, want none and %d", from, to, s.Searches, s.Cites, want.Cites)
				}
			default:
				if s.Searches != "" || s.Cites != 0 {
					t.Errorf("%s to %s: searches %q cites %d", from, to, s.Searches, s.Cites)
				}
			}
		}
	}
}

func TestGeminiStreamGrounding(t *testing.T) {
	body := "data: {\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"text\":\"Go 1.25\"}]},\"index\":0}],\"responseId\":\"r\"}\r\n\r\n" +
		"data: {\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"text\":\" is out.\"}]},\"finishReason\":\"STOP\",\"index\":0," +
		"\"groundingMetadata\":{\"webSearchQueries\":[\"go\"],\"groundingChunks\":[{\"web\":{\"uri\":\"https://go.dev\",\"title\":\"go.dev\"}}]," +
		"\"groundingSupports\":[{\"segment\":{\"startIndex\":0,\"endIndex\":7},\"groundingChunkIndices\":[0]}]}}],\"responseId\":\"r\"}\r\n\r\n" +
		"data: {\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"text\":\"\"}]},\"finishReason\":\"STOP\",\"index\":0," +
		"\"groundingMetadata\":{\"webSearchQueries\":[\"go\"]}}],\"responseId\":\"r\"}\r\n\r\n"
	evs := codectest.DecodeStream(t, codec.Gemini, body, nil)
	codectest.CheckWellFormed(t, evs)
	s := codectest.Summarize(evs)
	if s.Text != "Go 1.25 is out." || s.Searches != `{"query":"go"};` || s.Results != 1 || !s.Complete || s.Cites != 1 {
		t.Errorf("%+v", s)
	}
	// The support's segment becomes a citation of the answer, which it
	// points into, before the answer part stops.
	for i, ev := range evs {
		if ev.Type == codec.EventCitation {
			want := codec.Citation{URL: "https://go.dev", Title: "go.dev", Start: 0, End: 7}
			if ev.Citation != want || ev.Index != 0 || evs[i+1].Type != codec.EventPartStop || evs[i+1].Index != 0 {
				t.Errorf("citation event %+v, then %+v", ev, evs[i+1])
			}
		}
	}

	// With the answer in two text parts (around a tool call), which one a
	// segment means cannot be told: no citation.
	split := "data: {\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"text\":\"a\"},{\"functionCall\":{\"name\":\"f\",\"args\":{}}},{\"text\":\"b\"}]},\"finishReason\":\"STOP\",\"index\":0," +
		"\"groundingMetadata\":{\"groundingChunks\":[{\"web\":{\"uri\":\"https://go.dev\"}}]," +
		"\"groundingSupports\":[{\"segment\":{\"startIndex\":0,\"endIndex\":1},\"groundingChunkIndices\":[0]}]}}],\"responseId\":\"r\"}\r\n\r\n"
	if s := codectest.Summarize(codectest.DecodeStream(t, codec.Gemini, split, nil)); s.Cites != 0 || s.Text != "ab" {
		t.Errorf("split answer: %+v", s)
	}
}

func TestResponsesStreamRestoresTools(t *testing.T) {
	var req codec.Request
	if err := codec.DecodeRequest(codec.OpenAIResponses, []byte(codexToolsRequest), &req); err != nil {
		t.Fatal(err)
	}
	evs := []codec.Event{
		{Type: codec.EventStart, ID: "resp_1", Model: "m"},
		{Type: codec.EventPartStart, Index: 0, Part: codec.PartToolCall, ToolCallID: "c1", ToolName: "apply_patch"},
		{Type: codec.EventPartDelta, Index: 0, Text: `{"input":"*** Begin`},
		{Type: codec.EventPartDelta, Index: 0, Text: ` Patch\n"}`},
		{Type: codec.EventPartStop, Index: 0},
		{Type: codec.EventPartStart, Index: 1, Part: codec.PartToolCall, ToolCallID: "c2", ToolName: "multi_agent_v1__spawn"},
		{Type: codec.EventPartDelta, Index: 1, Text: `{}`},
		{Type: codec.EventPartStop, Index: 1},
		{Type: codec.EventStop, StopReason: mapping.StopToolUse},
		{Type: codec.EventEnd},
	}
	out := codectest.EncodeStream(codec.OpenAIResponses, &req, evs)
	for _, want := range []string{
		`"type":"response.output_item.added","item":{"type":"custom_tool_call","id":"fc_1_0","call_id":"c1","name":"apply_patch","input":""}`,
		`"type":"response.custom_tool_call_input.delta","delta":"*** Begin Patch\n"`,
		`"type":"response.custom_tool_call_input.done","input":"*** Begin Patch\n"`,
		`"item":{"type":"custom_tool_call","id":"fc_1_0","call_id":"c1","name":"apply_patch","input":"*** Begin Patch\n"}`,
		`"item":{"type":"function_call","id":"fc_1_1","call_id":"c2","name":"spawn","namespace":"multi_agent_v1","arguments":""`,
		`"type":"response.function_call_arguments.done","arguments":"{}"`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("stream lacks %s\n%s", want, out)
		}
	}
	if strings.Contains(out, `"response.function_call_arguments.delta","delta":"{\"input\"`) {
		t.Errorf("custom input sent as function arguments:\n%s", out)
	}
}

func TestHostedSearchEdgeCases(t *testing.T) {
	// A failed search, an orphan result and a result without id.
	const anthropicFailed = `{"id":"msg_2","type":"message","role":"assistant","model":"c","content":[
 {"type":"web_search_tool_result","tool_use_id":"srvtoolu_0","content":[]},
 {"type":"server_tool_use","id":"srvtoolu_1","name":"web_search","input":{"query":"q"}},
 {"type":"web_search_tool_result","tool_use_id":"srvtoolu_1","content":{"type":"web_search_tool_result_error","error_code":"max_uses_exceeded"}},
 {"type":"text","text":"sorry"}],"stop_reason":"end_turn","usage":{"input_tokens":1,"output_tokens":1}}`
	var resp codec.Response
	if err := codec.DecodeResponse(codec.AnthropicMessages, []byte(anthropicFailed), &resp); err != nil {
		t.Fatal(err)
	}
	if r := resp.Content[2]; r.Type != codec.PartServerToolResult || !r.IsError || r.Text != "max_uses_exceeded" {
		t.Fatalf("error result %+v", r)
	}
	resp.Created = 1
	out, err := codec.AppendResponse(nil, codec.OpenAIResponses, &resp)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), `{"type":"web_search_call","id":"ws_2_0","status":"failed","action":{"type":"search","query":"q"}}`) ||
		strings.Join(resp.Dropped, ",") != "content[0] (server tool result)" {
		t.Errorf("responses: %s %q", out, resp.Dropped)
	}
	resp.Dropped = nil
	out, err = codec.AppendResponse(nil, codec.AnthropicMessages, &resp)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), `"content":{"type":"web_search_tool_result_error","error_code":"max_uses_exceeded"}`) {
		t.Errorf("anthropic: %s", out)
	}
	// The stream of it, to an Anthropic and a Responses client.
	evs := codec.AppendResponseEvents(nil, &resp)
	for _, p := range []codec.Protocol{codec.AnthropicMessages, codec.OpenAIResponses} {
		s := codectest.EncodeStream(p, &codec.Request{}, evs)
		if !strings.Contains(s, "max_uses_exceeded") && p == codec.AnthropicMessages || !strings.Contains(s, `"status":"failed"`) && p == codec.OpenAIResponses {
			t.Errorf("%s stream: %s", p, s)
		}
	}

	// Results without an id follow the last search; without a search
	// before them they are left out.
	noID := codec.Response{ID: "msg_3", Created: 1, Content: []codec.Part{
		{Type: codec.PartServerToolResult, Sources: []codec.Source{{URL: "https://a"}}},
		{Type: codec.PartServerToolCall, ToolName: "web_search", Arguments: `{"query":"x"}`},
		{Type: codec.PartServerToolResult, IsError: true},
		{Type: codec.PartText, Text: "abc", Citations: []codec.Citation{{URL: "https://b", Start: 2, End: 1}, {URL: "https://c", Start: -1, End: 9}, {URL: "https://d", Start: 1, End: 2}}},
	}}
	out, err = codec.AppendResponse(nil, codec.AnthropicMessages, &noID)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`{"type":"server_tool_use","id":"srvtoolu_3_1"`, `"tool_use_id":"srvtoolu_3_1","content":{"type":"web_search_tool_result_error","error_code":"unavailable"}`,
		`{"type":"text","text":"abc","citations":[{"type":"web_search_result_location","url":"https://c"`} {
		if !strings.Contains(string(out), want) {
			t.Errorf("anthropic lacks %s: %s", want, out)
		}
	}
	evs = codec.AppendResponseEvents(nil, &noID)
	if s := codectest.EncodeStream(codec.AnthropicMessages, &codec.Request{}, evs); strings.Count(s, `"type":"web_search_tool_result",`) != 1 {
		t.Errorf("anthropic stream: %s", s)
	}
	if s := codectest.EncodeStream(codec.OpenAIResponses, &codec.Request{}, evs); strings.Count(s, `"type":"web_search_call"`) == 0 {
		t.Errorf("responses stream: %s", s)
	}

	// Responses searches with several queries, and segments.
	var r2 codec.Response
	if err := codec.DecodeResponse(codec.OpenAIResponses, []byte(`{"object":"response","status":"completed","output":[
 {"type":"web_search_call","id":"ws_9","status":"completed","action":{"type":"search","queries":["a","b"]}},
 {"type":"message","content":[{"type":"output_text","text":"é x","annotations":[{"type":"url_citation","start_index":0,"url":"https://e"}]}]}]}`), &r2); err != nil {
		t.Fatal(err)
	}
	if q := wire.SearchQuery(r2.Content[0].Arguments); q != "a\nb" || r2.Content[1].Citations[0].End != -1 {
		t.Errorf("%+v", r2.Content)
	}
	segs := wire.CitedSegments(&codec.Part{Text: "héllo", Citations: []codec.Citation{{URL: "u", Start: 2, End: 3}}})
	if len(segs) != 3 || segs[0].Text != "h" || segs[1].Text != "é" || segs[2].Text != "llo" {
		t.Errorf("segments %+v", segs)
	}
	if wire.ByteIndex("héllo", 9) != len("héllo") || wire.ByteIndex("é", 0) != 0 {
		t.Error("byteIndex")
	}
}

// TestResponsesHostedSDK feeds the Responses output of searches, citations
// and restored custom and namespaced calls to openai-go: every event and
// item must be of a type the SDK knows, with every field it requires.
func TestResponsesHostedSDK(t *testing.T) {
	var req codec.Request
	if err := codec.DecodeRequest(codec.OpenAIResponses, []byte(codexToolsRequest), &req); err != nil {
		t.Fatal(err)
	}
	var search codec.Response
	if err := codec.DecodeResponse(codec.AnthropicMessages, []byte(searchResponses[codec.AnthropicMessages]), &search); err != nil {
		t.Fatal(err)
	}
	calls := codec.Response{ID: "resp_1", Model: "m", Created: 1, StopReason: mapping.StopToolUse, Content: []codec.Part{
		{Type: codec.PartToolCall, ToolCallID: "c1", ToolName: "apply_patch", Arguments: `{"input":"x"}`},
		{Type: codec.PartToolCall, ToolCallID: "c2", ToolName: "multi_agent_v1__spawn", Arguments: `{}`},
	}}
	for name, resp := range map[string]*codec.Response{"search": &search, "calls": &calls} {
		body := codectest.EncodeStream(codec.OpenAIResponses, &req, codec.AppendResponseEvents(nil, resp))
		evs, err := codectest.ParseResponsesStream(t, []byte(body))
		if err != nil {
			t.Fatal(name, err)
		}
		for i, ev := range evs {
			typed := ev.AsAny()
			if typed == nil {
				t.Fatalf("%s event %d: the SDK does not know type %q", name, i, ev.Type)
			}
			codectest.CheckSDKFields(t, name+" "+ev.Type, reflect.ValueOf(typed))
		}
		out, err := codec.AppendResponseFor(nil, codec.OpenAIResponses, resp, &req)
		if err != nil {
			t.Fatal(err)
		}
		var r responses.Response
		if err := json.Unmarshal(out, &r); err != nil {
			t.Fatal(name, err)
		}
		codectest.CheckSDKFields(t, name+" response", reflect.ValueOf(r))
		for _, item := range r.Output {
			codectest.CheckSDKFields(t, name+" "+item.Type, reflect.ValueOf(item.AsAny()))
		}
	}
}

// TestNamespacedToolChoice checks that a Responses tool_choice forcing a
// function of a Codex namespace group names the function's flat name
// toward protocols without groups, whether the choice says the namespace
// or leaves it to be found among the tools.
func TestNamespacedToolChoice(t *testing.T) {
	const tools = `"tools":[{"type":"function","name":"exec"},
 {"type":"namespace","name":"multi_agent_v1","description":"","tools":[{"type":"function","name":"spawn"},{"type":"function","name":"exec"}]},
 {"type":"namespace","name":"other","description":"","tools":[{"type":"function","name":"wait"},{"type":"function","name":"spawn"}]}]`
	decode := func(body string) *codec.Request {
		t.Helper()
		var req codec.Request
		if err := codec.DecodeRequest(codec.OpenAIResponses, []byte(body), &req); err != nil {
			t.Fatal(err)
		}
		return &req
	}
	body := func(choice string) string {
		return `{"model":"m","input":"x",` + tools + `,"tool_choice":` + choice + `}`
	}
	tests := []struct {
		name, choice, want string
	}{
		{"namespace given", `{"type":"function","name":"spawn","namespace":"multi_agent_v1"}`, "multi_agent_v1__spawn"},
		{"found in one group", `{"type":"function","name":"wait"}`, "other__wait"},
		{"outside a group wins", `{"type":"function","name":"exec"}`, "exec"},
		{"unknown left to the upstream", `{"type":"function","name":"nope"}`, "nope"},
	}
	paths := map[codec.Protocol]string{
		codec.OpenAIChat:        "tool_choice.function.name",
		codec.AnthropicMessages: "tool_choice.name",
		codec.Gemini:            "toolConfig.functionCallingConfig.allowedFunctionNames.0",
	}
	for _, tt := range tests {
		for to, path := range paths {
			t.Run(tt.name+"/"+string(to), func(t *testing.T) {
				req := decode(body(tt.choice))
				out, err := codec.AppendRequest(nil, to, req, codec.EncodeOptions{})
				if err != nil {
					t.Fatal(err)
				}
				if got := gjson.GetBytes(out, path).String(); got != tt.want {
					t.Errorf("%s = %q, want %q", path, got, tt.want)
				}
			})
		}
	}

	// Two groups with the name and no namespace in the choice: which
	// tool is forced cannot be told.
	var req codec.Request
	err := codec.DecodeRequest(codec.OpenAIResponses, []byte(body(`{"type":"function","name":"spawn"}`)), &req)
	var e *codec.Error
	if !errors.As(err, &e) || e.Status != 400 || e.Param != "tool_choice.name" || !strings.Contains(e.Message, "tool_choice.namespace") {
		t.Fatalf("ambiguous choice: %v", err)
	}

	// Toward Responses the choice says its namespace only where the name
	// alone would not find it.
	for choice, want := range map[string]string{
		`{"type":"function","name":"wait"}`:                              `{"type":"function","name":"wait"}`,
		`{"type":"function","name":"spawn","namespace":"other"}`:         `{"type":"function","name":"spawn","namespace":"other"}`,
		`{"type":"function","name":"exec","namespace":"multi_agent_v1"}`: `{"type":"function","name":"exec","namespace":"multi_agent_v1"}`,
	} {
		out, err := codec.AppendRequest(nil, codec.OpenAIResponses, decode(body(choice)), codec.EncodeOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if got := gjson.GetBytes(out, "tool_choice").Raw; got != want {
			t.Errorf("responses tool_choice from %s = %s, want %s", choice, got, want)
		}
	}

	// Dropping the forced tool drops the choice with it.
	req3 := decode(body(`{"type":"function","name":"wait"}`))
	if !req3.Drop(codec.Capability{Kind: codec.CapTool, Tool: 3}) || req3.ToolChoice.Mode != codec.ToolChoiceUnset {
		t.Errorf("after dropping the forced tool: %+v", req3.ToolChoice)
	}
}
