package caddymodule

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/llmbridge/llmbridge/caddymodule/failover"
	"github.com/llmbridge/llmbridge/caddymodule/policy"
	"github.com/llmbridge/llmbridge/caddymodule/state"
)

// Shared state: with a store that other instances see (Valkey), what one
// instance learns of its upstreams reaches every instance as an event on
// the store's "events" channel: a target's cooldown and its open circuit
// (a provider's 429 with Retry-After cools the target for the fleet), a
// pooled key's cooldown and a key the upstream refused, and a model rule
// a refusal taught (errors that teach: each instance reads the lesson from
// the same refusal text). Each instance
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
	eventLearn   = "learn"   // learn <instance> <provider> <model> <status> <refusal, base64>
)

// instanceID tells this process's lessons from other instances': a
// lesson is kept by the instance that learned it before it is published.
var instanceID = func() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}()

// teachers are a handler per provider of the loaded configuration, whose
// rules read another instance's lesson (lessons are kept per provider).
var teachers sync.Map // string -> *Handler

// publishLesson tells the fleet that model of h's provider refused a
// request with status and message, and that the lesson it taught was
// kept: every instance reads the same lesson from the same refusal.
func publishLesson(h *Handler, model string, status int, message string) {
	publishEvent(h.store, eventLearn, instanceID, h.provider, model, strconv.Itoa(status),
		base64.RawURLEncoding.EncodeToString([]byte(message)))
}

// applyLesson keeps another instance's lesson (the fields of a learn
// event after its kind).
func applyLesson(f []string) {
	if len(f) != 5 || f[0] == instanceID {
		return
	}
	v, ok := teachers.Load(f[1])
	if !ok {
		return
	}
	h := v.(*Handler)
	status, err := strconv.Atoi(f[3])
	msg, err2 := base64.RawURLEncoding.DecodeString(f[4])
	if err != nil || err2 != nil {
		return
	}
	model := f[2]
	if _, _, lr, ok := h.fitter.Learn(model, status, string(msg)); ok {
		h.fitter.Lessons.Store(model, lr)
		h.logger.Info("kept a model rule another instance learned", zap.String("upstream_model", model),
			zap.String("model_rule", policy.RuleBlock([]string{model}, lr.Like, &lr.Delta)))
	}
}

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
// changes nothing: every event keeps the later end, and an instance's own
// lessons are skipped).
func applyEvent(msg []byte) {
	f := strings.Fields(string(msg))
	if len(f) < 3 {
		return
	}
	switch f[0] {
	case eventLearn:
		applyLesson(f[1:])
	case eventCool, eventOpen:
		until, err := strconv.ParseInt(f[2], 10, 64)
		if err != nil || until <= time.Now().UnixNano() {
			return
		}
		s := failover.StateOf(f[1])
		if f[0] == eventCool {
			s.CoolUntil(until)
		} else {
			s.OpenUntil(until)
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
		failover.EachPool(func(p *failover.Pool) bool {
			if p.ID() != f[1] {
				return true
			}
			if f[0] == eventKeyOut {
				p.TakeOut(i, 0, "another instance")
			} else {
				p.CoolUntil(i, until)
			}
			return true
		})
	}
}

// unixNano formats t for an event.
func unixNano(t int64) string { return strconv.FormatInt(t, 10) }
