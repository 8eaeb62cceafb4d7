package state

import (
	"bytes"
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/valkey-io/valkey-go"

	"github.com/llmbridge/llmbridge/internal/valkeytest"
)

// stores returns a Memory store and a Valkey store on a real server, for
// the tests every backend must pass alike.
func stores(t *testing.T) map[string]Store {
	t.Helper()
	out := map[string]Store{"memory": NewMemory(1 << 20)}
	srv := valkeytest.Start(t)
	v, err := NewValkey(ValkeyOptions{Client: valkey.ClientOption{InitAddress: []string{srv.Addr}, DisableCache: true},
		Prefix: "test:" + t.Name() + ":", Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(v.Close)
	out["valkey"] = v
	return out
}

func TestStoreValues(t *testing.T) {
	for name, s := range stores(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			if _, ok, err := s.Get(ctx, "missing"); ok || err != nil {
				t.Fatalf("Get of a missing key: ok %v err %v", ok, err)
			}
			if err := s.Set(ctx, "k", []byte("v1"), time.Minute); err != nil {
				t.Fatal(err)
			}
			if v, ok, err := s.Get(ctx, "k"); !ok || err != nil || string(v) != "v1" {
				t.Fatalf("Get = %q %v %v, want v1", v, ok, err)
			}
			if err := s.Set(ctx, "short", []byte("x"), 50*time.Millisecond); err != nil {
				t.Fatal(err)
			}
			time.Sleep(120 * time.Millisecond)
			if _, ok, _ := s.Get(ctx, "short"); ok {
				t.Errorf("a value outlived its ttl")
			}
			if err := s.Delete(ctx, "k"); err != nil {
				t.Fatal(err)
			}
			if _, ok, _ := s.Get(ctx, "k"); ok {
				t.Errorf("a deleted value is still there")
			}
		})
	}
}

// TestStoreTake checks the atomic check-and-add of counters: concurrent
// takers of a cap of n get exactly n admissions, and a refusal adds
// nothing.
func TestStoreTake(t *testing.T) {
	for name, s := range stores(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			ends := time.Now().Add(time.Minute)
			const limit, takers = 25, 100
			var admitted atomic.Int64
			var wg sync.WaitGroup
			for range takers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					counts := []Count{{Key: "{a}:req", Amount: 1, Limit: limit, Ends: ends}, {Key: "{a}:tok", Amount: 10, Limit: -1, Ends: ends}}
					values := make([]int64, 2)
					ok, err := s.Take(ctx, counts, values)
					if err != nil {
						t.Error(err)
						return
					}
					if ok {
						admitted.Add(1)
					}
				}()
			}
			wg.Wait()
			if admitted.Load() != limit {
				t.Errorf("%d admitted, want %d", admitted.Load(), limit)
			}
			values := make([]int64, 2)
			if err := s.Read(ctx, []Count{{Key: "{a}:req"}, {Key: "{a}:tok"}}, values); err != nil {
				t.Fatal(err)
			}
			if values[0] != limit || values[1] != 10*limit {
				t.Errorf("counters %v, want [%d %d]: a refusal must add nothing", values, limit, 10*limit)
			}
			if err := s.Add(ctx, []Count{{Key: "{a}:tok", Amount: -30, Ends: ends}}); err != nil {
				t.Fatal(err)
			}
			if err := s.Read(ctx, []Count{{Key: "{a}:tok"}}, values[:1]); err != nil || values[0] != 10*limit-30 {
				t.Errorf("after Add(-30): %d %v, want %d", values[0], err, 10*limit-30)
			}
		})
	}
}

