package state

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/valkey-io/valkey-go"
	"go.uber.org/zap"
)

// Valkey is a Store on a Valkey or Redis server (the same protocol),
// shared by every gateway that names it with the same key prefix. Every
// operation is bounded by the store's timeout. Counters change in one
// script per call, so that a limit's check and its addition are one atomic
// step on the server: no two gateways can both see room for the last
// request.
//
// When the server cannot be reached or does not answer in time, Get and
// Set go on with the process's memory (Local), which the instance alone
// sees; Take, Add and Read return an error wrapping ErrUnavailable, for
// the limits' policy to decide. An outage is logged once when it begins
// and once when the server answers again; the client reconnects by
// itself.
type Valkey struct {
	// conn holds the valkey.Client once connected: a server that is
	// down when the store is made is dialled again in the background.
	conn    atomic.Value
	prefix  string
	timeout time.Duration
	logger  *zap.Logger
	local   *Memory

	// down is whether the latest operation failed; outages counts them.
	down    atomic.Bool
	outages atomic.Int64
	// onHealth, when set, is told each change of down (metrics).
	onHealth func(up bool)

	subMu   sync.Mutex
	subs    map[string][]*subscriber
	subStop context.CancelFunc

	// closed stops the background dialling.
	closed    chan struct{}
	closeOnce sync.Once
}

// errNotConnected is the error of an operation before the first
// connection.
var errNotConnected = errors.New("not connected yet")

// ValkeyOptions configure a Valkey store.
type ValkeyOptions struct {
	// Client is the valkey-go client's options: addresses, credentials,
	// TLS, database, pool.
	Client valkey.ClientOption
	// Prefix goes before every key and channel.
	Prefix string
	// Timeout bounds each operation.
	Timeout time.Duration
	// Logger logs outages.
	Logger *zap.Logger
	// OnHealth is told when the store becomes unreachable (false) and
	// reachable again (true).
	OnHealth func(up bool)
}

// NewValkey returns a store on the server of o. When no address answers
// yet, the store starts as in an outage (values in local memory, counters
// unavailable) and dials again every redialEvery in the background until
// one does: a gateway that starts before its store does not stay on its
// own memory.
func NewValkey(o ValkeyOptions) (*Valkey, error) {
	if len(o.Client.InitAddress) == 0 {
		return nil, errors.New("no address")
	}
	logger := o.Logger
	if logger == nil {
		logger = zap.NewNop()
	}
	v := &Valkey{prefix: o.Prefix, timeout: o.Timeout, logger: logger, local: Local(), onHealth: o.OnHealth,
		subs: map[string][]*subscriber{}, closed: make(chan struct{})}
	c, err := valkey.NewClient(o.Client)
	if err == nil {
		v.conn.Store(c)
		return v, nil
	}
	_ = v.result("connect", err)
	go v.redial(o.Client)
	return v, nil
}

// redialEvery is how often a store that never connected dials again.
const redialEvery = time.Second

// redial dials until the server answers or the store is closed.
func (v *Valkey) redial(o valkey.ClientOption) {
	t := time.NewTicker(redialEvery)
	defer t.Stop()
	for {
		select {
		case <-v.closed:
			return
		case <-t.C:
		}
		c, err := valkey.NewClient(o)
		if err != nil {
			continue
		}
		select {
		case <-v.closed:
			c.Close()
			return
		default:
		}
		v.conn.Store(c)
		_ = v.result("connect", nil)
		v.subMu.Lock()
		v.restartSubscriptions()
		v.subMu.Unlock()
		return
	}
}

// client returns the connected client, or nil.
func (v *Valkey) client() valkey.Client {
	c, _ := v.conn.Load().(valkey.Client)
	return c
}

// Close closes the connections and stops the subscriptions.
func (v *Valkey) Close() {
	v.closeOnce.Do(func() { close(v.closed) })
	v.subMu.Lock()
	if v.subStop != nil {
		v.subStop()
	}
	v.subMu.Unlock()
	if c := v.client(); c != nil {
		c.Close()
	}
}

// bound returns ctx bounded by the store's timeout.
func (v *Valkey) bound(ctx context.Context) (context.Context, context.CancelFunc) {
	if v.timeout <= 0 {
		return ctx, func() {}
	}
	return context.WithTimeout(ctx, v.timeout)
}

