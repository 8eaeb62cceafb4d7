package failover

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"go.uber.org/zap"
)

// BenchmarkFailoverOverhead isolates what a failover site's runtime adds
// to a request whose first target answers: the next handler alone
// ("direct") and the same handler as the only target of a site
// ("failover"): the body read again by the attempt, the saved request,
// the writer, the header copy and the target's accounting. (What the
// site's handler adds before, reading the body once, is
// BenchmarkFailoverSite's in the handler package.)
func BenchmarkFailoverOverhead(b *testing.B) {
	const body = `{"model":"gpt-5.4","max_tokens":100,"temperature":0.2,"messages":[{"role":"user","content":"Hi"}]}`
	up := answering{body: `{"id":"c"}`}
	fs := NewSite(&Config{Targets: []string{"direct"}}, zap.NewNop())
	fs.targets = []*Target{{name: "direct", chain: chainOf([]caddyhttp.MiddlewareHandler{up}), state: StateOf("bench-direct"),
		header: []string{"direct"}, ok: attemptsTotal.WithLabelValues("bench-direct", "ok")}}
	fs.resolved.Store(true)
	base := httptest.NewRequest(http.MethodPost, "/v1/messages", nil)
	rctx := context.WithValue(base.Context(), caddy.ReplacerCtxKey, caddy.NewReplacer())
	bodyBytes := []byte(body)
	for _, bc := range []struct {
		name  string
		serve func(w http.ResponseWriter, r *http.Request) error
	}{
		{"direct", func(w http.ResponseWriter, r *http.Request) error { return up.ServeHTTP(w, r, nil) }},
		{"failover", func(w http.ResponseWriter, r *http.Request) error {
			_, err := fs.Serve(w, r, bodyBytes, "")
			return err
		}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			r := base.Clone(rctx)
			r.Header.Set("X-Api-Key", "k")
			r.Header.Set("Anthropic-Version", "2023-06-01")
			r.Header.Set("Content-Type", "application/json")
			rd := new(bodyReader)
			w := httptest.NewRecorder()
			b.ReportAllocs()
			for b.Loop() {
				rd.Reset(bodyBytes)
				r.Body, r.ContentLength = rd, int64(len(bodyBytes))
				w.Body.Reset()
				clear(w.Header())
				w.Code = 0
				if err := bc.serve(w, r); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
