// Package plugin loads untrusted Wasm plugins and runs each call in a fresh,
// limited sandbox.
//
// One Runtime serves the whole process: it owns the on-disk compilation cache
// and the memory allocator. Each Plugin is compiled once (Load) and
// instantiated anew for every call (Invoke), so no state survives between
// calls. Everything a guest can do wrong comes back from Invoke as an *Error
// with a category; nothing a guest does can crash or hang the host.
//
// This package knows nothing of MCP sessions or transports: it moves bytes
// in and out of guests. host/registry and host/server give them meaning.
package plugin

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/mcpwasm/mcpwasm/host/internal/cpusched"
	"github.com/mcpwasm/mcpwasm/host/internal/memalloc"
	"github.com/mcpwasm/mcpwasm/host/plugin/internal/hostenv"
	"github.com/tetratelabs/wazero"
)

const pageSize = 65536

// RuntimeOptions configures a Runtime.
type RuntimeOptions struct {
	// CacheDir holds wazero's compiled code between runs. Empty means
	// DefaultCacheDir(); "off" disables the on-disk cache (an in-memory
	// cache is still shared by all plugins of the process). A folder that
	// another user owns, or that group or others may write to, is refused
	// with a warning and the process compiles in memory only (see
	// checkCacheDir): compiled code read from it is run as is.
	CacheDir string
	// MemoryBudget bounds the memory of all running instances together, in
	// bytes (0: no bound beyond each plugin's own limit): what an instance
	// starts with (memories at their initial sizes, tables at their
	// maximums) is charged before it is built, a call waiting for room (see
	// budget.go), and memory growth past the budget fails. Memories live in
	// pooled mmap reservations outside the Go heap, zeroed between calls.
	MemoryBudget uint64
	// HeapMemory puts linear memories on the Go heap instead (slower; for
	// comparison and for platforms without mmap), under the same budget.
	HeapMemory bool
	// Logger receives load and call diagnostics. Nil discards them.
	Logger *slog.Logger
	// MaxCalls bounds the guest calls running at once across all plugins
	// (each holds at least the kernel's 1 MiB). Default 256.
	MaxCalls int
	// CPUSlots bounds the guests computing at once (the others wait, and a
	// guest waiting on a host call does not count). Default: GOMAXPROCS-1,
	// at least 1, so the protocol keeps a core.
	CPUSlots int
}

// Runtime is the process-wide state shared by all plugins.
type Runtime struct {
	cache    wazero.CompilationCache
	lc       *loadCache     // nil: no load cache
	queue    buildQueue     // builds of machine code take turns (buildqueue.go)
	building sync.WaitGroup // background compilations (code.go)
	builds   atomic.Int64   // those under way
	loads    loadCounts
	mem      *memalloc.Allocator
	budget   uint64 // MemoryBudget
	logger   *slog.Logger
	slots    chan struct{} // process-wide call slots
	cpu      *cpusched.Scheduler
	calls    callCounts // for Stats
}

// DefaultCacheDir is where compiled plugins are cached: the user cache
// directory's mcpwasm/wazero folder, or "" when the user has none (no
// $XDG_CACHE_HOME or $HOME). There is no fallback to the system's temporary
// folder, where anyone could plant a cache.
func DefaultCacheDir() string {
	dir, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "mcpwasm", "wazero")
}

// NewRuntime creates the process-wide runtime.
func NewRuntime(opts RuntimeOptions) (*Runtime, error) {
	if opts.MaxCalls <= 0 {
		opts.MaxCalls = 256
	}
	if opts.CPUSlots <= 0 {
		opts.CPUSlots = max(1, runtime.GOMAXPROCS(0)-1)
	}
	rt := &Runtime{logger: opts.Logger, slots: make(chan struct{}, opts.MaxCalls), budget: opts.MemoryBudget,
		cpu: cpusched.New(cpusched.Options{Slots: opts.CPUSlots})}
	rt.mem = memalloc.New(memalloc.Options{Budget: opts.MemoryBudget, MaxPooled: 2 * opts.MaxCalls, Heap: opts.HeapMemory})
	if rt.logger == nil {
		rt.logger = slog.New(slog.DiscardHandler)
	}
	switch opts.CacheDir {
	case "off":
		rt.cache = wazero.NewCompilationCache()
	default:
		var dir string
		rt.cache, dir = rt.diskCache(opts.CacheDir)
		if dir != "" {
			lc, err := openLoadCache(dir)
			if err != nil {
				rt.logger.Warn("load cache unavailable: every start rewrites and lists each plugin", "dir", dir, "err", err)
			} else {
				rt.lc = lc
			}
		}
	}
	return rt, nil
}

// Close releases the compilation cache. Call it only after every plugin of
// this runtime is closed: compiled code breaks if its cache closes first
// (extism/go-sdk#97 found it; wazero's own rule).
func (rt *Runtime) Close(ctx context.Context) error {
	rt.building.Wait() // closing the cache under a compilation crashes wazero
	rt.mem.Trim()
	return rt.cache.Close(ctx)
}

// MemoryStats reports the linear memories and what the budget is charged.
func (rt *Runtime) MemoryStats() memalloc.Stats {
	return rt.mem.Stats()
}

// Plugins compile in parallel (experimental.WithCompilationWorkers, see
// Plugin.build). No function listener: wazero v1.12 then fails to
// instantiate modules compiled concurrently or read from its file cache,
// "index out of range" in setupOpaque. Endless sleeps are clamped by the
// rewrite instead.

func (rt *Runtime) runtimeConfig(memLimit uint64, mode InterruptMode) wazero.RuntimeConfig {
	return wazero.NewRuntimeConfig().
		WithCompilationCache(rt.cache).
		WithCloseOnContextDone(mode == InterruptEngine).
		WithMemoryLimitPages(runtimePages(memLimit))
}

// runtimePages is a runtime's memory limit in pages: the plugin's, but not
// below the kernel memory's initial size (hostenv.MinPages).
func runtimePages(memLimit uint64) uint32 {
	return max(uint32(memLimit/pageSize), hostenv.MinPages)
}
