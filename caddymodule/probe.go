package caddymodule

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/caddyserver/caddy/v2"
	caddycmd "github.com/caddyserver/caddy/v2/cmd"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"github.com/tidwall/gjson"

	"github.com/llmbridge/llmbridge/caddymodule/clouds"
	"github.com/llmbridge/llmbridge/codec"
	"github.com/llmbridge/llmbridge/codec/rules"
	"github.com/llmbridge/llmbridge/mapping"
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

// ProbeResult is one probe's outcome.
type ProbeResult struct {
	// Name says what the probe tests.
	Name string
	// Accepted reports a 2xx answer; Status and Message are the refusal's
	// otherwise.
	Accepted bool
	Status   int
	Message  string
}

// ProbeReport is what a probe run measured.
type ProbeReport struct {
	Results []ProbeResult
	// Rule is the model_rule the results imply (Models holds the model).
	Rule rules.Rule
	// Notes are findings a model_rule cannot hold (a dialect's roles).
	Notes []string
	// Requests, InputTokens and OutputTokens are what the probe spent.
	Requests, InputTokens, OutputTokens int64
}

// probeReq is one probe: what it tests and its body in the client
// protocol of the upstream's family.
type probeReq struct {
	name string
	body string
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
	h.learned = new(learnedRules)
	client, probes, err := probesFor(h.upstream, h.dialect != nil)
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
		body := strings.ReplaceAll(p.body, "%MODEL%", cfg.Model)
		if strings.Contains(body, "%EFFORT%") {
			if on == "" {
				continue
			}
			body = strings.ReplaceAll(body, "%EFFORT%", on)
		}
		res, usage := sendProbe(ctx, h, next, client, path, query, body)
		res.Name = p.name
		rep.Requests++
		rep.InputTokens += usage.InputTokens
		rep.OutputTokens += usage.OutputTokens
		if i == 0 && !res.Accepted {
			if l, learned := rules.Learn(nil, res.Message); learned && l.Rule.ResponsesOnly && client == codec.OpenAIChat {
				// Served only by the Responses API: no other probe can
				// tell anything on Chat Completions.
				rep.Results = append(rep.Results, res)
				fmt.Fprintln(out, "  refused   "+p.name+"  ("+strconv.Itoa(res.Status)+": "+firstLine(res.Message)+")")
				break
			}
			return rep, fmt.Errorf("the baseline request was refused (HTTP %d: %s); check the address, credentials and model", res.Status, res.Message)
		}
		rep.Results = append(rep.Results, res)
		if e, isEffort := strings.CutPrefix(p.name, probeEffort); isEffort && res.Accepted && e != "none" && on == "" {
			on = e
		}
		verdict := "accepted"
		if !res.Accepted {
			verdict = "refused "
		}
		line := "  " + verdict + "  " + p.name
		if !res.Accepted {
			line += "  (" + strconv.Itoa(res.Status) + ": " + firstLine(res.Message) + ")"
		}
		fmt.Fprintln(out, line)
	}
	rep.Rule, rep.Notes = implied(h.upstream, h.provider, cfg.Model, rep.Results)
	fmt.Fprintln(out, "\nThe model_rule these results imply (in the llmbridge directive):")
	fmt.Fprintln(out, modelRuleBlock(rep.Rule.Models, "", &rep.Rule))
	for _, n := range rep.Notes {
		fmt.Fprintln(out, "Note: "+n)
	}
	fmt.Fprintf(out, "Spent: %d requests, %d input and %d output tokens.\n", rep.Requests, rep.InputTokens, rep.OutputTokens)
	return rep, nil
}