// TestStoreWindowEnds forgets a counter when its window ends.
func TestStoreWindowEnds(t *testing.T) {
	for name, s := range stores(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			c := []Count{{Key: "{w}:n", Amount: 1, Limit: 1, Ends: time.Now().Add(100 * time.Millisecond)}}
			v := make([]int64, 1)
			if ok, _ := s.Take(ctx, c, v); !ok {
				t.Fatal("first take refused")
			}
			if ok, _ := s.Take(ctx, c, v); ok {
				t.Fatal("second take admitted over a cap of 1")
			}
			time.Sleep(200 * time.Millisecond)
			c[0].Ends = time.Now().Add(time.Minute)
			if ok, _ := s.Take(ctx, c, v); !ok {
				t.Errorf("a take in the next window was refused (counter %d)", v[0])
			}
		})
	}
}

// TestStorePublish delivers a message to every subscriber of its channel.
func TestStorePublish(t *testing.T) {
	for name, s := range stores(t) {
		t.Run(name, func(t *testing.T) {
			got := make(chan []byte, 4)
			stop := s.Subscribe("events", func(m []byte) { got <- bytes.Clone(m) })
			defer stop()
			// A Valkey subscription starts on its own connection.
			deadline := time.Now().Add(5 * time.Second)
			for {
				if err := s.Publish(context.Background(), "events", []byte("hello")); err != nil {
					t.Fatal(err)
				}
				select {
				case m := <-got:
					if string(m) != "hello" {
						t.Fatalf("got %q", m)
					}
					return
				case <-time.After(100 * time.Millisecond):
				}
				if time.Now().After(deadline) {
					t.Fatal("no message arrived")
				}
			}
		})
	}
}

