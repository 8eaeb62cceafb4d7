package sessions

import (
	"context"
	"time"

	"github.com/llmbridge/llmbridge/caddymodule/state"
)

// SharedConversations is the Conversations of a handler whose state
// store other instances see: conversations are kept in the store under
// "conv:<id>" for the conversations' ttl, so that a response answered by
// one instance is continued on any instance behind the same load
// balancer. The store bounds the memory (its own maxmemory; conversations
// expire); one larger than its bound is not kept, and each is
// stored compacted. When the
// store cannot be reached, it keeps them in and reads them from this
// instance's memory.
type SharedConversations struct {
	store state.Store
	ttl   time.Duration
	max   int
}

// NewSharedConversations returns the conversations kept in store for
// ttl, each at most max bytes: a request continuing a larger one could not
// be larger than the request limit anyway.
func NewSharedConversations(store state.Store, ttl time.Duration, max int) *SharedConversations {
	return &SharedConversations{store: store, ttl: ttl, max: max}
}

// PutConversation keeps conversation under id, compacted (Compact):
// a conversation is repetitive text that grows with every turn, and it
// crosses the network and lives in the store's memory.
func (s *SharedConversations) PutConversation(ctx context.Context, id string, conversation []byte) error {
	if len(conversation) > s.max {
		return nil
	}
	return s.store.Set(ctx, sharedConversationName(id), Compact(conversation), s.ttl)
}

// Conversation returns the conversation kept under id.
func (s *SharedConversations) Conversation(ctx context.Context, id string) ([]byte, error) {
	conv, ok, err := s.store.Get(ctx, sharedConversationName(id))
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, &missingError{why: "it is not a response the gateway keeps: it expired or was evicted (responses are kept for " +
			s.ttl.String() + " in the gateway's shared state store), it was created with store: false, or llmbridge never issued it"}
	}
	return Expand(conv)
}

// sharedConversationName is the store key of a conversation.
func sharedConversationName(id string) string { return "conv:" + id }

// Interface guards
var _ Conversations = (*SharedConversations)(nil)
