//go:build isolateprobe && linux

package isolate_test

import (
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpwasm/mcpwasm/host/confine"
	"github.com/mcpwasm/mcpwasm/host/isolate"
	"github.com/mcpwasm/mcpwasm/host/netguard"
	"github.com/mcpwasm/mcpwasm/host/plugin"
)

// escapeSetup is a server's world as a compromised worker would find it:
// its own grant, another plugin's folder, the config, the tokens file and
// the state key (all readable by this user: only the worker's walls stand
// between it and them), a TCP port nothing grants, and the server's pid.
type escapeSetup struct {
	own, other, server string
	targets            isolate.ProbeTargets
	ln                 net.Listener
}

func newEscapeSetup(t *testing.T) *escapeSetup {
	t.Helper()
	base := t.TempDir()
	s := &escapeSetup{own: filepath.Join(base, "own"), other: filepath.Join(base, "other"), server: filepath.Join(base, "server")}
	for _, d := range []string{s.own, s.other, s.server} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	files := map[string]string{
		filepath.Join(s.other, "secret.txt"):    "another plugin's data",
		filepath.Join(s.server, "mcpwasm.toml"): "[server]\n",
		filepath.Join(s.server, "tokens"):       "token-hash\n",
		filepath.Join(s.server, "state.key"):    "0123456789abcdef",
		filepath.Join(s.own, "mine.txt"):        "my own data",
	}
	for f, c := range files {
		if err := os.WriteFile(f, []byte(c), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	s.ln = ln
	exe := "/bin/true"
	if _, err := os.Stat(exe); err != nil {
		exe = "/usr/bin/true"
	}
	s.targets = isolate.ProbeTargets{
		Read: []string{filepath.Join(s.other, "secret.txt"), filepath.Join(s.server, "mcpwasm.toml"),
			filepath.Join(s.server, "tokens"), filepath.Join(s.server, "state.key")},
		Write:   []string{s.other, s.server},
		Connect: []int{ln.Addr().(*net.TCPAddr).Port},
		Exec:    exe,
		Signal:  os.Getpid(),
		Ptrace:  standIn(t),
	}
	return s
}

// standIn is a process of the server's, outside the worker's domain, to
// ptrace: a successful attach (the control) stops its target, which must
// not be the test itself.
func standIn(t *testing.T) int {
	cmd := exec.Command("sleep", "600")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return cmd.Process.Pid
}

func (s *escapeSetup) probe(t *testing.T, mode confine.Mode, cfg plugin.Config, tg isolate.ProbeTargets) map[string]isolate.ProbeResult {
	t.Helper()
	w := newWorker(t, "echo", cfg, mode)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := w.Probe(ctx, tg)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]isolate.ProbeResult{}
	for _, r := range res {
		out[strings.Fields(r.What)[0]+" "+r.What[strings.Index(r.What, " ")+1:]] = r
	}
	return out
}

func (s *escapeSetup) ownGrant() plugin.Config {
	return plugin.Config{Grants: []plugin.Grant{{Path: s.own}}}
}

// want is the errno each probe must meet in a confined worker, and the
// wall that gives it.
func wantErrno(what string) (syscall.Errno, string) {
	switch {
	case strings.HasPrefix(what, "exec"), strings.HasPrefix(what, "ptrace"):
		return syscall.EPERM, "seccomp"
	case strings.HasPrefix(what, "signal"):
		return syscall.EPERM, "Landlock signal scoping"
	}
	return syscall.EACCES, "Landlock"
}

// TestEscapeProbesRefused: a worker acting as if its guest escaped
// wazero is refused, by the kernel, every read and write outside its
// grants, every connect outside its ports, exec, ptrace and signals to
// the server; what it was granted still works.
func TestEscapeProbesRefused(t *testing.T) {
	s := newEscapeSetup(t)
	tg := s.targets
	tg.Read = append(tg.Read, filepath.Join(s.own, "mine.txt"))
	tg.Write = append(tg.Write, s.own)
	res := s.probe(t, confine.Required, s.ownGrant(), tg)
	if len(res) != len(tg.Read)+len(tg.Write)+len(tg.Connect)+3 {
		t.Fatalf("%d probes answered: %v", len(res), res)
	}
	for what, r := range res {
		if strings.Contains(what, s.own) {
			if r.Errno != 0 {
				t.Errorf("%s: %s, but it is the worker's own grant", what, r.Err)
			}
			continue
		}
		want, wall := wantErrno(what)
		if r.Errno != int(want) {
			t.Errorf("%s: errno %d (%s), want %v from %s", what, r.Errno, r.Err, want, wall)
		}
	}
}

// TestEscapeProbesControl: the same probes, confinement off, succeed:
// the refusals above come from the walls, not from the setup.
func TestEscapeProbesControl(t *testing.T) {
	s := newEscapeSetup(t)
	res := s.probe(t, confine.Off, s.ownGrant(), s.targets)
	for what, r := range res {
		if r.Errno != 0 {
			t.Errorf("%s: %s, want success with confinement off", what, r.Err)
		}
	}
}

// TestEscapeProbesFollowGrants: each refusal is the policy's: grant the
// other folder read-only and its file reads but is not written; grant the
// port and the connect goes through.
func TestEscapeProbesFollowGrants(t *testing.T) {
	s := newEscapeSetup(t)
	cfg := s.ownGrant()
	cfg.Grants = append(cfg.Grants, plugin.Grant{Path: s.other, ReadOnly: true})
	port := s.targets.Connect[0]
	cfg.Network = netguard.Options{Grants: []netguard.Grant{{Hosts: []string{"127.0.0.1"}, Ports: []int{port}, Schemes: []string{"http"}}}}
	tg := isolate.ProbeTargets{Read: s.targets.Read[:1], Write: []string{s.other}, Connect: []int{port}}
	res := s.probe(t, confine.Required, cfg, tg)
	for what, r := range res {
		wantOK := !strings.HasPrefix(what, "write")
		if wantOK && r.Errno != 0 {
			t.Errorf("%s: %s, but it is granted", what, r.Err)
		}
		if !wantOK && r.Errno != int(syscall.EACCES) {
			t.Errorf("%s: errno %d (%s), want EACCES: the grant is read-only", what, r.Errno, r.Err)
		}
	}
}

// TestMemoryBoundByKernel: a worker's writable memory is bounded by the
// kernel (RLIMIT_DATA): growing past it the way a linear memory grows is
// refused with ENOMEM, where a worker without the bound grows.
func TestMemoryBoundByKernel(t *testing.T) {
	if isolate.RaceEnabled {
		t.Skip("a race-detector worker sets no RLIMIT_DATA")
	}
	for _, c := range []struct {
		limit int64
		want  syscall.Errno
	}{{256 << 20, syscall.ENOMEM}, {-1, 0}} {
		w := newWorkerOpts(t, "echo", plugin.Config{}, isolate.Options{Confine: confine.Required, DataLimit: c.limit})
		if c.limit > 0 && w.Stats().DataLimit != uint64(c.limit) {
			t.Fatalf("worker reports RLIMIT_DATA %d, want %d", w.Stats().DataLimit, c.limit)
		}
		res, err := w.Probe(context.Background(), isolate.ProbeTargets{GrowMiB: 512})
		if err != nil || len(res) != 1 {
			t.Fatalf("%v %v", res, err)
		}
		if res[0].Errno != int(c.want) {
			t.Errorf("limit %d: grow 512 MiB: errno %d (%s), want %d", c.limit, res[0].Errno, res[0].Err, c.want)
		}
	}
	// And the plugin's own calls still run under the default bound.
	w := newWorker(t, "echo", plugin.Config{}, confine.Required)
	if w.Stats().DataLimit != isolate.DefaultDataLimit(0, 0) {
		t.Fatalf("default RLIMIT_DATA %d", w.Stats().DataLimit)
	}
}
