package config

import (
	"strings"
	"testing"
)

func TestSourcesConfig(t *testing.T) {
	sum := strings.Repeat("ab", 32)
	c, err := Parse([]byte(`
[sources]
verify = "required"
keys = ["keys/cosign.pub"]
max_size = "32MiB"
timeout = "30s"
store = "/var/cache/mcpwasm"

[[plugin]]
path = "oci://ghcr.io/acme/textkit:1.0"
verify = "off"

[[plugin]]
path = "https://example.com/a.wasm"
sha256 = "` + sum + `"

[[plugin]]
path = "https://example.com/b.wasm#sha256=` + sum + `"
`))
	if err != nil {
		t.Fatal(err)
	}
	if c.Sources.Verify != "required" || c.Sources.MaxSize.Bytes != 32<<20 || c.Sources.Timeout.Seconds() != 30 || c.Plugins[0].Verify != "off" {
		t.Fatalf("%+v", c.Sources)
	}
	wantRefused(t, map[string]string{
		"[[plugin]]\npath = \"https://example.com/a.wasm\"\n":              `[[plugin]] #1: path "https://example.com/a.wasm": an https:// plugin needs sha256`,
		"[[plugin]]\nname = \"x\"\npath = \"http://example.com/a.wasm\"\n": `[[plugin]] "x": path "http://example.com/a.wasm": plain http is refused`,
		"[[plugin]]\npath = \"oci://r.io/a:1\"\nverify = \"sometimes\"\n":  `verify must be "required", "if-signed" or "off", not "sometimes"`,
		"[[plugin]]\npath = \"a.wasm\"\nverify = \"required\"\n":           "verify, keys and keyless settings apply to oci:// plugins only",
		"[sources]\nverify = \"maybe\"\n":                                  `[sources]: verify must be`,
		"[sources]\ntimeout = \"soon\"\n":                                  `[sources] timeout: invalid duration`,
		"[sources]\nmax_size = \"huge\"\n":                                 `[sources] max_size: invalid size`,
		"[sources]\nmirror = \"x\"\n":                                      `unknown key "sources.mirror"`,
	})
}

// TestSourceCredentialsRefused: a remote path with a login in it is
// refused without repeating the password (the other checks quote the
// path).
func TestSourceCredentialsRefused(t *testing.T) {
	for _, path := range []string{"http://u:s3cret@example.com/a.wasm", "https://u:s3cret@example.com/a.wasm",
		"oci://u:s3cret@r.io/a:1", "https://u:s3cret@example.com/a.wasm#sha256=nothex"} {
		_, err := Parse([]byte("[[plugin]]\npath = \"" + path + "\"\n"))
		if err == nil || strings.Contains(err.Error(), "s3cret") || !strings.Contains(err.Error(), "credentials") {
			t.Errorf("%s: %v", path, err)
		}
	}
	if _, err := Parse([]byte("[[plugin]]\npath = \"oci://r.io/a@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\"\n")); err != nil {
		t.Fatal(err)
	}
}
