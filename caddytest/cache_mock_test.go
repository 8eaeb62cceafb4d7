package caddytest

import (
	"bytes"
	"fmt"
	"hash/fnv"
	"strings"
	"sync"
	"time"

	"github.com/tidwall/gjson"
)

// The mocks' prompt cache, as the providers document it.
//
// Anthropic's protocols (also on Vertex and Bedrock InvokeModel) and
// Converse cache explicitly: a breakpoint (cache_control, cachePoint)
// writes the prompt's prefix up to its block, if that prefix has at least
// the model's minimum of tokens, for its lifetime (five minutes, or an
// hour); a request reads the longest live prefix that ends at one of its
// breakpoints or up to twenty blocks before it, and a read renews the
// entry's lifetime. The tokens written are those from the end of what was
// read to the last breakpoint written (cache_creation_input_tokens). At
// most four breakpoints, none asking for a longer lifetime than one before
// it in the prompt's order (tools, system, messages); Bedrock offers the
// hour only to Claude 4.5 models and later, and Nova takes no cachePoint
// after tools.
//
// OpenAI and Gemini cache by themselves: every prefix of at least the
// model's minimum (1,024 tokens), in steps of 128 tokens, is kept for five
// minutes and read by the next request that repeats it; they report reads
// only.
//
// The prompt's order is tools, system, messages, whatever the JSON's.
// Tokens are counted as four bytes of the body's JSON without the
// breakpoints themselves.

// Simulated cache granularity.
const (
	cacheStepTokens = 128
	cacheLookback   = 20
	cacheShortTTL   = 5 * time.Minute
)

// cacheSim is one mock's prompt cache. Its clock starts at the wall
// clock's and moves only when a test advances it.
type cacheSim struct {
	up       proto
	explicit bool

	mu      sync.Mutex
	now     time.Time
	entries map[uint64]cacheEntry
}

// cacheEntry is a cached prefix: until when it lives, and for how long a
// read renews it.
type cacheEntry struct {
	expires time.Time
	ttl     time.Duration
}

// cacheUse is what one request read from and wrote to the cache, and its
// input in all, in tokens.
type cacheUse struct {
	Read, Written, Total int
}

func newCacheSim(up proto) *cacheSim {
	return &cacheSim{up: up, explicit: up.isAnthropic() || up == bedrockConverse, now: time.Now(), entries: map[uint64]cacheEntry{}}
}

// advance moves the cache's clock on by d.
func (c *cacheSim) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// request serves one request body of model through the cache: what it
// reads and writes.
func (c *cacheSim) request(model string, body []byte) cacheUse {
	c.mu.Lock()
	defer c.mu.Unlock()
	minBytes := 4 * cacheMinTokens(c.up, model)
	blocks, breaks := c.blocks(body)
	if !c.explicit {
		prompt := strings.Join(blocks, "\x00")
		best := 0
		for end := minBytes; end <= len(prompt); end += 4 * cacheStepTokens {
			h := hashBytes([]byte(prompt[:end]))
			if e, ok := c.entries[h]; ok && c.now.Before(e.expires) {
				best = end
			}
			c.entries[h] = cacheEntry{expires: c.now.Add(cacheShortTTL), ttl: cacheShortTTL}
		}
		return cacheUse{Read: best / 4, Total: len(prompt) / 4}
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
		for j := bp.block; j >= 0 && j >= bp.block-cacheLookback; j-- {
			if e, ok := c.entries[prefix[j]]; ok && c.now.Before(e.expires) {
				best = max(best, size[j])
				e.expires = c.now.Add(e.ttl)
				c.entries[prefix[j]] = e
				break
			}
		}
	}
	written := 0
	for _, bp := range breaks {
		if size[bp.block] < minBytes {
			continue
		}
		if e, ok := c.entries[prefix[bp.block]]; ok && c.now.Before(e.expires) {
			continue
		}
		c.entries[prefix[bp.block]] = cacheEntry{expires: c.now.Add(bp.ttl), ttl: bp.ttl}
		written = max(written, size[bp.block])
	}
	return cacheUse{Read: best / 4, Written: max(0, written-best) / 4, Total: n / 4}
}

// cacheMinTokens is the shortest prefix model caches on up, as the
// providers document it: Claude Opus 4.5 to 4.7 and Haiku 4.5 4,096
// tokens, Haiku 3 and 3.5 2,048, other Claude models 1,024; Nova 1,000;
// Gemini 2.5 Pro 2,048; OpenAI's and other Gemini models 1,024.
func cacheMinTokens(up proto, model string) int {
	switch {
	case strings.Contains(model, "claude-opus-4-5"), strings.Contains(model, "claude-opus-4-6"),
		strings.Contains(model, "claude-opus-4-7"), strings.Contains(model, "claude-haiku-4-5"):
		return 4096
	case strings.Contains(model, "claude-3-haiku"), strings.Contains(model, "claude-3-5-haiku"):
		return 2048
	case strings.Contains(model, "amazon.nova"):
		return 1000
	case strings.Contains(model, "gemini-2.5-pro"):
		return 2048
	}
	return 1024
}

// cacheBreak is a breakpoint: the block it follows and the lifetime it
// asks for.
type cacheBreak struct {
	block int
	ttl   time.Duration
}

