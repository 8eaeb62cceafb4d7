package caddymodule

import (
	"context"
	"time"

	"github.com/llmbridge/llmbridge/caddymodule/state"
)

// storeConversations is the ConversationStore of a handler whose state
// store other instances see: conversations are kept in the store under
// "conv:<id>" for the conversations' ttl, so that a response answered by
// one instance is continued on any instance behind the same load
// balancer. The store bounds the memory (its own maxmemory; conversations
// expire); one larger than maxSharedConversation is not kept, and each is
// stored compacted. When the
// store cannot be reached, it keeps them in and reads them from this
// instance's memory.
type storeConversations struct {
	store state.Store
	ttl   time.Duration
}

// maxSharedConversation bounds a conversation kept in a shared store: a
// request continuing it could not be larger than the default request
// limit anyway.
const maxSharedConversation = DefaultMaxRequestBody

// PutConversation keeps conversation under id, compacted (compact.go):
// a conversation is repetitive text that grows with every turn, and it
// crosses the network and lives in the store's memory.
func (s *storeConversations) PutConversation(ctx context.Context, id string, conversation []byte) error {
	if len(conversation) > maxSharedConversation {
		return nil
	}
	return s.store.Set(ctx, sharedConversationName(id), compact(conversation), s.ttl)
}

// Conversation returns the conversation kept under id.
func (s *storeConversations) Conversation(ctx context.Context, id string) ([]byte, error) {
	conv, ok, err := s.store.Get(ctx, sharedConversationName(id))
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, &conversationMissingError{why: "it is not a response the gateway keeps: it expired or was evicted (responses are kept for " +
			s.ttl.String() + " in the gateway's shared state store), it was created with store: false, or llmbridge never issued it"}
	}
	return expand(conv)
}

// sharedConversationName is the store key of a conversation.
func sharedConversationName(id string) string { return "conv:" + id }

// Interface guards
var _ ConversationStore = (*storeConversations)(nil)
