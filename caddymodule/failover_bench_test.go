package caddymodule

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"go.uber.org/zap"

	"github.com/llmbridge/llmbridge/caddymodule/failover"
)

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

// BenchmarkFailoverSite runs the request of BenchmarkServeTranslate
// through a site without failover ("plain": llmbridge before the next
// handler) and through a failover site whose first target answers
// ("failover": the site's llmbridge invoking a named route of the same
// llmbridge and next handler): the difference is what failover costs a
// request that needs none.
func BenchmarkFailoverSite(b *testing.B) {
	ctx, cancel := caddy.NewContext(caddy.Context{Context: context.Background()})
	defer cancel()
	const body = `{"model":"gpt-5.4","max_tokens":100,"temperature":0.2,"messages":[{"role":"user","content":"Hi"}]}`
	up := answering{body: `{"id":"c","object":"chat.completion","model":"gpt-5.4","choices":[{"index":0,"message":{"role":"assistant","content":"hi"},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}`}
	inner := &Handler{Upstream: "openai-chat"}
	if err := inner.Provision(ctx); err != nil {
		b.Fatal(err)
	}
	srv := &caddyhttp.Server{NamedRoutes: map[string]*caddyhttp.Route{"chat": {Handlers: []caddyhttp.MiddlewareHandler{inner, up}}}}
	site := &Handler{Failover: &failover.Config{Targets: []string{"chat"}}}
	if err := site.Provision(ctx); err != nil {
		b.Fatal(err)
	}
	next := caddyhttp.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error { return up.ServeHTTP(w, r, nil) })
	base := httptest.NewRequest(http.MethodPost, "/v1/messages", nil)
	rctx := context.WithValue(base.Context(), caddy.ReplacerCtxKey, caddy.NewReplacer())
	rctx = context.WithValue(rctx, caddyhttp.VarsCtxKey, map[string]any{})
	rctx = context.WithValue(rctx, caddyhttp.ServerCtxKey, srv)
	// As in Caddy's default configuration: no debug log.
	inner.logger, site.logger, site.failover.Logger = zap.NewNop(), zap.NewNop(), zap.NewNop()
	bodyBytes := []byte(body)
	for _, bc := range []struct {
		name string
		h    *Handler
	}{{"plain", inner}, {"failover", site}} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				r := base.Clone(rctx)
				r.Body = io.NopCloser(bytes.NewReader(bodyBytes))
				r.ContentLength = int64(len(bodyBytes))
				r.Header.Set("X-Api-Key", "k")
				w := httptest.NewRecorder()
				if err := bc.h.ServeHTTP(w, r, next); err != nil || w.Code != 200 {
					b.Fatal(err, w.Code, w.Body.String())
				}
			}
		})
	}
}
