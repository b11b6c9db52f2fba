package lifecycle

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"sync"
	"time"

	"github.com/mcpwasm/mcpwasm/host/config"
	"github.com/mcpwasm/mcpwasm/host/plugin"
	"github.com/mcpwasm/mcpwasm/host/source"
	"github.com/mcpwasm/mcpwasm/host/source/store"
)

// RemoteOptions are the flags of the commands that accept oci:// and
// https:// plugins.
type RemoteOptions struct {
	// Offline takes remote plugins from the store only.
	Offline bool
	// Verify is the signature policy flag ("" unset).
	Verify string
	// Keys are trusted PEM public keys (--key).
	Keys []string
	// StoreDir is the plugin store (--store; "" for the default).
	StoreDir string
}

// Fetcher gets the oci:// and https:// plugins Collect meets. Its resolver
// is made on first use, so a run with local files only never opens the
// store. Its [sources] settings are those at start (a reload keeps them).
type Fetcher struct {
	ctx     context.Context
	rf      RemoteOptions
	sources config.Sources
	cfgFile string
	logger  *slog.Logger
	// DryRun records no pin (validate, inspect): the lock is read only.
	DryRun bool
	// Update re-resolves tags and moves pins (pull --update).
	Update bool
	// Progress, if set, is told of download progress (pull).
	Progress func(source.Progress)
	// Tables, if set, are [[plugin]] tables whose settings (verify, keys,
	// sha256) apply to a source given alone that one of them names
	// (inspect --config).
	Tables []config.Plugin

	once    sync.Once
	res     *source.Resolver
	err     error
	lockMu  sync.Mutex
	lock    *source.Lock // opened once, by Lock or the resolver
	mu      sync.Mutex
	results map[string]*source.Result // by source, for pull and inspect
}

// NewFetcher returns the fetcher for a command's flags and config.
func NewFetcher(ctx context.Context, rf RemoteOptions, cfg *config.Config, logger *slog.Logger) *Fetcher {
	return &Fetcher{ctx: ctx, rf: rf, sources: cfg.Sources, cfgFile: cfg.File, logger: logger, results: map[string]*source.Result{}}
}

// resolver opens the store and the lock file once.
func (f *Fetcher) resolver() (*source.Resolver, error) {
	f.once.Do(func() {
		st, err := f.openStore()
		if err != nil {
			f.err = err
			return
		}
		lock, err := f.openLock(st.Dir())
		if err != nil {
			f.err = err
			return
		}
		f.res, f.err = source.New(source.Options{Store: st, Lock: lock, Offline: f.rf.Offline, Update: f.Update,
			MaxSize: int64(f.sources.MaxSize.Bytes), Timeout: f.sources.Timeout.Duration, Progress: f.Progress, Logger: f.logger})
	})
	return f.res, f.err
}

// Lock is the lock file: mcpwasm.lock beside the config, or in the plugin
// store without one. It holds the tags' pins and the declarations approved
// (host/trust). It is opened once, and shared with the resolver; under
// DryRun it records nothing.
func (f *Fetcher) Lock() (*source.Lock, error) {
	if f.cfgFile != "" {
		return f.openLock("")
	}
	st, err := f.openStore()
	if err != nil {
		return nil, err
	}
	return f.openLock(st.Dir())
}

// openStore opens the plugin store: --store, else [sources] store, else
// the user's default.
func (f *Fetcher) openStore() (*store.Store, error) {
	dir := f.rf.StoreDir
	if dir == "" {
		dir = f.sources.Store
	}
	if dir == "" {
		dir = store.DefaultDir()
	}
	return store.Open(dir)
}

// openLock opens the lock file once: beside the config, else in storeDir.
func (f *Fetcher) openLock(storeDir string) (*source.Lock, error) {
	f.lockMu.Lock()
	defer f.lockMu.Unlock()
	if f.lock != nil {
		return f.lock, nil
	}
	path := filepath.Join(storeDir, source.LockName)
	if f.cfgFile != "" {
		path = source.LockFor(f.cfgFile)
	}
	lock, err := source.OpenLock(path)
	if err != nil {
		return nil, err
	}
	if f.DryRun {
		lock.DryRun()
	}
	f.lock = lock
	return lock, nil
}

