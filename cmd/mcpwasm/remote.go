package main

import (
	"context"
	"flag"
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

// remoteFlags are the flags of the commands that accept oci:// and
// https:// plugins.
type remoteFlags struct {
	offline  bool
	verify   string
	keys     stringList
	storeDir string
}

func (rf *remoteFlags) register(fs *flag.FlagSet) {
	fs.BoolVar(&rf.offline, "offline", false, "never touch the network: oci:// and https:// plugins come from the store (see mcpwasm pull)")
	fs.StringVar(&rf.verify, "verify", "", `signature policy for oci:// plugins: "required", "if-signed" or "off" (default: if-signed with --key or [sources] keys, else off)`)
	fs.Var(&rf.keys, "key", "PEM public key (cosign.pub) trusted for oci:// plugin signatures (repeatable)")
	def := store.DefaultDir()
	if def == "" {
		def = "none: no user cache folder"
	}
	fs.StringVar(&rf.storeDir, "store", "", "plugin store for oci:// and https:// plugins, private to this user (default [sources] store, else "+def+")")
}

// fetcher gets the oci:// and https:// plugins collect meets. Its resolver
// is made on first use, so a run with local files only never opens the
// store. Its [sources] settings are those at start (a reload keeps them).
type fetcher struct {
	ctx     context.Context
	rf      remoteFlags
	sources config.Sources
	cfgFile string
	logger  *slog.Logger
	// dryRun records no pin (validate, inspect): the lock is read only.
	dryRun bool
	// update re-resolves tags and moves pins (pull --update).
	update   bool
	progress func(source.Progress)
	// tables, if set, are [[plugin]] tables whose settings (verify, keys,
	// sha256) apply to a source given alone that one of them names
	// (inspect --config).
	tables []config.Plugin

	once    sync.Once
	res     *source.Resolver
	err     error
	mu      sync.Mutex
	results map[string]*source.Result // by source, for pull and inspect
}

// newFetcher returns the fetcher for a command's flags and config.
func newFetcher(ctx context.Context, rf remoteFlags, cfg *config.Config, logger *slog.Logger) *fetcher {
	return &fetcher{ctx: ctx, rf: rf, sources: cfg.Sources, cfgFile: cfg.File, logger: logger, results: map[string]*source.Result{}}
}

// resolver opens the store and the lock file once.
func (f *fetcher) resolver() (*source.Resolver, error) {
	f.once.Do(func() {
		dir := f.rf.storeDir
		if dir == "" {
			dir = f.join(f.sources.Store)
		}
		if dir == "" {
			dir = store.DefaultDir()
		}
		st, err := store.Open(dir)
		if err != nil {
			f.err = err
			return
		}
		lockPath := filepath.Join(st.Dir(), source.LockName)
		if f.cfgFile != "" {
			lockPath = source.LockFor(f.cfgFile)
		}
		lock, err := source.OpenLock(lockPath)
		if err != nil {
			f.err = err
			return
		}
		if f.dryRun {
			lock.DryRun()
		}
		f.res, f.err = source.New(source.Options{Store: st, Lock: lock, Offline: f.rf.offline, Update: f.update,
			MaxSize: int64(f.sources.MaxSize.Bytes), Timeout: f.sources.Timeout.Duration, Progress: f.progress, Logger: f.logger})
	})
	return f.res, f.err
}

// join makes a path from [sources] relative to the config's folder.
func (f *fetcher) join(path string) string {
	if path == "" || filepath.IsAbs(path) || f.cfgFile == "" {
		return path
	}
	return filepath.Join(filepath.Dir(f.cfgFile), path)
}

// policy is the signature policy for a plugin: its own verify and keys,
// else the flags, else [sources].
func (f *fetcher) policy(p *config.Plugin) (source.Policy, error) {
	mode := f.sources.Verify
	var keys []string
	for _, k := range f.sources.Keys {
		keys = append(keys, f.join(k))
	}
	if f.rf.verify != "" {
		mode = f.rf.verify
	}
	if len(f.rf.keys) > 0 {
		keys = f.rf.keys
	}
	if p != nil && p.Verify != "" {
		// --verify on the command line is a floor: a config cannot lower
		// what the operator asked for when starting the command.
		if f.rf.verify != "" && verifyRank(p.Verify) < verifyRank(f.rf.verify) {
			return source.Policy{}, fmt.Errorf("its verify = %q is weaker than --verify %s: refused (raise it, or drop --verify)", p.Verify, f.rf.verify)
		}
		mode = p.Verify
	}
	if p != nil && len(p.Keys) > 0 {
		keys = nil
		for _, k := range p.Keys {
			keys = append(keys, f.join(k))
		}
	}
	signer := f.sources.Signer
	if p != nil && p.Signer.IsSet() {
		signer = p.Signer
	}
	var keyless *source.Keyless
	if signer.IsSet() {
		keyless = &source.Keyless{TrustedRoot: f.join(signer.TrustedRoot), Identity: signer.Identity,
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

// get fetches one remote plugin. p is its [[plugin]] table (nil for an
// argument).
func (f *fetcher) get(src string, p *config.Plugin) (*source.Result, error) {
	if _, err := source.Parse(src); err != nil {
		return nil, err // said without what must not be echoed (credentials)
	}
	if f == nil {
		return nil, fmt.Errorf("%s: oci:// and https:// plugins are not accepted here", src)
	}
	if p == nil {
		for i := range f.tables {
			if f.tables[i].Path == src {
				p = &f.tables[i]
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

// result is what get returned for src.
func (f *fetcher) result(src string) *source.Result {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.results[src]
}

// wasm fetches a [[plugin]] table's remote plugin.
func (f *fetcher) wasm(src string, p *config.Plugin) ([]byte, error) {
	res, err := f.get(src, p)
	if err != nil {
		return nil, err
	}
	return res.Wasm, nil
}

// remoteArg is the plugin an oci:// or https:// argument names.
func remoteArg(f *fetcher, src string, base plugin.Config) (plugin.Config, error) {
	res, err := f.get(src, nil)
	if err != nil {
		return base, err
	}
	cfg := base
	cfg.Name, cfg.Source, cfg.Wasm = res.Ref.Name(), src, res.Wasm
	return cfg, nil
}
