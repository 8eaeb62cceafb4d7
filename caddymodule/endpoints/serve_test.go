package endpoints

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"github.com/tidwall/gjson"

	"github.com/llmbridge/llmbridge/caddymodule/observe"
	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/mapping"
)

// fakeHost is a Host that records what the endpoints ask of it and
// answers the upstream call with answer, through the translation the
// endpoint gives.
type fakeHost struct {
	upstream codec.Protocol
	// routes maps a client's model to the upstream's.
	routes map[string]string
	// pathErr and prepareErr are what CountPath and Prepare return.
	pathErr, prepareErr *codec.Error
	// answer is the upstream's JSON success.
	answer string

	failed            error
	dropped           []string
	sentBody          string
	sentPath, sentRaw string
	sent, forwarded   bool
	translated        string
	translateErr      error
}

// UpstreamProtocol is the upstream the test gives.
func (f *fakeHost) UpstreamProtocol() codec.Protocol { return f.upstream }

// RouteModel applies the test's routes.
func (f *fakeHost) RouteModel(_ codec.Protocol, model string) (string, bool) {
	if up, ok := f.routes[model]; ok {
		return up, true
	}
	return model, false
}

// EncodeOptions gives a default max_tokens, which no count may send.
func (f *fakeHost) EncodeOptions(model string) codec.EncodeOptions {
	return codec.EncodeOptions{Model: model, DefaultMaxTokens: 7}
}

// ReadBody reads up to 256 bytes, as a site with that limit would.
func (f *fakeHost) ReadBody(r *http.Request) (*[]byte, *codec.Error) {
	b, err := io.ReadAll(io.LimitReader(r.Body, 257))
	if len(b) > 256 || err != nil {
		return &b, codec.NewError(mapping.ErrRequestTooLarge, "request body exceeds the limit of 256 bytes")
	}
	return &b, nil
}

// CountPath names the model in the path, or fails with pathErr.
func (f *fakeHost) CountPath(model string) (string, *codec.Error) {
	if f.pathErr != nil {
		return "", f.pathErr
	}
	return "/count/" + model, nil
}

// Prepare records what would be sent (a listing must have no body) and sets
// a Content-Type, as the handler does, or fails with prepareErr.
func (f *fakeHost) Prepare(r *http.Request, _ *observe.Exchange, _ codec.Protocol, body []byte, path, rawQuery string) *codec.Error {
	if f.prepareErr != nil {
		return f.prepareErr
	}
	f.sent = true
	if body != nil {
		f.sentBody = string(body)
	} else if r.Body != http.NoBody || r.ContentLength != 0 {
		f.sentBody = "a body"
	}
	f.sentPath, f.sentRaw = path, rawQuery
	r.Header.Set("Content-Type", "application/json")
	return nil
}

// ReportDropped records the dropped paths.
func (f *fakeHost) ReportDropped(_ http.ResponseWriter, paths []string) { f.dropped = paths }

// Fail records the refusal.
func (f *fakeHost) Fail(w http.ResponseWriter, x *observe.Exchange, _ codec.Protocol, e *codec.Error) {
	f.failed = e
	w.WriteHeader(http.StatusTeapot)
}

// Forward answers with answer through translate; a listing that still
// carries a Content-Type is an error.
func (f *fakeHost) Forward(w http.ResponseWriter, r *http.Request, _ caddyhttp.Handler, _ *observe.Exchange, _ codec.Protocol, translate func(body, out []byte) ([]byte, error)) {
	f.forwarded = true
	if r.Header.Get("Content-Type") != "" && r.Method == http.MethodGet {
		f.translateErr = errors.New("a listing carries a Content-Type")
		return
	}
	b, err := translate([]byte(f.answer), []byte{})
	f.translated, f.translateErr = string(b), err
	w.WriteHeader(http.StatusOK)
}

// serveFake serves a request for target through Serve with host.
func serveFake(t *testing.T, host *fakeHost, method, target, body string, header ...string) *observe.Exchange {
	t.Helper()
	var rb io.Reader
	if body != "" {
		rb = strings.NewReader(body)
	}
	r := httptest.NewRequest(method, target, rb)
	for i := 0; i+1 < len(header); i += 2 {
		r.Header.Set(header[i], header[i+1])
	}
	rt, ok := Detect("", r)
	if !ok {
		t.Fatalf("%s %s is not an endpoint", method, target)
	}
	x := &observe.Exchange{Client: rt.Protocol}
	Serve(httptest.NewRecorder(), r, nil, rt, x, host)
	return x
}

// failedWith reports whether host refused the request with an error of
// kind whose message holds want, without an upstream call.
func failedWith(host *fakeHost, kind mapping.ErrorKind, want string) bool {
	var e *codec.Error
	return errors.As(host.failed, &e) && e.Kind == kind && strings.Contains(e.Message, want) && !host.forwarded
}

