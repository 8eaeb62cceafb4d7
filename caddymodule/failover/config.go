// Package failover runs failover sites: a site's configuration (Config,
// parsed from the failover subdirective), its runtime (Site: the targets
// found among the server's named routes, each with its llmbridge seen as
// a Member, tried in turn by Serve), the writer each attempt answers into
// (Writer), which holds an answer until it is known to be the client's,
// each target's availability (cooldowns after a provider's rate limit,
// the circuit breaker after repeated failures: TargetState, shared by
// every site of the instance naming the target), the reading of a
// provider's "come back later" (RetryHint), the pools of upstream
// credentials used in turn, each member cooling or taken out on its own
// (Pool), and their metrics. The handler package checks a site's client
// keys, reads the body once, applies its limits and then calls Serve; this
// package imports caddymodule/clouds (a pool's members are its
// credentials), caddymodule/observe (an attempt's exchange) and
// caddymodule/internal/pool, never the handler package.
package failover

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/caddyconfig/httpcaddyfile"
)

// Config makes a site send each request to an ordered list of targets,
// each a named route of the server (a Caddyfile &(name) block) holding an
// llmbridge handler, with the target's whole upstream configuration, and
// the reverse_proxy that carries its requests. The site's own llmbridge
// reads the client's request once and invokes the targets in turn: a
// target that fails before the client has been sent any content (a
// connection error or timeout, a failover status, an error event before
// the first content event of a stream) hands the request to the next
// one, translated for it from the client's original body. Targets
// cooling down after a provider's rate limit, or whose circuit is open
// after repeated failures, are skipped.
type Config struct {
	// Targets are the names of the named routes tried in order.
	// Required.
	Targets []string `json:"targets"`

	// RetryOn adds statuses that move a request to the next target, to
	// 429, 500, 502, 503, 504 and 529 (which always do). Other 4xx
	// statuses are the request's fault and are answered.
	RetryOn []int `json:"retry_on,omitempty"`

	// Cooldown is how long a target answering a rate limit or an
	// overload (429, 503, 529, an AWS ThrottlingException, an overloaded
	// stream error) is skipped when its answer says nothing of when to
	// come back (Retry-After, retry-after-ms,
	// anthropic-ratelimit-*-reset, x-ratelimit-reset-*). Default: 5s.
	Cooldown caddy.Duration `json:"cooldown,omitempty"`

	// MaxCooldown bounds the cooldown a provider's answer asks for.
	// Default: 10m.
	MaxCooldown caddy.Duration `json:"max_cooldown,omitempty"`

	// Breaker opens a target's circuit after repeated failures.
	Breaker *CircuitBreaker `json:"circuit_breaker,omitempty"`
}

// CircuitBreaker skips a target for Period once it has failed Failures
// times within Window (any failure that moves a request on counts; a
// success starts the count again).
type CircuitBreaker struct {
	// Failures is the number of failures that open the circuit.
	// Default: 5.
	Failures int `json:"failures,omitempty"`
	// Window is the time within which the failures count. Default: 10s.
	Window caddy.Duration `json:"window,omitempty"`
	// Period is how long an open circuit skips the target. Default: 30s.
	Period caddy.Duration `json:"period,omitempty"`
}

// Failover defaults.
const (
	DefaultCooldown        = 5 * time.Second
	DefaultMaxCooldown     = 10 * time.Minute
	DefaultBreakerFailures = 5
	DefaultBreakerWindow   = 10 * time.Second
	DefaultBreakerPeriod   = 30 * time.Second
	// MaxTargets bounds a failover list.
	MaxTargets = 16
)

