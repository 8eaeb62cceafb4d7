package caddymodule

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"github.com/tidwall/gjson"
	"go.uber.org/zap"

	"github.com/llmbridge/llmbridge/caddymodule/clouds"
	"github.com/llmbridge/llmbridge/caddymodule/clouds/google"
)

// newTestHandler provisions a handler as Caddy would.
func newTestHandler(t *testing.T, h *Handler) *Handler {
	t.Helper()
	ctx, cancel := caddy.NewContext(caddy.Context{Context: context.Background()})
	t.Cleanup(cancel)
	if err := h.Provision(ctx); err != nil {
		t.Fatal(err)
	}
	if err := h.Validate(); err != nil {
		t.Fatal(err)
	}
	return h
}

// setLogger makes l the logger of a provisioned handler and of the rooms
// it gave its own.
func (h *Handler) setLogger(l *zap.Logger) {
	h.logger = l
	h.fitter.Logger = l
	h.writers.Logger = l
	h.conversations.Logger = l
	h.interactions.Logger = l
	h.sockets.Logger = l
}

// upstreamCall is what the next handler saw.
type upstreamCall struct {
	called bool
	path   string
	// escapedPath is the path as sent (RawPath when set).
	escapedPath string
	host        string
	query       string
	header      http.Header
	body        string
}

// serve runs one request through h with next answering via answer.
func serve(t *testing.T, h *Handler, r *http.Request, answer func(w http.ResponseWriter) error) (*httptest.ResponseRecorder, *upstreamCall) {
	t.Helper()
	repl := caddy.NewReplacer()
	ctx := context.WithValue(r.Context(), caddy.ReplacerCtxKey, repl)
	ctx = context.WithValue(ctx, caddyhttp.VarsCtxKey, map[string]any{})
	r = r.WithContext(ctx)
	call := &upstreamCall{}
	next := caddyhttp.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		call.called = true
		call.path = r.URL.Path
		call.escapedPath = r.URL.EscapedPath()
		call.host = r.Host
		call.query = r.URL.RawQuery
		call.header = r.Header.Clone()
		b, _ := io.ReadAll(r.Body)
		call.body = string(b)
		if int64(len(b)) != r.ContentLength {
			t.Errorf("ContentLength %d, body %d bytes", r.ContentLength, len(b))
		}
		return answer(w)
	})
	return serveNext(t, h, r, next), call
}

// serveNext serves r with h before next, in a request context as Caddy's.
func serveNext(t *testing.T, h *Handler, r *http.Request, next caddyhttp.Handler) *httptest.ResponseRecorder {
	t.Helper()
	if r.Context().Value(caddy.ReplacerCtxKey) == nil {
		ctx := context.WithValue(r.Context(), caddy.ReplacerCtxKey, caddy.NewReplacer())
		r = r.WithContext(context.WithValue(ctx, caddyhttp.VarsCtxKey, map[string]any{}))
	}
	w := httptest.NewRecorder()
	if err := h.ServeHTTP(w, r, next); err != nil {
		t.Fatalf("ServeHTTP returned %v", err)
	}
	return w
}

func jsonAnswer(status int, body string, headers ...string) func(w http.ResponseWriter) error {
	return func(w http.ResponseWriter) error {
		w.Header().Set("Content-Type", "application/json")
		for i := 0; i+1 < len(headers); i += 2 {
			w.Header().Set(headers[i], headers[i+1])
		}
		w.WriteHeader(status)
		_, err := io.WriteString(w, body)
		return err
	}
}

