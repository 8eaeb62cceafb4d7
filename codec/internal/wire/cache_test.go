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
	c := PlanCache(req, codec.CachePolicy{Breakpoints: true, TTL: codec.Cache1h}, &plan)
	last, prev := &req.Messages[80].Parts[0], &req.Messages[78].Parts[0]
	if c.Tool(&req.Tools[19]) != codec.Cache1h || c.Tool(&req.Tools[18]) != codec.CacheNone ||
		c.System(&req.System[0]) != codec.Cache1h || c.Message(last) != codec.Cache1h || c.Message(prev) != codec.Cache1h ||
		c.Message(&req.Messages[79].Parts[0]) != codec.CacheNone || c.Auto(req) != codec.CacheNone {
		t.Errorf("placed breakpoints %+v", plan)
	}
	req.Messages[3].Parts[0].Cache = codec.CacheDefault
	if c := PlanCache(req, codec.CachePolicy{Breakpoints: true, Key: true}, &plan); c.Message(last) != codec.CacheNone || c.Message(&req.Messages[3].Parts[0]) != codec.CacheDefault {
		t.Errorf("a request with its own breakpoint got the policy's")
	}
	if PlanCache(agentRequest(), codec.CachePolicy{}, &plan) != nil {
		t.Error("breakpoints without Auto")
	}
}

// BenchmarkPlaceBreakpoints measures planning the policy's breakpoints of
// an agent-sized request; BenchmarkPromptCacheKey deriving its cache key.
func BenchmarkPlaceBreakpoints(b *testing.B) {
	req := agentRequest()
	var plan CachePlan
	b.ReportAllocs()
	for b.Loop() {
		if PlanCache(req, codec.CachePolicy{Breakpoints: true, Key: true}, &plan) == nil {
			b.Fatal("no plan")
		}
	}
}

func BenchmarkPromptCacheKey(b *testing.B) {
	req := agentRequest()
	buf := make([]byte, 0, 64)
	b.ReportAllocs()
	for b.Loop() {
		buf = appendPromptCacheKey(buf[:0], req)
	}
}
