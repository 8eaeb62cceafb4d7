package sessions

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/llmbridge/llmbridge/caddymodule/state"
	"github.com/llmbridge/llmbridge/codec"
)

func TestItemCache(t *testing.T) {
	now := time.Unix(1000, 0)
	c := NewMemoryItems(4*(100+itemOverhead), time.Minute)
	c.now = func() time.Time { return now }
	item := func(i int) []byte {
		return []byte(fmt.Sprintf(`{"n":%d%s}`, i, strings.Repeat(" ", 100-len(fmt.Sprintf(`{"n":%d}`, i)))))
	}

	k1 := c.NewItemKey()
	if k1 == c.NewItemKey() {
		t.Fatal("two keys are equal")
	}
	if [4]byte(k1[:4]) != c.instance {
		t.Fatal("a key does not start with the instance id")
	}
	c.PutItem(k1, item(1))
	if got, why := c.Item(k1); string(got) != string(item(1)) || why != "" {
		t.Fatalf("Item = %q, %q", got, why)
	}

	// Past the memory bound, the oldest go first.
	keys := []codec.ItemKey{k1}
	for i := 2; i <= 5; i++ {
		k := c.NewItemKey()
		keys = append(keys, k)
		c.PutItem(k, item(i))
	}
	if got, why := c.Item(keys[0]); got != nil || !strings.Contains(why, "expired or was evicted") || !strings.Contains(why, "1m0s") {
		t.Errorf("the oldest item is still held (%q, %q)", got, why)
	}
	for _, k := range keys[1:] {
		if got, _ := c.Item(k); got == nil {
			t.Error("a newer item was evicted")
		}
	}
	if n, size := c.Stats(); n != 4 || size != 4*(100+itemOverhead) {
		t.Errorf("stats %d items, %d bytes", n, size)
	}

	// Past the time to live, an item is gone, and the next put frees it.
	now = now.Add(time.Minute)
	if got, _ := c.Item(keys[1]); got != nil {
		t.Error("an expired item was returned")
	}
	k := c.NewItemKey()
	c.PutItem(k, item(6))
	if n, _ := c.Stats(); n != 1 {
		t.Errorf("%d items after the others expired, want 1", n)
	}

	// Keeping a key again replaces its item.
	c.PutItem(k, item(7))
	if got, _ := c.Item(k); string(got) != string(item(7)) {
		t.Errorf("Item = %q", got)
	}
	if n, size := c.Stats(); n != 1 || size != 100+itemOverhead {
		t.Errorf("stats %d items, %d bytes after a replacement", n, size)
	}

	// An item over the bound is not kept.
	big := c.NewItemKey()
	c.PutItem(big, make([]byte, 5*(100+itemOverhead)))
	if got, _ := c.Item(big); got != nil {
		t.Error("an item over the bound was kept")
	}

	// Another instance's key is told apart.
	other := NewMemoryItems(1<<20, time.Minute).NewItemKey()
	if _, why := c.Item(other); !strings.Contains(why, "another llmbridge instance") {
		t.Errorf("why = %q", why)
	}
}

func TestItemCacheQueueCompacts(t *testing.T) {
	c := NewMemoryItems(10*(10+itemOverhead), time.Hour)
	for range 5000 {
		c.PutItem(c.NewItemKey(), make([]byte, 10))
	}
	if n, _ := c.Stats(); n != 10 {
		t.Errorf("%d items, want 10", n)
	}
	if len(c.queue)-c.head != 10 || len(c.queue) > 2100 {
		t.Errorf("queue of %d with %d live", len(c.queue), len(c.queue)-c.head)
	}
}

// TestItemCacheMemory measures what a kept item costs beyond its bytes
// and holds itemOverhead to it.
func TestItemCacheMemory(t *testing.T) {
	const n, itemSize = 20000, 512
	c := NewMemoryItems(1<<40, time.Hour)
	item := make([]byte, itemSize)
	keys := make([]codec.ItemKey, n)
	for i := range keys {
		keys[i] = c.NewItemKey()
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for _, k := range keys {
		c.PutItem(k, item)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	per := int64(after.HeapAlloc-before.HeapAlloc) / n
	t.Logf("%d items of %d bytes: %d bytes each on the heap (overhead %d, accounted %d)", n, itemSize, per, per-itemSize, itemOverhead)
	if per-itemSize > itemOverhead {
		t.Errorf("an item costs %d bytes beyond its own, more than itemOverhead (%d)", per-itemSize, itemOverhead)
	}
	runtime.KeepAlive(c)
}

// TestStoreItems keeps Responses items in a state store, as a fleet does.
func TestStoreItems(t *testing.T) {
	s := NewSharedItems(state.NewMemory(0), time.Minute)
	k := s.NewItemKey()
	if k == s.NewItemKey() {
		t.Fatal("two keys alike")
	}
	item := []byte(`{"type":"message"}`)
	s.PutItem(k, item)
	item[0] = 'X' // the store keeps its own copy
	if got, why := s.Item(k); string(got) != `{"type":"message"}` || why != "" {
		t.Errorf("Item = %s %q", got, why)
	}
	if got, why := s.Item(s.NewItemKey()); got != nil || !strings.Contains(why, "expired") {
		t.Errorf("a missing item: %s %q", got, why)
	}
	big := s.NewItemKey()
	s.PutItem(big, make([]byte, maxSharedItem+1))
	if got, _ := s.Item(big); got != nil {
		t.Errorf("an item over the bound was kept")
	}
}
