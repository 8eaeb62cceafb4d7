package caddytest

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/llmbridge/llmbridge/codec"
)

// cacheTurns is how many turns TestCacheShare's sessions have, and
// cacheFromTurn the first turn whose cache share it judges (the first
// turns write the cache the later ones read).
const (
	cacheTurns    = 6
	cacheFromTurn = 3
)

// agentShape is the shape of an agent CLI's session, as the CLIs send
// them (../shared/notes/clients.md): the system prompt's blocks, whether
// it comes as developer messages, how many tools and how large, and how
// large each tool result is.
type agentShape struct {
	name        string
	system      []int // the system prompt's blocks, in bytes
	developer   bool  // the system prompt as developer messages (Codex)
	tools       int
	toolBytes   int
	resultBytes int
}

// The shapes of the sessions of the CLIs each client protocol stands for.
var (
	claudeCodeShape = agentShape{name: "Claude Code", system: []int{60, 120, 28 << 10}, tools: 12, toolBytes: 1400, resultBytes: 2500}
	codexShape      = agentShape{name: "Codex", system: []int{14 << 10, 2 << 10}, developer: true, tools: 9, toolBytes: 900, resultBytes: 3000}
	geminiCLIShape  = agentShape{name: "Gemini CLI", system: []int{20 << 10}, tools: 16, toolBytes: 700, resultBytes: 2000}
	qwenCodeShape   = agentShape{name: "Qwen Code", system: []int{16 << 10}, tools: 14, toolBytes: 800, resultBytes: 2000}
	converseShape   = agentShape{name: "a Converse agent", system: []int{8 << 10}, tools: 6, toolBytes: 600, resultBytes: 1500}
)

// shapeOf is the session shape of a client of protocol p: Claude Code's
// for Anthropic's protocols (it speaks each), Codex's for Responses,
// Gemini CLI's for Gemini, Qwen Code's for Chat.
func shapeOf(p proto) agentShape {
	switch {
	case p.isAnthropic():
		return claudeCodeShape
	case p == openaiResponses:
		return codexShape
	case p == openaiChat:
		return qwenCodeShape
	case p == bedrockConverse:
		return converseShape
	}
	return geminiCLIShape
}

// turn is turn n of a session of shape s as a canonical request: its
// system prompt and tools, a task, and n-1 steps of the agent's tool loop
// (a call and its result), ending with the user's side.
func (s agentShape) turn(n int) *codec.Request {
	req := &codec.Request{MaxTokens: codec.OptInt{Value: 1024, Set: true}}
	for i, size := range s.system {
		text := filler(fmt.Sprintf("System block %d of %s: be careful and precise. ", i, s.name), size)
		if s.developer {
			req.Messages = append(req.Messages, codec.Message{Role: codec.RoleDeveloper, Parts: []codec.Part{{Type: codec.PartText, Text: text}}})
		} else {
			req.System = append(req.System, codec.Part{Type: codec.PartText, Text: text})
		}
	}
	for i := range s.tools {
		req.Tools = append(req.Tools, codec.Tool{Name: fmt.Sprintf("tool_%d", i),
			Description: filler(fmt.Sprintf("Tool %d does one thing well. ", i), s.toolBytes),
			Parameters:  `{"type":"object","properties":{"path":{"type":"string","description":"A file path."}},"required":["path"]}`})
	}
	req.Messages = append(req.Messages, codec.Message{Role: codec.RoleUser, Parts: []codec.Part{{Type: codec.PartText, Text: "Fix the failing test in the parser package."}}})
	for i := 1; i < n; i++ {
		id := fmt.Sprintf("call_%d", i)
		name := fmt.Sprintf("tool_%d", i%s.tools)
		req.Messages = append(req.Messages,
			codec.Message{Role: codec.RoleAssistant, Parts: []codec.Part{
				{Type: codec.PartText, Text: fmt.Sprintf("Step %d: reading the next file.", i)},
				{Type: codec.PartToolCall, ToolCallID: id, ToolName: name, Arguments: fmt.Sprintf(`{"path":"pkg/file_%d.go"}`, i)}}},
			codec.Message{Role: codec.RoleUser, Parts: []codec.Part{
				{Type: codec.PartToolResult, ToolCallID: id, ToolName: name, Content: []codec.Part{{Type: codec.PartText, Text: filler(fmt.Sprintf("line of file %d\n", i), s.resultBytes)}}}}})
	}
	return req
}

// filler repeats unit to about size bytes.
func filler(unit string, size int) string {
	return strings.Repeat(unit, max(1, size/len(unit)))
}

