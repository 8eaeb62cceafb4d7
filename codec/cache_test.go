package codec_test

import (
	"fmt"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/llmbridge/llmbridge/codec"
)

// TestCacheBreakpoints carries prompt-cache breakpoints between the
// protocols that have them (Anthropic's cache_control, Bedrock Converse's
// cachePoint), within their shared rules (at most four, the earliest of
// more left out; no lifetime longer than one before it in the prompt's
// order), and reports them dropped toward protocols and models without
// them.
func TestCacheBreakpoints(t *testing.T) {
	const claude = "us.anthropic.claude-sonnet-4-5-20250929-v1:0"
	tests := []struct {
		name       string
		from, to   codec.Protocol
		model      string
		target     codec.Target // what the model rules hand the encoder
		body       string
		want       map[string]string // gjson path in the encoded body: raw value
		absent     []string          // gjson paths that must not exist
		wantDrop   string
		wantNoDrop bool
	}{
		{name: "anthropic to converse", from: codec.AnthropicMessages, to: codec.Bedrock, model: claude,
			body: `{"model":"m","max_tokens":10,
				"tools":[{"name":"a","input_schema":{"type":"object"}},{"name":"b","input_schema":{"type":"object"},"cache_control":{"type":"ephemeral","ttl":"1h"}}],
				"system":[{"type":"text","text":"S1"},{"type":"text","text":"S2","cache_control":{"type":"ephemeral"}}],
				"messages":[{"role":"user","content":[{"type":"text","text":"hi","cache_control":{"type":"ephemeral","ttl":"5m"}}]}]}`,
			want: map[string]string{
				"toolConfig.tools.2.cachePoint":   `{"type":"default","ttl":"1h"}`,
				"system.2.cachePoint":             `{"type":"default"}`,
				"messages.0.content.1.cachePoint": `{"type":"default","ttl":"5m"}`,
			},
			wantNoDrop: true},
		{name: "converse to anthropic", from: codec.Bedrock, to: codec.AnthropicMessages, model: "claude-sonnet-4-5",
			body: `{"system":[{"text":"S"},{"cachePoint":{"type":"default"}}],
				"messages":[{"role":"user","content":[{"text":"hi"},{"cachePoint":{"type":"default","ttl":"5m"}}]}],
				"toolConfig":{"tools":[{"toolSpec":{"name":"a","inputSchema":{"json":{"type":"object"}}}},{"cachePoint":{"type":"default","ttl":"1h"}}]}}`,
			want: map[string]string{
				"system.0.cache_control":             `{"type":"ephemeral"}`,
				"messages.0.content.0.cache_control": `{"type":"ephemeral","ttl":"5m"}`,
				"tools.0.cache_control":              `{"type":"ephemeral","ttl":"1h"}`,
			},
			wantNoDrop: true},
		{name: "anthropic automatic caching to converse: a cachePoint after the last block", from: codec.AnthropicMessages, to: codec.Bedrock, model: claude,
			body: `{"model":"m","max_tokens":10,"cache_control":{"type":"ephemeral"},
				"messages":[{"role":"user","content":"one"},{"role":"assistant","content":"two"},{"role":"user","content":"three"}]}`,
			want:       map[string]string{"messages.2.content.1.cachePoint": `{"type":"default"}`},
			wantNoDrop: true},
		{name: "anthropic automatic caching to Bedrock InvokeModel: on the last block", from: codec.AnthropicMessages, to: codec.BedrockAnthropic, model: claude,
			body: `{"model":"m","max_tokens":10,"cache_control":{"type":"ephemeral","ttl":"5m"},
				"messages":[{"role":"user","content":"one"},{"role":"assistant","content":"two"},{"role":"user","content":[{"type":"text","text":"three"},{"type":"text","text":"four"}]}]}`,
			want:       map[string]string{"messages.2.content.1.cache_control": `{"type":"ephemeral","ttl":"5m"}`},
			absent:     []string{"cache_control", "messages.2.content.0.cache_control"},
			wantNoDrop: true},
		{name: "more than four: the earliest are left out", from: codec.Bedrock, to: codec.AnthropicMessages, model: "claude-sonnet-4-5",
			body: `{"system":[{"text":"S"},{"cachePoint":{"type":"default"}}],
				"messages":[{"role":"user","content":[{"text":"1"},{"cachePoint":{"type":"default"}},{"text":"2"},{"cachePoint":{"type":"default"}},
					{"text":"3"},{"cachePoint":{"type":"default"}},{"text":"4"},{"cachePoint":{"type":"default"}}]}],
				"toolConfig":{"tools":[{"toolSpec":{"name":"a","inputSchema":{"json":{"type":"object"}}}},{"cachePoint":{"type":"default"}}]}}`,
			want: map[string]string{
				"messages.0.content.0.cache_control": `{"type":"ephemeral"}`,
				"messages.0.content.3.cache_control": `{"type":"ephemeral"}`,
			},
			absent:   []string{"tools.0.cache_control", "system.0.cache_control", "system.cache_control"},
			wantDrop: "cache breakpoints beyond the upstream's four (the earliest)"},
		{name: "a longer lifetime after a shorter one is shortened", from: codec.AnthropicMessages, to: codec.Bedrock, model: claude,
			body: `{"model":"m","max_tokens":10,"system":[{"type":"text","text":"S","cache_control":{"type":"ephemeral","ttl":"5m"}}],
				"messages":[{"role":"user","content":[{"type":"text","text":"hi","cache_control":{"type":"ephemeral","ttl":"1h"}}]}]}`,
			want: map[string]string{
				"system.1.cachePoint":             `{"type":"default","ttl":"5m"}`,
				"messages.0.content.1.cachePoint": `{"type":"default","ttl":"5m"}`,
			},
			wantNoDrop: true},
		{name: "Claude before 4.5 on Bedrock: an hour becomes the default lifetime", from: codec.AnthropicMessages, to: codec.BedrockAnthropic,
			model: "anthropic.claude-3-7-sonnet-20250219-v1:0", target: codec.Target{Cache: codec.CacheTarget{FiveMinutesOnly: true}},
			body: `{"model":"m","max_tokens":10,"system":[{"type":"text","text":"S","cache_control":{"type":"ephemeral","ttl":"1h"}}],
				"messages":[{"role":"user","content":"hi"}]}`,
			want:     map[string]string{"system.0.cache_control": `{"type":"ephemeral"}`},
			wantDrop: `cache ttl "1h" (the model caches for five minutes on this upstream)`},
		{name: "a Converse model without prompt caching", from: codec.AnthropicMessages, to: codec.Bedrock, model: "meta.llama3-70b-instruct-v1:0",
			body:     `{"model":"m","max_tokens":10,"messages":[{"role":"user","content":[{"type":"text","text":"hi","cache_control":{"type":"ephemeral"}}]}]}`,
			absent:   []string{"messages.0.content.1"},
			wantDrop: "cache breakpoints (the model takes no cachePoint)"},
		{name: "Nova on Converse: no cachePoint after tools, five minutes only", from: codec.AnthropicMessages, to: codec.Bedrock, model: "us.amazon.nova-pro-v1:0",
			body: `{"model":"m","max_tokens":10,
				"tools":[{"name":"a","input_schema":{"type":"object"},"cache_control":{"type":"ephemeral"}}],
				"system":[{"type":"text","text":"S","cache_control":{"type":"ephemeral","ttl":"1h"}}],
				"messages":[{"role":"user","content":[{"type":"text","text":"hi","cache_control":{"type":"ephemeral"}}]}]}`,
			want: map[string]string{
				"system.1.cachePoint":             `{"type":"default"}`,
				"messages.0.content.1.cachePoint": `{"type":"default"}`,
			},
			absent:   []string{"toolConfig.tools.1"},
			wantDrop: "cache breakpoints after tools (the model takes none there)"},
		{name: "OpenAI breakpoints to anthropic: the implicit one becomes the automatic one", from: codec.OpenAIChat, to: codec.AnthropicMessages, model: "claude-sonnet-4-5",
			body: `{"model":"m","messages":[{"role":"system","content":[{"type":"text","text":"S","prompt_cache_breakpoint":{"mode":"explicit"}}]},
				{"role":"user","content":[{"type":"text","text":"hi","prompt_cache_breakpoint":{"mode":"explicit","ttl":"12h"}}]}]}`,
			want: map[string]string{
				"system.0.cache_control":             `{"type":"ephemeral"}`,
				"messages.0.content.0.cache_control": `{"type":"ephemeral"}`,
				"cache_control":                      `{"type":"ephemeral"}`,
			},
			wantNoDrop: true},
		{name: "OpenAI explicit mode to converse: only the client's breakpoints", from: codec.OpenAIResponses, to: codec.Bedrock, model: claude,
			body:       `{"model":"m","prompt_cache_options":{"mode":"explicit"},"input":[{"role":"user","content":[{"type":"input_text","text":"one","prompt_cache_breakpoint":{"mode":"explicit"}},{"type":"input_text","text":"two"}]}]}`,
			want:       map[string]string{"messages.0.content.1.cachePoint": `{"type":"default"}`},
			absent:     []string{"messages.0.content.3"},
			wantNoDrop: true},
		{name: "toward Chat Completions", from: codec.AnthropicMessages, to: codec.OpenAIChat, model: "gpt-5",
			body:     `{"model":"m","max_tokens":10,"messages":[{"role":"user","content":[{"type":"text","text":"hi","cache_control":{"type":"ephemeral"}}]}]}`,
			wantDrop: "cache breakpoints"},
		{name: "toward Gemini", from: codec.Bedrock, to: codec.Gemini, model: "gemini-2.5-flash",
			body:     `{"messages":[{"role":"user","content":[{"text":"hi"},{"cachePoint":{"type":"default"}}]}]}`,
			wantDrop: "cache breakpoints"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := new(codec.Request)
			if err := codec.DecodeRequest(tt.from, []byte(tt.body), req); err != nil {
				t.Fatalf("decode: %v", err)
			}
			if len(req.Dropped) > 0 {
				t.Errorf("decoding dropped %v: breakpoints are part of the canonical request", req.Dropped)
			}
			out, err := codec.AppendRequest(nil, tt.to, req, codec.EncodeOptions{Model: tt.model, Target: tt.target})
			if err != nil {
				t.Fatalf("encode: %v", err)
			}
			for path, raw := range tt.want {
				if got := gjson.GetBytes(out, path).Raw; got != raw {
					t.Errorf("%s = %s, want %s in\n%s", path, got, raw, out)
				}
			}
			for _, path := range tt.absent {
				if gjson.GetBytes(out, path).Exists() {
					t.Errorf("%s is set in\n%s", path, out)
				}
			}
			if n := strings.Count(string(out), "cache_control") + strings.Count(string(out), "cachePoint"); n > 4 {
				t.Errorf("%d breakpoints, more than four", n)
			}
			switch {
			case tt.wantNoDrop && len(req.Dropped) > 0:
				t.Errorf("dropped %v", req.Dropped)
			case tt.wantDrop != "" && !slices.Contains(req.Dropped, tt.wantDrop):
				t.Errorf("dropped %v, want %q", req.Dropped, tt.wantDrop)
			}
		})
	}
}

