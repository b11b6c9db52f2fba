package wasmbin

import (
	"fmt"
	"testing"
)

// A bomb is a small module in which one count or length, n, tells wazero
// 1.12's decoder how much to allocate before it checks n against the input.
// With n = 1 each is a valid module; with n near 2^32 wazero would ask for
// gigabytes (a fatal, unrecoverable out-of-memory: the first one was found
// by FuzzPreflight). Inspect must refuse every one of them.
type bomb struct {
	name  string
	build func(n uint32) []byte
	err   string // what Inspect's refusal mentions
}

var (
	bType = sec(1, leb(1), []byte{0x60, 0, 0}) // () -> ()
	bFunc = sec(3, leb(1), leb(0))
	bCode = sec(10, leb(1), leb(2), []byte{0, 0x0B}) // no locals, end
	bMem  = sec(5, leb(1), []byte{0, 1})
)

func nameSection(sub byte, contents []byte) []byte {
	return sec(0, str("name"), []byte{sub}, leb(uint64(len(contents))), contents)
}

var bombs = []bomb{
	{"type parameter count", func(n uint32) []byte {
		return module(sec(1, leb(1), []byte{0x60}, leb(uint64(n)), []byte{0x7F, 0}))
	}, "parameter"},
	{"import name length", func(n uint32) []byte {
		return module(bType, sec(2, leb(1), str("extism:host/env"), leb(uint64(n)), []byte("x"), []byte{0, 0}))
	}, "runs past the end"},
	{"function count", func(n uint32) []byte {
		return module(bType, sec(3, leb(uint64(n)), leb(0)), bCode)
	}, "cannot fit"},
	{"global count", func(n uint32) []byte {
		return module(sec(6, leb(uint64(n)), []byte{0x7F, 0, 0x41, 0, 0x0B}))
	}, "cannot fit"},
	{"export count", func(n uint32) []byte {
		return module(bMem, sec(7, leb(uint64(n)), str("memory"), []byte{2, 0}))
	}, "cannot fit"},
	{"element function index count", func(n uint32) []byte {
		return module(bType, bFunc, sec(4, leb(1), []byte{0x70, 0, 1}),
			sec(9, leb(1), leb(0), []byte{0x41, 0, 0x0B}, leb(uint64(n)), leb(0)), bCode)
	}, "cannot fit"},
	{"declared locals", func(n uint32) []byte {
		body := append(append(leb(1), leb(uint64(n))...), 0x7F, 0x0B)
		return module(bType, bFunc, sec(10, leb(1), leb(uint64(len(body))), body))
	}, "more than 50000 locals"},
	{"function body size", func(n uint32) []byte {
		return module(bType, bFunc, sec(10, leb(1), leb(uint64(n)+1), []byte{0, 0x0B}))
	}, "runs past the end"},
	{"data segment length", func(n uint32) []byte {
		return module(bMem, sec(11, leb(1), leb(1), leb(uint64(n)), []byte{0xAA}))
	}, "runs past the end"},
	{"name section function name count", func(n uint32) []byte {
		return module(bType, bFunc, bCode, nameSection(1, append(append(leb(uint64(n)), leb(0)...), str("f")...)))
	}, "cannot fit"},
	{"name section local name count", func(n uint32) []byte {
		return module(bType, bFunc, bCode, nameSection(2, append(append([]byte{1, 0}, leb(uint64(n))...), append(leb(0), str("x")...)...)))
	}, "cannot fit"},
	{"custom section size", func(n uint32) []byte {
		// One byte of contents: wazero refuses a module that ends in an
		// empty custom section (its reader reports EOF for a 0-byte read).
		return append(module(), append(append([]byte{0}, leb(uint64(n)+2)...), append(str("x"), 0)...)...)
	}, "run past the end"},
}

func TestAllocationBombs(t *testing.T) {
	for _, b := range bombs {
		control := b.build(1)
		if _, err := Inspect(control); err != nil {
			t.Errorf("%s: control: %v", b.name, err)
		}
		if ok, _, _, p := wazeroCompiles(control); !ok || p != nil {
			t.Errorf("%s: wazero does not compile the control module (%v)", b.name, p)
		}
		for _, n := range []uint32{0xFFFFFFF0, 1 << 29} {
			_, err := Inspect(b.build(n))
			checkErr(t, fmt.Sprintf("%s = %d", b.name, n), err, b.err)
		}
	}
}

// The locals limits: 50,000 per function, and no more declared locals
// than the module has bytes (beyond one function's worth).
func TestLocalsLimits(t *testing.T) {
	fn := func(decls ...uint32) []byte {
		body := leb(uint64(len(decls)))
		for _, d := range decls {
			body = append(append(body, leb(uint64(d))...), 0x7E)
		}
		return append(leb(uint64(len(body)+1)), append(body, 0x0B)...)
	}
	code := func(bodies ...[]byte) []byte {
		var fs []byte
		for range bodies {
			fs = append(fs, 0)
		}
		return module(bType, sec(3, leb(uint64(len(bodies))), fs), sec(10, append(leb(uint64(len(bodies))), flatten(bodies)...)))
	}
	for _, tc := range []struct {
		name string
		wasm []byte
		err  string
	}{
		{"50000 in one function", code(fn(50_000)), ""},
		{"50000 over two declarations", code(fn(25_000, 25_000)), ""},
		{"50001", code(fn(50_000, 1)), "more than 50000 locals"},
		{"overflowing declarations", code(fn(0xFFFFFFFF, 0xFFFFFFFF)), "more than 50000 locals"},
		{"two functions over the module budget", code(fn(50_000), fn(1)), "more locals than one per byte"},
	} {
		_, err := Inspect(tc.wasm)
		checkErr(t, tc.name, err, tc.err)
		if tc.err == "" {
			if ok, _, _, p := wazeroCompiles(tc.wasm); !ok || p != nil {
				t.Errorf("%s: wazero does not compile it (%v)", tc.name, p)
			}
		}
	}
}

func flatten(bs [][]byte) (out []byte) {
	for _, b := range bs {
		out = append(out, b...)
	}
	return out
}
