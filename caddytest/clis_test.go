package caddytest

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/tidwall/gjson"
)

// TestRealCLIs runs the real agent CLIs (Claude Code, Codex CLI, Gemini CLI,
// Qwen Code; installed from npm by caddytest/clis/install.sh at the versions
// pinned there) through llmbridge against a scripted mock upstream of every
// protocol of another family. Each run is one tool-using turn: the mock
// answers the CLI's first request with a call of the CLI's own shell tool
// (echo llmbridge-<random>), the CLI runs the command and sends the result
// back, the mock checks that the result is attached to its call and answers
// text quoting it, and the test checks that the CLI printed that text.
//
// It is opt-in (it needs the CLIs installed, and takes minutes):
//
//	bash caddytest/clis/install.sh /tmp/llmbridge-clis
//	go test ./caddytest -run TestRealCLIs -clis -clis.dir /tmp/llmbridge-clis -timeout 60m -v
//
// A run is a subtest CLI/upstream (-run 'TestRealCLIs/codex/' picks one
// CLI); -clis.out writes the pass/fail matrix as markdown.
var (
	clisEnabled = flag.Bool("clis", false, "run TestRealCLIs: the real agent CLIs through llmbridge (install them with caddytest/clis/install.sh)")
	clisDir     = flag.String("clis.dir", "", "the directory caddytest/clis/install.sh installed the CLIs into (default $LLMBRIDGE_CLIS_DIR, else ${XDG_CACHE_HOME:-~/.cache}/llmbridge-clis)")
	clisTimeout = flag.Duration("clis.timeout", 120*time.Second, "time limit of one CLI run")
	clisOut     = flag.String("clis.out", "", "also write TestRealCLIs' matrix (markdown) to this file")
	clisVertex  = flag.Bool("clis.vertex", true, "also run every CLI against the Vertex upstreams (vertex, vertex-anthropic, vertex-interactions)")
	clisAround  = flag.Bool("clis.workarounds", false, "configure the CLIs around llmbridge's documented gaps (Codex without its namespace and web_search tools, Gemini CLI without topK) to reach the tool turn behind them")
	clisModels  = flag.Bool("clis.models", false, "run every CLI against every model of each upstream's rule table (one run per model) instead of one model per upstream")
	clisKeep    = flag.Bool("clis.keep", false, "keep each run's temporary HOME, work directory and upstream request log (their path is logged)")
)

// clisCommand is how to run TestRealCLIs, for the skip message.
const clisCommand = "bash caddytest/clis/install.sh /tmp/llmbridge-clis && go test ./caddytest -run TestRealCLIs -clis -clis.dir /tmp/llmbridge-clis -timeout 60m -v"

// cliClientKey is the key every CLI sends; llmbridge passes it on in the
// upstream's credential scheme and the mocks accept any.
const cliClientKey = "sk-llmbridge-cli-test"

// cliSpec is one agent CLI: its binary in node_modules/.bin, the protocol
// it speaks, and how to run it against a base URL.
type cliSpec struct {
	name   string
	bin    string
	client proto
	// shellTools are the names its shell tool may have, in order of
	// preference.
	shellTools []string
	// prepare writes the CLI's configuration under home and returns its
	// arguments and extra environment for a run against site (the Caddy
	// site's base URL, no trailing slash).
	// With workarounds it configures the CLI around llmbridge's
	// documented gaps (-clis.workarounds).
	prepare func(home, site, prompt string, up proto, workarounds bool) (args, env []string, err error)
	// socket reports that the CLI opens a Responses WebSocket first: its
	// turns must go over it, with no fallback to HTTP.
	socket bool
}

var cliSpecs = []cliSpec{
	{
		name: "claude-code", bin: "claude", client: anthropicMsgs, shellTools: []string{"Bash"},
		prepare: func(home, site, prompt string, up proto, workarounds bool) ([]string, []string, error) {
			// As root --dangerously-skip-permissions is refused;
			// --allowedTools Bash lets the shell tool run unasked.
			return []string{"-p", prompt, "--model", "claude-sonnet-4-5", "--allowedTools", "Bash"},
				[]string{"ANTHROPIC_BASE_URL=" + site, "ANTHROPIC_API_KEY=" + cliClientKey,
					"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_AUTOUPDATER=1"}, nil
		},
	},
	{
		// Claude Code in Bedrock mode, as Amazon's documentation
		// configures it with a Bedrock endpoint: InvokeModel paths,
		// Bedrock model ids, event streams. It authenticates with a
		// Bedrock API key (a bearer token), which the site passes on as
		// the upstream's credential.
		name: "claude-code-bedrock", bin: "claude", client: bedrockAnthropic, shellTools: []string{"Bash"},
		prepare: func(home, site, prompt string, up proto, workarounds bool) ([]string, []string, error) {
			return []string{"-p", prompt, "--model", cliBedrockModel, "--allowedTools", "Bash"},
				[]string{"CLAUDE_CODE_USE_BEDROCK=1", "ANTHROPIC_BEDROCK_BASE_URL=" + site, "AWS_BEARER_TOKEN_BEDROCK=" + cliClientKey,
					"AWS_REGION=" + awsRegion, "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_AUTOUPDATER=1"}, nil
		},
	},
	{
		name: "codex", bin: "codex", client: openaiResponses, shellTools: codexShellTools,
		prepare: func(home, site, prompt string, up proto, workarounds bool) ([]string, []string, error) {
			return prepareCodex(home, prompt, up, workarounds, `model = "gpt-5-codex"
model_provider = "llmbridge"

[model_providers.llmbridge]
name = "llmbridge"
base_url = "`+site+`/v1"
env_key = "LLMBRIDGE_CLI_KEY"
wire_api = "responses"
`)
		},
	},
	{
		// Codex with its built-in OpenAI provider pointed at the
		// gateway, the simplest configuration (docs/recipes.md): it
		// opens a Responses WebSocket on /v1/responses and sends the
		// key of CODEX_API_KEY (codex exec's; interactive Codex reads
		// the one codex login stored).
		name: "codex-builtin", bin: "codex", client: openaiResponses, shellTools: codexShellTools, socket: true,
		prepare: func(home, site, prompt string, up proto, workarounds bool) ([]string, []string, error) {
			args, env, err := prepareCodex(home, prompt, up, workarounds, `model = "gpt-5-codex"
openai_base_url = "`+site+`/v1"
`)
			return args, append(env, "CODEX_API_KEY="+cliClientKey), err
		},
	},
	{
		// Codex with an Azure OpenAI provider, as Azure's documentation
		// configures it: its Responses requests go to
		// /openai/responses?api-version=..., which llmbridge recognises.
		name: "codex-azure", bin: "codex", client: openaiResponses, shellTools: codexShellTools,
		prepare: func(home, site, prompt string, up proto, workarounds bool) ([]string, []string, error) {
			return prepareCodex(home, prompt, up, workarounds, `model = "gpt-5-codex"
model_provider = "azure"

[model_providers.azure]
name = "Azure OpenAI"
base_url = "`+site+`/openai"
env_key = "LLMBRIDGE_CLI_KEY"
query_params = { api-version = "2025-04-01-preview" }
wire_api = "responses"
`)
		},
	},
	{
		name: "gemini-cli", bin: "gemini", client: gemini, shellTools: []string{"run_shell_command", "shell"},
		prepare: func(home, site, prompt string, up proto, workarounds bool) ([]string, []string, error) {
			dir := filepath.Join(home, ".gemini")
			if err := os.MkdirAll(dir, 0o700); err != nil {
				return nil, nil, err
			}
			settings := `{"security":{"auth":{"selectedType":"gemini-api-key"}},"privacy":{"usageStatisticsEnabled":false},"telemetry":{"enabled":false}}`
			if workarounds {
				// chat-base without topK 64, which llmbridge rejects
				// toward the OpenAI protocols.
				settings = `{"security":{"auth":{"selectedType":"gemini-api-key"}},"privacy":{"usageStatisticsEnabled":false},"telemetry":{"enabled":false},` +
					`"modelConfigs":{"customAliases":{"chat-base":{"extends":"base","modelConfig":{"generateContentConfig":{"thinkingConfig":{"includeThoughts":true},"temperature":1,"topP":0.95}}}}}}`
			}
			if err := os.WriteFile(filepath.Join(dir, "settings.json"), []byte(settings), 0o600); err != nil {
				return nil, nil, err
			}
			return []string{"-p", prompt, "-m", "gemini-2.5-flash", "--yolo", "--skip-trust"},
				[]string{"GOOGLE_GEMINI_BASE_URL=" + site, "GEMINI_API_KEY=" + cliClientKey}, nil
		},
	},
	{
		name: "qwen-code", bin: "qwen", client: openaiChat, shellTools: []string{"run_shell_command", "shell"},
		prepare: func(home, site, prompt string, up proto, workarounds bool) ([]string, []string, error) {
			dir := filepath.Join(home, ".qwen")
			if err := os.MkdirAll(dir, 0o700); err != nil {
				return nil, nil, err
			}
			settings := `{"security":{"auth":{"selectedType":"openai"}},"privacy":{"usageStatisticsEnabled":false},"telemetry":{"enabled":false}}`
			if err := os.WriteFile(filepath.Join(dir, "settings.json"), []byte(settings), 0o600); err != nil {
				return nil, nil, err
			}
			return []string{"-p", prompt, "-m", "qwen3-coder-plus", "--yolo"},
				[]string{"OPENAI_BASE_URL=" + site + "/v1", "OPENAI_API_KEY=" + cliClientKey, "OPENAI_MODEL=qwen3-coder-plus"}, nil
		},
	},
}

