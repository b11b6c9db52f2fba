// Package config reads mcpwasm's TOML configuration: strictly (an unknown key
// is an error naming the key and its line), with defaults for everything.
package config

import (
	"errors"
	"fmt"
	"os"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/BurntSushi/toml"
)

// Config is the whole configuration file.
type Config struct {
	Server   Server   `toml:"server"`
	Defaults Defaults `toml:"defaults"`
	Plugins  []Plugin `toml:"plugin"`
	Sources  Sources  `toml:"sources"` // oci:// and https:// plugins (sources.go)
	// File is the path the config was read from, for messages.
	File string `toml:"-"`

	defined map[string]bool // keys written in the file (definedKeys)
}

// Server holds the [server] table.
type Server struct {
	// Name is the server name reported to clients.
	Name string `toml:"name"`
	// HTTP, if set, serves Streamable HTTP on this address instead of stdio.
	HTTP string `toml:"http"`
	// Stateless selects stateless HTTP (required by 2026-07-28 clients).
	Stateless bool `toml:"stateless"`
	// StateKeyFile holds the key that signs requestState, shared by all
	// replicas behind one load balancer (see --state-key-file).
	StateKeyFile string `toml:"state_key_file"`
	// CacheDir holds compiled plugins; "off" disables the disk cache.
	CacheDir string `toml:"cache_dir"`
	// Roots are folders granted read-only to every plugin (see --root).
	Roots []string `toml:"roots"`

	// HTTP bounds (see --allowed-host, --max-sessions, --session-timeout):
	// Host headers accepted beyond loopback, live sessions, idle-session
	// expiry, connections, one request body and all bodies in flight.
	AllowedHosts    []string `toml:"allowed_hosts"`
	MaxSessions     int      `toml:"max_sessions"`
	SessionTimeout  Duration `toml:"session_timeout"`
	MaxConnections  int      `toml:"max_connections"`
	MaxBody         Size     `toml:"max_body"`
	MaxBodyInFlight Size     `toml:"max_body_in_flight"`

	// Auth and Limits: [server.auth] and [server.limits] (see auth.go).
	Auth   Auth   `toml:"auth"`
	Limits Limits `toml:"limits"`

	// Admin serves /healthz, /readyz and /metrics on this address (see
	// --admin); Audit is the [server.audit] table.
	Admin string `toml:"admin"`
	Audit Audit  `toml:"audit"`
	// Tracing is the [server.tracing] table (tracing.go).
	Tracing Tracing `toml:"tracing"`

	// Tasks is the [server.tasks] table (tasks.go).
	Tasks Tasks `toml:"tasks"`

	// Policy is the [server.policy] table (policy.go).
	Policy Policy `toml:"policy"`
}

// Defaults holds the [defaults] table: limits for plugins that set none.
type Defaults struct {
	Timeout     Duration `toml:"timeout"`
	Memory      Size     `toml:"memory"`
	MaxOutput   Size     `toml:"max_output"`
	Concurrency int      `toml:"concurrency"`
	// Isolation is where plugins run by default: "process" or
	// "in-process" (isolation.go).
	Isolation string `toml:"isolation"`
	// Trust: trust, hidden_text, results_hidden_text, secrets (trust.go).
	Trust
}

// Plugin is one [[plugin]] table.
type Plugin struct {
	// Name defaults to the file name without .wasm.
	Name string `toml:"name"`
	// Path is the .wasm file, relative to the config file's folder, or an
	// oci:// or https:// source (sources.go).
	Path string `toml:"path"`
	// SHA256 pins the file's digest; a mismatch refuses the plugin.
	// Required for an https:// path.
	SHA256 string `toml:"sha256"`
	// Verify and Keys override [sources] verify and keys for an oci:// path.
	Verify string   `toml:"verify"`
	Keys   []string `toml:"keys"`
	// Signer overrides [sources]' keyless identity for an oci:// path.
	Signer
	// Prefix exposes tools as "<plugin>_<tool>" (default true).
	Prefix *bool `toml:"prefix"`
	// Limits override [defaults].
	Timeout     Duration `toml:"timeout"`
	Memory      Size     `toml:"memory"`
	MaxOutput   Size     `toml:"max_output"`
	Concurrency int      `toml:"concurrency"`
	// Config is handed to the guest (Extism config_get); values may be
	// secrets read at load (see Value).
	Config map[string]Value `toml:"config"`
	// Net grants hosts over HTTP ([[plugin.net]] tables; see net.go);
	// without any the plugin has no network. NetMaxRequests and
	// NetMaxResponse bound one call's requests and each response body.
	Net            []NetGrant `toml:"net"`
	NetMaxRequests int        `toml:"net_max_requests"`
	NetMaxResponse Size       `toml:"net_max_response"`
	// FS grants folders to this plugin ([[plugin.fs]] tables).
	FS []FSGrant `toml:"fs"`
	// Tasks sets, by declared tool name, whether a tool runs as a task
	// ("forbidden", "optional", "required"), over what the plugin declares.
	Tasks map[string]string `toml:"tasks"`
	// Isolation overrides [defaults] isolation (isolation.go).
	Isolation string `toml:"isolation"`

	line int // the line of path in the file (Line)
	// Trust overrides [defaults]' trust, hidden_text, results_hidden_text
	// and secrets (trust.go).
	Trust
}

