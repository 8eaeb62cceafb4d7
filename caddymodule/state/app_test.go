package state

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/caddyconfig/httpcaddyfile"

	"github.com/llmbridge/llmbridge/internal/valkeytest"
)

func newContext(t *testing.T) caddy.Context {
	ctx, cancel := caddy.NewContext(caddy.Context{Context: context.Background()})
	t.Cleanup(cancel)
	return ctx
}

func TestAppProvision(t *testing.T) {
	srv := valkeytest.Start(t)
	ca := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(ca, []byte("not a certificate"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		app    App
		shared bool
		bad    string
	}{
		{name: "default", app: App{}},
		{name: "memory", app: App{State: &StoreConfig{Backend: "memory"}}},
		{name: "memory bounded", app: App{State: &StoreConfig{Backend: "memory", MemoryMax: 1 << 20}}},
		{name: "valkey", app: App{State: &StoreConfig{Backend: "valkey", Addresses: []string{srv.Addr}, Timeout: caddy.Duration(time.Second),
			DialTimeout: caddy.Duration(time.Second), KeyPrefix: "app-test:", PoolSize: 4}, LimitsOnStoreError: "deny"}, shared: true},
		{name: "unknown backend", app: App{State: &StoreConfig{Backend: "etcd"}}, bad: "unknown backend"},
		{name: "no address", app: App{State: &StoreConfig{Backend: "valkey"}}, bad: "needs an address"},
		{name: "address for memory", app: App{State: &StoreConfig{Addresses: []string{"x:1"}}}, bad: "valkey backend"},
		{name: "bad policy", app: App{LimitsOnStoreError: "maybe"}, bad: "allow or deny"},
		{name: "bad ca", app: App{State: &StoreConfig{Backend: "valkey", Addresses: []string{srv.Addr}, TLS: &TLSConfig{CA: ca}}}, bad: "no PEM"},
		{name: "missing ca", app: App{State: &StoreConfig{Backend: "valkey", Addresses: []string{srv.Addr}, TLS: &TLSConfig{CA: ca + ".none"}}}, bad: "tls ca"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := tc.app
			err := a.Provision(newContext(t))
			if tc.bad != "" {
				if err == nil || !strings.Contains(err.Error(), tc.bad) {
					t.Fatalf("Provision: %v, want an error about %q", err, tc.bad)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer func() { _ = a.Stop() }()
			if err := a.Start(); err != nil {
				t.Fatal(err)
			}
			if a.Store().Shared() != tc.shared {
				t.Errorf("shared %v, want %v", a.Store().Shared(), tc.shared)
			}
			if a.DenyOnStoreError() != (a.LimitsOnStoreError == "deny") {
				t.Error("DenyOnStoreError")
			}
			got := 0
			a.Listen("c", func([]byte) { got++ })
			a.Listen("c", func([]byte) { got += 100 })
			if !tc.shared {
				_ = a.Store().Publish(context.Background(), "c", []byte("x"))
				if got != 1 {
					t.Errorf("a channel listened to twice delivered %d", got)
				}
			}
		})
	}
	if app, err := AppOf(newContext(t)); err != nil || app.Store() != Local() {
		t.Errorf("a configuration without the app: %v %v, want the process's memory", app, err)
	}
	if (App{}).CaddyModule().ID != "llmbridge" {
		t.Error("module id")
	}
}

func TestParseGlobalOption(t *testing.T) {
	for _, tc := range []struct {
		in, want, bad string
	}{
		{in: `llmbridge {
			state valkey {
				address a:1 b:2
				username u
				password {env.P}
				db 3
				tls name.example
				tls_ca /ca.pem
				key_prefix gw:
				pool_size 9
				timeout 40ms
				dial_timeout 2s
			}
			limits_on_store_error deny
		}`, want: `{"state":{"backend":"valkey","addresses":["a:1","b:2"],"username":"u","password":"{env.P}","db":3,"tls":{"server_name":"name.example","ca":"/ca.pem"},"key_prefix":"gw:","pool_size":9,"timeout":40000000,"dial_timeout":2000000000},"limits_on_store_error":"deny"}`},
		{in: "llmbridge {\n state redis {\n address a:1\n tls\n }\n}", want: `{"state":{"backend":"valkey","addresses":["a:1"],"tls":{}}}`},
		{in: "llmbridge {\n state memory 1000\n}", want: `{"state":{"backend":"memory","memory_max":1000}}`},
		{in: "llmbridge {\n state memory x\n}", bad: "number of bytes"},
		{in: "llmbridge {\n state etcd\n}", bad: "memory or valkey"},
		{in: "llmbridge {\n state\n}", bad: "argument"},
		{in: "llmbridge {\n state valkey {\n port 1\n }\n}", bad: "unknown state valkey setting"},
		{in: "llmbridge {\n state valkey {\n db x\n }\n}", bad: "db"},
		{in: "llmbridge {\n state valkey {\n timeout soon\n }\n}", bad: "timeout"},
		{in: "llmbridge {\n state valkey {\n username a b\n }\n}", bad: "one value"},
		{in: "llmbridge {\n state valkey {\n address\n }\n}", bad: "argument"},
		{in: "llmbridge {\n state valkey {\n tls a b\n }\n}", bad: "argument"},
		{in: "llmbridge {\n limits_on_store_error maybe\n}", bad: "allow or deny"},
		{in: "llmbridge {\n limits_on_store_error\n}", bad: "argument"},
		{in: "llmbridge {\n cache on\n}", bad: "unknown llmbridge global option"},
		{in: "llmbridge extra", bad: "argument"},
	} {
		v, err := parseGlobalOption(caddyfile.NewTestDispenser(tc.in), nil)
		if tc.bad != "" {
			if err == nil || !strings.Contains(err.Error(), tc.bad) {
				t.Errorf("%q: %v, want an error about %q", tc.in, err, tc.bad)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", tc.in, err)
			continue
		}
		app := v.(httpcaddyfile.App)
		var compact bytes.Buffer
		if err := json.Compact(&compact, app.Value); err != nil {
			t.Fatal(err)
		}
		if app.Name != "llmbridge" || compact.String() != tc.want {
			t.Errorf("%q:\n got %s\nwant %s", tc.in, compact.String(), tc.want)
		}
	}
	if _, err := parseGlobalOption(caddyfile.NewTestDispenser("llmbridge {\n}"), httpcaddyfile.App{}); err == nil {
		t.Error("the option given twice was accepted")
	}
}