// cliModels are the real upstream models each CLI's requests are routed
// to, per upstream: the mocks enforce those models' reject-level rules
// (enforceModelRules), so every cell shows that a CLI's own requests
// (reasoning on, a tool loop) are fitted to a real model. Together the
// cells cover every reasoning kind of the rule table.
var cliModels = map[proto]map[proto]string{
	anthropicMsgs: {openaiChat: "gpt-5", openaiResponses: "gpt-5.5", gemini: "gemini-4-argon", vertex: "gemini-3.5-flash-lite",
		azureOpenAI: "gpt-5.2", bedrockAnthropic: "us.anthropic.claude-sonnet-4-5-20250929-v1:0",
		bedrockConverse: "global.anthropic.claude-sonnet-4-5-20250929-v1:0", geminiInteractions: "gemini-3.5-flash",
		vertexInteractions: "gemini-2.5-pro"},
	// Toward anthropic-messages Claude Code's Bedrock model id goes
	// unrouted: llmbridge sends the vendor's name.
	bedrockAnthropic: {openaiChat: "gpt-5.1", openaiResponses: "gpt-5-codex", gemini: "gemini-2.5-pro", vertex: "gemini-2.5-flash",
		vertexAnthropic: "claude-sonnet-4-5@20250929", azureOpenAI: "gpt-5.2", geminiInteractions: "gemini-3-pro-preview",
		vertexInteractions: "gemini-2.5-flash"},
	openaiResponses: {openaiChat: "gpt-4.1", anthropicMsgs: "claude-sonnet-5-5", gemini: "gemini-3.1-pro-preview", vertex: "gemini-2.5-pro",
		vertexAnthropic: "claude-opus-4-7", bedrockAnthropic: "global.anthropic.claude-opus-4-5-20251101-v1:0",
		bedrockConverse: "us.anthropic.claude-opus-4-1-20250805-v1:0", geminiInteractions: "gemini-4-argon",
		vertexInteractions: "gemini-3-flash-preview"},
	gemini: {openaiChat: "o3", openaiResponses: "gpt-5.3-codex", anthropicMsgs: "claude-opus-5", vertexAnthropic: "claude-sonnet-4-6",
		bedrockAnthropic: "us.anthropic.claude-haiku-4-5-20251001-v1:0", bedrockConverse: "us.anthropic.claude-sonnet-4-20250514-v1:0",
		azureOpenAI: "gpt-4o"},
	openaiChat: {openaiResponses: "gpt-6-luna", anthropicMsgs: "claude-haiku-4-5", gemini: "gemini-3.5-flash-lite", vertex: "gemini-2.5-flash-lite",
		vertexAnthropic: "claude-opus-4-6", bedrockAnthropic: "anthropic.claude-sonnet-4-20250514-v1:0",
		bedrockConverse: "amazon.nova-pro-v1:0", geminiInteractions: "gemini-3.1-flash-lite", vertexInteractions: "gemini-2.5-pro"},
}

// cliBedrockModel is the model id Claude Code asks for in Bedrock mode:
// a cross-region inference profile.
const cliBedrockModel = "us.anthropic.claude-sonnet-4-5-20250929-v1:0"

// cliModelRoutes are the model settings of upstream up's site: each CLI's
// model names (Claude Code claude-*, Codex gpt-*, Gemini CLI gemini-*,
// Qwen Code qwen*) go to that CLI's model of cliModels.
func cliModelRoutes(up proto) string {
	var b strings.Builder
	for _, r := range [...]struct {
		glob   string
		client proto
	}{{"claude-*", anthropicMsgs}, {"*anthropic.claude-*", bedrockAnthropic}, {"gpt-*", openaiResponses}, {"gemini-*", gemini}, {"qwen*", openaiChat}} {
		if m := cliModels[r.client][up]; m != "" {
			fmt.Fprintf(&b, "\t\tmodel %s %s\n", r.glob, m)
		}
	}
	return b.String()
}

