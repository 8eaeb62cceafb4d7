package fleet

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/llmbridge/llmbridge/caddymodule/failover"
	"github.com/llmbridge/llmbridge/caddymodule/state"
)

// With a store that other instances see (Valkey), what one
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

// Learner keeps a lesson another instance learned: it reads the lesson
// from the same refusal, as the instance that learned it did.
type Learner interface {
	// LearnShared keeps what model's refusal (status, message) teaches.
	LearnShared(model string, status int, message string)
}

// learners are a learner per provider of the loaded configuration
// (lessons are kept per provider).
var learners sync.Map // provider -> Learner

// Teach makes l the learner of provider's lessons from other instances.
func Teach(provider string, l Learner) { learners.Store(provider, l) }

// Forget forgets l as the learner of provider's lessons, unless another
// has taken its place (a reloaded configuration's).
func Forget(provider string, l Learner) { learners.CompareAndDelete(provider, l) }

// Learned tells the fleet that model of provider refused a request with
// status and message, and that the lesson it taught was kept: every
// instance reads the same lesson from the same refusal.
func Learned(store state.Store, provider, model string, status int, message string) {
	publish(store, eventLearn, instanceID, provider, model, strconv.Itoa(status),
		base64.RawURLEncoding.EncodeToString([]byte(message)))
}

// Cooled tells the fleet that a failover target cooled down (or, with
// open, that its circuit opened) until the time until, in Unix
// nanoseconds.
func Cooled(store state.Store, open bool, target string, until int64) {
	event := eventCool
	if open {
		event = eventOpen
	}
	publish(store, event, target, unixNano(until))
}

// KeyCooled tells the fleet that member of the key pool poolID cools down
// until the time until, in Unix nanoseconds, or, with until 0, that the
// upstream refused the key for good.
func KeyCooled(store state.Store, poolID string, member int, until int64) {
	if until == 0 {
		publish(store, eventKeyOut, poolID, strconv.Itoa(member))
		return
	}
	publish(store, eventKeyCool, poolID, strconv.Itoa(member), unixNano(until))
}

// applyLesson keeps another instance's lesson (the fields of a learn
// event after its kind).
func applyLesson(f []string) {
	if len(f) != 5 || f[0] == instanceID {
		return
	}
	v, ok := learners.Load(f[1])
	if !ok {
		return
	}
	status, err := strconv.Atoi(f[3])
	msg, err2 := base64.RawURLEncoding.DecodeString(f[4])
	if err != nil || err2 != nil {
		return
	}
	v.(Learner).LearnShared(f[2], status, string(msg))
}

// Listen subscribes the process to the events of app's store, once per
// app. A store that other instances do not see needs no events: its
// state is this process's already.
func Listen(app *state.App) {
	if app.Store().Shared() {
		app.Listen(eventsChannel, Apply)
	}
}

// publish sends an event to every instance, off the request path.
func publish(store state.Store, fields ...string) {
	if store == nil || !store.Shared() {
		return
	}
	msg := []byte(strings.Join(fields, " "))
	go func() { _ = store.Publish(context.Background(), eventsChannel, msg) }()
}

// Apply applies an event of another instance, as the store delivered it
// (or this one's, which changes nothing: every event keeps the later end,
// and an instance's own lessons are skipped).
func Apply(msg []byte) {
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
