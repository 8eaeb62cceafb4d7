package chat

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/codectest"
	"github.com/llmbridge/llmbridge/codec/internal/jsonx"
	"github.com/tidwall/gjson"
)

// dialectResponsesBody is a Responses request with a developer system
// prompt, a function_call/function_call_output loop whose call carries
// unsigned reasoning (a reasoning item with a summary and no
// encrypted_content), and a developer message after it.
const dialectResponsesBody = `{"model":"gpt-5","input":[
	{"role":"developer","content":"Be brief."},
	{"role":"user","content":"Weather in Paris?"},
	{"type":"reasoning","id":"rs_1","summary":[{"type":"summary_text","text":"Need the tool."}]},
	{"type":"function_call","call_id":"call_abc123","name":"get_weather","arguments":"{\"city\":\"Paris\"}"},
	{"type":"function_call_output","call_id":"call_abc123","output":"sunny"},
	{"role":"developer","content":"Answer in French."}],
	"max_output_tokens":300,"stream":true}`

// dialectAnthropicBody is a Messages request with thinking on and two
// turns that called a tool: the first finished with a text answer, the
// second is the current tool loop. Its thinking is signed, so no Chat
// server can take it.
const dialectAnthropicBody = `{"model":"claude-sonnet-4-5","max_tokens":2048,"stream":true,
	"system":"Use the tools.",
	"thinking":{"type":"enabled","budget_tokens":1024},
	"tools":[{"name":"get_weather","input_schema":{"type":"object"}}],
	"messages":[
	{"role":"user","content":"Weather in Paris?"},
	{"role":"assistant","content":[{"type":"thinking","thinking":"I should call the tool.","signature":"sigA"},
		{"type":"tool_use","id":"toolu_01A09q90qw90lq917835lq9","name":"get_weather","input":{"city":"Paris"}}]},
	{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_01A09q90qw90lq917835lq9","content":"sunny"}]},
	{"role":"assistant","content":[{"type":"text","text":"Sunny."}]},
	{"role":"user","content":"And Rome?"},
	{"role":"assistant","content":[{"type":"thinking","thinking":"Again.","signature":"sigB"},
		{"type":"tool_use","id":"toolu_01B","name":"get_weather","input":{"city":"Rome"}},
		{"type":"tool_use","id":"D681PevKs","name":"get_weather","input":{"city":"Milan"}}]},
	{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_01B","content":"rain"},
		{"type":"tool_result","tool_use_id":"D681PevKs","content":"fog"}]}]}`

// dialectTurnsBody is a Chat request with a turn without tool calls and a
// user message right after a tool message.
const dialectTurnsBody = `{"model":"m","messages":[
	{"role":"user","content":"Hi"},
	{"role":"assistant","content":"Hello."},
	{"role":"user","content":"Run it"},
	{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"f","arguments":"{}"}}]},
	{"role":"tool","tool_call_id":"call_1","content":"ok"},
	{"role":"user","content":"Stop."}]}`

// dialectImageResultBody is an Anthropic request whose tool result holds an
// image and whose user message has text beside the result.
const dialectImageResultBody = `{"model":"m","max_tokens":100,
	"tools":[{"name":"shot","input_schema":{"type":"object"}}],
	"messages":[
	{"role":"user","content":"Look"},
	{"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"shot","input":{}}]},
	{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":[{"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBORw0KGgo="}}]},
		{"type":"text","text":"also check this"}]}]}`

// dialectBody is a Chat request whose history holds a call with an id
// Mistral issued and reasoning_content (from a Chat upstream).
const dialectBody = `{"model":"m","messages":[
	{"role":"system","content":"S"},
	{"role":"user","content":"Q"},
	{"role":"assistant","content":null,"reasoning_content":"Think.","tool_calls":[{"id":"D681PevKs","type":"function","function":{"name":"f","arguments":"{}"}}]},
	{"role":"tool","tool_call_id":"D681PevKs","content":"ok"},
	{"role":"assistant","content":"Done.","reasoning_content":"Plain."},
	{"role":"developer","content":"D"},
	{"role":"user","content":"Again"}],
	"max_completion_tokens":50}`

// dialectCheck is one path of an encoded body and its raw JSON, or ""
// when the path must be absent.
type dialectCheck struct{ path, raw string }

