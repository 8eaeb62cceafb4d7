package caddytest

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	caddytester "github.com/caddyserver/caddy/v2/caddytest"

	// The module under test, registered as http.handlers.llmbridge with its
	// Caddyfile directive.
	_ "github.com/llmbridge/llmbridge/caddymodule"
)

// smallBodyLimit is max_request_body on the site that tests the limit.
const smallBodyLimit = 1024

// testEnv is the Caddy under test and its mock upstreams. One exists per
// test binary; every test loads the same Caddyfile, which Caddy treats as a
// no-op once it is running.
type testEnv struct {
	mocks mockSet
	// plain has one site per upstream protocol, credentials passed through.
	plain map[proto]string
	// keyed has one site per upstream protocol with api_key upstream-key
	// and access logging.
	keyed map[proto]string
	// dead has one site per upstream protocol whose upstream address has
	// nothing listening.
	dead map[proto]string
	// small is a site (openai-chat upstream) with max_request_body 1KiB.
	small string
	// fronts stand before each protocol's mock (upstream_front_test.go);
	// fronted has one site per upstream protocol that reaches its mock
	// through its front, with reverse_proxy's read_timeout
	// frontReadTimeout.
	fronts  map[proto]*frontUpstream
	fronted map[proto]string
	// adminPort is where this process's Caddy serves its admin API.
	adminPort int
	// routed has one site per upstream protocol with the model rules of
	// routeRules; routedUp has the same with response_model upstream.
	routed, routedUp map[proto]string
	// split is one site that sends claude-* models (llm_model matcher) to
	// the anthropic-messages mock and every other model to the
	// openai-chat mock, with two handle blocks.
	split string
	// gated has one site per upstream protocol with client_keys (gateKey
	// and gateEnvKey), api_key upstream-key and an access log with the
	// credential filter written to accessLog.
	gated map[proto]string
	// accessLog is the gated sites' access log; debugLog gets llmbridge's
	// and reverse_proxy's logs at debug level.
	accessLog, debugLog string
	// observed is a site (anthropic-messages upstream) whose access log,
	// written to observedLog, has every {http.llmbridge.*} placeholder
	// appended with log_append (as ph_<name>) besides llmbridge's own log
	// fields.
	observed, observedLog string
	// policies has a site (anthropic-messages upstream) per non-default
	// on_unsupported level (policy_test.go): "strict" with drop metadata,
	// and "lenient"; "lenient-chat" is lenient toward openai-chat.
	policies map[string]string
	// dialect is a site (openai-chat upstream) with dialect deepseek.
	dialect string
	// dialects has a site (openai-chat upstream, the Chat mock) per
	// dialect of modelrules_current_test.go: mistral, openrouter, groq,
	// deepseek.
	dialects map[string]string
	// azure holds the sites with Azure OpenAI upstreams.
	azure *azureEnv
	// bare has one site per protocol that is plain reverse_proxy to its
	// mock, without llmbridge: the baseline the load test compares with.
	bare map[proto]string
	// traced has one site per upstream protocol with Caddy's tracing
	// directive, exporting to otlp, named client keys (team-a is
	// clientKey), api_key upstream-key, a price for every model
	// (tracedPrice) and an access log written to tracedLog;
	// tracedContent is one such site (anthropic-messages upstream) with
	// otel_content on.
	traced                   map[proto]string
	tracedContent, tracedLog string
	// tracedAzure is a traced site with an azure-openai upstream (the v1
	// paths with api-key, through its front).
	tracedAzure string
	otlp        *otlpReceiver

	caddyfile string
}

var (
	envOnce   sync.Once
	sharedEnv *testEnv
	envErr    error
)

// setup returns the shared environment after loading its Caddyfile into the
// in-process Caddy (starting Caddy the first time), and resets the mocks for
// t.
func setup(t *testing.T) *testEnv {
	t.Helper()
	startCaddy(t)
	loadCaddyfile(t, sharedEnv.caddyfile)
	sharedEnv.mocks.resetAll(t)
	return sharedEnv
}

// startCaddy starts the shared environment's Caddy, the first time.
func startCaddy(t *testing.T) {
	t.Helper()
	envOnce.Do(func() {
		sharedEnv, envErr = newTestEnv()
	})
	if envErr != nil {
		t.Fatalf("setting up the test environment: %v", envErr)
	}
}

// loadCaddyfile loads caddyfile into the test binary's one Caddy, which
// startCaddy started.
func loadCaddyfile(t *testing.T, caddyfile string) {
	t.Helper()
	tester := caddytester.NewTester(t).WithDefaultOverrides(caddytester.Config{AdminPort: sharedEnv.adminPort})
	tester.InitServer(caddyfile, "caddyfile")
	if t.Failed() {
		t.FailNow()
	}
	// A connection the previous configuration's server accepted may
	// still sit idle in a client's pool, and a request sent over it would
	// be answered by that configuration's site on the same port: under
	// load, a hostile request meant for a passthrough site was once
	// translated by the site a test before had there.
	rawHTTP.CloseIdleConnections()
	http.DefaultClient.CloseIdleConnections()
}