// TestCacheControlErrors holds the breakpoint objects to their protocols'
// grammar.
func TestCacheControlErrors(t *testing.T) {
	for _, c := range []struct {
		p          codec.Protocol
		body, want string
	}{
		{codec.AnthropicMessages, `{"model":"m","max_tokens":1,"messages":[{"role":"user","content":[{"type":"text","text":"x","cache_control":{"type":"persistent"}}]}]}`, "messages[0].content[0].cache_control.type"},
		{codec.AnthropicMessages, `{"model":"m","max_tokens":1,"messages":[{"role":"user","content":"x"}],"cache_control":{"type":"ephemeral","ttl":"2h"}}`, "cache_control.ttl"},
		{codec.AnthropicMessages, `{"model":"m","max_tokens":1,"tools":[{"name":"a","input_schema":{"type":"object"},"cache_control":"yes"}],"messages":[{"role":"user","content":"x"}]}`, "tools[0].cache_control"},
		{codec.Bedrock, `{"messages":[{"role":"user","content":[{"text":"x"},{"cachePoint":{"type":"default","ttl":"1d"}}]}]}`, "messages[0].content[1].cachePoint.ttl"},
		{codec.Bedrock, `{"messages":[{"role":"user","content":[{"text":"x"},{"cachePoint":{"type":"other"}}]}]}`, "messages[0].content[1].cachePoint.type"},
	} {
		err := codec.DecodeRequest(c.p, []byte(c.body), new(codec.Request))
		e, ok := err.(*codec.Error)
		if !ok || e.Status != 400 || e.Param != c.want {
			t.Errorf("%s %s: %v, want a 400 naming %s", c.p, c.body, err, c.want)
		}
	}
}

