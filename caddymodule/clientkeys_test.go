package caddymodule

import (
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/interactions"
)

// Keys of the client key tests: two configured keys (one from the
// environment) and a wrong one.
const (
	gateKey     = "gate-key-1"
	gateEnvKey  = "gate-key-from-env"
	wrongKey    = "gate-key-2"
	upstreamKey = "upstream-secret"
)

// clientKeyRequest is a minimal generation request of protocol p, its
// credential set by cred.
func clientKeyRequest(p codec.Protocol, cred func(r *http.Request)) *http.Request {
	var target, body string
	switch p {
	case codec.OpenAIChat:
		target, body = "/v1/chat/completions", `{"model":"m","messages":[{"role":"user","content":"Hi"}]}`
	case codec.OpenAIResponses:
		target, body = "/v1/responses", `{"model":"m","input":"Hi"}`
	case codec.AnthropicMessages:
		target, body = "/v1/messages", `{"model":"m","max_tokens":5,"messages":[{"role":"user","content":"Hi"}]}`
	case codec.Gemini:
		target, body = "/v1beta/models/m:generateContent", `{"contents":[{"role":"user","parts":[{"text":"Hi"}]}]}`
	case codec.Vertex:
		target, body = "/v1/projects/p/locations/l/publishers/google/models/m:generateContent", `{"contents":[{"role":"user","parts":[{"text":"Hi"}]}]}`
	case codec.VertexAnthropic:
		target, body = "/v1/projects/p/locations/l/publishers/anthropic/models/m:rawPredict", `{"anthropic_version":"vertex-2023-10-16","max_tokens":5,"messages":[{"role":"user","content":"Hi"}]}`
	case codec.Bedrock:
		target, body = "/model/m/converse", `{"messages":[{"role":"user","content":[{"text":"Hi"}]}]}`
	case codec.BedrockAnthropic:
		target, body = "/model/anthropic.m-v1:0/invoke", `{"anthropic_version":"bedrock-2023-05-31","max_tokens":5,"messages":[{"role":"user","content":"Hi"}]}`
	case interactions.Gemini:
		target, body = "/v1beta/interactions", `{"model":"m","input":"Hi"}`
	}
	r := httptest.NewRequest(http.MethodPost, target, strings.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	if cred != nil {
		cred(r)
	}
	return r
}

func bearer(key string) func(*http.Request) {
	return func(r *http.Request) { r.Header.Set("Authorization", "Bearer "+key) }
}

func header(name, key string) func(*http.Request) {
	return func(r *http.Request) { r.Header.Set(name, key) }
}

func query(key string) func(*http.Request) {
	return func(r *http.Request) { r.URL.RawQuery = "key=" + key }
}

// TestClientKeys checks, for every client protocol, that its own credential
// header with a configured key is accepted, and a wrong key, a missing key
// or a key in another protocol's header is answered 401 in the client's
// format without an upstream call; that the client's key never reaches the
// upstream, with api_key or without; and that no key appears in the
// handler's log.
func TestClientKeys(t *testing.T) {
	t.Setenv("LLMBRIDGE_TEST_GATE_KEY", gateEnvKey)
	type credCase struct {
		name string
		cred func(*http.Request)
		ok   bool
	}
	own := map[codec.Protocol][]credCase{
		codec.OpenAIChat:        {{"bearer", bearer(gateKey), true}, {"bearer from env", bearer(gateEnvKey), true}, {"x-api-key", header("X-Api-Key", gateKey), false}},
		codec.OpenAIResponses:   {{"bearer", bearer(gateKey), true}, {"x-goog-api-key", header("X-Goog-Api-Key", gateKey), false}},
		codec.AnthropicMessages: {{"x-api-key", header("X-Api-Key", gateKey), true}, {"bearer", bearer(gateEnvKey), true}, {"x-goog-api-key", header("X-Goog-Api-Key", gateKey), false}},
		codec.Gemini:            {{"x-goog-api-key", header("X-Goog-Api-Key", gateKey), true}, {"query", query(gateEnvKey), true}, {"bearer", bearer(gateKey), false}},
		codec.Vertex:            {{"bearer", bearer(gateKey), true}, {"x-goog-api-key", header("X-Goog-Api-Key", gateKey), false}, {"query", query(gateKey), false}},
		codec.VertexAnthropic:   {{"bearer", bearer(gateKey), true}, {"x-api-key", header("X-Api-Key", gateKey), false}},
	}
	common := []credCase{
		{"wrong key", func(r *http.Request) {
			bearer(wrongKey)(r)
			header("X-Api-Key", wrongKey)(r)
			header("X-Goog-Api-Key", wrongKey)(r)
		}, false},
		{"key with a suffix", func(r *http.Request) {
			bearer(gateKey + "x")(r)
			header("X-Api-Key", gateKey+"x")(r)
			header("X-Goog-Api-Key", gateKey+"x")(r)
		}, false},
		{"missing key", nil, false},
		{"empty bearer", header("Authorization", "Bearer "), false},
	}
	for _, p := range codec.ClientProtocols() {
		for _, withAPIKey := range []bool{true, false} {
			for _, c := range append(own[p], common...) {
				name := string(p) + "/" + c.name
				if !withAPIKey {
					name += "/without api_key"
				}
				t.Run(name, func(t *testing.T) {
					core, logs := observer.New(zapcore.DebugLevel)
					cfg := &Handler{Upstream: "openai-chat", ClientKeys: []ClientKey{{Key: gateKey}, {Name: "env-key", Key: "{env.LLMBRIDGE_TEST_GATE_KEY}"}}}
					if withAPIKey {
						cfg.APIKey = upstreamKey
					}
					h := newTestHandler(t, cfg)
					h.setLogger(zap.New(core))
					answer := jsonAnswer(200, `{"id":"c","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"ok"},"finish_reason":"stop"}]}`)
					w, call := serve(t, h, clientKeyRequest(p, c.cred), answer)
					if c.ok {
						if w.Code != 200 || !call.called {
							t.Fatalf("status %d, upstream called %v; want 200 through the upstream; body %s", w.Code, call.called, w.Body)
						}
						wantAuth := ""
						if withAPIKey {
							wantAuth = "Bearer " + upstreamKey
						}
						if got := call.header.Get("Authorization"); got != wantAuth {
							t.Errorf("upstream Authorization %q, want %q", got, wantAuth)
						}
						for k, vs := range call.header {
							for _, v := range vs {
								if strings.Contains(v, "gate-key") {
									t.Errorf("the client key reached the upstream in %s: %q", k, v)
								}
							}
						}
						if strings.Contains(call.query, "gate-key") || strings.Contains(call.body, "gate-key") {
							t.Errorf("the client key reached the upstream: ?%s %s", call.query, call.body)
						}
					} else {
						if call.called {
							t.Fatal("the upstream was called")
						}
						if w.Code != http.StatusUnauthorized {
							t.Errorf("status %d, want 401; body %s", w.Code, w.Body)
						}
						if !strings.Contains(w.Body.String(), authErrorMarker(p)) {
							t.Errorf("401 body not in %s's format: %s", p, w.Body)
						}
						if strings.Contains(w.Body.String(), "gate-key") {
							t.Errorf("the error names a key: %s", w.Body)
						}
					}
					for _, e := range logs.All() {
						line := e.Message
						for _, f := range e.Context {
							line += " " + f.String + " " + f.Key
						}
						if strings.Contains(line, "gate-key") || strings.Contains(line, upstreamKey) {
							t.Errorf("a log entry names a key: %q", line)
						}
					}
				})
			}
		}
	}
}

func TestClientKeysConfig(t *testing.T) {
	os.Unsetenv("LLMBRIDGE_TEST_UNSET_KEY")
	h := &Handler{Upstream: "openai-chat", ClientKeys: []ClientKey{{Key: "a"}, {Key: "{env.LLMBRIDGE_TEST_UNSET_KEY}"}}}
	err := h.Provision(testContext(t))
	if err == nil || !strings.Contains(err.Error(), "client key client_keys[1] is empty") {
		t.Fatalf("err = %v, want client_keys[1] is empty", err)
	}
}

// authErrorMarker is what a 401 body of protocol p's error format holds.
func authErrorMarker(p codec.Protocol) string {
	switch {
	case p.Descriptor().ErrorAtRoot:
		return `"__type":"UnrecognizedClientException"`
	case p.Family() == codec.AnthropicMessages:
		return `"authentication_error"`
	case p.Family() == codec.Gemini, p.Family() == interactions.Gemini:
		return `"UNAUTHENTICATED"`
	}
	return `"param":null`
}
