package caddymodule

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/caddyserver/caddy/v2"
	"go.uber.org/zap"

	"github.com/llmbridge/llmbridge/caddymodule/clouds"
	"github.com/llmbridge/llmbridge/caddymodule/limits"
	"github.com/llmbridge/llmbridge/caddymodule/observe"
	"github.com/llmbridge/llmbridge/caddymodule/state"
	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/mapping"
)

// keyPool is a handler's pool of upstream credentials of one kind
// (several api_key values, azure_credentials lines or aws_profile names),
// used in turn. A member the upstream answers with a rate limit (429, or
// a throttling error event before a stream's content) is skipped for as
// long as the answer asks (Retry-After and the provider's reset headers,
// see retryHint; else defaultCooldown); a member it refuses (401, 403) is
// out of the pool until the configuration is loaded again. Members are
// named by their kind and position, api_key[i] or aws_profile[i], in
// logs and metrics, never by their value.
type keyPool struct {
	keys   []clouds.Credential
	kind   string // the setting the members come from: api_key, azure_credentials, aws_profile
	next   atomic.Uint32
	until  []atomic.Int64 // per key: the end of its cooldown (Unix nanoseconds)
	out    []atomic.Bool  // per key: refused until reload
	nout   atomic.Int32
	target atomic.Pointer[string] // the failover target's name, once known
	logger *zap.Logger
	// id names the pool across instances (poolID), and store is where
	// its members' cooldowns and refusals are published (shared.go).
	id    string
	store state.Store
}

// pools are the key pools of the loaded configuration, for the metrics.
var pools sync.Map // *keyPool -> struct{}

// newKeyPool returns a pool of creds, members of the setting kind.
func newKeyPool(kind string, creds []clouds.Credential, logger *zap.Logger) *keyPool {
	members := make([]string, len(creds))
	for i := range creds {
		members[i] = creds[i].Identity()
	}
	return &keyPool{keys: creds, kind: kind, until: make([]atomic.Int64, len(creds)),
		out: make([]atomic.Bool, len(creds)), logger: logger, id: poolID(kind, members)}
}

// provisionCredentials sets up the credentials that authorise the
// handler's upstream requests: api_key, the pool of APIKeys, or the
// cloud's credentials (one, or a pool of several). Placeholders are
// expanded with expand.
func (h *Handler) provisionCredentials(ctx caddy.Context, expand func(string) string) error {
	h.keys, h.cred = nil, clouds.Credential{}
	if h.APIKey != "" && len(h.APIKeys) > 0 {
		return errors.New("api_key and api_keys are exclusive: several keys are one pool")
	}
	repl := caddy.NewReplacer()
	h.cred.Key = repl.ReplaceKnown(h.APIKey, "")
	kind, creds := "", []clouds.Credential(nil)
	if len(h.APIKeys) > 0 {
		if len(h.APIKeys) > clouds.MaxPoolMembers {
			return fmt.Errorf("a key pool holds at most %d keys, got %d", clouds.MaxPoolMembers, len(h.APIKeys))
		}
		kind, creds = "api_key", make([]clouds.Credential, len(h.APIKeys))
		for i, k := range h.APIKeys {
			v := repl.ReplaceKnown(k, "")
			if v == "" {
				return fmt.Errorf("api_key[%d] is empty after placeholder expansion (is its environment variable set?)", i)
			}
			creds[i].Key = v
		}
	} else if h.cloud != nil && h.cred.Key == "" {
		var err error
		if kind, creds, err = h.cloud.Authorize(ctx, expand); err != nil {
			return err
		}
	}
	switch {
	case len(creds) == 1:
		h.cred = creds[0]
	case len(creds) > 1:
		h.keys = newKeyPool(kind, creds, h.logger)
		pools.Store(h.keys, struct{}{})
	}
	first := h.cred
	if h.keys != nil {
		first = h.keys.keys[0]
	}
	h.signedHost = ""
	if first.Signer != nil {
		// Every signer of a pool signs for the cloud's one host.
		h.signedHost = first.Signer.Host()
	}
	return nil
}

// Cleanup forgets the handler's key pool and limits when its
// configuration is unloaded.
func (h *Handler) Cleanup() error {
	if h.keys != nil {
		pools.Delete(h.keys)
	}
	limits.Withdraw(h.limits)
	teachers.CompareAndDelete(h.provider, h)
	return nil
}

// name names the pool in metrics: its failover target, else "".
func (p *keyPool) name() string {
	if n := p.target.Load(); n != nil {
		return *n
	}
	return ""
}

// outCount is the number of keys out of the pool.
func (p *keyPool) outCount() int { return int(p.nout.Load()) }

// pick returns the position of the next usable key, in turn; or -1 and
// the soonest end of a cooldown (0 when every key is out).
func (p *keyPool) pick(now int64) (int, int64) {
	n := uint32(len(p.keys))
	start := p.next.Add(1) - 1
	soonest := int64(0)
	for j := range n {
		i := (start + j) % n
		if p.out[i].Load() {
			continue
		}
		u := p.until[i].Load()
		if u <= now {
			return int(i), 0
		}
		if soonest == 0 || u < soonest {
			soonest = u
		}
	}
	return -1, soonest
}

