package lifecycle

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/host/config"
	"github.com/mcpwasm/mcpwasm/host/plugin"
	"github.com/mcpwasm/mcpwasm/host/policy"
	"github.com/mcpwasm/mcpwasm/host/registry"
	"github.com/mcpwasm/mcpwasm/host/server"
	"github.com/mcpwasm/mcpwasm/host/tracing"
)

// reloader keeps what serve serves in step with the plugin files and the
// config file while it runs. Each reload recomputes the plugins to serve
// exactly as the start did (collect: the config's [[plugin]] tables, then
// the arguments' files and folders) and compares them with what is served,
// version by version (the module's sha256 and the effective settings):
//
//   - a plugin no longer wanted is withdrawn, then closed once the calls
//     that reached it have finished (Catalog.remove);
//   - a new or changed one is loaded in the background — compiled, probed
//     and its lists read, the same path as at start — and swapped in only
//     once all of that succeeded (Catalog.swapIn). A failure
//     is logged, naming the file, and the previous version keeps serving.
//     A version that failed is tried again when its file changes again or
//     on SIGHUP, not on every unrelated event.
//
// Withdrawals run before loads, so renaming a file of an unprefixed plugin
// does not collide with itself. A plugin added while serving ranks after
// every plugin already served: it never takes a name from one that serves
// (at the next start, the usual order decides). A replaced plugin keeps its
// rank.
type reloader struct {
	c        *Catalog
	args     []string // serve's positional arguments: files and folders
	cfgPath  string   // --config, or ""
	lf       *Limits
	roots    []string // --root
	noPrefix bool
	features server.Features // what the server advertised at start
	grants   *grantCache
	fetch    *Fetcher       // oci:// and https:// plugins
	hup      chan os.Signal // SIGHUP, once listen was called
	walls    *confineInputs // what the confinement in force derives from; nil when off
	onHUP    func()         // run first on SIGHUP (the audit log is reopened), or nil
	// setPolicy puts a policy set in force (policy.go); nil: none kept.
	setPolicy func(*policy.Set)
	lockFile  string // the lock file whose approvals the plugins are served under, or ""

	mu       sync.Mutex // one reload at a time
	cfg      *config.Config
	current  map[string]*servedVersion // what is loaded, by key (see keys)
	failed   map[string]string         // key -> identity of the version that failed last
	problems map[string]bool           // source problems reported, each once while it lasts
	said     map[string]bool           // "restart needed" reported (confine.go)
	// running is the config the process started with: what restart-only
	// settings are compared with (settings.go); pending are those that
	// differ from it, as last reported.
	running *config.Config
	pending map[string]bool
}

// servedVersion is one loaded plugin and what it was loaded from.
type servedVersion struct {
	spec Spec
	id   string
	p    *plugin.Plugin
}

// keys names each spec by its source; a source listed twice (in the config
// and in a folder argument) is told apart by its occurrence.
func keys(specs []Spec) []string {
	seen := map[string]int{}
	out := make([]string, len(specs))
	for i, s := range specs {
		k := s.Config.Source
		if n := seen[k]; n > 0 {
			k = fmt.Sprintf("%s#%d", k, n)
		}
		seen[s.Config.Source]++
		out[i] = k
	}
	return out
}

// identity sums everything that makes a spec load differently: the bytes,
// the name, the pin, the limits, the guest config, the grants and the
// prefixing. Two specs with the same identity serve the same.
func identity(s Spec) string {
	h := sha256.New()
	h.Write(s.Config.Wasm)
	c := s.Config
	c.Wasm = nil
	grants := make([]string, len(c.Grants))
	for i, g := range c.Grants {
		grants[i] = fmt.Sprintf("%s:%v", g.Path, g.ReadOnly)
	}
	sort.Strings(grants)
	c.Grants = nil
	fmt.Fprintf(h, "\x00%#v\x00%q\x00%v\x00%#v", c, grants, s.Unprefixed, s.Trust) // fmt prints maps sorted
	return hex.EncodeToString(h.Sum(nil))
}

// adopt records what the initial load served, so the first reload only
// touches what changed. A spec that failed to load is marked failed: it is
// tried again when its file changes, or on SIGHUP.
func (r *reloader) adopt(specs []Spec) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.current, r.failed, r.problems = map[string]*servedVersion{}, map[string]string{}, map[string]bool{}
	loaded := r.c.reg.Plugins()
	for i, k := range keys(specs) {
		s := specs[i]
		id := identity(s)
		at := slices.IndexFunc(loaded, func(p *plugin.Plugin) bool {
			return p.Config().Source == s.Config.Source && p.Name() == s.Config.Name
		})
		if at < 0 {
			r.failed[k] = id
			continue
		}
		r.current[k] = &servedVersion{spec: s, id: id, p: loaded[at]}
		loaded = slices.Delete(loaded, at, at+1)
	}
}

