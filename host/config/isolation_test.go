package config

import (
	"strings"
	"testing"
)

func TestIsolationDefaults(t *testing.T) {
	t.Setenv(IsolationEnv, "")
	c, err := Parse([]byte("[[plugin]]\npath = \"a.wasm\"\n\n[[plugin]]\npath = \"b.wasm\"\nisolation = \"process\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ setting, source, want string }{
		{"", "a.wasm", IsolationInProcess},
		{"", "oci://ghcr.io/acme/x:1", IsolationProcess},
		{"", "https://example.com/x.wasm", IsolationProcess},
		{IsolationInProcess, "oci://ghcr.io/acme/x:1", IsolationInProcess},
		{c.Plugins[1].Isolation, "b.wasm", IsolationProcess},
	} {
		if got := c.IsolationFor(tc.setting, tc.source); got != tc.want {
			t.Errorf("IsolationFor(%q, %q) = %q, want %q", tc.setting, tc.source, got, tc.want)
		}
	}
	d, err := Parse([]byte("[defaults]\nisolation = \"process\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got := d.IsolationFor("", "a.wasm"); got != IsolationProcess {
		t.Errorf("[defaults] isolation ignored: %q", got)
	}
	t.Setenv(IsolationEnv, IsolationProcess)
	if got := c.IsolationFor("", "a.wasm"); got != IsolationProcess {
		t.Errorf("%s ignored: %q", IsolationEnv, got)
	}
	if got := c.IsolationFor(IsolationInProcess, "a.wasm"); got != IsolationInProcess {
		t.Errorf("%s overrode a plugin's own setting: %q", IsolationEnv, got)
	}
}

func TestIsolationRefused(t *testing.T) {
	for _, tc := range []struct{ toml, want string }{
		{"[[plugin]]\npath = \"a.wasm\"\nisolation = \"vm\"\n", `line 3: [[plugin]] #1: isolation is "vm"`},
		{"[defaults]\nisolation = \"Process\"\n", `line 2: [defaults]: isolation is "Process"`},
	} {
		_, err := Parse([]byte(tc.toml))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want %q", tc.toml, err, tc.want)
		}
	}
}
