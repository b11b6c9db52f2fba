package plugin

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/host/internal/wasmbin"
	"github.com/mcpwasm/mcpwasm/host/netguard"
	"github.com/mcpwasm/mcpwasm/host/tracing"
)

// Config describes one plugin to load. Zero values take the defaults below.
type Config struct {
	// Name is the plugin's name, used in logs, errors and tool prefixes.
	Name string
	// Source names where the bytes came from (a path), for error messages.
	Source string
	// Wasm is the module's bytes.
	Wasm []byte
	// SHA256, if set, is the hex digest the bytes must have.
	SHA256 string
	// TaskModes overrides, by declared tool name, whether a tool runs as a
	// task ("forbidden", "optional", "required"): the operator's word over
	// the plugin's declaration (registry, ABI.md §2).
	TaskModes map[string]string
	// Timeout bounds every call. Default 5s.
	Timeout time.Duration
	// MemoryLimit bounds each linear memory, in bytes. Default 64 MiB;
	// minimum 2 MiB (the kernel memory starts at 1 MiB).
	MemoryLimit uint64
	// MaxOutput bounds a call's output in bytes. Default 4 MiB.
	MaxOutput int
	// Concurrency bounds the calls running at once. Default 8.
	Concurrency int
	// GuestConfig is handed to the guest through config_get.
	GuestConfig map[string]string
	// Grants are the folders the operator lets this plugin use (canonical
	// paths). Without grants the plugin sees no filesystem.
	Grants []Grant
	// Network is what the plugin may reach over HTTP (Grants, Limits);
	// without grants every request is refused (see net.go). Plugin and
	// Logger default to the plugin's name and the runtime's logger.
	Network netguard.Options
	// Interrupts chooses how a running guest is stopped. Leave it zero
	// (interruption points); the others are for measurement.
	Interrupts InterruptMode
	// Remote, if set, runs the plugin's code elsewhere (remote.go).
	Remote Remote
}

// Grant is one folder the operator granted to a plugin. Make it with
// OpenGrant, which opens the folder once; a Grant made by hand is opened
// by path when the plugin loads.
type Grant struct {
	Path     string // canonical absolute path (see Canonical)
	ReadOnly bool
	root     *os.Root // the folder, opened when it was checked
}

// Defaults for Config's zero values.
const (
	DefaultTimeout     = 5 * time.Second
	DefaultMemoryLimit = 64 << 20
	DefaultMaxOutput   = 4 << 20
	DefaultConcurrency = 8
	// MinMemoryLimit is the smallest memory limit: the kernel memory's initial
	// 1 MiB plus 1 MiB for input and output.
	MinMemoryLimit = 2 << 20
	// MaxTableElements caps function tables that declare no maximum.
	MaxTableElements = 100_000
	// guestOutputCap bounds captured guest stdout and stderr, each, per call.
	guestOutputCap = 64 << 10
)

func (c *Config) applyDefaults() {
	if c.Timeout <= 0 {
		c.Timeout = DefaultTimeout
	}
	if c.MemoryLimit == 0 {
		c.MemoryLimit = DefaultMemoryLimit
	}
	if c.MemoryLimit < MinMemoryLimit {
		c.MemoryLimit = MinMemoryLimit
	}
	c.MemoryLimit = c.MemoryLimit / pageSize * pageSize
	if c.MaxOutput <= 0 {
		c.MaxOutput = DefaultMaxOutput
	}
	if c.Concurrency <= 0 {
		c.Concurrency = DefaultConcurrency
	}
}

// Plugin is a compiled plugin. It is safe for concurrent use: every Invoke
// gets its own instance.
type Plugin struct {
	cfg       Config
	rt        *Runtime
	exports   map[string]bool
	needsWASI bool
	slots     chan struct{}
	ios       sync.Pool // *guestIO, see takeGuestIO
	roots     io.Closer // the grant handles Load opened
	net       *netguard.Guard
	digest    string // hex SHA256 of the file's bytes (see SHA256)
	prepKey   string // load cache keys (loadcache.go)
	declKey   string
	code      // the compiled code and the declarations (code.go)
	// Module is what preflight found in the binary.
	Module *wasmbin.Module
	// ABIVersion is the version the plugin declared, or 1.
	ABIVersion int
}

// Name returns the plugin's configured name.
func (p *Plugin) Name() string { return p.cfg.Name }

// Config returns the plugin's effective configuration (defaults applied).
func (p *Plugin) Config() Config { return p.cfg }

// Exports reports whether the plugin exports the named function.
func (p *Plugin) Exports(name string) bool { return p.exports[name] }

// LoadError is a plugin that could not be loaded. It names the plugin and
// its source.
type LoadError struct {
	Plugin, Source string
	Err            error
}

// Error names the plugin, its source and why it did not load.
func (e *LoadError) Error() string {
	return fmt.Sprintf("plugin %q (%s): %v", e.Plugin, e.Source, e.Err)
}

// Unwrap returns the cause.
func (e *LoadError) Unwrap() error { return e.Err }

