package caddytest

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// The SDKs application developers build on, from npm, through llmbridge:
// the Vercel AI SDK (ai with @ai-sdk/openai, default settings: the
// Responses API with store on, so that the second step of a tool loop
// refers to the first answer's items by id) and openai-node's Responses
// helpers (the stream helper's finalResponse and parse, whose output, with
// the fields the helpers add to it, goes back as input). Each runs a
// two-step tool loop through every upstream, streamed and not. Conversations
// continued by previous_response_id: openai-node over HTTP (chain) and over
// its Responses WebSocket client (websocket), the Vercel AI SDK's
// previousResponseId (chain), and a second run of the OpenAI Agents SDK
// continuing the first (chain).

var (
	sdksEnabled = flag.Bool("sdks", false, "run TestRealSDKs: the Vercel AI SDK, openai-node, the OpenAI Agents SDK and @google/genai from npm through llmbridge (install them with caddytest/sdks/install.sh)")
	sdksDir     = flag.String("sdks.dir", "", "the directory caddytest/sdks/install.sh installed the SDKs into (default $LLMBRIDGE_SDKS_DIR, else ${XDG_CACHE_HOME:-~/.cache}/llmbridge-sdks)")
	sdksTimeout = flag.Duration("sdks.timeout", 60*time.Second, "time limit of one SDK run")
)

const sdksCommand = "bash caddytest/sdks/install.sh /tmp/llmbridge-sdks && go test ./caddytest -run TestRealSDKs -sdks -sdks.dir /tmp/llmbridge-sdks -v"

// sdkSpec is one SDK program and the modes it runs in.
type sdkSpec struct {
	name, script string
	// modes are the program's last argument, each a run; the first ones
	// stream when streamed says so.
	modes    []string
	streamed map[string]bool
	// client is the protocol the program speaks.
	client proto
	// reasoning adds a run per upstream and mode whose first answer is
	// signed reasoning before the call.
	reasoning bool
}

var sdkSpecs = []sdkSpec{
	{"vercel-ai", "vercel-ai.mjs", []string{"generate", "stream", "chain"}, map[string]bool{"stream": true}, openaiResponses, true},
	{"openai-node", "openai-node.mjs", []string{"parse", "stream", "chain", "websocket"}, map[string]bool{"stream": true, "websocket": true}, openaiResponses, false},
	{"openai-agents", "openai-agents.mjs", []string{"chain"}, nil, openaiResponses, false},
	// @google/genai's interactions.create: the whole history or
	// previous_interaction_id, streamed and not.
	{"google-genai", "google-genai.mjs", []string{"generate", "stream", "chain", "chain-stream"}, map[string]bool{"stream": true, "chain-stream": true}, geminiInteractions, true},
}

// continuesOverHTTP reports whether a mode continues by a stored id over
// HTTP (previous_response_id, previous_interaction_id), which toward an
// upstream of the client's own family passes through to the upstream's
// own stored responses or interactions (which the mock does not keep).
func continuesOverHTTP(mode string) bool { return mode == "chain" || mode == "chain-stream" }

// sdkTexts are the assistant's texts before its call in the first step:
// one that fits in the id of the item llmbridge writes for it and one that
// does not.
var sdkTexts = []string{
	"Checking Paris.",
	"Let me look up the current weather in Paris for you with the weather tool.",
}

