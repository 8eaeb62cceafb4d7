package caddymodule

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
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
func failoverSiteFor(t testing.TB, ctx caddy.Context, protocols []string, ups []*fakeUpstream, extra func(*Failover)) (*Handler, *caddyhttp.Server) {
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
	site := &Handler{Failover: &Failover{Targets: names, Cooldown: 1, MaxCooldown: 1, Breaker: &CircuitBreaker{Failures: 1 << 30, Period: 1}}}
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
	r := httptest.NewRequest(http.MethodPost, "/v1/messages", strings.NewReader(body))
	ctx := context.WithValue(r.Context(), caddyhttp.ServerCtxKey, srv)
	ctx = context.WithValue(ctx, caddy.ReplacerCtxKey, caddy.NewReplacer())
	r = r.WithContext(ctx)
	r.Header.Set("X-Api-Key", "k")
	w := httptest.NewRecorder()
	_ = site.ServeHTTP(w, r, emptyNext)
	return w
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
			w := serveSite(site, srv, c.body)
			body := w.Body.String()
			if w.Code != c.wantStatus || !strings.Contains(body, c.wantIn) || c.wantNot != "" && strings.Contains(body, c.wantNot) {
				t.Errorf("got %d %s; want %d with %q and without %q", w.Code, body, c.wantStatus, c.wantIn, c.wantNot)
			}
			if got := [2]int{c.first.calls, c.second.calls}; got != c.wantCalls {
				t.Errorf("calls %v, want %v", got, c.wantCalls)
			}
			if got := w.Header().Get(upstreamHeader); !strings.HasPrefix(got, c.wantTarget) {
				t.Errorf("%s = %q, want %s...", upstreamHeader, got, c.wantTarget)
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
