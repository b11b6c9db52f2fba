package config

import (
	"strings"
	"testing"
)

// FuzzParse: a config file is hostile input like any other. Parse must
// return a config or an error for any bytes and never panic; a config it accepts must parse again the same way.
//
//	go test -run '^$' -fuzz FuzzParse -fuzztime 2m ./host/config/
func FuzzParse(f *testing.F) {
	for _, seed := range []string{
		"",
		"[server]\nname = \"x\"\nsession_timeout = \"5m\"\nmax_body = \"1MiB\"\n",
		"[defaults]\ntimeout = \"5s\"\nmemory = \"64MiB\"\nconcurrency = 8\n",
		"[[plugin]]\npath = \"a.wasm\"\nsha256 = \"" + strings.Repeat("a", 64) + "\"\n[plugin.config]\nk = { env = \"A\" }\n",
		"[[plugin]]\npath = \"oci://r.example/x:1\"\nverify = \"required\"\nkeys = [\"k.pub\"]\n[[plugin.net]]\nhosts = [\"*.example.com\", \"10.0.0.0/8\"]\nports = [443]\n",
		"[[plugin]]\npath = \"p.wasm\"\n[[plugin.fs]]\npath = \"/data\"\nmode = \"rw\"\n",
		"[server.auth]\nresource = \"https://m/mcp\"\ntokens_file = \"t\"\n[server.limits]\nrate = -1\ntrusted_proxies = [\"10.0.0.0/8\"]\n",
		"[sources]\nverify = \"if-signed\"\nmax_size = \"64MiB\"\ntimeout = \"2m\"\nidentity_regexp = \"^a$\"\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := Parse(data)
		if err != nil {
			if err.Error() == "" {
				t.Fatal("an empty error message")
			}
			return
		}
		if c == nil {
			t.Fatal("no config and no error")
		}
		if _, err := Parse(data); err != nil {
			t.Fatalf("accepted once, refused the second time: %v", err)
		}
	})
}
