package match

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/iotest"

	_ "github.com/llmbridge/llmbridge/codec/all"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
)

func TestMatchModel(t *testing.T) {
	big := `{"messages":[{"role":"user","content":"` + strings.Repeat("x", 200) + `"}],"model":"claude-x"}`
	tests := []struct {
		name    string
		models  []string
		maxBody int64
		path    string
		body    string
		noCL    bool // send without Content-Length
		want    bool
	}{
		{"body model", []string{"claude-*"}, 0, "/v1/messages", `{"model":"claude-sonnet-4-5","messages":[]}`, false, true},
		{"body model other", []string{"claude-*"}, 0, "/v1/chat/completions", `{"model":"gpt-4o"}`, false, false},
		{"any of several", []string{"gpt-*", "o3"}, 0, "/v1/responses", `{"input":"hi","model":"o3"}`, false, true},
		{"escaped model", []string{"claude-*"}, 0, "/v1/messages", `{"model":"claude\u002dx"}`, false, true},
		{"model last in the body", []string{"claude-*"}, 0, "/v1/messages", big, false, true},
		{"model not a string", []string{"*"}, 0, "/v1/messages", `{"model":1}`, false, false},
		{"no model", []string{"*"}, 0, "/v1/messages", `{"messages":[]}`, false, false},
		{"not json", []string{"*"}, 0, "/v1/messages", `model=claude`, false, false},
		{"empty body", []string{"*"}, 0, "/v1/messages", ``, false, false},
		{"gemini path", []string{"gemini-*"}, 0, "/v1beta/models/gemini-2.5-flash:generateContent", `{"model":"other"}`, false, true},
		{"gemini path models prefix", []string{"gemini-*"}, 0, "/v1beta/models/gemini-2.5-flash:streamGenerateContent", `{}`, false, true},
		{"vertex path", []string{"gemini-2.5-*"}, 0, "/v1/projects/p/locations/l/publishers/google/models/gemini-2.5-pro:generateContent", `{}`, false, true},
		{"vertex anthropic path", []string{"claude-*"}, 0, "/v1/projects/p/locations/l/publishers/anthropic/models/claude-x@1:rawPredict", `{}`, false, true},
		{"path model wins over body", []string{"claude-*"}, 0, "/v1beta/models/gemini-x:generateContent", `{"model":"claude-x"}`, false, false},
		{"over the limit by Content-Length", []string{"claude-*"}, 64, "/v1/messages", big, false, false},
		{"over the limit while reading", []string{"claude-*"}, 64, "/v1/messages", big, true, false},
		{"exactly at the limit", []string{"claude-*"}, int64(len(`{"model":"claude-x"}`)), "/v1/messages", `{"model":"claude-x"}`, true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := &Model{Models: tt.models, MaxBody: tt.maxBody}
			if err := m.Provision(caddy.Context{}); err != nil {
				t.Fatal(err)
			}
			if err := m.Validate(); err != nil {
				t.Fatal(err)
			}
			r := httptest.NewRequest(http.MethodPost, tt.path, strings.NewReader(tt.body))
			if tt.noCL {
				r.ContentLength = -1
			}
			got, err := m.MatchWithError(r)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("match = %v, want %v", got, tt.want)
			}
			// The body is still there, whole, for the handlers after the
			// matcher, and for a second matcher too.
			if again, _ := m.MatchWithError(r); again != got {
				t.Errorf("second match = %v, first %v", again, got)
			}
			b, err := io.ReadAll(r.Body)
			if err != nil || string(b) != tt.body {
				t.Errorf("body after matching = %q (%v), want %q", b, err, tt.body)
			}
			if err := r.Body.Close(); err != nil {
				t.Error(err)
			}
		})
	}
}

func TestMatchModelReadError(t *testing.T) {
	m := &Model{Models: []string{"*"}}
	if err := m.Provision(caddy.Context{}); err != nil {
		t.Fatal(err)
	}
	r := httptest.NewRequest(http.MethodPost, "/v1/messages", nil)
	r.Body = io.NopCloser(iotest.ErrReader(io.ErrUnexpectedEOF))
	r.ContentLength = -1
	if ok, err := m.MatchWithError(r); ok || err == nil {
		t.Errorf("MatchWithError = %v, %v; want false and an error", ok, err)
	}
	if m.Match(r) {
		t.Error("Match = true for an unreadable body")
	}
}

func TestMatchModelConfig(t *testing.T) {
	tests := []struct {
		name    string
		input   string
		want    []string
		wantErr string
	}{
		{"one", "llm_model claude-*", []string{"claude-*"}, ""},
		{"several", "llm_model claude-* gpt-4o", []string{"claude-*", "gpt-4o"}, ""},
		{"no pattern", "llm_model", nil, "wrong argument count"},
		{"bad pattern", "llm_model a**", nil, "two adjacent wildcards"},
		{"block", "llm_model a {\n b\n}", nil, "takes no block"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var m Model
			err := m.UnmarshalCaddyfile(caddyfile.NewTestDispenser(tt.input))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if strings.Join(m.Models, " ") != strings.Join(tt.want, " ") {
				t.Errorf("models = %q, want %q", m.Models, tt.want)
			}
		})
	}
	for _, bad := range []Model{{}, {Models: []string{""}}, {Models: []string{"a"}, MaxBody: -1}} {
		err := bad.Provision(caddy.Context{})
		if err == nil {
			err = bad.Validate()
		}
		if err == nil {
			t.Errorf("%+v: provisioned without an error", bad)
		}
	}
}