// cliUpstreamAxis is every upstream protocol of the CLI matrix: the
// protocols of the SDK suites and Azure OpenAI.
var cliUpstreamAxis = append(append([]proto(nil), allProtocols...), azureOpenAI)

// cliUpstreams are the upstream protocols a CLI speaking client runs
// against: every protocol that translates its requests. A client served in
// its own wire format (an upstream of its family, or Azure OpenAI for the
// OpenAI clients) passes through, which TestAzureUpstreams and the
// passthrough suites cover; but Anthropic's protocols on Bedrock and off
// it frame streams, errors and betas differently, so between those the
// CLIs run too.
func cliUpstreams(client proto) []proto {
	var ups []proto
	for _, p := range cliUpstreamAxis {
		sameWire := p.family() == client.family() && p.isAWS() == client.isAWS()
		if p == client || sameWire || p == azureOpenAI && azureFamily(client) == client.family() {
			continue
		}
		if !*clisVertex && (p == vertex || p == vertexAnthropic || p == vertexInteractions) {
			continue
		}
		if *clisModels && p == azureOpenAI {
			// -clis.models runs the rule tables of the SDK suites'
			// upstreams, which have a site per model.
			continue
		}
		ups = append(ups, p)
	}
	return ups
}

// cliRunResult is one cell of the matrix.
type cliRunResult struct {
	cli      string
	upstream proto
	model    string
	pass     bool
	reason   string
	took     time.Duration
}

