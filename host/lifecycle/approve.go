package lifecycle

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"sort"
	"strings"
	"time"

	"github.com/mcpwasm/mcpwasm/host/config"
	"github.com/mcpwasm/mcpwasm/host/fingerprint"
	"github.com/mcpwasm/mcpwasm/host/hiddentext"
	"github.com/mcpwasm/mcpwasm/host/trust"
)

// TrustOptions are the trust command's flags.
type TrustOptions struct {
	// Args, Config, ConfigPath, Limits, Remote, NoPrefix and LoadTimeout
	// are as for serve: the plugins approved are those serve would load.
	Args        []string
	ConfigPath  string
	Config      *config.Config
	Limits      Limits
	Remote      RemoteOptions
	NoPrefix    bool
	LoadTimeout time.Duration
	// Diff shows what is held, field by field, and approves nothing.
	Diff bool
}

// Trust loads the plugins serve would, as serve does, and records every
// declaration of theirs (but those with hidden text or a confusable name,
// which are never served) as approved in the lock file; with Diff it
// prints each declaration the lock file does not approve instead. It
// returns 0; 1 when a plugin did not load or, with Diff, when something
// is held; 2 for a usage error.
func Trust(o TrustOptions, stdout, stderr io.Writer) int {
	fail := func(err error) { fmt.Fprintln(stderr, "mcpwasm trust:", err) }
	cfg := o.Config
	base, err := o.Limits.Defaults(cfg)
	if err != nil {
		fail(err)
		return 2
	}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	fetch := NewFetcher(context.Background(), o.Remote, cfg, logger)
	fetch.DryRun = o.Diff
	specs, problems := Collect(o.Args, cfg, base, o.NoPrefix, fetch)
	for _, p := range problems {
		fail(p)
	}
	lock, err := fetch.Lock()
	if err != nil {
		fail(err)
		return 1
	}
	approved, err := trust.ParseLines(lock.Decls())
	if err != nil {
		fail(err)
		return 1
	}
	c, err := Open(&o.Limits, slog.New(slog.DiscardHandler))
	if err != nil {
		fail(err)
		return 1
	}
	defer c.Close(time.Minute)
	ctx, cancel := context.WithTimeout(context.Background(), o.LoadTimeout)
	defer cancel()
	bad := len(problems)
	for _, err := range c.loadRanked(ctx, specs, o.LoadTimeout) {
		fail(err)
		bad++
	}
	mode := map[string]string{}
	for _, s := range specs {
		mode[s.Config.Name] = s.Trust.Trust
	}
	held := 0
	for _, p := range c.reg.Plugins() {
		e, _, _ := c.reg.Entry(p)
		name := p.Name()
		if mode[name] == "off" {
			fmt.Fprintf(stdout, "%s: trust = \"off\": its declarations are served as they are, nothing to approve\n", name)
			continue
		}
		decls, err := trust.Decls(e)
		if err != nil {
			fail(err)
			bad++
			continue
		}
		d := diff(name, decls, recordKey(o.ConfigPath).Lookup(approved, p))
		held += d.held
		if o.Diff {
			d.print(stdout)
			continue
		}
		if d.held == 0 && d.removed == 0 {
			fmt.Fprintf(stdout, "%s: %d declarations, all approved already\n", name, len(decls)-d.refused)
			continue
		}
		if _, err := trust.Approve(lock, e, recordKey(o.ConfigPath)); err != nil {
			fail(err)
			bad++
			continue
		}
		fmt.Fprintf(stdout, "%s: approved %d declarations (%d changed or new, %d no longer declared) in %s\n",
			name, len(decls)-d.refused, d.held, d.removed, lock.Path())
		for _, r := range d.refusals {
			fmt.Fprintf(stdout, "  not approved (never served): %s\n", r)
		}
	}
	switch {
	case bad > 0:
		return 1
	case o.Diff && held > 0:
		return 1
	}
	if !o.Diff && held > 0 {
		fmt.Fprintln(stdout, "a running server serves the approved declarations once it reloads (it watches the lock file; or send SIGHUP)")
	}
	return 0
}

// planDiff is what the lock file says about one plugin's declarations.
type planDiff struct {
	plugin   string
	lines    []string // what --diff prints
	held     int      // changed or new
	removed  int      // approved, no longer declared
	refused  int      // hidden text, confusable: never served
	refusals []string
}

