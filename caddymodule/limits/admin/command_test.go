package admin

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/caddyserver/caddy/v2"
	caddycmd "github.com/caddyserver/caddy/v2/cmd"
)

// TestPrintLimits prints the admin API's report as a table, and says why
// when the admin API cannot answer.
func TestPrintLimits(t *testing.T) {
	now := time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/llmbridge/limits" {
			http.Error(w, "no such path", http.StatusNotFound)
			return
		}
		_, _ = w.Write([]byte(`[{"key":"alice","limit":"spend/day","models":["claude-*"],"max":20,"used":1.5,"reset":"2026-12-08T00:00:00Z"},` +
			`{"key":"bob","limit":"streams","max":4,"used":1}]`))
	}))
	defer srv.Close()
	var b strings.Builder
	if err := printLimits(&b, srv.Client(), strings.TrimPrefix(srv.URL, "http://"), now); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"KEY", "alice", "spend/day", "1.50", "20", "12h0m0s", "claude-*", "bob", "streams"} {
		if !strings.Contains(out, want) {
			t.Errorf("the table lacks %q:\n%s", want, out)
		}
	}
	empty := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte(`[]`)) }))
	defer empty.Close()
	b.Reset()
	if err := printLimits(&b, empty.Client(), empty.URL, now); err != nil || !strings.Contains(b.String(), "no limits") {
		t.Errorf("an empty report: %v %q", err, b.String())
	}
	if err := printLimits(&b, srv.Client(), srv.URL+"/nowhere", now); err == nil || !strings.Contains(err.Error(), "404") {
		t.Errorf("a failing admin API: %v", err)
	}
	if err := printLimits(&b, srv.Client(), "127.0.0.1:1", now); err == nil {
		t.Error("an unreachable admin API gave no error")
	}
}

// TestLimitsCommand runs the registered llmbridge-limits command against
// an admin API, and fails it when the admin API cannot be reached.
func TestLimitsCommand(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(`[]`))
	}))
	defer srv.Close()
	cmd, ok := caddycmd.Commands()["llmbridge-limits"]
	if !ok {
		t.Fatal("the command is not registered")
	}
	for address, want := range map[string]int{srv.URL: caddy.ExitCodeSuccess, "127.0.0.1:1": caddy.ExitCodeFailedQuit} {
		fs := pflag.NewFlagSet("llmbridge-limits", pflag.ContinueOnError)
		fs.String("address", "", "")
		if err := fs.Parse([]string{"--address", address}); err != nil {
			t.Fatal(err)
		}
		if code, _ := cmd.Func(caddycmd.Flags{FlagSet: fs}); code != want {
			t.Errorf("against %s: exit code %d, want %d", address, code, want)
		}
	}
}