func TestRealCLIs(t *testing.T) {
	if !*clisEnabled {
		t.Skip("real agent CLIs are opt-in; run: " + clisCommand)
	}
	dir := *clisDir
	if dir == "" {
		dir = os.Getenv("LLMBRIDGE_CLIS_DIR")
	}
	if dir == "" {
		cache, err := os.UserCacheDir()
		if err != nil {
			t.Fatalf("no -clis.dir and no user cache directory: %v", err)
		}
		dir = filepath.Join(cache, "llmbridge-clis")
	}
	binDir, err := filepath.Abs(filepath.Join(dir, "node_modules", ".bin"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cliSpecs {
		if _, err := os.Stat(filepath.Join(binDir, c.bin)); err != nil {
			t.Fatalf("%s is not installed in %s (%v); install the CLIs with: bash caddytest/clis/install.sh %s", c.bin, binDir, err, dir)
		}
	}
	env := cliSetup(t)

	var results []cliRunResult
	for _, c := range cliSpecs {
		t.Run(c.name, func(t *testing.T) {
			if site, ok := env.failoverSite[c.client]; ok && !*clisModels {
				// The CLI's own provider answers 529 to every request;
				// the failover site's second target completes the turn.
				t.Run("failover", func(t *testing.T) {
					up := failoverUpstream(c.client)
					before := env.overloadedHits[c.client].Load()
					res := env.run(t, binDir, c, up, site, cliModels[c.client][up])
					if n := env.overloadedHits[c.client].Load() - before; n < 2 {
						t.Errorf("the overloaded first target answered %d requests, want every one of the turn's (at least 2)", n)
					}
					res.cli += " (failover)"
					results = append(results, res)
					if !res.pass {
						t.Errorf("%s, its provider overloaded, failing over to %s: %s", c.name, up, res.reason)
					}
				})
			}
			for _, up := range cliUpstreams(c.client) {
				t.Run(string(up), func(t *testing.T) {
					if !*clisModels {
						res := env.run(t, binDir, c, up, env.siteFor(up, c.client), cliModels[c.client][up])
						results = append(results, res)
						if !res.pass {
							t.Errorf("%s -> %s: %s", c.name, up, res.reason)
						}
						return
					}
					for _, model := range ruleModels(up) {
						t.Run(model, func(t *testing.T) {
							res := env.run(t, binDir, c, up, env.modelSites[up][model], model)
							results = append(results, res)
							if !res.pass && strings.Contains(res.reason, "upstream openai-responses") {
								// The documented refusal of function tools with
								// reasoning on Chat Completions (gpt-5.4 and later,
								// GPT-6) under the default policy, naming the fix.
								t.Logf("%s -> %s %s: refused as documented: %s", c.name, up, model, res.reason)
								return
							}
							if !res.pass {
								t.Errorf("%s -> %s %s: %s", c.name, up, model, res.reason)
							}
						})
					}
				})
			}
		})
	}
	table := cliMatrix(results)
	t.Log("\n" + table)
	if *clisOut != "" {
		if err := os.WriteFile(*clisOut, []byte(table), 0o644); err != nil {
			t.Errorf("writing -clis.out: %v", err)
		}
	}
}

// cliMatrix renders the results as a markdown table (CLI x upstream) and a
// list of the failures' reasons.
func cliMatrix(results []cliRunResult) string {
	var b strings.Builder
	b.WriteString("| CLI (client protocol) |")
	for _, p := range cliUpstreamAxis {
		b.WriteString(" " + string(p) + " |")
	}
	b.WriteString("\n|---|")
	for range cliUpstreamAxis {
		b.WriteString("---|")
	}
	b.WriteString("\n")
	type tally struct {
		runs, passed int
		took         time.Duration
	}
	cell := map[string]*tally{}
	for _, r := range results {
		k := r.cli + "|" + string(r.upstream)
		if cell[k] == nil {
			cell[k] = &tally{}
		}
		c := cell[k]
		c.runs++
		c.took += r.took
		if r.pass {
			c.passed++
		}
	}
	for _, c := range cliSpecs {
		fmt.Fprintf(&b, "| %s (%s) |", c.name, c.client)
		for _, p := range cliUpstreamAxis {
			r, ok := cell[c.name+"|"+string(p)]
			switch {
			case !ok:
				b.WriteString(" - |")
			case r.runs > 1:
				fmt.Fprintf(&b, " %d/%d models pass (%.0fs) |", r.passed, r.runs, r.took.Seconds())
			case r.passed == 1:
				fmt.Fprintf(&b, " pass (%.0fs) |", r.took.Seconds())
			default:
				fmt.Fprintf(&b, " FAIL (%.0fs) |", r.took.Seconds())
			}
		}
		b.WriteString("\n")
	}
	for _, r := range results {
		if !r.pass {
			fmt.Fprintf(&b, "\n- %s -> %s (%s): %s", r.cli, r.upstream, r.model, r.reason)
		}
	}
	b.WriteString("\n")
	return b.String()
}

// cliEnv is the Caddy configuration of TestRealCLIs: one site per upstream
// protocol, each in front of its scripted mock, with llmbridge's debug log
// in a file.
type cliEnv struct {
	mocks map[proto]*cliMock
	site  map[proto]string
	// modelSites has, with -clis.models, a site per model of each
	// upstream's rule table that routes every model there.
	modelSites map[proto]map[string]string
	// azureSite are the Azure OpenAI sites, by the OpenAI protocol whose
	// mock answers (and records) the CLI's requests.
	azureSite map[proto]string
	// failoverSite are, by client protocol, failover sites whose first
	// target, of the client's own protocol, answers 529 overloaded to
	// every request, and whose second is the mock of failoverUpstream.
	failoverSite map[proto]string
	// overloadedHits counts, by client protocol, the requests the
	// failover sites' first targets answered 529.
	overloadedHits map[proto]*atomic.Int64
	adminPort      int
	caddyfile      string
	debugLog       string
}

var (
	cliOnce      sync.Once
	sharedCLIEnv *cliEnv
	cliErr       error
)

// cliSetup loads the CLI sites into the test binary's one Caddy (the
// admin API of the shared integration environment).
func cliSetup(t *testing.T) *cliEnv {
	t.Helper()
	startCaddy(t)
	cliOnce.Do(func() { sharedCLIEnv, cliErr = newCLIEnv(sharedEnv.adminPort) })
	if cliErr != nil {
		t.Fatalf("setting up the CLI environment: %v", cliErr)
	}
	loadCaddyfile(t, sharedCLIEnv.caddyfile)
	return sharedCLIEnv
}

func newCLIEnv(adminPort int) (*cliEnv, error) {
	e := &cliEnv{mocks: map[proto]*cliMock{}, site: map[proto]string{}, modelSites: map[proto]map[string]string{}, adminPort: adminPort,
		azureSite: map[proto]string{}, failoverSite: map[proto]string{}, overloadedHits: map[proto]*atomic.Int64{}}
	logDir, err := os.MkdirTemp("", "llmbridge-clis-")
	if err != nil {
		return nil, err
	}
	e.debugLog = filepath.Join(logDir, "debug.log")
	// Mocks and fronts take their ports first, so that the site ports
	// chosen after them are none of theirs.
	type siteSpec struct {
		p      proto
		front  *cliFront
		routes string
		// upstream is the reverse_proxy target, the protocol's mock
		// when empty; extra are more llmbridge settings.
		upstream, extra string
	}
	var specs []siteSpec
	for _, p := range allProtocols {
		m, err := newCLIMock(p)
		if err != nil {
			return nil, err
		}
		e.mocks[p] = m
		front, err := newCLIFront(m)
		if err != nil {
			return nil, err
		}
		// The CLIs reach the site through a recorder of their requests.
		e.site[p] = "http://" + front.addr()
		specs = append(specs, siteSpec{p: p, front: front, routes: cliModelRoutes(p)})
		if !*clisModels {
			continue
		}
		e.modelSites[p] = map[string]string{}
		for _, model := range ruleModels(p) {
			front, err := newCLIFront(m)
			if err != nil {
				return nil, err
			}
			e.modelSites[p][model] = "http://" + front.addr()
			specs = append(specs, siteSpec{p: p, front: front, routes: "\t\tmodel * " + model + "\n"})
		}
	}
	// The Azure OpenAI site sends to an Azure front before the OpenAI
	// mocks; a CLI's requests are recorded by the mock that answers them
	// (Codex's by the Responses mock, the others' by the Chat mock).
	az := newAzureFront(azureV1, "http://"+e.mocks[openaiChat].addr(), "http://"+e.mocks[openaiResponses].addr())
	for _, p := range []proto{openaiChat, openaiResponses} {
		front, err := newCLIFront(e.mocks[p])
		if err != nil {
			return nil, err
		}
		e.azureSite[p] = "http://" + front.addr()
		specs = append(specs, siteSpec{p: azureOpenAI, front: front, routes: cliModelRoutes(azureOpenAI),
			upstream: az.addr(), extra: "\t\tapi_key " + upstreamKey + "\n"})
	}
	// The failover sites: the CLI's own provider overloaded, then
	// another family's.
	type failoverSpec struct {
		client proto
		front  *cliFront
	}
	var failovers []failoverSpec
	for _, c := range cliSpecs {
		if _, ok := e.failoverSite[c.client]; ok || c.client == azureOpenAI {
			continue
		}
		front, err := newCLIFront(e.mocks[failoverUpstream(c.client)])
		if err != nil {
			return nil, err
		}
		e.failoverSite[c.client] = "http://" + front.addr()
		failovers = append(failovers, failoverSpec{client: c.client, front: front})
	}
	overloaded := map[proto]*httptest.Server{}
	for _, f := range failovers {
		p := f.client
		hits := new(atomic.Int64)
		e.overloadedHits[p] = hits
		overloaded[p] = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			hits.Add(1)
			_, _ = io.Copy(io.Discard, r.Body)
			writeBody(w, false, 529, nativeErrorHeader(p, 529), nativeError(p, 529, "Overloaded"))
		}))
	}
	ports, err := freePorts(2 + len(specs) + len(failovers))
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	fmt.Fprintf(&b, `{
	admin localhost:%d
	http_port %d
	https_port %d
	grace_period 1ns
	log llmbridge_clis {
		output file %s
		level DEBUG
		include http.handlers.llmbridge
	}
}
`, adminPort, ports[0], ports[1], e.debugLog)
	for i, sp := range specs {
		port := ports[2+i]
		upstream := sp.upstream
		if upstream == "" {
			upstream = e.mocks[sp.p].addr()
		}
		sp.front.setSite(fmt.Sprintf("127.0.0.1:%d", port))
		// No host in the site address: the CLIs call 127.0.0.1. Gemini
		// CLI always sends topK, which OpenAI cannot take: the recipe
		// in docs/recipes.md drops it, as an operator would (a no-op for other
		// clients).
		fmt.Fprintf(&b, `
http://:%d {
	llmbridge {
		upstream %s
%s		drop generationConfig.topK
%s%s	}
	reverse_proxy %s
}
`, port, sp.p, cloudSettings(sp.p), sp.extra, sp.routes, upstream)
	}
	for i, f := range failovers {
		port := ports[2+len(specs)+i]
		f.front.setSite(fmt.Sprintf("127.0.0.1:%d", port))
		up := failoverUpstream(f.client)
		target := func(name string, p proto, routes, addr string) {
			fmt.Fprintf(&b, "\n&(%s) {\n\troute {\n\t\tllmbridge {\n\t\t\tupstream %s\n%s\t\t\tdrop generationConfig.topK\n%s\t\t}\n\t\treverse_proxy %s\n\t}\n}\n",
				name, p, strings.ReplaceAll(cloudSettings(p), "\t\t", "\t\t\t"), strings.ReplaceAll(routes, "\t\t", "\t\t\t"), addr)
		}
		first, second := "cli-overloaded-"+string(f.client), "cli-failover-"+string(f.client)
		target(first, f.client, "", strings.TrimPrefix(overloaded[f.client].URL, "http://"))
		target(second, up, cliModelRoutes(up), e.mocks[up].addr())
		// Every request meets the overloaded target: its cooldown ends
		// at once.
		fmt.Fprintf(&b, "\nhttp://:%d {\n\tllmbridge {\n\t\tfailover %s %s {\n\t\t\tcooldown 1ns\n\t\t\tcircuit_breaker 1000000 1s 1ns\n\t\t}\n\t}\n}\n", port, first, second)
	}
	e.caddyfile = b.String()
	return e, nil
}

