package caddymodule

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/llmbridge/llmbridge/caddymodule/failover"
)

// fakeUpstream stands for reverse_proxy in a target's route: it answers
// status, header and body, or a stream of events written one by one.
type fakeUpstream struct {
	status int
	header http.Header
	body   string
	events []string
	err    error // returned without writing anything
	calls  int
	seen   http.Header // the last request's header
	query  string      // the last request's query
}

func (f *fakeUpstream) ServeHTTP(w http.ResponseWriter, r *http.Request, _ caddyhttp.Handler) error {
	f.calls++
	f.seen, f.query = r.Header.Clone(), r.URL.RawQuery
	_, _ = io.Copy(io.Discard, r.Body)
	if f.err != nil {
		return f.err
	}
	for k, v := range f.header {
		w.Header()[k] = v
	}
	w.WriteHeader(f.status)
	if f.events != nil {
		for _, e := range f.events {
			_, _ = io.WriteString(w, e)
		}
		return nil
	}
	_, _ = io.WriteString(w, f.body)
	return nil
}

// failoverSiteFor provisions a failover site over targets, each an
// llmbridge of the given upstream protocol before its fake upstream.
func failoverSiteFor(t testing.TB, ctx caddy.Context, protocols []string, ups []*fakeUpstream, extra func(*failover.Config)) (*Handler, *caddyhttp.Server) {
	t.Helper()
	srv := &caddyhttp.Server{NamedRoutes: map[string]*caddyhttp.Route{}}
	var names []string
	for i, p := range protocols {
		h := &Handler{Upstream: p}
		if err := h.Provision(ctx); err != nil {
			t.Fatal(err)
		}
		name := "t" + string(rune('a'+i)) + "-" + t.Name()
		srv.NamedRoutes[name] = &caddyhttp.Route{Handlers: []caddyhttp.MiddlewareHandler{h, ups[i]}}
		names = append(names, name)
	}
	site := &Handler{Failover: &failover.Config{Targets: names, Cooldown: 1, MaxCooldown: 1, Breaker: &failover.CircuitBreaker{Failures: 1 << 30, Period: 1}}}
	if extra != nil {
		extra(site.Failover)
	}
	if err := site.Provision(ctx); err != nil {
		t.Fatal(err)
	}
	return site, srv
}

// serveSite sends body to the site as an Anthropic Messages request.
func serveSite(site *Handler, srv *caddyhttp.Server, body string) *httptest.ResponseRecorder {
	w, _, _ := serveSiteLogged(site, srv, body)
	return w
}

// serveSiteLogged is serveSite, returning the request's replacer and
// access log fields too.
func serveSiteLogged(site *Handler, srv *caddyhttp.Server, body string) (*httptest.ResponseRecorder, *caddy.Replacer, *caddyhttp.ExtraLogFields) {
	r := httptest.NewRequest(http.MethodPost, "/v1/messages", strings.NewReader(body))
	repl, extra := caddy.NewReplacer(), new(caddyhttp.ExtraLogFields)
	ctx := context.WithValue(r.Context(), caddyhttp.ServerCtxKey, srv)
	ctx = context.WithValue(ctx, caddy.ReplacerCtxKey, repl)
	ctx = context.WithValue(ctx, caddyhttp.ExtraLogFieldsCtxKey, extra)
	r = r.WithContext(ctx)
	r.Header.Set("X-Api-Key", "k")
	w := httptest.NewRecorder()
	_ = site.ServeHTTP(w, r, emptyNext)
	return w, repl, extra
}

const (
	anthropicOK = `{"id":"msg","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":"from anthropic"}],"stop_reason":"end_turn","usage":{"input_tokens":1,"output_tokens":1}}`
	chatOK      = `{"id":"c","object":"chat.completion","model":"gpt-5","choices":[{"index":0,"message":{"role":"assistant","content":"from chat"},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}`
	clientBody  = `{"model":"claude-sonnet-4-5","max_tokens":100,"messages":[{"role":"user","content":"Hi"}]}`
)

func jsonHeader() http.Header { return http.Header{"Content-Type": {"application/json"}} }

func sseEvent(name, data string) string { return "event: " + name + "\ndata: " + data + "\n\n" }

