package bench

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The Node reference server the harness installs and measures.
const (
	nodePackage = "@modelcontextprotocol/server-everything"
	nodeVersion = "2026.8.31"
)

// tail keeps the last bytes a child process wrote to stderr, for error
// messages.
type tail struct {
	mu  sync.Mutex
	buf []byte
}

func newTail() *tail { return &tail{} }

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > 16<<10 {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-8<<10:]...)
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := strings.TrimSpace(string(t.buf))
	if len(s) > 2000 {
		s = "…" + s[len(s)-2000:]
	}
	return s
}

// stdioProc is a server process with one client session over its stdio.
type stdioProc struct {
	cmd       *exec.Cmd
	stderr    *tail
	cs        *mcp.ClientSession
	handshake time.Duration // process start → initialize (or discover) answered
	version   string        // negotiated protocol version
}

// startStdio starts bin and connects the harness's client to it over stdio,
// asking for protocol version.
func (e *env) startStdio(ctx context.Context, version, bin string, args ...string) (*stdioProc, error) {
	cmd := exec.Command(bin, args...)
	p := &stdioProc{cmd: cmd, stderr: newTail()}
	cmd.Stderr = p.stderr
	t := &mcp.CommandTransport{Command: cmd, TerminateDuration: 3 * time.Second}
	start := time.Now()
	cs, err := e.client.Connect(ctx, t, &mcp.ClientSessionOptions{ProtocolVersion: version})
	p.handshake = time.Since(start)
	if err != nil {
		if cmd.Process != nil {
			cmd.Process.Kill()
		}
		return nil, fmt.Errorf("%s: %v (stderr: %s)", filepath.Base(bin), err, p.stderr)
	}
	p.cs = cs
	p.version = cs.InitializeResult().ProtocolVersion
	e.track(func() { p.close() })
	return p, nil
}

func (p *stdioProc) close() {
	if p.cs != nil {
		p.cs.Close()
		p.cs = nil
	}
}

// rss returns the process's resident set size in bytes.
func (p *stdioProc) rss() (int64, error) { return rssOf(p.cmd.Process.Pid) }

// httpProc is a server process serving Streamable HTTP.
type httpProc struct {
	cmd    *exec.Cmd
	stderr *tail
	url    string
	done   chan struct{}
}

// startHTTP starts bin with args, where the argument "ADDR" is replaced by
// a free loopback address, and waits until that address accepts
// connections. (The address is chosen here rather than with port 0 so that
// the servers need not log it at a level that would log during the run.)
func (e *env) startHTTP(ctx context.Context, bin string, args ...string) (*httpProc, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	addr := ln.Addr().String()
	ln.Close()
	args = slices.Clone(args)
	for i, a := range args {
		if a == "ADDR" {
			args[i] = addr
		}
	}
	cmd := exec.Command(bin, args...)
	p := &httpProc{cmd: cmd, stderr: newTail(), done: make(chan struct{}), url: "http://" + addr + "/mcp"}
	cmd.Stderr = p.stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	go func() { cmd.Wait(); close(p.done) }()
	e.track(p.stop)
	deadline := time.Now().Add(60 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
			return p, nil
		}
		select {
		case <-p.done:
			return nil, fmt.Errorf("%s exited: %s", filepath.Base(bin), p.stderr)
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(10 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("%s does not listen on %s after 60s: %s", filepath.Base(bin), addr, p.stderr)
		}
	}
}

// stop asks the server to exit (SIGTERM) and kills it after 3 s.
func (p *httpProc) stop() {
	select {
	case <-p.done:
		return
	default:
	}
	p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(3 * time.Second):
		p.cmd.Process.Kill()
		<-p.done
	}
}

// connectHTTP opens n client sessions to the server.
func (e *env) connectHTTP(ctx context.Context, url, version string, n int) ([]*mcp.ClientSession, error) {
	var out []*mcp.ClientSession
	for range n {
		cs, err := e.client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: e.http, MaxRetries: -1},
			&mcp.ClientSessionOptions{ProtocolVersion: version})
		if err != nil {
			closeAll(out)
			return nil, err
		}
		out = append(out, cs)
	}
	return out, nil
}

func closeAll(s []*mcp.ClientSession) {
	for _, cs := range s {
		cs.Close()
	}
}

func newHTTPClient() *http.Client {
	return &http.Client{Transport: &http.Transport{MaxIdleConns: 512, MaxIdleConnsPerHost: 256, IdleConnTimeout: time.Minute}}
}

// rssOf reads VmRSS from /proc (Linux only).
func rssOf(pid int) (int64, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		if f := strings.Fields(sc.Text()); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, err := strconv.ParseInt(f[1], 10, 64)
			return kb << 10, err
		}
	}
	return 0, errors.New("no VmRSS in /proc status")
}

