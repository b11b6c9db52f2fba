package confine

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestParseMode(t *testing.T) {
	for _, s := range []string{"auto", "required", "off"} {
		if m, err := ParseMode(s); err != nil || string(m) != s {
			t.Errorf("ParseMode(%q) = %q, %v", s, m, err)
		}
	}
	if _, err := ParseMode("on"); err == nil {
		t.Error("ParseMode(on): no error")
	}
}

func TestAllowsAndLacks(t *testing.T) {
	dir := t.TempDir()
	plugins, cache := filepath.Join(dir, "plugins"), filepath.Join(dir, "cache")
	for _, d := range []string{plugins, cache} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	// A link into the plugin folder counts as the folder (Landlock
	// follows it too).
	link := filepath.Join(dir, "link")
	if err := os.Symlink(plugins, link); err != nil {
		t.Fatal(err)
	}
	p := Policy{ReadOnly: []string{plugins}, ReadWrite: []string{cache}, BindTCP: []uint16{8080}, ConnectTCP: []uint16{443}}
	for _, c := range []struct {
		path  string
		write bool
		want  bool
	}{
		{plugins, false, true},
		{filepath.Join(plugins, "new.wasm"), false, true},
		{filepath.Join(link, "new.wasm"), false, true},
		{filepath.Join(plugins, "new.wasm"), true, false},
		{filepath.Join(cache, "x"), true, true},
		{dir + "/plugins2/x", false, false}, // a sibling with the same prefix
		{dir, false, false},
	} {
		if got := p.Allows(c.path, c.write); got != c.want {
			t.Errorf("Allows(%s, write=%v) = %v, want %v", c.path, c.write, got, c.want)
		}
	}
	next := Policy{ReadOnly: []string{filepath.Join(plugins, "a.wasm"), "/elsewhere"},
		ReadWrite: []string{filepath.Join(cache, "sub"), plugins}, BindTCP: []uint16{8080, 9090}, ConnectTCP: []uint16{443, 6379}}
	got := p.Lacks(next)
	want := []string{"write " + plugins, "read /elsewhere", "bind tcp port 9090", "connect tcp port 6379"}
	if !slices.Equal(got, want) {
		t.Errorf("Lacks = %q, want %q", got, want)
	}
	if l := p.Lacks(p); len(l) != 0 {
		t.Errorf("a policy lacks %q from itself", l)
	}
	open := p
	open.ConnectAnyTCP = true
	if l := open.Lacks(next); slices.Contains(l, "connect tcp port 6379") {
		t.Errorf("with connect open, Lacks still lists a port: %q", l)
	}
}

// TestLacking: what each kernel generation cannot enforce, and which of
// those make --confine=required refuse to start.
func TestLacking(t *testing.T) {
	for _, c := range []struct {
		abi          int
		seccomp      bool
		missing      int
		requiredFail bool
	}{
		{7, true, 0, false},
		{6, true, 0, false},
		{4, true, 1, false}, // IPC scoping only
		{3, true, 2, true},  // no TCP rules
		{0, true, 1, true},  // no Landlock
		{7, false, 1, true}, // no seccomp
	} {
		missing, err := lacking(c.abi, c.seccomp, Auto)
		if err != nil || len(missing) != c.missing {
			t.Errorf("auto, ABI %d, seccomp %v: missing %q, %v; want %d", c.abi, c.seccomp, missing, err, c.missing)
		}
		if _, err := lacking(c.abi, c.seccomp, Required); (err != nil) != c.requiredFail {
			t.Errorf("required, ABI %d, seccomp %v: error %v, want failure %v", c.abi, c.seccomp, err, c.requiredFail)
		}
	}
}
