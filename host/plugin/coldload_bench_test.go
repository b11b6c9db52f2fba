//go:build unix

package plugin_test

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mcpwasm/mcpwasm/host/plugin"
	"github.com/mcpwasm/mcpwasm/host/registry"
)

// BenchmarkColdLoad is the in-process part of a cold start (RATIONALE.md,
// "The load path"): every plugin of $MCPWASM_COLD_PLUGINS (the folder from
// scripts/cold-plugins.sh) loaded over an empty cache and listed as serve
// does (registry.AddRanked, as many at once as cores), up to the moment the
// first tools/list could be answered. The background compiles are not
// included. Beside the time it reports the process's CPU time (user and
// system) per load, which other load on the machine disturbs less. The GC
// target is serve's (400%). For a profile:
//
//	scripts/cold-plugins.sh /tmp/ten && MCPWASM_COLD_PLUGINS=/tmp/ten \
//	  go test -run '^$' -bench ColdLoad -benchtime 3x -cpuprofile cold.prof ./host/plugin
func BenchmarkColdLoad(b *testing.B) {
	dir := os.Getenv("MCPWASM_COLD_PLUGINS")
	if dir == "" {
		b.Skip("set MCPWASM_COLD_PLUGINS to the folder of scripts/cold-plugins.sh")
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.wasm"))
	if len(files) == 0 {
		b.Fatalf("no .wasm in %s", dir)
	}
	wasm := make([][]byte, len(files))
	for i, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		wasm[i] = data
	}
	ctx := context.Background()
	defer debug.SetGCPercent(debug.SetGCPercent(400))
	var cpu time.Duration
	for b.Loop() {
		b.StopTimer()
		rt, err := plugin.NewRuntime(plugin.RuntimeOptions{CacheDir: b.TempDir()})
		if err != nil {
			b.Fatal(err)
		}
		reg := registry.New()
		b.StartTimer()
		cpu0 := processCPU(b)
		var wg sync.WaitGroup
		sem := make(chan struct{}, runtime.GOMAXPROCS(0))
		plugins := make([]*plugin.Plugin, len(files))
		for i, f := range files {
			wg.Go(func() {
				sem <- struct{}{}
				defer func() { <-sem }()
				name := strings.TrimSuffix(filepath.Base(f), ".wasm")
				p, err := rt.Load(ctx, plugin.Config{Name: name, Source: f, Wasm: wasm[i]})
				if err != nil {
					b.Error(err)
					return
				}
				plugins[i] = p
				if _, err := reg.AddRanked(ctx, p, registry.AddOptions{}, i); err != nil {
					b.Error(err)
				}
			})
		}
		wg.Wait()
		b.StopTimer()
		cpu += processCPU(b) - cpu0
		if n := len(reg.Tools()); n == 0 {
			b.Fatal("no tools listed")
		}
		for _, p := range plugins {
			if p != nil {
				p.Close(ctx)
			}
		}
		rt.Close(ctx)
		b.StartTimer()
	}
	b.ReportMetric(float64(cpu.Milliseconds())/float64(b.N), "cpu-ms/op")
}

// processCPU is the process's user and system CPU time so far.
func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
