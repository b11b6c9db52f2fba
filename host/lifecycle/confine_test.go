package lifecycle

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/mcpwasm/mcpwasm/host/config"
	"github.com/mcpwasm/mcpwasm/host/netguard"
	"github.com/mcpwasm/mcpwasm/host/plugin"
)

// TestConfinePolicy: the policy serve derives from its config: the
// config's folder and plugins readable, writable grants and the cache
// writable, bind on the listen ports, connect only to what grants,
// registries and the JWKS need (and DNS over TCP).
func TestConfinePolicy(t *testing.T) {
	dir := t.TempDir()
	cfgFile := filepath.Join(dir, "mcpwasm.toml")
	toml := `[server.auth]
resource = "https://mcp.example"

[server.auth.oauth]
issuer = "https://issuer.example"
jwks_url = "https://issuer.example:8444/jwks"

[[plugin]]
path = "oci://registry.example:5000/acme/tool:1.0"

[[plugin]]
path = "echo.wasm"
[[plugin.net]]
hosts = ["api.example.com"]
[[plugin.net]]
hosts = ["10.0.0.1"]
ports = [6379]
schemes = ["http"]
`
	if err := os.WriteFile(cfgFile, []byte(toml), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(cfgFile)
	if err != nil {
		t.Fatal(err)
	}
	rwDir := t.TempDir()
	s := Spec{Config: plugin.Config{Source: filepath.Join(dir, "echo.wasm"), Grants: []plugin.Grant{{Path: rwDir}}}}
	s.Config.Network.Grants = []netguard.Grant{{Hosts: []string{"api.example.com"}}, {Hosts: []string{"10.0.0.1"}, Ports: []int{6379}, Schemes: []string{"http"}}}
	cache := t.TempDir()
	p := confinePolicy(confineInputs{cfg: cfg, specs: []Spec{s}, cacheDir: cache, storeDir: filepath.Join(dir, "store"),
		listen: []string{"127.0.0.1:8080", "", ":9090"}})
	for _, c := range []struct {
		path  string
		write bool
		want  bool
	}{
		{filepath.Join(dir, "new.toml"), false, true},
		{filepath.Join(dir, "echo.wasm"), true, false},
		{filepath.Join(rwDir, "out.txt"), true, true},
		{filepath.Join(cache, "x"), true, true},
		{filepath.Join(dir, "store", "blob"), true, true},
		{"/etc/passwd", false, false},
	} {
		if got := p.Allows(c.path, c.write); got != c.want {
			t.Errorf("Allows(%s, write=%v) = %v, want %v", c.path, c.write, got, c.want)
		}
	}
	slices.Sort(p.ConnectTCP)
	if want := []uint16{53, 443, 5000, 6379, 8444}; !slices.Equal(p.ConnectTCP, want) {
		t.Errorf("ConnectTCP = %v, want %v", p.ConnectTCP, want)
	}
	if want := []uint16{8080, 9090}; !slices.Equal(p.BindTCP, want) {
		t.Errorf("BindTCP = %v, want %v", p.BindTCP, want)
	}
	// Policy files elsewhere: their folder stays readable for reloads.
	polDir := t.TempDir()
	pc := *cfg
	pc.Server.Policy.Files = []string{filepath.Join(polDir, "p.cedar")}
	pp := confinePolicy(confineInputs{cfg: &pc, cacheDir: "off"})
	if !pp.Allows(filepath.Join(polDir, "new.cedar"), false) || pp.Allows(filepath.Join(polDir, "new.cedar"), true) {
		t.Error("the policy folder is not readable, or writable, under confinement")
	}
	// A trace collector: its port, and DNS.
	traced := confinePolicy(confineInputs{cfg: &config.Config{}, cacheDir: "off", traces: "http://collector:4318/v1/traces"})
	if slices.Sort(traced.ConnectTCP); !slices.Equal(traced.ConnectTCP, []uint16{53, 4318}) {
		t.Errorf("tracing: ConnectTCP = %v, want [53 4318]", traced.ConnectTCP)
	}
	// The Redis task store opens connections while serving: its port (6379
	// when none is given) stays connectable; the memory store needs none.
	for store, want := range map[string][]uint16{"redis://tasks.internal:7000/0": {53, 7000}, "redis://tasks.internal/2": {53, 6379}, "memory": nil} {
		tp := confinePolicy(confineInputs{cfg: &config.Config{}, cacheDir: "off", tasks: store})
		slices.Sort(tp.ConnectTCP)
		if !slices.Equal(tp.ConnectTCP, want) {
			t.Errorf("task store %s: ConnectTCP = %v, want %v", store, tp.ConnectTCP, want)
		}
	}
	// Nothing to reach: no TCP connect at all.
	bare := confinePolicy(confineInputs{cfg: &config.Config{}, cacheDir: "off"})
	if len(bare.ConnectTCP) != 0 || bare.ConnectAnyTCP {
		t.Errorf("a server reaching nothing may connect to %v (any: %v)", bare.ConnectTCP, bare.ConnectAnyTCP)
	}
}

// TestAuditFolderPolicy: the audit log's folder may have files created and
// written in it (the log is created again after rotation), not read; unless
// the folder holds something the server reads (here the config), which
// that right would let a compromised process rewrite: then only the file
// itself is writable.
func TestAuditFolderPolicy(t *testing.T) {
	dir, logs := t.TempDir(), t.TempDir()
	cfgFile := filepath.Join(dir, "mcpwasm.toml")
	if err := os.WriteFile(cfgFile, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := &config.Config{File: cfgFile}
	own := confinePolicy(confineInputs{cfg: cfg, cacheDir: "off", audit: filepath.Join(logs, "audit.log")})
	if !slices.Equal(own.CreateFiles, []string{logs}) {
		t.Fatalf("audit log in a folder of its own: CreateFiles = %v, want [%s]", own.CreateFiles, logs)
	}
	if !own.Allows(filepath.Join(logs, "audit.log"), true) || own.Allows(filepath.Join(logs, "other"), false) {
		t.Fatalf("the audit folder: a new audit.log must be writable, its files not readable")
	}
	shared := confinePolicy(confineInputs{cfg: cfg, cacheDir: "off", audit: filepath.Join(dir, "audit.log")})
	if len(shared.CreateFiles) != 0 || shared.Allows(cfgFile, true) {
		t.Fatalf("audit log beside the config: CreateFiles = %v, config writable %v", shared.CreateFiles, shared.Allows(cfgFile, true))
	}
	if _, by := auditFolder("/etc/mcpwasm-audit.log", nil); by == "" {
		t.Fatal("an audit log in /etc would make /etc writable")
	}
}
