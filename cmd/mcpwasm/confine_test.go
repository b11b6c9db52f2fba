package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mcpwasm/mcpwasm/internal/fixture"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Confinement is irreversible, so every test here confines a child
// process (the built binary), never the test process.

// validateConfine runs validate --confine with args and gives its stdout
// and stderr, failing the test if it exits non-zero.
func validateConfine(t *testing.T, args ...string) (string, string) {
	t.Helper()
	cmd := exec.Command(binary, append([]string{"validate", "--confine", "--cache-dir", t.TempDir()}, args...)...)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("validate --confine: %v\nstdout:\n%s\nstderr:\n%s", err, stdout.String(), stderr.String())
	}
	return stdout.String(), stderr.String()
}

// TestValidateConfine: validate --confine loads the plugins under serve's
// confinement, then every attempt a compromised process would make is
// refused, each by the wall that should refuse it. Dropping a rule (say
// execve from confine.Denied) turns that line into FAILED and the exit
// code into 1.
func TestValidateConfine(t *testing.T) {
	dir := fixture.Folder(t, "echo")
	out, errOut := validateConfine(t, dir)
	want := []string{
		`(?m)^confined: no_new_privs,landlock-fs,landlock-tcp,landlock-scoped,seccomp \(Landlock ABI \d+\)$`,
		`(?m)^ok  echo  `, // loaded under the confinement
		`(?m)^refused  read \S+: .*permission denied \(Landlock\)$`,
		`(?m)^refused  write into ` + regexp.QuoteMeta(dir) + `: .*permission denied \(Landlock\)$`,
		`(?m)^refused  exec \S+: .*operation not permitted \(seccomp\)$`,
		`(?m)^refused  ptrace child \d+: operation not permitted \(seccomp\)$`,
		`(?m)^refused  connect tcp 127\.0\.0\.1:\d+: .*permission denied \(Landlock\)$`,
		`(?m)^refused  connect mptcp 127\.0\.0\.1:\d+: .*operation not permitted \(seccomp\)$`,
	}
	for _, re := range want {
		if !regexp.MustCompile(re).MatchString(out) {
			t.Errorf("no line matching %s\nstdout:\n%s\nstderr:\n%s", re, out, errOut)
		}
	}
	if strings.Contains(out, "FAILED") {
		t.Errorf("an attempt was not refused:\n%s", out)
	}
	// Nothing was left behind in the plugin folder.
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("plugin folder now holds %d entries, want only echo.wasm", len(entries))
	}
}

// TestServeConfinedProcStatus: a serving process is confined by default —
// /proc/PID/status shows NoNewPrivs 1 and Seccomp 2 (filter) — and still
// answers a call; with --confine=off both are 0 (the control: the test
// tells the two apart).
func TestServeConfinedProcStatus(t *testing.T) {
	for _, tc := range []struct {
		mode             string
		nnp, seccomp     string
		logConfinedOrOff string
	}{
		{"", "1", "2", "process confined"}, // the default
		{"required", "1", "2", "process confined"},
		{"off", "0", "0", "confinement off"},
	} {
		t.Run("confine="+tc.mode, func(t *testing.T) {
			args := []string{fixture.Path(t, "echo")}
			if tc.mode != "" {
				args = append(args, "--confine", tc.mode)
			}
			url, cmd, stderr := httpServeCmd(t, args...)
			cs := connectHTTP(t, url, stderr)
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo_echo", Arguments: map[string]any{"text": "walls"}})
			if err != nil || res.IsError {
				t.Fatalf("echo under confinement: %+v, %v\nstderr:\n%s", res, err, stderr)
			}
			status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", cmd.Process.Pid))
			if err != nil {
				t.Fatal(err)
			}
			for field, want := range map[string]string{"NoNewPrivs": tc.nnp, "Seccomp": tc.seccomp} {
				m := regexp.MustCompile(`(?m)^` + field + `:\s+(\d+)$`).FindStringSubmatch(string(status))
				if m == nil || m[1] != want {
					t.Errorf("/proc/PID/status %s = %v, want %s\n%s", field, m, want, status)
				}
			}
			if !strings.Contains(stderr.String(), tc.logConfinedOrOff) {
				t.Errorf("no %q in the log:\n%s", tc.logConfinedOrOff, stderr)
			}
		})
	}
}

