package caddytest

import (
	"fmt"
	"hash/fnv"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/llmbridge/llmbridge/codec"
)

// cacheSession is how many turns TestCacheShare's agent session has, and
// cacheFromTurn the first turn whose cache share it judges (the first
// turns write the cache the later ones read).
const (
	cacheSession  = 6
	cacheFromTurn = 3
)

// TestCacheShare replays an agent session (a long system prompt, eight
// tools, a tool loop that grows by a call and its result every turn) from
// a client of every protocol through llmbridge to every upstream family,
// and measures with a prompt-cache simulator (cacheSim) the share of each
// upstream request's input that a provider would read from its cache.
// Natively (the client of the upstream's own protocol, passed through, an
// Anthropic or Converse client placing breakpoints where Claude Code
// places them) is the reference: from the third turn on, every client
// must get at least 90% of that share through llmbridge.
func TestCacheShare(t *testing.T) {
	env := setup(t)
	clients := []proto{anthropicMsgs, openaiResponses, openaiChat, gemini, bedrockConverse}
	upstreams := []proto{anthropicMsgs, bedrockConverse, openaiResponses, openaiChat, gemini}
	var table strings.Builder
	table.WriteString("| client \\ upstream |")
	for _, up := range upstreams {
		table.WriteString(" " + string(up) + " |")
	}
	table.WriteString("\n|---|" + strings.Repeat("---|", len(upstreams)) + "\n")
	shares := map[[2]proto]float64{}
	for _, up := range upstreams {
		for _, cp := range clients {
			shares[[2]proto{cp, up}] = runCacheSession(t, env, cp, up)
		}
	}
	for _, cp := range clients {
		table.WriteString("| " + string(cp) + " |")
		for _, up := range upstreams {
			native := shares[[2]proto{up, up}]
			got := shares[[2]proto{cp, up}]
			fmt.Fprintf(&table, " %.0f%% |", 100*got)
			if got < 0.9*native {
				t.Errorf("%s -> %s: %.0f%% of the input read from the cache from turn %d on, natively %.0f%%: less than 90%% of it",
					cp, up, 100*got, cacheFromTurn, 100*native)
			}
		}
		table.WriteString("\n")
	}
	t.Logf("share of input tokens read from the cache, turns %d-%d (the diagonal is native):\n%s", cacheFromTurn, cacheSession, table.String())
}

// runCacheSession sends the session's turns from a client of cp through
// llmbridge to up and returns the share of the input of turns
// cacheFromTurn on that the simulator reads from its cache.
func runCacheSession(t *testing.T, env *testEnv, cp, up proto) float64 {
	t.Helper()
	m := env.mocks[up]
	sim := newCacheSim(up)
	model := aliasFor(up)
	var read, total int
	for turn := 1; turn <= cacheSession; turn++ {
		m.reset()
		req := agentSession(turn)
		if cp == anthropicMsgs || cp == bedrockConverse {
			placeClaudeCodeBreakpoints(req)
		}
		if cp == openaiResponses {
			req.Cache.Key = "codex-session-1" // Codex sends its conversation id
		}
		// The client's body names the routed alias; a Converse client's
		// model is in its path, and its body is written for Claude.
		encodeModel := model
		if cp == bedrockConverse {
			encodeModel = bedrockConverse.defaultModel()
		}
		body, err := codec.AppendRequest(nil, codec.Protocol(cp), req, codec.EncodeOptions{Model: encodeModel})
		if err != nil {
			t.Fatalf("%s turn %d: encoding the client's request: %v", cp, turn, err)
		}
		res := do(t, newClientRequest(t, http.MethodPost, env.routed[up], cp, model, body))
		if res.Status != http.StatusOK {
			t.Fatalf("%s -> %s turn %d: status %d: %s", cp, up, turn, res.Status, res.Body)
		}
		rec, _ := m.lastRequest()
		if rec == nil {
			t.Fatalf("%s -> %s turn %d: no upstream request", cp, up, turn)
		}
		r, n := sim.request(rec.Body)
		if turn >= cacheFromTurn {
			read, total = read+r, total+n
		}
	}
	if total == 0 {
		t.Fatalf("%s -> %s: no input measured", cp, up)
	}
	return float64(read) / float64(total)
}

