package caddytest

import (
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"

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
	envOnce.Do(func() {
		sharedEnv, envErr = newTestEnv()
	})
	if envErr != nil {
		t.Fatalf("setting up the test environment: %v", envErr)
	}
	tester := caddytester.NewTester(t).WithDefaultOverrides(caddytester.Config{AdminPort: sharedEnv.adminPort})
	tester.InitServer(sharedEnv.caddyfile, "caddyfile")
	if t.Failed() {
		t.FailNow()
	}
	sharedEnv.mocks.resetAll(t)
	return sharedEnv
}

func newTestEnv() (*testEnv, error) {
	e := &testEnv{mocks: mockSet{}, plain: map[proto]string{}, keyed: map[proto]string{}, dead: map[proto]string{},
		fronts: map[proto]*frontUpstream{}, fronted: map[proto]string{}}
	for _, p := range allProtocols {
		e.mocks[p] = newMockUpstream(p)
		e.fronts[p] = newFrontUpstream(e.mocks[p])
	}
	// Each site gets a port that was free a moment ago; the dead upstreams
	// get one that is closed again before Caddy starts.
	// The admin API gets a free port too, so that integration runs from
	// several checkouts can share a machine.
	ports, err := freePorts(5*len(allProtocols) + 4)
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
}
`, e.adminPort, next(), next())
	site := func(port int, p proto, upstreamAddr, extra, siteExtra string) string {
		fmt.Fprintf(&b, `
http://localhost:%d {
%s	llmbridge {
		upstream %s
		vertex_project %s
		vertex_location %s
%s	}
	reverse_proxy %s
}
`, port, siteExtra, p, vertexProject, vertexLocation, extra, upstreamAddr)
		return fmt.Sprintf("http://localhost:%d", port)
	}
	for _, p := range allProtocols {
		e.plain[p] = site(next(), p, e.mocks[p].addr(), "", "")
		e.keyed[p] = site(next(), p, e.mocks[p].addr(), "\t\tapi_key "+upstreamKey+"\n", "\tlog {\n\t\toutput discard\n\t}\n")
		e.dead[p] = site(next(), p, fmt.Sprintf("127.0.0.1:%d", next()), "", "")
		e.fronted[p] = site(next(), p, e.fronts[p].addr()+" {\n\t\ttransport http {\n\t\t\tread_timeout "+frontReadTimeout.String()+"\n\t\t}\n\t}", "", "")
	}
	e.small = site(next(), openaiChat, e.mocks[openaiChat].addr(), fmt.Sprintf("\t\tmax_request_body %d\n", smallBodyLimit), "")
	e.caddyfile = b.String()
	return e, nil
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
