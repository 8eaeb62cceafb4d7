package caddymodule

import (
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// module is the import path prefix of llmbridge's packages.
const module = "github.com/llmbridge/llmbridge/"

// roomImports says which llmbridge packages each package of the Caddy
// layer may import, by path below the module: imports point one way, from
// the handler package to the rooms it uses, never back, and never through
// codec/all (which registers every family) unless it is given. A room may
// also depend on what the packages it is given depend on.
var roomImports = map[string][]string{
	"caddymodule/state":         {},
	"caddymodule/limits":        {"caddymodule/state"},
	"caddymodule/limits/admin":  {"caddymodule/limits"},
	"caddymodule/internal/glob": {},
	"caddymodule/internal/pool": {},
	"caddymodule/failover":      {"caddymodule/clouds", "caddymodule/observe", "caddymodule/internal/pool"},
	"caddymodule/policy":        {"codec/rules"},
	"caddymodule/fit":           {"caddymodule/policy", "caddymodule/observe", "codec/rules"},
	"caddymodule/streams":       {"caddymodule/failover", "sse", "sse/eventstream"},
	"caddymodule/fleet":         {"caddymodule/failover", "caddymodule/state"},
	"caddymodule/writers":       {"caddymodule/streams"},
	"caddymodule/probe":         {"codec/rules", "caddymodule/policy"},
	"caddymodule/match":         {"caddymodule/internal/glob", "codec"},
	"caddymodule/sessions":      {"caddymodule/state", "caddymodule/internal/pool", "codec"},
	"caddymodule/conversations": {"caddymodule/sessions", "caddymodule/internal/pool", "codec/interactions", "sse"},
	"caddymodule/endpoints":     {"caddymodule/observe", "caddymodule/internal/pool", "codec", "mapping"},
	"caddymodule/observe":       {"caddymodule/limits", "caddymodule/internal/glob", "codec/rules"},
	"caddymodule/websocket":     {"caddymodule/sessions", "caddymodule/internal/pool", "codec", "mapping", "sse"},
	"caddymodule/clouds":        {"codec", "mapping"},
	"caddymodule/clouds/google": {"caddymodule/clouds", "codec"},
	"caddymodule/clouds/azure":  {"caddymodule/clouds", "codec"},
	"caddymodule/clouds/aws":    {"caddymodule/clouds", "codec", "mapping"},

	// The limits' HTTP side works on an observe.Exchange (which holds
	// the engine's Ticket), so it sits above both.
	"caddymodule/limits/admission": {"caddymodule/observe", "caddymodule/internal/pool"},
}

// TestImportDirection fails when a room of the Caddy layer depends on an
// llmbridge package it must not: the handler package, the codec's
// families, another room it is not given. It reads `go list -deps`.
func TestImportDirection(t *testing.T) {
	for room, given := range roomImports {
		allowed := []string{module + room}
		for _, g := range given {
			allowed = append(allowed, deps(t, g)...)
		}
		for _, dep := range deps(t, room) {
			if !slices.Contains(allowed, dep) {
				t.Errorf("%s depends on %s, which it must not import", room, dep)
			}
		}
	}
}

// deps returns the llmbridge packages pkg (a path below the module)
// depends on, itself included, as `go list -deps` lists them.
func deps(t *testing.T, pkg string) []string {
	t.Helper()
	// The go tool that runs the test: its own GOROOT's, whatever PATH says.
	goTool := filepath.Join(runtime.GOROOT(), "bin", "go")
	out, err := exec.Command(goTool, "list", "-deps", module+pkg).Output()
	if err != nil {
		t.Fatalf("go list -deps %s: %v", pkg, err)
	}
	var ours []string
	for _, dep := range strings.Fields(string(out)) {
		if strings.HasPrefix(dep, module) {
			ours = append(ours, dep)
		}
	}
	return ours
}
