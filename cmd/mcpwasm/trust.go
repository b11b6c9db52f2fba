package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/mcpwasm/mcpwasm/host/hiddentext"
	"github.com/mcpwasm/mcpwasm/host/lifecycle"
	"github.com/mcpwasm/mcpwasm/host/registry"
	"github.com/mcpwasm/mcpwasm/host/trust"
)

// cmdTrust parses trust's flags and runs lifecycle.Trust: approve, in the
// lock file, what serve with the same config and arguments holds (or,
// with --diff, show it).
func cmdTrust(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("trust", stderr, "usage: mcpwasm trust [--diff] [--config FILE] [flags] [PLUGIN.wasm | DIR | oci://… | https://…]...")
	var (
		o       lifecycle.TrustOptions
		lf      loaderFlags
		cfgPath = fs.String("config", "", "TOML config file: approve its plugins' declarations (in mcpwasm.lock beside it)")
	)
	fs.BoolVar(&o.Diff, "diff", false, "show each declaration held (changed, field by field, or new), approve nothing; exit 1 if any")
	lf.register(fs, &o.NoPrefix, &o.LoadTimeout)
	pos, err := parseArgs(fs, args)
	if err != nil {
		return 2
	}
	var code int
	if o.Config, code = configOrArgs("trust", "nothing to approve: give --config FILE, plugin files or folders (what serve takes)", *cfgPath, pos, stderr); code != 0 {
		return code
	}
	o.Args, o.ConfigPath, o.Limits, o.Remote = pos, *cfgPath, lf.limits(), lf.options()
	return lifecycle.Trust(o, stdout, stderr)
}

// declInfo is one declaration in inspect's report: its fingerprint and
// what would stop it being served.
type declInfo struct {
	Kind        string   `json:"kind"`
	Name        string   `json:"name"`
	Fingerprint string   `json:"fingerprint"`
	HiddenText  []string `json:"hidden_text,omitempty"`
	LooksLike   string   `json:"looks_like,omitempty"`
}

// declarations fingerprints and checks everything e declares.
func declarations(e *registry.Entry) ([]declInfo, error) {
	decls, err := trust.Decls(e)
	if err != nil {
		return nil, err
	}
	out := make([]declInfo, 0, len(decls))
	for _, d := range decls {
		di := declInfo{Kind: string(d.Kind), Name: d.Name, Fingerprint: d.Print.Sum, LooksLike: d.Confusable}
		for _, f := range d.Hidden {
			di.HiddenText = append(di.HiddenText, f.String())
		}
		out = append(out, di)
	}
	return out, nil
}

// printDeclarations is inspect's text section on them.
func printDeclarations(w io.Writer, ds []declInfo) {
	fmt.Fprintln(w, "declarations (fingerprint: SHA-256 of the RFC 8785 canonical JSON served)")
	for _, d := range ds {
		fmt.Fprintf(w, "  %s %s  %s\n", d.Kind, escapeHidden(d.Name), d.Fingerprint)
		for _, f := range d.HiddenText {
			fmt.Fprintf(w, "    hidden text (not served): %s\n", escapeHidden(f))
		}
		if d.LooksLike != "" {
			fmt.Fprintf(w, "    name looks like %s (not served)\n", escapeHidden(d.LooksLike))
		}
	}
}

// escapeHidden writes s with hidden characters as \u{XXXX}, so a terminal
// shows what a model would read.
func escapeHidden(s string) string {
	var b strings.Builder
	for _, r := range s {
		if hidden(r) {
			fmt.Fprintf(&b, `\u{%04X}`, r)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

func hidden(r rune) bool { return hiddentext.Classify(r) != "" }