// reloadConfig reads the config file again and, if it is valid, applies
// it; otherwise the previous config stays in force and the reason is
// logged (the file, and the line where there is one). Without a config
// file it rescans the plugin files and folders. Every plugin that failed
// before is tried again.
func (r *reloader) reloadConfig(ctx context.Context, why string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	cfg := r.cfg
	if r.cfgPath != "" {
		c, err := config.Load(r.cfgPath)
		if err != nil {
			r.c.logger.Error("config not reloaded; the previous one stays in force", "trigger", why, "err", err)
			return
		}
		cfg = c
		r.reloadPolicy(cfg, why)
	}
	all := func(string) bool { return true }
	ctx, span := tracing.Start(ctx, "plugin.reload", tracing.KeyReloadCause, why)
	err := r.reconcile(ctx, cfg, all)
	span.End(err)
	if err != nil {
		r.c.logger.Error("config not reloaded; the previous one stays in force", "trigger", why, "err", err)
		return
	}
	r.pendingSettings(cfg)
	r.cfg = cfg
	r.c.logger.Info("config reloaded", "trigger", why, "file", r.cfgPath, "plugins", len(r.current))
}

// rescan applies the changes of the files touched (absolute paths) under
// the config in force.
func (r *reloader) rescan(ctx context.Context, touched map[string]bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	ctx, span := tracing.Start(ctx, "plugin.reload", tracing.KeyReloadCause, "files changed")
	err := r.reconcile(ctx, r.cfg, func(src string) bool { return touched[absPath(src)] })
	span.End(err)
	if err != nil {
		r.c.logger.Error("plugins not reloaded", "err", err)
	}
}

// reconcile makes the served plugins those cfg and the arguments name.
// touched says which sources to try again even though their version failed
// before. An error (a root folder that cannot be opened) changes nothing.
// r.mu must be held.
func (r *reloader) reconcile(ctx context.Context, cfg *config.Config, touched func(source string) bool) error {
	r.c.srv.Reloading(true) // /readyz: "reloading"
	defer r.c.srv.Reloading(false)
	base, err := r.lf.Defaults(cfg)
	if err != nil {
		return err
	}
	if base.Grants, err = rootGrantsWith(append(append([]string(nil), r.roots...), cfg.Server.Roots...), r.grants.open); err != nil {
		return err
	}
	specs, problems := collectWith(r.args, cfg, base, r.noPrefix, r.grants.open, r.fetch)
	r.c.setSecrets(specs) // the plugins' secrets as read now
	r.restartNeeded(cfg, specs, problems)
	want := map[string]bool{}
	ks := keys(specs)
	for _, k := range ks {
		want[k] = true
	}
	// A served plugin whose file could not be read (it exists: the process
	// may not open it, a link loop) keeps serving: a failed reload never
	// withdraws a version (keeping).
	kept := r.keeping(problems)
	r.report(problems, kept)
	for k, v := range r.current {
		if !want[k] && kept[v.spec.Config.Source] == nil {
			r.remove(k, v)
		}
	}
	for k := range r.failed {
		if !want[k] {
			delete(r.failed, k)
		}
	}
	// Every new version of the round is loaded first and swapped in after,
	// one right after the other, so go-sdk folds the round's changes into a
	// few list_changed notifications rather than one per plugin (a folder
	// flooded with files is a few rounds, not a notice per file, even when
	// each load takes longer than go-sdk's 10 ms notification delay).
	var loaded []version
	for i, k := range ks {
		if ctx.Err() != nil {
			break
		}
		s, id := specs[i], identity(specs[i])
		if v := r.current[k]; v != nil && v.id == id && !(r.c.pending(v.p) && touched(s.Config.Source)) {
			delete(r.failed, k) // the file went back to the version that serves
			continue
		}
		if r.failed[k] == id && !touched(s.Config.Source) {
			continue
		}
		v := version{k: k, s: s, id: id}
		v.p, v.e, v.err = r.c.loadVersion(ctx, s)
		loaded = append(loaded, v)
	}
	for _, v := range loaded {
		r.apply(ctx, v)
	}
	return nil
}

// version is one new version of a plugin loaded in a reload round, to be
// swapped in: the plugin under key k, built from s (identity id), or why
// it did not load.
type version struct {
	k   string
	s   Spec
	id  string
	p   *plugin.Plugin
	e   *registry.Entry
	err error
}

// keeping maps the source of each served plugin that an unreadable
// source covers to that problem: those versions keep serving.
func (r *reloader) keeping(problems []error) map[string]*sourceError {
	kept := map[string]*sourceError{}
	for _, p := range problems {
		var se *sourceError
		if !errors.As(p, &se) || !se.unreadable() {
			continue
		}
		for _, v := range r.current {
			if src := v.spec.Config.Source; se.covers(src) {
				kept[src] = se
			}
		}
	}
	return kept
}

