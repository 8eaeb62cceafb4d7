package bedrock

import (
	"strings"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/wire"
	"github.com/tidwall/gjson"
)

// cachePoint records the cachePoint v at path as a breakpoint after
// *after, the block or tool before it; one with nothing before it marks no
// prefix and is dropped.
func cachePoint(req *codec.Request, v gjson.Result, path string, after *codec.CacheTTL) *codec.Error {
	ttl, err := wire.ReadCacheObject(v, path+".cachePoint", "default")
	if err != nil {
		return err
	}
	if after == nil {
		req.Dropped = append(req.Dropped, path+" (cachePoint)")
		return nil
	}
	*after = ttl
	return nil
}

// lastCache returns the breakpoint of the last of ps, or nil.
func lastCache(ps []codec.Part) *codec.CacheTTL {
	if len(ps) == 0 {
		return nil
	}
	return &ps[len(ps)-1].Cache
}

// cacheTarget returns what model's prompt cache takes on Converse, from
// the model's rule (target), and whether it takes cachePoint blocks at
// all: Bedrock's prompt caching serves Anthropic's Claude, whose facts
// are in the model rules, and Amazon's Nova, which the rules do not
// cover (Converse sends other vendors' requests as clients make them), so
// Nova's are here: at least 1,000 tokens per checkpoint, checkpoints in
// system and messages but not after tools, and the five-minute lifetime
// only (Bedrock's prompt caching guide, models table; the one-hour
// lifetime came to Claude 4.5 models only).
func cacheTarget(model string, target codec.CacheTarget) (codec.CacheTarget, bool) {
	if isClaudeModel(model) {
		return target, true
	}
	if i := strings.LastIndexByte(model, '/'); i >= 0 {
		model = model[i+1:]
	}
	if strings.HasPrefix(model, "amazon.nova") || strings.Contains(model, ".amazon.nova") {
		return codec.CacheTarget{MinTokens: 1000, FiveMinutesOnly: true, NoToolBreakpoints: true}, true
	}
	return codec.CacheTarget{}, false
}

// appendCachePoint appends a cachePoint block asking for lifetime ttl (a
// breakpoint of a wire.CachePlan) after a comma, or nothing for CacheNone.
func appendCachePoint(dst []byte, ttl codec.CacheTTL) []byte {
	switch ttl {
	case codec.CacheNone:
		return dst
	case codec.Cache5m:
		return append(dst, `,{"cachePoint":{"type":"default","ttl":"5m"}}`...)
	case codec.Cache1h:
		return append(dst, `,{"cachePoint":{"type":"default","ttl":"1h"}}`...)
	}
	return append(dst, `,{"cachePoint":{"type":"default"}}`...)
}
