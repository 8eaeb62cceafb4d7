package probe

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/llmbridge/llmbridge/codec"
	_ "github.com/llmbridge/llmbridge/codec/all"
)

// passOn is a handler that sends every request on as it is, as the
// llmbridge handler does for a first-party client of its upstream.
type passOn struct{}

func (passOn) ServeHTTP(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler) error {
	return next.ServeHTTP(w, r)
}

// TestRun sends the probes of a Chat upstream through a handler to a
// server that refuses stop sequences: the report lists them refused, the
// others accepted, and counts what was spent; a refused baseline ends the
// run with an error naming what to check.
func TestRun(t *testing.T) {
	refuse := "stop"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		if refuse == "" || strings.Contains(string(b), `"`+refuse+`"`) {
			w.WriteHeader(http.StatusBadRequest)
			_, _ = io.WriteString(w, `{"error":{"message":"Unsupported parameter: 'stop' is not supported with this model.\nsecond line","type":"invalid_request_error"}}`)
			return
		}
		_, _ = io.WriteString(w, `{"id":"c","object":"chat.completion","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"ok"},"finish_reason":"stop"}],"usage":{"prompt_tokens":5,"completion_tokens":1,"total_tokens":6}}`)
	}))
	defer srv.Close()
	target, _ := url.Parse(srv.URL)
	site := Site{Handler: passOn{}, Upstream: codec.OpenAIChat, Provider: "openai"}
	var out bytes.Buffer
	rep, err := Run(context.Background(), site, target, "m-1", 5*time.Second, &out)
	if err != nil {
		t.Fatal(err)
	}
	refused := 0
	for _, r := range rep.Results {
		if !r.Accepted {
			refused++
			if !strings.Contains(r.Message, "'stop'") {
				t.Errorf("refusal %+v", r)
			}
		}
	}
	if refused == 0 || rep.Requests != int64(len(rep.Results)) || rep.InputTokens != 5*(rep.Requests-int64(refused)) {
		t.Errorf("report %+v", rep)
	}
	if !strings.Contains(out.String(), "refused ") || !strings.Contains(out.String(), "model_rule m-1") || strings.Contains(out.String(), "second line") {
		t.Errorf("printed:\n%s", out.String())
	}

	refuse = ""
	if _, err := Run(context.Background(), site, target, "m-1", 5*time.Second, io.Discard); err == nil || !strings.Contains(err.Error(), "baseline request was refused") {
		t.Errorf("a refused baseline: %v", err)
	}
}

// TestFirstLine keeps a refusal's first line, at most 200 bytes.
func TestFirstLine(t *testing.T) {
	if got := firstLine(strings.Repeat("x", 300) + "\nmore"); len(got) != 203 {
		t.Errorf("firstLine = %d bytes", len(got))
	}
	if got := firstLine("one\ntwo"); got != "one" {
		t.Errorf("firstLine = %q", got)
	}
}
