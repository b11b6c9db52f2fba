package lifecycle

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/mcpwasm/mcpwasm/host/plugin"
	"github.com/mcpwasm/mcpwasm/host/registry"
	"github.com/mcpwasm/mcpwasm/host/secrets"
	"github.com/mcpwasm/mcpwasm/host/server"
	"github.com/mcpwasm/mcpwasm/host/tracing"
	"github.com/mcpwasm/mcpwasm/host/trust"
)

// Catalog is the one owner of the loaded plugins. It alone loads, ranks,
// publishes, replaces, removes and retires them; no other package changes
// the registry or what the server publishes. Each change flows one way:
// the catalog asks the registry what a change does to the served surface
// (the registry holds the one collision rule: rank order), tells the server
// to publish that, and, should go-sdk refuse a declaration the registry
// accepted, undoes it in the registry and publishes the undo.
type Catalog struct {
	rt       *plugin.Runtime
	reg      *registry.Registry
	srv      *server.Server
	logger   *slog.Logger
	deadline time.Duration  // how long one load may take
	lost     func(string)   // told of each plugin that did not load (/readyz, metrics)
	running  sync.WaitGroup // every load and retirement under way
	vet      *trust.Vetter  // what of a plugin's declarations is served; nil serves all
	known    *secrets.Known // the secrets no answer carries; nil: none
	// baseSecrets are the server's own secrets (setSecrets adds the
	// plugins'); settings are each plugin's trust settings, by name.
	baseSecrets []string
	settings    sync.Map
	isolation   *Isolation // how isolated plugins' workers start; nil: none are
}

// CatalogOptions configure a Catalog.
type CatalogOptions struct {
	// Server configures the server the catalog publishes to.
	Server server.Options
	// LoadTimeout bounds each plugin's load (default 60s).
	LoadTimeout time.Duration
	// Lost, if set, is told the name of each plugin that did not load.
	Lost func(name string)
	// Trust, if set, decides which declarations are served (holds,
	// hidden text); nil serves every declaration.
	Trust *trust.Vetter
	// Known, if set, holds the secrets redacted from every answer; the
	// catalog adds the plugins' to ServerSecrets at each load and reload.
	Known         *secrets.Known
	ServerSecrets []string
}

// NewCatalog returns an empty catalog over rt, with its registry and the
// server that serves it. The server re-reads a plugin's lists through the
// catalog when the plugin says they changed.
func NewCatalog(rt *plugin.Runtime, o CatalogOptions) *Catalog {
	c := &Catalog{rt: rt, reg: registry.New(), logger: o.Server.Logger, deadline: o.LoadTimeout, lost: o.Lost, vet: o.Trust,
		known: o.Known, baseSecrets: o.ServerSecrets}
	if c.logger == nil {
		c.logger = slog.New(slog.DiscardHandler)
	}
	if c.deadline <= 0 {
		c.deadline = 60 * time.Second
	}
	o.Server.ListsChanged = c.refresh
	if o.Server.Results == nil {
		o.Server.Results = c.resultPolicy
	}
	if c.vet != nil {
		o.Server.Held = c.held
	}
	c.srv = server.New(c.reg, o.Server)
	return c
}

// Server is the server the catalog publishes to.
func (c *Catalog) Server() *server.Server { return c.srv }

// Registry is the catalog's registry, for lookups (call, inspect,
// validate's summary); only the catalog changes it.
func (c *Catalog) Registry() *registry.Registry { return c.reg }

// Runtime is the plugin runtime the catalog loads with.
func (c *Catalog) Runtime() *plugin.Runtime { return c.rt }

// Close closes every plugin, once every load has ended (up to d; false if
// some still run: then nothing is closed, since closing the runtime under
// a compile crashes wazero), then the runtime.
func (c *Catalog) Close(d time.Duration) bool {
	if !c.wait(d) {
		return false
	}
	c.reg.Close(context.Background())
	c.rt.Close(context.Background())
	return true
}

// wait waits up to d for every load and retirement to end; false if some
// still run.
func (c *Catalog) wait(d time.Duration) bool {
	done := make(chan struct{})
	go func() { c.running.Wait(); close(done) }()
	select {
	case <-done:
		return true
	case <-time.After(d):
		return false
	}
}

// publish tells the server what the registry changed. Should go-sdk refuse
// an entry, the catalog withdraws it from the registry: fresh, the plugin
// being swapped in, through undo (which puts its previous version back);
// any other through Remove. What that changes is published in turn, and
// the refused plugins are retired. It returns the other plugins refused,
// for the caller to report, and why fresh was refused (nil if it was
// published).
//
// go-sdk v1.8.0 refuses a declaration only for what the declaration itself
// says (its Add* panics read nothing of the server's state), and
// registry.Read tries every declaration on a scratch go-sdk server first
// (sdkcheck.go), so no entry the registry read is refused here. The undo is
// kept as the backstop for a go-sdk whose rules come to depend on the
// server: a refused new version then leaves the previous one serving
// rather than nothing. TestSwapInUndoesRefusal drives it with an entry that
// bypasses the registry's check.
func (c *Catalog) publish(ch *registry.Changes, fresh *plugin.Plugin, undo func() *registry.Changes) (others []registry.Refusal, refused error) {
	if c.srv == nil {
		return nil, nil // nothing served (validate, call, inspect)
	}
	for _, rf := range c.srv.Publish(ch) {
		var back *registry.Changes
		if rf.Plugin == fresh && undo != nil {
			refused = rf.Err
			back = undo()
		} else {
			others = append(others, rf)
			back = c.reg.Remove(rf.Plugin)
		}
		more, _ := c.publish(back, nil, nil)
		others = append(others, more...)
		c.retire(rf.Plugin)
	}
	return others, refused
}

