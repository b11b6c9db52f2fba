package plugin_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/host/plugin"
	"github.com/mcpwasm/mcpwasm/internal/fixture"
)

// A guest asking to sleep u64::MAX ns reaches the host's nanosleep as -1. The
// sleep must last until the call's deadline, not end at once (a loop of such
// sleeps would spin the CPU).
func TestEndlessSleepLastsUntilDeadline(t *testing.T) {
	p, err := load(t, "sleep_forever", plugin.Config{Timeout: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	out, cerr := p.Invoke(context.Background(), abi.ExportCallTool, []byte(`{}`))
	if cerr == nil || cerr.Category != abi.ErrTimeout {
		t.Fatalf("want a timeout, got output %q, error %+v", out, cerr)
	}
}

// Tables count against the memory limit: 64 tables that may each grow to
// the per-table cap would hold 51 MB of table under an 8 MiB limit.
func TestTablesTogetherBoundedByMemoryLimit(t *testing.T) {
	p, err := load(t, "table_many", plugin.Config{MemoryLimit: 8 << 20})
	if err != nil {
		t.Fatal(err)
	}
	var sum uint64
	for _, tb := range p.Module.Tables {
		sum += tb.Max
	}
	if sum*plugin.TableElementBytes > 8<<20 {
		t.Errorf("the tables may grow to %d elements in all (%d bytes), past the 8 MiB limit", sum, sum*plugin.TableElementBytes)
	}
	out, cerr := p.Invoke(context.Background(), abi.ExportCallTool, []byte(`{}`))
	if cerr != nil || !strings.Contains(string(out), "table.grow refused") {
		t.Fatalf("want the grows refused, got %q, %+v", out, cerr)
	}
}

// newRuntime is a runtime with no disk cache and the given memory budget.
func newRuntime(t *testing.T, opts plugin.RuntimeOptions) *plugin.Runtime {
	t.Helper()
	opts.CacheDir = "off"
	rt, err := plugin.NewRuntime(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Close(context.Background()) })
	return rt
}

// A plugin whose instance needs more than the whole memory budget to start
// (512 initial pages and the kernel's 16 against 16 MiB) is refused at load:
// the budget used to grant every memory's first allocation, so 8 such calls
// at once committed 264 MiB.
func TestBudgetRefusesPluginThatCannotStart(t *testing.T) {
	for _, heap := range []bool{false, true} {
		rt := newRuntime(t, plugin.RuntimeOptions{MemoryBudget: 16 << 20, HeapMemory: heap})
		path := fixture.Path(t, "big_start")
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		p, err := rt.Load(context.Background(), plugin.Config{Name: "big_start", Source: path, Wasm: data})
		if err == nil {
			p.Close(context.Background())
			t.Fatalf("heap=%v: loaded a plugin needing 33MiB to start under a 16MiB budget", heap)
		}
		if !strings.Contains(err.Error(), "memory budget") || !strings.Contains(err.Error(), "big_start") {
			t.Errorf("heap=%v: err = %v", heap, err)
		}
	}
}

// Concurrent calls never commit more than the budget: with room for two
// instances, eight calls at once take turns (the others wait for room)
// instead of all starting past the budget. Both allocators.
func TestBudgetChargesInitialSizes(t *testing.T) {
	const budget = 70 << 20 // two instances of 33 MiB
	for _, heap := range []bool{false, true} {
		rt := newRuntime(t, plugin.RuntimeOptions{MemoryBudget: budget, HeapMemory: heap})
		p := loadIn(t, rt, "big_start", plugin.Config{Timeout: 20 * time.Second, Concurrency: 8})
		stop := make(chan struct{})
		peak := make(chan uint64)
		go func() {
			var m uint64
			for {
				select {
				case <-stop:
					peak <- m
					return
				default:
				}
				m = max(m, rt.MemoryStats().Committed)
				time.Sleep(time.Millisecond)
			}
		}()
		var wg sync.WaitGroup
		errs := make(chan error, 8)
		for range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				out, cerr := p.Invoke(context.Background(), abi.ExportCallTool, []byte(`{}`))
				if cerr != nil || !strings.Contains(string(out), "rested") {
					errs <- fmt.Errorf("%q, %+v", out, cerr)
				}
			}()
		}
		wg.Wait()
		close(stop)
		if m := <-peak; m > budget {
			t.Errorf("heap=%v: %d bytes committed at once, past the budget of %d", heap, m, budget)
		}
		close(errs)
		for err := range errs {
			t.Errorf("heap=%v: a call failed instead of waiting for room: %v", heap, err)
		}
		if s := rt.MemoryStats(); s.Committed != 0 || s.Live != 0 {
			t.Errorf("heap=%v: after the calls: %+v", heap, s)
		}
	}
}

// A call that cannot get room within its time limit is refused as busy.
func TestBudgetBusyWhenNoRoomInTime(t *testing.T) {
	rt := newRuntime(t, plugin.RuntimeOptions{MemoryBudget: 40 << 20})
	p := loadIn(t, rt, "big_start", plugin.Config{Timeout: 5 * time.Second, Concurrency: 2})
	started := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		close(started)
		p.Invoke(context.Background(), abi.ExportCallTool, []byte(`{}`))
	}()
	<-started
	defer func() { <-done }()
	var cerr *plugin.Error
	for range 100 {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
		_, cerr = p.Invoke(ctx, abi.ExportCallTool, []byte(`{}`))
		cancel()
		if cerr != nil && cerr.Category == abi.ErrBusy && strings.Contains(cerr.Message, "memory budget") {
			return
		}
	}
	t.Fatalf("want busy while the budget is taken, got %+v", cerr)
}