// failoverUpstream is the second target of the failover site of a CLI
// speaking client: the first upstream of another family it runs against.
func failoverUpstream(client proto) proto {
	return cliUpstreams(client)[0]
}

// azureFamily is the OpenAI protocol an azure-openai upstream serves a
// client of protocol client in: Responses for a Responses client, Chat
// Completions for the others.
func azureFamily(client proto) proto {
	if client.family() == openaiResponses {
		return openaiResponses
	}
	return openaiChat
}

// mockFor returns the mock that answers client's requests to upstream up.
func (e *cliEnv) mockFor(up, client proto) *cliMock {
	if up == azureOpenAI {
		return e.mocks[azureFamily(client)]
	}
	return e.mocks[up]
}

// siteFor returns the site a CLI speaking client runs against for up.
func (e *cliEnv) siteFor(up, client proto) string {
	if up == azureOpenAI {
		return e.azureSite[azureFamily(client)]
	}
	return e.site[up]
}

// run runs CLI c once against upstream up and reports the cell.
func (e *cliEnv) run(t *testing.T, binDir string, c cliSpec, up proto, site, model string) cliRunResult {
	res := cliRunResult{cli: c.name, upstream: up, model: model}
	token := "llmbridge-" + randomHex(6)
	want := "The command printed " + token + "."
	m := e.mockFor(up, c.client)
	m.start(token, c.shellTools, want)

	tmp := t.TempDir()
	if *clisKeep {
		var err error
		if tmp, err = os.MkdirTemp("", "llmbridge-cli-"+c.name+"-"+string(up)+"-"); err != nil {
			t.Fatal(err)
		}
		t.Logf("run directory: %s", tmp)
	}
	home, work, tmpDir := filepath.Join(tmp, "home"), filepath.Join(tmp, "work"), filepath.Join(tmp, "tmp")
	for _, d := range []string{home, work, tmpDir} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	prompt := "Run the shell command `echo " + token + "` with your shell tool and tell me exactly what it printed."
	args, extra, err := c.prepare(home, site, prompt, up, *clisAround)
	if err != nil {
		t.Fatal(err)
	}
	logSize := fileSize(e.debugLog)

	stdout, stderr, runErr, took := runCLI(filepath.Join(binDir, c.bin), args, cliEnviron(binDir, home, tmpDir, extra), work, *clisTimeout)
	res.took = took
	st := m.finish()

	var reasons []string
	if runErr != nil {
		reasons = append(reasons, "the CLI failed: "+runErr.Error())
	}
	if !strings.Contains(stdout, want) {
		reasons = append(reasons, fmt.Sprintf("stdout lacks %q", want))
	}
	for i, r := range st.client {
		if c.client.isAWS() && r.method == http.MethodGet && r.path == "/inference-profiles" && strings.HasPrefix(r.kind, "404 application/json") {
			// Claude Code's Bedrock mode lists the control plane's
			// inference profiles, which llmbridge does not serve; it
			// answers AWS's 404 and Claude Code goes on with the model
			// it was given.
			continue
		}
		if c.socket && r.method == http.MethodGet && strings.HasPrefix(r.kind, "101") {
			// The WebSocket, whose turns the upstream requests show.
			continue
		}
		if !strings.HasPrefix(r.kind, "2") {
			reasons = append(reasons, fmt.Sprintf("client request %d (%s %s) was answered %s: %s", i+1, r.method, r.path, r.kind, cliClip(strings.TrimSpace(r.answer), 400)))
		}
	}
	if c.socket {
		sockets, posts := 0, 0
		for _, r := range st.client {
			switch {
			case r.method == http.MethodGet && strings.HasPrefix(r.kind, "101"):
				sockets++
			case r.method == http.MethodPost:
				posts++
			}
		}
		if sockets == 0 || posts > 0 {
			reasons = append(reasons, fmt.Sprintf("%d WebSockets opened and %d requests over HTTP; want the turns over a WebSocket only", sockets, posts))
		}
		if strings.Contains(stderr+stdout, "Falling back") {
			reasons = append(reasons, "the CLI fell back from WebSockets to HTTP")
		}
	}
	reasons = append(reasons, st.problems()...)
	res.pass = len(reasons) == 0
	res.reason = strings.Join(reasons, "; ")

	t.Logf("%s -> %s in %v: client requests (%s); %d upstream requests (%s); shell tool %q, call id %q", c.name, up, took.Round(time.Millisecond),
		strings.Join(st.clientSummaries(), ", "), len(st.requests), strings.Join(st.summaries(), ", "), st.toolName, st.callID)
	if !res.pass {
		t.Logf("command: %s %s", c.bin, strings.Join(args, " "))
		t.Logf("stdout:\n%s", cliClip(stdout, 6000))
		t.Logf("stderr:\n%s", cliClip(stderr, 6000))
		for i, r := range st.client {
			t.Logf("client request %d: %s %s?%s (%d bytes, %s): %s\n  answered: %s", i+1, r.method, r.path, r.query, len(r.body), r.kind, cliClip(string(r.body), 3000), cliClip(r.answer, 1500))
		}
		for i, r := range st.requests {
			t.Logf("upstream request %d: %s %s?%s (%d bytes): %s\n  answered: %s", i+1, r.method, r.path, r.query, len(r.body), cliClip(string(r.body), 3000), cliClip(r.answer, 1500))
		}
		if log := readFrom(e.debugLog, logSize); log != "" {
			t.Logf("llmbridge debug log of the run:\n%s", cliClip(log, 6000))
		}
	}
	if *clisKeep {
		for i, r := range st.client {
			_ = os.WriteFile(filepath.Join(tmp, fmt.Sprintf("client-%02d.json", i+1)), r.body, 0o600)
			_ = os.WriteFile(filepath.Join(tmp, fmt.Sprintf("client-%02d.answer", i+1)), []byte(r.kind+"\n"+r.answer), 0o600)
		}
		for i, r := range st.requests {
			_ = os.WriteFile(filepath.Join(tmp, fmt.Sprintf("upstream-%02d.json", i+1)), r.body, 0o600)
			_ = os.WriteFile(filepath.Join(tmp, fmt.Sprintf("upstream-%02d.answer", i+1)), []byte(r.answer), 0o600)
		}
		_ = os.WriteFile(filepath.Join(tmp, "stdout"), []byte(stdout), 0o600)
		_ = os.WriteFile(filepath.Join(tmp, "stderr"), []byte(stderr), 0o600)
	}
	return res
}

