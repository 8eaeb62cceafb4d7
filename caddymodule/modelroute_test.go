package caddymodule

import (
	"context"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2"

	"github.com/llmbridge/llmbridge/caddymodule/match"
)

func TestModelRoutes(t *testing.T) {
	tests := []struct {
		name   string
		rules  []ModelRoute
		model  string
		want   string
		routed bool
	}{
		{"exact", []ModelRoute{{"gpt-4o", "gpt-4o-2024-08-06"}}, "gpt-4o", "gpt-4o-2024-08-06", true},
		{"exact miss", []ModelRoute{{"gpt-4o", "x"}}, "gpt-4o-mini", "gpt-4o-mini", false},
		{"prefix capture", []ModelRoute{{"claude-*", "anthropic/claude-$1"}}, "claude-sonnet-4-5", "anthropic/claude-sonnet-4-5", true},
		{"empty capture", []ModelRoute{{"claude-*", "x$1y"}}, "claude-", "xy", true},
		{"two captures shortest first", []ModelRoute{{"gpt-*-*", "$2/$1"}}, "gpt-4o-mini-2024", "mini-2024/4o", true},
		{"middle literal", []ModelRoute{{"*@*", "$1-$2"}}, "claude-sonnet-4-5@20250929", "claude-sonnet-4-5-20250929", true},
		{"suffix", []ModelRoute{{"*-latest", "$1-2025"}}, "gemini-latest", "gemini-2025", true},
		{"prefix and suffix overlap", []ModelRoute{{"ab*ba", "x"}}, "aba", "aba", false},
		{"catch-all", []ModelRoute{{"*", "default-model"}}, "anything", "default-model", true},
		{"first match wins", []ModelRoute{{"claude-*", "first"}, {"*", "second"}}, "claude-x", "first", true},
		{"falls through", []ModelRoute{{"claude-*", "first"}, {"gpt-*", "second"}}, "gpt-5", "second", true},
		{"literal dollar", []ModelRoute{{"a*", "$x$0$$1"}}, "ab", "$x$0$b", true},
		{"capture reused", []ModelRoute{{"m-*", "$1-$1"}}, "m-z", "z-z", true},
		{"no rules", nil, "gpt-4o", "gpt-4o", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := &Handler{Upstream: "openai-chat", Models: tt.rules}
			if err := h.Provision(testContext(t)); err != nil {
				t.Fatal(err)
			}
			got, routed := h.routeModel("", tt.model)
			if got != tt.want || routed != tt.routed {
				t.Errorf("routeModel(%q) = %q, %v; want %q, %v", tt.model, got, routed, tt.want, tt.routed)
			}
		})
	}
}

func TestModelRouteErrors(t *testing.T) {
	tests := []struct {
		name    string
		rule    ModelRoute
		wantErr string
	}{
		{"empty glob", ModelRoute{"", "x"}, "empty model pattern"},
		{"adjacent wildcards", ModelRoute{"a**", "x"}, "two adjacent wildcards"},
		{"too many wildcards", ModelRoute{"*a*a*a*a*a*a*a*a*a*", "x"}, "at most 9"},
		{"empty target", ModelRoute{"a*", ""}, "empty upstream model"},
		{"missing capture", ModelRoute{"a*", "$2"}, "refers to $2, but the pattern has 1 wildcard"},
		{"capture without wildcard", ModelRoute{"a", "$1"}, "refers to $1, but the pattern has 0 wildcard"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := &Handler{Upstream: "openai-chat", Models: []ModelRoute{tt.rule}}
			err := h.Provision(testContext(t))
			if err == nil {
				err = h.Validate()
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("err = %v, want it to contain %q", err, tt.wantErr)
			}
		})
	}
}

// BenchmarkRouteModel measures a rule lookup with a capture: it allocates
// only the resulting model name.
func BenchmarkRouteModel(b *testing.B) {
	h := &Handler{Upstream: "openai-chat", Models: []ModelRoute{{"gpt-*", "x"}, {"claude-*", "anthropic/claude-$1"}}}
	if err := h.Provision(testContext(b)); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		h.routeModel("", "claude-sonnet-4-5")
	}
}

// testContext returns a Caddy context for provisioning, cancelled when the
// test ends.
func testContext(tb testing.TB) caddy.Context {
	ctx, cancel := caddy.NewContext(caddy.Context{Context: context.Background()})
	tb.Cleanup(cancel)
	return ctx
}

// TestGuestModules holds the guest modules to the host: registered with
// it, and the matcher reading as much of a body as the handler accepts by
// default.
func TestGuestModules(t *testing.T) {
	for _, id := range []string{"http.matchers.llm_model", "http.handlers.llmbridge.clouds.google", "http.handlers.llmbridge.clouds.azure", "http.handlers.llmbridge.clouds.aws"} {
		if _, err := caddy.GetModule(id); err != nil {
			t.Errorf("%s is not registered: %v", id, err)
		}
	}
	if match.DefaultMaxBody != DefaultMaxRequestBody {
		t.Errorf("the matcher reads %d bytes by default, the handler accepts %d", match.DefaultMaxBody, DefaultMaxRequestBody)
	}
}
