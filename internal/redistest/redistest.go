// Package redistest starts a private redis-server for a test: Debian's
// redis-server package, on a free loopback port, persisting nothing.
package redistest

import (
	"bufio"
	"fmt"
	"net"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/mcpwasm/mcpwasm/internal/fixture"
)

// Start runs redis-server for the test and returns its redis:// address.
// The test is skipped, saying so, only when the binary is absent, and
// fails instead under MCPWASM_REQUIRE_FIXTURES=1 (make test and CI, which
// install it: scripts/install-toolchains.sh).
func Start(t testing.TB) string {
	t.Helper()
	bin := fixture.Tool(t, "redis-server")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	cmd := exec.Command(bin, "--port", fmt.Sprint(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
		"--dir", t.TempDir(), "--protected-mode", "yes")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	ready := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if strings.Contains(sc.Text(), "Ready to accept connections") {
				close(ready)
				break
			}
		}
		for sc.Scan() {
		}
	}()
	select {
	case <-ready:
	case <-time.After(10 * time.Second):
		t.Fatalf("redis-server on port %d did not start", port)
	}
	return fmt.Sprintf("redis://127.0.0.1:%d/0", port)
}
