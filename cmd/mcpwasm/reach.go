package main

import (
	"fmt"
	"io"
	"path/filepath"
	"sort"

	"github.com/mcpwasm/mcpwasm/host/config"
	"github.com/mcpwasm/mcpwasm/host/lifecycle"
)

// reach is what a plugin may reach under a config: its network and
// filesystem grants and its guest config, secrets shown by where they come
// from, never by value. mcpwasm inspect prints it; tools/list never
// carries any of it.
type reach struct {
	Config  string            `json:"config,omitempty"`
	Network []config.NetGrant `json:"network"`
	Files   []config.FSGrant  `json:"filesystem"`
	Guest   map[string]string `json:"guest_config,omitempty"`
}

// reachOf finds the [[plugin]] table of the plugin loaded from path (by
// name, or by path) in the config at cfgPath. Without a config, or with no
// table for the plugin, it reports nothing granted.
func reachOf(cfgPath, name, path string) (*reach, error) {
	r := &reach{Network: []config.NetGrant{}, Files: []config.FSGrant{}}
	if cfgPath == "" {
		return r, nil
	}
	cfg, err := config.Load(cfgPath)
	if err != nil {
		return nil, err
	}
	r.Config = cfgPath
	abs, _ := filepath.Abs(path)
	for _, p := range cfg.Plugins {
		pp := p.Path
		if !filepath.IsAbs(pp) {
			pp = filepath.Join(filepath.Dir(cfgPath), pp)
		}
		pp, _ = filepath.Abs(pp)
		if p.Name != name && pp != abs && !(p.Name == "" && lifecycle.NameFromFile(pp) == name) {
			continue
		}
		r.Network, r.Files = append(r.Network, p.Net...), append(r.Files, p.FS...)
		for k, v := range p.Config {
			if r.Guest == nil {
				r.Guest = map[string]string{}
			}
			r.Guest[k] = v.String()
		}
		break
	}
	return r, nil
}

// print writes the reach as inspect's text.
func (r *reach) print(w io.Writer) {
	if r.Config == "" {
		fmt.Fprintln(w, "reach    nothing: no --config given (grants come from [[plugin.net]] and [[plugin.fs]])")
		return
	}
	fmt.Fprintf(w, "reach    under %s\n", r.Config)
	if len(r.Network) == 0 {
		fmt.Fprintln(w, "  network: none")
	}
	for _, g := range r.Network {
		fmt.Fprintf(w, "  network: hosts %v ports %v schemes %v methods %v\n", g.Hosts, orDefault(g.Ports, "default"), orDefault(g.Schemes, "https"), orDefault(g.Methods, "default"))
	}
	if len(r.Files) == 0 {
		fmt.Fprintln(w, "  filesystem: none")
	}
	for _, g := range r.Files {
		mode := g.Mode
		if mode == "" {
			mode = "ro"
		}
		fmt.Fprintf(w, "  filesystem: %s (%s)\n", g.Path, mode)
	}
	keys := make([]string, 0, len(r.Guest))
	for k := range r.Guest {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(w, "  config: %s = %s\n", k, r.Guest[k])
	}
}

func orDefault[T any](v []T, def string) any {
	if len(v) == 0 {
		return def
	}
	return v
}