// cliEnviron is a clean environment for a CLI run: no credentials or
// settings of the machine's user, HOME in the run's directory.
func cliEnviron(binDir, home, tmpDir string, extra []string) []string {
	env := []string{
		"HOME=" + home,
		"PATH=" + binDir + string(os.PathListSeparator) + os.Getenv("PATH"),
		"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"XDG_CACHE_HOME=" + filepath.Join(home, ".cache"),
		"XDG_DATA_HOME=" + filepath.Join(home, ".local", "share"),
		"XDG_STATE_HOME=" + filepath.Join(home, ".local", "state"),
		"TMPDIR=" + tmpDir,
		"LANG=C.UTF-8",
		"TERM=dumb",
		"NO_COLOR=1",
		"SHELL=/bin/bash",
		"NO_PROXY=127.0.0.1,localhost",
	}
	return append(env, extra...)
}

// runCLI runs bin in its own process group, killing the group at the time
// limit.
func runCLI(bin string, args, env []string, dir string, limit time.Duration) (stdout, stderr string, err error, took time.Duration) {
	cmd := exec.Command(bin, args...)
	cmd.Env, cmd.Dir = env, dir
	cmd.Stdin = nil
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return "", "", err, 0
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	timer := time.NewTimer(limit)
	defer timer.Stop()
	select {
	case err = <-done:
	case <-timer.C:
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-done
		err = fmt.Errorf("timed out after %v", limit)
	}
	// Whatever the CLI left running (a shell it started) goes too.
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	return out.String(), errb.String(), err, time.Since(start)
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

func cliClip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + fmt.Sprintf("... (%d bytes more)", len(s)-n)
}

func fileSize(path string) int64 {
	fi, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return fi.Size()
}

func readFrom(path string, off int64) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	if _, err := f.Seek(off, io.SeekStart); err != nil {
		return ""
	}
	b, _ := io.ReadAll(f)
	return string(b)
}

// cliMock is the scripted upstream of one protocol. For a run it answers
// the first request that offers the CLI's shell tool with a call of it
// (echo <token>, streamed in fragments), the request carrying that call's
// result with text quoting the result, and any other request (titles,
// checks a CLI makes on the side) with short text.
type cliMock struct {
	proto proto
	srv   *http.Server
	ln    net.Listener

	mu sync.Mutex
	st *cliRunState
}

// cliRunState is what the mock saw during one run.
type cliRunState struct {
	token      string
	shellTools []string
	finalText  string

	requests []cliRequest
	// client is what the CLI sent to llmbridge and what it got back
	// (the answer only when it was not a 2xx).
	client []cliRequest
	// toolName, callID and callArgs are the call the mock made (callID
	// empty for the Google protocols, which give none).
	toolName, callID, callArgs string
	// callsMade counts the tool-call answers; resultSeen is set when a
	// request carried the token in a tool result attached to the call,
	// finalSent when the quoting answer went out.
	callsMade  int
	resultSeen bool
	finalSent  bool
	issues     []string
}

type cliRequest struct {
	method, path, query string
	body                []byte
	kind                string
	answer              string
}

func newCLIMock(p proto) (*cliMock, error) {
	m := &cliMock{proto: p}
	var err error
	m.srv, m.ln, err = serveMock(m.serveHTTP)
	return m, err
}

func (m *cliMock) addr() string { return m.ln.Addr().String() }

func (m *cliMock) start(token string, shellTools []string, finalText string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.st = &cliRunState{token: token, shellTools: shellTools, finalText: finalText}
}

func (m *cliMock) finish() *cliRunState {
	m.mu.Lock()
	defer m.mu.Unlock()
	st := m.st
	m.st = nil
	if st == nil {
		return &cliRunState{}
	}
	return st
}

// problems is why the run failed on the upstream side.
func (st *cliRunState) problems() []string {
	var out []string
	if st.callsMade == 0 {
		out = append(out, "the mock never answered with a tool call (no request offered the shell tool "+strings.Join(st.shellTools, "/")+")")
	} else if !st.resultSeen {
		out = append(out, "no upstream request carried the command's output as the result of call "+cmp(st.callID, st.toolName))
	}
	if st.resultSeen && !st.finalSent {
		out = append(out, "the quoting answer was never sent")
	}
	return append(out, st.issues...)
}

