package state

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/valkey-io/valkey-go"
	"go.uber.org/zap"
)

func init() {
	caddy.RegisterModule(App{})
}

// App is the llmbridge app: where the instance's llmbridge handlers keep
// their state. Without it (or without its state), state lives in the
// process's memory, as one instance needs; with a Valkey store, every
// instance that names the same server and key prefix shares it. An app,
// configured once in the global options as Caddy's storage and pki are,
// because the store is the instance's, not a site's: every site's
// handlers use one connection pool.
type App struct {
	// State chooses the store.
	State *StoreConfig `json:"state,omitempty"`
	// LimitsOnStoreError is what limits do when the store cannot count
	// (an outage, a timeout): "allow" (the default) admits the request
	// uncounted, "deny" refuses it with a 503 in the client's format.
	// Caches and cooldowns always go on from the instance's memory.
	LimitsOnStoreError string `json:"limits_on_store_error,omitempty"`

	store  Store
	valkey *Valkey
	logger *zap.Logger

	// listening are the channels subscribed, under their lock (a
	// pointer: Caddy copies the module value for its information).
	listening *listening
}

// listening is an app's set of subscribed channels.
type listening struct {
	mu       sync.Mutex
	channels map[string]bool
}

// StoreConfig configures the state store.
type StoreConfig struct {
	// Backend is "memory" (the default) or "valkey" (Valkey or Redis).
	Backend string `json:"backend,omitempty"`

	// Addresses are the server's host:port addresses; several name a
	// cluster's nodes. Required with valkey.
	Addresses []string `json:"addresses,omitempty"`
	// Username and Password authenticate (an ACL user, or the password
	// alone); placeholders such as {env.VALKEY_PASSWORD} are expanded.
	Username string `json:"username,omitempty"`
	Password string `json:"password,omitempty"`
	// DB selects the database (standalone servers).
	DB int `json:"db,omitempty"`
	// TLS connects with TLS when set.
	TLS *TLSConfig `json:"tls,omitempty"`
	// KeyPrefix goes before every key and channel, so that several
	// gateways (or environments) share one server without seeing each
	// other's state. Default: "llmbridge:".
	KeyPrefix string `json:"key_prefix,omitempty"`
	// PoolSize bounds the connections of blocking operations; default:
	// the client's.
	PoolSize int `json:"pool_size,omitempty"`
	// Timeout bounds each operation. Default: 25ms, a few round trips on
	// a local network; a request never waits longer on the store.
	Timeout caddy.Duration `json:"timeout,omitempty"`
	// DialTimeout bounds connecting. Default: 1s.
	DialTimeout caddy.Duration `json:"dial_timeout,omitempty"`
	// MemoryMax bounds the bytes of values the memory backend holds.
	// Default: 256 MiB.
	MemoryMax int64 `json:"memory_max,omitempty"`
}

// TLSConfig configures TLS to the server.
type TLSConfig struct {
	// ServerName is the name the server's certificate must carry;
	// default: the address's host.
	ServerName string `json:"server_name,omitempty"`
	// CA is a PEM file of the certificate authorities to trust; default:
	// the system's.
	CA string `json:"ca,omitempty"`
}

// Defaults of StoreConfig.
const (
	DefaultKeyPrefix   = "llmbridge:"
	DefaultTimeout     = 25 * time.Millisecond
	DefaultDialTimeout = time.Second
)

// CaddyModule returns the Caddy module information.
func (App) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  "llmbridge",
		New: func() caddy.Module { return new(App) },
	}
}