// policy is the signature policy for a plugin: its own verify and keys,
// else the flags, else [sources].
func (f *Fetcher) policy(p *config.Plugin) (source.Policy, error) {
	mode := f.sources.Verify
	keys := f.sources.Keys
	if f.rf.Verify != "" {
		mode = f.rf.Verify
	}
	if len(f.rf.Keys) > 0 {
		keys = f.rf.Keys
	}
	if p != nil && p.Verify != "" {
		// --verify on the command line is a floor: a config cannot lower
		// what the operator asked for when starting the command.
		if f.rf.Verify != "" && verifyRank(p.Verify) < verifyRank(f.rf.Verify) {
			return source.Policy{}, fmt.Errorf("its verify = %q is weaker than --verify %s: refused (raise it, or drop --verify)", p.Verify, f.rf.Verify)
		}
		mode = p.Verify
	}
	if p != nil && len(p.Keys) > 0 {
		keys = p.Keys
	}
	signer := f.sources.Signer
	if p != nil && p.Signer.IsSet() {
		signer = p.Signer
	}
	var keyless *source.Keyless
	if signer.IsSet() {
		keyless = &source.Keyless{TrustedRoot: signer.TrustedRoot, Identity: signer.Identity,
			IdentityRegexp: signer.IdentityRegexp, Issuer: signer.Issuer}
	}
	return source.NewPolicy(mode, keys, keyless)
}

// verifyRank orders signature policies from the weakest.
func verifyRank(mode string) int {
	switch source.Mode(mode) {
	case source.Required:
		return 2
	case source.IfSigned:
		return 1
	}
	return 0
}

// Get fetches one remote plugin. p is its [[plugin]] table (nil for an
// argument).
func (f *Fetcher) Get(src string, p *config.Plugin) (*source.Result, error) {
	if _, err := source.Parse(src); err != nil {
		return nil, err // said without what must not be echoed (credentials)
	}
	if f == nil {
		return nil, fmt.Errorf("%s: oci:// and https:// plugins are not accepted here", src)
	}
	if p == nil {
		for i := range f.Tables {
			if f.Tables[i].Path == src {
				p = &f.Tables[i]
				break
			}
		}
	}
	r, err := f.resolver()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", src, err)
	}
	pol, err := f.policy(p)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", src, err)
	}
	req := source.Request{Source: src, Policy: pol}
	if p != nil {
		req.SHA256 = p.SHA256
	}
	start := time.Now()
	res, err := r.Get(f.ctx, req)
	if err != nil {
		return nil, err
	}
	if res.Fetched > 0 {
		f.logger.Info("plugin fetched", "source", src, "digest", res.Digest, "bytes", res.Fetched,
			"took", time.Since(start).Round(time.Millisecond), "signature", res.Signature.String())
	}
	if res.Pin == "new" || res.Pin == "moved" {
		f.logger.Info("tag pinned", "source", src, "digest", res.Digest, "previous", res.Previous)
	}
	f.mu.Lock()
	f.results[src] = res
	f.mu.Unlock()
	return res, nil
}

// Result is what Get returned for src, or nil.
func (f *Fetcher) Result(src string) *source.Result {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.results[src]
}

// Wasm fetches a [[plugin]] table's remote plugin.
func (f *Fetcher) Wasm(src string, p *config.Plugin) ([]byte, error) {
	res, err := f.Get(src, p)
	if err != nil {
		return nil, err
	}
	return res.Wasm, nil
}

// remoteArg is the plugin an oci:// or https:// argument names.
func remoteArg(f *Fetcher, src string, base plugin.Config) (plugin.Config, error) {
	res, err := f.Get(src, nil)
	if err != nil {
		return base, err
	}
	cfg := base
	cfg.Name, cfg.Source, cfg.Wasm = res.Ref.Name(), src, res.Wasm
	return cfg, nil
}
