package caddymodule

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"
	"time"

	"github.com/llmbridge/llmbridge/caddymodule/state"
)

// Shared state: with a store that other instances see (Valkey), what one
// instance learns of its upstreams reaches every instance as an event on
// the store's "events" channel: a target's cooldown and its open circuit
// (a provider's 429 with Retry-After cools the target for the fleet), a
// pooled key's cooldown and a key the upstream refused. Each instance
// keeps its own copy in memory, so a request reads no store: events are
// applied as they arrive (the newest end wins), and an instance that
// starts later learns from the next ones. Events are published off the
// request path; a store that cannot be reached drops them (each instance
// then learns from its own answers, as without a shared store).

// eventsChannel is the store channel of the events.
const eventsChannel = "events"

// sharedEvent kinds, the first word of an event.
const (
	eventCool    = "cool"    // cool <target> <until unix ns>
	eventOpen    = "open"    // open <target> <until unix ns>
	eventKeyCool = "keycool" // keycool <pool id> <member> <until unix ns>
	eventKeyOut  = "keyout"  // keyout <pool id> <member>
)

// listenEvents subscribes the process to the events of app's store, once
// per app. A store that other instances do not see needs no events: its
// state is this process's already.
func listenEvents(app *state.App) {
	if app.Store().Shared() {
		app.Listen(eventsChannel, applyEvent)
	}
}

// publishEvent sends an event to every instance, off the request path.
func publishEvent(store state.Store, fields ...string) {
	if store == nil || !store.Shared() {
		return
	}
	msg := []byte(strings.Join(fields, " "))
	go func() { _ = store.Publish(context.Background(), eventsChannel, msg) }()
}

// applyEvent applies an event of another instance (or this one's, which
// changes nothing: every event keeps the later end).
func applyEvent(msg []byte) {
	f := strings.Fields(string(msg))
	if len(f) < 3 {
		return
	}
	switch f[0] {
	case eventCool, eventOpen:
		until, err := strconv.ParseInt(f[2], 10, 64)
		if err != nil || until <= time.Now().UnixNano() {
			return
		}
		s := stateOf(f[1])
		if f[0] == eventCool {
			s.coolUntil(until)
		} else {
			s.openUntil(until)
		}
	case eventKeyCool, eventKeyOut:
		i, err := strconv.Atoi(f[2])
		if err != nil {
			return
		}
		until := int64(0)
		if f[0] == eventKeyCool {
			if len(f) < 4 {
				return
			}
			if until, err = strconv.ParseInt(f[3], 10, 64); err != nil {
				return
			}
		}
		pools.Range(func(k, _ any) bool {
			p := k.(*keyPool)
			if p.id != f[1] || i < 0 || i >= len(p.keys) {
				return true
			}
			if f[0] == eventKeyOut {
				p.takeOut(i, 0, "another instance")
			} else {
				p.coolUntil(i, until)
			}
			return true
		})
	}
}

// poolID names a pool of credentials across instances by a digest of its
// members' identities (a key, an application, a profile): the same pool
// configured on several instances has the same id, and the id reveals no
// credential.
func poolID(kind string, members []string) string {
	h := sha256.New()
	h.Write([]byte(kind))
	for _, m := range members {
		h.Write([]byte{0})
		h.Write([]byte(m))
	}
	return hex.EncodeToString(h.Sum(nil)[:12])
}

// unixNano formats t for an event.
func unixNano(t int64) string { return strconv.FormatInt(t, 10) }
