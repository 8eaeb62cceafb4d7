// Package valkeytest starts a real Valkey or Redis server for tests: the
// server binary of the Debian package (redis-server, or valkey-server
// where it is packaged), on a free loopback port, with no persistence. A
// test that needs one skips, saying so, when no server binary is
// installed, unless LLMBRIDGE_REQUIRE_VALKEY is set (CI sets it: there a
// missing server is a failure).
package valkeytest

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Server is a running server.
type Server struct {
	// Addr is its host:port.
	Addr string
	cmd  *exec.Cmd
	port int
	bin  string
	dir  string
}

// Binary returns the path of the server binary, or "".
func Binary() string {
	for _, name := range []string{"valkey-server", "redis-server"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// Start starts a server for t, stopped when t ends.
func Start(t testing.TB) *Server {
	t.Helper()
	bin := Binary()
	if bin == "" {
		if os.Getenv("LLMBRIDGE_REQUIRE_VALKEY") != "" {
			t.Fatal("no valkey-server or redis-server on PATH, and LLMBRIDGE_REQUIRE_VALKEY is set (.ci/run installs redis-server)")
		}
		t.Skip("no valkey-server or redis-server on PATH: install the Debian package redis-server to run the shared-state tests")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	_ = l.Close()
	s := &Server{Addr: "127.0.0.1:" + strconv.Itoa(port), port: port, bin: bin, dir: t.TempDir()}
	if err := s.start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Stop)
	return s
}

// start runs the server and waits until it answers.
func (s *Server) start() error {
	s.cmd = exec.Command(s.bin, "--port", strconv.Itoa(s.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
		"--dir", s.dir, "--protected-mode", "no")
	if err := s.cmd.Start(); err != nil {
		return fmt.Errorf("starting %s: %v", s.bin, err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if s.Ping() == nil {
			return nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	s.Stop()
	return fmt.Errorf("%s did not answer on %s", s.bin, s.Addr)
}

// Ping sends PING and waits for PONG.
func (s *Server) Ping() error {
	c, err := net.DialTimeout("tcp", s.Addr, time.Second)
	if err != nil {
		return err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(time.Second))
	if _, err := c.Write([]byte("PING\r\n")); err != nil {
		return err
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return err
	}
	if !strings.HasPrefix(line, "+PONG") {
		return fmt.Errorf("PING answered %q", line)
	}
	return nil
}

// Stop stops the server.
func (s *Server) Stop() {
	if s.cmd != nil && s.cmd.Process != nil {
		_ = s.cmd.Process.Kill()
		_ = s.cmd.Wait()
		s.cmd = nil
	}
}

// Restart starts the server again on its address after Stop.
func (s *Server) Restart(t testing.TB) {
	t.Helper()
	if err := s.start(); err != nil {
		t.Fatal(err)
	}
}

// Pause stops the server's process (SIGSTOP) so that it answers nothing,
// as a server that hangs; Resume continues it.
func (s *Server) Pause() { _ = s.cmd.Process.Signal(stopSignal) }

// Resume continues a paused server.
func (s *Server) Resume() { _ = s.cmd.Process.Signal(contSignal) }
