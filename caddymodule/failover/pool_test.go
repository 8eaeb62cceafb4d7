package failover

import (
	"net/http"
	"slices"
	"testing"
	"time"

	"go.uber.org/zap"

	"github.com/llmbridge/llmbridge/caddymodule/clouds"
)

func TestKeyPool(t *testing.T) {
	p := NewPool("api_key", []clouds.Credential{{Key: "k0"}, {Key: "k1"}, {Key: "k2"}}, zap.NewNop())
	now := time.Now().UnixNano()
	var got []int
	for range 6 {
		i, _ := p.Pick(now)
		got = append(got, i)
	}
	if want := []int{0, 1, 2, 0, 1, 2}; !slices.Equal(got, want) {
		t.Errorf("picks %v, want %v", got, want)
	}
	if others := p.Note(1, http.StatusUnauthorized, http.Header{}); !others || p.OutCount() != 1 {
		t.Errorf("a refused key: others %v, out %d", others, p.OutCount())
	}
	if others := p.Note(2, http.StatusTooManyRequests, http.Header{"Retry-After": {"60"}}); !others {
		t.Errorf("a rate-limited key left no other")
	}
	for range 4 {
		if i, _ := p.Pick(time.Now().UnixNano()); i != 0 {
			t.Errorf("picked key %d while 1 is out and 2 cooling", i)
		}
	}
	if others := p.Note(0, http.StatusForbidden, http.Header{}); others {
		t.Errorf("the last usable key out, yet others usable")
	}
	i, soonest := p.Pick(time.Now().UnixNano())
	if i != -1 || soonest == 0 {
		t.Errorf("pick = %d, %d; want none, with key 2's cooldown", i, soonest)
	}
	p.Note(2, http.StatusUnauthorized, http.Header{})
	if i, soonest := p.Pick(time.Now().UnixNano()); i != -1 || soonest != 0 {
		t.Errorf("every key out: pick = %d, %d; want -1, 0", i, soonest)
	}
}

// TestPoolRegistry lists registered pools until they are forgotten, and
// names each pool and member without a secret.
func TestPoolRegistry(t *testing.T) {
	p := NewPool("aws_profile", []clouds.Credential{{Name: "aws_profile dev"}, {Name: "aws_profile prod"}}, zap.NewNop())
	same := NewPool("aws_profile", []clouds.Credential{{Name: "aws_profile dev"}, {Name: "aws_profile prod"}}, zap.NewNop())
	if p.ID() != same.ID() || p.Kind() != "aws_profile" || p.Len() != 2 || p.Member(1).Name != "aws_profile prod" || p.Name() != "" {
		t.Errorf("pool %s %s %d %q", p.ID(), p.Kind(), p.Len(), p.Name())
	}
	p.SetTarget("first")
	p.SetLogger(zap.NewNop())
	if p.Name() != "first" {
		t.Errorf("named %q", p.Name())
	}
	listed := func() bool {
		found := false
		EachPool(func(q *Pool) bool { found = found || q == p; return !found })
		return found
	}
	Register(p)
	if !listed() {
		t.Error("a registered pool is not listed")
	}
	Forget(p)
	Forget(nil)
	if listed() {
		t.Error("a forgotten pool is listed")
	}
	// What the pool shares with the fleet: a refusal, then a cooldown.
	var shared []int64
	p.Share = func(id string, i int, until int64) { shared = append(shared, int64(i), until) }
	p.Note(0, 401, nil)
	p.Note(1, 429, nil)
	if len(shared) != 4 || shared[0] != 0 || shared[1] != 0 || shared[2] != 1 || shared[3] != p.CooledUntil(1) || p.CooledUntil(1) == 0 {
		t.Errorf("shared %v", shared)
	}
	if p.TakeOut(5, 401, "x") || p.Note(0, 200, nil) {
		t.Error("a member outside the pool, or a success, changed it")
	}
	p.CoolUntil(-1, 1)
}
