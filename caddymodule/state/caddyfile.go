package state

import (
	"strconv"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/caddyconfig/httpcaddyfile"
)

func init() {
	httpcaddyfile.RegisterGlobalOption("llmbridge", parseGlobalOption)
}

// parseGlobalOption sets up the llmbridge app from the global options
// block:
//
//	{
//		llmbridge {
//			state memory [<max bytes>]
//			state valkey {
//				address <host:port> [<host:port>...]
//				username <user>
//				password <password>
//				db <n>
//				tls [<server name>]
//				tls_ca <pem file>
//				key_prefix <prefix>
//				pool_size <n>
//				timeout <duration>
//				dial_timeout <duration>
//			}
//			limits_on_store_error allow|deny
//		}
//	}
//
// Placeholders in username and password ({env.VALKEY_PASSWORD}) are
// expanded when the configuration is loaded.
func parseGlobalOption(d *caddyfile.Dispenser, existing any) (any, error) {
	app := &App{}
	if existing != nil {
		return nil, d.Err("the llmbridge global option is given twice")
	}
	d.Next() // the option's name
	if d.NextArg() {
		return nil, d.ArgErr()
	}
	for d.NextBlock(0) {
		switch d.Val() {
		case "state":
			c, err := parseState(d)
			if err != nil {
				return nil, err
			}
			app.State = c
		case "limits_on_store_error":
			if !d.NextArg() {
				return nil, d.ArgErr()
			}
			app.LimitsOnStoreError = d.Val()
			if app.LimitsOnStoreError != "allow" && app.LimitsOnStoreError != "deny" {
				return nil, d.Errf("limits_on_store_error %q: want allow or deny", d.Val())
			}
		default:
			return nil, d.Errf("unknown llmbridge global option %q (state, limits_on_store_error)", d.Val())
		}
	}
	return httpcaddyfile.App{Name: "llmbridge", Value: caddyconfig.JSON(app, nil)}, nil
}

// parseState parses the state subdirective.
func parseState(d *caddyfile.Dispenser) (*StoreConfig, error) {
	if !d.NextArg() {
		return nil, d.ArgErr()
	}
	c := &StoreConfig{Backend: d.Val()}
	switch c.Backend {
	case "memory":
		if d.NextArg() {
			n, err := strconv.ParseInt(d.Val(), 10, 64)
			if err != nil || n <= 0 {
				return nil, d.Errf("state memory %q: want a number of bytes", d.Val())
			}
			c.MemoryMax = n
		}
		return c, nil
	case "valkey", "redis":
		c.Backend = "valkey"
	default:
		return nil, d.Errf("state %q: want memory or valkey", d.Val())
	}
	for d.NextBlock(1) {
		name := d.Val()
		args := d.RemainingArgs()
		one := func() (string, error) {
			if len(args) != 1 {
				return "", d.Errf("%s takes one value", name)
			}
			return args[0], nil
		}
		var err error
		switch name {
		case "address":
			if len(args) == 0 {
				return nil, d.ArgErr()
			}
			c.Addresses = append(c.Addresses, args...)
		case "username":
			c.Username, err = one()
		case "password":
			c.Password, err = one()
		case "db":
			var v string
			if v, err = one(); err == nil {
				c.DB, err = strconv.Atoi(v)
			}
		case "tls":
			if c.TLS == nil {
				c.TLS = &TLSConfig{}
			}
			if len(args) > 1 {
				return nil, d.ArgErr()
			}
			if len(args) == 1 {
				c.TLS.ServerName = args[0]
			}
		case "tls_ca":
			if c.TLS == nil {
				c.TLS = &TLSConfig{}
			}
			c.TLS.CA, err = one()
		case "key_prefix":
			c.KeyPrefix, err = one()
		case "pool_size":
			var v string
			if v, err = one(); err == nil {
				c.PoolSize, err = strconv.Atoi(v)
			}
		case "timeout", "dial_timeout":
			var v string
			var dur time.Duration
			if v, err = one(); err == nil {
				if dur, err = caddy.ParseDuration(v); err == nil {
					if name == "timeout" {
						c.Timeout = caddy.Duration(dur)
					} else {
						c.DialTimeout = caddy.Duration(dur)
					}
				}
			}
		default:
			return nil, d.Errf("unknown state valkey setting %q", name)
		}
		if err != nil {
			return nil, d.Errf("%s: %v", name, err)
		}
	}
	return c, nil
}
