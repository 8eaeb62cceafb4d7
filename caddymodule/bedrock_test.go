package caddymodule

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/llmbridge/llmbridge/caddymodule/writers"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"github.com/tidwall/gjson"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/llmbridge/llmbridge/caddymodule/clouds"
	awscloud "github.com/llmbridge/llmbridge/caddymodule/clouds/aws"
	"github.com/llmbridge/llmbridge/caddymodule/observe"
	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/sse/eventstream"
)

// anthropicStream is a complete Messages stream as Anthropic's events.
const anthropicStream = "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"claude-sonnet-4-5-20250929\",\"content\":[],\"stop_reason\":null,\"usage\":{\"input_tokens\":5,\"output_tokens\":1}}}\n\n" +
	"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n" +
	"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Hello\"}}\n\n" +
	"event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n" +
	"event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":3}}\n\n" +
	"event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"

// converseStream is a complete ConverseStream stream as SSE text, an event
// per message.
const converseStream = "event: messageStart\ndata: {\"role\":\"assistant\"}\n\n" +
	"event: contentBlockDelta\ndata: {\"contentBlockIndex\":0,\"delta\":{\"text\":\"Hello\"}}\n\n" +
	"event: contentBlockStop\ndata: {\"contentBlockIndex\":0}\n\n" +
	"event: messageStop\ndata: {\"stopReason\":\"end_turn\"}\n\n" +
	"event: metadata\ndata: {\"usage\":{\"inputTokens\":5,\"outputTokens\":3,\"totalTokens\":8},\"metrics\":{\"latencyMs\":10}}\n\n"

