package caddytest

import (
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig"
)

// instanceEnv names the Caddyfile a re-executed test binary runs as a
// Caddy instance of its own (runInstance): the fleet tests need several
// processes, each with its own memory, sharing only a state store, and
// the test binary already holds Caddy with the module and its mocks'
// clients.
const instanceEnv = "LLMBRIDGE_TEST_CADDY_INSTANCE"

// runInstance runs the Caddyfile at path until its standard input closes
// (its parent test ended) or it is signalled, and returns the exit code.
func runInstance(path string) int {
	src, err := os.ReadFile(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	cfg, warnings, err := caddyconfig.GetAdapter("caddyfile").Adapt(src, map[string]any{"filename": path})
	if err != nil {
		fmt.Fprintln(os.Stderr, "adapting:", err)
		return 1
	}
	for _, w := range warnings {
		fmt.Fprintln(os.Stderr, "warning:", w.String())
	}
	if err := caddy.Load(cfg, true); err != nil {
		fmt.Fprintln(os.Stderr, "loading:", err)
		return 1
	}
	done := make(chan struct{})
	go func() {
		_, _ = io.Copy(io.Discard, os.Stdin)
		close(done)
	}()
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT)
	select {
	case <-done:
	case <-sig:
	}
	_ = caddy.Stop()
	return 0
}

// instance is a Caddy instance in a process of its own.
type instance struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	log   string
}

// startInstance runs caddyfile in a new process and waits until addr
// accepts connections. The process ends with the test.
func startInstance(t *testing.T, name, caddyfile, addr string) *instance {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "Caddyfile")
	if err := os.WriteFile(path, []byte(caddyfile), 0o600); err != nil {
		t.Fatal(err)
	}
	logPath := filepath.Join(dir, name+".log")
	logFile, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	// Not os.Args[0]: Caddy's tester rewrites os.Args to start its
	// in-process Caddy.
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(self, "-test.run=^$")
	cmd.Env = append(os.Environ(), instanceEnv+"="+path)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	in := &instance{cmd: cmd, stdin: stdin, log: logPath}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		_ = stdin.Close()
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
		_ = logFile.Close()
		if t.Failed() {
			b, _ := os.ReadFile(logPath)
			if len(b) > 8000 {
				b = b[len(b)-8000:]
			}
			t.Logf("instance %s log (end):\n%s", name, b)
		}
	})
	deadline := time.Now().Add(60 * time.Second)
	for {
		if c, err := net.DialTimeout("tcp", addr, 100*time.Millisecond); err == nil {
			_ = c.Close()
			return in
		}
		select {
		case <-exited:
			b, _ := os.ReadFile(logPath)
			t.Fatalf("instance %s exited before listening on %s:\n%s", name, addr, b)
		default:
		}
		if time.Now().After(deadline) {
			b, _ := os.ReadFile(logPath)
			t.Fatalf("instance %s did not start listening on %s:\n%s", name, addr, b)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
