package bench

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// httpTarget is one echo tool behind Streamable HTTP, with its sessions.
type httpTarget struct {
	key, label, tool string
	sessions         []*mcp.ClientSession
	err              error
	perLevel         map[int][]float64 // calls/s per round
}

// httpThroughput is figure 2: calls/s with 1, 8 and 32 concurrent sessions,
// each session calling in a loop, for the Wasm echo and the native echo of
// one mcpwasm server and the plain go-sdk server.
func (e *env) httpThroughput(ctx context.Context) error {
	echo, err := e.fixture("echo")
	if err != nil {
		return err
	}
	cfgPath, err := e.writeConfig("http", pluginTOML("wasm", echo))
	if err != nil {
		return err
	}
	maxLevel := e.levels[len(e.levels)-1]
	mw, err := e.startHTTP(ctx, e.mcpwasm, "serve", "--http", "ADDR", "--config", cfgPath, "--bench-native-echo",
		"--cache-dir", e.cache, "--log-level", "warn")
	if err != nil {
		return err
	}
	mwSessions, err := e.connectHTTP(ctx, mw.url, httpVersion, maxLevel)
	if err != nil {
		return fmt.Errorf("mcpwasm over HTTP: %v (stderr: %s)", err, mw.stderr)
	}
	defer closeAll(mwSessions)
	targets := []*httpTarget{
		{key: "wasm", label: "wasm echo", tool: "wasm_echo", sessions: mwSessions},
		{key: "native", label: "native echo (same binary)", tool: "native_echo", sessions: mwSessions},
		{key: "plain", label: "plain go-sdk server", tool: "echo"},
	}
	if pl, err := e.startHTTP(ctx, e.plain, "-http", "ADDR"); err != nil {
		targets[2].err = err
	} else if targets[2].sessions, err = e.connectHTTP(ctx, pl.url, httpVersion, maxLevel); err != nil {
		targets[2].err = err
	} else {
		defer closeAll(targets[2].sessions)
	}
	for _, t := range targets {
		t.perLevel = map[int][]float64{}
		if t.err == nil {
			// Warm up at full concurrency; this also checks the tool.
			if _, t.err = runCell(ctx, t.sessions[:maxLevel], t.tool, e.httpTime/3); t.err != nil {
				e.warn("HTTP %s: %v", t.label, t.err)
			}
		}
	}

	for r := range e.rounds {
		var line []string
		for _, n := range e.levels {
			for i := range targets {
				t := targets[(i+r)%len(targets)]
				rate := math.NaN()
				if t.err == nil {
					if rate, t.err = runCell(ctx, t.sessions[:n], t.tool, e.httpTime); t.err != nil {
						if ctx.Err() != nil {
							return ctx.Err()
						}
						e.warn("HTTP %s at %d sessions: %v", t.label, n, t.err)
						rate = math.NaN()
					}
				}
				t.perLevel[n] = append(t.perLevel[n], rate)
				e.rep.raw(fmt.Sprintf("http/%d/%s/calls_per_s", n, t.key), rate)
				if n == maxLevel {
					line = append(line, fmt.Sprintf("%s %.0f/s", t.key, rate))
				}
			}
		}
		e.progress("   round %d/%d (%d sessions): %s", r+1, e.rounds, maxLevel, strings.Join(line, ", "))
	}

	w, nat, pl := targets[0], targets[1], targets[2]
	for _, n := range e.levels {
		e.rep.infoText(fmt.Sprintf("2 HTTP %d sess. calls/s: wasm / native / plain go-sdk", n),
			joinValues("calls/s", median(w.perLevel[n]), median(nat.perLevel[n]), median(pl.perLevel[n])))
	}
	for _, n := range e.levels {
		cmp, target1, target2 := "", "", ""
		if n == maxLevel {
			cmp, target1, target2 = ">=", "≥ 0.8×", "≥ 1.0×"
		}
		e.throughputRatio(fmt.Sprintf("2 HTTP %d sess. wasm / native (same binary)", n), w, nat, n, cmp, 0.8, target1)
		e.throughputRatio(fmt.Sprintf("2 HTTP %d sess. wasm / plain go-sdk server", n), w, pl, n, cmp, 1.0, target2)
	}
	return nil
}

func (e *env) throughputRatio(fig string, a, b *httpTarget, n int, cmp string, limit float64, target string) {
	if allNaN(a.perLevel[n]) || allNaN(b.perLevel[n]) {
		reason := "target failed"
		for _, t := range []*httpTarget{a, b} {
			if t.err != nil {
				reason = short(t.err)
			}
		}
		e.rep.skip(fig, target, reason)
		return
	}
	v := median(ratios(a.perLevel[n], b.perLevel[n]))
	if cmp == "" {
		e.rep.info(fig, v, "x")
	} else {
		e.rep.check(fig, v, "x", cmp, limit, target)
	}
}

// runCell has every session call tool in a loop for d and returns the
// completed calls per second. Any failed call fails the cell.
func runCell(ctx context.Context, sessions []*mcp.ClientSession, tool string, d time.Duration) (float64, error) {
	var (
		calls    atomic.Int64
		wg       sync.WaitGroup
		errOnce  sync.Once
		firstErr error
		stop     atomic.Bool
	)
	start := time.Now()
	deadline := start.Add(d)
	for _, cs := range sessions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() && time.Now().Before(deadline) {
				if _, err := callTool(ctx, cs, tool, benchArgs); err != nil {
					errOnce.Do(func() { firstErr = err })
					stop.Store(true)
					return
				}
				calls.Add(1)
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	if firstErr != nil {
		return 0, firstErr
	}
	if calls.Load() == 0 {
		return 0, errors.New("no call completed")
	}
	return float64(calls.Load()) / elapsed.Seconds(), nil
}
