package caddytest

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// scrapeMetrics reads the test Caddy's admin /metrics and returns every
// caddy_llmbridge_* sample, keyed by its name and labels in sorted order:
// name{a="1",b="2"}.
func scrapeMetrics(t *testing.T) map[string]float64 {
	t.Helper()
	return scrapeMetricsOf(t, "caddy_llmbridge_")
}

// scrapeMetricsOf is scrapeMetrics for the samples whose name starts with
// prefix.
func scrapeMetricsOf(t *testing.T, prefix string) map[string]float64 {
	t.Helper()
	resp, err := rawHTTP.Get(fmt.Sprintf("http://localhost:%d/metrics", sharedEnv.adminPort))
	if err != nil {
		t.Fatalf("scraping the admin /metrics: %v", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("admin /metrics: status %d: %s", resp.StatusCode, b)
	}
	samples := map[string]float64{}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, prefix) {
			continue
		}
		sp := strings.LastIndexByte(line, ' ')
		v, err := strconv.ParseFloat(line[sp+1:], 64)
		if err != nil {
			t.Fatalf("metrics line %q: %v", line, err)
		}
		samples[sampleKey(line[:sp])] = v
	}
	return samples
}

// sampleKey puts the labels of a sample name{...} in sorted order.
func sampleKey(s string) string {
	open := strings.IndexByte(s, '{')
	if open < 0 {
		return s
	}
	labels := strings.Split(strings.TrimSuffix(s[open+1:], "}"), ",")
	sort.Strings(labels)
	return s[:open] + "{" + strings.Join(labels, ",") + "}"
}

// metric builds a sample key from a name and label pairs.
func metric(name string, labels ...string) string {
	var ls []string
	for i := 0; i+1 < len(labels); i += 2 {
		ls = append(ls, labels[i]+"="+strconv.Quote(labels[i+1]))
	}
	return sampleKey(name + "{" + strings.Join(ls, ",") + "}")
}

// TestMetrics sends a known sequence of requests through the observed site
// (Anthropic upstream) and checks, by the difference between two scrapes of
// the admin /metrics, every caddy_llmbridge_* series it must change.
func TestMetrics(t *testing.T) {
	env := setup(t)
	env.mocks.resetAll(t)
	before := scrapeMetrics(t)
	send := func(req *http.Request, status int) rawResponse {
		t.Helper()
		resp := do(t, req)
		if resp.Status != status {
			t.Fatalf("status %d, want %d; body %s", resp.Status, status, resp.Body)
		}
		return resp
	}
	chat, claude := openaiChat.defaultModel(), anthropicMsgs.defaultModel()
	// Two translated Chat requests, one with two hint fields that are
	// dropped, one passed-through Anthropic stream, one malformed
	// Responses request.
	send(newClientRequest(t, http.MethodPost, env.observed, openaiChat, chat, minimalBody(openaiChat, chat)), 200)
	hinted := []byte(`{"model":"` + chat + `","store":false,"messages":[{"role":"user","name":"bob","content":"Hi"}],"max_completion_tokens":16}`)
	resp := send(newClientRequest(t, http.MethodPost, env.observed, openaiChat, chat, hinted), 200)
	if got := resp.Header.Get("Llmbridge-Dropped"); got != "store, messages[0].name" && got != "messages[0].name, store" {
		t.Errorf("Llmbridge-Dropped = %q, want store and messages[0].name", got)
	}
	send(newClientStreamRequestFor(t, env.observed, anthropicMsgs, claude), 200)
	send(newClientRequest(t, http.MethodPost, env.observed, openaiResponses, chat, []byte(`{"model":"x","input":`)), 400)
	// One request without a route is rejected too.
	send(newClientRequest(t, http.MethodGet, env.observed, anthropicMsgs, claude, nil), 405)

	after := scrapeMetrics(t)
	const ns = "caddy_llmbridge_"
	wantDelta := map[string]float64{
		metric(ns+"requests_total", "client_protocol", "openai-chat", "upstream_protocol", "anthropic-messages", "status", "200"):        2,
		metric(ns+"requests_total", "client_protocol", "anthropic-messages", "upstream_protocol", "anthropic-messages", "status", "200"): 1,
		metric(ns+"requests_total", "client_protocol", "openai-responses", "upstream_protocol", "anthropic-messages", "status", "400"):   1,
		metric(ns+"requests_total", "client_protocol", "anthropic-messages", "upstream_protocol", "anthropic-messages", "status", "405"): 1,
		metric(ns+"tokens_total", "type", "input", "upstream_model", chat):                                                               float64(2 * defaultUsage.Input),
		metric(ns+"tokens_total", "type", "output", "upstream_model", chat):                                                              float64(2 * defaultUsage.Output),
		metric(ns+"tokens_total", "type", "cached", "upstream_model", chat):                                                              float64(2 * defaultUsage.CacheRead),
		metric(ns+"tokens_total", "type", "input", "upstream_model", claude):                                                             float64(defaultUsage.Input),
		metric(ns+"tokens_total", "type", "output", "upstream_model", claude):                                                            float64(defaultUsage.Output),
		metric(ns+"tokens_total", "type", "cached", "upstream_model", claude):                                                            float64(defaultUsage.CacheRead),
		metric(ns+"errors_total", "reason", "invalid_request"):                                                                           1,
		metric(ns+"errors_total", "reason", "method_not_allowed"):                                                                        1,
		metric(ns+"dropped_fields_total", "field", "store"):                                                                              1,
		metric(ns+"dropped_fields_total", "field", "messages[].name"):                                                                    1,
		ns + "time_to_first_event_seconds_count":                                                                                         3,
	}
	for key, want := range wantDelta {
		if got := after[key] - before[key]; got != want {
			t.Errorf("%s grew by %v, want %v", key, got, want)
		}
	}
	if after[ns+"time_to_first_event_seconds_sum"] < before[ns+"time_to_first_event_seconds_sum"] {
		t.Errorf("time_to_first_event_seconds_sum went down")
	}
	if t.Failed() {
		var keys []string
		for k := range after {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		t.Logf("scraped series:\n%s", strings.Join(keys, "\n"))
	}
}
