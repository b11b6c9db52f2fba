package bench

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os/exec"
	"strings"
	"time"
)

// series is one echo tool at one protocol version over stdio.
type series struct {
	key, label string // key: wasm, native, plain, node or guest:NAME
	version    string // asked for; proc.version is what was negotiated
	proc       *stdioProc
	tool       string
	err        error
	lat        []time.Duration // this round's
	spent      time.Duration   // this round's time in calls
	failed     int             // isError answers (not timed), all rounds
	lastFail   error
	p50, p99   []float64 // per round, µs
}

// stdioLatency is figure 1: tools/call p50 and p99 over stdio, per protocol
// version, for every echo, interleaved in blocks round-robin.
func (e *env) stdioLatency(ctx context.Context) error {
	echo, err := e.fixture("echo")
	if err != nil {
		return err
	}
	cfg := pluginTOML("wasm", echo)
	echoArgs, argsErr := e.fixture("echo_args") // its rows are skipped without it
	if argsErr == nil {
		cfg += pluginTOML("wasmargs", echoArgs)
	}
	for _, g := range e.o.Plugins {
		cfg += pluginTOML(g.Name, g.Path)
	}
	cfgPath, err := e.writeConfig("stdio", cfg)
	if err != nil {
		return err
	}
	node, script, nodeErr := "", "", errors.New("--no-node given")
	if !e.o.NoNode {
		node, script, nodeErr = e.installNode(ctx)
	}
	if nodeErr != nil {
		e.warn("NODE REFERENCE SERVER SKIPPED (%s@%s): %v — its rows are not measured", nodePackage, nodeVersion, nodeErr)
	} else if out, err := exec.Command(node, "--version").Output(); err == nil {
		e.rep.Machine.Node = strings.TrimSpace(string(out))
	}

	var all []*series
	for _, v := range stdioVersions {
		// --trust off: a --plugin's declarations are new to the trust store,
		// which would hold them (not listed, not callable).
		mw, err := e.startStdio(ctx, v, e.mcpwasm, "serve", "--config", cfgPath, "--bench-native-echo",
			"--cache-dir", e.cache, "--log-level", "warn", "--trust", "off")
		if err != nil {
			return err
		}
		all = append(all, &series{key: "wasm", label: "wasm echo (WAT)", tool: "wasm_echo", proc: mw})
		// The plain server's answer (its arguments as text), where echo
		// answers its whole input envelope (3-4x the bytes to encode and decode).
		all = append(all, &series{key: "wasmargs", label: "wasm echo of the arguments (WAT)", tool: "wasmargs_echo", proc: mw, err: argsErr})
		for _, g := range e.o.Plugins {
			all = append(all, &series{key: "guest:" + g.Name, label: g.Name + " echo", tool: g.Name + "_" + g.Tool, proc: mw})
		}
		all = append(all, &series{key: "native", label: "native echo, same binary", tool: "native_echo", proc: mw})
		pl, err := e.startStdio(ctx, v, e.plain)
		all = append(all, &series{key: "plain", label: "plain go-sdk server", tool: "echo", proc: pl, err: err})
		if nodeErr == nil {
			nd, err := e.startStdio(ctx, v, node, script, "stdio")
			all = append(all, &series{key: "node", label: "node server-everything", tool: "echo", proc: nd, err: err})
		} else {
			all = append(all, &series{key: "node", label: "node server-everything", err: fmt.Errorf("node skipped: %v", nodeErr)})
		}
		for _, s := range all {
			if s.version == "" {
				s.version = v
			}
		}
	}
	for _, s := range all {
		if s.err != nil && (s.key != "node" || nodeErr == nil) {
			e.warn("stdio %s %s: %v", s.version, s.label, s.err)
		}
	}

	// Warm up (and check every tool answers) before timing.
	for _, s := range all {
		for range pick(e.o.Quick, 50, 200) {
			if s.err != nil {
				break
			}
			if _, err := callTool(ctx, s.proc.cs, s.tool, benchArgs); err != nil {
				s.err = err
				e.warn("stdio %s %s: %v", s.version, s.label, err)
			}
		}
	}

	// A slow series (a guest with a heavy runtime) stops taking calls in a
	// round once it has spent its budget, so it cannot stretch the run.
	const block = 25
	budget := pick(e.o.Quick, time.Second, 5*time.Second)
	for r := range e.rounds {
		order := append(all[r%len(all):len(all):len(all)], all[:r%len(all)]...)
		for _, s := range all {
			s.lat, s.spent = s.lat[:0], 0
		}
		for done := 0; done < e.calls; done += block {
			if err := ctx.Err(); err != nil {
				return err
			}
			n := min(block, e.calls-done)
			for _, s := range order {
				for i := 0; i < n && s.err == nil && s.spent < budget; i++ {
					t := time.Now()
					res, err := callTool(ctx, s.proc.cs, s.tool, benchArgs)
					d := time.Since(t)
					s.spent += d
					switch {
					case err != nil && res == nil: // the session is broken
						s.err = err
						e.warn("stdio %s %s failed in round %d: %v", s.version, s.label, r+1, err)
					case err != nil: // an isError answer: counted, not timed
						if s.failed == 0 {
							e.warn("stdio %s %s: a call failed in round %d after %v: %v", s.version, s.label, r+1, d.Round(time.Millisecond), err)
						}
						s.failed++
						s.lastFail = err
					default:
						s.lat = append(s.lat, d)
					}
				}
			}
		}
		var line []string
		for _, s := range all {
			p50, p99 := math.NaN(), math.NaN()
			if s.err == nil {
				p50, p99 = percentile(s.lat, 0.50), percentile(s.lat, 0.99)
			}
			s.p50, s.p99 = append(s.p50, p50), append(s.p99, p99)
			e.rep.raw("stdio/"+s.version+"/"+s.key+"/p50_us", p50)
			e.rep.raw("stdio/"+s.version+"/"+s.key+"/p99_us", p99)
			e.rep.raw("stdio/"+s.version+"/"+s.key+"/calls", float64(len(s.lat)))
			if s.version == stdioVersions[0] {
				line = append(line, fmt.Sprintf("%s %.0fµs", s.key, p50))
			}
		}
		e.progress("   round %d/%d (p50 at %s): %s", r+1, e.rounds, stdioVersions[0], strings.Join(line, ", "))
	}

	// Memory of the stdio servers after their calls, for scale.
	rssText := func(s *series) float64 {
		if s == nil || s.proc == nil {
			return math.NaN()
		}
		b, err := s.proc.rss()
		if err != nil {
			return math.NaN()
		}
		return mib(b)
	}

	for _, v := range stdioVersions {
		by := map[string]*series{}
		for _, s := range all {
			if s.version == v {
				by[s.key] = s
			}
		}
		for _, s := range all {
			if s.version != v {
				continue
			}
			fig := fmt.Sprintf("1 stdio %s p50 / p99, %s", v, s.label)
			if s.proc != nil && s.proc.version != v {
				fig += " (negotiated " + s.proc.version + ")"
			}
			if s.err != nil && allNaN(s.p50) {
				e.rep.skip(fig, "", short(s.err))
				continue
			}
			text := joinValues("us", median(s.p50), median(s.p99))
			if s.failed > 0 {
				text += fmt.Sprintf(" (%d calls failed: %s)", s.failed, short(s.lastFail))
			}
			if calls := e.rep.Raw["stdio/"+v+"/"+s.key+"/calls"]; median(calls) < float64(e.calls) {
				fig += fmt.Sprintf(" [%.0f calls/round]", median(calls))
			}
			e.rep.infoText(fig, text)
		}
		w := by["wasm"]
		e.ratioRow(fmt.Sprintf("1 stdio %s p50 wasm / native (same binary)", v), w, by["native"], false, "<=", 1.3, "≤ 1.3×")
		// Issue 26's target: a sandboxed echo at most 1.2× the plain server's.
		e.ratioRow(fmt.Sprintf("1 stdio %s p50 wasm / plain go-sdk server", v), w, by["plain"], false, "<=", 1.2, "≤ 1.2×")
		e.ratioRow(fmt.Sprintf("1 stdio %s p50 wasm echo of the arguments / plain go-sdk server (the same answer)", v), by["wasmargs"], by["plain"], false, "<=", 1.2, "≤ 1.2×")
		e.ratioRow(fmt.Sprintf("1 stdio %s p50 wasm / node", v), w, by["node"], false, "<=", 1.0, "≤ 1.0×")
		e.ratioRow(fmt.Sprintf("1 stdio %s p99 wasm / node", v), w, by["node"], true, "<=", 0.5, "≤ 0.5×")
		// What mcpwasm's stdio framing and middleware add without a sandbox
		// (0.86–0.99× when set; go test -bench StdioRatio ./host/server splits it).
		e.ratioRow(fmt.Sprintf("1 stdio %s p50 native (mcpwasm) / plain go-sdk", v), by["native"], by["plain"], false, "<=", 1.05, "≤ 1.05×")
		for _, g := range e.o.Plugins {
			e.ratioRow(fmt.Sprintf("1 stdio %s p50 %s / native (same binary)", v, g.Name), by["guest:"+g.Name], by["native"], false, "", 0, "")
			// Issue 40: what a language's runtime adds per call.
			cmp, limit, target := languageTarget(g.Name)
			e.ratioRow(fmt.Sprintf("1 stdio %s p50 %s / wasm echo (WAT)", v, g.Name), by["guest:"+g.Name], w, false, cmp, limit, target)
		}
		if v == stdioVersions[0] {
			e.rep.infoText(fmt.Sprintf("4 RSS after stdio calls: mcpwasm (%d plugins) / plain go-sdk / node", 1+len(e.o.Plugins)),
				joinValues("MiB", rssText(by["wasm"]), rssText(by["plain"]), rssText(by["node"])))
		}
	}
	for _, s := range all {
		if s.proc != nil {
			s.proc.close()
		}
	}
	return nil
}