// report logs each source problem (a missing file, a folder without
// .wasm files, a granted folder that does not exist, a file it cannot
// read) once while it lasts; one that leaves a served version serving
// (kept) says so, naming the plugin.
func (r *reloader) report(problems []error, kept map[string]*sourceError) {
	now := map[string]bool{}
	for _, p := range problems {
		msg := p.Error()
		now[msg] = true
		if r.problems[msg] {
			continue
		}
		served := false
		for _, v := range r.current {
			if se := kept[v.spec.Config.Source]; se != nil && se.Error() == msg {
				served = true
				r.c.logger.Error("plugin not reloaded: the previous version keeps serving", "plugin", v.p.Name(),
					"source", v.spec.Config.Source, "err", msg)
			}
		}
		if !served {
			r.c.logger.Error("plugin not loaded", "err", msg)
		}
	}
	r.problems = now
}

// remove withdraws a plugin whose file or [[plugin]] table is gone.
func (r *reloader) remove(k string, v *servedVersion) {
	r.withdrawn(r.c.remove(v.p))
	delete(r.current, k)
	delete(r.failed, k)
	r.c.logger.Info("plugin removed", "plugin", v.p.Name(), "source", v.spec.Config.Source)
}

// apply swaps in a new version of a plugin, or logs why it did not load
// and leaves the previous version serving.
func (r *reloader) apply(ctx context.Context, v version) {
	k, s, id, p, e, err := v.k, v.s, v.id, v.p, v.e, v.err
	cur := r.current[k]
	var curPlugin *plugin.Plugin
	if cur != nil {
		curPlugin = cur.p
	}
	if err == nil && ctx.Err() != nil {
		p.Close(context.Background()) // shutting down: loaded, never served
		return
	}
	if err == nil {
		var refused []registry.Refusal
		refused, err = r.c.swapIn(curPlugin, e, r.c.addOptions(s, curPlugin != nil))
		r.withdrawn(refused)
	}
	if err != nil {
		if ctx.Err() != nil {
			return // shutting down
		}
		r.failed[k] = id
		if cur != nil {
			r.c.logger.Error("plugin not reloaded: the previous version keeps serving", "plugin", s.Config.Name,
				"source", s.Config.Source, "err", err)
		} else {
			r.c.logger.Error("plugin not loaded", "plugin", s.Config.Name, "source", s.Config.Source, "err", err)
		}
		return
	}
	delete(r.failed, k)
	r.current[k] = &servedVersion{spec: s, id: id, p: p}
	r.warnFeatures(p, s.Config.Source)
	if cur != nil {
		r.c.retire(cur.p)
		r.c.logger.Info("plugin reloaded", "plugin", p.Name(), "source", s.Config.Source, "sha256", p.SHA256())
		return
	}
	r.c.logger.Info("plugin added", "plugin", p.Name(), "source", s.Config.Source, "sha256", p.SHA256())
}

// withdrawn records the plugins go-sdk refused while a change was
// published (the registry checks go-sdk's rules first, so this is a safety
// net): the catalog withdrew and retired them; they are tried again when
// their file changes, or on SIGHUP.
func (r *reloader) withdrawn(refused []registry.Refusal) {
	for _, rf := range refused {
		r.c.logger.Error("plugin withdrawn", "plugin", rf.Plugin.Name(), "source", rf.Plugin.Config().Source, "err", rf.Err)
		for k, v := range r.current {
			if v.p == rf.Plugin {
				delete(r.current, k)
				r.failed[k] = v.id
			}
		}
	}
}

// warnFeatures says when a plugin added while serving brings a kind of
// feature the server did not advertise at start: sessions opened before
// do not know of it, and completions need a restart (go-sdk takes the
// completion handler at start).
func (r *reloader) warnFeatures(p *plugin.Plugin, source string) {
	var missing []string
	if !r.features.Resources && (p.Exports(abi.ExportListResources) || p.Exports(abi.ExportListResourceTemplates) || p.Exports(abi.ExportListSkills)) {
		missing = append(missing, "resources")
	}
	if !r.features.Prompts && p.Exports(abi.ExportListPrompts) {
		missing = append(missing, "prompts")
	}
	if !r.features.Tools && (p.Exports(abi.ExportListTools) || p.Exports(abi.ExportDescribe)) {
		missing = append(missing, "tools")
	}
	if len(missing) > 0 {
		r.c.logger.Warn("plugin brings features no plugin had at start: sessions opened before were not told of them",
			"plugin", p.Name(), "source", source, "features", strings.Join(missing, ","))
	}
	if !r.features.Skills && p.Exports(abi.ExportListSkills) {
		r.c.logger.Warn("plugin ships skills, but no plugin did at start: its files are served as resources, skills/list after a restart",
			"plugin", p.Name(), "source", source)
	}
	if !r.features.Completions && p.Exports(abi.ExportComplete) {
		r.c.logger.Warn("plugin completes arguments, but no plugin did at start: completion/complete is served after a restart",
			"plugin", p.Name(), "source", source)
	}
}
