package caddymodule

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/llmbridge/llmbridge/caddymodule/writers"

	"github.com/tidwall/gjson"

	"github.com/llmbridge/llmbridge/codec/anthropic"
)

func TestModelsEndpoint(t *testing.T) {
	anthropicList := `{"data":[{"type":"model","id":"claude-sonnet-4-5","display_name":"Claude Sonnet 4.5","created_at":"2025-09-29T00:00:00Z"}],"has_more":false,"first_id":"claude-sonnet-4-5","last_id":"claude-sonnet-4-5"}`
	tests := []struct {
		name      string
		upstream  string
		target    string
		header    []string
		answer    string
		wantPath  string
		wantQuery string
		check     func(t *testing.T, body string)
	}{
		{"openai client, anthropic upstream", "anthropic-messages", "/v1/models", []string{"Authorization", "Bearer k"}, anthropicList,
			"/v1/models", "limit=1000", func(t *testing.T, body string) {
				if gjson.Get(body, "object").Str != "list" || gjson.Get(body, "data.0.id").Str != "claude-sonnet-4-5" || gjson.Get(body, "data.0.created").Int() != 1759104000 {
					t.Errorf("body %s", body)
				}
			}},
		{"anthropic client, anthropic upstream keeps paging", "anthropic-messages", "/v1/models?limit=2&after_id=x", []string{"X-Api-Key", "k", "Anthropic-Version", "2023-06-01"}, anthropicList,
			"/v1/models", "after_id=x&limit=2", func(t *testing.T, body string) {
				if body != anthropicList {
					t.Errorf("body %s, want it unchanged", body)
				}
			}},
		{"gemini client, openai upstream", "openai-chat", "/v1beta/models?key=k&pageSize=5", nil,
			`{"object":"list","data":[{"id":"gpt-5","object":"model","created":1,"owned_by":"system"}]}`,
			"/v1/models", "", func(t *testing.T, body string) {
				if gjson.Get(body, "models.0.name").Str != "models/gpt-5" || gjson.Get(body, "models.0.supportedGenerationMethods.#").Int() != 2 {
					t.Errorf("body %s", body)
				}
			}},
		{"anthropic client, gemini upstream", "gemini", "/v1/models", []string{"X-Api-Key", "k"},
			`{"models":[{"name":"models/gemini-2.5-flash","displayName":"Gemini 2.5 Flash"}],"nextPageToken":"n"}`,
			"/v1beta/models", "pageSize=1000", func(t *testing.T, body string) {
				if gjson.Get(body, "data.0.id").Str != "gemini-2.5-flash" || !gjson.Get(body, "has_more").Bool() {
					t.Errorf("body %s", body)
				}
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newTestHandler(t, &Handler{Upstream: tc.upstream})
			r := httptest.NewRequest("GET", tc.target, nil)
			for i := 0; i+1 < len(tc.header); i += 2 {
				r.Header.Set(tc.header[i], tc.header[i+1])
			}
			w, call := serve(t, h, r, jsonAnswer(200, tc.answer))
			if !call.called || call.path != tc.wantPath || call.query != tc.wantQuery {
				t.Fatalf("upstream called %v with %s?%s, want %s?%s", call.called, call.path, call.query, tc.wantPath, tc.wantQuery)
			}
			if call.body != "" || call.header.Get("Content-Type") != "" {
				t.Errorf("a listing request has body %q, Content-Type %q", call.body, call.header.Get("Content-Type"))
			}
			if w.Code != 200 {
				t.Fatalf("status %d: %s", w.Code, w.Body)
			}
			tc.check(t, w.Body.String())
		})
	}
}

