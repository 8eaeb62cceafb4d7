package sessions

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/llmbridge/llmbridge/caddymodule/state"
)

func TestMemoryConversations(t *testing.T) {
	ctx := context.Background()
	type step struct {
		put     string // id to keep, with a value of size bytes
		size    int
		advance time.Duration
		get     string // id to look up
		want    bool   // whether get finds it
	}
	tests := []struct {
		name  string
		max   int64
		steps []step
	}{
		{"kept and found", 1 << 20, []step{{put: "resp_a", size: 10}, {get: "resp_a", want: true}}},
		{"unknown id", 1 << 20, []step{{put: "resp_a", size: 10}, {get: "resp_b"}}},
		{"expires after the ttl", 1 << 20, []step{{put: "resp_a", size: 10}, {advance: time.Hour}, {get: "resp_a"}}},
		{"found before the ttl", 1 << 20, []step{{put: "resp_a", size: 10}, {advance: time.Hour - time.Second}, {get: "resp_a", want: true}}},
		{"larger than the bound is not kept", 1000, []step{{put: "resp_a", size: 1000}, {get: "resp_a"}}},
		{"least recently used evicted first", 3 * (300 + conversationOverhead + 6), []step{
			{put: "resp_a", size: 300}, {put: "resp_b", size: 300}, {put: "resp_c", size: 300},
			{get: "resp_a", want: true}, // a is now the most recently used
			{put: "resp_d", size: 300},  // evicts b
			{get: "resp_b"}, {get: "resp_a", want: true}, {get: "resp_c", want: true}, {get: "resp_d", want: true},
		}},
		{"kept again replaces", 2 * (300 + conversationOverhead + 6), []step{
			{put: "resp_a", size: 300}, {put: "resp_a", size: 300}, {put: "resp_b", size: 300},
			{get: "resp_a", want: true}, {get: "resp_b", want: true},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			now := time.Unix(1e9, 0)
			m := NewMemoryConversations(tt.max, time.Hour)
			m.now = func() time.Time { return now }
			for i, s := range tt.steps {
				now = now.Add(s.advance)
				if s.put != "" {
					if err := m.PutConversation(ctx, s.put, []byte(strings.Repeat("x", s.size))); err != nil {
						t.Fatalf("step %d: PutConversation: %v", i, err)
					}
				}
				if s.get == "" {
					continue
				}
				c, err := m.Conversation(ctx, s.get)
				if s.want != (err == nil) {
					t.Fatalf("step %d: Conversation(%s) = %d bytes, %v; want found %v", i, s.get, len(c), err, s.want)
				}
				if err != nil && !errors.Is(err, ErrConversationNotFound) {
					t.Fatalf("step %d: error %v does not wrap ErrConversationNotFound", i, err)
				}
			}
			if n, size := m.Stats(); size > tt.max || size < int64(n)*conversationOverhead {
				t.Fatalf("stats: %d conversations, %d bytes; bound %d", n, size, tt.max)
			}
		})
	}
}

func TestMemoryConversationsCopies(t *testing.T) {
	m := NewMemoryConversations(1<<20, time.Hour)
	b := []byte(`[{"role":"user","content":"hi"}]`)
	_ = m.PutConversation(context.Background(), "resp_a", b)
	b[0] = 'x'
	c, err := m.Conversation(context.Background(), "resp_a")
	if err != nil || c[0] != '[' {
		t.Fatalf("Conversation = %q, %v; the store must keep its own copy", c, err)
	}
}

// TestStoreConversations keeps conversations in a state store, compacted:
// a large one round-trips, a missing one wraps ErrConversationNotFound.
func TestStoreConversations(t *testing.T) {
	ctx := context.Background()
	s := NewSharedConversations(state.Local(), time.Hour, 1<<20)
	conv := []byte(`[{"role":"user","content":"` + strings.Repeat("weather in Paris ", 200) + `"}]`)
	if err := s.PutConversation(ctx, "k\x00resp_a", conv); err != nil {
		t.Fatal(err)
	}
	stored, _, _ := s.store.Get(ctx, sharedConversationName("k\x00resp_a"))
	if len(stored) >= len(conv) {
		t.Errorf("stored %d bytes of a %d-byte conversation, want it compressed", len(stored), len(conv))
	}
	if got, err := s.Conversation(ctx, "k\x00resp_a"); err != nil || string(got) != string(conv) {
		t.Fatalf("Conversation = %d bytes, %v", len(got), err)
	}
	if _, err := s.Conversation(ctx, "k\x00resp_b"); !errors.Is(err, ErrConversationNotFound) {
		t.Fatalf("a missing conversation: %v", err)
	}
	if err := s.PutConversation(ctx, "k\x00resp_big", make([]byte, 1<<20+1)); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Conversation(ctx, "k\x00resp_big"); !errors.Is(err, ErrConversationNotFound) {
		t.Fatalf("a conversation over the bound was kept: %v", err)
	}
}
