package caddymodule

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"

	"github.com/llmbridge/llmbridge/caddymodule/clouds"
	awscloud "github.com/llmbridge/llmbridge/caddymodule/clouds/aws"
	"github.com/llmbridge/llmbridge/caddymodule/clouds/azure"
	"github.com/llmbridge/llmbridge/sse/eventstream"
)

// poolKind is one kind of credential pool under test: a handler whose
// pool has two members, what identifies the member a request carried,
// and the requests and stream answers of its upstream.
type poolKind struct {
	name string
	// handler returns the handler with its two-member pool, provisioned.
	handler func(t *testing.T) *Handler
	// member names the pool member whose credential the upstream request
	// carried ("0", "1"), or "" for none.
	member func(hdr http.Header) string
	// plain is a request and its answer; translated and passthrough are
	// streamed requests, translated or passed through, answered by
	// throttled (a rate-limit error event before any content).
	plain                   func() *http.Request
	plainAnswer             func(w http.ResponseWriter) error
	translated, passthrough func() *http.Request
	throttled               func(t *testing.T) func(w http.ResponseWriter) error
}

func post(target, body string) func() *http.Request {
	return func() *http.Request {
		return httptest.NewRequest(http.MethodPost, target, strings.NewReader(body))
	}
}

// entraTokens is an Entra ID token endpoint that gives each application
// the token "tok-" and its client id.
func entraTokens(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		form, _ := url.ParseQuery(string(body))
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"token_type":"Bearer","expires_in":3599,"access_token":"tok-%s"}`, form.Get("client_id"))
	}))
	t.Cleanup(srv.Close)
	return srv
}

var sigV4Credential = regexp.MustCompile(`Credential=AKID(\d)/`)

const (
	chatStreamBody      = `{"model":"gpt-5","stream":true,"messages":[{"role":"user","content":"Hi"}]}`
	messagesStreamBody  = `{"model":"m","max_tokens":10,"stream":true,"messages":[{"role":"user","content":"Hi"}]}`
	chatRateLimitStream = "data: {\"error\":{\"message\":\"Rate limit reached\",\"type\":\"requests\",\"code\":\"rate_limit_exceeded\"}}\n\n"
	anthropicMessageOK  = `{"id":"msg_1","type":"message","role":"assistant","model":"m","content":[{"type":"text","text":"hi"}],"stop_reason":"end_turn","usage":{"input_tokens":1,"output_tokens":1}}`
)

// chat is k for an upstream of the Chat Completions wire format: its
// requests and answers, and a rate limit as its in-stream error chunk.
func (k poolKind) chat() poolKind {
	k.plain = post("/v1/chat/completions", `{"model":"gpt-5","messages":[{"role":"user","content":"Hi"}]}`)
	k.plainAnswer = jsonAnswer(200, chatOK)
	k.translated = post("/v1/messages", messagesStreamBody)
	k.passthrough = post("/v1/chat/completions", chatStreamBody)
	k.throttled = func(*testing.T) func(w http.ResponseWriter) error {
		return sseAnswer(chatRateLimitStream, 1<<10, nil)
	}
	return k
}

// poolKinds are the credentials a pool can hold: api_key values,
// azure_credentials applications (tokens from a fake Entra ID) and
// aws_profile profiles (from a temporary shared credentials file).
var poolKinds = []poolKind{
	poolKind{
		name: "api_key",
		handler: func(t *testing.T) *Handler {
			return newTestHandler(t, &Handler{Upstream: "openai-chat", APIKeys: []string{"k0", "k1"}})
		},
		member: func(hdr http.Header) string { return strings.TrimPrefix(hdr.Get("Authorization"), "Bearer k") },
	}.chat(),
	poolKind{
		name: "azure_credentials",
		handler: func(t *testing.T) *Handler {
			entra := entraTokens(t)
			app := func(id string) azure.Application {
				return azure.Application{TenantID: "tenant", ClientID: id, ClientSecret: "secret", AuthorityHost: entra.URL}
			}
			return newTestHandler(t, &Handler{Upstream: "azure-openai",
				CloudRaw: clouds.Raw(&azure.Cloud{Credentials: []azure.Application{app("app0"), app("app1")}})})
		},
		member: func(hdr http.Header) string { return strings.TrimPrefix(hdr.Get("Authorization"), "Bearer tok-app") },
	}.chat(),
	{
		name: "aws_profile",
		handler: func(t *testing.T) *Handler {
			dir := t.TempDir()
			creds := filepath.Join(dir, "credentials")
			if err := os.WriteFile(creds, []byte("[p0]\naws_access_key_id = AKID0\naws_secret_access_key = s0\n\n[p1]\naws_access_key_id = AKID1\naws_secret_access_key = s1\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			t.Setenv("AWS_SHARED_CREDENTIALS_FILE", creds)
			t.Setenv("AWS_CONFIG_FILE", os.DevNull)
			t.Setenv("AWS_ACCESS_KEY_ID", "")
			t.Setenv("AWS_SECRET_ACCESS_KEY", "")
			t.Setenv("AWS_PROFILE", "")
			t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
			return newTestHandler(t, &Handler{Upstream: "bedrock-anthropic",
				CloudRaw: clouds.Raw(&awscloud.Cloud{Region: "us-east-1", Profiles: []string{"p0", "p1"}})})
		},
		member: func(hdr http.Header) string {
			if m := sigV4Credential.FindStringSubmatch(hdr.Get("Authorization")); m != nil {
				return m[1]
			}
			return ""
		},
		plain:       post("/v1/messages", `{"model":"m","max_tokens":10,"messages":[{"role":"user","content":"Hi"}]}`),
		plainAnswer: jsonAnswer(200, anthropicMessageOK),
		translated:  post("/v1/chat/completions", chatStreamBody),
		passthrough: post("/v1/messages", messagesStreamBody),
		throttled: func(t *testing.T) func(w http.ResponseWriter) error {
			exception := string(eventstream.AppendMessage(nil, "exception:throttlingException", []byte(`{"message":"Too many requests"}`)))
			return awsStreamAnswer(exception, 1<<10)
		},
	},
}

// TestCredentialPools checks a pool of each kind of credential: members
// used in turn, a member answered 429 skipped for its cooldown, a member
// refused (401) out of the pool and logged by its kind and position, never
// its value; and a member whose stream fails with a rate limit before any
// content, translated or passed through, cooled as a 429 would.
func TestCredentialPools(t *testing.T) {
	for _, k := range poolKinds {
		t.Run(k.name, func(t *testing.T) {
			h := k.handler(t)
			if h.keys == nil || h.keys.Len() != 2 || h.keys.Kind() != k.name {
				t.Fatalf("pool %+v, want two members of %s", h.keys, k.name)
			}
			logs := observeLogs(h)
			h.keys.SetLogger(h.logger)
			send := func(r *http.Request, answer func(w http.ResponseWriter) error) (int, string) {
				t.Helper()
				return send2(t, h, k, r, answer)
			}
			var used []string
			for range 4 {
				code, m := send(k.plain(), k.plainAnswer)
				if code != 200 {
					t.Fatalf("status %d", code)
				}
				used = append(used, m)
			}
			if strings.Join(used, " ") != "0 1 0 1" {
				t.Errorf("members used %v, want 0 1 0 1 (in turn)", used)
			}
			// Member 0 is rate limited for a minute: member 1 serves.
			if _, m := send(k.plain(), jsonAnswer(429, `{"error":{"message":"slow down","type":"rate_limit_error"}}`, "Retry-After", "60")); m != "0" {
				t.Fatalf("member %q, want 0", m)
			}
			for range 2 {
				if _, m := send(k.plain(), k.plainAnswer); m != "1" {
					t.Errorf("member %q while 0 cools, want 1", m)
				}
			}
			// Member 1 refused: out; every member unusable answers 429.
			if _, m := send(k.plain(), jsonAnswer(401, `{"error":{"message":"bad key","type":"authentication_error"}}`)); m != "1" {
				t.Fatalf("member %q, want 1", m)
			}
			if h.keys.OutCount() != 1 {
				t.Errorf("%d members out, want 1", h.keys.OutCount())
			}
			if code, m := send(k.plain(), k.plainAnswer); code != 429 || m != "" {
				t.Errorf("no usable member: status %d, member %q; want 429 without an upstream call", code, m)
			}
			if logs.FilterField(zap.String("key", k.name+"[1]")).Len() == 0 {
				t.Errorf("the refused member is not logged as %s[1]: %v", k.name, logs.All())
			}
			assertNoSecretLogged(t, logs, "k1", "tok-app1", "AKID1", "s1")

			for _, mode := range []struct {
				name string
				req  func() *http.Request
			}{{"translated", k.translated}, {"passthrough", k.passthrough}} {
				t.Run("throttled stream "+mode.name, func(t *testing.T) {
					h := k.handler(t)
					_, m := send2(t, h, k, mode.req(), k.throttled(t))
					if m != "0" {
						t.Fatalf("member %q, want 0", m)
					}
					if u := h.keys.CooledUntil(0); u <= time.Now().UnixNano() {
						t.Errorf("member 0 is not cooling after a rate limit in its stream")
					}
					for range 2 {
						if _, m := send2(t, h, k, k.plain(), k.plainAnswer); m != "1" {
							t.Errorf("member %q while 0 cools, want 1", m)
						}
					}
				})
			}
		})
	}
}

// send2 serves r with h answering answer, and names the pool member the
// upstream request carried.
func send2(t *testing.T, h *Handler, k poolKind, r *http.Request, answer func(w http.ResponseWriter) error) (int, string) {
	t.Helper()
	w, call := serve(t, h, r, answer)
	if !call.called {
		return w.Code, ""
	}
	return w.Code, k.member(call.header)
}

// TestPoolStreamErrorAfterContent checks that only a rate limit before a
// stream's content cools the member: after content, or another error, it
// does not.
func TestPoolStreamErrorAfterContent(t *testing.T) {
	k := poolKinds[0]
	content := "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"model\":\"gpt-5\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hel\"}}]}\n\n"
	overloaded := "data: {\"error\":{\"message\":\"busy\",\"type\":\"server_error\"}}\n\n"
	for _, tc := range []struct{ name, stream string }{
		{"rate limit after content", content + chatRateLimitStream},
		{"server error before content", overloaded},
	} {
		for _, req := range []func() *http.Request{k.translated, k.passthrough} {
			h := k.handler(t)
			if _, m := send2(t, h, k, req(), sseAnswer(tc.stream, 1<<10, nil)); m != "0" {
				t.Fatalf("%s: member %q, want 0", tc.name, m)
			}
			if u := h.keys.CooledUntil(0); u != 0 {
				t.Errorf("%s: member 0 cools", tc.name)
			}
		}
	}
}

// TestPoolStreamRateLimits checks that each upstream family's rate limit
// in a stream before its content cools the pooled key, translated (for a
// Chat client) and passed through (for a client of the upstream's own
// protocol).
func TestPoolStreamRateLimits(t *testing.T) {
	tests := []struct {
		upstream, stream string
		passthrough      func() *http.Request
	}{
		{"anthropic-messages", "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"rate_limit_error\",\"message\":\"slow down\"}}\n\n",
			post("/v1/messages", messagesStreamBody)},
		{"gemini", "data: {\"error\":{\"code\":429,\"message\":\"Resource exhausted\",\"status\":\"RESOURCE_EXHAUSTED\"}}\n\n",
			post("/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse", `{"contents":[{"role":"user","parts":[{"text":"Hi"}]}]}`)},
		{"openai-responses", "event: error\ndata: {\"type\":\"error\",\"code\":\"rate_limit_exceeded\",\"message\":\"slow down\",\"sequence_number\":0}\n\n",
			post("/v1/responses", `{"model":"gpt-5","stream":true,"input":"Hi"}`)},
	}
	member := func(hdr http.Header) string {
		for _, name := range []string{"Authorization", "X-Api-Key", "X-Goog-Api-Key"} {
			if v := strings.TrimPrefix(hdr.Get(name), "Bearer "); v == "k0" || v == "k1" {
				return v[1:]
			}
		}
		return ""
	}
	for _, tc := range tests {
		for _, mode := range []struct {
			name string
			req  func() *http.Request
		}{{"translated", post("/v1/chat/completions", chatStreamBody)}, {"passthrough", tc.passthrough}} {
			t.Run(tc.upstream+" "+mode.name, func(t *testing.T) {
				h := newTestHandler(t, &Handler{Upstream: tc.upstream, APIKeys: []string{"k0", "k1"}})
				k := poolKind{member: member}
				if _, m := send2(t, h, k, mode.req(), sseAnswer(tc.stream, 1<<10, nil)); m != "0" {
					t.Fatalf("member %q, want 0", m)
				}
				if u := h.keys.CooledUntil(0); u <= time.Now().UnixNano() {
					t.Errorf("key 0 is not cooling after a rate limit in its stream")
				}
			})
		}
	}
}
