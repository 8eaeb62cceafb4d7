package caddymodule

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/caddyserver/caddy/v2"
	caddycmd "github.com/caddyserver/caddy/v2/cmd"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"github.com/tidwall/gjson"

	"github.com/llmbridge/llmbridge/caddymodule/clouds"
	"github.com/llmbridge/llmbridge/caddymodule/policy"
	"github.com/llmbridge/llmbridge/caddymodule/probe"
	"github.com/llmbridge/llmbridge/codec"
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

// ProbeReport is what a probe run measured.
type ProbeReport struct {
	Results []probe.Result
	// Rule is the model_rule the results imply (Models holds the model).
	Rule rules.Rule
	// Notes are findings a model_rule cannot hold (a dialect's roles).
	Notes []string
	// Requests, InputTokens and OutputTokens are what the probe spent.
	Requests, InputTokens, OutputTokens int64
}

// Probe runs the probes against cfg's upstream model and writes the
// report to cfg.Out; the report is returned as well.
func Probe(ctx context.Context, cfg ProbeConfig) (*ProbeReport, error) {
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
	client, probes, err := probe.For(h.upstream, h.fitter.Dialect() != nil)
	if err != nil {
		return nil, err
	}
	path, query := client.Descriptor().UpstreamPath(codec.Location{}, cfg.Model, false)
	hc := &http.Client{Timeout: timeout}
	next := caddyhttp.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		return forward(hc, target, w, r)
	})
	rep := &ProbeReport{}
	fmt.Fprintf(out, "llmbridge-probe: %s model %s at %s\n", h.upstream, cfg.Model, target.Redacted())
	on := "" // the lowest effort above none the model took
	for i, p := range probes {
		body := strings.ReplaceAll(p.Body, "%MODEL%", cfg.Model)
		if strings.Contains(body, "%EFFORT%") {
			if on == "" {
				continue
			}
			body = strings.ReplaceAll(body, "%EFFORT%", on)
		}
		res, usage := sendProbe(ctx, h, next, client, path, query, body)
		res.Name = p.Name
		rep.Requests++
		rep.InputTokens += usage.InputTokens
		rep.OutputTokens += usage.OutputTokens
		if i == 0 && !res.Accepted {
			if l, learned := rules.Learn(nil, res.Message); learned && l.Rule.ResponsesOnly && client == codec.OpenAIChat {
				// Served only by the Responses API: no other probe can
				// tell anything on Chat Completions.
				rep.Results = append(rep.Results, res)
				fmt.Fprintln(out, "  refused   "+p.Name+"  ("+strconv.Itoa(res.Status)+": "+firstLine(res.Message)+")")
				break
			}
			return rep, fmt.Errorf("the baseline request was refused (HTTP %d: %s); check the address, credentials and model", res.Status, res.Message)
		}
		rep.Results = append(rep.Results, res)
		if e, isEffort := strings.CutPrefix(p.Name, probe.Effort); isEffort && res.Accepted && e != "none" && on == "" {
			on = e
		}
		verdict := "accepted"
		if !res.Accepted {
			verdict = "refused "
		}
		line := "  " + verdict + "  " + p.Name
		if !res.Accepted {
			line += "  (" + strconv.Itoa(res.Status) + ": " + firstLine(res.Message) + ")"
		}
		fmt.Fprintln(out, line)
	}
	rep.Rule, rep.Notes = probe.Implied(h.upstream, h.provider, cfg.Model, rep.Results)
	fmt.Fprintln(out, "\nThe model_rule these results imply (in the llmbridge directive):")
	fmt.Fprintln(out, policy.RuleBlock(rep.Rule.Models, "", &rep.Rule))
	for _, n := range rep.Notes {
		fmt.Fprintln(out, "Note: "+n)
	}
	fmt.Fprintf(out, "Spent: %d requests, %d input and %d output tokens.\n", rep.Requests, rep.InputTokens, rep.OutputTokens)
	return rep, nil
}

// sendProbe sends one probe body through h and reads the outcome and the
// usage of an accepted answer.
func sendProbe(ctx context.Context, h *Handler, next caddyhttp.Handler, client codec.Protocol, path, query, body string) (probe.Result, codec.Usage) {
	u := "http://llmbridge-probe" + path
	if query != "" {
		u += "?" + query
	}
	r, err := http.NewRequestWithContext(ctx, http.MethodPost, u, strings.NewReader(body))
	if err != nil {
		return probe.Result{Status: 0, Message: err.Error()}, codec.Usage{}
	}
	r.Header.Set("Content-Type", "application/json")
	if client.Family() == codec.AnthropicMessages {
		r.Header.Set("Anthropic-Version", "2023-06-01")
	}
	rctx := context.WithValue(r.Context(), caddy.ReplacerCtxKey, caddy.NewReplacer())
	rctx = context.WithValue(rctx, caddyhttp.VarsCtxKey, map[string]any{})
	r = r.WithContext(rctx)
	w := &probeWriter{header: http.Header{}}
	if err := h.ServeHTTP(w, r, next); err != nil {
		return probe.Result{Status: http.StatusBadGateway, Message: err.Error()}, codec.Usage{}
	}
	res := probe.Result{Status: w.status, Accepted: w.status >= 200 && w.status < 300}
	if !res.Accepted {
		res.Message = gjson.GetBytes(w.body, "error.message").String()
		if res.Message == "" {
			res.Message = string(w.body)
		}
		return res, codec.Usage{}
	}
	var resp codec.Response
	if codec.DecodeResponse(client, w.body, &resp) == nil {
		return res, resp.Usage
	}
	return res, codec.Usage{}
}

// forward sends r to target, as reverse_proxy would, and copies the answer
// to w.
func forward(hc *http.Client, target *url.URL, w http.ResponseWriter, r *http.Request) error {
	u := *target
	u.Path, u.RawPath, u.RawQuery = r.URL.Path, r.URL.RawPath, r.URL.RawQuery
	req, err := http.NewRequestWithContext(r.Context(), r.Method, u.String(), r.Body)
	if err != nil {
		return err
	}
	req.Header = r.Header.Clone()
	req.ContentLength = r.ContentLength
	if r.Host != "" && r.Host != "llmbridge-probe" {
		req.Host = r.Host
	}
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	for k, vs := range resp.Header {
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	w.WriteHeader(resp.StatusCode)
	_, err = io.Copy(w, resp.Body)
	return err
}

// probeWriter collects the handler's answer to one probe.
type probeWriter struct {
	header http.Header
	status int
	body   []byte
}

func (w *probeWriter) Header() http.Header { return w.header }

func (w *probeWriter) WriteHeader(status int) {
	if w.status == 0 && status >= 200 {
		w.status = status
	}
}

func (w *probeWriter) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	w.body = append(w.body, p...)
	return len(p), nil
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 200 {
		s = s[:200] + "..."
	}
	return s
}