func diff(plugin string, decls []trust.Decl, approved trust.Approved) planDiff {
	d := planDiff{plugin: plugin}
	seen := map[trust.Key]bool{}
	for _, x := range decls {
		seen[x.Key] = true
		if why := refusalOf(x); why != "" {
			d.refused++
			d.refusals = append(d.refusals, fmt.Sprintf("%s: %s", x.Key, why))
			d.lines = append(d.lines, fmt.Sprintf("%s %s: refused, never served: %s", plugin, x.Key, why))
			continue
		}
		old, ok := approved[x.Key]
		switch {
		case ok && old.Sum == x.Print.Sum:
			continue
		case ok:
			changed := fingerprint.Changed(old, x.Print)
			d.lines = append(d.lines, fmt.Sprintf("%s %s: changed: %s", plugin, x.Key, strings.Join(changed, ", ")))
			d.lines = append(d.lines, fieldLines(x.JSON, changed, old)...)
		default:
			d.lines = append(d.lines, fmt.Sprintf("%s %s: new", plugin, x.Key))
			d.lines = append(d.lines, "    "+clipValue(x.JSON))
		}
		d.held++
	}
	var gone []string
	for k := range approved {
		if !seen[k] {
			gone = append(gone, fmt.Sprintf("%s %s: approved, no longer declared", plugin, k))
			d.removed++
		}
	}
	sort.Strings(gone)
	d.lines = append(d.lines, gone...)
	return d
}

// refusalOf says why x is never served (hidden text, a confusable name).
func refusalOf(x trust.Decl) string {
	var parts []string
	for _, f := range x.Hidden {
		parts = append(parts, f.String())
	}
	if x.Confusable != "" {
		parts = append(parts, fmt.Sprintf("name looks like %q", x.Confusable))
	}
	return strings.Join(parts, "; ")
}

// fieldLines shows each changed field's value now and its approved sum
// (the lock file keeps sums, not the approved text).
func fieldLines(raw []byte, fields []string, old fingerprint.Print) []string {
	var m map[string]json.RawMessage
	json.Unmarshal(raw, &m) //nolint:errcheck // it was encoded by Decls
	var out []string
	for _, f := range fields {
		was := old.Fields[f]
		if was == "" {
			was = "absent"
		}
		now := "absent"
		if v, ok := m[f]; ok {
			now = clipValue(v)
		}
		out = append(out, fmt.Sprintf("    %s (approved sum %s) now: %s", f, was, now))
	}
	return out
}

// clipValue prints a JSON value on one line, at most 400 bytes, with
// every hidden character written as \u{XXXX}: nothing a terminal would
// hide or reorder reaches it.
func clipValue(v []byte) string {
	var b strings.Builder
	for _, r := range strings.ToValidUTF8(string(v), "\uFFFD") {
		if b.Len() >= 400 {
			b.WriteString("…")
			break
		}
		if hiddentext.Classify(r) != "" {
			fmt.Fprintf(&b, "\\u{%04X}", r)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

func (d planDiff) print(w io.Writer) {
	if len(d.lines) == 0 {
		fmt.Fprintf(w, "%s: nothing held\n", d.plugin)
		return
	}
	for _, l := range d.lines {
		fmt.Fprintln(w, l)
	}
}

// trustWarnings says, for validate, what serve would not serve of the
// plugins loaded: declarations the lock file does not approve (held), and
// those with hidden text or a confusable name (refused).
func trustWarnings(c *Catalog, specs []Spec, fetch *Fetcher, configPath string, args []string) []string {
	lock, err := fetch.Lock()
	if err != nil {
		return []string{fmt.Sprintf("declarations not checked against the lock file: %v", err)}
	}
	approved, err := trust.ParseLines(lock.Decls())
	if err != nil {
		return []string{err.Error()}
	}
	mode := map[string]string{}
	for _, s := range specs {
		mode[s.Config.Name] = s.Trust.Trust
	}
	var out []string
	for _, p := range c.reg.Plugins() {
		e, _, _ := c.reg.Entry(p)
		decls, err := trust.Decls(e)
		if err != nil {
			out = append(out, err.Error())
			continue
		}
		had := recordKey(configPath).Lookup(approved, p)
		d := diff(p.Name(), decls, had)
		for _, r := range d.refusals {
			out = append(out, fmt.Sprintf("plugin %q: %s: refused, never served", p.Name(), r))
		}
		switch {
		case mode[p.Name()] == "off" || d.held == 0:
		case had == nil && mode[p.Name()] == "tofu":
			out = append(out, fmt.Sprintf("plugin %q: never served before: serve records its %d declarations (trust = \"tofu\")", p.Name(), d.held))
		default:
			out = append(out, fmt.Sprintf("plugin %q: %d declarations would be held (changed or new): %s --diff", p.Name(), d.held,
				ApproveCommand(configPath, args)))
		}
	}
	return out
}
