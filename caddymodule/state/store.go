// Package state is where llmbridge keeps what outlives a request and what
// several Caddy instances serving one edge must agree on: stored items and
// conversations, the counters of limits and budgets, and the events that
// tell every instance what one of them learned (a provider's cooldown, a
// refused key, a rule a refusal taught).
//
// A Store is the process's memory (Local, the default: nothing to run) or
// a Valkey or Redis server (NewValkey) that a fleet shares. The llmbridge
// app (app.go) chooses one for the instance from the Caddyfile's global
// options; handlers ask the app for it. Counters are changed atomically on
// the server (a script per call), never read, changed and written back
// from the gateway, so that a limit holds across the fleet.
//
// This package knows Caddy (the app and its Caddyfile) and the store's
// protocol; it knows nothing of LLM protocols, handlers or requests: the
// handler package imports it, never the other way.
package state

import (
	"context"
	"errors"
	"time"
)

// Store is where state lives. Keys are the caller's; a store shared by
// several gateways puts its own prefix before them. Every method takes a
// context whose deadline bounds the operation: a store that cannot answer
// in time returns an error wrapping ErrUnavailable, and the caller follows
// its documented policy (caches and cooldowns go on from local memory,
// limits fail open or closed as configured).
type Store interface {
	// Get returns the value stored under key, and whether there is one.
	Get(ctx context.Context, key string) ([]byte, bool, error)
	// Set stores value under key for ttl (0: until evicted).
	Set(ctx context.Context, key string, value []byte, ttl time.Duration) error
	// Delete removes key.
	Delete(ctx context.Context, key string) error

	// Take adds each count's Amount to its counter, atomically and only
	// if every counter is below its Limit before; it writes each
	// counter's value (after the addition, or as found when refused) to
	// values, which has room for one per count, and reports whether it
	// added. Counters are forgotten when their window ends (Count.Ends).
	Take(ctx context.Context, counts []Count, values []int64) (bool, error)
	// Add adds each count's Amount (which may be negative) to its counter
	// without a limit: a settlement of what Take reserved.
	Add(ctx context.Context, counts []Count) error
	// Read writes the current value of each count's counter to values.
	Read(ctx context.Context, counts []Count, values []int64) error

	// Publish sends msg to every instance subscribed to channel, this one
	// included.
	Publish(ctx context.Context, channel string, msg []byte) error
	// Subscribe calls fn with every message published on channel until
	// stop is called. fn runs on the store's goroutine and must not block.
	Subscribe(channel string, fn func(msg []byte)) (stop func())

	// Shared reports whether other instances see this store's state.
	Shared() bool
}

// Count is one counter of a Take, Add or Read: a limit's use in one
// window.
type Count struct {
	// Key names the counter.
	Key string
	// Amount is what Take or Add adds.
	Amount int64
	// Limit is the value the counter must be below for Take to add;
	// negative for none.
	Limit int64
	// Ends is when the counter's window ends and it is forgotten.
	Ends time.Time
}

// ErrUnavailable is wrapped by the errors of a store that could not be
// reached or did not answer in time.
var ErrUnavailable = errors.New("state store unavailable")
