package caddytest

import (
	"bytes"
	"io"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/tidwall/gjson"
)

// rawHTTP is the plain net/http client for tests that must control the bytes
// exactly.
var rawHTTP = &http.Client{Timeout: callTimeout, Transport: &http.Transport{DisableCompression: true, MaxIdleConnsPerHost: 8, IdleConnTimeout: 30 * time.Second}}

// rawResponse is a response read in full.
type rawResponse struct {
	Status int
	Header http.Header
	Body   []byte
}

// newClientRequest builds a request of client protocol p for model with the
// client's credential in p's own scheme.
func newClientRequest(t *testing.T, method, base string, p proto, model string, body []byte) *http.Request {
	t.Helper()
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequest(method, base+p.clientPath(model), rd)
	if err != nil {
		t.Fatalf("building a %s request: %v", p, err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	setClientCredential(req, p, clientKey)
	return req
}

// setClientCredential puts key in the credential scheme a client of p uses.
func setClientCredential(req *http.Request, p proto, key string) {
	switch p.credentialScheme() {
	case "x-api-key":
		req.Header.Set("X-Api-Key", key)
		req.Header.Set("Anthropic-Version", "2023-06-01")
	case "x-goog-api-key":
		req.Header.Set("X-Goog-Api-Key", key)
	default:
		req.Header.Set("Authorization", "Bearer "+key)
	}
}

// do sends req and reads the whole response.
func do(t *testing.T, req *http.Request) rawResponse {
	t.Helper()
	resp, err := rawHTTP.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: reading the response: %v", req.Method, req.URL, err)
	}
	return rawResponse{Status: resp.StatusCode, Header: resp.Header, Body: b}
}

// minimalBody is a small valid non-streaming request of client protocol p
// for model (which protocols with the model in the path leave out).
func minimalBody(p proto, model string) []byte {
	switch p {
	case openaiChat:
		return []byte(`{"model":"` + model + `","messages":[{"role":"user","content":"Hi"}],"max_completion_tokens":16}`)
	case openaiResponses:
		return []byte(`{"model":"` + model + `","input":"Hi","max_output_tokens":16}`)
	case anthropicMsgs:
		return []byte(`{"model":"` + model + `","max_tokens":16,"messages":[{"role":"user","content":"Hi"}]}`)
	case vertexAnthropic:
		return []byte(`{"anthropic_version":"` + vertexAnthropicVersion + `","max_tokens":16,"messages":[{"role":"user","content":"Hi"}]}`)
	case bedrockAnthropic:
		return []byte(`{"anthropic_version":"` + bedrockAnthropicVersion + `","max_tokens":16,"messages":[{"role":"user","content":"Hi"}]}`)
	case bedrockConverse:
		return []byte(`{"messages":[{"role":"user","content":[{"text":"Hi"}]}],"inferenceConfig":{"maxTokens":16}}`)
	case gemini, vertex:
		return []byte(`{"contents":[{"role":"user","parts":[{"text":"Hi"}]}],"generationConfig":{"maxOutputTokens":16}}`)
	case geminiInteractions, vertexInteractions:
		return []byte(`{"model":"` + model + `","input":[{"type":"user_input","content":[{"type":"text","text":"Hi"}]}],"generation_config":{"max_output_tokens":16}}`)
	}
	panic("unknown protocol " + string(p))
}

// assertErrorFormat checks that body is an error of HTTP status in client
// protocol p's own format.
func assertErrorFormat(t *testing.T, what string, p proto, status int, resp rawResponse) {
	t.Helper()
	if resp.Status != status {
		t.Errorf("%s: HTTP status %d, want %d; body %s", what, resp.Status, status, resp.Body)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" && !bytes.HasPrefix([]byte(ct), []byte("application/json;")) {
		t.Errorf("%s: Content-Type %q, want application/json", what, ct)
	}
	if !gjson.ValidBytes(resp.Body) {
		t.Errorf("%s: error body is not JSON: %q", what, resp.Body)
		return
	}
	root := gjson.ParseBytes(resp.Body)
	isString := func(path string) bool { return root.Get(path).Type == gjson.String && root.Get(path).Str != "" }
	switch {
	case p.isAWS():
		// The type is in __type or, as Bedrock itself sends it, in
		// X-Amzn-Errortype.
		if !isString("message") || !isString("__type") && resp.Header.Get("X-Amzn-Errortype") == "" {
			t.Errorf("%s: want an AWS error {\"message\",\"__type\"} or {\"message\"} with X-Amzn-Errortype, got %s", what, resp.Body)
		}
	case p.isAnthropic():
		if root.Get("type").Str != "error" || !isString("error.type") || !isString("error.message") {
			t.Errorf("%s: want an Anthropic error {\"type\":\"error\",\"error\":{\"type\",\"message\"}}, got %s", what, resp.Body)
		}
	case p.isGoogle():
		if root.Get("error.code").Int() != int64(status) || !isString("error.message") || !isString("error.status") {
			t.Errorf("%s: want a Google error {\"error\":{\"code\":%d,\"message\",\"status\"}}, got %s", what, status, resp.Body)
		}
	case p.isInteractions():
		// The Interactions API's error names its status in a string code.
		if !interactionsCodeFits(root.Get("error.code").Str, status) || !isString("error.message") {
			t.Errorf("%s: want an Interactions error {\"error\":{\"code\":%q,\"message\"}}, got %s", what, googleStatusName(status), resp.Body)
		}
	default:
		if !isString("error.message") || !isString("error.type") || !root.Get("error.param").Exists() || !root.Get("error.code").Exists() {
			t.Errorf("%s: want an OpenAI error {\"error\":{\"message\",\"type\",\"param\",\"code\"}}, got %s", what, resp.Body)
		}
	}
}

// itoa is strconv.Itoa, for brevity in names.
func itoa(n int) string { return strconv.Itoa(n) }
