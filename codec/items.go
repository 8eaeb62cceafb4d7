package codec

// ItemKeySize is the length of an ItemKey.
const ItemKeySize = 16

// ItemKey names an item kept in an ItemStore. The key alone gives its
// holder the item, so keys are unguessable.
type ItemKey [ItemKeySize]byte

// ItemStore keeps the Responses output items llmbridge writes whose ids
// cannot carry them, so that a client's later item_reference to one can be
// restored: an item too large for an id of the length clients accept, and
// every item of a stream, whose id is sent before the item is complete.
//
// The store is the caller's state (llmbridge's Caddy module keeps one per
// handler, bounded in memory and in time), set in Request.Items; the codecs
// only call it, from several goroutines at once.
type ItemStore interface {
	// NewItemKey returns a new key for an item that PutItem will keep.
	NewItemKey() ItemKey
	// PutItem keeps a copy of item, the JSON object of an output item,
	// under key.
	PutItem(key ItemKey, item []byte)
	// Item returns the item kept under key. When there is none it
	// returns nil and why, as a phrase for the client (the item expired
	// or was evicted, or another instance issued the key).
	Item(key ItemKey) (item []byte, why string)
}