// Load checks, compiles and probes a plugin. The checks run before any guest
// code: the sha256 pin, the imports (only the ABI's namespaces, only host
// functions this host provides, no imported memories or tables) and the
// ABI version. Tables without a maximum are capped.
func (rt *Runtime) Load(ctx context.Context, cfg Config) (*Plugin, error) {
	cfg.applyDefaults()
	ctx, span := tracing.Start(ctx, "plugin.compile "+cfg.Name, tracing.KeyPlugin, cfg.Name)
	p, err := rt.load(ctx, cfg)
	if err != nil {
		le := &LoadError{Plugin: cfg.Name, Source: cfg.Source, Err: err}
		span.End(le)
		return nil, le
	}
	span.SetString(tracing.KeyDigest, p.digest)
	span.End(nil)
	return p, nil
}

func (rt *Runtime) load(ctx context.Context, cfg Config) (*Plugin, error) {
	sum := sha256.Sum256(cfg.Wasm)
	digest := hex.EncodeToString(sum[:])
	if cfg.SHA256 != "" && !strings.EqualFold(digest, cfg.SHA256) {
		return nil, fmt.Errorf("sha256 mismatch: the file has %s, the config pins %s", digest, cfg.SHA256)
	}
	grants, roots, err := openGrants(cfg.Grants)
	if err != nil {
		return nil, err
	}
	cfg.Grants = grants
	loaded := false
	defer func() {
		if !loaded {
			roots.Close()
		}
	}()

	// A warm start: the declarations (and what Preflight found) are cached
	// for these bytes and this configuration; nothing is rewritten,
	// compiled or run until the first call.
	pk := prepKey(digest, &cfg)
	dk := declKey(pk, &cfg)
	var decl declarations
	var prep *prepared
	var raw []byte
	var lguard *listGuard
	if rt.lc.get("decl", dk, &decl) && decl.Module != nil {
		rt.loads.declHits.Add(1)
	} else {
		decl = declarations{}
		if prep = rt.cachedPrepared(pk); prep == nil && cfg.Interrupts == InterruptPoints {
			// Listed without interruption points (listguard.go); the
			// build adds them.
			if raw, lguard, err = rt.checkedForListing(&cfg); err != nil {
				return nil, err
			}
			decl.Module = lguard.mod
		} else {
			if prep == nil {
				if prep, err = rt.prepared(pk, &cfg); err != nil {
					return nil, err
				}
			}
			decl.Module = prep.Module
		}
	}
	mod := decl.Module
	needsWASI, exports, err := checkEntryPoints(mod)
	if err != nil {
		return nil, err
	}
	if cfg.Network.Plugin == "" {
		cfg.Network.Plugin = cfg.Name
	}
	if cfg.Network.Logger == nil {
		cfg.Network.Logger = rt.logger
	}
	guard, err := netguard.New(cfg.Network)
	if err != nil {
		return nil, fmt.Errorf("network grant: %w", err)
	}
	p := &Plugin{
		cfg: cfg, rt: rt, exports: exports, roots: roots, net: guard, digest: digest, needsWASI: needsWASI,
		slots: make(chan struct{}, cfg.Concurrency), Module: mod, ABIVersion: abi.Version,
		code:    code{interpSlot: make(chan struct{}, 1)},
		prepKey: pk, declKey: dk,
	}
	if cfg.Remote != nil {
		loaded = true // from here p.Close releases the grants
		return p.loadRemote(ctx, &decl)
	}
	if err := rt.checkBudget(p); err != nil {
		p.Close(ctx)
		return nil, err
	}
	if decl.Lists != nil {
		p.decl = &decl
		p.ABIVersion = decl.ABIVersion
		loaded = true
		return p, nil
	}

	// A cold start: list through wazero's interpreter, which needs no
	// machine code (RATIONALE.md, "The load path"); the compiler's code is
	// built once the declarations are read (KeepDeclarations) or at the
	// first call.
	p.recording = &declarations{Module: mod, ABIVersion: 1, Lists: map[string][]byte{}}
	if lguard != nil {
		p.raw, p.guard = raw, lguard
		p.lister, err = p.compileGuarded(ctx, raw, true, lguard)
	} else {
		p.prep = prep.Wasm
		p.lister, err = p.compile(ctx, prep.Wasm, true)
	}
	if err != nil {
		p.Close(ctx)
		return nil, fmt.Errorf("compile: %w", err)
	}
	if exports[abi.ExportABIVersion] {
		rc, cerr := p.probeABI(ctx)
		if cerr != nil {
			p.Close(ctx)
			return nil, fmt.Errorf("%s failed: %v", abi.ExportABIVersion, cerr)
		}
		p.ABIVersion = int(int32(rc))
		if p.ABIVersion < 1 || p.ABIVersion > abi.Version {
			p.Close(ctx)
			return nil, fmt.Errorf("plugin needs ABI v%d, this mcpwasm supports v1 to v%d", p.ABIVersion, abi.Version)
		}
		p.recording.ABIVersion = p.ABIVersion
	}
	loaded = true
	return p, nil
}