// dialectEncode decodes body of protocol p and encodes it as a Chat request
// with dialect d.
func dialectEncode(t *testing.T, p codec.Protocol, body string, d *codec.Dialect) ([]byte, []string) {
	t.Helper()
	var req codec.Request
	if err := codec.DecodeRequest(p, []byte(body), &req); err != nil {
		t.Fatalf("decode: %v", err)
	}
	out, err := codec.AppendRequest(nil, codec.OpenAIChat, &req, codec.EncodeOptions{Target: codec.Target{Dialect: d}})
	if err != nil {
		t.Fatalf("encode: %v", err)
	}
	if !jsonx.Valid(string(out)) {
		t.Fatalf("invalid JSON: %s", out)
	}
	return out, req.Dropped
}

func dialectVerify(t *testing.T, out []byte, checks []dialectCheck) {
	t.Helper()
	for _, c := range checks {
		v := gjson.GetBytes(out, c.path)
		if c.raw == "" {
			if v.Exists() {
				t.Errorf("%s = %s, want it absent", c.path, v.Raw)
			}
		} else if v.Raw != c.raw {
			t.Errorf("%s = %s, want %s", c.path, v.Raw, c.raw)
		}
	}
}

func TestChatAppendRequestDialect(t *testing.T) {
	const (
		responses = codec.OpenAIResponses
		anthropic = codec.AnthropicMessages
		chat      = codec.OpenAIChat
	)
	// The ids of the Anthropic history toward Mistral.
	idA, idB := alnum9ID("toolu_01A09q90qw90lq917835lq9"), alnum9ID("toolu_01B")
	anthropicDropped := []string{"messages[1].content[0] (reasoning)", "messages[5].content[0] (reasoning)"}
	tests := []struct {
		name    string
		p       codec.Protocol
		body    string
		d       codec.Dialect
		base    []dialectCheck // without the dialect
		with    []dialectCheck // with it
		dropped []string       // with it (without it: baseDropped)
		// baseDropped is Dropped without the dialect.
		baseDropped []string
	}{
		{
			name: "NoDeveloperRole: the developer system prompt and a later developer message", p: responses, body: dialectResponsesBody,
			d:    codec.Dialect{NoDeveloperRole: true},
			base: []dialectCheck{{"messages.0.role", `"developer"`}, {"messages.4.role", `"developer"`}},
			with: []dialectCheck{{"messages.0.role", `"system"`}, {"messages.0.content", `"Be brief."`}, {"messages.1.role", `"user"`},
				{"messages.2.role", `"assistant"`}, {"messages.3.role", `"tool"`}, {"messages.4.role", `"system"`}, {"messages.4.content", `"Answer in French."`}},
		},
		{
			name: "NoDeveloperRole: system stays system", p: chat, body: dialectBody,
			d:    codec.Dialect{NoDeveloperRole: true},
			base: []dialectCheck{{"messages.0.role", `"system"`}, {"messages.5.role", `"developer"`}},
			with: []dialectCheck{{"messages.0.role", `"system"`}, {"messages.5.role", `"system"`}},
		},
		{
			name: "MaxTokens", p: responses, body: dialectResponsesBody,
			d:    codec.Dialect{MaxTokens: true},
			base: []dialectCheck{{"max_completion_tokens", "300"}, {"max_tokens", ""}},
			with: []dialectCheck{{"max_tokens", "300"}, {"max_completion_tokens", ""}},
		},
		{
			name: "MaxTokens: no limit writes none", p: anthropic, body: strings.Replace(dialectAnthropicBody, `"max_tokens":2048,`, ``, 1),
			d:       codec.Dialect{MaxTokens: true},
			base:    []dialectCheck{{"max_completion_tokens", ""}, {"max_tokens", ""}},
			with:    []dialectCheck{{"max_completion_tokens", ""}, {"max_tokens", ""}},
			dropped: anthropicDropped, baseDropped: anthropicDropped,
		},
		{
			name: "ReasoningField reasoning", p: responses, body: dialectResponsesBody,
			d:    codec.Dialect{ReasoningField: "reasoning"},
			base: []dialectCheck{{"messages.2.reasoning_content", `"Need the tool."`}, {"messages.2.reasoning", ""}},
			with: []dialectCheck{{"messages.2.reasoning", `"Need the tool."`}, {"messages.2.reasoning_content", ""}},
		},
		{
			name: "ReasoningField reasoning_content is the default", p: chat, body: dialectBody,
			d:    codec.Dialect{ReasoningField: "reasoning_content"},
			base: []dialectCheck{{"messages.2.reasoning_content", `"Think."`}, {"messages.4.reasoning_content", `"Plain."`}},
			with: []dialectCheck{{"messages.2.reasoning_content", `"Think."`}, {"messages.4.reasoning_content", `"Plain."`}},
		},
		{
			name: "ReasoningField none drops unsigned reasoning", p: chat, body: dialectBody,
			d:    codec.Dialect{ReasoningField: "none"},
			base: []dialectCheck{{"messages.2.reasoning_content", `"Think."`}, {"messages.4.reasoning_content", `"Plain."`}},
			with: []dialectCheck{{"messages.2.reasoning_content", ""}, {"messages.2.reasoning", ""}, {"messages.4.reasoning_content", ""},
				{"messages.2.content", "null"}, {"messages.2.tool_calls.0.id", `"D681PevKs"`}, {"messages.4.content", `"Done."`}},
			dropped: []string{"messages[1].content[0] (reasoning)", "messages[3].content[0] (reasoning)"},
		},
		{
			name: "ReasoningField none lists signed and unsigned reasoning in order", p: responses,
			body: strings.Replace(dialectResponsesBody, `{"type":"reasoning"`,
				`{"type":"reasoning","id":"rs_0","encrypted_content":"gAAAA","summary":[]},{"type":"reasoning"`, 1),
			d:           codec.Dialect{ReasoningField: "none"},
			base:        []dialectCheck{{"messages.2.reasoning_content", `"Need the tool."`}},
			with:        []dialectCheck{{"messages.2.reasoning_content", ""}, {"messages.2.tool_calls.0.id", `"call_abc123"`}},
			dropped:     []string{"messages[1].content[0] (reasoning)", "messages[1].content[1] (reasoning)"},
			baseDropped: []string{"messages[1].content[0] (reasoning)"},
		},
		{
			name: "ReasoningInToolLoop: every assistant message of a turn that called tools, in every turn", p: anthropic, body: dialectAnthropicBody,
			d: codec.Dialect{ReasoningInToolLoop: true},
			base: []dialectCheck{{"messages.2.reasoning_content", ""}, {"messages.4.reasoning_content", ""},
				{"messages.6.reasoning_content", ""}},
			with: []dialectCheck{
				{"messages.2.role", `"assistant"`}, {"messages.2.reasoning_content", `""`}, {"messages.2.tool_calls.#", "1"},
				{"messages.4.role", `"assistant"`}, {"messages.4.content", `"Sunny."`}, {"messages.4.reasoning_content", `""`},
				{"messages.6.role", `"assistant"`}, {"messages.6.reasoning_content", `""`}, {"messages.6.tool_calls.#", "2"},
				{"messages.1.reasoning_content", ""}, {"messages.3.reasoning_content", ""}, {"messages.7.reasoning_content", ""},
			},
			dropped: anthropicDropped, baseDropped: anthropicDropped,
		},
		{
			name: "ReasoningInToolLoop: a turn without tool calls gets no reasoning field", p: chat, body: dialectTurnsBody,
			d: codec.Dialect{ReasoningInToolLoop: true},
			with: []dialectCheck{{"messages.1.content", `"Hello."`}, {"messages.1.reasoning_content", ""},
				{"messages.3.reasoning_content", `""`}, {"messages.5.reasoning_content", ""}},
		},
		{
			name: "AssistantAfterTool: no user message right after a tool message", p: chat, body: dialectTurnsBody,
			d:    codec.Dialect{AssistantAfterTool: true},
			base: []dialectCheck{{"messages.4.role", `"tool"`}, {"messages.5.role", `"user"`}, {"messages.6", ""}},
			with: []dialectCheck{{"messages.4.role", `"tool"`}, {"messages.5.role", `"assistant"`}, {"messages.5.content", `"Tool results received."`},
				{"messages.6.role", `"user"`}, {"messages.6.content", `"Stop."`}},
		},
		{
			name: "AssistantAfterTool: a tool result's images and the user's text", p: anthropic, body: dialectImageResultBody,
			d:    codec.Dialect{AssistantAfterTool: true},
			base: []dialectCheck{{"messages.2.role", `"tool"`}, {"messages.3.role", `"user"`}},
			with: []dialectCheck{{"messages.2.role", `"tool"`}, {"messages.3.role", `"assistant"`}, {"messages.4.role", `"user"`},
				{"messages.4.content.0.type", `"image_url"`}, {"messages.4.content.1.text", `"also check this"`}},
		},
		{
			name: "ReasoningInToolLoop: a call's own reasoning is kept", p: responses, body: dialectResponsesBody,
			d:    codec.Dialect{ReasoningInToolLoop: true},
			base: []dialectCheck{{"messages.2.reasoning_content", `"Need the tool."`}},
			with: []dialectCheck{{"messages.2.reasoning_content", `"Need the tool."`}},
		},
		{
			name: "ReasoningInToolLoop with ReasoningField reasoning", p: anthropic, body: dialectAnthropicBody,
			d:    codec.Dialect{ReasoningInToolLoop: true, ReasoningField: "reasoning"},
			base: []dialectCheck{{"messages.6.reasoning", ""}},
			with: []dialectCheck{{"messages.2.reasoning", `""`}, {"messages.6.reasoning", `""`}, {"messages.6.reasoning_content", ""},
				{"messages.4.reasoning", `""`}, {"messages.4.reasoning_content", ""}},
			dropped: anthropicDropped, baseDropped: anthropicDropped,
		},
		{
			name: "ReasoningInToolLoop with ReasoningField none writes nothing", p: anthropic, body: dialectAnthropicBody,
			d:       codec.Dialect{ReasoningInToolLoop: true, ReasoningField: "none"},
			with:    []dialectCheck{{"messages.2.reasoning_content", ""}, {"messages.6.reasoning_content", ""}, {"messages.6.reasoning", ""}},
			dropped: anthropicDropped, baseDropped: anthropicDropped,
		},
		{
			name: "NoStreamOptions", p: responses, body: dialectResponsesBody,
			d:    codec.Dialect{NoStreamOptions: true},
			base: []dialectCheck{{"stream", "true"}, {"stream_options", `{"include_usage":true}`}},
			with: []dialectCheck{{"stream", "true"}, {"stream_options", ""}},
		},
		{
			name: "NoStreamOptions: not streamed", p: chat, body: dialectBody,
			d:    codec.Dialect{NoStreamOptions: true},
			base: []dialectCheck{{"stream", ""}, {"stream_options", ""}},
			with: []dialectCheck{{"stream", ""}, {"stream_options", ""}},
		},
		{
			name: "IDAlnum9: a call and its result map to one id", p: responses, body: dialectResponsesBody,
			d:    codec.Dialect{ToolCallIDs: codec.IDAlnum9},
			base: []dialectCheck{{"messages.2.tool_calls.0.id", `"call_abc123"`}, {"messages.3.tool_call_id", `"call_abc123"`}},
			with: []dialectCheck{{"messages.2.tool_calls.0.id", `"` + alnum9ID("call_abc123") + `"`},
				{"messages.3.tool_call_id", `"` + alnum9ID("call_abc123") + `"`}},
		},
		{
			name: "IDAlnum9: Mistral's own ids pass, others map", p: anthropic, body: dialectAnthropicBody,
			d: codec.Dialect{ToolCallIDs: codec.IDAlnum9},
			base: []dialectCheck{{"messages.2.tool_calls.0.id", `"toolu_01A09q90qw90lq917835lq9"`}, {"messages.6.tool_calls.1.id", `"D681PevKs"`},
				{"messages.8.tool_call_id", `"D681PevKs"`}},
			with: []dialectCheck{
				{"messages.2.tool_calls.0.id", `"` + idA + `"`}, {"messages.3.tool_call_id", `"` + idA + `"`},
				{"messages.6.tool_calls.0.id", `"` + idB + `"`}, {"messages.7.tool_call_id", `"` + idB + `"`},
				{"messages.6.tool_calls.1.id", `"D681PevKs"`}, {"messages.8.tool_call_id", `"D681PevKs"`},
			},
			dropped: anthropicDropped, baseDropped: anthropicDropped,
		},
		{
			name: "DeepSeek", p: anthropic, body: dialectAnthropicBody,
			d: codec.Dialect{Name: "deepseek", NoDeveloperRole: true, MaxTokens: true, ReasoningInToolLoop: true},
			with: []dialectCheck{{"max_tokens", "2048"}, {"max_completion_tokens", ""}, {"messages.0.role", `"system"`},
				{"messages.2.reasoning_content", `""`}, {"messages.6.reasoning_content", `""`},
				{"messages.6.tool_calls.0.id", `"toolu_01B"`}, {"stream_options", `{"include_usage":true}`}},
			dropped: anthropicDropped, baseDropped: anthropicDropped,
		},
		{
			name: "Mistral", p: responses, body: dialectResponsesBody,
			d: codec.Dialect{Name: "mistral", MaxTokens: true, ToolCallIDs: codec.IDAlnum9},
			with: []dialectCheck{{"max_tokens", "300"}, {"max_completion_tokens", ""}, {"messages.0.role", `"developer"`},
				{"messages.2.tool_calls.0.id", `"` + alnum9ID("call_abc123") + `"`}, {"messages.3.tool_call_id", `"` + alnum9ID("call_abc123") + `"`}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base, baseDropped := dialectEncode(t, tt.p, tt.body, nil)
			dialectVerify(t, base, tt.base)
			if !equalDropped(baseDropped, tt.baseDropped) {
				t.Errorf("without the dialect: Dropped = %q, want %q", baseDropped, tt.baseDropped)
			}
			d := tt.d
			out, dropped := dialectEncode(t, tt.p, tt.body, &d)
			dialectVerify(t, out, tt.with)
			if !equalDropped(dropped, tt.dropped) {
				t.Errorf("Dropped = %q, want %q", dropped, tt.dropped)
			}
			// What the dialect writes is still a Chat request (llmbridge's
			// own Chat decoder knows no reasoning field but reasoning_content).
			if _, err := decodeRequest(t, string(out)); err != nil && d.ReasoningField != "reasoning" {
				t.Errorf("the encoded body does not decode: %v\n%s", err, out)
			}
		})
	}
}

