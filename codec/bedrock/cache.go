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

// cachesPrompts reports whether model takes cachePoint blocks: Bedrock's
// prompt caching serves Anthropic's Claude and Amazon's Nova models.
func cachesPrompts(model string) bool {
	if isClaudeModel(model) {
		return true
	}
	if i := strings.LastIndexByte(model, '/'); i >= 0 {
		model = model[i+1:]
	}
	return strings.HasPrefix(model, "amazon.nova") || strings.Contains(model, ".amazon.nova")
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
