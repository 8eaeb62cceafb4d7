package caddytest

import (
	"fmt"
	"testing"
)

// oneSite is a configuration of the test binary's Caddy with one site on
// a port of its own: the suite's global options (its admin endpoint, free
// HTTP and HTTPS ports) with global's lines besides, and a site serving
// body on http://localhost:<port>.
type oneSite struct {
	env   *testEnv
	ports []int
}

// newOneSite reserves the ports of a one-site configuration.
func newOneSite(t *testing.T, env *testEnv) *oneSite {
	t.Helper()
	ports, err := freePorts(3)
	if err != nil {
		t.Fatal(err)
	}
	return &oneSite{env: env, ports: ports}
}

// base is the site's URL.
func (s *oneSite) base() string { return fmt.Sprintf("http://localhost:%d", s.ports[2]) }

// caddyfile is the configuration with global's global options and the
// site's body.
func (s *oneSite) caddyfile(global, body string) string {
	return fmt.Sprintf("{\n\tadmin localhost:%d\n\thttp_port %d\n\thttps_port %d\n\tgrace_period 1ns\n%s}\n\nhttp://localhost:%d {\n%s}\n",
		s.env.adminPort, s.ports[0], s.ports[1], global, s.ports[2], body)
}

// load loads the configuration and returns the site's URL.
func (s *oneSite) load(t *testing.T, global, body string) string {
	t.Helper()
	loadCaddyfile(t, s.caddyfile(global, body))
	return s.base()
}