// TestReloadUnderConfinement: a plugin file new in the config's folder
// loads on reload (the folder is in the rules); one in a folder outside
// every rule, or a link to one, is not readable, and the log says a
// restart is needed, naming the path.
func TestReloadUnderConfinement(t *testing.T) {
	dir, outside := t.TempDir(), t.TempDir()
	fixture.Copy(t, "echo", filepath.Join(dir, "echo.wasm"))
	cfg := fixture.Config(t, dir, "[[plugin]]\npath = \"echo.wasm\"\n")
	rs := startReload(t, nil, nil, "--config", cfg)
	rs.waitLog("process confined", "seccomp")
	rs.waitTools("echo_echo")

	fixture.Copy(t, "constant", filepath.Join(dir, "constant.wasm"))
	if err := os.WriteFile(cfg, []byte("[[plugin]]\npath = \"echo.wasm\"\n\n[[plugin]]\npath = \"constant.wasm\"\nprefix = false\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	rs.waitTools("a,b,echo_echo")

	far := filepath.Join(outside, "far.wasm")
	fixture.Copy(t, "constant", far)
	if err := os.WriteFile(cfg, []byte("[[plugin]]\npath = \"echo.wasm\"\n\n[[plugin]]\npath = \""+far+"\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	rs.waitLog("restart needed", "read "+far)
	rs.waitTools("echo_echo")

	// A link in the folder to a file outside it: not readable either.
	far2 := filepath.Join(outside, "far2.wasm")
	fixture.Copy(t, "constant", far2)
	if err := os.Symlink(far2, filepath.Join(dir, "link.wasm")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfg, []byte("[[plugin]]\npath = \"echo.wasm\"\n\n[[plugin]]\npath = \"link.wasm\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	rs.waitLog("restart needed", "read "+far2, "link ")
	rs.waitTools("echo_echo")
}

// TestConfineFlagChecked: an unknown --confine value is a usage error,
// not a silent default.
func TestConfineFlagChecked(t *testing.T) {
	out, err := exec.Command(binary, "serve", "--confine", "on", fixture.Path(t, "echo")).CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 || !strings.Contains(string(out), `--confine "on": want auto, required or off`) {
		t.Fatalf("serve --confine on: %v\n%s", err, out)
	}
}

// TestValidateConfineIsolated: with isolation = "process", validate
// --confine shows the plugin's worker policy and makes the same attempts
// in a worker confined to it, each refused by its wall.
func TestValidateConfineIsolated(t *testing.T) {
	dir := fixture.Folder(t, "echo")
	cfg := fixture.Config(t, dir, "[[plugin]]\npath = \"echo.wasm\"\nisolation = \"process\"\n")
	out, errOut := validateConfine(t, "--config", cfg)
	for _, re := range []string{
		`(?m)^worker echo: read-write \S+wazero-isolated/[0-9a-f]{16}; no TCP; no exec`,
		`(?m)^worker echo confined: no_new_privs,landlock-fs,landlock-tcp,landlock-scoped,seccomp$`,
		`(?m)^worker echo: refused  read \S+: .*permission denied \(Landlock\)$`,
		`(?m)^worker echo: refused  write into ` + regexp.QuoteMeta(dir) + `: .*permission denied \(Landlock\)$`,
		`(?m)^worker echo: refused  exec \S+: .*operation not permitted \(seccomp\)$`,
		`(?m)^worker echo: refused  ptrace child \d+: operation not permitted \(seccomp\)$`,
		`(?m)^worker echo: refused  connect tcp 127\.0\.0\.1:\d+: .*permission denied \(Landlock\)$`,
	} {
		if !regexp.MustCompile(re).MatchString(out) {
			t.Errorf("no line matching %s\nstdout:\n%s\nstderr:\n%s", re, out, errOut)
		}
	}
	if strings.Contains(out, "FAILED") {
		t.Errorf("an attempt was not refused:\n%s", out)
	}
}