func TestServeModels(t *testing.T) {
	anthropicList := `{"data":[{"type":"model","id":"claude-x","display_name":"Claude X","created_at":"2025-09-29T00:00:00Z"}],"has_more":false,"first_id":"claude-x","last_id":"claude-x"}`
	// The client's own shape passes, with its paging.
	h := &fakeHost{upstream: codec.AnthropicMessages, answer: anthropicList}
	serveFake(t, h, "GET", "/v1/models?limit=2&after_id=a&other=o", "", "Anthropic-Version", "2023-06-01")
	if h.translated != anthropicList || h.sentPath != "/v1/models" || h.sentRaw != "after_id=a&limit=2" || h.sentBody != "" || h.translateErr != nil {
		t.Errorf("same shape: sent %s?%s (body %q), answered %s (%v)", h.sentPath, h.sentRaw, h.sentBody, h.translated, h.translateErr)
	}
	// Another shape is translated from one page of 1000, paging dropped.
	h = &fakeHost{upstream: codec.AnthropicMessages, answer: anthropicList}
	serveFake(t, h, "GET", "/v1beta/models?pageSize=5", "")
	if gjson.Get(h.translated, "models.0.name").Str != "models/claude-x" || h.sentRaw != "limit=1000" ||
		gjson.Get(h.translated, "models.0.supportedGenerationMethods.#").Int() != 3 {
		t.Errorf("gemini client: sent ?%s, answered %s (%v)", h.sentRaw, h.translated, h.translateErr)
	}
	// A listing that is not one is the translation's error.
	h = &fakeHost{upstream: codec.OpenAIChat, answer: `{"data":7}`}
	serveFake(t, h, "GET", "/v1beta/models", "")
	if h.translateErr == nil || h.translated != "" {
		t.Errorf("bad listing: answered %s (%v)", h.translated, h.translateErr)
	}
	// The methods listed to a Gemini client are what llmbridge serves.
	h = &fakeHost{upstream: codec.OpenAIChat, answer: `{"object":"list","data":[{"id":"gpt-x","object":"model","created":1,"owned_by":"o"}]}`}
	serveFake(t, h, "GET", "/v1beta/models", "")
	if gjson.Get(h.translated, "models.0.supportedGenerationMethods.#").Int() != 2 {
		t.Errorf("openai upstream: answered %s (%v)", h.translated, h.translateErr)
	}
}

func TestServeModelsRefuses(t *testing.T) {
	h := &fakeHost{upstream: codec.OpenAIChat}
	serveFake(t, h, "POST", "/v1/models", "{}")
	if !failedWith(h, mapping.ErrMethodNotAllowed, "use GET") || h.sent {
		t.Errorf("POST: failed with %v, sent %v", h.failed, h.sent)
	}
	h = &fakeHost{upstream: codec.Vertex}
	serveFake(t, h, "GET", "/v1/models", "")
	if !failedWith(h, mapping.ErrInvalidRequest, "model listing is not supported by this gateway: its upstream protocol vertex has no model listing endpoint") {
		t.Errorf("vertex: failed with %v", h.failed)
	}
	h = &fakeHost{upstream: codec.OpenAIChat, prepareErr: codec.NewError(mapping.ErrBadGateway, "no token")}
	serveFake(t, h, "GET", "/v1/models", "")
	if !failedWith(h, mapping.ErrBadGateway, "no token") {
		t.Errorf("send failed: failed with %v", h.failed)
	}
}

