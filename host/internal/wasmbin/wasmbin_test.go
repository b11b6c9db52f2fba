package wasmbin

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
)

var abiNamespaces = []string{"extism:host/env", "extism:host/user", "wasi_snapshot_preview1"}

func policy(limit uint32) Policy {
	return Policy{AllowedNamespaces: abiNamespaces, MaxTableElements: limit}
}

func readTestdata(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// leb is a minimal unsigned LEB128, written independently of appendU64.
func leb(v uint64) []byte {
	var b []byte
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if v == 0 {
			return append(b, c)
		}
		b = append(b, c|0x80)
	}
}

// sec is a section: id, size, contents.
func sec(id byte, parts ...[]byte) []byte {
	body := bytes.Join(parts, nil)
	return append(append([]byte{id}, leb(uint64(len(body)))...), body...)
}

// module is the header followed by sections.
func module(sections ...[]byte) []byte {
	return append([]byte("\x00asm\x01\x00\x00\x00"), bytes.Join(sections, nil)...)
}

func str(s string) []byte { return append(leb(uint64(len(s))), s...) }

// rawSections splits a module into its sections' bytes (id byte included),
// independently of parse.
func rawSections(t testing.TB, b []byte) [][]byte {
	t.Helper()
	var out [][]byte
	for off := 8; off < len(b); {
		start := off
		off++
		var size, shift uint64
		for {
			c := b[off]
			off++
			size |= uint64(c&0x7f) << shift
			shift += 7
			if c < 0x80 {
				break
			}
		}
		off += int(size)
		out = append(out, b[start:off])
	}
	return out
}

func TestInspectPlugin(t *testing.T) {
	m, err := Inspect(readTestdata(t, "plugin.wasm"))
	if err != nil {
		t.Fatal(err)
	}
	want := &Module{
		Types: []FuncType{{Results: []byte{0x7F}}, {Results: []byte{0x7E}}, {Params: []byte{0x7F}}, {Params: []byte{0x7F}, Results: []byte{0x7F}}},
		Imports: []Import{
			{"extism:host/env", "input_length", KindFunc, 1},
			{"wasi_snapshot_preview1", "proc_exit", KindFunc, 2},
		},
		Exports: []Export{
			{"memory", KindMemory}, {"list_tools", KindFunc}, {"call_tool", KindFunc},
			{"grow", KindFunc}, {"size", KindFunc}, {"dispatch", KindFunc},
		},
		Memories: []Limits{{Min: 1}},
		Tables:   []Table{{ElemType: 0x70, Limits: Limits{Min: 2}}},
	}
	if !reflect.DeepEqual(m, want) {
		t.Fatalf("Inspect = %+v\nwant      %+v", m, want)
	}
}

func TestPreflightNamespace(t *testing.T) {
	_, _, err := Preflight(readTestdata(t, "badns.wasm"), policy(1000))
	want := `import "env"."abort" (func) is from namespace "env"; plugins may import only from extism:host/env, extism:host/user, wasi_snapshot_preview1`
	if err == nil || err.Error() != want {
		t.Fatalf("err = %v\nwant  %s", err, want)
	}
	// Namespaces match exactly: no prefixes, no case folding.
	for _, ns := range []string{"extism:host", "extism:host/env/x", "Extism:host/env", "wasi_snapshot_preview2", ""} {
		wasm := module(sec(1, leb(1), []byte{0x60, 0, 0}), sec(2, leb(1), str(ns), str("f"), []byte{0, 0}))
		if _, _, err := Preflight(wasm, policy(1000)); err == nil || !strings.Contains(err.Error(), "is from namespace") {
			t.Errorf("namespace %q: err = %v, want a namespace error", ns, err)
		}
	}
	if _, _, err := Preflight(readTestdata(t, "plugin.wasm"), Policy{MaxTableElements: 10}); err == nil ||
		!strings.Contains(err.Error(), "plugins may import nothing") {
		t.Fatalf("empty allow-list: err = %v", err)
	}
}

