package caddytest

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/llmbridge/llmbridge/internal/valkeytest"
)

// storeFaults is the global options and the site of TestStoreFaults: a
// limit over a Valkey store whose operations time out after 50ms, with the
// limits' policy policy.
func storeFaults(env *testEnv, valkey, policy string) (global, body string) {
	global = fmt.Sprintf(`	llmbridge {
		state valkey {
			address %s
			key_prefix faults-%d:
			timeout 50ms
		}
		limits_on_store_error %s
	}
`, valkey, time.Now().UnixNano(), policy)
	body = fmt.Sprintf(`	llmbridge {
		upstream openai-chat
		api_key %s
		client_keys {
			alice %s
		}
		limit alice {
			requests 100000/hour
			total_tokens 100M/day
		}
	}
	reverse_proxy %s
`, upstreamKey, clientKey, env.mocks[openaiChat].addr())
	return global, body
}

// TestStoreFaults stops, restarts and pauses the state store under a site
// with limits: with limits_on_store_error allow every request, streamed
// or not, is answered while the store is down (uncounted) and counting
// resumes when it is back, without a reload; a store that hangs adds at
// most its timeout to a request; with deny, requests are refused with a
// 503 in the client's format while it is down; goroutines come back.
func TestStoreFaults(t *testing.T) {
	env := setup(t)
	srv := valkeytest.Start(t)
	site := newOneSite(t, env)
	global, body := storeFaults(env, srv.Addr, "allow")
	base := site.load(t, global, body)
	send := func(stream bool) (int, string, string, time.Duration) {
		start := time.Now()
		status, hdr, body := anthropicRequest(t, base, clientKey, stream)
		return status, hdr.Get("Llmbridge-Limits"), body, time.Since(start)
	}
	for range 5 {
		if status, limits, body, _ := send(false); status != 200 || limits == "" {
			t.Fatalf("before the outage: %d limits %q %s", status, limits, body)
		}
	}
	goroutines := runtime.NumGoroutine()
	t.Run("down-allow", func(t *testing.T) {
		srv.Stop()
		for i := range 10 {
			status, limits, body, took := send(i%2 == 1)
			if status != 200 || limits != "" {
				t.Errorf("store down, request %d: %d limits %q, want 200 uncounted; %s", i, status, limits, body)
			}
			if i%2 == 1 && !strings.Contains(body, "message_stop") {
				t.Errorf("store down, stream %d did not complete: %s", i, body)
			}
			if took > 2*time.Second {
				t.Errorf("store down, request %d took %v", i, took)
			}
		}
	})
	t.Run("recovers", func(t *testing.T) {
		srv.Restart(t)
		deadline := time.Now().Add(15 * time.Second)
		for {
			status, limits, _, _ := send(false)
			if status == 200 && limits != "" {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("counting did not resume after the store came back (last: %d %q)", status, limits)
			}
			time.Sleep(100 * time.Millisecond)
		}
	})
	t.Run("hangs", func(t *testing.T) {
		srv.Pause()
		defer srv.Resume()
		for i := range 4 {
			status, limits, body, took := send(false)
			if status != 200 {
				t.Errorf("store hanging, request %d: %d %s", i, status, body)
			}
			// Admission waits at most the 50ms timeout; settlement is
			// after the answer.
			if took > 600*time.Millisecond {
				t.Errorf("store hanging, request %d took %v (limits %q): the timeout does not bound it", i, took, limits)
			}
		}
	})
	t.Run("down-deny", func(t *testing.T) {
		global, body := storeFaults(env, srv.Addr, "deny")
		site.load(t, global, body)
		srv.Stop()
		defer srv.Restart(t)
		status, _, body, _ := send(false)
		if status != 503 || gjson.Get(body, "error.type").Str != "overloaded_error" {
			t.Errorf("store down with deny: %d %s, want 503 in Anthropic's format", status, body)
		}
	})
	time.Sleep(500 * time.Millisecond)
	if now := runtime.NumGoroutine(); now > goroutines+40 {
		t.Errorf("goroutines %d after the faults, %d before", now, goroutines)
	}
}