// addNativeHints adds what a client of protocol p asks of the prompt cache
// itself (a breakpoint already set keeps its lifetime): breakpoints where Claude Code places them (the last two blocks
// of the system prompt, the last message and the one where the previous
// request ended) for Anthropic's protocols and Converse; Codex's
// conversation id as prompt_cache_key for Responses; nothing for Chat and
// Gemini, whose providers cache by themselves.
func addNativeHints(p proto, req *codec.Request) {
	switch {
	case p.isAnthropic() || p == bedrockConverse:
		var system []*codec.Part
		for i := range req.System {
			system = append(system, &req.System[i])
		}
		for i := range req.Messages {
			if m := &req.Messages[i]; m.Role == codec.RoleDeveloper || m.Role == codec.RoleSystem {
				system = append(system, &m.Parts[len(m.Parts)-1])
			}
		}
		for _, part := range system[max(0, len(system)-2):] {
			if part.Cache == codec.CacheNone {
				part.Cache = codec.CacheDefault
			}
		}
		lastPart := func(i int) *codec.Part { return &req.Messages[i].Parts[len(req.Messages[i].Parts)-1] }
		last := len(req.Messages) - 1
		lastPart(last).Cache = codec.CacheDefault
		if prev := last - 2; prev >= 0 && req.Messages[prev].Role == codec.RoleUser {
			lastPart(prev).Cache = codec.CacheDefault
		}
	case p == openaiResponses:
		req.Cache.Key = "codex-session-1"
	}
}

// TestCacheShare replays agent sessions shaped like the CLIs' (Claude
// Code, Codex, Gemini CLI, Qwen Code, a Converse agent) from a client of
// every protocol through llmbridge to every upstream family that caches,
// whose mocks implement prompt caching as the providers document it
// (cache_mock_test.go), and measures the share of input tokens read from
// the cache as the client's own usage reports it (which must equal what
// the mock counted, in the client protocol's meaning). The reference is
// the same session sent natively (by a client of the upstream's own
// protocol, with that protocol's own cache hints, passed through): from
// the third turn on every client must get at least 90% of it.
func TestCacheShare(t *testing.T) {
	env := setup(t)
	protos := []proto{anthropicMsgs, vertexAnthropic, bedrockAnthropic, bedrockConverse, openaiResponses, openaiChat, gemini}
	var table strings.Builder
	table.WriteString("| client (session) \\ upstream |")
	for _, up := range protos {
		table.WriteString(" " + string(up) + " |")
	}
	table.WriteString("\n|---|" + strings.Repeat("---|", len(protos)) + "\n")
	for _, cp := range protos {
		shape := shapeOf(cp)
		fmt.Fprintf(&table, "| %s (%s) |", cp, shape.name)
		for _, up := range protos {
			got := runCacheSession(t, env, shape, cp, up)
			native := got
			if cp != up {
				native = runCacheSession(t, env, shape, up, up)
			}
			fmt.Fprintf(&table, " %.0f%% (%.0f%%) |", 100*got, 100*native)
			if got < 0.9*native {
				t.Errorf("%s session, %s -> %s: %.0f%% of the input read from the cache from turn %d on, natively %.0f%%: less than 90%% of it",
					shape.name, cp, up, 100*got, cacheFromTurn, 100*native)
			}
		}
		table.WriteString("\n")
	}
	t.Logf("share of input tokens read from the cache, turns %d-%d, through llmbridge (natively):\n%s", cacheFromTurn, cacheTurns, table.String())
}

// runCacheSession sends the turns of a session of shape from a client of
// cp through llmbridge to up, whose mock caches prompts, and returns the
// share of the input of turns cacheFromTurn on that the client's usage
// says was read from the cache.
func runCacheSession(t *testing.T, env *testEnv, shape agentShape, cp, up proto) float64 {
	t.Helper()
	m := env.mocks[up]
	m.reset()
	m.simulateCache()
	defer m.reset()
	var read, total int64
	for turn := 1; turn <= cacheTurns; turn++ {
		rec, r, n := sendCacheTurn(t, env, shape.turn(turn), cp, up, "")
		if turn >= cacheFromTurn {
			read, total = read+r, total+n
		}
		if rec.Cache.Total == 0 {
			t.Fatalf("%s -> %s turn %d: the mock measured no input", cp, up, turn)
		}
	}
	if v := m.takeViolations(); len(v) > 0 {
		t.Errorf("%s -> %s: the upstream refused requests: %v", cp, up, v)
	}
	return float64(read) / float64(total)
}

