package wasmbin

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/tetratelabs/wazero"
)

// TestRenameImports renames one function import of a real module: the
// result lists the new namespace, keeps every other import and export, and
// compiles and instantiates against a host module of that name.
func TestRenameImports(t *testing.T) {
	in := readTestdata(t, "plugin.wasm")
	before, err := Inspect(in)
	if err != nil {
		t.Fatal(err)
	}
	out, n, err := RenameImports(in, func(mod, name string) (string, bool) {
		if mod == "extism:host/env" && name == "input_length" {
			return "mcpwasm:host/test-" + strings.Repeat("x", 200), true // a longer name: the section's size changes
		}
		return "", false
	})
	if err != nil || n != 1 {
		t.Fatalf("RenameImports: %d, %v", n, err)
	}
	after, err := Inspect(out)
	if err != nil {
		t.Fatalf("the result does not parse: %v", err)
	}
	if len(after.Imports) != len(before.Imports) || len(after.Exports) != len(before.Exports) {
		t.Fatalf("imports %d -> %d, exports %d -> %d", len(before.Imports), len(after.Imports), len(before.Exports), len(after.Exports))
	}
	for i, imp := range after.Imports {
		want := before.Imports[i]
		if want.Module == "extism:host/env" && want.Name == "input_length" {
			want.Module = "mcpwasm:host/test-" + strings.Repeat("x", 200)
		}
		if imp != want {
			t.Errorf("import %d: %+v, want %+v", i, imp, want)
		}
	}
	ctx := context.Background()
	rt := wazero.NewRuntime(ctx)
	defer rt.Close(ctx)
	compiled, err := rt.CompileModule(ctx, out)
	if err != nil {
		t.Fatalf("wazero refuses the result: %v", err)
	}
	found := false
	for _, f := range compiled.ImportedFunctions() {
		mod, name, _ := f.Import()
		found = found || (strings.HasPrefix(mod, "mcpwasm:host/test-") && name == "input_length")
	}
	if !found {
		t.Error("wazero does not see the renamed import")
	}

	// Nothing to rename: the input itself comes back.
	same, n, err := RenameImports(in, func(string, string) (string, bool) { return "", false })
	if err != nil || n != 0 || !bytes.Equal(same, in) {
		t.Errorf("no-op rename: %d, %v, changed=%v", n, err, !bytes.Equal(same, in))
	}
}

// TestRenameImportsOnlyFunctions: a global import of the same name is
// left alone, and a module with no import section comes back unchanged.
func TestRenameImportsOnlyFunctions(t *testing.T) {
	m := module(sec(secImport, leb(1), str("env"), str("g"), []byte{byte(KindGlobal), 0x7f, 0x00}))
	out, n, err := RenameImports(m, func(string, string) (string, bool) { return "other", true })
	if err != nil || n != 0 || !bytes.Equal(out, m) {
		t.Errorf("global import: %d, %v", n, err)
	}
	empty := module()
	if out, n, err := RenameImports(empty, func(string, string) (string, bool) { return "x", true }); err != nil || n != 0 || !bytes.Equal(out, empty) {
		t.Errorf("empty module: %d, %v", n, err)
	}
	if _, _, err := RenameImports(module(sec(secImport, leb(3))), func(string, string) (string, bool) { return "x", true }); err == nil {
		t.Error("a truncated import section was accepted")
	}
}
