package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/mcpwasm/mcpwasm/internal/eventually"

	"github.com/mcpwasm/mcpwasm/internal/fixture"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Hot reload, end to end: the real binary, go-sdk's client over stdio, and
// files changed under the server's feet (watched, debounced, SIGHUP). The
// reload logic itself (add, remove, a corrupt version keeps the old one, a
// refresh) is tested in process in host/lifecycle. Nothing here measures time: every
// wait polls, with a generous limit, for what the client or the log shows.

// reloadServer is a running `mcpwasm serve` with a client that records
// tools/list_changed notifications.
type reloadServer struct {
	t       *testing.T
	cs      *mcp.ClientSession
	cmd     *exec.Cmd
	stderr  *syncBuffer
	changed chan struct{} // one value per notifications/tools/list_changed
}

func startReload(t *testing.T, opts *mcp.ClientOptions, sopts *mcp.ClientSessionOptions, args ...string) *reloadServer {
	t.Helper()
	if opts == nil {
		opts = &mcp.ClientOptions{}
	}
	rs := &reloadServer{t: t, stderr: &syncBuffer{}, changed: make(chan struct{}, 100)}
	opts.ToolListChangedHandler = func(context.Context, *mcp.ToolListChangedRequest) {
		select {
		case rs.changed <- struct{}{}:
		default:
		}
	}
	rs.cmd = exec.Command(binary, append([]string{"serve", "--cache-dir", t.TempDir(), "--log-level", "debug"}, args...)...)
	rs.cmd.Env = testEnv(t)
	rs.cmd.Stderr = rs.stderr
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "reload-e2e"}, opts).Connect(ctx, &mcp.CommandTransport{Command: rs.cmd}, sopts)
	if err != nil {
		t.Fatalf("connect: %v\nstderr:\n%s", err, rs.stderr)
	}
	rs.cs = cs
	t.Cleanup(func() { cs.Close() })
	return rs
}

// tools lists the tool names, comma-separated.
func (rs *reloadServer) tools() string {
	rs.t.Helper()
	return toolNames(rs.t, rs.cs, rs.stderr)
}

// eventually polls cond every 50 ms until it holds, or fails after a
// minute naming what it waited for.
func (rs *reloadServer) eventually(what string, cond func() bool) {
	rs.t.Helper()
	if !eventually.Within(60*time.Second, cond) {
		rs.t.Fatalf("still waiting for %s after a minute\nstderr:\n%s", what, rs.stderr)
	}
}

// waitTools waits until tools/list answers want.
func (rs *reloadServer) waitTools(want string) {
	rs.t.Helper()
	last := ""
	rs.eventually("tools/list = "+want, func() bool { last = rs.tools(); return last == want })
}

// waitChanged waits for a notifications/tools/list_changed.
func (rs *reloadServer) waitChanged() {
	rs.t.Helper()
	select {
	case <-rs.changed:
	case <-time.After(60 * time.Second):
		rs.t.Fatalf("no notifications/tools/list_changed within a minute\nstderr:\n%s", rs.stderr)
	}
}

// drainChanged forgets the notifications received so far.
func (rs *reloadServer) drainChanged() {
	for {
		select {
		case <-rs.changed:
		default:
			return
		}
	}
}

// waitLog waits until stderr holds every one of parts on one line, and
// returns that line.
func (rs *reloadServer) waitLog(parts ...string) string {
	rs.t.Helper()
	var found string
	rs.eventually("a log line with "+strings.Join(parts, " and "), func() bool {
		for _, line := range strings.Split(rs.stderr.String(), "\n") {
			ok := true
			for _, p := range parts {
				ok = ok && strings.Contains(line, p)
			}
			if ok {
				found = line
				return true
			}
		}
		return false
	})
	return found
}

// text calls a tool and returns its result as JSON, failing on a protocol
// error.
func (rs *reloadServer) call(name string) (*mcp.CallToolResult, string) {
	rs.t.Helper()
	res, err := rs.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: map[string]any{}})
	if err != nil {
		rs.t.Fatalf("%s: %v\nstderr:\n%s", name, err, rs.stderr)
	}
	b, _ := json.Marshal(res)
	return res, string(b)
}