// sendCacheTurn sends req, with the native hints of a client of cp, from
// that client through llmbridge to up (at site, or the routed site when
// ""), and returns what the mock received and the cache reads and input
// the client's answer reports, after checking them against the mock's
// count.
func sendCacheTurn(t *testing.T, env *testEnv, req *codec.Request, cp, up proto, site string) (*recordedRequest, int64, int64) {
	t.Helper()
	addNativeHints(cp, req)
	model := aliasFor(up)
	if site == "" {
		site = env.routed[up]
	}
	// The client's body names the routed alias; a Converse client's
	// model is in its path, and its body is written for Claude.
	encodeModel := model
	if cp == bedrockConverse {
		encodeModel = bedrockConverse.defaultModel()
	}
	body, err := codec.AppendRequest(nil, codec.Protocol(cp), req, codec.EncodeOptions{Model: encodeModel})
	if err != nil {
		t.Fatalf("%s: encoding the client's request: %v", cp, err)
	}
	m := env.mocks[up]
	res := do(t, newClientRequest(t, http.MethodPost, site, cp, model, body))
	if res.Status != http.StatusOK {
		t.Fatalf("%s -> %s: status %d: %s", cp, up, res.Status, res.Body)
	}
	rec, _ := m.lastRequest()
	if rec == nil {
		t.Fatalf("%s -> %s: no upstream request", cp, up)
	}
	read, written, total := clientCacheUsage(cp, res.Body)
	want := rec.Cache
	if !cp.reportsCacheWrites() || !up.reportsCacheWrites() {
		want.Written = 0
	}
	if read != int64(want.Read) || written != int64(want.Written) || total != int64(want.Total) {
		t.Errorf("%s -> %s: the client's usage says %d read from the cache, %d written, %d input; the upstream counted %+v\n%s",
			cp, up, read, written, total, want, res.Body)
	}
	return rec, read, total
}

// reportsCacheWrites reports whether p's usage counts the tokens written
// to the prompt cache: Anthropic's cache_creation_input_tokens, Converse's
// cacheWriteInputTokens.
func (p proto) reportsCacheWrites() bool { return p.isAnthropic() || p == bedrockConverse }

// clientCacheUsage reads the cache reads and writes and the whole input a
// client of p is told of, in tokens: Anthropic's and Converse's input
// counts exclude the cached tokens, OpenAI's and Gemini's include them.
func clientCacheUsage(p proto, body []byte) (read, written, total int64) {
	root := gjson.ParseBytes(body)
	switch {
	case p.isAnthropic():
		u := root.Get("usage")
		read, written = u.Get("cache_read_input_tokens").Int(), u.Get("cache_creation_input_tokens").Int()
		return read, written, u.Get("input_tokens").Int() + read + written
	case p == bedrockConverse:
		u := root.Get("usage")
		read, written = u.Get("cacheReadInputTokens").Int(), u.Get("cacheWriteInputTokens").Int()
		return read, written, u.Get("inputTokens").Int() + read + written
	case p == openaiChat:
		return root.Get("usage.prompt_tokens_details.cached_tokens").Int(), 0, root.Get("usage.prompt_tokens").Int()
	case p == openaiResponses:
		return root.Get("usage.input_tokens_details.cached_tokens").Int(), 0, root.Get("usage.input_tokens").Int()
	}
	return root.Get("usageMetadata.cachedContentTokenCount").Int(), 0, root.Get("usageMetadata.promptTokenCount").Int()
}

// TestCacheLifetime pauses a session for six minutes: a prefix cached for
// an hour is still read, one cached for five minutes is not. Claude Sonnet
// 4 has the hour on Anthropic's API but not on Bedrock, whose mock
// refuses a "1h" breakpoint for it: there llmbridge writes the default
// lifetime (translated, and in the bodies of Anthropic and Converse clients
// passed through), and the pause loses the cache.
func TestCacheLifetime(t *testing.T) {
	env := setup(t)
	for _, c := range []struct {
		client, up proto
		ttl        codec.CacheTTL
		wantRead   bool
	}{
		{anthropicMsgs, anthropicMsgs, codec.Cache1h, true},
		{anthropicMsgs, anthropicMsgs, codec.CacheDefault, false},
		{anthropicMsgs, bedrockConverse, codec.Cache1h, false},
		{anthropicMsgs, bedrockAnthropic, codec.Cache1h, false},
		{bedrockConverse, bedrockConverse, codec.Cache1h, false},
	} {
		t.Run(fmt.Sprintf("%s->%s ttl %v", c.client, c.up, c.ttl), func(t *testing.T) {
			m := env.mocks[c.up]
			m.reset()
			sim := m.simulateCache()
			defer m.reset()
			var read, total int64
			for turn := 1; turn <= 3; turn++ {
				if turn == 3 {
					sim.advance(6 * time.Minute)
				}
				req := claudeCodeShape.turn(turn)
				for i := range req.System {
					req.System[i].Cache = c.ttl
				}
				_, read, total = sendCacheTurn(t, env, req, c.client, c.up, "")
			}
			if v := m.takeViolations(); len(v) > 0 {
				t.Fatalf("the upstream refused requests: %v", v)
			}
			if got := read > total/2; got != c.wantRead {
				t.Errorf("after the pause %d of %d input tokens were read from the cache; want the system prompt read: %v", read, total, c.wantRead)
			}
		})
	}
}

