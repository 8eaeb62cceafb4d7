package caddytest

import (
	"bufio"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/llmbridge/llmbridge/internal/valkeytest"
)

// fleet is two Caddy instances, each a process of its own, sharing one
// Valkey (or Redis) server through the llmbridge app's state store.
type fleet struct {
	valkey *valkeytest.Server
	// sites[i] are instance i's sites by name: "plain" (limits for alice
	// and bob), "failover" (targets ta, whose upstream answers 429, and
	// tb), "pool" (two keys toward an upstream refusing the first).
	sites [2]map[string]string
	// ta and pool are the faulty upstreams of the failover site's first
	// target and of the pool site.
	ta, pool *faultyUpstream
}

// bobKey is the client key of the fleet's second named key.
const bobKey = "bob-key"

// newFleet starts the fleet's server and instances.
func newFleet(t *testing.T, env *testEnv) *fleet {
	t.Helper()
	f := &fleet{valkey: valkeytest.Start(t)}
	f.ta = newFaultyUpstream(env.mocks[openaiChat])
	f.pool = newFaultyUpstream(env.mocks[openaiChat])
	t.Cleanup(func() { f.ta.srv.Close(); f.pool.srv.Close() })
	rnd := make([]byte, 6)
	_, _ = rand.Read(rnd)
	prefix := "fleet-" + hex.EncodeToString(rnd) + ":"
	for i := range f.sites {
		ports, err := freePorts(6)
		if err != nil {
			t.Fatal(err)
		}
		f.sites[i] = map[string]string{
			"plain":    fmt.Sprintf("http://localhost:%d", ports[3]),
			"failover": fmt.Sprintf("http://localhost:%d", ports[4]),
			"pool":     fmt.Sprintf("http://localhost:%d", ports[5]),
		}
		caddyfile := fmt.Sprintf(`{
	admin localhost:%d
	http_port %d
	https_port %d
	grace_period 1ns
	llmbridge {
		state valkey {
			address %s
			key_prefix %s
			timeout 500ms
		}
	}
}

&(ta) {
	route {
		llmbridge {
			upstream openai-chat
			api_key %s
		}
		reverse_proxy %s
	}
}

&(tb) {
	route {
		llmbridge {
			upstream openai-chat
			api_key %s
		}
		reverse_proxy %s
	}
}

http://localhost:%d {
	llmbridge {
		upstream openai-chat
		api_key %s
		client_keys {
			alice %s
			bob %s
		}
		limit alice {
			requests 6/hour
		}
		limit bob {
			spend 0.06/day
		}
		model_rule gpt-* {
			price input 1000 output 1000 source https://example.com/fleet-test-price date 2026-12-01
		}
	}
	reverse_proxy %s
}

http://localhost:%d {
	llmbridge {
		failover ta tb {
			cooldown 30s
		}
	}
}

http://localhost:%d {
	llmbridge {
		upstream openai-chat
		api_key fleet-k0 fleet-k1
	}
	reverse_proxy %s
}
`, ports[0], ports[1], ports[2], f.valkey.Addr, prefix,
			upstreamKey, f.ta.addr(), upstreamKey, env.mocks[openaiChat].addr(),
			ports[3], upstreamKey, clientKey, bobKey, env.mocks[openaiChat].addr(),
			ports[4], ports[5], f.pool.addr())
		startInstance(t, "instance"+strconv.Itoa(i), caddyfile, fmt.Sprintf("localhost:%d", ports[3]))
	}
	return f
}