// TestPromptCacheKey carries OpenAI's prompt_cache_key and
// prompt_cache_retention between its two APIs, and reports them dropped
// toward Azure, OpenAI-compatible servers and other providers.
func TestPromptCacheKey(t *testing.T) {
	chat := `{"model":"m","messages":[{"role":"user","content":"hi"}],"prompt_cache_key":"session-7","prompt_cache_retention":"24h"}`
	responses := `{"model":"m","input":"hi","prompt_cache_key":"session-7","prompt_cache_retention":"24h"}`
	for _, c := range []struct {
		from    codec.Protocol
		body    string
		to      codec.Protocol
		opts    codec.EncodeOptions
		carried bool
	}{
		{codec.OpenAIChat, chat, codec.OpenAIResponses, codec.EncodeOptions{Model: "gpt-5"}, true},
		{codec.OpenAIResponses, responses, codec.OpenAIChat, codec.EncodeOptions{Model: "gpt-5"}, true},
		{codec.OpenAIResponses, responses, codec.OpenAIChat, codec.EncodeOptions{Model: "deepseek-chat", Target: codec.Target{Dialect: &codec.Dialect{Name: "deepseek"}}}, false},
		{codec.OpenAIChat, chat, codec.AzureOpenAIResponses, codec.EncodeOptions{Model: "gpt-5"}, false},
		{codec.OpenAIResponses, responses, codec.AzureOpenAI, codec.EncodeOptions{Model: "gpt-5"}, false},
		{codec.OpenAIChat, chat, codec.AnthropicMessages, codec.EncodeOptions{Model: "claude-sonnet-4-5"}, false},
		{codec.OpenAIChat, chat, codec.Bedrock, codec.EncodeOptions{Model: "us.anthropic.claude-sonnet-4-5-20250929-v1:0"}, false},
		{codec.OpenAIResponses, responses, codec.Gemini, codec.EncodeOptions{Model: "gemini-2.5-flash"}, false},
	} {
		req := new(codec.Request)
		if err := codec.DecodeRequest(c.from, []byte(c.body), req); err != nil {
			t.Fatal(err)
		}
		out, err := codec.AppendRequest(nil, c.to, req, c.opts)
		if err != nil {
			t.Fatalf("%s -> %s: %v", c.from, c.to, err)
		}
		key, retention := gjson.GetBytes(out, "prompt_cache_key").Str, gjson.GetBytes(out, "prompt_cache_retention").Str
		dropped := slices.Contains(req.Dropped, "prompt_cache_key") && slices.Contains(req.Dropped, "prompt_cache_retention")
		if c.carried && (key != "session-7" || retention != "24h" || dropped) || !c.carried && (key != "" || retention != "" || !dropped) {
			t.Errorf("%s -> %s (%+v): key %q, retention %q, dropped %v; want carried %v", c.from, c.to, c.opts.Target.Dialect, key, retention, req.Dropped, c.carried)
		}
		if !gjson.ValidBytes(out) {
			t.Errorf("%s -> %s: invalid JSON %s", c.from, c.to, out)
		}
	}
}

