package main

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/mcpwasm/mcpwasm/host/metrics/metricstest"
	"github.com/mcpwasm/mcpwasm/host/tracing/tracingtest"
	"github.com/mcpwasm/mcpwasm/internal/eventually"
	"github.com/mcpwasm/mcpwasm/internal/fixture"
	"github.com/mcpwasm/mcpwasm/internal/mcptest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const opsToken = "0123456789abcdef0123"

// opsConfig writes a config with a static token ("ci"), an audit log file
// and spin's time limit, and returns it and the audit log's path.
func opsConfig(t *testing.T, extra string) (cfg, auditLog string) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "tokens"), []byte("ci "+opsToken+"\n"), 0o600)
	cfg = fixture.Config(t, dir, `[server.auth]
tokens_file = "tokens"
[server.audit]
file = "audit.log"
`+extra+`
[[plugin]]
path = "`+fixture.Path(t, "echo")+`"
[[plugin]]
path = "`+fixture.Path(t, "spin")+`"
timeout = "300ms"
`)
	return cfg, filepath.Join(dir, "audit.log")
}

func get(t *testing.T, url, token string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp := mcptest.Do(t, req)
	var b strings.Builder
	bufio.NewReader(resp.Body).WriteTo(&b)
	return resp.StatusCode, b.String()
}

// waitReady polls /readyz until it answers 200.
func waitReady(t *testing.T, url string) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		code, body := get(t, url, "")
		if code == http.StatusOK {
			return
		}
		if code != http.StatusServiceUnavailable || !strings.Contains(body, `"status":"loading"`) || time.Now().After(deadline) {
			t.Fatalf("/readyz: %d %s", code, body)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestOperate: the real binary on HTTP with a static token. /healthz and
// /readyz answer without a token, /metrics needs one; after real calls
// through go-sdk's client the metrics count them by plugin, tool and
// outcome (a timeout included), the failed authentication and the session;
// a tool name no plugin serves creates no series; the audit log has one
// JSON line per call, with the principal, plugin digest, sizes and
// traceparent, and none of the arguments, and a line for the denial; the
// traceparent is on the call's log line.
func TestOperate(t *testing.T) {
	cfg, auditLog := opsConfig(t, "")
	url, _, stderr := httpServeCmd(t, "--config", cfg, "--log-level", "debug")
	base := strings.TrimSuffix(url, "/mcp")
	if code, body := get(t, base+"/healthz", ""); code != 200 || !strings.Contains(body, `"ok"`) {
		t.Fatalf("/healthz: %d %s", code, body)
	}
	waitReady(t, base+"/readyz")
	if code, _ := get(t, base+"/metrics", ""); code != http.StatusUnauthorized {
		t.Fatalf("/metrics without a token: %d, want 401", code)
	}

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cs := mcptest.Connect(t, url, opsToken)
	for range 2 {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo_echo", Arguments: map[string]any{"secret": "hunter2"},
			Meta: mcp.Meta{"traceparent": tracingtest.ClientTP}})
		if err != nil || res.IsError {
			t.Fatalf("echo: %+v %v", res, err)
		}
	}
	if res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "spin_spin", Arguments: map[string]any{}}); err != nil || !res.IsError {
		t.Fatalf("spin: %+v %v", res, err)
	}
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "nope_" + strings.Repeat("x", 8), Arguments: map[string]any{}}); err == nil {
		t.Fatal("an unknown tool answered")
	}
	if code, _ := get(t, base+"/metrics", "wrong-token-0123456789"); code != http.StatusUnauthorized {
		t.Fatalf("/metrics with a wrong token: %d", code)
	}

	fams, err := metricstest.Scrape(&http.Client{Transport: mcptest.Bearer{Token: opsToken}}, base+"/metrics")
	if err != nil {
		t.Fatal(err)
	}
	fams.Check(t, []metricstest.Want{
		{Name: "mcpwasm_calls_total", Labels: map[string]string{"plugin": "echo", "method": "tools/call", "tool": "echo_echo", "outcome": "ok"}, Value: 2},
		{Name: "mcpwasm_calls_total", Labels: map[string]string{"plugin": "spin", "tool": "spin_spin", "outcome": "timeout"}, Value: 1},
		{Name: "mcpwasm_call_duration_seconds", Labels: map[string]string{"plugin": "echo", "tool": "echo_echo"}, Value: 2},
		{Name: "mcpwasm_denials_total", Labels: map[string]string{"kind": "auth"}, Value: 2}, // the two wrong /metrics requests... and none else
		{Name: "mcpwasm_plugins_loaded", Value: 2},
		{Name: "mcpwasm_sessions_open", Value: 1},
	}...)
	for _, m := range fams["mcpwasm_calls_total"].GetMetric() {
		for _, l := range m.GetLabel() {
			if strings.HasPrefix(l.GetValue(), "nope_") {
				t.Errorf("a client's unknown tool name became a label: %v", m)
			}
		}
	}
	if _, ok := fams.Value("mcpwasm_guest_memory_budget_bytes", nil); !ok {
		t.Errorf("no guest memory budget gauge among %d families", len(fams))
	}

	data, err := os.ReadFile(auditLog)
	if err != nil {
		t.Fatal(err)
	}
	echo, _ := os.ReadFile(fixture.Path(t, "echo"))
	digest := sha256.Sum256(echo)
	var calls, denials int
	for line := range strings.Lines(string(data)) {
		var ev map[string]any
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatalf("audit line %q: %v", line, err)
		}
		if strings.Contains(line, "hunter2") {
			t.Errorf("the arguments were logged: %s", line)
		}
		switch ev["kind"] {
		case "call":
			if ev["tool"] != "echo_echo" {
				continue
			}
			calls++
			if ev["principal"] != "ci" || ev["plugin"] != "echo" || ev["sha256"] != hex.EncodeToString(digest[:]) ||
				ev["outcome"] != "ok" || ev["session"] == "" || ev["input_bytes"] == nil || ev["output_bytes"] == nil ||
				ev["duration_ms"] == nil || ev["traceparent"] != tracingtest.ClientTP || ev["time"] == nil {
				t.Errorf("call event lacks a field: %s", line)
			}
		case "denial":
			denials++
			if ev["denial"] != "auth" || ev["remote"] == "" {
				t.Errorf("denial event: %s", line)
			}
		}
	}
	if calls != 2 || denials == 0 {
		t.Fatalf("audit log: %d echo calls, %d denials, want 2 and some:\n%s", calls, denials, data)
	}
	if !regexp.MustCompile(`msg=call .*traceparent=` + tracingtest.ClientTP).MatchString(stderr.String()) {
		t.Errorf("no call log line with the traceparent:\n%s", stderr.String())
	}
}