func TestRealSDKs(t *testing.T) {
	if !*sdksEnabled {
		t.Skip("the npm SDKs are opt-in; run: " + sdksCommand)
	}
	dir := *sdksDir
	if dir == "" {
		dir = os.Getenv("LLMBRIDGE_SDKS_DIR")
	}
	if dir == "" {
		cache, err := os.UserCacheDir()
		if err != nil {
			t.Fatalf("no -sdks.dir and no user cache directory: %v", err)
		}
		dir = filepath.Join(cache, "llmbridge-sdks")
	}
	modules, err := filepath.Abs(filepath.Join(dir, "node_modules"))
	if err != nil {
		t.Fatal(err)
	}
	for _, pkg := range []string{"ai", "@ai-sdk/openai", "openai", "ws", "@openai/agents", "@google/genai"} {
		if _, err := os.Stat(filepath.Join(modules, pkg, "package.json")); err != nil {
			t.Fatalf("%s is not installed in %s (%v); install the SDKs with: bash caddytest/sdks/install.sh %s", pkg, modules, err, dir)
		}
	}
	env := sdkSetup(t)
	t.Run("vercel-ai/fleet", func(t *testing.T) {
		// The SDK's tool loop refers to the first step's items by id;
		// its requests alternate between two instances sharing a store.
		lb := newFleetSDKBalancer(t, env)
		for _, mode := range sdkSpecs[0].modes {
			t.Run(mode, func(t *testing.T) {
				env.runAt(t, modules, sdkSpecs[0], anthropicMsgs, lb, mode, "gpt-4.1", sdkTexts[1])
			})
		}
	})
	for _, sp := range sdkSpecs {
		t.Run(sp.name, func(t *testing.T) {
			for _, up := range allProtocols {
				for _, mode := range sp.modes {
					if continuesOverHTTP(mode) && up.family() == sp.client.family() {
						continue
					}
					texts := sdkTexts
					if sp.name != "vercel-ai" {
						texts = sdkTexts[1:]
					}
					for i, text := range texts {
						name := string(up) + "/" + mode
						if len(texts) > 1 {
							name += fmt.Sprintf("/text%d", i+1)
						}
						t.Run(name, func(t *testing.T) {
							env.run(t, modules, sp, up, mode, "gpt-4.1", text)
						})
					}
					if sp.reasoning && issuedOpaque(up) != nil {
						// A reasoning model: the SDK refers to the
						// reasoning item by id, and the upstream must
						// get its own signed reasoning back.
						t.Run(string(up)+"/"+mode+"/reasoning", func(t *testing.T) {
							env.run(t, modules, sp, up, mode, "gpt-5", "")
						})
					}
				}
			}
		})
	}
}

// sdkEnv is the sites and mocks of TestRealSDKs: a site per upstream
// protocol, routing every model to a real model of the upstream.
type sdkEnv struct {
	mocks     map[proto]*sdkMock
	site      map[proto]string
	adminPort int
	caddyfile string
}

var (
	sdkOnce      sync.Once
	sharedSDKEnv *sdkEnv
	sdkErr       error
)

// sdkSetup loads the SDK sites into the test binary's one Caddy.
func sdkSetup(t *testing.T) *sdkEnv {
	t.Helper()
	startCaddy(t)
	sdkOnce.Do(func() { sharedSDKEnv, sdkErr = newSDKEnv(sharedEnv.adminPort) })
	if sdkErr != nil {
		t.Fatalf("setting up the SDK environment: %v", sdkErr)
	}
	loadCaddyfile(t, sharedSDKEnv.caddyfile)
	return sharedSDKEnv
}

func newSDKEnv(adminPort int) (*sdkEnv, error) {
	e := &sdkEnv{mocks: map[proto]*sdkMock{}, site: map[proto]string{}, adminPort: adminPort}
	for _, p := range allProtocols {
		m, err := newSDKMock(p)
		if err != nil {
			return nil, err
		}
		e.mocks[p] = m
	}
	ports, err := freePorts(2 + len(allProtocols))
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "{\n\tadmin localhost:%d\n\thttp_port %d\n\thttps_port %d\n\tgrace_period 1ns\n}\n", adminPort, ports[0], ports[1])
	for i, p := range allProtocols {
		port := ports[2+i]
		e.site[p] = fmt.Sprintf("http://127.0.0.1:%d", port)
		route := ""
		if m := cliModels[openaiResponses][p]; m != "" {
			route = "\t\tmodel * " + m + "\n"
		}
		fmt.Fprintf(&b, "\nhttp://:%d {\n\tllmbridge {\n\t\tupstream %s\n%s%s\t}\n\treverse_proxy %s\n}\n", port, p, cloudSettings(p), route, e.mocks[p].addr())
	}
	e.caddyfile = b.String()
	return e, nil
}

