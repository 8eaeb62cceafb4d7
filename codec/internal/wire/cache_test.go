package wire

import (
	"strconv"
	"strings"
	"testing"

	"github.com/llmbridge/llmbridge/codec"
)

// agentRequest is an agent-sized canonical request: a 19 KB system
// prompt, 20 tools and 81 messages.
func agentRequest() *codec.Request {
	req := &codec.Request{System: []codec.Part{{Type: codec.PartText, Text: strings.Repeat("You are a coding agent. ", 800)}}}
	for i := 0; i < 20; i++ {
		req.Tools = append(req.Tools, codec.Tool{Name: "tool" + strconv.Itoa(i), Parameters: `{"type":"object"}`})
	}
	for i := 0; i < 40; i++ {
		req.Messages = append(req.Messages,
			codec.Message{Role: codec.RoleUser, Parts: []codec.Part{{Type: codec.PartText, Text: "Step " + strconv.Itoa(i)}}},
			codec.Message{Role: codec.RoleAssistant, Parts: []codec.Part{{Type: codec.PartText, Text: "Done."}}})
	}
	req.Messages = append(req.Messages, codec.Message{Role: codec.RoleUser, Parts: []codec.Part{{Type: codec.PartText, Text: "Next."}}})
	return req
}

// TestPlaceBreakpoints checks where the policy's breakpoints go and that a
// request that has its own keeps them.
func TestPlaceBreakpoints(t *testing.T) {
	req := agentRequest()
	var plan CachePlan
	c := PlanCache(req, codec.CachePolicy{Breakpoints: true, TTL: codec.Cache1h}, codec.CacheTarget{}, &plan)
	last, prev := &req.Messages[80].Parts[0], &req.Messages[78].Parts[0]
	if c.Tool(&req.Tools[19]) != codec.Cache1h || c.Tool(&req.Tools[18]) != codec.CacheNone ||
		c.System(&req.System[0]) != codec.Cache1h || c.Message(last) != codec.Cache1h || c.Message(prev) != codec.Cache1h ||
		c.Message(&req.Messages[79].Parts[0]) != codec.CacheNone || c.Auto(req) != codec.CacheNone {
		t.Errorf("placed breakpoints %+v", plan)
	}
	req.Messages[3].Parts[0].Cache = codec.CacheDefault
	if c := PlanCache(req, codec.CachePolicy{Breakpoints: true, Key: true}, codec.CacheTarget{}, &plan); c.Message(last) != codec.CacheNone || c.Message(&req.Messages[3].Parts[0]) != codec.CacheDefault {
		t.Errorf("a request with its own breakpoint got the policy's")
	}
	if PlanCache(agentRequest(), codec.CachePolicy{}, codec.CacheTarget{}, &plan) != nil {
		t.Error("breakpoints without Auto")
	}
	explicit := agentRequest()
	explicit.Cache.Explicit = true
	if PlanCache(explicit, codec.CachePolicy{Breakpoints: true}, codec.CacheTarget{}, &plan) != nil {
		t.Error("breakpoints placed in a request that asked for its own only")
	}
}