// agentSession is turn n of an agent session as a canonical request: a 12
// KB system prompt, eight tools, a task, and n-1 steps of the agent's tool
// loop (a call and its result), ending with the user's side.
func agentSession(n int) *codec.Request {
	req := &codec.Request{
		System:    []codec.Part{{Type: codec.PartText, Text: strings.Repeat("You are a careful coding agent working in a large repository. ", 200)}},
		MaxTokens: codec.OptInt{Value: 1024, Set: true},
	}
	for i := range 8 {
		req.Tools = append(req.Tools, codec.Tool{Name: fmt.Sprintf("tool_%d", i),
			Description: strings.Repeat(fmt.Sprintf("Tool %d does one thing well. ", i), 12),
			Parameters:  `{"type":"object","properties":{"path":{"type":"string","description":"A file path."}},"required":["path"]}`})
	}
	req.Messages = append(req.Messages, codec.Message{Role: codec.RoleUser, Parts: []codec.Part{{Type: codec.PartText, Text: "Fix the failing test in the parser package."}}})
	for i := 1; i < n; i++ {
		id := fmt.Sprintf("call_%d", i)
		name := fmt.Sprintf("tool_%d", i%8)
		req.Messages = append(req.Messages,
			codec.Message{Role: codec.RoleAssistant, Parts: []codec.Part{
				{Type: codec.PartText, Text: fmt.Sprintf("Step %d: reading the next file.", i)},
				{Type: codec.PartToolCall, ToolCallID: id, ToolName: name, Arguments: fmt.Sprintf(`{"path":"pkg/file_%d.go"}`, i)}}},
			codec.Message{Role: codec.RoleUser, Parts: []codec.Part{
				{Type: codec.PartToolResult, ToolCallID: id, ToolName: name, Content: []codec.Part{{Type: codec.PartText, Text: strings.Repeat(fmt.Sprintf("line %d of file %d\n", i, i), 60)}}}}})
	}
	return req
}

// placeClaudeCodeBreakpoints marks req's breakpoints as Claude Code places
// its own: after the last tool, the system prompt, the last message, and
// the last message of the previous request.
func placeClaudeCodeBreakpoints(req *codec.Request) {
	req.Tools[len(req.Tools)-1].Cache = codec.CacheDefault
	req.System[len(req.System)-1].Cache = codec.CacheDefault
	last := len(req.Messages) - 1
	lastPart := func(i int) *codec.Part { return &req.Messages[i].Parts[len(req.Messages[i].Parts)-1] }
	lastPart(last).Cache = codec.CacheDefault
	if last >= 2 {
		lastPart(last - 2).Cache = codec.CacheDefault
	}
}

// cacheSim simulates a provider's prompt cache, as the providers document
// it. Anthropic's protocols and Converse cache explicitly: a breakpoint
// writes the prefix up to its block, and a request reads the longest
// cached prefix that ends at a breakpoint or up to twenty blocks before
// it. OpenAI and Gemini cache automatically: every prefix of 1024 tokens
// and more, in steps of 128, is kept and read. The prompt's order is
// tools, system, messages, whatever the JSON's. Tokens are counted as four
// bytes. Entries do not expire within a session.
type cacheSim struct {
	explicit bool
	up       proto
	entries  map[uint64]bool
}

func newCacheSim(up proto) *cacheSim {
	return &cacheSim{up: up, explicit: up.isAnthropic() || up == bedrockConverse, entries: map[uint64]bool{}}
}