// equalDropped compares two Dropped lists, nil and empty alike.
func equalDropped(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestChatAppendRequestZeroDialect: a zero Dialect writes byte for byte what
// no dialect (OpenAI) writes, for the tests' bodies and every request body
// under testdata.
func TestChatAppendRequestZeroDialect(t *testing.T) {
	type body struct {
		p    codec.Protocol
		name string
		text string
	}
	bodies := []body{{codec.OpenAIResponses, "responses", dialectResponsesBody}, {codec.AnthropicMessages, "anthropic", dialectAnthropicBody},
		{codec.OpenAIChat, "chat", dialectBody}}
	for _, p := range []codec.Protocol{codec.OpenAIChat, codec.OpenAIResponses, codec.AnthropicMessages, codec.VertexAnthropic, codec.Gemini, codec.Vertex} {
		files, _ := filepath.Glob(filepath.Join(codectest.Testdata, string(p), "request_*.json"))
		files = append(files, filepath.Join(codectest.Testdata, "conversation", string(p)+".json"))
		for _, f := range files {
			text, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			bodies = append(bodies, body{p, f, string(text)})
		}
	}
	n := 0
	for _, b := range bodies {
		encode := func(d *codec.Dialect) ([]byte, []string, error) {
			var req codec.Request
			if err := codec.DecodeRequest(b.p, []byte(b.text), &req); err != nil {
				return nil, nil, err
			}
			if req.Model == "" {
				req.Model = "m"
			}
			out, err := codec.AppendRequest(nil, codec.OpenAIChat, &req, codec.EncodeOptions{Target: codec.Target{Dialect: d}})
			return out, req.Dropped, err
		}
		want, wantDropped, werr := encode(nil)
		got, gotDropped, gerr := encode(&codec.Dialect{Name: "zero"})
		if (werr == nil) != (gerr == nil) || string(got) != string(want) || !equalDropped(gotDropped, wantDropped) {
			t.Errorf("%s: zero dialect wrote\n%s (%v, %q)\nno dialect wrote\n%s (%v, %q)", b.name, got, gerr, gotDropped, want, werr, wantDropped)
		}
		if werr == nil {
			n++
		}
	}
	if n < 10 {
		t.Errorf("only %d bodies encoded", n)
	}
}

// alnum9ID returns id in IDAlnum9 form.
func alnum9ID(id string) string { return string(appendAlnum9ID(nil, id)) }

func TestAlnum9ID(t *testing.T) {
	tests := []struct {
		id, want string
	}{
		// Nine ASCII letters and digits pass unchanged.
		{"D681PevKs", "D681PevKs"},
		{"abcdefghi", "abcdefghi"},
		{"ABCDEFGHI", "ABCDEFGHI"},
		{"012345678", "012345678"},
		// Anything else is hashed. The values are pinned: a call and its
		// result can be sent by different versions of llmbridge.
		{"", "WAUb4Z3fa"},
		{"call_abc123", "im76aSAUK"},
		{"call_abc124", "QOMmsDnno"},
		{"toolu_01A09q90qw90lq917835lq9", "jaX3cuByj"},
		{"abcdefgh", "eS7ATKAf2"},   // eight
		{"abcdefghij", "2u5eEWlzF"}, // ten
		{"abcd_fghi", "L6WPXohWH"},  // nine, one not alphanumeric
		{"abcd-fghi", "5KRPHRRnZ"},
		{"abcdéfgh", "utgbIdV3H"},     // nine bytes, not ASCII
		{"abcdefgh\x00", "BmqtnKsCs"}, // nine bytes with NUL
	}
	for _, tt := range tests {
		got := alnum9ID(tt.id)
		if got != tt.want {
			t.Errorf("alnum9ID(%q) = %q, want %q", tt.id, got, tt.want)
		}
		if !isAlnum9(got) {
			t.Errorf("alnum9ID(%q) = %q, not nine alphanumerics", tt.id, got)
		}
		if again := alnum9ID(got); again != got {
			t.Errorf("alnum9ID(%q) = %q: a mapped id must pass unchanged", got, again)
		}
	}
	// As a JSON string, in either format.
	if got := string(appendToolCallID(nil, `call_"x"`, codec.IDAny)); got != `"call_\"x\""` {
		t.Errorf("IDAny: %s", got)
	}
	if got := string(appendToolCallID(nil, "call_abc123", codec.IDAlnum9)); got != `"im76aSAUK"` {
		t.Errorf("IDAlnum9: %s", got)
	}
}

// TestAlnum9IDSpread: 100,000 random ids of the shapes providers issue
// map to well-formed, distinct values, the same on every call.
func TestAlnum9IDSpread(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	const alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_-"
	prefixes := []string{"call_", "toolu_01", "fc_", "call_00_", ""}
	seen := make(map[string]string, 100000)
	var buf []byte
	for i := 0; i < 100000; i++ {
		buf = append(buf[:0], prefixes[i%len(prefixes)]...)
		for n := 8 + r.IntN(24); n > 0; n-- {
			buf = append(buf, alphabet[r.IntN(len(alphabet))])
		}
		id := string(buf)
		got := alnum9ID(id)
		if !isAlnum9(got) {
			t.Fatalf("alnum9ID(%q) = %q", id, got)
		}
		if alnum9ID(id) != got {
			t.Fatalf("alnum9ID(%q) is not deterministic", id)
		}
		if prev, ok := seen[got]; ok && prev != id {
			t.Fatalf("%q and %q both map to %q", prev, id, got)
		}
		seen[got] = id
	}
	// Ids that differ in one character spread over the digits.
	a, b := alnum9ID("call_000000000000000000000000"), alnum9ID("call_000000000000000000000001")
	same := 0
	for i := range a {
		if a[i] == b[i] {
			same++
		}
	}
	if same > 3 {
		t.Errorf("neighbouring ids map to %q and %q", a, b)
	}
}

func TestAlnum9IDAllocations(t *testing.T) {
	dst := make([]byte, 0, 64)
	for _, id := range []string{"D681PevKs", "call_abc123"} {
		if n := testing.AllocsPerRun(100, func() { dst = appendToolCallID(dst[:0], id, codec.IDAlnum9) }); n != 0 {
			t.Errorf("%s: %v allocations", id, n)
		}
	}
}

// TestChatDialectMistralRoundTrip: an Anthropic client's tool loop toward
// Mistral. The history's ids become Mistral's form, a call and its result
// the same one; the ids Mistral issues in its answer reach the client as
// they are, and come back from it unchanged.
func TestChatDialectMistralRoundTrip(t *testing.T) {
	mistral := &codec.Dialect{Name: "mistral", MaxTokens: true, ToolCallIDs: codec.IDAlnum9}
	out, _ := dialectEncode(t, codec.AnthropicMessages, dialectAnthropicBody, mistral)
	msgs := gjson.GetBytes(out, "messages").Array()
	calls := map[string]bool{}
	results := 0
	for _, m := range msgs {
		for _, c := range m.Get("tool_calls").Array() {
			id := c.Get("id").Str
			if !isAlnum9(id) {
				t.Errorf("tool call id %q", id)
			}
			calls[id] = true
		}
		if m.Get("role").Str == "tool" {
			id := m.Get("tool_call_id").Str
			if !calls[id] {
				t.Errorf("tool_call_id %q answers no call of %v", id, calls)
			}
			results++
		}
	}
	if len(calls) != 3 || results != 3 {
		t.Fatalf("%d calls, %d results: %s", len(calls), results, out)
	}

	// Mistral answers with a call of its own; the Anthropic client gets its
	// id unchanged, and sends it back with the result.
	var resp codec.Response
	if err := codec.DecodeResponse(codec.OpenAIChat, []byte(`{"id":"x","object":"chat.completion","created":1,"model":"mistral-large-latest",
		"choices":[{"index":0,"message":{"role":"assistant","content":"","tool_calls":[{"id":"Xq3vB9tLm","type":"function",
		"function":{"name":"get_weather","arguments":"{\"city\":\"Oslo\"}"}}]},"finish_reason":"tool_calls"}],
		"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}`), &resp); err != nil {
		t.Fatal(err)
	}
	client, err := codec.AppendResponse(nil, codec.AnthropicMessages, &resp)
	if err != nil {
		t.Fatal(err)
	}
	id := gjson.GetBytes(client, `content.#(type=="tool_use").id`).Str
	if id != "Xq3vB9tLm" {
		t.Fatalf("the client got tool_use id %q: %s", id, client)
	}
	next := strings.Replace(dialectAnthropicBody, `"content":"fog"}]}]}`, `"content":"fog"}]},
		{"role":"assistant","content":[{"type":"tool_use","id":"`+id+`","name":"get_weather","input":{"city":"Oslo"}}]},
		{"role":"user","content":[{"type":"tool_result","tool_use_id":"`+id+`","content":"snow"}]}]}`, 1)
	out, _ = dialectEncode(t, codec.AnthropicMessages, next, mistral)
	dialectVerify(t, out, []dialectCheck{{"messages.9.tool_calls.0.id", `"Xq3vB9tLm"`}, {"messages.10.tool_call_id", `"Xq3vB9tLm"`},
		{"messages.2.tool_calls.0.id", `"` + alnum9ID("toolu_01A09q90qw90lq917835lq9") + `"`}})
}

// TestChatDialectAllocations: encoding a tool loop into a reused buffer
// allocates nothing, with a dialect or without (what is dropped is listed
// with a new path string, so the bodies here have nothing to drop).
func TestChatDialectAllocations(t *testing.T) {
	all := &codec.Dialect{NoDeveloperRole: true, MaxTokens: true, ReasoningField: "reasoning", ReasoningInToolLoop: true,
		NoStreamOptions: true, ToolCallIDs: codec.IDAlnum9}
	for _, b := range []struct {
		p    codec.Protocol
		body string
	}{{codec.OpenAIResponses, dialectResponsesBody}, {codec.OpenAIChat, dialectBody},
		{codec.OpenAIChat, strings.Replace(dialectBody, `"reasoning_content":"Think.",`, ``, 1)}} {
		var req codec.Request
		if err := codec.DecodeRequest(b.p, []byte(b.body), &req); err != nil {
			t.Fatal(err)
		}
		var allocs [2]float64
		for k, d := range []*codec.Dialect{nil, all} {
			opts := codec.EncodeOptions{Target: codec.Target{Dialect: d}}
			dst, err := codec.AppendRequest(nil, codec.OpenAIChat, &req, opts)
			if err != nil {
				t.Fatal(err)
			}
			allocs[k] = testing.AllocsPerRun(100, func() { dst, _ = codec.AppendRequest(dst[:0], codec.OpenAIChat, &req, opts) })
		}
		if allocs != [2]float64{} {
			t.Errorf("%s: %v allocations without the dialect, %v with it", b.p, allocs[0], allocs[1])
		}
	}
}