// TestFinishOpenAICache checks what a request of OpenAI's protocols asks of
// the cache once decoded: the implicit breakpoint unless explicit, the
// options' lifetime on breakpoints of the default one, and a tool output's
// content breakpoint on the tool result.
func TestFinishOpenAICache(t *testing.T) {
	req := &codec.Request{Messages: []codec.Message{{Role: codec.RoleUser, Parts: []codec.Part{
		{Type: codec.PartText, Text: "a", Cache: codec.CacheDefault},
		{Type: codec.PartToolResult, Content: []codec.Part{{Type: codec.PartText, Text: "out", Cache: codec.CacheDefault}}},
	}}}}
	FinishOpenAICache(req, codec.Cache1h)
	ps := req.Messages[0].Parts
	if ps[0].Cache != codec.Cache1h || ps[1].Cache != codec.Cache1h || ps[1].Content[0].Cache != codec.CacheNone || req.Cache.Auto != codec.Cache1h {
		t.Errorf("got parts %v, %v (content %v), auto %v", ps[0].Cache, ps[1].Cache, ps[1].Content[0].Cache, req.Cache.Auto)
	}
	none := &codec.Request{Messages: []codec.Message{{Role: codec.RoleUser, Parts: []codec.Part{{Type: codec.PartText, Text: "a"}}}}}
	if FinishOpenAICache(none, codec.CacheNone); none.Cache.Auto != codec.CacheNone {
		t.Error("an automatic breakpoint for a request without breakpoints")
	}
	explicit := &codec.Request{Cache: codec.Cache{Explicit: true}, Messages: []codec.Message{{Role: codec.RoleUser, Parts: []codec.Part{{Type: codec.PartText, Text: "a", Cache: codec.CacheDefault}}}}}
	if FinishOpenAICache(explicit, codec.CacheNone); explicit.Cache.Auto != codec.CacheNone {
		t.Error("an automatic breakpoint in explicit mode")
	}
}

// TestPlaceBreakpointsTarget checks the placed breakpoints against what
// the model's cache takes: none whose prefix is shorter than its minimum,
// none after tools where it takes none there, the default lifetime where
// it offers no hour.
func TestPlaceBreakpointsTarget(t *testing.T) {
	// agentRequest's tools are ~440 bytes, its system prompt 19 KB, and
	// its conversation ~900 bytes.
	type want struct{ tool, system, prev, last codec.CacheTTL }
	on := codec.CacheDefault
	tests := []struct {
		name    string
		target  codec.CacheTarget
		ttl     codec.CacheTTL
		want    want
		dropped string
		short   bool // the system prompt cut to 300 bytes, the last message 3 KB
	}{
		{name: "no facts", want: want{on, on, on, on}},
		{name: "tools below the minimum", target: codec.CacheTarget{MinTokens: 1024}, want: want{codec.CacheNone, on, on, on}},
		{name: "system prompt long enough for 4096", target: codec.CacheTarget{MinTokens: 4096}, want: want{codec.CacheNone, on, on, on}},
		{name: "nothing long enough", target: codec.CacheTarget{MinTokens: 100000}},
		{name: "only the whole conversation", target: codec.CacheTarget{MinTokens: 1000}, short: true, want: want{last: on}},
		{name: "the previous turn too", target: codec.CacheTarget{MinTokens: 300}, short: true, want: want{prev: on, last: on}},
		{name: "no tool breakpoints", target: codec.CacheTarget{NoToolBreakpoints: true}, want: want{codec.CacheNone, on, on, on}},
		{name: "hour where offered", ttl: codec.Cache1h, want: want{codec.Cache1h, codec.Cache1h, codec.Cache1h, codec.Cache1h}},
		{name: "five minutes only", ttl: codec.Cache1h, target: codec.CacheTarget{FiveMinutesOnly: true}, want: want{on, on, on, on}, dropped: cacheHourDropped},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := agentRequest()
			if tt.short {
				req.System[0].Text = req.System[0].Text[:300]
				req.Messages[80].Parts[0].Text = strings.Repeat("Next. ", 500)
			}
			var plan CachePlan
			c := PlanCache(req, codec.CachePolicy{Breakpoints: true, TTL: tt.ttl}, tt.target, &plan)
			got := want{c.Tool(&req.Tools[19]), c.System(&req.System[0]), c.Message(&req.Messages[78].Parts[0]), c.Message(&req.Messages[80].Parts[0])}
			if got != tt.want {
				t.Errorf("breakpoints (tool, system, previous turn, last) %v, want %v", got, tt.want)
			}
			if tt.want == (want{}) && c != nil {
				t.Error("a plan without breakpoints")
			}
			if d := strings.Join(req.Dropped, "; "); d != tt.dropped {
				t.Errorf("dropped %q, want %q", d, tt.dropped)
			}
		})
	}
}

