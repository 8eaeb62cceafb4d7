package caddymodule

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/caddyserver/caddy/v2"
	caddycmd "github.com/caddyserver/caddy/v2/cmd"

	"github.com/llmbridge/llmbridge/caddymodule/clouds"
	"github.com/llmbridge/llmbridge/caddymodule/policy"
	"github.com/llmbridge/llmbridge/caddymodule/probe"
	"github.com/llmbridge/llmbridge/codec/rules"
)

// The probe measures what an upstream model accepts, so that a model
// released tomorrow gets its row the same day, measured rather than
// guessed: `caddy llmbridge-probe --upstream <protocol> --to <address>
// --model <id>`, with the directive's credential settings as flags. It
// sends a small set of minimal requests (at most 16 output tokens each),
// each testing one rule, through the same handler the directive runs
// (credentials, paths, signing, sibling adaptations) with the model's
// rules turned off, and prints which were accepted, the model_rule block
// they imply and what they cost.

func init() {
	fs := newProbeFlags()
	caddycmd.RegisterCommand(caddycmd.Command{
		Name: "llmbridge-probe",
		Usage: "--upstream <protocol> --to <address> --model <id> [--api_key <key>] [--dialect <name>] " +
			"[--vertex_project <p>] [--vertex_location <l>] [--google_credentials <file>] [--google_token <t>] " +
			"[--azure_api_version <v>] [--aws_region <r>] [--aws_profile <p>] [--aws_host <h>] [--timeout <d>]",
		Short: "Measures which request rules an upstream model accepts and prints the model_rule they imply",
		Long: `
Sends minimal requests (at most 16 output tokens each) to the model through
the upstream, each testing one rule: sampling settings, each reasoning
effort or Gemini thinking level and budget, function tools with an effort on
Chat Completions, stop sequences, penalties, a trailing assistant message,
thinking disabled, the output cap, and a dialect's roles. It prints which
were accepted, the model_rule block they imply, and how many requests and
tokens it spent. The flags are the llmbridge directive's settings of the
same names; --to is the upstream's address (https:// when no scheme is
given).`,
		Flags: fs,
		Func: func(f caddycmd.Flags) (int, error) {
			cfg := ProbeConfig{Upstream: f.String("upstream"), To: f.String("to"), Model: f.String("model"),
				APIKey: f.String("api_key"), Dialect: f.String("dialect"), VertexProject: f.String("vertex_project"),
				VertexLocation: f.String("vertex_location"), GoogleCredentials: f.String("google_credentials"),
				GoogleToken: f.String("google_token"), AzureAPIVersion: f.String("azure_api_version"),
				AWSRegion: f.String("aws_region"), AWSProfile: f.String("aws_profile"), AWSHost: f.String("aws_host")}
			if d, err := time.ParseDuration(f.String("timeout")); err == nil {
				cfg.Timeout = d
			}
			if _, err := Probe(context.Background(), cfg); err != nil {
				return caddy.ExitCodeFailedStartup, err
			}
			return caddy.ExitCodeSuccess, nil
		},
	})
}

// newProbeFlags returns the command's flags: the directive's settings.
func newProbeFlags() *flag.FlagSet {
	fs := flag.NewFlagSet("llmbridge-probe", flag.ExitOnError)
	fs.String("upstream", "", "the upstream protocol (openai-chat, openai-responses, anthropic-messages, vertex-anthropic, bedrock-anthropic, gemini, vertex, azure-openai)")
	fs.String("to", "", "the upstream's address: scheme, host and port (https when no scheme is given)")
	fs.String("model", "", "the model to measure")
	for _, name := range []string{"api_key", "dialect", "vertex_project", "vertex_location", "google_credentials", "google_token",
		"azure_api_version", "aws_region", "aws_profile", "aws_host"} {
		fs.String(name, "", "the llmbridge directive's "+name+" setting")
	}
	fs.String("timeout", "60s", "the time limit of each request")
	return fs
}

// ProbeConfig is what the probe measures and how it reaches the upstream:
// the llmbridge directive's settings of the same names.
type ProbeConfig struct {
	// Upstream is the upstream protocol; To its address (scheme, host and
	// port; https when no scheme is given); Model the model measured.
	Upstream, To, Model string
	// The credential and location settings, as the directive takes them.
	APIKey, Dialect, VertexProject, VertexLocation, GoogleCredentials, GoogleToken string
	AzureAPIVersion, AWSRegion, AWSProfile, AWSHost                                string
	// Timeout bounds each request (default 60 s).
	Timeout time.Duration
	// Out receives the report; nil is standard output.
	Out io.Writer
}

// Probe runs the probes against cfg's upstream model and writes the
// report to cfg.Out; the report is returned as well.
func Probe(ctx context.Context, cfg ProbeConfig) (*probe.Report, error) {
	out := cfg.Out
	if out == nil {
		out = os.Stdout
	}
	if cfg.Upstream == "" || cfg.To == "" || cfg.Model == "" {
		return nil, fmt.Errorf("--upstream, --to and --model are required")
	}
	to := cfg.To
	if !strings.Contains(to, "://") {
		to = "https://" + to
	}
	target, err := url.Parse(to)
	if err != nil || target.Host == "" {
		return nil, fmt.Errorf("--to %q is not an address", cfg.To)
	}
	timeout := cfg.Timeout
	if timeout <= 0 {
		timeout = 60 * time.Second
	}
	// The model's rules are turned off (an empty row for it), so that the
	// bodies reach the upstream as written; strict never retries.
	h := &Handler{Upstream: cfg.Upstream, APIKey: cfg.APIKey, Dialect: cfg.Dialect,
		OnUnsupported: "strict", ModelRules: []rules.Rule{{Models: []string{cfg.Model}}}}
	// The cloud settings, taken as the directive takes them.
	var cloudBlocks clouds.Blocks
	for _, s := range [...]struct{ name, value string }{{"vertex_project", cfg.VertexProject}, {"vertex_location", cfg.VertexLocation},
		{"google_credentials", cfg.GoogleCredentials}, {"google_token", cfg.GoogleToken}, {"azure_api_version", cfg.AzureAPIVersion},
		{"aws_region", cfg.AWSRegion}, {"aws_profile", cfg.AWSProfile}, {"aws_host", cfg.AWSHost}} {
		if s.value == "" {
			continue
		}
		if err := cloudBlocks.Set(s.name, []string{s.value}); err != nil {
			return nil, err
		}
	}
	if err := h.settleCloud(cloudBlocks); err != nil {
		return nil, err
	}
	cctx, cancel := caddy.NewContext(caddy.Context{Context: ctx})
	defer cancel()
	if err := h.Provision(cctx); err != nil {
		return nil, err
	}
	if err := h.Validate(); err != nil {
		return nil, err
	}
	// Nor what other handlers learned of the model (learn.go).
	h.fitter.Lessons = new(policy.Lessons)
	site := probe.Site{Handler: h, Upstream: h.upstream, Provider: h.provider, Dialect: h.fitter.Dialect() != nil}
	return probe.Run(ctx, site, target, cfg.Model, timeout, out)
}