func TestServeCount(t *testing.T) {
	messages := `"messages":[{"role":"user","content":"Hi"}]`
	tests := []struct {
		name     string
		upstream codec.Protocol
		routes   map[string]string
		target   string
		body     string
		answer   string
		sentPath string
		sent     func(body string) bool
		want     string
		dropped  bool
	}{
		{"same protocol passes through", codec.AnthropicMessages, nil, "/v1/messages/count_tokens",
			`{"model":"claude-x",` + messages + `,"future":1}`, `{"input_tokens":5,"extra":true}`, "/count/claude-x",
			func(b string) bool { return gjson.Get(b, "future").Exists() }, `{"input_tokens":5,"extra":true}`, false},
		{"same protocol, routed in the body", codec.AnthropicMessages, map[string]string{"claude-x": "claude-up"}, "/v1/messages/count_tokens",
			`{"model":"claude-x",` + messages + `}`, `{"input_tokens":5}`, "/count/claude-up",
			func(b string) bool { return gjson.Get(b, "model").Str == "claude-up" }, `{"input_tokens":5}`, false},
		{"same protocol, routed in the path", codec.Gemini, map[string]string{"gemini-x": "models/gemini-up"}, "/v1beta/models/gemini-x:countTokens",
			`{"contents":[{"role":"user","parts":[{"text":"Hi"}]}]}`, `{"totalTokens":2}`, "/count/gemini-up",
			func(b string) bool { return !gjson.Get(b, "model").Exists() }, `{"totalTokens":2}`, false},
		{"translated, model in the path", codec.OpenAIResponses, nil, "/v1beta/models/gpt-x:countTokens",
			`{"contents":[{"role":"user","parts":[{"text":"Hi"}]}]}`, `{"object":"response.input_tokens","input_tokens":9}`, "/count/gpt-x",
			func(b string) bool { return gjson.Get(b, "model").Str == "gpt-x" }, `{"totalTokens":9}`, false},
		{"translated, hints dropped", codec.Gemini, nil, "/v1/messages/count_tokens",
			`{"model":"g","messages":[{"role":"user","content":[{"type":"text","text":"Hi","cache_control":{"type":"ephemeral"}}]}]}`, `{"totalTokens":3}`, "/count/g",
			func(b string) bool { return gjson.Get(b, "generateContentRequest.model").Str == "models/g" }, `{"input_tokens":3}`, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := &fakeHost{upstream: tc.upstream, routes: tc.routes, answer: tc.answer}
			x := serveFake(t, h, "POST", tc.target, tc.body)
			if h.failed != nil || h.sentPath != tc.sentPath || h.sentRaw != "" || !tc.sent(h.sentBody) {
				t.Fatalf("failed with %v; sent %s?%s: %s", h.failed, h.sentPath, h.sentRaw, h.sentBody)
			}
			if h.translated != tc.want || h.translateErr != nil {
				t.Errorf("answered %s (%v), want %s", h.translated, h.translateErr, tc.want)
			}
			if (len(h.dropped) > 0) != tc.dropped {
				t.Errorf("dropped %v", h.dropped)
			}
			if x.Model == "" || x.UpstreamModel != strings.TrimPrefix(tc.sentPath, "/count/") {
				t.Errorf("models noted %q, %q", x.Model, x.UpstreamModel)
			}
		})
	}
	// An upstream count that is not one is the translation's error.
	h := &fakeHost{upstream: codec.Gemini, answer: `{"totalTokens":"many"}`}
	serveFake(t, h, "POST", "/v1/messages/count_tokens", `{"model":"g",`+messages+`}`)
	if h.translateErr == nil {
		t.Errorf("a malformed count was translated: %s", h.translated)
	}
}

func TestServeCountRefuses(t *testing.T) {
	tests := []struct {
		name, method, target, body string
		host                       *fakeHost
		kind                       mapping.ErrorKind
		want                       string
	}{
		{"wrong method", "GET", "/v1/messages/count_tokens", "", &fakeHost{upstream: codec.AnthropicMessages},
			mapping.ErrMethodNotAllowed, "use POST"},
		{"an upstream that cannot count", "POST", "/v1/responses/input_tokens", "{}", &fakeHost{upstream: codec.OpenAIChat},
			mapping.ErrInvalidRequest, "token counting is not supported by this gateway: its upstream protocol openai-chat has no token counting endpoint"},
		{"a body past the limit", "POST", "/v1/messages/count_tokens", `{"model":"` + strings.Repeat("a", 300) + `"}`, &fakeHost{upstream: codec.AnthropicMessages},
			mapping.ErrRequestTooLarge, "exceeds"},
		{"same protocol, not JSON", "POST", "/v1/messages/count_tokens", `{"model":`, &fakeHost{upstream: codec.AnthropicMessages},
			mapping.ErrInvalidRequest, "not a valid JSON object"},
		{"same protocol, not an object", "POST", "/v1/messages/count_tokens", `[1]`, &fakeHost{upstream: codec.AnthropicMessages},
			mapping.ErrInvalidRequest, "not a valid JSON object"},
		{"same protocol, no model", "POST", "/v1/messages/count_tokens", `{"messages":[{"role":"user","content":"Hi"}]}`,
			&fakeHost{upstream: codec.AnthropicMessages}, mapping.ErrInvalidRequest, "model is required"},
		{"translated, not JSON", "POST", "/v1/messages/count_tokens", `[1]`, &fakeHost{upstream: codec.Gemini},
			mapping.ErrInvalidRequest, "JSON object"},
		{"no model toward Anthropic", "POST", "/v1/responses/input_tokens", `{"input":"Hi"}`, &fakeHost{upstream: codec.AnthropicMessages},
			mapping.ErrInvalidRequest, "is required"},
		{"a model unfit for the path", "POST", "/v1/messages/count_tokens", `{"model":"../x","messages":[{"role":"user","content":"Hi"}]}`,
			&fakeHost{upstream: codec.Gemini, pathErr: codec.NewError(mapping.ErrInvalidRequest, "cannot be used in an upstream path")}, mapping.ErrInvalidRequest, "upstream path"},
		{"no credential for the upstream", "POST", "/v1/messages/count_tokens", `{"model":"m","messages":[{"role":"user","content":"Hi"}]}`,
			&fakeHost{upstream: codec.Gemini, prepareErr: codec.NewError(mapping.ErrBadGateway, "no token")}, mapping.ErrBadGateway, "no token"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			serveFake(t, tc.host, tc.method, tc.target, tc.body)
			if !failedWith(tc.host, tc.kind, tc.want) {
				t.Errorf("failed with %v, forwarded %v", tc.host.failed, tc.host.forwarded)
			}
		})
	}
}
