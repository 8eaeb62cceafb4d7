package anthropic

import (
	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/wire"
	"github.com/tidwall/gjson"
)

// anthropicCacheTTL reads a cache_control object ({"type":"ephemeral"},
// with an optional "ttl" of "5m" or "1h"): the breakpoint it asks for,
// CacheNone for null, or the member at fault and why.
func anthropicCacheTTL(v gjson.Result) (ttl codec.CacheTTL, member, problem string) {
	switch {
	case v.Type == gjson.Null:
		return codec.CacheNone, "", ""
	case !v.IsObject():
		return 0, "", "expected object"
	}
	ttl = codec.CacheDefault
	v.ForEach(func(key, value gjson.Result) bool {
		switch key.Str {
		case "type":
			if value.Str != "ephemeral" {
				member, problem = ".type", `must be "ephemeral"`
			}
		case "ttl":
			switch value.Str {
			case "5m":
				ttl = codec.Cache5m
			case "1h":
				ttl = codec.Cache1h
			default:
				member, problem = ".ttl", `must be "5m" or "1h"`
			}
		default:
			member, problem = "."+key.Str, "is not a known field"
		}
		return problem == ""
	})
	return ttl, member, problem
}

// anthropicCache reads the cache_control at path.
func anthropicCache(v gjson.Result, path string) (codec.CacheTTL, *codec.Error) {
	ttl, member, problem := anthropicCacheTTL(v)
	if problem != "" {
		if problem == "expected object" {
			return 0, wire.WrongType(path, "object", v)
		}
		return 0, codec.InvalidRequest(path+member, problem)
	}
	return ttl, nil
}
