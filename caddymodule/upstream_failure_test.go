package caddymodule

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// TestUpstreamFailuresReachClientInItsFormat answers a translated,
// non-streamed request with the ways upstreams fail and checks that the
// client always gets an error in its own format with a fitting status.
func TestUpstreamFailuresReachClientInItsFormat(t *testing.T) {
	answer := func(status int, ctype, body string, headers ...string) func(w http.ResponseWriter) error {
		return func(w http.ResponseWriter) error {
			if ctype != "" {
				w.Header().Set("Content-Type", ctype)
			}
			for i := 0; i+1 < len(headers); i += 2 {
				w.Header().Set(headers[i], headers[i+1])
			}
			w.WriteHeader(status)
			_, err := w.Write([]byte(body))
			return err
		}
	}
	tests := []struct {
		name       string
		answer     func(w http.ResponseWriter) error
		wantStatus int
		wantInMsg  string
	}{
		{"200 with an HTML page", answer(200, "text/html", "<html>oops</html>"), 502, "where JSON was expected"},
		{"200 with truncated JSON", answer(200, "application/json", `{"id":"x","choices":[`), 502, "invalid"},
		{"200 with JSON of another shape", answer(200, "application/json", `{"hello":"world"}`), 502, "invalid"},
		{"CDN error page", answer(502, "text/html", "<html><body>Bad gateway from the CDN</body></html>"), 502, "Bad gateway from the CDN"},
		{"503 with no body", answer(503, "", ""), 503, "HTTP 503"},
		{"body still gzip-encoded", answer(200, "application/json", "\x1f\x8b\x08", "Content-Encoding", "gzip"), 502, "Content-Encoding"},
		{"an unexpected redirect", answer(302, "text/html", "", "Location", "https://elsewhere"), 502, "unexpected HTTP status 302"},
		{"200 with an event stream to a JSON request", answer(200, "text/event-stream", "data: {}\n\n"), 502, "where JSON was expected"},
	}
	clients := []struct {
		target, body, errPath string
	}{
		{"/v1/messages", `{"model":"m","max_tokens":5,"messages":[{"role":"user","content":"hi"}]}`, "error.type"},
		{"/v1beta/models/m:generateContent", `{"contents":[{"parts":[{"text":"hi"}]}]}`, "error.status"},
		{"/v1/responses", `{"model":"m","input":"hi"}`, "error.message"},
	}
	for _, tt := range tests {
		for _, c := range clients {
			t.Run(tt.name+" "+c.target, func(t *testing.T) {
				h := newTestHandler(t, &Handler{Upstream: "openai-chat"})
				w, _ := serve(t, h, httptest.NewRequest("POST", c.target, strings.NewReader(c.body)), tt.answer)
				body := w.Body.String()
				if w.Code != tt.wantStatus || !gjson.Get(body, c.errPath).Exists() {
					t.Fatalf("status %d, body %s", w.Code, body)
				}
				if msg := gjson.Get(body, "error.message").Str; !strings.Contains(msg, tt.wantInMsg) {
					t.Errorf("message %q lacks %q", msg, tt.wantInMsg)
				}
				if ct := w.Header().Get("Content-Type"); ct != "application/json" || w.Header().Get("Content-Encoding") != "" {
					t.Errorf("headers %v", w.Header())
				}
			})
		}
	}
}
