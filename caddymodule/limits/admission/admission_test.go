package admission

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"math"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/llmbridge/llmbridge/caddymodule/limits"
	"github.com/llmbridge/llmbridge/caddymodule/observe"
	"github.com/llmbridge/llmbridge/caddymodule/state"
	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/rules"
	"github.com/llmbridge/llmbridge/mapping"
)

// scope returns a scope no other run of the test shares: the counters of
// a memory store outlive nothing, but the metrics' labels do.
func scope(t *testing.T) string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return t.Name() + "-" + hex.EncodeToString(b)
}

// failed is what the test's Fail was given: the handler's writer stands
// for its protocols, the test only needs to know what it was asked.
type failed struct {
	protocol codec.Protocol
	err      *codec.Error
}

// gate makes a Gate over store with limits ls for the client keys
// "alice" and "bob", whose Fail notes what it was asked in f and writes
// the status.
func gate(t *testing.T, store state.Store, deny bool, f *failed, ls ...limits.Limit) (*Gate, *observer.ObservedLogs) {
	t.Helper()
	core, logs := observer.New(zap.DebugLevel)
	g, err := New(Config{Limits: ls, Store: store, DenyOnStoreError: deny, Keys: []string{"alice", "bob"},
		Registry: prometheus.NewRegistry(), Logger: zap.New(core),
		Fail: func(w http.ResponseWriter, x *observe.Exchange, p codec.Protocol, e *codec.Error) {
			f.protocol, f.err = p, e
			w.WriteHeader(e.Status)
			x.Status = e.Status
		}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { limits.Withdraw(g.Set()) })
	return g, logs
}

// read is the value of a gauge or counter.
func read(m prometheus.Metric) float64 {
	var out dto.Metric
	if err := m.Write(&out); err != nil {
		panic(err)
	}
	if out.Gauge != nil {
		return out.Gauge.GetValue()
	}
	return out.Counter.GetValue()
}

// post is a request for the test's exchanges.
func post() *http.Request { return httptest.NewRequest("POST", "/v1/messages", nil) }

// TestNew refuses limits a site cannot count and registers the metrics
// once however many sites have limits.
func TestNew(t *testing.T) {
	one := []limits.Limit{{Keys: []string{"alice"}, Rates: []limits.Rate{{Of: "requests", Max: 1, Per: "minute"}}}}
	for _, c := range []struct {
		name string
		c    Config
		want string
	}{
		{"no keys", Config{Limits: one}, "limits count per client key: the site needs client_keys"},
		{"unknown key", Config{Limits: one, Keys: []string{"bob"}}, `limit 0 names the client key "alice", which client_keys does not`},
		{"bad limit", Config{Limits: []limits.Limit{{Keys: []string{"*"}}}, Keys: []string{"bob"}, Store: state.NewMemory(0)}, "caps nothing"},
	} {
		if _, err := New(c.c); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
	reg := prometheus.NewRegistry()
	for range 2 {
		g, err := New(Config{Limits: one, Keys: []string{"alice"}, Store: state.NewMemory(0), Registry: reg})
		if err != nil {
			t.Fatal(err)
		}
		limits.Withdraw(g.Set())
	}
	// A collector of another kind under the same name is an error.
	clash := prometheus.NewRegistry()
	clash.MustRegister(prometheus.NewCounter(prometheus.CounterOpts{Namespace: "caddy", Subsystem: "llmbridge", Name: "limit_remaining", Help: "x"}))
	if _, err := New(Config{Limits: one, Keys: []string{"alice"}, Store: state.NewMemory(0), Registry: clash}); err == nil || !strings.HasPrefix(err.Error(), "registering metrics: ") {
		t.Errorf("a clashing registry: %v", err)
	}
	var none *Gate
	if none.Set() != nil {
		t.Error("a nil Gate has a Set")
	}
}

// TestAdmitRefuse admits two requests a day to alice, each showing what
// remains in the header and the gauge, and refuses the third in the
// client protocol's terms: 429, Retry-After, its rate-limit headers.
func TestAdmitRefuse(t *testing.T) {
	for _, tc := range []struct {
		client          codec.Protocol
		header, reset   string
		limit, remain   string
		resetIsDuration bool
	}{
		{client: codec.AnthropicMessages, limit: "Anthropic-Ratelimit-Requests-Limit", remain: "Anthropic-Ratelimit-Requests-Remaining", reset: "Anthropic-Ratelimit-Requests-Reset"},
		{client: codec.OpenAIChat, limit: "X-Ratelimit-Limit-Requests", remain: "X-Ratelimit-Remaining-Requests", reset: "X-Ratelimit-Reset-Requests", resetIsDuration: true},
		{client: codec.OpenAIResponses, limit: "X-Ratelimit-Limit-Requests", remain: "X-Ratelimit-Remaining-Requests", reset: "X-Ratelimit-Reset-Requests", resetIsDuration: true},
		{client: codec.Gemini},
	} {
		t.Run(string(tc.client), func(t *testing.T) {
			var f failed
			g, logs := gate(t, state.NewMemory(0), false, &f, limits.Limit{Keys: []string{"alice"}, Scope: scope(t), Rates: []limits.Rate{{Of: "requests", Max: 2, Per: "day"}}})
			for i := range 2 {
				w := httptest.NewRecorder()
				x := &observe.Exchange{Client: tc.client, KeyName: "alice", Model: "m"}
				if !g.Admit(w, post(), x, limits.Estimate{}) || x.Limit == nil {
					t.Fatalf("request %d refused", i)
				}
				want := "requests/day=" + strconv.Itoa(1-i) + "/2;reset="
				if got := w.Header().Get(Header); !strings.HasPrefix(got, want) || x.Limits != got {
					t.Errorf("request %d: %s %q (exchange %q), want %q...", i, Header, got, x.Limits, want)
				}
				if got := read(remaining.WithLabelValues("alice", "requests/day")); got != float64(1-i) {
					t.Errorf("request %d: limit_remaining %v", i, got)
				}
				g.Settle(x, -1)
				if x.Limit != nil {
					t.Error("the settled ticket is still the exchange's")
				}
			}
			before := read(refusals.WithLabelValues("alice", "requests/day"))
			w := httptest.NewRecorder()
			x := &observe.Exchange{Client: tc.client, KeyName: "alice", Model: "m"}
			if g.Admit(w, post(), x, limits.Estimate{}) || x.Limit != nil {
				t.Fatal("the third request was admitted")
			}
			if f.err == nil || f.err.Status != 429 || f.err.Kind != mapping.ErrRateLimit || f.protocol != tc.client ||
				!strings.HasPrefix(f.err.Message, "rate limit of this key reached: requests/day (2 of 2 used); retry after ") {
				t.Errorf("refusal %+v in %s", f.err, f.protocol)
			}
			ra, err := strconv.Atoi(w.Header().Get("Retry-After"))
			if err != nil || ra < 1 || ra > 86400 {
				t.Errorf("Retry-After %q", w.Header().Get("Retry-After"))
			}
			if want := "requests/day=0/2;reset=" + strconv.Itoa(ra); w.Header().Get(Header) != want || x.Limits != want {
				t.Errorf("%s %q, want %q", Header, w.Header().Get(Header), want)
			}
			if x.ErrReason != "limit_requests_day" {
				t.Errorf("reason %q", x.ErrReason)
			}
			if got := read(refusals.WithLabelValues("alice", "requests/day")); got != before+1 {
				t.Errorf("limit_refusals_total %v, want %v", got, before+1)
			}
			if logs.FilterMessage("request refused by a limit").Len() != 1 {
				t.Error("the refusal was not logged")
			}
			if tc.limit == "" {
				for k := range w.Header() {
					if strings.Contains(strings.ToLower(k), "ratelimit") {
						t.Errorf("%s has no rate-limit headers, got %s", tc.client, k)
					}
				}
				return
			}
			if w.Header().Get(tc.limit) != "2" || w.Header().Get(tc.remain) != "0" {
				t.Errorf("headers %v", w.Header())
			}
			reset := w.Header().Get(tc.reset)
			if tc.resetIsDuration {
				if _, err := time.ParseDuration(reset); err != nil {
					t.Errorf("%s %q: %v", tc.reset, reset, err)
				}
			} else if _, err := time.Parse(time.RFC3339, reset); err != nil {
				t.Errorf("%s %q: %v", tc.reset, reset, err)
			}
		})
	}
}

// TestRateLimitHeaders names each quantity as the client's protocol
// does, and gives none for caps a provider does not have (streams,
// spend).
func TestRateLimitHeaders(t *testing.T) {
	now := time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC)
	r := func(of limits.Quantity) *limits.Refusal {
		return &limits.Refusal{Of: of, Per: limits.Minute, Max: 1000, Used: 1200, Reset: now.Add(30 * time.Second)}
	}
	for _, c := range []struct {
		client codec.Protocol
		r      *limits.Refusal
		want   map[string]string
	}{
		{codec.OpenAIChat, r(limits.InputTokens), map[string]string{"X-Ratelimit-Limit-Tokens": "1000", "X-Ratelimit-Remaining-Tokens": "0", "X-Ratelimit-Reset-Tokens": "30s"}},
		{codec.AnthropicMessages, r(limits.InputTokens), map[string]string{"Anthropic-Ratelimit-Input-Tokens-Limit": "1000", "Anthropic-Ratelimit-Input-Tokens-Reset": "2026-12-07T12:00:30Z"}},
		{codec.AnthropicMessages, r(limits.OutputTokens), map[string]string{"Anthropic-Ratelimit-Output-Tokens-Remaining": "0"}},
		{codec.AnthropicMessages, r(limits.TotalTokens), map[string]string{"Anthropic-Ratelimit-Tokens-Limit": "1000"}},
		{codec.AnthropicMessages, r(limits.Spend), nil},
		{codec.OpenAIChat, &limits.Refusal{Streams: true, Max: 2, Used: 2, Reset: now}, nil},
	} {
		hdr := http.Header{}
		setRateLimitHeaders(hdr, c.client, c.r, now)
		for k, v := range c.want {
			if hdr.Get(k) != v {
				t.Errorf("%s %s: %s %q, want %q", c.client, c.r.Of, k, hdr.Get(k), v)
			}
		}
		if c.want == nil && len(hdr) != 0 {
			t.Errorf("%s %+v: %v, want none", c.client, c.r, hdr)
		}
	}
	if n := refusalName(&limits.Refusal{Streams: true}); n != "streams" {
		t.Errorf("streams named %q", n)
	}
	if n := refusalName(&limits.Refusal{Of: limits.Spend, Per: limits.Month}); n != "spend/month" {
		t.Errorf("spend named %q", n)
	}
}

// TestAdmitUncounted lets requests by without a ticket: without a key
// name, and for a key no limit applies to.
func TestAdmitUncounted(t *testing.T) {
	var f failed
	g, _ := gate(t, state.NewMemory(0), true, &f, limits.Limit{Keys: []string{"alice"}, Scope: scope(t), Rates: []limits.Rate{{Of: "requests", Max: 1, Per: "day"}}})
	if g.CountsTokens() {
		t.Error("a requests cap counts no tokens")
	}
	for _, key := range []string{"", "bob"} {
		w := httptest.NewRecorder()
		x := &observe.Exchange{Client: codec.OpenAIChat, KeyName: key}
		if !g.Admit(w, post(), x, limits.Estimate{}) || x.Limit != nil || w.Header().Get(Header) != "" {
			t.Errorf("key %q: counted (%v, %q)", key, x.Limit, w.Header().Get(Header))
		}
		g.Settle(x, 0)
	}
}

// unreachable is a state.Store that can neither count nor settle: the
// gate's policy for an outage is what is tested, not a store.
type unreachable struct{ *state.Memory }

func (unreachable) Take(context.Context, []state.Count, []int64) (bool, error) {
	return false, state.ErrUnavailable
}

// TestStoreOutage checks limits_on_store_error: allow admits a request
// the store cannot count, deny refuses it with a 503 and Retry-After 1.
func TestStoreOutage(t *testing.T) {
	for _, deny := range []bool{false, true} {
		var f failed
		g, _ := gate(t, unreachable{state.NewMemory(0)}, deny, &f, limits.Limit{Scope: scope(t), Rates: []limits.Rate{{Of: "requests", Max: 10, Per: "minute"}}})
		w := httptest.NewRecorder()
		x := &observe.Exchange{Client: codec.AnthropicMessages, KeyName: "alice"}
		ok := g.Admit(w, post(), x, limits.Estimate{})
		switch {
		case !deny && (!ok || x.Limit != nil || f.err != nil):
			t.Errorf("allow: admitted %v, ticket %v, error %+v; want uncounted", ok, x.Limit, f.err)
		case deny && (ok || f.err == nil || f.err.Status != 503 || f.err.Kind != mapping.ErrOverloaded || w.Header().Get("Retry-After") != "1" || x.ErrReason != "limits_unavailable"):
			t.Errorf("deny: admitted %v, error %+v, Retry-After %q, reason %q", ok, f.err, w.Header().Get("Retry-After"), x.ErrReason)
		}
	}
}

// unsettled is a store that counts but cannot settle.
type unsettled struct{ *state.Memory }

func (unsettled) Add(context.Context, []state.Count) error { return errors.New("gone") }

// TestSettle settles with the usage and cost reported, gives an error
// answer's estimate back, frees a stream's place, and logs a settlement
// the store could not make.
func TestSettle(t *testing.T) {
	var f failed
	sc := scope(t)
	g, _ := gate(t, state.NewMemory(0), false, &f, limits.Limit{Scope: sc, Rates: []limits.Rate{{Of: "total_tokens", Max: 1e6, Per: "day"}, {Of: "spend", Max: 5, Per: "day"}}, Streams: 1})
	if !g.CountsTokens() {
		t.Error("a token budget counts tokens")
	}
	admit := func(est limits.Estimate) *observe.Exchange {
		t.Helper()
		x := &observe.Exchange{Client: codec.OpenAIChat, KeyName: "bob", Model: "m", Stream: true}
		if !g.Admit(httptest.NewRecorder(), post(), x, est) {
			t.Fatalf("refused: %+v", f.err)
		}
		return x
	}
	x := admit(limits.Estimate{Input: 100, Output: 5000, Spend: 1})
	x.Usage = codec.Usage{Known: true, InputTokens: 40, OutputTokens: 2}
	g.Settle(x, 0.25)
	x = admit(limits.Estimate{Input: 100, Output: 5000, Spend: 1})
	g.Settle(x, -1) // an error answer: no usage, the estimate given back
	reports, err := g.Set().Report(context.Background(), []string{"bob"}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	used := map[string]float64{}
	for _, r := range reports {
		used[r.Limit] = r.Used
	}
	if used["total_tokens/day"] != 42 || used["spend/day"] != 0.25 || used["streams"] != 0 {
		t.Errorf("after settlement: %v, want 42 tokens, $0.25 and no stream open", used)
	}

	g2, logs := gate(t, unsettled{state.NewMemory(0)}, false, &f, limits.Limit{Scope: sc, Rates: []limits.Rate{{Of: "input_tokens", Max: 1e6, Per: "day"}}})
	x = &observe.Exchange{Client: codec.OpenAIChat, KeyName: "bob", Model: "m"}
	if !g2.Admit(httptest.NewRecorder(), post(), x, limits.Estimate{Input: 10}) {
		t.Fatal("refused")
	}
	g2.Settle(x, -1)
	if logs.FilterMessage("limits could not be settled").Len() != 1 {
		t.Error("a failed settlement was not logged")
	}
}

// TestValue writes each rate of an admitted request, streams left out,
// in the Llmbridge-Limits format.
func TestValue(t *testing.T) {
	set, err := limits.New([]limits.Limit{{Scope: scope(t), Rates: []limits.Rate{{Of: "requests", Max: 60, Per: "minute"}, {Of: "spend", Max: 2.5, Per: "day"}}, Streams: 3}}, state.NewMemory(0))
	if err != nil {
		t.Fatal(err)
	}
	var tk limits.Ticket
	now := time.Date(2026, 12, 7, 12, 30, 48, 0, time.UTC)
	if r, err := set.Admit(context.Background(), &tk, "k", "m", true, limits.Estimate{Spend: 0.5}, now); r != nil || err != nil {
		t.Fatal(r, err)
	}
	if got, want := value(&tk, now), "requests/minute=59/60;reset=12, spend/day=2/2.50;reset=41352"; got != want {
		t.Errorf("%q, want %q", got, want)
	}
}

// TestEstimate counts a request's input generously, takes its output
// limit or the default, and prices both at the model's price.
func TestEstimate(t *testing.T) {
	req := &codec.Request{Messages: []codec.Message{{Role: codec.RoleUser, Parts: []codec.Part{{Type: codec.PartText, Text: strings.Repeat("a", 300)}}}}}
	if e := Estimate(req, codec.OptInt{}, 4096, nil, "m"); e.Input != 100 || e.Output != 4096 || e.Spend != 0 {
		t.Errorf("%+v, want 100 input tokens, the default output and no price", e)
	}
	if e := Estimate(req, codec.OptInt{Value: 10, Set: true}, 4096, nil, "m"); e.Output != 10 {
		t.Errorf("%+v, want the request's 10 output tokens", e)
	}
	prices := observe.CompilePrices([]rules.Rule{{Models: []string{"claude-*"}, Price: &rules.Price{Input: 3, Output: 15}}}, "anthropic")
	if e := Estimate(req, codec.OptInt{Value: 1000, Set: true}, 4096, prices, "claude-sonnet-4-5"); math.Abs(e.Spend-(100*3+1000*15)/1e6) > 1e-12 {
		t.Errorf("%+v, want the estimate priced at the model's price", e)
	}
	if e := Estimate(req, codec.OptInt{}, 4096, prices, "gpt-5"); e.Spend != 0 {
		t.Errorf("%+v, want no price for a model without one", e)
	}
	if e := Undecoded(make([]byte, 30), codec.OptInt{}, 7); e != (limits.Estimate{Input: 10, Output: 7}) {
		t.Errorf("undecoded: %+v", e)
	}
	if e := Undecoded(nil, codec.OptInt{Value: 3, Set: true}, 7); e != (limits.Estimate{Output: 3}) {
		t.Errorf("undecoded with a limit: %+v", e)
	}
}

// TestSettleWithoutGate settles an exchange of a site without limits:
// the handler settles every exchange it records.
func TestSettleWithoutGate(t *testing.T) {
	var g *Gate
	x := &observe.Exchange{KeyName: "alice", Usage: codec.Usage{Known: true, InputTokens: 1}}
	g.Settle(x, 1)
	if x.Limit != nil {
		t.Error("a reservation appeared")
	}
}
