package caddymodule

import (
	"net/http"
	"slices"
	"testing"
	"time"

	"go.uber.org/zap"

	"github.com/llmbridge/llmbridge/caddymodule/clouds"
)

func TestRetryHint(t *testing.T) {
	now := time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)
	h := func(kv ...string) http.Header {
		hdr := http.Header{}
		for i := 0; i < len(kv); i += 2 {
			hdr.Set(kv[i], kv[i+1])
		}
		return hdr
	}
	cases := []struct {
		name string
		hdr  http.Header
		want time.Duration
		ok   bool
	}{
		{"none", h(), 0, false},
		{"seconds", h("Retry-After", "7"), 7 * time.Second, true},
		{"http date", h("Retry-After", now.Add(30*time.Second).Format(http.TimeFormat)), 30 * time.Second, true},
		{"date past", h("Retry-After", now.Add(-time.Minute).Format(http.TimeFormat)), 0, true},
		{"garbage", h("Retry-After", "soon"), 0, false},
		{"milliseconds", h("Retry-After-Ms", "250"), 250 * time.Millisecond, true},
		{"the longest wins", h("Retry-After", "1", "Retry-After-Ms", "1500"), 1500 * time.Millisecond, true},
		{"anthropic exhausted", h("Anthropic-Ratelimit-Tokens-Remaining", "0", "Anthropic-Ratelimit-Tokens-Reset", now.Add(42*time.Second).Format(time.RFC3339)), 42 * time.Second, true},
		{"anthropic not exhausted", h("Anthropic-Ratelimit-Tokens-Remaining", "12", "Anthropic-Ratelimit-Tokens-Reset", now.Add(42*time.Second).Format(time.RFC3339)), 0, false},
		{"anthropic input tokens", h("Anthropic-Ratelimit-Input-Tokens-Remaining", "0", "Anthropic-Ratelimit-Input-Tokens-Reset", now.Add(5*time.Second).Format(time.RFC3339),
			"Anthropic-Ratelimit-Requests-Remaining", "3", "Anthropic-Ratelimit-Requests-Reset", now.Add(50*time.Second).Format(time.RFC3339)), 5 * time.Second, true},
		{"openai minutes", h("X-Ratelimit-Remaining-Tokens", "0", "X-Ratelimit-Reset-Tokens", "6m0s"), 6 * time.Minute, true},
		{"openai milliseconds", h("X-Ratelimit-Remaining-Requests", "0", "X-Ratelimit-Reset-Requests", "20ms"), 20 * time.Millisecond, true},
		{"openai fractional", h("X-Ratelimit-Remaining-Requests", "0", "X-Ratelimit-Reset-Requests", "7.66s"), 7660 * time.Millisecond, true},
		{"openai not exhausted", h("X-Ratelimit-Remaining-Requests", "99", "X-Ratelimit-Reset-Requests", "1s"), 0, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, ok := retryHint(c.hdr, now)
			if got != c.want || ok != c.ok {
				t.Errorf("retryHint = %v, %v; want %v, %v", got, ok, c.want, c.ok)
			}
		})
	}
}

func TestTargetState(t *testing.T) {
	s := &targetState{name: "t"}
	b := &breaker{failures: 3, window: 10 * time.Second, period: 30 * time.Second}
	sec := int64(time.Second)
	now := int64(1000) * sec
	if !s.idle() || s.until(now) != 0 {
		t.Fatal("a new target is not available")
	}
	s.coolFor(now, 5*time.Second)
	s.coolFor(now, time.Second) // a shorter one does not shorten it
	if got := s.until(now + 4*sec); got != now+5*sec {
		t.Errorf("until = %d, want the cooldown's end %d", got, now+5*sec)
	}
	if s.until(now+6*sec) != 0 || !s.idle() {
		t.Errorf("a past cooldown is still on record")
	}
	// Failures spread over more than the window do not open it.
	if s.failed(now, b) || s.failed(now+11*sec, b) || s.failed(now+12*sec, b) {
		t.Errorf("the circuit opened on failures outside one window")
	}
	if !s.failed(now+13*sec, b) {
		t.Errorf("three failures within the window did not open the circuit")
	}
	if got := s.until(now + 14*sec); got != now+43*sec {
		t.Errorf("open circuit until %d, want %d", got, now+43*sec)
	}
	s.succeeded()
	if s.until(now+14*sec) != 0 {
		t.Errorf("a success did not close the circuit")
	}
	// A success starts the count again.
	s.failed(now+20*sec, b)
	s.failed(now+21*sec, b)
	s.succeeded()
	if s.failed(now+22*sec, b) {
		t.Errorf("failures before a success counted")
	}
}

func TestKeyPool(t *testing.T) {
	p := newKeyPool("api_key", []clouds.Credential{{Key: "k0"}, {Key: "k1"}, {Key: "k2"}}, zap.NewNop())
	now := time.Now().UnixNano()
	var got []int
	for range 6 {
		i, _ := p.pick(now)
		got = append(got, i)
	}
	if want := []int{0, 1, 2, 0, 1, 2}; !slices.Equal(got, want) {
		t.Errorf("picks %v, want %v", got, want)
	}
	if others := p.note(1, http.StatusUnauthorized, http.Header{}); !others || p.outCount() != 1 {
		t.Errorf("a refused key: others %v, out %d", others, p.outCount())
	}
	if others := p.note(2, http.StatusTooManyRequests, http.Header{"Retry-After": {"60"}}); !others {
		t.Errorf("a rate-limited key left no other")
	}
	for range 4 {
		if i, _ := p.pick(time.Now().UnixNano()); i != 0 {
			t.Errorf("picked key %d while 1 is out and 2 cooling", i)
		}
	}
	if others := p.note(0, http.StatusForbidden, http.Header{}); others {
		t.Errorf("the last usable key out, yet others usable")
	}
	i, soonest := p.pick(time.Now().UnixNano())
	if i != -1 || soonest == 0 {
		t.Errorf("pick = %d, %d; want none, with key 2's cooldown", i, soonest)
	}
	p.note(2, http.StatusUnauthorized, http.Header{})
	if i, soonest := p.pick(time.Now().UnixNano()); i != -1 || soonest != 0 {
		t.Errorf("every key out: pick = %d, %d; want -1, 0", i, soonest)
	}
}
