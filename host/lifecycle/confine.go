package lifecycle

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/mcpwasm/mcpwasm/host/config"
	"github.com/mcpwasm/mcpwasm/host/confine"
	"github.com/mcpwasm/mcpwasm/host/plugin"
	"github.com/mcpwasm/mcpwasm/host/source"
	"github.com/mcpwasm/mcpwasm/host/source/store"
)

// confineInputs is what serve and validate know that the confinement
// policy derives from.
type confineInputs struct {
	cfg      *config.Config
	args     []string // plugin files and folders given as arguments
	specs    []Spec
	roots    []string // --root
	cacheDir string   // --cache-dir / [server] cache_dir ("" default, "off")
	storeDir string   // --store
	audit    string   // the audit log file, or ""
	traces   string   // the trace collector's URL, or ""
	listen   []string // addresses serve listens on
	tasks    string   // the task store: "", "memory" or redis://HOST:PORT/DB
}

// confinePolicy is what the process may still do once confined: read its
// plugins, its config's folder and the secrets it names; write the
// writable granted folders, the compile cache, the plugin store and the
// audit log; listen on its addresses; connect to the ports the plugins'
// network grants, the registries, the JWKS, the task store and the trace
// collector need.
func confinePolicy(in confineInputs) confine.Policy {
	var p confine.Policy
	ro := func(paths ...string) {
		for _, path := range paths {
			if path != "" {
				p.ReadOnly = append(p.ReadOnly, absPath(path))
			}
		}
	}
	rw := func(paths ...string) {
		for _, path := range paths {
			if path != "" {
				p.ReadWrite = append(p.ReadWrite, absPath(path))
			}
		}
	}
	ports := map[uint16]bool{}
	connect := func(port int) { ports[uint16(port)] = true }
	// The config's folder, not the file: editors and Kubernetes ConfigMaps
	// replace the file, and a rule on it would not follow the new one.
	// Relative paths in the config (plugins, secrets, keys) are there too.
	if in.cfg.File != "" {
		ro(filepath.Dir(in.cfg.File))
	}
	// A plugin file's folder, not the file, for the same reason: a deploy
	// renames a new file over the old one (fileFolders).
	for _, a := range in.args {
		if !source.IsRemote(a) {
			ro(fileFolders(a)...)
		}
	}
	ro(in.roots...)
	ro(in.cfg.Server.Roots...)
	// The policy files' folders, read again at each reload (policy.go).
	for f := range policyFiles(in.cfg) {
		ro(filepath.Dir(f))
	}
	ro(in.cfg.Server.StateKeyFile, in.cfg.Server.Auth.TokensFile, in.cfg.Sources.TrustedRoot)
	for _, k := range in.cfg.Sources.Keys {
		ro(k)
	}
	for _, s := range in.specs {
		if s.Config.Source != "" && !source.IsRemote(s.Config.Source) && !isBuiltin(s.Config.Source) {
			ro(fileFolders(s.Config.Source)...)
		}
		for _, g := range s.Config.Grants {
			if g.ReadOnly {
				ro(g.Path)
			} else {
				rw(g.Path)
			}
		}
		for _, g := range s.Config.Network.Grants {
			for _, port := range g.ReachablePorts() {
				connect(port)
			}
		}
	}
	for _, pl := range in.cfg.Plugins {
		for _, k := range pl.Keys {
			ro(k)
		}
		for _, v := range pl.Config {
			ro(v.File)
		}
		if source.IsRemote(pl.Path) {
			connectURL(pl.Path, connect)
		}
	}
	remote := false
	for _, a := range in.args {
		if source.IsRemote(a) {
			remote = true
			connectURL(a, connect)
		}
	}
	for _, pl := range in.cfg.Plugins {
		remote = remote || source.IsRemote(pl.Path)
	}
	// The lock file records the declarations of a plugin first served
	// under trust = "tofu" (a plugin added by a reload included).
	pins := false
	for _, sp := range in.specs {
		pins = pins || sp.Trust.Trust == "tofu"
	}
	if pins && !remote {
		if in.cfg.File != "" {
			rw(source.LockFor(in.cfg.File))
		} else if dir := in.storeDir; dir != "" {
			rw(dir)
		} else {
			rw(store.DefaultDir())
		}
	}
	if remote {
		dir := in.storeDir
		if dir == "" {
			dir = in.cfg.Sources.Store
		}
		if dir == "" {
			dir = store.DefaultDir()
		}
		rw(dir)
		if in.cfg.File != "" {
			rw(source.LockFor(in.cfg.File))
		}
		connect(443) // keyless verification reaches Sigstore over https
	}
	switch in.cacheDir {
	case "off":
	case "":
		rw(plugin.DefaultCacheDir())
	default:
		rw(in.cacheDir)
	}
	if in.audit != "" && in.audit != "-" {
		rw(in.audit)
		if dir, shared := auditFolder(in.audit, p.ReadOnly); shared == "" {
			p.CreateFiles = append(p.CreateFiles, dir) // reopened after rotation (ops.reopen)
		}
	}
	if o := in.cfg.Server.Auth.OAuth; o != nil {
		connectURL(o.JWKSURL, connect)
	}
	if u, err := url.Parse(in.tasks); err == nil && (u.Scheme == "redis" || u.Scheme == "rediss") && u.Host != "" {
		port := 6379 // the store opens new connections while serving
		if n, err := strconv.Atoi(u.Port()); err == nil {
			port = n
		}
		connect(port)
	}
	connectURL(in.traces, connect) // the OTLP collector ([server.tracing], OTEL_*)
	for _, addr := range in.listen {
		if addr == "" {
			continue
		}
		_, port, err := net.SplitHostPort(addr)
		if err != nil {
			port = addr
		}
		if n, err := net.LookupPort("tcp", port); err == nil {
			p.BindTCP = append(p.BindTCP, uint16(n))
		}
	}
	if len(ports) > 0 {
		ports[53] = true // DNS answers too long for UDP come over TCP
		// Registries and the JWKS are fetched through the environment's
		// proxy, when there is one.
		for _, env := range []string{"HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy"} {
			connectURL(os.Getenv(env), connect)
		}
	}
	for port := range ports {
		p.ConnectTCP = append(p.ConnectTCP, port)
	}
	return p
}

