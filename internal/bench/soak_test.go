package bench

import (
	"bytes"
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpwasm/mcpwasm/internal/fixture"
)

// TestSoakSmall runs the soak of "mcpwasm-bench --soak" with 2,000 calls
// per transport against the real binary: every call is answered exactly
// once, every hostile fixture answers with its own category, and the
// server's goroutines are observed through MCPWASM_DEBUG_ADDR. No timing
// and no RSS is asserted.
func TestSoakSmall(t *testing.T) {
	fixture.Slow(t, "about 20 s: 2,000 calls per transport through the binary")
	for _, tool := range append([]soakTool{soakEcho}, soakHostile...) {
		fixture.Path(t, tool.plugin)
	}
	const calls = 2000
	var stdout, stderr bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	rep, err := Soak(ctx, SoakOptions{Calls: calls, Clients: 8, Fixtures: fixture.Dir(), Stdout: &stdout, Stderr: &stderr})
	if err != nil {
		t.Fatalf("Soak: %v\nstderr:\n%s", err, stderr.String())
	}
	t.Logf("table:\n%s", stdout.String())
	if len(rep.Runs) != 2 || rep.Runs[0].Transport != "stdio" || rep.Runs[1].Transport != "http" {
		t.Fatalf("runs: %+v, want stdio and http", rep.Runs)
	}
	for _, run := range rep.Runs {
		if run.AnsweredOnce != calls || run.Lost != 0 || run.Duplicated != 0 {
			t.Errorf("%s: %d answered once, %d lost, %d duplicated, want %d, 0, 0", run.Transport, run.AnsweredOnce, run.Lost, run.Duplicated, calls)
		}
		if f := run.Failures(); len(f) > 0 {
			t.Errorf("%s: failures %q, examples %q", run.Transport, f, run.Examples)
		}
		for _, tool := range soakHostile {
			if run.Outcomes[tool.plugin][tool.want] == 0 {
				t.Errorf("%s: no %s call answered %s: %v", run.Transport, tool.plugin, tool.want, run.Outcomes[tool.plugin])
			}
		}
		if run.GoroutinesWarm <= 0 || run.GoroutinesEnd <= 0 {
			t.Errorf("%s: goroutines not observed (%d, %d)", run.Transport, run.GoroutinesWarm, run.GoroutinesEnd)
		}
	}
	if !strings.Contains(stdout.String(), "verdict: ") {
		t.Errorf("no verdict in the table:\n%s", stdout.String())
	}
}

// TestTrackerCounts checks that the tracker tells apart each way an answer
// can go wrong: none, two, an unknown id, a line that is not JSON-RPC, the
// wrong category and an echo of another call's arguments.
func TestTrackerCounts(t *testing.T) {
	tr := newTracker(6)
	trap := soakHostile[0]
	for id, tool := range []soakTool{soakEcho, soakEcho, soakEcho, trap, trap, soakEcho} {
		tr.expect(id+1, tool)
	}
	ok := func(id, marker int) string {
		return `{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"result":{"content":[],"structuredContent":{"arguments":{"message":"soak-` + strconv.Itoa(marker) + `"}}}}`
	}
	for _, line := range []string{
		ok(1, 1), ok(1, 1), // duplicated
		// 2: lost
		ok(3, 6), // the echo of another call
		`{"jsonrpc":"2.0","id":4,"result":{"isError":true,"content":[],"_meta":{"mcpwasm/error":"trap"}}}`,
		`{"jsonrpc":"2.0","id":5,"error":{"code":-32603,"message":"boom"}}`, // a protocol error for a tool call
		ok(6, 6),
		ok(99, 99),  // stray
		`not json{`, // garbage
		`{"jsonrpc":"2.0","method":"notifications/message","params":{}}`, // ignored
		`{"jsonrpc":"2.0","id":"init","result":{}}`,                      // ignored
	} {
		tr.deliver([]byte(line))
	}
	var run SoakRun
	tr.fill(&run)
	if run.AnsweredOnce != 4 || run.Lost != 1 || run.Duplicated != 1 || run.Stray != 1 || run.Garbage != 1 || run.Unexpected != 2 {
		t.Errorf("once %d lost %d dup %d stray %d garbage %d unexpected %d; want 4 1 1 1 1 2\nexamples: %q",
			run.AnsweredOnce, run.Lost, run.Duplicated, run.Stray, run.Garbage, run.Unexpected, run.Examples)
	}
	if run.Outcomes["trap"]["trap"] != 1 || run.Outcomes["trap"]["rpc -32603"] != 1 || run.Outcomes["echo"]["ok"] != 3 {
		t.Errorf("outcomes %v", run.Outcomes)
	}
	if len(run.Failures()) != 5 {
		t.Errorf("failures %q, want lost, duplicated, stray, garbage and unexpected", run.Failures())
	}
}

// TestReadSSE checks the SSE reader: events split by blank lines, CRLF,
// multi-line data, comments and a last event without its blank line.
func TestReadSSE(t *testing.T) {
	in := ": comment\r\nevent: message\r\nid: 1\r\ndata: {\"a\":\r\ndata: 1}\r\n\r\ndata:{\"b\":2}\n\ndata: {\"c\":3}"
	var got []string
	if err := readSSE(strings.NewReader(in), func(b []byte) { got = append(got, string(b)) }); err != nil {
		t.Fatal(err)
	}
	want := []string{"{\"a\":\n1}", `{"b":2}`, `{"c":3}`}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("events %q, want %q", got, want)
	}
}

// TestSamplePeakRSS: the sampler the soak and the in-flight figure share
// reads the process's resident memory before it is stopped, and returns
// what it read.
func TestSamplePeakRSS(t *testing.T) {
	if _, err := rssFast(os.Getpid(), make([]byte, 256)); err != nil {
		t.Skip("no /proc/PID/statm:", err)
	}
	stop := samplePeakRSS(os.Getpid(), time.Millisecond)
	if peak := stop(); peak <= 0 {
		t.Fatalf("peak RSS %d, want the process's resident memory", peak)
	}
}
