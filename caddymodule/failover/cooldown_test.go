package failover

import (
	"net/http"
	"testing"
	"time"
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
			got, ok := RetryHint(c.hdr, now)
			if got != c.want || ok != c.ok {
				t.Errorf("retryHint = %v, %v; want %v, %v", got, ok, c.want, c.ok)
			}
		})
	}
}

func TestTargetState(t *testing.T) {
	s := &TargetState{name: "t"}
	b := &Breaker{Failures: 3, Window: 10 * time.Second, Period: 30 * time.Second}
	sec := int64(time.Second)
	now := int64(1000) * sec
	if !s.Idle() || s.Until(now) != 0 {
		t.Fatal("a new target is not available")
	}
	s.CoolFor(now, 5*time.Second)
	s.CoolFor(now, time.Second) // a shorter one does not shorten it
	if got := s.Until(now + 4*sec); got != now+5*sec {
		t.Errorf("until = %d, want the cooldown's end %d", got, now+5*sec)
	}
	if s.Until(now+6*sec) != 0 || !s.Idle() {
		t.Errorf("a past cooldown is still on record")
	}
	// Failures spread over more than the window do not open it.
	if s.Failed(now, b) || s.Failed(now+11*sec, b) || s.Failed(now+12*sec, b) {
		t.Errorf("the circuit opened on failures outside one window")
	}
	if !s.Failed(now+13*sec, b) {
		t.Errorf("three failures within the window did not open the circuit")
	}
	if got := s.Until(now + 14*sec); got != now+43*sec {
		t.Errorf("open circuit until %d, want %d", got, now+43*sec)
	}
	s.Succeeded()
	if s.Until(now+14*sec) != 0 {
		t.Errorf("a success did not close the circuit")
	}
	// A success starts the count again.
	s.Failed(now+20*sec, b)
	s.Failed(now+21*sec, b)
	s.Succeeded()
	if s.Failed(now+22*sec, b) {
		t.Errorf("failures before a success counted")
	}
}

// TestStateRegistry keeps one state per target name, listed by EachState,
// and reads and resets what it holds.
func TestStateRegistry(t *testing.T) {
	name := "registry-test-" + time.Now().Format(time.RFC3339Nano)
	s := StateOf(name)
	if StateOf(name) != s || s.Name() != name {
		t.Fatal("a name's state is not kept")
	}
	now := time.Now().UnixNano()
	s.CoolUntil(now + int64(time.Minute))
	s.OpenUntil(now + int64(time.Hour))
	b := Breaker{Failures: 1, Window: time.Minute, Period: time.Minute}
	s.Failed(now, &b)
	if s.CooledUntil() != now+int64(time.Minute) || s.OpenedUntil() < now+int64(time.Minute) || s.Failures() != 0 && s.Failures() != 1 {
		t.Errorf("cooled until %d, open until %d, %d failures", s.CooledUntil(), s.OpenedUntil(), s.Failures())
	}
	found := false
	EachState(func(st *TargetState) bool {
		found = found || st == s
		return !found
	})
	if !found {
		t.Error("EachState did not list the state")
	}
	s.Reset()
	if s.CooledUntil() != 0 || s.OpenedUntil() != 0 || s.Failures() != 0 || s.Until(now) != 0 || !s.Idle() {
		t.Errorf("after Reset: cooled until %d, open until %d, %d failures", s.CooledUntil(), s.OpenedUntil(), s.Failures())
	}
}
