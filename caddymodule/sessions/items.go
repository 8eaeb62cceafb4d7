package sessions

import (
	"crypto/rand"
	"sync"
	"time"

	"github.com/dustin/go-humanize"

	"github.com/llmbridge/llmbridge/codec"
)

// DefaultItemCacheSize is the memory the item cache of a handler may hold
// when item_cache does not say.
const DefaultItemCacheSize = 64 << 20

// DefaultItemCacheTTL is how long the item cache keeps an item when
// item_cache does not say.
const DefaultItemCacheTTL = time.Hour

// itemOverhead is what an item costs the cache beyond its bytes: its key in
// the map and in the queue, the map entry and the slice header (measured by
// TestItemCacheMemory).
const itemOverhead = 160

// MemoryItems is the codec.ItemStore of a handler: the Responses output items
// whose ids cannot carry them (every streamed item, and items over the
// 64-character ids OpenAI accepts), kept so that a client's item_reference
// to one can be restored. It is bounded in memory (items are evicted
// oldest first once their bytes and overhead pass max) and in time (an item
// expires ttl after it was kept). Keys start with a random instance id, so
// a key this cache did not issue (another instance behind the same load
// balancer, or this one before a restart or reload) is told apart from one
// that expired.
type MemoryItems struct {
	instance [4]byte
	ttl      time.Duration
	max      int64
	now      func() time.Time

	mu    sync.Mutex
	items map[codec.ItemKey]cachedItem
	queue []queuedKey // keys in the order kept, which is the order they expire
	head  int         // queue[head:] is live
	size  int64       // bytes and overhead of the items held
}

// cachedItem is one item and when it expires (Unix nanoseconds).
type cachedItem struct {
	item    []byte
	expires int64
}

// queuedKey is a key in the eviction queue with the time it was kept, so
// that a key kept again later does not lose its newer item.
type queuedKey struct {
	key     codec.ItemKey
	expires int64
}

// NewMemoryItems returns a cache of at most max bytes keeping items for ttl.
func NewMemoryItems(max int64, ttl time.Duration) *MemoryItems {
	c := &MemoryItems{ttl: ttl, max: max, now: time.Now, items: map[codec.ItemKey]cachedItem{}}
	_, _ = rand.Read(c.instance[:])
	return c
}

// NewItemKey returns a key: the cache's instance id and 12 random bytes.
func (c *MemoryItems) NewItemKey() codec.ItemKey {
	var k codec.ItemKey
	copy(k[:], c.instance[:])
	_, _ = rand.Read(k[len(c.instance):])
	return k
}

// PutItem keeps a copy of item under key, evicting expired items and, past
// the memory bound, the oldest ones. An item larger than the bound is not
// kept.
func (c *MemoryItems) PutItem(key codec.ItemKey, item []byte) {
	cost := int64(len(item)) + itemOverhead
	if cost > c.max {
		return
	}
	now := c.now().UnixNano()
	e := cachedItem{item: append([]byte(nil), item...), expires: now + int64(c.ttl)}
	c.mu.Lock()
	defer c.mu.Unlock()
	if old, ok := c.items[key]; ok {
		c.size -= int64(len(old.item)) + itemOverhead
	}
	c.items[key] = e
	c.queue = append(c.queue, queuedKey{key, e.expires})
	c.size += cost
	c.evict(now)
}

// evict drops expired items and then the oldest until the cache is within
// its bound, and compacts the queue once most of it is dead.
func (c *MemoryItems) evict(now int64) {
	for c.head < len(c.queue) {
		q := c.queue[c.head]
		if q.expires > now && c.size <= c.max {
			break
		}
		if e, ok := c.items[q.key]; ok && e.expires == q.expires {
			delete(c.items, q.key)
			c.size -= int64(len(e.item)) + itemOverhead
		}
		c.queue[c.head] = queuedKey{}
		c.head++
	}
	if c.head > 1024 && c.head > len(c.queue)/2 {
		c.queue = append(c.queue[:0], c.queue[c.head:]...)
		c.head = 0
	}
}

// Item returns the item kept under key, or nil and why there is none.
func (c *MemoryItems) Item(key codec.ItemKey) ([]byte, string) {
	if [4]byte(key[:4]) != c.instance {
		return nil, "another llmbridge instance issued it, or this one before a restart or reload: each instance keeps its own items"
	}
	now := c.now().UnixNano()
	c.mu.Lock()
	e, ok := c.items[key]
	c.mu.Unlock()
	if !ok || e.expires <= now {
		return nil, "it expired or was evicted: items are kept for " + c.ttl.String() + ", at most " +
			humanize.IBytes(uint64(c.max)) + " of them per instance"
	}
	return e.item, ""
}

// stats returns the number of items held and their cost in bytes.
func (c *MemoryItems) Stats() (int, int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.items), c.size
}

// Interface guards
var _ codec.ItemStore = (*MemoryItems)(nil)