// FSGrant is one [[plugin.fs]] table: a folder and its access mode.
type FSGrant struct {
	// Path is the folder, relative to the config file's folder.
	Path string `toml:"path"`
	// Mode is "ro" (the default) or "rw".
	Mode string `toml:"mode"`
}

// Duration is a TOML string such as "5s" or "250ms". Parse checks it, so
// that a bad value is reported with the line of the table it is in.
type Duration struct {
	time.Duration
	set bool  // the key was given
	err error // why the text did not parse
}

// UnmarshalText parses a Go duration. A malformed one is reported by Parse.
func (d *Duration) UnmarshalText(b []byte) error {
	d.set = true
	v, err := time.ParseDuration(string(b))
	if err != nil {
		d.err = fmt.Errorf("invalid duration %q (use e.g. \"5s\" or \"500ms\")", b)
		return nil
	}
	d.Duration = v
	return nil
}

// Size is a byte count written as "64MiB", "512KiB", "1GiB" or a number.
// Parse checks it, like Duration.
type Size struct {
	Bytes uint64
	set   bool  // the key was given
	err   error // why the text did not parse
}

var sizeRE = regexp.MustCompile(`^\s*(\d+)\s*(B|KiB|MiB|GiB|KB|MB|GB|K|M|G)?\s*$`)

// ParseSize parses a size such as "64MiB".
func ParseSize(s string) (uint64, error) {
	m := sizeRE.FindStringSubmatch(s)
	if m == nil {
		return 0, fmt.Errorf("invalid size %q (use e.g. \"64MiB\")", s)
	}
	n, err := strconv.ParseUint(m[1], 10, 64)
	if err != nil {
		return 0, fmt.Errorf("invalid size %q: %v", s, err)
	}
	mult := map[string]uint64{"": 1, "B": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30,
		"K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "KB": 1000, "MB": 1000_000, "GB": 1000_000_000}[m[2]]
	if n > (1<<40)/mult {
		return 0, fmt.Errorf("size %q is too large", s)
	}
	return n * mult, nil
}

// UnmarshalText parses a size. A malformed one is reported by Parse.
func (z *Size) UnmarshalText(b []byte) error {
	z.set = true
	z.Bytes, z.err = ParseSize(string(b))
	return nil
}

// Load reads and checks a config file. A config with problems returns an
// *Error naming the file and every problem, each with its line.
func Load(path string) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	c, err := Parse(data)
	var ce *Error
	if errors.As(err, &ce) {
		ce.File = path
		return nil, ce
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	c.File = path
	c.resolvePaths()
	return c, nil
}

// Parse decodes and checks config text. Problems are returned together as
// an *Error, each with its line.
func Parse(data []byte) (*Config, error) {
	var c Config
	md, err := toml.Decode(string(data), &c)
	if err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			line := syntaxLine(data, pe.Position.Start, pe.Position.Line)
			return nil, &Error{Problems: []Problem{{Line: line, Err: errors.New(pe.Message)}}}
		}
		return nil, err
	}
	var col collector
	if und := md.Undecoded(); len(und) > 0 {
		// The first few, each with its line (a scan of the file each):
		// a file of thousands of unknown keys is refused at once.
		const show = 10
		for _, k := range und[:min(len(und), show)] {
			col.add(fmt.Errorf("unknown key %q", clipKey(k.String())), keyLine(data, k))
		}
		if len(und) > show {
			col.add(fmt.Errorf("and %d more unknown keys", len(und)-show), keyLine(data, und[show]))
		}
		return nil, col.err()
	}
	c.defined = definedKeys(md)
	c.check(data, &col)
	if err := col.err(); err != nil {
		return nil, err
	}
	return &c, nil
}

// definedKeys lists the keys written in the file, with [[plugin]] keys
// numbered by their table ("plugin.1.concurrency"), so that a value written
// as 0 is told apart from one not given.
func definedKeys(md toml.MetaData) map[string]bool {
	out := map[string]bool{}
	plugin := -1
	for _, k := range md.Keys() {
		if len(k) == 1 && k[0] == "plugin" {
			plugin++
			continue
		}
		if len(k) == 2 && k[0] == "plugin" {
			out[fmt.Sprintf("plugin.%d.%s", plugin, k[1])] = true
			continue
		}
		out[k.String()] = true
	}
	return out
}

// clipKey shortens a key for a message: a key can be as long as the file.
func clipKey(k string) string {
	if len(k) > 200 {
		return k[:200] + "…"
	}
	return k
}

