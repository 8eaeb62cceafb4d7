package bedrock

import (
	"strings"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/wire"
	"github.com/tidwall/gjson"
)

// cachePointTTL reads a cachePoint ({"type":"default"} with an optional
// "ttl" of "5m" or "1h") at path: the breakpoint it asks for.
func cachePointTTL(v gjson.Result, path string) (codec.CacheTTL, *codec.Error) {
	if !v.IsObject() {
		return 0, wire.WrongType(path, "object", v)
	}
	ttl := codec.CacheDefault
	var err *codec.Error
	v.ForEach(func(key, value gjson.Result) bool {
		switch key.Str {
		case "type":
			if value.Str != "default" {
				err = codec.InvalidRequest(path+".type", `must be "default"`)
			}
		case "ttl":
			switch value.Str {
			case "5m":
				ttl = codec.Cache5m
			case "1h":
				ttl = codec.Cache1h
			default:
				err = codec.InvalidRequest(path+".ttl", `must be "5m" or "1h"`)
			}
		default:
			err = wire.UnknownField(path + "." + key.Str)
		}
		return err == nil
	})
	return ttl, err
}

// cachePoint records the cachePoint v at path as a breakpoint after
// *after, the block or tool before it; one with nothing before it marks no
// prefix and is dropped.
func cachePoint(req *codec.Request, v gjson.Result, path string, after *codec.CacheTTL) *codec.Error {
	ttl, err := cachePointTTL(v, path+".cachePoint")
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