func TestFailoverWriter(t *testing.T) {
	ctx, cancel := caddy.NewContext(caddy.Context{Context: context.Background()})
	defer cancel()
	overloaded := &fakeUpstream{status: 529, header: jsonHeader(), body: `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`}
	start := sseEvent("message_start", `{"type":"message_start","message":{"id":"m","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[],"stop_reason":null,"usage":{"input_tokens":1,"output_tokens":1}}}`)
	blockStart := sseEvent("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`)
	delta := sseEvent("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"partial"}}`)
	overloadEvent := sseEvent("error", `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`)
	sseHeader := http.Header{"Content-Type": {"text/event-stream"}}
	cases := []struct {
		name       string
		protocols  []string
		first      *fakeUpstream
		second     *fakeUpstream
		body       string
		wantStatus int
		wantIn     string
		wantNot    string
		wantCalls  [2]int
		wantTarget string
	}{
		{"529 moves on to a translated target", []string{"anthropic-messages", "openai-chat"}, overloaded,
			&fakeUpstream{status: 200, header: jsonHeader(), body: chatOK}, clientBody, 200, "from chat", "Overloaded", [2]int{1, 1}, "tb"},
		{"400 is answered", []string{"anthropic-messages", "openai-chat"},
			&fakeUpstream{status: 400, header: jsonHeader(), body: `{"type":"error","error":{"type":"invalid_request_error","message":"bad"}}`},
			&fakeUpstream{status: 200, header: jsonHeader(), body: chatOK}, clientBody, 400, "bad", "", [2]int{1, 0}, "ta"},
		{"no answer moves on", []string{"openai-chat", "anthropic-messages"}, &fakeUpstream{err: caddyhttp.Error(http.StatusBadGateway, io.EOF)},
			&fakeUpstream{status: 200, header: jsonHeader(), body: anthropicOK}, clientBody, 200, "from anthropic", "", [2]int{1, 1}, "tb"},
		{"both fail: the last failure", []string{"anthropic-messages", "openai-chat"}, overloaded,
			&fakeUpstream{status: 503, header: http.Header{"Content-Type": {"text/html"}}, body: "<html>down</html>"}, clientBody, 503, "error", "Overloaded", [2]int{1, 1}, "tb"},
		{"both fail with lengths: the last failure", []string{"anthropic-messages", "openai-responses", "openai-responses"}, overloaded,
			&fakeUpstream{status: 529, header: http.Header{"Content-Type": {"application/json"}, "Content-Length": {"61"}}, body: `{"error":{"message":"Overloaded","type":"server_error","code":null}}`}, clientBody, 529, "Overloaded", "", [2]int{1, 2}, "tc"},
		{"stream error before content moves on", []string{"anthropic-messages", "openai-chat"},
			&fakeUpstream{status: 200, header: sseHeader, events: []string{start, blockStart, overloadEvent}},
			&fakeUpstream{status: 200, header: jsonHeader(), body: chatOK}, `{"model":"claude-sonnet-4-5","max_tokens":100,"stream":true,"messages":[{"role":"user","content":"Hi"}]}`,
			200, "from chat", "Overloaded", [2]int{1, 1}, "tb"},
		{"stream error after content stays", []string{"anthropic-messages", "openai-chat"},
			&fakeUpstream{status: 200, header: sseHeader, events: []string{start, blockStart, delta, overloadEvent}},
			&fakeUpstream{status: 200, header: jsonHeader(), body: chatOK}, `{"model":"claude-sonnet-4-5","max_tokens":100,"stream":true,"messages":[{"role":"user","content":"Hi"}]}`,
			200, "partial", "from chat", [2]int{1, 0}, "ta"},
		{"translated stream error before content moves on", []string{"openai-chat", "anthropic-messages"},
			&fakeUpstream{status: 200, header: sseHeader, events: []string{`data: {"error":{"message":"Overloaded","type":"server_error","code":"overloaded"}}` + "\n\n"}},
			&fakeUpstream{status: 200, header: jsonHeader(), body: anthropicOK}, `{"model":"claude-sonnet-4-5","max_tokens":100,"stream":true,"messages":[{"role":"user","content":"Hi"}]}`,
			200, "from anthropic", "Overloaded", [2]int{1, 1}, "tb"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.first.calls, c.second.calls = 0, 0
			ups := []*fakeUpstream{c.first, c.second}
			for len(ups) < len(c.protocols) {
				ups = append(ups, c.second)
			}
			site, srv := failoverSiteFor(t, ctx, c.protocols, ups, nil)
			w, repl, extra := serveSiteLogged(site, srv, c.body)
			// The placeholders and the access log are the answering
			// target's.
			attempts := c.wantCalls[0] + c.wantCalls[1]
			if target, _ := repl.Get("http.llmbridge.target"); !strings.HasPrefix(fmt.Sprint(target), c.wantTarget) {
				t.Errorf("{http.llmbridge.target} = %v, want %s...", target, c.wantTarget)
			}
			if got, _ := repl.Get("http.llmbridge.attempts"); got != attempts {
				t.Errorf("{http.llmbridge.attempts} = %v, want %d", got, attempts)
			}
			if lb := extraLogObject(t, extra, "llmbridge"); lb == nil || !strings.HasPrefix(fmt.Sprint(lb["target"]), c.wantTarget) || lb["attempts"] != int64(attempts) {
				t.Errorf("access log fields %v, want target %s... and attempts %d", lb, c.wantTarget, attempts)
			}
			body := w.Body.String()
			if w.Code != c.wantStatus || !strings.Contains(body, c.wantIn) || c.wantNot != "" && strings.Contains(body, c.wantNot) {
				t.Errorf("got %d %s; want %d with %q and without %q", w.Code, body, c.wantStatus, c.wantIn, c.wantNot)
			}
			if got := [2]int{c.first.calls, c.second.calls}; got != c.wantCalls {
				t.Errorf("calls %v, want %v", got, c.wantCalls)
			}
			if got := w.Header().Get(failover.UpstreamHeader); !strings.HasPrefix(got, c.wantTarget) {
				t.Errorf("%s = %q, want %s...", failover.UpstreamHeader, got, c.wantTarget)
			}
			if cl := w.Header().Get("Content-Length"); cl != "" && cl != strconv.Itoa(len(body)) {
				t.Errorf("Content-Length %s for a body of %d bytes", cl, len(body))
			}
		})
	}
}

// TestFailoverClientKeys checks that a failover site's client key, checked
// by the site, never reaches a target's upstream, in a header or a query.
func TestFailoverClientKeys(t *testing.T) {
	ctx, cancel := caddy.NewContext(caddy.Context{Context: context.Background()})
	defer cancel()
	up := &fakeUpstream{status: 200, header: jsonHeader(), body: chatOK}
	site, srv := failoverSiteFor(t, ctx, []string{"openai-chat"}, []*fakeUpstream{up}, nil)
	site.ClientKeys = []ClientKey{{Key: "gate-key"}}
	if err := site.Provision(ctx); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ name, path, header, value string }{
		{"x-api-key", "/v1/messages", "X-Api-Key", "gate-key"},
		{"bearer", "/v1/messages", "Authorization", "Bearer gate-key"},
		{"gemini query", "/v1beta/models/gemini-2.5-flash:generateContent?key=gate-key", "", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			body := clientBody
			if strings.HasPrefix(c.path, "/v1beta") {
				body = `{"contents":[{"role":"user","parts":[{"text":"Hi"}]}]}`
			}
			r := httptest.NewRequest(http.MethodPost, c.path, strings.NewReader(body))
			r = r.WithContext(context.WithValue(context.WithValue(r.Context(), caddyhttp.ServerCtxKey, srv), caddy.ReplacerCtxKey, caddy.NewReplacer()))
			if c.header != "" {
				r.Header.Set(c.header, c.value)
			}
			w := httptest.NewRecorder()
			_ = site.ServeHTTP(w, r, emptyNext)
			if w.Code != 200 {
				t.Fatalf("status %d: %s", w.Code, w.Body.String())
			}
			for k, v := range up.seen {
				if strings.Contains(strings.Join(v, " "), "gate-key") {
					t.Errorf("the upstream got the client key in %s", k)
				}
			}
			if strings.Contains(up.query, "gate-key") {
				t.Errorf("the upstream got the client key in its query %q", up.query)
			}
		})
	}
	r := httptest.NewRequest(http.MethodPost, "/v1/messages", strings.NewReader(clientBody))
	r = r.WithContext(context.WithValue(r.Context(), caddyhttp.ServerCtxKey, srv))
	w := httptest.NewRecorder()
	_ = site.ServeHTTP(w, r, emptyNext)
	if w.Code != 401 || !strings.Contains(w.Body.String(), "authentication_error") {
		t.Errorf("without a key: %d %s, want 401 in Anthropic's format", w.Code, w.Body.String())
	}
}