// auditFolder is the audit log's folder, where the file is created again
// after rotation: under confinement that needs the right to create and
// write files there, which covers every file in the folder. It is not
// given when the folder holds a path the server reads (readOnly, the
// runtime's files: the config, a plugin, a secret, /etc): shared names the
// first such path, and the audit log then cannot be reopened after
// rotation (the server keeps writing to the file it has open).
func auditFolder(audit string, readOnly []string) (dir, shared string) {
	dir = filepath.Dir(absPath(audit))
	for _, ro := range append(append([]string(nil), readOnly...), confine.RuntimePaths()...) {
		if ro == dir || strings.HasPrefix(ro, strings.TrimSuffix(dir, "/")+"/") {
			return dir, ro
		}
	}
	return dir, ""
}

// connectURL adds the port of an oci://, https:// or http:// address.
func connectURL(raw string, connect func(int)) {
	if raw != "" && !strings.Contains(raw, "://") {
		raw = "http://" + raw // a proxy given as host:port
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return
	}
	if port := u.Port(); port != "" {
		if n, err := strconv.Atoi(port); err == nil {
			connect(n)
		}
		return
	}
	if u.Scheme == "http" {
		connect(80)
		return
	}
	connect(443)
}

// fileFolders is what a read-only rule for path covers so that path stays
// readable after it is replaced by rename: a folder is itself; a file is
// its folder and, when path is a link, the folder of its target too (a
// Landlock rule is on an inode: a rule on the file would follow the old
// one). A ConfigMap's NAME -> ..data/NAME link resolves below the same
// folder, so a swap of ..data stays inside the rule.
func fileFolders(path string) []string {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return []string{path}
	}
	out := []string{filepath.Dir(absPath(path))}
	if target, err := filepath.EvalSymlinks(path); err == nil && filepath.Dir(target) != out[0] {
		out = append(out, filepath.Dir(target))
	}
	return out
}

func isBuiltin(src string) bool { return len(src) > 9 && src[:9] == "built-in " }

