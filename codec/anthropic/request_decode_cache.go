package anthropic

import (
	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/internal/wire"
	"github.com/tidwall/gjson"
)

// anthropicCache reads the cache_control at path ({"type":"ephemeral"},
// with an optional "ttl" of "5m" or "1h"): the breakpoint it asks for.
func anthropicCache(v gjson.Result, path string) (codec.CacheTTL, *codec.Error) {
	return wire.ReadCacheObject(v, path, "ephemeral")
}