func TestServeRejectsBeforeUpstream(t *testing.T) {
	tests := []struct {
		name       string
		upstream   string
		client     string
		method     string
		target     string
		body       string
		header     map[string]string
		wantStatus int
		wantShape  string // a gjson path that must exist in the error body
	}{
		{name: "unknown path, anthropic by header", upstream: "openai-chat", method: "POST", target: "/v1/nothing", body: "{}",
			header: map[string]string{"X-Api-Key": "k"}, wantStatus: 404, wantShape: "error.type"},
		{name: "unknown path, gemini by prefix", upstream: "openai-chat", method: "POST", target: "/v1beta/whatever", body: "{}",
			wantStatus: 404, wantShape: "error.status"},
		{name: "unknown path, openai by default", upstream: "gemini", method: "POST", target: "/v1/whatever", body: "{}",
			wantStatus: 404, wantShape: "error.message"},
		{name: "path of another protocol than the configured client", upstream: "gemini", client: "openai-chat", method: "POST",
			target: "/v1/messages", body: "{}", wantStatus: 404, wantShape: "error.param"},
		{name: "GET", upstream: "openai-chat", method: "GET", target: "/v1/messages", wantStatus: 405, wantShape: "error.type"},
		{name: "empty body", upstream: "openai-chat", method: "POST", target: "/v1/messages", body: "", wantStatus: 400, wantShape: "error.type"},
		{name: "whitespace body", upstream: "anthropic-messages", method: "POST", target: "/v1/messages", body: " \n", wantStatus: 400, wantShape: "error.type"},
		{name: "malformed JSON, passthrough", upstream: "anthropic-messages", method: "POST", target: "/v1/messages", body: `{"model":`, wantStatus: 400, wantShape: "error.type"},
		{name: "array body, passthrough", upstream: "openai-chat", method: "POST", target: "/v1/chat/completions", body: `[]`, wantStatus: 400, wantShape: "error.message"},
		{name: "malformed JSON, translation", upstream: "openai-chat", method: "POST", target: "/v1beta/models/m:generateContent", body: `{"contents":[`, wantStatus: 400, wantShape: "error.status"},
		{name: "body over the limit", upstream: "openai-chat", method: "POST", target: "/v1/messages", body: `{"model":"` + strings.Repeat("x", 200) + `"}`, wantStatus: 413, wantShape: "error.type"},
		{name: "path model that escapes the path", upstream: "gemini", method: "POST", target: "/v1/chat/completions", body: `{"model":"../../x","messages":[]}`, wantStatus: 400, wantShape: "error.message"},
		{name: "vertex-anthropic passthrough without a string model", upstream: "vertex-anthropic", method: "POST", target: "/v1/messages", body: `{"model":1}`, wantStatus: 400, wantShape: "error.type"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newTestHandler(t, &Handler{Upstream: tt.upstream, Client: tt.client, MaxRequestBody: 100, CloudRaw: testCloud(tt.upstream)})
			var body io.Reader
			if tt.body != "" {
				body = strings.NewReader(tt.body)
			}
			r := httptest.NewRequest(tt.method, tt.target, body)
			for k, v := range tt.header {
				r.Header.Set(k, v)
			}
			w, call := serve(t, h, r, jsonAnswer(200, "{}"))
			if call.called {
				t.Fatal("the upstream was called")
			}
			if w.Code != tt.wantStatus {
				t.Errorf("status %d, want %d; body %s", w.Code, tt.wantStatus, w.Body)
			}
			if !gjson.Valid(w.Body.String()) || !gjson.Get(w.Body.String(), tt.wantShape).Exists() {
				t.Errorf("body %s lacks %s", w.Body, tt.wantShape)
			}
			if ct := w.Header().Get("Content-Type"); ct != "application/json" {
				t.Errorf("Content-Type %q", ct)
			}
		})
	}
}

// unknownLengthBody hides its length so that the limit is enforced while
// reading, as for a chunked upload.
type unknownLengthBody struct{ io.Reader }

func (unknownLengthBody) Close() error { return nil }