// retire closes a plugin that left, once the calls that reached it end.
// Close waits for it, before the runtime closes.
func (c *Catalog) retire(p *plugin.Plugin) {
	done := c.srv.Retire(p)
	c.running.Add(1)
	go func() {
		defer c.running.Done()
		<-done
	}()
}

// loadVersion loads s as a version to swap in while serving: compiled,
// probed and its declarations read, before anything changes. The previous
// version serves until then.
func (c *Catalog) loadVersion(ctx context.Context, s Spec) (*plugin.Plugin, *registry.Entry, error) {
	lctx, cancel := context.WithTimeout(ctx, c.deadline)
	defer cancel()
	lctx, span := tracing.Start(lctx, "plugin.load "+s.Config.Name, tracing.KeyPlugin, s.Config.Name)
	var err error
	defer func() { span.End(err) }()
	p, err := c.rt.Load(lctx, c.runConfig(s))
	if err != nil {
		return nil, nil, c.late(lctx, err)
	}
	e, err := registry.Read(lctx, p, c.addOptions(s, c.serves(s.Config.Name)))
	if err == nil && !c.isolates(s) { // a worker compiled it already
		err = p.Compile(lctx)
	}
	if err != nil {
		p.Close(context.Background())
		return nil, nil, c.late(lctx, err)
	}
	return p, e, nil
}

// late says when an error came from the load deadline.
func (c *Catalog) late(lctx context.Context, err error) error {
	if lctx.Err() != nil {
		return fmt.Errorf("not ready within the load deadline (%s, --load-timeout): %w", c.deadline, err)
	}
	return err
}

// swapIn serves e (loaded by loadVersion) in cur's place, or after every
// plugin when cur is nil. A collision with a plugin of a better rank, or
// go-sdk refusing e, is an error and leaves cur serving (e's plugin is
// then closed or retired). The other plugins a go-sdk refusal withdrew are
// returned.
func (c *Catalog) swapIn(cur *plugin.Plugin, e *registry.Entry, opts registry.AddOptions) ([]registry.Refusal, error) {
	var ch *registry.Changes
	var err error
	var prev *registry.Entry // to put back should go-sdk refuse the new version
	var prevOpts registry.AddOptions
	if cur != nil {
		prev, prevOpts, _ = c.reg.Entry(cur)
		ch, err = c.reg.Replace(cur, e, opts)
	} else {
		ch, err = c.reg.Append(e, opts)
	}
	if err != nil {
		e.Plugin.Close(context.Background())
		return nil, err
	}
	p := e.Plugin
	undo := func() *registry.Changes {
		if prev != nil {
			if back, err := c.reg.Replace(p, prev, prevOpts); err == nil {
				return back
			}
		}
		return c.reg.Remove(p)
	}
	others, refused := c.publish(ch, p, undo)
	c.tell(ch, p, refused == nil)
	return others, refused
}

// remove withdraws p and retires it. It returns the plugins a go-sdk
// refusal withdrew on the way (served again by p's leaving, then refused).
func (c *Catalog) remove(p *plugin.Plugin) []registry.Refusal {
	if c.vet != nil {
		c.vet.Forget(p.Name())
	}
	ch := c.reg.Remove(p)
	others, _ := c.publish(ch, nil, nil)
	c.tell(ch, nil, true)
	c.retire(p)
	return others
}

// tell logs what a change made while serving did to other plugins than
// fresh: withdrawn by a collision with a new name, or served again.
func (c *Catalog) tell(ch *registry.Changes, fresh *plugin.Plugin, ok bool) {
	for _, e := range ch.Removed {
		if err := c.reg.Why(e.Plugin); err != nil {
			c.logger.Warn("plugin withdrawn", "plugin", e.Plugin.Name(), "source", e.Plugin.Config().Source, "err", err)
		}
	}
	for _, e := range ch.Added {
		if e.Plugin != fresh && ok {
			c.logger.Info("plugin served again", "plugin", e.Plugin.Name(), "source", e.Plugin.Config().Source)
		}
	}
}

// refresh re-reads a plugin's declarations after it said they changed and
// publishes them: the new entries first, then the old ones withdrawn, so a
// tool both lists declare is never missing from a list in between. Should
// the new lists collide or go-sdk refuse them, the old ones stay.
func (c *Catalog) refresh(p *plugin.Plugin) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*p.Config().Timeout)
	defer cancel()
	old, cur, err := c.reg.Refresh(ctx, p)
	if err != nil {
		c.logger.Error("plugin lists not refreshed; keeping the old ones", "err", err)
		return
	}
	if refused := c.srv.Publish(&registry.Changes{Added: []*registry.Entry{cur}, Removed: []*registry.Entry{old}}); len(refused) > 0 {
		c.logger.Error("plugin lists not refreshed; keeping the old ones", "err", refused[0].Err)
		c.reg.Restore(p, old)
		if refused := c.srv.Publish(&registry.Changes{Added: []*registry.Entry{old}}); len(refused) > 0 {
			c.logger.Error("plugin withdrawn", "plugin", p.Name(), "err", refused[0].Err)
		}
		return
	}
	c.logger.Info("plugin lists refreshed", "plugin", p.Name(), "tools", len(cur.Tools),
		"resources", len(cur.Resources), "prompts", len(cur.Prompts))
}