// run runs one SDK program against upstream up and checks both sides.
// With text "" the upstream answers the first step with signed reasoning
// and the call.
func (e *sdkEnv) run(t *testing.T, modules string, sp sdkSpec, up proto, mode, model, text string) {
	e.runAt(t, modules, sp, up, e.site[up], mode, model, text)
}

// runAt is run against the gateway at base.
func (e *sdkEnv) runAt(t *testing.T, modules string, sp sdkSpec, up proto, base, mode, model, text string) {
	m := e.mocks[up]
	result := "Sunny and 21 C in {city}, token " + randomHex(4) + "."
	final := "It is sunny in Paris (" + randomHex(4) + ")."
	m.start(text, strings.ReplaceAll(result, "{city}", "Paris"), final)

	tmp := t.TempDir()
	src, err := os.ReadFile(filepath.Join("sdks", sp.script))
	if err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(tmp, sp.script)
	if err := os.WriteFile(script, src, 0o600); err != nil {
		t.Fatal(err)
	}
	// Node resolves the SDKs' imports from the script's directory up.
	if err := os.Symlink(modules, filepath.Join(tmp, "node_modules")); err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(tmp, "home")
	if err := os.MkdirAll(home, 0o700); err != nil {
		t.Fatal(err)
	}
	environ := []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "LANG=C.UTF-8", "NO_PROXY=127.0.0.1,localhost",
		"LLMBRIDGE_SDK_KEY=" + cliClientKey, "LLMBRIDGE_SDK_RESULT=" + result}
	stdout, stderr, runErr, took := runCLI("node", []string{script, base, model, mode}, environ, tmp, *sdksTimeout)
	st := m.finish()

	var reasons []string
	if runErr != nil {
		reasons = append(reasons, "the program failed: "+runErr.Error())
	}
	if got := gjson.Get(stdout, "text").Str; got != final {
		reasons = append(reasons, fmt.Sprintf("the program ended with %q, want %q", got, final))
	}
	reasons = append(reasons, st.problems(sp.streamed[mode])...)
	t.Logf("%s %s -> %s in %v: %d upstream requests (%s)", sp.name, mode, up, took.Round(time.Millisecond), len(st.requests), strings.Join(st.kinds, ", "))
	if len(reasons) == 0 {
		return
	}
	t.Errorf("%s %s -> %s: %s", sp.name, mode, up, strings.Join(reasons, "; "))
	t.Logf("stdout:\n%s", cliClip(stdout, 4000))
	t.Logf("stderr:\n%s", cliClip(stderr, 6000))
	for i, r := range st.requests {
		t.Logf("upstream request %d: %s (%d bytes): %s\n  answered: %s", i+1, r.path, len(r.body), cliClip(string(r.body), 4000), cliClip(r.answer, 2000))
	}
}

// sdkMock is a scripted upstream of one protocol for the SDK runs: it
// answers the first step with text and a call of the weather tool, and the
// request carrying the tool's result with the final text, after checking
// that the call, its result and the assistant's text are in the history as
// sent. It validates every request as the provider would, and the
// Responses mock resolves item references to the items it issued, as
// OpenAI does with store on.
type sdkMock struct {
	proto proto
	srv   *http.Server
	ln    net.Listener

	mu sync.Mutex
	st *sdkRunState
}

// sdkRunState is what the mock saw during one run.
type sdkRunState struct {
	text, result, final string
	callID, args        string
	calls               int
	resultSeen          bool
	requests            []cliRequest
	kinds               []string
	issues              []string
}

