//go:build !wasip1

package mcpwasm

import (
	"encoding/binary"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// TestWasmBuild compiles the example plugins for wasip1 with the Go
// toolchain running the tests, and checks what they export and import: a
// plugin has the resource, prompt and completion exports only if it imports
// those packages, and imports only the host functions it calls.
func TestWasmBuild(t *testing.T) {
	if testing.Short() {
		t.Skip("builds wasm modules")
	}
	optional := []string{"complete", "get_prompt", "list_prompts", "list_resource_templates", "list_resources", "read_resource"}
	for _, tc := range []struct {
		pkg          string
		exports      []string // besides _initialize, memory and the tool exports
		hostImported []string // from extism:host/user
	}{
		{"./example", nil, nil},
		{"./example/notes", optional, []string{"notify_logging_message"}},
	} {
		out := filepath.Join(t.TempDir(), "plugin.wasm")
		cmd := exec.Command("go", "build", "-buildmode=c-shared", "-o", out, tc.pkg)
		cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm")
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", tc.pkg, err, b)
		}
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		exports, imports, err := wasmNames(b)
		if err != nil {
			t.Fatalf("%s: %v", tc.pkg, err)
		}
		want := append([]string{"_initialize", "call_tool", "list_tools", "mcpwasm_abi_version", "memory"}, tc.exports...)
		sort.Strings(want)
		if strings.Join(exports, " ") != strings.Join(want, " ") {
			t.Errorf("%s exports %v, want %v", tc.pkg, exports, want)
		}
		var user []string
		for _, imp := range imports {
			if m, f, _ := strings.Cut(imp, " "); m == "extism:host/user" {
				user = append(user, f)
			}
		}
		if strings.Join(user, " ") != strings.Join(tc.hostImported, " ") {
			t.Errorf("%s imports the host functions %v, want %v", tc.pkg, user, tc.hostImported)
		}
	}
}

// wasmNames lists a module's exports (sorted) and imports ("module name").
func wasmNames(b []byte) (exports, imports []string, err error) {
	if len(b) < 8 || string(b[:4]) != "\x00asm" {
		return nil, nil, errors.New("not a wasm module")
	}
	r := &wasmReader{b: b[8:]}
	for len(r.b) > 0 && r.err == nil {
		id := r.byte()
		sec := &wasmReader{b: r.bytes(int(r.uint()))}
		switch id {
		case 2: // imports
			for n := sec.uint(); n > 0 && sec.err == nil; n-- {
				mod, name := sec.name(), sec.name()
				imports = append(imports, mod+" "+name)
				switch sec.byte() {
				case 0: // func: type index
					sec.uint()
				case 1: // table: reference type, limits
					sec.byte()
					sec.limits()
				case 2: // memory: limits
					sec.limits()
				case 3: // global: value type, mutability
					sec.byte()
					sec.byte()
				}
			}
		case 7: // exports
			for n := sec.uint(); n > 0 && sec.err == nil; n-- {
				exports = append(exports, sec.name())
				sec.byte()
				sec.uint()
			}
		}
		if sec.err != nil {
			return nil, nil, sec.err
		}
	}
	sort.Strings(exports)
	return exports, imports, r.err
}

type wasmReader struct {
	b   []byte
	err error
}

func (r *wasmReader) byte() byte {
	if len(r.b) == 0 {
		r.err = errors.New("truncated module")
		return 0
	}
	c := r.b[0]
	r.b = r.b[1:]
	return c
}

func (r *wasmReader) uint() uint64 {
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.err = errors.New("bad LEB128")
		r.b = nil
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *wasmReader) bytes(n int) []byte {
	if n > len(r.b) {
		r.err = errors.New("truncated module")
		n = len(r.b)
	}
	out := r.b[:n]
	r.b = r.b[n:]
	return out
}

func (r *wasmReader) limits() {
	if r.byte()&1 != 0 { // a maximum follows the minimum
		r.uint()
	}
	r.uint()
}

func (r *wasmReader) name() string { return string(r.bytes(int(r.uint()))) }
