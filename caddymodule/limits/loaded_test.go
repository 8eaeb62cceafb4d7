package limits

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/llmbridge/llmbridge/caddymodule/state"
)

func TestLoaded(t *testing.T) {
	now := time.Now()
	set, err := New([]Limit{{Scope: "loaded-test", Rates: []Rate{{Of: "requests", Max: 3, Per: "minute"}}}}, state.NewMemory(0))
	if err != nil {
		t.Fatal(err)
	}
	count := func() int {
		rs, err := Loaded(context.Background(), now)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, r := range rs {
			if r.Scope == "loaded-test" {
				n++
			}
		}
		return n
	}
	Publish(set, []string{"alice", "bob"})
	if n := count(); n != 2 {
		t.Errorf("%d reports, want alice's and bob's", n)
	}
	Withdraw(set)
	Withdraw(nil)
	if n := count(); n != 0 {
		t.Errorf("%d reports of a withdrawn set", n)
	}
	broken, _ := New([]Limit{{Scope: "loaded-broken", Rates: []Rate{{Of: "requests", Max: 3, Per: "minute"}}}}, failingStore{state.NewMemory(0)})
	Publish(broken, []string{"alice"})
	defer Withdraw(broken)
	if _, err := Loaded(context.Background(), now); err == nil {
		t.Error("a store that cannot be read reported nothing wrong")
	}
}

// failingStore is a store whose counters cannot be read.
type failingStore struct{ state.Store }

func (failingStore) Read(context.Context, []state.Count, []int64) error {
	return errors.New("unreachable")
}

func TestAmounts(t *testing.T) {
	for v, want := range map[float64]string{0: "0", 60: "60", 1.5: "1.50", 0.125: "0.12", 1e20: "100000000000000000000.00"} {
		if got := FormatAmount(v); got != want {
			t.Errorf("FormatAmount(%v) = %s, want %s", v, got, want)
		}
	}
}
