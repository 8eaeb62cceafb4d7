package caddymodule

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"go.uber.org/zap/zapcore"

	"github.com/llmbridge/llmbridge/caddymodule/observe"
)

// recorded is what one exchange published: its placeholders and the
// "llmbridge" object of its access log entry.
type recorded struct {
	repl   *caddy.Replacer
	fields map[string]any // nil when no "llmbridge" object was set
}

// placeholder returns {http.llmbridge.<name>} and whether it is defined.
func (r recorded) placeholder(name string) (any, bool) {
	return r.repl.Get("http.llmbridge." + name)
}

// serveRecorded is serve with the access log's extra fields in the
// request context, as Caddy's server puts them there.
func serveRecorded(t *testing.T, h *Handler, r *http.Request, answer func(w http.ResponseWriter) error) (*httptest.ResponseRecorder, recorded) {
	t.Helper()
	repl := caddy.NewReplacer()
	extra := &caddyhttp.ExtraLogFields{}
	ctx := context.WithValue(r.Context(), caddy.ReplacerCtxKey, repl)
	ctx = context.WithValue(ctx, caddyhttp.VarsCtxKey, map[string]any{})
	ctx = context.WithValue(ctx, caddyhttp.ExtraLogFieldsCtxKey, extra)
	r = r.WithContext(ctx)
	next := caddyhttp.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		_, _ = io.Copy(io.Discard, r.Body)
		return answer(w)
	})
	w := httptest.NewRecorder()
	if err := h.ServeHTTP(w, r, next); err != nil {
		t.Fatalf("ServeHTTP returned %v", err)
	}
	return w, recorded{repl: repl, fields: extraLogObject(t, extra, "llmbridge")}
}

// extraLogObject returns the object field key of extra as a map, or nil.
// ExtraLogFields keeps its fields unexported; the access log encodes
// them, and so does this.
func extraLogObject(t *testing.T, extra *caddyhttp.ExtraLogFields, key string) map[string]any {
	t.Helper()
	v := reflect.ValueOf(extra).Elem().FieldByName("fields")
	fields := *(*[]zapcore.Field)(unsafe.Pointer(v.UnsafeAddr()))
	for _, f := range fields {
		if f.Key != key {
			continue
		}
		enc := zapcore.NewMapObjectEncoder()
		f.AddTo(enc)
		m, _ := enc.Fields[key].(map[string]any)
		return m
	}
	return nil
}

// counterValue reads one counter of the llmbridge metrics.
// metricValue reads the value of the counter of llmbridge's collectors
// named family whose labels are labels, name=value each.
func metricValue(t *testing.T, family string, labels ...string) float64 {
	t.Helper()
	reg := prometheus.NewRegistry()
	if err := observe.GlobalMetrics().Register(reg); err != nil {
		t.Fatal(err)
	}
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != family {
			continue
		}
	metric:
		for _, m := range mf.GetMetric() {
			for _, l := range labels {
				name, value, _ := strings.Cut(l, "=")
				if !slices.ContainsFunc(m.GetLabel(), func(p *dto.LabelPair) bool { return p.GetName() == name && p.GetValue() == value }) {
					continue metric
				}
			}
			return m.GetCounter().GetValue()
		}
	}
	return 0
}

func counterValue(t *testing.T, c prometheus.Counter) float64 {
	t.Helper()
	var m dto.Metric
	if err := c.Write(&m); err != nil {
		t.Fatal(err)
	}
	return m.GetCounter().GetValue()
}