// usable reports whether a key other than i can be used now.
func (p *keyPool) usable(i int, now int64) bool {
	for j := range p.keys {
		if j != i && !p.out[j].Load() && p.until[j].Load() <= now {
			return true
		}
	}
	return false
}

// note takes the upstream's answer status to a request made with key i
// and its header: a refusal takes the key out, a rate limit cools it. It
// reports whether another key of the pool can be used now.
func (p *keyPool) note(i, status int, hdr http.Header) bool {
	now := time.Now()
	switch status {
	case http.StatusUnauthorized, http.StatusForbidden:
		if p.takeOut(i, status, "the upstream") {
			publishEvent(p.store, eventKeyOut, p.id, strconv.Itoa(i))
		}
	case http.StatusTooManyRequests:
		d, ok := retryHint(hdr, now)
		if !ok {
			d = defaultCooldown
		}
		d = min(d, defaultMaxCooldown)
		until := now.UnixNano() + int64(d)
		p.coolUntil(i, until)
		publishEvent(p.store, eventKeyCool, p.id, strconv.Itoa(i), unixNano(until))
		p.logger.Debug("a key of the pool is rate limited", zap.String("key", clouds.MemberName(p.kind, i)),
			zap.Duration("cooldown", d), zap.String("target", p.name()))
	default:
		return false
	}
	return p.usable(i, now.UnixNano())
}

// takeOut takes member i out of the pool until the configuration is
// loaded again, refused by the upstream (status) or, as another instance
// said, by its upstream (status 0); it reports whether i was in.
func (p *keyPool) takeOut(i, status int, by string) bool {
	if p.out[i].Swap(true) {
		return false
	}
	p.nout.Add(1)
	fields := []zap.Field{zap.String("key", clouds.MemberName(p.kind, i)), zap.String("target", p.name()), zap.String("refused_by", by)}
	if status != 0 {
		fields = append(fields, zap.Int("status", status))
	}
	p.logger.Warn("the upstream refused a key of the pool; it is out until the configuration is loaded again", fields...)
	return true
}

// coolUntil cools member i until the Unix nanosecond until, unless it
// cools until later.
func (p *keyPool) coolUntil(i int, until int64) {
	laterOf(&p.until[i], until)
}

// watchStream takes an event of a stream answered to a request made with
// the member x.key of the pool, until the stream's first content (see
// preContent): a rate-limit error event before any content (Bedrock's
// throttlingException, Anthropic's rate_limit_error, OpenAI's or
// Gemini's in-stream 429) cools the member as a 429 answer would, for
// the default cooldown since an event carries no Retry-After; the first
// content event ends the watch. It reports whether the watch is over:
// the stream showed content or failed.
func (p *keyPool) watchStream(w http.ResponseWriter, x *observe.Exchange, ev *codec.Event) bool {
	switch {
	case preContent(ev.Type):
		return false
	case ev.Type == codec.EventError:
		p.streamFailed(w, x, ev.Err)
	}
	return true
}

// streamFailed takes the error e that ended a stream answered to a
// request made with the member x.key of the pool, before any content.
func (p *keyPool) streamFailed(w http.ResponseWriter, x *observe.Exchange, e *codec.Error) {
	if e == nil || e.Status != http.StatusTooManyRequests && e.Kind != mapping.ErrRateLimit {
		return
	}
	others := p.note(int(x.Key)-1, http.StatusTooManyRequests, nil)
	if fw := failoverOf(w); fw != nil && others {
		// As for a 429 answer: only the member cools, not the target.
		fw.keyCooled = true
	}
}

// credentialOf returns the upstream credential of x: the member of the
// pool it was given, else the handler's one credential (which may be
// empty: the client's is forwarded).
func (h *Handler) credentialOf(x *observe.Exchange) *clouds.Credential {
	if x.Key > 0 && h.keys != nil {
		return &h.keys.keys[x.Key-1]
	}
	return &h.cred
}

// noKey answers a request when no key of the pool can be used: 429 with
// Retry-After while keys are cooling down, 503 when every key is out.
func (h *Handler) noKey(w http.ResponseWriter, x *observe.Exchange, soonest int64) {
	if soonest == 0 {
		h.logger.Error("every key of the pool was refused by the upstream; none is left until the configuration is loaded again")
		fail(w, x, x.Client, &codec.Error{Status: http.StatusServiceUnavailable, Kind: mapping.ErrOverloaded, Message: "the gateway has no usable upstream key"})
		return
	}
	secs := (soonest - x.Start.UnixNano() + int64(time.Second) - 1) / int64(time.Second)
	w.Header().Set("Retry-After", strconv.FormatInt(max(1, secs), 10))
	fail(w, x, x.Client, &codec.Error{Status: http.StatusTooManyRequests, Kind: mapping.ErrRateLimit, Message: "every upstream key is rate limited; retry after the time Retry-After says"})
}

// Interface guards
var _ caddy.CleanerUpper = (*Handler)(nil)