// sendProbe sends one probe body through h and reads the outcome and the
// usage of an accepted answer.
func sendProbe(ctx context.Context, h *Handler, next caddyhttp.Handler, client codec.Protocol, path, query, body string) (ProbeResult, codec.Usage) {
	u := "http://llmbridge-probe" + path
	if query != "" {
		u += "?" + query
	}
	r, err := http.NewRequestWithContext(ctx, http.MethodPost, u, strings.NewReader(body))
	if err != nil {
		return ProbeResult{Status: 0, Message: err.Error()}, codec.Usage{}
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
		return ProbeResult{Status: http.StatusBadGateway, Message: err.Error()}, codec.Usage{}
	}
	res := ProbeResult{Status: w.status, Accepted: w.status >= 200 && w.status < 300}
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

// The probe names the results are read back by.
const (
	probeBaseline    = "baseline"
	probeTemperature = "temperature 0.5"
	probeTopP        = "top_p 0.9"
	probeBoth        = "temperature 0.5 with top_p 0.9"
	probeTempNone    = "temperature 0.5 at effort none"
	probeTempOn      = "temperature 0.5 at the lowest effort above none the model took"
	probeStop        = "stop sequences"
	probePresence    = "presence penalty"
	probeFrequency   = "frequency penalty"
	probeToolsBare   = "function tools, no effort"
	probeToolsNone   = "function tools at effort none"
	probeToolsHigh   = "function tools at effort high"
	probePrefill     = "a trailing assistant message"
	probeDisabled    = "thinking disabled"
	probeAdaptive    = "adaptive thinking"
	probeForced      = "a forced tool choice"
	probeCap         = "an output limit of 100000000 (its refusal names the cap)"
	probeDeveloper   = "the developer role"
	probeUserAfter   = "a user message right after a tool message"
	probeEffort      = "effort "
	probeLevel       = "thinking level "
	probeBudget      = "thinking budget "
	probeUnsigned    = "a function call without a thought signature"
)

var probeEfforts = []string{"none", "minimal", "low", "medium", "high", "xhigh", "max"}

// probeLevels are the Gemini thinking levels probed.
var probeLevels = []string{"minimal", "low", "medium", "high", "xhigh"}

// probesFor returns the client protocol the probes are written in (the
// first-party protocol of the upstream's family) and the probes.
func probesFor(up codec.Protocol, dialect bool) (codec.Protocol, []probeReq, error) {
	const user = `[{"role":"user","content":"Say OK."}]`
	var ps []probeReq
	add := func(name, body string) { ps = append(ps, probeReq{name, body}) }
	switch up.Family() {
	case codec.OpenAIChat:
		base := `{"model":"%MODEL%","max_completion_tokens":16,"messages":` + user
		tool := `,"tools":[{"type":"function","function":{"name":"ping","parameters":{"type":"object","properties":{}}}}]`
		add(probeBaseline, base+`}`)
		add(probeTemperature, base+`,"temperature":0.5}`)
		add(probeTopP, base+`,"top_p":0.9}`)
		add(probeBoth, base+`,"temperature":0.5,"top_p":0.9}`)
		add(probeTempNone, base+`,"temperature":0.5,"reasoning_effort":"none"}`)
		for _, e := range probeEfforts {
			add(probeEffort+e, base+`,"reasoning_effort":"`+e+`"}`)
		}
		add(probeTempOn, base+`,"temperature":0.5,"reasoning_effort":"%EFFORT%"}`)
		add(probeStop, base+`,"stop":["\n\n\n"]}`)
		add(probePresence, base+`,"presence_penalty":0.5}`)
		add(probeFrequency, base+`,"frequency_penalty":0.5}`)
		add(probeToolsBare, base+tool+`}`)
		add(probeToolsNone, base+tool+`,"reasoning_effort":"none"}`)
		add(probeToolsHigh, base+tool+`,"reasoning_effort":"high"}`)
		add(probeCap, `{"model":"%MODEL%","max_completion_tokens":100000000,"messages":`+user+`}`)
		if dialect {
			// A model that thinks by default may refuse a forced tool
			// choice unless thinking is turned off (DeepSeek V4: "Thinking
			// mode does not support this tool_choice").
			add(probeForced, base+tool+`,"tool_choice":"required"}`)
			add(probeDeveloper, `{"model":"%MODEL%","max_completion_tokens":16,"messages":[{"role":"developer","content":"Be brief."},{"role":"user","content":"Say OK."}]}`)
			add(probeUserAfter, `{"model":"%MODEL%","max_completion_tokens":16,"messages":[{"role":"user","content":"Ping."},`+
				`{"role":"assistant","content":null,"tool_calls":[{"id":"A1b2C3d4E","type":"function","function":{"name":"ping","arguments":"{}"}}]},`+
				`{"role":"tool","tool_call_id":"A1b2C3d4E","content":"pong"},{"role":"user","content":"Say OK."}]`+tool+`}`)
		}
		return codec.OpenAIChat, ps, nil
	case codec.OpenAIResponses:
		base := `{"model":"%MODEL%","max_output_tokens":16,"input":"Say OK."`
		add(probeBaseline, base+`}`)
		add(probeTemperature, base+`,"temperature":0.5}`)
		add(probeTopP, base+`,"top_p":0.9}`)
		add(probeBoth, base+`,"temperature":0.5,"top_p":0.9}`)
		add(probeTempNone, base+`,"temperature":0.5,"reasoning":{"effort":"none"}}`)
		for _, e := range probeEfforts {
			add(probeEffort+e, base+`,"reasoning":{"effort":"`+e+`"}}`)
		}
		add(probeTempOn, base+`,"temperature":0.5,"reasoning":{"effort":"%EFFORT%"}}`)
		add(probeCap, `{"model":"%MODEL%","max_output_tokens":100000000,"input":"Say OK."}`)
		return codec.OpenAIResponses, ps, nil
	case codec.AnthropicMessages:
		base := `{"model":"%MODEL%","max_tokens":16,"messages":` + user
		add(probeBaseline, base+`}`)
		add(probeTemperature, base+`,"temperature":0.5}`)
		add(probeTopP, base+`,"top_p":0.9}`)
		add(probeBoth, base+`,"temperature":0.5,"top_p":0.9}`)
		add(probeStop, base+`,"stop_sequences":["\n\n\n"]}`)
		add(probeDisabled, base+`,"thinking":{"type":"disabled"}}`)
		add(probeAdaptive, base+`,"thinking":{"type":"adaptive"}}`)
		for _, e := range probeEfforts[2:] {
			add(probeEffort+e, base+`,"thinking":{"type":"adaptive"},"output_config":{"effort":"`+e+`"}}`)
		}
		add(probePrefill, `{"model":"%MODEL%","max_tokens":16,"messages":[{"role":"user","content":"Say OK."},{"role":"assistant","content":"O"}]}`)
		add(probeForced, base+`,"tools":[{"name":"ping","input_schema":{"type":"object"}}],"tool_choice":{"type":"any"}}`)
		add(probeCap, `{"model":"%MODEL%","max_tokens":100000000,"messages":`+user+`}`)
		return codec.AnthropicMessages, ps, nil
	case codec.Gemini:
		gen := func(extra string) string {
			return `{"contents":[{"role":"user","parts":[{"text":"Say OK."}]}],"generationConfig":{"maxOutputTokens":16` + extra + `}}`
		}
		add(probeBaseline, gen(""))
		add(probeTemperature, gen(`,"temperature":0.5`))
		add(probeTopP, gen(`,"topP":0.9`))
		add(probeBoth, gen(`,"temperature":0.5,"topP":0.9`))
		add(probeStop, gen(`,"stopSequences":["\n\n\n"]`))
		add(probePresence, gen(`,"presencePenalty":0.5`))
		add(probeFrequency, gen(`,"frequencyPenalty":0.5`))
		for _, l := range probeLevels {
			add(probeLevel+l, gen(`,"thinkingConfig":{"thinkingLevel":"`+strings.ToUpper(l)+`"}`))
		}
		for _, b := range []int{0, 1, 128, 512, 1024, 24576, 32768} {
			add(probeBudget+strconv.Itoa(b), gen(`,"thinkingConfig":{"thinkingBudget":`+strconv.Itoa(b)+`}`))
		}
		add(probePrefill, `{"contents":[{"role":"user","parts":[{"text":"Say OK."}]},{"role":"model","parts":[{"text":"O"}]}],"generationConfig":{"maxOutputTokens":16}}`)
		add(probeCap, `{"contents":[{"role":"user","parts":[{"text":"Say OK."}]}],"generationConfig":{"maxOutputTokens":100000000}}`)
		// A tool turn whose call carries no thought signature: Gemini 3
		// and later refuse it.
		add(probeUnsigned, `{"contents":[{"role":"user","parts":[{"text":"Ping."}]},{"role":"model","parts":[{"functionCall":{"name":"ping","args":{}}}]},`+
			`{"role":"user","parts":[{"functionResponse":{"name":"ping","response":{"result":"pong"}}}]}],`+
			`"tools":[{"functionDeclarations":[{"name":"ping","parameters":{"type":"object","properties":{}}}]}],"generationConfig":{"maxOutputTokens":16}}`)
		return codec.Gemini, ps, nil
	}
	return "", nil, fmt.Errorf("upstream %s: the probe speaks OpenAI Chat and Responses, Anthropic Messages (also on Vertex AI and Bedrock) and Gemini (also on Vertex AI); probe a Bedrock Claude model with --upstream bedrock-anthropic", up)
}

// implied returns the model_rule the probe results imply for model, and
// the findings a rule cannot hold.
func implied(up codec.Protocol, provider, model string, results []ProbeResult) (rules.Rule, []string) {
	ok := map[string]bool{}
	msg := map[string]string{}
	for _, r := range results {
		ok[r.Name], msg[r.Name] = r.Accepted, r.Message
	}
	refused := func(name string) bool { _, ran := ok[name]; return ran && !ok[name] }
	r := rules.Rule{Models: []string{model}}
	var notes []string
	today := time.Now().UTC().Format(time.DateOnly)
	r.Sources = []string{"measured by caddy llmbridge-probe on " + today}
	r.Verified = today
	var efforts []string
	for _, e := range probeEfforts {
		if ok[probeEffort+e] {
			efforts = append(efforts, e)
		}
	}
	if refused(probeCap) {
		if l, learned := rules.Learn(nil, msg[probeCap]); learned && l.Rule.MaxOutput > 0 {
			r.MaxOutput = l.Rule.MaxOutput
		}
	}
	if refused(probeBaseline) && up.Family() == codec.OpenAIChat {
		if l, learned := rules.Learn(nil, msg[probeBaseline]); learned && l.Rule.ResponsesOnly {
			// Every probe was refused for the endpoint, not the setting.
			r.ResponsesOnly, r.MaxOutput = true, 0
			notes = append(notes, "the model is served only by the Responses API: probe it with --upstream openai-responses")
			return r, notes
		}
	}
	switch up.Family() {
	case codec.OpenAIChat, codec.OpenAIResponses:
		switch {
		case len(efforts) > 0:
			r.Reasoning, r.Efforts = rules.ReasoningEffort, efforts
		case refused(probeEffort + "medium"):
			r.Reasoning = rules.ReasoningNone
		}
		switch {
		case refused(probeTemperature) && ok[probeTempNone]:
			r.Sampling = rules.SamplingFixedWhenReasoning
			// Sampling needs effort none given: the default is not none.
			// Which effort it is is not measured; any other than none
			// fits requests the same way.
			r.DefaultEffort = defaultGuess(efforts)
		case ok[probeTemperature] && refused(probeTempOn) && ok[probeTempNone]:
			r.Sampling, r.DefaultEffort = rules.SamplingFixedWhenReasoning, "none"
		case refused(probeTemperature) || refused(probeTopP):
			r.Sampling = rules.SamplingFixed
		case refused(probeBoth):
			r.Sampling = rules.SamplingExclusive
		}
		// Function tools refused with an effort the model takes without
		// them, or with its default effort but not with none.
		switch {
		case refused(probeToolsNone) && refused(probeToolsBare) && refused(probeToolsHigh) && len(efforts) > 0:
			r.ChatTools = rules.ChatToolsResponses
		case ok[probeEffort+"high"] && refused(probeToolsHigh) || refused(probeToolsBare) && ok[probeToolsNone]:
			r.ChatTools = rules.ChatToolsEffortNone
			if refused(probeToolsBare) && r.DefaultEffort == "" {
				r.DefaultEffort = defaultGuess(efforts)
			}
		}
		if l, learned := rules.Learn(nil, msg[probeForced]); refused(probeForced) && learned && l.Rule.ThinkingOff == rules.ThinkingOffDisabled {
			// The model thinks unless thinking.type is disabled.
			r.ThinkingOff = rules.ThinkingOffDisabled
		}
		if refused(probeDeveloper) {
			notes = append(notes, "the server refuses the developer role: its dialect needs system_role system")
		}
		if refused(probeUserAfter) {
			notes = append(notes, "the server refuses a user message right after a tool message: its dialect needs assistant_after_tool")
		}
	case codec.AnthropicMessages:
		switch {
		case ok[probeAdaptive] && len(efforts) > 0:
			r.Reasoning, r.Efforts = rules.ReasoningAdaptive, efforts
			notes = append(notes, "thinking with a budget is not probed (it needs more than 1024 output tokens): the row says adaptive; write reasoning budget+adaptive if the model also takes budget_tokens")
		case refused(probeAdaptive):
			r.Reasoning = rules.ReasoningBudget
		}
		switch {
		case refused(probeTemperature) || refused(probeTopP):
			r.Sampling = rules.SamplingFixed
		case refused(probeBoth):
			r.Sampling = rules.SamplingExclusive
		}
		if refused(probeDisabled) {
			r.ThinkingOff = rules.ThinkingOffOmit
			if refused(probeForced) {
				r.AlwaysThinks = true
			}
		}
		if refused(probePrefill) {
			r.NoPrefill = true
		}
	case codec.Gemini:
		var levels []string
		for _, l := range probeLevels {
			if ok[probeLevel+l] {
				levels = append(levels, l)
			}
		}
		var lo, hi int64
		for _, b := range []int64{1, 128, 512, 1024, 24576, 32768} {
			if ok[probeBudget+strconv.FormatInt(b, 10)] {
				if lo == 0 {
					lo = b
				}
				hi = b
			}
		}
		switch {
		case len(levels) > 0:
			r.Reasoning, r.Efforts = rules.ReasoningLevel, levels
			r.AlwaysThinks = refused(probeBudget + "0")
			if hi == 0 {
				notes = append(notes, "every thinking budget was refused: thinking by level only (a budget is sent as its nearest level)")
			}
		case hi > 0:
			r.Reasoning, r.BudgetMin, r.BudgetMax = rules.ReasoningBudget, lo, hi
			r.AlwaysThinks = refused(probeBudget + "0")
			notes = append(notes, "the budget range is bounded by the budgets probed (1, 128, 512, 1024, 24576, 32768)")
		case refused(probeBudget+"1024") && refused(probeLevel+"low"):
			r.Reasoning = rules.ReasoningNone
		}
		if refused(probePrefill) {
			r.NoPrefill = true
		}
		r.SignedCalls = refused(probeUnsigned) && strings.Contains(msg[probeUnsigned], "thought_signature")
	}
	if refused(probeStop) {
		r.Rejects = append(r.Rejects, "stop")
	}
	if refused(probePresence) {
		r.Rejects = append(r.Rejects, "presence_penalty")
	}
	if refused(probeFrequency) {
		r.Rejects = append(r.Rejects, "frequency_penalty")
	}
	if provider != "" && provider != "openai" && provider != "anthropic" && provider != "google" {
		r.Provider = provider
	}
	return r, notes
}

// defaultGuess is the effort a model whose default is not none is said to
// default to: medium when it takes it, else its lowest effort above none.
func defaultGuess(efforts []string) string {
	if slices.Contains(efforts, "medium") {
		return "medium"
	}
	for _, e := range efforts {
		if v, _ := mapping.ParseEffort(e); v > mapping.EffortNone {
			return e
		}
	}
	return ""
}