// agentChat is an agent's Chat Completions request: a system prompt, a
// tool, and a tool loop in its second turn.
const agentChat = `{"model":"m","user":"%s","messages":[
	{"role":"system","content":"You are a coding agent."},
	{"role":"user","content":"List the files."},
	{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"sh","arguments":"{\"cmd\":\"ls\"}"}}]},
	{"role":"tool","tool_call_id":"c1","content":"a.go b.go"},
	{"role":"assistant","content":"Two files."},
	{"role":"user","content":"Open a.go."}],
	"tools":[{"type":"function","function":{"name":"sh","parameters":{"type":"object"}}}]}`

// TestCachePolicy places breakpoints for a client whose protocol has none
// where Claude Code places its own (the last tool, the system prompt, the
// last message, and where the previous request ended), with the
// configured lifetime, toward Anthropic's and Bedrock's protocols; derives
// a stable prompt_cache_key toward OpenAI's; and asks nothing without
// Auto or for a client that places its own.
func TestCachePolicy(t *testing.T) {
	decode := func(p codec.Protocol, body string) *codec.Request {
		req := new(codec.Request)
		if err := codec.DecodeRequest(p, []byte(body), req); err != nil {
			t.Fatal(err)
		}
		return req
	}
	auto := codec.EncodeOptions{Model: "claude-sonnet-4-5", Cache: codec.CachePolicy{Breakpoints: true, Key: true}}

	out, err := codec.AppendRequest(nil, codec.AnthropicMessages, decode(codec.OpenAIChat, fmt.Sprintf(agentChat, "")), auto)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"tools.0.cache_control":              `{"type":"ephemeral"}`,
		"system.0.cache_control":             `{"type":"ephemeral"}`,
		"messages.2.content.0.cache_control": `{"type":"ephemeral"}`, // the tool result: where the previous request ended
		"messages.4.content.0.cache_control": `{"type":"ephemeral"}`, // the last message
	}
	for path, raw := range want {
		if got := gjson.GetBytes(out, path).Raw; got != raw {
			t.Errorf("%s = %s, want %s in\n%s", path, got, raw, out)
		}
	}
	if n := strings.Count(string(out), "cache_control"); n != 4 {
		t.Errorf("%d breakpoints, want 4:\n%s", n, out)
	}

	hour := codec.EncodeOptions{Model: "us.anthropic.claude-sonnet-4-5-20250929-v1:0", Cache: codec.CachePolicy{Breakpoints: true, TTL: codec.Cache1h}}
	out, err = codec.AppendRequest(nil, codec.Bedrock, decode(codec.Gemini, `{"systemInstruction":{"parts":[{"text":"S"}]},"contents":[{"role":"user","parts":[{"text":"hi"}]}]}`), hour)
	if err != nil {
		t.Fatal(err)
	}
	if got := gjson.GetBytes(out, "system.1.cachePoint").Raw; got != `{"type":"default","ttl":"1h"}` {
		t.Errorf("system cachePoint %s in %s", got, out)
	}
	if got := gjson.GetBytes(out, "messages.0.content.1.cachePoint").Raw; got != `{"type":"default","ttl":"1h"}` {
		t.Errorf("message cachePoint %s in %s", got, out)
	}

	// Without Auto, or toward a model without cache points, nothing.
	for _, c := range []struct {
		to   codec.Protocol
		opts codec.EncodeOptions
	}{
		{codec.AnthropicMessages, codec.EncodeOptions{Model: "claude-sonnet-4-5"}},
		{codec.Bedrock, codec.EncodeOptions{Model: "meta.llama3-70b-instruct-v1:0", Cache: codec.CachePolicy{Breakpoints: true, Key: true}}},
		{codec.OpenAIResponses, codec.EncodeOptions{Model: "gpt-5"}},
	} {
		req := decode(codec.OpenAIChat, fmt.Sprintf(agentChat, ""))
		out, err := codec.AppendRequest(nil, c.to, req, c.opts)
		if err != nil {
			t.Fatal(err)
		}
		if s := string(out); strings.Contains(s, "cache_control") || strings.Contains(s, "cachePoint") || strings.Contains(s, "prompt_cache_key") || len(req.Dropped) > 0 {
			t.Errorf("%s %+v: %s (dropped %v)", c.to, c.opts.Cache, s, req.Dropped)
		}
	}

	// Toward OpenAI: one key per conversation, the same on every turn.
	key := func(body string) string {
		out, err := codec.AppendRequest(nil, codec.OpenAIResponses, decode(codec.OpenAIChat, body), codec.EncodeOptions{Model: "gpt-5", Cache: codec.CachePolicy{Breakpoints: true, Key: true}})
		if err != nil {
			t.Fatal(err)
		}
		return gjson.GetBytes(out, "prompt_cache_key").Str
	}
	turn1 := key(`{"model":"m","messages":[{"role":"system","content":"You are a coding agent."},{"role":"user","content":"List the files."}],"tools":[{"type":"function","function":{"name":"sh","parameters":{"type":"object"}}}]}`)
	turn2 := key(fmt.Sprintf(agentChat, ""))
	other := key(`{"model":"m","messages":[{"role":"system","content":"You are a poet."},{"role":"user","content":"List the files."}]}`)
	user := key(fmt.Sprintf(agentChat, "session-1"))
	if !strings.HasPrefix(turn1, "llmbridge-") || len(turn1) != len("llmbridge-")+16 || turn1 != turn2 || turn1 == other || user == turn1 || user != key(fmt.Sprintf(agentChat, "session-1")) {
		t.Errorf("keys: turn 1 %q, turn 2 %q, another agent %q, a named user %q", turn1, turn2, other, user)
	}
}