// keyLine finds the line where a key's last part is assigned or opened, for
// error messages; 0 if it cannot tell.
func keyLine(data []byte, k toml.Key) int {
	if len(k) == 0 {
		return 0
	}
	last := regexp.QuoteMeta(k[len(k)-1])
	re := regexp.MustCompile(`^\s*(?:\[\[?\s*)?(?:[\w."-]+\.)?"?` + last + `"?\s*(?:=|\]|\.)`)
	for i, line := range strings.Split(string(data), "\n") {
		if re.MatchString(line) {
			return i + 1
		}
	}
	return 0
}

// check adds every problem of the decoded config to col, each with its
// line.
func (c *Config) check(data []byte, col *collector) {
	loc := locate(data)
	names := map[string]bool{}
	for i, p := range c.Plugins {
		where := fmt.Sprintf("[[plugin]] #%d", i+1)
		if p.Name != "" {
			where = fmt.Sprintf("[[plugin]] %q", p.Name)
		}
		at := func(key string) int { return loc.line("plugin", i, key) }
		if p.Path == "" {
			col.add(fmt.Errorf("%s: path is required", where), at(""))
		}
		col.add(checkLimits(data, where, "plugin", i, p.Timeout, p.Memory, p.MaxOutput, p.Concurrency,
			c.defined[fmt.Sprintf("plugin.%d.concurrency", i)]), at(""))
		if p.SHA256 != "" && !regexp.MustCompile(`^[0-9a-fA-F]{64}$`).MatchString(p.SHA256) {
			col.add(fmt.Errorf("%s: sha256 must be 64 hex digits", where), at("sha256"))
		}
		if p.Path != "" {
			col.add(checkSource(where, p), at("path"))
		}
		col.add(p.Trust.check(data, where, "plugin", i), at(""))
		col.add(checkTaskModes(data, where, i, p.Tasks), at("tasks"))
		col.add(checkIsolation(where, p.Isolation), at("isolation"))
		if p.NetMaxResponse.err != nil {
			col.add(fmt.Errorf("%s: net_max_response: %v", where, p.NetMaxResponse.err), at("net_max_response"))
		}
		if p.NetMaxRequests < 0 {
			col.add(fmt.Errorf("%s: net_max_requests: %d must be positive", where, p.NetMaxRequests), at("net_max_requests"))
		}
		for j, g := range p.FS {
			if g.Path == "" {
				col.add(fmt.Errorf("%s: [[plugin.fs]] #%d: path is required", where, j+1), loc.line("plugin", i, "fs", j))
			}
			if g.Mode != "" && g.Mode != "ro" && g.Mode != "rw" {
				col.add(fmt.Errorf("%s: [[plugin.fs]] %q: mode must be \"ro\" or \"rw\", not %q", where, g.Path, g.Mode), loc.line("plugin", i, "fs", j, "mode"))
			}
		}
		if p.Name != "" {
			if names[p.Name] {
				col.add(fmt.Errorf("%s: two plugins are named %q", where, p.Name), at("name"))
			}
			names[p.Name] = true
		}
		c.Plugins[i].line = at("path")
	}
	if c.defined["server.max_sessions"] {
		col.add(prefixed("[server] max_sessions", CheckMaxSessions(c.Server.MaxSessions)), loc.line("server", "max_sessions"))
	}
	if c.defined["server.session_timeout"] && c.Server.SessionTimeout.err == nil {
		col.add(prefixed("[server] session_timeout", CheckSessionTimeout(c.Server.SessionTimeout.Duration)), loc.line("server", "session_timeout"))
	}
	if c.Server.MaxConnections < 0 {
		col.add(fmt.Errorf("[server] max_connections: %d must be positive", c.Server.MaxConnections), loc.line("server", "max_connections"))
	}
	col.add(c.Server.checkAccess(), firstLine(loc, "server.auth.oauth", "server.auth", "server.limits", "server"))
	col.add(c.Server.Tracing.check(data), loc.line("server", "tracing"))
	col.add(c.Server.Tasks.check(data), loc.line("server", "tasks"))
	col.add(c.Server.Policy.check(), loc.line("server", "policy"))
	col.add(c.Sources.check(), loc.line("sources"))
	col.add(c.Defaults.Trust.check(data, "[defaults]", "defaults", 0), loc.line("defaults"))
	col.add(checkIsolation("[defaults]", c.Defaults.Isolation), loc.line("defaults", "isolation"))
	col.add(checkLimits(data, "[defaults]", "defaults", 0, c.Defaults.Timeout, c.Defaults.Memory, c.Defaults.MaxOutput,
		c.Defaults.Concurrency, c.defined["defaults.concurrency"]), loc.line("defaults"))
	// reflect walks this package's own Config (exported fields only).
	checkValues(data, loc, reflect.ValueOf(*c), nil, nil, col)
}

// prefixed is err with what it is about in front, or nil.
func prefixed(what string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s: %w", what, err)
}

// firstLine is the line of the first of tables (dotted paths) written.
func firstLine(loc *locator, tables ...string) int {
	for _, t := range tables {
		if n := loc.lines[t]; n > 0 {
			return n
		}
	}
	return 0
}

// Line is the line of a [[plugin]] table's path (or of the table), for
// messages about the plugin it names; 0 for a table not read from a file.
func (p Plugin) Line() int { return p.line }
