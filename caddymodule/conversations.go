package caddymodule

import (
	"container/list"
	"context"
	"errors"
	"sync"
	"time"

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
// ConversationStore returns for an id it holds no conversation under.
var ErrConversationNotFound = errors.New("conversation not found")

// ConversationStore keeps the conversations of the Responses answers
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
type ConversationStore interface {
	// PutConversation keeps a copy of conversation under id, replacing
	// what id held. A store may refuse a conversation it cannot hold
	// (larger than its bound) by keeping nothing; that is not an error.
	PutConversation(ctx context.Context, id string, conversation []byte) error

	// Conversation returns the conversation kept under id. When there is
	// none the error wraps ErrConversationNotFound and says why in words
	// for the client (expired or evicted, never kept by this store);
	// other errors mean the store could not be asked. The caller does
	// not modify the bytes returned.
	Conversation(ctx context.Context, id string) ([]byte, error)
}

// conversationMissingError is ErrConversationNotFound with the reason.
type conversationMissingError struct{ why string }

func (e *conversationMissingError) Error() string { return e.why }

func (e *conversationMissingError) Unwrap() error { return ErrConversationNotFound }

// memoryConversations is the in-memory ConversationStore: bounded in bytes
// (the least recently used conversations are evicted past max) and in time
// (a conversation expires ttl after it was kept).
type memoryConversations struct {
	max int64
	ttl time.Duration
	now func() time.Time

	mu    sync.Mutex
	byID  map[string]*list.Element // of *keptConversation
	lru   list.List                // most recently used first
	bytes int64                    // conversations, ids and overhead
}

// keptConversation is one entry of memoryConversations.
type keptConversation struct {
	id           string
	conversation []byte
	expires      int64 // Unix nanoseconds
}

// cost is what the entry counts against the store's bound.
func (k *keptConversation) cost() int64 {
	return int64(len(k.conversation)+len(k.id)) + conversationOverhead
}

// newMemoryConversations returns an in-memory store of at most max bytes
// keeping conversations for ttl.
func newMemoryConversations(max int64, ttl time.Duration) *memoryConversations {
	return &memoryConversations{max: max, ttl: ttl, now: time.Now, byID: map[string]*list.Element{}}
}

// PutConversation keeps a copy of conversation under id and evicts the
// least recently used conversations past the bound. A conversation larger
// than the bound is not kept.
func (m *memoryConversations) PutConversation(_ context.Context, id string, conversation []byte) error {
	k := &keptConversation{id: id, conversation: append([]byte(nil), conversation...), expires: m.now().Add(m.ttl).UnixNano()}
	if k.cost() > m.max {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if e, ok := m.byID[id]; ok {
		m.remove(e)
	}
	m.byID[id] = m.lru.PushFront(k)
	m.bytes += k.cost()
	for m.bytes > m.max {
		m.remove(m.lru.Back())
	}
	return nil
}

// Conversation returns the conversation kept under id and marks it as
// recently used.
func (m *memoryConversations) Conversation(_ context.Context, id string) ([]byte, error) {
	now := m.now().UnixNano()
	m.mu.Lock()
	defer m.mu.Unlock()
	e, ok := m.byID[id]
	if ok && e.Value.(*keptConversation).expires <= now {
		m.remove(e)
		ok = false
	}
	if !ok {
		return nil, &conversationMissingError{why: "it is not a response this llmbridge instance keeps: it expired or was evicted (responses are kept for " +
			m.ttl.String() + ", at most " + humanize.IBytes(uint64(m.max)) + " of them), another instance or this one before a restart answered it, " +
			"it was created with store: false, or llmbridge never issued it"}
	}
	m.lru.MoveToFront(e)
	return e.Value.(*keptConversation).conversation, nil
}

// remove drops an entry; m.mu is held.
func (m *memoryConversations) remove(e *list.Element) {
	k := m.lru.Remove(e).(*keptConversation)
	delete(m.byID, k.id)
	m.bytes -= k.cost()
}

// stats returns the number of conversations held and their cost in bytes.
func (m *memoryConversations) stats() (int, int64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.byID), m.bytes
}

// Interface guards
var _ ConversationStore = (*memoryConversations)(nil)
