package caddymodule

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/caddyserver/caddy/v2"

	"github.com/llmbridge/llmbridge/caddymodule/clouds"
	"github.com/llmbridge/llmbridge/caddymodule/failover"
	"github.com/llmbridge/llmbridge/caddymodule/fleet"
	"github.com/llmbridge/llmbridge/caddymodule/limits"
	"github.com/llmbridge/llmbridge/caddymodule/observe"
	"github.com/llmbridge/llmbridge/caddymodule/writers"
	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/mapping"
)

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
		h.keys = failover.NewPool(kind, creds, h.logger)
		failover.Register(h.keys)
	}
	first := h.cred
	if h.keys != nil {
		first = *h.keys.Member(0)
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
	failover.Forget(h.keys)
	limits.Withdraw(h.limits.Set())
	fleet.Forget(h.provider, (*sharedLearner)(h))
	return nil
}

// credentialOf returns the upstream credential of x: the member of the
// pool it was given, else the handler's one credential (which may be
// empty: the client's is forwarded).
func (h *Handler) credentialOf(x *observe.Exchange) *clouds.Credential {
	if x.Key > 0 && h.keys != nil {
		return h.keys.Member(int(x.Key) - 1)
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
var (
	_ caddy.CleanerUpper = (*Handler)(nil)
	_ writers.Host       = (*writerHost)(nil)
)

// writerHost is the handler as its response writers tell it of the
// upstream's answer.
type writerHost Handler

// NoteUpstream takes the upstream's answer status and header as they
// arrive: for the Bedrock signature hint, the failover writer and the key
// pool.
func (wh *writerHost) NoteUpstream(w http.ResponseWriter, x *observe.Exchange, status int, hdr http.Header) {
	h := (*Handler)(wh)
	h.noteSignatureRejected(status, hdr)
	x.UpstreamStatus = status
	fw := failover.Of(w)
	if fw != nil {
		fw.NoteUpstream(status)
	}
	if x.Key == 0 {
		return
	}
	others := h.keys.Note(int(x.Key)-1, status, hdr)
	if fw != nil && others {
		// Another key may do better: only this one cools, and a refused
		// key's request moves on.
		fw.NoteKey(status)
	}
}
