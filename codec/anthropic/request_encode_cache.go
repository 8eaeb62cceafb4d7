package anthropic

import "github.com/llmbridge/llmbridge/codec"

// appendCacheControl appends ,"cache_control":{...} asking for
// lifetime ttl (a breakpoint of a wire.CachePlan), or nothing for
// CacheNone.
func appendCacheControl(dst []byte, ttl codec.CacheTTL) []byte {
	if ttl == codec.CacheNone {
		return dst
	}
	dst = append(dst, `,"cache_control":{"type":"ephemeral"`...)
	switch ttl {
	case codec.Cache5m:
		dst = append(dst, `,"ttl":"5m"`...)
	case codec.Cache1h:
		dst = append(dst, `,"ttl":"1h"`...)
	}
	return append(dst, '}')
}