// result notes whether an operation reached the server, logging the
// beginning and the end of an outage once each, and returns err wrapped
// in ErrUnavailable when it did not.
func (v *Valkey) result(op string, err error) error {
	if err == nil || valkey.IsValkeyNil(err) {
		if v.down.CompareAndSwap(true, false) {
			v.logger.Info("state store reachable again", zap.String("operation", op))
			if v.onHealth != nil {
				v.onHealth(true)
			}
		}
		return nil
	}
	var ve *valkey.ValkeyError
	if errors.As(err, &ve) {
		// The server answered: a script or type error is no outage.
		return fmt.Errorf("state store %s: %w", op, err)
	}
	if v.down.CompareAndSwap(false, true) {
		v.outages.Add(1)
		v.logger.Warn("state store unreachable: shared state goes on from this instance's memory, limits follow their on_store_error policy",
			zap.String("operation", op), zap.Error(err))
		if v.onHealth != nil {
			v.onHealth(false)
		}
	}
	return fmt.Errorf("%w: %s: %v", ErrUnavailable, op, err)
}

// Get returns the value of key, from local memory when the server cannot
// be reached.
func (v *Valkey) Get(ctx context.Context, key string) ([]byte, bool, error) {
	c := v.client()
	if c == nil {
		_ = v.result("get", errNotConnected)
		return v.local.Get(ctx, v.prefix+key)
	}
	ctx, cancel := v.bound(ctx)
	defer cancel()
	b, err := c.Do(ctx, c.B().Get().Key(v.prefix+key).Build()).AsBytes()
	if valkey.IsValkeyNil(err) {
		_ = v.result("get", nil)
		// A value kept locally during an outage is still this
		// instance's.
		return v.local.Get(ctx, v.prefix+key)
	}
	if err = v.result("get", err); err != nil {
		lv, ok, _ := v.local.Get(ctx, v.prefix+key)
		return lv, ok, nil
	}
	return b, true, nil
}

// Set stores value under key, in local memory when the server cannot be
// reached.
func (v *Valkey) Set(ctx context.Context, key string, value []byte, ttl time.Duration) error {
	c := v.client()
	if c == nil {
		_ = v.result("set", errNotConnected)
		return v.local.Set(ctx, v.prefix+key, value, ttl)
	}
	ctx, cancel := v.bound(ctx)
	defer cancel()
	cmd := c.B().Set().Key(v.prefix + key).Value(valkey.BinaryString(value))
	var err error
	if ttl > 0 {
		err = c.Do(ctx, cmd.Px(ttl).Build()).Error()
	} else {
		err = c.Do(ctx, cmd.Build()).Error()
	}
	if err = v.result("set", err); err != nil {
		return v.local.Set(ctx, v.prefix+key, value, ttl)
	}
	return nil
}

// Delete removes key, here and in local memory.
func (v *Valkey) Delete(ctx context.Context, key string) error {
	_ = v.local.Delete(ctx, v.prefix+key)
	c := v.client()
	if c == nil {
		return v.result("del", errNotConnected)
	}
	ctx, cancel := v.bound(ctx)
	defer cancel()
	return v.result("del", c.Do(ctx, c.B().Del().Key(v.prefix+key).Build()).Error())
}

// takeScript checks every counter against its limit and, when all have
// room, adds every amount, in one atomic step. KEYS are the counters;
// ARGV holds amount, limit (negative: none) and the window's end in Unix
// milliseconds for each. It returns 1 or 0 followed by the counters'
// values.
var takeScript = valkey.NewLuaScript(`
local out = {1}
for i = 1, #KEYS do
  local v = tonumber(redis.call('GET', KEYS[i]) or '0')
  local limit = tonumber(ARGV[(i-1)*3+2])
  out[i+1] = v
  if limit >= 0 and v >= limit then out[1] = 0 end
end
if out[1] == 0 then return out end
for i = 1, #KEYS do
  out[i+1] = redis.call('INCRBY', KEYS[i], ARGV[(i-1)*3+1])
  redis.call('PEXPIREAT', KEYS[i], ARGV[(i-1)*3+3])
end
return out
`)

// addScript adds every amount and sets each window's end.
var addScript = valkey.NewLuaScript(`
for i = 1, #KEYS do
  redis.call('INCRBY', KEYS[i], ARGV[(i-1)*2+1])
  redis.call('PEXPIREAT', KEYS[i], ARGV[(i-1)*2+2])
end
return 1
`)

// counterKeys returns the counters' keys with the store's prefix.
func (v *Valkey) counterKeys(counts []Count) []string {
	keys := make([]string, len(counts))
	for i := range counts {
		keys[i] = v.prefix + counts[i].Key
	}
	return keys
}