// TestPlanClientBreakpoints checks the rules the client's own breakpoints
// are kept within: at most four (the earliest of more left out), no
// lifetime longer than an earlier one's, and the model's target.
func TestPlanClientBreakpoints(t *testing.T) {
	h, d := codec.Cache1h, codec.CacheDefault
	tests := []struct {
		name      string
		target    codec.CacheTarget
		tool, sys codec.CacheTTL
		msgs      []codec.CacheTTL // on messages 0, 1, 2, ...
		wantTool  codec.CacheTTL
		wantSys   codec.CacheTTL
		wantMsgs  []codec.CacheTTL
		dropped   string
	}{
		{name: "kept", tool: h, sys: h, msgs: []codec.CacheTTL{d}, wantTool: h, wantSys: h, wantMsgs: []codec.CacheTTL{d}},
		{name: "five, the earliest left out", tool: d, sys: d, msgs: []codec.CacheTTL{d, d, d}, wantSys: d, wantMsgs: []codec.CacheTTL{d, d, d},
			dropped: "cache breakpoints beyond the upstream's four (the earliest)"},
		{name: "no longer than an earlier one", tool: d, sys: h, msgs: []codec.CacheTTL{h}, wantTool: d, wantSys: d, wantMsgs: []codec.CacheTTL{d}},
		{name: "no tool breakpoints", target: codec.CacheTarget{NoToolBreakpoints: true}, tool: d, sys: d, wantSys: d,
			dropped: "cache breakpoints after tools (the model takes none there)"},
		{name: "five minutes only", target: codec.CacheTarget{FiveMinutesOnly: true}, tool: h, msgs: []codec.CacheTTL{h}, wantTool: d, wantMsgs: []codec.CacheTTL{d},
			dropped: cacheHourDropped},
		{name: "minimum does not judge the client's", target: codec.CacheTarget{MinTokens: 100000}, sys: d, wantSys: d},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := agentRequest()
			req.Tools[19].Cache, req.System[0].Cache = tt.tool, tt.sys
			for i, ttl := range tt.msgs {
				req.Messages[i].Parts[0].Cache = ttl
			}
			var plan CachePlan
			c := PlanCache(req, codec.CachePolicy{Breakpoints: true}, tt.target, &plan)
			if got := c.Tool(&req.Tools[19]); got != tt.wantTool {
				t.Errorf("tool breakpoint %v, want %v", got, tt.wantTool)
			}
			if got := c.System(&req.System[0]); got != tt.wantSys {
				t.Errorf("system breakpoint %v, want %v", got, tt.wantSys)
			}
			for i := range tt.msgs {
				if got := c.Message(&req.Messages[i].Parts[0]); got != tt.wantMsgs[i] {
					t.Errorf("message %d breakpoint %v, want %v", i, got, tt.wantMsgs[i])
				}
			}
			if d := strings.Join(req.Dropped, "; "); d != tt.dropped {
				t.Errorf("dropped %q, want %q", d, tt.dropped)
			}
		})
	}
}

// BenchmarkPlaceBreakpoints measures planning the policy's breakpoints of
// an agent-sized request; BenchmarkPromptCacheKey deriving its cache key.
func BenchmarkPlaceBreakpoints(b *testing.B) {
	req := agentRequest()
	var plan CachePlan
	b.ReportAllocs()
	target := codec.CacheTarget{MinTokens: 4096}
	for b.Loop() {
		if PlanCache(req, codec.CachePolicy{Breakpoints: true, Key: true}, target, &plan) == nil {
			b.Fatal("no plan")
		}
	}
}

func BenchmarkPromptCacheKey(b *testing.B) {
	req := agentRequest()
	buf := make([]byte, 0, 64)
	b.ReportAllocs()
	for b.Loop() {
		buf = codec.AppendPromptCacheKey(buf[:0], req)
	}
}
