package failover

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/llmbridge/llmbridge/caddymodule/clouds"
)

// Pool is a handler's pool of upstream credentials of one kind (several
// api_key values, azure_credentials lines or aws_profile names), used in
// turn. A member the upstream answers with a rate limit (429, or a
// throttling error event before a stream's content) is skipped for as
// long as the answer asks (Retry-After and the provider's reset headers,
// see RetryHint; else DefaultCooldown); a member it refuses (401, 403) is
// out of the pool until the configuration is loaded again. Members are
// named by their kind and position, api_key[i] or aws_profile[i], in logs
// and metrics, never by their value.
type Pool struct {
	// Share, when set, tells the instance's fleet what the pool learned
	// of member i: out of the pool (until 0), or cooling until the Unix
	// nanosecond until.
	Share func(id string, i int, until int64)

	keys   []clouds.Credential
	kind   string // the setting the members come from: api_key, azure_credentials, aws_profile
	next   atomic.Uint32
	until  []atomic.Int64 // per key: the end of its cooldown (Unix nanoseconds)
	out    []atomic.Bool  // per key: refused until reload
	nout   atomic.Int32
	target atomic.Pointer[string] // the failover target's name, once known
	logger *zap.Logger
	// id names the pool across instances (see NewPool).
	id string
}

// pools are the pools of the loaded configuration (Register).
var pools sync.Map // *Pool -> struct{}

// NewPool returns a pool of creds, members of the setting kind. Its id
// names it across instances by a digest of its members' identities (a
// key, an application, a profile): the same pool configured on several
// instances has the same id, and the id reveals no credential.
func NewPool(kind string, creds []clouds.Credential, logger *zap.Logger) *Pool {
	h := sha256.New()
	h.Write([]byte(kind))
	for i := range creds {
		h.Write([]byte{0})
		h.Write([]byte(creds[i].Identity()))
	}
	return &Pool{keys: creds, kind: kind, until: make([]atomic.Int64, len(creds)),
		out: make([]atomic.Bool, len(creds)), logger: logger, id: hex.EncodeToString(h.Sum(nil)[:12])}
}

// Register makes p one of the pools EachPool lists, until Forget.
func Register(p *Pool) { pools.Store(p, struct{}{}) }

// Forget removes p from the pools EachPool lists. A nil p is ignored.
func Forget(p *Pool) {
	if p != nil {
		pools.Delete(p)
	}
}

// EachPool calls f with every registered pool, until f returns false.
func EachPool(f func(*Pool) bool) {
	pools.Range(func(k, _ any) bool { return f(k.(*Pool)) })
}

// ID names the pool across instances.
func (p *Pool) ID() string { return p.id }

// Kind is the setting the members come from.
func (p *Pool) Kind() string { return p.kind }

// Len is the number of members.
func (p *Pool) Len() int { return len(p.keys) }

// Member returns member i.
func (p *Pool) Member(i int) *clouds.Credential { return &p.keys[i] }

// SetLogger makes logger the one the pool's findings are logged with.
func (p *Pool) SetLogger(logger *zap.Logger) { p.logger = logger }

// SetTarget names the failover target the pool's handler serves.
func (p *Pool) SetTarget(name string) { p.target.Store(&name) }

// Name names the pool in metrics: its failover target, else "".
func (p *Pool) Name() string {
	if n := p.target.Load(); n != nil {
		return *n
	}
	return ""
}

// OutCount is the number of members out of the pool.
func (p *Pool) OutCount() int { return int(p.nout.Load()) }

// Pick returns the position of the next usable member, in turn; or -1
// and the soonest end of a cooldown (0 when every member is out).
func (p *Pool) Pick(now int64) (int, int64) {
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

// Usable reports whether a member other than i can be used now.
func (p *Pool) Usable(i int, now int64) bool {
	for j := range p.keys {
		if j != i && !p.out[j].Load() && p.until[j].Load() <= now {
			return true
		}
	}
	return false
}

// Note takes the upstream's answer status to a request made with member
// i and its header: a refusal takes the member out, a rate limit cools
// it; either is shared with the fleet. It reports whether another member
// can be used now.
func (p *Pool) Note(i, status int, hdr http.Header) bool {
	now := time.Now()
	switch status {
	case http.StatusUnauthorized, http.StatusForbidden:
		if p.TakeOut(i, status, "the upstream") && p.Share != nil {
			p.Share(p.id, i, 0)
		}
	case http.StatusTooManyRequests:
		d, ok := RetryHint(hdr, now)
		if !ok {
			d = DefaultCooldown
		}
		d = min(d, DefaultMaxCooldown)
		until := now.UnixNano() + int64(d)
		p.CoolUntil(i, until)
		if p.Share != nil {
			p.Share(p.id, i, until)
		}
		p.logger.Debug("a key of the pool is rate limited", zap.String("key", clouds.MemberName(p.kind, i)),
			zap.Duration("cooldown", d), zap.String("target", p.Name()))
	default:
		return false
	}
	return p.Usable(i, now.UnixNano())
}

// TakeOut takes member i out of the pool until the configuration is
// loaded again, refused by the upstream (status) or, as another instance
// said, by its upstream (status 0); it reports whether i was in. A
// position outside the pool is ignored.
func (p *Pool) TakeOut(i, status int, by string) bool {
	if i < 0 || i >= len(p.keys) || p.out[i].Swap(true) {
		return false
	}
	p.nout.Add(1)
	fields := []zap.Field{zap.String("key", clouds.MemberName(p.kind, i)), zap.String("target", p.Name()), zap.String("refused_by", by)}
	if status != 0 {
		fields = append(fields, zap.Int("status", status))
	}
	p.logger.Warn("the upstream refused a key of the pool; it is out until the configuration is loaded again", fields...)
	return true
}

// CoolUntil cools member i until the Unix nanosecond until, unless it
// cools until later. A position outside the pool is ignored.
func (p *Pool) CoolUntil(i int, until int64) {
	if i >= 0 && i < len(p.keys) {
		LaterOf(&p.until[i], until)
	}
}

// CooledUntil is when member i's cooldown ends (Unix nanoseconds), or 0.
func (p *Pool) CooledUntil(i int) int64 { return p.until[i].Load() }