func cmp(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func (st *cliRunState) clientSummaries() []string {
	var out []string
	for _, r := range st.client {
		out = append(out, r.method+" "+r.path+" "+r.kind)
	}
	return out
}

func (st *cliRunState) summaries() []string {
	var out []string
	for _, r := range st.requests {
		out = append(out, r.kind)
	}
	return out
}

func (m *cliMock) serveHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	rec := &recordedRequest{Method: r.Method, Path: r.URL.EscapedPath(), RawQuery: r.URL.RawQuery, Host: r.Host, Header: r.Header.Clone(), Body: body}
	p := m.proto
	m.mu.Lock()
	defer m.mu.Unlock()
	st := m.st
	if st == nil {
		st = &cliRunState{}
	}
	req := cliRequest{method: r.Method, path: r.URL.Path, query: r.URL.RawQuery, body: body}
	defer func() { st.requests = append(st.requests, req) }()
	gz := strings.Contains(r.Header.Get("Accept-Encoding"), "gzip")

	if _, ok := p.upstreamPathModel(r.URL.Path); r.Method != http.MethodPost || !ok {
		req.kind = "404 " + r.Method + " " + r.URL.Path
		req.answer = nativeError(p, http.StatusNotFound, "no such endpoint "+r.URL.Path)
		writeBody(w, false, http.StatusNotFound, http.Header{"Content-Type": {"application/json"}}, req.answer)
		return
	}
	// The suite's provider validation: what a real provider would refuse,
	// for the protocol and for the model.
	model := rec.model(p)
	problems := validateRequest(p, rec)
	if gjson.ValidBytes(body) {
		problems = append(problems, enforceModelRules(p, model, body)...)
	}
	if len(problems) > 0 {
		st.issues = append(st.issues, fmt.Sprintf("upstream request %d would be refused by %s for %s: %s", len(st.requests)+1, p, model, strings.Join(problems, "; ")))
	}
	rec.Stream = streamRequested(p, rec)
	v := viewTools(p, body)

	text := "OK."
	kind := "side"
	var call *mockCall
	if res, ok := m.resultWithToken(st, v); ok {
		kind = "result"
		st.resultSeen = true
		st.checkResult(p, v, res, len(st.requests)+1)
		if got, want := opaqueSlots(p, body), issuedOpaque(p); !containsAll(got, want) {
			st.issues = append(st.issues, fmt.Sprintf("upstream request %d (with the tool result) carries the reasoning state %q, want the issued %q",
				len(st.requests)+1, clipAll(got), clipAll(want)))
		}
		text = st.finalText
		st.finalSent = rec.Stream || st.finalSent
		if !rec.Stream {
			st.issues = append(st.issues, fmt.Sprintf("upstream request %d (with the tool result) was not streamed", len(st.requests)+1))
		}
	} else if tool, ok := st.shellTool(v); ok && len(v.Calls) == 0 && len(v.Results) == 0 {
		kind = "call"
		args, err := shellArgs(tool.Schema, "echo "+st.token)
		if err != nil {
			st.issues = append(st.issues, fmt.Sprintf("shell tool %s: %v", tool.Name, err))
		} else {
			id := ""
			switch p {
			case openaiChat:
				id = "call_" + randomHex(12)
			case openaiResponses:
				id = "call_" + randomHex(12)
			case anthropicMsgs:
				id = "toolu_01" + randomHex(11)
			case vertexAnthropic:
				id = "toolu_vrtx_01" + randomHex(10)
			case bedrockAnthropic:
				id = "toolu_bdrk_01" + randomHex(10)
			case bedrockConverse:
				id = "tooluse_" + randomHex(11)
			case geminiInteractions, vertexInteractions:
				id = "fc_" + randomHex(8)
			}
			st.toolName, st.callID, st.callArgs = tool.Name, id, args
			st.callsMade++
			call = &mockCall{ID: id, Name: tool.Name, Args: args, Fragments: splitText(args, 3)}
		}
	} else if len(v.Results) > 0 {
		kind = "other-result"
		var texts []string
		for _, r := range v.Results {
			texts = append(texts, fmt.Sprintf("%s=%q", cmp(r.ID, r.Name), cliClip(r.Text, 300)))
		}
		st.issues = append(st.issues, fmt.Sprintf("upstream request %d carried tool results without the token: %s", len(st.requests)+1, strings.Join(texts, ", ")))
		text = "The command did not print the token."
	} else if wantsJSON(p, body) {
		// Gemini CLI's next-speaker check and the like ask for JSON.
		kind = "json"
		text = `{"reasoning":"The answer is complete.","next_speaker":"user"}`
	}
	if problems := cliViewProblems(p, body, v.Problems); len(problems) > 0 {
		st.issues = append(st.issues, fmt.Sprintf("upstream request %d: %s", len(st.requests)+1, strings.Join(problems, "; ")))
	}
	if rec.Stream {
		kind += "/stream"
	}
	req.kind = kind

	if call != nil {
		// The call comes after reasoning with the upstream's own opaque
		// values, which must come back with the result (checkResult).
		sc := toolCallAnswer(p, model, []mockCall{*call}, rec.Stream)
		if issuedOpaque(p) != nil {
			sc = reasoningCallAnswer(p, model, rec.Stream, *call)
		}
		req.answer = sc.Body
		if isEventStreamHeader(sc.Header) {
			writeFrames(w, p, gz, sc.Status, sc.Header, splitFrames(sc.Body))
		} else {
			writeBody(w, gz, sc.Status, http.Header{"Content-Type": {"application/json"}}, sc.Body)
		}
		return
	}
	rep := reply{Text: text, Stop: "end", Usage: usage{Input: 200, Output: 12}}
	if rec.Stream {
		s := buildStream(p, model, rep)
		frames := append(slices.Clone(s.head), s.tail...)
		req.answer = strings.Join(frames, "")
		writeFrames(w, p, gz, http.StatusOK, http.Header{"Content-Type": {s.contentType}}, frames)
		return
	}
	req.answer = successBody(p, model, rep)
	writeBody(w, gz, http.StatusOK, http.Header{"Content-Type": {"application/json"}}, req.answer)
}

// containsAll reports whether every value of want is in got.
func containsAll(got, want []string) bool {
	for _, w := range want {
		if !slices.Contains(got, w) {
			return false
		}
	}
	return true
}

// cliViewProblems is viewTools' problems less the one it reports for a
// Gemini function declaration without parameters at all, which Gemini
// accepts (a Chat tool without parameters arrives so).
func cliViewProblems(p proto, body []byte, problems []string) []string {
	if !p.isGoogle() {
		return problems
	}
	ok := map[string]bool{}
	for i, t := range gjson.GetBytes(body, "tools").Array() {
		for j, d := range t.Get("functionDeclarations").Array() {
			if !d.Get("parameters").Exists() && !d.Get("parametersJsonSchema").Exists() {
				ok[fmt.Sprintf("tools[%d].functionDeclarations[%d] has no parametersJsonSchema", i, j)] = true
			}
		}
	}
	var out []string
	for _, pr := range problems {
		if head, _, _ := strings.Cut(pr, ":"); !ok[head] {
			out = append(out, pr)
		}
	}
	return out
}

// shellTool is the first of the request's tools named as the CLI's shell
// tool.
func (st *cliRunState) shellTool(v upView) (upTool, bool) {
	for _, name := range st.shellTools {
		for _, t := range v.Tools {
			if t.Name == name {
				return t, true
			}
		}
	}
	return upTool{}, false
}

// resultWithToken finds the tool result that carries the run's token.
func (m *cliMock) resultWithToken(st *cliRunState, v upView) (upResult, bool) {
	if st.token == "" {
		return upResult{}, false
	}
	for _, r := range v.Results {
		if strings.Contains(r.Text, st.token) {
			return r, true
		}
	}
	return upResult{}, false
}

// checkResult checks that the history carries the mock's call (id, name,
// arguments) and that res is attached to it: by id, or for the Google
// protocols (whose calls have no id from the upstream) by name.
func (st *cliRunState) checkResult(p proto, v upView, res upResult, n int) {
	bad := func(format string, args ...any) {
		st.issues = append(st.issues, fmt.Sprintf("upstream request %d: ", n)+fmt.Sprintf(format, args...))
	}
	if st.callsMade == 0 {
		bad("a tool result carries the token but the mock made no call: %+v", res)
		return
	}
	var found *upCall
	for i := range v.Calls {
		c := &v.Calls[i]
		if (st.callID != "" && c.ID == st.callID) || (st.callID == "" && c.Name == st.toolName) {
			found = c
		}
	}
	if found == nil {
		bad("the history has no call %s (%s); calls: %+v", st.toolName, cmp(st.callID, "no id"), v.Calls)
	} else {
		want, _ := parseJSONValue(st.callArgs)
		if found.Name != st.toolName || !reflect.DeepEqual(normJSON(found.Args), normJSON(want)) {
			g, _ := json.Marshal(found.Args)
			bad("the history's call is %s(%s), want %s(%s)", found.Name, g, st.toolName, st.callArgs)
		}
	}
	if p.isGoogle() {
		if res.Name != st.toolName {
			bad("the result is attached to %q, want the call's name %q", res.Name, st.toolName)
		}
		if found != nil && found.ID != res.ID {
			bad("the result's id %q differs from the call's id %q in the history", res.ID, found.ID)
		}
	} else if res.ID != st.callID {
		bad("the result is attached to call id %q, want %q", res.ID, st.callID)
	}
}