// prepared returns the module prepared for running (checked, tables
// capped, interruption points added), from the
// load cache or made now and cached.
func (rt *Runtime) prepared(key string, cfg *Config) (*prepared, error) {
	if prep := rt.cachedPrepared(key); prep != nil {
		return prep, nil
	}
	patched, mod, err := rt.checked(cfg)
	if err != nil {
		return nil, err
	}
	return rt.instrument(key, patched, mod, cfg)
}

// cachedPrepared returns the load cache's prepared module, or nil.
func (rt *Runtime) cachedPrepared(key string) *prepared {
	var prep prepared
	if rt.lc.get("prep", key, &prep) && prep.Module != nil {
		rt.loads.prepHits.Add(1)
		return &prep
	}
	return nil
}

// checked runs the checks of a module and returns it with its tables
// capped, and what Preflight found: all
// of prepared but the interruption points.
func (rt *Runtime) checked(cfg *Config) ([]byte, *wasmbin.Module, error) {
	patched, mod, err := wasmbin.Preflight(cfg.Wasm, wasmbin.Policy{
		AllowedNamespaces: []string{abi.NamespaceKernel, abi.NamespaceUser, abi.NamespaceWASI},
		MaxTableElements:  MaxTableElements,
		// Tables together are bounded by the memory limit (budget.go).
		MaxTotalTableElements: maxTableElements(cfg.MemoryLimit),
	})
	if err != nil {
		return nil, nil, err
	}
	if err := checkServedImports(mod); err != nil {
		return nil, nil, err
	}
	if _, _, err := checkEntryPoints(mod); err != nil {
		return nil, nil, err
	}
	return patched, mod, nil
}

// instrument adds the interruption points to a checked module (unless the
// interrupt mode says not to) and caches the result under key.
func (rt *Runtime) instrument(key string, patched []byte, mod *wasmbin.Module, cfg *Config) (*prepared, error) {
	rt.loads.rewrites.Add(1)
	var err error
	if cfg.Interrupts == InterruptPoints {
		if patched, err = wasmbin.Instrument(patched, interruptOptions); err != nil {
			return nil, err
		}
	}
	prep := prepared{Module: mod, Wasm: patched}
	if err := rt.lc.put("prep", key, &prep); err != nil {
		rt.logger.Warn("could not write to the load cache", "plugin", cfg.Name, "err", err)
	}
	return &prep, nil
}

// checkEntryPoints checks a module's host function imports and its
// exports: it must serve at least one of the ABI's lists. It returns
// whether the module needs WASI, and its exported functions.
func checkEntryPoints(mod *wasmbin.Module) (needsWASI bool, exports map[string]bool, err error) {
	for _, imp := range mod.Imports {
		switch imp.Module {
		case abi.NamespaceUser:
			if !HostFunctions[imp.Name] {
				return false, nil, fmt.Errorf("imports host function %q from %s, which this mcpwasm does not provide (it provides %s)",
					imp.Name, abi.NamespaceUser, hostFunctionList())
			}
		case abi.NamespaceWASI:
			needsWASI = true
		}
	}
	exports = map[string]bool{}
	for _, e := range mod.Exports {
		if e.Kind == wasmbin.KindFunc {
			exports[e.Name] = true
		}
	}
	// A reactor's _initialize is run (hostenv.DetectInit, as Extism) only when WASI is on.
	if exports["_initialize"] {
		needsWASI = true
	}
	if !(exports[abi.ExportListTools] && exports[abi.ExportCallTool]) &&
		!(exports[abi.ExportDescribe] && exports[abi.ExportCall]) &&
		!exports[abi.ExportListResources] && !exports[abi.ExportListResourceTemplates] && !exports[abi.ExportListPrompts] {
		return false, nil, errors.New("exports none of the ABI's entry points: a tool plugin exports list_tools and call_tool (or the legacy describe and call); " +
			"a resource or prompt plugin exports list_resources, list_resource_templates or list_prompts")
	}
	return needsWASI, exports, nil
}

func hostFunctionList() string {
	names := make([]string, 0, len(HostFunctions))
	for n := range HostFunctions {
		names = append(names, n)
	}
	return strings.Join(sortStrings(names), ", ")
}

// Close waits for the plugin's running calls to end (each is bounded by its
// time limit) and for a compilation under way, then releases the compiled
// plugin. Waiting matters: closing a wazero runtime frees its memories at
// once, and pooled memories would otherwise be handed to another plugin
// while a guest still writes to them.
func (p *Plugin) Close(ctx context.Context) error {
	for i := 0; i < cap(p.slots); i++ {
		p.slots <- struct{}{}
	}
	defer p.roots.Close()
	defer p.net.Close()
	defer p.closeRemote()
	return p.closeCode(ctx)
}

// ExportNames lists a module's exported functions without compiling it or
// checking it beyond its export section (wasmbin.Exports): a quick look
// used to learn what plugins provide before they load.
func ExportNames(wasm []byte) ([]string, error) {
	exports, err := wasmbin.Exports(wasm)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range exports {
		if e.Kind == wasmbin.KindFunc {
			names = append(names, e.Name)
		}
	}
	return names, nil
}
