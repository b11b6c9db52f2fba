package plugin_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/host/plugin"
	"github.com/mcpwasm/mcpwasm/internal/fixture"
)

// waitStats polls rt.Stats until ok accepts it (the calls run on other
// goroutines), failing after a generous deadline.
func waitStats(t *testing.T, rt *plugin.Runtime, what string, ok func(plugin.Stats) bool) plugin.Stats {
	t.Helper()
	var s plugin.Stats
	for end := time.Now().Add(20 * time.Second); time.Now().Before(end); time.Sleep(5 * time.Millisecond) {
		if s = rt.Stats(); ok(s) {
			return s
		}
	}
	t.Fatalf("%s: never seen; last stats %+v", what, s)
	return s
}

// start runs n calls of export on p in the background until cancel.
func start(p *plugin.Plugin, n int) (cancel func()) {
	ctx, stop := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p.Invoke(ctx, abi.ExportCallTool, []byte(`{}`))
		}()
	}
	return func() { stop(); wg.Wait() }
}

// Stats counts calls in flight, the memory they hold, and a call waiting
// for its plugin's only slot; all fall back to zero when the calls end.
func TestStatsSlotWaitAndMemory(t *testing.T) {
	rt, err := plugin.NewRuntime(plugin.RuntimeOptions{CacheDir: "off"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Close(context.Background()) })
	p := loadIn(t, rt, "sleep", plugin.Config{Concurrency: 1, Timeout: time.Minute})
	stop := start(p, 2)
	s := waitStats(t, rt, "one call sleeping, one waiting for the slot", func(s plugin.Stats) bool {
		return s.InFlight == 2 && s.WaitingSlot == 1 && s.MemoryInUse > 0
	})
	if s.WaitingBudget != 0 || s.MemoryBudget != 0 {
		t.Fatalf("no budget, yet %+v", s)
	}
	stop()
	waitStats(t, rt, "everything released", func(s plugin.Stats) bool {
		return s == plugin.Stats{}
	})
}

// With a budget that holds one instance, a second call waits for room.
func TestStatsBudgetWait(t *testing.T) {
	probe, err := plugin.NewRuntime(plugin.RuntimeOptions{CacheDir: "off"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { probe.Close(context.Background()) })
	stop := start(loadIn(t, probe, "sleep", plugin.Config{Timeout: time.Minute}), 1)
	one := waitStats(t, probe, "one call holding memory", func(s plugin.Stats) bool { return s.MemoryInUse > 0 }).MemoryInUse
	stop()

	budget := one + one/2
	rt, err := plugin.NewRuntime(plugin.RuntimeOptions{CacheDir: "off", MemoryBudget: budget})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Close(context.Background()) })
	stop = start(loadIn(t, rt, "sleep", plugin.Config{Timeout: time.Minute}), 2)
	defer stop()
	s := waitStats(t, rt, "a call waiting for the budget", func(s plugin.Stats) bool { return s.WaitingBudget == 1 })
	if s.MemoryBudget != budget || s.MemoryInUse > budget || s.InFlight != 2 {
		t.Fatalf("stats %+v with a budget of %d", s, budget)
	}
}

// With one CPU slot, a second spinning call waits for the CPU.
func TestStatsCPUWait(t *testing.T) {
	rt, err := plugin.NewRuntime(plugin.RuntimeOptions{CacheDir: "off", CPUSlots: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Close(context.Background()) })
	stop := start(loadIn(t, rt, "spin", plugin.Config{Timeout: time.Minute}), 2)
	defer stop()
	waitStats(t, rt, "one computing, one waiting for the CPU", func(s plugin.Stats) bool {
		return s.Computing == 1 && s.WaitingCPU == 1
	})
}

// SHA256 is the digest of the file's bytes, with or without a pin.
func TestPluginSHA256(t *testing.T) {
	data, err := os.ReadFile(fixture.Path(t, "echo"))
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	p, err := load(t, "echo", plugin.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := p.SHA256(), hex.EncodeToString(sum[:]); got != want {
		t.Fatalf("SHA256() = %q, want %q", got, want)
	}
}

// Invoke fills the CallRecord its context carries: the output's size, or
// the failure's category.
func TestCallRecord(t *testing.T) {
	rt, err := plugin.NewRuntime(plugin.RuntimeOptions{CacheDir: "off"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Close(context.Background()) })
	var rec plugin.CallRecord
	ctx, co := context.Background(), plugin.CallOptions{Record: &rec}
	out, cerr := loadIn(t, rt, "echo", plugin.Config{}).InvokeWith(ctx, abi.ExportCallTool, []byte(`{"request":{"name":"echo","arguments":{}},"context":{}}`), co)
	if cerr != nil || rec.Category != "" || rec.OutputBytes != len(out) || len(out) == 0 {
		t.Fatalf("echo: record %+v, output %d bytes, err %v", rec, len(out), cerr)
	}
	_, cerr = loadIn(t, rt, "trap", plugin.Config{}).InvokeWith(ctx, abi.ExportCallTool, []byte(`{}`), co)
	if cerr == nil || rec.Category != abi.ErrTrap || rec.OutputBytes != 0 {
		t.Fatalf("trap: record %+v, err %v", rec, cerr)
	}
}

// A guest asleep (WASI poll_oneoff) gives its CPU slot up: with one slot,
// an echo called while another call sleeps for 30 s answers before the
// sleeper is stopped at its time limit.
func TestSleepGivesUpTheCPU(t *testing.T) {
	rt, err := plugin.NewRuntime(plugin.RuntimeOptions{CacheDir: "off", CPUSlots: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Close(context.Background()) })
	sleeper := loadIn(t, rt, "sleep", plugin.Config{Timeout: 3 * time.Second})
	echo := loadIn(t, rt, "echo", plugin.Config{})
	for _, p := range []*plugin.Plugin{sleeper, echo} {
		if err := p.Compile(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	slept := make(chan struct{})
	go func() {
		defer close(slept)
		sleeper.Invoke(context.Background(), abi.ExportCallTool, []byte(`{}`))
	}()
	waitStats(t, rt, "the sleeper running", func(s plugin.Stats) bool { return s.InFlight == 1 })
	time.Sleep(50 * time.Millisecond) // into its sleep: poll_oneoff is the fixture's first call
	if _, cerr := echo.Invoke(context.Background(), abi.ExportCallTool, []byte(`{"request":{"name":"echo","arguments":{}},"context":{}}`)); cerr != nil {
		t.Fatal(cerr)
	}
	select {
	case <-slept:
		t.Fatal("the echo answered only after the sleeper ended: the sleeper kept the CPU slot")
	default:
	}
	<-slept
}