// ratioRow adds the median over rounds of a's p50 (or p99) over b's; with
// cmp "" it is a figure without target.
func (e *env) ratioRow(fig string, a, b *series, p99 bool, cmp string, limit float64, target string) {
	switch {
	case a == nil || b == nil:
		e.rep.skip(fig, target, "target not measured")
		return
	case allNaN(a.p50) || allNaN(b.p50):
		reason := "target failed"
		for _, s := range []*series{a, b} {
			if s.err != nil {
				reason = short(s.err)
			}
		}
		e.rep.skip(fig, target, reason)
		return
	}
	x, y := a.p50, b.p50
	if p99 {
		x, y = a.p99, b.p99
	}
	v := median(ratios(x, y))
	if cmp == "" {
		e.rep.info(fig, v, "x")
	} else {
		e.rep.check(fig, v, "x", cmp, limit, target)
	}
}

func allNaN(v []float64) bool {
	for _, x := range v {
		if !math.IsNaN(x) {
			return false
		}
	}
	return true
}

// short is an error on one line, at most 80 characters, for the table.
func short(err error) string {
	s := strings.Join(strings.Fields(err.Error()), " ")
	if len(s) > 80 {
		s = s[:79] + "…"
	}
	return s
}

// languageTarget is issue 40's per-call target for a guest plugin named
// after its language (--plugin go=..., tinygo=..., as=...): its p50 over
// the WAT echo's. Other names get no target.
func languageTarget(name string) (cmp string, limit float64, target string) {
	switch strings.ToLower(name) {
	case "go", "stdgo", "standard-go":
		return "<=", 1.5, "≤ 1.5×"
	case "tinygo", "as", "assemblyscript":
		return "<=", 1.2, "≤ 1.2×"
	}
	return "", 0, ""
}
