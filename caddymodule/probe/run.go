package probe

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"github.com/llmbridge/llmbridge/caddymodule/policy"
	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/rules"
	"github.com/tidwall/gjson"
)

// Run sends the probes for model through site's handler, which forwards
// them to target, each within timeout, writes the report to out and
// returns it: which probes the model accepted, the model_rule they imply
// and what the run spent. The baseline request's refusal ends the run
// with an error (the address, credentials or model are wrong), unless it
// says the model is served only by OpenAI's Responses API.
func Run(ctx context.Context, site Site, target *url.URL, model string, timeout time.Duration, out io.Writer) (*Report, error) {
	client, probes, err := For(site.Upstream, site.Dialect)
	if err != nil {
		return nil, err
	}
	path, query := client.Descriptor().UpstreamPath(codec.Location{}, model, false)
	hc := &http.Client{Timeout: timeout}
	next := caddyhttp.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		return forward(hc, target, w, r)
	})
	rep := &Report{}
	fmt.Fprintf(out, "llmbridge-probe: %s model %s at %s\n", site.Upstream, model, target.Redacted())
	on := "" // the lowest effort above none the model took
	for i, p := range probes {
		body := strings.ReplaceAll(p.Body, "%MODEL%", model)
		if strings.Contains(body, "%EFFORT%") {
			if on == "" {
				continue
			}
			body = strings.ReplaceAll(body, "%EFFORT%", on)
		}
		res, usage := send(ctx, site.Handler, next, client, path, query, body)
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
		if e, isEffort := strings.CutPrefix(p.Name, Effort); isEffort && res.Accepted && e != "none" && on == "" {
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
	rep.Rule, rep.Notes = Implied(site.Upstream, site.Provider, model, rep.Results)
	fmt.Fprintln(out, "\nThe model_rule these results imply (in the llmbridge directive):")
	fmt.Fprintln(out, policy.RuleBlock(rep.Rule.Models, "", &rep.Rule))
	for _, n := range rep.Notes {
		fmt.Fprintln(out, "Note: "+n)
	}
	fmt.Fprintf(out, "Spent: %d requests, %d input and %d output tokens.\n", rep.Requests, rep.InputTokens, rep.OutputTokens)
	return rep, nil
}

// Site is the handler the probes go through: the llmbridge directive's,
// provisioned for the measured model with the model's rules off, under
// on_unsupported strict (it never retries) and without lessons, so that
// each body reaches the upstream as it is written.
type Site struct {
	// Handler is the provisioned llmbridge handler.
	Handler caddyhttp.MiddlewareHandler
	// Upstream is its upstream protocol, Provider whose rules govern it,
	// and Dialect whether it is an OpenAI-compatible server with a
	// dialect (whose roles a probe tests).
	Upstream codec.Protocol
	Provider string
	Dialect  bool
}

// Report is what a probe run measured.
type Report struct {
	// Results are the probes' outcomes, in the order they were sent.
	Results []Result
	// Rule is the model_rule the results imply (Models holds the model).
	Rule rules.Rule
	// Notes are findings a model_rule cannot hold (a dialect's roles).
	Notes []string
	// Requests, InputTokens and OutputTokens are what the probe spent.
	Requests, InputTokens, OutputTokens int64
}

// send sends one probe body through h and reads the outcome and the
// usage of an accepted answer.
func send(ctx context.Context, h caddyhttp.MiddlewareHandler, next caddyhttp.Handler, client codec.Protocol, path, query, body string) (Result, codec.Usage) {
	u := "http://llmbridge-probe" + path
	if query != "" {
		u += "?" + query
	}
	r, err := http.NewRequestWithContext(ctx, http.MethodPost, u, strings.NewReader(body))
	if err != nil {
		return Result{Status: 0, Message: err.Error()}, codec.Usage{}
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
		return Result{Status: http.StatusBadGateway, Message: err.Error()}, codec.Usage{}
	}
	res := Result{Status: w.status, Accepted: w.status >= 200 && w.status < 300}
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

// Header returns the answer's header.
func (w *probeWriter) Header() http.Header { return w.header }

// WriteHeader notes the final status.
func (w *probeWriter) WriteHeader(status int) {
	if w.status == 0 && status >= 200 {
		w.status = status
	}
}

// Write collects the body.
func (w *probeWriter) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	w.body = append(w.body, p...)
	return len(p), nil
}

// firstLine is the first line of a refusal's message, at most 200
// bytes, for the report.
func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 200 {
		s = s[:200] + "..."
	}
	return s
}
