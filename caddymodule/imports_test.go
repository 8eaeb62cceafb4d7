package caddymodule

import (
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// roomImports says which llmbridge packages each package of the Caddy
// layer may depend on (directly or not): imports point one way, from the
// handler package to the rooms it uses, never back.
var roomImports = map[string][]string{
	"./state":  {},
	"./limits": {"github.com/llmbridge/llmbridge/caddymodule/state"},
}

// TestImportDirection fails when a room of the Caddy layer depends on an
// llmbridge package it must not: the handler package, the codec, another
// room it is not given. It reads `go list -deps`.
func TestImportDirection(t *testing.T) {
	// The go tool that runs the test: its own GOROOT's, whatever PATH says.
	goTool := filepath.Join(runtime.GOROOT(), "bin", "go")
	for pkg, allowed := range roomImports {
		out, err := exec.Command(goTool, "list", "-deps", pkg).Output()
		if err != nil {
			t.Fatalf("go list -deps %s: %v", pkg, err)
		}
		self := "github.com/llmbridge/llmbridge/caddymodule/" + strings.TrimPrefix(pkg, "./")
		for _, dep := range strings.Fields(string(out)) {
			if !strings.HasPrefix(dep, "github.com/llmbridge/llmbridge") || dep == self {
				continue
			}
			ok := false
			for _, a := range allowed {
				ok = ok || dep == a
			}
			if !ok {
				t.Errorf("%s depends on %s, which it must not import", pkg, dep)
			}
		}
	}
}
