package wire

import (
	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/jsonx"
	"github.com/tidwall/gjson"
)

// MaxBreakpoints is how many prompt-cache breakpoints a request may carry:
// Anthropic refuses a fifth cache_control, and Bedrock a fifth cachePoint.
const MaxBreakpoints = 4

// CachePlan hands out a request's prompt-cache breakpoints to an encoder.
//
// The client's own breakpoints (Part.Cache, Tool.Cache, the automatic
// Cache.Auto) are kept within the rules Anthropic and Bedrock share: at
// most MaxBreakpoints, so the earliest of more are left out (a later
// breakpoint caches a longer prefix, which covers theirs) and reported;
// and no breakpoint may ask for a longer lifetime than one before it in
// the prompt's order (tools, system, messages), so a later one is
// shortened to the shortest before it. Both protocols write their bodies
// in other orders (Anthropic system, messages, tools; Converse messages,
// system, tools), so the plan hands out lifetimes by section, each in the
// order its breakpoints are written.
//
// A request whose client's protocol places no breakpoints gets those of
// codec.CachePolicy instead, chosen by position (the request itself is
// not changed, so another encoder sees it as the client sent it).
//
// A nil plan has no breakpoints.
type CachePlan struct {
	ttls [MaxBreakpoints]codec.CacheTTL // the kept breakpoints, in prompt order
	skip int                            // the breakpoints left out, the earliest
	// noTools leaves out the breakpoints after tools, which the model
	// does not take.
	noTools bool
	// base holds where each section's breakpoints start in prompt order,
	// and seen how many of each have been written.
	base, seen [sections]int

	// count is how many breakpoints the request asks for, the left out
	// included.
	count int
	// autoPart, when set, is the block the automatic breakpoint follows
	// instead of being written on its own (AutoOnLastBlock), with
	// lifetime autoTTL.
	autoPart *codec.Part
	autoTTL  codec.CacheTTL

	// placed is set for breakpoints of the policy: the tool and parts
	// they follow, all of lifetime ttl.
	placed bool
	ttl    codec.CacheTTL
	tool   *codec.Tool
	parts  [3]*codec.Part
}

// The sections of a prompt, in its order.
const (
	sectionTools = iota
	sectionSystem
	sectionMessages
	sections
)

// PlanCache plans req's breakpoints in plan by policy, within what the
// model's cache takes (target), and returns it, or nil when there are
// none; breakpoints left out are reported in req.Dropped.
func PlanCache(req *codec.Request, policy codec.CachePolicy, target codec.CacheTarget, plan *CachePlan) *CachePlan {
	tools := !target.NoToolBreakpoints
	count := countBreakpoints(req)
	if !tools && count[sectionTools] > 0 {
		req.Dropped = append(req.Dropped, "cache breakpoints after tools (the model takes none there)")
		count[sectionTools] = 0
	}
	n := count[sectionTools] + count[sectionSystem] + count[sectionMessages]
	if n == 0 {
		if !policy.Breakpoints || req.Cache.Explicit {
			return nil
		}
		return placeBreakpoints(req, policy.TTL, target, plan)
	}
	*plan = CachePlan{skip: max(0, n-MaxBreakpoints), noTools: !tools, count: n}
	plan.base[sectionSystem] = count[sectionTools]
	plan.base[sectionMessages] = count[sectionTools] + count[sectionSystem]
	if plan.skip > 0 {
		req.Dropped = append(req.Dropped, "cache breakpoints beyond the upstream's four (the earliest)")
	}
	longest, k, shortened := codec.Cache1h, 0, false
	eachBreakpoint(req, tools, func(ttl codec.CacheTTL, _ int) {
		if k++; k <= plan.skip {
			return
		}
		if ttl == codec.Cache1h && target.FiveMinutesOnly {
			ttl, shortened = codec.CacheDefault, true
		}
		if ttl.Longer(longest) {
			ttl = longest
		}
		longest = ttl
		plan.ttls[k-1-plan.skip] = ttl
	})
	if shortened {
		req.Dropped = append(req.Dropped, cacheHourDropped)
	}
	return plan
}

// cacheHourDropped reports a one-hour lifetime written as the default one.
const cacheHourDropped = `cache ttl "1h" (the model caches for five minutes on this upstream)`