// BenchmarkCachePolicy measures placing breakpoints for an agent-sized
// request toward Anthropic and deriving a cache key toward OpenAI, next
// to the same encodings without the policy.
func BenchmarkCachePolicy(b *testing.B) {
	var body strings.Builder
	body.WriteString(`{"model":"m","messages":[{"role":"system","content":"` + strings.Repeat("You are a coding agent. ", 800) + `"}`)
	for i := 0; i < 40; i++ {
		fmt.Fprintf(&body, `,{"role":"user","content":"Step %d: run the tests."},{"role":"assistant","content":"Done with step %d."}`, i, i)
	}
	body.WriteString(`,{"role":"user","content":"Next."}],"tools":[`)
	for i := 0; i < 20; i++ {
		if i > 0 {
			body.WriteString(",")
		}
		fmt.Fprintf(&body, `{"type":"function","function":{"name":"tool%d","parameters":{"type":"object"}}}`, i)
	}
	body.WriteString(`]}`)
	var req codec.Request
	if err := codec.DecodeRequest(codec.OpenAIChat, []byte(body.String()), &req); err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name string
		to   codec.Protocol
		auto bool
	}{{"anthropic/off", codec.AnthropicMessages, false}, {"anthropic/auto", codec.AnthropicMessages, true},
		{"responses/off", codec.OpenAIResponses, false}, {"responses/auto", codec.OpenAIResponses, true}} {
		b.Run(c.name, func(b *testing.B) {
			opts := codec.EncodeOptions{Model: "m", Cache: codec.CachePolicy{Breakpoints: c.auto, Key: c.auto}}
			buf := make([]byte, 0, 64<<10)
			b.ReportAllocs()
			for b.Loop() {
				req.Dropped = req.Dropped[:0]
				if _, err := codec.AppendRequest(buf[:0], c.to, &req, opts); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestPromptCacheKeyEscapedText derives the key of conversations whose
// system prompt holds escapes: the same on every turn and for a client of
// another protocol writing the same JSON, different for another prompt,
// and without unescaping the prompt (which would allocate its text).
func TestPromptCacheKeyEscapedText(t *testing.T) {
	prompt := strings.Repeat(`You are a \"coding\" agent.\n\tRun tools; don't guess. `, 40)
	decode := func(p codec.Protocol, body string) *codec.Request {
		req := new(codec.Request)
		if err := codec.DecodeRequest(p, []byte(body), req); err != nil {
			t.Fatal(err)
		}
		return req
	}
	chat := func(system, user string) *codec.Request {
		return decode(codec.OpenAIChat, `{"model":"m","messages":[{"role":"system","content":"`+system+`"},{"role":"user","content":"`+user+`"}]}`)
	}
	key := func(req *codec.Request) string { return string(codec.AppendPromptCacheKey(nil, req)) }

	turn1, turn2 := chat(prompt, "List the files."), chat(prompt, `Now \"fix\" them.`)
	anthropic := decode(codec.AnthropicMessages, `{"model":"m","max_tokens":10,"system":"`+prompt+`","messages":[{"role":"user","content":"hi"}]}`)
	other := chat(strings.Replace(prompt, "coding", "poetry", 1), "List the files.")
	// The first derivation of a freshly decoded request: unescaping the
	// prompt once would also make every later one free.
	buf := make([]byte, 0, 64)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	buf = codec.AppendPromptCacheKey(buf[:0], turn1)
	runtime.ReadMemStats(&after)
	if n := after.TotalAlloc - before.TotalAlloc; n >= uint64(len(prompt)/2) {
		t.Errorf("deriving the key allocated %d bytes: the escaped system prompt (%d bytes) was unescaped", n, len(prompt))
	}
	if k1, k2, ka, ko := key(turn1), key(turn2), key(anthropic), key(other); k1 != k2 || k1 != ka || k1 == ko {
		t.Errorf("keys: turn 1 %s, turn 2 %s, anthropic client %s, another prompt %s", k1, k2, ka, ko)
	}
	if got, want := turn1.System[0].TextValue(), strings.NewReplacer(`\"`, `"`, `\n`, "\n", `\t`, "\t").Replace(prompt); got != want {
		t.Errorf("system text after the key: %q, want %q", got, want)
	}
}