// cpuOf is the user and system CPU time process pid has used, from
// /proc/PID/stat (in the kernel's USER_HZ ticks, 100 a second on Linux).
func cpuOf(pid int) (time.Duration, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The command name, in parentheses, may hold spaces: count after it.
	i := bytes.LastIndexByte(data, ')')
	if i < 0 {
		return 0, errors.New("malformed /proc stat")
	}
	f := strings.Fields(string(data[i+1:]))
	if len(f) < 13 {
		return 0, errors.New("short /proc stat")
	}
	utime, err := strconv.ParseInt(f[11], 10, 64)
	if err != nil {
		return 0, err
	}
	stime, err := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(utime+stime) * 10 * time.Millisecond, err
}

// rssFast reads the resident pages from /proc/PID/statm, cheaper than
// status, for sampling during a burst.
func rssFast(pid int, buf []byte) (int64, error) {
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/statm")
	if err != nil {
		return 0, err
	}
	n, err := f.Read(buf)
	f.Close()
	if err != nil {
		return 0, err
	}
	fields := strings.Fields(string(buf[:n]))
	if len(fields) < 2 {
		return 0, errors.New("short statm")
	}
	pages, err := strconv.ParseInt(fields[1], 10, 64)
	return pages * int64(os.Getpagesize()), err
}

// samplePeakRSS samples pid's resident memory every period, from now
// until the function it returns is called; that function returns the
// highest value read (0 if none could be).
func samplePeakRSS(pid int, every time.Duration) (stop func() int64) {
	var peak atomic.Int64
	quit, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		buf := make([]byte, 256)
		for {
			if v, err := rssFast(pid, buf); err == nil && v > peak.Load() {
				peak.Store(v)
			}
			select {
			case <-quit:
				return
			case <-time.After(every):
			}
		}
	}()
	return func() int64 {
		close(quit)
		<-done
		return peak.Load()
	}
}

// installNode installs the Node reference server with npm into the user
// cache folder (once) and returns the path of its entry script.
func (e *env) installNode(ctx context.Context) (node, script string, err error) {
	node, err = exec.LookPath("node")
	if err != nil {
		return "", "", errors.New("node is not on PATH")
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		return "", "", errors.New("npm is not on PATH")
	}
	base, err := os.UserCacheDir()
	if err != nil {
		base = os.TempDir()
	}
	dir := filepath.Join(base, "mcpwasm", "bench", "server-everything-"+nodeVersion)
	pkg := filepath.Join(dir, "node_modules", filepath.FromSlash(nodePackage))
	script = filepath.Join(pkg, "dist", "index.js")
	if installedVersion(pkg) == nodeVersion {
		return node, script, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", "", err
	}
	e.progress("installing %s@%s with npm into %s", nodePackage, nodeVersion, dir)
	cmd := exec.CommandContext(ctx, npm, "install", "--prefix", dir, "--no-audit", "--no-fund", "--loglevel=error",
		nodePackage+"@"+nodeVersion)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", "", fmt.Errorf("npm install: %v: %s", err, bytes.TrimSpace(out))
	}
	if v := installedVersion(pkg); v != nodeVersion {
		return "", "", fmt.Errorf("npm installed %q, want %s", v, nodeVersion)
	}
	return node, script, nil
}

func installedVersion(pkg string) string {
	data, err := os.ReadFile(filepath.Join(pkg, "package.json"))
	if err != nil {
		return ""
	}
	var p struct{ Version string }
	json.Unmarshal(data, &p)
	return p.Version
}

// build compiles the mcpwasm command and the plain go-sdk server from the
// module's own source into dir.
func build(ctx context.Context, goBin, root, dir string) (mcpwasm, plain string, err error) {
	mcpwasm, plain = filepath.Join(dir, "mcpwasm"), filepath.Join(dir, "plainserver")
	for _, b := range []struct{ out, pkg string }{{mcpwasm, "./cmd/mcpwasm"}, {plain, "./internal/bench/plainserver"}} {
		cmd := exec.CommandContext(ctx, goBin, "build", "-o", b.out, b.pkg)
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			return "", "", fmt.Errorf("go build %s: %v: %s", b.pkg, err, bytes.TrimSpace(out))
		}
	}
	return mcpwasm, plain, nil
}

// moduleRoot finds the mcpwasm module containing the working directory.
func moduleRoot(goBin string) (string, error) {
	out, err := exec.Command(goBin, "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %v", err)
	}
	mod := strings.TrimSpace(string(out))
	if mod == "" || mod == os.DevNull {
		return "", errors.New("not inside a Go module: run mcpwasm-bench from the mcpwasm checkout")
	}
	data, err := os.ReadFile(mod)
	if err != nil {
		return "", err
	}
	if !bytes.Contains(data, []byte("module github.com/mcpwasm/mcpwasm\n")) {
		return "", fmt.Errorf("%s is not the mcpwasm module: run mcpwasm-bench from the mcpwasm checkout", mod)
	}
	return filepath.Dir(mod), nil
}

// tomlString quotes s as a TOML basic string.
func tomlString(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}