// placeBreakpoints plans the policy's breakpoints, with lifetime ttl,
// where Claude Code places its own: after the last tool, after the system
// prompt, after the last message, and after the user turn before the last
// assistant turn, where the previous request of the conversation ended.
// The last caches the whole prompt for the next request, which repeats
// it; the other reads exactly what the previous request wrote, however
// many blocks this turn added (Anthropic looks for an earlier cache entry
// only about twenty blocks back from a breakpoint). A breakpoint whose
// prefix is shorter than the model caches (target.MinTokens) is not
// placed: it would cache nothing.
func placeBreakpoints(req *codec.Request, ttl codec.CacheTTL, target codec.CacheTarget, plan *CachePlan) *CachePlan {
	if ttl == codec.CacheNone {
		ttl = codec.CacheDefault
	}
	if ttl == codec.Cache1h && target.FiveMinutesOnly {
		ttl = codec.CacheDefault
		req.Dropped = append(req.Dropped, cacheHourDropped)
	}
	*plan = CachePlan{placed: true, ttl: ttl}
	// The prompt's size so far, in bytes, in prompt order; a prefix
	// counts as long enough once its estimate reaches the minimum.
	size, enough := 0, func(size int) bool { return estimateTokens(size) >= target.MinTokens }
	for i := range req.Tools {
		t := &req.Tools[i]
		size += len(t.Name) + len(t.Description) + len(t.Parameters) + len(t.Grammar)
		if t.Kind != codec.ToolWebSearch && !target.NoToolBreakpoints {
			plan.tool = t
		}
	}
	if !enough(size) {
		plan.tool = nil
	}
	// The system prompt's last text: a later system message's, else
	// req.System's.
	size += partsSize(req.System)
	for i := range req.Messages {
		if IsSystemRole(req.Messages[i].Role) {
			size += partsSize(req.Messages[i].Parts)
		}
	}
	if enough(size) {
		for i := len(req.Messages) - 1; i >= 0 && plan.parts[0] == nil; i-- {
			if IsSystemRole(req.Messages[i].Role) {
				plan.parts[0] = lastBreakpointPart(req.Messages[i].Parts)
			}
		}
		if plan.parts[0] == nil {
			plan.parts[0] = lastBreakpointPart(req.System)
		}
	}
	// The last message's last block, and the last block before the user
	// turn that ends the conversation.
	i := len(req.Messages) - 1
	for ; i >= 0; i-- {
		if m := &req.Messages[i]; !IsSystemRole(m.Role) {
			if p := lastBreakpointPart(m.Parts); p != nil {
				plan.parts[1] = p
				break
			}
		}
	}
	last := i
	// Back over the last user turn and the assistant turn before it, to
	// the end of the previous request's conversation.
	for ; i >= 0 && req.Messages[i].Role != codec.RoleAssistant; i-- {
	}
	for ; i >= 0 && req.Messages[i].Role != codec.RoleUser; i-- {
	}
	for ; i >= 0; i-- {
		if m := &req.Messages[i]; !IsSystemRole(m.Role) {
			if p := lastBreakpointPart(m.Parts); p != nil {
				plan.parts[2] = p
				break
			}
		}
	}
	// The conversation's breakpoints, when their prefixes are long
	// enough: measured only as far as needed.
	if target.MinTokens > 0 && !enough(size) {
		for j := 0; j <= last && !enough(size); j++ {
			if !IsSystemRole(req.Messages[j].Role) {
				size += partsSize(req.Messages[j].Parts)
			}
			if j == i && !enough(size) {
				plan.parts[2] = nil
			}
		}
		if !enough(size) {
			plan.parts[1] = nil
		}
	}
	if plan.tool == nil && plan.parts == [3]*codec.Part{} {
		return nil
	}
	return plan
}

// estimateTokens is a generous estimate of the tokens in size bytes of
// prompt: three bytes a token, where English prose and code take about
// four, so that a prefix is judged too short to cache only when it
// certainly is.
func estimateTokens(size int) int64 { return int64(size / 3) }

