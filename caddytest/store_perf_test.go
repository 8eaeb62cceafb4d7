package caddytest

import (
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/llmbridge/llmbridge/internal/valkeytest"
)

// storeFleet starts two instances whose state is state (a global option
// line), each with a site toward the Chat mock whose key alice is under a
// requests cap and a token budget it never reaches, and returns the
// sites.
func storeFleet(t *testing.T, env *testEnv, name, state string) [2]string {
	t.Helper()
	var sites [2]string
	for i := range sites {
		ports, err := freePorts(4)
		if err != nil {
			t.Fatal(err)
		}
		sites[i] = fmt.Sprintf("http://localhost:%d", ports[3])
		caddyfile := fmt.Sprintf(`{
	admin localhost:%d
	http_port %d
	https_port %d
	grace_period 1ns
	llmbridge {
		%s
	}
}

http://localhost:%d {
	llmbridge {
		upstream openai-chat
		api_key %s
		client_keys {
			alice %s
		}
		limit alice {
			requests 100M/minute
			total_tokens 100G/day
			scope perf-%d
		}
	}
	reverse_proxy %s
}
`, ports[0], ports[1], ports[2], state, ports[3], upstreamKey, clientKey, time.Now().UnixNano(), env.mocks[openaiChat].addr())
		startInstance(t, fmt.Sprintf("%s%d", name, i), caddyfile, fmt.Sprintf("localhost:%d", ports[3]))
	}
	return sites
}

// TestStorePerf measures what a shared store adds, side by side with the
// memory store, each behind two instances with limits on: the p50 latency
// of sequential requests (the budget: +0.3 ms), and the throughput of 200
// concurrent streams across both instances (the budget: within 10%).
// Off by default, like TestPerf; -perf.strict fails a missed budget.
func TestStorePerf(t *testing.T) {
	if !*perfEnabled {
		t.Skip("the end-to-end benchmark is off; run it with: go test ./caddytest -run '^TestStorePerf$' -count=1 -v -perf")
	}
	env := setup(t)
	srv := valkeytest.Start(t)
	fleets := map[string][2]string{
		"memory": storeFleet(t, env, "memory", "state memory"),
		"valkey": storeFleet(t, env, "valkey", "state valkey {\n\t\t\taddress "+srv.Addr+"\n\t\t}"),
	}
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 256}, Timeout: 30 * time.Second}
	// uncounted are requests admitted without a count: the store did not
	// answer within its timeout and the limits failed open.
	var uncounted atomic.Int64
	request := func(base string, stream bool) error {
		body := `{"model":"gpt-5.2","max_tokens":16,"messages":[{"role":"user","content":"Hi"}]}`
		if stream {
			body = strings.Replace(body, `{`, `{"stream":true,`, 1)
		}
		req, _ := http.NewRequest(http.MethodPost, base+"/v1/messages", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-Api-Key", clientKey)
		req.Header.Set("Anthropic-Version", "2023-06-01")
		resp, err := client.Do(req)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 200 {
			return fmt.Errorf("%d %s", resp.StatusCode, b)
		}
		if resp.Header.Get("Llmbridge-Limits") == "" {
			uncounted.Add(1)
		}
		return nil
	}
	// p50 latency, the sides interleaved in rounds.
	lat := map[string][]time.Duration{}
	for range 5 {
		for _, side := range []string{"memory", "valkey"} {
			for i := range 100 {
				start := time.Now()
				if err := request(fleets[side][i%2], false); err != nil {
					t.Fatalf("%s: %v", side, err)
				}
				lat[side] = append(lat[side], time.Since(start))
			}
		}
	}
	p50 := func(d []time.Duration) time.Duration { slices.Sort(d); return d[len(d)/2] }
	pm, pv := p50(lat["memory"]), p50(lat["valkey"])
	t.Logf("p50 latency, sequential requests: memory %v, valkey %v (+%v; budget +300µs)", pm, pv, pv-pm)
	if *perfStrict && pv-pm > 300*time.Microsecond {
		t.Errorf("valkey adds %v to the p50 latency, over 300µs", pv-pm)
	}
	// Throughput of 200 concurrent streams across both instances.
	throughput := func(side string) float64 {
		uncounted.Store(0)
		defer func() {
			if n := uncounted.Load(); n > 0 {
				t.Logf("%s: %d streams admitted uncounted (the store's 25ms timeout passed)", side, n)
			}
		}()
		var done atomic.Int64
		var wg sync.WaitGroup
		stop := time.Now().Add(3 * time.Second)
		for c := range 200 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := 0; time.Now().Before(stop); i++ {
					if err := request(fleets[side][(c+i)%2], true); err != nil {
						t.Errorf("%s: %v", side, err)
						return
					}
					done.Add(1)
				}
			}()
		}
		wg.Wait()
		return float64(done.Load()) / 3
	}
	tm, tv := throughput("memory"), throughput("valkey")
	tm2, tv2 := throughput("memory"), throughput("valkey")
	tm, tv = (tm+tm2)/2, (tv+tv2)/2
	t.Logf("200 concurrent streams across two instances: memory %.0f/s, valkey %.0f/s (x%.2f; budget x0.90)", tm, tv, tv/tm)
	if *perfStrict && tv < 0.9*tm {
		t.Errorf("valkey's stream throughput is x%.2f of memory's, under x0.90", tv/tm)
	}
}