// TestReloadReplaceFinishesInFlightCall: replacing a plugin's file serves
// the new version to new calls while a call already running on the old
// version finishes on it, with the old version's answer; the tool never
// leaves tools/list during the swap.
//
// The old version is the sample fixture: its call asks the client to
// sample, and the client holds the first such request until the new
// version answers, so the call is certainly in flight on the old version
// across the swap. The new version (sample_v2) answers "sample v2" itself.
func TestReloadReplaceFinishesInFlightCall(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "svc.wasm")
	fixture.Copy(t, "sample", path)
	entered, release := make(chan struct{}), make(chan struct{})
	var releaseOnce sync.Once
	var first atomic.Bool // not sync.Once: later calls must not wait for the first
	opts := &mcp.ClientOptions{CreateMessageHandler: func(ctx context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
		text := "old version, a later call"
		if first.CompareAndSwap(false, true) {
			close(entered)
			<-release
			text = "old version, the first call"
		}
		return &mcp.CreateMessageResult{Model: "test", Role: "assistant", Content: &mcp.TextContent{Text: text}}, nil
	}}
	// Protocol 2025-11-25: sampling is a request from the server inside the
	// call. (From 2026-07-28 on it is a multi round-trip: the call returns,
	// and the client calls again with the answer; that second call is a
	// new request and goes to whichever version serves then.)
	// --trust off: the new version declares its tool otherwise (trust
	// would hold it until approved: TestTrustReloadE2E).
	rs := startReload(t, opts, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"}, dir, "--timeout", "5m", "--trust", "off")
	t.Cleanup(func() { releaseOnce.Do(func() { close(release) }) }) // before the session closes: a failure must not leave the call held
	if got := rs.tools(); got != "svc_sample" {
		t.Fatalf("tools at start = %q", got)
	}
	rs.drainChanged()

	type answer struct {
		res *mcp.CallToolResult
		err error
	}
	inFlight := make(chan answer, 1)
	go func() {
		res, err := rs.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "svc_sample", Arguments: map[string]any{}})
		inFlight <- answer{res, err}
	}()
	select {
	case <-entered:
	case <-time.After(60 * time.Second):
		t.Fatalf("the first call never reached the client's sampling handler\nstderr:\n%s", rs.stderr)
	}

	// While the file is replaced, tools/list must list the tool every time.
	stop, listed := make(chan struct{}), make(chan string, 1)
	go func() {
		missing := ""
		for {
			select {
			case <-stop:
				listed <- missing
				return
			default:
			}
			lt, err := rs.cs.ListTools(context.Background(), nil)
			if err == nil && (len(lt.Tools) != 1 || lt.Tools[0].Name != "svc_sample") && missing == "" {
				b, _ := json.Marshal(lt.Tools)
				missing = string(b)
			}
			time.Sleep(2 * time.Millisecond) // a list every few ms, not a busy loop on 2 cores
		}
	}()

	// Replace the file the way a deploy does: a new file renamed over it.
	tmp := filepath.Join(dir, "svc.wasm.tmp")
	fixture.Copy(t, "sample_v2", tmp)
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
	// No wait for list_changed here: the lister above fetches the new list
	// at once, and a session that already listed the change is not told of
	// it again (TestReloadFolder checks the notification).
	// A call that still reached the old version would wait behind the
	// held one for the plugin's only slot: give each try its own deadline.
	rs.eventually("svc_sample to answer from the new version", func() bool {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		res, err := rs.cs.CallTool(ctx, &mcp.CallToolParams{Name: "svc_sample", Arguments: map[string]any{}})
		b, _ := json.Marshal(res)
		return err == nil && strings.Contains(string(b), "sample v2")
	})
	close(stop)
	if m := <-listed; m != "" {
		t.Fatalf("tools/list during the swap did not list svc_sample alone: %s", m)
	}
	rs.waitLog("plugin reloaded", "svc.wasm")

	select {
	case a := <-inFlight:
		t.Fatalf("the first call ended before it was released: %+v %v", a.res, a.err)
	default:
	}
	releaseOnce.Do(func() { close(release) })
	var a answer
	select {
	case a = <-inFlight:
	case <-time.After(60 * time.Second):
		t.Fatalf("the in-flight call was never answered\nstderr:\n%s", rs.stderr)
	}
	if a.err != nil || a.res.IsError {
		t.Fatalf("the in-flight call failed: %v %+v\nstderr:\n%s", a.err, a.res, rs.stderr)
	}
	if b, _ := json.Marshal(a.res); !strings.Contains(string(b), "old version, the first call") {
		t.Fatalf("the in-flight call did not finish on the old version: %s", b)
	}
	if _, out := rs.call("svc_sample"); !strings.Contains(out, "sample v2") {
		t.Fatalf("after the swap: %s", out)
	}
}

// TestSIGHUPReloadsConfig: SIGHUP, with the file watch off, reloads the
// config and applies the plugins' changes. (What a reload of a broken or a
// changed config does is TestReloadConfig, in process, in host/lifecycle.)
func TestSIGHUPReloadsConfig(t *testing.T) {
	dir := fixture.Folder(t, "echo")
	cfg := filepath.Join(dir, "mcpwasm.toml")
	write := func(text string) {
		if err := os.WriteFile(cfg, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("[[plugin]]\nname = \"one\"\npath = \"echo.wasm\"\n")
	// --watch=false: only the signal may reload here.
	rs := startReload(t, nil, nil, "--config", cfg, "--watch=false")
	if got := rs.tools(); got != "one_echo" {
		t.Fatalf("tools at start = %q", got)
	}
	rs.drainChanged()
	write("[[plugin]]\nname = \"two\"\npath = \"echo.wasm\"\n")
	if err := rs.cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	rs.waitChanged()
	rs.waitTools("two_echo")
	rs.waitLog("config reloaded", "SIGHUP")
	if res, out := rs.call("two_echo"); res.IsError {
		t.Fatalf("two_echo: %s", out)
	}
}

// TestConfigFileWatched: saving the config file reloads it without a
// signal; a [[plugin]] added there is served.
func TestConfigFileWatched(t *testing.T) {
	dir := fixture.Folder(t, "echo", "constant")
	cfg := fixture.Config(t, dir, "[[plugin]]\npath = \"echo.wasm\"\n")
	rs := startReload(t, nil, nil, "--config", cfg)
	if got := rs.tools(); got != "echo_echo" {
		t.Fatalf("tools at start = %q", got)
	}
	rs.drainChanged()
	if err := os.WriteFile(cfg, []byte("[[plugin]]\npath = \"echo.wasm\"\n\n[[plugin]]\npath = \"constant.wasm\"\nprefix = false\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	rs.waitChanged()
	rs.waitTools("a,b,echo_echo")
	rs.waitLog("config reloaded", "config file changed")
}
