package codec

// CacheTTL is the lifetime a prompt-cache breakpoint asks for. A
// breakpoint on a part (Part.Cache) or a tool (Tool.Cache) asks the
// provider to cache the prompt's prefix up to and including it, so that
// the next request that repeats the prefix reads it from the cache.
type CacheTTL uint8

const (
	// CacheNone is no breakpoint.
	CacheNone CacheTTL = iota
	// CacheDefault is a breakpoint with the provider's default lifetime
	// (five minutes at Anthropic and on Bedrock).
	CacheDefault
	// Cache5m asks for five minutes explicitly.
	Cache5m
	// Cache1h asks for an hour, which some models offer at a higher
	// write price.
	Cache1h
)

// Longer reports whether t asks for a longer lifetime than u.
func (t CacheTTL) Longer(u CacheTTL) bool { return t == Cache1h && u != Cache1h && u != CacheNone }

// Cache holds a request's wishes of the provider's prompt cache other than
// its breakpoints.
type Cache struct {
	// Auto asks the provider to place a breakpoint itself, with this
	// lifetime (Anthropic's top-level cache_control); CacheNone asks for
	// nothing.
	Auto CacheTTL
	// Key routes requests that share a prefix to the same cache (OpenAI
	// prompt_cache_key), or "".
	Key string
	// Retention is how long OpenAI keeps a cached prefix ("in_memory" or
	// "24h", prompt_cache_retention), or "".
	Retention string
	// Explicit asks that only the request's own breakpoints be cached
	// (OpenAI's prompt_cache_options.mode "explicit"): no automatic
	// breakpoint, and none placed by a CachePolicy.
	Explicit bool
}

// CachePolicy is how an encoder asks for prompt caching that the client
// did not ask for itself. Breakpoints places them, toward Anthropic's and
// Bedrock's protocols, where Claude Code places its own (after the tools,
// after the system prompt, on the last message and where the previous
// request ended, so that each turn reads the prefix the turn before
// wrote), in a request that has none; it is meant for clients whose
// protocols have no breakpoints (Descriptor.CacheBreakpoints is false):
// the others' choice, none included, stands. Key sends OpenAI's upstreams a
// prompt_cache_key derived from the conversation's identity (its end
// user, else its system prompt and tools) when the client gave none, so
// that one session's requests reach the same cache. The zero value asks
// for nothing.
type CachePolicy struct {
	// Breakpoints places breakpoints in a request that has none.
	Breakpoints bool
	// Key derives a prompt_cache_key for a request that has none.
	Key bool
	// TTL is the lifetime of the breakpoints placed; CacheNone is the
	// provider's default.
	TTL CacheTTL
}

// CacheTarget is what the upstream model's prompt cache takes, from its
// model rule (codec.Target.Cache). The zero value knows nothing and
// limits nothing.
type CacheTarget struct {
	// MinTokens is the shortest prompt prefix the model caches, 0 when
	// unknown. A breakpoint of a CachePolicy is not placed where the
	// prompt before it is shorter (by a generous estimate of its tokens),
	// since the provider would cache nothing there: placing none where
	// the whole prompt is shorter leaves the request as the client sent
	// it.
	MinTokens int64
	// FiveMinutesOnly reports that the model offers only the five-minute
	// lifetime on this upstream (Claude before the 4.5 models on
	// Bedrock, which refuses a "1h" ttl for them): a breakpoint asking
	// for an hour is written with the default lifetime, and reported.
	FiveMinutesOnly bool
	// NoToolBreakpoints reports that the model takes no breakpoint after
	// tool definitions (Amazon Nova on Converse caches system and
	// messages only): the client's are dropped and reported, and a
	// CachePolicy places none there.
	NoToolBreakpoints bool
}
