package sessions

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"time"

	"github.com/llmbridge/llmbridge/caddymodule/state"
	"github.com/llmbridge/llmbridge/codec"
)

// SharedItems is the codec.ItemStore of a handler whose state store other
// instances see: items are kept in the store under "item:<key>" for the
// item cache's ttl, so that a reference minted on one instance resolves on
// every instance behind the same load balancer. Each item is written when
// the encoder completes it, before its event reaches the client, so a
// client that refers to it next finds it wherever its request lands. The
// store bounds the memory (its own maxmemory; items expire); an item
// larger than maxSharedItem is not kept. When the store cannot be reached,
// items are kept in and read from this instance's memory.
type SharedItems struct {
	store state.Store
	ttl   time.Duration
}

// NewSharedItems returns the items kept in store for ttl.
func NewSharedItems(store state.Store, ttl time.Duration) *SharedItems {
	return &SharedItems{store: store, ttl: ttl}
}

// maxSharedItem bounds an item kept in a shared store.
const maxSharedItem = 4 << 20

// NewItemKey returns 16 random bytes: keys need no instance's mark, every
// instance can read them.
func (s *SharedItems) NewItemKey() codec.ItemKey {
	var k codec.ItemKey
	_, _ = rand.Read(k[:])
	return k
}

// PutItem keeps a copy of item under key.
func (s *SharedItems) PutItem(key codec.ItemKey, item []byte) {
	if len(item) > maxSharedItem {
		return
	}
	_ = s.store.Set(context.Background(), sharedItemName(key), bytes.Clone(item), s.ttl)
}

// Item returns the item kept under key, or nil and why there is none.
func (s *SharedItems) Item(key codec.ItemKey) ([]byte, string) {
	item, ok, _ := s.store.Get(context.Background(), sharedItemName(key))
	if !ok {
		return nil, "it expired, was evicted or was never kept: items are kept for " + s.ttl.String() + " in the gateway's shared state store"
	}
	return item, ""
}

// sharedItemName is the store key of an item.
func sharedItemName(key codec.ItemKey) string {
	return "item:" + hex.EncodeToString(key[:])
}

// Interface guards
var _ codec.ItemStore = (*SharedItems)(nil)
