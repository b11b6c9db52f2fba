package wasmbin

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"sync"
	"testing"

	"github.com/tetratelabs/wazero"
)

var (
	compileRTOnce sync.Once
	compileRT     wazero.Runtime
)

// wazeroCompiles reports whether wazero (interpreter, default features)
// decodes and validates wasm, and the compiled module's imported and
// exported function names. A panic inside wazero is returned as an error.
func wazeroCompiles(wasm []byte) (ok bool, imports, exports []string, panicked error) {
	compileRTOnce.Do(func() {
		compileRT = wazero.NewRuntimeWithConfig(context.Background(), wazero.NewRuntimeConfigInterpreter())
	})
	defer func() {
		if r := recover(); r != nil {
			panicked = fmt.Errorf("wazero panicked: %v", r)
		}
	}()
	ctx := context.Background()
	c, err := compileRT.CompileModule(ctx, wasm)
	if err != nil {
		return false, nil, nil, nil
	}
	defer c.Close(ctx)
	for _, f := range c.ImportedFunctions() {
		mod, name, _ := f.Import()
		imports = append(imports, mod+"."+name)
	}
	for name := range c.ExportedFunctions() {
		exports = append(exports, name)
	}
	return true, imports, exports, nil
}

func funcImports(m *Module) (out []string) {
	for _, i := range m.Imports {
		if i.Kind == KindFunc {
			out = append(out, i.Module+"."+i.Name)
		}
	}
	return out
}

func funcExports(m *Module) map[string]bool {
	out := map[string]bool{}
	for _, e := range m.Exports {
		if e.Kind == KindFunc {
			out[e.Name] = true
		}
	}
	return out
}

// Every truncation of a valid module is refused, unless the cut falls
// between sections and leaves a complete module of its own (the header
// alone, sections before any function, or all but trailing custom
// sections): nothing can tell those from a deliberate module, and wazero,
// the oracle here, must compile each one Inspect accepts. Nothing panics.
func TestTruncation(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.wasm")
	if len(files) < 6 {
		t.Fatalf("testdata: %v", files)
	}
	for _, file := range files {
		wasm := readTestdata(t, filepath.Base(file))
		boundary := map[int]bool{8: true}
		off := 8
		for _, s := range rawSections(t, wasm) {
			off += len(s)
			boundary[off] = true
		}
		var accepted []int
		for n := 0; n < len(wasm); n++ {
			prefix := wasm[:n:n]
			_, ierr := Inspect(prefix)
			_, _, perr := Preflight(prefix, policy(1000))
			if ierr != nil {
				if perr == nil {
					t.Fatalf("%s[:%d]: Inspect failed (%v) but Preflight succeeded", file, n, ierr)
				}
				continue
			}
			accepted = append(accepted, n)
			if !boundary[n] {
				t.Fatalf("%s[:%d] of %d bytes: Inspect accepted a module cut inside a section", file, n, len(wasm))
			}
			if ok, _, _, _ := wazeroCompiles(prefix); !ok {
				t.Fatalf("%s[:%d]: Inspect accepted a truncated module that wazero refuses", file, n)
			}
		}
		// plugin.wasm: type, import, function, ...: only the header alone,
		// and the header with the type (and import) section, are complete.
		if filepath.Base(file) == "plugin.wasm" {
			secs := rawSections(t, wasm)
			typeEnd := 8 + len(secs[0])
			if want := []int{8, typeEnd, typeEnd + len(secs[1])}; !slices.Equal(accepted, want) {
				t.Errorf("plugin.wasm: accepted truncations at %v, want %v", accepted, want)
			}
		}
	}
}

// seeds are the testdata modules, hand-assembled corners, and the
// allocation bombs with their controls.
func seeds(t testing.TB) [][]byte {
	files, _ := filepath.Glob("testdata/*.wasm")
	var out [][]byte
	for _, f := range files {
		out = append(out, readTestdata(t, filepath.Base(f)))
	}
	typ := sec(1, leb(1), []byte{0x60, 0, 1, 0x7F})
	out = append(out,
		module(sec(0, str("c"), []byte{9}), typ,
			sec(2, leb(2), str("extism:host/env"), str("t"), []byte{4, 0, 0}, str("extism:host/user"), str("g"), []byte{3, 0x7F, 0}),
			sec(4, leb(2), []byte{0x70, 0x00, 3, 0x6F, 0x04, 1}),
			sec(5, leb(1), []byte{0x01, 1, 2}),
			sec(7, leb(1), str("memory"), []byte{2, 0})),
		module(typ, sec(3, leb(1), leb(0)), sec(4, leb(1), []byte{0x70, 0x01, 1, 0xff, 0xff, 0x03}),
			sec(7, leb(1), str("f"), []byte{0, 0}), sec(12, leb(0)), sec(10, leb(1), []byte{4, 0, 0x41, 7, 0x0b})),
	)
	for _, b := range bombs {
		out = append(out, b.build(1), b.build(0xFFFFFFF0))
	}
	for _, c := range dataMergeCases {
		out = append(out, c.wasm)
	}
	return out
}

