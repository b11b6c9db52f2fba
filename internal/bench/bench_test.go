package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpwasm/mcpwasm/internal/fixture"
)

// TestRunEchoOnly runs the whole harness in its smallest configuration with
// only the echo fixture and no Node server, and checks the table's shape:
// every figure has its row; what can be measured with echo alone is
// measured; the rest is reported as skipped. No timing is asserted.
func TestRunEchoOnly(t *testing.T) {
	fixture.Slow(t, "about 16 s: builds and runs the whole harness")
	data, err := os.ReadFile(fixture.Path(t, "echo"))
	if err != nil {
		t.Fatal(err)
	}
	fixtures := t.TempDir()
	if err := os.WriteFile(filepath.Join(fixtures, "echo.wasm"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	if data, err = os.ReadFile(fixture.Path(t, "echo_args")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(fixtures, "echo_args.wasm"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	jsonPath := filepath.Join(t.TempDir(), "bench.json")
	var stdout, stderr bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	rep, err := Run(ctx, Options{Rounds: 1, Quick: true, NoNode: true, Calls: 20, HTTPTime: 50 * time.Millisecond,
		Fixtures: fixtures, JSON: jsonPath, Stdout: &stdout, Stderr: &stderr})
	if err != nil {
		t.Fatalf("Run: %v\nstderr:\n%s", err, stderr.String())
	}
	table := stdout.String()
	t.Logf("table:\n%s", table)

	verdicts := map[string]string{}
	for _, line := range strings.Split(table, "\n") {
		for _, r := range rep.Rows {
			if strings.HasPrefix(line, r.Figure) {
				verdicts[r.Figure] = r.Verdict
			}
		}
	}
	measured := []string{
		"1 stdio 2025-11-25 p50 wasm / native (same binary)",
		"1 stdio 2025-11-25 p50 wasm / plain go-sdk server",
		"1 stdio 2026-07-28 p50 wasm / native (same binary)",
		"1 stdio 2026-07-28 p50 wasm / plain go-sdk server",
		"1 stdio 2025-11-25 p50 wasm echo of the arguments / plain go-sdk server (the same answer)",
		"1 stdio 2026-07-28 p50 native (mcpwasm) / plain go-sdk",
		"2 HTTP 32 sess. wasm / native (same binary)",
		"2 HTTP 32 sess. wasm / plain go-sdk server",
	}
	skipped := []string{
		"1 stdio 2025-11-25 p50 wasm / node",
		"1 stdio 2025-11-25 p99 wasm / node",
		"1 stdio 2026-07-28 p50 wasm / node",
		"1 stdio 2026-07-28 p99 wasm / node",
		figColdEmpty, figColdWarm, figHandshake, figColdCPU, figIdleRSS, figFirstEmpty, figFirstWarm, // no --cold-plugins
		figInflight, figNoisy, figSpin, figRecurse, // no nap, spin or recurse fixture
	}
	for _, f := range measured {
		v, ok := verdicts[f]
		if !ok {
			t.Errorf("no row %q in the table", f)
		} else if v != "ok" && !strings.HasPrefix(v, "MISS") {
			t.Errorf("row %q: verdict %q, want a measurement (ok or MISS)", f, v)
		}
	}
	for _, f := range skipped {
		v, ok := verdicts[f]
		if !ok {
			t.Errorf("no row %q in the table", f)
		} else if !strings.HasPrefix(v, "SKIPPED") {
			t.Errorf("row %q: verdict %q, want SKIPPED", f, v)
		}
	}

	raw, err := os.ReadFile(jsonPath)
	if err != nil {
		t.Fatal(err)
	}
	var back struct {
		Rows []Row                 `json:"rows"`
		Raw  map[string][]*float64 `json:"raw"`
	}
	if err := json.Unmarshal(raw, &back); err != nil {
		t.Fatalf("--json output: %v", err)
	}
	if len(back.Rows) != len(rep.Rows) || len(back.Raw["stdio/2025-11-25/wasm/p50_us"]) != 1 {
		t.Errorf("--json output: %d rows (want %d), raw wasm p50 %v", len(back.Rows), len(rep.Rows), back.Raw["stdio/2025-11-25/wasm/p50_us"])
	}
}