func TestPreflightImportedMemoryAndTable(t *testing.T) {
	for file, want := range map[string]string{
		"importmem.wasm":   `import "extism:host/env"."memory" (memory): plugins must define their own memory, not import one`,
		"importtable.wasm": `import "extism:host/user"."table" (table): plugins must define their own tables, not import one`,
	} {
		wasm := readTestdata(t, file)
		if _, err := Inspect(wasm); err != nil {
			t.Fatalf("%s: Inspect: %v", file, err)
		}
		if _, _, err := Preflight(wasm, policy(1000)); err == nil || err.Error() != want {
			t.Errorf("%s: err = %v\nwant %s", file, err, want)
		}
	}
}

func TestPreflightCapsTables(t *testing.T) {
	in := readTestdata(t, "tables.wasm")
	orig := bytes.Clone(in)
	before, err := Inspect(in)
	if err != nil {
		t.Fatal(err)
	}
	wantBefore := []Table{
		{0x70, Limits{Min: 1}},
		{0x6F, Limits{Min: 0, Max: 4000000000, HasMax: true}},
		{0x70, Limits{Min: 1, Max: 5, HasMax: true}},
	}
	if !reflect.DeepEqual(before.Tables, wantBefore) {
		t.Fatalf("before: %+v", before.Tables)
	}
	out, m, err := Preflight(in, policy(1000))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(in, orig) {
		t.Fatal("Preflight modified its input")
	}
	wantAfter := []Table{
		{0x70, Limits{Min: 1, Max: 1000, HasMax: true}},
		{0x6F, Limits{Min: 0, Max: 1000, HasMax: true}},
		{0x70, Limits{Min: 1, Max: 5, HasMax: true}},
	}
	if !reflect.DeepEqual(m.Tables, wantAfter) {
		t.Fatalf("returned tables: %+v", m.Tables)
	}
	after, err := Inspect(out)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(after, m) {
		t.Fatalf("Inspect(patched) = %+v, Preflight said %+v", after, m)
	}
	// Exactly the table section differs, and it is the minimal encoding.
	a, b := rawSections(t, in), rawSections(t, out)
	if len(a) != len(b) {
		t.Fatalf("%d sections became %d", len(a), len(b))
	}
	for i := range a {
		if a[i][0] == secTable {
			want := sec(secTable, leb(3), []byte{0x70, 1, 1, 0xe8, 0x07, 0x6F, 1, 0, 0xe8, 0x07, 0x70, 1, 1, 5})
			if !bytes.Equal(b[i], want) {
				t.Fatalf("table section = % x, want % x", b[i], want)
			}
		} else if !bytes.Equal(a[i], b[i]) {
			t.Fatalf("section %d (id %d) changed", i, a[i][0])
		}
	}
	// Patching is idempotent and a module that needs nothing comes back as is.
	again, _, err := Preflight(out, policy(1000))
	if err != nil || !bytes.Equal(again, out) {
		t.Fatalf("second Preflight: err %v, changed %v", err, !bytes.Equal(again, out))
	}
}

func TestPreflightTableMinOverCap(t *testing.T) {
	_, _, err := Preflight(readTestdata(t, "plugin.wasm"), policy(1))
	if want := "table 0 starts with 2 elements, more than the limit of 1"; err == nil || err.Error() != want {
		t.Fatalf("err = %v, want %q", err, want)
	}
	if _, _, err := Preflight(readTestdata(t, "plugin.wasm"), policy(2)); err != nil {
		t.Fatalf("min == cap: %v", err)
	}
}

// A padded (non-minimal) LEB128 in the input comes out minimal; a table64
// stays 64-bit; the sections around the table are copied verbatim.
func TestPreflightReencode(t *testing.T) {
	custom := sec(0, str("before"), []byte{1, 2, 3})
	tables := sec(secTable, []byte{0x82, 0x80, 0x80, 0x80, 0x00}, // count 2, padded to 5 bytes
		[]byte{0x70, 0x00, 0x82, 0x80, 0x00},                         // funcref, min 2 (padded)
		[]byte{0x6F, 0x04, 0x81, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00}) // externref, table64, min 1 (padded)
	tail := sec(0, str("after"))
	in := module(custom, tables, tail)
	out, m, err := Preflight(in, policy(300))
	if err != nil {
		t.Fatal(err)
	}
	want := module(custom, sec(secTable, []byte{2, 0x70, 0x01, 2, 0xac, 0x02, 0x6F, 0x05, 1, 0xac, 0x02}), tail)
	if !bytes.Equal(out, want) {
		t.Fatalf("patched\n% x\nwant\n% x", out, want)
	}
	if !m.Tables[1].Is64 || m.Tables[1].Max != 300 || !reflect.DeepEqual(m.CustomSections, []string{"before", "after"}) {
		t.Fatalf("module %+v", m)
	}
}