// serveMock serves h on a new local port, for the life of the test binary.
func serveMock(h http.HandlerFunc) (*http.Server, net.Listener, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, nil, err
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	return srv, ln, nil
}

func newTestEnv() (*testEnv, error) {
	e := &testEnv{mocks: mockSet{}, plain: map[proto]string{}, keyed: map[proto]string{}, dead: map[proto]string{},
		routed: map[proto]string{}, routedUp: map[proto]string{}, gated: map[proto]string{},
		fronts: map[proto]*frontUpstream{}, fronted: map[proto]string{}, policies: map[string]string{}, bare: map[proto]string{},
		traced: map[proto]string{}, dialects: map[string]string{}}
	logDir, err := os.MkdirTemp("", "llmbridge-caddytest-")
	if err != nil {
		return nil, err
	}
	e.accessLog, e.debugLog = filepath.Join(logDir, "access.log"), filepath.Join(logDir, "debug.log")
	e.observedLog = filepath.Join(logDir, "observed.log")
	e.tracedLog = filepath.Join(logDir, "traced.log")
	// The tracing directive's exporter reads its settings from the
	// environment when Caddy first loads it.
	if e.otlp, err = newOTLPReceiver(); err != nil {
		return nil, err
	}
	// The second client key comes from the environment, as {env.*}.
	if err := os.Setenv(gateKeyEnv, gateEnvKey); err != nil {
		return nil, err
	}
	// The Bedrock sites without api_key sign with these.
	if err := setAWSEnvironment(logDir); err != nil {
		return nil, err
	}
	for _, p := range allProtocols {
		e.mocks[p] = newMockUpstream(p)
		e.fronts[p] = newFrontUpstream(e.mocks[p])
	}
	e.azure = newAzureEnv(e)
	// Each site gets a port that was free a moment ago; the dead upstreams
	// get one that refuses connections (refusingPort), which no other
	// process can take meanwhile.
	// The admin API gets a free port too, so that integration runs from
	// several checkouts can share a machine.
	// The refusing ports first: bound, they are not among the free ones
	// (the other way round, the kernel could bind one that freePorts
	// had just handed out for a site).
	dead := map[proto]int{}
	for _, p := range allProtocols {
		if dead[p], err = refusingPort(); err != nil {
			return nil, err
		}
	}
	ports, err := freePorts(9*len(allProtocols) + 17 + azureSites)
	if err != nil {
		return nil, err
	}
	next := func() int { p := ports[0]; ports = ports[1:]; return p }
	e.adminPort = next()

	var b strings.Builder
	fmt.Fprintf(&b, `{
	admin localhost:%d
	http_port %d
	https_port %d
	grace_period 1ns
	log llmbridge_debug {
		output file `+e.debugLog+`
		level DEBUG
		include http.handlers.llmbridge http.handlers.reverse_proxy
	}
}
`, e.adminPort, next(), next())
	site := func(port int, p proto, upstreamAddr, extra, siteExtra string) string {
		cloud := cloudSettings(p)
		fmt.Fprintf(&b, `
http://localhost:%d {
%s	llmbridge {
		upstream %s
%s%s	}
	reverse_proxy %s
}
`, port, siteExtra, p, cloud, extra, upstreamAddr)
		return fmt.Sprintf("http://localhost:%d", port)
	}
	for _, p := range allProtocols {
		e.plain[p] = site(next(), p, e.mocks[p].addr(), "", "")
		e.keyed[p] = site(next(), p, e.mocks[p].addr(), "\t\tapi_key "+upstreamKey+"\n", "\tlog {\n\t\toutput discard\n\t}\n")
		e.dead[p] = site(next(), p, fmt.Sprintf("127.0.0.1:%d", dead[p]), "", "")
		e.routed[p] = site(next(), p, e.mocks[p].addr(), routeRules, "")
		e.gated[p] = site(next(), p, e.mocks[p].addr(), "\t\tapi_key "+upstreamKey+"\n\t\tclient_keys "+gateKey+" {env."+gateKeyEnv+"}\n",
			"\tlog {\n\t\toutput file "+e.accessLog+"\n"+credentialLogFilter+"\t}\n")
		e.routedUp[p] = site(next(), p, e.mocks[p].addr(), routeRules+"\t\tresponse_model upstream\n", "")
		e.fronted[p] = site(next(), p, e.fronts[p].addr()+" {\n\t\ttransport http {\n\t\t\tread_timeout "+frontReadTimeout.String()+"\n\t\t}\n\t}", "", "")
	}
	e.small = site(next(), openaiChat, e.mocks[openaiChat].addr(), fmt.Sprintf("\t\tmax_request_body %d\n", smallBodyLimit), "")
	splitPort := next()
	fmt.Fprintf(&b, `
http://localhost:%d {
	@claude llm_model claude-*
	handle @claude {
		llmbridge {
			upstream anthropic-messages
		}
		reverse_proxy %s
	}
	handle {
		llmbridge {
			upstream openai-chat
		}
		reverse_proxy %s
	}
}
`, splitPort, e.mocks[anthropicMsgs].addr(), e.mocks[openaiChat].addr())
	e.split = fmt.Sprintf("http://localhost:%d", splitPort)
	var appends strings.Builder
	for _, ph := range llmPlaceholders {
		fmt.Fprintf(&appends, "\tlog_append ph_%s {http.llmbridge.%s}\n", ph, ph)
	}
	e.observed = site(next(), anthropicMsgs, e.mocks[anthropicMsgs].addr(), "",
		"\tlog {\n\t\toutput file "+e.observedLog+"\n\t}\n"+appends.String())
	e.policies["strict"] = site(next(), anthropicMsgs, e.mocks[anthropicMsgs].addr(), "\t\ton_unsupported strict\n\t\tdrop metadata\n", "")
	e.policies["lenient"] = site(next(), anthropicMsgs, e.mocks[anthropicMsgs].addr(), "\t\ton_unsupported lenient\n", "")
	e.policies["lenient-chat"] = site(next(), openaiChat, e.mocks[openaiChat].addr(), "\t\ton_unsupported lenient\n", "")
	e.dialect = site(next(), openaiChat, e.mocks[openaiChat].addr(), "\t\tdialect deepseek\n", "")
	traced := fmt.Sprintf("\t\tapi_key %s\n\t\tclient_keys {\n\t\t\tteam-a %s\n\t\t\tother other-key\n\t\t}\n"+
		"\t\tmodel_rule * {\n\t\t\tprice input %g output %g cache_read %g cache_write %g source https://example.com/prices date 2026-11-30\n\t\t}\n",
		upstreamKey, clientKey, tracedPrice[0], tracedPrice[1], tracedPrice[2], tracedPrice[3])
	tracedSite := "\ttracing {\n\t\tspan llmbridge-test\n\t}\n\tlog {\n\t\toutput file " + e.tracedLog + "\n" + credentialLogFilter + "\t}\n"
	for _, p := range allProtocols {
		e.traced[p] = site(next(), p, e.mocks[p].addr(), traced, tracedSite)
	}
	e.tracedContent = site(next(), anthropicMsgs, e.mocks[anthropicMsgs].addr(), traced+"\t\totel_content on 1KiB\n", tracedSite)
	e.tracedAzure = site(next(), "azure-openai", e.azure.fronts[azureV1].addr(), traced, tracedSite)
	e.dialects["deepseek"] = e.dialect
	e.policies["strict-deepseek"] = site(next(), openaiChat, e.mocks[openaiChat].addr(), "\t\tdialect deepseek\n\t\ton_unsupported strict\n", "")
	for _, d := range []string{"mistral", "openrouter", "groq", "xai"} {
		e.dialects[d] = site(next(), openaiChat, e.mocks[openaiChat].addr(), "\t\tdialect "+d+"\n", "")
	}
	e.azure.addSites(next, site)
	for _, p := range allProtocols {
		port := next()
		fmt.Fprintf(&b, "\nhttp://localhost:%d {\n\treverse_proxy %s\n}\n", port, e.mocks[p].addr())
		e.bare[p] = fmt.Sprintf("http://localhost:%d", port)
	}
	e.caddyfile = b.String()
	return e, nil
}

// refusingPort returns a local port that refuses connections for the life
// of the test binary: bound, never listening, so that no other process can
// take it.
func refusingPort() (int, error) {
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM, 0)
	if err != nil {
		return 0, err
	}
	if err := syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		return 0, err
	}
	sa, err := syscall.Getsockname(fd)
	if err != nil {
		return 0, err
	}
	return sa.(*syscall.SockaddrInet4).Port, nil
}

// freePorts returns n distinct TCP ports that were free on 127.0.0.1.
func freePorts(n int) ([]int, error) {
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			_ = l.Close()
		}
	}()
	ports := make([]int, 0, n)
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

// TestMain runs the suite and removes the shared environment's log
// directory afterwards.
func TestMain(m *testing.M) {
	if path := os.Getenv(instanceEnv); path != "" {
		// A Caddy instance of a fleet test (instance_test.go).
		os.Exit(runInstance(path))
	}
	code := m.Run()
	if sharedEnv != nil {
		_ = os.RemoveAll(filepath.Dir(sharedEnv.accessLog))
	}
	os.Exit(code)
}