// anthropicRequest posts an Anthropic Messages request to base with key.
func anthropicRequest(t *testing.T, base, key string, stream bool) (int, http.Header, string) {
	t.Helper()
	body := `{"model":"gpt-5.2","max_tokens":16,"messages":[{"role":"user","content":"Hi"}]}`
	if stream {
		body = strings.Replace(body, `{`, `{"stream":true,`, 1)
	}
	req, err := http.NewRequest(http.MethodPost, base+"/v1/messages", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Api-Key", key)
	req.Header.Set("Anthropic-Version", "2023-06-01")
	resp, err := rawHTTP.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(b)
}

// TestFleet runs two Caddy instances sharing one Valkey server and checks
// what they share: a key's limit of requests and its daily spend budget
// (streamed requests), a provider's 429 that cools a failover target,
// a pooled key the upstream refused, Responses items a client refers to
// on the other instance, and conversations continued there by
// previous_response_id.
func TestFleet(t *testing.T) {
	env := setup(t)
	f := newFleet(t, env)
	t.Run("requests-limit", func(t *testing.T) {
		env.mocks.resetAll(t)
		ok, refused := 0, 0
		for i := range 10 {
			status, hdr, body := anthropicRequest(t, f.sites[i%2]["plain"], clientKey, false)
			switch status {
			case 200:
				ok++
				if !strings.HasPrefix(hdr.Get("Llmbridge-Limits"), "requests/hour=") {
					t.Errorf("request %d: Llmbridge-Limits %q", i, hdr.Get("Llmbridge-Limits"))
				}
			case 429:
				refused++
				if gjson.Get(body, "error.type").Str != "rate_limit_error" || hdr.Get("Anthropic-Ratelimit-Requests-Remaining") != "0" ||
					hdr.Get("Anthropic-Ratelimit-Requests-Limit") != "6" || hdr.Get("Retry-After") == "" {
					t.Errorf("request %d refused: %v %s, want Anthropic's rate_limit_error with its headers and Retry-After", i, hdr, body)
				}
			default:
				t.Fatalf("request %d: %d %s", i, status, body)
			}
		}
		if ok != 6 || refused != 4 {
			t.Errorf("%d admitted and %d refused across two instances, want 6 and 4", ok, refused)
		}
	})
	t.Run("spend-budget", func(t *testing.T) {
		env.mocks.resetAll(t)
		// Each request costs (15 + 10) tokens at $1,000 a million:
		// $0.025. A budget of $0.06 admits while below: three requests.
		var statuses []int
		for i := range 5 {
			status, _, body := anthropicRequest(t, f.sites[i%2]["plain"], bobKey, true)
			statuses = append(statuses, status)
			if status == 200 && !strings.Contains(body, "message_stop") {
				t.Errorf("request %d: the stream did not complete: %s", i, body)
			}
		}
		if fmt.Sprint(statuses) != "[200 200 200 429 429]" {
			t.Errorf("statuses %v, want three admitted, then refused by the daily budget across instances", statuses)
		}
	})
	t.Run("cooldown", func(t *testing.T) {
		env.mocks.resetAll(t)
		hdr := errorHeader(openaiChat, 429)
		hdr.Set("Retry-After", "30")
		f.ta.set(&targetFault{status: 429, header: hdr, body: nativeError(openaiChat, 429, "slow down")})
		defer f.ta.set(nil)
		resp := postJSON(t, f.sites[0]["failover"]+"/v1/messages", `{"model":"gpt-5.2","max_tokens":10,"messages":[{"role":"user","content":"Hi"}]}`)
		if resp.StatusCode != 200 || resp.Header.Get("Llmbridge-Attempts") != "2" {
			t.Fatalf("instance 0: %d after %q attempts, want 200 from the second target", resp.StatusCode, resp.Header.Get("Llmbridge-Attempts"))
		}
		hits, _ := f.ta.seen()
		time.Sleep(300 * time.Millisecond) // the event crosses the store
		resp = postJSON(t, f.sites[1]["failover"]+"/v1/messages", `{"model":"gpt-5.2","max_tokens":10,"messages":[{"role":"user","content":"Hi"}]}`)
		if resp.StatusCode != 200 || resp.Header.Get("Llmbridge-Attempts") != "1" || resp.Header.Get("Llmbridge-Upstream") != "tb" {
			t.Errorf("instance 1: %d from %q after %q attempts, want 200 from tb after 1: the target cooling on instance 0 cools here",
				resp.StatusCode, resp.Header.Get("Llmbridge-Upstream"), resp.Header.Get("Llmbridge-Attempts"))
		}
		if now, _ := f.ta.seen(); now != hits {
			t.Errorf("instance 1 called the cooling target %d times", now-hits)
		}
	})
	t.Run("key-out", func(t *testing.T) {
		env.mocks.resetAll(t)
		f.pool.set(&targetFault{keys: map[string]int{"fleet-k0": 401}})
		defer f.pool.set(nil)
		refusedOn0 := false
		for range 2 {
			if resp := postJSON(t, f.sites[0]["pool"]+"/v1/chat/completions", `{"model":"gpt-5.2","messages":[{"role":"user","content":"Hi"}]}`); resp.StatusCode == 401 {
				refusedOn0 = true
			}
		}
		if !refusedOn0 {
			t.Fatal("instance 0 never used the refused key")
		}
		time.Sleep(300 * time.Millisecond)
		_, before := f.pool.seen()
		for i := range 6 {
			if resp := postJSON(t, f.sites[1]["pool"]+"/v1/chat/completions", `{"model":"gpt-5.2","messages":[{"role":"user","content":"Hi"}]}`); resp.StatusCode != 200 {
				t.Errorf("instance 1, request %d: %d, want 200 with the key still in", i, resp.StatusCode)
			}
		}
		_, keys := f.pool.seen()
		for _, k := range keys[len(before):] {
			if k == "fleet-k0" {
				t.Errorf("instance 1 sent the key instance 0 saw refused")
			}
		}
	})
	t.Run("items", func(t *testing.T) {
		env.mocks.resetAll(t)
		// The pool site, whose requests no limit counts: a streamed
		// Responses answer, whose items are kept for references.
		first := `{"model":"gpt-5.2","stream":true,"input":"Hi"}`
		req, _ := http.NewRequest(http.MethodPost, f.sites[0]["pool"]+"/v1/responses", strings.NewReader(first))
		req.Header.Set("Content-Type", "application/json")
		resp, err := rawHTTP.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		id := ""
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok && gjson.Get(data, "type").Str == "response.output_item.added" && id == "" {
				id = gjson.Get(data, "item.id").Str
			}
		}
		resp.Body.Close()
		if id == "" {
			t.Fatal("no item id in the first stream")
		}
		second := `{"model":"gpt-5.2","input":[{"role":"user","content":"Hi"},{"type":"item_reference","id":"` + id + `"},{"role":"user","content":"And?"}]}`
		r2 := postJSON(t, f.sites[1]["pool"]+"/v1/responses", second)
		if r2.StatusCode != 200 {
			b, _ := io.ReadAll(r2.Body)
			t.Errorf("the item minted on instance 0, referred to on instance 1: %d %s", r2.StatusCode, b)
		}
	})
	t.Run("conversations", func(t *testing.T) {
		env.mocks.resetAll(t)
		// A response answered on instance 0 is continued by
		// previous_response_id on instance 1, which sends the upstream
		// the whole conversation.
		r1 := postJSON(t, f.sites[0]["pool"]+"/v1/responses", `{"model":"gpt-5.2","input":"First question on instance 0"}`)
		b1, _ := io.ReadAll(r1.Body)
		id := gjson.GetBytes(b1, "id").Str
		if r1.StatusCode != 200 || id == "" {
			t.Fatalf("instance 0: %d %s", r1.StatusCode, b1)
		}
		r2 := postJSON(t, f.sites[1]["pool"]+"/v1/responses", `{"model":"gpt-5.2","previous_response_id":"`+id+`","input":"Second question on instance 1"}`)
		b2, _ := io.ReadAll(r2.Body)
		if r2.StatusCode != 200 {
			t.Fatalf("the response of instance 0, continued on instance 1: %d %s", r2.StatusCode, b2)
		}
		if rec, _ := env.mocks[openaiChat].lastRequest(); rec == nil || !strings.Contains(string(rec.Body), "First question on instance 0") {
			t.Errorf("instance 1 did not send the conversation: %s", rec.Body)
		}
	})
}