func TestModelsEndpointErrors(t *testing.T) {
	// A Vertex upstream has no listing.
	h := newTestHandler(t, &Handler{Upstream: "vertex", CloudRaw: vertexCloud("p", "l")})
	w, call := serve(t, h, httptest.NewRequest("GET", "/v1/models", nil), jsonAnswer(200, "{}"))
	if call.called || w.Code != 400 || !strings.Contains(gjson.Get(w.Body.String(), "error.message").Str, "model listing is not supported") {
		t.Errorf("vertex: status %d, upstream called %v: %s", w.Code, call.called, w.Body)
	}
	// POST to a listing is 405 with Allow: GET.
	h = newTestHandler(t, &Handler{Upstream: "openai-chat"})
	w, call = serve(t, h, httptest.NewRequest("POST", "/v1/models", strings.NewReader("{}")), jsonAnswer(200, "{}"))
	if call.called || w.Code != 405 || w.Header().Get("Allow") != "GET" {
		t.Errorf("POST: status %d, Allow %q, upstream called %v", w.Code, w.Header().Get("Allow"), call.called)
	}
	// An upstream error reaches the client in its format.
	h = newTestHandler(t, &Handler{Upstream: "openai-chat"})
	r := httptest.NewRequest("GET", "/v1/models", nil)
	r.Header.Set("Anthropic-Version", "2023-06-01")
	w, _ = serve(t, h, r, jsonAnswer(401, `{"error":{"message":"bad key","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`))
	if w.Code != 401 || gjson.Get(w.Body.String(), "error.type").Str != "authentication_error" {
		t.Errorf("upstream 401: status %d: %s", w.Code, w.Body)
	}
	// A listing that is not one is a 502.
	w, _ = serve(t, h, httptest.NewRequest("GET", "/v1beta/models", nil), jsonAnswer(200, `{"data":7}`))
	if w.Code != 502 || gjson.Get(w.Body.String(), "error.status").Str == "" {
		t.Errorf("bad listing: status %d: %s", w.Code, w.Body)
	}
}