// eventStream returns sse, SSE text, as an AWS event stream of a message
// per event (ConverseStream's).
func eventStream(t *testing.T, sse string) string {
	t.Helper()
	b, err := eventstream.NewWriter(1<<20).Push(nil, []byte(sse))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// chunkStream returns sse, SSE text, as Bedrock's InvokeModel event
// stream; cut drops that many bytes from the end.
func chunkStream(t *testing.T, sse string, cut int) string {
	t.Helper()
	b, err := eventstream.NewChunkWriter(1<<20).Push(nil, []byte(sse))
	if err != nil {
		t.Fatal(err)
	}
	return string(b[:len(b)-cut])
}

// awsStreamAnswer answers with body as an AWS event stream, in writes of
// chunk bytes.
func awsStreamAnswer(body string, chunk int) func(w http.ResponseWriter) error {
	return func(w http.ResponseWriter) error {
		w.Header().Set("Content-Type", eventstream.ContentType)
		w.WriteHeader(200)
		for i := 0; i < len(body); i += chunk {
			if _, err := io.WriteString(w, body[i:min(i+chunk, len(body))]); err != nil {
				return err
			}
		}
		return nil
	}
}

// clientEvents reads a Bedrock client's event stream into SSE text.
func clientEvents(t *testing.T, body []byte) string {
	t.Helper()
	sse, err := eventstream.NewChunkReader(1<<20).Push(nil, body)
	if err != nil {
		t.Fatalf("the client's event stream: %v", err)
	}
	return string(sse)
}

// TestBedrockStreams runs streams through every edge the framing layer
// has: an upstream's event stream translated for an SSE client and passed
// through to one, an SSE upstream translated and passed through for a
// Bedrock client, in writes of every size, complete, cut short, and ended
// by an exception.
func TestBedrockStreams(t *testing.T) {
	bedrockBody := `{"anthropic_version":"bedrock-2023-05-31","max_tokens":10,"messages":[{"role":"user","content":"hi"}]}`
	exception := string(eventstream.AppendMessage(nil, "exception:throttlingException", []byte(`{"message":"Too many requests"}`)))
	tests := []struct {
		name, upstream, target, body string
		answer                       func(t *testing.T) func(w http.ResponseWriter) error
		// want are the client's events in order; wantErr is in its
		// final error event.
		bedrockClient, converseClient bool
		want                          []string
		wantErr                       string
	}{
		{name: "bedrock upstream, chat client (translated)", upstream: "bedrock-anthropic", target: "/v1/chat/completions",
			body: `{"model":"anthropic.claude-sonnet-4-5-20250929-v1:0","stream":true,"messages":[{"role":"user","content":"hi"}]}`,
			answer: func(t *testing.T) func(w http.ResponseWriter) error {
				return awsStreamAnswer(chunkStream(t, anthropicStream, 0), 7)
			},
			want: []string{"Hello", "[DONE]"}},
		{name: "bedrock upstream, anthropic client (passthrough)", upstream: "bedrock-anthropic", target: "/v1/messages",
			body: `{"model":"anthropic.claude-sonnet-4-5-20250929-v1:0","max_tokens":10,"stream":true,"messages":[{"role":"user","content":"hi"}]}`,
			answer: func(t *testing.T) func(w http.ResponseWriter) error {
				return awsStreamAnswer(chunkStream(t, anthropicStream, 0), 5)
			},
			want: []string{"message_start", "Hello", "message_stop"}},
		{name: "bedrock upstream cut within a message (translated)", upstream: "bedrock-anthropic", target: "/v1/chat/completions",
			body: `{"model":"anthropic.claude-sonnet-4-5-20250929-v1:0","stream":true,"messages":[{"role":"user","content":"hi"}]}`,
			answer: func(t *testing.T) func(w http.ResponseWriter) error {
				return awsStreamAnswer(chunkStream(t, anthropicStream, 9), 64)
			},
			want: []string{"Hello"}, wantErr: "ended before it was complete"},
		{name: "bedrock upstream cut within a message (passthrough)", upstream: "bedrock-anthropic", target: "/v1/messages",
			body: `{"model":"anthropic.claude-sonnet-4-5-20250929-v1:0","max_tokens":10,"stream":true,"messages":[{"role":"user","content":"hi"}]}`,
			answer: func(t *testing.T) func(w http.ResponseWriter) error {
				return awsStreamAnswer(chunkStream(t, anthropicStream, 9), 64)
			},
			want: []string{"message_start", "Hello"}, wantErr: "ended before it was complete"},
		{name: "bedrock upstream exception (passthrough to anthropic)", upstream: "bedrock-anthropic", target: "/v1/messages",
			body: `{"model":"anthropic.claude-sonnet-4-5-20250929-v1:0","max_tokens":10,"stream":true,"messages":[{"role":"user","content":"hi"}]}`,
			answer: func(t *testing.T) func(w http.ResponseWriter) error {
				return awsStreamAnswer(chunkStream(t, anthropicStream[:strings.Index(anthropicStream, "event: content_block_stop")], 0)+exception, 11)
			},
			want: []string{"Hello", "rate_limit_error"}, wantErr: "Too many requests"},
		{name: "garbage in the event stream", upstream: "bedrock-anthropic", target: "/v1/chat/completions",
			body: `{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}]}`,
			answer: func(t *testing.T) func(w http.ResponseWriter) error {
				return awsStreamAnswer("<html>502 Bad Gateway</html>", 100)
			},
			want: nil, wantErr: "not a valid event stream"},
		{name: "converse upstream, chat client (translated)", upstream: "bedrock", target: "/v1/chat/completions",
			body: `{"model":"amazon.nova-pro-v1:0","stream":true,"messages":[{"role":"user","content":"hi"}]}`,
			answer: func(t *testing.T) func(w http.ResponseWriter) error {
				return awsStreamAnswer(eventStream(t, converseStream), 6)
			},
			want: []string{"Hello", "[DONE]"}},
		{name: "converse upstream, converse client (passthrough)", upstream: "bedrock", target: "/model/amazon.nova-pro-v1:0/converse-stream",
			body: `{"messages":[{"role":"user","content":[{"text":"hi"}]}]}`, converseClient: true,
			answer: func(t *testing.T) func(w http.ResponseWriter) error {
				return awsStreamAnswer(eventStream(t, converseStream), 6)
			},
			want: []string{"messageStart", "Hello", "messageStop", "metadata"}},
		{name: "chat upstream, converse client (translated)", upstream: "openai-chat", target: "/model/amazon.nova-pro-v1:0/converse-stream",
			body: `{"messages":[{"role":"user","content":[{"text":"hi"}]}]}`, converseClient: true,
			answer: func(t *testing.T) func(w http.ResponseWriter) error { return sseAnswer(chatStream, 9, nil) },
			want:   []string{"messageStart", "messageStop", "metadata", `"metrics":{"latencyMs":`}},
		{name: "anthropic upstream, bedrock client (passthrough)", upstream: "anthropic-messages", target: "/model/anthropic.claude-sonnet-4-5-20250929-v1:0/invoke-with-response-stream",
			body: bedrockBody, bedrockClient: true,
			answer: func(t *testing.T) func(w http.ResponseWriter) error { return sseAnswer(anthropicStream, 13, nil) },
			want:   []string{"message_start", "Hello", `"type":"message_stop","amazon-bedrock-invocationMetrics":{"inputTokenCount":`}},
		{name: "chat upstream, bedrock client (translated)", upstream: "openai-chat", target: "/model/anthropic.claude-sonnet-4-5-20250929-v1:0/invoke-with-response-stream",
			body: bedrockBody, bedrockClient: true,
			answer: func(t *testing.T) func(w http.ResponseWriter) error { return sseAnswer(chatStream, 9, nil) },
			want:   []string{"message_start", `"type":"message_stop","amazon-bedrock-invocationMetrics":{"inputTokenCount":`}},
		{name: "chat upstream broken, bedrock client: the exception its SDK raises", upstream: "openai-chat", target: "/model/m/invoke-with-response-stream",
			body: bedrockBody, bedrockClient: true,
			answer: func(t *testing.T) func(w http.ResponseWriter) error {
				return sseAnswer(chatStream[:strings.Index(chatStream, "data: [DONE]")-60], 9, errors.New("reset"))
			},
			want: []string{"message_start", "exception:"}, wantErr: "broke off"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newTestHandler(t, bedrockTestHandler(tt.upstream, "k"))
			r := httptest.NewRequest("POST", tt.target, strings.NewReader(tt.body))
			w, call := serve(t, h, r, tt.answer(t))
			if !call.called {
				t.Fatalf("no upstream call: %d %s", w.Code, w.Body)
			}
			out := w.Body.String()
			wantType := "text/event-stream"
			switch {
			case tt.bedrockClient:
				wantType = eventstream.ContentType
				out = clientEvents(t, w.Body.Bytes())
			case tt.converseClient:
				wantType = eventstream.ContentType
				sse, err := eventstream.NewReader(1<<20).Push(nil, w.Body.Bytes())
				if err != nil {
					t.Fatalf("the client's event stream: %v", err)
				}
				out = string(sse)
			}
			if ct := w.Header().Get("Content-Type"); !strings.HasPrefix(ct, wantType) {
				t.Errorf("Content-Type %q, want %s", ct, wantType)
			}
			at := 0
			for _, s := range tt.want {
				i := strings.Index(out[at:], s)
				if i < 0 {
					t.Fatalf("the client's stream lacks %q after byte %d:\n%s", s, at, out)
				}
				at += i + len(s)
			}
			if tt.wantErr != "" && !strings.Contains(out[at:], tt.wantErr) && !strings.Contains(out, tt.wantErr) {
				t.Errorf("the client's stream does not end with an error saying %q:\n%s", tt.wantErr, out)
			}
			if tt.wantErr == "" && (strings.Contains(out, "exception:") || strings.Contains(out, `"error"`)) {
				t.Errorf("an error in a complete stream:\n%s", out)
			}
		})
	}
}

