package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/mcpwasm/mcpwasm/internal/fixture"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestAuditLogRotation: the audit log is rotated as logrotate does it
// (`mv audit.log audit.log.1`, then SIGHUP) while calls run, with the
// process confined (required) and not: the server creates audit.log again
// and writes there, and every call answered has exactly one line across
// the two files, none lost, none twice. Before, it kept writing into
// audit.log.1 and never created audit.log.
func TestAuditLogRotation(t *testing.T) {
	for _, mode := range []string{"required", "off"} {
		t.Run("confine="+mode, func(t *testing.T) {
			dir, logs := t.TempDir(), t.TempDir()
			fixture.Copy(t, "echo", filepath.Join(dir, "echo.wasm"))
			auditLog := filepath.Join(logs, "audit.log")
			cfg := filepath.Join(dir, "mcpwasm.toml")
			text := fmt.Sprintf("[server.audit]\nfile = %q\narguments = true\n\n[[plugin]]\npath = \"echo.wasm\"\n", auditLog)
			if err := os.WriteFile(cfg, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
			rs := startReload(t, nil, nil, "--confine", mode, "--config", cfg, "--watch=false")
			rs.waitTools("echo_echo")

			var answered sync.Map // call text -> true
			var n atomic.Int64
			stop := make(chan struct{})
			var wg sync.WaitGroup
			for w := 0; w < 4; w++ {
				wg.Add(1)
				go func(w int) {
					defer wg.Done()
					for i := 0; ; i++ {
						select {
						case <-stop:
							return
						default:
						}
						msg := fmt.Sprintf("call-%d-%d", w, i)
						res, err := rs.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "echo_echo", Arguments: map[string]any{"text": msg}})
						if err == nil && !res.IsError {
							answered.Store(msg, true)
							n.Add(1)
						}
					}
				}(w)
			}
			waitCalls := func(at int64) {
				t.Helper()
				rs.eventually(fmt.Sprintf("%d calls answered", at), func() bool { return n.Load() >= at })
			}
			waitCalls(40)
			if err := os.Rename(auditLog, auditLog+".1"); err != nil {
				t.Fatal(err)
			}
			if err := rs.cmd.Process.Signal(syscall.SIGHUP); err != nil {
				t.Fatal(err)
			}
			rs.waitLog("audit log reopened", auditLog)
			waitCalls(n.Load() + 40)
			close(stop)
			wg.Wait()

			want := map[string]bool{}
			answered.Range(func(k, _ any) bool { want[k.(string)] = true; return true })
			var seen map[string]int
			var perFile [2]int
			count := func() bool {
				seen = map[string]int{}
				for i, f := range []string{auditLog + ".1", auditLog} {
					perFile[i] = auditCalls(t, f, seen)
				}
				for k := range want {
					if seen[k] != 1 {
						return false
					}
				}
				return true
			}
			// The audit line of the last answers may land a moment after them.
			for deadline := time.Now().Add(10 * time.Second); !count() && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
			}
			for k := range want {
				if seen[k] != 1 {
					t.Errorf("call %s has %d audit lines across the two files, want 1", k, seen[k])
				}
			}
			for k, c := range seen {
				if c > 1 && !want[k] {
					t.Errorf("call %s (not answered) has %d audit lines", k, c)
				}
			}
			if perFile[0] == 0 || perFile[1] == 0 {
				t.Fatalf("call lines: %d in audit.log.1, %d in the new audit.log; want both > 0\nstderr:\n%s", perFile[0], perFile[1], rs.stderr)
			}
			t.Logf("%d calls: %d lines in audit.log.1, %d in audit.log", len(want), perFile[0], perFile[1])
		})
	}
}

// auditCalls adds the echo text of each call line of the audit file path
// to seen and returns how many call lines it holds.
func auditCalls(t *testing.T, path string, seen map[string]int) int {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("audit file: %v", err)
	}
	defer f.Close()
	lines := 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var ev struct {
			Kind      string `json:"kind"`
			Arguments struct {
				Text string `json:"text"`
			} `json:"arguments"`
		}
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			t.Fatalf("%s: a line that is not JSON: %q", path, sc.Text())
		}
		if ev.Kind == "call" {
			lines++
			seen[ev.Arguments.Text]++
		}
	}
	return lines
}