// partsSize is the size of ps's content in bytes, for estimateTokens.
func partsSize(ps []codec.Part) int {
	n := 0
	for i := range ps {
		p := &ps[i]
		n += p.TextSize() + p.ArgumentsSize() + len(p.ToolName) + len(p.Data) + len(p.URL)
		if len(p.Content) > 0 {
			n += partsSize(p.Content)
		}
	}
	return n
}

// lastBreakpointPart returns the last part of ps that can carry a
// breakpoint, or nil.
func lastBreakpointPart(ps []codec.Part) *codec.Part {
	for i := len(ps) - 1; i >= 0; i-- {
		if BreakpointPart(&ps[i]) {
			return &ps[i]
		}
	}
	return nil
}

// countBreakpoints counts the breakpoints of req that an encoder writes,
// by section: what eachBreakpoint calls its function with, in one walk of
// the conversation.
func countBreakpoints(req *codec.Request) (count [sections]int) {
	for i := range req.Tools {
		if t := &req.Tools[i]; t.Cache != codec.CacheNone && t.Kind != codec.ToolWebSearch {
			count[sectionTools]++
		}
	}
	count[sectionSystem] = countPartBreakpoints(req.System)
	for i := range req.Messages {
		m := &req.Messages[i]
		if n := countPartBreakpoints(m.Parts); n > 0 {
			if IsSystemRole(m.Role) {
				count[sectionSystem] += n
			} else {
				count[sectionMessages] += n
			}
		}
	}
	if req.Cache.Auto != codec.CacheNone {
		count[sectionMessages]++
	}
	return count
}

// countPartBreakpoints counts the breakpoints of ps that an encoder
// writes.
func countPartBreakpoints(ps []codec.Part) (n int) {
	for i := range ps {
		if p := &ps[i]; p.Cache != codec.CacheNone && BreakpointPart(p) {
			n++
		}
	}
	return n
}

// HasBreakpoints reports whether req asks for a breakpoint an encoder
// would write.
func HasBreakpoints(req *codec.Request) bool {
	return countBreakpoints(req) != [sections]int{}
}