// TestOperateAdminListener: with --admin the operator's endpoints move to
// their own listener, without authentication, and /metrics leaves the MCP
// listener; [server.audit] arguments = true logs them.
func TestOperateAdminListener(t *testing.T) {
	cfg, auditLog := opsConfig(t, "arguments = true\n")
	url, _, stderr := httpServeCmd(t, "--config", cfg, "--admin", "127.0.0.1:0")
	base := strings.TrimSuffix(url, "/mcp")
	var admin string
	eventually.Within(30*time.Second, func() bool {
		if m := regexp.MustCompile(`operator endpoints" url=(http://\S+)`).FindStringSubmatch(stderr.String()); m != nil {
			admin = m[1]
		}
		return admin != ""
	})
	if admin == "" {
		t.Fatalf("the admin listener was not announced:\n%s", stderr.String())
	}
	waitReady(t, admin+"/readyz")
	if code, _ := get(t, admin+"/metrics", ""); code != 200 {
		t.Fatalf("admin /metrics: %d", code)
	}
	if code, _ := get(t, base+"/metrics", opsToken); code != http.StatusNotFound {
		t.Fatalf("/metrics on the MCP listener with --admin: %d, want 404", code)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cs := mcptest.Connect(t, url, opsToken)
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo_echo", Arguments: map[string]any{"secret": "hunter2"}}); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(auditLog); !strings.Contains(string(data), `"hunter2"`) {
		t.Fatalf("arguments = true, but they are not in the audit log:\n%s", data)
	}
}

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
