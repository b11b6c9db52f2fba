package source

import (
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	const d = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	for _, c := range []struct {
		in                             string
		kind                           Kind
		registry, repo, tag, dig, name string
		err                            string
	}{
		{in: "plugins/a.wasm", kind: File, name: "a"},
		{in: "oci://ghcr.io/acme/textkit:1.0", kind: OCI, registry: "ghcr.io", repo: "acme/textkit", tag: "1.0", name: "textkit"},
		{in: "oci://localhost:5000/tools/text-kit@" + d, kind: OCI, registry: "localhost:5000", repo: "tools/text-kit", dig: d, name: "text-kit"},
		{in: "oci://ghcr.io/acme/textkit:1.0@" + d, kind: OCI, registry: "ghcr.io", repo: "acme/textkit", tag: "1.0", dig: d, name: "textkit"},
		{in: "OCI://ghcr.io/acme/x:v1", kind: OCI, registry: "ghcr.io", repo: "acme/x", tag: "v1", name: "x"},
		{in: "https://example.com/dl/hash-kit.wasm?x=1", kind: HTTPS, name: "hash-kit"},
		{in: "oci://ghcr.io/acme/textkit", err: "name a tag"},
		{in: "oci://textkit:1.0", err: "not an OCI reference"},
		{in: "oci://ghcr.io/acme/textkit@sha512:abcd", err: "not an OCI reference"},
		{in: "oci://ghcr.io/acme/textkit@sha256:ABCDEF0123456789abcdef0123456789abcdef0123456789abcdef0123456789", err: "not an OCI reference"},
		{in: "oci://ghcr.io/acme/Textkit:1", err: "not an OCI reference"},
		{in: "http://example.com/a.wasm", err: "plain http is refused"},
		{in: "https://user:pw@example.com/a.wasm", err: "credentials in a plugin source"},
		{in: "https:///a.wasm", err: "no host"},
	} {
		r, err := Parse(c.in)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("Parse(%q) = %+v, %v; want error containing %q", c.in, r, err, c.err)
			}
			if err != nil && !strings.Contains(err.Error(), strings.Split(c.in, "@")[0][:10]) && !strings.Contains(c.in, "user:pw") {
				t.Errorf("Parse(%q): the error does not name the source: %v", c.in, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("Parse(%q): %v", c.in, err)
			continue
		}
		if r.Kind != c.kind || r.Registry != c.registry || r.Repository != c.repo || r.Tag != c.tag || r.Digest != c.dig || r.Name() != c.name {
			t.Errorf("Parse(%q) = kind %d %q %q %q %q name %q", c.in, r.Kind, r.Registry, r.Repository, r.Tag, r.Digest, r.Name())
		}
	}
	if !IsRemote("oci://x/y:z") || !IsRemote("HTTPS://x") || IsRemote("./oci:/x") {
		t.Error("IsRemote")
	}
}

func TestLoopbackPlainHTTP(t *testing.T) {
	for host, want := range map[string]bool{"localhost:5000": true, "127.0.0.1:1234": true, "[::1]:80": true, "127.3.4.5": true,
		"ghcr.io": false, "10.0.0.1:5000": false, "localhost.example.com": false} {
		if got := isLoopbackHost(host); got != want {
			t.Errorf("isLoopbackHost(%q) = %v", host, got)
		}
	}
}
