//go:build linux

package confine

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

const costEnv = "MCPWASM_CONFINE_COST_HELPER"

// TestCostHelper is not a test: run by BenchmarkSyscallCost in a child
// process (confinement is irreversible), it confines itself or not as
// told, then times a system call the filter lets through after reading
// its whole deny list, and prints nanoseconds per call.
func TestCostHelper(t *testing.T) {
	mode := os.Getenv(costEnv)
	if mode == "" {
		t.Skip("helper for BenchmarkSyscallCost")
	}
	if mode == "auto" {
		if _, err := Apply(Policy{}, Required); err != nil {
			fmt.Println("error", err)
			return
		}
	}
	const n = 2_000_000
	best := time.Duration(1<<63 - 1)
	for range 5 {
		start := time.Now()
		for range n {
			unix.Getppid()
		}
		best = min(best, time.Since(start))
	}
	fmt.Printf("ns/syscall %.1f\n", float64(best.Nanoseconds())/n)
}

// BenchmarkSyscallCost: what the seccomp filter (and Landlock, which
// getppid does not touch) adds to a system call that passes: a confined
// and an unconfined child, each timing 2,000,000 getppid calls (best of 5).
//
//	go test -run '^$' -bench SyscallCost -count 5 ./host/confine
func BenchmarkSyscallCost(b *testing.B) {
	measure := func(mode string) float64 {
		cmd := exec.Command(os.Args[0], "-test.run=^TestCostHelper$", "-test.v")
		cmd.Env = append(os.Environ(), costEnv+"="+mode)
		out, err := cmd.CombinedOutput()
		if err != nil {
			b.Fatalf("%v\n%s", err, out)
		}
		for _, line := range strings.Split(string(out), "\n") {
			if v, ok := strings.CutPrefix(line, "ns/syscall "); ok {
				f, err := strconv.ParseFloat(v, 64)
				if err == nil {
					return f
				}
			}
		}
		b.Fatalf("no figure in:\n%s", out)
		return 0
	}
	var off, on float64
	for range b.N {
		off += measure("off")
		on += measure("auto")
	}
	b.ReportMetric(off/float64(b.N), "ns/syscall-off")
	b.ReportMetric(on/float64(b.N), "ns/syscall-confined")
	b.ReportMetric((on-off)/float64(b.N), "ns-added")
}
