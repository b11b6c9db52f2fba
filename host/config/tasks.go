package config

import (
	"fmt"
	"net/url"
	"strings"
	"time"
)

// Tasks holds the [server.tasks] table: MCP's io.modelcontextprotocol/tasks
// extension (see --task-store). Zero values take the defaults.
type Tasks struct {
	// Disabled turns tasks off: the extension is not advertised and every
	// tool is called as a plain call.
	Disabled bool `toml:"disabled"`
	// Store is "memory" (the default: one process) or
	// "redis://[user:password@]HOST:PORT/DB" (replicas share tasks).
	Store string `toml:"store"`
	// TTL is every task's ttlMs (default 1h, at most 7 days); Timeout
	// bounds a task's run (default 10m, at most the TTL).
	TTL     Duration `toml:"ttl"`
	Timeout Duration `toml:"timeout"`
	// PerPrincipal bounds the live tasks of one principal (default 16).
	PerPrincipal int `toml:"per_principal"`
	// MaxRecord bounds one stored task, its result included (default 4MiB).
	MaxRecord Size `toml:"max_record"`
	// MaxTasks bounds the tasks the memory store keeps, finished ones
	// included until their ttl (default 10000). Redis is bounded by its
	// own maxmemory.
	MaxTasks int `toml:"max_tasks"`
	// Lease is how long a replica's claim on a running task lasts unless
	// renewed (default 15s, 3s to 5m).
	Lease Duration `toml:"lease"`
}

// Task bounds.
const (
	MaxTaskTTL = 7 * 24 * time.Hour
	MinLease   = 3 * time.Second
	MaxLease   = 5 * time.Minute
)

// CheckTaskStore checks a task store address: "memory" or a redis:// URL
// with a host, a port and at most a database number as its path.
func CheckTaskStore(s string) error {
	if s == "" || s == "memory" {
		return nil
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "redis" && u.Scheme != "rediss") || u.Host == "" || u.Port() == "" {
		return fmt.Errorf("%q: want \"memory\" or redis://HOST:PORT/DB", s)
	}
	if db := strings.TrimPrefix(u.Path, "/"); db != "" {
		var n int
		if _, err := fmt.Sscanf(db, "%d", &n); err != nil || fmt.Sprint(n) != db || n < 0 {
			return fmt.Errorf("%q: the path must be a database number", s)
		}
	}
	return nil
}

func (t Tasks) check(data []byte) error {
	fail := func(key string, err error) error {
		if line := valueLine(data, "server.tasks", 0, key); line > 0 {
			return fmt.Errorf("line %d: [server.tasks]: %s: %v", line, key, err)
		}
		return fmt.Errorf("[server.tasks]: %s: %v", key, err)
	}
	if err := CheckTaskStore(t.Store); err != nil {
		return fail("store", err)
	}
	for _, d := range []struct {
		key      string
		v        Duration
		min, max time.Duration
	}{{"ttl", t.TTL, time.Second, MaxTaskTTL}, {"timeout", t.Timeout, 100 * time.Millisecond, MaxTaskTTL}, {"lease", t.Lease, MinLease, MaxLease}} {
		if !d.v.set {
			continue
		}
		if d.v.err != nil {
			return fail(d.key, d.v.err)
		}
		if d.v.Duration < d.min || d.v.Duration > d.max {
			return fail(d.key, fmt.Errorf("%v is out of range (%v to %v)", d.v.Duration, d.min, d.max))
		}
	}
	if t.TTL.set && t.Timeout.set && t.Timeout.Duration > t.TTL.Duration {
		return fail("timeout", fmt.Errorf("%v is longer than the ttl (%v): a task could outlive its record", t.Timeout.Duration, t.TTL.Duration))
	}
	if t.MaxTasks < 0 || t.MaxTasks > 10000000 {
		return fail("max_tasks", fmt.Errorf("%d is out of range (1 to 10000000)", t.MaxTasks))
	}
	if t.PerPrincipal < 0 || t.PerPrincipal > 100000 {
		return fail("per_principal", fmt.Errorf("%d is out of range (1 to 100000)", t.PerPrincipal))
	}
	if t.MaxRecord.set {
		if t.MaxRecord.err != nil {
			return fail("max_record", t.MaxRecord.err)
		}
		if t.MaxRecord.Bytes < 4096 || t.MaxRecord.Bytes > 512<<20 {
			return fail("max_record", fmt.Errorf("%d bytes is out of range (4KiB to 512MiB)", t.MaxRecord.Bytes))
		}
	}
	return nil
}

// checkTaskModes checks a [[plugin]] table's tasks map: tool name to
// "forbidden", "optional" or "required".
func checkTaskModes(data []byte, where string, index int, modes map[string]string) error {
	for tool, m := range modes {
		if m != "forbidden" && m != "optional" && m != "required" {
			err := fmt.Errorf("%s: tasks.%s is %q; want \"forbidden\", \"optional\" or \"required\"", where, clipKey(tool), clipKey(m))
			if line := valueLine(data, "plugin", index, "tasks"); line > 0 {
				return fmt.Errorf("line %d: %v", line, err)
			}
			if line := valueLine(data, "plugin.tasks", index, tool); line > 0 {
				return fmt.Errorf("line %d: %v", line, err)
			}
			return err
		}
	}
	return nil
}