func TestInspectEncodings(t *testing.T) {
	typ := sec(1, leb(1), []byte{0x60, 0, 0})
	imp := func(kind byte, desc ...byte) []byte {
		return sec(2, leb(1), str("extism:host/env"), str("x"), []byte{kind}, desc)
	}
	for _, tc := range []struct {
		name string
		wasm []byte
		err  string // "" means it parses
	}{
		{"empty module", module(), ""},
		{"func import", module(typ, imp(0, 0)), ""},
		{"global import i32 mut", module(imp(3, 0x7F, 1)), ""},
		{"global import externref", module(imp(3, 0x6F, 0)), ""},
		{"global import bad mut", module(imp(3, 0x7F, 2)), "mutability"},
		{"global import bad type", module(imp(3, 0x40, 0)), "value type"},
		{"global import typed ref", module(imp(3, 0x63, 0x70, 0)), "function-references"},
		{"tag import", module(typ, imp(4, 0, 0)), ""},
		{"tag import bad attribute", module(typ, imp(4, 1, 0)), "tag attribute"},
		{"unknown import kind", module(imp(5, 0)), "unknown import kind"},
		{"memory import shared", module(imp(2, 3, 1, 2)), ""},
		{"memory import shared without max", module(imp(2, 2, 1)), "needs a maximum"},
		{"memory64", module(sec(5, leb(1), []byte{0x05, 0x80, 0x80, 0x80, 0x80, 0x10, 0xff, 0xff, 0xff, 0xff, 0x1f})), ""},
		{"memory32 min over 32 bits", module(sec(5, leb(1), []byte{0x00, 0x80, 0x80, 0x80, 0x80, 0x10})), "does not fit"},
		{"u32 LEB of 6 bytes", module(sec(5, leb(1), []byte{0x00, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00})), "longer than"},
		{"limits flag 0x08", module(sec(5, leb(1), []byte{0x08, 1})), "invalid flag"},
		{"max below min", module(sec(5, leb(1), []byte{0x01, 2, 1})), "below minimum"},
		{"shared table", module(sec(4, leb(1), []byte{0x70, 0x03, 1, 2})), "cannot be shared"},
		{"table with initializer", module(sec(4, leb(1), []byte{0x40, 0x00, 0x70, 0x00, 1, 0xd0, 0x70, 0x0b})), "initializer expression"},
		{"typed ref table", module(sec(4, leb(1), []byte{0x63, 0x70, 0x00, 1})), "function-references"},
		{"bad elem type", module(sec(4, leb(1), []byte{0x7F, 0x00, 1})), "reference type 0x7f"},
		{"unknown export kind", module(sec(7, leb(1), str("e"), []byte{5, 0})), "unknown export kind"},
		{"invalid UTF-8 name", module(sec(7, leb(1), str("\xff"), []byte{0, 0})), "UTF-8"},
		{"custom section name too long", module(sec(0, leb(5), []byte("ab"))), "runs past"},
		{"unknown section id", module(sec(14)), "unknown section id 14"},
		{"repeated section", module(typ, typ), "out of order or repeated"},
		{"out of order", module(sec(7, leb(0)), sec(2, leb(0))), "out of order"},
		{"tag section after memory", module(sec(5, leb(0)), sec(13, leb(0)), sec(6, leb(0))), ""},
		{"tag section after global", module(sec(6, leb(0)), sec(13, leb(0))), "out of order"},
		{"data count before code", module(sec(12, leb(0)), sec(10, leb(0))), ""},
		{"trailing bytes in section", module(sec(5, leb(0), []byte{0})), "unexpected bytes"},
		{"section past end", append(module(), 1, 5, 0), "run past the end"},
		{"function without code", module(typ, sec(3, leb(1), leb(0))), "1 functions declared but 0"},
		{"data count mismatch", module(sec(12, leb(1))), "data count section says 1"},
		{"hostile import count", module(sec(2, leb(0xffffffff))), "cannot fit"},
		{"bad magic", []byte("\x00asn\x01\x00\x00\x00"), "bad magic"},
		{"short header", []byte("\x00asm\x01\x00"), "truncated header"},
		{"version 2", []byte("\x00asm\x02\x00\x00\x00"), "version 2"},
		{"component", []byte("\x00asm\x0d\x00\x01\x00"), "component"},
		{"nil", nil, "bad magic"},
	} {
		_, err := Inspect(tc.wasm)
		checkErr(t, tc.name, err, tc.err)
	}
}