func FuzzPreflight(f *testing.F) {
	for _, s := range seeds(f) {
		f.Add(s, uint32(1000))
	}
	f.Fuzz(func(t *testing.T, in []byte, limit uint32) {
		orig := bytes.Clone(in)
		before, ierr := Inspect(in)
		out, m, err := Preflight(in, policy(limit))
		if !bytes.Equal(in, orig) {
			t.Fatal("Preflight modified its input")
		}
		if ierr != nil {
			if err == nil {
				t.Fatalf("Inspect failed (%v) but Preflight succeeded", ierr)
			}
			// wazero must not see what Inspect refuses: it may be an
			// allocation bomb (see sections.go).
			return
		}
		// Whatever Inspect accepts is safe to hand to wazero, and wazero
		// must agree with it on the function imports and exports.
		wazeroOK, wImports, wExports, wPanic := wazeroCompiles(in)
		if wPanic != nil {
			t.Fatalf("Inspect accepted a module on which %v", wPanic)
		}
		if wazeroOK {
			if got := funcImports(before); !slices.Equal(got, wImports) {
				t.Fatalf("function imports %q, wazero says %q", got, wImports)
			}
			exp := funcExports(before)
			for _, name := range wExports {
				if !exp[name] {
					t.Fatalf("wazero exports function %q, Inspect does not (%v)", name, exp)
				}
			}
			if len(exp) != len(wExports) {
				t.Fatalf("function exports %v, wazero says %q", exp, wExports)
			}
		}
		if err != nil {
			return
		}
		after, err := Inspect(out)
		if err != nil {
			t.Fatalf("Inspect(patched): %v", err)
		}
		if !reflect.DeepEqual(after, m) {
			t.Fatalf("Inspect(patched) = %+v\nPreflight said       %+v", after, m)
		}
		if !reflect.DeepEqual(after.Imports, before.Imports) || !reflect.DeepEqual(after.Exports, before.Exports) ||
			!reflect.DeepEqual(after.Memories, before.Memories) || !reflect.DeepEqual(after.CustomSections, before.CustomSections) {
			t.Fatalf("patching changed more than tables:\nbefore %+v\nafter  %+v", before, after)
		}
		for i, tb := range after.Tables {
			b := before.Tables[i]
			if !tb.HasMax || tb.Max > uint64(limit) || tb.Min != b.Min || tb.ElemType != b.ElemType || tb.Is64 != b.Is64 ||
				(b.HasMax && b.Max <= uint64(limit) && tb.Max != b.Max) {
				t.Fatalf("table %d: %+v became %+v (limit %d)", i, b, tb, limit)
			}
		}
		if len(out) > 3*len(in)+minFillBudget {
			t.Fatalf("%d bytes became %d", len(in), len(out))
		}
		a, b := rawSections(t, in), rawSections(t, out)
		if len(a) != len(b) {
			t.Fatalf("%d sections became %d", len(a), len(b))
		}
		dataChanged, countChanged := false, false
		for i := range a {
			if a[i][0] == secData && !bytes.Equal(a[i], b[i]) {
				dataChanged = true
				continue
			}
			if a[i][0] == secDataCount && !bytes.Equal(a[i], b[i]) {
				countChanged = true
				continue
			}
			if a[i][0] != secTable && !bytes.Equal(a[i], b[i]) {
				t.Fatalf("section %d (id %d) changed", i, a[i][0])
			}
		}
		if countChanged && !dataChanged {
			t.Fatal("the data count section changed, the data section did not")
		}
		if dataChanged {
			if _, lay, _ := parse(in); lay.hasDataCount && !noSegmentNamed(in, lay.code) {
				t.Fatal("data segments merged in a module whose code names a segment")
			}
			if n, m := len(decodeData(t, in)), len(decodeData(t, out)); m >= n {
				t.Fatalf("the data section changed but its %d segments became %d", n, m)
			}
		}
		again, _, err := Preflight(out, policy(limit))
		if err != nil || !bytes.Equal(again, out) {
			t.Fatalf("Preflight of its own output: err %v, changed %v", err, !bytes.Equal(again, out))
		}
		ok, _, _, p := wazeroCompiles(out)
		if p != nil || wazeroOK != ok {
			t.Fatalf("wazero compiles the input: %v, the patched module: %v (panic: %v)", wazeroOK, ok, p)
		}
		// Merged data segments: the patched module fails to instantiate
		// exactly when the original does, or gives the same memory. (Memory
		// is limited to 16 pages here; larger ones fail to compile in both.)
		if dataChanged && ok {
			if _, err := sameInstantiation(in, out, 16); err != nil && !errors.Is(err, errInconclusive) {
				t.Fatal(err)
			}
		}
	})
}