// TestCacheSimInvalidation holds the mocks' cache to what invalidates a
// prefix: a change of the tools loses everything after them, a change of
// the system prompt keeps the tools' prefix.
func TestCacheSimInvalidation(t *testing.T) {
	sim := newCacheSim(anthropicMsgs)
	tools := `"tools":[{"name":"t","description":"` + strings.Repeat("d", 8000) + `","input_schema":{"type":"object"},"cache_control":{"type":"ephemeral"}}]`
	body := func(tools, system string) []byte {
		return []byte(`{"model":"claude-sonnet-4-5","max_tokens":10,` + tools + `,"system":[{"type":"text","text":"` + system + `","cache_control":{"type":"ephemeral"}}],"messages":[{"role":"user","content":"hi"}]}`)
	}
	system := strings.Repeat("s", 8000)
	if u := sim.request("claude-sonnet-4-5", body(tools, system)); u.Read != 0 || u.Written == 0 {
		t.Fatalf("first request %+v: want a write and no read", u)
	}
	if u := sim.request("claude-sonnet-4-5", body(tools, system)); u.Read < u.Total*9/10 {
		t.Errorf("the same request again %+v: want the prefix read", u)
	}
	if u := sim.request("claude-sonnet-4-5", body(tools, strings.Repeat("S", 12000))); u.Read == 0 || u.Read > u.Total/2 {
		t.Errorf("the system prompt changed %+v: want only the tools read", u)
	}
	if u := sim.request("claude-sonnet-4-5", body(strings.Replace(tools, `"t"`, `"u"`, 1), system)); u.Read != 0 {
		t.Errorf("the tools changed %+v: want nothing read", u)
	}
	if u := sim.request("claude-opus-4-5", body(`"tools":[]`, strings.Repeat("x", 3000))); u.Written != 0 {
		t.Errorf("a prefix below the model's minimum %+v: want nothing written", u)
	}
}

// TestCacheAutomaticBreakpoint sends Anthropic's automatic breakpoint (a
// top-level cache_control, passed through) and OpenAI's implicit one (a
// Chat client's explicit breakpoint in the default mode, translated) to
// Bedrock's InvokeModel, which refuses the top-level form: it arrives on
// the conversation's last block.
func TestCacheAutomaticBreakpoint(t *testing.T) {
	env := setup(t)
	model := aliasFor(bedrockAnthropic)
	for _, c := range []struct {
		client proto
		body   string
	}{
		{anthropicMsgs, `{"model":"` + model + `","max_tokens":16,"cache_control":{"type":"ephemeral"},"messages":[{"role":"user","content":"hi"},{"role":"assistant","content":"yo"},{"role":"user","content":"again"}]}`},
		{openaiChat, `{"model":"` + model + `","messages":[{"role":"system","content":[{"type":"text","text":"Be brief.","prompt_cache_breakpoint":{"mode":"explicit"}}]},{"role":"user","content":"hi"},{"role":"assistant","content":"yo"},{"role":"user","content":"again"}]}`},
	} {
		t.Run(string(c.client), func(t *testing.T) {
			m := env.mocks[bedrockAnthropic]
			m.reset()
			res := do(t, newClientRequest(t, http.MethodPost, env.routed[bedrockAnthropic], c.client, model, []byte(c.body)))
			if res.Status != http.StatusOK {
				t.Fatalf("status %d: %s", res.Status, res.Body)
			}
			rec, _ := m.lastRequest()
			up := gjson.ParseBytes(rec.Body)
			last := up.Get("messages.2.content.0.cache_control")
			if up.Get("cache_control").Exists() || last.Get("type").Str != "ephemeral" {
				t.Errorf("want the automatic breakpoint on the last block, got %s", rec.Body)
			}
			if v := m.takeViolations(); len(v) > 0 {
				t.Errorf("the upstream refused the request: %v", v)
			}
		})
	}
}