// TestFailoverCooling checks the answers a failover site gives itself or
// passes on when its targets are cooling down: every target cooling
// before the request is a 503 in the client's format with Retry-After;
// (the last target's failure, when the others cool down, carrying the
// soonest end of theirs, is failover's TestRetryAfterSoonest).
func TestFailoverCooling(t *testing.T) {
	ctx, cancel := caddy.NewContext(caddy.Context{Context: context.Background()})
	defer cancel()
	limited := &fakeUpstream{status: 429, header: http.Header{"Content-Type": {"application/json"}, "Retry-After": {"20"}},
		body: `{"type":"error","error":{"type":"rate_limit_error","message":"slow down"}}`}
	failing := &fakeUpstream{status: 500, header: jsonHeader(), body: `{"error":{"message":"boom","type":"server_error","code":null}}`}
	site, srv := failoverSiteFor(t, ctx, []string{"anthropic-messages", "openai-chat"}, []*fakeUpstream{limited, failing}, func(f *failover.Config) {
		f.Cooldown, f.MaxCooldown = caddy.Duration(time.Minute), caddy.Duration(time.Hour)
	})
	w := serveSite(site, srv, clientBody)
	// The first target cools for its 20 s; the second, failing last with
	// a 500 that names no time, is not cooling: no Retry-After is made up.
	if w.Code != 500 || limited.calls != 1 || failing.calls != 1 {
		t.Fatalf("first request: %d, calls %d %d", w.Code, limited.calls, failing.calls)
	}
	// Now only the second target is tried; its failure is the answer.
	w = serveSite(site, srv, clientBody)
	if w.Code != 500 || limited.calls != 1 || failing.calls != 2 {
		t.Fatalf("second request: %d, calls %d %d, want the cooling target skipped", w.Code, limited.calls, failing.calls)
	}
	// Both cooling: the site answers itself.
	failover.StateOf(site.Failover.Targets[1]).CoolFor(time.Now().UnixNano(), 5*time.Second)
	w = serveSite(site, srv, clientBody)
	if w.Code != 503 || w.Header().Get("Retry-After") != "5" || !strings.Contains(w.Body.String(), `"type":"error"`) {
		t.Errorf("every target cooling: %d Retry-After %q %s, want 503 with Retry-After 5 in Anthropic's format", w.Code, w.Header().Get("Retry-After"), w.Body.String())
	}
	if limited.calls != 1 || failing.calls != 2 {
		t.Errorf("a cooling target was called: %d %d", limited.calls, failing.calls)
	}
}