// applyConfinement confines the process per mode and logs what was
// enforced, and once what the kernel could not. It returns the policy in
// force (the zero Policy and false when nothing was applied).
func applyConfinement(mode confine.Mode, p confine.Policy, logger *slog.Logger) (confine.Report, error) {
	r, err := confine.Apply(p, mode)
	if err != nil {
		return r, err
	}
	if mode == confine.Off {
		logger.Warn("confinement off (--confine=off): a sandbox escape would reach everything this user can")
		return r, nil
	}
	logger.Info("process confined", "enforced", r.String(), "landlock_abi", r.LandlockABI,
		"read_only", len(p.ReadOnly), "read_write", len(p.ReadWrite), "bind_tcp", p.BindTCP, "connect_tcp", p.ConnectTCP)
	for _, m := range r.Missing {
		logger.Warn("confinement: not enforced by this kernel", "what", m)
	}
	return r, nil
}

// ifOn returns the inputs the confinement in force was built from, or nil
// when mode is off (a reload then has nothing to check).
func (in confineInputs) ifOn(mode confine.Mode) *confineInputs {
	if mode == confine.Off {
		return nil
	}
	return &in
}

// restartNeeded logs, once each, what a reload needs that the confinement
// in force does not allow — a path outside its rules, a new port — and
// the files a reload could not read because of it: confinement cannot be
// widened, so these take effect at the next start.
func (r *reloader) restartNeeded(cfg *config.Config, specs []Spec, problems []error) {
	if r.walls == nil {
		return
	}
	if r.said == nil {
		r.said = map[string]bool{}
	}
	say := func(what string) {
		if !r.said[what] {
			r.said[what] = true
			r.c.logger.Warn("restart needed: the confinement in force does not allow it", "needs", what)
		}
	}
	now := *r.walls
	now.cfg, now.specs = cfg, specs
	for _, what := range confinePolicy(*r.walls).Lacks(confinePolicy(now)) {
		say(what)
	}
	for _, err := range problems {
		var pe *fs.PathError
		if errors.As(err, &pe) && errors.Is(err, fs.ErrPermission) {
			if target, err := filepath.EvalSymlinks(pe.Path); err == nil && target != pe.Path {
				say("read " + target + " (link " + pe.Path + ")")
			} else {
				say("read " + pe.Path)
			}
		}
	}
}

// confineForCheck prepares validate --confine's attempts and confines the
// process as serve would with the same config and plugins.
func confineForCheck(args []string, cfg *config.Config, specs []Spec, roots []string, cacheDir, storeDir string,
	httpAddr string, of OpsOptions, stdout, stderr io.Writer) (*confine.Check, error) {
	audit, flagged := of.AuditLog, of.AuditLog != ""
	if !flagged {
		audit = cfg.Server.Audit.File
	}
	if httpAddr == "" {
		httpAddr = cfg.Server.HTTP
	}
	admin := of.Admin
	if admin == "" {
		admin = cfg.Server.Admin
	}
	p := confinePolicy(confineInputs{cfg: cfg, args: args, specs: specs, roots: roots, cacheDir: cacheDir, // the runtime's
		storeDir: storeDir, audit: audit, listen: []string{httpAddr, admin}})
	check, err := confine.PrepareCheck(p, pluginFolder(args, specs))
	if err != nil {
		return nil, fmt.Errorf("confinement check: %w", err)
	}
	r, err := confine.Apply(p, confine.Auto)
	if err != nil {
		check.Close()
		return nil, err
	}
	fmt.Fprintf(stdout, "confined: %s (Landlock ABI %d)\n", r, r.LandlockABI)
	for _, m := range r.Missing {
		fmt.Fprintf(stderr, "mcpwasm validate: confinement: not enforced by this kernel: %s\n", m)
	}
	check.Report = r
	return check, nil
}

// pluginFolder is the folder the write attempt targets: the first folder
// argument, else the folder of the first plugin file.
func pluginFolder(args []string, specs []Spec) string {
	for _, a := range args {
		if st, err := os.Stat(a); err == nil && st.IsDir() {
			return absPath(a)
		}
	}
	for _, s := range specs {
		if s.Config.Source != "" && !source.IsRemote(s.Config.Source) && !isBuiltin(s.Config.Source) {
			return filepath.Dir(absPath(s.Config.Source))
		}
	}
	return ""
}

// runCheck makes the attempts and prints one line each; true if every
// attempt was refused by the wall that should refuse it.
func runCheck(c *confine.Check, stdout, stderr io.Writer) bool {
	ok := true
	for _, a := range c.Run() {
		fmt.Fprintln(stdout, a)
		ok = ok && a.Refused
	}
	if !ok {
		fmt.Fprintln(stderr, "mcpwasm validate: confinement check failed: an attempt was not refused (FAILED lines)")
	}
	return ok
}