func TestCountEndpoint(t *testing.T) {
	tests := []struct {
		name, upstream, target, body string
		answer                       string
		wantPath                     string
		wantUpstream                 func(t *testing.T, body string)
		want                         string
	}{
		{"anthropic client, gemini upstream", "gemini", "/v1/messages/count_tokens",
			`{"model":"gemini-2.5-flash","system":"s","messages":[{"role":"user","content":"Hi"}]}`,
			`{"totalTokens":12}`, "/v1beta/models/gemini-2.5-flash:countTokens",
			func(t *testing.T, body string) {
				if gjson.Get(body, "generateContentRequest.model").Str != "models/gemini-2.5-flash" || gjson.Get(body, "generateContentRequest.contents.0.parts.0.text").Str != "Hi" {
					t.Errorf("upstream body %s", body)
				}
			}, `{"input_tokens":12}`},
		{"gemini client, responses upstream", "openai-responses", "/v1beta/models/gpt-5:countTokens?key=k",
			`{"contents":[{"role":"user","parts":[{"text":"Hi"}]}]}`,
			`{"object":"response.input_tokens","input_tokens":9}`, "/v1/responses/input_tokens",
			func(t *testing.T, body string) {
				if gjson.Get(body, "model").Str != "gpt-5" || gjson.Get(body, "max_output_tokens").Exists() {
					t.Errorf("upstream body %s", body)
				}
			}, `{"totalTokens":9}`},
		{"responses client, anthropic upstream", "anthropic-messages", "/v1/responses/input_tokens",
			`{"model":"claude-x","input":"Hi"}`,
			`{"input_tokens":5}`, "/v1/messages/count_tokens",
			func(t *testing.T, body string) {
				if gjson.Get(body, "model").Str != "claude-x" || gjson.Get(body, "max_tokens").Exists() {
					t.Errorf("upstream body %s", body)
				}
			}, `{"object":"response.input_tokens","input_tokens":5}`},
		{"anthropic client, vertex-anthropic upstream", "vertex-anthropic", "/v1/messages/count_tokens",
			`{"model":"claude-x@1","messages":[{"role":"user","content":"Hi"}]}`,
			`{"input_tokens":5}`, "/v1/projects/p/locations/l/publishers/anthropic/models/count-tokens:rawPredict",
			func(t *testing.T, body string) {
				if gjson.Get(body, "model").Str != "claude-x@1" || gjson.Get(body, "anthropic_version").Str != anthropic.VertexVersion {
					t.Errorf("upstream body %s", body)
				}
			}, `{"input_tokens":5}`},
		{"same protocol passes through", "anthropic-messages", "/v1/messages/count_tokens",
			`{"model":"claude-x","messages":[{"role":"user","content":"Hi"}],"future_field":1}`,
			`{"input_tokens":5,"extra":true}`, "/v1/messages/count_tokens",
			func(t *testing.T, body string) {
				if !gjson.Get(body, "future_field").Exists() {
					t.Errorf("upstream body %s", body)
				}
			}, `{"input_tokens":5,"extra":true}`},
		{"gemini client, vertex upstream", "vertex", "/v1beta/models/gemini-2.5-pro:countTokens",
			`{"contents":[{"role":"user","parts":[{"text":"Hi"}]}]}`,
			`{"totalTokens":3,"totalBillableCharacters":2}`, "/v1/projects/p/locations/l/publishers/google/models/gemini-2.5-pro:countTokens",
			func(t *testing.T, body string) {
				if body != `{"contents":[{"role":"user","parts":[{"text":"Hi"}]}]}` {
					t.Errorf("upstream body %s", body)
				}
			}, `{"totalTokens":3}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newTestHandler(t, &Handler{Upstream: tc.upstream, CloudRaw: testCloud(tc.upstream)})
			r := httptest.NewRequest("POST", tc.target, strings.NewReader(tc.body))
			w, call := serve(t, h, r, jsonAnswer(200, tc.answer))
			if !call.called || call.path != tc.wantPath || call.query != "" {
				t.Fatalf("upstream called %v with %s?%s, want %s", call.called, call.path, call.query, tc.wantPath)
			}
			tc.wantUpstream(t, call.body)
			if w.Code != 200 || w.Body.String() != tc.want {
				t.Errorf("status %d, body %s; want %s", w.Code, w.Body, tc.want)
			}
		})
	}
}

func TestCountEndpointNotSupported(t *testing.T) {
	h := newTestHandler(t, &Handler{Upstream: "openai-chat"})
	for _, tc := range []struct {
		target, typePath, want string
	}{
		{"/v1/messages/count_tokens", "error.type", "invalid_request_error"},
		{"/v1beta/models/gpt-5:countTokens", "error.status", "INVALID_ARGUMENT"},
		{"/v1/responses/input_tokens", "error.type", "invalid_request_error"},
	} {
		w, call := serve(t, h, httptest.NewRequest("POST", tc.target, strings.NewReader(`{}`)), jsonAnswer(200, "{}"))
		if call.called || w.Code != 400 || gjson.Get(w.Body.String(), tc.typePath).Str != tc.want ||
			!strings.Contains(w.Body.String(), "token counting is not supported by this gateway: its upstream protocol openai-chat has no token counting endpoint") {
			t.Errorf("%s: status %d, upstream called %v: %s", tc.target, w.Code, call.called, w.Body)
		}
	}
	// A malformed upstream count is a 502, never a guess.
	h = newTestHandler(t, &Handler{Upstream: "gemini"})
	w, _ := serve(t, h, httptest.NewRequest("POST", "/v1/messages/count_tokens",
		strings.NewReader(`{"model":"g","messages":[{"role":"user","content":"Hi"}]}`)), jsonAnswer(200, `{"totalTokens":"many"}`))
	if w.Code != 502 || gjson.Get(w.Body.String(), "error.type").Str != "api_error" {
		t.Errorf("malformed count: status %d: %s", w.Code, w.Body)
	}
	// GET on a count endpoint is 405.
	w, _ = serve(t, h, httptest.NewRequest("GET", "/v1/messages/count_tokens", nil), jsonAnswer(200, "{}"))
	if w.Code != 405 || w.Header().Get("Allow") != "POST" {
		t.Errorf("GET count: status %d, Allow %q", w.Code, w.Header().Get("Allow"))
	}
}

// TestModelsEndpointThroughReadFrom checks that a listing collected
// through ReadFrom, with reverse_proxy's flushes in between, is translated
// like one written with Write, and that nothing reached the client before
// the translation.
func TestModelsEndpointThroughReadFrom(t *testing.T) {
	h := newTestHandler(t, &Handler{Upstream: "openai-chat"})
	r := httptest.NewRequest("GET", "/v1beta/models?key=k", nil)
	list := `{"object":"list","data":[{"id":"gpt-5","object":"model","created":1,"owned_by":"system"}]}`
	w, _ := serve(t, h, r, func(w http.ResponseWriter) error {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(200)
		if err := http.NewResponseController(w).Flush(); err != nil {
			return err
		}
		_, err := w.(io.ReaderFrom).ReadFrom(strings.NewReader(list))
		return err
	})
	if w.Code != 200 || gjson.Get(w.Body.String(), "models.0.name").Str != "models/gpt-5" {
		t.Fatalf("status %d: %s", w.Code, w.Body)
	}
}

// TestCountEndpointRejects: a counting request that cannot be sent is
// answered 400 in the client's format without an upstream call: a body
// that is not a JSON object, no model where the upstream needs one, a
// model that cannot go into the upstream's path, a wrong method.
func TestCountEndpointRejects(t *testing.T) {
	tests := []struct {
		name, upstream, method, target, body, errPath, want string
		status                                              int
	}{
		{"same protocol, not JSON", "anthropic-messages", "POST", "/v1/messages/count_tokens", `{"model":`, "error.type", "not a valid JSON object", 400},
		{"translated, not JSON", "gemini", "POST", "/v1/messages/count_tokens", `[1]`, "error.type", "JSON object", 400},
		{"no model toward Anthropic", "anthropic-messages", "POST", "/v1/responses/input_tokens", `{"input":"Hi"}`, "error.param", "is required", 400},
		{"model unfit for a Gemini path", "gemini", "POST", "/v1/messages/count_tokens",
			`{"model":"../x","messages":[{"role":"user","content":"Hi"}]}`, "error.type", "cannot be used in an upstream path", 400},
		{"wrong method", "anthropic-messages", "GET", "/v1/messages/count_tokens", ``, "error.type", "not allowed", 405},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newTestHandler(t, &Handler{Upstream: tc.upstream})
			w, call := serve(t, h, httptest.NewRequest(tc.method, tc.target, strings.NewReader(tc.body)), jsonAnswer(200, `{"input_tokens":1}`))
			body := w.Body.String()
			if call.called || w.Code != tc.status || !gjson.Get(body, tc.errPath).Exists() || !strings.Contains(body, tc.want) {
				t.Fatalf("upstream called %v; status %d: %s", call.called, w.Code, body)
			}
		})
	}
}

// TestCountEndpointRouted sends a count in the upstream's own protocol
// with the model its route names, in the body or in a Gemini path, and
// refuses a body past max_request_body before any upstream call.
func TestCountEndpointRouted(t *testing.T) {
	h := newTestHandler(t, &Handler{Upstream: "anthropic-messages", Models: []ModelRoute{{Match: "claude-x", Upstream: "claude-up"}}, MaxRequestBody: 128})
	w, call := serve(t, h, httptest.NewRequest("POST", "/v1/messages/count_tokens", strings.NewReader(`{"model":"claude-x","messages":[{"role":"user","content":"Hi"}]}`)),
		jsonAnswer(200, `{"input_tokens":3}`))
	if w.Code != 200 || gjson.Get(call.body, "model").Str != "claude-up" || gjson.Get(w.Body.String(), "input_tokens").Int() != 3 {
		t.Errorf("routed count: %d, upstream body %s: %s", w.Code, call.body, w.Body)
	}
	w, call = serve(t, h, httptest.NewRequest("POST", "/v1/messages/count_tokens", strings.NewReader(`{"model":"claude-x","messages":[{"role":"user","content":"`+strings.Repeat("a", 200)+`"}]}`)),
		jsonAnswer(200, `{"input_tokens":3}`))
	if call.called || w.Code != 413 {
		t.Errorf("a body past the limit: upstream called %v, status %d: %s", call.called, w.Code, w.Body)
	}
	g := newTestHandler(t, &Handler{Upstream: "gemini", Models: []ModelRoute{{Match: "gemini-x", Upstream: "gemini-up"}}})
	w, call = serve(t, g, httptest.NewRequest("POST", "/v1beta/models/gemini-x:countTokens", strings.NewReader(`{"contents":[{"role":"user","parts":[{"text":"Hi"}]}]}`)),
		jsonAnswer(200, `{"totalTokens":2}`))
	if w.Code != 200 || !strings.Contains(call.path, "gemini-up:countTokens") {
		t.Errorf("a Gemini count: %d, upstream path %s: %s", w.Code, call.path, w.Body)
	}
}

// TestEndpointAnswerChecked: the upstream's answer to a listing is
// collected and checked as a generation's is. Only a complete JSON
// success is translated; an upstream that wrote nothing, broke off, or
// answered encoded, in another type or with another status is a 502 in
// the client's format, and informational headers are not the answer.
func TestEndpointAnswerChecked(t *testing.T) {
	list := `{"object":"list","data":[{"id":"gpt-5","object":"model","created":1,"owned_by":"system"}]}`
	tests := []struct {
		name   string
		answer func(w http.ResponseWriter) error
		status int
		want   string
	}{
		{"nothing written, an error", func(http.ResponseWriter) error { return errors.New("dial tcp: refused") }, 502, "upstream request failed"},
		{"nothing written", func(http.ResponseWriter) error { return nil }, 502, "upstream request failed"},
		{"an early hint, then the listing", func(w http.ResponseWriter) error {
			w.WriteHeader(http.StatusEarlyHints)
			return jsonAnswer(200, list)(w)
		}, 200, "models/gpt-5"},
		{"a body without a header", func(w http.ResponseWriter) error {
			_, err := io.WriteString(w, list)
			return err
		}, 200, "models/gpt-5"},
		{"broken off", func(w http.ResponseWriter) error {
			_ = jsonAnswer(200, list[:20])(w)
			return errors.New("connection reset")
		}, 502, "upstream response was interrupted"},
		{"encoded", jsonAnswer(200, list, "Content-Encoding", "br"), 502, `unsupported Content-Encoding \"br\"`},
		{"not JSON", jsonAnswer(200, list, "Content-Type", "text/html"), 502, `Content-Type \"text/html\" where JSON was expected`},
		{"a redirect", jsonAnswer(302, list), 502, "unexpected HTTP status 302"},
		{"too large", func(w http.ResponseWriter) error {
			w.WriteHeader(200)
			if _, err := w.Write(make([]byte, writers.MaxResponseBody+1)); err == nil {
				t.Error("a body past writers.MaxResponseBody was taken")
			}
			return nil
		}, 502, "upstream response exceeds"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newTestHandler(t, &Handler{Upstream: "openai-chat"})
			w, _ := serve(t, h, httptest.NewRequest("GET", "/v1beta/models?key=k", nil), tc.answer)
			if w.Code != tc.status || !strings.Contains(w.Body.String(), tc.want) {
				t.Errorf("status %d: %s; want %d with %s", w.Code, w.Body, tc.status, tc.want)
			}
			if tc.status != 200 && gjson.Get(w.Body.String(), "error.status").Str == "" {
				t.Errorf("not in Gemini's error format: %s", w.Body)
			}
		})
	}
}