// checkErr fails the test, naming what, unless err is as want says: nil
// for "", else an error that mentions want.
func checkErr(t *testing.T, what string, err error, want string) {
	t.Helper()
	switch {
	case want == "" && err != nil:
		t.Errorf("%s: %v", what, err)
	case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
		t.Errorf("%s: err = %v, want it to mention %q", what, err, want)
	}
}

// Claimed counts and lengths far beyond the input allocate nothing in
// proportion to the claim.
func TestHostileSizesDoNotAllocate(t *testing.T) {
	huge := leb(0xffffffff)
	inputs := [][]byte{
		module(sec(2, huge)),                            // import count
		module(sec(7, huge)),                            // export count
		module(sec(2, leb(1), huge)),                    // import module name length
		module(sec(0, huge)),                            // custom section name length
		module(sec(3, huge)),                            // function count
		append(module(), append([]byte{1}, huge...)...), // section size
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range 100 {
		for _, in := range inputs {
			if _, _, err := Preflight(in, policy(10)); err == nil {
				t.Fatalf("accepted % x", in)
			}
		}
	}
	runtime.ReadMemStats(&after)
	if n := after.TotalAlloc - before.TotalAlloc; n > 1<<20 {
		t.Fatalf("600 hostile inputs allocated %d bytes", n)
	}
}

func TestKindString(t *testing.T) {
	for k, want := range map[Kind]string{KindFunc: "func", KindTable: "table", KindMemory: "memory", KindGlobal: "global", KindTag: "tag", 9: "kind(0x09)"} {
		if got := k.String(); got != want {
			t.Errorf("%d: %q, want %q", k, got, want)
		}
	}
}

func TestAppendU64Minimal(t *testing.T) {
	for _, v := range []uint64{0, 1, 127, 128, 300, 1<<32 - 1, 1<<63 + 5, 1<<64 - 1} {
		got := appendU64(nil, v)
		r := &reader{b: got}
		back, err := r.uleb(64)
		if err != nil || back != v || r.left() != 0 || !bytes.Equal(got, leb(v)) {
			t.Errorf("%d: % x (read back %d, %v)", v, got, back, err)
		}
	}
}

// segments.wasm walks every section kind (see its .wat); wazero compiles
// it and the patched copy.
func TestSegmentsModule(t *testing.T) {
	in := readTestdata(t, "segments.wasm")
	m, err := Inspect(in)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(m.Imports, []Import{{"extism:host/env", "g", KindGlobal, 0}}) ||
		!reflect.DeepEqual(m.CustomSections, []string{"name"}) || len(m.Tables) != 3 {
		t.Fatalf("Inspect = %+v", m)
	}
	out, _, err := Preflight(in, policy(10))
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range [][]byte{in, out} {
		if ok, _, _, p := wazeroCompiles(b); !ok || p != nil {
			t.Fatalf("wazero does not compile it (%v)", p)
		}
	}
}

func TestImportType(t *testing.T) {
	m, err := Inspect(readTestdata(t, "plugin.wasm"))
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []string{"() -> i64", "(i32)"} {
		ft, ok := m.ImportType(m.Imports[i])
		if !ok || ft.String() != want {
			t.Errorf("import %d: %v %q, want %q", i, ok, ft, want)
		}
	}
	if s := (FuncType{Params: []byte{0x7E, 0x7E}, Results: []byte{0x7F, 0x7C}}).String(); s != "(i64, i64) -> (i32, f64)" {
		t.Errorf("%q", s)
	}
	if _, ok := m.ImportType(Import{Kind: KindMemory}); ok {
		t.Error("a memory import has a function type")
	}
}