func newSDKMock(p proto) (*sdkMock, error) {
	m := &sdkMock{proto: p}
	var err error
	m.srv, m.ln, err = serveMock(m.serveHTTP)
	return m, err
}

func (m *sdkMock) addr() string { return m.ln.Addr().String() }

func (m *sdkMock) start(text, result, final string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.st = &sdkRunState{text: text, result: result, final: final}
}

func (m *sdkMock) finish() *sdkRunState {
	m.mu.Lock()
	defer m.mu.Unlock()
	st := m.st
	m.st = nil
	if st == nil {
		return &sdkRunState{}
	}
	return st
}

// problems is why the run failed on the upstream side; streamed says
// whether the program streams.
func (st *sdkRunState) problems(streamed bool) []string {
	var out []string
	if st.calls == 0 {
		out = append(out, "the mock never answered with the tool call")
	} else if !st.resultSeen {
		out = append(out, "no upstream request carried the tool's result")
	}
	for i, r := range st.requests {
		if strings.HasSuffix(r.kind, "/stream") != streamed {
			out = append(out, fmt.Sprintf("upstream request %d was %s; the program streams: %v", i+1, r.kind, streamed))
		}
	}
	return append(out, st.issues...)
}

func (m *sdkMock) serveHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	rec := &recordedRequest{Method: r.Method, Path: r.URL.EscapedPath(), RawQuery: r.URL.RawQuery, Host: r.Host, Header: r.Header.Clone(), Body: body}
	p := m.proto
	m.mu.Lock()
	defer m.mu.Unlock()
	st := m.st
	if st == nil {
		st = &sdkRunState{}
	}
	req := cliRequest{method: r.Method, path: r.URL.Path, body: body}
	n := len(st.requests) + 1
	defer func() { st.requests = append(st.requests, req); st.kinds = append(st.kinds, req.kind) }()
	bad := func(format string, args ...any) {
		st.issues = append(st.issues, fmt.Sprintf("upstream request %d: ", n)+fmt.Sprintf(format, args...))
	}
	if p == openaiResponses {
		var problem string
		if body, problem = resolveItemReferences(body, st); problem != "" {
			req.kind = "404"
			req.answer = nativeError(p, http.StatusNotFound, problem)
			writeBody(w, false, http.StatusNotFound, http.Header{"Content-Type": {"application/json"}}, req.answer)
			return
		}
		rec.Body = body
	}
	model := rec.model(p)
	problems := validateRequest(p, rec)
	if gjson.ValidBytes(body) {
		problems = append(problems, enforceModelRules(p, model, body)...)
	}
	if len(problems) > 0 {
		bad("%s would refuse it for %s: %s", p, model, strings.Join(problems, "; "))
	}
	rec.Stream = streamRequested(p, rec)
	v := viewTools(p, body)
	if len(v.Problems) > 0 {
		bad("%s", strings.Join(cliViewProblems(p, body, v.Problems), "; "))
	}
	var sc scenario
	switch {
	case len(v.Results) == 0:
		req.kind = "call"
		if !slices.ContainsFunc(v.Tools, func(t upTool) bool { return t.Name == "get_weather" }) {
			bad("the tool get_weather is not offered: %+v", v.Tools)
		}
		id := ""
		switch p {
		case openaiChat, openaiResponses:
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
		st.callID, st.args = id, `{"city":"Paris"}`
		st.calls++
		call := mockCall{ID: id, Name: "get_weather", Args: st.args, Fragments: splitText(st.args, 3)}
		if st.text == "" {
			sc = reasoningCallAnswer(p, model, rec.Stream, call)
		} else {
			sc = textCallAnswer(p, model, st.text, []mockCall{call}, rec.Stream)
		}
	default:
		req.kind = "result"
		st.resultSeen = true
		st.checkSecondStep(p, v, body, bad)
		rep := reply{Text: st.final, Stop: "end", Usage: usage{Input: 200, Output: 12}}
		if rec.Stream {
			req.kind += "/stream"
			s := buildStream(p, model, rep)
			frames := append(slices.Clone(s.head), s.tail...)
			req.answer = strings.Join(frames, "")
			writeFrames(w, p, false, http.StatusOK, http.Header{"Content-Type": {s.contentType}}, frames)
			return
		}
		sc = scenario{Status: 200, Body: successBody(p, model, rep)}
	}
	if rec.Stream {
		req.kind += "/stream"
	}
	req.answer = sc.Body
	if isEventStreamHeader(sc.Header) {
		writeFrames(w, p, false, sc.Status, sc.Header, splitFrames(sc.Body))
		return
	}
	writeBody(w, false, sc.Status, http.Header{"Content-Type": {"application/json"}}, sc.Body)
}

