package caddymodule

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"

	"github.com/llmbridge/llmbridge/caddymodule/failover"
)

func TestUnmarshalFailover(t *testing.T) {
	tests := []struct {
		name    string
		input   string
		want    Handler
		wantErr string
	}{
		{
			name: "failover with every setting",
			input: `llmbridge {
				failover a b c {
					retry_on 404 408
					cooldown 2s
					max_cooldown 1m
					circuit_breaker 3 20s 45s
				}
				client_keys k
				max_request_body 1MiB
			}`,
			want: Handler{Failover: &failover.Config{Targets: []string{"a", "b", "c"}, RetryOn: []int{404, 408}, Cooldown: caddy.Duration(2 * time.Second),
				MaxCooldown: caddy.Duration(time.Minute), Breaker: &failover.CircuitBreaker{Failures: 3, Window: caddy.Duration(20 * time.Second), Period: caddy.Duration(45 * time.Second)}},
				ClientKeys: []ClientKey{{Key: "k"}}, MaxRequestBody: 1 << 20},
		},
		{
			name:  "a key pool on one line",
			input: `llmbridge { upstream openai-chat` + "\n" + `api_key k0 k1 k2` + "\n" + `}`,
			want:  Handler{Upstream: "openai-chat", APIKeys: []string{"k0", "k1", "k2"}},
		},
		{
			name:  "a key pool on repeated lines",
			input: "llmbridge {\nupstream openai-chat\napi_key k0\napi_key k1\n}",
			want:  Handler{Upstream: "openai-chat", APIKeys: []string{"k0", "k1"}},
		},
		{name: "no targets", input: "llmbridge {\nfailover\n}", wantErr: "failover takes the names of its targets"},
		{name: "an upstream too", input: "llmbridge {\nfailover a\nupstream gemini\n}", wantErr: "upstream is a setting of each failover target"},
		{name: "api_key on the site", input: "llmbridge {\nfailover a\napi_key k\n}", wantErr: "api_key is a setting of each failover target"},
		{name: "a target twice", input: "llmbridge {\nfailover a b a\n}", wantErr: `failover target "a" is listed twice`},
		{name: "a bad status", input: "llmbridge {\nfailover a {\nretry_on 302\n}\n}", wantErr: "retry_on: want error statuses"},
		{name: "a bad breaker", input: "llmbridge {\nfailover a {\ncircuit_breaker 3 10s\n}\n}", wantErr: "circuit_breaker takes"},
		{name: "an unknown setting", input: "llmbridge {\nfailover a {\nretries 3\n}\n}", wantErr: `unknown failover setting "retries"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var h Handler
			err := h.UnmarshalCaddyfile(caddyfile.NewTestDispenser(tt.input))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(h, tt.want) {
				t.Errorf("got %+v\nwant %+v", h, tt.want)
			}
		})
	}
}
