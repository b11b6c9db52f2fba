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
}

// Defaults holds the [defaults] table: limits for plugins that set none.
type Defaults struct {
	Timeout     Duration `toml:"timeout"`
	Memory      Size     `toml:"memory"`
	MaxOutput   Size     `toml:"max_output"`
	Concurrency int      `toml:"concurrency"`
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

// Load reads and checks a config file.
func Load(path string) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	c, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	c.File = path
	return c, nil
}

// Parse decodes and checks config text.
func Parse(data []byte) (*Config, error) {
	var c Config
	md, err := toml.Decode(string(data), &c)
	if err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return nil, fmt.Errorf("line %d: %s", pe.Position.Line, pe.Message)
		}
		return nil, err
	}
	if und := md.Undecoded(); len(und) > 0 {
		var msgs []string
		// The first few, each with its line (a scan of the file each):
		// a file of thousands of unknown keys is refused at once.
		const show = 10
		for _, k := range und[:min(len(und), show)] {
			msgs = append(msgs, fmt.Sprintf("line %d: unknown key %q", keyLine(data, k), clipKey(k.String())))
		}
		if len(und) > show {
			msgs = append(msgs, fmt.Sprintf("and %d more unknown keys", len(und)-show))
		}
		return nil, errors.New(strings.Join(msgs, "; "))
	}
	return &c, c.check(data)
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

func (c *Config) check(data []byte) error {
	names := map[string]bool{}
	for i, p := range c.Plugins {
		where := fmt.Sprintf("[[plugin]] #%d", i+1)
		if p.Name != "" {
			where = fmt.Sprintf("[[plugin]] %q", p.Name)
		}
		if p.Path == "" {
			return fmt.Errorf("%s: path is required", where)
		}
		if err := checkLimits(data, where, "plugin", i, p.Timeout, p.Memory, p.MaxOutput, p.Concurrency); err != nil {
			return err
		}
		if p.SHA256 != "" && !regexp.MustCompile(`^[0-9a-fA-F]{64}$`).MatchString(p.SHA256) {
			return fmt.Errorf("%s: sha256 must be 64 hex digits", where)
		}
		if err := checkSource(where, p); err != nil {
			return err
		}
		if err := p.Trust.check(data, where, "plugin", i); err != nil {
			return err
		}
		if err := checkTaskModes(data, where, i, p.Tasks); err != nil {
			return err
		}
		if p.NetMaxResponse.err != nil || p.NetMaxRequests < 0 {
			return fmt.Errorf("%s: net_max_response or net_max_requests: %v", where, errors.Join(p.NetMaxResponse.err, errors.New("must be positive")))
		}
		for j, g := range p.FS {
			if g.Path == "" {
				return fmt.Errorf("%s: [[plugin.fs]] #%d: path is required", where, j+1)
			}
			if g.Mode != "" && g.Mode != "ro" && g.Mode != "rw" {
				return fmt.Errorf("%s: [[plugin.fs]] %q: mode must be \"ro\" or \"rw\", not %q", where, g.Path, g.Mode)
			}
		}
		if p.Name != "" {
			if names[p.Name] {
				return fmt.Errorf("%s: two plugins are named %q", where, p.Name)
			}
			names[p.Name] = true
		}
	}
	if c.Server.MaxSessions < 0 || c.Server.MaxConnections < 0 {
		return errors.New("[server] max_sessions and max_connections must be positive")
	}
	if err := c.Server.checkAccess(); err != nil {
		return err
	}
	if err := c.Server.Tracing.check(data); err != nil {
		return err
	}
	if err := c.Server.Tasks.check(data); err != nil {
		return err
	}
	if err := c.Sources.check(); err != nil {
		return err
	}
	if err := c.Defaults.Trust.check(data, "[defaults]", "defaults", 0); err != nil {
		return err
	}
	if err := checkLimits(data, "[defaults]", "defaults", 0, c.Defaults.Timeout, c.Defaults.Memory, c.Defaults.MaxOutput, c.Defaults.Concurrency); err != nil {
		return err
	}
	return checkValues(data, reflect.ValueOf(*c), nil, "", false)
}