// TestBedrockMetrics checks the invocation metrics a Bedrock InvokeModel
// client gets from an upstream that measures none: in the headers of a
// non-streamed answer, translated or from Anthropic (the sibling passed
// through), with the answer's usage (input without cached tokens) and a
// latency of at least 1 ms; and in the last chunk of a stream.
func TestBedrockMetrics(t *testing.T) {
	const bedrockBody = `{"anthropic_version":"bedrock-2023-05-31","max_tokens":10,"messages":[{"role":"user","content":"hi"}]}`
	const chatJSON = `{"id":"c","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"Hi"},"finish_reason":"stop"}],` +
		`"usage":{"prompt_tokens":30,"completion_tokens":7,"total_tokens":37,"prompt_tokens_details":{"cached_tokens":10}}}`
	const anthropicJSON = `{"id":"msg_1","type":"message","role":"assistant","model":"m","content":[{"type":"text","text":"Hi"}],"stop_reason":"end_turn",` +
		`"usage":{"input_tokens":20,"cache_read_input_tokens":10,"cache_creation_input_tokens":0,"output_tokens":7}}`
	for _, tc := range []struct{ upstream, answer string }{{"openai-chat", chatJSON}, {"anthropic-messages", anthropicJSON}} {
		h := newTestHandler(t, bedrockTestHandler(tc.upstream, "k"))
		r := httptest.NewRequest("POST", "/model/anthropic.claude-sonnet-4-5-20250929-v1:0/invoke", strings.NewReader(bedrockBody))
		w, _ := serve(t, h, r, jsonAnswer(200, tc.answer))
		hdr := w.Header()
		latency, err := strconv.Atoi(hdr.Get("X-Amzn-Bedrock-Invocation-Latency"))
		if w.Code != 200 || hdr.Get("X-Amzn-Bedrock-Input-Token-Count") != "20" || hdr.Get("X-Amzn-Bedrock-Output-Token-Count") != "7" ||
			err != nil || latency < 1 {
			t.Errorf("%s: %d %v", tc.upstream, w.Code, hdr)
		}
	}
	// Other clients get none.
	h := newTestHandler(t, bedrockTestHandler("openai-chat", "k"))
	w, _ := serve(t, h, httptest.NewRequest("POST", "/v1/messages", strings.NewReader(`{"model":"m","max_tokens":5,"messages":[{"role":"user","content":"hi"}]}`)), jsonAnswer(200, chatJSON))
	if v := w.Header().Get("X-Amzn-Bedrock-Input-Token-Count"); v != "" {
		t.Errorf("an Anthropic client got Bedrock's header %q", v)
	}

	var x observe.Exchange
	if lat := x.Latency(); lat != (codec.Latency{}) {
		t.Errorf("latency of a request never sent: %+v", lat)
	}
	x.UpstreamSent = time.Now().Add(-1500 * time.Microsecond)
	if lat := x.Latency(); lat.FirstByteMs != lat.InvocationMs || lat.InvocationMs < 2 {
		t.Errorf("latency without an answer yet: %+v, want both the time since sending, rounded up", lat)
	}
	x.UpstreamStart = x.UpstreamSent.Add(time.Microsecond)
	if lat := x.Latency(); lat.FirstByteMs != 1 || lat.InvocationMs < 2 {
		t.Errorf("latency with a header after 1µs: %+v, want 1 ms to the first byte", lat)
	}
}

