package failover

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/llmbridge/llmbridge/caddymodule/observe"
)

func TestResolveTargets(t *testing.T) {
	lb := func(up string) *fakeMember { return &fakeMember{upstream: up} }
	site := &fakeMember{site: true}
	routes := map[string]*caddyhttp.Route{
		"ok":       {Handlers: []caddyhttp.MiddlewareHandler{lb("openai-chat"), answering{}}},
		"alone":    {Handlers: []caddyhttp.MiddlewareHandler{lb("openai-chat")}},
		"nobridge": {Handlers: []caddyhttp.MiddlewareHandler{answering{}}},
		"nested":   {Handlers: []caddyhttp.MiddlewareHandler{site, answering{}}},
		"wrapped": {Handlers: []caddyhttp.MiddlewareHandler{&caddyhttp.Subroute{Routes: caddyhttp.RouteList{
			{Handlers: []caddyhttp.MiddlewareHandler{lb("gemini"), answering{}}}}}}},
	}
	for _, c := range []struct {
		names   []string
		wantErr string
	}{
		{[]string{"ok", "wrapped"}, ""},
		{[]string{"ok", "missing"}, `"missing" is not a named route`},
		{[]string{"alone"}, "write them inside route"},
		{[]string{"nobridge"}, "has no llmbridge handler"},
		{[]string{"nested"}, "is itself a failover site"},
	} {
		targets, err := resolveTargets(routes, c.names)
		if c.wantErr == "" {
			if err != nil || len(targets) != len(c.names) || targets[1].member.(*fakeMember).upstream != "gemini" || targets[1].member.(*fakeMember).joined != targets[1].name || targets[1].index != 1 {
				t.Errorf("%v: %v, %v", c.names, targets, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), c.wantErr) {
			t.Errorf("%v: error %v, want one containing %q", c.names, err, c.wantErr)
		}
	}
}

// fakeMember stands for the target's llmbridge handler.
type fakeMember struct {
	upstream string
	site     bool   // a failover site, which cannot be a target
	joined   string // the target it was told it serves
}

func (m *fakeMember) ServeHTTP(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler) error {
	return next.ServeHTTP(w, r)
}

func (m *fakeMember) JoinSite(target string) bool {
	m.joined = target
	return !m.site
}

func (m *fakeMember) Cost(*observe.Exchange) float64 { return -1 }

// answering stands for reverse_proxy: it reads the request body and
// answers a JSON body.
type answering struct{ body string }

func (a answering) ServeHTTP(w http.ResponseWriter, r *http.Request, _ caddyhttp.Handler) error {
	_, _ = io.Copy(io.Discard, r.Body)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(200)
	_, err := io.WriteString(w, a.body)
	return err
}

// TestWithOwnVars gives an attempt after the first a copy of the request's
// variables: the earlier attempt's transport may still read its own.
func TestWithOwnVars(t *testing.T) {
	vars := map[string]any{"client_ip": "10.0.0.1"}
	ctx := context.WithValue(context.Background(), caddyhttp.VarsCtxKey, vars)
	own := withOwnVars(ctx)
	caddyhttp.SetVar(own, "dial", "b")
	if vars["dial"] != nil || caddyhttp.GetVar(own, "client_ip") != "10.0.0.1" {
		t.Errorf("the attempt's variables are not a copy: %v / %v", vars, own.Value(caddyhttp.VarsCtxKey))
	}
	if bare := context.Background(); withOwnVars(bare) != bare {
		t.Error("a context without variables was changed")
	}
}

func TestBodyReaderClose(t *testing.T) {
	var b bodyReader
	if b.Close() != nil {
		t.Error("bodyReader.Close")
	}
}