// Provision connects the store.
func (a *App) Provision(ctx caddy.Context) error {
	a.logger = ctx.Logger()
	a.listening = &listening{channels: map[string]bool{}}
	switch a.LimitsOnStoreError {
	case "", "allow", "deny":
	default:
		return fmt.Errorf("llmbridge: limits_on_store_error %q: want allow or deny", a.LimitsOnStoreError)
	}
	c := a.State
	if c == nil || c.Backend == "" || c.Backend == "memory" {
		if c != nil && len(c.Addresses) > 0 {
			return errors.New("llmbridge state: addresses are for the valkey backend")
		}
		a.store = Local()
		if c != nil && c.MemoryMax > 0 {
			a.store = NewMemory(c.MemoryMax)
		}
		return nil
	}
	if c.Backend != "valkey" {
		return fmt.Errorf("llmbridge state: unknown backend %q (memory, valkey)", c.Backend)
	}
	if len(c.Addresses) == 0 {
		return errors.New("llmbridge state: the valkey backend needs an address")
	}
	if err := registerMetrics(ctx.GetMetricsRegistry()); err != nil {
		return fmt.Errorf("llmbridge state: registering metrics: %v", err)
	}
	repl := caddy.NewReplacer()
	opt := valkey.ClientOption{
		InitAddress:  c.Addresses,
		Username:     repl.ReplaceKnown(c.Username, ""),
		Password:     repl.ReplaceKnown(c.Password, ""),
		SelectDB:     c.DB,
		DisableCache: true,
		// One connection pipelines every request's commands: a check
		// and a settlement of many requests share round trips.
		BlockingPoolSize: c.PoolSize,
	}
	opt.Dialer.Timeout = DefaultDialTimeout
	if c.DialTimeout > 0 {
		opt.Dialer.Timeout = time.Duration(c.DialTimeout)
	}
	if c.TLS != nil {
		tc := &tls.Config{ServerName: c.TLS.ServerName, MinVersion: tls.VersionTLS12}
		if c.TLS.CA != "" {
			pem, err := os.ReadFile(c.TLS.CA)
			if err != nil {
				return fmt.Errorf("llmbridge state: tls ca: %v", err)
			}
			pool := x509.NewCertPool()
			if !pool.AppendCertsFromPEM(pem) {
				return fmt.Errorf("llmbridge state: tls ca %s holds no PEM certificate", c.TLS.CA)
			}
			tc.RootCAs = pool
		}
		opt.TLSConfig = tc
	}
	prefix := c.KeyPrefix
	if prefix == "" {
		prefix = DefaultKeyPrefix
	}
	timeout := DefaultTimeout
	if c.Timeout > 0 {
		timeout = time.Duration(c.Timeout)
	}
	v, err := NewValkey(ValkeyOptions{Client: opt, Prefix: prefix, Timeout: timeout, Logger: a.logger, OnHealth: storeHealth})
	if err != nil {
		return fmt.Errorf("llmbridge state: %v", err)
	}
	if !v.down.Load() {
		storeHealth(true)
	}
	a.valkey, a.store = v, v
	return nil
}

// Start does nothing: the store is connected when provisioned.
func (*App) Start() error { return nil }

// Stop closes the connections.
func (a *App) Stop() error {
	if a.valkey != nil {
		a.valkey.Close()
	}
	return nil
}

// Store returns the instance's store.
func (a *App) Store() Store { return a.store }

// Listen subscribes fn to the store's channel, the first time a channel
// is asked for: every handler of a configuration asks, one subscription
// serves them; it ends when the app stops.
func (a *App) Listen(channel string, fn func(msg []byte)) {
	l := a.listening
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.channels[channel] {
		return
	}
	l.channels[channel] = true
	a.store.Subscribe(channel, fn)
}

// DenyOnStoreError reports whether limits refuse requests the store
// cannot count.
func (a *App) DenyOnStoreError() bool { return a.LimitsOnStoreError == "deny" }

// localApp is the app of a configuration without one: the process's
// memory, limits admitting what the store cannot count.
var localApp = &App{store: Local(), listening: &listening{channels: map[string]bool{}}}

// AppOf returns the llmbridge app of ctx's configuration, or one on the
// process's memory when the configuration has none.
func AppOf(ctx caddy.Context) (*App, error) {
	app, err := ctx.AppIfConfigured("llmbridge")
	if errors.Is(err, caddy.ErrNotConfigured) {
		return localApp, nil
	}
	if err != nil {
		return nil, err
	}
	return app.(*App), nil
}

// Interface guards
var (
	_ caddy.App         = (*App)(nil)
	_ caddy.Provisioner = (*App)(nil)
)