// Take adds the counts if every counter is below its limit.
func (v *Valkey) Take(ctx context.Context, counts []Count, values []int64) (bool, error) {
	c := v.client()
	if c == nil {
		return false, v.result("take", errNotConnected)
	}
	ctx, cancel := v.bound(ctx)
	defer cancel()
	args := make([]string, 0, 3*len(counts))
	for i := range counts {
		c := &counts[i]
		args = append(args, strconv.FormatInt(c.Amount, 10), strconv.FormatInt(c.Limit, 10), strconv.FormatInt(c.Ends.UnixMilli(), 10))
	}
	out, err := takeScript.Exec(ctx, c, v.counterKeys(counts), args).AsIntSlice()
	if err = v.result("take", err); err != nil {
		return false, err
	}
	if len(out) != len(counts)+1 {
		return false, fmt.Errorf("state store take: %d values for %d counters", len(out)-1, len(counts))
	}
	copy(values, out[1:])
	return out[0] == 1, nil
}

// Add adds the counts.
func (v *Valkey) Add(ctx context.Context, counts []Count) error {
	if len(counts) == 0 {
		return nil
	}
	c := v.client()
	if c == nil {
		return v.result("add", errNotConnected)
	}
	ctx, cancel := v.bound(ctx)
	defer cancel()
	args := make([]string, 0, 2*len(counts))
	for i := range counts {
		args = append(args, strconv.FormatInt(counts[i].Amount, 10), strconv.FormatInt(counts[i].Ends.UnixMilli(), 10))
	}
	return v.result("add", addScript.Exec(ctx, c, v.counterKeys(counts), args).Error())
}

// Read reads the counters.
func (v *Valkey) Read(ctx context.Context, counts []Count, values []int64) error {
	if len(counts) == 0 {
		return nil
	}
	c := v.client()
	if c == nil {
		return v.result("mget", errNotConnected)
	}
	ctx, cancel := v.bound(ctx)
	defer cancel()
	msgs, err := c.Do(ctx, c.B().Mget().Key(v.counterKeys(counts)...).Build()).ToArray()
	if err = v.result("mget", err); err != nil {
		return err
	}
	for i := range counts {
		values[i] = 0
		if i < len(msgs) {
			if n, err := msgs[i].AsInt64(); err == nil {
				values[i] = n
			}
		}
	}
	return nil
}

// Publish sends msg to every subscriber of channel on the server.
func (v *Valkey) Publish(ctx context.Context, channel string, msg []byte) error {
	c := v.client()
	if c == nil {
		return v.result("publish", errNotConnected)
	}
	ctx, cancel := v.bound(ctx)
	defer cancel()
	return v.result("publish", c.Do(ctx, c.B().Publish().Channel(v.prefix+channel).Message(valkey.BinaryString(msg)).Build()).Error())
}

// Subscribe calls fn with every message published on channel by any
// instance. One connection receives every channel of the store; it
// subscribes again after the server comes back.
func (v *Valkey) Subscribe(channel string, fn func(msg []byte)) (stop func()) {
	s := &subscriber{fn: fn}
	v.subMu.Lock()
	v.subs[channel] = append(v.subs[channel], s)
	v.restartSubscriptions()
	v.subMu.Unlock()
	return func() {
		v.subMu.Lock()
		defer v.subMu.Unlock()
		list := v.subs[channel]
		for i, x := range list {
			if x == s {
				v.subs[channel] = append(list[:i:i], list[i+1:]...)
				break
			}
		}
		if len(v.subs[channel]) == 0 {
			delete(v.subs, channel)
		}
		v.restartSubscriptions()
	}
}

// restartSubscriptions (re)starts the receiving connection for the
// current channels; the caller holds subMu.
func (v *Valkey) restartSubscriptions() {
	if v.subStop != nil {
		v.subStop()
		v.subStop = nil
	}
	c := v.client()
	if len(v.subs) == 0 || c == nil {
		return
	}
	channels := make([]string, 0, len(v.subs))
	for ch := range v.subs {
		channels = append(channels, v.prefix+ch)
	}
	ctx, cancel := context.WithCancel(context.Background())
	v.subStop = cancel
	go func() {
		for ctx.Err() == nil {
			err := c.Receive(ctx, c.B().Subscribe().Channel(channels...).Build(), func(m valkey.PubSubMessage) {
				ch := m.Channel[len(v.prefix):]
				v.subMu.Lock()
				subs := v.subs[ch]
				v.subMu.Unlock()
				for _, s := range subs {
					s.fn([]byte(m.Message))
				}
			})
			if ctx.Err() != nil {
				return
			}
			_ = v.result("subscribe", err)
			select {
			case <-ctx.Done():
				return
			case <-time.After(time.Second):
			}
		}
	}()
}

// Shared reports true: every gateway of the prefix sees the state.
func (*Valkey) Shared() bool { return true }

// Interface guards
var _ Store = (*Valkey)(nil)