// TestBedrockUpstreamRequests checks what goes to a Bedrock upstream: the
// escaped InvokeModel path, a body without model or stream with Bedrock's
// version and the betas Bedrock takes, and a Bedrock API key as a bearer
// token; and that betas go back to the header toward Anthropic.
func TestBedrockUpstreamRequests(t *testing.T) {
	answer := `{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5-20250929","content":[{"type":"text","text":"hi"}],"stop_reason":"end_turn","usage":{"input_tokens":1,"output_tokens":1}}`
	tests := []struct {
		name, upstream, target, body string
		betas                        string
		wantPath, wantBetaHeader     string
		wantBody                     map[string]string // gjson path -> raw JSON, "" for absent
	}{
		{"anthropic client to bedrock: sibling edits, betas into the body", "bedrock-anthropic", "/v1/messages",
			`{"model":"us.anthropic.claude-sonnet-4-5-20250929-v1:0","max_tokens":10,"stream":false,"messages":[{"role":"user","content":"hi"}]}`,
			"claude-code-20250219,interleaved-thinking-2025-05-14",
			"/model/us.anthropic.claude-sonnet-4-5-20250929-v1%3A0/invoke", "",
			map[string]string{"model": "", "stream": "", "anthropic_version": `"bedrock-2023-05-31"`, "anthropic_beta": `["interleaved-thinking-2025-05-14"]`}},
		{"bedrock client to anthropic: betas into the header, vendor model", "anthropic-messages", "/model/us.anthropic.claude-sonnet-4-5-20250929-v1:0/invoke",
			`{"anthropic_version":"bedrock-2023-05-31","anthropic_beta":["interleaved-thinking-2025-05-14"],"max_tokens":10,"messages":[{"role":"user","content":"hi"}]}`,
			"",
			"/v1/messages", "interleaved-thinking-2025-05-14",
			map[string]string{"model": `"claude-sonnet-4-5-20250929"`, "anthropic_beta": "", "anthropic_version": ""}},
		{"an inference profile ARN as the model: one escaped segment", "bedrock-anthropic", "/v1/chat/completions",
			`{"model":"arn:aws:bedrock:us-east-1:123456789012:application-inference-profile/abc123","messages":[{"role":"user","content":"hi"}]}`, "",
			"/model/arn%3Aaws%3Abedrock%3Aus-east-1%3A123456789012%3Aapplication-inference-profile%2Fabc123/invoke", "",
			map[string]string{"model": ""}},
		{"chat client to bedrock: translated", "bedrock-anthropic", "/v1/chat/completions",
			`{"model":"anthropic.claude-haiku-4-5-20251001-v1:0","messages":[{"role":"user","content":"hi"}]}`, "",
			"/model/anthropic.claude-haiku-4-5-20251001-v1%3A0/invoke", "",
			map[string]string{"model": "", "stream": "", "anthropic_version": `"bedrock-2023-05-31"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newTestHandler(t, bedrockTestHandler(tt.upstream, "bedrock-api-key"))
			r := httptest.NewRequest("POST", tt.target, strings.NewReader(tt.body))
			if tt.betas != "" {
				r.Header.Set("Anthropic-Beta", tt.betas)
			}
			w, call := serve(t, h, r, jsonAnswer(200, answer))
			if w.Code != 200 {
				t.Fatalf("status %d: %s", w.Code, w.Body)
			}
			if got := call.escapedPath; got != tt.wantPath {
				t.Errorf("upstream path %s, want %s", got, tt.wantPath)
			}
			if got := call.header.Get("Anthropic-Beta"); got != tt.wantBetaHeader {
				t.Errorf("upstream Anthropic-Beta %q, want %q", got, tt.wantBetaHeader)
			}
			for path, want := range tt.wantBody {
				if got := gjson.Get(call.body, path).Raw; got != want {
					t.Errorf("upstream body %s = %s, want %q; body %s", path, got, want, call.body)
				}
			}
			if strings.HasPrefix(tt.upstream, "bedrock") && call.header.Get("Authorization") != "Bearer bedrock-api-key" {
				t.Errorf("Authorization %q, want the Bedrock API key as a bearer token", call.header.Get("Authorization"))
			}
		})
	}
}

// TestBedrockErrors checks AWS errors both ways: an upstream's type in
// X-Amzn-Errortype reaches an OpenAI client as its kind, an AWS error body
// reaches an Anthropic client of a Bedrock passthrough in Anthropic's
// format, and a Bedrock client gets {"message","__type"} without an
// upstream's stale type header.
func TestBedrockErrors(t *testing.T) {
	awsError := jsonAnswer(429, `{"message":"Too many tokens, please wait."}`, "X-Amzn-Errortype", "ThrottlingException:http://internal.amazon.com/coral/com.amazon.bedrock/")
	tests := []struct {
		name, upstream, target, body string
		answer                       func(w http.ResponseWriter) error
		wantStatus                   int
		want                         map[string]string
		wantNoHeader                 bool
	}{
		{"bedrock to chat", "bedrock-anthropic", "/v1/chat/completions", `{"model":"m","messages":[{"role":"user","content":"hi"}]}`,
			awsError, 429, map[string]string{"error.type": "rate_limit_error", "error.message": "Too many tokens, please wait."}, false},
		{"bedrock to anthropic (passthrough)", "bedrock-anthropic", "/v1/messages", `{"model":"m","max_tokens":5,"messages":[{"role":"user","content":"hi"}]}`,
			awsError, 429, map[string]string{"error.type": "rate_limit_error", "error.message": "Too many tokens, please wait."}, true},
		{"bedrock to bedrock client: the upstream's own type", "bedrock-anthropic", "/model/m/invoke",
			`{"anthropic_version":"bedrock-2023-05-31","max_tokens":5,"messages":[{"role":"user","content":"hi"}]}`,
			awsError, 429, nil, false},
		{"anthropic 529 to a bedrock client: 503, ServiceUnavailableException", "anthropic-messages", "/model/m/invoke",
			`{"anthropic_version":"bedrock-2023-05-31","max_tokens":5,"messages":[{"role":"user","content":"hi"}]}`,
			jsonAnswer(529, `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`), 503,
			map[string]string{"__type": "ServiceUnavailableException", "message": "Overloaded"}, true},
		{"chat 400 to a bedrock client", "openai-chat", "/model/m/invoke",
			`{"anthropic_version":"bedrock-2023-05-31","max_tokens":5,"messages":[{"role":"user","content":"hi"}]}`,
			jsonAnswer(400, `{"error":{"message":"bad","type":"invalid_request_error","param":null,"code":null}}`, "X-Amzn-Errortype", "Stale"), 400,
			map[string]string{"__type": "ValidationException", "message": "bad"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newTestHandler(t, bedrockTestHandler(tt.upstream, "k"))
			w, _ := serve(t, h, httptest.NewRequest("POST", tt.target, strings.NewReader(tt.body)), tt.answer)
			if w.Code != tt.wantStatus {
				t.Fatalf("status %d, want %d: %s", w.Code, tt.wantStatus, w.Body)
			}
			for path, want := range tt.want {
				if got := gjson.Get(w.Body.String(), path).Str; got != want {
					t.Errorf("%s = %q, want %q; body %s", path, got, want, w.Body)
				}
			}
			if tt.wantNoHeader && w.Header().Get("X-Amzn-Errortype") != "" {
				t.Errorf("X-Amzn-Errortype %q survived a translated error", w.Header().Get("X-Amzn-Errortype"))
			}
		})
	}
	// The AWS error's type header alone decides the kind.
	e := writers.DecodeUpstreamError(codec.BedrockAnthropic, 400, http.Header{"X-Amzn-Errortype": {"ThrottlingException"}}, []byte(`{"message":"x"}`))
	if e.Code != "ThrottlingException" || e.Message != "x" {
		t.Errorf("decodeUpstreamError: %+v", e)
	}
}

// bedrockTestHandler is a handler for upstream with api_key key, and the
// region a Bedrock upstream requires.
func bedrockTestHandler(upstream, key string) *Handler {
	h := &Handler{Upstream: upstream, APIKey: key}
	if strings.HasPrefix(upstream, "bedrock") {
		h.CloudRaw = awsCloud("us-east-1")
	}
	return h
}

// TestAWSSigning checks the SigV4 signature of a request to a Bedrock
// upstream without api_key: credentials from the environment, the region's
// endpoint as Host, only Content-Type and Host signed beside SigV4's own
// headers, a signature that verifies, and no signature header of the
// client's reaching any upstream. Credentials that cannot be obtained
// answer 502 without an upstream call.
func TestAWSSigning(t *testing.T) {
	t.Setenv("AWS_ACCESS_KEY_ID", "AKIDTEST")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "secret")
	t.Setenv("AWS_SESSION_TOKEN", "session")
	t.Setenv("AWS_CONFIG_FILE", os.DevNull)
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", os.DevNull)
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	answer := `{"id":"msg_1","type":"message","role":"assistant","model":"m","content":[{"type":"text","text":"hi"}],"stop_reason":"end_turn","usage":{"input_tokens":1,"output_tokens":1}}`
	h := newTestHandler(t, &Handler{Upstream: "bedrock-anthropic", CloudRaw: awsCloud("eu-west-3")})
	r := httptest.NewRequest("POST", "/v1/chat/completions", strings.NewReader(`{"model":"eu.anthropic.claude-sonnet-4-5-20250929-v1:0","messages":[{"role":"user","content":"hi"}]}`))
	r.Header.Set("Authorization", "Bearer client-key")
	r.Header.Set("X-Amz-Security-Token", "the-clients-token")
	w, call := serve(t, h, r, jsonAnswer(200, answer))
	body := []byte(call.body)
	if w.Code != 200 {
		t.Fatalf("status %d: %s", w.Code, w.Body)
	}
	auth := call.header.Get("Authorization")
	if !strings.HasPrefix(auth, "AWS4-HMAC-SHA256 Credential=AKIDTEST/") || !strings.Contains(auth, "/eu-west-3/bedrock/aws4_request") ||
		!strings.Contains(auth, "SignedHeaders=content-type;host;x-amz-date;x-amz-security-token,") {
		t.Fatalf("Authorization %q", auth)
	}
	if call.host != "bedrock-runtime.eu-west-3.amazonaws.com" || call.header.Get("X-Amz-Security-Token") != "session" {
		t.Errorf("Host %q, X-Amz-Security-Token %q", call.host, call.header.Get("X-Amz-Security-Token"))
	}
	// Caddy finds a host-scoped access logger by the request's Host after
	// the handler: the client's must be back.
	logged := httptest.NewRequest("POST", "/v1/chat/completions", strings.NewReader(`{"model":"eu.anthropic.claude-sonnet-4-5-20250929-v1:0","messages":[{"role":"user","content":"hi"}]}`))
	ctx := context.WithValue(logged.Context(), caddy.ReplacerCtxKey, caddy.NewReplacer())
	logged = logged.WithContext(context.WithValue(ctx, caddyhttp.VarsCtxKey, map[string]any{}))
	serveNext(t, h, logged, caddyhttp.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) error {
		return jsonAnswer(200, answer)(w)
	}))
	if logged.Host != "example.com" {
		t.Errorf("after the request its Host is %q, want the client's", logged.Host)
	}
	// Sign the same request again at the same time: the signatures agree.
	at, err := time.Parse("20060102T150405Z", call.header.Get("X-Amz-Date"))
	if err != nil {
		t.Fatal(err)
	}
	again, _ := http.NewRequest("POST", "https://"+call.host+call.escapedPath, nil)
	again.Header.Set("Content-Type", call.header.Get("Content-Type"))
	sum := sha256.Sum256(body)
	creds := aws.Credentials{AccessKeyID: "AKIDTEST", SecretAccessKey: "secret", SessionToken: "session"}
	if err := v4.NewSigner().SignHTTP(context.Background(), creds, again, hex.EncodeToString(sum[:]), "bedrock", "eu-west-3", at); err != nil {
		t.Fatal(err)
	}
	if again.Header.Get("Authorization") != auth {
		t.Errorf("the signature does not verify:\n got %s\nwant %s", auth, again.Header.Get("Authorization"))
	}

	// A SigV4 client's signature headers never reach another upstream.
	o := newTestHandler(t, &Handler{Upstream: "openai-chat", APIKey: "k"})
	r = httptest.NewRequest("POST", "/model/m/invoke", strings.NewReader(`{"anthropic_version":"bedrock-2023-05-31","max_tokens":5,"messages":[{"role":"user","content":"hi"}]}`))
	r.Header.Set("Authorization", "AWS4-HMAC-SHA256 Credential=AKIDCLIENT/20261202/us-east-1/bedrock/aws4_request, SignedHeaders=host, Signature=00")
	r.Header.Set("X-Amz-Security-Token", "the-clients-token")
	r.Header.Set("X-Amz-Date", "20261202T000000Z")
	_, call = serve(t, o, r, jsonAnswer(200, `{"id":"c","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"hi"},"finish_reason":"stop"}]}`))
	for _, name := range []string{"X-Amz-Security-Token", "X-Amz-Date"} {
		if v := call.header.Get(name); v != "" {
			t.Errorf("the client's %s reached the upstream: %q", name, v)
		}
	}
	if call.header.Get("Authorization") != "Bearer k" {
		t.Errorf("Authorization %q, want the configured key", call.header.Get("Authorization"))
	}

	// No credentials anywhere: 502, no upstream call.
	t.Setenv("AWS_ACCESS_KEY_ID", "")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "")
	t.Setenv("AWS_SESSION_TOKEN", "")
	t.Setenv("AWS_CONTAINER_CREDENTIALS_RELATIVE_URI", "")
	t.Setenv("AWS_WEB_IDENTITY_TOKEN_FILE", "")
	n := newTestHandler(t, &Handler{Upstream: "bedrock", CloudRaw: awsCloud("us-east-1")})
	r = httptest.NewRequest("POST", "/v1/chat/completions", strings.NewReader(`{"model":"amazon.nova-pro-v1:0","messages":[{"role":"user","content":"hi"}]}`))
	w, call = serve(t, n, r, jsonAnswer(200, "{}"))
	if w.Code != http.StatusBadGateway || call.called || !strings.Contains(w.Body.String(), "could not obtain AWS credentials") {
		t.Errorf("without credentials: %d, upstream called %v: %s", w.Code, call.called, w.Body)
	}
}

// TestSignatureRejectedHint checks that a Bedrock upstream's rejection of
// the signature is logged with the Host to send.
func TestSignatureRejectedHint(t *testing.T) {
	t.Setenv("AWS_ACCESS_KEY_ID", "AKIDTEST")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "secret")
	t.Setenv("AWS_CONFIG_FILE", os.DevNull)
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", os.DevNull)
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	core, logs := observer.New(zap.WarnLevel)
	for _, target := range []string{"/v1/chat/completions", "/v1/messages"} {
		h := newTestHandler(t, &Handler{Upstream: "bedrock-anthropic", CloudRaw: awsCloud("us-west-2")})
		h.setLogger(zap.New(core))
		body := `{"model":"m","max_tokens":5,"messages":[{"role":"user","content":"hi"}]}`
		w, _ := serve(t, h, httptest.NewRequest("POST", target, strings.NewReader(body)),
			jsonAnswer(403, `{"message":"The request signature we calculated does not match the signature you provided."}`,
				"X-Amzn-Errortype", "InvalidSignatureException:http://internal.amazon.com/coral/com.amazon.coral.service/"))
		if w.Code != 403 {
			t.Errorf("%s: status %d", target, w.Code)
		}
	}
	// A FIPS endpoint is signed for as configured.
	h := newTestHandler(t, &Handler{Upstream: "bedrock", CloudRaw: clouds.Raw(&awscloud.Cloud{Region: "us-east-1", Host: "bedrock-runtime-fips.us-east-1.amazonaws.com"})})
	_, call := serve(t, h, httptest.NewRequest("POST", "/v1/chat/completions", strings.NewReader(`{"model":"amazon.nova-pro-v1:0","messages":[{"role":"user","content":"hi"}]}`)),
		jsonAnswer(200, `{"output":{"message":{"role":"assistant","content":[{"text":"hi"}]}},"stopReason":"end_turn","usage":{"inputTokens":1,"outputTokens":1,"totalTokens":2}}`))
	if call.host != "bedrock-runtime-fips.us-east-1.amazonaws.com" || !strings.Contains(call.header.Get("Authorization"), "/us-east-1/bedrock/aws4_request") {
		t.Errorf("aws_host: Host %q, Authorization %q", call.host, call.header.Get("Authorization"))
	}
	hints := logs.FilterMessageSnippet("rejected the request's signature").All()
	if len(hints) != 2 || hints[0].ContextMap()["fix"] != "header_up Host bedrock-runtime.us-west-2.amazonaws.com" {
		t.Errorf("hints: %+v", hints)
	}
}

// TestStreamExceptionNames holds the names the framing layer gives AWS
// exception and error messages to the ones the codecs read.
func TestStreamExceptionNames(t *testing.T) {
	for _, p := range []codec.Protocol{codec.Bedrock, codec.BedrockAnthropic} {
		if e := codec.DecodeFramingError(p, eventstream.ExceptionPrefix+"throttlingException", `{"message":"slow"}`); e == nil || e.Code != "ThrottlingException" || e.Message != "slow" {
			t.Errorf("%s: eventstream names exceptions %q; the codec reads %+v", p, eventstream.ExceptionPrefix, e)
		}
		if e := codec.DecodeFramingError(p, eventstream.ErrorPrefix+"InternalFailure", "broke"); e == nil || e.Code != "InternalFailure" || e.Message != "broke" {
			t.Errorf("%s: eventstream names errors %q; the codec reads %+v", p, eventstream.ErrorPrefix, e)
		}
	}
}
