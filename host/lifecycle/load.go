package lifecycle

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"time"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/host/plugin"
	"github.com/mcpwasm/mcpwasm/host/registry"
	"github.com/mcpwasm/mcpwasm/host/server"
	"github.com/mcpwasm/mcpwasm/host/tracing"
)

// Load is the initial load: it compiles plugins in parallel and publishes
// each one as soon as it is ready. A plugin that fails, or is not ready
// within the load deadline, is reported and skipped; the rest serve.
// Plugins declaring the same name or URI are resolved in the order of
// specs (the config's order, then file names), whichever finishes first.
// It returns when every plugin is published or given up on; loads past the
// deadline end on their own (Close waits for them) and are then closed
// unpublished. It does not mark the server ready.
func (c *Catalog) Load(ctx context.Context, specs []Spec) {
	c.running.Add(1)
	defer c.running.Done()
	dctx, cancel := context.WithTimeout(ctx, c.deadline)
	defer cancel()
	var settled sync.WaitGroup
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	c.reg.Loading(pendingOf(specs)...)
	for rank, s := range specs {
		// mu orders the outcome of a load against giving up on it, so a
		// plugin is either published or reported late, never both.
		var mu sync.Mutex
		finished, gaveUp := false, false
		done := make(chan struct{})
		settled.Add(1)
		c.running.Add(1)
		go func() {
			defer c.running.Done()
			defer close(done)
			defer c.loaded(rank)
			select {
			case sem <- struct{}{}:
				defer func() { <-sem }()
			case <-dctx.Done():
				return
			}
			start := time.Now()
			dctx, span := tracing.Start(dctx, "plugin.load "+s.Config.Name, tracing.KeyPlugin, s.Config.Name)
			var err error
			defer func() { span.End(err) }()
			p, err := c.rt.Load(dctx, c.runConfig(s))
			mu.Lock()
			defer mu.Unlock()
			finished = true
			switch {
			case gaveUp:
				if p != nil {
					p.Close(context.Background())
				}
				return
			case err != nil:
				c.failed(ctx, dctx, s, err)
				return
			}
			ch, err := c.reg.AddRanked(dctx, p, c.addOptions(s, false), rank)
			if err != nil {
				c.failed(ctx, dctx, s, err)
				p.Close(context.Background())
				return
			}
			refused, _ := c.publish(ch, nil, nil)
			c.notLoaded(refused)
			c.logger.Debug("plugin compiled", "plugin", p.Name(), "source", s.Config.Source,
				"took", time.Since(start).Round(time.Millisecond))
		}()
		go func() {
			defer settled.Done()
			select {
			case <-done:
			case <-dctx.Done():
				mu.Lock()
				defer mu.Unlock()
				if finished {
					return
				}
				gaveUp = true
				c.loaded(rank)
				c.failed(ctx, dctx, s, nil)
			}
		}()
	}
	settled.Wait()
	for _, r := range c.reg.Settle() {
		c.notLoaded([]registry.Refusal{r})
		r.Plugin.Close(context.Background())
	}
	for _, p := range c.reg.Plugins() {
		from := "guest"
		if p.DeclarationsCached() {
			from = "cache"
		}
		c.logger.Info("plugin loaded", "plugin", p.Name(), "source", p.Config().Source, "declarations", from)
		// Now that every plugin is listed, those listed by running them
		// get their machine code (the others compile at their first call).
		p.CompileIfCold()
	}
}

// notLoaded reports plugins refused at the initial load.
func (c *Catalog) notLoaded(refused []registry.Refusal) {
	for _, r := range refused {
		c.logger.Error("plugin not loaded", "err", r.Err)
		c.reportLost(r.Plugin.Name())
	}
}

// failed reports a plugin that did not load: err, or the load deadline
// when dctx expired first. Nothing is reported at shutdown (ctx ended).
func (c *Catalog) failed(ctx, dctx context.Context, s Spec, err error) {
	switch {
	case ctx.Err() != nil:
	case dctx.Err() != nil:
		c.logger.Error("plugin not loaded", "plugin", s.Config.Name, "source", s.Config.Source,
			"err", fmt.Sprintf("not ready within the load deadline (%s, --load-timeout)", c.deadline))
		c.reportLost(s.Config.Name)
	default:
		c.logger.Error("plugin not loaded", "source", s.Config.Source, "err", err)
		c.reportLost(s.Config.Name)
	}
}

// reportLost reports a plugin that did not load: to /readyz and to Lost.
func (c *Catalog) reportLost(name string) {
	c.srv.LoadFailed(name)
	if c.lost != nil {
		c.lost(name)
	}
}

// loaded records that the load of the plugin of this rank ended, and wakes
// the requests waiting for what it might have declared.
func (c *Catalog) loaded(rank int) {
	c.reg.Loaded(rank)
	c.srv.Loaded()
}

// pendingOf describes each spec, ranked by its place, from its exports (a
// fast parse): what it could declare once loaded. A module that does not
// parse could declare anything (it fails to load soon anyway).
func pendingOf(specs []Spec) []registry.Pending {
	out := make([]registry.Pending, len(specs))
	for rank, s := range specs {
		f, err := featuresOf(s)
		if err != nil {
			f = server.Features{Tools: true, Resources: true, Prompts: true}
		}
		out[rank] = registry.Pending{Rank: rank, Name: s.Config.Name, Unprefixed: s.Unprefixed,
			Tools: f.Tools, Resources: f.Resources, Prompts: f.Prompts}
	}
	return out
}

// Features reads each plugin's exports — a fast parse, no compilation —
// to know which capabilities to advertise before the plugins are compiled.
func Features(specs []Spec) server.Features {
	var all server.Features
	for _, s := range specs {
		f, err := featuresOf(s)
		if err != nil {
			continue // Load reports it
		}
		all.Tools = all.Tools || f.Tools
		all.Resources = all.Resources || f.Resources
		all.Prompts = all.Prompts || f.Prompts
		all.Completions = all.Completions || f.Completions
		all.Skills = all.Skills || f.Skills
	}
	return all
}

// featuresOf says what one plugin's exports could serve.
func featuresOf(s Spec) (server.Features, error) {
	var f server.Features
	names, err := plugin.ExportNames(s.Config.Wasm)
	if err != nil {
		return f, err
	}
	for _, name := range names {
		switch name {
		case abi.ExportListTools, abi.ExportDescribe:
			f.Tools = true
		case abi.ExportListResources, abi.ExportListResourceTemplates:
			f.Resources = true
		case abi.ExportListPrompts:
			f.Prompts = true
		case abi.ExportComplete:
			f.Completions = true
		case abi.ExportListSkills:
			f.Skills, f.Resources = true, true
		}
	}
	return f, nil
}
