package sessions

import (
	"context"
	"errors"
	"sync"
	"time"
	"unsafe"

	"github.com/dustin/go-humanize"
)

// DefaultConversationsSize is the memory the conversation store of a
// handler may hold when conversations does not say.
const DefaultConversationsSize = 256 << 20

// DefaultConversationsTTL is how long a kept conversation can be continued
// when conversations does not say.
const DefaultConversationsTTL = time.Hour

// conversationOverhead is what a conversation costs the in-memory store
// beyond its bytes and its id: the map entry, the list element and the
// entry struct.
const conversationOverhead = 200

// ErrConversationNotFound is the error, possibly wrapped with the reason, a
// Conversations returns for an id it holds no conversation under.
var ErrConversationNotFound = errors.New("conversation not found")

// Conversations keeps the conversations of the Responses answers
// llmbridge translated, under the response ids their clients saw, so that a
// later request naming one in previous_response_id can be sent to an
// upstream that keeps no state, with the whole conversation.
//
// A conversation is a JSON array of Responses input items: the input of
// the request (its earlier conversation included) followed by the output
// items of its answer. Values are bytes and every call takes a context and
// may fail, so that a store may live in another process (a shared cache
// serving several llmbridge instances); the in-memory store is the
// default. Implementations are safe for concurrent use.
type Conversations interface {
	// PutConversation keeps a copy of conversation under id, replacing
	// what id held. A store may refuse a conversation it cannot hold
	// (larger than its bound) by keeping nothing; that is not an error.
	// The store keeps neither id nor conversation beyond the call: it
	// copies what it keeps. (The id is the response id prefixed by its
	// client's scope, an opaque key to the store.)
	PutConversation(ctx context.Context, id string, conversation []byte) error

	// Conversation returns the conversation kept under id. When there is
	// none the error wraps ErrConversationNotFound and says why in words
	// for the client (expired or evicted, never kept by this store);
	// other errors mean the store could not be asked. The caller does
	// not modify the bytes returned.
	Conversation(ctx context.Context, id string) ([]byte, error)
}

// missingError is ErrConversationNotFound with the reason.
type missingError struct{ why string }

// Error says why there is no conversation.
func (e *missingError) Error() string { return e.why }

// Unwrap makes the error an ErrConversationNotFound.
func (e *missingError) Unwrap() error { return ErrConversationNotFound }

// MemoryConversations is the in-memory Conversations: bounded in bytes
// (the least recently used conversations are evicted past max) and in time
// (a conversation expires ttl after it was kept).
type MemoryConversations struct {
	max int64
	ttl time.Duration
	now func() time.Time

	mu    sync.Mutex
	byID  map[string]*keptConversation
	lru   keptConversation // sentinel of the ring, most recently used after it
	bytes int64            // conversations, ids and overhead
}

// keptConversation is one entry of MemoryConversations, linked in its
// recency ring. The id and the conversation share one allocation.
type keptConversation struct {
	id           string
	conversation []byte
	expires      int64 // Unix nanoseconds
	prev, next   *keptConversation
}

// cost is what the entry counts against the store's bound.
func (k *keptConversation) cost() int64 {
	return int64(len(k.conversation)+len(k.id)) + conversationOverhead
}

// NewMemoryConversations returns an in-memory store of at most max bytes
// keeping conversations for ttl.
func NewMemoryConversations(max int64, ttl time.Duration) *MemoryConversations {
	m := &MemoryConversations{max: max, ttl: ttl, now: time.Now, byID: map[string]*keptConversation{}}
	m.lru.prev, m.lru.next = &m.lru, &m.lru
	return m
}

// PutConversation keeps a copy of conversation under id and evicts the
// least recently used conversations past the bound. A conversation larger
// than the bound is not kept.
func (m *MemoryConversations) PutConversation(_ context.Context, id string, conversation []byte) error {
	if int64(len(conversation)+len(id))+conversationOverhead > m.max {
		return nil
	}
	b := make([]byte, 0, len(conversation)+len(id))
	b = append(append(b, conversation...), id...)
	k := &keptConversation{id: unsafe.String(unsafe.SliceData(b[len(conversation):]), len(id)), conversation: b[:len(conversation):len(conversation)],
		expires: m.now().Add(m.ttl).UnixNano()}
	m.mu.Lock()
	defer m.mu.Unlock()
	if old, ok := m.byID[id]; ok {
		m.remove(old)
	}
	m.byID[k.id] = k
	m.pushFront(k)
	m.bytes += k.cost()
	for m.bytes > m.max {
		m.remove(m.lru.prev)
	}
	return nil
}

// Conversation returns the conversation kept under id and marks it as
// recently used.
func (m *MemoryConversations) Conversation(_ context.Context, id string) ([]byte, error) {
	now := m.now().UnixNano()
	m.mu.Lock()
	defer m.mu.Unlock()
	k, ok := m.byID[id]
	if ok && k.expires <= now {
		m.remove(k)
		ok = false
	}
	if !ok {
		return nil, &missingError{why: "it is not a response this llmbridge instance keeps: it expired or was evicted (responses are kept for " +
			m.ttl.String() + ", at most " + humanize.IBytes(uint64(m.max)) + " of them), another instance or this one before a restart answered it, " +
			"it was created with store: false, or llmbridge never issued it"}
	}
	m.unlink(k)
	m.pushFront(k)
	return k.conversation, nil
}

// pushFront links k as the most recently used; m.mu is held.
func (m *MemoryConversations) pushFront(k *keptConversation) {
	k.prev, k.next = &m.lru, m.lru.next
	k.prev.next, k.next.prev = k, k
}

// unlink takes k out of the ring; m.mu is held.
func (m *MemoryConversations) unlink(k *keptConversation) {
	k.prev.next, k.next.prev = k.next, k.prev
	k.prev, k.next = nil, nil
}

// remove drops an entry; m.mu is held.
func (m *MemoryConversations) remove(k *keptConversation) {
	m.unlink(k)
	delete(m.byID, k.id)
	m.bytes -= k.cost()
}

// stats returns the number of conversations held and their cost in bytes.
func (m *MemoryConversations) Stats() (int, int64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.byID), m.bytes
}

// Interface guards
var _ Conversations = (*MemoryConversations)(nil)
