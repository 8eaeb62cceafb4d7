package caddymodule

import (
	"encoding/base64"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"

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
	applyEvent([]byte(eventCool + " " + name + " " + unixNano(until)))
	if got := failover.StateOf(name).CooledUntil(); got != until {
		t.Errorf("cooldown %d, want %d", got, until)
	}
	applyEvent([]byte(eventCool + " " + name + " " + unixNano(until-int64(time.Second))))
	if got := failover.StateOf(name).CooledUntil(); got != until {
		t.Errorf("an earlier end replaced a later one: %d", got)
	}
	applyEvent([]byte(eventOpen + " " + name + " " + unixNano(until)))
	if got := failover.StateOf(name).Until(now); got != until {
		t.Errorf("until %d after the circuit opened elsewhere, want %d", got, until)
	}
	applyEvent([]byte(eventCool + " " + name + "-past " + unixNano(now-1)))
	if !failover.StateOf(name + "-past").Idle() {
		t.Errorf("a cooldown that already ended was applied")
	}

	p := failover.NewPool("api_key", []clouds.Credential{{Key: "k0-" + name}, {Key: "k1-" + name}}, zap.NewNop())
	failover.Register(p)
	defer failover.Forget(p)
	applyEvent([]byte(eventKeyCool + " " + p.ID() + " 1 " + unixNano(until)))
	if i, _ := p.Pick(now); i != 0 {
		t.Errorf("picked key %d while key 1 cools", i)
	}
	applyEvent([]byte(eventKeyOut + " " + p.ID() + " 0"))
	if i, _ := p.Pick(now); i != -1 || p.OutCount() != 1 {
		t.Errorf("picked %d with key 0 out and key 1 cooling (out %d)", i, p.OutCount())
	}
	applyEvent([]byte(eventKeyOut + " " + p.ID() + " 0"))
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
	publishEvent(state.Local(), eventCool, "x", "1")
	time.Sleep(10 * time.Millisecond)
	if got != 0 {
		t.Errorf("an event was published to a store no other instance sees")
	}
}

// TestApplyLesson keeps a lesson another instance learned, read from the
// same refusal, and skips this instance's own.
func TestApplyLesson(t *testing.T) {
	h := newTestHandler(t, &Handler{Upstream: "openai-chat"})
	model := "acme-shared-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	refusal := base64.RawURLEncoding.EncodeToString([]byte("Unsupported parameter: 'top_p' is not supported with this model."))
	applyEvent([]byte(strings.Join([]string{eventLearn, instanceID, h.provider, model, "400", refusal}, " ")))
	if h.fitter.Lessons.Lookup(model) != nil {
		t.Fatal("this instance's own lesson was applied again")
	}
	applyEvent([]byte(strings.Join([]string{eventLearn, "another-instance", h.provider, model, "400", refusal}, " ")))
	lr := h.fitter.Lessons.Lookup(model)
	if lr == nil {
		t.Fatal("another instance's lesson was not kept")
	}
	if !slices.Contains(lr.Rule.Rejects, "top_p") && lr.Rule.Sampling == "" {
		t.Errorf("the kept rule %+v does not refuse top_p", lr.Rule)
	}
}

// TestEventsThroughValkey sends a cooldown through a real Valkey (or
// Redis) server: published off the request path, received by the
// subscription listenEvents made, applied to the process's state.
func TestEventsThroughValkey(t *testing.T) {
	srv := valkeytest.Start(t)
	app := &state.App{State: &state.StoreConfig{Backend: "valkey", Addresses: []string{srv.Addr}, KeyPrefix: "events-test:"}}
	ctx, cancel := caddyContext()
	defer cancel()
	if err := app.Provision(ctx); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = app.Stop() }()
	listenEvents(app)
	listenEvents(app) // one subscription however many handlers ask
	name := "valkey-event-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	until := time.Now().Add(time.Minute).UnixNano()
	deadline := time.Now().Add(5 * time.Second)
	for failover.StateOf(name).CooledUntil() != until {
		// The subscription starts on its own connection: publish until
		// it has.
		publishEvent(app.Store(), eventCool, name, unixNano(until))
		if time.Now().After(deadline) {
			t.Fatal("the event did not come back through the store")
		}
		time.Sleep(50 * time.Millisecond)
	}
}
