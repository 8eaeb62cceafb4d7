package fleet

import (
	"context"
	"encoding/base64"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"

	"github.com/caddyserver/caddy/v2"
	"github.com/llmbridge/llmbridge/caddymodule/clouds"
	"github.com/llmbridge/llmbridge/caddymodule/failover"
	"github.com/llmbridge/llmbridge/caddymodule/state"
	"github.com/llmbridge/llmbridge/internal/valkeytest"
)

// TestApplyEvent applies the fleet's events to this instance's copy of
// the state: a target's cooldown and open circuit (the later end wins),
// a pooled key's cooldown and refusal, found by the pool's id.
func TestApplyEvent(t *testing.T) {
	now := time.Now().UnixNano()
	name := "shared-test-" + strconv.FormatInt(now, 36)
	until := now + int64(time.Minute)
	Apply([]byte(eventCool + " " + name + " " + unixNano(until)))
	if got := failover.StateOf(name).CooledUntil(); got != until {
		t.Errorf("cooldown %d, want %d", got, until)
	}
	Apply([]byte(eventCool + " " + name + " " + unixNano(until-int64(time.Second))))
	if got := failover.StateOf(name).CooledUntil(); got != until {
		t.Errorf("an earlier end replaced a later one: %d", got)
	}
	Apply([]byte(eventOpen + " " + name + " " + unixNano(until)))
	if got := failover.StateOf(name).Until(now); got != until {
		t.Errorf("until %d after the circuit opened elsewhere, want %d", got, until)
	}
	Apply([]byte(eventCool + " " + name + "-past " + unixNano(now-1)))
	if !failover.StateOf(name + "-past").Idle() {
		t.Errorf("a cooldown that already ended was applied")
	}

	p := failover.NewPool("api_key", []clouds.Credential{{Key: "k0-" + name}, {Key: "k1-" + name}}, zap.NewNop())
	failover.Register(p)
	defer failover.Forget(p)
	Apply([]byte(eventKeyCool + " " + p.ID() + " 1 " + unixNano(until)))
	if i, _ := p.Pick(now); i != 0 {
		t.Errorf("picked key %d while key 1 cools", i)
	}
	Apply([]byte(eventKeyOut + " " + p.ID() + " 0"))
	if i, _ := p.Pick(now); i != -1 || p.OutCount() != 1 {
		t.Errorf("picked %d with key 0 out and key 1 cooling (out %d)", i, p.OutCount())
	}
	Apply([]byte(eventKeyOut + " " + p.ID() + " 0"))
	if p.OutCount() != 1 {
		t.Errorf("a repeated refusal counted twice: %d out", p.OutCount())
	}
	other := failover.NewPool("api_key", []clouds.Credential{{Key: "other-" + name}}, zap.NewNop())
	if other.ID() == p.ID() {
		t.Errorf("pools of different keys share an id")
	}
	if again := failover.NewPool("api_key", []clouds.Credential{{Key: "k0-" + name}, {Key: "k1-" + name}}, zap.NewNop()); again.ID() != p.ID() {
		t.Errorf("the same pool on another instance has another id")
	}
}

// TestEventsThroughMemory checks the publish path on a store that is not
// shared: nothing is published, the process's state is already everyone's.
func TestEventsThroughMemory(t *testing.T) {
	got := 0
	stop := state.Local().Subscribe(eventsChannel, func([]byte) { got++ })
	defer stop()
	Cooled(state.Local(), false, "x", 1)
	time.Sleep(10 * time.Millisecond)
	if got != 0 {
		t.Errorf("an event was published to a store no other instance sees")
	}
}

// recordingLearner notes the lessons it is given.
type recordingLearner struct{ got []string }

func (l *recordingLearner) LearnShared(model string, status int, message string) {
	l.got = append(l.got, model+" "+strconv.Itoa(status)+" "+message)
}

