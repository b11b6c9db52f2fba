package wasmbin

import (
	"iter"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpwasm/mcpwasm/internal/fixture"
)

// declaredLocals sums the locals every function body of wasm declares.
func declaredLocals(t *testing.T, wasm []byte) uint64 {
	for _, s := range rawSections(t, wasm) {
		if s[0] != secCode {
			continue
		}
		r := &reader{b: s, off: 1}
		if _, err := r.u32(); err != nil {
			t.Fatal(err)
		}
		budget := uint64(1 << 62)
		if _, err := parseCode(r, &budget); err != nil {
			t.Fatal(err)
		}
		return 1<<62 - budget
	}
	return 0
}

// bigRepresentatives are the standard-Go modules the real-module tests
// check; other modules over 1 MiB are the same toolchain's output.
var bigRepresentatives = map[string]bool{"sdk_go.wasm": true, "conformance.wasm": true}

// builtModules lists the modules the repository builds: the built-in
// plugins, the example plugins and the test fixtures (testdata/build.sh and
// scripts/build-plugins.sh build them).
func builtModules(t *testing.T) []string {
	var files []string
	root := fixture.Root()
	for _, pattern := range []string{"testdata/wasm/*.wasm", "plugins/*/*.wasm", "plugins/builtin/wasm/*.wasm"} {
		m, _ := filepath.Glob(filepath.Join(root, pattern))
		for _, f := range m {
			// Standard Go's output is 3-4 MB each and alike; two stand for
			// all (fsprobe, pdk_go, pdk_http, jsonfetch add only minutes
			// under -race).
			if st, err := os.Stat(f); err == nil && st.Size() > 1<<20 && !bigRepresentatives[filepath.Base(f)] {
				t.Logf("%s: a standard-Go module like sdk_go.wasm and conformance.wasm; skipped", filepath.Base(f))
				continue
			}
			files = append(files, f)
		}
	}
	if built, _ := filepath.Glob(filepath.Join(fixture.Dir(), "*.wasm")); len(built) == 0 && fixture.Required() {
		fixture.Missing(t, "no fixture in testdata/wasm is built: run testdata/build.sh")
	}
	if len(files) == 0 {
		t.Fatal("no module found, not even the embedded plugins/builtin/wasm")
	}
	return files
}

// compiledModules yields the name and bytes of each of builtModules that
// wazero compiles (a fixture meant not to compile is logged and passed
// over); none at all fails the test.
func compiledModules(t *testing.T) iter.Seq2[string, []byte] {
	return func(yield func(string, []byte) bool) {
		n := 0
		defer func() {
			if n == 0 {
				t.Fatal("wazero compiles none of the built modules")
			}
		}()
		for _, f := range builtModules(t) {
			wasm, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			name := filepath.Base(f)
			if ok, _, _, p := wazeroCompiles(wasm); !ok || p != nil {
				t.Logf("%s: wazero does not compile it; skipped", name)
				continue
			}
			n++
			if !yield(name, wasm) {
				return
			}
		}
	}
}

// Real toolchain output (the repository's built-in plugins and built test
// fixtures: Rust, AssemblyScript, Go) that wazero compiles must pass
// Inspect and Preflight, and the patched module must compile too.
func TestRealModules(t *testing.T) {
	for name, wasm := range compiledModules(t) {
		m, err := Inspect(wasm)
		if err != nil {
			t.Errorf("%s: wazero compiles it but Inspect says: %v", name, err)
			continue
		}
		out, _, err := Preflight(wasm, policy(100_000))
		if err != nil {
			// Negative fixtures (imported_memory.wasm) are refused by policy.
			if msg := err.Error(); !strings.Contains(msg, "plugins may import") && !strings.Contains(msg, "plugins must define") {
				t.Errorf("%s: %v", name, err)
			}
			t.Logf("%s: refused: %v", name, err)
			continue
		}
		if ok, _, _, p := wazeroCompiles(out); !ok || p != nil {
			t.Errorf("%s: the patched module does not compile (%v)", name, p)
		}
		locals := declaredLocals(t, wasm)
		t.Logf("%s: %d bytes, %d imports, tables %+v, custom %q, %d locals (%.3f per byte)",
			name, len(wasm), len(m.Imports), m.Tables, m.CustomSections, locals, float64(locals)/float64(len(wasm)))
	}
}
