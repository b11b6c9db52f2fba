package config

import (
	"strings"
	"testing"
	"time"
)

func TestTasksTable(t *testing.T) {
	c, err := Parse([]byte(`
[server.tasks]
store = "redis://10.0.0.5:6379/2"
ttl = "2h"
timeout = "30m"
per_principal = 4
max_record = "1MiB"
lease = "10s"

[[plugin]]
path = "a.wasm"
tasks = { slow = "required", quick = "forbidden" }
`))
	if err != nil {
		t.Fatal(err)
	}
	tk := c.Server.Tasks
	if tk.Store != "redis://10.0.0.5:6379/2" || tk.TTL.Duration != 2*time.Hour || tk.Timeout.Duration != 30*time.Minute ||
		tk.PerPrincipal != 4 || tk.MaxRecord.Bytes != 1<<20 || tk.Lease.Duration != 10*time.Second {
		t.Fatalf("%+v", tk)
	}
	if c.Plugins[0].Tasks["slow"] != "required" || c.Plugins[0].Tasks["quick"] != "forbidden" {
		t.Fatalf("%+v", c.Plugins[0].Tasks)
	}
}

func TestTasksTableErrors(t *testing.T) {
	for _, tc := range []struct{ toml, want string }{
		{"[server.tasks]\nstore = \"redis://nohost\"\n", "line 2: [server.tasks]: store"},
		{"[server.tasks]\nstore = \"mysql://h:1/0\"\n", "line 2: [server.tasks]: store"},
		{"[server.tasks]\nstore = \"redis://h:6379/x\"\n", "database number"},
		{"[server.tasks]\nttl = \"1m\"\ntimeout = \"2m\"\n", "line 3: [server.tasks]: timeout: 2m0s is longer than the ttl"},
		{"[server.tasks]\nlease = \"1s\"\n", "line 2: [server.tasks]: lease"},
		{"[server.tasks]\nttl = \"30d\"\n", "line 2: [server.tasks]: ttl"},
		{"[server.tasks]\nper_principal = -1\n", "per_principal"},
		{"[server.tasks]\nmax_tasks = -5\n", "line 2: [server.tasks]: max_tasks"},
		{"[server.tasks]\nmax_record = \"10\"\n", "max_record"},
		{"[server.tasks]\nstores = \"memory\"\n", "line 2: unknown key"},
		{"[[plugin]]\npath = \"a.wasm\"\n\n[[plugin]]\npath = \"b.wasm\"\ntasks = { t = \"sometimes\" }\n", `line 6: [[plugin]] #2: tasks.t is "sometimes"`},
	} {
		_, err := Parse([]byte(tc.toml))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want %q", tc.toml, err, tc.want)
		}
	}
}
