package wire

import (
	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/jsonx"
)

// MaxBreakpoints is how many prompt-cache breakpoints a request may carry:
// Anthropic refuses a fifth cache_control, and Bedrock a fifth cachePoint.
const MaxBreakpoints = 4

// CachePlan hands out a request's prompt-cache breakpoints (Part.Cache,
// Tool.Cache, the automatic Cache.Auto) to an encoder within the rules
// Anthropic and Bedrock share: at most MaxBreakpoints, so the earliest of
// more are left out (a later breakpoint caches a longer prefix, which
// covers theirs) and reported; and no breakpoint may ask for a longer
// lifetime than one before it in the prompt's order (tools, system,
// messages), so a later one is shortened to the shortest before it. Both
// protocols write their bodies in other orders (Anthropic system,
// messages, tools; Converse messages, system, tools), so the plan hands
// out lifetimes by section, each in the order its breakpoints are
// written. A nil plan has no breakpoints.
type CachePlan struct {
	ttls [MaxBreakpoints]codec.CacheTTL // the kept breakpoints, in prompt order
	skip int                            // the breakpoints left out, the earliest
	// base holds where each section's breakpoints start in prompt order,
	// and seen how many of each have been written.
	base, seen [sections]int
}

// The sections of a prompt, in its order.
const (
	sectionTools = iota
	sectionSystem
	sectionMessages
	sections
)

// PlanCache plans req's breakpoints in plan and returns it, or nil when
// req has none; breakpoints left out are reported in req.Dropped.
func PlanCache(req *codec.Request, plan *CachePlan) *CachePlan {
	var count [sections]int
	eachBreakpoint(req, func(_ codec.CacheTTL, section int) { count[section]++ })
	n := count[sectionTools] + count[sectionSystem] + count[sectionMessages]
	if n == 0 {
		return nil
	}
	*plan = CachePlan{skip: max(0, n-MaxBreakpoints)}
	plan.base[sectionSystem] = count[sectionTools]
	plan.base[sectionMessages] = count[sectionTools] + count[sectionSystem]
	if plan.skip > 0 {
		req.Dropped = append(req.Dropped, "cache breakpoints beyond the upstream's four (the earliest)")
	}
	longest, k := codec.Cache1h, 0
	eachBreakpoint(req, func(ttl codec.CacheTTL, _ int) {
		if k++; k <= plan.skip {
			return
		}
		if ttl.Longer(longest) {
			ttl = longest
		}
		longest = ttl
		plan.ttls[k-1-plan.skip] = ttl
	})
	return plan
}

// HasBreakpoints reports whether req asks for a breakpoint an encoder
// would write.
func HasBreakpoints(req *codec.Request) bool {
	found := false
	eachBreakpoint(req, func(codec.CacheTTL, int) { found = true })
	return found
}

// eachBreakpoint calls fn with every breakpoint of req that an encoder
// writes and its section, in prompt order: tools, the system prompt, the
// conversation, and last the automatic one.
func eachBreakpoint(req *codec.Request, fn func(ttl codec.CacheTTL, section int)) {
	for i := range req.Tools {
		if t := &req.Tools[i]; t.Cache != codec.CacheNone && t.Kind != codec.ToolWebSearch {
			fn(t.Cache, sectionTools)
		}
	}
	each := func(ps []codec.Part, section int) {
		for i := range ps {
			if p := &ps[i]; p.Cache != codec.CacheNone && BreakpointPart(p) {
				fn(p.Cache, section)
			}
		}
	}
	each(req.System, sectionSystem)
	for i := range req.Messages {
		if IsSystemRole(req.Messages[i].Role) {
			each(req.Messages[i].Parts, sectionSystem)
		}
	}
	for i := range req.Messages {
		if !IsSystemRole(req.Messages[i].Role) {
			each(req.Messages[i].Parts, sectionMessages)
		}
	}
	if req.Cache.Auto != codec.CacheNone {
		fn(req.Cache.Auto, sectionMessages)
	}
}

// BreakpointPart reports whether a breakpoint on part p is written: not
// on reasoning (which both protocols cache only as part of the prefix)
// and not on an empty text, which is not written at all. An encoder asks
// the plan for the breakpoint of exactly these parts.
func BreakpointPart(p *codec.Part) bool {
	switch p.Type {
	case codec.PartReasoning:
		return false
	case codec.PartText, codec.PartRefusal:
		return p.Text != ""
	}
	return true
}

// Tool returns the lifetime to write for a tool's breakpoint ttl, or
// CacheNone for none.
func (c *CachePlan) Tool(ttl codec.CacheTTL) codec.CacheTTL { return c.next(sectionTools, ttl) }

// System returns the lifetime to write for the breakpoint ttl of a system
// part that BreakpointPart accepts, or CacheNone.
func (c *CachePlan) System(ttl codec.CacheTTL) codec.CacheTTL { return c.next(sectionSystem, ttl) }

// Message returns the lifetime to write for the breakpoint ttl of a
// message part that BreakpointPart accepts (or the automatic one, last),
// or CacheNone.
func (c *CachePlan) Message(ttl codec.CacheTTL) codec.CacheTTL {
	return c.next(sectionMessages, ttl)
}

// next returns the lifetime of the next breakpoint of section, CacheNone
// for one left out.
func (c *CachePlan) next(section int, ttl codec.CacheTTL) codec.CacheTTL {
	if c == nil || ttl == codec.CacheNone {
		return codec.CacheNone
	}
	k := c.base[section] + c.seen[section]
	c.seen[section]++
	if k < c.skip || k-c.skip >= MaxBreakpoints {
		return codec.CacheNone
	}
	return c.ttls[k-c.skip]
}

// DropBreakpoints reports req's breakpoints as dropped, for an encoder
// whose protocol has none: OpenAI caches prompt prefixes by itself, and
// Gemini's cached content names state stored beforehand.
func DropBreakpoints(req *codec.Request) {
	if HasBreakpoints(req) {
		req.Dropped = append(req.Dropped, "cache breakpoints")
	}
}

// AppendPromptCache appends OpenAI's prompt_cache_key and
// prompt_cache_retention from req.Cache when the upstream takes them
// (accepts: OpenAI's own APIs); otherwise a set value is reported dropped:
// the key only routes requests to OpenAI's cache, and no other provider
// keeps OpenAI's retention promise.
func AppendPromptCache(dst []byte, req *codec.Request, accepts bool) []byte {
	c := &req.Cache
	if c.Key != "" {
		if accepts {
			dst = append(dst, `,"prompt_cache_key":`...)
			dst = jsonx.AppendString(dst, c.Key)
		} else {
			req.Dropped = append(req.Dropped, "prompt_cache_key")
		}
	}
	if c.Retention != "" {
		if accepts {
			dst = append(dst, `,"prompt_cache_retention":`...)
			dst = jsonx.AppendString(dst, c.Retention)
		} else {
			req.Dropped = append(req.Dropped, "prompt_cache_retention")
		}
	}
	return dst
}

// DropPromptCache reports OpenAI's prompt cache settings of req dropped,
// for an encoder of another provider's protocol.
func DropPromptCache(req *codec.Request) { AppendPromptCache(nil, req, false) }