// TestFailoverMisconfigured checks that a site whose targets cannot be
// used answers every request with an error in the client's format.
func TestFailoverMisconfigured(t *testing.T) {
	ctx, cancel := caddy.NewContext(caddy.Context{Context: context.Background()})
	defer cancel()
	site := &Handler{Failover: &failover.Config{Targets: []string{"nowhere"}}}
	if err := site.Provision(ctx); err != nil {
		t.Fatal(err)
	}
	srv := &caddyhttp.Server{NamedRoutes: map[string]*caddyhttp.Route{}}
	for _, path := range []string{"/v1/models", "/v1/chat/completions", "/nothing"} {
		r := httptest.NewRequest(http.MethodGet, path, nil)
		r = r.WithContext(context.WithValue(r.Context(), caddyhttp.ServerCtxKey, srv))
		w := httptest.NewRecorder()
		_ = site.ServeHTTP(w, r, emptyNext)
		if w.Code != 500 || !strings.Contains(w.Body.String(), "misconfigured") {
			t.Errorf("%s: %d %s", path, w.Code, w.Body.String())
		}
	}
	// Without a server in the request's context, too.
	r := httptest.NewRequest(http.MethodPost, "/v1/messages", strings.NewReader(clientBody))
	w := httptest.NewRecorder()
	site2 := &Handler{Failover: &failover.Config{Targets: []string{"x"}}}
	if err := site2.Provision(ctx); err != nil {
		t.Fatal(err)
	}
	_ = site2.ServeHTTP(w, r, emptyNext)
	if w.Code != 500 {
		t.Errorf("no server: %d", w.Code)
	}
}