// TestRecordExchange checks what each exchange publishes: the
// {http.llmbridge.*} placeholders and the access log's "llmbridge" object
// carry the protocols and models always, and usage, stop reason and time
// to first byte only when the upstream reported them (the model
// placeholders are always defined, empty before a model was read);
// requests_total counts the status and tokens_total grows by the usage.
func TestRecordExchange(t *testing.T) {
	const chatOK = `{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"gpt-up","choices":[{"index":0,"message":{"role":"assistant","content":"Hi"},"finish_reason":"length"}],` +
		`"usage":{"prompt_tokens":11,"completion_tokens":7,"total_tokens":18,"prompt_tokens_details":{"cached_tokens":4},"completion_tokens_details":{"reasoning_tokens":5}}}`
	const chatNoUsage = `{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"gpt-up","choices":[{"index":0,"message":{"role":"assistant","content":"Hi"},"finish_reason":"stop"}]}`
	anthropicBody := `{"model":"claude-x","max_tokens":10,"messages":[{"role":"user","content":"hi"}]}`
	tests := []struct {
		name   string
		body   string
		answer func(w http.ResponseWriter) error
		status int
		// want are the placeholders that must be defined, with their
		// values as the log field holds them; every other llmbridge
		// placeholder must be undefined and absent from the log object.
		want        map[string]any
		ttft        bool
		wantTokens  map[string]float64 // tokens_total growth by type, upstream model gpt-up
		wantRequest string             // the status label counted
	}{
		{
			name: "translated answer with usage", body: anthropicBody, answer: jsonAnswer(200, chatOK), status: 200,
			want: map[string]any{"client_protocol": "anthropic-messages", "upstream_protocol": "openai-chat", "model": "claude-x",
				"upstream_model": "gpt-up", "response_model": "gpt-up", "input_tokens": int64(11), "output_tokens": int64(7),
				"cache_read_tokens": int64(4), "cache_write_tokens": int64(0), "reasoning_tokens": int64(5), "stop_reason": "max_tokens"},
			ttft:        true,
			wantTokens:  map[string]float64{"input": 11, "output": 7, "cached": 4, "reasoning": 5},
			wantRequest: "200",
		},
		{
			name: "answer without usage", body: anthropicBody, answer: jsonAnswer(200, chatNoUsage), status: 200,
			want: map[string]any{"client_protocol": "anthropic-messages", "upstream_protocol": "openai-chat", "model": "claude-x",
				"upstream_model": "gpt-up", "response_model": "gpt-up", "stop_reason": "end"},
			ttft:        true,
			wantTokens:  map[string]float64{"input": 0, "output": 0},
			wantRequest: "200",
		},
		{
			name: "rejected before the upstream", body: `{"model":`, status: 400,
			want:        map[string]any{"client_protocol": "anthropic-messages", "upstream_protocol": "openai-chat", "error_type": "invalid_request"},
			wantTokens:  map[string]float64{"input": 0},
			wantRequest: "400",
		},
		{
			name: "upstream answered nothing", body: anthropicBody, answer: func(http.ResponseWriter) error { return nil }, status: 502,
			want: map[string]any{"client_protocol": "anthropic-messages", "upstream_protocol": "openai-chat", "model": "claude-x",
				"upstream_model": "gpt-up", "error_type": "upstream_unreachable"},
			wantTokens:  map[string]float64{"input": 0},
			wantRequest: "502",
		},
	}
	all := []string{"client_protocol", "upstream_protocol", "client_key", "model", "upstream_model", "response_model", "input_tokens", "output_tokens",
		"cache_read_tokens", "cache_write_tokens", "reasoning_tokens", "cost_usd", "stop_reason", "error_type", "ttft_ms"}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newTestHandler(t, &Handler{Upstream: "openai-chat", Models: []ModelRoute{{Match: "claude-x", Upstream: "gpt-up"}}})
			tokens := map[string]float64{}
			for typ := range tt.wantTokens {
				tokens[typ] = metricValue(t, "caddy_llmbridge_tokens_total", "type="+typ, "upstream_model=gpt-up")
			}
			requests := metricValue(t, "caddy_llmbridge_requests_total", "client_protocol=anthropic-messages", "upstream_protocol=openai-chat", "status="+tt.wantRequest)
			answer := tt.answer
			if answer == nil {
				answer = func(http.ResponseWriter) error {
					t.Error("the upstream was called")
					return nil
				}
			}
			w, rec := serveRecorded(t, h, httptest.NewRequest("POST", "/v1/messages", strings.NewReader(tt.body)), answer)
			if w.Code != tt.status {
				t.Fatalf("status %d, want %d: %s", w.Code, tt.status, w.Body)
			}
			if rec.fields == nil {
				t.Fatal("no llmbridge object in the access log fields")
			}
			for _, name := range all {
				got, ok := rec.placeholder(name)
				logged, inLog := rec.fields[name]
				want, defined := tt.want[name]
				if name == "ttft_ms" {
					defined = tt.ttft
				}
				switch {
				case !defined && (name == "model" || name == "upstream_model"):
					if !ok || got != "" || inLog {
						t.Errorf("%s: placeholder %#v (defined %v), log field present %v; want an empty placeholder and no log field", name, got, ok, inLog)
					}
				case ok != defined || inLog != defined:
					t.Errorf("%s: placeholder defined %v (%v), log field present %v, want %v", name, ok, got, inLog, defined)
				case name == "ttft_ms" && defined:
					if n, isInt := got.(int64); !isInt || n < 0 || logged != n {
						t.Errorf("ttft_ms placeholder %v, log field %v", got, logged)
					}
				case defined && (got != want || logged != want):
					t.Errorf("%s: placeholder %#v, log field %#v, want %#v", name, got, logged, want)
				}
			}
			if _, ok := rec.repl.Get("http.llmbridge.unknown"); ok {
				t.Error("an unknown llmbridge placeholder is defined")
			}
			for typ, want := range tt.wantTokens {
				if got := metricValue(t, "caddy_llmbridge_tokens_total", "type="+typ, "upstream_model=gpt-up") - tokens[typ]; got != want {
					t.Errorf("tokens_total{type=%q} grew by %v, want %v", typ, got, want)
				}
			}
			if got := metricValue(t, "caddy_llmbridge_requests_total", "client_protocol=anthropic-messages", "upstream_protocol=openai-chat", "status="+tt.wantRequest) - requests; got != 1 {
				t.Errorf("requests_total{status=%q} grew by %v, want 1", tt.wantRequest, got)
			}
		})
	}
}