// breakTTL is the lifetime a breakpoint object asks for.
func breakTTL(obj string) time.Duration {
	if gjson.Get(obj, "ttl").Str == "1h" {
		return time.Hour
	}
	return cacheShortTTL
}

// blocks returns the blocks of a request body in prompt order (tools,
// system, messages, whatever the JSON's order; a message's role starts its
// first block) and, for the explicit protocols, its breakpoints in prompt
// order. Anthropic's and Converse's messages are split into their content
// blocks, where breakpoints go; the others' messages are a block each.
func (c *cacheSim) blocks(body []byte) (blocks []string, breaks []cacheBreak) {
	root := gjson.ParseBytes(body)
	add := func(raw, prefix string) {
		if c.up == bedrockConverse && strings.HasPrefix(raw, `{"cachePoint"`) {
			if len(blocks) > 0 {
				breaks = append(breaks, cacheBreak{len(blocks) - 1, breakTTL(gjson.Get(raw, "cachePoint").Raw)})
			}
			return
		}
		// The breakpoint member is not part of the cached content. (A
		// regular expression over the block would take seconds on the
		// hostile tests' 5 MB texts under the race detector.)
		if cc := gjson.Get(raw, "cache_control"); cc.Exists() {
			if c.explicit {
				breaks = append(breaks, cacheBreak{len(blocks), breakTTL(cc.Raw)})
			}
			member := `"cache_control":` + cc.Raw
			if r := strings.Replace(raw, ","+member, "", 1); len(r) < len(raw) {
				raw = r
			} else {
				raw = strings.Replace(raw, member, "", 1)
			}
		}
		blocks = append(blocks, prefix+raw)
	}
	tools, system, messages := "tools", "system", "messages"
	switch c.up {
	case bedrockConverse:
		tools = "toolConfig.tools"
	case openaiResponses:
		system, messages = "instructions", "input"
	case gemini, vertex:
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
	if c.explicit {
		if auto := root.Get("cache_control"); auto.Exists() && len(blocks) > 0 {
			breaks = append(breaks, cacheBreak{len(blocks) - 1, breakTTL(auto.Raw)})
		}
	}
	return blocks, breaks
}

// validateCache returns every way body's breakpoints break the rules of
// up for model: at most four; no lifetime longer than an earlier one's;
// on Bedrock, an hour only for Claude 4.5 and later, a cachePoint only
// for Claude and Nova, and none after Nova's tools.
func validateCache(up proto, model string, body []byte) []string {
	if !up.isAnthropic() && up != bedrockConverse ||
		!bytes.Contains(body, []byte(`"cache_control"`)) && !bytes.Contains(body, []byte(`"cachePoint"`)) {
		return nil
	}
	var problems []string
	_, breaks := (&cacheSim{up: up, explicit: true}).blocks(body)
	if len(breaks) > 4 {
		problems = append(problems, fmt.Sprintf("A maximum of 4 blocks with cache_control may be provided. Found %d.", len(breaks)))
	}
	for i := 1; i < len(breaks); i++ {
		if breaks[i].ttl > breaks[i-1].ttl {
			problems = append(problems, "a ttl='1h' cache breakpoint must not come after a ttl='5m' one")
			break
		}
	}
	if up.isAWS() {
		nova := strings.Contains(model, "amazon.nova")
		if len(breaks) > 0 && up == bedrockConverse && otherBedrockVendor(model) {
			problems = append(problems, "the model "+model+" does not support prompt caching")
		}
		for _, bp := range breaks {
			if bp.ttl == time.Hour && !bedrockHourCache(model) {
				problems = append(problems, "the model "+model+" does not support a cache ttl of 1h")
				break
			}
		}
		if nova && up == bedrockConverse {
			gjson.GetBytes(body, "toolConfig.tools").ForEach(func(_, v gjson.Result) bool {
				if v.Get("cachePoint").Exists() {
					problems = append(problems, "cachePoint is not supported in toolConfig for "+model)
					return false
				}
				return true
			})
		}
	}
	return problems
}

// otherBedrockVendor reports whether model is a Bedrock model id of a
// vendor whose models take no cachePoint (Meta, Mistral, Cohere, AI21,
// DeepSeek, OpenAI's open-weight models).
func otherBedrockVendor(model string) bool {
	for _, v := range []string{"meta.", "mistral.", "cohere.", "ai21.", "deepseek.", "openai."} {
		if strings.HasPrefix(model, v) || strings.Contains(model, "."+v) {
			return true
		}
	}
	return false
}

// bedrockHourCache reports whether Bedrock offers model the hour-long
// cache lifetime: Claude 4.5 models and later (since January 2026).
func bedrockHourCache(model string) bool {
	for _, old := range []string{"claude-3", "claude-sonnet-4-2", "claude-sonnet-4-0", "claude-opus-4-2", "claude-opus-4-0", "claude-opus-4-1", "amazon.nova"} {
		if strings.Contains(model, old) {
			return false
		}
	}
	return true
}

// hashBytes is the FNV-1a hash of b.
func hashBytes(b []byte) uint64 {
	h := fnv.New64a()
	h.Write(b)
	return h.Sum64()
}