// TestApplyLesson gives another instance's lesson, with its refusal, to
// the provider's learner; this instance's own, an unknown provider's and
// a garbled event are skipped, and a forgotten learner gets nothing.
func TestApplyLesson(t *testing.T) {
	provider := "acme-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	l := new(recordingLearner)
	Teach(provider, l)
	refusal := base64.RawURLEncoding.EncodeToString([]byte("top_p is not supported"))
	for _, ev := range []string{
		strings.Join([]string{eventLearn, instanceID, provider, "m", "400", refusal}, " "),
		strings.Join([]string{eventLearn, "other", "nobody", "m", "400", refusal}, " "),
		strings.Join([]string{eventLearn, "other", provider, "m", "four hundred", refusal}, " "),
		strings.Join([]string{eventLearn, "other", provider, "m", "400", "!!"}, " "),
		strings.Join([]string{eventLearn, "other", provider, "m", "400", refusal}, " "),
	} {
		Apply([]byte(ev))
	}
	if want := []string{"m 400 top_p is not supported"}; !slices.Equal(l.got, want) {
		t.Errorf("learned %q, want %q", l.got, want)
	}
	Forget(provider, new(recordingLearner)) // another's: l stays
	Apply([]byte(strings.Join([]string{eventLearn, "other", provider, "m2", "400", refusal}, " ")))
	Forget(provider, l)
	Apply([]byte(strings.Join([]string{eventLearn, "other", provider, "m", "400", refusal}, " ")))
	if len(l.got) != 2 {
		t.Errorf("learned %q: want the lesson after another's Forget, none after its own", l.got)
	}
}

// TestEventsPublished checks what a shared store is sent: each event's
// words, as Apply reads them.
func TestEventsPublished(t *testing.T) {
	srv := valkeytest.Start(t)
	app := &state.App{State: &state.StoreConfig{Backend: "valkey", Addresses: []string{srv.Addr}, KeyPrefix: "events-words:"}}
	ctx, cancel := caddy.NewContext(caddy.Context{Context: context.Background()})
	defer cancel()
	if err := app.Provision(ctx); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = app.Stop() }()
	msgs := make(chan string, 16)
	stop := app.Store().Subscribe(eventsChannel, func(m []byte) { msgs <- string(m) })
	defer stop()
	want := []string{"keyout pool 2", "keycool pool 1 99", "open t 7", "learn " + instanceID + " p m 400 " + base64.RawURLEncoding.EncodeToString([]byte("no"))}
	deadline := time.After(5 * time.Second)
	for {
		// The subscription starts on its own connection: publish until
		// it has.
		KeyCooled(app.Store(), "pool", 2, 0)
		select {
		case m := <-msgs:
			if m != want[0] {
				continue
			}
		case <-deadline:
			t.Fatal("no event came back through the store")
		case <-time.After(50 * time.Millisecond):
			continue
		}
		break
	}
	KeyCooled(app.Store(), "pool", 1, 99)
	Cooled(app.Store(), true, "t", 7)
	Learned(app.Store(), "p", "m", 400, "no")
	seen := map[string]bool{}
	for len(seen) < 3 {
		select {
		case m := <-msgs:
			seen[m] = true
		case <-deadline:
			t.Fatalf("events seen %v, want %q", seen, want[1:])
		}
	}
	for _, w := range want[1:] {
		if !seen[w] {
			t.Errorf("event %q not published (seen %v)", w, seen)
		}
	}
}

// TestEventsThroughValkey sends a cooldown through a real Valkey (or
// Redis) server: published off the request path, received by the
// subscription Listen made, applied to the process's state.
func TestEventsThroughValkey(t *testing.T) {
	srv := valkeytest.Start(t)
	app := &state.App{State: &state.StoreConfig{Backend: "valkey", Addresses: []string{srv.Addr}, KeyPrefix: "events-test:"}}
	ctx, cancel := caddy.NewContext(caddy.Context{Context: context.Background()})
	defer cancel()
	if err := app.Provision(ctx); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = app.Stop() }()
	Listen(app)
	Listen(app) // one subscription however many handlers ask
	name := "valkey-event-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	until := time.Now().Add(time.Minute).UnixNano()
	deadline := time.Now().Add(5 * time.Second)
	for failover.StateOf(name).CooledUntil() != until {
		// The subscription starts on its own connection: publish until
		// it has.
		Cooled(app.Store(), false, name, until)
		if time.Now().After(deadline) {
			t.Fatal("the event did not come back through the store")
		}
		time.Sleep(50 * time.Millisecond)
	}
}