// TestValkeyOutage stops the server: values go on from local memory,
// counters fail with ErrUnavailable within the timeout, and the store
// recovers when the server is back, without a restart.
func TestValkeyOutage(t *testing.T) {
	srv := valkeytest.Start(t)
	var health []bool
	var mu sync.Mutex
	v, err := NewValkey(ValkeyOptions{Client: valkey.ClientOption{InitAddress: []string{srv.Addr}, DisableCache: true},
		Prefix: "outage:", Timeout: 50 * time.Millisecond, OnHealth: func(up bool) { mu.Lock(); health = append(health, up); mu.Unlock() }})
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	ctx := context.Background()
	srv.Stop()
	start := time.Now()
	if err := v.Set(ctx, "item", []byte("kept"), time.Minute); err != nil {
		t.Fatalf("Set during an outage: %v (want it kept locally)", err)
	}
	if b, ok, err := v.Get(ctx, "item"); !ok || err != nil || string(b) != "kept" {
		t.Errorf("Get during an outage: %q %v %v, want the locally kept value", b, ok, err)
	}
	_, err = v.Take(ctx, []Count{{Key: "{x}:n", Amount: 1, Limit: 5, Ends: time.Now().Add(time.Minute)}}, make([]int64, 1))
	if !errors.Is(err, ErrUnavailable) {
		t.Errorf("Take during an outage: %v, want ErrUnavailable", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("three operations during an outage took %v", d)
	}
	srv.Restart(t)
	deadline := time.Now().Add(10 * time.Second)
	for {
		_, err := v.Take(ctx, []Count{{Key: "{x}:n", Amount: 1, Limit: 5, Ends: time.Now().Add(time.Minute)}}, make([]int64, 1))
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the store did not recover: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(health) != 2 || health[0] || !health[1] {
		t.Errorf("health changes %v, want [false true]: the outage logged once and its end once", health)
	}
}

// TestValkeyStartsBeforeServer makes a store while its server is down:
// it works from local memory, then connects once the server is up.
func TestValkeyStartsBeforeServer(t *testing.T) {
	srv := valkeytest.Start(t)
	srv.Stop()
	v, err := NewValkey(ValkeyOptions{Client: valkey.ClientOption{InitAddress: []string{srv.Addr}, DisableCache: true},
		Prefix: "late:", Timeout: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	ctx := context.Background()
	if _, err := v.Take(ctx, []Count{{Key: "{l}:n", Amount: 1, Limit: 5, Ends: time.Now().Add(time.Minute)}}, make([]int64, 1)); !errors.Is(err, ErrUnavailable) {
		t.Errorf("Take before the server is up: %v, want ErrUnavailable", err)
	}
	srv.Restart(t)
	deadline := time.Now().Add(10 * time.Second)
	for {
		ok, err := v.Take(ctx, []Count{{Key: "{l}:n", Amount: 1, Limit: 5, Ends: time.Now().Add(time.Minute)}}, make([]int64, 1))
		if err == nil && ok && v.Shared() {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the store never connected: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestMemoryBounds evicts the oldest values past the byte bound, keeps a
// value stored again, and forgets counters whose window ended.
func TestMemoryBounds(t *testing.T) {
	ctx := context.Background()
	m := NewMemory(3 * (memoryOverhead + 2 + 100))
	now := time.Now()
	m.now = func() time.Time { return now }
	for _, k := range []string{"k1", "k2", "k3"} {
		_ = m.Set(ctx, k, make([]byte, 100), 0)
	}
	_ = m.Set(ctx, "k1", make([]byte, 100), 0) // k1 is the newest now
	_ = m.Set(ctx, "k4", make([]byte, 100), 0)
	if _, ok, _ := m.Get(ctx, "k2"); ok {
		t.Error("the oldest value was not evicted")
	}
	for _, k := range []string{"k1", "k3", "k4"} {
		if _, ok, _ := m.Get(ctx, k); !ok {
			t.Errorf("%s was evicted", k)
		}
	}
	_ = m.Add(ctx, []Count{{Key: "c", Amount: 5, Ends: now.Add(time.Second)}})
	now = now.Add(2 * time.Minute)
	v := make([]int64, 1)
	_, _ = m.Take(ctx, []Count{{Key: "other", Amount: 1, Limit: -1, Ends: now.Add(time.Minute)}}, v)
	if _, ok := m.counters["c"]; ok {
		t.Error("a counter whose window ended was not swept")
	}
	if err := m.Read(ctx, []Count{{Key: "c"}}, v); err != nil || v[0] != 0 {
		t.Errorf("an ended counter reads %d", v[0])
	}
}

// TestValkeyOutageOperations checks every operation during an outage:
// Set without a lifetime and Delete go on locally, counters and events
// fail with ErrUnavailable.
func TestValkeyOutageOperations(t *testing.T) {
	srv := valkeytest.Start(t)
	v, err := NewValkey(ValkeyOptions{Client: valkey.ClientOption{InitAddress: []string{srv.Addr}, DisableCache: true}, Prefix: "ops:"})
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	ctx := context.Background()
	if err := v.Set(ctx, "forever", []byte("x"), 0); err != nil {
		t.Fatal(err)
	}
	if err := v.Add(ctx, nil); err != nil {
		t.Error(err)
	}
	if err := v.Read(ctx, nil, nil); err != nil {
		t.Error(err)
	}
	srv.Stop()
	v.timeout = 50 * time.Millisecond
	if err := v.Set(ctx, "forever", []byte("y"), 0); err != nil {
		t.Errorf("Set during an outage: %v", err)
	}
	if err := v.Delete(ctx, "forever"); !errors.Is(err, ErrUnavailable) {
		t.Errorf("Delete during an outage: %v", err)
	}
	for name, err := range map[string]error{
		"add":     v.Add(ctx, []Count{{Key: "{o}:n", Amount: 1, Ends: time.Now().Add(time.Minute)}}),
		"read":    v.Read(ctx, []Count{{Key: "{o}:n"}}, make([]int64, 1)),
		"publish": v.Publish(ctx, "events", []byte("x")),
	} {
		if !errors.Is(err, ErrUnavailable) {
			t.Errorf("%s during an outage: %v", name, err)
		}
	}
	if v.outages.Load() != 1 {
		t.Errorf("%d outages logged, want 1", v.outages.Load())
	}
}
