package caddymodule

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2"
	caddycmd "github.com/caddyserver/caddy/v2/cmd"
	"github.com/spf13/pflag"

	"github.com/llmbridge/llmbridge/caddymodule/failover"
	"github.com/llmbridge/llmbridge/caddymodule/observe"
	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/rules"
)

// probeServer answers every request as the upstream of protocol p would a
// valid one, unless refuse finds a reason in the body.
func probeServer(t *testing.T, p codec.Protocol, refuse func(body string) string) *httptest.Server {
	t.Helper()
	ok := map[codec.Protocol]string{
		codec.OpenAIChat:        `{"id":"c","object":"chat.completion","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"OK"},"finish_reason":"stop"}],"usage":{"prompt_tokens":5,"completion_tokens":1,"total_tokens":6}}`,
		codec.OpenAIResponses:   `{"id":"r","object":"response","status":"completed","model":"m","output":[{"type":"message","id":"m1","role":"assistant","status":"completed","content":[{"type":"output_text","text":"OK","annotations":[]}]}],"usage":{"input_tokens":5,"output_tokens":1,"total_tokens":6}}`,
		codec.AnthropicMessages: `{"id":"msg","type":"message","role":"assistant","model":"m","content":[{"type":"text","text":"OK"}],"stop_reason":"end_turn","usage":{"input_tokens":5,"output_tokens":1}}`,
		codec.Gemini:            `{"candidates":[{"content":{"role":"model","parts":[{"text":"OK"}]},"finishReason":"STOP"}],"usageMetadata":{"promptTokenCount":5,"candidatesTokenCount":1,"totalTokenCount":6}}`,
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		if why := refuse(string(b)); why != "" {
			w.WriteHeader(400)
			_, _ = io.WriteString(w, `{"error":{"message":"`+why+`","type":"invalid_request_error"}}`)
			return
		}
		_, _ = io.WriteString(w, ok[p])
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestProbeRun(t *testing.T) {
	tests := []struct {
		up     string
		refuse func(body string) string
		check  func(r *rules.Rule) bool
	}{
		{"openai-chat", func(b string) string {
			switch {
			case strings.Contains(b, `"temperature"`):
				return "Unsupported value: 'temperature' does not support 0.5 with this model. Only the default (1) value is supported."
			case strings.Contains(b, `100000000`):
				return "max_tokens is too large: 100000000. This model supports at most 32000 completion tokens, whereas you provided 100000000."
			case strings.Contains(b, `"stop"`):
				return "Unsupported parameter: 'stop' is not supported with this model."
			}
			return ""
		}, func(r *rules.Rule) bool {
			return r.Sampling == rules.SamplingFixed && r.MaxOutput == 32000 && slices.Equal(r.Rejects, []string{"stop"}) && len(r.Efforts) == 7
		}},
		{"openai-responses", func(b string) string {
			if strings.Contains(b, `"none"`) || strings.Contains(b, `"minimal"`) {
				return "Unsupported value: 'reasoning.effort' does not support 'none' with this model. Supported values are: 'low', 'medium', and 'high'."
			}
			return ""
		}, func(r *rules.Rule) bool {
			return slices.Equal(r.Efforts, []string{"low", "medium", "high", "xhigh", "max"})
		}},
		{"anthropic-messages", func(b string) string {
			if strings.Contains(b, `"disabled"`) || strings.Contains(b, `"any"`) {
				return "\"thinking.type.disabled\" is not supported for this model"
			}
			return ""
		}, func(r *rules.Rule) bool {
			return r.Reasoning == rules.ReasoningAdaptive && r.ThinkingOff == rules.ThinkingOffOmit && r.AlwaysThinks
		}},
		{"gemini", func(b string) string {
			if strings.Contains(b, "thinkingLevel") || strings.Contains(b, `"thinkingBudget":0`) || strings.Contains(b, `"thinkingBudget":1}`) {
				return "Thinking level is not supported for this model."
			}
			return ""
		}, func(r *rules.Rule) bool {
			return r.Reasoning == rules.ReasoningBudget && r.BudgetMin == 128 && r.BudgetMax == 32768 && r.AlwaysThinks
		}},
	}
	for _, tt := range tests {
		t.Run(tt.up, func(t *testing.T) {
			srv := probeServer(t, codec.Protocol(tt.up), tt.refuse)
			var out bytes.Buffer
			rep, err := Probe(context.Background(), ProbeConfig{Upstream: tt.up, To: srv.URL, Model: "m-1", APIKey: "k", Out: &out})
			if err != nil {
				t.Fatalf("%v\n%s", err, out.String())
			}
			if !tt.check(&rep.Rule) || rep.InputTokens == 0 || !strings.Contains(out.String(), "model_rule m-1 {") {
				t.Errorf("rule %+v\n%s", rep.Rule, out.String())
			}
		})
	}
}

func TestProbeErrors(t *testing.T) {
	srv := probeServer(t, codec.OpenAIChat, func(string) string { return "Invalid API key" })
	for _, cfg := range []ProbeConfig{
		{Upstream: "openai-chat", Model: "m"},
		{Upstream: "openai-chat", To: "http://", Model: "m"},
		{Upstream: "bedrock", To: srv.URL, Model: "m", AWSRegion: "us-east-1"},
		{Upstream: "no-such-protocol", To: srv.URL, Model: "m"},
		{Upstream: "openai-chat", To: srv.URL, Model: "m"},
	} {
		var out bytes.Buffer
		cfg.Out = &out
		if _, err := Probe(context.Background(), cfg); err == nil {
			t.Errorf("%+v: no error\n%s", cfg, out.String())
		}
	}
	if fs := newProbeFlags(); fs.Lookup("aws_host") == nil || fs.Lookup("timeout").DefValue != "60s" {
		t.Error("flags")
	}
}

// TestProbeCommand runs the registered llmbridge-probe command: its flags
// reach the probe, whose refusal of an incomplete configuration is the
// command's failure.
func TestProbeCommand(t *testing.T) {
	cmd, ok := caddycmd.Commands()["llmbridge-probe"]
	if !ok {
		t.Fatal("the command is not registered")
	}
	fs := pflag.NewFlagSet("llmbridge-probe", pflag.ContinueOnError)
	for _, name := range []string{"upstream", "to", "model", "api_key", "dialect", "vertex_project", "vertex_location", "google_credentials",
		"google_token", "azure_api_version", "aws_region", "aws_profile", "aws_host", "timeout"} {
		fs.String(name, "", "")
	}
	if err := fs.Parse([]string{"--upstream", "openai-chat", "--timeout", "5s"}); err != nil {
		t.Fatal(err)
	}
	if code, err := cmd.Func(caddycmd.Flags{FlagSet: fs}); code != caddy.ExitCodeFailedStartup || err == nil || !strings.Contains(err.Error(), "--to and --model are required") {
		t.Errorf("without --to and --model: exit %d, %v", code, err)
	}
}

// TestJoinSite lets a handler with an upstream be a failover target, its
// key pool then named by the target, and refuses a failover site.
func TestJoinSite(t *testing.T) {
	h := newTestHandler(t, &Handler{Upstream: "openai-chat", APIKeys: []string{"k0", "k1"}})
	if !h.JoinSite("first") || h.keys.Name() != "first" {
		t.Errorf("a handler with an upstream: pool named %q", h.keys.Name())
	}
	if (&Handler{Failover: &failover.Config{Targets: []string{"a"}}}).JoinSite("x") {
		t.Error("a failover site joined another")
	}
	if c := h.Cost(&observe.Exchange{UpstreamModel: "gpt-5", Usage: codec.Usage{Known: true, InputTokens: 1}}); c != -1 {
		t.Errorf("cost without prices: %v", c)
	}
}
