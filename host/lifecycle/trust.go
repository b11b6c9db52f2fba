package lifecycle

import (
	"context"
	"log/slog"
	"strings"

	"github.com/mcpwasm/mcpwasm/host/audit"
	"github.com/mcpwasm/mcpwasm/host/config"
	"github.com/mcpwasm/mcpwasm/host/plugin"
	"github.com/mcpwasm/mcpwasm/host/registry"
	"github.com/mcpwasm/mcpwasm/host/trust"
)

// addOptions are the registry options a spec is read and served with:
// its prefixing, and the trust check of its declarations. replacing says
// a version of the plugin already serves: a hold then fails the new
// version's read, so the approved one keeps serving (a list the plugin
// refreshes at run time is filtered instead: held declarations are left
// out).
func (c *Catalog) addOptions(s Spec, replacing bool) registry.AddOptions {
	c.settings.Store(s.Config.Name, s.Trust)
	o := registry.AddOptions{Unprefixed: s.Unprefixed, AllowConfusable: s.Trust.HiddenText == "warn"}
	if c.vet == nil {
		return o
	}
	set := trust.Settings{Mode: trust.Mode(s.Trust.Trust), WarnHidden: s.Trust.HiddenText == "warn"}
	vet := c.vet
	o.Vet = func(e *registry.Entry, refresh bool) (*registry.Entry, error) {
		return vet.Vet(e, set, replacing && !refresh)
	}
	return o
}

// serves reports whether a plugin of this name is in the registry.
func (c *Catalog) serves(name string) bool {
	for _, p := range c.reg.Plugins() {
		if p.Name() == name {
			return true
		}
	}
	return false
}

// pending reports whether p has declarations held, which an approval in
// the lock file may release (the reloader then reads the plugin again).
func (c *Catalog) pending(p *plugin.Plugin) bool {
	return c.vet != nil && c.vet.Pending(p.Name())
}

// Trust is the catalog's trust check (nil when none).
func (c *Catalog) Trust() *trust.Vetter { return c.vet }

// ApproveCommand is the command that approves what serve, run with this
// config and these arguments, holds.
func ApproveCommand(configPath string, args []string) string {
	cmd := "mcpwasm trust"
	if configPath != "" {
		cmd += " --config " + configPath
	}
	if len(args) > 0 {
		cmd += " " + strings.Join(args, " ")
	}
	return cmd
}

// recordKey names plugins' approvals in the lock file: by name beside a
// config, by name and source in the store's lock file that config-less
// runs share (trust.BySource).
func recordKey(configPath string) trust.Keyer {
	if configPath != "" {
		return trust.ByName
	}
	return trust.BySource
}

// newVetter is serve's trust check: approvals in the lock file (the
// fetcher's), force over every plugin's mode (--trust), each event in the
// audit log (and so the metrics). It returns the lock file's path ("" if
// it could not be opened: then nothing is recorded, "tofu" serves what it
// reads and "pin" nothing, and the log says so).
func newVetter(force string, configPath string, args []string, fetch *Fetcher, log *audit.Log, logger *slog.Logger) (*trust.Vetter, string) {
	o := trust.Options{Logger: logger, Force: trust.Mode(force), Approve: ApproveCommand(configPath, args), Record: recordKey(configPath),
		Events: func(e trust.Event) {
			log.Record(audit.Event{Kind: audit.KindTrust, Outcome: e.Kind, Plugin: e.Plugin, Tool: e.Decl.Name, Reason: e.Detail,
				Attrs: map[string]any{"declaration": string(e.Decl.Kind)}})
		}}
	path := ""
	if lock, err := fetch.Lock(); err != nil {
		logger.Error("declarations are not pinned: the lock file cannot be opened", "err", err)
	} else {
		o.Store, path = lock, lock.Path()
		if force != "off" {
			// Before the confinement, which lets the file be written, not
			// created.
			if err := lock.Create(); err != nil {
				logger.Error("declarations may not be recorded: the lock file cannot be created", "err", err)
			}
		}
	}
	if force != "" {
		logger.Warn("--trust overrides every plugin's trust setting", "trust", force)
	}
	return trust.New(o), path
}

// approvals reads again every plugin that has declarations held, or whose
// new version was held back, after the lock file changed (mcpwasm trust):
// what it approves is served, and list_changed sent.
func (r *reloader) approvals(ctx context.Context) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.reconcile(ctx, r.cfg, func(string) bool { return true }); err != nil {
		r.c.logger.Error("plugins not reloaded", "err", err)
	}
}

// trustFlagValid checks --trust ("" for none).
func trustFlagValid(v string) bool { return v == "" || config.TrustValid("trust", v) }