// TestKeyPoolExhausted checks the answers of a handler whose pool has no
// usable key: 429 with Retry-After while keys cool down, 503 when every
// key is out.
func TestKeyPoolExhausted(t *testing.T) {
	ctx, cancel := caddy.NewContext(caddy.Context{Context: context.Background()})
	defer cancel()
	h := &Handler{Upstream: "openai-chat", APIKeys: []string{"k0", "k1"}}
	if err := h.Provision(ctx); err != nil {
		t.Fatal(err)
	}
	defer h.Cleanup()
	serve := func() *httptest.ResponseRecorder {
		r := httptest.NewRequest(http.MethodPost, "/v1/chat/completions", strings.NewReader(`{"model":"gpt-5","messages":[{"role":"user","content":"Hi"}]}`))
		w := httptest.NewRecorder()
		_ = h.ServeHTTP(w, r, caddyhttp.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
			return answering{body: chatOK}.ServeHTTP(w, r, nil)
		}))
		return w
	}
	if w := serve(); w.Code != 200 {
		t.Fatalf("%d %s", w.Code, w.Body.String())
	}
	h.keys.Note(0, http.StatusUnauthorized, http.Header{})
	h.keys.Note(1, http.StatusTooManyRequests, http.Header{"Retry-After": {"9"}})
	if w := serve(); w.Code != 429 || w.Header().Get("Retry-After") != "9" {
		t.Errorf("keys cooling: %d Retry-After %q, want 429 and 9", w.Code, w.Header().Get("Retry-After"))
	}
	h.keys.Note(1, http.StatusForbidden, http.Header{})
	if w := serve(); w.Code != 503 {
		t.Errorf("every key out: %d, want 503", w.Code)
	}
	reg := prometheus.NewRegistry()
	if err := failover.RegisterMetrics(reg); err != nil {
		t.Fatal(err)
	}
	if err := failover.RegisterMetrics(reg); err != nil {
		t.Fatal(err)
	}
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range families {
		names = append(names, f.GetName())
	}
	// Only keys_out: the failover gauges have samples once some target
	// was tried, which this test (run alone) never does.
	if !slices.Contains(names, "caddy_llmbridge_keys_out") {
		t.Errorf("metrics %v", names)
	}
	for _, bad := range []Handler{
		{Upstream: "openai-chat", APIKey: "a", APIKeys: []string{"b"}},
		{Upstream: "openai-chat", APIKeys: []string{"{env.LLMBRIDGE_UNSET_TEST_KEY}"}},
	} {
		if err := bad.Provision(ctx); err == nil {
			t.Errorf("%v provisioned", bad.APIKeys)
		}
	}
}

func TestFailoverCheck(t *testing.T) {
	many := make([]string, failover.MaxTargets+1)
	for i := range many {
		many[i] = strconv.Itoa(i)
	}
	for _, f := range []failover.Config{
		{},
		{Targets: many},
		{Targets: []string{"a", ""}},
		{Targets: []string{"a"}, RetryOn: []int{200}},
		{Targets: []string{"a"}, Cooldown: -1},
		{Targets: []string{"a"}, Breaker: &failover.CircuitBreaker{Failures: -1}},
	} {
		if (&Handler{Failover: &f}).Validate() == nil {
			t.Errorf("%+v is valid", f)
		}
	}
}

// TestFailoverClientGone checks that a request whose client went away is
// not moved on to the next target, nor counted against its target.
func TestFailoverClientGone(t *testing.T) {
	ctx, cancel := caddy.NewContext(caddy.Context{Context: context.Background()})
	defer cancel()
	first := &fakeUpstream{err: caddyhttp.Error(http.StatusBadGateway, context.Canceled)}
	second := &fakeUpstream{status: 200, header: jsonHeader(), body: chatOK}
	site, srv := failoverSiteFor(t, ctx, []string{"openai-chat", "openai-chat"}, []*fakeUpstream{first, second}, nil)
	r := httptest.NewRequest(http.MethodPost, "/v1/messages", strings.NewReader(clientBody))
	rctx, gone := context.WithCancel(context.WithValue(r.Context(), caddyhttp.ServerCtxKey, srv))
	gone()
	w := httptest.NewRecorder()
	_ = site.ServeHTTP(w, r.WithContext(rctx), emptyNext)
	if first.calls != 1 || second.calls != 0 {
		t.Errorf("calls %d %d, want the first target only", first.calls, second.calls)
	}
	if n := failover.StateOf(site.Failover.Targets[0]).Failures(); n != 0 {
		t.Errorf("the client's leaving counted %d failures against the target", n)
	}
}

// emptyNext is the next handler of a handler tested alone.
var emptyNext = caddyhttp.HandlerFunc(func(http.ResponseWriter, *http.Request) error { return nil })