func TestServeLimitsChunkedBody(t *testing.T) {
	h := newTestHandler(t, &Handler{Upstream: "anthropic-messages", MaxRequestBody: 64})
	r := httptest.NewRequest("POST", "/v1/messages", nil)
	r.Body = unknownLengthBody{strings.NewReader(`{"model":"` + strings.Repeat("x", 1000) + `"}`)}
	r.ContentLength = -1
	w, call := serve(t, h, r, jsonAnswer(200, "{}"))
	if call.called || w.Code != 413 {
		t.Fatalf("status %d, upstream called %v", w.Code, call.called)
	}
	// Exactly at the limit is accepted.
	exact := `{"model":"` + strings.Repeat("x", 64-12) + `"}`
	r = httptest.NewRequest("POST", "/v1/messages", nil)
	r.Body = unknownLengthBody{strings.NewReader(exact)}
	r.ContentLength = -1
	w, call = serve(t, h, r, jsonAnswer(200, "{}"))
	if !call.called || call.body != exact {
		t.Fatalf("status %d, upstream called %v with %q", w.Code, call.called, call.body)
	}
}

func TestPassthroughKeepsBytes(t *testing.T) {
	const weird = "{ \"model\" : \"claude-x\",\n \"vendor_field\": {\"a\": [1,2]}, \"messages\": [], \"max_tokens\": 5 }"
	tests := []struct {
		name      string
		upstream  string
		target    string
		body      string
		wantPath  string
		wantQuery string
		check     func(t *testing.T, got string)
	}{
		{name: "anthropic", upstream: "anthropic-messages", target: "/v1/messages?beta=true", body: weird, wantPath: "/v1/messages",
			check: func(t *testing.T, got string) {
				if got != weird {
					t.Errorf("body changed: %q", got)
				}
			}},
		{name: "anthropic to vertex-anthropic", upstream: "vertex-anthropic", target: "/v1/messages", body: weird,
			wantPath: "/v1/projects/p/locations/l/publishers/anthropic/models/claude-x:rawPredict",
			check: func(t *testing.T, got string) {
				if gjson.Get(got, "model").Exists() || gjson.Get(got, "anthropic_version").Str != "vertex-2023-10-16" ||
					gjson.Get(got, "vendor_field").Raw != `{"a": [1,2]}` {
					t.Errorf("body %s", got)
				}
			}},
		{name: "vertex-anthropic to anthropic", upstream: "anthropic-messages",
			target: "/v1/projects/x/locations/y/publishers/anthropic/models/claude-y:streamRawPredict",
			body:   `{"anthropic_version":"vertex-2023-10-16","stream":true,"messages":[]}`, wantPath: "/v1/messages",
			check: func(t *testing.T, got string) {
				if gjson.Get(got, "anthropic_version").Exists() || gjson.Get(got, "model").Str != "claude-y" {
					t.Errorf("body %s", got)
				}
			}},
		{name: "gemini to vertex, streaming", upstream: "vertex", target: "/v1beta/models/gemini-x:streamGenerateContent?alt=sse&key=k",
			body: `{"contents":[]}`, wantPath: "/v1/projects/p/locations/l/publishers/google/models/gemini-x:streamGenerateContent", wantQuery: "alt=sse",
			check: func(t *testing.T, got string) {
				if got != `{"contents":[]}` {
					t.Errorf("body %s", got)
				}
			}},
		{name: "gemini to vertex, call ids removed", upstream: "vertex", target: "/v1beta/models/gemini-x:generateContent",
			body: `{"contents":[{"role":"model","parts":[{"functionCall":{"id":"c1","name":"f","args":{}}}]},` +
				`{"role":"user","parts":[{"functionResponse":{"id":"c1","name":"f","response":{}}}]}]}`,
			wantPath: "/v1/projects/p/locations/l/publishers/google/models/gemini-x:generateContent",
			check: func(t *testing.T, got string) {
				want := `{"contents":[{"role":"model","parts":[{"functionCall":{"name":"f","args":{}}}]},` +
					`{"role":"user","parts":[{"functionResponse":{"name":"f","response":{}}}]}]}`
				if got != want {
					t.Errorf("body %s, want %s", got, want)
				}
			}},
		{name: "chat under a prefix", upstream: "openai-chat", target: "/openai/v1/chat/completions", body: weird, wantPath: "/v1/chat/completions",
			check: func(t *testing.T, got string) {
				if got != weird {
					t.Errorf("body changed: %q", got)
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newTestHandler(t, &Handler{Upstream: tt.upstream, CloudRaw: testCloud(tt.upstream)})
			r := httptest.NewRequest("POST", tt.target, strings.NewReader(tt.body))
			const reply = `{"untouched": true }`
			w, call := serve(t, h, r, jsonAnswer(200, reply))
			if !call.called {
				t.Fatalf("upstream not called: %d %s", w.Code, w.Body)
			}
			if call.path != tt.wantPath || call.query != tt.wantQuery {
				t.Errorf("upstream URL %s?%s, want %s?%s", call.path, call.query, tt.wantPath, tt.wantQuery)
			}
			tt.check(t, call.body)
			if w.Body.String() != reply {
				t.Errorf("response changed: %s", w.Body)
			}
		})
	}
}

func TestPassthroughUpstreamUnreachable(t *testing.T) {
	h := newTestHandler(t, &Handler{Upstream: "anthropic-messages"})
	r := httptest.NewRequest("POST", "/v1/messages", strings.NewReader(`{"model":"m"}`))
	w, _ := serve(t, h, r, func(w http.ResponseWriter) error {
		return caddyhttp.Error(http.StatusBadGateway, errors.New("dial tcp 10.1.2.3:443: connection refused"))
	})
	if w.Code != 502 || gjson.Get(w.Body.String(), "error.type").Str != "api_error" {
		t.Fatalf("got %d %s", w.Code, w.Body)
	}
	if strings.Contains(w.Body.String(), "10.1.2.3") {
		t.Errorf("error leaks the upstream address: %s", w.Body)
	}
}

func TestProvisionAndValidate(t *testing.T) {
	tests := []struct {
		h       Handler
		wantErr string
	}{
		{Handler{}, "upstream protocol is required"},
		{Handler{Upstream: "openai"}, `unknown protocol "openai"`},
		{Handler{Upstream: "gemini", Client: "claude"}, `client: unknown protocol "claude"`},
		{Handler{Upstream: "vertex"}, "requires vertex_project and vertex_location"},
		{Handler{Upstream: "vertex-anthropic", CloudRaw: clouds.Raw(&google.Cloud{Project: "p"})}, "requires vertex_project and vertex_location"},
		{Handler{Upstream: "gemini", DefaultMaxTokens: -1}, "default_max_tokens"},
		{Handler{Upstream: "gemini", MaxRequestBody: -1}, "max_request_body"},
	}
	for _, tt := range tests {
		ctx, cancel := caddy.NewContext(caddy.Context{Context: context.Background()})
		err := tt.h.Provision(ctx)
		if err == nil {
			err = tt.h.Validate()
		}
		cancel()
		if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
			t.Errorf("%+v: err = %v, want %q", tt.h, err, tt.wantErr)
		}
	}
	t.Setenv("LLMBRIDGE_TEST_KEY", "secret")
	h := newTestHandler(t, &Handler{Upstream: "gemini", APIKey: "{env.LLMBRIDGE_TEST_KEY}"})
	if h.cred.Key != "secret" || h.DefaultMaxTokens != 4096 || h.MaxRequestBody != 32<<20 {
		t.Errorf("provisioned %+v", h)
	}
}

func TestPassthroughRejectsRepeatedRoutingKeys(t *testing.T) {
	h := newTestHandler(t, &Handler{Upstream: "vertex-anthropic", CloudRaw: vertexCloud("p", "l")})
	r := httptest.NewRequest("POST", "/v1/messages", strings.NewReader(`{"model":"a","model":"b","max_tokens":1,"messages":[]}`))
	w, call := serve(t, h, r, jsonAnswer(200, "{}"))
	if call.called || w.Code != 400 || gjson.Get(w.Body.String(), "error.type").Str != "invalid_request_error" {
		t.Fatalf("status %d, upstream called %v: %s", w.Code, call.called, w.Body)
	}
}
