package config

import (
	"strings"
	"testing"
	"time"
)

func TestParse(t *testing.T) {
	c, err := Parse([]byte(`
[server]
name = "tools"
http = "127.0.0.1:9000"

[defaults]
timeout = "2s"
memory = "32MiB"
concurrency = 4

[[plugin]]
name = "text"
path = "text.wasm"
prefix = false
memory = "8MiB"
[plugin.config]
greeting = "hi"
`))
	if err != nil {
		t.Fatal(err)
	}
	if c.Server.Name != "tools" || c.Defaults.Timeout.Duration != 2*time.Second || c.Defaults.Memory.Bytes != 32<<20 ||
		len(c.Plugins) != 1 || *c.Plugins[0].Prefix || c.Plugins[0].Memory.Bytes != 8<<20 || c.Plugins[0].Config["greeting"].Literal != "hi" {
		t.Fatalf("parsed %+v", c)
	}
}

func TestParseErrors(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"[server]\nnmae = \"x\"\n", `line 2: unknown key "server.nmae"`},
		{"[[plugin]]\npath = \"a.wasm\"\nsha265 = \"x\"\n", `line 3: unknown key "plugin.sha265"`},
		{"[defaults]\ntimeout = \"soon\"\n", `line 2`},
		{"[defaults]\nmemory = \"lots\"\n", `invalid size "lots"`},
		{"[[plugin]]\nname = \"x\"\n", `path is required`},
		{"[[plugin]]\npath = \"a.wasm\"\nsha256 = \"abc\"\n", `sha256 must be 64 hex digits`},
		{"[[plugin]]\nname = \"a\"\npath = \"a.wasm\"\n[[plugin]]\nname = \"a\"\npath = \"b.wasm\"\n", `two plugins are named "a"`},
		{"[server\n", "to end table name"},
	} {
		_, err := Parse([]byte(c.in))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Parse(%q) = %v; want an error containing %q", c.in, err, c.want)
		}
	}
}

func TestParseSize(t *testing.T) {
	for in, want := range map[string]uint64{"64MiB": 64 << 20, "512KiB": 512 << 10, "1GiB": 1 << 30, "100": 100, "2M": 2 << 20, "1MB": 1000000} {
		if got, err := ParseSize(in); err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "-1MiB", "1.5MiB", "1TiB", "99999999999GiB"} {
		if _, err := ParseSize(in); err == nil {
			t.Errorf("ParseSize(%q) succeeded", in)
		}
	}
}