// checkSecondStep checks the request that carries the tool's result: the
// call in the history as the mock made it, the result attached to it, and
// the assistant's text before the call intact.
func (st *sdkRunState) checkSecondStep(p proto, v upView, body []byte, bad func(string, ...any)) {
	var call *upCall
	for i := range v.Calls {
		if c := &v.Calls[i]; c.Name == "get_weather" && (st.callID == "" || c.ID == st.callID) {
			call = c
		}
	}
	want, _ := parseJSONValue(st.args)
	switch {
	case call == nil:
		bad("the history has no call get_weather %s; calls: %+v", st.callID, v.Calls)
	case !reflect.DeepEqual(normJSON(call.Args), normJSON(want)):
		g, _ := json.Marshal(call.Args)
		bad("the history's call has the arguments %s, want %s", g, st.args)
	}
	if len(v.Results) != 1 || v.Results[0].Text != st.result {
		bad("the results are %+v, want one with %q", v.Results, st.result)
	} else if res := v.Results[0]; p.isGoogle() && res.Name != "get_weather" || !p.isGoogle() && res.ID != st.callID {
		bad("the result is attached to %q/%q, want the call %q", res.ID, res.Name, cmp(st.callID, "get_weather"))
	}
	if st.text == "" {
		if got, want := opaqueSlots(p, body), issuedOpaque(p); !containsAll(got, want) {
			bad("the history carries the reasoning state %q, want the issued %q", clipAll(got), clipAll(want))
		}
	} else if texts := assistantTexts(p, body); !slices.Contains(texts, st.text) {
		bad("the assistant's text before the call did not reach the upstream intact: the history's assistant texts are %q, want %q", texts, st.text)
	}
}

// resolveItemReferences replaces the item references of a Responses
// request with the items they name, as OpenAI does for a client with store
// on: the items the mock issued in this run. A reference to any other id
// is OpenAI's 404.
func resolveItemReferences(body []byte, st *sdkRunState) ([]byte, string) {
	items := gjson.GetBytes(body, "input").Array()
	for i := len(items) - 1; i >= 0; i-- {
		it := items[i]
		if it.Get("type").Str != "item_reference" && (it.Get("type").Exists() || it.Get("role").Exists() || !it.Get("id").Exists()) {
			continue
		}
		var item string
		switch id := it.Get("id").Str; id {
		case toolMessageID:
			item = `{"type":"message","id":"` + id + `","status":"completed","role":"assistant","content":[{"type":"output_text","annotations":[],"logprobs":[],"text":` + jsonString(st.text) + `}]}`
		case rzItemID:
			item = `{"type":"reasoning","id":"` + id + `","summary":[],"encrypted_content":"` + rzEnc + `"}`
		case "fc_itest0000":
			item = `{"type":"function_call","id":"` + id + `","status":"completed","call_id":"` + st.callID + `","name":"get_weather","arguments":` + jsonString(st.args) + `}`
		default:
			return body, "Item with id '" + id + "' not found."
		}
		var err error
		if body, err = sjson.SetRawBytes(body, fmt.Sprintf("input.%d", i), []byte(item)); err != nil {
			return body, err.Error()
		}
	}
	return body, ""
}