// Simulated cache granularity, in bytes (four per token).
const (
	cacheMinBytes  = 1024 * 4
	cacheStepBytes = 128 * 4
	cacheLookback  = 20
)

// request measures one upstream request body: the tokens read from the
// cache and the input tokens in all; it then caches what the request
// writes.
func (c *cacheSim) request(body []byte) (read, total int) {
	blocks, breaks := c.blocks(body)
	if !c.explicit {
		prompt := strings.Join(blocks, "\x00")
		best := 0
		for end := cacheMinBytes; end <= len(prompt); end += cacheStepBytes {
			h := hashBytes([]byte(prompt[:end]))
			if c.entries[h] {
				best = end
			}
			c.entries[h] = true
		}
		return best / 4, len(prompt) / 4
	}
	h := fnv.New64a()
	prefix := make([]uint64, len(blocks))
	size := make([]int, len(blocks))
	n := 0
	for i, b := range blocks {
		h.Write([]byte(b))
		h.Write([]byte{0})
		prefix[i] = h.Sum64()
		n += len(b)
		size[i] = n
	}
	best := 0
	for _, bp := range breaks {
		for j := bp; j >= 0 && j >= bp-cacheLookback; j-- {
			if c.entries[prefix[j]] {
				best = max(best, size[j])
				break
			}
		}
	}
	for _, bp := range breaks {
		if size[bp] >= cacheMinBytes {
			c.entries[prefix[bp]] = true
		}
	}
	return best / 4, n / 4
}

// cacheControl matches a breakpoint's member, which is not part of the
// cached content.
var cacheControl = regexp.MustCompile(`,?"cache_control":\{[^}]*\}`)

// blocks returns the blocks of a request body in prompt order (tools,
// system, messages, whatever the JSON's order; a message's role starts its
// first block) and, for the explicit protocols, the indexes of the blocks
// a breakpoint follows. Anthropic's and Converse's messages are split into
// their content blocks, where breakpoints go; the others' messages are a
// block each.
func (c *cacheSim) blocks(body []byte) (blocks []string, breaks []int) {
	root := gjson.ParseBytes(body)
	add := func(raw, prefix string) {
		if c.up == bedrockConverse && strings.HasPrefix(raw, `{"cachePoint"`) {
			if len(blocks) > 0 {
				breaks = append(breaks, len(blocks)-1)
			}
			return
		}
		if c.explicit && cacheControl.MatchString(raw) {
			breaks = append(breaks, len(blocks))
		}
		blocks = append(blocks, prefix+cacheControl.ReplaceAllString(raw, ""))
	}
	tools, system, messages := "tools", "system", "messages"
	switch c.up {
	case bedrockConverse:
		tools = "toolConfig.tools"
	case openaiResponses:
		system, messages = "instructions", "input"
	case gemini:
		system, messages = "systemInstruction", "contents"
	}
	root.Get(tools).ForEach(func(_, v gjson.Result) bool { add(v.Raw, "tool:"); return true })
	if s := root.Get(system); s.IsArray() {
		s.ForEach(func(_, v gjson.Result) bool { add(v.Raw, "system:"); return true })
	} else if s.Exists() {
		add(s.Raw, "system:")
	}
	root.Get(messages).ForEach(func(_, m gjson.Result) bool {
		if !c.explicit {
			add(m.Raw, "")
			return true
		}
		role := m.Get("role").Str + ":"
		if b := m.Get("content"); b.Type == gjson.String {
			add(b.Raw, role)
		} else {
			b.ForEach(func(_, v gjson.Result) bool { add(v.Raw, role); role = ""; return true })
		}
		return true
	})
	if c.explicit && root.Get("cache_control").Exists() && len(blocks) > 0 {
		breaks = append(breaks, len(blocks)-1)
	}
	return blocks, breaks
}

// hashBytes is the FNV-1a hash of b.
func hashBytes(b []byte) uint64 {
	h := fnv.New64a()
	h.Write(b)
	return h.Sum64()
}
