package caddytest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"testing"
	"time"
)

// TestLimitsAdmin reads each key's use of its limits from Caddy's admin
// API (GET /llmbridge/limits) after requests through a site with limits.
func TestLimitsAdmin(t *testing.T) {
	env := setup(t)
	scope := fmt.Sprintf("admin-%d", time.Now().UnixNano())
	base := newOneSite(t, env).load(t, "", fmt.Sprintf(`	llmbridge {
		upstream openai-chat
		api_key %s
		client_keys {
			alice %s
			bob %s
		}
		limit alice {
			requests 10/hour
			total_tokens 1M/day
			scope %s
		}
	}
	reverse_proxy %s
`, upstreamKey, clientKey, bobKey, scope, env.mocks[openaiChat].addr()))
	env.mocks.resetAll(t)
	for range 3 {
		if status, _, body := anthropicRequest(t, base, clientKey, false); status != 200 {
			t.Fatalf("%d %s", status, body)
		}
	}
	resp, err := http.Get(fmt.Sprintf("http://localhost:%d/llmbridge/limits", env.adminPort))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var reports []struct {
		Key, Limit string
		Scope      string
		Max, Used  float64
		Reset      *time.Time
	}
	if err := json.Unmarshal(b, &reports); err != nil || resp.StatusCode != 200 {
		t.Fatalf("%d %s: %v", resp.StatusCode, b, err)
	}
	got := map[string]float64{}
	for _, r := range reports {
		if r.Key == "bob" {
			t.Errorf("bob is under no limit: %+v", r)
		}
		if r.Scope == scope {
			got[r.Limit] = r.Used
			if r.Reset == nil || r.Reset.Before(time.Now()) {
				t.Errorf("%s: reset %v", r.Limit, r.Reset)
			}
		}
	}
	// Three requests of the mock's default usage: 15 in, 10 out each.
	if got["requests/hour"] != 3 || got["total_tokens/day"] != 75 {
		t.Errorf("alice's use %v, want 3 requests and 75 tokens; report %s", got, b)
	}
}