// Check reports the first problem of a failover configuration.
func (f *Config) Check() error {
	if len(f.Targets) == 0 {
		return errors.New("failover needs at least one target (the name of a named route, &(name) in a Caddyfile)")
	}
	if len(f.Targets) > MaxTargets {
		return fmt.Errorf("failover takes at most %d targets, got %d", MaxTargets, len(f.Targets))
	}
	for i, t := range f.Targets {
		if t == "" {
			return fmt.Errorf("failover target %d is empty", i)
		}
		if slices.Contains(f.Targets[:i], t) {
			return fmt.Errorf("failover target %q is listed twice", t)
		}
	}
	for _, s := range f.RetryOn {
		if s < 400 || s > 599 {
			return fmt.Errorf("failover retry_on: %d is not an error status (400-599)", s)
		}
	}
	if f.Cooldown < 0 || f.MaxCooldown < 0 {
		return errors.New("failover cooldown and max_cooldown must be positive")
	}
	if b := f.Breaker; b != nil && (b.Failures < 0 || b.Window < 0 || b.Period < 0) {
		return errors.New("failover circuit_breaker: failures, window and period must be positive")
	}
	return nil
}

// Parse parses the failover subdirective:
//
//	failover <target>... {
//		retry_on <status>...
//		cooldown <duration>
//		max_cooldown <duration>
//		circuit_breaker <failures> <window> <period>
//	}
//
// Each target is the name of a named route, which the server is given
// as the invoke directive gives it.
func Parse(d *caddyfile.Dispenser) (*Config, error) {
	f := &Config{Targets: d.RemainingArgs()}
	if len(f.Targets) == 0 {
		return nil, d.Errf("failover takes the names of its targets, named routes defined as &(name) { ... }")
	}
	for nesting := d.Nesting(); d.NextBlock(nesting); {
		name := d.Val()
		args := d.RemainingArgs()
		switch name {
		case "retry_on":
			if len(args) == 0 {
				return nil, d.ArgErr()
			}
			for _, a := range args {
				s, err := strconv.Atoi(a)
				if err != nil || s < 400 || s > 599 {
					return nil, d.Errf("retry_on: want error statuses (400-599), got %q", a)
				}
				f.RetryOn = append(f.RetryOn, s)
			}
		case "cooldown", "max_cooldown":
			if len(args) != 1 {
				return nil, d.ArgErr()
			}
			v, err := caddy.ParseDuration(args[0])
			if err != nil || v <= 0 {
				return nil, d.Errf("%s: want a duration such as 5s, got %q", name, args[0])
			}
			if name == "cooldown" {
				f.Cooldown = caddy.Duration(v)
			} else {
				f.MaxCooldown = caddy.Duration(v)
			}
		case "circuit_breaker":
			if len(args) != 3 {
				return nil, d.Errf("circuit_breaker takes <failures> <window> <period>, for example 5 10s 30s")
			}
			n, err := strconv.Atoi(args[0])
			if err != nil || n <= 0 {
				return nil, d.Errf("circuit_breaker: want a number of failures, got %q", args[0])
			}
			window, err1 := caddy.ParseDuration(args[1])
			period, err2 := caddy.ParseDuration(args[2])
			if err1 != nil || err2 != nil || window <= 0 || period <= 0 {
				return nil, d.Errf("circuit_breaker: want durations such as 10s 30s, got %q %q", args[1], args[2])
			}
			f.Breaker = &CircuitBreaker{Failures: n, Window: caddy.Duration(window), Period: caddy.Duration(period)}
		default:
			return nil, d.Errf("unknown failover setting %q", name)
		}
	}
	if err := f.Check(); err != nil {
		return nil, d.Errf("%v", err)
	}
	return f, nil
}

// namedRouteState is the key under which the Caddyfile adapter collects
// the named routes a site invokes, so that they are added to its server
// (Caddy's invoke directive uses the same key).
const namedRouteState = "named_route"

// NoteTargets tells the Caddyfile adapter that the site invokes the
// failover targets, as the invoke directive would: the server gets those
// named routes.
func NoteTargets(h httpcaddyfile.Helper, targets []string) {
	if h.State == nil {
		return
	}
	m, _ := h.State[namedRouteState].(map[string]struct{})
	if m == nil {
		m = map[string]struct{}{}
		h.State[namedRouteState] = m
	}
	for _, t := range targets {
		m[t] = struct{}{}
	}
}
