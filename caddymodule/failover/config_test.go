package failover

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/caddyconfig/httpcaddyfile"
)

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		input   string
		want    *Config
		wantErr string
	}{
		{"failover a b {\nretry_on 404 408\ncooldown 2s\nmax_cooldown 1m\ncircuit_breaker 3 20s 45s\n}",
			&Config{Targets: []string{"a", "b"}, RetryOn: []int{404, 408}, Cooldown: caddy.Duration(2 * time.Second), MaxCooldown: caddy.Duration(time.Minute),
				Breaker: &CircuitBreaker{Failures: 3, Window: caddy.Duration(20 * time.Second), Period: caddy.Duration(45 * time.Second)}}, ""},
		{"failover a", &Config{Targets: []string{"a"}}, ""},
		{"failover", nil, "failover takes the names of its targets"},
		{"failover a {\nretry_on\n}", nil, "wrong argument count"},
		{"failover a {\nretry_on 302\n}", nil, `retry_on: want error statuses (400-599), got "302"`},
		{"failover a {\ncooldown\n}", nil, "wrong argument count"},
		{"failover a {\ncooldown soon\n}", nil, `cooldown: want a duration such as 5s, got "soon"`},
		{"failover a {\ncircuit_breaker 3 10s\n}", nil, "circuit_breaker takes <failures> <window> <period>"},
		{"failover a {\ncircuit_breaker x 10s 30s\n}", nil, `circuit_breaker: want a number of failures, got "x"`},
		{"failover a {\ncircuit_breaker 3 10s never\n}", nil, `circuit_breaker: want durations such as 10s 30s`},
		{"failover a {\nretries 3\n}", nil, `unknown failover setting "retries"`},
		{"failover a b a", nil, `failover target "a" is listed twice`},
	} {
		d := caddyfile.NewTestDispenser(tc.input)
		d.Next()
		got, err := Parse(d)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%q: error %v, want %q", tc.input, err, tc.wantErr)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%q: %+v %v, want %+v", tc.input, got, err, tc.want)
		}
	}
}

func TestCheck(t *testing.T) {
	many := make([]string, MaxTargets+1)
	for i := range many {
		many[i] = string(rune('a' + i))
	}
	for _, tc := range []struct {
		c    Config
		want string
	}{
		{Config{}, "failover needs at least one target"},
		{Config{Targets: many}, "failover takes at most 16 targets, got 17"},
		{Config{Targets: []string{"a", ""}}, "failover target 1 is empty"},
		{Config{Targets: []string{"a"}, RetryOn: []int{600}}, "failover retry_on: 600 is not an error status"},
		{Config{Targets: []string{"a"}, Cooldown: -1}, "failover cooldown and max_cooldown must be positive"},
		{Config{Targets: []string{"a"}, Breaker: &CircuitBreaker{Window: -1}}, "failover circuit_breaker: failures, window and period must be positive"},
		{Config{Targets: []string{"a"}, Breaker: &CircuitBreaker{Failures: 2}}, ""},
	} {
		err := tc.c.Check()
		if (err == nil) != (tc.want == "") || err != nil && !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.c, err, tc.want)
		}
	}
}

// TestNoteTargets gives the server the named routes a site invokes, as
// the invoke directive does.
func TestNoteTargets(t *testing.T) {
	NoteTargets(httpcaddyfile.Helper{}, []string{"a"})
	h := httpcaddyfile.Helper{State: map[string]any{}}
	NoteTargets(h, []string{"a", "b"})
	NoteTargets(h, []string{"b", "c"})
	if m := h.State["named_route"].(map[string]struct{}); len(m) != 3 {
		t.Errorf("named routes %v", m)
	}
}