// wantsJSON reports whether the request asks for a JSON answer
// (structured output).
func wantsJSON(p proto, body []byte) bool {
	root := gjson.ParseBytes(body)
	switch p.family() {
	case openaiChat:
		return strings.HasPrefix(root.Get("response_format.type").Str, "json")
	case openaiResponses:
		return strings.HasPrefix(root.Get("text.format.type").Str, "json")
	case anthropicMsgs:
		return root.Get("output_format").Exists() || root.Get("output_config.format").Exists()
	case gemini:
		return root.Get("generationConfig.responseMimeType").Str == "application/json"
	case bedrockConverse:
		return root.Get("outputConfig.textFormat").Exists()
	case geminiInteractions:
		return root.Get("response_mime_type").Str == "application/json" || root.Get("response_format").Exists()
	}
	return false
}

// shellArgs writes the arguments of a shell tool call running command,
// after the tool's schema: the command goes into "command" or "cmd" (a
// string, or an argv array for tools that take one), every other required
// property gets a harmless value of its type.
func shellArgs(schema any, command string) (string, error) {
	s, _ := normJSON(schema).(map[string]any)
	props, _ := s["properties"].(map[string]any)
	if props == nil {
		return "", fmt.Errorf("the schema has no properties: %v", schema)
	}
	key := ""
	for _, k := range []string{"command", "cmd"} {
		if _, ok := props[k]; ok {
			key = k
			break
		}
	}
	if key == "" {
		return "", fmt.Errorf("the schema has neither command nor cmd: %v", schema)
	}
	args := map[string]any{}
	if ps, _ := props[key].(map[string]any); ps["type"] == "array" {
		args[key] = []string{"bash", "-lc", command}
	} else {
		args[key] = command
	}
	req, _ := s["required"].([]any)
	var names []string
	for _, r := range req {
		if n, ok := r.(string); ok && n != key {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	for _, n := range names {
		ps, _ := props[n].(map[string]any)
		switch ps["type"] {
		case "boolean":
			args[n] = false
		case "integer", "number":
			args[n] = 10000
		case "array":
			args[n] = []any{}
		case "object":
			args[n] = map[string]any{}
		default:
			args[n] = "Print the test token"
		}
	}
	if _, ok := props["description"]; ok {
		if _, set := args["description"]; !set {
			args["description"] = "Print the test token"
		}
	}
	b, err := json.Marshal(args)
	return string(b), err
}

// cliFront stands between a CLI and its Caddy site and records what the
// CLI sent and, for answers that are not a 2xx, what llmbridge answered.
type cliFront struct {
	ln  net.Listener
	srv *http.Server
	// target is the site the front forwards to; setSite sets it.
	target *url.URL
}

// setSite points the front at site (host:port), which is chosen after
// every front has its own port, so that no site port is one of theirs.
func (f *cliFront) setSite(site string) { f.target.Host = site }

func newCLIFront(m *cliMock) (*cliFront, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	target := &url.URL{Scheme: "http"}
	rp := httputil.NewSingleHostReverseProxy(target)
	rp.FlushInterval = -1
	rp.ModifyResponse = func(resp *http.Response) error {
		idx, _ := resp.Request.Context().Value(cliFrontKey{}).(int)
		answer := ""
		if resp.StatusCode >= 300 {
			b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
			_ = resp.Body.Close()
			resp.Body = io.NopCloser(bytes.NewReader(b))
			answer = string(b)
		}
		m.mu.Lock()
		defer m.mu.Unlock()
		if m.st != nil && idx > 0 && idx <= len(m.st.client) {
			r := &m.st.client[idx-1]
			r.kind = strconv.Itoa(resp.StatusCode) + " " + resp.Header.Get("Content-Type")
			if d := resp.Header.Get("Llmbridge-Dropped"); d != "" {
				r.kind += " dropped=" + d
			}
			r.answer = answer
		}
		return nil
	}
	f := &cliFront{ln: ln, target: target}
	f.srv = &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		rec := cliRequest{method: r.Method, path: r.URL.Path, query: r.URL.RawQuery, body: body}
		if ce := r.Header.Get("Content-Encoding"); ce != "" {
			rec.kind = "Content-Encoding " + ce
		}
		idx := 0
		m.mu.Lock()
		if m.st != nil {
			m.st.client = append(m.st.client, rec)
			idx = len(m.st.client)
		}
		m.mu.Unlock()
		rp.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), cliFrontKey{}, idx)))
	})}
	go func() { _ = f.srv.Serve(ln) }()
	return f, nil
}

type cliFrontKey struct{}

func (f *cliFront) addr() string { return f.ln.Addr().String() }

// codexShellTools are the names Codex's shell tool may have.
var codexShellTools = []string{"exec_command", "shell", "shell_command", "local_shell"}

// prepareCodex writes cfg, a Codex config.toml, under home (adjusted for
// the upstream as the recipes say) and returns Codex's arguments and
// environment.
func prepareCodex(home, prompt string, up proto, workarounds bool, cfg string) ([]string, []string, error) {
	codexHome := filepath.Join(home, ".codex")
	if err := os.MkdirAll(codexHome, 0o700); err != nil {
		return nil, nil, err
	}
	switch {
	case workarounds:
		cfg = "web_search = \"disabled\"\n" + cfg + "\n[features]\nmulti_agent = false\n"
	case up == openaiChat || up.isAWS():
		// Chat Completions, Converse and Claude on Bedrock have no
		// hosted web search: toward them Codex is configured without
		// one, as the recipe in docs/recipes.md says (llmbridge answers
		// 400 otherwise).
		cfg = "web_search = \"disabled\"\n" + cfg
	}
	if err := os.WriteFile(filepath.Join(codexHome, "config.toml"), []byte(cfg), 0o600); err != nil {
		return nil, nil, err
	}
	return []string{"exec", "--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox", prompt},
		[]string{"CODEX_HOME=" + codexHome, "LLMBRIDGE_CLI_KEY=" + cliClientKey}, nil
}