// eachBreakpoint calls fn with every breakpoint of req that an encoder
// writes and its section, in prompt order: tools, the system prompt, the
// conversation, and last the automatic one; those after tools only when
// tools is set.
func eachBreakpoint(req *codec.Request, tools bool, fn func(ttl codec.CacheTTL, section int)) {
	for i := range req.Tools {
		if t := &req.Tools[i]; tools && t.Cache != codec.CacheNone && t.Kind != codec.ToolWebSearch {
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
		return p.HasText()
	}
	return true
}

// Tool returns the lifetime to write after tool t, or CacheNone for none.
func (c *CachePlan) Tool(t *codec.Tool) codec.CacheTTL {
	if c != nil && c.placed {
		return c.placedTTL(t == c.tool)
	}
	if c != nil && c.noTools {
		return codec.CacheNone
	}
	return c.next(sectionTools, t.Cache)
}

// System returns the lifetime to write after system part p, one that
// BreakpointPart accepts, or CacheNone.
func (c *CachePlan) System(p *codec.Part) codec.CacheTTL {
	if c != nil && c.placed {
		return c.placedTTL(p == c.parts[0])
	}
	return c.next(sectionSystem, p.Cache)
}

// Message returns the lifetime to write after message part p, one that
// BreakpointPart accepts, or CacheNone.
func (c *CachePlan) Message(p *codec.Part) codec.CacheTTL {
	if c != nil && c.placed {
		return c.placedTTL(p == c.parts[1] || p == c.parts[2])
	}
	ttl := c.next(sectionMessages, p.Cache)
	if c != nil && p == c.autoPart && ttl == codec.CacheNone {
		ttl = c.autoTTL
	}
	return ttl
}

// AutoOnLastBlock puts the request's automatic breakpoint (Cache.Auto) on
// the last block of the conversation that can carry one, where Anthropic
// places it, for a protocol without the top-level form: Bedrock's
// InvokeModel refuses a top-level cache_control. Auto then returns
// CacheNone; a last block with a breakpoint of its own keeps that one.
func (c *CachePlan) AutoOnLastBlock(req *codec.Request) {
	if c == nil || c.placed || req.Cache.Auto == codec.CacheNone {
		return
	}
	for i := len(req.Messages) - 1; i >= 0; i-- {
		if m := &req.Messages[i]; !IsSystemRole(m.Role) {
			if p := lastBreakpointPart(m.Parts); p != nil {
				// The automatic breakpoint is the last in prompt order,
				// so never one of those left out.
				c.autoPart, c.autoTTL = p, c.ttls[c.count-c.skip-1]
				return
			}
		}
	}
}

// Auto returns the lifetime to write for the request's automatic
// breakpoint (Cache.Auto), after everything else, or CacheNone.
func (c *CachePlan) Auto(req *codec.Request) codec.CacheTTL {
	if c == nil || c.placed || c.autoPart != nil {
		return codec.CacheNone
	}
	return c.next(sectionMessages, req.Cache.Auto)
}

// placedTTL is the lifetime of a placed breakpoint, when there is one.
func (c *CachePlan) placedTTL(here bool) codec.CacheTTL {
	if here {
		return c.ttl
	}
	return codec.CacheNone
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
// keeps OpenAI's retention promise. A request without a key gets one
// derived from its conversation's identity when policy asks for caching
// (appendPromptCacheKey).
//
// OpenAI's prompt_cache_options (an explicit mode) is reported dropped:
// it is asked only of the models that take explicit breakpoints, which
// llmbridge does not write toward OpenAI (it caches prefixes by itself).
func AppendPromptCache(dst []byte, req *codec.Request, accepts bool, policy codec.CachePolicy) []byte {
	if req.Cache.Explicit {
		req.Dropped = append(req.Dropped, "prompt_cache_options")
	}
	return appendPromptCache(dst, req, accepts, policy)
}

// appendPromptCache is AppendPromptCache without prompt_cache_options, which
// the other providers' protocols honour by placing no breakpoint.
func appendPromptCache(dst []byte, req *codec.Request, accepts bool, policy codec.CachePolicy) []byte {
	c := &req.Cache
	switch {
	case c.Key != "" && accepts:
		dst = append(dst, `,"prompt_cache_key":`...)
		dst = jsonx.AppendString(dst, c.Key)
	case c.Key != "":
		req.Dropped = append(req.Dropped, "prompt_cache_key")
	case accepts && policy.Key:
		dst = append(dst, `,"prompt_cache_key":"`...)
		dst = codec.AppendPromptCacheKey(dst, req)
		dst = append(dst, '"')
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
func DropPromptCache(req *codec.Request) {
	appendPromptCache(nil, req, false, codec.CachePolicy{})
}

// ReadCacheObject reads a breakpoint object at path, which Anthropic
// (cache_control, typ "ephemeral") and Converse (cachePoint, typ
// "default") both write as {"type": typ} with an optional "ttl" of "5m"
// or "1h": the lifetime it asks for; null asks for none.
func ReadCacheObject(v gjson.Result, path, typ string) (codec.CacheTTL, *codec.Error) {
	return readBreakpoint(v, path, breakpointGrammar{key: "type", value: typ,
		ttls: [2]string{"5m", "1h"}, lifetimes: [2]codec.CacheTTL{codec.Cache5m, codec.Cache1h}})
}

// ReadOpenAIBreakpoint reads OpenAI's prompt_cache_breakpoint object at
// path ({"mode": "explicit"} with an optional "ttl" of "30m" or "12h"):
// the lifetime it asks for, the default for 30m and an hour, the longest
// other providers keep, for 12h; null asks for none.
func ReadOpenAIBreakpoint(v gjson.Result, path string) (codec.CacheTTL, *codec.Error) {
	return readBreakpoint(v, path, breakpointGrammar{key: "mode", value: "explicit",
		ttls: [2]string{"30m", "12h"}, lifetimes: [2]codec.CacheTTL{codec.CacheDefault, codec.Cache1h}})
}

// breakpointGrammar is the form of a protocol's breakpoint object: a
// member key that may only hold value, and a "ttl" member taking one of
// ttls, which asks for the lifetime of the same index.
type breakpointGrammar struct {
	key, value string
	ttls       [2]string
	lifetimes  [2]codec.CacheTTL
}

// readBreakpoint reads the breakpoint object at path by g: the lifetime
// it asks for (the default without a ttl); null asks for none.
func readBreakpoint(v gjson.Result, path string, g breakpointGrammar) (codec.CacheTTL, *codec.Error) {
	if v.Type == gjson.Null {
		return codec.CacheNone, nil
	}
	if !v.IsObject() {
		return 0, WrongType(path, "object", v)
	}
	ttl := codec.CacheDefault
	var err *codec.Error
	for key, member := range jsonx.Members(v.Raw, nil) {
		value := member.Result()
		switch key {
		case g.key:
			if value.Str != g.value {
				err = codec.InvalidRequest(path+"."+g.key, `must be "`+g.value+`"`)
			}
		case "ttl":
			switch value.Str {
			case g.ttls[0]:
				ttl = g.lifetimes[0]
			case g.ttls[1]:
				ttl = g.lifetimes[1]
			default:
				err = codec.InvalidRequest(path+".ttl", `must be "`+g.ttls[0]+`" or "`+g.ttls[1]+`"`)
			}
		default:
			err = UnknownField(path + "." + key)
		}
		if err != nil {
			break
		}
	}
	return ttl, err
}

// ReadPromptCacheOptions reads OpenAI's prompt_cache_options object at path
// into req.Cache and returns the lifetime its ttl asks of every breakpoint
// (CacheNone for the default): mode "explicit" caches only the request's
// own breakpoints; "implicit", the default, lets OpenAI add one of its own
// (Cache.Auto, set by FinishOpenAICache). A prewarm request, which answers
// nothing, has no counterpart elsewhere; comparison_response_id only asks
// OpenAI for diagnostics and is dropped.
func ReadPromptCacheOptions(req *codec.Request, v gjson.Result, path string) (codec.CacheTTL, *codec.Error) {
	if v.Type == gjson.Null {
		return codec.CacheNone, nil
	}
	if !v.IsObject() {
		return 0, WrongType(path, "object", v)
	}
	ttl := codec.CacheNone
	var err *codec.Error
	for key, member := range jsonx.Members(v.Raw, nil) {
		value := member.Result()
		switch key {
		case "mode":
			switch value.Str {
			case "implicit":
			case "explicit":
				req.Cache.Explicit = true
			default:
				err = codec.InvalidRequest(path+".mode", `must be "implicit" or "explicit"`)
			}
		case "ttl":
			switch value.Str {
			case "30m":
			case "12h":
				ttl = codec.Cache1h
			default:
				err = codec.InvalidRequest(path+".ttl", `must be "30m" or "12h"`)
			}
		case "prewarm":
			if value.Type == gjson.True {
				err = UnsupportedField(path+".prewarm", "preparing the prompt cache without an answer is specific to OpenAI")
			}
		case "comparison_response_id":
			req.Dropped = append(req.Dropped, path+".comparison_response_id")
		default:
			err = UnknownField(path + "." + key)
		}
		if err != nil {
			break
		}
	}
	return ttl, err
}

// FinishOpenAICache completes the prompt-cache wishes of a request decoded
// from OpenAI's protocols once its breakpoints are known: a breakpoint with
// the default lifetime takes ttl (prompt_cache_options.ttl), and unless the
// mode is explicit a request with breakpoints also gets the automatic one
// OpenAI adds by itself, which Anthropic's top-level cache_control asks for
// in the same way.
//
// OpenAI marks a tool output's content parts; the canonical breakpoint is
// the tool result's, so a breakpoint on its content moves to it.
func FinishOpenAICache(req *codec.Request, ttl codec.CacheTTL) {
	for i := range req.Messages {
		for j := range req.Messages[i].Parts {
			p := &req.Messages[i].Parts[j]
			for k := range p.Content {
				if c := &p.Content[k]; c.Cache != codec.CacheNone {
					p.Cache, c.Cache = max(p.Cache, c.Cache), codec.CacheNone
				}
			}
		}
	}
	count := countBreakpoints(req)
	if count == [sections]int{} {
		return
	}
	if ttl != codec.CacheNone {
		raise := func(ps []codec.Part) {
			for i := range ps {
				if ps[i].Cache == codec.CacheDefault {
					ps[i].Cache = ttl
				}
			}
		}
		raise(req.System)
		for i := range req.Messages {
			raise(req.Messages[i].Parts)
		}
	}
	if !req.Cache.Explicit {
		req.Cache.Auto = max(ttl, codec.CacheDefault)
	}
}
